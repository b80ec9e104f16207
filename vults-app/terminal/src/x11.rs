//! X11: raising a window the way a pager does (an EWMH `_NET_ACTIVE_WINDOW` client message to
//! the root window, source 2), over x11rb's own pure-Rust connection (no libxcb), and checking
//! that the window manager did it.

use crate::outcome::{Failure, FailureKind};
use std::time::{Duration, Instant};
use vults_i18n::Message;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{AtomEnum, ClientMessageEvent, ConnectionExt, EventMask, Window};
use x11rb::rust_connection::RustConnection;

/// How long the window manager has to make the window the active one.
const SETTLE: Duration = Duration::from_secs(3);

struct Atoms {
    active: u32,
    client_list: u32,
    stacking: u32,
    wm_pid: u32,
    wm_desktop: u32,
    current_desktop: u32,
    net_wm_name: u32,
    supported: u32,
    supporting_wm_check: u32,
}

fn intern(conn: &RustConnection, name: &str) -> Result<u32, String> {
    conn.intern_atom(false, name.as_bytes())
        .map_err(|e| e.to_string())?
        .reply()
        .map(|r| r.atom)
        .map_err(|e| e.to_string())
}

impl Atoms {
    fn new(conn: &RustConnection) -> Result<Atoms, String> {
        Ok(Atoms {
            active: intern(conn, "_NET_ACTIVE_WINDOW")?,
            client_list: intern(conn, "_NET_CLIENT_LIST")?,
            stacking: intern(conn, "_NET_CLIENT_LIST_STACKING")?,
            wm_pid: intern(conn, "_NET_WM_PID")?,
            wm_desktop: intern(conn, "_NET_WM_DESKTOP")?,
            current_desktop: intern(conn, "_NET_CURRENT_DESKTOP")?,
            net_wm_name: intern(conn, "_NET_WM_NAME")?,
            supported: intern(conn, "_NET_SUPPORTED")?,
            supporting_wm_check: intern(conn, "_NET_SUPPORTING_WM_CHECK")?,
        })
    }
}

struct Display {
    conn: RustConnection,
    root: Window,
    atoms: Atoms,
}

impl Display {
    fn open(name: &str) -> Result<Display, Failure> {
        let (conn, screen) = RustConnection::connect(Some(name)).map_err(|e| {
            Failure::new(
                FailureKind::NoDisplay,
                Message::new("terminal-failure-x11-unreachable")
                    .arg("display", name)
                    .arg("error", crate::outcome::one_line(&e.to_string())),
            )
        })?;
        let root = conn
            .setup()
            .roots
            .get(screen)
            .map(|s| s.root)
            .ok_or_else(|| {
                Failure::new(
                    FailureKind::NoDisplay,
                    Message::new("terminal-failure-x11-no-screen"),
                )
            })?;
        let atoms = Atoms::new(&conn).map_err(|e| Failure::said(FailureKind::NoDisplay, e))?;
        Ok(Display { conn, root, atoms })
    }

    fn u32s(&self, window: Window, prop: u32) -> Vec<u32> {
        self.conn
            .get_property(false, window, prop, AtomEnum::ANY, 0, 4096)
            .ok()
            .and_then(|c| c.reply().ok())
            .and_then(|r| r.value32().map(|v| v.collect()))
            .unwrap_or_default()
    }

    fn text(&self, window: Window, prop: u32) -> Option<String> {
        let r = self
            .conn
            .get_property(false, window, prop, AtomEnum::ANY, 0, 1024)
            .ok()?
            .reply()
            .ok()?;
        (!r.value.is_empty()).then(|| String::from_utf8_lossy(&r.value).into_owned())
    }

    fn title(&self, window: Window) -> String {
        self.text(window, self.atoms.net_wm_name)
            .or_else(|| self.text(window, AtomEnum::WM_NAME.into()))
            .unwrap_or_default()
    }

    fn active(&self) -> Option<Window> {
        self.u32s(self.root, self.atoms.active)
            .first()
            .copied()
            .filter(|w| *w != 0)
    }

    /// The managed window `window` is inside (xterm's `WINDOWID` is its text area, a child of
    /// the window the window manager manages).
    fn toplevel(&self, mut window: Window, clients: &[Window]) -> Option<Window> {
        for _ in 0..32 {
            if clients.contains(&window) {
                return Some(window);
            }
            let tree = self.conn.query_tree(window).ok()?.reply().ok()?;
            if tree.parent == 0 || tree.parent == tree.root {
                return None;
            }
            window = tree.parent;
        }
        None
    }

