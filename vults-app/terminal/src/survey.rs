//! What "Show terminal" can do with each terminal and multiplexer found on this machine, for
//! Settings → General: the desktop first, then the multiplexers, terminals and editors that
//! are installed (on `PATH`, in the usual app folders) or running.

use crate::kinds::{self, Emulator, Platform, Role};
use crate::outcome::Failure;
#[cfg(any(test, not(all(unix, not(target_os = "macos")))))]
use crate::outcome::FailureKind;
use crate::plan::{Compositor, Desktop, KITTY_HINT};
use crate::procs::Process;
use std::path::{Path, PathBuf};

/// How far "Show terminal" reaches in one terminal, multiplexer or desktop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Its window comes forward with the agent's tab or pane chosen.
    Pane,
    /// Its window comes forward; the tab or pane is not chosen.
    Window,
    /// Nothing can be shown (the line says why).
    Nothing,
}

/// One row of the survey.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Support {
    /// What it is, with its version when known: "tmux 3.3a", "kitty 0.26.5", "Desktop: X11
    /// (Openbox)".
    pub name: String,
    /// How far "Show terminal" reaches in it.
    pub reach: Reach,
    /// One line: what "Show terminal" does with it, or why it cannot, and how to get more.
    pub how: String,
}

/// What this machine has, and what "Show terminal" does with each. Blocking: it asks each
/// multiplexer and a few terminals for their version, and the X server for its window manager.
pub fn survey() -> Vec<Support> {
    survey_with(&LiveProbe)
}

/// What the survey reads (a test gives its own).
pub(crate) trait Probe {
    fn platform(&self) -> Platform;
    fn env(&self, key: &str) -> Option<String>;
    fn find_program(&self, name: &str) -> Option<PathBuf>;
    /// The first line a program prints for its version flag.
    fn version(&self, program: &Path, args: &[&str]) -> Option<String>;
    fn read(&self, path: &Path) -> Option<String>;
    fn exists(&self, path: &Path) -> bool;
    fn running(&self) -> Vec<Process>;
    fn window_manager(&self, display: &str) -> Result<(Option<String>, bool), Failure>;
}

struct LiveProbe;

impl Probe for LiveProbe {
    fn platform(&self) -> Platform {
        Platform::current()
    }
    fn env(&self, key: &str) -> Option<String> {
        std::env::var(key).ok()
    }
    fn find_program(&self, name: &str) -> Option<PathBuf> {
        crate::run::find_program(name)
    }
    fn version(&self, program: &Path, args: &[&str]) -> Option<String> {
        let out = crate::run::output(&crate::plan::Cmd::new(program, args)).ok()?;
        Some(crate::outcome::one_line(&out)).filter(|l| !l.is_empty())
    }
    fn read(&self, path: &Path) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }
    fn running(&self) -> Vec<Process> {
        use crate::procs::Table;
        crate::procs::SystemTable.processes()
    }
    #[cfg(all(unix, not(target_os = "macos")))]
    fn window_manager(&self, display: &str) -> Result<(Option<String>, bool), Failure> {
        crate::x11::window_manager(display)
    }
    #[cfg(not(all(unix, not(target_os = "macos"))))]
    fn window_manager(&self, _display: &str) -> Result<(Option<String>, bool), Failure> {
        Err(Failure::new(FailureKind::NoDisplay, "no X11 here"))
    }
}

/// Versions are read only from these (editors start slowly, and their version says nothing).
fn version_args(program: &str) -> Option<&'static [&'static str]> {
    match program {
        "tmux" => Some(&["-V"]),
        "screen" => Some(&["-v"]),
        "zellij" | "kitty" | "wezterm" => Some(&["--version"]),
        _ => None,
    }
}

/// `tmux 3.3a` → `3.3a`; `Screen version 4.09.00 (GNU) 30-Jan-22` → `4.09.00`;
/// `wezterm 20240203-110809-5046fc22` → `20240203-110809-5046fc22`.
pub(crate) fn version_of(line: &str) -> Option<String> {
    line.split_whitespace()
        .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .map(str::to_string)
}

