//! Start at login: off until the user turns it on (Settings → General, or
//! `vults-app autostart on`). The entry itself is the setting; nothing else records it.
//!
//! | platform | entry |
//! |---|---|
//! | Linux | `$XDG_CONFIG_HOME/autostart/vults.desktop` (`~/.config/autostart`) |
//! | macOS | `~/Library/LaunchAgents/dev.vults.Vults.plist` (a LaunchAgent, `RunAtLoad`) |
//! | Windows | `HKCU\Software\Microsoft\Windows\CurrentVersion\Run`, value `Vults` (via `reg.exe`) |
//!
//! With `VULTS_HOME` set, `$XDG_CONFIG_HOME` is ignored and the entry goes under the agents'
//! home (`VULTS_HOME/home`), so tests never touch the real one. `vults-app --uninstall`
//! removes the entry too.

use std::io;
use std::path::{Path, PathBuf};
use vults_core::paths::Paths;

/// The bundle / LaunchAgent label.
pub const LABEL: &str = "dev.vults.Vults";

/// Where the entry is written (Linux, macOS); `None` on Windows, where it is a registry value.
pub fn entry_file(paths: &Paths, env: impl Fn(&str) -> Option<PathBuf>) -> Option<PathBuf> {
    if cfg!(windows) {
        return None;
    }
    if cfg!(target_os = "macos") {
        return Some(
            paths
                .agent_home
                .join("Library/LaunchAgents")
                .join(format!("{LABEL}.plist")),
        );
    }
    let config = match env("VULTS_HOME") {
        Some(_) => None,
        None => env("XDG_CONFIG_HOME").filter(|p| p.is_absolute()),
    }
    .unwrap_or_else(|| paths.agent_home.join(".config"));
    Some(config.join("autostart").join("vults.desktop"))
}

fn process_env(k: &str) -> Option<PathBuf> {
    std::env::var_os(k)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Whether Vults starts at login.
pub fn is_enabled(paths: &Paths) -> bool {
    match entry_file(paths, process_env) {
        Some(file) => file.is_file(),
        None => windows::query().unwrap_or(false),
    }
}

/// Turns start at login on (for the program `exe`) or off. Returns where the entry is.
pub fn set(paths: &Paths, enabled: bool, exe: &Path) -> io::Result<String> {
    let Some(file) = entry_file(paths, process_env) else {
        if enabled {
            windows::add(exe)?;
        } else {
            windows::remove()?;
        }
        return Ok(windows::WHERE.to_string());
    };
    if enabled {
        let text = if cfg!(target_os = "macos") {
            launch_agent_plist(exe)
        } else {
            desktop_entry(exe)
        };
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir)?;
        }
        vults_core::atomic::write(&file, text.as_bytes(), Some(0o644))?;
    } else {
        match std::fs::remove_file(&file) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    Ok(file.display().to_string())
}

/// The XDG autostart entry (freedesktop Desktop Entry, validated by `desktop-file-validate`).
pub fn desktop_entry(exe: &Path) -> String {
    format!(
        "[Desktop Entry]\n\
         Type=Application\n\
         Name=Vults\n\
         Comment=Answer your coding agents' permission requests from one place\n\
         Exec={}\n\
         Icon=vults\n\
         Terminal=false\n\
         X-GNOME-Autostart-enabled=true\n",
        desktop_exec_quote(&exe.to_string_lossy())
    )
}

