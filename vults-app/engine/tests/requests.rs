//! Requests that want a reply: rules, policies, cards answered through the engine's API,
//! withdrawn cards, questions, and what must never answer a card.

use crate::common::*;
use serde_json::json;
use std::time::Duration;
use vults_core::protocol::{AnswerItem, VERSION};
use vults_engine::messages::{AnsweredBy, CardAnswer, EngineCommand, EngineEvent, PendingCard};

const CLAUDE_ALLOW: &str = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#;
const CLAUDE_DENY: &str = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Denied from Vults"}}}"#;

fn card_added(engine: &vults_engine::EngineHandle) -> PendingCard {
    match wait_for(engine, |e| matches!(e, EngineEvent::CardAdded(_))) {
        Some(EngineEvent::CardAdded(c)) => c,
        _ => panic!("no card came up"),
    }
}

fn audited(
    engine: &vults_engine::EngineHandle,
    decision: &str,
) -> vults_engine::messages::AuditEntry {
    match wait_for(
        engine,
        |e| matches!(e, EngineEvent::Audited(l) if l.len() == 1 && l[0].decision == decision),
    ) {
        Some(EngineEvent::Audited(mut l)) => l.remove(0),
        _ => panic!("no {decision} was audited"),
    }
}

fn claude_request(home: &Home, command: &str) -> std::process::Child {
    hook(
        home,
        &["--agent", "claude", "PermissionRequest"],
        &bash("s-1", command).to_string(),
    )
}

#[test]
fn a_card_answered_through_the_api_reaches_the_hook_in_the_agents_shape() {
    let home = Home::new("card");
    let engine = start(&home, true);
    let command = "cargo test --workspace && echo done";
    let child = claude_request(&home, command);
    let card = card_added(&engine);
    // The whole command, the folder, and the exact Always rule the card would make.
    assert_eq!(card.call.target.rule_key(), command);
    assert_eq!(card.folder, "/work/proj");
    assert!(!card.question);
    assert!(card.destructive.is_none());
    assert_eq!(card.always_rule.as_ref().unwrap().target, command);
    assert!(engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::Allow,
        by: AnsweredBy::Click,
    }));
    assert_eq!(hook_output(child), CLAUDE_ALLOW);
    assert!(matches!(
        wait_for(&engine, |e| matches!(e, EngineEvent::CardRemoved { .. })),
        Some(EngineEvent::CardRemoved {
            by: AnsweredBy::Click,
            ..
        })
    ));
    let line = audited(&engine, "allow");
    assert_eq!(
        (line.by.label().as_str(), line.target.as_str()),
        ("click", command)
    );

    // A deny reads as the agent's deny.
    let child = claude_request(&home, "rm -rf target");
    let card = card_added(&engine);
    assert!(card.destructive.is_some(), "rm -rf is destructive");
    assert!(
        card.always_rule.is_none(),
        "no Always on a destructive call"
    );
    engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::Deny,
        by: AnsweredBy::Phone("pixel".into()),
    });
    assert_eq!(hook_output(child), CLAUDE_DENY);
    assert_eq!(audited(&engine, "deny").by, "phone:pixel");
}

