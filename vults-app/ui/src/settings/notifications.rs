//! Settings → Notifications: desktop notifications per kind and their sounds, quiet hours and
//! do not disturb, global keys — and what this desktop supports of each, or why not.

use egui::{Color32, RichText};
use vults_attention::keys::{Chord, KeyAction};
use vults_attention::quiet::{ClockTime, Day};
use vults_attention::{AttentionSettings, NoticeKind, PerKind, Support};

use crate::attention::AttentionStatus;

const DIM: Color32 = Color32::from_gray(150);
const WARN: Color32 = Color32::from_rgb(0xE0, 0x9A, 0x3A);

/// The pane's own state: the text being typed into a time or a chord field.
#[derive(Debug, Default)]
pub struct NotificationsView {
    from: Option<String>,
    to: Option<String>,
    chords: [Option<String>; 3],
    /// What the last typed value was wrong about.
    error: Option<String>,
}

const KINDS: [(NoticeKind, &str); 5] = [
    (NoticeKind::Card, "A card (a permission)"),
    (NoticeKind::Question, "A question"),
    (NoticeKind::TurnDone, "A finished turn"),
    (NoticeKind::AsksInTerminal, "Asks in its terminal"),
    (NoticeKind::Warning, "A hook removed, a limit near"),
];

fn slot(p: &mut PerKind, kind: NoticeKind) -> &mut bool {
    match kind {
        NoticeKind::Card => &mut p.card,
        NoticeKind::Question => &mut p.question,
        NoticeKind::TurnDone => &mut p.turn_done,
        NoticeKind::AsksInTerminal => &mut p.asks_in_terminal,
        NoticeKind::Warning => &mut p.warning,
    }
}

fn support_line(ui: &mut egui::Ui, what: &str, s: &Support) {
    let text = match s {
        Support::Available(from) => format!("{what}: {from}"),
        Support::Unavailable(why) => format!("{what}: not available — {why}"),
    };
    ui.label(RichText::new(text).small().color(DIM));
}

