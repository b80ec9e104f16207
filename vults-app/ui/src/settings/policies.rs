//! Settings → Policies: the policy file's path, its parse error (line:column) if any, the
//! warnings about policies that will not do what they seem to, and a button to open it.

use super::SettingsAction;
use crate::state::Model;
use crate::theme;
use egui::{Color32, RichText};
use vults_i18n::tr;

/// Settings → Policies: the policy file, its parse error and warnings, and a button to open it.
#[derive(Debug, Default)]
pub struct PoliciesView;

impl PoliciesView {
    /// Draws the pane; returns what the person asked for.
    pub fn ui(&mut self, ui: &mut egui::Ui, model: &Model) -> Option<SettingsAction> {
        let mut action = None;
        let status = &model.policies;
        ui.heading(tr!("policies-title"));
        ui.label(RichText::new(tr!("policies-intro")).color(Color32::from_gray(150)));
        ui.add_space(6.0);
        ui.horizontal_wrapped(|ui| {
            ui.label(tr!("policies-file"));
            ui.label(RichText::new(status.path.display().to_string()).monospace());
        });
        match &status.error {
            Some(error) => {
                ui.label(
                    RichText::new(tr!("policies-cannot-read", error = error.to_string()))
                        .color(theme::RED)
                        .strong(),
                );
                ui.label(RichText::new(tr!("policies-last-good")).color(Color32::from_gray(150)));
            }
            None => {
                ui.label(tr!("policies-in-force", count = status.count));
            }
        }
        for warning in &status.warnings {
            ui.label(
                RichText::new(tr!("policies-warning", warning = warning.to_string()))
                    .color(theme::AMBER),
            );
        }
        ui.add_space(6.0);
        ui.horizontal(|ui| {
            if ui.button(tr!("policies-open")).clicked() {
                action = Some(SettingsAction::Open(status.path.clone()));
            }
            if ui.button(tr!("policies-reload")).clicked() {
                action = Some(SettingsAction::ReloadPolicies);
            }
        });
        action
    }
}
