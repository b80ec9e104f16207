//! The desktops people run, each headless from Debian's packages and killed on drop, for the
//! desktop matrix (issue 29): openbox and mutter as X11 window managers on an `Xvfb` of the
//! test's own; mutter (`--headless --virtual-monitor`), sway (wlroots' headless backend) and
//! weston (its headless backend), each native Wayland or with XWayland; KWin
//! (`kwin_wayland --virtual`) with XWayland.
//!
//! A [`Desktop`] says what the compositor itself says about its windows (sway's tree; the X
//! server's windows where there is one), drives input the way a person's arrives, through the
//! compositor (sway's virtual pointer and keyboard, KWin's fake input, mutter's RemoteDesktop:
//! `examples/wl_input.rs`; XTEST by `xdotool` on X11, where that is a person's path too) and takes
//! a screenshot (`grim` on sway, `import -window root` on X). Never the code under test.
//!
//! sway refuses to run as root ("Unable to drop root"), and CI runs as root: there sway runs as
//! the user `vultsdesk` (made once with `useradd`), in a runtime folder of its own that root's
//! clients reach; its XWayland lets root in through `xhost +si:localuser:root`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use crate::desktop::{Kids, Xvfb, command, run, tools, wait_for};

/// Which desktop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// openbox on `Xvfb`.
    Openbox,
    /// mutter as an X11 window and compositing manager on `Xvfb`.
    MutterX11,
    /// mutter as a headless Wayland compositor; `true`: with XWayland.
    Mutter(bool),
    /// sway on wlroots' headless backend; `true`: with XWayland.
    Sway(bool),
    /// weston's headless backend and desktop shell, with XWayland.
    Weston,
    /// `kwin_wayland --virtual`, with XWayland.
    Kwin,
    /// KWin as an X11 window manager (`kwin_x11`) on `Xvfb`: Plasma's X11 session.
    KwinX11,
}

impl Kind {
    /// A short name for logs and screenshot files.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Openbox => "openbox",
            Kind::MutterX11 => "mutter-x11",
            Kind::Mutter(true) => "mutter-xwayland",
            Kind::Mutter(false) => "mutter-wayland",
            Kind::Sway(true) => "sway-xwayland",
            Kind::Sway(false) => "sway-wayland",
            Kind::Weston => "weston-xwayland",
            Kind::Kwin => "kwin-xwayland",
            Kind::KwinX11 => "kwin-x11",
        }
    }

    /// Whether the app's windows are X11 windows here (X11, or XWayland beside Wayland).
    pub fn x11(self) -> bool {
        !matches!(self, Kind::Mutter(false) | Kind::Sway(false))
    }

    /// Whether the test can type and click here. Weston's headless backend has no input
    /// device at all (and its XWayland crashes, SIGSEGV, on the first XTEST event); mutter's
    /// own virtual input (org.gnome.Mutter.RemoteDesktop) lives only as long as the D-Bus
    /// connection that made it, which a command-line client does not keep.
    pub fn has_input(self) -> bool {
        !matches!(self, Kind::Weston | Kind::Mutter(false))
    }

    /// Whether the app's windows are XWayland's (an X server beside a Wayland compositor).
    pub fn xwayland(self) -> bool {
        self.x11() && !self.on_xvfb()
    }

    /// Whether the desktop is an X11 window manager on an `Xvfb` of the test's own.
    pub fn on_xvfb(self) -> bool {
        matches!(self, Kind::Openbox | Kind::MutterX11 | Kind::KwinX11)
    }

    /// Whether the test can list the windows here (mutter on native Wayland tells no client).
    pub fn lists_windows(self) -> bool {
        self != Kind::Mutter(false)
    }

    /// The programs this desktop needs.
    fn tools(self) -> &'static [&'static str] {
        match self {
            Kind::Openbox => &["Xvfb", "openbox", "xterm", "xdotool", "xwininfo", "import"],
            Kind::MutterX11 => &[
                "Xvfb",
                "mutter",
                "dbus-daemon",
                "xterm",
                "xdotool",
                "xwininfo",
                "import",
            ],
            Kind::Mutter(true) => &[
                "mutter",
                "dbus-daemon",
                "Xwayland",
                "xterm",
                "xdotool",
                "xwininfo",
                "import",
            ],
            Kind::Mutter(false) => &["mutter", "dbus-daemon", "foot"],
            Kind::Sway(true) => &[
                "sway", "swaymsg", "setpriv", "Xwayland", "xhost", "xterm", "xdotool", "xwininfo",
                "grim", "foot",
            ],
            Kind::Sway(false) => &["sway", "swaymsg", "setpriv", "foot", "grim"],
            Kind::Weston => &[
                "weston", "Xwayland", "xterm", "xdotool", "xwininfo", "import",
            ],
            Kind::KwinX11 => &[
                "Xvfb",
                "kwin_x11",
                "dbus-daemon",
                "xterm",
                "xdotool",
                "xwininfo",
                "import",
            ],
            Kind::Kwin => &[
                "kwin_wayland",
                "dbus-daemon",
                "Xwayland",
                "xterm",
                "weston-terminal",
                "xdotool",
                "xwininfo",
                "import",
            ],
        }
    }
}

/// A window as the desktop shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Its title.
    pub title: String,
    /// Where it is on the screen, and its size.
    pub rect: Rect,
    /// The X window id, for a window of the X server (X11, XWayland).
    pub x_id: Option<u32>,
}

/// A rectangle on the screen, in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    /// Left edge.
    pub x: i64,
    /// Top edge.
    pub y: i64,
    /// Width.
    pub w: i64,
    /// Height.
    pub h: i64,
}

impl Rect {
    /// Whether the two share any pixel.
    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }

    /// Its centre.
    pub fn centre(&self) -> (i64, i64) {
        (self.x + self.w / 2, self.y + self.h / 2)
    }
}

