//! Why no tray icon shows (Linux: no StatusNotifierItem host, or no session bus), a type every
//! platform's window can hold (Settings → General words it), beside the probe in `tray_host`
//! (Linux only).

/// Why no tray icon shows, once known: Settings → General words it in the person's language,
/// the log in English ([`NoTray::log_line`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoTray {
    /// The bus answered and no StatusNotifierItem host runs.
    Missing,
    /// No session bus (or it did not answer): why, as the D-Bus library said it.
    NoBus(String),
}

impl NoTray {
    /// What the log says.
    pub fn log_line(&self) -> String {
        match self {
            NoTray::Missing => missing_line().to_owned(),
            NoTray::NoBus(why) => format!(
                "No tray: no D-Bus session bus ({why}); the island and the window still work."
            ),
        }
    }
}

/// The one line that says what a missing host means, for the log (Settings → General says it
/// in the person's language, `settings-tray-missing`).
pub fn missing_line() -> &'static str {
    "No tray on this desktop (no StatusNotifierItem host runs): the island and the window \
     still work. On GNOME, install the AppIndicator and KStatusNotifierItem Support extension \
     (gnome-shell-extension-appindicator) to see the tray icon."
}
