//! The phone page's own statement of what a person cannot see (`HIDDEN` in
//! `assets/phone/phone.js`) against the app's one rule, `vults_core::text::HIDDEN`, over every
//! code point; and a card whose target hides a character, as the page's JSON carries it and as
//! the page then shows it; and the page's words (`assets/phone/words.js`) against the bundles.

use std::ops::RangeInclusive;
use vults_core::text::{HIDDEN, reveal};

const PHONE_JS: &str = include_str!("../../../assets/phone/phone.js");

/// The rule as phone.js's line states it: what a failing test says to paste.
fn js_line() -> String {
    let one = |c: u32| {
        if c <= 0xFFFF {
            format!("\\u{c:04X}")
        } else {
            format!("\\u{{{c:X}}}")
        }
    };
    let class: String = HIDDEN
        .iter()
        .map(|r| {
            if r.start() == r.end() {
                one(*r.start())
            } else {
                format!("{}-{}", one(*r.start()), one(*r.end()))
            }
        })
        .collect();
    format!("const HIDDEN = /[{class}]/gu;")
}

/// phone.js's `HIDDEN` character class, read back into ranges: `\uXXXX` and `\u{X…}` escapes,
/// single or as `a-b` ranges, and nothing else (anything else fails the read).
fn js_ranges() -> Vec<RangeInclusive<u32>> {
    parse(phone_js_line())
}

/// phone.js's line that states `HIDDEN`.
fn phone_js_line() -> &'static str {
    PHONE_JS
        .lines()
        .find(|l| l.starts_with("const HIDDEN = "))
        .expect("phone.js states its HIDDEN table on a line of its own")
}

fn parse(line: &str) -> Vec<RangeInclusive<u32>> {
    let class = line
        .strip_prefix("const HIDDEN = /[")
        .and_then(|l| l.strip_suffix("]/gu;"))
        .unwrap_or_else(|| panic!("HIDDEN is one character class with the u flag: {line}"));
    // Tokens: a code point (`Some`) or a `-` (`None`).
    let mut tokens = Vec::new();
    let mut rest = class;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('-') {
            tokens.push(None);
            rest = r;
            continue;
        }
        let r = rest
            .strip_prefix("\\u")
            .unwrap_or_else(|| panic!("not an escape at {rest:?}"));
        let (hex, r) = match r.strip_prefix('{') {
            Some(braced) => {
                let end = braced.find('}').expect("a closing brace");
                (&braced[..end], &braced[end + 1..])
            }
            None => (&r[..4], &r[4..]),
        };
        tokens.push(Some(u32::from_str_radix(hex, 16).expect("hex digits")));
        rest = r;
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let from = tokens[i].expect("a range starts with a code point");
        if tokens.get(i + 1) == Some(&None) {
            let to = tokens[i + 2].expect("a range ends with a code point");
            out.push(from..=to);
            i += 3;
        } else {
            out.push(from..=from);
            i += 1;
        }
    }
    out
}

#[test]
fn the_phone_page_hides_exactly_what_the_app_hides_at_every_code_point() {
    let js = js_ranges();
    let mut differ = Vec::new();
    for c in 0..=0x10FFFFu32 {
        let app = char::from_u32(c).is_some_and(vults_core::text::is_hidden);
        let page = js.iter().any(|r| r.contains(&c));
        // Surrogates are no characters: the page never sees one in a string it shows.
        if (0xD800..=0xDFFF).contains(&c) {
            continue;
        }
        if app != page {
            differ.push(format!("U+{c:04X} (app {app}, page {page})"));
        }
    }
    assert!(
        differ.is_empty(),
        "phone.js's HIDDEN and vults_core::text::HIDDEN differ at {} code points, first {:?}; \
         its line should read:\n{}",
        differ.len(),
        &differ[..differ.len().min(8)],
        js_line()
    );
    // The reader itself: the line as the app would write it reads back as the app's ranges.
    assert_eq!(parse(&js_line()), HIDDEN);
}

/// The phone page's reveal, as phone.js writes it, with its table: each character in it
/// written `‹U+XXXX›`, a carriage return before a newline kept.
fn page_reveal(text: &str) -> String {
    let js = js_ranges();
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    for (i, c) in chars.iter().enumerate() {
        let hidden = js.iter().any(|r| r.contains(&(*c as u32)));
        if hidden && !(*c == '\r' && chars.get(i + 1) == Some(&'\n')) {
            out.push_str(&format!("‹U+{:04X}›", *c as u32));
        } else {
            out.push(*c);
        }
    }
    out
}

