//! The Chat view's states as a user meets them: a conversation whose CLI never started keeps
//! its folder open to fix (and the next message goes there); a tool row whose turn is over
//! without a result does not keep saying it asks; a task whose bird has left the flock does not
//! say it is "not in the flock yet".

#[allow(dead_code)]
use crate::fixtures;

use egui_kittest::kittest::Queryable;
use vults_core::protocol::AgentKind;
use vults_engine::messages::{EngineCommand, EngineEvent, SessionState};
use vults_ui::app::{Tab, VultsWindow};
use vults_zeca::{ChatCommand, ChatEvent, Conversation, Entry};

fn window() -> (
    egui_kittest::Harness<'static, VultsWindow>,
    fixtures::Played,
) {
    let (window, played) = fixtures::played_window();
    (fixtures::window_harness(window), played)
}

fn open(h: &mut egui_kittest::Harness<'static, VultsWindow>, title: &str) {
    h.state_mut().tab = Tab::Chat;
    h.run_steps(3);
    h.get_by_label("Conversation").click();
    h.run_steps(2);
    // A picker row: the first words, then where and when on a line of their own.
    h.get_by_label_contains(&format!("{title}\n")).click();
    h.run_steps(3);
}

#[test]
fn a_conversation_that_never_started_takes_a_new_folder() {
    let (mut h, p) = window();
    let mut conv = Conversation::new("c1", "/home/ada/src/vult", "claude");
    conv.entries = vec![
        Entry::User {
            text: "fix the build".into(),
        },
        Entry::Note {
            text: "the folder \"/home/ada/src/vult\" does not exist".into(),
        },
    ];
    p.chat_events.send(ChatEvent::Updated(conv)).unwrap();
    open(&mut h, "fix the build");
    let folder = h.get_by_label("Folder");
    folder.click();
    h.run_steps(1);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run_steps(1);
    h.get_by_label("Folder").type_text("/home/ada/src/vults");
    h.run_steps(1);
    h.get_by_label("Message").click();
    h.run_steps(1);
    h.get_by_label("Message").type_text("again");
    h.run_steps(1);
    h.get_by_label("Send").click();
    h.run_steps(2);
    let sent: Vec<ChatCommand> = p.chat_commands.try_iter().collect();
    assert!(
        sent.contains(&ChatCommand::Send {
            chat: "c1".into(),
            folder: "/home/ada/src/vults".into(),
            engine: "claude".into(),
            text: "again".into(),
        }),
        "{sent:?}"
    );
}

#[test]
fn a_tool_row_without_a_result_after_the_turn_and_a_task_that_left_the_flock() {
    let (mut h, p) = window();
    let mut conv = Conversation::new("c2", "/home/ada/src/vults", "claude");
    conv.session_id = Some("s-1".into());
    conv.entries = vec![
        Entry::User {
            text: "build it".into(),
        },
        Entry::Tool {
            id: "toolu_1".into(),
            name: "Bash".into(),
            summary: "cargo build".into(),
            result: None,
            error: false,
            asked: None,
            stopped: false,
        },
        Entry::Note {
            text: "Stopped.".into(),
        },
        Entry::Task {
            id: "t1".into(),
            folder: "/home/ada/src/vults".into(),
            agent: "claude".into(),
            prompt: "write the file".into(),
            headless: false,
            state: "opened in the terminal".into(),
        },
    ];
    conv.running = false;
    p.chat_events.send(ChatEvent::Updated(conv)).unwrap();
    let mut bird = fixtures::session(fixtures::Bird {
        agent: AgentKind::Claude,
        name: None,
        id: "task-bird",
        folder: "/home/ada/src/vults",
        state: SessionState::Working,
        tool: None,
        cost: None,
        limits: None,
    });
    bird.task = Some("t1".into());
    p.events
        .send(EngineEvent::SessionChanged(bird.clone()))
        .unwrap();
    open(&mut h, "build it");
    // The turn was stopped before the call was answered: it will not run now.
    assert!(
        h.query_by_label("asks").is_none(),
        "a stopped turn's row asks"
    );
    h.get_by_label("no result");
    h.get_by_label_contains("in the flock: working");
    // The task's agent ends and its bird leaves the flock.
    p.events.send(EngineEvent::SessionGone(bird.key)).unwrap();
    h.run_steps(3);
    assert!(
        h.query_by_label_contains("not in the flock yet").is_none(),
        "a bird that left is not one that has yet to come"
    );
    h.get_by_label_contains("left the flock");
}

/// Send with Ctrl+Enter leaves the keyboard in the empty message box; the card that comes then
/// answers A as its key hint says (the A went nowhere, or into the box).
#[test]
fn a_card_that_comes_after_sending_answers_its_keys() {
    let (mut h, p) = window();
    let mut conv = Conversation::new("c3", "/home/ada/src/vults", "claude");
    conv.session_id = Some("s-3".into());
    conv.entries = vec![Entry::User {
        text: "write the file".into(),
    }];
    conv.running = true;
    p.chat_events.send(ChatEvent::Updated(conv)).unwrap();
    open(&mut h, "write the file");
    h.get_by_label("Message").click();
    h.run_steps(2);
    let mut card = fixtures::bash_card(9, "echo vults > marker.txt");
    card.session.session = "zeca:c3".into();
    p.events.send(EngineEvent::CardAdded(card)).unwrap();
    h.run_steps(3);
    h.key_press(egui::Key::A);
    h.run_steps(2);
    let sent: Vec<EngineCommand> = p.commands.try_iter().collect();
    assert!(
        sent.contains(&EngineCommand::Answer {
            card: 9,
            answer: vults_engine::messages::CardAnswer::Allow,
            by: vults_engine::messages::AnsweredBy::Key,
        }),
        "{sent:?}"
    );
}

