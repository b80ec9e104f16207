//! Finding the place: from the agent's process up to its terminal, and what to run to show it.
//!
//! Everything here only reads (the process table, multiplexers' lists of panes and clients,
//! through [`System`]), so a test gives it a made-up system and checks the [`Plan`]: which
//! commands choose the pane or tab ([`Choose`]), and how the window is raised ([`Raise`]).
//! Running a plan is [`crate::exec`].

mod ssh;
use crate::kinds::{self, Editor, Emulator, Mux, Platform, Role};
use crate::outcome::{Failure, FailureKind, said};
use crate::place::Place;
use crate::procs::{self, Env, Process, Table};
use std::path::{Path, PathBuf};
use vults_i18n::Message;

pub(crate) use crate::run::Cmd;

/// A command that chooses the agent's pane or tab.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Choose {
    pub cmd: Cmd,
    /// What it chooses ("tmux pane %3"), for the reason when it fails.
    pub what: Message,
    /// Its failure ends the show (the pane is gone); otherwise the window is still raised and
    /// the failure becomes the caveat.
    pub fatal: bool,
    /// Said when it fails, e.g. how to turn a terminal's remote control on.
    pub hint: Option<Message>,
}

/// One way to bring a window forward; a plan tries them in order until one works.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Raise {
    /// `_NET_ACTIVE_WINDOW` for the top-level window of `window` (`WINDOWID`), else the window
    /// whose `_NET_WM_PID` is `pid` (the one whose title names `title` when it has several).
    X11 {
        display: String,
        window: Option<u32>,
        pid: u32,
        title: Option<String>,
    },
    /// sway's IPC: `[pid=N] focus`.
    Sway { socket: PathBuf, pid: u32 },
    /// Hyprland's socket: `dispatch focuswindow pid:N` (the first socket that exists).
    Hyprland { sockets: Vec<PathBuf>, pid: u32 },
    /// A KWin script (D-Bus) that activates the window of `pid`.
    Kwin { pid: u32 },
    /// The editor's command line: `code <folder>` shows the window that has the folder open.
    Editor {
        cli: PathBuf,
        folder: String,
        label: &'static str,
    },
    /// Terminal.app: the tab whose tty is `tty`, by AppleScript.
    MacTerminal { tty: String },
    /// iTerm2: the session whose unique id is `session` (or whose tty is `tty`), by AppleScript.
    MacIterm {
        session: Option<String>,
        tty: Option<String>,
    },
    /// Any Mac app: `open -a <bundle>`.
    MacApp { app: PathBuf },
    /// Windows: the console window `pid` is attached to (for Windows Terminal, the window that
    /// owns its console), `SetForegroundWindow`.
    WinConsole { pid: u32 },
    /// Windows: the first visible top-level window of `pid`, `SetForegroundWindow`.
    WinWindowOf { pid: u32 },
}

/// What "Show terminal" will do for one place: choose its pane or tab, then raise the window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Innermost first: "tmux pane %3", "xterm (pid 300)".
    pub(crate) layers: Vec<Message>,
    pub(crate) choose: Vec<Choose>,
    pub(crate) raise: Vec<Raise>,
    /// Said when every way to raise fails (or there is none): the desktop's own reason.
    pub(crate) cannot_raise: Option<Failure>,
    pub(crate) caveats: Vec<Message>,
}

impl Plan {
    fn new() -> Plan {
        Plan {
            layers: Vec::new(),
            choose: Vec::new(),
            raise: Vec::new(),
            cannot_raise: None,
            caveats: Vec::new(),
        }
    }

    /// Where the agent was found, one line: "tmux pane %3 (window @1, session work) in xterm
    /// (pid 300)".
    pub fn found(&self) -> Message {
        self.layers
            .iter()
            .cloned()
            .reduce(|inner, outer| {
                Message::new("terminal-found-in")
                    .arg("inner", inner)
                    .arg("outer", outer)
            })
            .unwrap_or_else(|| said(""))
    }
}

