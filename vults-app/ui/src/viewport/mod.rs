//! The app's own windows besides the root (each card, the main window over the island, the
//! island's menu and toast) are egui immediate viewports, and [`immediate`] is how they open;
//! the island, the cards, the toast and the menu are built by [`floating`], which keeps the
//! **focus contract** in one place:
//!
//! - **No window of ours takes the keyboard by appearing or changing.** On X11 (and XWayland
//!   under sway, weston, GNOME or KDE) each is an *override-redirect* window of type
//!   NOTIFICATION (a popup menu for the menu): no window manager manages it, so none gives it
//!   the keyboard when it maps, and none moves it (sway centres the floating windows it manages,
//!   weston cascades them). On Windows each is a popup (windows.rs: `WS_POPUP`, no caption,
//!   `WS_EX_TOOLWINDOW | WS_EX_NOACTIVATE | WS_EX_TOPMOST`) that neither its show nor a click
//!   activates. On macOS it is shown without being activated (`with_active(false)`:
//!   `orderFront` without key). On Wayland without XWayland there is one window and the cards
//!   live in it.
//! - **A person's click into a card, or a global key, gives it the keyboard**
//!   ([`take_keyboard`]): the app sets the X input focus on the card itself (x11.rs), activates
//!   the popup itself on Windows (windows.rs), and asks the platform for it elsewhere.
//! - **Where they go** comes from [`Screens`]: the monitor chosen ([`MonitorChoice`]), minus the
//!   panels the window manager reserves (`_NET_WORKAREA`); a monitor whose active window is
//!   fullscreen gets no card ([`Screens::covered`]).
//!
//! eframe 0.37 runs a frame outside winit's event loop when the root window reports itself
//! invisible or minimized (`check_redraw_requests` paints such a window directly, for Windows'
//! sake). A window cannot be created there, and `show_viewport_immediate` then panics with
//! "egui backend is implemented incorrectly - the user callback was never called". On X11 a
//! root window counts as invisible until its first `VisibilityNotify`, which a busy or stalled
//! window manager delays: a card that arrived in the first moments after start killed the app.
//! [`immediate`] turns that panic into "not this frame": the window opens on the next frame run
//! from the event loop, which comes as soon as the root is shown.

#[cfg(windows)]
mod windows;
#[cfg(target_os = "linux")]
mod x11;

use std::any::Any;
use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;
use std::time::Duration;

use egui::{ViewportBuilder, ViewportClass, ViewportId};

/// What egui says when the backend returned without drawing the viewport.
const NOT_DRAWN: &str = "the user callback was never called";

/// How soon a window that could not open is tried again.
const RETRY: Duration = Duration::from_millis(100);

thread_local! {
    /// Set while [`immediate`] expects egui's panic, so the panic hook stays silent for it.
    static EXPECTING: Cell<bool> = const { Cell::new(false) };
}

/// Shows `id`'s window as [`egui::Context::show_viewport_immediate`] does and returns what `ui`
/// returned, or `None` when the window could not be created this frame (see the module docs):
/// `ui` was not called, nothing else changed, and another frame comes soon to try again.
/// Any other panic goes on unwinding.
pub fn immediate<T>(
    ctx: &egui::Context,
    id: ViewportId,
    builder: ViewportBuilder,
    ui: impl FnMut(&mut egui::Ui, ViewportClass) -> T,
) -> Option<T> {
    quiet_hook();
    // A window opened from inside another's `ui` sets it again; each gives back what it found.
    let was = EXPECTING.with(|e| e.replace(true));
    // The callback owns no state of its own and is never half run: egui panics only when the
    // backend returned before calling it, with every lock and borrow released.
    let shown = panic::catch_unwind(AssertUnwindSafe(|| {
        ctx.show_viewport_immediate(id, builder, ui)
    }));
    EXPECTING.with(|e| e.set(was));
    match shown {
        Ok(out) => Some(out),
        Err(payload) if is_not_drawn(payload.as_ref()) => {
            tracing::debug!("window {id:?} not opened this frame (no event loop); trying again");
            ctx.request_repaint_after_for(RETRY, ViewportId::ROOT);
            None
        }
        Err(payload) => panic::resume_unwind(payload),
    }
}