/// One running desktop: the compositor (and its `Xvfb`, D-Bus bus, XWayland) killed on drop
/// with everything started on it, its folder removed.
pub struct Desktop {
    /// Which desktop.
    pub kind: Kind,
    /// The environment for programs on it: `PATH`, `DISPLAY` and/or `WAYLAND_DISPLAY`,
    /// `XDG_RUNTIME_DIR`, the session bus when the desktop has one.
    pub env: Vec<(String, String)>,
    /// The X server's display (`Xvfb` or XWayland), if the desktop has one.
    pub x_display: Option<String>,
    /// The screen's size.
    pub screen: (i64, i64),
    /// The folder of the desktop's own files (its runtime folder, logs).
    pub dir: PathBuf,
    /// Processes on the desktop, killed before the desktop.
    pub kids: Kids,
    desktop_kids: Kids,
    _xvfb: Option<Xvfb>,
    /// The person's hand on a Wayland compositor (`examples/wl_input.rs`: sway's virtual
    /// pointer, KWin's fake input), started at its first use.
    hand: std::sync::Mutex<Option<Hand>>,
}

/// A pointer (and on KWin a keyboard) that a person's input takes through the compositor
/// (`examples/wl_input.rs`): a headless seat has no device, so no client would get a click.
/// Each command is answered `ok` once the compositor has read it.
struct Hand {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: std::io::BufReader<std::process::ChildStdout>,
}

impl Hand {
    /// Starts the helper on the compositor of `env` (`mutter`: its RemoteDesktop session).
    fn start(env: &crate::desktop::Env, bin: &Path, mutter: bool) -> Hand {
        let mut child = command(env, &bin.display().to_string())
            .args(mutter.then_some("--mutter"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("wl_input starts: {e}"));
        let stdin = child.stdin.take().expect("its stdin");
        let stdout = std::io::BufReader::new(child.stdout.take().expect("its stdout"));
        Hand {
            child,
            stdin,
            stdout,
        }
    }

    /// Sends `line` and waits for its `ok`.
    fn send(&mut self, line: &str) {
        use std::io::{BufRead, Write};
        writeln!(self.stdin, "{line}").expect("wl_input reads");
        let mut answer = String::new();
        self.stdout
            .read_line(&mut answer)
            .expect("wl_input answers");
        assert_eq!(answer.trim(), "ok", "wl_input: {line:?}");
    }
}

impl Drop for Hand {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The person's input helper (`examples/wl_input.rs`), built once.
fn input_helper() -> PathBuf {
    crate::built_example("vults-tests", "wl_input").0
}

/// The evdev key code (linux/input-event-codes.h) of an X keysym name the tests type.
fn evdev_key(name: &str) -> u32 {
    match name {
        "a" => 30,
        "d" => 32,
        "x" => 45,
        "y" => 21,
        "Return" => 28,
        "ctrl" => 29,
        "alt" => 56,
        "shift" => 42,
        other => panic!("no evdev code for the key {other:?}"),
    }
}

const SWAY_USER: &str = "vultsdesk";

impl Desktop {
    /// Starts `kind` on a 1280×800 screen and waits until it manages it; `None` when `test`
    /// skips for want of its programs (see [`tools`]: a failure with `VULTS_DESKTOP_TESTS=1`).
    pub fn start(test: &str, kind: Kind) -> Option<Desktop> {
        Desktop::start_sized(test, kind, (1280, 800))
    }

