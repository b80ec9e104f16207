//! A chat's CLI that sits idle is ended, and the next message resumes its session: before,
//! every conversation kept its CLI until the app quit (9 chats, 9 idle Claude Codes, about
//! 1.6 GiB). A CLI with a turn still running is never ended. The real CLI: step 9 of
//! tests/real-agents/zeca.rs.
#![cfg(unix)]

use crate::common::{Running, fake_cli, paths, test_dir};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use vults_zeca::{ChatCommand, Entry, ZecaOptions};

/// Claude Code's stream-json side at its smallest; each start writes down its pid and its
/// arguments. A line that says "hold" starts a turn that does not end; one that says
/// "server" starts a command in the background (as Claude Code's `run_in_background` does).
const FAKE: &str = r#"#!/bin/sh
echo "$$ $*" >> "$FAKE_STARTS"
echo '{"type":"system","subtype":"init","session_id":"fake-idle","tools":[]}'
while IFS= read -r line; do
  case "$line" in
    *hold*) ;;
    *server*)
      echo '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_bg","name":"Bash","input":{"command":"npm run dev","run_in_background":true}}]}}'
      echo '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"fake-idle"}'
      ;;
    *) echo '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"fake-idle"}' ;;
  esac
done
"#;

const IDLE: Duration = Duration::from_millis(300);

fn alive(pid: u32) -> bool {
    Command::new("kill")
        .args(["-0", &pid.to_string()])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn starts(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn setup(name: &str) -> (vults_tests::TempHome, std::path::PathBuf, Running) {
    let home = test_dir(name);
    let dir = &home.dir;
    let fake = fake_cli(dir, "claude", FAKE);
    let log = dir.join("starts.txt");
    let options = ZecaOptions {
        clis: [(vults_core::agents::Agent::Claude, fake)].into(),
        env: vec![("FAKE_STARTS".into(), log.display().to_string())],
        idle_after: Some(IDLE),
        ..ZecaOptions::default()
    };
    let app = Running::start(paths(dir), options);
    (home, log, app)
}

fn send(app: &Running, dir: &Path, text: &str) {
    app.chat(ChatCommand::Send {
        chat: "i1".into(),
        folder: dir.join("project").display().to_string(),
        engine: "claude".into(),
        text: text.into(),
    });
}

#[test]
fn an_idle_cli_is_ended_and_the_next_message_resumes_its_session() {
    let (home, log, mut app) = setup("idle");
    let dir = &home.dir;
    send(&app, dir, "first");
    let c = app.updated_until("the first turn's end", |c| {
        !c.running && c.session_id.as_deref() == Some("fake-idle") && c.pid.is_some()
    });
    let first = c.pid.unwrap();
    // Idle: the CLI is ended, and the window is told (no pid any more).
    app.updated_until("the idle CLI ended", |c| c.pid.is_none());
    let start = Instant::now();
    while alive(first) && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!alive(first), "the idle CLI's process is gone");

    // The next message starts it again on the same session, as after a restart.
    send(&app, dir, "second");
    let c = app.updated_until("the resumed turn's end", |c| {
        !c.running
            && c.pid.is_some()
            && c.entries
                .iter()
                .filter(|e| matches!(e, Entry::User { .. }))
                .count()
                == 2
    });
    assert_ne!(c.pid, Some(first), "a new process");
    assert_eq!(c.session_id.as_deref(), Some("fake-idle"));
    let started = starts(&log);
    assert_eq!(started.len(), 2, "{started:?}");
    assert!(!started[0].contains("--resume"), "{started:?}");
    assert!(
        started[1].ends_with("--resume fake-idle"),
        "the second start resumes the session: {started:?}"
    );
    assert!(
        !c.entries.iter().any(|e| matches!(e, Entry::Note { .. })),
        "seamless: nothing is said about it: {:?}",
        c.entries
    );
    app.stop();
}

#[test]
fn a_cli_with_a_turn_running_is_never_ended_as_idle() {
    let (home, log, mut app) = setup("busy");
    let dir = &home.dir;
    send(&app, dir, "hold on");
    let c = app.updated_until("the turn to start", |c| c.running && c.pid.is_some());
    let pid = c.pid.unwrap();
    std::thread::sleep(IDLE * 5);
    assert!(alive(pid), "a working CLI is kept");
    assert_eq!(starts(&log).len(), 1);
    app.stop();
}

/// A command the CLI started in the background (a dev server) lives in its process group:
/// ending the CLI would end it, so that CLI is kept.
#[test]
fn a_cli_that_runs_something_in_the_background_is_kept() {
    let (home, log, mut app) = setup("background");
    let dir = &home.dir;
    send(&app, dir, "start the dev server");
    let c = app.updated_until("the turn's end", |c| !c.running && c.pid.is_some());
    let pid = c.pid.unwrap();
    std::thread::sleep(IDLE * 5);
    assert!(alive(pid), "the CLI and its background command are kept");
    assert_eq!(starts(&log).len(), 1);
    app.stop();
}