impl std::fmt::Display for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.found())
    }
}

/// The desktop Vults runs in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Desktop {
    /// X11's `DISPLAY` (XWayland's too).
    pub x11: Option<String>,
    /// The Wayland compositor, in a Wayland session.
    pub wayland: Option<Compositor>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Compositor {
    Sway(PathBuf),
    Hyprland(Vec<PathBuf>),
    Kde,
    Gnome,
    Other(String),
}

impl Desktop {
    /// From Vults' own environment.
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Desktop {
        let set = |k: &str| get(k).filter(|v| !v.is_empty());
        let wayland = (set("WAYLAND_DISPLAY").is_some()
            || set("WAYLAND_SOCKET").is_some()
            || set("XDG_SESSION_TYPE").as_deref() == Some("wayland"))
        .then(|| {
            let current = set("XDG_CURRENT_DESKTOP").unwrap_or_default();
            if let Some(sock) = set("SWAYSOCK") {
                Compositor::Sway(sock.into())
            } else if let Some(sig) =
                set("HYPRLAND_INSTANCE_SIGNATURE").filter(|s| !s.contains('/') && !s.contains(".."))
            {
                let mut sockets = Vec::new();
                if let Some(run) = set("XDG_RUNTIME_DIR") {
                    sockets.push(Path::new(&run).join("hypr").join(&sig).join(".socket.sock"));
                }
                sockets.push(Path::new("/tmp/hypr").join(&sig).join(".socket.sock"));
                Compositor::Hyprland(sockets)
            } else if current.split(':').any(|d| d.eq_ignore_ascii_case("KDE")) {
                Compositor::Kde
            } else if current.split(':').any(|d| d.eq_ignore_ascii_case("GNOME")) {
                Compositor::Gnome
            } else if current.is_empty() {
                Compositor::Other(UNNAMED_COMPOSITOR.into())
            } else {
                Compositor::Other(current)
            }
        });
        Desktop {
            x11: set("DISPLAY"),
            wayland,
        }
    }
}

/// What planning reads of the system, beside the process table.
pub(crate) trait System: Table {
    fn platform(&self) -> Platform;
    fn desktop(&self) -> Desktop;
    /// Runs a program that only reads (a multiplexer's panes and clients) for a few seconds at
    /// most: its stdout, or one line saying why not.
    fn query(&self, cmd: &Cmd) -> Result<String, Message>;
    /// A program on `PATH`.
    fn find_program(&self, name: &str) -> Option<PathBuf>;
    fn is_file(&self, path: &Path) -> bool;
    fn is_dir(&self, path: &Path) -> bool;
    /// Vults' own pid: an agent under it is one Vults started (a headless Zeca task).
    fn own_pid(&self) -> u32;
}

/// The real system.
pub(crate) struct LiveSystem {
    desktop: Desktop,
}

impl LiveSystem {
    pub fn new() -> LiveSystem {
        LiveSystem {
            desktop: Desktop::from_env(|k| std::env::var(k).ok()),
        }
    }
}

impl Table for LiveSystem {
    fn process(&self, pid: u32) -> Option<Process> {
        procs::SystemTable.process(pid)
    }
    fn processes(&self) -> Vec<Process> {
        procs::SystemTable.processes()
    }
    fn environ(&self, pid: u32) -> Option<Env> {
        procs::SystemTable.environ(pid)
    }
}

impl System for LiveSystem {
    fn platform(&self) -> Platform {
        Platform::current()
    }
    fn desktop(&self) -> Desktop {
        self.desktop.clone()
    }
    fn query(&self, cmd: &Cmd) -> Result<String, Message> {
        crate::run::output(cmd)
    }
    fn find_program(&self, name: &str) -> Option<PathBuf> {
        crate::run::find_program(name)
    }
    fn is_file(&self, path: &Path) -> bool {
        path.is_file()
    }
    fn is_dir(&self, path: &Path) -> bool {
        path.is_dir()
    }
    fn own_pid(&self) -> u32 {
        std::process::id()
    }
}

