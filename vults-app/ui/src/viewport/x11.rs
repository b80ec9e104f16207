//! The X server under the floating windows (an X11 desktop, or XWayland under a Wayland one):
//! what winit does not do for an override-redirect window, done on a thread of its own over
//! x11rb's pure-Rust connection, so the window never waits on the X server.
//!
//! - **The keyboard on a click.** No window manager gives the keyboard to an override-redirect
//!   window, so when a person clicks into a card (or a global key brings it up) the app gives it
//!   the keyboard itself ([`Desk::take_keyboard`]). On X11 it sets the X input focus on it.
//!   Under XWayland the X input focus is not the app's to move (wlroots' `xwm_handle_focus_in`
//!   puts it back; KWin takes the move as its active window losing the keyboard and gives the
//!   keys to no window), so the click grabs the keyboard for the card instead, until the pointer
//!   leaves it or it closes: the keys typed while the pointer rests on the card the person
//!   clicked are the card's, and only those. The grab is this thread's connection's, not
//!   winit's, so its key presses are read here and handed to the card's frame as egui key
//!   events ([`Desk::take_keys`]). A grab only gets what the compositor gives XWayland: where a
//!   native Wayland window has the compositor's keyboard (`_NET_ACTIVE_WINDOW` names no X
//!   window), KWin or mutter is asked, as a pager asks, to activate a one-pixel window of ours
//!   under the card ([`X::keyboard_window`]), unmapped when the grab ends; sway gives the card its keyboard
//!   on the click itself when the card's type is not a "never focus" one (wlroots'
//!   `wlr_xwayland_or_surface_wants_focus`: NOTIFICATION is one), and gives it back only when the
//!   card unmaps ([`X::ungrab`]). So a card maps as a NOTIFICATION and becomes NORMAL only while
//!   the pointer moves over it ([`Desk::pointer_over`]): a card that appears never takes the
//!   keyboard, a click into it does.
//! - **Where windows go.** The monitors (RandR), the work area the window manager leaves free of
//!   panels (`_NET_WORKAREA`), where the pointer is, and where the active window is (with its
//!   frame) and whether it is fullscreen (`_NET_WM_STATE_FULLSCREEN`), read every [`REFRESH`]
//!   (and at once when asked: a terminal was just raised) into a [`Screens`] the window reads.
//! - **On top.** A window manager keeps no override-redirect window above the others, so the
//!   app's floating windows are raised again on each refresh while they are open.

use super::{Monitor, Screens};
use std::collections::HashMap;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use x11rb::connection::Connection;
use x11rb::protocol::randr::ConnectionExt as _;
use x11rb::protocol::xproto::{
    AtomEnum, ClientMessageEvent, ColormapAlloc, ConfigureWindowAux, ConnectionExt as _,
    CreateWindowAux, EventMask, GrabMode, GrabStatus, InputFocus, MapState, PropMode, StackMode,
    VisualClass, Window, WindowClass,
};
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

/// How often the monitors, the work area, the pointer and the fullscreen window are read.
const REFRESH: Duration = Duration::from_millis(700);
/// How often the keys are read while a card holds the keyboard grab.
const GRABBED_POLL: Duration = Duration::from_millis(15);

/// What the window asks of the X server.
enum Ask {
    /// Give the keyboard to the window with this title (a click into it, or a global key).
    TakeKeyboard(String),
    /// The pointer moves over this window (`true`) or has left it (`false`).
    PointerOver(String, bool),
    /// These are the app's floating windows now open (raised on each refresh).
    Open(Vec<String>),
    /// Give the keyboard back: the person is sent elsewhere (Show terminal), so no card keeps
    /// the keys a click gave it.
    Release,
    /// Read the screens now, not at the next refresh (a window was just raised).
    Refresh,
}

/// The X side of the floating windows: a thread with its own connection.
pub struct Desk {
    asks: Mutex<Sender<Ask>>,
    screens: Arc<Mutex<Screens>>,
    /// Key events read under a grab, with the title of the card that holds it.
    keys: Arc<Mutex<Vec<(String, egui::Event)>>>,
}

impl Desk {
    /// Connects to `DISPLAY` and starts the thread; `None` (logged) when there is no X server.
    pub fn start(wake: impl Fn() + Send + 'static) -> Option<Desk> {
        let (conn, screen) = match RustConnection::connect(None) {
            Ok(c) => c,
            Err(e) => {
                tracing::info!("floating windows: no X server to place them on ({e})");
                return None;
            }
        };
        let root = conn.setup().roots[screen].root;
        let atoms = match Atoms::new(&conn) {
            Ok(a) => a,
            Err(e) => {
                tracing::warn!("floating windows: the X server did not answer ({e})");
                return None;
            }
        };
        let screens = Arc::new(Mutex::new(Screens::default()));
        let keys = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::channel();
        let x = X {
            conn,
            root,
            screen,
            atoms,
            pid: std::process::id(),
            windows: HashMap::new(),
            open: Vec::new(),
            hovered: HashMap::new(),
            grabbed: None,
            keys: keys.clone(),
            keymap: None,
            released: None,
            window_manager: None,
            keyboard_window: None,
            handed_back: None,
            xwayland: std::env::var_os("WAYLAND_DISPLAY").is_some_and(|v| !v.is_empty()),
        };
        let shared = screens.clone();
        std::thread::Builder::new()
            .name("vults-x11-desk".into())
            .spawn(move || x.run(rx, shared, wake))
            .ok()?;
        Some(Desk {
            asks: Mutex::new(tx),
            screens,
            keys,
        })
    }

