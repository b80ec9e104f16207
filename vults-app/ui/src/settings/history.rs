//! Settings → History: the audit log, newest first, filterable by agent, decision and who
//! answered.

use super::SettingsAction;
use crate::state::Model;
use egui::{Color32, RichText};
use std::collections::BTreeSet;
use vults_core::text::reveal;
use vults_engine::PageOf;
use vults_engine::messages::{AuditEntry, Outcome};
use vults_i18n::tr;

/// Settings → History: the audit log, newest first, filterable by agent, decision and who
/// answered.
#[derive(Debug, Default)]
pub struct HistoryView {
    agent: Option<String>,
    decision: Option<String>,
    /// The [`AnsweredBy::kind`](vults_engine::messages::AnsweredBy::kind) shown: `click`,
    /// `notification`, `key`, `phone`, `rule`, `policy`, `terminal`, `withdrawn`, `timeout`.
    who: Option<String>,
    /// Reading the whole log a page at a time ([`Model::history_page`]) rather than the newest
    /// lines as they come.
    browsing: bool,
    /// The page asked for while drawing, until the app takes it ([`HistoryView::asked`]).
    asked: Option<SettingsAction>,
}

const WHO: [&str; 9] = [
    "click",
    "notification",
    "key",
    "phone",
    "rule",
    "policy",
    "terminal",
    "withdrawn",
    "timeout",
];
const DECISIONS: [&str; 9] = [
    "allow",
    "deny",
    "answer",
    "answered",
    "withdrawn",
    "undelivered",
    "refused",
    "too-large",
    "paused",
];

impl HistoryView {
    /// What the person asked for on the last draw (a page of the log), once.
    pub fn asked(&mut self) -> Option<SettingsAction> {
        self.asked.take()
    }

    /// Draws the pane.
    pub fn ui(&mut self, ui: &mut egui::Ui, model: &Model) {
        ui.heading(tr!("history-title"));
        let (action, lines) = self.pager(ui, model);
        self.asked = action;
        let agents: BTreeSet<&str> = lines.iter().map(|a| a.identity.as_str()).collect();
        // The agents by their own names; the decisions and who answered in the person's words.
        let named = |a: &str| Some(a.to_string());
        let agent = tr!("history-filter-agent");
        filter_combo(ui, &agent, &mut self.agent, agents.iter().copied(), named);
        let decision = tr!("history-filter-decision");
        filter_combo(
            ui,
            &decision,
            &mut self.decision,
            DECISIONS.into_iter(),
            decision_word,
        );
        let by = tr!("history-filter-by");
        filter_combo(ui, &by, &mut self.who, WHO.into_iter(), by_word);
        ui.add_space(4.0);
        let rows: Vec<_> = lines
            .iter()
            .rev()
            .filter(|a| self.agent.as_deref().is_none_or(|x| a.identity == x))
            .filter(|a| self.decision.as_deref().is_none_or(|x| a.decision == *x))
            .filter(|a| self.who.as_deref().is_none_or(|x| a.by.kind() == x))
            .collect();
        if rows.is_empty() {
            ui.label(RichText::new(tr!("history-nothing")).color(Color32::from_gray(150)));
            return;
        }
        // Each row: what was decided and by whom, then the target in monospace (never the
        // proportional small face, which drew `--all` as `–all`), wrapped to two rows with the
        // whole of it on hover, and the folder.
        let row_height = 66.0;
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show_rows(ui, row_height, rows.len(), |ui, range| {
                for a in &rows[range] {
                    ui.vertical(|ui| {
                        ui.set_height(row_height - 6.0);
                        row_ui(ui, a, model);
                    });
                    ui.add_space(6.0);
                }
            });
    }

    /// The newest lines as they come, or a page of the whole log (read by the engine, one
    /// page at a time, never all of it): the buttons to move between them, and the lines shown.
    fn pager<'m>(
        &mut self,
        ui: &mut egui::Ui,
        model: &'m Model,
    ) -> (Option<SettingsAction>, &'m [AuditEntry]) {
        let mut action = None;
        let page = model.history_page.as_ref().filter(|_| self.browsing);
        // Fewer lines than the engine reads back at start: the log holds no more than these.
        let more_on_disk = model.audit.len() >= vults_engine::TAIL_LINES;
        if page.is_none() && !more_on_disk {
            return (None, model.audit.as_slice());
        }
        ui.horizontal(|ui| {
            let mut read = |of| action = Some(SettingsAction::ReadHistory(of));
            match page {
                None => {
                    if ui.button(tr!("history-older-lines")).clicked() {
                        self.browsing = true;
                        read(PageOf::Newest);
                    }
                }
                Some(p) => {
                    if ui
                        .add_enabled(p.has_older, egui::Button::new(tr!("history-older")))
                        .clicked()
                    {
                        read(PageOf::Older(p.first));
                    }
                    if ui
                        .add_enabled(p.has_newer, egui::Button::new(tr!("history-newer")))
                        .clicked()
                    {
                        read(PageOf::Newer(p.last));
                    }
                    if ui.button(tr!("history-newest")).clicked() {
                        self.browsing = false;
                    }
                }
            }
        });
        let lines = match page {
            Some(p) => p.lines.as_slice(),
            None => model.audit.as_slice(),
        };
        (action, lines)
    }
}