/// The variables whose value, when the event and the live process both have them and they
/// differ, say the pid now belongs to another program.
const IDENTIFYING: &[&str] = &[
    "TMUX_PANE",
    "KITTY_WINDOW_ID",
    "WEZTERM_PANE",
    "WINDOWID",
    "ITERM_SESSION_ID",
    "TERM_SESSION_ID",
    "WT_SESSION",
    "ZELLIJ_PANE_ID",
    "STY",
    "VULTS_TASK",
];

/// A process that started this long after the event arrived is not the agent that sent it.
const STARTED_AFTER_SLACK_MS: u64 = 2_000;

/// The plan for `place` on `sys`.
pub(crate) fn plan_for(place: &Place, sys: &dyn System) -> Result<Plan, Failure> {
    let mut walk = Walk {
        sys,
        plan: Plan::new(),
        cwd: place.cwd.clone(),
        depth: 0,
    };
    if let Some(host) = &place.host {
        ssh::plan_host(&mut walk, host, place)?;
        return Ok(walk.plan);
    }
    let Some(pid) = place.pid else {
        return Err(Failure::new(
            FailureKind::NotFound,
            Message::new("terminal-failure-no-pid"),
        ));
    };
    let ended = || {
        Failure::new(
            FailureKind::Ended,
            Message::new("terminal-failure-ended").arg("pid", pid),
        )
    };
    let agent = sys.process(pid).ok_or_else(ended)?;
    if let (Some(seen), Some(started)) = (place.seen, agent.started_ms) {
        let seen_ms = seen
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        if started > seen_ms + STARTED_AFTER_SLACK_MS {
            return Err(ended());
        }
    }
    let live = sys.environ(pid).unwrap_or_default();
    for key in IDENTIFYING {
        if let (Some(said), Some(now)) = (place.env.get(*key), live.get(*key))
            && said != now
        {
            return Err(ended());
        }
    }
    // What the event said first; the live environment fills in what the hook does not send
    // (KITTY_LISTEN_ON, WINDOW, WEZTERM_UNIX_SOCKET, KONSOLE_DBUS_WINDOW, …).
    let mut env = live;
    env.extend(place.env.clone());
    walk.locate(&agent, &env)?;
    Ok(walk.plan)
}

/// A walk in progress: the plan so far and how deep in multiplexers it is.
pub(crate) struct Walk<'a> {
    pub sys: &'a dyn System,
    pub plan: Plan,
    /// The agent's folder (for an editor's window).
    pub cwd: Option<String>,
    pub depth: u8,
}

/// Multiplexer in multiplexer in … at most this deep.
const MAX_NESTING: u8 = 4;

