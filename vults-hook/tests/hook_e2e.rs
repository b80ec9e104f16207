//! The real `vults-hook` binary against a scripted app on a real Unix socket (on Windows, a real
//! named pipe, run under Wine in CI): every agent's allow, deny and answers, the waiting rules,
//! and everything that must print nothing.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use vults_core::protocol::{AnswerItem, Decision, Event, MAX_LINE, VERSION};
use vults_tests::{
    HookRun, Received, Script, Stdin, Step, TempHome, TestServer, fixture, run_hook,
};

const HOOK: &str = env!("CARGO_BIN_EXE_vults-hook");
/// Every run is killed after this: a hang fails the test instead of stalling it.
const KILL_AFTER: Duration = Duration::from_secs(20);

fn hook(home: &TempHome, args: &[&str], stdin: &[u8]) -> HookRun {
    hook_env(home, args, stdin, &[])
}

fn hook_env(home: &TempHome, args: &[&str], stdin: &[u8], extra: &[(&str, &str)]) -> HookRun {
    let mut env = home.env();
    env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let run = run_hook(Path::new(HOOK), args, Stdin::Bytes(stdin), &env, KILL_AFTER);
    assert!(!run.killed, "the hook hung: {run:?}");
    assert_eq!(run.code, Some(0), "the hook always exits 0: {run:?}");
    run
}

fn only_event(server: &TestServer) -> Event {
    let got = server.wait_for(1, Duration::from_secs(2));
    assert_eq!(got.len(), 1, "one event per hook run: {got:?}");
    got[0].event.clone().expect("a v9 event")
}

const ALLOW_HOOK_SPECIFIC: &str = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#;
const DENY_HOOK_SPECIFIC: &str = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Denied from Vults"}}}"#;

/// (label, args, input fixture, expected allow line, expected deny line)
fn permission_cases() -> Vec<(
    &'static str,
    Vec<&'static str>,
    &'static str,
    &'static str,
    &'static str,
)> {
    vec![
        (
            "claude",
            vec!["--agent", "claude", "PermissionRequest"],
            "samples/claude/PermissionRequest.json",
            ALLOW_HOOK_SPECIFIC,
            DENY_HOOK_SPECIFIC,
        ),
        (
            "codex",
            vec!["--agent", "codex", "PermissionRequest"],
            "samples/codex/PermissionRequest.json",
            ALLOW_HOOK_SPECIFIC,
            DENY_HOOK_SPECIFIC,
        ),
        (
            "qwen",
            vec!["--agent", "qwen", "PermissionRequest"],
            "samples/qwen/PermissionRequest.json",
            ALLOW_HOOK_SPECIFIC,
            DENY_HOOK_SPECIFIC,
        ),
        (
            "copilot camelCase",
            vec!["--agent", "copilot", "permissionRequest"],
            "samples/copilot/camelCase/permissionRequest.json",
            r#"{"behavior":"allow"}"#,
            r#"{"behavior":"deny","message":"Denied from Vults"}"#,
        ),
        (
            "copilot PascalCase",
            vec!["--agent", "copilot", "PermissionRequest"],
            "samples/copilot/PascalCase/PermissionRequest.json",
            r#"{"behavior":"allow"}"#,
            r#"{"behavior":"deny","message":"Denied from Vults"}"#,
        ),
        (
            "opencode relay",
            vec!["--agent", "opencode", "PermissionRequest"],
            "relay/opencode-PermissionRequest.json",
            r#"{"reply":"once"}"#,
            r#"{"reply":"reject"}"#,
        ),
        (
            "named tool with --reply vults",
            vec![
                "--agent",
                "my-tool",
                "--reply",
                "vults",
                "PermissionRequest",
            ],
            "relay/named-PermissionRequest.json",
            r#"{"decision":"allow"}"#,
            r#"{"decision":"deny","reason":"Denied from Vults"}"#,
        ),
    ]
}

