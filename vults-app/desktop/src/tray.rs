//! Desktop integration at the edge of the window: the tray icon, opening a file in the user's
//! editor, the quit signals. Behind [`DesktopSide`] so tests use [`NoDesktop`]; the real one
//! degrades to nothing, with one log line, where there is no D-Bus or no tray — never a panic.
//! Notifications are not here: they are `vults-notify`'s, through `vults_ui::attention`.

use std::path::Path;

/// What the tray's menu asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrayAction {
    /// Show the main window.
    Show,
    /// Pause cards, or go on with them.
    TogglePause,
    /// Do not disturb on or off (no notification, no sound, the island still).
    ToggleQuiet,
    /// Quit the app.
    Quit,
}

/// The desktop around the window: the tray, opening files. [`NoDesktop`] in tests; the real
/// one lives in the `native` edge.
pub trait DesktopSide {
    /// The tray actions since the last call.
    fn poll(&mut self) -> Vec<TrayAction>;
    /// Opens a file with the user's default application; must not block.
    fn open(&mut self, path: &Path);
    /// Why the tray shows nowhere, once known (no StatusNotifierItem host runs): one line for
    /// Settings → General. `None` while it shows, or is not known yet.
    fn tray_note(&self) -> Option<vults_notify::no_tray::NoTray> {
        None
    }
    /// Tells the tray whether cards are paused (its menu shows it).
    fn set_paused(&mut self, _paused: bool) {}
    /// Tells the tray whether do not disturb is on (its menu shows it).
    fn set_quiet(&mut self, _quiet: bool) {}
}

/// No desktop: tests, and platforms without one.
#[derive(Debug, Default)]
pub struct NoDesktop {
    /// What would have been opened, for tests.
    pub opened: Vec<std::path::PathBuf>,
}

impl DesktopSide for NoDesktop {
    fn poll(&mut self) -> Vec<TrayAction> {
        Vec::new()
    }
    fn open(&mut self, path: &Path) {
        self.opened.push(path.to_path_buf());
    }
}

/// SIGTERM or SIGINT (a logout, `kill`, Ctrl-C in the terminal that started the app) asks the
/// window to quit the way the tray's Quit does: the returned flag is set and `wake` called. A
/// second signal, or a window that has not quit 10 s later, ends the process at once. Unix only
/// (Windows ends a GUI program through its window).
pub fn quit_on_signal(
    wake: std::sync::Arc<dyn Fn() + Send + Sync>,
) -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        // A task on the app's runtime (vults_engine::rt).
        let runtime = vults_engine::rt::handle();
        // Installed here, before the window opens, so no early signal kills the app uncleanly.
        let streams = {
            let _guard = runtime.enter();
            (
                signal(SignalKind::terminate()),
                signal(SignalKind::interrupt()),
            )
        };
        let (Ok(mut term), Ok(mut int)) = streams else {
            tracing::warn!("cannot listen for SIGTERM/SIGINT");
            return flag;
        };
        let set = flag.clone();
        runtime.spawn(async move {
            let name = tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = int.recv() => "SIGINT",
            };
            tracing::info!("{name}: quitting");
            set.store(true, std::sync::atomic::Ordering::SeqCst);
            wake();
            let _ = tokio::time::timeout(std::time::Duration::from_secs(10), async {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = int.recv() => {}
                }
            })
            .await;
            tracing::warn!("{name}: the window did not quit; ending the process");
            std::process::exit(1);
        });
    }
    #[cfg(not(unix))]
    let _ = wake;
    flag
}

/// The real desktop: on Linux, a StatusNotifierItem tray (ksni). Not a worker
/// (`vults_engine::worker`): it has no loop of its own to run. The tray's menu items are set
/// from the window's calls and are not `Send` (they cannot move to a worker's thread); its
/// clicks come through the menu's handler, and its one piece of I/O, asking whether a tray host
/// runs, is a task on the app's runtime.
pub struct SystemDesktop {
    /// Set when the process is asked to stop (SIGTERM, SIGINT): read as the tray's Quit.
    quit: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    #[cfg(target_os = "linux")]
    tray: Option<Tray>,
    /// What the session bus said of tray hosts (asked once, by a task on the app's runtime).
    #[cfg(target_os = "linux")]
    tray_note: std::sync::Arc<std::sync::Mutex<Option<vults_notify::no_tray::NoTray>>>,
}