impl Walk<'_> {
    /// From `start` (the agent, or a multiplexer client) and its environment up to the
    /// terminal it runs in.
    pub fn locate(&mut self, start: &Process, env: &Env) -> Result<(), Failure> {
        if self.depth > MAX_NESTING {
            return Err(Failure::new(
                FailureKind::NotFound,
                Message::new("terminal-failure-too-deep"),
            ));
        }
        let platform = self.sys.platform();
        let chain = procs::ancestors(self.sys, start.pid);
        for (i, p) in chain.iter().enumerate() {
            if p.pid == self.sys.own_pid() {
                return Err(Failure::new(
                    FailureKind::NoTerminal,
                    Message::new("terminal-failure-headless"),
                ));
            }
            match kinds::classify(p, platform) {
                None => continue,
                // `start` is a multiplexer's client (or the agent): never its own server.
                Some(Role::Mux(_)) if i == 0 => continue,
                Some(Role::Mux(m)) => {
                    let below = &chain[..i];
                    return match m {
                        Mux::Tmux => self.tmux(p, below, env),
                        Mux::Screen => self.screen(p, env),
                        Mux::Zellij => self.zellij(p, env),
                    };
                }
                Some(Role::Emulator(kind)) => return self.emulator(kind, p, start, env),
                Some(Role::Editor(kind)) => return self.editor(kind, &chain[i..]),
                Some(Role::SshLogin) => {
                    let from = env
                        .get("SSH_CONNECTION")
                        .and_then(|c| c.split_whitespace().next());
                    let message = match from {
                        Some(ip) => {
                            Message::new("terminal-failure-ssh-login-from").arg("address", ip)
                        }
                        None => Message::new("terminal-failure-ssh-login"),
                    };
                    return Err(Failure::new(FailureKind::Elsewhere, message));
                }
                Some(Role::Boundary) => break,
            }
        }
        if platform == Platform::Windows {
            // A console program with no terminal above it: its console window (conhost), or
            // the Windows Terminal window that took the console over (default terminal).
            let label = if env.contains_key("WT_SESSION") {
                said("Windows Terminal")
            } else {
                Message::new("terminal-found-console")
            };
            self.plan.layers.push(label);
            self.plan.raise.push(Raise::WinConsole { pid: start.pid });
            return Ok(());
        }
        let names: Vec<String> = chain.iter().take(6).map(|p| p.name.clone()).collect();
        Err(Failure::new(
            FailureKind::NotFound,
            Message::new("terminal-failure-no-terminal-above")
                .arg("pid", start.pid)
                // "started by", in a character every font the window draws with has.
                .arg("chain", names.join(" < ")),
        ))
    }

    /// A terminal emulator: its tab chooser, then its window.
    fn emulator(
        &mut self,
        kind: Emulator,
        emu: &Process,
        start: &Process,
        env: &Env,
    ) -> Result<(), Failure> {
        self.plan.layers.push(program_layer(kind.label(), emu.pid));
        let platform = self.sys.platform();
        match kind {
            Emulator::Kitty => self.kitty(emu, env),
            Emulator::WezTerm => self.wezterm(emu, env),
            Emulator::Konsole if platform == Platform::Unix => self.konsole(emu, env),
            Emulator::GnomeTerminal => self
                .plan
                .caveats
                .push(Message::new("terminal-caveat-gnome-terminal")),
            Emulator::WindowsTerminal => self
                .plan
                .caveats
                .push(Message::new("terminal-caveat-windows-terminal")),
            _ => {}
        }
        match platform {
            Platform::Unix => {
                let window = env.get("WINDOWID").and_then(|w| parse_window_id(w));
                self.unix_raise(emu.pid, window, None);
            }
            Platform::MacOs => match kind {
                Emulator::ITerm2 => self.plan.raise.push(Raise::MacIterm {
                    session: env.get("ITERM_SESSION_ID").and_then(|s| iterm_uuid(s)),
                    tty: start.tty.clone().filter(|t| valid_mac_tty(t)),
                }),
                Emulator::AppleTerminal => match start.tty.clone().filter(|t| valid_mac_tty(t)) {
                    Some(tty) => self.plan.raise.push(Raise::MacTerminal { tty }),
                    None => {
                        self.plan
                            .caveats
                            .push(Message::new("terminal-caveat-no-tty"));
                        self.mac_app(emu);
                    }
                },
                _ => self.mac_app(emu),
            },
            Platform::Windows => {
                if matches!(kind, Emulator::WindowsTerminal) {
                    self.plan.raise.push(Raise::WinConsole { pid: start.pid });
                }
                self.plan.raise.push(Raise::WinWindowOf { pid: emu.pid });
            }
        }
        Ok(())
    }

    fn mac_app(&mut self, p: &Process) {
        match p.exe.as_deref().and_then(kinds::mac_bundle) {
            Some(app) => self.plan.raise.push(Raise::MacApp { app }),
            None => {
                self.plan.cannot_raise = Some(Failure::new(
                    FailureKind::NotFound,
                    Message::new("terminal-failure-no-bundle")
                        .arg("program", &p.name)
                        .arg("pid", p.pid),
                ))
            }
        }
    }

    /// X11 and the Wayland compositor's own interface, for the window of `pid`.
    fn unix_raise(&mut self, pid: u32, window: Option<u32>, title: Option<String>) {
        let desktop = self.sys.desktop();
        if desktop.x11.is_none() && desktop.wayland.is_none() {
            self.plan.cannot_raise = Some(Failure::new(
                FailureKind::NoDisplay,
                Message::new("terminal-failure-no-display"),
            ));
            return;
        }
        match &desktop.wayland {
            Some(Compositor::Sway(socket)) => self.plan.raise.push(Raise::Sway {
                socket: socket.clone(),
                pid,
            }),
            Some(Compositor::Hyprland(sockets)) => self.plan.raise.push(Raise::Hyprland {
                sockets: sockets.clone(),
                pid,
            }),
            Some(Compositor::Kde) => self.plan.raise.push(Raise::Kwin { pid }),
            Some(Compositor::Gnome) => {
                self.plan.cannot_raise = Some(Failure::new(
                    FailureKind::Forbidden,
                    Message::new("terminal-failure-gnome-wayland"),
                ))
            }
            Some(Compositor::Other(name)) => {
                self.plan.cannot_raise = Some(Failure::new(
                    FailureKind::Forbidden,
                    Message::new("terminal-failure-compositor")
                        .arg("compositor", compositor_name(name)),
                ))
            }
            None => {}
        }
        // On Wayland too: a terminal that runs under XWayland (xterm, urxvt) is an X11 window.
        if let Some(display) = desktop.x11 {
            self.plan.raise.push(Raise::X11 {
                display,
                window,
                pid,
                title,
            });
        }
    }

    /// kitty: `kitty @ --to <socket> focus-window --match id:<KITTY_WINDOW_ID>` (its tab and
    /// OS window come with it) when its remote control listens on a socket.
    fn kitty(&mut self, emu: &Process, env: &Env) {
        let Some(id) = env.get("KITTY_WINDOW_ID").filter(|v| is_digits(v)) else {
            return;
        };
        // Say which of its windows (its tab and split), as tmux's says its pane.
        if let Some(layer) = self.plan.layers.last_mut() {
            *layer = Message::new("terminal-found-kitty-window")
                .arg("window", id)
                .arg("pid", emu.pid);
        }
        match env.get("KITTY_LISTEN_ON").filter(|s| valid_kitty_socket(s)) {
            Some(socket) => {
                let program = self.own_or_path(emu, "kitty");
                let cmd = Cmd::new(
                    program,
                    &[
                        "@",
                        "--to",
                        socket,
                        "focus-window",
                        "--match",
                        &format!("id:{id}"),
                    ],
                );
                self.plan.choose.push(Choose {
                    cmd,
                    what: Message::new("terminal-pane-kitty").arg("window", id),
                    fatal: false,
                    hint: Some(kitty_hint()),
                });
            }
            None => self.plan.caveats.push(kitty_hint()),
        }
    }

    /// WezTerm: `wezterm cli activate-pane --pane-id <WEZTERM_PANE>`.
    fn wezterm(&mut self, emu: &Process, env: &Env) {
        let Some(pane) = env.get("WEZTERM_PANE").filter(|v| is_digits(v)) else {
            return;
        };
        // The `wezterm` command sits beside `wezterm-gui`.
        let beside = emu.exe.as_deref().and_then(Path::parent).map(|d| {
            d.join(if self.sys.platform() == Platform::Windows {
                "wezterm.exe"
            } else {
                "wezterm"
            })
        });
        let program = beside
            .filter(|p| self.sys.is_file(p))
            .or_else(|| self.sys.find_program("wezterm"))
            .unwrap_or_else(|| "wezterm".into());
        let mut cmd = Cmd::new(
            program,
            &["cli", "--no-auto-start", "activate-pane", "--pane-id", pane],
        );
        if let Some(sock) = env.get("WEZTERM_UNIX_SOCKET").filter(|s| !s.is_empty()) {
            cmd.env.push(("WEZTERM_UNIX_SOCKET".into(), sock.clone()));
        }
        self.plan.choose.push(Choose {
            cmd,
            what: Message::new("terminal-pane-wezterm").arg("pane", pane),
            fatal: false,
            hint: None,
        });
    }

    /// Konsole: `setCurrentSession` on its window's D-Bus object.
    fn konsole(&mut self, emu: &Process, env: &Env) {
        let session = env
            .get("KONSOLE_DBUS_SESSION")
            .and_then(|s| s.strip_prefix("/Sessions/"))
            .filter(|n| is_digits(n));
        let window = env
            .get("KONSOLE_DBUS_WINDOW")
            .filter(|w| w.strip_prefix("/Windows/").is_some_and(is_digits));
        let (Some(session), Some(window)) = (session, window) else {
            self.plan
                .caveats
                .push(Message::new("terminal-caveat-konsole-no-tab"));
            return;
        };
        let service = env
            .get("KONSOLE_DBUS_SERVICE")
            .filter(|s| valid_dbus_name(s))
            .cloned()
            .unwrap_or_else(|| format!("org.kde.konsole-{}", emu.pid));
        let Some(dbus_send) = self.sys.find_program("dbus-send") else {
            self.plan.caveats.push(
                Message::new("terminal-caveat-konsole-no-dbus-send").arg("program", "dbus-send"),
            );
            return;
        };
        let cmd = Cmd::new(
            dbus_send,
            &[
                "--session",
                "--type=method_call",
                &format!("--dest={service}"),
                window,
                "org.kde.konsole.Window.setCurrentSession",
                &format!("int32:{session}"),
            ],
        );
        self.plan.choose.push(Choose {
            cmd,
            what: Message::new("terminal-pane-konsole").arg("session", session),
            fatal: false,
            hint: None,
        });
    }

    /// An editor's integrated terminal: the editor's window for the agent's folder.
    fn editor(&mut self, kind: Editor, from: &[Process]) -> Result<(), Failure> {
        let platform = self.sys.platform();
        // The editor's helpers (pty host, extension host) run under its main process.
        let main = from
            .iter()
            .take_while(|p| kinds::classify(p, platform) == Some(Role::Editor(kind)))
            .last()
            .unwrap_or(&from[0])
            .clone();
        self.plan.layers.push(program_layer(kind.label(), main.pid));
        self.plan
            .caveats
            .push(Message::new("terminal-caveat-editor").arg("editor", kind.label()));
        let folder = self.project_folder();
        let cli = kind.cli().and_then(|name| self.editor_cli(name, &main));
        let by_cli = |cli: Option<PathBuf>, folder: Option<String>| {
            cli.zip(folder).map(|(cli, folder)| Raise::Editor {
                cli,
                folder,
                label: kind.label(),
            })
        };
        match platform {
            Platform::Unix => {
                let title = folder
                    .as_deref()
                    .and_then(|f| procs::file_name(Path::new(f)))
                    .map(str::to_string);
                self.unix_raise(main.pid, None, title);
                if let Some(r) = by_cli(cli, folder) {
                    self.plan.raise.push(r);
                    // The editor shows its own window: the desktop's objection no longer holds.
                    self.plan.cannot_raise = None;
                }
            }
            Platform::MacOs => {
                self.plan.raise.extend(by_cli(cli, folder));
                self.mac_app(&main);
            }
            Platform::Windows => {
                self.plan.raise.extend(by_cli(cli, folder));
                self.plan.raise.push(Raise::WinWindowOf { pid: main.pid });
            }
        }
        Ok(())
    }

    /// The agent's folder, or the project it is in (the nearest folder above it with `.git`
    /// or `.vscode`, which is what an editor has open): absolute and existing, or none.
    fn project_folder(&self) -> Option<String> {
        let cwd = self.cwd.as_deref()?;
        let path = Path::new(cwd);
        if !is_absolute_anywhere(cwd) || !self.sys.is_dir(path) {
            return None;
        }
        let root = path
            .ancestors()
            .find(|p| self.sys.is_dir(&p.join(".git")) || self.sys.is_dir(&p.join(".vscode")))
            .unwrap_or(path);
        root.to_str().map(str::to_string)
    }

    /// The editor's command-line tool: beside its executable (`<dir>/bin/code`, the app
    /// bundle's `Contents/Resources/app/bin/code`, `<dir>\bin\code.cmd`), else on `PATH`.
    fn editor_cli(&self, name: &str, main: &Process) -> Option<PathBuf> {
        let platform = self.sys.platform();
        let exe = main.exe.as_deref();
        let beside = match platform {
            Platform::MacOs => exe
                .and_then(kinds::mac_bundle)
                .map(|b| b.join("Contents/Resources/app/bin").join(name)),
            Platform::Windows => exe
                .and_then(windows_parent)
                .map(|d| PathBuf::from(format!("{d}\\bin\\{name}.cmd"))),
            Platform::Unix => exe.and_then(Path::parent).map(|d| d.join("bin").join(name)),
        };
        beside.filter(|p| self.sys.is_file(p)).or_else(|| {
            let name = match platform {
                Platform::Windows => format!("{name}.cmd"),
                _ => name.to_string(),
            };
            self.sys.find_program(&name)
        })
    }

    /// The program a process runs, when it is `name` (the same build as the running one),
    /// else `name` on `PATH`.
    pub fn own_or_path(&self, p: &Process, name: &str) -> PathBuf {
        p.exe
            .clone()
            .filter(|_| p.program() == name)
            .or_else(|| self.sys.find_program(name))
            .unwrap_or_else(|| name.into())
    }
}

