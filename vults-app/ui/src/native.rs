//! The edge: opens the window with eframe (glow renderer) around a running engine.
//!
//! **Wayland.** Wayland lets no client place its windows or keep them above others, so the
//! island and the cards could not float at the top of the screen. On a Wayland session with
//! XWayland (GNOME, KDE, Sway all start it) the app runs through XWayland, where it can; with
//! no XWayland (`DISPLAY` unset) it opens one ordinary window with the island as a strip and
//! the cards inside ([`Layout::Embedded`]). `VULTS_LAYOUT=embedded` chooses that anywhere.

use super::app::{Layout, VultsWindow};
use super::desktop::SystemDesktop;
use super::island;
use super::ports::{InstallerNews, InstallerSide};
use super::state::AgentInstall;
use std::sync::{Arc, OnceLock};
use std::time::SystemTime;
use vults_core::paths::Paths;
use vults_engine::Engine;
use vults_installer::AgentReport;

struct NativeApp(VultsWindow);

impl eframe::App for NativeApp {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        self.0.logic(ctx);
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.0.ui(ui);
    }

    fn clear_color(&self, visuals: &egui::Visuals) -> [f32; 4] {
        match self.0.layout {
            // One clear colour serves every viewport: transparent, and each panel paints its own.
            Layout::Floating => [0.0; 4],
            Layout::Embedded => visuals.panel_fill.to_normalized_gamma_f32(),
        }
    }
}

/// Which layout this desktop allows (see the module docs).
pub fn choose_layout(env: impl Fn(&str) -> Option<String>) -> Layout {
    let set = |k: &str| env(k).is_some_and(|v| !v.is_empty());
    if env("VULTS_LAYOUT").as_deref() == Some("embedded") {
        return Layout::Embedded;
    }
    if cfg!(target_os = "linux")
        && (set("WAYLAND_DISPLAY") || set("WAYLAND_SOCKET"))
        && !set("DISPLAY")
    {
        return Layout::Embedded;
    }
    Layout::Floating
}

/// What Settings → General says of the layout this desktop gets.
fn layout_note(layout: Layout) -> String {
    match layout {
        Layout::Floating => "The island and each card float above your windows and never take \
             the keyboard when they appear; click into a card to use its keys."
            .into(),
        Layout::Embedded if std::env::var("VULTS_LAYOUT").as_deref() == Ok("embedded") => {
            "One window (VULTS_LAYOUT=embedded): the island is a strip at its top and the cards \
             float inside it."
                .into()
        }
        Layout::Embedded => "One window: this Wayland session has no XWayland, where windows \
             cannot float above others. The island is a strip at the top of the window, the cards \
             float inside it, and the window asks the desktop for attention when a card arrives."
            .into(),
    }
}