impl SystemDesktop {
    /// Quits as the tray's Quit does (cards withdrawn, audit written, socket removed) when
    /// `quit` is set: by [`quit_on_signal`].
    pub fn with_quit_flag(mut self, quit: std::sync::Arc<std::sync::atomic::AtomicBool>) -> Self {
        self.quit = Some(quit);
        self
    }

    /// `wake` is called from the tray's thread when the menu is used (the window passes
    /// `ctx.request_repaint`, so an idle window notices the click).
    pub fn new(wake: std::sync::Arc<dyn Fn() + Send + Sync>) -> SystemDesktop {
        #[cfg(not(target_os = "linux"))]
        let _ = wake;
        #[cfg(target_os = "linux")]
        let tray_note = {
            let note = std::sync::Arc::new(std::sync::Mutex::new(None));
            let (shared, wake) = (note.clone(), wake.clone());
            // A task on the app's runtime (one D-Bus round trip), not a thread of its own.
            vults_engine::rt::handle().spawn(async move {
                use vults_notify::tray_host::{self, NoTray, TrayHost};
                let note = match tray_host::ask(None).await {
                    TrayHost::Present => return,
                    TrayHost::Missing => NoTray::Missing,
                    TrayHost::NoBus(why) => NoTray::NoBus(why),
                };
                tracing::warn!("{}", note.log_line());
                if let Ok(mut n) = shared.lock() {
                    *n = Some(note);
                }
                wake();
            });
            note
        };
        SystemDesktop {
            quit: None,
            #[cfg(target_os = "linux")]
            tray_note,
            #[cfg(target_os = "linux")]
            tray: Tray::new(wake)
                .map_err(|e| {
                    tracing::warn!("no tray icon ({e}); the island and the window still work")
                })
                .ok(),
        }
    }
}

impl DesktopSide for SystemDesktop {
    #[cfg(target_os = "linux")]
    fn tray_note(&self) -> Option<vults_notify::no_tray::NoTray> {
        self.tray_note.lock().ok().and_then(|n| n.clone())
    }

    fn poll(&mut self) -> Vec<TrayAction> {
        #[allow(unused_mut)] // only Linux has a tray to read
        let mut actions = Vec::new();
        #[cfg(target_os = "linux")]
        if let Some(tray) = &self.tray {
            actions = tray.poll();
        }
        if self
            .quit
            .as_ref()
            .is_some_and(|q| q.swap(false, std::sync::atomic::Ordering::SeqCst))
        {
            actions.push(TrayAction::Quit);
        }
        actions
    }

    fn open(&mut self, path: &Path) {
        let opener = if cfg!(target_os = "macos") {
            "open"
        } else if cfg!(windows) {
            "explorer"
        } else {
            "xdg-open"
        };
        // spawn() returns at once; the child is reaped by a thread so it leaves no zombie.
        match std::process::Command::new(opener).arg(path).spawn() {
            Ok(mut child) => {
                let _ = std::thread::Builder::new().spawn(move || child.wait());
            }
            Err(e) => tracing::warn!("cannot open {} with {opener}: {e}", path.display()),
        }
    }

    fn set_paused(&mut self, paused: bool) {
        #[cfg(target_os = "linux")]
        if let Some(tray) = &self.tray {
            tray.pause.set_checked(paused);
        }
        #[cfg(not(target_os = "linux"))]
        let _ = paused;
    }

    fn set_quiet(&mut self, quiet: bool) {
        #[cfg(target_os = "linux")]
        if let Some(tray) = &self.tray {
            tray.quiet.set_checked(quiet);
        }
        #[cfg(not(target_os = "linux"))]
        let _ = quiet;
    }
}

#[cfg(target_os = "linux")]
struct Tray {
    _icon: tray_icon::TrayIcon,
    show: tray_icon::menu::MenuItem,
    pause: tray_icon::menu::CheckMenuItem,
    quiet: tray_icon::menu::CheckMenuItem,
    quit: tray_icon::menu::MenuItem,
    /// The language the menu is worded in (assets/i18n/<tag>/tray.ftl): reworded on the next
    /// poll after Settings chooses another.
    lang: std::sync::Mutex<&'static str>,
}