#[test]
fn every_agent_reads_allow_and_deny_in_its_own_shape() {
    for (label, args, input, allow, deny) in permission_cases() {
        for (decision, want) in [(Decision::Allow, allow), (Decision::Deny, deny)] {
            let home = TempHome::new("perm");
            let server = TestServer::start(
                &home.socket(),
                Script::steps(vec![Step::Waiting, Step::Decide(decision)]),
            );
            let run = hook(&home, &args, &fixture(input));
            assert_eq!(
                run.stdout,
                format!("{want}\n"),
                "{label} {decision:?}: {run:?}"
            );
            assert_eq!(run.stderr, "", "{label}");
            let event = only_event(&server);
            assert!(event.wants_reply, "{label}");
            assert!(
                !event.payload.to_string().contains("transcript"),
                "{label}: transcript paths never leave the hook"
            );
        }
    }
}

#[test]
fn the_terminal_pid_is_the_process_that_ran_the_hook() {
    // Not the hook's own pid, which differs on every event: with the folder, the runner's pid
    // stands in for a session id when the agent sends none.
    let home = TempHome::new("pid");
    let server = TestServer::start(&home.socket(), Script::listen());
    let run = hook(
        &home,
        &["--agent", "claude", "Stop"],
        br#"{"hook_event_name":"Stop"}"#,
    );
    assert_eq!(run.stdout, "");
    assert_eq!(only_event(&server).terminal.pid, Some(std::process::id()));
}

