//! The first run's welcome, drawn in the main window until the user closes it (see
//! [`vults_installer::welcome`] for when it shows).

use crate::look;
use egui::{Color32, RichText};
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
    egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
        ui.heading("Welcome to Vults");
        ui.label(
            "Vults shows your coding agents' permission requests as cards: the whole command, file or \
             URL, answered with a click (or from your phone). The island at the top of the screen \
             shows each agent's session as a bird.",
        );
        ui.add_space(8.0);
        ui.label(RichText::new("What Vults found and did").strong());
        let text = ui.visuals().text_color();
        for line in welcome.summary.lines().filter(|l| !l.trim().is_empty()) {
            ui.label(look::with_code(ui, line, text));
        }
        if !welcome.written.is_empty() {
            ui.add_space(6.0);
            ui.label(RichText::new("Files Vults changed").strong());
            for w in &welcome.written {
                ui.label(look::with_code(ui, &format!("{}: `{}`", w.agent, w.path.display()), text));
                match &w.backup {
                    Some(b) => ui.label(look::with_code(ui, &format!("    your original is kept in `{}`", b.display()), dim)),
                    None => ui.label(RichText::new("    (a new file; there was nothing to back up)").color(dim)),
                };
            }
            ui.label(look::with_code(ui, &format!("Every entry runs `{}`", welcome.hook_copy.display()), dim));
        }
        if welcome.codex_trust {
            ui.add_space(6.0);
            ui.label(RichText::new("One step for Codex CLI").strong());
            ui.label(look::with_code(ui, "Codex runs a new hook only after you trust it: in Codex, type `/hooks` and trust Vults' hook once.", text));
        }
        ui.add_space(6.0);
        ui.label(RichText::new("To undo").strong());
        ui.label(look::with_code(ui, "Turn an agent off in Settings > Agents, or run `vults-app --uninstall` to remove exactly what Vults added.", text));
        ui.add_space(10.0);
        ui.horizontal(|ui| {
            if phone && ui.button("Pair a phone…").clicked() {
                action = Some(WelcomeAction::PairPhone);
            }
            if ui.button("Got it").clicked() {
                action = Some(WelcomeAction::Close);
            }
        });
        ui.label(RichText::new("Settings > General shows this again.").small().color(dim));
    });
    action
}
