//! A chat's CLI that ends in the middle of a turn: the chat says so, naming the CLI that ended
//! (a Codex conversation said "Claude Code ended …"), with its exit status and last words.
#![cfg(unix)]

use std::sync::Arc;
use std::time::{Duration, Instant};
use vults_app::engine::{Engine, EngineOptions};
use vults_app::model::{EngineCommand, EngineEvent};
use vults_app::zeca::{ChatCommand, ChatEvent, Entry, ZecaOptions};
use vults_core::paths::Paths;

/// A CLI that reads its first lines, says something on stderr and dies.
const DIES: &str = "#!/bin/sh\nread line\necho 'out of memory' >&2\nexit 3\n";

#[test]
fn a_codex_chat_whose_cli_dies_mid_turn_says_codex_ended() {
    let dir = std::env::temp_dir().join(format!("vults-zeca-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("project")).unwrap();
    let fake = dir.join("codex");
    std::fs::write(&fake, DIES).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let home = dir.join("vults");
    let paths = Paths::resolve(move |k| (k == "VULTS_HOME").then(|| home.clone()));
    let options = EngineOptions {
        zeca: ZecaOptions {
            codex: Some(fake),
            ..ZecaOptions::default()
        },
        ..EngineOptions::default()
    };
    let mut engine = Engine::start_with(paths, Arc::new(|| {}), options).expect("engine starts");
    assert!(engine.send(EngineCommand::Chat(ChatCommand::Send {
        chat: "k1".into(),
        folder: dir.join("project").display().to_string(),
        engine: "codex".into(),
        text: "go".into(),
    })));
    let start = Instant::now();
    let said = loop {
        assert!(start.elapsed() < Duration::from_secs(20), "no note came");
        if let Ok(EngineEvent::Chat(ChatEvent::Updated(c))) =
            engine.events.recv_timeout(Duration::from_millis(100))
            && let Some(text) = c.entries.iter().find_map(|e| match e {
                Entry::Note { text } => Some(text.clone()),
                _ => None,
            })
        {
            break text;
        }
    };
    assert!(
        said.starts_with("Codex CLI ended in the middle of a turn"),
        "{said}"
    );
    assert!(said.contains("out of memory"), "{said}");
    engine.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A headless task that fails says why in the chat (its last line), not only its exit status.
#[test]
fn a_failed_headless_task_says_why() {
    let dir = std::env::temp_dir().join(format!("vults-zeca-task-fail-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("project")).unwrap();
    let fake = dir.join("claude");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho 'starting'\necho 'Error: Invalid API key' >&2\nexit 1\n",
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let home = dir.join("vults");
    let paths = Paths::resolve(move |k| (k == "VULTS_HOME").then(|| home.clone()));
    let options = EngineOptions {
        zeca: ZecaOptions {
            claude: Some(fake),
            ..ZecaOptions::default()
        },
        ..EngineOptions::default()
    };
    let mut engine = Engine::start_with(paths, Arc::new(|| {}), options).expect("engine starts");
    assert!(engine.send(EngineCommand::Chat(ChatCommand::StartTask {
        chat: "k2".into(),
        task: vults_app::zeca::TaskSpec {
            folder: dir.join("project").display().to_string(),
            prompt: "write the file".into(),
            agent: "claude".into(),
            headless: true,
        },
    })));
    let start = Instant::now();
    let state = loop {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the task never ended"
        );
        if let Ok(EngineEvent::Chat(ChatEvent::Updated(c))) =
            engine.events.recv_timeout(Duration::from_millis(100))
            && let Some(state) = c.entries.iter().find_map(|e| match e {
                Entry::Task { state, .. } if state.starts_with("ended") => Some(state.clone()),
                _ => None,
            })
        {
            break state;
        }
    };
    assert!(state.contains("Invalid API key"), "{state}");
    engine.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
