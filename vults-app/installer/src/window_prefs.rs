//! Where the floating windows go and which language Vults speaks (Settings → General), kept in
//! `settings.json`: `{"window": {"monitor": "pointer" | "primary" | "<RandR name>",
//! "spare_fullscreen": true}, "language": "system" | "<tag>"}`.
//! A missing or unreadable file gives the defaults; one that does not parse is never rewritten.

use serde_json::Value;
use std::io;
use vults_core::paths::Paths;

/// The person's choices about where the island and the cards go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowPrefs {
    /// `"primary"`, `"pointer"`, or a monitor's name.
    pub monitor: String,
    /// Cards wait (the island counts them) while the monitor shows a fullscreen window.
    pub spare_fullscreen: bool,
    /// `"system"` (the OS's language) or a language's tag (`"pt-BR"`): vults_i18n reads it.
    pub language: String,
}

impl Default for WindowPrefs {
    fn default() -> WindowPrefs {
        WindowPrefs {
            monitor: "primary".into(),
            spare_fullscreen: true,
            language: "system".into(),
        }
    }
}

/// The saved choices, or the defaults.
pub fn read(paths: &Paths) -> WindowPrefs {
    let saved = std::fs::read(paths.settings_file())
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
    let mut prefs = WindowPrefs::default();
    if let Some(window) = saved.as_ref().and_then(|v| v.get("window")) {
        if let Some(m) = window.get("monitor").and_then(Value::as_str)
            && !m.is_empty()
            && m.len() <= 64
        {
            prefs.monitor = m.to_owned();
        }
        if let Some(spare) = window.get("spare_fullscreen").and_then(Value::as_bool) {
            prefs.spare_fullscreen = spare;
        }
    }
    if let Some(l) = saved
        .as_ref()
        .and_then(|v| v.get("language"))
        .and_then(Value::as_str)
        && !l.is_empty()
        && l.len() <= 35
    {
        prefs.language = l.to_owned();
    }
    prefs
}

/// Saves the choices, keeping every other setting (a file that does not parse is left alone
/// and the error said).
pub fn save(paths: &Paths, prefs: &WindowPrefs) -> io::Result<()> {
    crate::state::edit_settings(paths, |root| {
        let window = crate::state::object_at(root, "window");
        window.insert("monitor".into(), Value::String(prefs.monitor.clone()));
        window.insert(
            "spare_fullscreen".into(),
            Value::Bool(prefs.spare_fullscreen),
        );
        root.insert("language".into(), Value::String(prefs.language.clone()));
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_are_kept_beside_other_settings_and_a_broken_file_is_left_alone() {
        let home = std::env::temp_dir().join(format!("vults-window-prefs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&home);
        let paths = Paths::resolve(|k| (k == "VULTS_HOME").then(|| home.clone()));
        assert_eq!(read(&paths), WindowPrefs::default());
        std::fs::create_dir_all(&paths.config_dir).unwrap();
        std::fs::write(paths.settings_file(), r#"{"welcome":{"shown":true}}"#).unwrap();
        let chosen = WindowPrefs {
            monitor: "HDMI-1".into(),
            spare_fullscreen: false,
            language: "pt-BR".into(),
        };
        save(&paths, &chosen).unwrap();
        assert_eq!(read(&paths), chosen);
        let v: Value =
            serde_json::from_slice(&std::fs::read(paths.settings_file()).unwrap()).unwrap();
        assert_eq!(v["welcome"]["shown"], true, "other settings kept");
        std::fs::write(paths.settings_file(), "{ not json").unwrap();
        assert!(save(&paths, &WindowPrefs::default()).is_err());
        assert_eq!(
            std::fs::read_to_string(paths.settings_file()).unwrap(),
            "{ not json"
        );
        assert_eq!(read(&paths), WindowPrefs::default());
        let _ = std::fs::remove_dir_all(&home);
    }
}