/// Codex, Qwen and Copilot run the hook through cmd or PowerShell, which on Windows stays
/// between them and the hook and ends with it: the hook names the agent above the shell.
#[cfg(windows)]
#[test]
fn a_hook_run_through_cmd_names_the_agent_above_the_shell() {
    let home = TempHome::new("pidcmd");
    let server = TestServer::start(&home.socket(), Script::listen());
    let mut env = home.env();
    if let Ok(root) = std::env::var("SystemRoot") {
        env.push(("SystemRoot".into(), root));
    }
    // Under Wine the build's path is a Unix one, which cmd reads as a switch: Wine's Z: is /.
    let hook = match HOOK.strip_prefix('/') {
        Some(rest) => format!("Z:\\{}", rest.replace('/', "\\")),
        None => HOOK.to_string(),
    };
    let run = run_hook(
        Path::new("cmd.exe"),
        &["/c", &hook, "--agent", "codex", "Stop"],
        Stdin::Bytes(br#"{"hook_event_name":"Stop"}"#),
        &env,
        KILL_AFTER,
    );
    assert!(!run.killed, "{run:?}");
    assert_eq!(only_event(&server).terminal.pid, Some(std::process::id()));
}

#[test]
fn a_decision_without_waiting_is_read_too() {
    // An Always rule answers before any card: no `waiting` first.
    let home = TempHome::new("rule");
    let _server = TestServer::start(
        &home.socket(),
        Script::steps(vec![Step::Decide(Decision::Allow)]),
    );
    let run = hook(
        &home,
        &["--agent", "claude", "PermissionRequest"],
        &fixture("samples/claude/PermissionRequest.json"),
    );
    assert_eq!(run.stdout, format!("{ALLOW_HOOK_SPECIFIC}\n"));
}

fn blue_and_sizes() -> Vec<AnswerItem> {
    vec![
        AnswerItem::One("Blue".into()),
        AnswerItem::Many(vec!["S".into(), "M".into()]),
    ]
}

#[test]
fn claude_ask_user_question_gets_answers_keyed_by_question_with_multi_select() {
    let home = TempHome::new("ask");
    let server = TestServer::start(
        &home.socket(),
        Script::steps(vec![Step::Waiting, Step::Answer(blue_and_sizes())]),
    );
    let input = fixture("relay/claude-AskUserQuestion.json");
    let run = hook(&home, &["--agent", "claude", "--ask", "PreToolUse"], &input);
    assert!(
        run.stdout.ends_with('\n') && run.stdout.lines().count() == 1,
        "{run:?}"
    );
    let out: Value = serde_json::from_str(&run.stdout).expect("one JSON line");
    let original: Value = serde_json::from_slice(&input).expect("fixture");
    let mut updated = original["tool_input"].clone();
    updated["answers"] = json!({"Which color?": "Blue", "Which sizes?": ["S", "M"]});
    assert_eq!(
        out,
        json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput": updated}})
    );
    let event = only_event(&server);
    assert!(event.wants_reply && event.is_question());
}

#[test]
fn answers_match_the_questions_the_agent_asked_not_the_cut_copy() {
    // A question over 2000 bytes reaches the app cut; the answers still key on the whole text.
    let long_question = format!("{}?", "Which one of these ".repeat(150));
    let input = json!({"session_id":"s","cwd":"/p","tool_name":"AskUserQuestion","tool_input":{"questions":[
        {"question": long_question, "header":"H","options":[{"label":"A"},{"label":"B"}],"multiSelect":false}]}});
    let home = TempHome::new("askcut");
    let server = TestServer::start(
        &home.socket(),
        Script::steps(vec![Step::Answer(vec![AnswerItem::One("B".into())])]),
    );
    let run = hook(
        &home,
        &["--agent", "claude", "--ask", "PreToolUse"],
        input.to_string().as_bytes(),
    );
    let out: Value = serde_json::from_str(&run.stdout).expect("a reply");
    assert_eq!(
        out["hookSpecificOutput"]["updatedInput"]["answers"][&long_question],
        "B"
    );
    let sent = only_event(&server);
    let sent_q = sent.payload["tool_input"]["questions"][0]["question"]
        .as_str()
        .unwrap_or_default();
    assert!(sent_q.len() <= 2000 && sent_q.len() < long_question.len());
}

#[test]
fn a_count_mismatch_in_answers_prints_nothing() {
    let home = TempHome::new("askbad");
    let _server = TestServer::start(
        &home.socket(),
        Script::steps(vec![Step::Answer(vec![AnswerItem::One("Blue".into())])]),
    );
    let run = hook(
        &home,
        &["--agent", "claude", "--ask", "PreToolUse"],
        &fixture("relay/claude-AskUserQuestion.json"),
    );
    assert_eq!(run.stdout, "");
}

#[test]
fn opencode_relay_gets_answer_lists() {
    let home = TempHome::new("ocask");
    let _server = TestServer::start(
        &home.socket(),
        Script::steps(vec![Step::Waiting, Step::Answer(blue_and_sizes())]),
    );
    let run = hook(
        &home,
        &["--agent", "opencode", "--ask", "PreToolUse"],
        &fixture("relay/opencode-AskUserQuestion.json"),
    );
    assert_eq!(run.stdout, "{\"answers\":[[\"Blue\"],[\"S\",\"M\"]]}\n");
}

#[test]
fn ask_user_question_without_ask_never_waits() {
    let home = TempHome::new("noask");
    let server = TestServer::start(
        &home.socket(),
        Script::steps(vec![Step::Answer(blue_and_sizes())]),
    );
    let run = hook(
        &home,
        &["--agent", "claude", "PreToolUse"],
        &fixture("relay/claude-AskUserQuestion.json"),
    );
    assert_eq!(run.stdout, "");
    assert!(!only_event(&server).wants_reply);
}

#[test]
fn waiting_then_a_decision_after_three_seconds_is_printed() {
    let home = TempHome::new("slow");
    let _server = TestServer::start(
        &home.socket(),
        Script::steps(vec![
            Step::Waiting,
            Step::Sleep(Duration::from_secs(3)),
            Step::Decide(Decision::Allow),
        ]),
    );
    let run = hook(
        &home,
        &["--agent", "claude", "PermissionRequest"],
        &fixture("samples/claude/PermissionRequest.json"),
    );
    assert_eq!(run.stdout, format!("{ALLOW_HOOK_SPECIFIC}\n"));
    assert!(run.elapsed >= Duration::from_secs(3));
}

#[test]
fn an_app_that_accepts_and_never_writes_costs_two_seconds_and_prints_nothing() {
    let home = TempHome::new("frozen");
    let server = TestServer::start(&home.socket(), Script::steps(vec![Step::Hold]));
    let run = hook(
        &home,
        &["--agent", "claude", "PermissionRequest"],
        &fixture("samples/claude/PermissionRequest.json"),
    );
    assert_eq!(run.stdout, "");
    let got = server.received();
    assert_eq!(got.len(), 1);
    // The one timed assertion the issue asks for: 2 s ± 0.2 from the event's arrival (the hook's
    // deadline starts when it has sent the event) to the hook's exit. Starting the process is
    // not part of it: under Wine that alone has taken over 0.2 s. The event arrives after the
    // spawn, so the whole run is at least as long.
    let waited = run.ended.saturating_duration_since(got[0].at);
    assert!(
        waited >= Duration::from_millis(1800) && waited <= Duration::from_millis(2200),
        "gave up {waited:?} after the event arrived ({:?} in all)",
        run.elapsed
    );
}

#[test]
fn waiting_then_silence_gives_up_at_the_deadline() {
    let home = TempHome::new("deadline");
    let _server = TestServer::start(
        &home.socket(),
        Script::steps(vec![Step::Waiting, Step::Hold]),
    );
    let run = hook_env(
        &home,
        &["--agent", "claude", "PermissionRequest"],
        &fixture("samples/claude/PermissionRequest.json"),
        &[("VULTS_HOOK_WAIT_S", "3")],
    );
    assert_eq!(run.stdout, "");
    assert!(
        run.elapsed >= Duration::from_millis(2900),
        "{:?}",
        run.elapsed
    );
}

#[test]
fn no_app_returns_at_once_and_prints_nothing() {
    let home = TempHome::new("noapp");
    let run = hook(
        &home,
        &["--agent", "claude", "PermissionRequest"],
        &fixture("samples/claude/PermissionRequest.json"),
    );
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr, "");
    assert!(run.elapsed < Duration::from_secs(1), "{:?}", run.elapsed);

    // A stale socket file with nobody listening: the same. (A named pipe leaves nothing behind
    // when its server goes, so Windows has no such case.)
    #[cfg(unix)]
    let run = {
        let listener = std::os::unix::net::UnixListener::bind(home.socket()).expect("bind");
        drop(listener); // the file stays, nobody accepts
        hook(
            &home,
            &["--agent", "claude", "PermissionRequest"],
            &fixture("samples/claude/PermissionRequest.json"),
        )
    };
    assert_eq!(run.stdout, "");
    assert!(run.elapsed < Duration::from_secs(1), "{:?}", run.elapsed);
}