    /// [`Desktop::start`] on a screen of `screen` pixels (the `Xvfb` of the X11 window
    /// managers; the Wayland compositors' first output stays 1280×800).
    pub fn start_sized(test: &str, kind: Kind, screen: (i64, i64)) -> Option<Desktop> {
        if !tools(test, kind.tools()) {
            return None;
        }
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "vd-{}-{}-{}",
            kind.name(),
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let xdg = dir.join("xdg");
        std::fs::create_dir_all(&xdg).expect("desktop folder");
        set_mode(&xdg, 0o700);
        let path = std::env::var("PATH").unwrap_or_default();
        let mut d = Desktop {
            kind,
            env: vec![
                ("PATH".into(), path),
                ("LANG".into(), "C.UTF-8".into()),
                ("XDG_RUNTIME_DIR".into(), xdg.display().to_string()),
            ],
            x_display: None,
            screen: if kind.on_xvfb() { screen } else { (1280, 800) },
            dir,
            kids: Kids::default(),
            desktop_kids: Kids::default(),
            _xvfb: None,
            hand: std::sync::Mutex::new(None),
        };
        match kind {
            Kind::Openbox | Kind::MutterX11 | Kind::KwinX11 => {
                let xvfb = Xvfb::start_sized(test, &format!("{}x{}x24", screen.0, screen.1))?;
                d.set_x(&xvfb.display.clone());
                d._xvfb = Some(xvfb);
                if kind == Kind::Openbox {
                    let env = d.env.clone();
                    crate::desktop::openbox(&mut d.desktop_kids, &env);
                } else {
                    // mutter and KWin as X11 window managers, each on a session bus.
                    let (wm, args): (&str, &[&str]) = if kind == Kind::KwinX11 {
                        ("kwin_x11", &["--replace"])
                    } else {
                        ("mutter", &["--x11", "--replace", "--sm-disable"])
                    };
                    d.session_bus();
                    let log = d.log(wm);
                    let pid = d
                        .desktop_kids
                        .spawn_logged(command(&d.env, wm).args(args), &log);
                    d.wait_x_wm(pid, wm);
                }
            }
            Kind::Mutter(xwayland) => {
                d.session_bus();
                let log = d.log("mutter");
                let mut args = vec![
                    "--headless",
                    "--virtual-monitor",
                    "1280x800",
                    "--wayland",
                    "--wayland-display",
                    "wayland-vd",
                ];
                if !xwayland {
                    args.push("--no-x11");
                }
                let pid = d
                    .desktop_kids
                    .spawn_logged(command(&d.env, "mutter").args(&args), &log);
                d.wait_socket(pid, "mutter", "wayland-vd");
                if xwayland {
                    // mutter says which display its XWayland took.
                    let shown = d.wait_log(pid, "mutter", &log, "Using public X11 display ");
                    let display = shown.split_whitespace().next().unwrap_or("").to_string();
                    // Its XWayland lets in only who holds the cookie mutter wrote.
                    let xdg = d.dir.join("xdg");
                    let auth = std::fs::read_dir(&xdg)
                        .into_iter()
                        .flatten()
                        .flatten()
                        .map(|e| e.path())
                        .find(|p| {
                            p.file_name().is_some_and(|n| {
                                n.to_string_lossy().starts_with(".mutter-Xwayland")
                            })
                        })
                        .expect("mutter's XWayland cookie");
                    d.env
                        .push(("XAUTHORITY".into(), auth.display().to_string()));
                    d.set_x(display.trim_end_matches(','));
                    d.wait_x(pid, "mutter's XWayland");
                }
            }
            Kind::Sway(xwayland) => d.start_sway(xwayland),
            Kind::Weston => {
                let log = d.log("weston");
                let pid = d.desktop_kids.spawn_logged(
                    command(&d.env, "weston").args([
                        "--backend=headless-backend.so",
                        "--width=1280",
                        "--height=800",
                        "--xwayland",
                        "--socket=wayland-vd",
                        "--idle-time=0",
                    ]),
                    &log,
                );
                d.wait_socket(pid, "weston", "wayland-vd");
                let shown = d.wait_log(pid, "weston", &log, "xserver listening on display ");
                d.set_x(shown.split_whitespace().next().unwrap_or(""));
                d.wait_x(pid, "weston's XWayland");
            }
            Kind::Kwin => {
                d.session_bus();
                // Debian's kwin_wayland carries the file capability cap_sys_resource, which a
                // container's bounding set refuses ("Operation not permitted" at exec): a copy
                // has none. It keeps its name: KWin's own Qt platform plugin loads only into a
                // program called kwin_wayland.
                let bin = d.dir.join("bin");
                std::fs::create_dir_all(&bin).expect("kwin's folder");
                let kwin = bin.join("kwin_wayland");
                let installed =
                    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
                        .map(|p| p.join("kwin_wayland"))
                        .find(|p| p.is_file())
                        .expect("kwin_wayland is on PATH");
                std::fs::copy(&installed, &kwin).expect("a copy of kwin_wayland");
                let display_file = d.dir.join("display");
                // KWin runs the program named after its options once XWayland is up, with
                // DISPLAY set to it (one path: it does not pass arguments through as given).
                let tell = d.dir.join("tell-display.sh");
                std::fs::write(
                    &tell,
                    format!(
                        "#!/bin/sh\necho \"$DISPLAY\" > '{}'\n",
                        display_file.display()
                    ),
                )
                .expect("a script for kwin");
                set_mode(&tell, 0o755);
                // KWin offers its fake input only to a program whose desktop file asks for it
                // by the program's own path: the person's hand of these tests
                // (`examples/wl_input.rs`), found through KWin's own data folder.
                let share = d.dir.join("share");
                let apps = share.join("applications");
                std::fs::create_dir_all(&apps).expect("kwin's applications folder");
                let helper = std::fs::canonicalize(input_helper()).expect("wl_input's path");
                std::fs::write(
                    apps.join("vults-tests-input.desktop"),
                    format!(
                        "[Desktop Entry]\nType=Application\nName=Vults tests' input\n\
                         NoDisplay=true\nExec={}\n\
                         X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input\n",
                        helper.display()
                    ),
                )
                .expect("the input helper's desktop file");
                let mut kwin_env = d.env.clone();
                for (var, dir) in [
                    ("XDG_DATA_HOME", share),
                    ("XDG_CONFIG_HOME", d.dir.join("config")),
                    ("XDG_CACHE_HOME", d.dir.join("cache")),
                ] {
                    kwin_env.push((var.into(), dir.display().to_string()));
                }
                let log = d.log("kwin");
                let pid = d.desktop_kids.spawn_logged(
                    command(&kwin_env, &kwin.display().to_string()).args([
                        "--virtual",
                        "--xwayland",
                        "--width",
                        "1280",
                        "--height",
                        "800",
                        "--socket",
                        "wayland-vd",
                        "--no-lockscreen",
                        "--no-kactivities",
                        "--no-global-shortcuts",
                        &tell.display().to_string(),
                    ]),
                    &log,
                );
                d.wait_socket(pid, "kwin_wayland", "wayland-vd");
                let display = wait_for(60, "KWin's XWayland display", || {
                    if let Some(s) = d.desktop_kids.ended(pid) {
                        panic!("kwin_wayland ended ({s}):\n{}", d.logs());
                    }
                    std::fs::read_to_string(&display_file)
                        .ok()
                        .map(|s| s.trim().to_string())
                        .filter(|s| s.starts_with(':'))
                });
                d.set_x(&display);
                d.wait_x(pid, "KWin's XWayland");
            }
        }
        Some(d)
    }

    /// The environment with `WAYLAND_DISPLAY` removed: what a program that must use X gets.
    pub fn x_env(&self) -> Vec<(String, String)> {
        self.env
            .iter()
            .filter(|(k, _)| k != "WAYLAND_DISPLAY")
            .cloned()
            .collect()
    }

    fn set_x(&mut self, display: &str) {
        assert!(
            display.starts_with(':'),
            "{}: no X display ({display:?})",
            self.kind.name()
        );
        self.x_display = Some(display.to_string());
        self.env.push(("DISPLAY".into(), display.to_string()));
    }

    fn log(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.log"))
    }

    /// What the desktop's own log says so far (for a failure's message).
    pub fn logs(&self) -> String {
        let mut all = String::new();
        for e in std::fs::read_dir(&self.dir).into_iter().flatten().flatten() {
            if e.path().extension().is_some_and(|x| x == "log") {
                let text = std::fs::read_to_string(e.path()).unwrap_or_default();
                let tail: Vec<&str> = text.lines().rev().take(30).collect();
                all.push_str(&format!("--- {}\n", e.path().display()));
                for l in tail.into_iter().rev() {
                    all.push_str(l);
                    all.push('\n');
                }
            }
        }
        all
    }

