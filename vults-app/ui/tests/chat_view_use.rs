//! The Chat view as people use it (issue 24, item 7): picker rows that start alike still differ
//! (numbered, with their folder, last activity and whether they ask); a tool row says what happened in words; a chat's
//! card floating outside the Chat view says it comes from the chat (and opens it); the new-chat
//! folder is remembered, and a disabled Send says why.

use crate::fixtures;
#[allow(dead_code)]
use crate::fixtures::Snap;

use egui_kittest::kittest::{NodeT, Queryable};
use vults_engine::messages::{AnsweredBy, EngineEvent};
use vults_ui::app::{Tab, VultsWindow};
use vults_zeca::tool::Asked;
use vults_zeca::{ChatCommand, ChatEvent, Conversation, Entry, ZecaSettings};

fn window() -> (
    egui_kittest::Harness<'static, VultsWindow>,
    fixtures::Played,
) {
    let (window, played) = fixtures::played_window();
    (fixtures::window_harness(window), played)
}

fn conv(id: &str, folder: &str, first: &str, secs_ago: u64) -> Conversation {
    let mut c = Conversation::new(id, folder, "claude");
    c.session_id = Some(format!("s-{id}"));
    c.entries = vec![Entry::User { text: first.into() }];
    c.last_active = vults_engine::clock::unix_ms(fixtures::ago(secs_ago));
    c
}

fn tool(id: &str, result: Option<&str>, error: bool, asked: Option<Asked>, stopped: bool) -> Entry {
    Entry::Tool {
        id: id.into(),
        name: "Bash".into(),
        summary: format!("step {id}"),
        result: result.map(str::to_string),
        error,
        asked,
        stopped,
    }
}

#[test]
fn picker_rows_that_start_alike_say_where_and_when() {
    let (mut h, p) = window();
    for c in [
        conv("c1", "/home/ada/src/site", "fix the build", 2 * 86_400),
        conv("c2", "/home/ada/src/vults", "fix the build", 300),
    ] {
        p.chat_events.send(ChatEvent::Updated(c)).unwrap();
    }
    let mut card = fixtures::bash_card(3, "cargo build");
    card.session.session = "zeca:c2".into();
    p.events.send(EngineEvent::CardAdded(card)).unwrap();
    h.state_mut().tab = Tab::Chat;
    h.run_steps(3);
    h.get_by_label("Conversation").click();
    h.run_steps(2);
    let rows: Vec<(String, f32)> = h
        .query_all_by_label_contains("fix the build")
        .filter(|n| n.accesskit_node().label().is_some_and(|l| l.contains('\n')))
        .map(|n| {
            let a = n.accesskit_node();
            (
                a.label().or_else(|| a.value()).unwrap_or_default(),
                n.rect().top(),
            )
        })
        .collect();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_ne!(rows[0].0, rows[1].0, "identical rows: {rows:?}");
    let newest = rows.iter().min_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    assert_eq!(
        newest.0, "fix the build (2)\nvults · 5 min ago · asks you",
        "the latest first, with where, when and that it asks: {rows:?}"
    );
    assert!(
        rows.iter()
            .any(|r| r.0 == "fix the build\nsite · 2 days ago"),
        "{rows:?}"
    );
    h.snap("chat_view_picker");
}

