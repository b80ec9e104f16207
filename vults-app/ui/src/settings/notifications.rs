//! Settings → Notifications: desktop notifications per kind and their sounds, quiet hours and
//! do not disturb, global keys — and what this desktop supports of each, or why not.

use egui::{Color32, RichText};
use vults_notify::keys::{Chord, KeyAction};
use vults_notify::quiet::{ClockTime, Day};
use vults_notify::{AttentionSettings, NoticeKind, PerKind, Support};

use crate::attention::AttentionStatus;
use vults_i18n::tr;

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

/// Each kind of notice and the message that names it.
const KINDS: [(NoticeKind, &str); 5] = [
    (NoticeKind::Card, "notifications-kind-card"),
    (NoticeKind::Question, "notifications-kind-question"),
    (NoticeKind::TurnDone, "notifications-kind-turn-done"),
    (
        NoticeKind::AsksInTerminal,
        "notifications-kind-asks-in-terminal",
    ),
    (NoticeKind::Warning, "notifications-kind-warning"),
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
        Support::Available(from) => tr!("notifications-support", what = what, from = from),
        Support::Unavailable(why) => tr!("notifications-support-none", what = what, why = why),
    };
    ui.label(RichText::new(text).small().color(DIM));
}

impl NotificationsView {
    /// Draws the pane; returns the changed settings when the person changed one.
    pub fn ui(&mut self, ui: &mut egui::Ui, status: &AttentionStatus) -> Option<AttentionSettings> {
        let mut s = status.settings.clone();
        ui.heading(tr!("notifications-title"));
        ui.add_space(4.0);
        let caps = &status.caps;
        match &caps.notifications {
            Support::Available(server) => {
                let yes = |b: bool| {
                    if b {
                        tr!("notifications-yes")
                    } else {
                        tr!("notifications-no")
                    }
                };
                ui.label(
                    RichText::new(tr!(
                        "notifications-desktop",
                        server = server,
                        buttons = yes(caps.actions),
                        sound = yes(caps.sound)
                    ))
                    .small()
                    .color(DIM),
                );
            }
            Support::Unavailable(why) => {
                ui.label(
                    RichText::new(tr!("notifications-none-here", why = why))
                        .small()
                        .color(WARN),
                );
            }
        }
        ui.checkbox(&mut s.notifications.enabled, tr!("notifications-enabled"))
            .on_hover_text(tr!("notifications-enabled-hover"));
        ui.add_enabled_ui(s.notifications.enabled, |ui| {
            egui::Grid::new("notify-kinds")
                .num_columns(3)
                .spacing([18.0, 4.0])
                .show(ui, |ui| {
                    ui.label(RichText::new(tr!("notifications-when")).strong());
                    ui.label(RichText::new(tr!("notifications-notify")).strong());
                    ui.label(RichText::new(tr!("notifications-sound")).strong());
                    ui.end_row();
                    for (kind, id) in KINDS {
                        let words = tr!(id);
                        ui.label(&words);
                        labelled_box(
                            ui,
                            slot(&mut s.notifications.notify, kind),
                            tr!("notifications-notify-of", kind = &words),
                        );
                        labelled_box(
                            ui,
                            slot(&mut s.notifications.sound, kind),
                            tr!("notifications-sound-of", kind = &words),
                        );
                        ui.end_row();
                    }
                });
        });
        ui.label(
            RichText::new(tr!("notifications-buttons-when"))
                .small()
                .color(DIM),
        );

        ui.add_space(12.0);
        ui.heading(tr!("quiet-title"));
        ui.add_space(4.0);
        ui.label(RichText::new(quiet_words(&status.quiet)).strong());
        ui.checkbox(&mut s.quiet.on, tr!("quiet-dnd"))
            .on_hover_text(tr!("quiet-dnd-hover"));
        ui.horizontal(|ui| {
            ui.checkbox(&mut s.quiet.schedule.enabled, tr!("quiet-from"));
            let from = self
                .from
                .get_or_insert_with(|| s.quiet.schedule.from.to_string());
            let from_edit = ui.add(
                egui::TextEdit::singleline(from)
                    .desired_width(48.0)
                    .hint_text("22:00"),
            );
            ui.label(tr!("quiet-to"));
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
            ui.label(tr!("quiet-on-days"));
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
        ui.checkbox(&mut s.quiet.follow_desktop, tr!("quiet-follow-desktop"));
        support_line(ui, &tr!("quiet-desktop-dnd"), &caps.desktop_dnd);
        ui.label(RichText::new(tr!("quiet-explained")).small().color(DIM));

        ui.add_space(12.0);
        ui.heading(tr!("keys-title"));
        ui.add_space(4.0);
        support_line(ui, &tr!("keys-here"), &status.keys_here);
        ui.checkbox(&mut s.keys.enabled, tr!("keys-enabled"))
            .on_hover_text(tr!("keys-enabled-hover"));
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
                            KeyAction::ShowNewest => tr!("keys-show-newest"),
                            KeyAction::Allow => tr!("keys-allow"),
                            KeyAction::Deny => tr!("keys-deny"),
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
            support_line(ui, &tr!("keys-keys"), &status.keys);
        }
        ui.label(RichText::new(tr!("keys-explained")).small().color(DIM));
        if let Some(e) = &self.error {
            ui.label(RichText::new(e).color(WARN));
        }
        if let Some(why) = &status.not_saved {
            ui.add_space(6.0);
            ui.label(RichText::new(tr!("notifications-not-saved", why = why)).color(WARN));
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

/// Whether it is quiet now and why, in the person's words ([`vults_notify::quiet::QuietNow::words`]
/// says it in English).
fn quiet_words(now: &vults_notify::quiet::QuietNow) -> String {
    use vults_notify::quiet::QuietWhy;
    match &now.why {
        None => tr!("quiet-now-not"),
        Some(QuietWhy::Switch) => tr!("quiet-now-switch"),
        Some(QuietWhy::Schedule { until }) => {
            tr!(
                "quiet-now-schedule",
                until = until.strftime("%H:%M").to_string()
            )
        }
        Some(QuietWhy::Desktop) => tr!("quiet-now-desktop"),
    }
}

fn day_name(day: Day) -> String {
    tr!(match day {
        Day::Mon => "quiet-day-mon",
        Day::Tue => "quiet-day-tue",
        Day::Wed => "quiet-day-wed",
        Day::Thu => "quiet-day-thu",
        Day::Fri => "quiet-day-fri",
        Day::Sat => "quiet-day-sat",
        Day::Sun => "quiet-day-sun",
    })
}