    /// The latest reading of the screens.
    pub fn screens(&self) -> Screens {
        self.screens.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// The key events typed into the card titled `title` under its grab since the last call.
    pub fn take_keys(&self, title: &str) -> Vec<egui::Event> {
        let Ok(mut keys) = self.keys.lock() else {
            return Vec::new();
        };
        let (mine, others): (Vec<_>, Vec<_>) = keys.drain(..).partition(|(t, _)| t == title);
        // Keys for a card that is gone are dropped with it.
        *keys = others;
        mine.into_iter().map(|(_, e)| e).collect()
    }

    pub fn take_keyboard(&self, title: &str) {
        self.ask(Ask::TakeKeyboard(title.to_owned()));
    }

    pub fn pointer_over(&self, title: &str, over: bool) {
        self.ask(Ask::PointerOver(title.to_owned(), over));
    }

    pub fn open(&self, titles: Vec<String>) {
        self.ask(Ask::Open(titles));
    }

    /// Gives the keyboard back (see [`Ask::Release`]); keys read under a grab and not yet
    /// taken by their card are dropped.
    pub fn release_keyboard(&self) {
        if let Ok(mut keys) = self.keys.lock() {
            keys.clear();
        }
        self.ask(Ask::Release);
    }

    pub fn refresh(&self) {
        self.ask(Ask::Refresh);
    }

    fn ask(&self, ask: Ask) {
        if let Ok(tx) = self.asks.lock() {
            let _ = tx.send(ask);
        }
    }
}

struct Atoms {
    net_wm_name: u32,
    utf8: u32,
    net_wm_pid: u32,
    window_type: u32,
    type_normal: u32,
    type_notification: u32,
    workarea: u32,
    current_desktop: u32,
    active: u32,
    wm_state: u32,
    wm_check: u32,
    fullscreen: u32,
    icccm_state: u32,
    frame_extents: u32,
    user_time: u32,
    motif_hints: u32,
    skip_taskbar: u32,
    skip_pager: u32,
}

impl Atoms {
    fn new(conn: &RustConnection) -> Result<Atoms, String> {
        let intern = |name: &str| -> Result<u32, String> {
            conn.intern_atom(false, name.as_bytes())
                .map_err(|e| e.to_string())?
                .reply()
                .map(|r| r.atom)
                .map_err(|e| e.to_string())
        };
        Ok(Atoms {
            net_wm_name: intern("_NET_WM_NAME")?,
            utf8: intern("UTF8_STRING")?,
            net_wm_pid: intern("_NET_WM_PID")?,
            window_type: intern("_NET_WM_WINDOW_TYPE")?,
            type_normal: intern("_NET_WM_WINDOW_TYPE_NORMAL")?,
            type_notification: intern("_NET_WM_WINDOW_TYPE_NOTIFICATION")?,
            workarea: intern("_NET_WORKAREA")?,
            current_desktop: intern("_NET_CURRENT_DESKTOP")?,
            active: intern("_NET_ACTIVE_WINDOW")?,
            wm_check: intern("_NET_SUPPORTING_WM_CHECK")?,
            wm_state: intern("_NET_WM_STATE")?,
            fullscreen: intern("_NET_WM_STATE_FULLSCREEN")?,
            icccm_state: intern("WM_STATE")?,
            frame_extents: intern("_NET_FRAME_EXTENTS")?,
            user_time: intern("_NET_WM_USER_TIME")?,
            motif_hints: intern("_MOTIF_WM_HINTS")?,
            skip_taskbar: intern("_NET_WM_STATE_SKIP_TASKBAR")?,
            skip_pager: intern("_NET_WM_STATE_SKIP_PAGER")?,
        })
    }
}

/// The window that takes the compositor's keyboard for a card under KWin
/// ([`X::keyboard_window`]), and whether it is mapped now.
struct KeyboardWindow {
    window: Window,
    mapped: bool,
}

/// The title of [`KeyboardWindow`].
const KEYBOARD_WINDOW: &str = "Vults keyboard";

/// The window managers (by the name they give themselves, `_NET_SUPPORTING_WM_CHECK`) that
/// give their keyboard to a window of ours a pager asks them to activate, proven in the desktop
/// matrix: KWin.
const ACTIVATES_FOR_PAGERS: &[&str] = &["KWin", "Mutter", "GNOME Shell"];

/// The name wlroots' XWayland window manager (sway's) gives itself.
const WLROOTS_WM: &str = "wlroots wm";

struct X {
    conn: RustConnection,
    root: Window,
    /// The screen the root is of.
    screen: usize,
    atoms: Atoms,
    pid: u32,
    /// Our windows by title, as found among the root's children.
    windows: HashMap<String, Window>,
    /// The floating windows the app has open now.
    open: Vec<String>,
    /// The windows whose type is NORMAL now (the pointer moves over them).
    hovered: HashMap<String, bool>,
    /// The card that holds the keyboard grab (XWayland), by title.
    grabbed: Option<String>,
    /// Key events read under the grab, for the window to take.
    keys: Arc<Mutex<Vec<(String, egui::Event)>>>,
    /// The server's keyboard mapping: (first keycode, keysyms per keycode, keysyms).
    keymap: Option<(u8, u8, Vec<u32>)>,
    /// The last key release (keycode, time): a press at the same time is X's auto-repeat.
    released: Option<(u8, u32)>,
    /// The X server is XWayland under a Wayland compositor.
    xwayland: bool,
    /// The window that takes KWin's keyboard for a card, once one was needed.
    keyboard_window: Option<KeyboardWindow>,
    /// The card sway gave its keyboard to on a click, taken from a native Wayland window,
    /// while it holds the grab: sway gives that window the keyboard back only when the card
    /// unmaps (see [`X::ungrab`]).
    handed_back: Option<Window>,
    /// The window manager's name and, under weston, its panel's position in weston.ini: read
    /// once, when the window manager first answers (neither changes while it runs).
    window_manager: Option<(String, Option<String>)>,
}

impl X {
    fn run(mut self, rx: Receiver<Ask>, shared: Arc<Mutex<Screens>>, wake: impl Fn()) {
        let mut next = Instant::now();
        loop {
            // Under a grab the keys come on this connection: read them often.
            let wait = next.saturating_duration_since(Instant::now());
            let wait = if self.grabbed.is_some() {
                wait.min(GRABBED_POLL)
            } else {
                wait
            };
            let asked = rx.recv_timeout(wait);
            if self.read_keys() {
                wake();
            }
            match asked {
                // Read now: straight on to the reading below.
                Ok(Ask::Refresh) => {}
                Ok(ask) => {
                    if let Err(e) = self.answer(ask) {
                        tracing::debug!("floating windows: {e}");
                    }
                    continue;
                }
                Err(RecvTimeoutError::Timeout) if Instant::now() < next => continue,
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
            next = Instant::now() + REFRESH;
            match self.read_screens() {
                Ok(now) => {
                    let changed = shared.lock().map(|mut s| {
                        let changed = *s != now;
                        *s = now;
                        changed
                    });
                    if changed.unwrap_or(false) {
                        wake();
                    }
                }
                Err(e) => {
                    tracing::warn!("floating windows: the X server went away ({e})");
                    return;
                }
            }
            self.raise_open();
        }
    }

    fn answer(&mut self, ask: Ask) -> Result<(), String> {
        match ask {
            Ask::TakeKeyboard(title) => {
                let Some(w) = self.find(&title)? else {
                    return Ok(());
                };
                if !self.xwayland {
                    // CurrentTime: the press that asked is the newest the server has seen.
                    self.conn
                        .set_input_focus(InputFocus::PARENT, w, x11rb::CURRENT_TIME)
                        .map_err(|e| e.to_string())?;
                    self.conn.flush().map_err(|e| e.to_string())?;
                    tracing::info!("keyboard: {title:?} has the X input focus (a click or a key)");
                    return Ok(());
                }
                // Under XWayland the X input focus is not ours to move: wlroots puts it back,
                // and KWin takes the move as its active window losing the keyboard and gives
                // the keys to no window at all. The keys go to the card by a grab instead, and
                // they reach XWayland at all only while the compositor gives its keyboard to an
                // X window (see `keyboard_window`).
                let time = self.server_time();
                let grab = self
                    .conn
                    .grab_keyboard(false, w, time, GrabMode::ASYNC, GrabMode::ASYNC)
                    .map_err(|e| e.to_string())?
                    .reply()
                    .map_err(|e| e.to_string())?;
                if grab.status != GrabStatus::SUCCESS {
                    tracing::info!("keyboard: no grab for {title:?}: {:?}", grab.status);
                    return Ok(());
                }
                self.grabbed = Some(title.clone());
                let how = if self.wayland_window_has_keys() {
                    let wm = self.window_manager_name();
                    if wm.as_deref() == Some(WLROOTS_WM) {
                        self.handed_back = Some(w);
                    }
                    self.activate_keyboard_window(w, time)?
                } else {
                    "the compositor's keyboard is XWayland's".to_owned()
                };
                self.conn.flush().map_err(|e| e.to_string())?;
                tracing::info!("keyboard: {title:?} holds the keys under a grab ({how})");
            }
            Ask::PointerOver(title, over) => {
                if !over && self.grabbed.as_ref() == Some(&title) {
                    tracing::info!("keyboard: the pointer left {title:?}, which lets the keys go");
                    self.ungrab()?;
                }
                // Only a compositor that reads the type of an override-redirect window to decide
                // its focus needs the switch (wlroots); an X window manager never manages it.
                if !self.xwayland || self.hovered.get(&title) == Some(&over) {
                    return Ok(());
                }
                let Some(w) = self.find(&title)? else {
                    return Ok(());
                };
                let kind = if over {
                    self.atoms.type_normal
                } else {
                    self.atoms.type_notification
                };
                self.conn
                    .change_property32(
                        PropMode::REPLACE,
                        w,
                        self.atoms.window_type,
                        AtomEnum::ATOM,
                        &[kind],
                    )
                    .map_err(|e| e.to_string())?;
                self.conn.flush().map_err(|e| e.to_string())?;
                self.hovered.insert(title, over);
            }
            Ask::Release => {
                if self.grabbed.is_some() {
                    tracing::info!(
                        "keyboard: {:?} lets the keys go (Show terminal)",
                        self.grabbed
                    );
                    self.ungrab()?;
                }
                if let Ok(mut keys) = self.keys.lock() {
                    keys.clear();
                }
                // The X input focus a click put on one of ours goes back to the window manager's
                // active window (never one of ours: they are override-redirect), which had it.
                let focus = self
                    .conn
                    .get_input_focus()
                    .map_err(|e| e.to_string())?
                    .reply()
                    .map_err(|e| e.to_string())?
                    .focus;
                let ours = |w: Window| self.windows.values().any(|o| *o == w);
                if ours(focus) {
                    let active = self
                        .card32(self.root, self.atoms.active, AtomEnum::WINDOW.into())
                        .and_then(|v| v.first().copied())
                        .filter(|w| *w != 0 && !ours(*w));
                    if let Some(active) = active {
                        self.conn
                            .set_input_focus(InputFocus::PARENT, active, x11rb::CURRENT_TIME)
                            .map_err(|e| e.to_string())?;
                    }
                }
                self.conn.flush().map_err(|e| e.to_string())?;
                tracing::debug!("keyboard given back");
            }
            Ask::Refresh => {}
            Ask::Open(titles) => {
                if self.grabbed.as_ref().is_some_and(|g| !titles.contains(g)) {
                    tracing::info!(
                        "keyboard: {:?} closed, which lets the keys go",
                        self.grabbed
                    );
                    self.ungrab()?;
                }
                self.windows.retain(|t, _| titles.contains(t));
                self.hovered.retain(|t, _| titles.contains(t));
                self.open = titles;
            }
        }
        Ok(())
    }

    /// Reads what the X server sent this connection: under a grab, the key presses, handed to
    /// the card that holds it. Whether any was.
    fn read_keys(&mut self) -> bool {
        use x11rb::protocol::Event;
        let mut any = false;
        while let Ok(Some(event)) = self.conn.poll_for_event() {
            let (key, pressed) = match event {
                Event::KeyPress(k) => (k, true),
                Event::KeyRelease(k) => (k, false),
                _ => continue,
            };
            let Some(title) = self.grabbed.clone() else {
                continue;
            };
            let repeat = pressed && self.released == Some((key.detail, key.time));
            if !pressed {
                self.released = Some((key.detail, key.time));
            }
            let Some(egui_key) = self.keysym(key.detail).and_then(egui_key) else {
                continue;
            };
            let state = u16::from(key.state);
            let modifiers = egui::Modifiers {
                alt: state & 0x08 != 0,
                ctrl: state & 0x04 != 0,
                shift: state & 0x01 != 0,
                mac_cmd: false,
                command: state & 0x04 != 0,
            };
            if let Ok(mut keys) = self.keys.lock() {
                keys.push((
                    title,
                    egui::Event::Key {
                        key: egui_key,
                        physical_key: None,
                        pressed,
                        repeat,
                        modifiers,
                    },
                ));
                any = true;
            }
        }
        any
    }

    /// The unshifted keysym of `keycode`.
    fn keysym(&mut self, keycode: u8) -> Option<u32> {
        if self.keymap.is_none() {
            let setup = self.conn.setup();
            let (min, max) = (setup.min_keycode, setup.max_keycode);
            let reply = self
                .conn
                .get_keyboard_mapping(min, max - min + 1)
                .ok()?
                .reply()
                .ok()?;
            self.keymap = Some((min, reply.keysyms_per_keycode, reply.keysyms));
        }
        let (min, per, syms) = self.keymap.as_ref()?;
        let at = usize::from(keycode.checked_sub(*min)?) * usize::from(*per);
        syms.get(at).copied().filter(|s| *s != 0)
    }

    fn ungrab(&mut self) -> Result<(), String> {
        self.grabbed = None;
        self.conn
            .ungrab_keyboard(x11rb::CURRENT_TIME)
            .map_err(|e| e.to_string())?;
        // The window that held the compositor's keyboard for the card goes: the compositor
        // hands the keyboard back to the window that had it before (the terminal).
        if let Some(k) = self.keyboard_window.as_mut().filter(|k| k.mapped) {
            k.mapped = false;
            self.conn
                .unmap_window(k.window)
                .map_err(|e| e.to_string())?;
            tracing::info!("keyboard: given back to the compositor's last window");
        }
        // sway gave the card its keyboard on the click, and keeps it there even when the
        // person clicks back into the window that had it (sway 1.7 sees that window as focused
        // still and does nothing): it hands the keyboard back when a card that has it unmaps.
        // The card turns a notification again (so that mapping gives it nothing) and is
        // unmapped and mapped at once; it is drawn again on the next frame.
        if let Some(card) = self.handed_back.take() {
            self.conn
                .change_property32(
                    PropMode::REPLACE,
                    card,
                    self.atoms.window_type,
                    AtomEnum::ATOM,
                    &[self.atoms.type_notification],
                )
                .map_err(|e| e.to_string())?;
            for (title, w) in &self.windows {
                if *w == card {
                    self.hovered.insert(title.clone(), false);
                }
            }
            self.conn.unmap_window(card).map_err(|e| e.to_string())?;
            self.conn.map_window(card).map_err(|e| e.to_string())?;
            self.conn.flush().map_err(|e| e.to_string())?;
            tracing::info!("keyboard: handed back to sway's focused window");
        }
        self.conn.flush().map_err(|e| e.to_string())
    }

    /// Whether the compositor's keyboard is with a native Wayland window (or none), not with
    /// XWayland: the window manager names no X window active (`_NET_ACTIVE_WINDOW` is None;
    /// KWin, wlroots and mutter set it to the X window they gave the keyboard, and to None
    /// otherwise). Keys typed then never reach the X server, grab or not.
    fn wayland_window_has_keys(&self) -> bool {
        self.card32(self.root, self.atoms.active, AtomEnum::WINDOW.into())
            .and_then(|v| v.first().copied())
            .is_none_or(|w| w == 0)
    }

    /// Asks the compositor to give its keyboard to XWayland while the card `card` holds the
    /// grab, where a native Wayland window has it: by activating a window of ours that it
    /// manages, as a pager asks (`_NET_ACTIVE_WINDOW`, source 2, with the click's time), which
    /// KWin honours. The window is one transparent pixel under the card (`keyboard_window`),
    /// unmapped again when the grab ends. Elsewhere the compositor's own click gives XWayland
    /// the keyboard (sway: a click into an override-redirect window of a focusable type, which
    /// the card is while the pointer moves over it), and a managed window of ours would be
    /// tiled (sway) or placed in view (mutter): nothing is asked. What was done, for the log.
    fn activate_keyboard_window(&mut self, card: Window, time: u32) -> Result<String, String> {
        let wm = self.window_manager_name().unwrap_or_default();
        if !ACTIVATES_FOR_PAGERS.contains(&wm.as_str()) {
            return Ok(format!(
                "a native Wayland window has the compositor's keyboard ({wm:?}): its click gives it"
            ));
        }
        let g = self
            .conn
            .get_geometry(card)
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| e.to_string())?;
        let at = self
            .conn
            .translate_coordinates(card, self.root, 0, 0)
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| e.to_string())?;
        let (x, y) = (
            at.dst_x + i16::try_from(g.width / 2).unwrap_or(0),
            at.dst_y + i16::try_from(g.height / 2).unwrap_or(0),
        );
        let k = self.keyboard_window()?;
        self.conn
            .configure_window(
                k,
                &ConfigureWindowAux::new()
                    .x(i32::from(x))
                    .y(i32::from(y))
                    .stack_mode(StackMode::BELOW)
                    .sibling(card),
            )
            .map_err(|e| e.to_string())?;
        // Where the window manager places a window it maps: here, under the card.
        let hints = [
            1 | 4, // USPosition | PPosition
            u32::from(x as u16),
            u32::from(y as u16),
            1,
            1,
        ];
        self.conn
            .change_property32(
                PropMode::REPLACE,
                k,
                AtomEnum::WM_NORMAL_HINTS,
                AtomEnum::WM_SIZE_HINTS,
                &[hints.as_slice(), &[0; 13]].concat(),
            )
            .map_err(|e| e.to_string())?;
        self.conn
            .change_property32(
                PropMode::REPLACE,
                k,
                self.atoms.user_time,
                AtomEnum::CARDINAL,
                &[time],
            )
            .map_err(|e| e.to_string())?;
        self.conn.map_window(k).map_err(|e| e.to_string())?;
        if let Some(kw) = self.keyboard_window.as_mut() {
            kw.mapped = true;
        }
        // _NET_ACTIVE_WINDOW: source 2 (a pager: a person's own request), the click's time,
        // no window of ours active before it.
        let message = ClientMessageEvent::new(32, k, self.atoms.active, [2, time, 0, 0, 0]);
        self.conn
            .send_event(
                false,
                self.root,
                EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY,
                message,
            )
            .map_err(|e| e.to_string())?;
        self.conn.flush().map_err(|e| e.to_string())?;
        // KWin names the window it activated in `_NET_ACTIVE_WINDOW` as it hands it the
        // keyboard: the card has the keys once it does, and the log says so only then.
        let until = Instant::now() + Duration::from_secs(1);
        while Instant::now() < until {
            let active = self
                .card32(self.root, self.atoms.active, AtomEnum::WINDOW.into())
                .and_then(|v| v.first().copied());
            if active == Some(k) {
                return Ok(format!(
                    "{wm} activated the card's keyboard window, asked as a pager asks"
                ));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(format!(
            "{wm} was asked to activate the card's keyboard window and has not yet"
        ))
    }

    /// The window that takes the compositor's keyboard for a card under KWin (made once): one
    /// pixel, transparent where the X server has a 32-bit visual, managed (not
    /// override-redirect) so that KWin can activate it, with no frame (Motif hints), out of
    /// the taskbar and the pager, titled "Vults keyboard". Keys never go to it: the card's
    /// grab takes them.
    fn keyboard_window(&mut self) -> Result<Window, String> {
        if let Some(k) = &self.keyboard_window {
            return Ok(k.window);
        }
        let screen = &self.conn.setup().roots[self.screen];
        let (root_depth, root_visual) = (screen.root_depth, screen.root_visual);
        let argb = screen
            .allowed_depths
            .iter()
            .filter(|d| d.depth == 32)
            .flat_map(|d| d.visuals.iter())
            .find(|v| v.class == VisualClass::TRUE_COLOR)
            .map(|v| v.visual_id);
        let window = self.conn.generate_id().map_err(|e| e.to_string())?;
        let mut aux = CreateWindowAux::new()
            .background_pixel(0)
            .border_pixel(0)
            .event_mask(EventMask::PROPERTY_CHANGE);
        let (depth, visual) = match argb {
            Some(visual) => {
                let colormap = self.conn.generate_id().map_err(|e| e.to_string())?;
                self.conn
                    .create_colormap(ColormapAlloc::NONE, colormap, self.root, visual)
                    .map_err(|e| e.to_string())?;
                aux = aux.colormap(colormap);
                (32, visual)
            }
            None => (root_depth, root_visual),
        };
        self.conn
            .create_window(
                depth,
                window,
                self.root,
                0,
                0,
                1,
                1,
                0,
                WindowClass::INPUT_OUTPUT,
                visual,
                &aux,
            )
            .map_err(|e| e.to_string())?;
        let a = &self.atoms;
        let title = KEYBOARD_WINDOW.as_bytes();
        self.conn
            .change_property8(PropMode::REPLACE, window, a.net_wm_name, a.utf8, title)
            .map_err(|e| e.to_string())?;
        self.conn
            .change_property8(
                PropMode::REPLACE,
                window,
                AtomEnum::WM_NAME,
                AtomEnum::STRING,
                title,
            )
            .map_err(|e| e.to_string())?;
        self.conn
            .change_property8(
                PropMode::REPLACE,
                window,
                AtomEnum::WM_CLASS,
                AtomEnum::STRING,
                b"vults\0vults\0",
            )
            .map_err(|e| e.to_string())?;
        self.conn
            .change_property32(
                PropMode::REPLACE,
                window,
                a.net_wm_pid,
                AtomEnum::CARDINAL,
                &[self.pid],
            )
            .map_err(|e| e.to_string())?;
        // Motif hints: flags = decorations, decorations = none.
        self.conn
            .change_property32(
                PropMode::REPLACE,
                window,
                a.motif_hints,
                a.motif_hints,
                &[2, 0, 0, 0, 0],
            )
            .map_err(|e| e.to_string())?;
        self.conn
            .change_property32(
                PropMode::REPLACE,
                window,
                a.wm_state,
                AtomEnum::ATOM,
                &[a.skip_taskbar, a.skip_pager],
            )
            .map_err(|e| e.to_string())?;
        // ICCCM WM_HINTS: flags = input, input = true (it takes the focus it is given).
        self.conn
            .change_property32(
                PropMode::REPLACE,
                window,
                AtomEnum::WM_HINTS,
                AtomEnum::WM_HINTS,
                &[1, 1, 0, 0, 0, 0, 0, 0, 0],
            )
            .map_err(|e| e.to_string())?;
        self.keyboard_window = Some(KeyboardWindow {
            window,
            mapped: false,
        });
        Ok(window)
    }

    /// The X server's time now, for a grab and an activation that a click asked for: a
    /// property appended to with nothing says the time in its PropertyNotify. CurrentTime
    /// when the server does not answer within a moment.
    fn server_time(&mut self) -> u32 {
        let Ok(k) = self.keyboard_window() else {
            return x11rb::CURRENT_TIME;
        };
        let appended = self.conn.change_property8(
            PropMode::APPEND,
            k,
            self.atoms.user_time,
            AtomEnum::CARDINAL,
            &[],
        );
        if appended.is_err() || self.conn.flush().is_err() {
            return x11rb::CURRENT_TIME;
        }
        let until = Instant::now() + Duration::from_millis(200);
        while Instant::now() < until {
            match self.conn.poll_for_event() {
                Ok(Some(x11rb::protocol::Event::PropertyNotify(e))) if e.window == k => {
                    return e.time;
                }
                Ok(Some(_)) => {}
                Ok(None) => std::thread::sleep(Duration::from_millis(2)),
                Err(_) => break,
            }
        }
        x11rb::CURRENT_TIME
    }

    /// The window manager's name, read once it answers.
    fn window_manager_name(&mut self) -> Option<String> {
        if self.window_manager.is_none() {
            self.window_manager = self.window_manager().map(|wm| {
                let panel = (wm == WESTON_WM).then(weston_panel_position).flatten();
                (wm, panel)
            });
        }
        self.window_manager.as_ref().map(|(wm, _)| wm.clone())
    }

    /// Our own top-level window titled `title` (our pid, that name), cached.
    fn find(&mut self, title: &str) -> Result<Option<Window>, String> {
        if let Some(w) = self.windows.get(title)
            && self.title_of(*w).as_deref() == Some(title)
        {
            return Ok(Some(*w));
        }
        let tree = self
            .conn
            .query_tree(self.root)
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| e.to_string())?;
        // Newest last: a window that closed and opened again under the same title is the later.
        for &w in tree.children.iter().rev() {
            if self.pid_of(w) == Some(self.pid) && self.title_of(w).as_deref() == Some(title) {
                self.windows.insert(title.to_owned(), w);
                return Ok(Some(w));
            }
        }
        Ok(None)
    }