fn prints_nothing_with(steps: Vec<Step>) -> HookRun {
    let home = TempHome::new("nothing");
    let _server = TestServer::start(&home.socket(), Script::steps(steps));
    let run = hook(
        &home,
        &["--agent", "claude", "PermissionRequest"],
        &fixture("samples/claude/PermissionRequest.json"),
    );
    assert_eq!(run.stdout, "", "{run:?}");
    run
}

#[test]
fn a_reply_for_another_id_prints_nothing() {
    prints_nothing_with(vec![Step::Raw(format!(
        r#"{{"kind":"decision","v":{VERSION},"id":"someone-else","decision":"allow"}}"#
    ))]);
    prints_nothing_with(vec![
        Step::Waiting,
        Step::Raw(format!(
            r#"{{"kind":"decision","v":{VERSION},"id":"{{id}}-x","decision":"allow"}}"#
        )),
        Step::Decide(Decision::Allow),
    ]);
}

#[test]
fn unsupported_prints_nothing() {
    let run = prints_nothing_with(vec![Step::Unsupported, Step::Decide(Decision::Allow)]);
    assert!(run.elapsed < Duration::from_secs(1));
}

#[test]
fn malformed_other_version_closed_or_overlong_replies_print_nothing() {
    prints_nothing_with(vec![Step::Raw("this is not json".into())]);
    prints_nothing_with(vec![Step::Raw(
        r#"{"kind":"decision","v":8,"id":"{id}","decision":"allow"}"#.into(),
    )]);
    prints_nothing_with(vec![Step::Raw(format!(
        r#"{{"kind":"decision","v":{VERSION},"id":"{{id}}","decision":"maybe"}}"#
    ))]);
    prints_nothing_with(vec![Step::Waiting]); // then the connection closes
    // A line over 1 MiB, even one that would end in an allow.
    let mut long =
        format!(r#"{{"kind":"decision","v":{VERSION},"id":"x","decision":"allow","pad":""#)
            .into_bytes();
    long.extend(std::iter::repeat_n(b'a', MAX_LINE + 10));
    prints_nothing_with(vec![Step::Bytes(long), Step::Hold]);
}

#[test]
fn a_three_mib_payload_reaches_the_app_under_one_mib_and_never_waits() {
    let many: Vec<String> = (0..1500)
        .map(|i| format!("{i}:{}", "z".repeat(2000)))
        .collect();
    let input = json!({"session_id":"big","cwd":"/p","hook_event_name":"PermissionRequest",
        "tool_name":"Bash","tool_input":{"command":"ls","many":many}})
    .to_string();
    assert!(input.len() >= 3 * 1000 * 1000);
    let home = TempHome::new("big");
    let server = TestServer::start(&home.socket(), Script::decide(Decision::Allow));
    let run = hook(
        &home,
        &["--agent", "claude", "PermissionRequest"],
        input.as_bytes(),
    );
    assert_eq!(run.stdout, "", "an event that had to shrink never waits");
    let got: Vec<Received> = server.wait_for(1, Duration::from_secs(2));
    assert_eq!(got.len(), 1);
    assert!(got[0].len < MAX_LINE, "line of {} bytes", got[0].len);
    let event = got[0].event.clone().expect("a v9 event");
    assert!(!event.wants_reply);
    assert_eq!(event.payload["session_id"], "big");
}

#[test]
fn zeca_events_are_marked_and_never_wait() {
    let home = TempHome::new("zeca");
    let server = TestServer::start(
        &home.socket(),
        Script::steps(vec![Step::Decide(Decision::Allow)]),
    );
    let run = hook_env(
        &home,
        &["--agent", "claude", "PermissionRequest"],
        &fixture("samples/claude/PermissionRequest.json"),
        &[("VULTS_ZECA", "1")],
    );
    assert_eq!(run.stdout, "", "the chat asks its own cards");
    let event = only_event(&server);
    assert!(event.zeca);
    assert!(!event.wants_reply);
}

#[test]
fn a_named_tool_without_reply_vults_never_waits() {
    let home = TempHome::new("named");
    let server = TestServer::start(
        &home.socket(),
        Script::steps(vec![
            Step::Sleep(Duration::from_secs(1)),
            Step::Decide(Decision::Allow),
        ]),
    );
    let run = hook(
        &home,
        &["--agent", "my-tool", "PermissionRequest"],
        &fixture("relay/named-PermissionRequest.json"),
    );
    assert_eq!(run.stdout, "");
    assert!(
        run.elapsed < Duration::from_millis(900),
        "{:?}",
        run.elapsed
    );
    let event = only_event(&server);
    assert_eq!(
        event.agent_name.as_ref().map(|n| n.as_str()),
        Some("my-tool")
    );
    assert!(!event.wants_reply);
    assert_eq!(event.reply, None);
}

#[test]
fn reply_vults_with_a_built_in_name_is_refused_without_connecting() {
    for name in [
        "claude",
        "codex",
        "copilot",
        "gemini",
        "opencode",
        "qwen",
        "other",
        "antigravity",
        "cursor",
        "droid",
        "kimi",
    ] {
        let home = TempHome::new("refuse");
        let server = TestServer::start(&home.socket(), Script::decide(Decision::Allow));
        let run = hook(
            &home,
            &["--agent", name, "--reply", "vults", "PermissionRequest"],
            &fixture("relay/named-PermissionRequest.json"),
        );
        assert_eq!(run.stdout, "", "{name}");
        assert_eq!(run.stderr.lines().count(), 1, "{name}: {run:?}");
        assert!(
            run.elapsed < Duration::from_secs(1),
            "{name}: {:?}",
            run.elapsed
        );
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(server.connections(), 0, "{name}");
    }
}

#[test]
fn events_that_want_no_reply_are_sent_and_not_waited_for() {
    let home = TempHome::new("post");
    let server = TestServer::start(&home.socket(), Script::steps(vec![Step::Hold]));
    let run = hook(
        &home,
        &["--agent", "claude", "PostToolUse"],
        &fixture("samples/claude/PostToolUse.json"),
    );
    assert_eq!(run.stdout, "");
    assert!(run.elapsed < Duration::from_secs(1), "{:?}", run.elapsed);
    let event = only_event(&server);
    assert_eq!(event.event, "PostToolUse");
    assert!(!event.wants_reply);
    assert!(event.payload.get("tool_response").is_none());
}

#[test]
fn a_stdin_never_closed_does_not_hang_the_hook() {
    let home = TempHome::new("open");
    let server = TestServer::start(&home.socket(), Script::decide(Decision::Allow));
    // Nothing written: give up after the stdin bound, print nothing, send nothing.
    let run = run_hook(
        Path::new(HOOK),
        &["--agent", "claude", "PermissionRequest"],
        Stdin::BytesThenHold(b""),
        &home.env(),
        KILL_AFTER,
    );
    assert!(!run.killed && run.code == Some(0), "{run:?}");
    assert_eq!(run.stdout, "");
    assert!(run.elapsed < Duration::from_secs(5), "{:?}", run.elapsed);
    assert_eq!(server.connections(), 0);

    // A whole JSON object written and stdin left open: the hook goes on without waiting for EOF.
    let run = run_hook(
        Path::new(HOOK),
        &["--agent", "claude", "PermissionRequest"],
        Stdin::BytesThenHold(&fixture("samples/claude/PermissionRequest.json")),
        &home.env(),
        KILL_AFTER,
    );
    assert_eq!(run.stdout, format!("{ALLOW_HOOK_SPECIFIC}\n"), "{run:?}");
    assert!(run.elapsed < Duration::from_secs(2), "{:?}", run.elapsed);
}

#[test]
fn a_utf8_bom_is_stripped() {
    let home = TempHome::new("bom");
    let _server = TestServer::start(&home.socket(), Script::decide(Decision::Deny));
    let mut input = b"\xEF\xBB\xBF".to_vec();
    input.extend(fixture("samples/copilot/camelCase/permissionRequest.json"));
    let run = hook(&home, &["--agent", "copilot", "permissionRequest"], &input);
    assert_eq!(
        run.stdout,
        "{\"behavior\":\"deny\",\"message\":\"Denied from Vults\"}\n"
    );
}

#[test]
fn gemini_sends_nothing() {
    let home = TempHome::new("gemini");
    let server = TestServer::start(&home.socket(), Script::decide(Decision::Allow));
    let run = hook(
        &home,
        &["--agent", "gemini", "BeforeTool"],
        &fixture("samples/gemini/BeforeTool.json"),
    );
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("", ""));
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(server.connections(), 0);
}

