//! The first run's welcome, drawn in the main window until the user closes it (see
//! [`vults_installer::welcome`] for when it shows).

use crate::look;
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
            for line in welcome.summary.lines().filter(|l| !l.trim().is_empty()) {
                ui.label(look::with_code(ui, line, text));
            }
            if !welcome.written.is_empty() {
                ui.add_space(6.0);
                ui.label(RichText::new(tr!("welcome-files")).strong());
                for w in &welcome.written {
                    ui.label(look::with_code(
                        ui,
                        &tr!(
                            "welcome-file",
                            agent = &w.agent,
                            path = w.path.display().to_string()
                        ),
                        text,
                    ));
                    match &w.backup {
                        Some(b) => ui.label(look::with_code(
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
                ui.label(look::with_code(
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
                ui.label(look::with_code(ui, &tr!("welcome-codex-trust"), text));
            }
            ui.add_space(6.0);
            ui.label(RichText::new(tr!("welcome-undo")).strong());
            ui.label(look::with_code(ui, &tr!("welcome-undo-how"), text));
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