    fn title_of(&self, w: Window) -> Option<String> {
        let reply = self
            .conn
            .get_property(false, w, self.atoms.net_wm_name, self.atoms.utf8, 0, 1024)
            .ok()?
            .reply()
            .ok()?;
        String::from_utf8(reply.value).ok()
    }

    fn pid_of(&self, w: Window) -> Option<u32> {
        self.card32(w, self.atoms.net_wm_pid, AtomEnum::CARDINAL.into())
            .and_then(|v| v.first().copied())
    }

    fn card32(&self, w: Window, prop: u32, kind: u32) -> Option<Vec<u32>> {
        let reply = self
            .conn
            .get_property(false, w, prop, kind, 0, 1024)
            .ok()?
            .reply()
            .ok()?;
        Some(reply.value32()?.collect())
    }

    fn raise_open(&mut self) {
        for title in self.open.clone() {
            if let Ok(Some(w)) = self.find(&title) {
                let _ = self
                    .conn
                    .configure_window(w, &ConfigureWindowAux::new().stack_mode(StackMode::ABOVE));
            }
        }
        let _ = self.conn.flush();
    }

    fn read_screens(&mut self) -> Result<Screens, String> {
        let monitors = self
            .conn
            .randr_get_monitors(self.root, true)
            .map_err(|e| e.to_string())?
            .reply();
        let mut out = Vec::new();
        if let Ok(reply) = monitors {
            for m in reply.monitors {
                let name = self
                    .conn
                    .get_atom_name(m.name)
                    .ok()
                    .and_then(|c| c.reply().ok())
                    .map(|r| String::from_utf8_lossy(&r.name).into_owned())
                    .unwrap_or_default();
                out.push(Monitor {
                    name,
                    primary: m.primary,
                    rect: [
                        i32::from(m.x),
                        i32::from(m.y),
                        i32::from(m.width),
                        i32::from(m.height),
                    ],
                });
            }
        }
        if out.is_empty() {
            // No RandR: the one screen.
            let g = self
                .conn
                .get_geometry(self.root)
                .map_err(|e| e.to_string())?
                .reply()
                .map_err(|e| e.to_string())?;
            out.push(Monitor {
                name: String::new(),
                primary: true,
                rect: [0, 0, i32::from(g.width), i32::from(g.height)],
            });
        }
        let desktop = self
            .card32(
                self.root,
                self.atoms.current_desktop,
                AtomEnum::CARDINAL.into(),
            )
            .and_then(|v| v.first().copied())
            .unwrap_or(0) as usize;
        let work_area = self
            .card32(self.root, self.atoms.workarea, AtomEnum::CARDINAL.into())
            .and_then(|v| {
                let at = v.get(desktop * 4..desktop * 4 + 4)?;
                Some([at[0] as i32, at[1] as i32, at[2] as i32, at[3] as i32])
            });
        // weston keeps no _NET_WORKAREA for XWayland, and its panel (at the top unless weston.ini
        // moves it) is drawn over the X windows there: leave its height free.
        if work_area.is_none() && self.window_manager.is_none() {
            self.window_manager = self.window_manager().map(|wm| {
                let panel = (wm == WESTON_WM).then(weston_panel_position).flatten();
                (wm, panel)
            });
        }
        let work_area = work_area.or_else(|| {
            let (wm, panel) = self.window_manager.as_ref()?;
            let [_, _, w, h] = out.iter().fold([0, 0, 0, 0], |[_, _, w, h], m| {
                [
                    0,
                    0,
                    w.max(m.rect[0] + m.rect[2]),
                    h.max(m.rect[1] + m.rect[3]),
                ]
            });
            weston_work_area(wm, panel.as_deref(), w, h)
        });
        let pointer = self
            .conn
            .query_pointer(self.root)
            .ok()
            .and_then(|c| c.reply().ok())
            .map(|p| [i32::from(p.root_x), i32::from(p.root_y)]);
        let active = self.active_window();
        Ok(Screens {
            monitors: out,
            work_area,
            pointer,
            fullscreen: active.filter(|(_, full)| *full).map(|(rect, _)| rect),
            active: active.map(|(rect, _)| rect),
        })
    }