#[test]
fn always_allow_makes_an_exact_rule_that_answers_without_a_card_after_a_restart_too() {
    let home = Home::new("rule");
    let mut engine = start(&home, true);
    let child = claude_request(&home, "npm run build");
    let card = card_added(&engine);
    engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::AlwaysAllow,
        by: AnsweredBy::Click,
    });
    assert_eq!(hook_output(child), CLAUDE_ALLOW);
    let rule = match wait_for(
        &engine,
        |e| matches!(e, EngineEvent::Rules(r) if r.len() == 1),
    ) {
        Some(EngineEvent::Rules(mut r)) => r.remove(0),
        _ => panic!("the rule was not made"),
    };
    assert_eq!(rule.target, "npm run build");
    engine.stop();

    let engine = start(&home, true);
    // The rules and the audit's tail come at start in either order (the audit is read on a
    // thread of its own): one wait for both, so neither is passed over waiting for the other.
    let (mut rules, mut history) = (false, false);
    let _ = wait_for(&engine, |e| {
        match e {
            EngineEvent::Rules(r) if r.len() == 1 => rules = true,
            EngineEvent::Audited(l) if l.iter().any(|a| a.by == "click") => history = true,
            _ => {}
        }
        rules && history
    });
    assert!(rules, "the rule was saved and loads again");
    assert!(history, "the audit history is read back at start");
    assert_eq!(
        hook_output(claude_request(&home, "npm run build")),
        CLAUDE_ALLOW
    );
    let line = audited(&engine, "allow");
    assert_eq!(line.by, format!("rule:{}", rule.id), "audited by the rule");
    assert!(
        !drain_for(&engine, Duration::from_millis(200))
            .iter()
            .any(|e| matches!(e, EngineEvent::CardAdded(_))),
        "a rule answers without a card"
    );

    // Exact: another command, or another agent with the same command, gets a card.
    let other = claude_request(&home, "npm run build -- --watch");
    let card = card_added(&engine);
    assert_eq!(card.call.target.rule_key(), "npm run build -- --watch");
    engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::Deny,
        by: AnsweredBy::Click,
    });
    assert_eq!(hook_output(other), CLAUDE_DENY);
    let copilot = hook(
        &home,
        &["--agent", "copilot", "permissionRequest"],
        &json!({"sessionId":"c1","cwd":"/work/proj","toolName":"bash","toolArgs":{"command":"npm run build"}})
            .to_string(),
    );
    let card = card_added(&engine);
    assert_eq!(card.identity.key(), "copilot");
    engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::Deny,
        by: AnsweredBy::Click,
    });
    assert_eq!(
        hook_output(copilot),
        r#"{"behavior":"deny","message":"Denied from Vults"}"#
    );

    // Removing the rule brings the card back.
    engine.send(EngineCommand::RemoveRule(rule.id.clone()));
    assert!(
        wait_for(
            &engine,
            |e| matches!(e, EngineEvent::Rules(r) if r.is_empty())
        )
        .is_some()
    );
    let saved = std::fs::read_to_string(home.paths().rules_file()).unwrap();
    assert!(!saved.contains(&rule.id), "the removal was saved");
    let child = claude_request(&home, "npm run build");
    card_added(&engine);
    // The app quitting with a card up: the hook prints nothing, the agent asks itself.
    drop(engine);
    assert_eq!(hook_output(child), "");
}

#[test]
fn a_policy_denies_at_once_and_a_broken_policy_file_keeps_the_last_good_one() {
    let home = Home::new("policy");
    let paths = home.paths();
    std::fs::create_dir_all(&paths.config_dir).unwrap();
    std::fs::write(
        paths.policies_file(),
        "[[policy]]\nname = \"no-curl\"\naction = \"deny\"\ntool = \"Bash\"\ntarget = \"curl *\"\n",
    )
    .unwrap();
    let engine = start(&home, true);
    assert!(
        wait_for(
            &engine,
            |e| matches!(e, EngineEvent::Policies(p) if p.count == 1 && p.error.is_none())
        )
        .is_some()
    );
    assert_eq!(
        hook_output(claude_request(&home, "curl https://example.com")),
        CLAUDE_DENY
    );
    assert_eq!(audited(&engine, "deny").by, "policy:no-curl");

    // A file that does not parse: its line and column are reported, the old policy holds.
    std::fs::write(
        paths.policies_file(),
        "[[policy]]\nname = \"x\"\naction = \n",
    )
    .unwrap();
    let status = match wait_for(
        &engine,
        |e| matches!(e, EngineEvent::Policies(p) if p.error.is_some()),
    ) {
        Some(EngineEvent::Policies(p)) => p,
        _ => panic!("the broken file was not reported"),
    };
    assert!(
        status.error.unwrap().starts_with("3:"),
        "line 3 is the broken one"
    );
    assert_eq!(
        hook_output(claude_request(&home, "curl https://example.com")),
        CLAUDE_DENY
    );
}

#[test]
fn the_hook_going_away_withdraws_the_card() {
    let home = Home::new("withdraw");
    let engine = start(&home, true);
    let mut child = claude_request(&home, "make deploy");
    let card = card_added(&engine);
    child.kill().unwrap();
    let _ = child.wait();
    match wait_for(&engine, |e| matches!(e, EngineEvent::CardRemoved { .. })) {
        Some(EngineEvent::CardRemoved { id, by }) => {
            assert_eq!((id, by), (card.id, AnsweredBy::Withdrawn));
        }
        _ => panic!("the card stayed up"),
    }
    assert_eq!(audited(&engine, "withdrawn").target, "make deploy");
    // An answer arriving late changes nothing and is said so.
    engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::Allow,
        by: AnsweredBy::Click,
    });
    assert!(
        wait_for(
            &engine,
            |e| matches!(e, EngineEvent::Notice(t) if t.to_string().contains("no longer waiting"))
        )
        .is_some()
    );
}

