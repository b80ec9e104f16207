//! What the card and the audit say is what happened to the agent: questions go through the one
//! decision point, and a card answered in the agent's own terminal is withdrawn as such.

use crate::common::*;
use serde_json::json;
use std::time::Duration;
use vults_app::engine::EngineHandle;
use vults_app::model::{AuditEntry, EngineEvent, PendingCard};

fn card_added(engine: &EngineHandle) -> PendingCard {
    match wait_for(engine, |e| matches!(e, EngineEvent::CardAdded(_))) {
        Some(EngineEvent::CardAdded(c)) => c,
        _ => panic!("no card came up"),
    }
}

fn audited(engine: &EngineHandle, decision: &str) -> AuditEntry {
    match wait_for(
        engine,
        |e| matches!(e, EngineEvent::Audited(l) if l.len() == 1 && l[0].decision == decision),
    ) {
        Some(EngineEvent::Audited(mut l)) => l.remove(0),
        _ => panic!("no {decision} was audited"),
    }
}

fn write_policies(home: &Home, text: &str) {
    let paths = home.paths();
    std::fs::create_dir_all(&paths.config_dir).unwrap();
    std::fs::write(paths.policies_file(), text).unwrap();
}

fn policies_loaded(engine: &EngineHandle, n: usize) {
    assert!(
        wait_for(
            engine,
            |e| matches!(e, EngineEvent::Policies(p) if p.count == n && p.error.is_none())
        )
        .is_some(),
        "{n} policies were not loaded"
    );
}

fn question(session: &str) -> String {
    json!({"session_id": session, "cwd": "/work/proj", "hook_event_name": "PreToolUse",
        "tool_name": "AskUserQuestion", "tool_input": {"questions": [
            {"question": "Which color?", "header": "Color",
             "options": [{"label": "Blue"}, {"label": "Red"}], "multiSelect": false}]}})
    .to_string()
}

const QUESTION_DENY: &str = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Denied from Vults"}}"#;

#[test]
fn a_question_policy_denies_a_question_in_the_agents_shape_without_a_card() {
    let home = Home::new("qdeny");
    write_policies(
        &home,
        "[[policy]]\nname = \"no questions\"\nkind = \"question\"\naction = \"deny\"\n",
    );
    let engine = start(&home, true);
    policies_loaded(&engine, 1);
    let child = hook(
        &home,
        &["--agent", "claude", "--ask", "PreToolUse"],
        &question("q-deny"),
    );
    assert_eq!(hook_output(child), QUESTION_DENY);
    let line = audited(&engine, "deny");
    assert_eq!(line.by, "policy:no questions");
    assert_eq!(line.tool, "AskUserQuestion");
    assert!(
        !drain_for(&engine, Duration::from_millis(300))
            .iter()
            .any(|e| matches!(e, EngineEvent::CardAdded(_))),
        "a denied question raises no card"
    );

    // OpenCode's plugin reads only answers for a question: the deny cannot reach it, so the
    // hook prints nothing (OpenCode asks in its own prompt) and the audit says so.
    let child = hook(
        &home,
        &["--agent", "opencode", "--ask", "PreToolUse"],
        &question("q-oc"),
    );
    assert_eq!(hook_output(child), "");
    let line = audited(&engine, "undelivered");
    assert_eq!(line.by, "policy:no questions");
    assert!(line.detail.unwrap().contains("OpenCode"));
}

#[test]
fn a_question_ask_policy_sends_it_to_a_card_and_an_allow_policy_never_answers_it() {
    let home = Home::new("qask");
    write_policies(
        &home,
        "[[policy]]\nname = \"all allowed\"\nagents = [\"claude\"]\naction = \"allow\"\n\n\
         [[policy]]\nname = \"questions to me\"\nkind = \"question\"\naction = \"ask\"\n",
    );
    let engine = start(&home, true);
    policies_loaded(&engine, 2);
    let child = hook(
        &home,
        &["--agent", "claude", "--ask", "PreToolUse"],
        &question("q-ask"),
    );
    let card = card_added(&engine);
    assert!(card.question);
    assert_eq!(card.reason, "policy questions to me");
    drop(child);

    // Without the ask policy, the allow policy still does not answer it: a card, as always.
    write_policies(
        &home,
        "[[policy]]\nname = \"all allowed\"\nagents = [\"claude\"]\naction = \"allow\"\n",
    );
    policies_loaded(&engine, 1);
    let _child = hook(
        &home,
        &["--agent", "claude", "--ask", "PreToolUse"],
        &question("q-allow"),
    );
    let card = card_added(&engine);
    assert!(card.question);
    assert_eq!(card.reason, "a question for you");
}