    /// The topmost client window on screen: the root's children are in stacking order, top
    /// last; a reparenting window manager's frame stands for the client in it (the child with
    /// ICCCM's `WM_STATE`). Override-redirect windows (ours, menus) are no client.
    fn topmost_client(&self) -> Option<Window> {
        let tree = self.conn.query_tree(self.root).ok()?.reply().ok()?;
        let is_client = |w: Window| {
            self.conn
                .get_property(false, w, self.atoms.icccm_state, AtomEnum::ANY, 0, 1)
                .ok()
                .and_then(|c| c.reply().ok())
                .is_some_and(|r| r.type_ != u32::from(AtomEnum::NONE))
        };
        for &w in tree.children.iter().rev() {
            let Some(attrs) = self
                .conn
                .get_window_attributes(w)
                .ok()
                .and_then(|c| c.reply().ok())
            else {
                continue;
            };
            if attrs.map_state != MapState::VIEWABLE || attrs.override_redirect {
                continue;
            }
            if is_client(w) {
                return Some(w);
            }
            let Some(inner) = self.conn.query_tree(w).ok().and_then(|c| c.reply().ok()) else {
                continue;
            };
            if let Some(&c) = inner.children.iter().find(|&&c| is_client(c)) {
                return Some(c);
            }
        }
        None
    }

