//! What the card and the audit say is what happened to the agent: questions go through the one
//! decision point, and a card answered in the agent's own terminal is withdrawn as such.

use crate::common::*;
use serde_json::json;
use std::time::Duration;
use vults_engine::EngineHandle;
use vults_engine::messages::{AuditEntry, EngineEvent, PendingCard};

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
    assert_eq!(card.reason.to_string(), "policy questions to me");
    let mut child = child;
    let _ = child.kill();
    let _ = child.wait();

    // Without the ask policy, the allow policy still does not answer it: a card, as always.
    write_policies(
        &home,
        "[[policy]]\nname = \"all allowed\"\nagents = [\"claude\"]\naction = \"allow\"\n",
    );
    policies_loaded(&engine, 1);
    let child = hook(
        &home,
        &["--agent", "claude", "--ask", "PreToolUse"],
        &question("q-allow"),
    );
    let card = card_added(&engine);
    assert!(card.question);
    assert_eq!(card.reason.to_string(), "a question for you");
    // Quitting withdraws the card: the hook prints nothing.
    drop(engine);
    assert_eq!(hook_output(child), "");
}

/// The real `vults-app --headless` on `home`, its stderr read line by line on a thread.
pub struct HeadlessApp {
    pub child: std::process::Child,
    pub log: std::sync::mpsc::Receiver<String>,
}

impl HeadlessApp {
    pub fn start(home: &Home) -> HeadlessApp {
        HeadlessApp::start_with(home, |_| {})
    }

    pub fn start_with(home: &Home, setup: impl FnOnce(&mut std::process::Command)) -> HeadlessApp {
        use std::io::BufRead;
        let mut cmd = std::process::Command::new(vults_tests::built_app_bin());
        home.env(&mut cmd);
        setup(&mut cmd);
        cmd.arg("--headless")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().expect("vults-app --headless starts");
        let stderr = child.stderr.take().unwrap();
        let (tx, log) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                let _ = tx.send(line);
            }
        });
        HeadlessApp { child, log }
    }

    /// Reads the log until a line contains `text` (returned), or [`PATIENCE`] runs out.
    pub fn wait_log(&self, text: &str) -> Option<String> {
        let deadline = std::time::Instant::now() + PATIENCE;
        loop {
            let left = deadline.checked_duration_since(std::time::Instant::now())?;
            match self.log.recv_timeout(left) {
                Ok(line) if line.contains(text) => return Some(line),
                Ok(_) => {}
                Err(_) => return None,
            }
        }
    }
}

