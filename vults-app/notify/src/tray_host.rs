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

pub use crate::no_tray::NoTray;

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

pub use crate::no_tray::missing_line;

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
