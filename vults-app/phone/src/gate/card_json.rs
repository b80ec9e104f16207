//! A card as the phone gets it (its JSON, whole or cut to fit the broker's packets) and the
//! engine's answer for the phone's answer when it fits the card.

use crate::crypto::WireAnswer;
use serde_json::{Value, json};
use std::sync::Arc;
use vults_core::agents::Target;
use vults_engine::messages::{CardAnswer, CardId, PendingCard};
use vults_engine::present::{Presentation, Surface};

/// The presentation's part of a card's JSON (docs/phone.md, "A card"): the title's parts, the
/// target's lines and the folder as the one rule shows them, the marks, and the answers the page
/// may offer. The page draws its header, its warnings and its buttons from these alone.
fn shown_json(p: &Presentation) -> Value {
    json!({
        "title": {
            "agent": p.title.agent,
            "tool": p.title.tool,
            "kind": p.title.kind.as_str(),
        },
        "lines": p.target,
        "shown_folder": p.folder,
        "marks": {
            "destructive": p.marks.destructive,
            "hidden": p.marks.hidden,
            "too_long": p.marks.too_long,
            "too_large": p.marks.too_large,
        },
        "offers": p.offers(Surface::Phone).iter().map(|a| a.as_str()).collect::<Vec<_>>(),
    })
}

/// `base` with the presentation's fields added.
fn with_shown(mut base: Value, p: &Presentation) -> Value {
    if let (Value::Object(out), Value::Object(shown)) = (&mut base, shown_json(p)) {
        out.extend(shown);
    }
    base
}

/// The engine's answer for a phone's answer, if it fits the card: a question card takes
/// answers (one per question) or a deny; a plan card also a deny with the person's feedback;
/// any other card allow, deny, or — when the card offers it — always.
pub(super) fn fit(card: &PendingCard, answer: &WireAnswer) -> Option<CardAnswer> {
    match (card.question, answer) {
        (_, WireAnswer::Deny) => Some(CardAnswer::Deny),
        // Words for the agent only where the desktop card takes them: a plan's Keep planning.
        (_, WireAnswer::DenyWith(words)) if card.plan().is_some() => {
            Some(CardAnswer::DenyWith(words.clone()))
        }
        (true, WireAnswer::Answers(items)) => {
            let expected = match &card.call.target {
                Target::Questions { questions } => questions.len(),
                _ => return None,
            };
            (items.len() == expected).then(|| CardAnswer::Answers(items.clone()))
        }
        (false, WireAnswer::Allow) => Some(CardAnswer::Allow),
        (false, WireAnswer::Always) if card.always_rule.is_some() && card.destructive.is_none() => {
            Some(CardAnswer::AlwaysAllow)
        }
        _ => None,
    }
}

#[cfg(any(test, feature = "test-support"))]
thread_local! {
    static RENDERS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many cards' JSON [`card_json`] has made on this thread (tests: once per card, never
/// per poll). Only with the `test-support` feature.
#[cfg(any(test, feature = "test-support"))]
pub fn card_json_calls() -> u64 {
    RENDERS.with(std::cell::Cell::get)
}

/// A card as the phone shows it: the same content as the desktop card.
pub fn card_json(c: &PendingCard) -> Value {
    #[cfg(any(test, feature = "test-support"))]
    RENDERS.with(|n| n.set(n.get() + 1));
    let arrived = vults_engine::clock::unix_ms(c.arrived);
    let shown = Presentation::of(c);
    let always = shown
        .offers(Surface::Phone)
        .contains(&vults_engine::present::Answer::Always);
    let base = json!({
        "id": c.id,
        "agent": c.identity.display_name(),
        "folder": c.folder,
        "tool": c.call.tool,
        "kind": c.call.kind,
        "target": c.call.target,
        "destructive": c.destructive,
        "reason": vults_notify::words::reason_words(&c.reason),
        "always": always,
        // What the phone's Always answers from then on, in the card's own words: the window's
        // sentence, in the app's language (the rest of the page's words come from words.js).
        "always_words": c.always_rule.as_ref().filter(|_| always).map(vults_notify::words::rule_words),
        "question": c.question,
        "arrived": arrived,
        // What the desktop card shows besides the target: the agent's own words, and the
        // unified diff of an edit, a write over an existing file or a patch (docs/phone.md).
        "said": c.context.said,
        // A plan review: the plan's markdown, drawn by the page; Approve and Keep planning.
        "plan": c.context.plan,
        // Something it shows has a hidden character (a bidi control, a zero-width space): the
        // page writes each out as ‹U+202E›, as the desktop does, and flags the card.
        "hidden": shown.marks.hidden,
        "diff": vults_engine::diff::card_diff(&c.call, &c.context).map(|d| vults_engine::diff::to_json(&d)),
    });
    with_shown(base, &shown)
}

/// A card too large to send whole: what it is and where, its first line, and that it was cut;
/// the phone shows it so and offers only Deny (an Allow must see what it authorizes).
pub(super) fn cut_json(c: &PendingCard, bytes: usize) -> Value {
    let shown = Presentation::of(c).cut(bytes);
    let base = json!({
        "id": c.id,
        "agent": c.identity.display_name(),
        "folder": c.folder,
        "tool": c.call.tool,
        "kind": c.call.kind,
        "target": {"type": "cut", "summary": c.call.target.summary()},
        "destructive": c.destructive,
        "reason": vults_notify::words::reason_words(&c.reason),
        "always": false,
        "question": c.question,
        "arrived": vults_engine::clock::unix_ms(c.arrived),
        "too_large": bytes,
    });
    let mut out = with_shown(base, &shown);
    // Only the target's summary travels (its first line, cut): the card was cut to fit.
    if let Some(lines) = out.get_mut("lines") {
        *lines = json!([vults_engine::present::shown(&c.call.target.summary()).0]);
    }
    out
}

/// The list reply's JSON, under `limit` bytes when there is one: the largest cards are sent
/// cut ([`cut_json`]) until it fits. Put together from each card's JSON as made when it came.
/// Returns the reply and the ids sent cut.
pub(super) fn fit_list(
    nonce: &str,
    now_ms: u64,
    extra: &str,
    cards: &[(CardId, Arc<str>, String)],
    limit: Option<usize>,
) -> (String, std::collections::BTreeSet<CardId>) {
    let head = format!(
        "{{\"re\":{},\"ok\":true,\"now\":{now_ms}{extra},\"cards\":[",
        Value::String(nonce.to_string())
    );
    let mut cut = std::collections::BTreeSet::new();
    let mut total = head.len() + 2 + cards.iter().map(|c| c.1.len() + 1).sum::<usize>();
    if let Some(limit) = limit {
        let mut by_size: Vec<&(CardId, Arc<str>, String)> = cards.iter().collect();
        by_size.sort_by_key(|c| std::cmp::Reverse(c.1.len()));
        for (id, whole, short) in by_size {
            if total <= limit {
                break;
            }
            total = total - whole.len() + short.len();
            cut.insert(*id);
        }
    }
    let mut out = String::with_capacity(total);
    out.push_str(&head);
    for (i, (id, whole, short)) in cards.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(if cut.contains(id) { short } else { whole });
    }
    out.push_str("]}");
    (out, cut)
}
