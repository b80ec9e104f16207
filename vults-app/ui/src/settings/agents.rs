//! Settings → Agents: each built-in agent with its install state, and each named tool seen,
//! with its Always rules, each removable.

use super::SettingsAction;
use crate::state::Model;
use crate::theme;
use egui::{Color32, RichText};
use vults_core::protocol::AgentKind;
use vults_i18n::tr;
use vults_installer::AgentState;

/// An install state in the person's words.
fn state_words(state: &AgentState) -> String {
    tr!(match state {
        AgentState::Installed => "agents-state-installed",
        AgentState::Outdated => "agents-state-outdated",
        AgentState::Tampered => "agents-state-tampered",
        AgentState::Missing => "agents-state-missing",
        AgentState::NotFound => "agents-state-not-found",
        AgentState::Disabled => "agents-state-turned-off",
        AgentState::Unparsable { .. } => "agents-state-cannot-parse",
        AgentState::Leftover => "agents-state-old-hooks",
        AgentState::Failed(_) => "agents-state-failed",
    })
}

/// Settings → Agents: each agent's install state, with Repair and an on/off switch, and the
/// named tools that have asked.
#[derive(Debug, Default)]
pub struct AgentsView;

impl AgentsView {
    /// Draws the pane; returns what the person asked for.
    pub fn ui(&mut self, ui: &mut egui::Ui, model: &Model) -> Option<SettingsAction> {
        let mut action = None;
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui.heading(tr!("agents-title"));
                ui.label(RichText::new(tr!("agents-intro")).color(Color32::from_gray(150)));
                ui.add_space(6.0);
                egui::Grid::new("agents")
                    .num_columns(5)
                    .spacing([14.0, 8.0])
                    .show(ui, |ui| {
                        if model.installs.is_empty() {
                            // The installer has not reported yet: the agents the wire knows.
                            for kind in AgentKind::ALL
                                .into_iter()
                                .filter(|k| *k != AgentKind::Other)
                            {
                                theme::paint_bird(
                                    ui,
                                    theme::agent_color(kind, None),
                                    &theme::agent_letter(kind, None),
                                    24.0,
                                );
                                ui.label(RichText::new(kind.display_name()).strong());
                                ui.label(
                                    RichText::new(tr!("agents-state-unknown"))
                                        .color(Color32::from_gray(150)),
                                );
                                ui.end_row();
                            }
                        }
                        for install in &model.installs {
                            let (kind, name) = match install.agent.kind() {
                                Some(k) if k != AgentKind::Other => (k, None),
                                _ => (AgentKind::Other, Some(install.name.as_str())),
                            };
                            theme::paint_bird(
                                ui,
                                theme::agent_color(kind, name),
                                &theme::agent_letter(kind, name),
                                24.0,
                            );
                            ui.label(RichText::new(&install.name).strong());
                            let color = match install.state {
                                AgentState::Installed => theme::GREEN,
                                _ if install.repairable => theme::AMBER,
                                AgentState::Failed(_) | AgentState::Unparsable { .. } => theme::RED,
                                _ => Color32::from_gray(150),
                            };
                            ui.vertical(|ui| {
                                ui.set_width(190.0);
                                // The state's first line on the name's line: the row is as tall as
                                // the bird, and the name sits in its middle.
                                let row = ui.text_style_height(&egui::TextStyle::Body);
                                ui.add_space(((24.0 - row) / 2.0).max(0.0));
                                ui.label(RichText::new(state_words(&install.state)).color(color));
                                // What the watcher saw: "removed by another program at 10:42".
                                if let Some(line) = model.watch_lines.get(&install.agent) {
                                    ui.add(
                                        egui::Label::new(
                                            RichText::new(line.text()).small().color(theme::AMBER),
                                        )
                                        .wrap(),
                                    );
                                }
                                if let Some(detail) = &install.detail {
                                    ui.add(
                                        egui::Label::new(
                                            RichText::new(detail)
                                                .small()
                                                .color(Color32::from_gray(150)),
                                        )
                                        .wrap(),
                                    );
                                }
                            });
                            ui.horizontal(|ui| {
                                // A new agent, appeared while Vults runs: installed in one click.
                                let offered = model.offered.contains(&install.agent)
                                    && install.state != AgentState::Installed;
                                let label = if offered {
                                    tr!("agents-install-in", name = &install.name)
                                } else {
                                    tr!("agents-repair", name = &install.name)
                                };
                                if (offered || install.repairable) && ui.button(label).clicked() {
                                    action = Some(SettingsAction::Repair(install.agent));
                                }
                                if let Some(a) = switch(ui, install) {
                                    action = Some(a);
                                }
                            });
                            ui.end_row();
                        }
                    });

                // The hooks' watcher (vults_installer::watch).
                ui.add_space(8.0);
                let mut w = model.watch_settings;
                ui.checkbox(&mut w.keep_in_place, tr!("agents-keep-in-place"))
                    .on_hover_text(tr!("agents-keep-in-place-hover"));
                ui.checkbox(&mut w.install_new_agents, tr!("agents-install-new"))
                    .on_hover_text(tr!("agents-install-new-hover"));
                if w != model.watch_settings {
                    action = Some(SettingsAction::SetWatch(w));
                }

                ui.add_space(16.0);
                ui.heading(tr!("agents-named-tools"));
                // Every tool seen asking, and every tool a rule was kept for (seen before a restart).
                let mut names: std::collections::BTreeSet<&str> =
                    model.named_tools.keys().map(String::as_str).collect();
                names.extend(model.rules.iter().filter_map(|r| match &r.identity {
                    vults_core::protocol::Identity::Named(n) => Some(n.as_str()),
                    _ => None,
                }));
                if names.is_empty() {
                    ui.label(
                        RichText::new(tr!(
                            "agents-named-none",
                            command = "vults-hook --agent <name> --reply vults"
                        ))
                        .color(Color32::from_gray(150)),
                    );
                }
                for name in names {
                    ui.add_space(6.0);
                    ui.horizontal(|ui| {
                        theme::paint_bird(
                            ui,
                            theme::agent_color(AgentKind::Other, Some(name)),
                            &theme::agent_letter(AgentKind::Other, Some(name)),
                            24.0,
                        );
                        ui.label(RichText::new(name).strong());
                        if let Some(tool) = model.named_tools.get(name) {
                            let ms = vults_engine::clock::unix_ms(tool.last_asked);
                            ui.label(
                                RichText::new(tr!(
                                    "agents-last-asked",
                                    time = super::history::clock(ms)
                                ))
                                .color(Color32::from_gray(150)),
                            );
                        }
                    });
                    let mut any = false;
                    for rule in model.rules_of(name) {
                        any = true;
                        ui.indent(("named-rule", &rule.id), |ui| {
                            ui.horizontal_wrapped(|ui| {
                                if ui
                                    .button(tr!("agents-remove"))
                                    .on_hover_text(tr!("agents-remove-hover", id = &rule.id))
                                    .clicked()
                                {
                                    action = Some(SettingsAction::RemoveRule(rule.id.clone()));
                                }
                                ui.label(
                                    RichText::new(vults_core::text::reveal(&rule.tool).text)
                                        .monospace()
                                        .strong(),
                                );
                                ui.label(
                                    RichText::new(vults_core::text::reveal(&rule.target).text)
                                        .monospace(),
                                )
                                .on_hover_text(crate::theme::rule_words(rule));
                                ui.label(
                                    RichText::new(tr!("agents-in-folder", folder = &rule.folder))
                                        .color(Color32::from_gray(150)),
                                );
                            });
                        });
                    }
                    if !any {
                        ui.indent(("no-rules", name), |ui| {
                            ui.label(
                                RichText::new(tr!("agents-no-rules"))
                                    .color(Color32::from_gray(150)),
                            );
                        });
                    }
                }
            });
        action
    }
}

/// The per-agent switch: Vults can be turned off for an agent it found (and back on), and its
/// old hooks of an agent it no longer serves can be taken out. Nothing for an agent that is not
/// on this machine.
fn switch(ui: &mut egui::Ui, install: &crate::state::AgentInstall) -> Option<SettingsAction> {
    if install.retired {
        let clicked = ui
            .button(tr!("agents-remove-old-hooks", name = &install.name))
            .clicked();
        return clicked.then_some(SettingsAction::RemoveLeftovers(install.agent));
    }
    match install.state {
        AgentState::NotFound => None,
        AgentState::Disabled => ui
            .button(tr!("agents-turn-on", name = &install.name))
            .on_hover_text(tr!("agents-turn-on-hover"))
            .clicked()
            .then_some(SettingsAction::SetEnabled(install.agent, true)),
        _ => ui
            .button(tr!("agents-turn-off", name = &install.name))
            .on_hover_text(tr!("agents-turn-off-hover"))
            .clicked()
            .then_some(SettingsAction::SetEnabled(install.agent, false)),
    }
}
