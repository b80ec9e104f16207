//! The whole window against a played engine (plain channels): what it sends back, how the
//! island, the tray and the keys act. Its notifications are attention's (attention_view.rs).

use crate::fixtures;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use vults_engine::messages::{AnsweredBy, CardAnswer, EngineCommand, EngineEvent};
use vults_ui::app::{Layout, VultsWindow};
use vults_ui::desktop::{DesktopSide, TrayAction};
use vults_ui::ports::EngineChannel;

/// A desktop that records what it was asked and plays tray clicks.
#[derive(Clone, Default)]
struct FakeDesktop {
    tray: Arc<Mutex<Vec<TrayAction>>>,
    paused: Arc<Mutex<Option<bool>>>,
}

impl DesktopSide for FakeDesktop {
    fn poll(&mut self) -> Vec<TrayAction> {
        std::mem::take(&mut *self.tray.lock().unwrap())
    }
    fn open(&mut self, _path: &std::path::Path) {}
    fn set_paused(&mut self, paused: bool) {
        *self.paused.lock().unwrap() = Some(paused);
    }
}

struct Played {
    events: Sender<EngineEvent>,
    commands: Receiver<EngineCommand>,
    desktop: FakeDesktop,
    harness: Harness<'static, VultsWindow>,
}

fn played() -> Played {
    played_stepping(None)
}

/// A played window whose frames are `step` seconds apart (kittest's 0.25 s by default).
fn played_stepping(step: Option<f32>) -> Played {
    let (events, events_rx) = channel();
    let (commands_tx, commands) = channel();
    let desktop = FakeDesktop::default();
    let window = VultsWindow::new(
        Box::new(EngineChannel {
            events: events_rx,
            commands: commands_tx,
        }),
        Box::new(desktop.clone()),
        Layout::Embedded,
        Box::new(fixtures::now),
    );
    let harness = match step {
        None => fixtures::window_harness(window),
        Some(step) => fixtures::builder()
            .with_size(egui::vec2(1100.0, 900.0))
            .with_step_dt(step)
            .build_ui_state(
                |ui, w: &mut VultsWindow| {
                    w.logic(ui.ctx());
                    w.ui(ui);
                },
                window,
            ),
    };
    Played {
        events,
        commands,
        desktop,
        harness,
    }
}

impl Played {
    fn send(&mut self, event: EngineEvent) {
        self.events.send(event).unwrap();
        self.harness.run_steps(3);
    }
    fn sent(&self) -> Vec<EngineCommand> {
        self.commands.try_iter().collect()
    }
}

#[test]
fn a_new_card_lights_the_island() {
    let mut p = played();
    for s in fixtures::four_sessions() {
        p.send(EngineEvent::SessionChanged(s));
    }
    p.harness.get_by_label("4 birds");
    p.send(EngineEvent::CardAdded(fixtures::bash_card(
        1,
        "make release",
    )));
    p.harness.get_by_label("4 birds, 1 waiting");
    p.harness.get_by_label("make release");
    p.send(EngineEvent::CardRemoved {
        id: 1,
        by: AnsweredBy::Withdrawn,
    });
    assert!(
        p.harness.query_by_label("make release").is_none(),
        "a withdrawn card vanishes at once"
    );
    p.harness.get_by_label("4 birds");
}

/// One window, two cards: a key answers one card, the oldest on screen — the card that arrives
/// a moment before the key never takes the key meant for the card being read.
#[test]
fn keys_answer_only_the_oldest_card_when_cards_share_a_window() {
    let mut p = played();
    p.send(EngineEvent::CardAdded(fixtures::bash_card(1, "echo older")));
    p.send(EngineEvent::CardAdded(fixtures::bash_card(2, "echo newer")));
    // Only the card that takes the keys says so.
    assert_eq!(p.harness.query_all_by_label_contains("Keys: ").count(), 1);
    p.harness.key_press(egui::Key::A);
    p.harness.run_steps(2);
    // A key, and the audit says so: History tells a key from a click.
    assert_eq!(
        p.sent(),
        vec![EngineCommand::Answer {
            card: 1,
            answer: CardAnswer::Allow,
            by: AnsweredBy::Key
        }]
    );
    p.harness.get_by_label("echo newer");
    assert!(p.harness.query_by_label("echo older").is_none());
    // A click on the next card is a click.
    p.harness.get_by_label("Deny").click();
    p.harness.run_steps(2);
    assert_eq!(
        p.sent(),
        vec![EngineCommand::Answer {
            card: 2,
            answer: CardAnswer::Deny,
            by: AnsweredBy::Click
        }]
    );
}