/// The kinds of floating window the app opens, each opened the same way on every desktop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Floating {
    /// The pill at the top centre (the root window of the floating layout).
    Island,
    /// One permission card.
    Card,
    /// Show terminal's one-line result under the island.
    Toast,
    /// The island's right-click list of birds.
    Menu,
}

/// The builder of a floating window of `kind`: undecorated, always on top, out of the taskbar,
/// and never given the keyboard by appearing (see the module docs).
pub fn floating(
    kind: Floating,
    title: impl Into<String>,
    pos: egui::Pos2,
    size: egui::Vec2,
) -> ViewportBuilder {
    let title = title.into();
    // Made a popup when it is created (windows.rs): winit's styles are a titled window's.
    #[cfg(windows)]
    windows::register(&title);
    ViewportBuilder::default()
        .with_title(title)
        .with_app_id("vults")
        .with_inner_size(size)
        .with_position(pos)
        .with_decorations(false)
        .with_transparent(kind != Floating::Menu)
        .with_resizable(false)
        .with_always_on_top()
        .with_active(false)
        .with_taskbar(false)
        .with_override_redirect(true)
        .with_window_type(match kind {
            Floating::Menu => egui::X11WindowType::PopupMenu,
            Floating::Island | Floating::Card | Floating::Toast => {
                egui::X11WindowType::Notification
            }
        })
}

/// Gives the keyboard to the floating window `id` titled `title`: a person clicked into it, or
/// pressed a global key to read it. Never called for a window that merely appeared.
pub fn take_keyboard(ctx: &egui::Context, id: ViewportId, title: &str) {
    // A popup that a click does not activate is activated by the app itself (windows.rs);
    // winit's own focus would press a fake Alt key to be allowed to.
    #[cfg(windows)]
    {
        let _ = (ctx, id);
        windows::activate(title);
    }
    #[cfg(not(windows))]
    ctx.send_viewport_cmd_to(id, egui::ViewportCommand::Focus);
    #[cfg(target_os = "linux")]
    if let Some(desk) = desk(ctx) {
        desk.take_keyboard(title);
    }
    #[cfg(not(any(target_os = "linux", windows)))]
    let _ = title;
}

/// Gives the keyboard back from the floating windows: the person is sent to another window
/// (Show terminal), so no card keeps the keys a click into it gave it (under XWayland it holds a
/// grab while the pointer rests on it, and the pointer is still there after the click on Show
/// terminal). Nothing where the app holds no keyboard.
pub fn release_keyboard(ctx: &egui::Context) {
    #[cfg(target_os = "linux")]
    if let Some(desk) = desk(ctx) {
        desk.release_keyboard();
    }
    #[cfg(not(target_os = "linux"))]
    let _ = ctx;
}

/// The key events typed into the floating window titled `title` under its keyboard grab (x11.rs:
/// XWayland), to be read as its own; none elsewhere.
pub fn take_keys(ctx: &egui::Context, title: &str) -> Vec<egui::Event> {
    #[cfg(target_os = "linux")]
    return desk(ctx).map(|d| d.take_keys(title)).unwrap_or_default();
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (ctx, title);
        Vec::new()
    }
}

/// Says whether the pointer moves over the floating window titled `title` (see x11.rs: a
/// wlroots compositor gives the keyboard on a click only to a window that is not a
/// notification).
pub fn pointer_over(ctx: &egui::Context, title: &str, over: bool) {
    #[cfg(target_os = "linux")]
    if let Some(desk) = desk(ctx) {
        desk.pointer_over(title, over);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ctx, title, over);
}

/// Tells which floating windows are open now (kept above the others where the window manager
/// does not).
pub fn open_windows(ctx: &egui::Context, titles: Vec<String>) {
    #[cfg(target_os = "linux")]
    if let Some(desk) = desk(ctx) {
        desk.open(titles);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ctx, titles);
}

/// The latest reading of the monitors, the work area and the pointer (X11 only; `None`
/// elsewhere, where the window's own monitor size serves).
pub fn screens(ctx: &egui::Context) -> Option<Screens> {
    #[cfg(target_os = "linux")]
    return desk(ctx).map(x11::Desk::screens);
    #[cfg(not(target_os = "linux"))]
    {
        let _ = ctx;
        None
    }
}

