//! Structural promises of the crate, read from its source.

/// Quiet never answers anything: its module names no card, answer, intent or key, and imports
/// nothing of the crate's but nothing at all (it is pure: settings in, a `QuietNow` out).
#[test]
fn the_quiet_module_cannot_answer() {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/quiet.rs"))
        .expect("src/quiet.rs");
    let code = src.split("#[cfg(test)]").next().unwrap();
    let code: String = code
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    for word in [
        "crate::",
        "super::",
        "CardId",
        "Intent",
        "Allow",
        "Deny",
        "NoticeAction",
        "Offer",
    ] {
        assert!(!code.contains(word), "quiet.rs names {word:?}");
    }
    // The check bites: the same scan over the notice module finds what answers.
    let notice =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/notice.rs")).unwrap();
    assert!(notice.contains("Allow"));
}
