//! Settings → Notifications and the window's side of notifications, quiet hours and keys,
//! against a played attention side: what the rows show and change, what the tray's Do not
//! disturb does, and what a notification's action or a global key makes the window send.

use crate::fixtures::{self, Snap};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use vults_engine::messages::{AnsweredBy, CardAnswer, EngineCommand, EngineEvent};
use vults_notify::keys::KeyAction;
use vults_notify::{AttentionSettings, Capabilities, NoticeAction, SessionId, Support};
use vults_ui::app::{Layout, Tab, VultsWindow};
use vults_ui::attention::{AttentionSide, AttentionStatus, Heard};
use vults_ui::desktop::{DesktopSide, TrayAction};
use vults_ui::ports::EngineChannel;
use vults_ui::settings::notifications::NotificationsView;

fn status() -> AttentionStatus {
    AttentionStatus {
        caps: Capabilities {
            notifications: Support::Available("Stand-in 1.0 (Vults), spec 1.2".into()),
            actions: true,
            sound: false,
            replace: true,
            withdraw: true,
            desktop_dnd: Support::Unavailable(
                "this desktop does not say: its notification server has no Inhibited property"
                    .into(),
            ),
        },
        keys_here: Support::Available("X11 key grabs".into()),
        keys: Support::Unavailable("global keys are off in Settings".into()),
        ..Default::default()
    }
}

fn pane(
    status: AttentionStatus,
) -> Harness<'static, (NotificationsView, AttentionStatus, Vec<AttentionSettings>)> {
    fixtures::builder()
        .with_size(egui::vec2(640.0, 760.0))
        .build_ui_state(
            |ui,
             (view, status, changed): &mut (
                NotificationsView,
                AttentionStatus,
                Vec<AttentionSettings>,
            )| {
                egui::ScrollArea::vertical().show(ui, |ui| {
                    if let Some(s) = view.ui(ui, status) {
                        status.settings = s.clone();
                        changed.push(s);
                    }
                });
            },
            (NotificationsView::default(), status, Vec::new()),
        )
}

#[test]
fn the_pane_says_what_the_desktop_supports_and_each_row_changes_its_setting() {
    let mut h = pane(status());
    h.run();
    h.get_by_label_contains(
        "This desktop: Stand-in 1.0 (Vults), spec 1.2. Buttons: yes; sound: no.",
    );
    h.get_by_label_contains(
        "The desktop's do not disturb: not available — this desktop does not say",
    );
    h.get_by_label("Not quiet now");
    h.snap("settings_notifications");
    // Sound for a card: off by default, on with a click.
    h.get_by_label("Sound: A card (a permission)").click();
    h.run();
    // A finished turn no longer notifies.
    h.get_by_label("Notify: A finished turn").click();
    h.run();
    // Vults' own warnings (a hook removed, a limit near) can be turned off too.
    h.get_by_label("Notify: A hook removed, a limit near")
        .click();
    h.run();
    h.get_by_label("Do not disturb").click();
    h.run();
    let last = h.state().2.last().cloned().expect("changes were reported");
    assert!(!last.notifications.notify.warning);
    assert!(last.notifications.sound.card);
    assert!(!last.notifications.sound.question, "one kind at a time");
    assert!(!last.notifications.notify.turn_done);
    assert!(last.notifications.notify.card);
    assert!(last.quiet.on);
    // The keys: off by default, on with their row; a chord typed replaces the default.
    assert!(!last.keys.enabled);
    h.get_by_label("Keys that work from any window").click();
    h.run();
    assert!(h.state().2.last().unwrap().keys.enabled);
    // Days: Sunday off.
    h.get_by_label("Sun").click();
    h.run();
    let days = &h.state().2.last().unwrap().quiet.schedule.days;
    assert_eq!(days.len(), 6);
    assert!(!days.contains(&vults_notify::quiet::Day::Sun));
}

#[test]
fn a_chord_that_steals_typing_or_clashes_is_refused_with_a_reason() {
    let mut st = status();
    st.settings.keys.enabled = true;
    let mut h = pane(st);
    h.run();
    let field = "Allow it (press again once it is up)";
    let type_chord = |h: &mut Harness<'static, _>, chord: &str| {
        h.get_by_label(field).focus();
        h.run();
        h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
        h.get_by_label(field).type_text(chord);
        h.run();
        h.key_press(egui::Key::Enter);
        h.run();
        h.run();
    };
    // Ctrl+Alt+N is Deny's: as Allow's it clashes, and is not taken.
    type_chord(&mut h, "Ctrl+Alt+N");
    h.get_by_label_contains("Ctrl+Alt+N is set for both");
    assert!(h.state().2.is_empty(), "a clash is not saved");
    // A key without Ctrl, Alt or Super would take it from typing.
    type_chord(&mut h, "Shift+Y");
    h.get_by_label_contains("\"Shift+Y\"");
    assert!(h.state().2.is_empty());
    // A good one is taken.
    type_chord(&mut h, "Super+F9");
    assert_eq!(
        h.state().2.last().expect("taken").keys.allow.to_string(),
        "Super+F9"
    );
}

