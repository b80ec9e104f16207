//! Zeca's decision order with a scripted stand-in for Claude Code's stream-json side (a small
//! shell script: it asks one `can_use_tool` per turn and writes down the `control_response` it
//! reads), so every gate of `decide()` is checked without a model: an Always rule answers a
//! plain command without a card, a destructive command asks even with an exact Always rule,
//! an AskUserQuestion is answered inline with the answers in `updatedInput`, and every answer is
//! audited as the chat's. The real CLI, end to end: tests/real-agents/zeca.rs.
#![cfg(unix)]

use crate::common::{Running, fake_cli, paths, test_dir};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use vults_core::agents::read_tool_call;
use vults_core::answer::AnswerItem;
use vults_core::protocol::{AgentKind, Identity, VERSION};
use vults_core::rules::{AlwaysRule, RuleSet};
use vults_engine::messages::{AnsweredBy, CardAnswer, EngineCommand, EngineEvent};
use vults_engine::{Engine, EngineOptions};
use vults_tests::TempHome;
use vults_zeca::{ChatCommand, ZecaOptions};

const FAKE: &str = r#"#!/bin/sh
# Claude Code's stream-json side, scripted: init, then per user line one can_use_tool of
# $FAKE_TOOL with $FAKE_INPUT; each control_response is appended to $FAKE_LOG.
echo '{"type":"system","subtype":"init","session_id":"fake-1","tools":["Bash"]}'
n=0
while IFS= read -r line; do
  case "$line" in
    *'"type":"user"'*)
      n=$((n+1))
      printf '{"type":"control_request","request_id":"r%s","request":{"subtype":"can_use_tool","tool_name":"%s","input":%s,"tool_use_id":"toolu_%s"}}\n' "$n" "$FAKE_TOOL" "$FAKE_INPUT" "$n"
      ;;
    *'"type":"control_response"'*)
      printf '%s\n' "$line" >> "$FAKE_LOG"
      echo '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"fake-1"}'
      ;;
  esac
done
"#;

struct Setup {
    /// Removed when the setup is dropped (after the app stopped).
    _home: TempHome,
    project: String,
    log: PathBuf,
    app: Running,
}

impl Drop for Setup {
    fn drop(&mut self) {
        self.app.stop();
    }
}

fn setup(name: &str, tool: &str, input: &Value, rule_for: Option<&str>) -> Setup {
    let home = test_dir(name);
    let dir = &home.dir;
    let project = dir.join("project").display().to_string();
    let fake = fake_cli(dir, "claude", FAKE);
    let paths = paths(dir);
    if let Some(command) = rule_for {
        let call = read_tool_call(&json!({"tool_name":"Bash","tool_input":{"command":command}}));
        let mut rules = RuleSet::default();
        rules.add(AlwaysRule::for_call(
            &Identity::Builtin(AgentKind::Claude),
            &project,
            &call,
            1,
        ));
        rules.save(&paths.rules_file()).unwrap();
    }
    let log = dir.join("responses.jsonl");
    let options = ZecaOptions {
        clis: [(vults_core::agents::Agent::Claude, fake)].into(),
        env: vec![
            ("FAKE_TOOL".into(), tool.into()),
            ("FAKE_INPUT".into(), input.to_string()),
            ("FAKE_LOG".into(), log.display().to_string()),
        ],
        ..ZecaOptions::default()
    };
    let app = Running::start(paths, options);
    Setup {
        _home: home,
        project,
        log,
        app,
    }
}

impl Setup {
    fn send(&self, chat: &str) {
        self.app.chat(ChatCommand::Send {
            chat: chat.into(),
            folder: self.project.clone(),
            engine: "claude".into(),
            text: "go".into(),
        });
    }

    /// Events until `pred` matches one (returned with all before it).
    fn until(&self, what: &str, pred: impl Fn(&EngineEvent) -> bool) -> Vec<EngineEvent> {
        let start = Instant::now();
        let mut seen = Vec::new();
        while start.elapsed() < Duration::from_secs(20) {
            if let Ok(ev) = self
                .app
                .engine
                .events
                .recv_timeout(Duration::from_millis(100))
            {
                let hit = pred(&ev);
                seen.push(ev);
                if hit {
                    return seen;
                }
            }
        }
        panic!("gave up waiting for {what}; seen: {seen:#?}");
    }