    /// A private session bus (mutter and KWin want one), killed with the desktop.
    fn session_bus(&mut self) {
        let address = format!("unix:path={}", self.dir.join("bus").display());
        let log = self.log("dbus");
        let pid = self.desktop_kids.spawn_logged(
            command(&self.env, "dbus-daemon").args([
                "--session",
                "--nofork",
                "--nopidfile",
                &format!("--address={address}"),
            ]),
            &log,
        );
        let socket = self.dir.join("bus");
        wait_for(20, "the session bus", || {
            if let Some(s) = self.desktop_kids.ended(pid) {
                panic!("dbus-daemon ended ({s})");
            }
            socket.exists().then_some(())
        });
        self.env
            .push(("DBUS_SESSION_BUS_ADDRESS".into(), address.clone()));
    }

    fn wait_socket(&mut self, pid: u32, what: &str, socket: &str) {
        let path = self.dir.join("xdg").join(socket);
        let started = self.desktop_kids.ended(pid).is_none();
        assert!(started, "{what} ended at once:\n{}", self.logs());
        wait_for(60, &format!("{what}'s Wayland socket"), || {
            if let Some(s) = self.desktop_kids.ended(pid) {
                panic!("{what} ended ({s}):\n{}", self.logs());
            }
            path.exists().then_some(())
        });
        self.env.push(("WAYLAND_DISPLAY".into(), socket.into()));
    }

    /// Waits until `log` has a line with `marker`; what follows it on that line.
    fn wait_log(&mut self, pid: u32, what: &str, log: &Path, marker: &str) -> String {
        wait_for(60, &format!("{what} to say {marker:?}"), || {
            if let Some(s) = self.desktop_kids.ended(pid) {
                panic!("{what} ended ({s}):\n{}", self.logs());
            }
            let text = std::fs::read_to_string(log).unwrap_or_default();
            text.lines()
                .find_map(|l| l.split_once(marker).map(|(_, rest)| rest.to_string()))
        })
    }

    /// Waits until the X server answers.
    fn wait_x(&mut self, pid: u32, what: &str) {
        let env = self.x_env();
        wait_for(60, &format!("{what} to answer"), || {
            if let Some(s) = self.desktop_kids.ended(pid) {
                panic!("{what}'s compositor ended ({s}):\n{}", self.logs());
            }
            run(&env, "xprop", &["-root", "-len", "1", "_NET_SUPPORTED"])
                .or_else(|_| run(&env, "xwininfo", &["-root"]))
                .ok()
        });
    }

    /// Waits until an X window manager manages the screen.
    fn wait_x_wm(&mut self, pid: u32, what: &str) {
        let env = self.x_env();
        wait_for(60, what, || {
            if let Some(s) = self.desktop_kids.ended(pid) {
                panic!(
                    "{what} ended before it managed the screen ({s}):\n{}",
                    self.logs()
                );
            }
            run(&env, "xprop", &["-root", "_NET_SUPPORTING_WM_CHECK"])
                .ok()
                .filter(|o| o.contains("window id"))
        });
    }

    fn start_sway(&mut self, xwayland: bool) {
        let root = unsafe_getuid() == 0;
        if root && run(&self.env, "id", &[SWAY_USER]).is_err() {
            run(&self.env, "useradd", &["-m", SWAY_USER])
                .unwrap_or_else(|e| panic!("the user sway runs as: {e}"));
        }
        let conf = self.dir.join("sway.conf");
        std::fs::write(
            &conf,
            format!(
                "output HEADLESS-1 resolution 1280x800\nxwayland {}\ndefault_border none\n\
                 focus_follows_mouse no\n",
                if xwayland { "enable" } else { "disable" }
            ),
        )
        .expect("sway.conf");
        let xdg = self.dir.join("xdg");
        if root {
            for p in [&self.dir, &xdg] {
                run(&self.env, "chown", &[SWAY_USER, &p.display().to_string()])
                    .unwrap_or_else(|e| panic!("{e}"));
            }
        }
        let mut sway_env = vec![
            (
                "PATH".to_string(),
                std::env::var("PATH").unwrap_or_default(),
            ),
            ("XDG_RUNTIME_DIR".into(), xdg.display().to_string()),
            ("WLR_BACKENDS".into(), "headless".into()),
            ("WLR_LIBINPUT_NO_DEVICES".into(), "1".into()),
            ("WLR_RENDERER".into(), "pixman".into()),
        ];
        let conf = conf.display().to_string();
        let log = self.log("sway");
        let mut cmd = if root {
            sway_env.push(("HOME".into(), format!("/home/{SWAY_USER}")));
            let mut c = command(&sway_env, "setpriv");
            c.args([
                &format!("--reuid={SWAY_USER}"),
                &format!("--regid={SWAY_USER}"),
                "--init-groups",
                "sway",
                "-c",
                &conf,
            ]);
            c
        } else {
            sway_env.push(("HOME".into(), std::env::var("HOME").unwrap_or_default()));
            let mut c = command(&sway_env, "sway");
            c.args(["-c", &conf]);
            c
        };
        // setpriv writes the log as root before it drops to the user.
        let pid = self.desktop_kids.spawn_logged(&mut cmd, &log);
        let ipc = wait_for(60, "sway's IPC socket", || {
            if let Some(s) = self.desktop_kids.ended(pid) {
                panic!("sway ended ({s}):\n{}", self.logs());
            }
            std::fs::read_dir(&xdg)
                .ok()?
                .flatten()
                .map(|e| e.path())
                .find(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("sway-ipc"))
                })
        });
        self.env
            .push(("SWAYSOCK".into(), ipc.display().to_string()));
        let socket = wait_for(60, "sway's Wayland socket", || {
            std::fs::read_dir(&xdg)
                .ok()?
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .find(|n| n.starts_with("wayland-") && !n.ends_with(".lock"))
        });
        self.env.push(("WAYLAND_DISPLAY".into(), socket));
        if xwayland {
            // sway starts XWayland for what it runs: ask a child which display it has, and
            // let root's clients in.
            let file = self.dir.join("display");
            self.swaymsg(&["exec", &format!("echo $DISPLAY > {}", file.display())]);
            let display = wait_for(30, "sway's XWayland display", || {
                std::fs::read_to_string(&file)
                    .ok()
                    .map(|s| s.trim().to_string())
                    .filter(|s| s.starts_with(':'))
            });
            self.swaymsg(&["exec", "xhost +si:localuser:root"]);
            self.set_x(&display);
            self.wait_x(pid, "sway's XWayland");
        }
    }