/// The Chat view shows one conversation; a card of another (still running) conversation floats,
/// as on any other tab, instead of waiting where nobody sees it.
#[test]
fn a_card_of_a_conversation_not_shown_floats() {
    let (mut h, p) = window();
    let mut conv = Conversation::new("c4", "/home/ada/src/vults", "claude");
    conv.entries = vec![Entry::User {
        text: "run the tests".into(),
    }];
    conv.running = true;
    p.chat_events.send(ChatEvent::Updated(conv)).unwrap();
    let mut card = fixtures::bash_card(11, "cargo test");
    card.session.session = "zeca:c4".into();
    p.events.send(EngineEvent::CardAdded(card)).unwrap();
    // The Chat view on "New chat": c4 is not the conversation shown.
    h.state_mut().tab = Tab::Chat;
    h.run_steps(4);
    assert_eq!(
        h.query_all_by_label("Allow").count(),
        1,
        "c4's card is seen somewhere"
    );
    // Shown, it is inline, once.
    open(&mut h, "run the tests");
    assert_eq!(h.query_all_by_label("Allow").count(), 1);
}

/// In one window an inline card and a floating one are both on screen: a key answers one card,
/// the oldest on screen (the one being read when the other arrived), not both.
#[test]
fn one_key_answers_one_card() {
    let (mut h, p) = window();
    let mut conv = Conversation::new("c5", "/home/ada/src/vults", "claude");
    conv.session_id = Some("s-5".into());
    conv.entries = vec![Entry::User {
        text: "lint it".into(),
    }];
    conv.running = true;
    p.chat_events.send(ChatEvent::Updated(conv)).unwrap();
    let mut inline = fixtures::bash_card(12, "cargo clippy");
    inline.session.session = "zeca:c5".into();
    p.events.send(EngineEvent::CardAdded(inline)).unwrap();
    open(&mut h, "lint it");
    // A hook's card (another agent) comes after it and floats over the Chat view.
    p.events
        .send(EngineEvent::CardAdded(fixtures::bash_card(
            13,
            "make deploy",
        )))
        .unwrap();
    h.run_steps(3);
    assert_eq!(h.query_all_by_label("Allow").count(), 2);
    h.key_press(egui::Key::D);
    h.run_steps(2);
    let answers: Vec<EngineCommand> = p
        .commands
        .try_iter()
        .filter(|c| matches!(c, EngineCommand::Answer { .. }))
        .collect();
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert!(
        matches!(answers[0], EngineCommand::Answer { card: 12, .. }),
        "{answers:?}"
    );
}

/// A headless task without a prompt has nothing to do (`claude -p ""` only fails): Start waits
/// for the prompt.
#[test]
fn a_headless_task_waits_for_its_prompt() {
    let (mut h, p) = window();
    h.state_mut().tab = Tab::Chat;
    h.run_steps(3);
    h.get_by_label("Start a task…").click();
    h.run_steps(2);
    h.get_by_label("Task folder").click();
    h.run_steps(1);
    h.get_by_label("Task folder")
        .type_text("/home/ada/src/vults");
    h.run_steps(1);
    h.get_by_label("Headless").click();
    h.run_steps(2);
    h.get_by_label("Start task (headless)").click();
    h.run_steps(2);
    let started = |c: &ChatCommand| matches!(c, ChatCommand::StartTask { .. });
    assert!(
        !p.chat_commands.try_iter().any(|c| started(&c)),
        "started without a prompt"
    );
    h.get_by_label("Task prompt").click();
    h.run_steps(1);
    h.get_by_label("Task prompt").type_text("write the file");
    h.run_steps(1);
    h.get_by_label("Start task (headless)").click();
    h.run_steps(2);
    assert!(
        p.chat_commands.try_iter().any(|c| started(&c)),
        "the task starts with its prompt"
    );
}

/// A task started from a Codex conversation is a Codex task unless the person picks otherwise.
#[test]
fn a_task_starts_with_the_conversations_agent() {
    let (mut h, p) = window();
    let mut conv = Conversation::new("c9", "/home/ada/src/site", "codex");
    conv.entries = vec![Entry::User {
        text: "tidy the site".into(),
    }];
    p.chat_events.send(ChatEvent::Updated(conv)).unwrap();
    open(&mut h, "tidy the site");
    h.get_by_label("Start a task…").click();
    h.run_steps(2);
    h.get_by_label("Task prompt").click();
    h.run_steps(1);
    h.get_by_label("Task prompt").type_text("run the linter");
    h.run_steps(1);
    h.get_by_label("Headless").click();
    h.run_steps(2);
    h.get_by_label("Start task (headless)").click();
    h.run_steps(2);
    let agents: Vec<String> = p
        .chat_commands
        .try_iter()
        .filter_map(|c| match c {
            ChatCommand::StartTask { task, .. } => Some(task.agent),
            _ => None,
        })
        .collect();
    assert_eq!(agents, vec!["codex".to_string()]);
}