    fn responses(&self) -> Vec<Value> {
        let start = Instant::now();
        loop {
            let text = std::fs::read_to_string(&self.log).unwrap_or_default();
            if !text.is_empty() || start.elapsed() > Duration::from_secs(10) {
                return text
                    .lines()
                    .map(|l| serde_json::from_str(l).unwrap())
                    .collect();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn audited(ev: &EngineEvent, chat: &str) -> Option<(String, String)> {
    match ev {
        EngineEvent::Audited(lines) => lines
            .iter()
            .find(|l| l.session == format!("zeca:{chat}"))
            .map(|l| (l.decision.to_string(), l.by.label())),
        _ => None,
    }
}

#[test]
fn an_always_rule_answers_the_chat_without_a_card() {
    let s = setup("rule", "Bash", &json!({"command":"ls -la"}), Some("ls -la"));
    s.send("c1");
    let seen = s.until("the audit line", |e| audited(e, "c1").is_some());
    assert!(
        !seen.iter().any(|e| matches!(e, EngineEvent::CardAdded(_))),
        "no card: {seen:#?}"
    );
    let (decision, by) = seen.iter().find_map(|e| audited(e, "c1")).unwrap();
    assert_eq!(decision, "allow");
    assert!(by.starts_with("rule:"), "{by}");
    let r = s.responses();
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0]["response"]["request_id"], "r1");
    assert_eq!(r[0]["response"]["response"]["behavior"], "allow");
    assert_eq!(
        r[0]["response"]["response"]["updatedInput"],
        json!({"command":"ls -la"})
    );
    assert!(
        !seen
            .iter()
            .any(|e| matches!(e, EngineEvent::SessionChanged(_))),
        "the chat is never a bird"
    );
}

#[test]
fn a_destructive_command_of_the_chat_asks_even_with_an_always_rule_and_cards_paused() {
    let s = setup(
        "destructive",
        "Bash",
        &json!({"command":"rm -rf build"}),
        Some("rm -rf build"),
    );
    // Paused cards leave hook requests to the agent's terminal; the chat has none: it still asks.
    assert!(s.app.engine.send(EngineCommand::SetPaused(true)));
    s.send("c2");
    let seen = s.until("the card", |e| matches!(e, EngineEvent::CardAdded(_)));
    let Some(EngineEvent::CardAdded(card)) = seen.last() else {
        unreachable!()
    };
    assert_eq!(card.session.session, "zeca:c2");
    assert!(card.destructive.is_some(), "{card:?}");
    assert!(
        card.always_rule.is_none(),
        "a destructive card has no Always"
    );
    assert!(s.app.engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::Deny,
        by: AnsweredBy::Click,
    }));
    let seen = s.until("the audit line", |e| audited(e, "c2").is_some());
    assert_eq!(
        seen.iter().find_map(|e| audited(e, "c2")).unwrap(),
        ("deny".to_string(), "click".to_string())
    );
    let r = s.responses();
    assert_eq!(r[0]["response"]["response"]["behavior"], "deny");
    assert_eq!(r[0]["response"]["response"]["message"], "Denied from Vults");
}

#[test]
fn a_question_of_the_chat_is_answered_inline() {
    let input = json!({"questions":[{"question":"Which color?","header":"Color",
        "options":[{"label":"Blue","description":""},{"label":"Red","description":""}],
        "multiSelect":false}]});
    let s = setup("question", "AskUserQuestion", &input, None);
    s.send("c3");
    let seen = s.until("the card", |e| matches!(e, EngineEvent::CardAdded(_)));
    let Some(EngineEvent::CardAdded(card)) = seen.last() else {
        unreachable!()
    };
    assert!(card.question, "{card:?}");
    assert!(s.app.engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::Answers(vec![AnswerItem::One("Blue".into())]),
        by: AnsweredBy::Click,
    }));
    let seen = s.until("the audit line", |e| audited(e, "c3").is_some());
    assert_eq!(
        seen.iter().find_map(|e| audited(e, "c3")).unwrap().0,
        "answer"
    );
    let r = s.responses();
    let response = &r[0]["response"]["response"];
    assert_eq!(response["behavior"], "allow");
    assert_eq!(
        response["updatedInput"]["answers"],
        json!({"Which color?":"Blue"})
    );
    assert_eq!(response["updatedInput"]["questions"], input["questions"]);
}