fn save_users_statusline(home: &TempHome, command: &str) {
    std::fs::create_dir_all(home.config_dir()).expect("config dir");
    let state = json!({"claude":{"statusLine":{"type":"command","command": command,"padding":0}}});
    std::fs::write(home.config_dir().join("install.json"), state.to_string())
        .expect("install.json");
}

/// A status line command that prints `mine` (no newline) in the shell the hook runs it with:
/// `sh -c` on Unix, `cmd /C` on Windows.
const PRINT_MINE: &str = if cfg!(windows) {
    "echo|set /p=mine"
} else {
    "printf mine"
};

// The user's line here reads stdin with POSIX sh; the Windows runner (`cmd /C`) is covered by
// the two tests below.
#[cfg(unix)]
#[test]
fn statusline_forwards_only_cost_limits_and_session_and_prints_the_users_line() {
    let home = TempHome::new("status");
    let server = TestServer::start(&home.socket(), Script::listen());
    // The user's own command reads the same stdin and prints two lines, no trailing newline.
    save_users_statusline(
        &home,
        r#"read -r line; case "$line" in *'"display_name":"Opus"'*) printf 'Opus\nline two' ;; *) printf 'no stdin' ;; esac"#,
    );
    let input = fixture("relay/claude-StatusLine.json");
    let run = hook(&home, &["--agent", "claude", "--statusline"], &input);
    assert_eq!(run.stdout, "Opus\nline two");
    let event = only_event(&server);
    assert_eq!(event.event, "StatusLine");
    assert!(!event.wants_reply);
    assert_eq!(
        event.payload,
        json!({"session_id":"0f7ab425-a9db-458a-8f7d-7df3582bc35a",
            "rate_limits":{"five_hour":{"used_percentage":23.5,"resets_at":1738425600},"seven_day":{"used_percentage":41.2,"resets_at":1738857600}},
            "cost":{"total_cost_usd":0.42}})
    );
}