    /// Runs `swaymsg args`; its output (panics when it fails).
    pub fn swaymsg(&self, args: &[&str]) -> String {
        let out = run(&self.env, "swaymsg", args).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            !out.contains("\"success\": false"),
            "swaymsg {args:?}: {out}"
        );
        out
    }

    /// Opens a terminal titled `title` in which `cat` writes what is typed to `file` (foot on
    /// native Wayland, xterm on X); waits until the desktop shows it and it has the keyboard.
    pub fn terminal(&mut self, title: &str, file: &Path) {
        let script = format!("exec cat > '{}'", file.display());
        self.terminal_running(title, &script);
    }

    /// Opens a terminal titled `title` running `sh -c script` (as [`Desktop::terminal`] does,
    /// at the same place) and waits until the desktop shows it and it has the keyboard; the
    /// terminal's pid.
    pub fn terminal_running(&mut self, title: &str, script: &str) -> u32 {
        let wayland_terminal = !self.kind.x11();
        let pid = if wayland_terminal {
            let mut c = command(&self.env, "foot");
            c.args(["-T", title, "sh", "-c", script]);
            self.kids.spawn(&mut c)
        } else {
            let env = self.x_env();
            let mut c = command(&env, "xterm");
            c.args([
                "-T",
                title,
                "-geometry",
                "80x20+40+300",
                "-e",
                "sh",
                "-c",
                script,
            ]);
            self.kids.spawn(&mut c)
        };
        if self.kind.lists_windows() {
            wait_for(30, &format!("the terminal {title}"), || {
                self.windows().into_iter().find(|w| w.title == title)
            });
        }
        if self.kind.has_input() {
            self.focus(title);
        }
        pid
    }

    /// Opens a native Wayland terminal titled `title` over the whole screen (maximized; sway
    /// tiles it so) in which `cat` writes each key typed to `file` at once (the terminal in raw
    /// mode, no echo), beside the X windows of an XWayland desktop: foot, or on KWin
    /// weston-terminal (foot 1.13 dies of a division by zero on an output with no physical size,
    /// which is what `kwin_wayland --virtual` gives). Waits until the desktop shows it where
    /// the desktop lists Wayland windows (sway); the test waits for its keys itself.
    pub fn wayland_terminal(&mut self, title: &str, file: &Path) -> u32 {
        let script = format!(
            "printf '\\033]0;{title}\\007'; stty raw -echo; exec cat > '{}'",
            file.display()
        );
        let mut c = if self.kind == Kind::Kwin {
            let sh = self.dir.join(format!("{title}.sh"));
            std::fs::write(&sh, format!("#!/bin/sh\n{script}\n")).expect("the terminal's script");
            set_mode(&sh, 0o755);
            let mut c = command(&self.env, "weston-terminal");
            c.args(["--maximized", &format!("--shell={}", sh.display())]);
            c
        } else {
            let mut c = command(&self.env, "foot");
            c.args(["--maximized", "-T", title, "sh", "-c", &script]);
            c
        };
        let pid = self.kids.spawn(&mut c);
        if let Kind::Sway(_) = self.kind {
            wait_for(30, &format!("the terminal {title}"), || {
                self.windows().into_iter().find(|w| w.title == title)
            });
            self.focus(title);
        }
        pid
    }

    /// Opens a fullscreen X window titled `title` (`xterm -fullscreen`: a video call, a
    /// presentation) and waits until the desktop shows it over the whole first monitor and,
    /// where the test has input, gives it the keyboard; its pid, for [`Desktop::close`].
    pub fn fullscreen_window(&mut self, title: &str) -> u32 {
        let env = self.x_env();
        let mut c = command(&env, "xterm");
        c.args([
            "-fullscreen",
            "-T",
            title,
            "-e",
            "sh",
            "-c",
            "exec sleep 600",
        ]);
        let pid = self.kids.spawn(&mut c);
        wait_for(30, &format!("{title} over the whole screen"), || {
            self.windows()
                .into_iter()
                .find(|w| w.title == title && w.rect.x == 0 && w.rect.y == 0 && w.rect.w >= 1280)
        });
        if self.kind.has_input() {
            self.focus(title);
        }
        pid
    }

    /// Ends a program started on the desktop (its windows go with it).
    pub fn close(&mut self, pid: u32) {
        self.kids.kill(pid);
    }

    /// Gives the window titled `title` the keyboard, the desktop's way, and waits for it.
    pub fn focus(&self, title: &str) {
        match self.kind {
            Kind::Sway(_) => {
                self.swaymsg(&[&format!("[title=\"^{title}$\"]"), "focus"]);
            }
            _ => {
                // Waited for, not read once: a list taken while another window comes or goes
                // can miss this one (see `windows`).
                let w = wait_for(10, &format!("the X window {title}"), || {
                    self.windows()
                        .into_iter()
                        .find(|w| w.title == title)
                        .and_then(|w| w.x_id)
                });
                let env = self.x_env();
                let _ = run(
                    &env,
                    "xdotool",
                    &["windowactivate", "--sync", &w.to_string()],
                );
                // Where no window manager hands the keyboard over (weston headless has no
                // keyboard of its own), the X server's focus is set directly.
                let _ = run(&env, "xdotool", &["windowfocus", "--sync", &w.to_string()]);
            }
        }
        wait_for(10, &format!("{title} to have the keyboard"), || {
            (self.focused().as_deref() == Some(title)).then_some(())
        });
    }

    /// The title of the window with the keyboard: the compositor's say on sway, the X
    /// server's input focus elsewhere.
    pub fn focused(&self) -> Option<String> {
        match self.kind {
            Kind::Sway(_) => {
                let tree = self.sway_tree();
                let mut found = None;
                walk(&tree, &mut |n| {
                    if n["focused"] == true && n["type"] != "workspace" && n["type"] != "output" {
                        found = Some((
                            n["name"].as_str().unwrap_or("").to_string(),
                            n["shell"] == "xwayland",
                        ));
                    }
                });
                match found? {
                    // The keyboard is XWayland's: it hands keys to the X server's input focus,
                    // which an X client may have moved to a window sway does not manage (an
                    // override-redirect one).
                    (_, true) => self.x_focus(),
                    (name, false) => Some(name),
                }
            }
            _ => self.x_focus(),
        }
    }

    /// The title of the X server's input focus.
    fn x_focus(&self) -> Option<String> {
        run(
            &self.x_env(),
            "xdotool",
            &["getwindowfocus", "getwindowname"],
        )
        .ok()
        .map(|s| s.trim().to_string())
    }

    fn sway_tree(&self) -> serde_json::Value {
        serde_json::from_str(&self.swaymsg(&["-t", "get_tree", "-r"])).expect("sway's tree")
    }

    /// Whether sway marks a window whose title starts with `title` urgent (a client asked for
    /// attention: xdg-activation from an unfocused window); `None` on other desktops.
    pub fn urgent(&self, title: &str) -> Option<bool> {
        let Kind::Sway(_) = self.kind else {
            return None;
        };
        let mut urgent = false;
        walk(&self.sway_tree(), &mut |n| {
            if n["pid"].is_number()
                && n["name"].as_str().is_some_and(|t| t.starts_with(title))
                && n["urgent"] == true
            {
                urgent = true;
            }
        });
        Some(urgent)
    }

    /// The windows on screen: sway's tree, and the X server's mapped windows with a title
    /// (its override-redirect ones among them, which sway's tree does not hold).
    pub fn windows(&self) -> Vec<Window> {
        let mut all = Vec::new();
        if let Kind::Sway(_) = self.kind {
            walk(&self.sway_tree(), &mut |n| {
                if n["pid"].is_number() && n["visible"] == true {
                    let r = &n["rect"];
                    all.push(Window {
                        title: n["name"].as_str().unwrap_or("").to_string(),
                        rect: Rect {
                            x: r["x"].as_i64().unwrap_or(0),
                            y: r["y"].as_i64().unwrap_or(0),
                            w: r["width"].as_i64().unwrap_or(0),
                            h: r["height"].as_i64().unwrap_or(0),
                        },
                        x_id: n["window"].as_u64().map(|w| w as u32),
                    });
                }
            });
        }
        if self.x_display.is_some() {
            let env = self.x_env();
            // xdotool dies on the X error of a window that went away while it walked the tree
            // (a card closing, a terminal starting): such a walk is taken again.
            let ids = (0..5)
                .find_map(|_| {
                    run(&env, "xdotool", &["search", "--onlyvisible", "--name", "."]).ok()
                })
                .unwrap_or_default();
            for id in ids.lines().filter_map(|l| l.trim().parse::<u32>().ok()) {
                if all.iter().any(|w: &Window| w.x_id == Some(id)) {
                    continue;
                }
                let Some((title, rect)) = x_window(&env, id) else {
                    continue;
                };
                all.push(Window {
                    title,
                    rect,
                    x_id: Some(id),
                });
            }
        }
        all
    }

    /// Whether the person's input goes in through the compositor's own device here
    /// (`examples/wl_input.rs`), not XTEST.
    fn by_hand(&self) -> bool {
        matches!(self.kind, Kind::Sway(_) | Kind::Kwin | Kind::Mutter(true))
    }

    /// How a person's input reaches this desktop in the tests, for the matrix's cells: through
    /// the compositor (sway, KWin), or XTEST, which is the person's own path on an X server
    /// (X11 window managers) and goes behind a Wayland compositor's back under XWayland.
    pub fn input_path(&self) -> &'static str {
        match self.kind {
            Kind::Sway(_) => "wlroots virtual pointer and keyboard",
            Kind::Kwin => "KWin fake input",
            Kind::Mutter(_) => "mutter RemoteDesktop",
            Kind::Weston => "none (no input device headless)",
            Kind::Openbox | Kind::MutterX11 | Kind::KwinX11 => "XTEST, the X server's own input",
        }
    }

    /// Runs `f` with the person's hand on this compositor, started at the first use.
    fn with_hand<T>(&self, f: impl FnOnce(&mut Hand) -> T) -> T {
        let mut hand = self.hand.lock().unwrap();
        let hand = hand.get_or_insert_with(|| {
            let mutter = self.kind == Kind::Mutter(true);
            let mut h = Hand::start(&self.env, &input_helper(), mutter);
            h.send(&format!("size {} {}", self.screen.0, self.screen.1));
            h
        });
        f(hand)
    }

    /// Moves the pointer to `(x, y)` without clicking, the desktop's way.
    pub fn point(&self, x: i64, y: i64) {
        if self.by_hand() {
            self.with_hand(|h| h.send(&format!("move {x} {y}")));
            return;
        }
        let (x, y) = (x.to_string(), y.to_string());
        run(&self.x_env(), "xdotool", &["mousemove", "--sync", &x, &y])
            .or_else(|_| run(&self.x_env(), "xdotool", &["mousemove", &x, &y]))
            .unwrap_or_else(|e| panic!("{e}"));
    }

    /// Clicks the first button at `(x, y)` on the screen, the desktop's way: through the
    /// compositor where the test has its device (sway's virtual pointer, KWin's fake input:
    /// the compositor decides who gets the click and the keyboard, as for a hand's), XTEST
    /// elsewhere.
    pub fn click(&self, x: i64, y: i64) {
        if self.by_hand() {
            self.with_hand(|hand| {
                hand.send(&format!("move {x} {y}"));
                // The X windows at the point (a card over a terminal): XWayland's pointer must
                // be in one of them before the press, or the press reaches no button.
                let under: Vec<String> = if self.x_display.is_some() {
                    self.windows()
                        .iter()
                        .filter(|w| {
                            (w.rect.x..w.rect.x + w.rect.w).contains(&x)
                                && (w.rect.y..w.rect.y + w.rect.h).contains(&y)
                        })
                        .filter_map(|w| w.x_id.map(|id| format!("window:{id}")))
                        .collect()
                } else {
                    Vec::new()
                };
                if !under.is_empty() {
                    // XWayland binds the seat's pointer only once the seat has one, so the
                    // first motion may come before it listens; and XWayland keeps the place
                    // where its pointer last was while the pointer is over a Wayland window,
                    // so the place alone proves nothing: move until XWayland's pointer is
                    // there and over the window (read, never moved, through XWayland).
                    let env = self.x_env();
                    let there = format!("x:{x} y:{y} ");
                    let mut n = 0;
                    wait_for(20, &format!("XWayland's pointer at {x},{y}"), || {
                        let at = run(&env, "xdotool", &["getmouselocation"]).unwrap_or_default();
                        if at.starts_with(&there)
                            && at.split_whitespace().any(|f| under.iter().any(|w| w == f))
                        {
                            return Some(());
                        }
                        n += 1;
                        hand.send(&format!("move {} {y}", x - 1 - (n % 2)));
                        hand.send(&format!("move {x} {y}"));
                        None
                    });
                }
                hand.send("click");
            });
            return;
        }
        let (x, y) = (x.to_string(), y.to_string());
        let env = self.x_env();
        run(&env, "xdotool", &["mousemove", "--sync", &x, &y])
            .or_else(|_| run(&env, "xdotool", &["mousemove", &x, &y]))
            .unwrap_or_else(|e| panic!("{e}"));
        run(&env, "xdotool", &["click", "1"]).unwrap_or_else(|e| panic!("{e}"));
    }

    /// Clicks at `(x, y)` on a native Wayland window (a terminal beside XWayland's windows), as
    /// a hand does: the pointer moves there and a little about it, then clicks. XWayland is not
    /// waited for: the pointer is not its there (mutter's XWayland also keeps a window over the
    /// whole screen, its guard window, under every other, which [`Desktop::click`] would wait
    /// for in vain).
    pub fn click_wayland_window(&self, x: i64, y: i64) {
        assert!(self.by_hand(), "no Wayland input on {}", self.kind.name());
        self.with_hand(|hand| {
            for (dx, dy) in [(-6, 0), (-3, 2), (0, 0)] {
                hand.send(&format!("move {} {}", x + dx, y + dy));
            }
            hand.send("click");
        });
    }

    /// Types `key` (an X keysym name: `a`, `Return`) into whatever has the keyboard.
    pub fn key(&self, key: &str) {
        self.chord(key);
    }

    /// Types a chord (`ctrl+alt+y`: X keysym names joined by `+`, the last one the key) into
    /// whatever has the keyboard, the desktop's way: the compositor's own virtual keyboard on
    /// sway (one for the whole run, as a person has one: sway gives its keyboard back to the
    /// focused window whenever a keyboard is added, so `wtype`'s new keyboard for each key
    /// took the keys from a card a click had given them), KWin's fake input on KWin, XTEST
    /// elsewhere.
    pub fn chord(&self, chord: &str) {
        if self.by_hand() {
            let codes: Vec<String> = chord.split('+').map(|k| evdev_key(k).to_string()).collect();
            self.with_hand(|h| h.send(&format!("key {}", codes.join(" "))));
            return;
        }
        run(&self.x_env(), "xdotool", &["key", chord]).unwrap_or_else(|e| panic!("{e}"));
    }

    /// Saves a picture of the whole screen to `path` (PNG); a line on stderr when it cannot.
    pub fn screenshot(&self, path: &Path) {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let file = path.display().to_string();
        let done = match self.kind {
            Kind::Sway(_) => run(&self.env, "grim", &[&file]),
            _ if self.x_display.is_some() => {
                run(&self.x_env(), "import", &["-window", "root", &file])
            }
            _ => Err("no screenshot tool for this desktop".to_string()),
        };
        match done {
            Ok(_) => eprintln!("{}: screenshot {file}", self.kind.name()),
            Err(e) => eprintln!("{}: no screenshot: {e}", self.kind.name()),
        }
    }

    /// The X server's monitors (RandR, as `xrandr --listmonitors` says): name and rectangle.
    pub fn monitors(&self) -> Vec<(String, Rect)> {
        let out = run(&self.x_env(), "xrandr", &["--listmonitors"]).unwrap_or_default();
        out.lines().filter_map(monitor_line).collect()
    }

    /// Adds a second 1280×800 monitor to the right of the first and waits until the X server
    /// lists it; its name and rectangle. On an `Xvfb` (started 2560 wide by
    /// [`Desktop::start_sized`]) the screen is split in two RandR monitors, `LEFT` and `RIGHT`
    /// (`xrandr --setmonitor`, as a second screen shows itself to X clients); on sway a second
    /// headless output (`create_output`) placed to the right.
    pub fn second_monitor(&mut self) -> (String, Rect) {
        let right = Rect {
            x: 1280,
            y: 0,
            w: 1280,
            h: 800,
        };
        match self.kind {
            kind if kind.on_xvfb() => {
                assert!(self.screen.0 >= 2560, "start_sized with a 2560 wide screen");
                let env = self.x_env();
                for (name, at, output) in [("LEFT", "+0+0", "screen"), ("RIGHT", "+1280+0", "none")]
                {
                    let geometry = format!("1280/339x800/212{at}");
                    run(&env, "xrandr", &["--setmonitor", name, &geometry, output])
                        .unwrap_or_else(|e| panic!("{e}"));
                }
            }
            Kind::Sway(true) => {
                let before: Vec<String> = self.sway_outputs();
                self.swaymsg(&["create_output"]);
                let name = wait_for(20, "sway's second output", || {
                    self.sway_outputs()
                        .into_iter()
                        .find(|n| !before.contains(n))
                });
                // sway lays out again the outputs it was not told where to put: both are told.
                self.swaymsg(&["output", "HEADLESS-1", "position", "0", "0"]);
                self.swaymsg(&[
                    "output",
                    &name,
                    "resolution",
                    "1280x800",
                    "position",
                    "1280",
                    "0",
                ]);
                self.screen = (2560, 800);
            }
            kind => panic!("no second monitor on {}", kind.name()),
        }
        wait_for(20, "the X server's second monitor", || {
            self.monitors().into_iter().find(|(_, r)| *r == right)
        })
    }

    /// Takes the monitor `name` (from [`Desktop::second_monitor`]) away and waits until the X
    /// server no longer lists it. X11 window managers only: sway 1.7 answers `output … disable`
    /// for a headless output with success and keeps it (and has no `unplug` yet).
    pub fn drop_monitor(&mut self, name: &str) {
        assert!(
            self.kind.on_xvfb(),
            "no monitor leaves {}",
            self.kind.name()
        );
        run(&self.x_env(), "xrandr", &["--delmonitor", name]).unwrap_or_else(|e| panic!("{e}"));
        wait_for(20, &format!("the monitor {name} to go"), || {
            (!self.monitors().iter().any(|(n, _)| n == name)).then_some(())
        });
    }

    fn sway_outputs(&self) -> Vec<String> {
        let outputs: serde_json::Value =
            serde_json::from_str(&self.swaymsg(&["-t", "get_outputs", "-r"])).expect("outputs");
        outputs
            .as_array()
            .into_iter()
            .flatten()
            .filter(|o| o["active"] == true)
            .filter_map(|o| o["name"].as_str().map(str::to_string))
            .collect()
    }

    /// The part of the screen no panel covers: `_NET_WORKAREA` where the X server has it,
    /// else the whole screen less the panels this desktop is known to draw (weston's 32 px at
    /// the top).
    pub fn work_area(&self) -> Rect {
        let (w, h) = self.screen;
        if self.x_display.is_some()
            && let Ok(o) = run(&self.x_env(), "xprop", &["-root", "_NET_WORKAREA"])
            && let Some((_, v)) = o.split_once(" = ")
        {
            let n: Vec<i64> = v
                .split(',')
                .take(4)
                .filter_map(|s| s.trim().parse().ok())
                .collect();
            if let [x, y, w, h] = n[..] {
                return Rect { x, y, w, h };
            }
        }
        let top = if self.kind == Kind::Weston { 32 } else { 0 };
        Rect {
            x: 0,
            y: top,
            w,
            h: h - top,
        }
    }
}