/// The tools looked for on Linux and the BSDs: (program on `PATH`, label).
const UNIX_TOOLS: &[(&str, &str)] = &[
    ("tmux", "tmux"),
    ("screen", "GNU screen"),
    ("zellij", "Zellij"),
    ("kitty", "kitty"),
    ("wezterm", "WezTerm"),
    ("konsole", "Konsole"),
    ("xterm", "xterm"),
    ("alacritty", "Alacritty"),
    ("gnome-terminal", "GNOME Terminal"),
    ("foot", "foot"),
    ("ghostty", "Ghostty"),
    ("xfce4-terminal", "Xfce Terminal"),
    ("tilix", "Tilix"),
    ("terminator", "Terminator"),
    ("urxvt", "rxvt-unicode"),
    ("code", "VS Code"),
    ("cursor", "Cursor"),
    ("codium", "VSCodium"),
    ("windsurf", "Windsurf"),
    ("zed", "Zed"),
];

/// macOS apps, by bundle name, looked for in /Applications, ~/Applications and /System.
const MAC_APPS: &[(&str, &str)] = &[
    ("Terminal.app", "Terminal"),
    ("iTerm.app", "iTerm2"),
    ("kitty.app", "kitty"),
    ("WezTerm.app", "WezTerm"),
    ("Alacritty.app", "Alacritty"),
    ("Ghostty.app", "Ghostty"),
    ("Warp.app", "Warp"),
    ("Visual Studio Code.app", "VS Code"),
    ("Cursor.app", "Cursor"),
    ("Zed.app", "Zed"),
];

const WINDOWS_TOOLS: &[(&str, &str)] = &[
    ("wt", "Windows Terminal"),
    ("wezterm", "WezTerm"),
    ("alacritty", "Alacritty"),
    ("code", "VS Code"),
    ("cursor", "Cursor"),
];

pub(crate) fn survey_with(probe: &dyn Probe) -> Vec<Support> {
    let platform = probe.platform();
    let mut rows = vec![desktop_row(probe)];
    let running = probe.running();
    let runs = |name: &str| running.iter().any(|p| p.program() == name);
    match platform {
        Platform::Unix => {
            for (program, label) in UNIX_TOOLS {
                let path = probe.find_program(program);
                if path.is_none() && !runs(program) {
                    continue;
                }
                let version = path.as_deref().and_then(|p| {
                    let args = version_args(program)?;
                    probe.version(p, args).and_then(|l| version_of(&l))
                });
                rows.push(tool_row(probe, &running, program, label, version, platform));
            }
        }
        Platform::MacOs => {
            let home = probe.env("HOME").map(PathBuf::from);
            for (bundle, label) in MAC_APPS {
                let mut places = vec![
                    PathBuf::from("/Applications").join(bundle),
                    PathBuf::from("/System/Applications/Utilities").join(bundle),
                ];
                if let Some(h) = &home {
                    places.push(h.join("Applications").join(bundle));
                }
                if places.iter().any(|p| probe.exists(p)) {
                    let program = label.to_ascii_lowercase();
                    rows.push(tool_row(probe, &running, &program, label, None, platform));
                }
            }
            for (program, label) in [
                ("tmux", "tmux"),
                ("screen", "GNU screen"),
                ("zellij", "Zellij"),
            ] {
                if let Some(p) = probe.find_program(program) {
                    let version = version_args(program)
                        .and_then(|a| probe.version(&p, a))
                        .and_then(|l| version_of(&l));
                    rows.insert(
                        1,
                        tool_row(probe, &running, program, label, version, platform),
                    );
                }
            }
        }
        Platform::Windows => {
            rows.push(Support {
                name: "Console windows (conhost)".into(),
                reach: Reach::Window,
                how: "the agent's console window comes forward".into(),
            });
            for (program, label) in WINDOWS_TOOLS {
                let found = probe.find_program(program).is_some()
                    || probe.find_program(&format!("{program}.cmd")).is_some()
                    || (*program == "wt" && runs("windowsterminal"));
                if found {
                    rows.push(tool_row(probe, &running, program, label, None, platform));
                }
            }
        }
    }
    rows
}

