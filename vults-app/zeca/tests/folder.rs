//! A chat sent to a folder that does not exist says so, and is not held there: once the user
//! names a folder that exists, the same conversation starts its CLI there (before, every later
//! message of that conversation failed the same way, and only a new chat helped).
#![cfg(unix)]

use crate::common::{Running, fake_cli, paths, test_dir};
use std::path::Path;
use vults_zeca::{ChatCommand, Entry, ZecaOptions};

/// Claude Code's stream-json side at its smallest: init, and a result per user line.
const FAKE: &str = r#"#!/bin/sh
echo '{"type":"system","subtype":"init","session_id":"fake-folder","tools":[]}'
while IFS= read -r line; do
  echo '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"fake-folder"}'
done
"#;

fn send(app: &Running, folder: &str, text: &str) {
    app.chat(ChatCommand::Send {
        chat: "c1".into(),
        folder: folder.into(),
        engine: "claude".into(),
        text: text.into(),
    });
}

#[test]
fn a_chat_sent_to_a_missing_folder_can_be_sent_again_to_one_that_exists() {
    let home = test_dir("folder");
    let dir = &home.dir;
    let fake = fake_cli(dir, "claude", FAKE);
    let options = ZecaOptions {
        clis: [(vults_core::agents::Agent::Claude, fake)].into(),
        ..ZecaOptions::default()
    };
    let mut app = Running::start(paths(dir), options);

    let missing = dir.join("no-such-folder").display().to_string();
    send(&app, &missing, "first");
    let c = app.updated_until("the folder's error", |c| {
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
    send(&app, &good, "second");
    let c = app.updated_until("the CLI started in the good folder", |c| {
        c.session_id.as_deref() == Some("fake-folder")
    });
    assert_eq!(c.folder, good);
    assert!(Path::new(&c.folder).is_dir());
    app.stop();
}

/// The folder a chat ran in is remembered with the chat's settings, so after a restart a new
/// chat starts there (before, it was forgotten, and Send then stayed disabled without a word).
/// A folder that does not exist is not remembered; the form's settings do not forget it.
#[test]
fn the_last_folder_is_remembered_across_a_restart() {
    use vults_zeca::{ChatEvent, ZecaSettings};
    let home = test_dir("last-folder");
    let dir = &home.dir;
    let fake = fake_cli(dir, "claude", FAKE);
    let options = ZecaOptions {
        clis: [(vults_core::agents::Agent::Claude, fake)].into(),
        ..ZecaOptions::default()
    };
    let good = dir.join("project").display().to_string();
    let mut app = Running::start(paths(dir), options.clone());
    send(&app, &dir.join("nowhere").display().to_string(), "first");
    app.updated_until("the missing folder's note", |c| {
        c.entries.iter().any(|e| matches!(e, Entry::Note { .. }))
    });
    send(&app, &good, "second");
    app.updated_until("the turn", |c| c.session_id.is_some() && !c.running);
    // Chat settings saved from the form (which has no folder in it) keep the folder.
    app.chat(ChatCommand::Configure(ZecaSettings {
        terminal: Some("kitty -e".into()),
        ..ZecaSettings::default()
    }));
    let settings = |app: &Running| loop {
        match app
            .zeca
            .events
            .recv_timeout(std::time::Duration::from_secs(20))
        {
            Ok(ChatEvent::Settings(s)) if s.terminal.is_some() => return s,
            Ok(_) => continue,
            Err(e) => panic!("no settings: {e}"),
        }
    };
    assert_eq!(settings(&app).last_folder.as_deref(), Some(good.as_str()));
    app.stop();

    let app = Running::start(paths(dir), options);
    let s = settings(&app);
    assert_eq!(
        s.last_folder.as_deref(),
        Some(good.as_str()),
        "after a restart"
    );
    drop(app);
}