/// The cards' rectangles in one window, by card id.
fn card_rects(p: &Played) -> Vec<(u64, egui::Rect)> {
    let ids: Vec<u64> = p.harness.state().model.cards.iter().map(|c| c.id).collect();
    ids.into_iter()
        .filter_map(|id| {
            let layer = vults_ui::app::card_id(id).0;
            p.harness
                .ctx
                .memory(|m| m.area_rect(layer))
                .filter(|_| !p.harness.state().stacked().contains(&id))
                .map(|r| (id, r))
        })
        .collect()
}

/// Issue 21: six cards on a small screen hid two behind the others while the island said "6
/// waiting". No card is drawn over another; the rest wait in a stack the island counts and
/// the flock lists, oldest first, each answerable there, and the oldest takes the next place.
#[test]
fn cards_never_cover_each_other_and_the_rest_wait_in_a_visible_stack() {
    let mut p = played();
    p.harness.set_size(egui::vec2(1000.0, 700.0));
    let commands = [
        "cargo build --release",
        "cargo test --workspace",
        "npm run lint -- --fix",
        "docker compose up --build",
        "make deploy ENV=staging",
        "git status --short",
    ];
    for (i, c) in commands.iter().enumerate() {
        p.send(EngineEvent::CardAdded(fixtures::bash_card(i as u64 + 1, c)));
    }
    p.harness.run_steps(4);
    let rects = card_rects(&p);
    let stacked = p.harness.state().stacked().to_vec();
    assert!(!stacked.is_empty(), "six cards do not fit in 1000×700");
    assert_eq!(rects.len() + stacked.len(), 6);
    let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1000.0, 700.0));
    for (i, (a, ra)) in rects.iter().enumerate() {
        assert!(
            window.contains_rect(*ra),
            "card {a} at {ra:?} leaves the window"
        );
        for (b, rb) in &rects[i + 1..] {
            assert!(
                !ra.intersects(*rb),
                "card {a} at {ra:?} covers card {b} at {rb:?}"
            );
        }
    }
    // The oldest are on screen; the newest wait, in order.
    let on_screen: Vec<u64> = rects.iter().map(|(id, _)| *id).collect();
    assert!(on_screen.iter().all(|id| stacked.iter().all(|s| id < s)));
    assert!(stacked.windows(2).all(|w| w[0] < w[1]));
    let more = format!("+{} more", stacked.len());
    p.harness
        .get_by_label(&format!("0 birds, 6 waiting, {more}"));
    p.harness.get_by_label_contains(&format!(
        "{more} waiting — no room on screen for their cards; oldest first"
    ));
    // A stacked card opens in the flock and is answered there.
    let last = *stacked.last().unwrap();
    let last_command = commands[last as usize - 1];
    assert!(
        p.harness.query_by_label(last_command).is_none(),
        "not drawn while stacked"
    );
    // (Embedded, the cards float over the flock: the line is reached as a screen reader does.)
    p.harness
        .get_by_label_contains(&format!("Bash  {last_command}"))
        .click_accesskit();
    p.harness.run_steps(3);
    p.harness.get_by_label(last_command);
    // Answering the oldest card on screen gives its place to the oldest in the stack.
    let first_stacked = stacked[0];
    p.harness.key_press(egui::Key::D);
    p.harness.run_steps(3);
    assert!(matches!(
        p.sent().as_slice(),
        [EngineCommand::Answer {
            card: 1,
            answer: CardAnswer::Deny,
            ..
        }]
    ));
    p.send(EngineEvent::CardRemoved {
        id: 1,
        by: AnsweredBy::Click,
    });
    assert!(
        card_rects(&p).iter().any(|(id, _)| *id == first_stacked),
        "the oldest card of the stack takes the free place"
    );
}