fn desktop_row(probe: &dyn Probe) -> Support {
    match probe.platform() {
        Platform::MacOs => Support {
            name: "Desktop: macOS".into(),
            reach: Reach::Window,
            how: "Terminal's and iTerm2's tabs are chosen by AppleScript (macOS asks once for \
                  the Automation permission); other apps come forward with `open -a`"
                .into(),
        },
        Platform::Windows => Support {
            name: "Desktop: Windows".into(),
            reach: Reach::Window,
            how: "console and Windows Terminal windows come forward with SetForegroundWindow"
                .into(),
        },
        Platform::Unix => {
            let desktop = Desktop::from_env(|k| probe.env(k));
            let x11 = desktop.x11.as_deref().map(|d| probe.window_manager(d));
            let wm = match &x11 {
                Some(Ok((name, supported))) => Some((name.clone(), *supported)),
                _ => None,
            };
            let x11_line = |wm: &Option<(Option<String>, bool)>| match wm {
                Some((_, true)) => Some("X11 windows are raised with _NET_ACTIVE_WINDOW"),
                _ => None,
            };
            match &desktop.wayland {
                None => match (&wm, &x11) {
                    (Some((name, true)), _) => Support {
                        name: format!(
                            "Desktop: X11 ({})",
                            name.as_deref().unwrap_or("a window manager")
                        ),
                        reach: Reach::Window,
                        how: "windows are raised with _NET_ACTIVE_WINDOW".into(),
                    },
                    (Some((name, false)), _) => Support {
                        name: format!(
                            "Desktop: X11 ({})",
                            name.as_deref().unwrap_or("no window manager")
                        ),
                        reach: Reach::Nothing,
                        how: "cannot raise windows on this desktop: its window manager does not \
                              take _NET_ACTIVE_WINDOW requests"
                            .into(),
                    },
                    (None, Some(Err(e))) => Support {
                        name: "Desktop: X11".into(),
                        reach: Reach::Nothing,
                        how: e.message.clone(),
                    },
                    _ => Support {
                        name: "Desktop: none".into(),
                        reach: Reach::Nothing,
                        how: "no display: Vults runs without DISPLAY or WAYLAND_DISPLAY".into(),
                    },
                },
                Some(c) => {
                    let (name, own) = match c {
                        Compositor::Sway(_) => ("sway".to_string(), Some("through sway's IPC")),
                        Compositor::Hyprland(_) => {
                            ("Hyprland".into(), Some("through Hyprland's socket"))
                        }
                        Compositor::Kde => {
                            ("KDE Plasma".into(), Some("by a KWin script over D-Bus"))
                        }
                        Compositor::Gnome => ("GNOME".into(), None),
                        Compositor::Other(n) => (n.clone(), None),
                    };
                    match (own, x11_line(&wm)) {
                        (Some(how), _) => Support {
                            name: format!("Desktop: Wayland ({name})"),
                            reach: Reach::Window,
                            how: format!("windows are raised {how}"),
                        },
                        (None, Some(_)) => Support {
                            name: format!("Desktop: Wayland ({name})"),
                            reach: Reach::Window,
                            how: format!(
                                "{name} does not let apps raise other apps' windows: only \
                                 terminals running under XWayland (xterm, urxvt) come forward"
                            ),
                        },
                        (None, None) => Support {
                            name: format!("Desktop: Wayland ({name})"),
                            reach: Reach::Nothing,
                            how: format!(
                                "cannot raise windows on this desktop: {name} does not let apps \
                                 raise other apps' windows"
                            ),
                        },
                    }
                }
            }
        }
    }
}

