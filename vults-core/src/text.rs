//! Bytes read from outside (an agent's stdin, a settings file) before they are parsed.

/// The UTF-8 byte-order mark: legal at the start of a text file, not in JSON.
pub const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without one leading UTF-8 byte-order mark, which some editors and Windows tools
/// write: every JSON reader skips it here, in one place, before parsing.
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_one_leading_byte_order_mark_is_stripped() {
        assert_eq!(strip_bom(b"\xEF\xBB\xBF{}"), b"{}");
        assert_eq!(strip_bom(b"{}"), b"{}");
        assert_eq!(strip_bom(b""), b"");
        assert_eq!(strip_bom(b"\xEF\xBB"), b"\xEF\xBB");
        assert_eq!(strip_bom(b" \xEF\xBB\xBF{}"), b" \xEF\xBB\xBF{}");
        assert_eq!(strip_bom(b"\xEF\xBB\xBF\xEF\xBB\xBF{}"), b"\xEF\xBB\xBF{}");
        assert_eq!(strip_bom("\u{feff}[1]".as_bytes()), b"[1]");
    }
}