/// Starts the engine and runs the window until it is closed (tray → Quit). `instance` is the
/// one-instance channel this process claimed (a second start asks it for the window);
/// `log_file` is shown in Settings → General.
pub fn run(
    paths: Paths,
    instance: Option<crate::instance::InstanceListener>,
    log_file: Option<std::path::PathBuf>,
) -> Result<(), String> {
    let ctx_cell: Arc<OnceLock<egui::Context>> = Arc::new(OnceLock::new());
    let wake: Arc<dyn Fn() + Send + Sync> = {
        let cell = ctx_cell.clone();
        Arc::new(move || {
            if let Some(ctx) = cell.get() {
                ctx.request_repaint();
            }
        })
    };
    let installer_paths = paths.clone();
    // Phone keys live in the OS keyring where one runs (else a 0600 file, and Settings says so).
    if let Err(e) = vults_phone::secrets::use_platform_store() {
        tracing::warn!("no keyring ({e}); the phone link keeps its key in a private file");
    }
    let phone_paths = paths.clone();
    let hosts_paths = paths.clone();
    let quit = super::desktop::quit_on_signal(wake.clone());
    let zeca_paths = paths.clone();
    let attention_paths = paths.clone();
    // Where the island and the cards go: read before the window opens.
    let window_prefs = vults_installer::window_prefs::read(&paths);
    let engine = Engine::start(paths, wake.clone()).map_err(|e| format!("cannot start: {e}"))?;
    // The chat (Zeca) on its own thread; its permission questions go through the engine.
    let zeca = vults_zeca::ZecaHandle::start(
        &zeca_paths,
        vults_zeca::ZecaOptions::default(),
        engine.commander(),
        wake.clone(),
    )
    .map_err(|e| format!("cannot start the chat: {e}"))?;
    // Agents on SSH hosts: one link per host while the app runs (vults_remote).
    let hosts = vults_remote::background::BackgroundHosts::start(
        hosts_paths,
        engine.host_sockets(),
        wake.clone(),
    );
    let layout = choose_layout(|k| std::env::var(k).ok());

    let viewport = match layout {
        // Moved to the top centre of the chosen monitor once the window knows it (app.rs).
        Layout::Floating => crate::viewport::floating(
            crate::viewport::Floating::Island,
            super::app::ISLAND_TITLE,
            egui::pos2(400.0, 6.0),
            island::SIZE,
        ),
        Layout::Embedded => egui::ViewportBuilder::default()
            .with_title("Vults")
            .with_app_id("vults")
            .with_inner_size([900.0, 680.0]),
    };
    #[allow(unused_mut)] // only Linux sets the event loop hook
    let mut options = eframe::NativeOptions {
        renderer: eframe::Renderer::Glow,
        viewport,
        ..Default::default()
    };
    #[cfg(target_os = "linux")]
    if layout == Layout::Floating {
        options.event_loop_builder = Some(Box::new(|builder| {
            use winit::platform::x11::EventLoopBuilderExtX11 as _;
            builder.with_x11();
        }));
    }
    eframe::run_native(
        "Vults",
        options,
        Box::new(move |cc| {
            let _ = ctx_cell.set(cc.egui_ctx.clone());
            // The cards, the pill and the birds are drawn for a dark theme.
            cc.egui_ctx.set_theme(egui::Theme::Dark);
            // Events may have come before the context existed: look at them now.
            cc.egui_ctx.request_repaint();
            let installer = BackgroundInstaller::start(installer_paths, wake.clone());
            let commander = engine.commander();
            // The phone link makes itself (keyring, devices) on its own thread.
            let phone = vults_phone::BackgroundLink::spawn(
                phone_paths,
                Arc::new(move |command| {
                    commander.send(command);
                }),
                wake.clone(),
            );
            let desktop = SystemDesktop::new(wake.clone()).with_quit_flag(quit);
            let mut window = VultsWindow::new(
                Box::new(engine),
                Box::new(desktop),
                layout,
                Box::new(SystemTime::now),
            )
            .with_installer(Box::new(installer))
            .with_chat(Box::new(zeca))
            // Show terminal runs on a thread of its own (it reads the process table, runs
            // tmux and kitty @, talks to the X server).
            .with_terminal(Box::new(super::terminal::BackgroundTerminal::start(
                wake.clone(),
            )));
            if let Some(instance) = instance {
                window = window.with_show_requests(instance.serve(wake.clone()));
            }
            window.set_log_file(log_file);
            window.set_window_prefs(&window_prefs, Some(layout_note(layout)));
            window = window.with_phone(Box::new(phone));
            window = window.with_hosts(Box::new(hosts));
            // Notifications, quiet hours and global keys on threads of their own.
            window = window.with_attention(Box::new(crate::attention::DesktopAttention::start(
                &attention_paths,
                crate::attention::AttentionPlaces::default(),
                wake.clone(),
            )));
            window.log_card_frames = std::env::var_os("VULTS_UI_STATS").is_some();
            Ok(Box::new(NativeApp(window)))
        }),
    )
    .map_err(|e| {
        format!("the window cannot open ({e}); `vults-app --headless` serves agents without one")
    })
}

/// Runs the installer on threads of its own: the app-start install, then repairs on request;
/// after the app-start install, the hooks' watcher (`vults_installer::watch`, on a thread of
/// its own until the app has one runtime to spawn it on), whose events come as news.
struct BackgroundInstaller {
    paths: Paths,
    wake: Arc<dyn Fn() + Send + Sync>,
    news_tx: std::sync::mpsc::Sender<InstallerNews>,
    news_rx: std::sync::mpsc::Receiver<InstallerNews>,
    _watch: Arc<std::sync::Mutex<Option<vults_installer::watch::WatchHandle>>>,
}