fn tool_row(
    probe: &dyn Probe,
    running: &[Process],
    program: &str,
    label: &str,
    version: Option<String>,
    platform: Platform,
) -> Support {
    let name = match &version {
        Some(v) => format!("{label} {v}"),
        None => label.to_string(),
    };
    let (reach, how): (Reach, String) = match program {
        "tmux" => (
            Reach::Pane,
            "the agent's window and pane are chosen (the client on its session, else the most \
             recent client is switched to it), then that client's terminal comes forward"
                .into(),
        ),
        "screen" => (
            Reach::Pane,
            "the agent's window is chosen (`-X select`), then the attached client's terminal \
             comes forward"
                .into(),
        ),
        "zellij" => {
            let new_enough = version
                .as_deref()
                .and_then(zellij_minor)
                .is_some_and(|m| m >= 44);
            if new_enough {
                (
                    Reach::Pane,
                    "the agent's pane is chosen (`action focus-pane-id`), then the client's \
                     terminal comes forward"
                        .into(),
                )
            } else {
                (
                    Reach::Window,
                    "the client's terminal comes forward; Zellij 0.44 or later can also choose \
                     the pane"
                        .into(),
                )
            }
        }
        "kitty" => kitty_reach(probe, running, platform),
        "wezterm" => (
            Reach::Pane,
            "the agent's pane is chosen (`wezterm cli activate-pane`), and its window comes \
             forward"
                .into(),
        ),
        "konsole" => (
            Reach::Pane,
            "the agent's tab is chosen over D-Bus (setCurrentSession), and its window comes \
             forward"
                .into(),
        ),
        "terminal" | "iterm2" => (
            Reach::Pane,
            format!("the agent's tab is chosen by AppleScript and {label} comes forward"),
        ),
        "wt" => (
            Reach::Window,
            "the window holding the agent's console comes forward; its tab is not chosen \
             (Windows Terminal has no way to choose one by session)"
                .into(),
        ),
        "gnome-terminal" => (
            Reach::Window,
            "its window comes forward; its tab is not chosen (GNOME Terminal has no way to)".into(),
        ),
        "code" | "cursor" | "codium" | "windsurf" | "zed" | "vs code" => (
            Reach::Window,
            format!(
                "the window with the agent's folder comes forward ({label}'s command line); its \
                 terminal panel is not chosen"
            ),
        ),
        _ => (
            Reach::Window,
            if platform == Platform::MacOs {
                format!("{label} comes forward (`open -a`); its tab is not chosen")
            } else {
                "its window comes forward".into()
            },
        ),
    };
    Support { name, reach, how }
}

/// `0.44.1` → 44.
fn zellij_minor(v: &str) -> Option<u32> {
    let mut parts = v.split('.');
    let major: u32 = parts.next()?.parse().ok()?;
    let minor: u32 = parts.next()?.parse().ok()?;
    Some(if major > 0 { u32::MAX } else { minor })
}

/// kitty's remote control, as kitty.conf (and running kittens' command lines) say.
fn kitty_reach(probe: &dyn Probe, running: &[Process], platform: Platform) -> (Reach, String) {
    let launched_on = running.iter().any(|p| {
        let is_kitty = kinds::classify(p, platform) == Some(Role::Emulator(Emulator::Kitty));
        is_kitty
            && p.args.iter().any(|a| a.starts_with("--listen-on"))
            && p.args
                .iter()
                .any(|a| a.contains("allow_remote_control=") && !a.ends_with("=no"))
    });
    let conf = kitty_conf(probe);
    let allow = conf
        .as_deref()
        .and_then(|c| kitty_option(c, "allow_remote_control"))
        .is_some_and(|v| !matches!(v.as_str(), "no" | "n" | "false"));
    let listen = conf
        .as_deref()
        .and_then(|c| kitty_option(c, "listen_on"))
        .is_some_and(|v| v != "none");
    if (allow && listen) || launched_on {
        (
            Reach::Pane,
            "the agent's tab and window are chosen (`kitty @ focus-window`, remote control is \
             on), and its window comes forward"
                .into(),
        )
    } else {
        (
            Reach::Window,
            format!("its window comes forward, but {KITTY_HINT}"),
        )
    }
}

fn kitty_conf(probe: &dyn Probe) -> Option<String> {
    let mut places = Vec::new();
    if let Some(dir) = probe.env("KITTY_CONFIG_DIRECTORY") {
        places.push(PathBuf::from(dir).join("kitty.conf"));
    }
    if let Some(dir) = probe.env("XDG_CONFIG_HOME").filter(|d| !d.is_empty()) {
        places.push(PathBuf::from(dir).join("kitty/kitty.conf"));
    }
    if let Some(home) = probe.env("HOME") {
        places.push(PathBuf::from(&home).join(".config/kitty/kitty.conf"));
        places.push(PathBuf::from(&home).join("Library/Preferences/kitty/kitty.conf"));
    }
    places.iter().find_map(|p| probe.read(p))
}