#[test]
fn settings_that_cannot_be_saved_say_so() {
    let mut st = status();
    st.not_saved = Some("/home/ana/.config/vults/settings.json does not parse (line 1)".into());
    let mut h = pane(st);
    h.run();
    h.get_by_label_contains(
        "These settings are not saved: /home/ana/.config/vults/settings.json does not parse",
    );
}

/// A played attention side: plays what it hears and what Settings reads.
#[derive(Clone, Default)]
struct Played {
    heard: Arc<Mutex<Vec<Heard>>>,
    status: Arc<Mutex<AttentionStatus>>,
}

impl AttentionSide for Played {
    fn poll(&mut self) -> Vec<Heard> {
        std::mem::take(&mut *self.heard.lock().unwrap())
    }
    fn status(&self) -> AttentionStatus {
        self.status.lock().unwrap().clone()
    }
    fn set_settings(&mut self, settings: AttentionSettings) {
        self.status.lock().unwrap().settings = settings;
    }
}

#[derive(Clone, Default)]
struct Tray {
    clicks: Arc<Mutex<Vec<TrayAction>>>,
    quiet: Arc<Mutex<Vec<bool>>>,
}

impl DesktopSide for Tray {
    fn poll(&mut self) -> Vec<TrayAction> {
        std::mem::take(&mut *self.clicks.lock().unwrap())
    }
    fn open(&mut self, _path: &std::path::Path) {}
    fn set_quiet(&mut self, quiet: bool) {
        self.quiet.lock().unwrap().push(quiet);
    }
}

struct Rig {
    events: Sender<EngineEvent>,
    commands: Receiver<EngineCommand>,
    side: Played,
    tray: Tray,
    harness: Harness<'static, VultsWindow>,
}

fn rig() -> Rig {
    let (events, events_rx) = channel();
    let (commands_tx, commands) = channel();
    let side = Played::default();
    *side.status.lock().unwrap() = status();
    let tray = Tray::default();
    let window = VultsWindow::new(
        Box::new(EngineChannel {
            events: events_rx,
            commands: commands_tx,
        }),
        Box::new(tray.clone()),
        Layout::Embedded,
        Box::new(fixtures::now),
    )
    .with_attention(Box::new(side.clone()));
    let mut harness = fixtures::window_harness(window);
    harness.run_steps(2);
    Rig {
        events,
        commands,
        side,
        tray,
        harness,
    }
}

impl Rig {
    fn send(&mut self, e: EngineEvent) {
        self.events.send(e).unwrap();
        self.harness.run_steps(3);
    }
    fn hear(&mut self, h: Heard) {
        self.side.heard.lock().unwrap().push(h);
        self.harness.run_steps(2);
    }
    fn answers(&self) -> Vec<(u64, CardAnswer, AnsweredBy)> {
        self.commands
            .try_iter()
            .filter_map(|c| match c {
                EngineCommand::Answer { card, answer, by } => Some((card, answer, by)),
                _ => None,
            })
            .collect()
    }
}

#[test]
fn the_trays_do_not_disturb_switches_quiet_and_the_tray_shows_it() {
    let mut r = rig();
    assert_eq!(
        *r.tray.quiet.lock().unwrap(),
        [false],
        "the tray starts unchecked"
    );
    r.tray.clicks.lock().unwrap().push(TrayAction::ToggleQuiet);
    r.harness.run_steps(3);
    assert!(r.side.status.lock().unwrap().settings.quiet.on);
    assert_eq!(*r.tray.quiet.lock().unwrap(), [false, true]);
    // The notifier says it is quiet now: the island says so (and stays still).
    r.side.status.lock().unwrap().quiet = vults_notify::quiet::QuietNow {
        quiet: true,
        why: Some(vults_notify::quiet::QuietWhy::Switch),
    };
    r.harness.run_steps(2);
    r.harness.get_by_label("0 birds, quiet");
    // Settings → Notifications shows the switch on; off there, the tray follows.
    r.harness.state_mut().tab = Tab::Notifications;
    r.harness.run_steps(2);
    r.harness.get_by_label("Do not disturb").click();
    r.harness.run_steps(3);
    assert!(!r.side.status.lock().unwrap().settings.quiet.on);
    assert_eq!(*r.tray.quiet.lock().unwrap(), [false, true, false]);
    r.side.status.lock().unwrap().quiet = vults_notify::quiet::QuietNow::AWAKE;
    r.harness.run_steps(2);
    r.harness.get_by_label("0 birds");
}