/// kitty's remote control is off: how to turn it on (kitty.conf's two lines, or the command
/// line's).
pub(crate) fn kitty_hint() -> Message {
    Message::new("terminal-caveat-kitty-remote-off")
        .arg("allow", "allow_remote_control socket-only")
        .arg("listen", "listen_on unix:/tmp/kitty")
        .arg("file", "kitty.conf")
        .arg(
            "command",
            "-o allow_remote_control=yes --listen-on unix:/tmp/kitty",
        )
}

/// A GNU screen session: "screen session 300.work".
pub(crate) fn screen_session(sty: &str) -> Message {
    Message::new("terminal-found-screen-session").arg("session", sty)
}

/// A program and its process: "xterm (pid 300)".
pub(crate) fn program_layer(program: &str, pid: u32) -> Message {
    Message::new("terminal-found-program")
        .arg("program", program)
        .arg("pid", pid)
}

/// What `Compositor::Other` names when the session does not say.
pub(crate) const UNNAMED_COMPOSITOR: &str = "this Wayland compositor";

/// A compositor as a message says it: its own name, or "this Wayland compositor" in the
/// person's language when the session does not name it.
pub(crate) fn compositor_name(name: &str) -> vults_i18n::MessageArg {
    if name == UNNAMED_COMPOSITOR {
        Message::new("terminal-unnamed-compositor").into()
    } else {
        name.into()
    }
}

