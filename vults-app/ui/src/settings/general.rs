//! Settings → General: start at login, the welcome again, where the island and the cards go
//! (the monitor, fullscreen windows, the layout and the tray as this desktop allows them), where
//! the log file is, and what "Show terminal" can do with each terminal found on this machine.

use super::SettingsAction;
use crate::state::Model;
use egui::{Color32, RichText};
use vults_i18n::tr;

/// Settings → General (the module's doc says what it holds).
#[derive(Debug, Default)]
pub struct GeneralView;

impl GeneralView {
    /// Draws the pane as `model` has it; what the person changed, if anything.
    pub fn ui(&mut self, ui: &mut egui::Ui, model: &Model) -> Option<SettingsAction> {
        let mut action = None;
        ui.heading(tr!("settings-general"));
        ui.add_space(6.0);
        if let Some(set) = language_ui(ui, model) {
            action = Some(set);
        }
        ui.add_space(10.0);
        match model.start_at_login {
            Some(on) => {
                let mut checked = on;
                if ui
                    .checkbox(&mut checked, tr!("settings-start-at-login"))
                    .on_hover_text(if cfg!(windows) {
                        tr!("settings-start-at-login-windows")
                    } else if cfg!(target_os = "macos") {
                        tr!("settings-start-at-login-macos")
                    } else {
                        tr!("settings-start-at-login-linux")
                    })
                    .changed()
                {
                    action = Some(SettingsAction::SetStartAtLogin(checked));
                }
            }
            None => {
                ui.label(
                    RichText::new(tr!("settings-start-at-login-checking"))
                        .color(Color32::from_gray(150)),
                );
            }
        }
        ui.add_space(10.0);
        if ui.button(tr!("settings-show-welcome")).clicked() {
            action = Some(SettingsAction::ShowWelcome);
        }
        ui.add_space(10.0);
        if let Some(set) = screen_ui(ui, model) {
            action = Some(set);
        }
        ui.add_space(10.0);
        ui.label(RichText::new(tr!("settings-log-file")).strong());
        match &model.log_file {
            Some(path) => {
                ui.horizontal_wrapped(|ui| {
                    ui.monospace(path.display().to_string());
                    if ui.small_button(tr!("settings-open")).clicked() {
                        action = Some(SettingsAction::Open(path.clone()));
                    }
                });
                ui.label(
                    RichText::new(tr!("settings-log-more"))
                        .small()
                        .color(Color32::from_gray(150)),
                );
            }
            None => {
                ui.label(RichText::new(tr!("settings-no-log-file")).color(Color32::from_gray(150)));
            }
        }
        ui.add_space(10.0);
        survey_ui(ui, model.terminal_survey.as_deref());
        action
    }
}

/// The language Vults speaks: the system's (named with what it resolves to) or one of the
/// languages it ships, each named in its own words. Takes effect on the next frame.
fn language_ui(ui: &mut egui::Ui, model: &Model) -> Option<SettingsAction> {
    use vults_i18n::Choice;
    let languages = vults_i18n::languages();
    let name_of = |tag: &str| {
        languages
            .iter()
            .find(|l| l.tag == tag)
            .map_or_else(|| tag.to_owned(), |l| l.name.clone())
    };
    let label = |c: &Choice| match c {
        Choice::System => {
            let spoken = vults_i18n::system_language().unwrap_or(vults_i18n::ENGLISH);
            tr!("settings-language-system", language = name_of(spoken))
        }
        Choice::Language(tag) => name_of(tag),
    };
    let mut choice = model.language.clone();
    ui.horizontal(|ui| {
        let name = ui.label(tr!("settings-language"));
        egui::ComboBox::from_id_salt("vults-language")
            .selected_text(label(&choice))
            .show_ui(ui, |ui| {
                let options = std::iter::once(Choice::System)
                    .chain(languages.iter().map(|l| Choice::Language(l.tag.to_owned())));
                for option in options {
                    let text = label(&option);
                    ui.selectable_value(&mut choice, option, text);
                }
            })
            .response
            .labelled_by(name.id);
    });
    (choice != model.language).then_some(SettingsAction::SetLanguage(choice))
}

/// The monitor the island and the cards go to, whether a card may cover a fullscreen window,
/// and what this desktop allows (the layout, the tray).
fn screen_ui(ui: &mut egui::Ui, model: &Model) -> Option<SettingsAction> {
    use crate::viewport::MonitorChoice;
    let muted = Color32::from_gray(150);
    let mut action = None;
    ui.label(RichText::new(tr!("settings-island-and-cards")).strong());
    if let Some(note) = &model.layout_note {
        ui.label(RichText::new(tr!(note)).small().color(muted));
    }
    let mut choice = model.monitor_choice.clone();
    let label = |c: &MonitorChoice| match c {
        MonitorChoice::Pointer => tr!("settings-monitor-pointer"),
        MonitorChoice::Primary => tr!("settings-monitor-primary"),
        MonitorChoice::Named(name) if model.monitor_names.contains(name) => name.clone(),
        MonitorChoice::Named(name) => tr!("settings-monitor-gone", name = name),
    };
    let mut over = model.cards_over_fullscreen;
    ui.horizontal(|ui| {
        let name = ui.label(tr!("settings-show-them-on"));
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
            })
            .response
            .labelled_by(name.id);
    });
    let over_changed = ui
        .checkbox(&mut over, tr!("settings-over-fullscreen"))
        .on_hover_text(tr!("settings-over-fullscreen-hover"))
        .changed();
    if choice != model.monitor_choice || over_changed {
        action = Some(SettingsAction::SetWindow(choice, over));
    }
    if let Some(note) = &model.tray_note {
        use vults_notify::no_tray::NoTray;
        let note = match note {
            NoTray::Missing => tr!("settings-tray-missing"),
            // Why, as the D-Bus library said it: an argument, as it came.
            NoTray::NoBus(why) => tr!("settings-tray-no-bus", why = why.as_str()),
        };
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
    ui.label(RichText::new(tr!("settings-show-terminal-here")).strong());
    let Some(rows) = survey else {
        ui.label(
            RichText::new(tr!("settings-looking-for-terminals")).color(Color32::from_gray(150)),
        );
        return;
    };
    if rows.is_empty() {
        ui.label(RichText::new(tr!("settings-no-terminal")).color(Color32::from_gray(150)));
        return;
    }
    egui::Grid::new("show-terminal-survey")
        .num_columns(3)
        .spacing([12.0, 4.0])
        .striped(true)
        .show(ui, |ui| {
            for row in rows {
                let (reach, color) = match row.reach {
                    Reach::Pane => (tr!("settings-reach-pane"), crate::theme::GREEN),
                    Reach::Window => (tr!("settings-reach-window"), Color32::from_gray(200)),
                    Reach::Nothing => (tr!("settings-reach-nothing"), crate::theme::AMBER),
                };
                ui.label(RichText::new(row.name.text()).monospace());
                ui.label(RichText::new(reach).color(color));
                ui.add(
                    egui::Label::new(
                        RichText::new(row.how.text())
                            .small()
                            .color(Color32::from_gray(170)),
                    )
                    .wrap(),
                );
                ui.end_row();
            }
        });
}
