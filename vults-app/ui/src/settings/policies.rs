//! Settings → Policies: the policy file's path, its parse error (line:column) if any, the
//! warnings about policies that will not do what they seem to, and a button to open it.

use super::SettingsAction;
use crate::look;
use crate::state::Model;
use egui::{Color32, RichText};

/// Settings → Policies: the policy file, its parse error and warnings, and a button to open it.
#[derive(Debug, Default)]
pub struct PoliciesView;

impl PoliciesView {
    /// Draws the pane; returns what the person asked for.
    pub fn ui(&mut self, ui: &mut egui::Ui, model: &Model) -> Option<SettingsAction> {
        let mut action = None;
        let status = &model.policies;
        ui.heading("Policies");
        ui.label(
            RichText::new("Policies deny or ask for whole classes of calls; the file is read again when it changes.")
                .color(Color32::from_gray(150)),
        );
        ui.add_space(6.0);
        ui.horizontal_wrapped(|ui| {
            ui.label("File:");
            ui.label(RichText::new(status.path.display().to_string()).monospace());
        });
        match &status.error {
            Some(error) => {
                ui.label(
                    RichText::new(format!("Cannot read the policies: {error}"))
                        .color(look::RED)
                        .strong(),
                );
                ui.label(
                    RichText::new("The last good policies stay in force.")
                        .color(Color32::from_gray(150)),
                );
            }
            None => {
                let n = status.count;
                ui.label(format!(
                    "{n} {} in force",
                    if n == 1 { "policy" } else { "policies" }
                ));
            }
        }
        for warning in &status.warnings {
            ui.label(RichText::new(format!("Warning: {warning}")).color(look::AMBER));
        }
        ui.add_space(6.0);
        ui.horizontal(|ui| {
            if ui.button("Open policy file").clicked() {
                action = Some(SettingsAction::Open(status.path.clone()));
            }
            if ui.button("Reload").clicked() {
                action = Some(SettingsAction::ReloadPolicies);
            }
        });
        action
    }
}