#[cfg(target_os = "linux")]
impl Tray {
    fn new(wake: std::sync::Arc<dyn Fn() + Send + Sync>) -> Result<Tray, String> {
        use tray_icon::menu::{CheckMenuItem, Menu, MenuEvent, MenuItem};
        let menu = Menu::new();
        use vults_i18n::tr;
        let show = MenuItem::new(tr!("tray-show"), true, None);
        let pause = CheckMenuItem::new(tr!("tray-pause-cards"), true, false, None);
        let quiet = CheckMenuItem::new(tr!("tray-do-not-disturb"), true, false, None);
        let quit = MenuItem::new(tr!("tray-quit"), true, None);
        for item in [
            &show as &dyn tray_icon::menu::IsMenuItem,
            &pause,
            &quiet,
            &quit,
        ] {
            menu.append(item).map_err(|e| e.to_string())?;
        }
        let icon =
            tray_icon::Icon::from_rgba(tray_icon_rgba(), 32, 32).map_err(|e| e.to_string())?;
        let built = tray_icon::TrayIconBuilder::new()
            .with_tooltip("Vults")
            .with_title("Vults")
            .with_icon(icon)
            .with_menu(Box::new(menu))
            .build()
            .map_err(|e| e.to_string())?;
        MenuEvent::set_event_handler(Some(move |event: MenuEvent| {
            MENU_EVENTS.with_sender(event);
            wake();
        }));
        Ok(Tray {
            _icon: built,
            show,
            pause,
            quiet,
            quit,
            lang: std::sync::Mutex::new(vults_i18n::active()),
        })
    }

    fn poll(&self) -> Vec<TrayAction> {
        if let Ok(mut lang) = self.lang.lock()
            && *lang != vults_i18n::active()
        {
            use vults_i18n::tr;
            *lang = vults_i18n::active();
            self.show.set_text(tr!("tray-show"));
            self.pause.set_text(tr!("tray-pause-cards"));
            self.quiet.set_text(tr!("tray-do-not-disturb"));
            self.quit.set_text(tr!("tray-quit"));
        }
        MENU_EVENTS
            .drain()
            .into_iter()
            .filter_map(|e| {
                if e.id == *self.show.id() {
                    Some(TrayAction::Show)
                } else if e.id == *self.pause.id() {
                    Some(TrayAction::TogglePause)
                } else if e.id == *self.quiet.id() {
                    Some(TrayAction::ToggleQuiet)
                } else if e.id == *self.quit.id() {
                    Some(TrayAction::Quit)
                } else {
                    None
                }
            })
            .collect()
    }
}

/// Menu events, handed from the tray's thread to the window's.
#[cfg(target_os = "linux")]
struct MenuQueue(std::sync::Mutex<Vec<tray_icon::menu::MenuEvent>>);

#[cfg(target_os = "linux")]
static MENU_EVENTS: MenuQueue = MenuQueue(std::sync::Mutex::new(Vec::new()));

#[cfg(target_os = "linux")]
impl MenuQueue {
    fn with_sender(&self, event: tray_icon::menu::MenuEvent) {
        if let Ok(mut q) = self.0.lock() {
            q.push(event);
        }
    }
    fn drain(&self) -> Vec<tray_icon::menu::MenuEvent> {
        self.0
            .lock()
            .map(|mut q| std::mem::take(&mut *q))
            .unwrap_or_default()
    }
}

#[cfg(target_os = "linux")]
/// The tray icon: an amber bird on a dark disc, drawn in code (no image decoding at start).
fn tray_icon_rgba() -> Vec<u8> {
    let mut rgba = vec![0u8; 32 * 32 * 4];
    for y in 0..32 {
        for x in 0..32 {
            let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
            let disc = (fx - 16.0).powi(2) + (fy - 16.0).powi(2) <= 15.5f32.powi(2);
            let body = (fx - 14.0).powi(2) + (fy - 17.0).powi(2) <= 8.0f32.powi(2);
            let beak = fx > 21.0 && fx < 27.0 && (fy - 15.0).abs() < (27.0 - fx) * 0.5;
            let px = if body || beak {
                [0xF5, 0xA5, 0x24, 0xFF]
            } else if disc {
                [0x1E, 0x20, 0x25, 0xFF]
            } else {
                [0, 0, 0, 0]
            };
            let i = (y * 32 + x) * 4;
            rgba[i..i + 4].copy_from_slice(&px);
        }
    }
    rgba
}