/// The last value kitty.conf gives `key` (later lines win, as in kitty).
pub(crate) fn kitty_option(conf: &str, key: &str) -> Option<String> {
    conf.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let (k, v) = l.split_once(char::is_whitespace)?;
            (k == key).then(|| v.trim().to_string())
        })
        .next_back()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[derive(Default)]
    struct FakeProbe {
        platform: Option<Platform>,
        env: BTreeMap<&'static str, String>,
        programs: Vec<&'static str>,
        versions: BTreeMap<&'static str, &'static str>,
        files: BTreeMap<PathBuf, String>,
        running: Vec<Process>,
        wm: Option<(Option<String>, bool)>,
    }

    impl Probe for FakeProbe {
        fn platform(&self) -> Platform {
            self.platform.unwrap_or(Platform::Unix)
        }
        fn env(&self, key: &str) -> Option<String> {
            self.env.get(key).cloned()
        }
        fn find_program(&self, name: &str) -> Option<PathBuf> {
            self.programs
                .contains(&name)
                .then(|| PathBuf::from("/usr/bin").join(name))
        }
        fn version(&self, program: &Path, _args: &[&str]) -> Option<String> {
            let name = program.file_name()?.to_str()?;
            self.versions.get(name).map(|v| v.to_string())
        }
        fn read(&self, path: &Path) -> Option<String> {
            self.files.get(path).cloned()
        }
        fn exists(&self, path: &Path) -> bool {
            self.files.contains_key(path)
        }
        fn running(&self) -> Vec<Process> {
            self.running.clone()
        }
        fn window_manager(&self, _display: &str) -> Result<(Option<String>, bool), Failure> {
            self.wm.clone().ok_or_else(|| {
                Failure::new(FailureKind::NoDisplay, "cannot reach the X display :9")
            })
        }
    }

    fn row<'a>(rows: &'a [Support], starts: &str) -> &'a Support {
        rows.iter()
            .find(|r| r.name.starts_with(starts))
            .unwrap_or_else(|| panic!("no row {starts}: {rows:?}"))
    }

    #[test]
    fn an_x11_machine_lists_its_window_manager_and_what_each_tool_reaches() {
        let mut p = FakeProbe {
            programs: vec!["tmux", "kitty", "xterm", "zellij", "code"],
            wm: Some((Some("Openbox".into()), true)),
            ..FakeProbe::default()
        };
        p.env.insert("DISPLAY", ":0".into());
        p.env.insert("HOME", "/home/me".into());
        p.versions.insert("tmux", "tmux 3.3a");
        p.versions
            .insert("kitty", "kitty 0.26.5 created by Kovid Goyal");
        p.versions.insert("zellij", "zellij 0.39.2");
        let rows = survey_with(&p);
        assert_eq!(rows[0].name, "Desktop: X11 (Openbox)");
        assert_eq!(rows[0].reach, Reach::Window);
        assert_eq!(row(&rows, "tmux").name, "tmux 3.3a");
        assert_eq!(row(&rows, "tmux").reach, Reach::Pane);
        let kitty = row(&rows, "kitty");
        assert_eq!(kitty.name, "kitty 0.26.5");
        assert_eq!(kitty.reach, Reach::Window);
        assert!(kitty.how.contains("allow_remote_control"), "{kitty:?}");
        assert_eq!(row(&rows, "Zellij").reach, Reach::Window);
        assert_eq!(row(&rows, "xterm").reach, Reach::Window);
        assert!(row(&rows, "VS Code").how.contains("folder"));
        assert!(!rows.iter().any(|r| r.name.starts_with("GNU screen")));

        // kitty.conf turning remote control on, and a newer Zellij.
        p.files.insert(
            "/home/me/.config/kitty/kitty.conf".into(),
            "# mine\nallow_remote_control no\nallow_remote_control socket-only\nlisten_on unix:/tmp/kitty\n"
                .into(),
        );
        p.versions.insert("zellij", "zellij 0.44.1");
        let rows = survey_with(&p);
        assert_eq!(row(&rows, "kitty").reach, Reach::Pane);
        assert_eq!(row(&rows, "Zellij 0.44.1").reach, Reach::Pane);
    }

    #[test]
    fn a_kitty_started_with_remote_control_counts_without_a_config() {
        let kitty = Process {
            pid: 9,
            name: "kitty".into(),
            exe: Some("/usr/lib/kitty/kitty".into()),
            args: vec![
                "kitty".into(),
                "-o".into(),
                "allow_remote_control=yes".into(),
                "--listen-on".into(),
                "unix:/tmp/k".into(),
            ],
            ..Process::default()
        };
        let mut p = FakeProbe {
            running: vec![kitty],
            wm: Some((None, true)),
            ..FakeProbe::default()
        };
        p.env.insert("DISPLAY", ":0".into());
        let rows = survey_with(&p);
        assert_eq!(row(&rows, "kitty").reach, Reach::Pane);
        assert_eq!(rows[0].name, "Desktop: X11 (a window manager)");
    }

    #[test]
    fn desktops_that_cannot_raise_say_so() {
        let mut p = FakeProbe::default();
        let rows = survey_with(&p);
        assert_eq!(rows[0].reach, Reach::Nothing);
        assert!(rows[0].how.starts_with("no display"));

        p.env.insert("WAYLAND_DISPLAY", "wayland-0".into());
        p.env.insert("XDG_CURRENT_DESKTOP", "ubuntu:GNOME".into());
        let rows = survey_with(&p);
        assert_eq!(rows[0].name, "Desktop: Wayland (GNOME)");
        assert_eq!(rows[0].reach, Reach::Nothing);
        assert!(
            rows[0]
                .how
                .starts_with("cannot raise windows on this desktop")
        );

        // With XWayland: X11 terminals still come forward.
        p.env.insert("DISPLAY", ":0".into());
        p.wm = Some((Some("GNOME Shell".into()), true));
        let rows = survey_with(&p);
        assert_eq!(rows[0].reach, Reach::Window);
        assert!(rows[0].how.contains("XWayland"));

        p.env.insert("SWAYSOCK", "/run/user/1000/sway.sock".into());
        let rows = survey_with(&p);
        assert_eq!(rows[0].name, "Desktop: Wayland (sway)");

        let mut p = FakeProbe::default();
        p.env.insert("DISPLAY", ":0".into());
        p.wm = Some((Some("twm".into()), false));
        assert_eq!(survey_with(&p)[0].reach, Reach::Nothing);
    }

    #[test]
    fn mac_and_windows_rows() {
        let mut p = FakeProbe {
            platform: Some(Platform::MacOs),
            programs: vec!["tmux"],
            ..FakeProbe::default()
        };
        p.files.insert(
            "/System/Applications/Utilities/Terminal.app".into(),
            String::new(),
        );
        p.files
            .insert("/Applications/iTerm.app".into(), String::new());
        p.versions.insert("tmux", "tmux 3.4");
        let rows = survey_with(&p);
        assert_eq!(rows[0].name, "Desktop: macOS");
        assert_eq!(rows[1].name, "tmux 3.4");
        assert_eq!(row(&rows, "Terminal").reach, Reach::Pane);
        assert_eq!(row(&rows, "iTerm2").reach, Reach::Pane);

        let p = FakeProbe {
            platform: Some(Platform::Windows),
            programs: vec!["wt", "code.cmd"],
            ..FakeProbe::default()
        };
        let rows = survey_with(&p);
        assert_eq!(rows[0].name, "Desktop: Windows");
        assert_eq!(row(&rows, "Windows Terminal").reach, Reach::Window);
        assert_eq!(row(&rows, "Console").reach, Reach::Window);
        assert!(row(&rows, "VS Code").how.contains("folder"));
    }

    #[test]
    fn versions_and_options_read() {
        assert_eq!(version_of("tmux 3.3a").as_deref(), Some("3.3a"));
        assert_eq!(
            version_of("Screen version 4.09.00 (GNU) 30-Jan-22").as_deref(),
            Some("4.09.00")
        );
        assert_eq!(version_of("tmux next-3.5").as_deref(), None);
        assert_eq!(zellij_minor("0.44.1"), Some(44));
        assert_eq!(zellij_minor("1.0.0"), Some(u32::MAX));
        assert_eq!(
            kitty_option(
                "listen_on unix:/a\n# listen_on x\nlisten_on   unix:/b  \n",
                "listen_on"
            )
            .as_deref(),
            Some("unix:/b")
        );
        assert_eq!(kitty_option("font_size 11\n", "listen_on"), None);
    }
}
