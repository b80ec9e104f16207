//! Settings → General: start at login, the welcome again, where the island and the cards go
//! (the monitor, fullscreen windows, the layout and the tray as this desktop allows them), where
//! the log file is, and what "Show terminal" can do with each terminal found on this machine.

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
        if let Some(set) = screen_ui(ui, model) {
            action = Some(set);
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
        ui.add_space(10.0);
        survey_ui(ui, model.terminal_survey.as_deref());
        action
    }
}

/// The monitor the island and the cards go to, whether a card may cover a fullscreen window,
/// and what this desktop allows (the layout, the tray).
fn screen_ui(ui: &mut egui::Ui, model: &Model) -> Option<SettingsAction> {
    use crate::viewport::MonitorChoice;
    let muted = Color32::from_gray(150);
    let mut action = None;
    ui.label(RichText::new("Island and cards").strong());
    if let Some(note) = &model.layout_note {
        ui.label(RichText::new(note).small().color(muted));
    }
    let mut choice = model.monitor_choice.clone();
    let label = |c: &MonitorChoice| match c {
        MonitorChoice::Pointer => "The monitor with the pointer".to_owned(),
        MonitorChoice::Primary => "The primary monitor".to_owned(),
        MonitorChoice::Named(name) if model.monitor_names.contains(name) => name.clone(),
        MonitorChoice::Named(name) => format!("{name} (not connected: the primary one)"),
    };
    let mut over = model.cards_over_fullscreen;
    ui.horizontal(|ui| {
        ui.label("Show them on");
        egui::ComboBox::from_id_salt("vults-monitor")
            .selected_text(label(&choice))
            .show_ui(ui, |ui| {
                let mut options = vec![MonitorChoice::Primary, MonitorChoice::Pointer];
                options.extend(
                    model
                        .monitor_names
                        .iter()
                        .cloned()
                        .map(MonitorChoice::Named),
                );
                for option in options {
                    let text = label(&option);
                    ui.selectable_value(&mut choice, option, text);
                }
            });
    });
    let over_changed = ui
        .checkbox(&mut over, "Show cards over a fullscreen window")
        .on_hover_text(
            "Off: while the monitor shows a fullscreen window (a video call, a presentation), \
             cards wait; the island counts them and the notification tells.",
        )
        .changed();
    if choice != model.monitor_choice || over_changed {
        action = Some(SettingsAction::SetWindow(choice, over));
    }
    if let Some(note) = &model.tray_note {
        ui.label(
            RichText::new(note)
                .small()
                .color(Color32::from_rgb(230, 170, 60)),
        );
    }
    action
}

/// What "Show terminal" reaches in each terminal and multiplexer found here (the survey runs
/// once, off the window's thread).
fn survey_ui(ui: &mut egui::Ui, survey: Option<&[vults_terminal::Support]>) {
    use vults_terminal::Reach;
    ui.label(RichText::new("Show terminal on this computer").strong());
    let Some(rows) = survey else {
        ui.label(RichText::new("Looking for terminals…").color(Color32::from_gray(150)));
        return;
    };
    if rows.is_empty() {
        ui.label(RichText::new("No terminal found.").color(Color32::from_gray(150)));
        return;
    }
    egui::Grid::new("show-terminal-survey")
        .num_columns(3)
        .spacing([12.0, 4.0])
        .striped(true)
        .show(ui, |ui| {
            for row in rows {
                let (reach, color) = match row.reach {
                    Reach::Pane => ("tab / pane", crate::look::GREEN),
                    Reach::Window => ("window", Color32::from_gray(200)),
                    Reach::Nothing => ("nothing", crate::look::AMBER),
                };
                ui.label(RichText::new(&row.name).monospace());
                ui.label(RichText::new(reach).color(color));
                ui.add(
                    egui::Label::new(
                        RichText::new(&row.how)
                            .small()
                            .color(Color32::from_gray(170)),
                    )
                    .wrap(),
                );
                ui.end_row();
            }
        });
}