#[test]
fn nothing_arriving_on_the_socket_can_answer_a_card() {
    let home = Home::new("selfapprove");
    let engine = start(&home, true);
    let mut asker = Client::connect(&home.paths().socket);
    asker.send(&event_line(
        "req-1",
        "claude",
        "PermissionRequest",
        true,
        bash("s", "git push"),
    ));
    assert_eq!(asker.recv().unwrap()["kind"], "waiting");
    let card = card_added(&engine);

    // The agent (or anything of the user's) tries to approve itself, in every shape.
    for forged in [
        json!({"kind":"decision","v": VERSION,"id":"req-1","decision":"allow"}),
        json!({"kind":"answer","v": VERSION,"id":"req-1","answers":["yes"]}),
        json!({"kind":"decision","v": VERSION,"id":card.id.to_string(),"decision":"allow"}),
    ] {
        let mut forger = Client::connect(&home.paths().socket);
        forger.send(&forged.to_string());
        assert!(forger.closed(), "the forger is cut off");
    }
    // The same connection that asked cannot answer either.
    asker
        .send(&json!({"kind":"decision","v": VERSION,"id":"req-1","decision":"allow"}).to_string());
    assert!(asker.closed());
    let after = drain_for(&engine, Duration::from_millis(300));
    assert!(
        !after.iter().any(|e| matches!(
            e,
            EngineEvent::CardRemoved {
                by: AnsweredBy::Click,
                ..
            }
        )),
        "no forged answer reached the card"
    );
    assert!(
        !after.iter().any(
            |e| matches!(e, EngineEvent::Audited(l) if l.iter().any(|a| a.decision == "allow"))
        ),
        "nothing was allowed"
    );
}

#[test]
fn a_question_takes_answers_and_never_an_always() {
    let home = Home::new("question");
    let engine = start(&home, true);
    let mut client = Client::connect(&home.paths().socket);
    let payload = json!({"session_id":"q","tool_name":"AskUserQuestion","tool_input":{"questions":[
        {"question":"Which color?","header":"Color","options":[{"label":"Blue"},{"label":"Red"}],"multiSelect":false}]}});
    client.send(&event_line("q-1", "claude", "PreToolUse", true, payload));
    assert_eq!(client.recv().unwrap()["kind"], "waiting");
    let card = card_added(&engine);
    assert!(card.question);
    assert!(card.always_rule.is_none());
    engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::AlwaysAllow,
        by: AnsweredBy::Click,
    });
    assert!(
        wait_for(
            &engine,
            |e| matches!(e, EngineEvent::Notice(t) if t.to_string().contains("no Always"))
        )
        .is_some()
    );
    engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::Answers(vec![AnswerItem::One("Blue".into())]),
        by: AnsweredBy::Click,
    });
    let reply = client.recv().unwrap();
    assert_eq!(
        reply,
        json!({"kind":"answer","v": VERSION,"id":"q-1","answers":["Blue"]})
    );
}

