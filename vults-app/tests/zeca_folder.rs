//! A chat sent to a folder that does not exist says so, and is not held there: once the user
//! names a folder that exists, the same conversation starts its CLI there (before, every later
//! message of that conversation failed the same way, and only a new chat helped).
#![cfg(unix)]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use vults_app::engine::{Engine, EngineHandle, EngineOptions};
use vults_app::model::{EngineCommand, EngineEvent};
use vults_app::zeca::{ChatCommand, ChatEvent, Conversation, Entry, ZecaOptions};
use vults_core::paths::Paths;

/// Claude Code's stream-json side at its smallest: init, and a result per user line.
const FAKE: &str = r#"#!/bin/sh
echo '{"type":"system","subtype":"init","session_id":"fake-folder","tools":[]}'
while IFS= read -r line; do
  echo '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"fake-folder"}'
done
"#;

fn updated_until(
    engine: &EngineHandle,
    what: &str,
    pred: impl Fn(&Conversation) -> bool,
) -> Conversation {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(20) {
        if let Ok(EngineEvent::Chat(ChatEvent::Updated(c))) =
            engine.events.recv_timeout(Duration::from_millis(100))
            && pred(&c)
        {
            return c;
        }
    }
    panic!("gave up waiting for {what}");
}

fn send(engine: &EngineHandle, folder: &str, text: &str) {
    assert!(engine.send(EngineCommand::Chat(ChatCommand::Send {
        chat: "c1".into(),
        folder: folder.into(),
        engine: "claude".into(),
        text: text.into(),
    })));
}

#[test]
fn a_chat_sent_to_a_missing_folder_can_be_sent_again_to_one_that_exists() {
    let dir = std::env::temp_dir().join(format!("vults-zeca-folder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("project")).unwrap();
    let fake = dir.join("claude");
    std::fs::write(&fake, FAKE).unwrap();
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

    let missing = dir.join("no-such-folder").display().to_string();
    send(&engine, &missing, "first");
    let c = updated_until(&engine, "the folder's error", |c| {
        c.entries.iter().any(|e| matches!(e, Entry::Note { .. }))
    });
    let said = c
        .entries
        .iter()
        .find_map(|e| match e {
            Entry::Note { text } => Some(text.clone()),
            _ => None,
        })
        .unwrap();
    assert!(said.contains("does not exist"), "{said}");

    let good = dir.join("project").display().to_string();
    send(&engine, &good, "second");
    let c = updated_until(&engine, "the CLI started in the good folder", |c| {
        c.session_id.as_deref() == Some("fake-folder")
    });
    assert_eq!(c.folder, good);
    assert!(Path::new(&c.folder).is_dir());
    engine.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
