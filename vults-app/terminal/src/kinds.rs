//! Which program a process is: the terminals, multiplexers and editors "Show terminal" knows,
//! and the processes a walk stops at.

use crate::procs::{Process, file_name, normalize};

/// The system a place is on. Plans are made for one (tests make them for each, on any host).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Platform {
    /// Linux and the BSDs: X11 or Wayland.
    Unix,
    MacOs,
    Windows,
}

impl Platform {
    pub fn current() -> Platform {
        if cfg!(windows) {
            Platform::Windows
        } else if cfg!(target_os = "macos") {
            Platform::MacOs
        } else {
            Platform::Unix
        }
    }
}

/// A multiplexer: its server is the agent's ancestor; a client of it shows the pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mux {
    Tmux,
    Screen,
    Zellij,
}

/// A terminal emulator. Those with a way to choose a tab or pane, or their own way to be
/// raised, have a variant; the rest are [`Emulator::Other`], raised as a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Emulator {
    Xterm,
    Kitty,
    WezTerm,
    Alacritty,
    GnomeTerminal,
    Konsole,
    Foot,
    Ghostty,
    ITerm2,
    AppleTerminal,
    WindowsTerminal,
    /// Any other known terminal (its label says which).
    Other(&'static str),
}

impl Emulator {
    pub fn label(self) -> &'static str {
        match self {
            Emulator::Xterm => "xterm",
            Emulator::Kitty => "kitty",
            Emulator::WezTerm => "WezTerm",
            Emulator::Alacritty => "Alacritty",
            Emulator::GnomeTerminal => "GNOME Terminal",
            Emulator::Konsole => "Konsole",
            Emulator::Foot => "foot",
            Emulator::Ghostty => "Ghostty",
            Emulator::ITerm2 => "iTerm2",
            Emulator::AppleTerminal => "Terminal",
            Emulator::WindowsTerminal => "Windows Terminal",
            Emulator::Other(label) => label,
        }
    }
}

/// An editor whose integrated terminal runs the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Editor {
    VsCode,
    VsCodeInsiders,
    VsCodium,
    Cursor,
    Windsurf,
    Zed,
    /// IntelliJ IDEA, PyCharm, … (no command to show a folder's window: raised as a window).
    JetBrains,
}

impl Editor {
    pub fn label(self) -> &'static str {
        match self {
            Editor::VsCode => "VS Code",
            Editor::VsCodeInsiders => "VS Code Insiders",
            Editor::VsCodium => "VSCodium",
            Editor::Cursor => "Cursor",
            Editor::Windsurf => "Windsurf",
            Editor::Zed => "Zed",
            Editor::JetBrains => "JetBrains IDE",
        }
    }

    /// The editor's command-line tool, which opens (or shows) a folder's window.
    pub fn cli(self) -> Option<&'static str> {
        match self {
            Editor::VsCode => Some("code"),
            Editor::VsCodeInsiders => Some("code-insiders"),
            Editor::VsCodium => Some("codium"),
            Editor::Cursor => Some("cursor"),
            Editor::Windsurf => Some("windsurf"),
            Editor::Zed => Some("zed"),
            Editor::JetBrains => None,
        }
    }
}

/// What a process is to the walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Mux(Mux),
    Emulator(Emulator),
    Editor(Editor),
    /// `sshd`: the agent runs in an SSH login into this machine; its terminal is elsewhere.
    SshLogin,
    /// A process no terminal runs under (init, launchd, explorer, a service host): stop.
    Boundary,
}