#[test]
fn statusline_without_cost_or_limits_sends_nothing_and_without_a_saved_line_prints_nothing() {
    let home = TempHome::new("status0");
    let server = TestServer::start(&home.socket(), Script::listen());
    let run = hook(
        &home,
        &["--agent", "claude", "--statusline"],
        br#"{"session_id":"s","cwd":"/p","model":{"id":"m"}}"#,
    );
    assert_eq!(run.stdout, "");
    let run = hook(
        &home,
        &["--agent", "claude", "--statusline"],
        &fixture("relay/claude-StatusLine.json"),
    );
    assert_eq!(run.stdout, "");
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(
        server.received().len(),
        1,
        "only the run with cost and limits sends"
    );
    // The user's line still prints when Vults has nothing to send.
    save_users_statusline(&home, PRINT_MINE);
    let run = hook(
        &home,
        &["--agent", "claude", "--statusline"],
        br#"{"session_id":"s"}"#,
    );
    assert_eq!(run.stdout, "mine");
}

#[test]
fn a_users_status_line_that_hangs_is_cut_at_its_bound() {
    let home = TempHome::new("statushang");
    let hangs = if cfg!(windows) {
        "ping -n 9 127.0.0.1 >NUL & echo late"
    } else {
        "sleep 30; printf late"
    };
    save_users_statusline(&home, hangs);
    let run = hook(
        &home,
        &["--agent", "claude", "--statusline"],
        br#"{"session_id":"s"}"#,
    );
    assert_eq!(run.stdout, "");
    assert!(run.elapsed < Duration::from_secs(8), "{:?}", run.elapsed);
}

