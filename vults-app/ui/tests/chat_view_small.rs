//! The Chat view in a small window (700 × 500): a tool row with a long command stays on its one
//! line inside the window (the card below shows the whole), so it does not widen the
//! conversation and push the inline card (its Copy button, its edge) out of the window.

#[allow(dead_code)]
use crate::fixtures;

use egui_kittest::kittest::Queryable;
use fixtures::Snap;
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

/// Issue 38: at 700 × 500 with "Start a task…" and "Chat settings…" both open, the chat's
/// inline card was squeezed to its button row, drawn over "Start a task…", its Allow and Deny
/// dimmed. The card keeps its whole height or scrolls as one piece (the conversation says
/// "more above ↑"), never overlaps another control, and its buttons keep their colours.
#[test]
fn the_inline_card_keeps_clear_of_both_forms_in_a_small_window() {
    let (mut h, p) = small_window();
    let mut conv = Conversation::new("c1", "/home/ada/src/vults", "claude");
    conv.entries = vec![Entry::User {
        text: "write the file".into(),
    }];
    conv.running = true;
    p.chat_events.send(ChatEvent::Updated(conv)).unwrap();
    let mut card = fixtures::bash_card(7, "cargo test --workspace");
    card.session.session = "zeca:c1".into();
    p.events.send(EngineEvent::CardAdded(card)).unwrap();
    h.state_mut().tab = Tab::Chat;
    h.run_steps(3);
    h.get_by_label("Conversation").click();
    h.run_steps(2);
    h.get_by_label_contains("write the file\n").click();
    h.run_steps(3);
    h.get_by_label("Start a task…").click();
    h.run_steps(2);
    h.get_by_label("Chat settings…").click();
    h.run_steps(6);
    h.snap("chat_small_both_forms");
    let rect = |name: &str| h.get_by_label(name).rect();
    for always in ["Start a task…", "Message", "Send"] {
        h.get_by_label(always);
    }
    let controls = [
        "Start a task…",
        "Chat settings…",
        "Task folder",
        "Save chat settings",
        "Message",
        "Send",
    ];
    for button in ["Allow", "Deny"] {
        let b = rect(button);
        // Every control drawn (a form's rows scrolled out of sight are not).
        for other in controls {
            let Some(o) = h.query_by_label(other).map(|n| n.rect()) else {
                continue;
            };
            assert!(
                !b.intersects(o),
                "{button} at {b:?} overlaps {other:?} at {o:?}"
            );
        }
        assert!(
            b.top() >= 0.0 && b.bottom() <= 500.0,
            "{button} at {b:?} is out of the window"
        );
    }
    // The card's buttons keep their colours: Allow's green, Deny's red, not faded.
    let (allow, deny) = (rect("Allow"), rect("Deny"));
    let ppp = h.ctx.pixels_per_point();
    let image = h.render().expect("a picture");
    let colour_at = |r: egui::Rect| {
        let p = r.left_center() + egui::vec2(4.0, 0.0);
        *image.get_pixel((p.x * ppp) as u32, (p.y * ppp) as u32)
    };
    for (button, r, want) in [
        ("Allow", allow, egui::Color32::from_rgb(0x3D, 0xB8, 0x6B)),
        ("Deny", deny, egui::Color32::from_rgb(0xE5, 0x48, 0x4D)),
    ] {
        let got = colour_at(r);
        let diff = (0..3)
            .map(|i| (i32::from(got.0[i]) - i32::from(want.to_array()[i])).abs())
            .max()
            .unwrap_or(0);
        assert!(
            diff <= 24,
            "{button} is drawn {got:?}, not its colour {want:?}"
        );
    }
    // The card's whole height is either shown or scrolled as one piece.
    let top = allow.top();
    let card_head = h.query_by_label_contains("wants to use").map(|n| n.rect());
    if let Some(head) = card_head {
        assert!(head.top() < top, "the card's head is below its buttons");
    }
}