impl NotificationsView {
    /// Draws the pane; returns the changed settings when the person changed one.
    pub fn ui(&mut self, ui: &mut egui::Ui, status: &AttentionStatus) -> Option<AttentionSettings> {
        let mut s = status.settings.clone();
        ui.heading("Notifications");
        ui.add_space(4.0);
        let caps = &status.caps;
        match &caps.notifications {
            Support::Available(server) => {
                let yes = |b: bool| if b { "yes" } else { "no" };
                ui.label(
                    RichText::new(format!(
                        "This desktop: {server}. Buttons: {}; sound: {}.",
                        yes(caps.actions),
                        yes(caps.sound)
                    ))
                    .small()
                    .color(DIM),
                );
            }
            Support::Unavailable(why) => {
                ui.label(
                    RichText::new(format!(
                        "No desktop notifications here: {why}. Cards still show."
                    ))
                    .small()
                    .color(WARN),
                );
            }
        }
        ui.checkbox(&mut s.notifications.enabled, "Desktop notifications")
            .on_hover_text("One per session, replaced when it changes, withdrawn when answered");
        ui.add_enabled_ui(s.notifications.enabled, |ui| {
            egui::Grid::new("notify-kinds")
                .num_columns(3)
                .spacing([18.0, 4.0])
                .show(ui, |ui| {
                    ui.label(RichText::new("When").strong());
                    ui.label(RichText::new("Notify").strong());
                    ui.label(RichText::new("Sound").strong());
                    ui.end_row();
                    for (kind, words) in KINDS {
                        ui.label(words);
                        labelled_box(
                            ui,
                            slot(&mut s.notifications.notify, kind),
                            format!("Notify: {words}"),
                        );
                        labelled_box(
                            ui,
                            slot(&mut s.notifications.sound, kind),
                            format!("Sound: {words}"),
                        );
                        ui.end_row();
                    }
                });
        });
        ui.label(
            RichText::new(
                "Allow and Deny are on a notification only when it shows the whole command and \
                 the call is not destructive; anything else is answered on its card.",
            )
            .small()
            .color(DIM),
        );

        ui.add_space(12.0);
        ui.heading("Quiet hours");
        ui.add_space(4.0);
        ui.label(RichText::new(status.quiet.words()).strong());
        ui.checkbox(&mut s.quiet.on, "Do not disturb")
            .on_hover_text("Until you switch it off (the tray has it too)");
        ui.horizontal(|ui| {
            ui.checkbox(&mut s.quiet.schedule.enabled, "Quiet hours from");
            let from = self
                .from
                .get_or_insert_with(|| s.quiet.schedule.from.to_string());
            let from_edit = ui.add(
                egui::TextEdit::singleline(from)
                    .desired_width(48.0)
                    .hint_text("22:00"),
            );
            ui.label("to");
            let to = self
                .to
                .get_or_insert_with(|| s.quiet.schedule.to.to_string());
            let to_edit = ui.add(
                egui::TextEdit::singleline(to)
                    .desired_width(48.0)
                    .hint_text("07:00"),
            );
            if from_edit.lost_focus() {
                self.error = None;
                match from.parse::<ClockTime>() {
                    Ok(t) => s.quiet.schedule.from = t,
                    Err(e) => self.error = Some(e.to_string()),
                }
            }
            if to_edit.lost_focus() {
                self.error = None;
                match to.parse::<ClockTime>() {
                    Ok(t) => s.quiet.schedule.to = t,
                    Err(e) => self.error = Some(e.to_string()),
                }
            }
        });
        ui.horizontal(|ui| {
            ui.label("on");
            for day in Day::ALL {
                let mut on = s.quiet.schedule.days.contains(&day);
                if ui.toggle_value(&mut on, day_name(day)).changed() {
                    if on {
                        s.quiet.schedule.days.push(day);
                        s.quiet
                            .schedule
                            .days
                            .sort_by_key(|d| Day::ALL.iter().position(|x| x == d));
                    } else {
                        s.quiet.schedule.days.retain(|d| *d != day);
                    }
                }
            }
        });
        ui.checkbox(
            &mut s.quiet.follow_desktop,
            "Also while the desktop's own do not disturb is on",
        );
        support_line(ui, "The desktop's do not disturb", &caps.desktop_dnd);
        ui.label(
            RichText::new(
                "While quiet: no notification, no sound, the island stays still. Cards still \
                 come, your phone still gets them, rules and policies still answer. Quiet never \
                 allows anything.",
            )
            .small()
            .color(DIM),
        );

        ui.add_space(12.0);
        ui.heading("Global keys");
        ui.add_space(4.0);
        support_line(ui, "Here", &status.keys_here);
        ui.checkbox(&mut s.keys.enabled, "Keys that work from any window")
            .on_hover_text("Off by default");
        ui.add_enabled_ui(s.keys.enabled, |ui| {
            egui::Grid::new("global-keys")
                .num_columns(2)
                .spacing([18.0, 4.0])
                .show(ui, |ui| {
                    for (i, action) in KeyAction::ALL.into_iter().enumerate() {
                        let current = match action {
                            KeyAction::ShowNewest => s.keys.show,
                            KeyAction::Allow => s.keys.allow,
                            KeyAction::Deny => s.keys.deny,
                        };
                        let label = ui.label(match action {
                            KeyAction::ShowNewest => "Bring up the newest card",
                            KeyAction::Allow => "Allow it (press again once it is up)",
                            KeyAction::Deny => "Deny it (press again once it is up)",
                        });
                        let text = self.chords[i].get_or_insert_with(|| current.to_string());
                        let edit = ui
                            .add(
                                egui::TextEdit::singleline(text)
                                    .desired_width(120.0)
                                    .hint_text("Ctrl+Alt+V"),
                            )
                            .labelled_by(label.id);
                        if edit.lost_focus() {
                            self.error = None;
                            match text.parse::<Chord>() {
                                Ok(chord) => {
                                    let mut keys = s.keys.clone();
                                    match action {
                                        KeyAction::ShowNewest => keys.show = chord,
                                        KeyAction::Allow => keys.allow = chord,
                                        KeyAction::Deny => keys.deny = chord,
                                    }
                                    match keys.check() {
                                        Ok(()) => s.keys = keys,
                                        Err(e) => self.error = Some(e.to_string()),
                                    }
                                }
                                Err(e) => self.error = Some(e.to_string()),
                            }
                        }
                        ui.end_row();
                    }
                });
        });
        if s.keys.enabled {
            support_line(ui, "Keys", &status.keys);
        }
        ui.label(
            RichText::new(
                "The first press brings the newest card up; only a second press answers it. The \
                 Allow key never answers a destructive card or a question.",
            )
            .small()
            .color(DIM),
        );
        if let Some(e) = &self.error {
            ui.label(RichText::new(e).color(WARN));
        }
        if let Some(why) = &status.not_saved {
            ui.add_space(6.0);
            ui.label(
                RichText::new(format!(
                    "These settings are not saved: {why}. Fix or remove it; Vults never writes \
                     over a file it cannot read."
                ))
                .color(WARN),
            );
        }
        (s != status.settings).then_some(s)
    }
}

/// A checkbox in a grid whose column says what it is: its name is for screen readers (and tests).
fn labelled_box(ui: &mut egui::Ui, on: &mut bool, name: String) {
    let r = ui.checkbox(on, "");
    let (enabled, checked) = (r.enabled(), *on);
    r.widget_info(|| {
        egui::WidgetInfo::selected(egui::Role::CheckBox, enabled, checked, name.clone())
    });
    r.on_hover_text(name.clone());
}

fn day_name(day: Day) -> &'static str {
    match day {
        Day::Mon => "Mon",
        Day::Tue => "Tue",
        Day::Wed => "Wed",
        Day::Thu => "Thu",
        Day::Fri => "Fri",
        Day::Sat => "Sat",
        Day::Sun => "Sun",
    }
}
