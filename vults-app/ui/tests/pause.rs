//! Pausing every card is never one stray click away: "Pause cards" has a place of its own that
//! no tab reaches at any width, the island says "paused" even while something waits, and the
//! bottom line forgets a session's moment once the session has moved on.

use crate::fixtures::{self, Snap};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::sync::mpsc::{Receiver, Sender, channel};
use vults_engine::messages::{EngineCommand, EngineEvent, SessionState};
use vults_ui::app::{Layout, Tab, VultsWindow};
use vults_ui::attention::{AttentionSide, AttentionStatus, Heard};
use vults_ui::desktop::NoDesktop;
use vults_ui::ports::EngineChannel;

pub(crate) struct NoPhone;
impl vults_ui::ports::PhoneSide for NoPhone {
    fn on_engine_event(&mut self, _event: &EngineEvent) {}
    fn status(&self) -> vults_phone::PhoneStatus {
        vults_phone::PhoneStatus::default()
    }
    fn apply(&mut self, _action: vults_phone::PhoneAction) {}
}

pub(crate) struct NoHosts;
impl vults_ui::ports::HostsSide for NoHosts {
    fn status(&self) -> vults_remote::background::HostsStatus {
        Default::default()
    }
    fn apply(&mut self, _action: vults_remote::background::HostsAction) {}
}

pub(crate) struct Quiet;
impl AttentionSide for Quiet {
    fn poll(&mut self) -> Vec<Heard> {
        Vec::new()
    }
    fn status(&self) -> AttentionStatus {
        AttentionStatus::default()
    }
    fn set_settings(&mut self, _: vults_notify::AttentionSettings) {}
}

/// The whole window with every tab there is (phone, hosts and notifications wired), `width`
/// points wide.
fn window(
    width: f32,
) -> (
    Harness<'static, VultsWindow>,
    Sender<EngineEvent>,
    Receiver<EngineCommand>,
) {
    let (events, events_rx) = channel();
    let (commands_tx, commands) = channel();
    let window = VultsWindow::new(
        Box::new(EngineChannel {
            events: events_rx,
            commands: commands_tx,
        }),
        Box::new(NoDesktop::default()),
        Layout::Embedded,
        Box::new(fixtures::now),
    )
    .with_phone(Box::new(NoPhone))
    .with_hosts(Box::new(NoHosts))
    .with_attention(Box::new(Quiet));
    let mut harness = fixtures::builder()
        .with_size(egui::vec2(width, 600.0))
        .build_ui_state(
            |ui, w: &mut VultsWindow| {
                w.logic(ui.ctx());
                w.ui(ui);
            },
            window,
        );
    harness.run_steps(3);
    (harness, events, commands)
}

#[test]
fn no_tab_reaches_pause_cards_at_500_700_or_1400_points() {
    for width in [500.0, 700.0, 1400.0] {
        let (mut h, _events, commands) = window(width);
        let pause = h.get_by_label("Pause cards").rect();
        assert!(
            pause.right() <= width + 0.5 && pause.left() >= 0.0,
            "{width}: Pause cards is in the window: {pause:?}"
        );
        for tab in Tab::ALL {
            let tab_rect = h.get_by_label(&tab.title()).rect();
            assert!(
                tab_rect.right() <= width + 0.5,
                "{width}: the {} tab is in the window: {tab_rect:?}",
                tab.title()
            );
            assert!(
                !tab_rect.intersects(pause),
                "{width}: the {} tab {tab_rect:?} runs into Pause cards {pause:?}",
                tab.title()
            );
        }
        // A click on every tab, at its right edge where "Ge✓Pause cards" was: never a pause.
        for tab in Tab::ALL {
            let r = h.get_by_label(&tab.title()).rect();
            h.get_by_label(&tab.title()).click();
            h.run_steps(2);
            assert_eq!(h.state().tab, tab, "{width}: the click chose its tab");
            let edge = egui::pos2(r.right() - 1.0, r.center().y);
            h.hover_at(edge);
            h.run_steps(1);
        }
        assert!(!h.state().model.paused, "{width}: no tab paused the cards");
        assert!(
            commands
                .try_iter()
                .all(|c| !matches!(c, EngineCommand::SetPaused(_))),
            "{width}: nothing asked the engine to pause"
        );
    }
}

#[test]
fn while_paused_the_island_and_the_window_say_so_even_with_something_waiting() {
    let (mut h, events, _commands) = window(700.0);
    let mut bird = fixtures::four_sessions().remove(0);
    bird.state = SessionState::AsksInTerminal;
    bird.in_terminal = Some("cards are paused".into());
    events.send(EngineEvent::SessionChanged(bird)).unwrap();
    h.run_steps(2);
    h.get_by_label("Pause cards").click();
    h.run_steps(2);
    assert!(h.state().model.paused);
    // Something waits, and the island still says the cards are paused.
    h.get_by_label("1 bird, 1 waiting, cards paused");
    h.get_by_label("Cards paused: agents ask in their terminal");
}

/// Drawn: "paused" on the pill beside the count, also with the stack's "+2 more".
#[test]
fn the_paused_island_draws_paused_beside_what_waits() {
    let mut h = fixtures::builder()
        .with_size(vults_ui::island::SIZE)
        .build_ui(|ui| {
            let mut island = vults_ui::island::IslandView {
                paused: true,
                ..Default::default()
            };
            island.ui(ui, 12, 6, 2, None);
        });
    h.run();
    h.get_by_label("12 birds, 6 waiting, +2 more, cards paused");
    h.snap("island_paused");
}

#[test]
fn a_sessions_too_large_notice_goes_when_the_session_moves_on() {
    let (mut h, events, _commands) = window(1400.0);
    let mut bird = fixtures::four_sessions().remove(0);
    let key = bird.key.clone();
    bird.state = SessionState::AsksInTerminal;
    bird.in_terminal = Some("Bash of 10 KB is too large to show".into());
    events
        .send(EngineEvent::SessionChanged(bird.clone()))
        .unwrap();
    events
        .send(EngineEvent::TooLarge(vults_engine::messages::TooLarge {
            session: key,
            identity: bird.identity.clone().unwrap(),
            folder: bird.folder.clone(),
            tool: "Bash".into(),
            bytes: 10_000,
            at: fixtures::now(),
        }))
        .unwrap();
    h.run_steps(2);
    let line = "Claude Code asks in its terminal: Bash of 10 KB is too large to show";
    h.get_by_label(line);
    // The session's next event: it moved on, and the bottom line no longer says it asks.
    bird.state = SessionState::Working;
    bird.in_terminal = None;
    events.send(EngineEvent::SessionChanged(bird)).unwrap();
    h.run_steps(2);
    assert!(
        h.query_by_label(line).is_none(),
        "the notice went with its moment"
    );
}