impl Drop for HeadlessApp {
    fn drop(&mut self) {
        #[cfg(unix)]
        // SAFETY: kill(2) on our own child's pid; SIGCONT first in case a test left it stopped.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGCONT);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_headless_log_shows_policy_warnings() {
    let home = Home::new("hlwarn");
    write_policies(
        &home,
        "[[policy]]\nname = \"codex may test\"\nagents = [\"codex\"]\ntarget = \"cargo test\"\naction = \"allow\"\n",
    );
    let app = HeadlessApp::start(&home);
    let line = app
        .wait_log("warning:")
        .expect("the headless log warns about the allow policy");
    assert!(
        line.contains("policy 'codex may test' (line 1): allow applies to Claude Code only"),
        "{line}"
    );
}

/// The usual umask, for the app only (the test process's own stays as it is).
fn umask_022(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: umask(2) is async-signal-safe and touches only the child after fork.
    unsafe {
        cmd.pre_exec(|| {
            libc::umask(0o022);
            Ok(())
        });
    }
}

fn mode(p: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .permissions()
        .mode()
        & 0o777
}

const CURL_DENY: &str =
    "[[policy]]\nname = \"no-curl\"\naction = \"deny\"\ntool = \"Bash\"\ntarget = \"curl *\"\n";

#[test]
fn what_vults_writes_is_private_whatever_the_umask() {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    let home = Home::new("private");
    let paths = home.paths();
    // Only the config folder exists, made private by the test; Vults makes the rest.
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&paths.config_dir)
        .unwrap();
    std::fs::write(paths.policies_file(), CURL_DENY).unwrap();
    std::fs::set_permissions(
        paths.policies_file(),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let app = HeadlessApp::start_with(&home, umask_022);
    app.wait_log("policies in force").expect("the app started");
    let child = hook(
        &home,
        &["--agent", "claude", "PermissionRequest"],
        &bash("s-p", "curl https://example.com").to_string(),
    );
    assert!(hook_output(child).contains("deny"));
    app.wait_log("deny Bash curl")
        .expect("the deny was audited");
    eventually("the audit line on disk", || {
        std::fs::read_to_string(paths.audit_log()).is_ok_and(|t| t.contains("no-curl"))
    });
    assert_eq!(mode(&paths.data_dir), 0o700, "data folder");
    assert_eq!(mode(&paths.audit_log()), 0o600, "audit log");
    assert_eq!(mode(&paths.config_dir), 0o700, "config folder");
}

#[test]
fn a_looser_audit_log_and_folders_are_tightened_with_a_notice() {
    use std::os::unix::fs::PermissionsExt;
    let home = Home::new("tighten");
    let paths = home.paths();
    let set = |p: &std::path::Path, m: u32| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap()
    };
    std::fs::create_dir_all(&paths.config_dir).unwrap();
    std::fs::create_dir_all(&paths.data_dir).unwrap();
    std::fs::write(paths.policies_file(), CURL_DENY).unwrap();
    std::fs::write(
        paths.audit_log(),
        "{\"time\":1,\"identity\":\"claude\",\"session\":\"s\",\"folder\":\"/\",\"tool\":\"Bash\",\"target\":\"curl -H 'Authorization: t' x\",\"decision\":\"allow\",\"by\":\"click\"}\n",
    )
    .unwrap();
    set(&paths.config_dir, 0o755);
    set(&paths.data_dir, 0o755);
    set(&paths.policies_file(), 0o644);
    set(&paths.audit_log(), 0o644);
    let app = HeadlessApp::start_with(&home, umask_022);
    let notice = app
        .wait_log("audit.jsonl was readable by others")
        .expect("a notice says the audit log was tightened");
    assert!(notice.contains("644") && notice.contains("600"), "{notice}");
    app.wait_log("policies in force").expect("the app started");
    assert_eq!(mode(&paths.audit_log()), 0o600);
    assert_eq!(mode(&paths.policies_file()), 0o600);
    assert_eq!(mode(&paths.data_dir), 0o700);
    assert_eq!(mode(&paths.config_dir), 0o700);
}

fn signal(app: &HeadlessApp, sig: i32) {
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(app.child.id() as i32, sig) }, 0);
}

#[test]
fn a_frozen_app_audits_no_answer_the_agent_never_got() {
    let home = Home::new("frozen");
    write_policies(
        &home,
        "[[policy]]\nname = \"echo ok\"\nagents = [\"claude\"]\ntool = \"Bash\"\ntarget = \"echo *\"\naction = \"allow\"\n",
    );
    let app = HeadlessApp::start(&home);
    app.wait_log("policies in force").expect("the app started");
    let request = |command: &str| {
        hook(
            &home,
            &["--agent", "claude", "PermissionRequest"],
            &bash("s-frozen", command).to_string(),
        )
    };

    // Frozen while the request is in flight: the hook gives up after its 2 s, printing nothing.
    signal(&app, libc::SIGSTOP);
    let given_up = hook_output(request("echo frozen"));
    assert_eq!(given_up, "", "the agent asks in its own terminal");
    signal(&app, libc::SIGCONT);

    // Resumed: a new request is answered and audited as usual…
    assert!(hook_output(request("echo live")).contains("allow"));
    app.wait_log("allow Bash echo live")
        .expect("the live request was audited");
    let audit = home.paths().audit_log();
    eventually("the live line on disk", || {
        std::fs::read_to_string(&audit).is_ok_and(|t| t.contains("echo live"))
    });
    std::thread::sleep(Duration::from_millis(500));
    // …and nothing says the frozen one was allowed: the agent never got that answer.
    let text = std::fs::read_to_string(&audit).unwrap();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["target"] == "echo frozen" {
            assert_ne!(v["decision"], "allow", "an answer nobody received: {line}");
        }
    }
}

/// Waits (bounded) for a hook process to exit; returns what it printed.
fn hook_exits(mut child: std::process::Child) -> String {
    let deadline = std::time::Instant::now() + PATIENCE;
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the hook is still waiting");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    hook_output(child)
}

fn claude_event(home: &Home, event: &str, payload: serde_json::Value) {
    let child = hook(home, &["--agent", "claude", event], &payload.to_string());
    assert_eq!(hook_output(child), "", "a {event} event is never answered");
}