#[test]
fn with_nobody_to_click_the_agent_asks_itself_at_once() {
    let home = Home::new("headless");
    let engine = start(&home, false);
    let mut client = Client::connect(&home.paths().socket);
    client.send(&event_line(
        "h-1",
        "claude",
        "PermissionRequest",
        true,
        bash("s", "ls"),
    ));
    assert!(
        client.closed(),
        "closed without a reply, so the hook prints nothing"
    );
    assert_eq!(hook_output(claude_request(&home, "ls -la")), "");
    assert!(
        !drain_for(&engine, Duration::from_millis(200))
            .iter()
            .any(|e| matches!(e, EngineEvent::CardAdded(_)))
    );
    drop(engine);

    // Paused: the same, in the window, and the person is told where it went: History has a
    // `paused` line and the bird says it asks in its terminal.
    let engine = start(&home, true);
    engine.send(EngineCommand::SetPaused(true));
    assert_eq!(hook_output(claude_request(&home, "ls -la")), "");
    let mut seen = Vec::new();
    let paused_line = |seen: &[EngineEvent]| {
        seen.iter().find_map(|e| match e {
            EngineEvent::Audited(l) => l.iter().find(|l| l.decision == "paused").cloned(),
            _ => None,
        })
    };
    let bird = |seen: &[EngineEvent]| {
        seen.iter().rev().find_map(|e| match e {
            EngineEvent::SessionChanged(s) if s.in_terminal.is_some() => Some(s.clone()),
            _ => None,
        })
    };
    eventually("History and the bird are told", || {
        seen.extend(drain_for(&engine, Duration::from_millis(100)));
        paused_line(&seen).is_some() && bird(&seen).is_some()
    });
    let line = paused_line(&seen).unwrap();
    assert_eq!(line.by, AnsweredBy::Terminal);
    assert_eq!(line.target, "ls -la");
    assert_eq!(
        line.detail.as_deref(),
        Some("cards are paused; the agent asks in its terminal")
    );
    let bird = bird(&seen).unwrap();
    assert_eq!(bird.in_terminal.as_deref(), Some("Bash (cards are paused)"));
    assert_eq!(
        bird.state,
        vults_engine::messages::SessionState::AsksInTerminal
    );
    assert!(
        !seen.iter().any(|e| matches!(e, EngineEvent::CardAdded(_))),
        "no card while paused"
    );
    engine.send(EngineCommand::SetPaused(false));
    let child = claude_request(&home, "ls -la");
    card_added(&engine);
    drop(engine);
    assert_eq!(hook_output(child), "");
}

#[test]
fn sessions_follow_the_events_and_zeca_never_shows() {
    let home = Home::new("sessions");
    // The window's repaint callback: called when there is news.
    let wakes = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = wakes.clone();
    let engine = vults_engine::Engine::start(
        home.paths(),
        std::sync::Arc::new(move || {
            counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }),
    )
    .unwrap();
    let mut c = Client::connect(&home.paths().socket);
    c.send(
        &event_line(
            "z",
            "claude",
            "SessionStart",
            false,
            json!({"session_id":"zeca-1"}),
        )
        .replace(
            "\"wants_reply\":false",
            "\"wants_reply\":false,\"zeca\":true",
        ),
    );
    let line = json!({"kind":"event","v": VERSION,"id":"t","agent":"claude","event":"SessionStart","wants_reply":false,
        "terminal":{"cwd":"/work/proj","env":{"VULTS_TASK":"task-9"}},"payload":{"session_id":"a"}});
    c.send(&line.to_string());
    c.send(&event_line(
        "sl",
        "claude",
        "StatusLine",
        false,
        json!({"session_id":"a","cost":{"total_cost_usd":0.42},"rate_limits":{"five_hour":{"used_percentage":12.5,"resets_at":1738425600}}}),
    ));
    let s = match wait_for(
        &engine,
        |e| matches!(e, EngineEvent::SessionChanged(s) if s.cost_usd.is_some()),
    ) {
        Some(EngineEvent::SessionChanged(s)) => s,
        _ => panic!("no session"),
    };
    assert_eq!(s.key.session, "a");
    assert_eq!(s.task.as_deref(), Some("task-9"));
    assert_eq!(s.five_hour.unwrap().used_percentage, 12.5);
    c.send(&event_line(
        "e",
        "claude",
        "SessionEnd",
        false,
        json!({"session_id":"a"}),
    ));
    match wait_for(&engine, |e| matches!(e, EngineEvent::SessionGone(_))) {
        Some(EngineEvent::SessionGone(k)) => assert_eq!(k.session, "a"),
        _ => panic!("the ended session stayed"),
    }
    assert_eq!(engine.stats().sessions, 0, "zeca never became a session");
    assert!(
        wakes.load(std::sync::atomic::Ordering::Relaxed) >= 2,
        "the window was woken"
    );
}