/// Terminals known by their program name (lower case, no `.exe`) on every system.
const EMULATORS: &[(&str, Emulator)] = &[
    ("xterm", Emulator::Xterm),
    ("uxterm", Emulator::Xterm),
    ("kitty", Emulator::Kitty),
    ("wezterm-gui", Emulator::WezTerm),
    ("alacritty", Emulator::Alacritty),
    ("gnome-terminal-server", Emulator::GnomeTerminal),
    ("gnome-terminal-", Emulator::GnomeTerminal),
    ("gnome-terminal", Emulator::GnomeTerminal),
    ("konsole", Emulator::Konsole),
    ("foot", Emulator::Foot),
    ("footclient", Emulator::Foot),
    ("ghostty", Emulator::Ghostty),
    ("iterm2", Emulator::ITerm2),
    ("windowsterminal", Emulator::WindowsTerminal),
    ("xfce4-terminal", Emulator::Other("Xfce Terminal")),
    ("mate-terminal", Emulator::Other("MATE Terminal")),
    ("lxterminal", Emulator::Other("LXTerminal")),
    ("qterminal", Emulator::Other("QTerminal")),
    ("terminator", Emulator::Other("Terminator")),
    ("tilix", Emulator::Other("Tilix")),
    ("terminology", Emulator::Other("Terminology")),
    ("urxvt", Emulator::Other("rxvt-unicode")),
    ("urxvtd", Emulator::Other("rxvt-unicode")),
    ("rxvt", Emulator::Other("rxvt")),
    ("st", Emulator::Other("st")),
    ("sakura", Emulator::Other("Sakura")),
    ("guake", Emulator::Other("Guake")),
    ("tilda", Emulator::Other("Tilda")),
    ("yakuake", Emulator::Other("Yakuake")),
    ("cool-retro-term", Emulator::Other("cool-retro-term")),
    ("ptyxis", Emulator::Other("Ptyxis")),
    ("ptyxis-agent", Emulator::Other("Ptyxis")),
    ("kgx", Emulator::Other("GNOME Console")),
    ("deepin-terminal", Emulator::Other("Deepin Terminal")),
    (
        "io.elementary.terminal",
        Emulator::Other("elementary Terminal"),
    ),
    ("contour", Emulator::Other("Contour")),
    ("rio", Emulator::Other("Rio")),
    ("warp-terminal", Emulator::Other("Warp")),
    ("wave", Emulator::Other("Wave")),
    ("tabby", Emulator::Other("Tabby")),
    ("hyper", Emulator::Other("Hyper")),
    ("mintty", Emulator::Other("mintty")),
    ("conemu64", Emulator::Other("ConEmu")),
    ("conemu", Emulator::Other("ConEmu")),
];

const EDITORS: &[(&str, Editor)] = &[
    ("code", Editor::VsCode),
    ("code-oss", Editor::VsCode),
    ("code-insiders", Editor::VsCodeInsiders),
    ("codium", Editor::VsCodium),
    ("vscodium", Editor::VsCodium),
    ("cursor", Editor::Cursor),
    ("windsurf", Editor::Windsurf),
    ("zed", Editor::Zed),
    ("zed-editor", Editor::Zed),
    ("zeditor", Editor::Zed),
    ("idea", Editor::JetBrains),
    ("idea64", Editor::JetBrains),
    ("pycharm", Editor::JetBrains),
    ("pycharm64", Editor::JetBrains),
    ("webstorm", Editor::JetBrains),
    ("webstorm64", Editor::JetBrains),
    ("clion", Editor::JetBrains),
    ("clion64", Editor::JetBrains),
    ("goland", Editor::JetBrains),
    ("goland64", Editor::JetBrains),
    ("rider", Editor::JetBrains),
    ("rider64", Editor::JetBrains),
    ("rustrover", Editor::JetBrains),
    ("rustrover64", Editor::JetBrains),
    ("phpstorm", Editor::JetBrains),
    ("phpstorm64", Editor::JetBrains),
    ("studio", Editor::JetBrains),
    ("studio64", Editor::JetBrains),
];

/// macOS app bundles, by the name of the outermost `.app` in the executable's path (a helper
/// inside `Visual Studio Code.app/Contents/Frameworks/Code Helper.app` is still VS Code).
const MAC_BUNDLES: &[(&str, Role)] = &[
    ("Terminal.app", Role::Emulator(Emulator::AppleTerminal)),
    ("iTerm.app", Role::Emulator(Emulator::ITerm2)),
    ("iTerm2.app", Role::Emulator(Emulator::ITerm2)),
    ("kitty.app", Role::Emulator(Emulator::Kitty)),
    ("WezTerm.app", Role::Emulator(Emulator::WezTerm)),
    ("Alacritty.app", Role::Emulator(Emulator::Alacritty)),
    ("Ghostty.app", Role::Emulator(Emulator::Ghostty)),
    ("Warp.app", Role::Emulator(Emulator::Other("Warp"))),
    ("Hyper.app", Role::Emulator(Emulator::Other("Hyper"))),
    ("Tabby.app", Role::Emulator(Emulator::Other("Tabby"))),
    ("Rio.app", Role::Emulator(Emulator::Other("Rio"))),
    ("Wave.app", Role::Emulator(Emulator::Other("Wave"))),
    ("Visual Studio Code.app", Role::Editor(Editor::VsCode)),
    (
        "Visual Studio Code - Insiders.app",
        Role::Editor(Editor::VsCodeInsiders),
    ),
    ("VSCodium.app", Role::Editor(Editor::VsCodium)),
    ("Cursor.app", Role::Editor(Editor::Cursor)),
    ("Windsurf.app", Role::Editor(Editor::Windsurf)),
    ("Zed.app", Role::Editor(Editor::Zed)),
];

