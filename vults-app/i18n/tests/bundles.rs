//! Every language under `assets/i18n/` says everything English says, with the same arguments:
//! a message missing from a language, one it has that English lacks, or one whose `{ $name }`
//! arguments differ, fails here. So does a file that does not parse, and a message that holds a
//! character Vults would show as hidden (`‹U+…›`): Vults' own words never carry one.

use crate::check;
use std::collections::BTreeSet;

#[test]
fn every_language_has_every_message_with_the_same_arguments() {
    let all = check::languages(&check::root());
    assert!(all["en"].contains_key("language-name"));
    assert!(all.len() >= 2, "English and Brazilian Portuguese ship");
    let wrong = check::parity(&check::root());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_language_is_compiled_in_and_names_itself() {
    let folders: BTreeSet<String> = check::languages(&check::root()).into_keys().collect();
    let compiled: BTreeSet<String> = vults_i18n::languages()
        .into_iter()
        .map(|l| l.tag.to_string())
        .collect();
    assert_eq!(folders, compiled);
    for language in vults_i18n::languages() {
        assert!(
            vults_i18n::has(language.tag, "language-name"),
            "{}",
            language.tag
        );
        assert_ne!(language.name, language.tag, "{} names itself", language.tag);
    }
}

#[test]
fn no_message_holds_a_character_vults_shows_as_hidden() {
    for (tag, _) in check::languages(&check::root()) {
        for file in std::fs::read_dir(check::root().join(&tag)).unwrap() {
            let file = file.unwrap().path();
            let text = std::fs::read_to_string(&file).unwrap();
            for (n, line) in text.lines().enumerate() {
                let shown = vults_core::text::reveal(line);
                assert!(
                    !shown.hidden,
                    "{}:{}: a hidden character",
                    file.display(),
                    n + 1
                );
            }
        }
    }
}
