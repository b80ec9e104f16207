//! Whether a tray can show at all: a StatusNotifierItem (the tray icon Vults shows on Linux) is
//! drawn only where a host watches for them, `org.kde.StatusNotifierWatcher` on the session bus
//! (KDE Plasma, XFCE, sway's and others' bars; GNOME only with the AppIndicator extension).
//! Asked once, off the window's thread, so the window never waits on D-Bus; the asking runs on
//! the app's one runtime (`vults_engine::rt`).

/// What the session bus says about tray hosts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrayHost {
    /// A StatusNotifierWatcher runs: the tray icon shows.
    Present,
    /// The bus answered and no watcher runs: the icon shows nowhere.
    Missing,
    /// No session bus (or it did not answer): why.
    NoBus(String),
}

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

/// The name a StatusNotifierItem host owns.
pub const WATCHER: &str = "org.kde.StatusNotifierWatcher";

/// Asks the session bus (`DBUS_SESSION_BUS_ADDRESS`) whether a tray host runs. Blocks for one
/// round trip; call it off the window's thread.
pub fn probe() -> TrayHost {
    probe_at(None)
}

/// [`probe`] on the bus at `address` (`None`: the session bus). Not from a task of the app's
/// runtime (it blocks the thread; a worker's loop or a thread of its own may call it).
pub fn probe_at(address: Option<&str>) -> TrayHost {
    vults_engine::rt::handle().block_on(ask(address))
}

/// [`probe_at`] for a task: asks the bus at `address` (`None`: the session bus).
pub async fn ask(address: Option<&str>) -> TrayHost {
    let conn = match address {
        Some(a) => match zbus::connection::Builder::address(a) {
            Ok(b) => b.build().await,
            Err(e) => Err(e),
        },
        None => zbus::Connection::session().await,
    };
    let conn = match conn {
        Ok(c) => c,
        Err(e) => return TrayHost::NoBus(e.to_string()),
    };
    let owned = async {
        let bus = zbus::fdo::DBusProxy::new(&conn).await?;
        let name = zbus::names::BusName::try_from(WATCHER).map_err(zbus::Error::from)?;
        bus.name_has_owner(name).await
    };
    match owned.await {
        Ok(true) => TrayHost::Present,
        Ok(false) => TrayHost::Missing,
        Err(e) => TrayHost::NoBus(e.to_string()),
    }
}

/// The one line that says what a missing host means, for the log (Settings → General says it
/// in the person's language, `settings-tray-missing`).
pub fn missing_line() -> &'static str {
    "No tray on this desktop (no StatusNotifierItem host runs): the island and the window \
     still work. On GNOME, install the AppIndicator and KStatusNotifierItem Support extension \
     (gnome-shell-extension-appindicator) to see the tray icon."
}

#[cfg(all(test, target_os = "linux", feature = "test-support"))]
mod tests {
    use super::*;
    use crate::test_support::SessionBus;

    #[test]
    fn a_bus_without_a_watcher_says_missing_and_one_with_it_present() {
        let Some(bus) = SessionBus::start("tray_host") else {
            return;
        };
        assert_eq!(probe_at(Some(&bus.address)), TrayHost::Missing);
        let _host = vults_engine::rt::handle()
            .block_on(async {
                zbus::connection::Builder::address(bus.address.as_str())?
                    .name(WATCHER)?
                    .build()
                    .await
            })
            .expect("the stand-in host takes the watcher's name");
        assert_eq!(probe_at(Some(&bus.address)), TrayHost::Present);
        assert!(matches!(
            probe_at(Some("unix:path=/nonexistent/vults-bus")),
            TrayHost::NoBus(_)
        ));
    }
}