#[test]
fn a_card_whose_target_hides_a_character_is_flagged_and_the_page_writes_it_out() {
    use vults_core::agents::Target;
    use vults_core::protocol::{AgentKind, Identity};
    use vults_engine::messages::{PendingCard, Reason, SessionKey};
    let target = "cat /tmp/notes\u{1D173}.txt";
    let card = PendingCard {
        id: 9,
        agent: AgentKind::Claude,
        identity: Identity::Builtin(AgentKind::Claude),
        session: SessionKey {
            identity: "claude".into(),
            session: "s".into(),
        },
        folder: "/w".into(),
        call: vults_core::agents::ToolCall {
            tool: "Bash".into(),
            target: Target::Command {
                command: target.into(),
            },
            ..vults_core::agents::read_tool_call(&serde_json::json!({"tool_name": "Bash"}))
        },
        destructive: None,
        reason: Reason::NoRule,
        always_rule: None,
        file_rule: None,
        question: false,
        arrived: std::time::SystemTime::UNIX_EPOCH,
        context: Default::default(),
    };
    let json = vults_phone::gate::card_json(&card);
    assert_eq!(json["hidden"], true, "the page flags the card: {json}");
    // The presentation's part, which the page draws its header, marks and buttons from: the
    // target's line as the one rule shows it, the mark, and Allow offered on the page (it shows
    // the escape and the flag), never from a notification (the push and the desktop's tests).
    assert_eq!(
        json["lines"],
        serde_json::json!(["cat /tmp/notes‹U+1D173›.txt"])
    );
    assert_eq!(json["marks"]["hidden"], true, "{json}");
    assert_eq!(json["title"]["kind"], "permission", "{json}");
    assert_eq!(
        json["offers"],
        serde_json::json!(["allow", "deny"]),
        "{json}"
    );
    let sent = json["target"]["command"].as_str().unwrap();
    assert_eq!(sent, target, "the JSON carries the target as it is");
    assert_eq!(page_reveal(sent), "cat /tmp/notes‹U+1D173›.txt");
    assert_eq!(page_reveal(sent), reveal(sent).text);
    assert_eq!(page_reveal("a\r\nb\rc"), "a\r\nb‹U+000D›c");
}

/// words.js as made from the bundles: every `phone-` message in every language.
fn words_js() -> String {
    format!(
        "// words.js — the phone page's words in every language Vults speaks, made from\n\
         // assets/i18n/<tag>/phone.ftl by vults_i18n::page_words. Do not edit: change the .ftl\n\
         // files and run `VULTS_BLESS=1 cargo test -p vults-phone page` (docs/translating.md).\n\
         'use strict';\n\
         // eslint-disable-next-line no-unused-vars\n\
         const WORDS = {};\n",
        vults_i18n::page_words("phone-")
    )
}

