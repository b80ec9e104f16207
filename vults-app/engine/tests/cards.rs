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

/// Claude Code asking to leave plan mode, as the pinned CLI sends it (docs/other-agents.md,
/// "Plan review"), with a plan longer than a wire string.
fn plan_request(session: &str) -> (serde_json::Value, String) {
    let plan =
        "# Plan\n\n## Steps\n\n".to_string() + &"- write the marker, then check it\n".repeat(80);
    let payload = json!({"session_id": session, "cwd": "/work/proj", "permission_mode": "plan",
        "hook_event_name": "PermissionRequest", "tool_name": "ExitPlanMode",
        "tool_input": {"plan": plan, "planFilePath": "/home/me/.claude/plans/p.md"}});
    (payload, plan)
}

#[test]
fn a_plan_review_is_a_plan_card_approved_with_the_plan_and_kept_with_the_feedback() {
    let home = Home::new("plan");
    let engine = start(&home, true);
    let (payload, plan) = plan_request("s-plan");
    let child = hook(
        &home,
        &["--agent", "claude", "PermissionRequest"],
        &payload.to_string(),
    );
    let card = card_added(&engine);
    assert_eq!(card.plan(), Some(plan.as_str()), "the whole plan, typed");
    assert!(card.always_rule.is_none() && card.file_rule.is_none());
    assert!(engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::Allow,
        by: AnsweredBy::Click,
    }));
    let printed: serde_json::Value = serde_json::from_str(&hook_output(child)).unwrap();
    assert_eq!(
        printed["hookSpecificOutput"]["decision"],
        json!({"behavior": "allow", "updatedInput": payload["tool_input"]})
    );

    // Keep planning: the feedback reaches the agent as the deny's message, and the audit says
    // what it was told.
    let child = hook(
        &home,
        &["--agent", "claude", "PermissionRequest"],
        &payload.to_string(),
    );
    let card = card_added(&engine);
    assert!(engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::DenyWith("  Also say how the marker is checked\n".into()),
        by: AnsweredBy::Click,
    }));
    let printed: serde_json::Value = serde_json::from_str(&hook_output(child)).unwrap();
    assert_eq!(
        printed["hookSpecificOutput"]["decision"],
        json!({"behavior": "deny", "message": "Also say how the marker is checked"})
    );
    let audited = wait_for(
        &engine,
        |e| matches!(e, EngineEvent::Audited(lines) if lines.iter().any(|l| l.decision == "deny")),
    );
    let Some(EngineEvent::Audited(lines)) = audited else {
        panic!("no audit line for the kept plan")
    };
    let line = lines.iter().find(|l| l.decision == "deny").unwrap();
    assert_eq!(
        line.detail.as_deref(),
        Some("told the agent: Also say how the marker is checked")
    );

    // An ExitPlanMode with no plan (no plan file was written) and another agent's plan tool are
    // ordinary cards.
    let child = hook(
        &home,
        &["--agent", "claude", "PermissionRequest"],
        &json!({"session_id": "s-plan", "cwd": "/work/proj", "hook_event_name": "PermissionRequest",
            "tool_name": "ExitPlanMode", "tool_input": {}})
        .to_string(),
    );
    let card = card_added(&engine);
    assert_eq!(card.plan(), None);
    deny(&engine, &card);
    hook_output(child);
    let child = hook(
        &home,
        &["--agent", "qwen", "PermissionRequest"],
        &json!({"session_id": "q", "cwd": "/work/proj", "hook_event_name": "PermissionRequest",
            "tool_name": "exit_plan_mode", "tool_input": {"plan": "# P"}})
        .to_string(),
    );
    let card = card_added(&engine);
    assert_eq!(card.plan(), None);
    assert!(card.always_rule.is_some());
    deny(&engine, &card);
    hook_output(child);
}