pub(crate) fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.len() <= 12 && s.bytes().all(|b| b.is_ascii_digit())
}

/// `WINDOWID` in decimal (xterm, kitty) or `0x` hex.
pub(crate) fn parse_window_id(s: &str) -> Option<u32> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
    .filter(|w| *w != 0)
}

/// `w0t1p0:6B29F4B4-…` → the session's unique id.
fn iterm_uuid(s: &str) -> Option<String> {
    let id = s.rsplit(':').next()?;
    (id.len() >= 8 && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-'))
        .then(|| id.to_string())
}

fn valid_mac_tty(t: &str) -> bool {
    t.strip_prefix("/dev/tty")
        .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// `unix:/path`, `unix:@abstract` or `tcp:host:port`, nothing odd in it.
fn valid_kitty_socket(s: &str) -> bool {
    (s.starts_with("unix:") || s.starts_with("tcp:"))
        && s.len() < 512
        && !s.chars().any(char::is_control)
}

fn valid_dbus_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() < 256
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b':'))
}

/// `/x` or `C:\x` (a Windows recorded block read on any host).
pub(crate) fn is_absolute_anywhere(p: &str) -> bool {
    let b = p.as_bytes();
    p.starts_with('/')
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && (b[2] == b'\\' || b[2] == b'/'))
}

