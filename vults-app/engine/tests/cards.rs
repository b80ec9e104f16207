//! What the engine puts on a card besides the tool call, through the real hook: the agent's
//! own words, every edit, and the file as it is now (read once, when the card is made), so the
//! card can show a numbered diff.

use crate::common::*;
use serde_json::json;
use vults_engine::diff::{Tag, card_diff};
use vults_engine::messages::{AnsweredBy, CardAnswer, EngineCommand, EngineEvent, PendingCard};

fn card_added(engine: &vults_engine::EngineHandle) -> PendingCard {
    match wait_for(engine, |e| matches!(e, EngineEvent::CardAdded(_))) {
        Some(EngineEvent::CardAdded(c)) => c,
        _ => panic!("no card came up"),
    }
}

fn deny(engine: &vults_engine::EngineHandle, card: &PendingCard) {
    assert!(engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::Deny,
        by: AnsweredBy::Click,
    }));
}

#[test]
fn an_edit_card_carries_the_file_now_and_a_command_card_the_agents_words() {
    let home = Home::new("cards");
    let engine = start(&home, true);
    let src = home.dir.join("lib.rs");
    let text: String = (1..=30).map(|i| format!("fn f{i}() {{}}\n")).collect();
    std::fs::write(&src, &text).unwrap();
    let path = src.to_string_lossy().to_string();
    let payload = json!({"session_id": "s-1", "cwd": "/work/proj", "hook_event_name": "PermissionRequest",
        "tool_name": "Edit", "tool_input": {"file_path": path, "old_string": "fn f20() {}", "new_string": "fn twenty() {}"}});
    let child = hook(
        &home,
        &["--agent", "claude", "PermissionRequest"],
        &payload.to_string(),
    );
    let card = card_added(&engine);
    assert_eq!(card.context.before(&path), Some(text.as_str()));
    assert_eq!(card.context.edits.len(), 1);
    let diff = card_diff(&card.call, &card.context).expect("a diff");
    let changed: Vec<_> = diff[0].hunks[0]
        .lines
        .iter()
        .filter(|l| l.tag != Tag::Context)
        .map(|l| (l.tag, l.line(), l.text.as_str()))
        .collect();
    assert_eq!(
        changed,
        vec![
            (Tag::Removed, Some(20), "fn f20() {}"),
            (Tag::Added, Some(20), "fn twenty() {}")
        ]
    );
    deny(&engine, &card);
    hook_output(child);
    assert_eq!(
        std::fs::read_to_string(&src).unwrap(),
        text,
        "reading leaves the file as it was"
    );

    let mut payload = bash("s-1", "cargo test && git push");
    payload["tool_input"]["description"] = json!("Run the tests, then push");
    let child = hook(
        &home,
        &["--agent", "claude", "PermissionRequest"],
        &payload.to_string(),
    );
    let card = card_added(&engine);
    assert_eq!(
        card.context.said.as_deref(),
        Some("Run the tests, then push")
    );
    assert!(card.context.before.is_empty());
    deny(&engine, &card);
    hook_output(child);
}