/// Quotes a program path for `Exec=` (the spec's reserved characters inside double quotes).
fn desktop_exec_quote(path: &str) -> String {
    if path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c))
    {
        return path.to_string();
    }
    let mut out = String::from("\"");
    for c in path.chars() {
        match c {
            '"' | '`' | '$' | '\\' => {
                // `\\` is itself escaped once more by the string-value rules.
                out.push_str("\\\\");
                out.push(c);
            }
            '%' => out.push_str("%%"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The LaunchAgent that starts the app at login (macOS; generated on every platform so it is
/// tested everywhere).
pub fn launch_agent_plist(exe: &Path) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>{LABEL}</string>
  <key>ProgramArguments</key>
  <array>
    <string>{}</string>
  </array>
  <key>RunAtLoad</key><true/>
  <key>ProcessType</key><string>Interactive</string>
</dict>
</plist>
"#,
        vults_core::text::xml_escape(&exe.to_string_lossy())
    )
}

/// The Run key, through `reg.exe` (no registry crate for one value).
mod windows {
    use std::io;
    use std::path::Path;

    pub const WHERE: &str = r"HKCU\Software\Microsoft\Windows\CurrentVersion\Run\Vults";
    const KEY: &str = r"HKCU\Software\Microsoft\Windows\CurrentVersion\Run";

    fn reg(args: &[&str]) -> io::Result<std::process::Output> {
        let mut cmd = std::process::Command::new("reg");
        cmd.args(args);
        #[cfg(windows)]
        {
            use std::os::windows::process::CommandExt;
            const CREATE_NO_WINDOW: u32 = 0x0800_0000;
            cmd.creation_flags(CREATE_NO_WINDOW);
        }
        cmd.output()
    }

    pub fn query() -> io::Result<bool> {
        Ok(reg(&["query", KEY, "/v", "Vults"])?.status.success())
    }

    pub fn add(exe: &Path) -> io::Result<()> {
        let data = format!("\"{}\"", exe.display());
        let out = reg(&["add", KEY, "/v", "Vults", "/t", "REG_SZ", "/d", &data, "/f"])?;
        if out.status.success() {
            Ok(())
        } else {
            Err(io::Error::other(
                String::from_utf8_lossy(&out.stderr).trim().to_string(),
            ))
        }
    }

    pub fn remove() -> io::Result<()> {
        if !query()? {
            return Ok(());
        }
        let out = reg(&["delete", KEY, "/v", "Vults", "/f"])?;
        if out.status.success() {
            Ok(())
        } else {
            Err(io::Error::other(
                String::from_utf8_lossy(&out.stderr).trim().to_string(),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(all(unix, not(target_os = "macos")))]
    #[test]
    fn the_entry_honours_xdg_config_home_unless_vults_home_is_set() {
        let paths = Paths::resolve(|k| (k == "HOME").then(|| PathBuf::from("/home/me")));
        let env = |k: &str| (k == "XDG_CONFIG_HOME").then(|| PathBuf::from("/cfg"));
        assert_eq!(
            entry_file(&paths, env),
            Some(PathBuf::from("/cfg/autostart/vults.desktop"))
        );
        assert_eq!(
            entry_file(&paths, |_| None),
            Some(PathBuf::from("/home/me/.config/autostart/vults.desktop"))
        );
        let vh = Paths::resolve(|k| (k == "VULTS_HOME").then(|| PathBuf::from("/t/v")));
        let env = |k: &str| match k {
            "VULTS_HOME" => Some(PathBuf::from("/t/v")),
            "XDG_CONFIG_HOME" => Some(PathBuf::from("/cfg")),
            _ => None,
        };
        assert_eq!(
            entry_file(&vh, env),
            Some(PathBuf::from("/t/v/home/.config/autostart/vults.desktop"))
        );
    }

    #[test]
    fn exec_quotes_paths_with_spaces_and_reserved_characters() {
        assert_eq!(
            desktop_exec_quote("/usr/bin/vults-app"),
            "/usr/bin/vults-app"
        );
        assert_eq!(
            desktop_exec_quote("/opt/My Apps/vults-app"),
            "\"/opt/My Apps/vults-app\""
        );
        assert_eq!(desktop_exec_quote("/a/$x%"), "\"/a/\\\\$x%%\"");
    }

    #[test]
    fn the_plist_escapes_the_path() {
        let plist = launch_agent_plist(Path::new("/Applications/A&B <x>.app/vults-app"));
        assert!(plist.contains("<string>/Applications/A&amp;B &lt;x&gt;.app/vults-app</string>"));
        assert!(plist.contains("<key>RunAtLoad</key><true/>"));
    }
}
