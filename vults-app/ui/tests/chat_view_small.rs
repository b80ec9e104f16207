//! The Chat view in a small window (700 × 500): a tool row with a long command stays on its one
//! line inside the window (the card below shows the whole), so it does not widen the
//! conversation and push the inline card (its Copy button, its edge) out of the window.

#[allow(dead_code)]
use crate::fixtures;

use egui_kittest::kittest::Queryable;
use vults_engine::messages::EngineEvent;
use vults_ui::app::{Tab, VultsWindow};
use vults_zeca::{ChatEvent, Conversation, Entry};

const WIDTH: f32 = 700.0;

fn small_window() -> (
    egui_kittest::Harness<'static, VultsWindow>,
    fixtures::Played,
) {
    let (window, played) = fixtures::played_window();
    let h = fixtures::builder()
        .with_size(egui::vec2(WIDTH, 500.0))
        .build_ui_state(
            |ui, w: &mut VultsWindow| {
                w.logic(ui.ctx());
                w.ui(ui);
            },
            window,
        );
    (h, played)
}

#[test]
fn a_long_tool_row_stays_inside_a_small_window_and_the_card_with_it() {
    let (mut h, p) = small_window();
    let long = format!(
        "echo \"{}\" > marker.txt",
        "a fairly long command line that goes on and on ".repeat(4)
    );
    let mut conv = Conversation::new("c1", "/home/ada/src/vults", "claude");
    conv.entries = vec![
        Entry::User {
            text: "write the file".into(),
        },
        Entry::Tool {
            id: "toolu_1".into(),
            name: "Bash".into(),
            summary: long.clone(),
            result: None,
            error: false,
            asked: None,
            stopped: false,
        },
    ];
    conv.running = true;
    p.chat_events.send(ChatEvent::Updated(conv)).unwrap();
    let mut card = fixtures::bash_card(7, &long);
    card.session.session = "zeca:c1".into();
    p.events.send(EngineEvent::CardAdded(card)).unwrap();
    h.state_mut().tab = Tab::Chat;
    h.run_steps(3);
    h.get_by_label("Conversation").click();
    h.run_steps(2);
    h.get_by_label_contains("write the file\n").click();
    h.run_steps(6);
    for name in ["Copy", "Allow", "Always allow"] {
        let r = h.get_by_label(name).rect();
        assert!(
            r.right() <= WIDTH,
            "{name} ends at x = {} in a {WIDTH} px window",
            r.right()
        );
    }
    // The row is one line, cut to the window; the whole command is on the card (and on hover).
    let row = h
        .query_all_by_label_contains("a fairly long command")
        .map(|n| n.rect())
        .fold(egui::Rect::NOTHING, |a, b| a.union(b));
    assert!(
        row.right() <= WIDTH,
        "the tool row ends at x = {}",
        row.right()
    );
}