/// Seed 001: a `zeca: true` event never has `wants_reply`. One that claims it anyway (a
/// hand-made client) is closed at once: no card, no session, nothing waits on it.
#[test]
fn a_zeca_event_that_wants_a_reply_is_closed_at_once() {
    use std::io::{BufRead, BufReader, Write};
    let home = test_dir("wants");
    let dir = &home.dir;
    let paths = paths(dir);
    let mut engine =
        Engine::start_with(paths.clone(), Arc::new(|| {}), EngineOptions::default()).unwrap();
    let mut stream = std::os::unix::net::UnixStream::connect(&paths.socket).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let line = json!({"kind":"event","v": VERSION,"id":"z1","agent":"claude","event":"PermissionRequest",
        "wants_reply":true,"zeca":true,"terminal":{"cwd":"/p","pid":7},
        "payload":{"session_id":"s","tool_name":"Bash","tool_input":{"command":"ls"}}});
    stream.write_all(format!("{line}\n").as_bytes()).unwrap();
    let start = Instant::now();
    let mut reply = String::new();
    let n = BufReader::new(stream).read_line(&mut reply);
    assert!(
        matches!(n, Ok(0)),
        "closed with nothing said, not {n:?} {reply:?}"
    );
    assert!(start.elapsed() < Duration::from_secs(2), "at once");
    std::thread::sleep(Duration::from_millis(200));
    let seen: Vec<EngineEvent> = engine.events.try_iter().collect();
    assert!(
        !seen.iter().any(|e| matches!(
            e,
            EngineEvent::CardAdded(_) | EngineEvent::SessionChanged(_)
        )),
        "{seen:?}"
    );
    assert_eq!(engine.stats().zeca, 1);
    engine.stop();
}

/// A task in "the terminal": the terminal set in the chat's settings is a command prefix, and
/// the command it is given sets `VULTS_TASK` and the folder itself (some terminals start it
/// from a server of theirs). `env` stands in for a terminal here: it runs what it is given.
#[test]
fn a_task_opens_in_the_configured_terminal_with_its_task_id_and_folder() {
    let home = test_dir("term");
    let dir = &home.dir;
    let project = dir.join("project").canonicalize().unwrap();
    let out = dir.join("task.txt");
    let agent = fake_cli(
        dir,
        "claude",
        &format!(
            "#!/bin/sh\necho \"$VULTS_TASK|$(pwd)|$*\" > {}\n",
            out.display()
        ),
    );
    let options = ZecaOptions {
        clis: [(vults_core::agents::Agent::Claude, agent)].into(),
        ..ZecaOptions::default()
    };
    let mut app = Running::start(paths(dir), options);
    let settings = vults_zeca::ZecaSettings {
        terminal: Some("env".into()),
        ..Default::default()
    };
    app.chat(ChatCommand::Configure(settings));
    app.chat(ChatCommand::StartTask {
        chat: "c9".into(),
        task: vults_zeca::TaskSpec {
            folder: project.display().to_string(),
            prompt: "fix the build".into(),
            agent: "claude".into(),
            headless: false,
        },
    });
    let start = Instant::now();
    while !out.exists() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let text = std::fs::read_to_string(&out).expect("the task ran");
    let parts: Vec<&str> = text.trim().split('|').collect();
    assert!(parts[0].starts_with('t') && parts[0].len() > 3, "{text}");
    assert_eq!(parts[1], project.display().to_string());
    // After `--`: a prompt is never an option of the agent.
    assert_eq!(parts[2], "-- fix the build");
    // The chat shows the task under that id.
    app.updated_until("the task in the chat", |c| {
        c.entries.iter().any(|e| {
            matches!(e, vults_zeca::Entry::Task { id, state, .. }
                if id == parts[0] && state == "opened in the terminal")
        })
    });
    app.stop();
}

/// A plan the chat's Claude Code asks to carry out is a plan card too; Keep planning's feedback
/// is what the CLI is told, in place of "Denied from Vults".
#[test]
fn a_plan_of_the_chat_is_kept_with_the_feedback() {
    let input = json!({"plan": "# Plan\n\n1. Write the marker", "planFilePath": "/home/me/.claude/plans/p.md"});
    let s = setup("plan", "ExitPlanMode", &input, None);
    s.send("c3");
    let seen = s.until("the card", |e| matches!(e, EngineEvent::CardAdded(_)));
    let Some(EngineEvent::CardAdded(card)) = seen.last() else {
        unreachable!()
    };
    assert_eq!(card.plan(), Some("# Plan\n\n1. Write the marker"));
    assert!(card.always_rule.is_none());
    assert!(s.app.engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::DenyWith("Also say how it is checked".into()),
        by: AnsweredBy::Click,
    }));
    s.until("the audit line", |e| audited(e, "c3").is_some());
    let r = s.responses();
    assert_eq!(r[0]["response"]["response"]["behavior"], "deny");
    assert_eq!(
        r[0]["response"]["response"]["message"],
        "Also say how it is checked"
    );
}