const BOUNDARIES: &[&str] = &[
    "systemd",
    "init",
    "launchd",
    "explorer",
    "services",
    "wininit",
    "winlogon",
    "svchost",
    "csrss",
    "smss",
    "system",
    "kthreadd",
    "kernel_task",
];

/// The outermost `X.app` folder of a macOS executable's path.
pub(crate) fn mac_bundle(exe: &std::path::Path) -> Option<std::path::PathBuf> {
    let mut bundle = None;
    let mut path = std::path::PathBuf::new();
    for part in exe.components() {
        path.push(part);
        if part
            .as_os_str()
            .to_str()
            .is_some_and(|s| s.ends_with(".app"))
        {
            bundle = Some(path.clone());
            break;
        }
    }
    bundle
}

/// What `p` is, on `platform`; `None` for a process the walk passes by (a shell, the agent).
pub(crate) fn classify(p: &Process, platform: Platform) -> Option<Role> {
    if platform == Platform::MacOs
        && let Some(bundle) = p.exe.as_deref().and_then(mac_bundle)
        && let Some(name) = bundle.file_name().and_then(|n| n.to_str())
    {
        if let Some((_, role)) = MAC_BUNDLES.iter().find(|(b, _)| *b == name) {
            return Some(*role);
        }
        if name.contains("IntelliJ")
            || name.contains("PyCharm")
            || name.contains("WebStorm")
            || name.contains("CLion")
            || name.contains("GoLand")
            || name.contains("Rider")
            || name.contains("RustRover")
            || name.contains("PhpStorm")
            || name.contains("Android Studio")
        {
            return Some(Role::Editor(Editor::JetBrains));
        }
    }
    let program = p.program();
    let short = normalize(&p.name);
    let any = |n: &str| program == n || short == n;
    if any("tmux") || short.starts_with("tmux: ") {
        return Some(Role::Mux(Mux::Tmux));
    }
    if any("screen") {
        return Some(Role::Mux(Mux::Screen));
    }
    if any("zellij") {
        return Some(Role::Mux(Mux::Zellij));
    }
    if any("sshd") || any("sshd-session") {
        return Some(Role::SshLogin);
    }
    // Python terminals run as `python3 /usr/bin/terminator`.
    let script = (program.starts_with("python") || program == "perl")
        .then(|| {
            p.args
                .get(1)
                .map(|a| normalize(file_name(a.as_ref()).unwrap_or(a)))
        })
        .flatten();
    for name in [
        Some(program.as_str()),
        Some(short.as_str()),
        script.as_deref(),
    ]
    .into_iter()
    .flatten()
    {
        if let Some((_, e)) = EMULATORS.iter().find(|(n, _)| *n == name) {
            return Some(Role::Emulator(*e));
        }
        if let Some((_, e)) = EDITORS.iter().find(|(n, _)| *n == name) {
            return Some(Role::Editor(*e));
        }
    }
    if platform == Platform::MacOs && (program == "terminal" || short == "terminal") {
        return Some(Role::Emulator(Emulator::AppleTerminal));
    }
    if platform == Platform::Windows && program == "openconsole" {
        // Windows Terminal's console host: the terminal is its parent.
        return None;
    }
    if BOUNDARIES.contains(&program.as_str()) || BOUNDARIES.contains(&short.as_str()) {
        return Some(Role::Boundary);
    }
    if p.pid == 1 {
        return Some(Role::Boundary);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proc_named(name: &str, exe: Option<&str>) -> Process {
        Process {
            pid: 50,
            ppid: 1,
            name: name.into(),
            exe: exe.map(Into::into),
            args: vec![name.into()],
            ..Process::default()
        }
    }

    #[test]
    fn programs_are_known_by_their_executable_or_their_short_name() {
        let u = Platform::Unix;
        let cases = [
            ("tmux: server", Some("/usr/bin/tmux"), Role::Mux(Mux::Tmux)),
            ("tmux: server", None, Role::Mux(Mux::Tmux)),
            ("SCREEN", Some("/usr/bin/screen"), Role::Mux(Mux::Screen)),
            ("zellij", None, Role::Mux(Mux::Zellij)),
            (
                "gnome-terminal-",
                Some("/usr/libexec/gnome-terminal-server"),
                Role::Emulator(Emulator::GnomeTerminal),
            ),
            (
                "kitty",
                Some("/usr/lib/kitty/kitty"),
                Role::Emulator(Emulator::Kitty),
            ),
            (
                "code",
                Some("/usr/share/code/code"),
                Role::Editor(Editor::VsCode),
            ),
            ("sshd", Some("/usr/sbin/sshd"), Role::SshLogin),
            ("systemd", Some("/usr/lib/systemd/systemd"), Role::Boundary),
        ];
        for (name, exe, role) in cases {
            assert_eq!(classify(&proc_named(name, exe), u), Some(role), "{name}");
        }
        assert_eq!(
            classify(&proc_named("bash", Some("/usr/bin/bash")), u),
            None
        );
        assert_eq!(classify(&proc_named("node", None), u), None);
        // "Terminal" is Apple's only on a Mac.
        assert_eq!(classify(&proc_named("Terminal", None), u), None);
    }

    #[test]
    fn python_terminals_are_known_by_their_script() {
        let mut p = proc_named("terminator", Some("/usr/bin/python3.11"));
        p.args = vec!["/usr/bin/python3".into(), "/usr/bin/terminator".into()];
        assert_eq!(
            classify(&p, Platform::Unix),
            Some(Role::Emulator(Emulator::Other("Terminator")))
        );
    }

    #[test]
    fn mac_apps_are_known_by_their_bundle() {
        let m = Platform::MacOs;
        let helper = proc_named(
            "Code Helper (Plugin)",
            Some(
                "/Applications/Visual Studio Code.app/Contents/Frameworks/Code Helper (Plugin).app/Contents/MacOS/Code Helper (Plugin)",
            ),
        );
        assert_eq!(classify(&helper, m), Some(Role::Editor(Editor::VsCode)));
        let term = proc_named(
            "Terminal",
            Some("/System/Applications/Utilities/Terminal.app/Contents/MacOS/Terminal"),
        );
        assert_eq!(
            classify(&term, m),
            Some(Role::Emulator(Emulator::AppleTerminal))
        );
        let iterm = proc_named(
            "iTerm2",
            Some("/Applications/iTerm.app/Contents/MacOS/iTerm2"),
        );
        assert_eq!(classify(&iterm, m), Some(Role::Emulator(Emulator::ITerm2)));
        assert_eq!(
            mac_bundle("/Applications/iTerm.app/Contents/MacOS/iTerm2".as_ref()),
            Some("/Applications/iTerm.app".into())
        );
        assert_eq!(
            classify(&proc_named("launchd", None), m),
            Some(Role::Boundary)
        );
    }

    #[test]
    fn windows_programs_are_known_without_exe_and_case() {
        let w = Platform::Windows;
        assert_eq!(
            classify(&proc_named("WindowsTerminal.exe", None), w),
            Some(Role::Emulator(Emulator::WindowsTerminal))
        );
        assert_eq!(
            classify(
                &proc_named(
                    "Code.exe",
                    Some(r"C:\Users\me\AppData\Local\Programs\Microsoft VS Code\Code.exe")
                ),
                w
            ),
            Some(Role::Editor(Editor::VsCode))
        );
        assert_eq!(classify(&proc_named("OpenConsole.exe", None), w), None);
        assert_eq!(
            classify(&proc_named("explorer.exe", None), w),
            Some(Role::Boundary)
        );
        assert_eq!(classify(&proc_named("pwsh.exe", None), w), None);
    }
}
