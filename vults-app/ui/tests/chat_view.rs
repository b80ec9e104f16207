//! The Chat view (Zeca) with a played engine: what a conversation shows (markdown, code
//! blocks, tool rows), the chat's card inline and answered with the card keys, and the same
//! card floating when the Chat view is not open. The real CLIs: tests/real-agents/zeca.rs.

use crate::fixtures;
#[allow(dead_code)]
use crate::fixtures::Snap;

use egui_kittest::kittest::Queryable;
use vults_engine::messages::{AnsweredBy, CardAnswer, EngineCommand, EngineEvent};
use vults_ui::app::Tab;
use vults_zeca::{ChatCommand, ChatEvent, Conversation, Entry};

#[test]
fn a_conversation_renders_markdown_and_tool_rows_and_asks_inline() {
    let (window, played) = fixtures::played_window();
    let mut h = fixtures::window_harness(window);
    let mut conv = Conversation::new("c1", "/home/ada/src/vults", "claude");
    conv.entries = vec![
        Entry::User {
            text: "fix the build".into(),
        },
        Entry::Assistant {
            text:
                "Here is **the fix**, with `--locked`:\n```\ncargo build --locked\n```\n- one step"
                    .into(),
        },
        Entry::Tool {
            id: "toolu_1".into(),
            name: "Bash".into(),
            summary: "cargo build --locked".into(),
            result: Some("Finished dev".into()),
            error: false,
            asked: None,
            stopped: false,
        },
    ];
    conv.running = true;
    conv.pid = Some(42);
    played.chat_events.send(ChatEvent::Updated(conv)).unwrap();
    let mut card = fixtures::bash_card(7, "rm -rf target");
    card.session.session = "zeca:c1".into();
    played.events.send(EngineEvent::CardAdded(card)).unwrap();

    // Elsewhere (the Flock), the chat's card floats like any card.
    h.state_mut().tab = Tab::Flock;
    h.run_steps(3);
    assert_eq!(h.query_all_by_label("Allow").count(), 1, "floating");

    // In the Chat view: pick the conversation; the card is inline, once.
    h.state_mut().tab = Tab::Chat;
    h.run_steps(3);
    h.get_by_label("Conversation").click();
    h.run_steps(2);
    h.get_by_label_contains("fix the build\n").click();
    h.run_steps(3);
    assert_eq!(
        h.query_all_by_label("Allow").count(),
        1,
        "inline, not also floating"
    );
    // Markdown: bold without its stars, inline code, the fenced block, a bullet.
    h.get_by_label("the fix");
    h.get_by_label("--locked");
    assert!(h.query_by_label_contains("**").is_none());
    assert!(
        h.query_all_by_label("cargo build --locked").count() >= 2,
        "the code block and the tool row"
    );
    h.get_by_label("one step");
    h.get_by_label("ran");
    h.get_by_label("Finished dev");
    h.get_by_label_contains("rm -rf target");
    h.snap("chat_view");

    // The card keys answer the inline card; Stop stops the turn.
    h.key_press(egui::Key::D);
    h.run_steps(2);
    h.get_by_label("Stop").click();
    h.run_steps(2);
    let sent: Vec<EngineCommand> = played.commands.try_iter().collect();
    let chat_sent: Vec<ChatCommand> = played.chat_commands.try_iter().collect();
    assert!(
        sent.contains(&EngineCommand::Answer {
            card: 7,
            answer: CardAnswer::Deny,
            by: AnsweredBy::Key,
        }),
        "{sent:?}"
    );
    assert!(
        chat_sent.contains(&ChatCommand::Stop { chat: "c1".into() }),
        "{chat_sent:?}"
    );
}