/// Reads the screens again now, not at the next refresh: a window was just raised (X11 only).
pub fn refresh_screens(ctx: &egui::Context) {
    #[cfg(target_os = "linux")]
    if let Some(desk) = desk(ctx) {
        desk.refresh();
    }
    #[cfg(not(target_os = "linux"))]
    let _ = ctx;
}

/// The X side of the floating windows, started on first use (the floating layout only).
#[cfg(target_os = "linux")]
fn desk(ctx: &egui::Context) -> Option<&'static x11::Desk> {
    static DESK: std::sync::OnceLock<Option<x11::Desk>> = std::sync::OnceLock::new();
    DESK.get_or_init(|| {
        if std::env::var_os("DISPLAY").is_none_or(|d| d.is_empty()) {
            return None;
        }
        let ctx = ctx.clone();
        x11::Desk::start(move || ctx.request_repaint())
    })
    .as_ref()
}

/// One monitor, in the X server's pixels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Monitor {
    /// Its RandR name (`HDMI-1`, `HEADLESS-1`); empty without RandR.
    pub name: String,
    /// The primary monitor.
    pub primary: bool,
    /// x, y, width, height.
    pub rect: [i32; 4],
}

/// What the X server says about where windows can go.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Screens {
    /// Every monitor (RandR), or the one screen.
    pub monitors: Vec<Monitor>,
    /// The window manager's `_NET_WORKAREA` for the current desktop (x, y, width, height): the
    /// screen less its panels. `None` where it keeps none (sway, weston).
    pub work_area: Option<[i32; 4]>,
    /// Where the pointer is.
    pub pointer: Option<[i32; 2]>,
    /// The active window's rectangle, when it is fullscreen and not ours.
    pub fullscreen: Option<[i32; 4]>,
    /// The active window's rectangle with its frame, when it is not ours: after Show terminal,
    /// the terminal it raised, which its toast keeps clear of.
    pub active: Option<[i32; 4]>,
}

/// Which monitor the island and the cards go to (Settings → General).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum MonitorChoice {
    /// The monitor the pointer is on (when the first card of a batch comes up: cards on
    /// screen never move with the pointer).
    Pointer,
    /// The primary monitor.
    #[default]
    Primary,
    /// The monitor of this name; the primary one while it is not connected.
    Named(String),
}

impl MonitorChoice {
    /// The choice as `settings.json` keeps it (`window.monitor`).
    pub fn saved(&self) -> String {
        match self {
            MonitorChoice::Pointer => "pointer".into(),
            MonitorChoice::Primary => "primary".into(),
            MonitorChoice::Named(name) => name.clone(),
        }
    }

    /// The choice `settings.json` keeps as `saved`.
    pub fn from_saved(saved: &str) -> MonitorChoice {
        match saved {
            "pointer" => MonitorChoice::Pointer,
            "primary" | "" => MonitorChoice::Primary,
            name => MonitorChoice::Named(name.to_owned()),
        }
    }
}

impl Screens {
    /// The monitor `choice` names: where the pointer is, the primary, or the named one (the
    /// primary when that one has gone away, then the first).
    pub fn monitor(&self, choice: &MonitorChoice) -> Option<&Monitor> {
        let contains = |m: &&Monitor, [px, py]: [i32; 2]| {
            let [x, y, w, h] = m.rect;
            px >= x && px < x + w && py >= y && py < y + h
        };
        let chosen = match choice {
            MonitorChoice::Pointer => self
                .pointer
                .and_then(|p| self.monitors.iter().find(|m| contains(m, p))),
            MonitorChoice::Primary => None,
            MonitorChoice::Named(name) => self.monitors.iter().find(|m| &m.name == name),
        };
        chosen
            .or_else(|| self.monitors.iter().find(|m| m.primary))
            .or_else(|| self.monitors.first())
    }