/// The page's words are the bundles' (a message changed or a language added without making
/// words.js again fails here; `VULTS_BLESS=1` writes it), each language has every message, and
/// every word the page draws is one of them.
#[test]
fn the_pages_words_are_the_bundles_phone_messages() {
    let path = vults_tests::workspace_root().join("assets/phone/words.js");
    let made = words_js();
    if std::env::var("VULTS_BLESS").as_deref() == Ok("1") {
        std::fs::write(&path, &made).unwrap();
    }
    let shipped = std::fs::read_to_string(&path).unwrap();
    assert!(
        shipped == made,
        "assets/phone/words.js is not the bundles' phone messages: run \
         `VULTS_BLESS=1 cargo test -p vults-phone page` and commit it"
    );
    let json = made
        .split_once("const WORDS = ")
        .and_then(|(_, r)| r.trim_end().strip_suffix(';'))
        .unwrap();
    let words: serde_json::Value = serde_json::from_str(json).expect("words.js's table is JSON");
    let en = words["en"].as_object().unwrap();
    let pt = words["pt-BR"].as_object().unwrap();
    assert_eq!(
        en.keys().collect::<Vec<_>>(),
        pt.keys().collect::<Vec<_>>(),
        "every language has every message"
    );
    assert_eq!(pt["phone-allow"], serde_json::json!(["Permitir"]));
    assert_eq!(
        en["phone-destructive"],
        serde_json::json!(["Destructive: ", {"v": "why"}])
    );
    // Every id phone.js and index.html draw is in the table.
    let page = format!(
        "{PHONE_JS}{}",
        include_str!("../../../assets/phone/index.html")
    );
    let mut used = 0;
    for (i, _) in page
        .match_indices("'phone-")
        .chain(page.match_indices("\"phone-"))
    {
        let id: String = page[i + 1..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        assert!(
            en.contains_key(&id),
            "the page draws {id}, which no bundle has"
        );
        used += 1;
    }
    assert!(
        used > 30,
        "the page draws its words from the table ({used})"
    );
}

/// The page's own formatter with words.js, in Node (`tests/phone-browser/words.test.mjs`):
/// the browser's language negotiated, arguments, plural choices, English for what a language
/// lacks. Skipped where `node` does not run.
#[test]
fn the_pages_formatter_reads_words_js_as_fluent_means_it() {
    let root = vults_tests::workspace_root();
    let out = match std::process::Command::new("node")
        .current_dir(root.join("tests/phone-browser"))
        .arg("words.test.mjs")
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            eprintln!("skipped: node does not run ({e})");
            return;
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains(" passed, 0 failed") && !text.contains("not ok"),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The card's reason and the sentence under Always come in the app's language, worded as the
/// window words them: the page draws them as they come (the rest of its words are words.js').
#[test]
fn a_cards_reason_and_always_words_come_in_the_apps_language() {
    use vults_core::agents::Target;
    use vults_core::protocol::{AgentKind, Identity};
    use vults_core::rules::AlwaysRule;
    use vults_engine::messages::{PendingCard, Reason, SessionKey};
    let card = |reason: Reason, destructive: Option<String>| {
        let identity = Identity::Builtin(AgentKind::Claude);
        let call = vults_core::agents::ToolCall {
            tool: "Bash".into(),
            target: Target::Command {
                command: "cargo test".into(),
            },
            ..vults_core::agents::read_tool_call(&serde_json::json!({"tool_name": "Bash"}))
        };
        PendingCard {
            id: 4,
            agent: AgentKind::Claude,
            always_rule: destructive
                .is_none()
                .then(|| AlwaysRule::for_call(&identity, "/w", &call, 0)),
            identity,
            session: SessionKey {
                identity: "claude".into(),
                session: "s".into(),
            },
            folder: "/w".into(),
            call,
            destructive,
            reason,
            file_rule: None,
            question: false,
            arrived: std::time::SystemTime::UNIX_EPOCH,
            context: Default::default(),
        }
    };
    let asked = card(Reason::Policy("ask-bash".into()), None);
    let destructive = card(Reason::Destructive("rm -r".into()), Some("rm -r".into()));
    let rule = asked.always_rule.clone().unwrap();
    {
        let _pt = vults_i18n::scoped(&vults_i18n::Choice::Language("pt-BR".into()));
        let json = vults_phone::gate::card_json(&asked);
        assert_eq!(json["reason"], "política ask-bash", "{json}");
        assert_eq!(json["always"], true, "{json}");
        assert_eq!(
            json["always_words"],
            "Claude Code pode executar exatamente este comando com Bash, nesta pasta.",
            "{json}"
        );
        let json = vults_phone::gate::card_json(&destructive);
        assert_eq!(json["reason"], "destrutivo: rm -r", "{json}");
        assert_eq!(json["always_words"], serde_json::Value::Null, "{json}");
        let json = vults_phone::gate::card_json(&card(Reason::NoRule, None));
        assert_eq!(json["reason"], "nenhuma regra", "{json}");
    }
    let _en = vults_i18n::scoped(&vults_i18n::Choice::Language("en".into()));
    let json = vults_phone::gate::card_json(&asked);
    assert_eq!(json["reason"], "policy ask-bash", "{json}");
    // In English, the bundles say exactly the rule's own English sentence.
    assert_eq!(json["always_words"], rule.words().as_str(), "{json}");
}

/// An edit's parts are named in the page's words ("substituir" / "por" in pt-BR), never in a
/// fixed English.
#[test]
fn an_edits_parts_are_named_in_the_pages_words() {
    assert!(PHONE_JS.contains("t('phone-edit-replace')"));
    assert!(PHONE_JS.contains("t('phone-edit-with')"));
    assert!(!PHONE_JS.contains("textContent: 'replace'"));
    assert!(!PHONE_JS.contains("textContent: 'with'"));
    let _pt = vults_i18n::scoped(&vults_i18n::Choice::Language("pt-BR".into()));
    assert_eq!(vults_i18n::text("phone-edit-replace"), "substituir");
    assert_eq!(vults_i18n::text("phone-edit-with"), "por");
}