    /// The window manager's name (`_NET_SUPPORTING_WM_CHECK`'s `_NET_WM_NAME`).
    fn window_manager(&self) -> Option<String> {
        let check = self
            .card32(self.root, self.atoms.wm_check, AtomEnum::WINDOW.into())?
            .first()
            .copied()?;
        self.title_of(check)
    }

    /// Where the active window is, its frame (`_NET_FRAME_EXTENTS`) included, and whether it is
    /// fullscreen; `None` when there is none or it is ours. Where the window manager names no
    /// active window (weston's XWayland with no keyboard gives none the focus), the topmost
    /// window it manages stands for it.
    fn active_window(&self) -> Option<([i32; 4], bool)> {
        let active = self
            .card32(self.root, self.atoms.active, AtomEnum::WINDOW.into())
            .and_then(|v| v.first().copied())
            .filter(|w| *w != 0)
            .or_else(|| self.topmost_client())?;
        if self.pid_of(active) == Some(self.pid) {
            return None;
        }
        let state = self
            .card32(active, self.atoms.wm_state, AtomEnum::ATOM.into())
            .unwrap_or_default();
        let g = self.conn.get_geometry(active).ok()?.reply().ok()?;
        let at = self
            .conn
            .translate_coordinates(active, self.root, 0, 0)
            .ok()?
            .reply()
            .ok()?;
        // Left, right, top, bottom: the title bar and borders the window manager drew.
        let frame = self
            .card32(active, self.atoms.frame_extents, AtomEnum::CARDINAL.into())
            .filter(|f| f.len() == 4)
            .map_or([0; 4], |f| {
                [f[0], f[1], f[2], f[3]].map(|v| v.min(512) as i32)
            });
        let [left, right, top, bottom] = frame;
        Some((
            [
                i32::from(at.dst_x) - left,
                i32::from(at.dst_y) - top,
                i32::from(g.width) + left + right,
                i32::from(g.height) + top + bottom,
            ],
            state.contains(&self.atoms.fullscreen),
        ))
    }
}

/// The name weston's XWayland window manager gives itself.
const WESTON_WM: &str = "Weston WM";

/// The height of weston's desktop-shell panel (weston 10's default).
const WESTON_PANEL: i32 = 32;

/// The work area under weston's XWayland window manager ("Weston WM"), which keeps no
/// `_NET_WORKAREA`: the screen (`w`×`h`) less the panel where `panel-position` (weston.ini's
/// `[shell]`, `None` when unset: the top) puts it. `None` for another window manager.
fn weston_work_area(wm: &str, panel: Option<&str>, w: i32, h: i32) -> Option<[i32; 4]> {
    if wm != WESTON_WM || w <= 0 || h <= WESTON_PANEL {
        return None;
    }
    let p = WESTON_PANEL;
    Some(match panel.unwrap_or("top") {
        "bottom" => [0, 0, w, h - p],
        "left" => [p, 0, w - p, h],
        "right" => [0, 0, w - p, h],
        "none" => [0, 0, w, h],
        _ => [0, p, w, h - p],
    })
}

/// `panel-position` from weston.ini's `[shell]` (`$XDG_CONFIG_HOME/weston.ini`, else
/// `~/.config/weston.ini`), when set.
fn weston_panel_position() -> Option<String> {
    let dir = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|d| !d.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".config")))?;
    let text = std::fs::read_to_string(dir.join("weston.ini")).ok()?;
    let mut in_shell = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_shell = line == "[shell]";
        } else if in_shell
            && let Some((k, v)) = line.split_once('=')
            && k.trim() == "panel-position"
        {
            return Some(v.trim().to_owned());
        }
    }
    None
}