impl Drop for Desktop {
    fn drop(&mut self) {
        // What ran on the desktop first, then the desktop.
        if let Ok(mut p) = self.hand.lock() {
            drop(p.take());
        }
        drop(std::mem::take(&mut self.kids));
        drop(std::mem::take(&mut self.desktop_kids));
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn walk(n: &serde_json::Value, f: &mut impl FnMut(&serde_json::Value)) {
    f(n);
    for key in ["nodes", "floating_nodes"] {
        for c in n[key].as_array().into_iter().flatten() {
            walk(c, f);
        }
    }
}

/// An X window's title and place on the screen (`xwininfo`).
fn x_window(env: &crate::desktop::Env, id: u32) -> Option<(String, Rect)> {
    let text = run(env, "xwininfo", &["-id", &id.to_string()]).ok()?;
    let field = |name: &str| -> Option<i64> {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
    };
    // xdotool gives the title as the window has it (UTF-8), xwininfo in the locale's charset.
    let title = run(env, "xdotool", &["getwindowname", &id.to_string()])
        .ok()?
        .trim_end_matches('\n')
        .to_string();
    Some((
        title,
        Rect {
            x: field("Absolute upper-left X:")?,
            y: field("Absolute upper-left Y:")?,
            w: field("Width:")?,
            h: field("Height:")?,
        },
    ))
}

/// One monitor of `xrandr --listmonitors`: ` 0: +*screen 2560/677x800/212+0+0  screen`.
fn monitor_line(line: &str) -> Option<(String, Rect)> {
    let mut words = line.split_whitespace();
    words.next().filter(|w| w.ends_with(':'))?;
    let name = words.next()?.trim_start_matches(['+', '*']).to_string();
    let (size, at) = words.next()?.split_once('+')?;
    let (w, h) = size.split_once('x')?;
    let number = |s: &str| s.split('/').next()?.parse::<i64>().ok();
    let (x, y) = at.split_once('+')?;
    Some((
        name,
        Rect {
            x: x.parse().ok()?,
            y: y.parse().ok()?,
            w: number(w)?,
            h: number(h)?,
        },
    ))
}

fn set_mode(p: &Path, mode: u32) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode));
    }
    let _ = (p, mode);
}

fn unsafe_getuid() -> u32 {
    #[cfg(unix)]
    {
        // SAFETY: getuid has no preconditions and cannot fail.
        unsafe { libc::getuid() }
    }
    #[cfg(not(unix))]
    {
        1
    }
}

/// Waits `secs` at most for `f`; whether it held (for conditions a test reports itself).
pub fn holds_within(secs: u64, mut f: impl FnMut() -> bool) -> bool {
    let until = std::time::Instant::now() + Duration::from_secs(secs);
    loop {
        if f() {
            return true;
        }
        if std::time::Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[cfg(test)]
mod monitor_tests {
    use super::*;

    #[test]
    fn xrandr_lists_monitors_by_name_and_place() {
        assert_eq!(
            monitor_line(" 1: +*screen 2560/677x800/212+0+0  screen"),
            Some((
                "screen".into(),
                Rect {
                    x: 0,
                    y: 0,
                    w: 2560,
                    h: 800
                }
            ))
        );
        assert_eq!(
            monitor_line(" 0: RIGHT 1280/339x800/212+1280+0 ").map(|m| m.1.x),
            Some(1280)
        );
        assert_eq!(monitor_line("Monitors: 2"), None);
    }
}
