//! Settings → Hosts: agents on SSH hosts (docs/hosts.md). Each host with its system and its
//! link's state, Remove, and a row to add one (`[user@]host[:port]`, extra ssh options).
//!
//! The view does no I/O: it reads a [`HostsStatus`] snapshot and returns a [`HostsAction`],
//! which `remote::background::BackgroundHosts::apply` runs on a thread of its own.

use egui::{Color32, RichText};
use vults_i18n::tr;
use vults_remote::background::{HostsAction, HostsStatus};

const MUTED: Color32 = Color32::from_gray(150);
const GOOD: Color32 = Color32::from_rgb(110, 200, 120);
const WARN: Color32 = Color32::from_rgb(230, 160, 60);

#[derive(Debug, Default)]
pub(crate) struct HostsView {
    spec: String,
    ssh_options: String,
}

impl HostsView {
    pub fn ui(&mut self, ui: &mut egui::Ui, status: &HostsStatus) -> Option<HostsAction> {
        let mut action = None;
        ui.heading(tr!("hosts-title"));
        ui.label(RichText::new(tr!("hosts-intro")).color(MUTED));
        ui.add_space(8.0);
        if let Some(e) = &status.error {
            ui.colored_label(WARN, e);
        }
        if status.hosts.iter().any(|h| !h.linked) {
            // A link that is down counts down to its next try.
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_secs(1));
        }
        if status.hosts.is_empty() && status.error.is_none() {
            ui.label(RichText::new(tr!("hosts-none")).color(MUTED));
        }
        // A column is at most this wide and its text wraps there: a long "down (…)" must not
        // push Remove out of a small window.
        let column = ((ui.available_width() - 140.0) / 2.0).max(120.0);
        egui::Grid::new("hosts")
            .num_columns(4)
            .spacing([16.0, 6.0])
            .max_col_width(column)
            .show(ui, |ui| {
                for h in &status.hosts {
                    ui.label(RichText::new(&h.name).strong());
                    ui.label(RichText::new(format!("{}  {}", h.target, h.system)).color(MUTED));
                    ui.colored_label(if h.linked { GOOD } else { WARN }, &h.link);
                    ui.horizontal(|ui| {
                        let idle = status.busy.is_none();
                        let remove = ui.add_enabled(idle, egui::Button::new(tr!("hosts-remove")));
                        if remove.on_hover_text(tr!("hosts-remove-hover")).clicked() {
                            action = Some(HostsAction::Remove(h.name.clone()));
                        }
                        // Its Remove failed (the host cannot be reached): forget it only.
                        if status.offer_forget.as_deref() == Some(h.name.as_str())
                            && ui
                                .add_enabled(idle, egui::Button::new(tr!("hosts-forget")))
                                .on_hover_text(tr!("hosts-forget-hover"))
                                .clicked()
                        {
                            action = Some(HostsAction::Forget(h.name.clone()));
                        }
                    });
                    ui.end_row();
                }
            });
        ui.add_space(12.0);
        ui.horizontal(|ui| {
            ui.label(tr!("hosts-add"));
            let labelled = |edit: egui::Response, name: String| {
                edit.widget_info(|| egui::WidgetInfo::labeled(egui::Role::TextInput, true, &name));
            };
            labelled(
                ui.add(
                    egui::TextEdit::singleline(&mut self.spec)
                        .hint_text("[user@]host[:port]")
                        .desired_width(200.0),
                ),
                tr!("hosts-host"),
            );
            labelled(
                ui.add(
                    egui::TextEdit::singleline(&mut self.ssh_options)
                        .hint_text(tr!("hosts-ssh-options-hint"))
                        .desired_width(200.0),
                ),
                tr!("hosts-ssh-options"),
            );
            let can = status.busy.is_none() && !self.spec.trim().is_empty();
            if ui
                .add_enabled(can, egui::Button::new(tr!("hosts-add-host")))
                .clicked()
            {
                action = Some(HostsAction::Add {
                    spec: self.spec.trim().to_string(),
                    ssh_options: self.ssh_options.trim().to_string(),
                });
            }
        });
        if let Some(busy) = &status.busy {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(busy);
            });
        } else if let Some(last) = &status.last {
            if status.last_failed {
                // A failure must not read like the quiet line a success gets.
                ui.colored_label(WARN, tr!("hosts-failed", what = last));
            } else {
                ui.label(RichText::new(last).color(MUTED));
            }
        }
        action
    }
}
