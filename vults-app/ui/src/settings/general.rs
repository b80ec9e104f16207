//! Settings → General: start at login, the welcome again, and where the log file is.

use super::SettingsAction;
use crate::state::Model;
use egui::{Color32, RichText};

#[derive(Debug, Default)]
pub(crate) struct GeneralView;

impl GeneralView {
    pub fn ui(&mut self, ui: &mut egui::Ui, model: &Model) -> Option<SettingsAction> {
        let mut action = None;
        ui.heading("General");
        ui.add_space(6.0);
        match model.start_at_login {
            Some(on) => {
                let mut checked = on;
                if ui
                    .checkbox(&mut checked, "Start Vults when I log in")
                    .on_hover_text(if cfg!(windows) {
                        "The Run key of your user (HKCU)"
                    } else if cfg!(target_os = "macos") {
                        "A LaunchAgent in ~/Library/LaunchAgents"
                    } else {
                        "An entry in ~/.config/autostart"
                    })
                    .changed()
                {
                    action = Some(SettingsAction::SetStartAtLogin(checked));
                }
            }
            None => {
                ui.label(RichText::new("Start at login: checking…").color(Color32::from_gray(150)));
            }
        }
        ui.add_space(10.0);
        if ui.button("Show the welcome again").clicked() {
            action = Some(SettingsAction::ShowWelcome);
        }
        ui.add_space(10.0);
        ui.label(RichText::new("Log file").strong());
        match &model.log_file {
            Some(path) => {
                ui.horizontal_wrapped(|ui| {
                    ui.monospace(path.display().to_string());
                    if ui.small_button("Open").clicked() {
                        action = Some(SettingsAction::Open(path.clone()));
                    }
                });
                ui.label(
                    RichText::new(
                        "VULTS_LOG=debug before starting Vults logs more (card contents too).",
                    )
                    .small()
                    .color(Color32::from_gray(150)),
                );
            }
            None => {
                ui.label(
                    RichText::new("No log file: Vults logs to stderr only.")
                        .color(Color32::from_gray(150)),
                );
            }
        }
        action
    }
}