    /// The rectangle the island and the cards may use on `choice`'s monitor, in points (`ppp`
    /// pixels per point): the monitor less the panels the work area leaves out.
    pub fn usable(&self, choice: &MonitorChoice, ppp: f32) -> Option<egui::Rect> {
        let [x, y, w, h] = self.monitor(choice)?.rect;
        let mut rect = egui::Rect::from_min_size(
            egui::pos2(x as f32, y as f32),
            egui::vec2(w as f32, h as f32),
        );
        if let Some([wx, wy, ww, wh]) = self.work_area {
            let work = egui::Rect::from_min_size(
                egui::pos2(wx as f32, wy as f32),
                egui::vec2(ww as f32, wh as f32),
            );
            // A work area that leaves nothing of this monitor is one that spans monitors
            // unevenly (or is stale): the monitor itself then.
            let both = rect.intersect(work);
            if both.width() > 100.0 && both.height() > 100.0 {
                rect = both;
            }
        }
        let ppp = if ppp > 0.0 { ppp } else { 1.0 };
        Some(egui::Rect::from_min_max(
            (rect.min.to_vec2() / ppp).to_pos2(),
            (rect.max.to_vec2() / ppp).to_pos2(),
        ))
    }

    /// The active window (not ours), in points (`ppp` pixels per point).
    pub fn active_window(&self, ppp: f32) -> Option<egui::Rect> {
        let [x, y, w, h] = self.active?;
        let ppp = if ppp > 0.0 { ppp } else { 1.0 };
        Some(egui::Rect::from_min_size(
            egui::pos2(x as f32 / ppp, y as f32 / ppp),
            egui::vec2(w as f32 / ppp, h as f32 / ppp),
        ))
    }

    /// Whether `choice`'s monitor shows a fullscreen window (a video call, a presentation),
    /// which no card may cover.
    pub fn covered(&self, choice: &MonitorChoice) -> bool {
        let (Some(m), Some([fx, fy, fw, fh])) = (self.monitor(choice), self.fullscreen) else {
            return false;
        };
        let [x, y, w, h] = m.rect;
        fx < x + w && x < fx + fw && fy < y + h && y < fy + fh
    }
}

fn is_not_drawn(payload: &(dyn Any + Send)) -> bool {
    let text = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str));
    text.is_some_and(|t| t.contains(NOT_DRAWN))
}