/// `C:\a\b\Code.exe` → `C:\a\b` (on any host).
fn windows_parent(p: &Path) -> Option<String> {
    let s = p.to_str()?;
    let (dir, _) = s.rsplit_once('\\')?;
    Some(dir.to_string())
}

#[cfg(test)]
pub(crate) mod fake {
    //! A made-up system: a process table, scripted query answers, a desktop and a platform.
    use super::*;
    use crate::procs::fake::FakeTable;
    use std::cell::RefCell;
    use std::collections::{BTreeMap, BTreeSet};

    pub struct FakeSystem {
        pub table: FakeTable,
        pub platform: Platform,
        pub desktop: Desktop,
        /// Query answers by their arguments joined with spaces.
        pub answers: BTreeMap<String, Result<String, Message>>,
        pub programs: BTreeMap<String, PathBuf>,
        pub files: BTreeSet<PathBuf>,
        pub dirs: BTreeSet<PathBuf>,
        pub asked: RefCell<Vec<String>>,
        pub own_pid: u32,
    }

    impl FakeSystem {
        pub fn new(platform: Platform) -> FakeSystem {
            FakeSystem {
                table: FakeTable::default(),
                platform,
                desktop: Desktop {
                    x11: Some(":0".into()),
                    wayland: None,
                },
                answers: BTreeMap::new(),
                programs: BTreeMap::new(),
                files: BTreeSet::new(),
                dirs: BTreeSet::new(),
                asked: RefCell::new(Vec::new()),
                own_pid: 99_999,
            }
        }
        pub fn answer(&mut self, args: &str, out: &str) {
            self.answers.insert(args.to_string(), Ok(out.to_string()));
        }
        pub fn refuse(&mut self, args: &str, why: &str) {
            self.answers.insert(args.to_string(), Err(said(why)));
        }
    }

    impl Table for FakeSystem {
        fn process(&self, pid: u32) -> Option<Process> {
            self.table.process(pid)
        }
        fn processes(&self) -> Vec<Process> {
            self.table.processes()
        }
        fn environ(&self, pid: u32) -> Option<Env> {
            self.table.environ(pid)
        }
    }

    impl System for FakeSystem {
        fn platform(&self) -> Platform {
            self.platform
        }
        fn desktop(&self) -> Desktop {
            self.desktop.clone()
        }
        fn query(&self, cmd: &Cmd) -> Result<String, Message> {
            let key = cmd.args.join(" ");
            self.asked.borrow_mut().push(key.clone());
            self.answers
                .get(&key)
                .cloned()
                .unwrap_or_else(|| Err(said(format!("no answer scripted for `{key}`"))))
        }
        fn find_program(&self, name: &str) -> Option<PathBuf> {
            self.programs.get(name).cloned()
        }
        fn is_file(&self, path: &Path) -> bool {
            self.files.contains(path)
        }
        fn is_dir(&self, path: &Path) -> bool {
            self.dirs.contains(path)
        }
        fn own_pid(&self) -> u32 {
            self.own_pid
        }
    }
}
