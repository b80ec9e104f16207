//! Settings → Rules: every Always rule, removable, with what it answers in the same words the
//! card said when it was made ([`vults_core::rules::AlwaysRule::words`]).

use super::SettingsAction;
use crate::state::Model;
use crate::theme;
use egui::{Color32, RichText};
use vults_core::text::reveal;
use vults_i18n::tr;

/// Settings → Rules: every Always rule, with a Remove and the words the card said when it
/// was made.
#[derive(Debug, Default)]
pub struct RulesView;

impl RulesView {
    /// Draws the pane; returns what the person asked for.
    pub fn ui(&mut self, ui: &mut egui::Ui, model: &Model) -> Option<SettingsAction> {
        let mut action = None;
        ui.heading(tr!("rules-title"));
        ui.label(RichText::new(tr!("rules-intro")).color(Color32::from_gray(150)));
        ui.add_space(6.0);
        if model.rules.is_empty() {
            ui.label(RichText::new(tr!("rules-none")).color(Color32::from_gray(150)));
            return None;
        }
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                for rule in &model.rules {
                    egui::Frame::new()
                        .fill(Color32::from_gray(34))
                        .corner_radius(8)
                        .inner_margin(egui::Margin::symmetric(10, 8))
                        .show(ui, |ui| {
                            ui.set_width(ui.available_width());
                            ui.horizontal(|ui| {
                                ui.label(
                                    RichText::new(rule.identity.display_name())
                                        .strong()
                                        .color(theme::identity_color(&rule.identity)),
                                );
                                ui.label(
                                    RichText::new(reveal(&rule.tool).text).monospace().strong(),
                                );
                                ui.label(
                                    RichText::new(reveal(&rule.folder).text)
                                        .monospace()
                                        .color(Color32::from_gray(170)),
                                );
                                ui.with_layout(
                                    egui::Layout::right_to_left(egui::Align::Center),
                                    |ui| {
                                        if ui
                                            .button(tr!("rules-remove"))
                                            .on_hover_text(tr!("rules-remove-hover", id = &rule.id))
                                            .clicked()
                                        {
                                            action =
                                                Some(SettingsAction::RemoveRule(rule.id.clone()));
                                        }
                                    },
                                );
                            });
                            ui.add(egui::Label::new(RichText::new(theme::rule_words(rule))).wrap());
                            let target = reveal(&rule.target);
                            if target.hidden {
                                ui.label(
                                    RichText::new(tr!("rules-hidden"))
                                        .small()
                                        .strong()
                                        .color(theme::AMBER),
                                );
                            }
                            ui.add(
                                egui::Label::new(
                                    RichText::new(target.text)
                                        .monospace()
                                        .color(Color32::from_gray(200)),
                                )
                                .wrap(),
                            );
                        });
                    ui.add_space(4.0);
                }
            });
        action
    }
}