impl BackgroundInstaller {
    fn start(paths: Paths, wake: Arc<dyn Fn() + Send + Sync>) -> BackgroundInstaller {
        let (news_tx, news_rx) = std::sync::mpsc::channel();
        let watch = Arc::new(std::sync::Mutex::new(None));
        let me = BackgroundInstaller {
            paths,
            wake: wake.clone(),
            news_tx: news_tx.clone(),
            news_rx,
            _watch: watch.clone(),
        };
        me.spawn(move |paths| {
            let start = vults_installer::on_app_start(paths);
            // Watched from now on: what the start installed.
            let sink_paths = paths.clone();
            let sink: vults_installer::watch::Sink = Arc::new(move |e| {
                let (paths, tx, wake) = (sink_paths.clone(), news_tx.clone(), wake.clone());
                // The states read on a thread of their own, never on the watcher's.
                let _ = std::thread::Builder::new()
                    .name("vults-installer".into())
                    .spawn(move || {
                        let _ = tx.send(InstallerNews {
                            installs: installs_of(&vults_installer::doctor(&paths)),
                            watched: Some(e),
                            ..Default::default()
                        });
                        wake();
                    });
            });
            match vults_installer::watch::start_thread(paths, sink) {
                Ok(h) => {
                    if let Ok(mut w) = watch.lock() {
                        *w = Some(h);
                    }
                }
                Err(e) => tracing::warn!("the hooks are not watched: {e}"),
            }
            for r in &start.reports {
                if r.state != vults_installer::AgentState::NotFound {
                    tracing::info!("app start: {} {}", r.agent.display_name(), r.state);
                }
            }
            // The welcome replaces the first-run notice, once; the marker is written here,
            // off the window's thread.
            let welcome = (!vults_installer::welcome::seen(paths)).then(|| {
                if let Err(e) = vults_installer::welcome::mark_seen(paths) {
                    tracing::warn!("cannot record that the welcome was shown: {e}");
                }
                vults_installer::welcome::build(paths, &start.reports)
            });
            InstallerNews {
                watch_settings: Some(vults_installer::watch::WatchSettings::load(paths)),
                message: if welcome.is_some() {
                    None
                } else {
                    start.message()
                },
                installs: installs_of(&start.reports),
                welcome,
                start_at_login: Some(vults_installer::autostart::is_enabled(paths)),
                watched: None,
            }
        });
        me
    }

    fn spawn(&self, run: impl FnOnce(&Paths) -> InstallerNews + Send + 'static) {
        let (paths, tx, wake) = (self.paths.clone(), self.news_tx.clone(), self.wake.clone());
        let spawned = std::thread::Builder::new()
            .name("vults-installer".into())
            .spawn(move || {
                let _ = tx.send(run(&paths));
                wake();
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot run the installer: {e}");
        }
    }
}

impl InstallerSide for BackgroundInstaller {
    fn set_start_at_login(&mut self, enabled: bool) {
        self.spawn(move |paths| {
            let exe = std::env::current_exe().unwrap_or_else(|_| "vults-app".into());
            let message = match vults_installer::autostart::set(paths, enabled, &exe) {
                Ok(entry) if enabled => format!("Vults starts when you log in ({entry})."),
                Ok(entry) => format!("Vults no longer starts at login (removed {entry})."),
                Err(e) => format!("Could not change start at login: {e}"),
            };
            tracing::info!("{message}");
            InstallerNews {
                installs: installs_of(&vults_installer::doctor(paths)),
                message: Some(message),
                start_at_login: Some(vults_installer::autostart::is_enabled(paths)),
                ..Default::default()
            }
        });
    }