    fn send(&self, window: Window, kind: u32, data: [u32; 5]) -> Result<(), Failure> {
        let event = ClientMessageEvent::new(32, window, kind, data);
        self.conn
            .send_event(
                false,
                self.root,
                EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY,
                event,
            )
            .map_err(|e| Failure::tool(FailureKind::Failed, "X11", e.to_string()))?;
        self.conn
            .flush()
            .map_err(|e| Failure::tool(FailureKind::Failed, "X11", e.to_string()))
    }
}

/// The X server lists no window (`_NET_CLIENT_LIST` missing or empty): the X11 way found no
/// window to raise. Under XWayland that is what a native Wayland terminal looks like, so the
/// Wayland desktop's own reason (GNOME lets no app raise a window) is the one said
/// ([`crate::plan::Plan::run`] prefers it to a `NotFound`); on plain X11 this line is said.
pub(crate) fn no_window_list() -> Failure {
    Failure::new(
        FailureKind::NotFound,
        Message::new("terminal-failure-x11-no-list"),
    )
}

/// Raises the top-level window of `window`, else the one window of `pid` (the one whose title
/// has `title` when it has several), and waits until the window manager says it is active.
/// `Ok` carries a note when the window was a guess among several.
pub(crate) fn raise(
    display: &str,
    window: Option<u32>,
    pid: u32,
    title: Option<&str>,
) -> Result<Option<Message>, Failure> {
    let d = Display::open(display)?;
    let clients = d.u32s(d.root, d.atoms.client_list);
    if clients.is_empty() {
        return Err(no_window_list());
    }
    let mut note = None;
    let target = match window.and_then(|w| d.toplevel(w, &clients)) {
        Some(w) => w,
        None => {
            let mine: Vec<Window> = clients
                .iter()
                .copied()
                .filter(|w| d.u32s(*w, d.atoms.wm_pid).first() == Some(&pid))
                .collect();
            match (mine.as_slice(), title) {
                ([], _) => {
                    return Err(Failure::new(
                        FailureKind::NotFound,
                        Message::new("terminal-failure-x11-no-window")
                            .arg("pid", pid)
                            .arg("display", display),
                    ));
                }
                ([one], _) => *one,
                (many, Some(t)) => {
                    let named: Vec<Window> = many
                        .iter()
                        .copied()
                        .filter(|w| d.title(*w).contains(t))
                        .collect();
                    match named.as_slice() {
                        [one] => *one,
                        _ => {
                            return Err(Failure::new(
                                FailureKind::NotFound,
                                Message::new(if named.is_empty() {
                                    "terminal-failure-x11-none-named"
                                } else {
                                    "terminal-failure-x11-several-named"
                                })
                                .arg("pid", pid)
                                .arg("count", many.len())
                                .arg("title", t),
                            ));
                        }
                    }
                }
                (many, None) => {
                    // The most recently used: the highest in the stacking order.
                    let stacking = d.u32s(d.root, d.atoms.stacking);
                    let top = stacking
                        .iter()
                        .rev()
                        .find(|w| many.contains(w))
                        .copied()
                        .unwrap_or(many[0]);
                    note = Some(Message::new("terminal-caveat-x11-guess").arg("count", many.len()));
                    top
                }
            }
        }
    };
    // A window on another workspace: go there first, as a pager would.
    let desk = d.u32s(target, d.atoms.wm_desktop).first().copied();
    let current = d.u32s(d.root, d.atoms.current_desktop).first().copied();
    if let (Some(desk), Some(current)) = (desk, current)
        && desk != current
        && desk != u32::MAX
    {
        d.send(d.root, d.atoms.current_desktop, [desk, 0, 0, 0, 0])?;
    }
    // Source 2 (a pager: the person asked for it), no timestamp, the window active now.
    let now = d.active().unwrap_or(0);
    d.send(target, d.atoms.active, [2, 0, now, 0, 0])?;
    let until = Instant::now() + SETTLE;
    loop {
        if d.active() == Some(target) {
            return Ok(note);
        }
        if Instant::now() >= until {
            return Err(Failure::new(
                FailureKind::Forbidden,
                Message::new("terminal-failure-x11-refused"),
            ));
        }
        std::thread::sleep(Duration::from_millis(30));
    }
}

/// The window manager's name and whether it takes `_NET_ACTIVE_WINDOW` requests, for the
/// survey.
pub(crate) fn window_manager(display: &str) -> Result<(Option<String>, bool), Failure> {
    let d = Display::open(display)?;
    let supported = d.u32s(d.root, d.atoms.supported).contains(&d.atoms.active);
    let name = d
        .u32s(d.root, d.atoms.supporting_wm_check)
        .first()
        .map(|w| d.title(*w))
        .filter(|n| !n.is_empty());
    Ok((name, supported))
}
