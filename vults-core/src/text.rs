//! Text from outside: bytes read (an agent's stdin, a settings file) before they are parsed,
//! text shown to a person with its invisible characters made visible ([`reveal`]), and text
//! written into XML ([`xml_escape`]).

use std::borrow::Cow;
use std::ops::RangeInclusive;

/// The UTF-8 byte-order mark: legal at the start of a text file, not in JSON.
pub const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without one leading UTF-8 byte-order mark, which some editors and Windows tools
/// write: every JSON reader skips it here, in one place, before parsing.
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes)
}

/// Text as a person should read it, and whether anything in it was hidden. The marks are `‹`
/// and `›` (single guillemets), which the window's built-in fonts have in both their
/// proportional and monospace faces (`⟨ ⟩` are missing from the proportional one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revealed<'a> {
    /// The text with every hidden character written as `‹U+XXXX›`.
    pub text: Cow<'a, str>,
    /// Whether any character was hidden.
    pub hidden: bool,
}

/// Every code point a person cannot see, or sees as something it is not, where text is read:
/// the one rule of what is hidden ([`is_hidden`]), sorted and apart. The card, History, the
/// desktop notification, the phone's push, the phone's device names and the phone page
/// (`assets/phone/phone.js`, whose table a golden test compares with this one over every code
/// point) all read it.
///
/// Control characters (C0 but newline and tab, DEL, C1: ESC draws as a bare box); format
/// characters (Unicode category Cf: the bidi controls that reorder `/tmp/\u{202e}txt.exe` into
/// `/tmp/exe.txt`, zero-width spaces and joiners, the word joiner, the BOM, the soft hyphen,
/// the prepended concatenation marks such as U+0600 and U+110BD, the Egyptian hieroglyph and
/// shorthand format controls, the musical symbol beams U+1D173–1D17A, tag characters); the line
/// and paragraph separators; variation selectors; the combining grapheme joiner; the Hangul
/// fillers; and the Specials block before the replacement character (U+FFF0–FFFB: unassigned
/// ones and the interlinear annotation marks).
pub const HIDDEN: &[RangeInclusive<u32>] = &[
    0x00..=0x08,
    0x0B..=0x1F,
    0x7F..=0x9F,
    0xAD..=0xAD,
    0x34F..=0x34F,
    0x600..=0x605,
    0x61C..=0x61C,
    0x6DD..=0x6DD,
    0x70F..=0x70F,
    0x890..=0x891,
    0x8E2..=0x8E2,
    0x115F..=0x1160,
    0x17B4..=0x17B5,
    0x180B..=0x180F,
    0x200B..=0x200F,
    0x2028..=0x202E,
    0x2060..=0x206F,
    0x3164..=0x3164,
    0xFE00..=0xFE0F,
    0xFEFF..=0xFEFF,
    0xFFA0..=0xFFA0,
    0xFFF0..=0xFFFB,
    0x110BD..=0x110BD,
    0x110CD..=0x110CD,
    0x13430..=0x1343F,
    0x1BCA0..=0x1BCA3,
    0x1D173..=0x1D17A,
    0xE0000..=0xE0FFF,
];

/// Whether `c` shows as nothing, or as something it is not, where text is read: whether it is
/// in [`HIDDEN`], the one rule every surface that shows a target reads.
pub fn is_hidden(c: char) -> bool {
    let c = c as u32;
    if (0x20..0x7F).contains(&c) {
        return false;
    }
    let at = HIDDEN.partition_point(|r| *r.end() < c);
    HIDDEN.get(at).is_some_and(|r| r.contains(&c))
}

/// `text` with each hidden character ([`is_hidden`]) written visibly as `‹U+202E›`, and whether
/// there was any. Every view that shows a target (card, flock, rules, History, the desktop
/// notification and the phone's push; the phone page has [`HIDDEN`] in JavaScript, checked
/// against it) shows text through this, so `exa\u{200b}mple.com` never
/// reads as `example.com`. Newlines and tabs stay as they are.
pub fn reveal(text: &str) -> Revealed<'_> {
    if !has_hidden(text) {
        return Revealed {
            text: Cow::Borrowed(text),
            hidden: false,
        };
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if is_hidden(c) && !(c == '\r' && chars.peek() == Some(&'\n')) {
            out.push_str(&format!("‹U+{:04X}›", c as u32));
        } else {
            out.push(c);
        }
    }
    Revealed {
        text: Cow::Owned(out),
        hidden: true,
    }
}

