//! Names a phone gives and claims: a device name checked and made unique, and a claimed device
//! id written out so the audit can show it without trusting it.

use crate::devices::Device;

pub(super) const MAX_NAME_CHARS: usize = 40;
/// Claimed ids are shown escaped and cut to this many characters.
pub(super) const MAX_CLAIM_CHARS: usize = 24;

/// A claimed device id as the audit shows it: ASCII letters, digits, `-` and `_` as they are,
/// anything else escaped (`\u{202e}`), cut to `MAX_CLAIM_CHARS` characters, marked as claimed.
pub fn claimed_id(claim: &str) -> String {
    let mut out = String::new();
    for (i, c) in claim.chars().enumerate() {
        if i == MAX_CLAIM_CHARS {
            out.push_str("...");
            break;
        }
        if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
            out.push(c);
        } else {
            out.extend(c.escape_unicode());
        }
    }
    format!("claimed id \"{out}\"")
}

/// Whether a device name may hold `c`: nothing the card's one rule hides
/// ([`vults_core::text::is_hidden`]: control and format characters, bidi overrides and
/// isolates, zero-width and invisible fillers, variation selectors, line and paragraph
/// separators…), and no whitespace but the plain space.
pub(super) fn name_char_ok(c: char) -> bool {
    !(vults_core::text::is_hidden(c) || (c.is_whitespace() && c != ' '))
}

/// A device name's form for telling names apart: spaces collapsed, lower case.
pub(super) fn folded(name: &str) -> String {
    name.split(' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// `name`, or `name (2)`, `name (3)`… — the first no other device (`id` aside) has.
pub(super) fn unique_name(name: &str, devices: &[Device], id: &str) -> String {
    let taken = |n: &str| {
        devices
            .iter()
            .any(|d| d.id != id && folded(&d.name) == folded(n))
    };
    if !taken(name) {
        return name.to_string();
    }
    (2u32..)
        .map(|i| format!("{name} ({i})"))
        .find(|n| !taken(n))
        .unwrap_or_else(|| name.to_string())
}
