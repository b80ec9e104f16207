//! A chat's CLI that ends in the middle of a turn: the chat says so, naming the CLI that ended
//! (a Codex conversation said "Claude Code ended …"), with its exit status and last words.
#![cfg(unix)]

use crate::common::{Running, fake_cli, paths, test_dir};
use vults_zeca::{ChatCommand, Entry, ZecaOptions};

/// A CLI that reads its first lines, says something on stderr and dies.
const DIES: &str = "#!/bin/sh\nread line\necho 'out of memory' >&2\nexit 3\n";

fn note(c: &vults_zeca::Conversation) -> Option<String> {
    c.entries.iter().find_map(|e| match e {
        Entry::Note { text } => Some(text.clone()),
        _ => None,
    })
}

#[test]
fn a_codex_chat_whose_cli_dies_mid_turn_says_codex_ended() {
    let home = test_dir("crash");
    let dir = &home.dir;
    let fake = fake_cli(dir, "codex", DIES);
    let options = ZecaOptions {
        clis: [(vults_core::agents::Agent::Codex, fake)].into(),
        ..ZecaOptions::default()
    };
    let mut app = Running::start(paths(dir), options);
    app.chat(ChatCommand::Send {
        chat: "k1".into(),
        folder: dir.join("project").display().to_string(),
        engine: "codex".into(),
        text: "go".into(),
    });
    let said = note(&app.updated_until("a note", |c| note(c).is_some())).unwrap();
    assert!(
        said.starts_with("Codex CLI ended in the middle of a turn"),
        "{said}"
    );
    assert!(said.contains("out of memory"), "{said}");
    app.stop();
}

/// A headless task that fails says why in the chat (its last line), not only its exit status.
#[test]
fn a_failed_headless_task_says_why() {
    let home = test_dir("task-fail");
    let dir = &home.dir;
    let fake = fake_cli(
        dir,
        "claude",
        "#!/bin/sh\necho 'starting'\necho 'Error: Invalid API key' >&2\nexit 1\n",
    );
    let options = ZecaOptions {
        clis: [(vults_core::agents::Agent::Claude, fake)].into(),
        ..ZecaOptions::default()
    };
    let mut app = Running::start(paths(dir), options);
    app.chat(ChatCommand::StartTask {
        chat: "k2".into(),
        task: vults_zeca::TaskSpec {
            folder: dir.join("project").display().to_string(),
            prompt: "write the file".into(),
            agent: "claude".into(),
            headless: true,
        },
    });
    let ended = |c: &vults_zeca::Conversation| {
        c.entries.iter().find_map(|e| match e {
            Entry::Task { state, .. } if state.starts_with("ended") => Some(state.clone()),
            _ => None,
        })
    };
    let state = ended(&app.updated_until("the task's end", |c| ended(c).is_some())).unwrap();
    assert!(state.contains("Invalid API key"), "{state}");
    app.stop();
}