#[test]
fn a_named_tool_with_the_open_reply_gets_a_card_and_reads_the_fixed_reply() {
    let home = Home::new("named");
    let engine = start(&home, true);
    let ask = |command: &str| {
        hook(
            &home,
            &[
                "--agent",
                "my-tool",
                "--reply",
                "vults",
                "PermissionRequest",
            ],
            &bash("t-1", command).to_string(),
        )
    };
    let child = ask("deploy --prod");
    assert!(
        wait_for(
            &engine,
            |e| matches!(e, EngineEvent::NamedToolSeen(t) if t.name == "my-tool")
        )
        .is_some(),
        "Settings → Agents hears of the tool"
    );
    let card = card_added(&engine);
    assert_eq!(card.identity.key(), "my-tool");
    engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::Allow,
        by: AnsweredBy::Click,
    });
    assert_eq!(hook_output(child), r#"{"decision":"allow"}"#);
    assert_eq!(audited(&engine, "allow").identity, "my-tool");

    // Without --reply vults the tool's request is only a bird, never a card.
    let silent = hook(
        &home,
        &["--agent", "my-tool", "PermissionRequest"],
        &bash("t-1", "deploy --prod").to_string(),
    );
    assert_eq!(hook_output(silent), "");
    assert!(
        !drain_for(&engine, Duration::from_millis(200))
            .iter()
            .any(|e| matches!(e, EngineEvent::CardAdded(_)))
    );
}

#[test]
fn a_refusal_recorded_by_the_phone_link_is_audited_and_shown_but_answers_nothing() {
    let home = Home::new("record");
    let mut engine = start(&home, true);
    let child = claude_request(&home, "make release");
    let card = card_added(&engine);
    let refusal = vults_engine::messages::AuditEntry {
        time: 1_795_000_000_000,
        identity: "claude".into(),
        session: "s".into(),
        folder: "/work/proj".into(),
        host: None,
        tool: "Bash".into(),
        target: "make release".into(),
        decision: vults_engine::messages::Outcome::Refused,
        by: "phone:Ana's phone".into(),
        detail: Some(format!("bad signature (device d-1), card {}", card.id)),
    };
    engine.send(EngineCommand::Record(refusal.clone()));
    assert_eq!(
        audited(&engine, "refused"),
        refusal,
        "History shows it at once"
    );
    // The card is still waiting for a person: a refusal is no answer.
    engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::Deny,
        by: AnsweredBy::Click,
    });
    assert_eq!(audited(&engine, "deny").by, "click");
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim_end(), CLAUDE_DENY);
    engine.stop();
    engine.join();
    // Written to the one audit log, beside the answers.
    let log = std::fs::read_to_string(home.paths().audit_log()).unwrap();
    let decisions: Vec<String> = log
        .lines()
        .map(|l| {
            serde_json::from_str::<vults_engine::messages::AuditEntry>(l)
                .unwrap()
                .decision
                .to_string()
        })
        .collect();
    assert_eq!(decisions, ["refused", "deny"]);
}

