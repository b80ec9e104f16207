//! The composition root: the one place the app is put together. It builds the app's one tokio
//! runtime and installs it (`vults_engine::rt`), starts the engine, and starts each subsystem
//! with what it needs — the chat, the SSH hosts' links, the installer, the phone link, the
//! notifier, Show terminal, the tray — each reading the engine's events from a subscription of
//! its own (no subsystem relays another's). The window (`vults_ui`) is handed the ports and
//! draws; `vults-app --headless` (`headless.rs`) is handed the engine and reads its own
//! subscription for the console.
//!
//! Shutdown order lives here ([`stop`]): the phone link first, so its last summary reaches the
//! engine as commands carried out and audited before the engine's Shutdown; then the engine;
//! then the runtime. The window's tray Quit keeps the same order (`vults_ui::app`).

mod installer;

use std::sync::Arc;
use std::time::SystemTime;
use vults_core::paths::Paths;
use vults_engine::rt::Runtime;
use vults_engine::{Engine, EngineHandle, EngineOptions};
use vults_phone::BackgroundLink;
use vults_ui::app::VultsWindow;
use vults_ui::native::{self, WindowWake};
use vults_ui::ports::EngineLink;

/// Builds the app's one runtime and makes it the one every subsystem runs on. Called once,
/// before anything starts; the caller keeps it for as long as the app runs.
pub fn runtime() -> std::io::Result<Runtime> {
    let runtime = vults_engine::rt::build()?;
    if !vults_engine::rt::install(&runtime) {
        tracing::warn!("a runtime was in use before the app's own was installed");
    }
    Ok(runtime)
}

/// The phone link, reading the engine's events itself and answering through its commands.
pub fn phone_link(
    paths: Paths,
    engine: &EngineHandle,
    wake: Arc<dyn Fn() + Send + Sync>,
) -> BackgroundLink {
    let commander = engine.commander();
    let link = BackgroundLink::spawn(
        paths,
        Arc::new(move |command| {
            commander.send(command);
        }),
        wake,
    );
    link.follow(&engine.event_bus());
    link
}

/// Stops in the one order: the phone link (its last words reach the engine first), the engine
/// (cards withdrawn, the audit written), then the runtime.
pub fn stop(phone: Option<BackgroundLink>, mut engine: EngineHandle, runtime: Runtime) {
    drop(phone);
    engine.stop();
    drop(engine);
    // Tasks still sleeping (an ended session's timer) are not waited for.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
}

/// What `vults-app --headless` runs: the runtime, the engine, the SSH hosts' links.
pub struct Headless {
    /// The engine: the console subscribes to it, sends its answers through it.
    pub engine: EngineHandle,
    /// The paired phone, when one is linked (`None` until the headless phone is composed).
    pub phone: Option<BackgroundLink>,
    links: Option<vults_remote::link::Links>,
    runtime: Runtime,
}

impl Headless {
    /// Starts the runtime, the engine (stopping on SIGINT/SIGTERM) and the hosts' links.
    pub fn start(paths: Paths, options: EngineOptions) -> Result<Headless, String> {
        let runtime = runtime().map_err(|e| format!("cannot start: {e}"))?;
        let mut engine = Engine::start_with(paths.clone(), Arc::new(|| {}), options)
            .map_err(|e| format!("cannot start: {e}"))?;
        // Every reader subscribes.
        engine.close_events();
        // Agents on SSH hosts reach this engine too, through their links (vults-remote).
        let links = Some(vults_remote::link::Links::start(
            &paths,
            engine.host_sockets(),
        ));
        Ok(Headless {
            engine,
            phone: None,
            links,
            runtime,
        })
    }

    /// Waits for the engine to stop (a signal, the console's quit), then stops the rest in order.
    pub fn wait(mut self) {
        self.engine.join();
        drop(self.links.take());
        stop(self.phone, self.engine, self.runtime);
    }
}

/// Starts the engine and every subsystem, runs the window until it is closed (tray → Quit, or
/// a signal), then stops them in order. `instance` is the one-instance channel this process
/// claimed; `log_file` is shown in Settings → General.
pub fn window(
    paths: Paths,
    instance: Option<vults_desktop::instance::InstanceListener>,
    log_file: Option<std::path::PathBuf>,
) -> Result<(), String> {
    let runtime = runtime().map_err(|e| format!("cannot start: {e}"))?;
    let wake_cell = WindowWake::default();
    let wake = wake_cell.waker();
    // Phone keys live in the OS keyring where one runs (else a 0600 file, and Settings says so).
    if let Err(e) = vults_phone::secrets::use_platform_store() {
        tracing::warn!("no keyring ({e}); the phone link keeps its key in a private file");
    }
    let quit = vults_desktop::tray::quit_on_signal(wake.clone());
    // Where the island and the cards go: read before the window opens.
    let window_prefs = vults_installer::window_prefs::read(&paths);
    let mut engine =
        Engine::start(paths.clone(), Arc::new(|| {})).map_err(|e| format!("cannot start: {e}"))?;
    engine.close_events();
    // The window's own subscription: it wakes the window after each batch.
    let link = EngineLink {
        commander: engine.commander(),
        events: engine.subscribe_waking(wake.clone()),
    };
    // The chat (Zeca); its permission questions go through the engine.
    let zeca = vults_zeca::ZecaHandle::start(
        &paths,
        vults_zeca::ZecaOptions::default(),
        engine.commander(),
        wake.clone(),
    )
    .map_err(|e| format!("cannot start the chat: {e}"))?;
    // Agents on SSH hosts: one link per host while the app runs (vults_remote).
    let hosts = vults_remote::background::BackgroundHosts::start(
        paths.clone(),
        engine.host_sockets(),
        wake.clone(),
    );
    let layout = native::choose_layout(|k| std::env::var(k).ok());
    let installer = installer::BackgroundInstaller::start(paths.clone(), wake.clone());
    let phone = phone_link(paths.clone(), &engine, wake.clone());
    let desktop = vults_desktop::tray::SystemDesktop::new(wake.clone()).with_quit_flag(quit);
    let mut window = VultsWindow::new(
        Box::new(link),
        Box::new(desktop),
        layout,
        Box::new(SystemTime::now),
    )
    .with_installer(Box::new(installer))
    .with_chat(Box::new(zeca))
    // Show terminal runs off the window's thread (it reads the process table, runs tmux and
    // kitty @, talks to the X server).
    .with_terminal(Box::new(
        vults_ui::show_terminal::BackgroundTerminal::start(wake.clone()),
    ));
    if let Some(instance) = instance {
        window = window.with_show_requests(instance.serve(wake.clone()));
    }
    window.set_log_file(log_file);
    window.set_window_prefs(&window_prefs, Some(native::layout_note(layout)));
    // The window holds the phone link for Settings → Phone; the link reads the engine itself.
    window = window.with_phone(Box::new(phone));
    window = window.with_hosts(Box::new(hosts));
    // Notifications, quiet hours and global keys; the notifier reads the engine itself.
    let mut attention = vults_ui::attention::DesktopAttention::start(
        &paths,
        vults_ui::attention::AttentionPlaces::default(),
        wake.clone(),
    );
    attention.follow(&engine.event_bus());
    window = window.with_attention(Box::new(attention));
    window.log_card_frames = std::env::var_os("VULTS_UI_STATS").is_some();
    let opened = native::open(wake_cell, layout, window).map_err(|e| e.to_string());
    // The window is gone (with it the phone link, stopped first on Quit): the engine next.
    stop(None, engine, runtime);
    opened
}