fn row_ui(ui: &mut egui::Ui, a: &vults_engine::messages::AuditEntry, model: &Model) {
    let color = match a.decision {
        Outcome::Allow | Outcome::Answer => crate::theme::GREEN,
        Outcome::Deny | Outcome::Refused => crate::theme::RED,
        Outcome::TooLarge | Outcome::Paused => crate::theme::AMBER,
        _ => Color32::from_gray(150),
    };
    ui.horizontal(|ui| {
        ui.label(
            RichText::new(clock(a.time))
                .monospace()
                .color(Color32::from_gray(140)),
        );
        let decision = decision_word(a.decision.as_str());
        let decision = decision.unwrap_or_else(|| a.decision.as_str().to_string());
        ui.label(RichText::new(decision).strong().color(color));
        // Who, in the one wording (`AnsweredBy::words`, in the person's language); the audit's
        // own text on hover.
        ui.label(
            RichText::new(crate::theme::answered_by_words(&a.by)).color(Color32::from_gray(170)),
        )
        .on_hover_text(tr!("history-by-hover", by = &*reveal(&a.by.label()).text));
        ui.label(RichText::new(&a.identity).strong());
        ui.label(RichText::new(reveal(&a.tool).text).monospace());
        // An Always made a rule: say so (its sentence is on the row's last line).
        if let Some(id) = rule_made(a) {
            ui.label(
                RichText::new(tr!("history-made-rule"))
                    .strong()
                    .color(Color32::BLACK)
                    .background_color(crate::theme::AMBER),
            )
            .on_hover_text(tr!("history-rule-hover", id = id));
        }
    });
    let target = crate::theme::shown_target(&a.target);
    let mut job = egui::text::LayoutJob::simple(
        target.clone(),
        egui::FontId::monospace(12.0),
        Color32::from_gray(215),
        ui.available_width(),
    );
    job.wrap = egui::text::TextWrapping {
        max_width: ui.available_width(),
        max_rows: 2,
        break_anywhere: true,
        overflow_character: Some('…'),
    };
    let shown = ui.add(egui::Label::new(job).selectable(true));
    if shown.hovered() {
        shown.on_hover_text(RichText::new(target).monospace());
    }
    let mut folder = tr!("history-in-folder", folder = &*reveal(&a.folder).text);
    if let Some(detail) = a
        .detail
        .as_deref()
        .filter(|d| !d.starts_with("always rule "))
    {
        folder.push_str(&format!(" · {}", reveal(detail).text));
    }
    // The rule an Always made, in its own words (Settings → Rules keeps the same sentence).
    if let Some(id) = rule_made(a) {
        let words = model
            .rules
            .iter()
            .find(|r| r.id == id)
            .map(crate::theme::rule_words)
            .unwrap_or_else(|| tr!("history-rule-removed"));
        folder.push_str(&format!(" · {}", tr!("history-from-now-on", rule = words)));
    }
    let line = ui.add(
        egui::Label::new(
            RichText::new(&folder)
                .size(11.5)
                .color(Color32::from_gray(150)),
        )
        .truncate(),
    );
    if line.hovered() {
        line.on_hover_text(folder);
    }
}

/// The id of the rule an Always answer made (its detail says `always rule <id>`).
fn rule_made(a: &vults_engine::messages::AuditEntry) -> Option<&str> {
    a.detail
        .as_deref()
        .and_then(|d| d.strip_prefix("always rule "))
}

/// An audit `decision` in the person's words; `None` for one this version does not write.
fn decision_word(decision: &str) -> Option<String> {
    DECISIONS
        .contains(&decision)
        .then(|| tr!(&format!("history-decision-{decision}")))
}

/// An audit `by` kind (the "Answered by" filter) in the person's words.
fn by_word(kind: &str) -> Option<String> {
    WHO.contains(&kind)
        .then(|| tr!(&format!("history-by-{kind}")))
}

/// One filter: its label (`what`, with its colon), "all", and each of `choices` (the audit's
/// own value) by the words `word` gives it.
fn filter_combo<'a>(
    ui: &mut egui::Ui,
    what: &str,
    value: &mut Option<String>,
    choices: impl Iterator<Item = &'a str>,
    word: impl Fn(&str) -> Option<String>,
) {
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new(what).color(Color32::from_gray(150)));
        ui.selectable_value(value, None, tr!("history-filter-all"));
        for c in choices {
            let shown = word(c).unwrap_or_else(|| c.to_string());
            ui.selectable_value(value, Some(c.to_string()), shown);
        }
    });
}

/// "2026-11-29 13:05:09 UTC" from Unix milliseconds (UTC: the window does no time-zone I/O).
pub(crate) fn clock(ms: u64) -> String {
    let secs = ms / 1000;
    let (h, m, s) = ((secs / 3600) % 24, (secs / 60) % 60, secs % 60);
    let (y, mo, d) = civil_from_days((secs / 86400) as i64);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{m:02}:{s:02}")
}

/// Howard Hinnant's days → civil date.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    #[test]
    fn audit_times_read_as_utc_dates() {
        assert_eq!(super::clock(0), "1970-01-01 00:00:00");
        assert_eq!(super::clock(1_795_000_000_000), "2026-11-18 11:06:40");
    }
}