/// Whether `text` has a hidden character ([`is_hidden`]); a carriage return that ends a line
/// (`\r\n`, a Windows file) is not one.
fn has_hidden(text: &str) -> bool {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if is_hidden(c) && !(c == '\r' && chars.peek() == Some(&'\n')) {
            return true;
        }
    }
    false
}

/// Whether any of `texts` has a hidden character ([`is_hidden`]; a `\r\n` line end is not).
pub fn any_hidden<'a>(texts: impl IntoIterator<Item = &'a str>) -> bool {
    texts.into_iter().any(has_hidden)
}

/// `text` escaped for XML and for markup read as XML (a notification server's `body-markup`, a
/// Windows toast, a launchd plist): `&`, `<`, `>`, `"` and `'` as entities, the rest as it is.
pub fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escape_writes_the_five_markup_characters_as_entities() {
        assert_eq!(
            xml_escape("cat <a> && echo \"it's\" \u{202e}"),
            "cat &lt;a&gt; &amp;&amp; echo &quot;it&apos;s&quot; \u{202e}"
        );
        assert_eq!(xml_escape("&amp;"), "&amp;amp;");
    }

    #[test]
    fn hidden_characters_are_written_out_and_flagged() {
        let r = reveal("/tmp/\u{202e}txt.exe");
        assert_eq!(r.text, "/tmp/‹U+202E›txt.exe");
        assert!(r.hidden);
        assert_eq!(reveal("exa\u{200b}mple.com").text, "exa‹U+200B›mple.com");
        assert_eq!(reveal("a\u{1b}[2Jb").text, "a‹U+001B›[2Jb");
        assert_eq!(reveal("x\u{e0041}y").text, "x‹U+E0041›y");
        assert_eq!(reveal("\u{feff}x\u{2066}").text, "‹U+FEFF›x‹U+2066›");
        assert_eq!(reveal("a\rb").text, "a‹U+000D›b");
        // A Windows line end is a line end; a carriage return elsewhere can hide what precedes it.
        assert!(!reveal("one\r\ntwo\r\n").hidden);
        assert_eq!(
            reveal("ok\r\nrm -rf ~\rls\r\n").text,
            "ok\r\nrm -rf ~‹U+000D›ls\r\n"
        );
        // What is plainly seen stays as it is, and is borrowed.
        for plain in [
            "",
            "cargo test --all",
            "línea\n\tdos",
            "日本語 🐦",
            "a\u{a0}b",
        ] {
            let r = reveal(plain);
            assert!(!r.hidden, "{plain:?}");
            assert!(matches!(r.text, Cow::Borrowed(_)));
        }
        assert!(any_hidden(["ok", "no\u{200d}"]));
        assert!(!any_hidden(["ok", "fine"]));
    }

    #[test]
    fn the_hidden_ranges_are_sorted_apart_and_what_is_hidden_says() {
        for pair in HIDDEN.windows(2) {
            assert!(
                pair[0].start() <= pair[0].end() && pair[0].end() + 1 < *pair[1].start(),
                "{pair:?}"
            );
        }
        let by_matching = |c: u32| HIDDEN.iter().any(|r| r.contains(&c));
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            assert_eq!(is_hidden(c), by_matching(c as u32), "U+{:04X}", c as u32);
        }
        for c in [
            '\u{600}',
            '\u{6DD}',
            '\u{70F}',
            '\u{890}',
            '\u{8E2}',
            '\u{110BD}',
            '\u{110CD}',
            '\u{13430}',
            '\u{1BCA3}',
            '\u{1D173}',
            '\u{1D17A}',
            '\u{FFF0}',
            '\u{E0FFF}',
        ] {
            assert!(is_hidden(c), "U+{:04X}", c as u32);
        }
        for c in [
            '\n',
            '\t',
            ' ',
            'a',
            '~',
            '\u{A0}',
            '\u{1D172}',
            '\u{1D17B}',
            '\u{FFFD}',
        ] {
            assert!(!is_hidden(c), "U+{:04X}", c as u32);
        }
        assert_eq!(
            reveal("cat /tmp/notes\u{1D173}.txt").text,
            "cat /tmp/notes‹U+1D173›.txt"
        );
    }

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