/// Too large for a card (the wire cuts strings at 2,000 bytes): the hook still prints nothing
/// and the agent asks in its terminal, but the person is told — the bird says "asks in its
/// terminal: Write of 2.7 KB is too large to show", History gets a line, the window hears
/// `TooLarge` — and the session's next event shows it has moved on. Issue 21: nothing told.
#[test]
fn a_request_too_large_for_a_card_says_so_on_the_bird_and_in_history() {
    let home = Home::new("toolarge");
    let engine = start(&home, true);
    let content: String = (1..=100)
        .map(|i| format!("line {i:03} of the new file\n"))
        .collect::<String>()
        + &"x".repeat(241);
    assert_eq!(content.len(), 2741);
    let write = json!({"session_id": "s-big", "cwd": "/work/proj", "hook_event_name": "PermissionRequest",
        "tool_name": "Write", "tool_input": {"file_path": "/work/proj/notes.md", "content": content}});
    let out = hook_output(hook(
        &home,
        &["--agent", "claude", "PermissionRequest"],
        &write.to_string(),
    ));
    assert_eq!(out, "", "silence: the agent asks in its own terminal");
    let mut seen = Vec::new();
    eventually("the window is told", || {
        seen.extend(drain_for(&engine, Duration::from_millis(100)));
        seen.iter().any(|e| matches!(e, EngineEvent::TooLarge(_)))
    });
    let told = seen
        .iter()
        .find_map(|e| match e {
            EngineEvent::TooLarge(t) => Some(t.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(told.text(), "Write of 2.7 KB is too large to show");
    assert_eq!((told.tool.as_str(), told.bytes), ("Write", 2741));
    let line = seen
        .iter()
        .find_map(|e| match e {
            EngineEvent::Audited(l) => l.iter().find(|l| l.decision == "too-large").cloned(),
            _ => None,
        })
        .expect("History has a line");
    assert_eq!(line.by, AnsweredBy::Terminal);
    assert_eq!(line.target, "/work/proj/notes.md");
    assert_eq!(
        line.detail.as_deref(),
        Some("Write of 2.7 KB is too large to show; the agent asks in its terminal")
    );
    let session = seen
        .iter()
        .rev()
        .find_map(|e| match e {
            EngineEvent::SessionChanged(s) if s.key.session == "s-big" => Some(s.clone()),
            _ => None,
        })
        .expect("the bird");
    assert_eq!(
        session.in_terminal.as_deref(),
        Some("Write of 2.7 KB is too large to show")
    );
    assert_eq!(
        session.state,
        vults_engine::messages::SessionState::AsksInTerminal
    );
    assert!(
        !seen.iter().any(|e| matches!(e, EngineEvent::CardAdded(_))),
        "no card"
    );
    let bird = |engine: &vults_engine::EngineHandle| match wait_for(
        engine,
        |e| matches!(e, EngineEvent::SessionChanged(s) if s.key.session == "s-big"),
    ) {
        Some(EngineEvent::SessionChanged(s)) => s,
        _ => panic!("no bird"),
    };

    // The person answered in the terminal: the call ran, the bird goes back to work.
    let post = json!({"session_id": "s-big", "cwd": "/work/proj", "hook_event_name": "PostToolUse",
        "tool_name": "Write", "tool_input": {"file_path": "/work/proj/notes.md", "content": "x"}});
    hook_output(hook(
        &home,
        &["--agent", "claude", "PostToolUse"],
        &post.to_string(),
    ));
    let session = bird(&engine);
    assert_eq!(session.in_terminal, None);
    assert_eq!(session.state, vults_engine::messages::SessionState::Working);

    // A 10,000-character command: the same, in its words.
    let out = hook_output(claude_request(&home, &"y".repeat(10_000)));
    assert_eq!(out, "");
    match wait_for(&engine, |e| matches!(e, EngineEvent::TooLarge(_))) {
        Some(EngineEvent::TooLarge(t)) => {
            assert_eq!(t.text(), "Bash of 10 KB is too large to show")
        }
        _ => panic!("the window was not told"),
    }
}

/// History pages through a long audit log: the engine reads back only the newest lines at
/// start, then a page at a time, each page's edges leading to the next, and never rewrites the
/// file.
#[test]
fn history_pages_through_a_long_audit_without_loading_or_rewriting_it() {
    use vults_engine::messages::{AuditEntry, Outcome};
    use vults_engine::{PAGE_LINES, PageOf, TAIL_LINES};
    let home = Home::new("histpage");
    let log = home.paths().audit_log();
    std::fs::create_dir_all(log.parent().unwrap()).unwrap();
    let mut text = String::new();
    for i in 0..20_000u64 {
        let mut e = AuditEntry::new(i, Outcome::Allow, AnsweredBy::Click, None);
        e.tool = "Bash".into();
        e.target = format!("echo {i}");
        text.push_str(&serde_json::to_string(&e).unwrap());
        text.push('\n');
    }
    std::fs::write(&log, &text).unwrap();
    let engine = start(&home, false);
    let tail = match wait_for(&engine, |e| matches!(e, EngineEvent::Audited(_))) {
        Some(EngineEvent::Audited(l)) => l,
        _ => panic!("no audit lines at start"),
    };
    assert_eq!(tail.len(), TAIL_LINES);
    assert_eq!(tail.last().map(|l| l.time), Some(19_999));
    let page = |of| {
        assert!(engine.send(EngineCommand::ReadHistory(of)));
        match wait_for(&engine, |e| matches!(e, EngineEvent::HistoryPage(_))) {
            Some(EngineEvent::HistoryPage(p)) => p,
            _ => panic!("no page of History came back"),
        }
    };
    let times =
        |p: &vults_engine::AuditPage| -> Vec<u64> { p.lines.iter().map(|l| l.time).collect() };
    let newest = page(PageOf::Newest);
    let n = PAGE_LINES as u64;
    assert_eq!(times(&newest), (20_000 - n..20_000).collect::<Vec<_>>());
    assert!(newest.has_older && !newest.has_newer);
    let older = page(PageOf::Older(newest.first));
    assert_eq!(
        times(&older),
        (20_000 - 2 * n..20_000 - n).collect::<Vec<_>>()
    );
    let again = page(PageOf::Newer(older.last));
    assert_eq!(again, newest);
    drop(engine);
    assert!(
        std::fs::read_to_string(&log).unwrap() == text,
        "the audit log was changed by reading it"
    );
}
