//! The first run's welcome, drawn in the main window until the user closes it (see
//! [`vults_installer::welcome`] for when it shows).

use crate::theme;
use egui::{Color32, RichText};
use vults_i18n::tr;
use vults_installer::welcome::Welcome;

/// What the welcome asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WelcomeAction {
    /// Close the welcome.
    Close,
    /// Go to Settings → Phone to pair a phone.
    PairPhone,
}

/// Draws the welcome; `phone` offers to pair a phone (the app has a phone link).
pub fn ui(ui: &mut egui::Ui, welcome: &Welcome, phone: bool) -> Option<WelcomeAction> {
    let mut action = None;
    let dim = Color32::from_gray(160);
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            ui.heading(tr!("welcome-title"));
            ui.label(tr!("welcome-intro"));
            ui.add_space(8.0);
            ui.label(RichText::new(tr!("welcome-found")).strong());
            let text = ui.visuals().text_color();
            let lines = match &welcome.first_run {
                Some(run) => first_run_lines(run),
                None => welcome.summary.lines().map(str::to_string).collect(),
            };
            for line in lines.iter().filter(|l| !l.trim().is_empty()) {
                ui.label(theme::with_code(ui, line, text));
            }
            if !welcome.written.is_empty() {
                ui.add_space(6.0);
                ui.label(RichText::new(tr!("welcome-files")).strong());
                for w in &welcome.written {
                    ui.label(theme::with_code(
                        ui,
                        &tr!(
                            "welcome-file",
                            agent = &w.agent,
                            path = w.path.display().to_string()
                        ),
                        text,
                    ));
                    match &w.backup {
                        Some(b) => ui.label(theme::with_code(
                            ui,
                            &format!(
                                "    {}",
                                tr!("welcome-backup", path = b.display().to_string())
                            ),
                            dim,
                        )),
                        None => ui.label(
                            RichText::new(format!("    {}", tr!("welcome-no-backup"))).color(dim),
                        ),
                    };
                }
                ui.label(theme::with_code(
                    ui,
                    &tr!(
                        "welcome-every-entry",
                        path = welcome.hook_copy.display().to_string()
                    ),
                    dim,
                ));
            }
            if welcome.codex_trust {
                ui.add_space(6.0);
                ui.label(RichText::new(tr!("welcome-codex")).strong());
                ui.label(theme::with_code(ui, &tr!("welcome-codex-trust"), text));
            }
            ui.add_space(6.0);
            ui.label(RichText::new(tr!("welcome-undo")).strong());
            ui.label(theme::with_code(ui, &tr!("welcome-undo-how"), text));
            ui.add_space(10.0);
            ui.horizontal(|ui| {
                if phone && ui.button(tr!("welcome-pair-phone")).clicked() {
                    action = Some(WelcomeAction::PairPhone);
                }
                if ui.button(tr!("welcome-got-it")).clicked() {
                    action = Some(WelcomeAction::Close);
                }
            });
            ui.label(RichText::new(tr!("welcome-again")).small().color(dim));
        });
    action
}

/// What the first run found and did, worded in the person's language, a line each
/// ([`vults_installer::first_run_message`] says the same in English).
pub fn first_run_lines(run: &vults_installer::FirstRun) -> Vec<String> {
    use vults_installer::ToDo;
    if run.found.is_empty() {
        return vec![tr!("first-run-none")];
    }
    let list = |names: &[String]| names.join(", ");
    let mut out = vec![tr!("first-run-found", agents = list(&run.found))];
    if !run.installed.is_empty() {
        out.push(tr!("first-run-installed", agents = list(&run.installed)));
    }
    if !run.cards.is_empty() {
        out.push(tr!("first-run-cards", agents = list(&run.cards)));
    }
    if !run.sessions_only.is_empty() {
        out.push(tr!(
            "first-run-sessions-only",
            agents = list(&run.sessions_only)
        ));
    }
    if run.status_line {
        out.push(tr!("first-run-status-line"));
    }
    if !run.todo.is_empty() {
        out.push(tr!("first-run-todo"));
    }
    for t in &run.todo {
        out.push(match t {
            ToDo::CodexTrust => tr!("first-run-codex-trust"),
            ToDo::Unparsable {
                agent,
                path,
                line,
                column,
                message,
            } => tr!(
                "first-run-unparsable",
                agent = agent,
                path = path.display().to_string(),
                line = *line,
                column = *column,
                message = message
            ),
            ToDo::Failed { agent, why } => tr!("first-run-failed", agent = agent, why = why),
            ToDo::Leftover { agent } => tr!("first-run-leftover", agent = agent),
        });
    }
    out
}