fn post_tool_use(session: &str, command: &str, id: &str) -> serde_json::Value {
    json!({"session_id": session, "cwd": "/work/proj", "hook_event_name": "PostToolUse",
        "tool_name": "Bash", "tool_input": {"command": command, "description": "d"},
        "tool_use_id": id, "tool_response": {"stdout": "ok"}})
}

#[test]
fn a_card_answered_in_the_agents_terminal_is_withdrawn_and_audited_as_terminal() {
    use vults_engine::messages::{AnsweredBy, CardAnswer, EngineCommand};
    let home = Home::new("terminal");
    let engine = start(&home, true);
    let request = |session: &str, command: &str| {
        hook(
            &home,
            &["--agent", "claude", "PermissionRequest"],
            &bash(session, command).to_string(),
        )
    };

    // A card is up; the person says yes in Claude Code's own dialog and the command runs.
    let child = request("s-t", "npm run build");
    let card = card_added(&engine);
    // Another session's PostToolUse of the same command says nothing about this card.
    claude_event(
        &home,
        "PostToolUse",
        post_tool_use("s-other", "npm run build", "toolu_0"),
    );
    claude_event(
        &home,
        "PostToolUse",
        post_tool_use("s-t", "npm run build", "toolu_1"),
    );
    match wait_for(&engine, |e| matches!(e, EngineEvent::CardRemoved { .. })) {
        Some(EngineEvent::CardRemoved { id, by }) => {
            assert_eq!((id, by), (card.id, AnsweredBy::Terminal));
        }
        _ => panic!("the card was not withdrawn"),
    }
    assert_eq!(
        hook_exits(child),
        "",
        "the waiting hook ends printing nothing"
    );
    let line = audited(&engine, "allow");
    assert_eq!(line.by, "terminal");
    assert_eq!(line.target, "npm run build");
    // A click on the stale card answers nothing and audits nothing.
    engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::Deny,
        by: AnsweredBy::Click,
    });
    let after = drain_for(&engine, Duration::from_millis(500));
    assert!(
        after.iter().any(
            |e| matches!(e, EngineEvent::Notice(t) if t.to_string().contains("no longer waiting"))
        ),
        "{after:?}"
    );
    assert!(
        !after.iter().any(|e| matches!(e, EngineEvent::Audited(_))),
        "{after:?}"
    );

    // Claude Code's PreToolUse for the same call can come after its PermissionRequest (the two
    // hooks race): it is the precursor, not an answer.
    let child = request("s-t", "make deploy-docs");
    let card = card_added(&engine);
    let mut pre = post_tool_use("s-t", "make deploy-docs", "toolu_2");
    pre["hook_event_name"] = json!("PreToolUse");
    pre.as_object_mut().unwrap().remove("tool_response");
    claude_event(&home, "PreToolUse", pre);
    assert!(
        !drain_for(&engine, Duration::from_millis(500))
            .iter()
            .any(|e| matches!(e, EngineEvent::CardRemoved { .. })),
        "the precursor withdrew the card"
    );
    // A new prompt says the dialog is over (answered one way or the other).
    claude_event(
        &home,
        "UserPromptSubmit",
        json!({"session_id": "s-t", "cwd": "/work/proj", "hook_event_name": "UserPromptSubmit",
            "prompt": "never mind"}),
    );
    match wait_for(&engine, |e| matches!(e, EngineEvent::CardRemoved { .. })) {
        Some(EngineEvent::CardRemoved { id, by }) => {
            assert_eq!((id, by), (card.id, AnsweredBy::Terminal));
        }
        _ => panic!("the card was not withdrawn"),
    }
    assert_eq!(hook_exits(child), "");
    let line = audited(&engine, "answered");
    assert_eq!(line.by, "terminal");
    assert!(line.detail.unwrap().contains("UserPromptSubmit"));

    // OpenCode's relayed PreToolUse has no call id and other words than its permission: it is
    // no sign for OpenCode's card. Its session going idle is.
    let asked = json!({"id": "per_1", "sessionID": "ses_1", "permission": "edit",
        "patterns": ["src/a.rs"], "metadata": {"filepath": "src/a.rs", "diff": "-a\n+b"},
        "tool": {"messageID": "msg_1", "callID": "call_1"}, "cwd": "/work/proj",
        "hook_event_name": "PermissionRequest"});
    let child = hook(
        &home,
        &["--agent", "opencode", "PermissionRequest"],
        &asked.to_string(),
    );
    let card = card_added(&engine);
    let pre = json!({"session_id": "ses_1", "cwd": "/work/proj", "tool_name": "edit",
        "tool_input": {"filePath": "src/a.rs", "oldString": "a", "newString": "b"}});
    let forwarded = hook(
        &home,
        &["--agent", "opencode", "PreToolUse"],
        &pre.to_string(),
    );
    assert_eq!(hook_output(forwarded), "");
    assert!(
        !drain_for(&engine, Duration::from_millis(500))
            .iter()
            .any(|e| matches!(e, EngineEvent::CardRemoved { .. })),
        "OpenCode's relayed precursor withdrew the card"
    );
    let idle = hook(
        &home,
        &["--agent", "opencode", "Stop"],
        &json!({"session_id": "ses_1", "cwd": "/work/proj"}).to_string(),
    );
    assert_eq!(hook_output(idle), "");
    match wait_for(&engine, |e| matches!(e, EngineEvent::CardRemoved { .. })) {
        Some(EngineEvent::CardRemoved { id, by }) => {
            assert_eq!((id, by), (card.id, AnsweredBy::Terminal));
        }
        _ => panic!("OpenCode's card was not withdrawn when its session went idle"),
    }
    assert_eq!(hook_exits(child), "");
}