/// Wraps the panic hook once: egui's expected panic is neither logged nor printed; every other
/// panic reaches the previous hook (the log's) as before.
fn quiet_hook() {
    static WRAPPED: Once = Once::new();
    WRAPPED.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let expected = EXPECTING.with(Cell::get) && is_not_drawn(info.payload());
            if !expected {
                previous(info);
            }
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_monitors() -> Screens {
        Screens {
            monitors: vec![
                Monitor {
                    name: "LEFT".into(),
                    primary: false,
                    rect: [0, 0, 1280, 800],
                },
                Monitor {
                    name: "RIGHT".into(),
                    primary: true,
                    rect: [1280, 0, 1920, 1080],
                },
            ],
            work_area: None,
            pointer: Some([100, 100]),
            fullscreen: None,
            active: None,
        }
    }

    #[test]
    fn the_chosen_monitor_is_the_pointer_s_the_primary_or_the_named_one() {
        let s = two_monitors();
        assert_eq!(s.monitor(&MonitorChoice::Pointer).unwrap().name, "LEFT");
        assert_eq!(s.monitor(&MonitorChoice::Primary).unwrap().name, "RIGHT");
        assert_eq!(
            s.monitor(&MonitorChoice::Named("LEFT".into()))
                .unwrap()
                .name,
            "LEFT"
        );
        // A monitor that went away: the primary one.
        assert_eq!(
            s.monitor(&MonitorChoice::Named("HDMI-9".into()))
                .unwrap()
                .name,
            "RIGHT"
        );
        // The pointer off every monitor: the primary one.
        let off = Screens {
            pointer: Some([-5, -5]),
            ..two_monitors()
        };
        assert_eq!(off.monitor(&MonitorChoice::Pointer).unwrap().name, "RIGHT");
    }

    #[test]
    fn the_usable_area_leaves_out_panels_and_is_in_points() {
        let mut s = two_monitors();
        // A 32 px panel at the top of the left monitor.
        s.work_area = Some([0, 32, 3200, 1048]);
        let left = s.usable(&MonitorChoice::Pointer, 1.0).unwrap();
        assert_eq!(
            left,
            egui::Rect::from_min_max(egui::pos2(0.0, 32.0), egui::pos2(1280.0, 800.0))
        );
        let right = s.usable(&MonitorChoice::Primary, 2.0).unwrap();
        assert_eq!(
            right,
            egui::Rect::from_min_max(egui::pos2(640.0, 16.0), egui::pos2(1600.0, 540.0))
        );
        // A work area that misses the monitor is ignored.
        s.work_area = Some([5000, 0, 10, 10]);
        let left = s.usable(&MonitorChoice::Pointer, 1.0).unwrap();
        assert_eq!(left.min, egui::pos2(0.0, 0.0));
        assert_eq!(
            Screens::default().usable(&MonitorChoice::Pointer, 1.0),
            None
        );
    }

    #[test]
    fn a_fullscreen_window_covers_only_its_own_monitor() {
        let mut s = two_monitors();
        assert!(!s.covered(&MonitorChoice::Pointer));
        s.fullscreen = Some([1280, 0, 1920, 1080]);
        assert!(
            !s.covered(&MonitorChoice::Pointer),
            "the video is on the other monitor"
        );
        assert!(s.covered(&MonitorChoice::Primary));
    }

    #[test]
    fn floating_windows_never_ask_for_the_keyboard_and_are_not_managed() {
        for kind in [
            Floating::Island,
            Floating::Card,
            Floating::Toast,
            Floating::Menu,
        ] {
            let b = floating(kind, "t", egui::pos2(1.0, 2.0), egui::vec2(3.0, 4.0));
            assert_eq!(b.active, Some(false), "{kind:?}");
            assert_eq!(b.override_redirect, Some(true), "{kind:?}");
            assert_eq!(b.taskbar, Some(false), "{kind:?}");
            assert_eq!(b.position, Some(egui::pos2(1.0, 2.0)), "{kind:?}");
            let expected = if kind == Floating::Menu {
                egui::X11WindowType::PopupMenu
            } else {
                egui::X11WindowType::Notification
            };
            assert_eq!(b.window_type, Some(expected), "{kind:?}");
        }
    }

    #[test]
    fn egui_s_never_drawn_panic_is_recognised_and_no_other() {
        let text: Box<dyn Any + Send> = Box::new(
            "egui backend is implemented incorrectly - the user callback was never called",
        );
        assert!(is_not_drawn(text.as_ref()));
        let owned: Box<dyn Any + Send> = Box::new(format!("x: {NOT_DRAWN}"));
        assert!(is_not_drawn(owned.as_ref()));
        let other: Box<dyn Any + Send> = Box::new("index out of bounds");
        assert!(!is_not_drawn(other.as_ref()));
        let number: Box<dyn Any + Send> = Box::new(7_u32);
        assert!(!is_not_drawn(number.as_ref()));
    }

    #[test]
    fn without_a_backend_the_window_is_embedded_and_drawn() {
        // egui alone (no eframe) has no immediate renderer: the viewport is drawn inside the
        // current one, and the callback runs.
        let ctx = egui::Context::default();
        let mut got = None;
        let mut out = ctx.run_ui(egui::RawInput::default(), |ui| {
            got = immediate(
                ui.ctx(),
                ViewportId::from_hash_of("t"),
                ViewportBuilder::default(),
                |_, class| class,
            );
        });
        out.textures_delta.clear();
        assert!(
            got == Some(ViewportClass::EmbeddedWindow),
            "the callback ran embedded"
        );
    }

    #[test]
    fn another_panic_in_the_window_goes_on_unwinding() {
        let ctx = egui::Context::default();
        let caught = panic::catch_unwind(AssertUnwindSafe(|| {
            let _ = ctx.run_ui(egui::RawInput::default(), |ui| {
                immediate(
                    ui.ctx(),
                    ViewportId::from_hash_of("t"),
                    ViewportBuilder::default(),
                    |_, _| -> () { panic!("a bug of the window's own") },
                );
            });
        }));
        let payload = caught.expect_err("the window's own panic is not swallowed");
        assert_eq!(
            payload.downcast_ref::<&str>(),
            Some(&"a bug of the window's own")
        );
    }
}