/// Issue 38: a card's answers arm ARM_DELAY after it came. A click on its Allow or its key
/// sooner does nothing and the card says why in one line; in the harness's own time after the
/// delay the same click answers. A card that takes a freed place is armed anew, and the card
/// that stays does not move.
#[test]
fn a_card_answers_only_once_it_has_been_up_a_moment_and_none_moves() {
    // Frames at 60 a second, as a person's clicks come (kittest's click is three frames).
    let mut p = played_stepping(Some(1.0 / 60.0));
    p.harness.set_size(egui::vec2(1000.0, 700.0));
    p.events
        .send(EngineEvent::CardAdded(fixtures::bash_card(1, "echo first")))
        .unwrap();
    p.harness.step();
    p.harness.step();
    p.harness.get_by_label("Allow").click();
    p.harness.step();
    p.harness.key_press(egui::Key::A);
    p.harness.step();
    assert_eq!(p.sent(), vec![], "a card just up answered");
    p.harness.get_by_label_contains("Just arrived — ").rect();
    fixtures::past_arming(&mut p.harness);
    p.harness.get_by_label("Allow").click();
    p.harness.run_steps(2);
    assert_eq!(
        p.sent(),
        vec![EngineCommand::Answer {
            card: 1,
            answer: CardAnswer::Allow,
            by: AnsweredBy::Click
        }]
    );
    // Two cards: the first goes; the second stays where it is, and a third that comes takes
    // the freed place, unarmed until it has been there a moment.
    p.send(EngineEvent::CardAdded(fixtures::bash_card(
        2,
        "echo second",
    )));
    p.send(EngineEvent::CardAdded(fixtures::bash_card(3, "echo third")));
    fixtures::past_arming(&mut p.harness);
    let before = card_rects(&p);
    let second = before.iter().find(|(id, _)| *id == 2).unwrap().1;
    let third = before.iter().find(|(id, _)| *id == 3).unwrap().1;
    p.send(EngineEvent::CardRemoved {
        id: 2,
        by: AnsweredBy::Withdrawn,
    });
    p.send(EngineEvent::CardAdded(fixtures::bash_card(
        4,
        "echo fourth",
    )));
    let after = card_rects(&p);
    // (In one window the card that now takes the keys says so on a line more: its place is
    // the same.)
    assert_eq!(
        after.iter().find(|(id, _)| *id == 3).map(|(_, r)| r.min),
        Some(third.min),
        "the card that stayed moved"
    );
    let fourth = after.iter().find(|(id, _)| *id == 4).unwrap().1;
    assert_eq!(fourth.min, second.min, "the new card takes the freed place");
    // A click where the second card's Allow was lands on the fourth, which just came.
    let allow = p
        .harness
        .query_all_by_label("Allow")
        .map(|n| n.rect())
        .find(|r| second.contains(r.center()))
        .expect("an Allow in the freed place");
    click_at(&mut p.harness, allow.center());
    assert_eq!(
        p.sent(),
        vec![],
        "the card that just took the place answered"
    );
    fixtures::past_arming(&mut p.harness);
    click_at(&mut p.harness, allow.center());
    p.harness.run_steps(2);
    assert!(matches!(
        p.sent().as_slice(),
        [EngineCommand::Answer {
            card: 4,
            answer: CardAnswer::Allow,
            ..
        }]
    ));
}

/// A person's click at `at`: the pointer comes, presses and lets go, a frame each.
fn click_at(h: &mut Harness<'static, VultsWindow>, at: egui::Pos2) {
    h.hover_at(at);
    h.step();
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        h.step();
    }
}

#[test]
fn the_tray_pauses_cards_through_the_engine() {
    let mut p = played();
    p.desktop.tray.lock().unwrap().push(TrayAction::TogglePause);
    p.harness.run_steps(2);
    assert_eq!(p.sent(), vec![EngineCommand::SetPaused(true)]);
    assert_eq!(
        *p.desktop.paused.lock().unwrap(),
        Some(true),
        "the tray's check mark follows"
    );
    assert!(p.harness.state().model.paused);
    p.harness.get_by_label("0 birds, cards paused");
    p.harness.get_by_label("Pause cards").click();
    p.harness.run_steps(2);
    assert_eq!(p.sent(), vec![EngineCommand::SetPaused(false)]);
}

#[test]
fn removing_a_rule_in_settings_asks_the_engine() {
    let mut p = played();
    let card = fixtures::bash_card(7, "cargo fmt --all");
    let rule = card.always_rule.clone().unwrap();
    p.send(EngineEvent::Rules(vec![rule.clone()]));
    p.harness.get_by_label("Rules").click();
    p.harness.run_steps(2);
    p.harness.get_by_label("cargo fmt --all");
    p.harness.get_by_label("Remove").click();
    p.harness.run_steps(2);
    assert_eq!(p.sent(), vec![EngineCommand::RemoveRule(rule.id)]);
}