fn read_call(session: &str, event: &str, file: &str, id: &str) -> serde_json::Value {
    let mut v = json!({"session_id": session, "cwd": "/work/proj", "hook_event_name": event,
        "tool_name": "Read", "tool_input": {"file_path": file}});
    // Claude Code puts the call's id on PreToolUse, not on PermissionRequest (pinned CLI).
    if event == "PreToolUse" {
        v["tool_use_id"] = json!(id);
    }
    v
}

#[test]
fn calls_run_side_by_side_keep_each_others_cards_and_a_later_call_withdraws() {
    use vults_engine::messages::{AnsweredBy, CardAnswer, EngineCommand};
    let home = Home::new("siblings");
    let engine = start(&home, true);
    // Claude Code's order for two Reads outside the project in one turn (seen with the pinned
    // CLI): both PreToolUse, then both PermissionRequest, the cards up at once.
    claude_event(
        &home,
        "PreToolUse",
        read_call("s-p", "PreToolUse", "/etc/os-release", "toolu_a"),
    );
    claude_event(
        &home,
        "PreToolUse",
        read_call("s-p", "PreToolUse", "/etc/hostname", "toolu_b"),
    );
    let ask = |file: &str| {
        hook(
            &home,
            &["--agent", "claude", "PermissionRequest"],
            &read_call("s-p", "PermissionRequest", file, "").to_string(),
        )
    };
    let first = ask("/etc/os-release");
    let a = card_added(&engine);
    // The hooks race: the sibling's PreToolUse may come after the first card is up.
    claude_event(
        &home,
        "PreToolUse",
        read_call("s-p", "PreToolUse", "/etc/hostname", "toolu_b"),
    );
    let second = ask("/etc/hostname");
    let b = card_added(&engine);
    assert!(
        !drain_for(&engine, Duration::from_millis(500))
            .iter()
            .any(|e| matches!(e, EngineEvent::CardRemoved { .. })),
        "a call run beside another withdrew its card"
    );
    for (card, child) in [(a, first), (b, second)] {
        engine.send(EngineCommand::Answer {
            card: card.id,
            answer: CardAnswer::Allow,
            by: AnsweredBy::Click,
        });
        assert!(hook_exits(child).contains(r#""behavior":"allow""#));
    }

    // A card answered (or dismissed) in the terminal, and the agent's next call a while later:
    // that card is withdrawn.
    let child = hook(
        &home,
        &["--agent", "claude", "PermissionRequest"],
        &bash("s-p", "make release").to_string(),
    );
    let card = card_added(&engine);
    std::thread::sleep(Duration::from_millis(1600));
    claude_event(
        &home,
        "PreToolUse",
        read_call("s-p", "PreToolUse", "/etc/hosts", "toolu_c"),
    );
    match wait_for(&engine, |e| matches!(e, EngineEvent::CardRemoved { .. })) {
        Some(EngineEvent::CardRemoved { id, by }) => {
            assert_eq!((id, by), (card.id, AnsweredBy::Terminal));
        }
        _ => panic!("the card was not withdrawn by the next call"),
    }
    assert_eq!(hook_exits(child), "");
    assert!(
        audited(&engine, "answered")
            .detail
            .unwrap()
            .contains("another call")
    );
}