#[test]
fn tool_rows_say_what_happened_in_words() {
    let (mut h, p) = window();
    let mut c = conv("c1", "/home/ada/src/vults", "tidy up", 60);
    let by = |by: AnsweredBy| Some(Asked::Allowed { by });
    c.entries.extend([
        tool("1", None, false, by(AnsweredBy::Click), false),
        tool("2", Some("Exit code 137"), true, by(AnsweredBy::Click), true),
        tool(
            "3",
            Some("Denied from Vults"),
            true,
            Some(Asked::Denied {
                by: AnsweredBy::Policy("no pushes".into()),
            }),
            false,
        ),
        tool(
            "4",
            Some("Denied from Vults"),
            true,
            Some(Asked::Denied {
                by: AnsweredBy::Click,
            }),
            false,
        ),
        tool(
            "5",
            Some("<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"),
            true,
            None,
            false,
        ),
        tool("6", None, false, Some(Asked::Waiting), false),
    ]);
    c.running = true;
    p.chat_events.send(ChatEvent::Updated(c)).unwrap();
    h.state_mut().tab = Tab::Chat;
    h.run_steps(3);
    h.get_by_label("Conversation").click();
    h.run_steps(2);
    h.get_by_label_contains("tidy up\n").click();
    h.run_steps(3);
    for said in [
        "allowed — running",
        "stopped",
        "denied by policy no pushes",
        "denied by you",
        "failed",
        "asks",
    ] {
        assert_eq!(
            h.query_all_by_label(said).count(),
            1,
            "one row says {said:?}"
        );
    }
    assert!(
        h.query_all_by_label_contains("File has not been read yet. Read it first")
            .count()
            >= 1,
        "Claude Code's own error, in its words"
    );
    // What is written on screen (a row's whole result stays on its hover).
    for raw in [
        "refused",
        "tool_use_error",
        "Exit code 137",
        "Denied from Vults",
    ] {
        let shown = h
            .query_all_by_label_contains(raw)
            .filter(|n| n.accesskit_node().role() == egui::accesskit::Role::Label)
            .count();
        assert_eq!(shown, 0, "{raw:?} is not how a row says it");
    }
    h.snap("chat_view_rows");
}

#[test]
fn a_chat_card_floating_elsewhere_says_it_is_the_chats_and_opens_it() {
    let (mut h, p) = window();
    let mut c = conv("c7", "/home/ada/src/vults", "write the release notes", 30);
    c.running = true;
    p.chat_events.send(ChatEvent::Updated(c)).unwrap();
    let mut card = fixtures::bash_card(8, "git log --oneline");
    card.session.session = "zeca:c7".into();
    p.events.send(EngineEvent::CardAdded(card)).unwrap();
    // A hook's card says nothing of the kind.
    p.events
        .send(EngineEvent::CardAdded(fixtures::bash_card(
            9,
            "make deploy",
        )))
        .unwrap();
    h.state_mut().tab = Tab::Flock;
    h.run_steps(3);
    assert_eq!(h.query_all_by_label("Allow").count(), 2);
    assert_eq!(h.query_all_by_label_contains("from Zeca").count(), 1);
    h.get_by_label("from Zeca · write the release notes");
    // Armed: its buttons drawn ready.
    fixtures::past_arming(&mut h);
    h.snap("chat_card_floating");
    h.get_by_label("from Zeca · write the release notes")
        .click();
    h.run_steps(3);
    assert_eq!(h.state().tab, Tab::Chat);
    // The conversation is shown: its card inline (without the line), the other still floats.
    h.get_by_label("write the release notes");
    assert!(h.query_by_label_contains("from Zeca").is_none());
    assert_eq!(h.query_all_by_label("Allow").count(), 2);
}

#[test]
fn the_remembered_folder_fills_a_new_chat_and_a_disabled_send_says_why() {
    let (mut h, p) = window();
    h.state_mut().tab = Tab::Chat;
    h.run_steps(3);
    // No folder yet: a message typed, Send disabled, and why is said next to it.
    h.get_by_label("Message").click();
    h.run_steps(1);
    h.get_by_label("Message").type_text("fix the build");
    h.run_steps(2);
    h.get_by_label_contains("Send needs a folder");
    h.get_by_label("Send").click();
    h.run_steps(2);
    assert!(
        !p.chat_commands
            .try_iter()
            .any(|c| matches!(c, ChatCommand::Send { .. })),
        "nothing is sent without a folder"
    );

    // After a restart the chat says which folder the last chat ran in: a new chat starts there.
    let (mut h, p) = window();
    p.chat_events
        .send(ChatEvent::Settings(ZecaSettings {
            last_folder: Some("/home/ada/src/vults".into()),
            ..ZecaSettings::default()
        }))
        .unwrap();
    h.state_mut().tab = Tab::Chat;
    h.run_steps(3);
    h.get_by_label("Message").click();
    h.run_steps(1);
    h.get_by_label("Message").type_text("fix the build");
    h.run_steps(2);
    assert!(h.query_by_label_contains("Send needs a folder").is_none());
    h.get_by_label("Send").click();
    h.run_steps(2);
    let sent: Vec<ChatCommand> = p.chat_commands.try_iter().collect();
    assert!(
        sent.iter()
            .any(|c| matches!(c, ChatCommand::Send { folder, text, .. }
            if folder == "/home/ada/src/vults" && text == "fix the build")),
        "{sent:?}"
    );
}