    fn save_window_prefs(&mut self, prefs: vults_installer::window_prefs::WindowPrefs) {
        // A file write with no news for the window: its own thread, the error in the log.
        let paths = self.paths.clone();
        let spawned = std::thread::Builder::new()
            .name("vults-window-prefs".into())
            .spawn(move || {
                if let Err(e) = vults_installer::window_prefs::save(&paths, &prefs) {
                    tracing::warn!("cannot save where the island and the cards go: {e}");
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot save where the island and the cards go: {e}");
        }
    }

    fn show_welcome(&mut self) {
        self.spawn(|paths| {
            let reports = vults_installer::doctor(paths);
            InstallerNews {
                installs: installs_of(&reports),
                welcome: Some(vults_installer::welcome::build(paths, &reports)),
                ..Default::default()
            }
        });
    }

    fn poll(&mut self) -> Option<InstallerNews> {
        // One at a time, in order: the watcher's news each say something.
        self.news_rx.try_recv().ok()
    }

    fn set_watch(&mut self, settings: vults_installer::watch::WatchSettings) {
        self.spawn(move |paths| {
            let message = settings
                .save(paths)
                .err()
                .map(|e| format!("Could not save the hooks' settings: {e}"));
            InstallerNews {
                installs: installs_of(&vults_installer::doctor(paths)),
                message,
                watch_settings: Some(vults_installer::watch::WatchSettings::load(paths)),
                ..Default::default()
            }
        });
    }

    fn repair(&mut self, agent: &str) {
        let Some(agent) = vults_installer::agent_named(agent) else {
            return;
        };
        self.spawn(move |paths| {
            let repaired = vults_installer::repair(paths, agent);
            let message = repaired
                .iter()
                .flat_map(|r| r.notes.iter())
                .cloned()
                .collect::<Vec<_>>()
                .join(" ");
            InstallerNews {
                installs: installs_of(&vults_installer::doctor(paths)),
                message: (!message.is_empty()).then_some(message),
                ..Default::default()
            }
        });
    }

    fn set_enabled(&mut self, agent: &str, enabled: bool) {
        let Some(agent) = vults_installer::agent_named(agent) else {
            return;
        };
        self.spawn(move |paths| {
            let mut notes = Vec::new();
            match vults_installer::state::set_enabled(paths, agent.name(), enabled) {
                // install_all takes Vults out of a turned-off agent and puts it back when on.
                Ok(()) => {
                    let changed = vults_installer::repair(paths, agent);
                    notes.extend(changed.iter().flat_map(|r| r.notes.iter()).cloned());
                }
                Err(e) => notes.push(format!(
                    "Could not save that {} is turned {}: {e}",
                    agent.display_name(),
                    if enabled { "on" } else { "off" }
                )),
            }
            InstallerNews {
                installs: installs_of(&vults_installer::doctor(paths)),
                message: (!notes.is_empty()).then(|| notes.join(" ")),
                ..Default::default()
            }
        });
    }

    fn remove_leftovers(&mut self, agent: &str) {
        let Some(agent) = vults_core::agents::Agent::parse(agent) else {
            return;
        };
        self.spawn(move |paths| {
            let removed = vults_installer::remove_leftovers(paths, agent);
            InstallerNews {
                installs: installs_of(&vults_installer::doctor(paths)),
                message: Some(if removed.notes.is_empty() {
                    format!("Removed Vults' old {} hooks.", agent.display_name())
                } else {
                    removed.notes.join(" ")
                }),
                ..Default::default()
            }
        });
    }
}

fn installs_of(reports: &[AgentReport]) -> Vec<AgentInstall> {
    reports
        .iter()
        .map(|r| {
            let full = r.state.to_string();
            let mut detail: Vec<String> = r.notes.clone();
            if full != r.state.label() {
                detail.insert(0, full);
            }
            AgentInstall {
                key: r.agent.name().to_string(),
                name: r.agent.display_name().to_string(),
                state: r.state.label().to_string(),
                detail: (!detail.is_empty()).then(|| detail.join(" ")),
                repairable: r.state.needs_repair(),
                retired: r.agent.retired(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn wayland_without_xwayland_embeds_the_cards_in_one_window() {
        let layout = choose_layout(env(&[("WAYLAND_DISPLAY", "wayland-0")]));
        let expected = if cfg!(target_os = "linux") {
            Layout::Embedded
        } else {
            Layout::Floating
        };
        assert_eq!(layout, expected);
        assert_eq!(
            choose_layout(env(&[("WAYLAND_DISPLAY", "wayland-0"), ("DISPLAY", ":0")])),
            Layout::Floating
        );
        assert_eq!(
            choose_layout(env(&[("DISPLAY", ":0"), ("VULTS_LAYOUT", "embedded")])),
            Layout::Embedded
        );
    }
}
