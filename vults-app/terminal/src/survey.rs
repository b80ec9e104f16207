//! What "Show terminal" can do with each terminal and multiplexer found on this machine, for
//! Settings → General: the desktop first, then the multiplexers, terminals and editors that
//! are installed (on `PATH`, in the usual app folders) or running.

use crate::kinds::{self, Emulator, Platform, Role};
use crate::outcome::Failure;
#[cfg(any(test, not(all(unix, not(target_os = "macos")))))]
use crate::outcome::FailureKind;
use crate::outcome::said;
use crate::plan::{Compositor, Desktop, compositor_name, kitty_hint};
use crate::procs::Process;
use std::path::{Path, PathBuf};
use vults_i18n::Message;

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
    pub name: Message,
    /// How far "Show terminal" reaches in it.
    pub reach: Reach,
    /// One line: what "Show terminal" does with it, or why it cannot, and how to get more.
    pub how: Message,
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
        Err(Failure::said(FailureKind::NoDisplay, "no X11 here"))
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
                name: Message::new("terminal-survey-console-windows").arg("program", "conhost"),
                reach: Reach::Window,
                how: Message::new("terminal-survey-console"),
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

/// "Desktop: macOS".
fn desktop_name(name: &str) -> Message {
    Message::new("terminal-survey-desktop").arg("desktop", name)
}