#[test]
fn stdin_over_8_mib_is_refused_and_nothing_is_sent() {
    let home = TempHome::new("huge");
    let server = TestServer::start(&home.socket(), Script::decide(Decision::Allow));
    let mut input = br#"{"tool_name":"Bash","tool_input":{"command":""#.to_vec();
    input.extend(std::iter::repeat_n(b'x', 9 * 1024 * 1024));
    input.extend(br#""}}"#);
    let run = hook(&home, &["--agent", "claude", "PermissionRequest"], &input);
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr.lines().count(), 1, "{:?}", run.stderr);
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(server.connections(), 0);
}

/// Claude Code's ExitPlanMode, as the pinned CLI sends it, with a plan longer than a string may
/// be on the wire.
fn plan_request() -> (Value, String) {
    let plan = "# Plan\n\n".to_string() + &"1. Write the marker file, then check it\n".repeat(120);
    assert!(plan.len() > 2000);
    let input = json!({"session_id":"s","cwd":"/p","permission_mode":"plan",
        "hook_event_name":"PermissionRequest","tool_name":"ExitPlanMode",
        "tool_input":{"plan": plan,"planFilePath":"/home/me/.claude/plans/p.md"}});
    (input, plan)
}

#[test]
fn approving_a_plan_echoes_the_whole_plan_as_updated_input() {
    let (input, plan) = plan_request();
    let home = TempHome::new("plan-ok");
    let server = TestServer::start(
        &home.socket(),
        Script::steps(vec![Step::Waiting, Step::Decide(Decision::Allow)]),
    );
    let run = hook(
        &home,
        &["--agent", "claude", "PermissionRequest"],
        input.to_string().as_bytes(),
    );
    let out: Value = serde_json::from_str(&run.stdout).expect("one JSON line");
    assert_eq!(
        out,
        json!({"hookSpecificOutput":{"hookEventName":"PermissionRequest",
            "decision":{"behavior":"allow","updatedInput": input["tool_input"]}}})
    );
    // The app got the whole plan, and was asked to answer.
    let sent = only_event(&server);
    assert!(sent.wants_reply && sent.too_large.is_none());
    assert_eq!(sent.payload["tool_input"]["plan"], plan);
}