/// A phone link that records what the window passes it.
#[derive(Clone, Default)]
struct FakePhone {
    events: Arc<Mutex<usize>>,
    actions: Arc<Mutex<Vec<vults_phone::PhoneAction>>>,
}

impl vults_ui::ports::PhoneSide for FakePhone {
    fn on_engine_event(&mut self, _event: &EngineEvent) {
        *self.events.lock().unwrap() += 1;
    }
    fn status(&self) -> vults_phone::PhoneStatus {
        vults_phone::PhoneStatus::default()
    }
    fn apply(&mut self, action: vults_phone::PhoneAction) {
        self.actions.lock().unwrap().push(action);
    }
}

#[test]
fn the_window_relays_no_engine_event_to_the_phone_and_settings_phone_drives_it() {
    let mut p = played();
    assert!(
        p.harness.query_by_label("Phone").is_none(),
        "no phone link, no Phone tab"
    );
    let phone = FakePhone::default();
    let window = std::mem::replace(
        p.harness.state_mut(),
        VultsWindow::new(
            Box::new(EngineChannel {
                events: channel().1,
                commands: channel().0,
            }),
            Box::new(FakeDesktop::default()),
            Layout::Embedded,
            Box::new(fixtures::now),
        ),
    );
    *p.harness.state_mut() = window.with_phone(Box::new(phone.clone()));
    p.send(EngineEvent::CardAdded(fixtures::bash_card(
        3,
        "make deploy",
    )));
    // The phone link reads a subscription of its own (vults-app's compose.rs); the window, which
    // may be hidden or absent, is nobody's relay.
    assert_eq!(*phone.events.lock().unwrap(), 0);
    p.harness.get_by_label("Phone").click();
    p.harness.run_steps(2);
    assert_eq!(p.harness.state().tab, vults_ui::app::Tab::Phone);
    p.harness.get_by_label("Turn on").click();
    p.harness.run_steps(2);
    assert_eq!(
        *phone.actions.lock().unwrap(),
        vec![vults_phone::PhoneAction::Enable {
            port: vults_phone::DEFAULT_PORT
        }]
    );
}

/// A phone link that, when it stops (dropped), says its last words to the engine as the real
/// link does: the summary of the refusals its flood budgets dropped (`EngineCommand::Record`).
struct LastWords(Sender<EngineCommand>);

impl vults_ui::ports::PhoneSide for LastWords {
    fn on_engine_event(&mut self, _event: &EngineEvent) {}
    fn status(&self) -> vults_phone::PhoneStatus {
        vults_phone::PhoneStatus::default()
    }
    fn apply(&mut self, _action: vults_phone::PhoneAction) {}
}

impl Drop for LastWords {
    fn drop(&mut self) {
        let summary = vults_engine::messages::AuditEntry::new(
            fixtures::NOW_UNIX * 1000,
            vults_engine::messages::Outcome::Refused,
            "phone".into(),
            Some("20 more refused requests".into()),
        );
        let _ = self.0.send(EngineCommand::Record(summary));
    }
}

/// Quit (the tray's, or a SIGTERM's, which asks for it the same way) stops the phone link
/// before the engine: the link's last summary is queued ahead of the Shutdown, so the engine
/// audits it before it stops.
#[test]
fn quit_stops_the_phone_link_before_the_engine() {
    let (_events, events_rx) = channel();
    let (commands_tx, commands) = channel();
    let desktop = FakeDesktop::default();
    let window = VultsWindow::new(
        Box::new(EngineChannel {
            events: events_rx,
            commands: commands_tx.clone(),
        }),
        Box::new(desktop.clone()),
        Layout::Embedded,
        Box::new(fixtures::now),
    )
    .with_phone(Box::new(LastWords(commands_tx)));
    let mut harness = fixtures::window_harness(window);
    harness.run_steps(2);
    desktop.tray.lock().unwrap().push(TrayAction::Quit);
    harness.run_steps(2);
    let sent: Vec<EngineCommand> = commands.try_iter().collect();
    assert!(
        matches!(
            sent.as_slice(),
            [EngineCommand::Record(summary), EngineCommand::Shutdown]
                if summary.detail.as_deref() == Some("20 more refused requests")
        ),
        "{sent:?}"
    );
}