#[test]
fn a_notifications_allow_answers_as_a_click_does_but_never_a_destructive_card() {
    let mut r = rig();
    r.send(EngineEvent::CardAdded(fixtures::bash_card(
        1,
        "make release",
    )));
    let session = SessionId("x".into());
    r.hear(Heard::Notification {
        session: session.clone(),
        action: NoticeAction::Allow(1),
    });
    assert_eq!(
        r.answers(),
        [(1, CardAnswer::Allow, AnsweredBy::Notification)]
    );
    // A destructive card: an Allow from anywhere on the desktop is refused here too.
    r.send(EngineEvent::CardAdded(fixtures::card(
        2,
        fixtures::call(
            "Bash",
            vults_core::agents::Target::Command {
                command: "rm -rf /".into(),
            },
        ),
        Some("rm -r"),
    )));
    r.hear(Heard::Notification {
        session: session.clone(),
        action: NoticeAction::Allow(2),
    });
    assert!(r.answers().is_empty());
    // A card no longer waiting is not answered.
    r.hear(Heard::Notification {
        session,
        action: NoticeAction::Deny(9),
    });
    assert!(r.answers().is_empty());
}

#[test]
fn a_global_key_brings_the_card_up_first_and_answers_only_on_a_second_press() {
    let mut r = rig();
    r.send(EngineEvent::CardAdded(fixtures::bash_card(
        1,
        "make release",
    )));
    r.hear(Heard::Key(KeyAction::Allow));
    assert!(r.answers().is_empty(), "the first press only brings it up");
    r.hear(Heard::Key(KeyAction::Allow));
    assert!(r.answers().is_empty(), "a press at once is no second look");
    std::thread::sleep(vults_notify::keys::Gate::MIN_SECOND_PRESS);
    r.hear(Heard::Key(KeyAction::Allow));
    assert_eq!(r.answers(), [(1, CardAnswer::Allow, AnsweredBy::GlobalKey)]);
    // A destructive card: the Allow key never answers it, the Deny key may.
    r.send(EngineEvent::CardAdded(fixtures::card(
        2,
        fixtures::call(
            "Bash",
            vults_core::agents::Target::Command {
                command: "rm -rf /".into(),
            },
        ),
        Some("rm -r"),
    )));
    r.hear(Heard::Key(KeyAction::ShowNewest));
    std::thread::sleep(vults_notify::keys::Gate::MIN_SECOND_PRESS);
    r.hear(Heard::Key(KeyAction::Allow));
    assert!(r.answers().is_empty());
    r.hear(Heard::Key(KeyAction::Deny));
    assert_eq!(r.answers(), [(2, CardAnswer::Deny, AnsweredBy::GlobalKey)]);
}

/// A phone link that records the actions the window sends it.
#[derive(Clone, Default)]
struct RecordingPhone {
    actions: Arc<Mutex<Vec<vults_phone::PhoneAction>>>,
}

impl vults_ui::ports::PhoneSide for RecordingPhone {
    fn on_engine_event(&mut self, _event: &EngineEvent) {}
    fn status(&self) -> vults_phone::PhoneStatus {
        vults_phone::PhoneStatus::default()
    }
    fn apply(&mut self, action: vults_phone::PhoneAction) {
        self.actions.lock().unwrap().push(action);
    }
}

#[test]
fn quiet_hours_reach_the_phone_link_so_nothing_is_pushed_while_quiet() {
    let (_events, events_rx) = channel();
    let (commands_tx, _commands) = channel();
    let side = Played::default();
    *side.status.lock().unwrap() = status();
    let phone = RecordingPhone::default();
    let window = VultsWindow::new(
        Box::new(EngineChannel {
            events: events_rx,
            commands: commands_tx,
        }),
        Box::new(Tray::default()),
        Layout::Embedded,
        Box::new(fixtures::now),
    )
    .with_attention(Box::new(side.clone()))
    .with_phone(Box::new(phone.clone()));
    let mut harness = fixtures::window_harness(window);
    harness.run_steps(2);
    let quiet = || -> Vec<vults_phone::PhoneAction> {
        phone
            .actions
            .lock()
            .unwrap()
            .iter()
            .filter(|a| matches!(a, vults_phone::PhoneAction::Quiet(_)))
            .cloned()
            .collect()
    };
    assert!(quiet().is_empty(), "awake: nothing to tell");
    side.status.lock().unwrap().quiet = vults_notify::quiet::QuietNow {
        quiet: true,
        why: Some(vults_notify::quiet::QuietWhy::Switch),
    };
    harness.run_steps(2);
    assert_eq!(quiet(), [vults_phone::PhoneAction::Quiet(true)]);
    side.status.lock().unwrap().quiet = vults_notify::quiet::QuietNow::AWAKE;
    harness.run_steps(2);
    assert_eq!(
        quiet(),
        [
            vults_phone::PhoneAction::Quiet(true),
            vults_phone::PhoneAction::Quiet(false)
        ],
        "told once per change"
    );
}