#[test]
fn keeping_a_plan_tells_the_model_the_feedback_and_only_clean_words_pass() {
    let (input, _) = plan_request();
    let reply = |line: &str| {
        let home = TempHome::new("plan-keep");
        let _server = TestServer::start(
            &home.socket(),
            Script::steps(vec![Step::Waiting, Step::Raw(line.to_string())]),
        );
        let run = hook(
            &home,
            &["--agent", "claude", "PermissionRequest"],
            input.to_string().as_bytes(),
        );
        serde_json::from_str::<Value>(&run.stdout).expect("one JSON line")
    };
    let deny = |message: &str| {
        json!({"hookSpecificOutput":{"hookEventName":"PermissionRequest",
            "decision":{"behavior":"deny","message": message}}})
    };
    assert_eq!(
        reply(&format!(
            r#"{{"kind":"decision","v":{VERSION},"id":"{{id}}","decision":"deny","message":"Also say how the marker is checked"}}"#
        )),
        deny("Also say how the marker is checked")
    );
    // What the app sends is checked again: control characters and newlines go, the length is
    // bounded, and nothing left is the usual deny.
    assert_eq!(
        reply(&format!(
            r#"{{"kind":"decision","v":{VERSION},"id":"{{id}}","decision":"deny","message":"a\u001b[2J\nb"}}"#
        )),
        deny("a [2J b")
    );
    let long = "x".repeat(100_000);
    let out = reply(&format!(
        r#"{{"kind":"decision","v":{VERSION},"id":"{{id}}","decision":"deny","message":"{long}"}}"#
    ));
    assert_eq!(
        out["hookSpecificOutput"]["decision"]["message"]
            .as_str()
            .map(str::len),
        Some(vults_core::protocol::MAX_FEEDBACK)
    );
    assert_eq!(
        reply(&format!(
            r#"{{"kind":"decision","v":{VERSION},"id":"{{id}}","decision":"deny","message":"\u200b "}}"#
        )),
        deny("Denied from Vults")
    );
    // Words never turn an allow into anything else.
    assert_eq!(
        reply(&format!(
            r#"{{"kind":"decision","v":{VERSION},"id":"{{id}}","decision":"allow","message":"x"}}"#
        )),
        json!({"hookSpecificOutput":{"hookEventName":"PermissionRequest",
            "decision":{"behavior":"allow","updatedInput": input["tool_input"]}}})
    );
}