fn desktop_row(probe: &dyn Probe) -> Support {
    match probe.platform() {
        Platform::MacOs => Support {
            name: desktop_name("macOS"),
            reach: Reach::Window,
            how: Message::new("terminal-survey-macos").arg("command", "open -a"),
        },
        Platform::Windows => Support {
            name: desktop_name("Windows"),
            reach: Reach::Window,
            how: Message::new("terminal-survey-windows"),
        },
        Platform::Unix => {
            let desktop = Desktop::from_env(|k| probe.env(k));
            let x11 = desktop.x11.as_deref().map(|d| probe.window_manager(d));
            let wm = match &x11 {
                Some(Ok((name, supported))) => Some((name.clone(), *supported)),
                _ => None,
            };
            let x11_line = |wm: &Option<(Option<String>, bool)>| match wm {
                Some((_, true)) => Some(()),
                _ => None,
            };
            match &desktop.wayland {
                None => match (&wm, &x11) {
                    (Some((name, true)), _) => Support {
                        name: match name {
                            Some(n) => {
                                Message::new("terminal-survey-desktop-x11").arg("manager", n)
                            }
                            None => Message::new("terminal-survey-desktop-x11-some-manager"),
                        },
                        reach: Reach::Window,
                        how: Message::new("terminal-survey-x11"),
                    },
                    (Some((name, false)), _) => Support {
                        name: match name {
                            Some(n) => {
                                Message::new("terminal-survey-desktop-x11").arg("manager", n)
                            }
                            None => Message::new("terminal-survey-desktop-x11-no-manager"),
                        },
                        reach: Reach::Nothing,
                        how: Message::new("terminal-survey-x11-no-active"),
                    },
                    (None, Some(Err(e))) => Support {
                        name: desktop_name("X11"),
                        reach: Reach::Nothing,
                        how: e.message.clone(),
                    },
                    _ => Support {
                        name: Message::new("terminal-survey-desktop-none"),
                        reach: Reach::Nothing,
                        how: Message::new("terminal-survey-no-display"),
                    },
                },
                Some(c) => {
                    let (name, own) = match c {
                        Compositor::Sway(_) => ("sway".to_string(), Some("terminal-survey-sway")),
                        Compositor::Hyprland(_) => {
                            ("Hyprland".into(), Some("terminal-survey-hyprland"))
                        }
                        Compositor::Kde => ("KDE Plasma".into(), Some("terminal-survey-kwin")),
                        Compositor::Gnome => ("GNOME".into(), None),
                        Compositor::Other(n) => (n.clone(), None),
                    };
                    let wayland = || {
                        Message::new("terminal-survey-desktop-wayland")
                            .arg("compositor", compositor_name(&name))
                    };
                    match (own, x11_line(&wm)) {
                        (Some(how), _) => Support {
                            name: wayland(),
                            reach: Reach::Window,
                            how: Message::new(how),
                        },
                        (None, Some(())) => Support {
                            name: wayland(),
                            reach: Reach::Window,
                            how: Message::new("terminal-survey-xwayland-only")
                                .arg("compositor", compositor_name(&name)),
                        },
                        (None, None) => Support {
                            name: wayland(),
                            reach: Reach::Nothing,
                            how: Message::new("terminal-survey-cannot-raise")
                                .arg("compositor", compositor_name(&name)),
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
        Some(v) => Message::new("terminal-survey-tool")
            .arg("tool", label)
            .arg("version", v),
        None => said(label),
    };
    let (reach, how): (Reach, Message) = match program {
        "tmux" => (Reach::Pane, Message::new("terminal-survey-tmux")),
        "screen" => (
            Reach::Pane,
            Message::new("terminal-survey-screen").arg("command", "-X select"),
        ),
        "zellij" => {
            let new_enough = version
                .as_deref()
                .and_then(zellij_minor)
                .is_some_and(|m| m >= 44);
            if new_enough {
                (
                    Reach::Pane,
                    Message::new("terminal-survey-zellij").arg("command", "action focus-pane-id"),
                )
            } else {
                (
                    Reach::Window,
                    Message::new("terminal-survey-zellij-old").arg("version", "0.44"),
                )
            }
        }
        "kitty" => kitty_reach(probe, running, platform),
        "wezterm" => (
            Reach::Pane,
            Message::new("terminal-survey-wezterm").arg("command", "wezterm cli activate-pane"),
        ),
        "konsole" => (Reach::Pane, Message::new("terminal-survey-konsole")),
        "terminal" | "iterm2" => (
            Reach::Pane,
            Message::new("terminal-survey-applescript").arg("app", label),
        ),
        "wt" => (
            Reach::Window,
            Message::new("terminal-survey-windows-terminal"),
        ),
        "gnome-terminal" => (
            Reach::Window,
            Message::new("terminal-survey-gnome-terminal"),
        ),
        "code" | "cursor" | "codium" | "windsurf" | "zed" | "vs code" => (
            Reach::Window,
            Message::new("terminal-survey-editor").arg("editor", label),
        ),
        _ => (
            Reach::Window,
            if platform == Platform::MacOs {
                Message::new("terminal-survey-mac-app")
                    .arg("app", label)
                    .arg("command", "open -a")
            } else {
                Message::new("terminal-survey-window")
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
fn kitty_reach(probe: &dyn Probe, running: &[Process], platform: Platform) -> (Reach, Message) {
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
            Message::new("terminal-survey-kitty").arg("command", "kitty @ focus-window"),
        )
    } else {
        (
            Reach::Window,
            Message::new("terminal-survey-kitty-off").arg("hint", kitty_hint()),
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
                Failure::said(FailureKind::NoDisplay, "cannot reach the X display :9")
            })
        }
    }

    fn row<'a>(rows: &'a [Support], starts: &str) -> &'a Support {
        rows.iter()
            .find(|r| r.name.to_string().starts_with(starts))
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
        assert_eq!(rows[0].name.to_string(), "Desktop: X11 (Openbox)");
        assert_eq!(rows[0].reach, Reach::Window);
        assert_eq!(row(&rows, "tmux").name.to_string(), "tmux 3.3a");
        assert_eq!(row(&rows, "tmux").reach, Reach::Pane);
        let kitty = row(&rows, "kitty");
        assert_eq!(kitty.name.to_string(), "kitty 0.26.5");
        assert_eq!(kitty.reach, Reach::Window);
        assert!(
            kitty.how.to_string().contains("allow_remote_control"),
            "{kitty:?}"
        );
        assert_eq!(row(&rows, "Zellij").reach, Reach::Window);
        assert_eq!(row(&rows, "xterm").reach, Reach::Window);
        assert!(row(&rows, "VS Code").how.to_string().contains("folder"));
        assert!(
            !rows
                .iter()
                .any(|r| r.name.to_string().starts_with("GNU screen"))
        );

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
        assert_eq!(rows[0].name.to_string(), "Desktop: X11 (a window manager)");
    }

    #[test]
    fn desktops_that_cannot_raise_say_so() {
        let mut p = FakeProbe::default();
        let rows = survey_with(&p);
        assert_eq!(rows[0].reach, Reach::Nothing);
        assert!(rows[0].how.to_string().starts_with("no display"));

        p.env.insert("WAYLAND_DISPLAY", "wayland-0".into());
        p.env.insert("XDG_CURRENT_DESKTOP", "ubuntu:GNOME".into());
        let rows = survey_with(&p);
        assert_eq!(rows[0].name.to_string(), "Desktop: Wayland (GNOME)");
        assert_eq!(rows[0].reach, Reach::Nothing);
        assert!(
            rows[0]
                .how
                .to_string()
                .starts_with("cannot raise windows on this desktop")
        );

        // With XWayland: X11 terminals still come forward.
        p.env.insert("DISPLAY", ":0".into());
        p.wm = Some((Some("GNOME Shell".into()), true));
        let rows = survey_with(&p);
        assert_eq!(rows[0].reach, Reach::Window);
        assert!(rows[0].how.to_string().contains("XWayland"));

        p.env.insert("SWAYSOCK", "/run/user/1000/sway.sock".into());
        let rows = survey_with(&p);
        assert_eq!(rows[0].name.to_string(), "Desktop: Wayland (sway)");

        let mut p = FakeProbe::default();
        p.env.insert("DISPLAY", ":0".into());
        p.wm = Some((Some("twm".into()), false));
        assert_eq!(survey_with(&p)[0].reach, Reach::Nothing);
    }

    #[test]
    fn rows_are_worded_in_the_persons_language_and_the_log_keeps_english() {
        let mut p = FakeProbe {
            programs: vec!["tmux", "gnome-terminal"],
            wm: Some((Some("Openbox".into()), true)),
            ..FakeProbe::default()
        };
        p.env.insert("DISPLAY", ":0".into());
        p.versions.insert("tmux", "tmux 3.3a");
        let rows = survey_with(&p);
        let gnome = row(&rows, "GNOME Terminal");
        let english = |r: &Support| (r.name.text(), r.how.text());
        assert_eq!(
            english(&rows[0]),
            (
                "Desktop: X11 (Openbox)".to_string(),
                "windows are raised with _NET_ACTIVE_WINDOW".to_string()
            )
        );
        {
            let _pt = vults_i18n::scoped(&vults_i18n::Choice::Language("pt-BR".into()));
            assert_eq!(rows[0].name.text(), "Área de trabalho: X11 (Openbox)");
            assert_eq!(
                rows[0].how.text(),
                "as janelas vêm para a frente com _NET_ACTIVE_WINDOW"
            );
            // A program's name and version stay as they are.
            assert_eq!(row(&rows, "tmux").name.text(), "tmux 3.3a");
            assert_eq!(
                gnome.how.text(),
                "a janela dele vem para a frente; a aba dele não é escolhida (o GNOME Terminal \
                 não tem um jeito de fazer isso)"
            );
            // Display is the log's: English whatever the language.
            assert_eq!(rows[0].name.to_string(), "Desktop: X11 (Openbox)");
        }
        assert_eq!(
            gnome.how.text(),
            "its window comes forward; its tab is not chosen (GNOME Terminal has no way to)"
        );
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
        assert_eq!(rows[0].name.to_string(), "Desktop: macOS");
        assert_eq!(rows[1].name.to_string(), "tmux 3.4");
        assert_eq!(row(&rows, "Terminal").reach, Reach::Pane);
        assert_eq!(row(&rows, "iTerm2").reach, Reach::Pane);

        let p = FakeProbe {
            platform: Some(Platform::Windows),
            programs: vec!["wt", "code.cmd"],
            ..FakeProbe::default()
        };
        let rows = survey_with(&p);
        assert_eq!(rows[0].name.to_string(), "Desktop: Windows");
        assert_eq!(row(&rows, "Windows Terminal").reach, Reach::Window);
        assert_eq!(row(&rows, "Console").reach, Reach::Window);
        assert!(row(&rows, "VS Code").how.to_string().contains("folder"));
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