/// The egui key of an X keysym, for the keys a card reads (letters, digits, Enter, Escape,
/// Space, Tab, the arrows, Page Up/Down, Super).
fn egui_key(keysym: u32) -> Option<egui::Key> {
    use egui::Key;
    const LETTERS: [Key; 26] = [
        Key::A,
        Key::B,
        Key::C,
        Key::D,
        Key::E,
        Key::F,
        Key::G,
        Key::H,
        Key::I,
        Key::J,
        Key::K,
        Key::L,
        Key::M,
        Key::N,
        Key::O,
        Key::P,
        Key::Q,
        Key::R,
        Key::S,
        Key::T,
        Key::U,
        Key::V,
        Key::W,
        Key::X,
        Key::Y,
        Key::Z,
    ];
    const DIGITS: [Key; 10] = [
        Key::Num0,
        Key::Num1,
        Key::Num2,
        Key::Num3,
        Key::Num4,
        Key::Num5,
        Key::Num6,
        Key::Num7,
        Key::Num8,
        Key::Num9,
    ];
    Some(match keysym {
        0x61..=0x7a => LETTERS[(keysym - 0x61) as usize],
        0x41..=0x5a => LETTERS[(keysym - 0x41) as usize],
        0x30..=0x39 => DIGITS[(keysym - 0x30) as usize],
        0x20 => Key::Space,
        0xff0d | 0xff8d => Key::Enter,
        0xff1b => Key::Escape,
        0xff09 => Key::Tab,
        0xff51 => Key::ArrowLeft,
        0xff52 => Key::ArrowUp,
        0xff53 => Key::ArrowRight,
        0xff54 => Key::ArrowDown,
        0xff55 => Key::PageUp,
        0xff56 => Key::PageDown,
        0xffeb => Key::SuperLeft,
        0xffec => Key::SuperRight,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::{egui_key, weston_work_area};
    use egui::Key;

    #[test]
    fn weston_s_panel_is_left_free_where_it_stands() {
        assert_eq!(
            weston_work_area("Weston WM", None, 1280, 800),
            Some([0, 32, 1280, 768])
        );
        assert_eq!(
            weston_work_area("Weston WM", Some("bottom"), 1280, 800),
            Some([0, 0, 1280, 768])
        );
        assert_eq!(
            weston_work_area("Weston WM", Some("none"), 1280, 800),
            Some([0, 0, 1280, 800])
        );
        assert_eq!(weston_work_area("wlroots wm", None, 1280, 800), None);
        assert_eq!(weston_work_area("KWin", None, 1280, 800), None);
    }

    #[test]
    fn the_keys_a_card_reads_are_translated_and_no_other() {
        assert_eq!(egui_key(0x61), Some(Key::A));
        assert_eq!(egui_key(0x64), Some(Key::D));
        assert_eq!(
            egui_key(0x41),
            Some(Key::A),
            "a shifted keysym is the same key"
        );
        assert_eq!(egui_key(0x74), Some(Key::T));
        assert_eq!(egui_key(0x31), Some(Key::Num1));
        assert_eq!(egui_key(0xff0d), Some(Key::Enter));
        assert_eq!(egui_key(0xff54), Some(Key::ArrowDown));
        assert_eq!(egui_key(0xff56), Some(Key::PageDown));
        assert_eq!(egui_key(0xffeb), Some(Key::SuperLeft));
        // Shift, Control and the like are modifiers of a press, never keys of their own here.
        assert_eq!(egui_key(0xffe1), None);
        assert_eq!(egui_key(0xffe3), None);
        assert_eq!(egui_key(0xe9), None);
    }
}
