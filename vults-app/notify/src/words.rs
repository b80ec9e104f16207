//! A card's words that the window, the notification and the phone page all say, worded by the
//! bundles in the active language: the rule sentence under Always (`rules.ftl`) and why the
//! card asks (`card.ftl`). One place, so the phone never says it otherwise than the window.

use vults_engine::messages::Reason;
use vults_i18n::tr;

/// What an Always rule answers, in the person's language (the card under its Always button,
/// Settings → Rules, History, the phone page): [`vults_core::rules::AlwaysRule::sentence`]
/// worded by the bundles, which say in English exactly what
/// [`vults_core::rules::RuleSentence::english`] says.
pub fn rule_words(rule: &vults_core::rules::AlwaysRule) -> String {
    sentence_words(&rule.sentence())
}

/// A rule's sentence worded by the bundles (`rule-…`).
pub fn sentence_words(sentence: &vults_core::rules::RuleSentence) -> String {
    let id = sentence.action.message_id();
    match sentence.action.file() {
        Some(file) => {
            let file = if file.is_empty() {
                tr!("rule-this-file")
            } else {
                file.to_owned()
            };
            tr!(id, who = &sentence.who, tool = &sentence.tool, file = file)
        }
        None => tr!(id, who = &sentence.who, tool = &sentence.tool),
    }
}

/// Why a card asks a person, in the person's language ("no rule", "destructive: rm -r"). What
/// made it destructive, a policy's name and a rule's id are arguments, as they came.
pub fn reason_words(reason: &Reason) -> String {
    match reason {
        Reason::Destructive(what) => tr!("card-reason-destructive", what = what.as_str()),
        Reason::Policy(name) => tr!("card-reason-policy", name = name.as_str()),
        Reason::Rule(id) => tr!("card-reason-rule", id = id.as_str()),
        Reason::NoRule => tr!("card-reason-no-rule"),
        Reason::Question => tr!("card-reason-question"),
    }
}
