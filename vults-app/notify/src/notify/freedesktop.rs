//! Linux: `org.freedesktop.Notifications` (Desktop Notifications Specification 1.2) over zbus on
//! the notifier's tokio thread; the desktop's do-not-disturb from the server's `Inhibited`
//! property (KDE Plasma), GNOME's `show-banners` through the Settings portal, or `gsettings`.

use std::collections::HashMap;
use std::time::Duration;

use futures_lite::StreamExt;
use tokio::sync::mpsc::UnboundedSender;
use zbus::zvariant::{OwnedValue, Value};

use super::{BackendInfo, Bus, NotifierConfig, PlatformEvent};
use crate::notice::{NoticeKind, Outgoing, ServerCaps};

#[zbus::proxy(
    interface = "org.freedesktop.Notifications",
    default_service = "org.freedesktop.Notifications",
    default_path = "/org/freedesktop/Notifications",
    gen_blocking = false
)]
trait Notifications {
    #[allow(clippy::too_many_arguments)]
    fn notify(
        &self,
        app_name: &str,
        replaces_id: u32,
        app_icon: &str,
        summary: &str,
        body: &str,
        actions: &[&str],
        hints: HashMap<&str, Value<'_>>,
        expire_timeout: i32,
    ) -> zbus::Result<u32>;

    fn close_notification(&self, id: u32) -> zbus::Result<()>;

    fn get_capabilities(&self) -> zbus::Result<Vec<String>>;

    fn get_server_information(&self) -> zbus::Result<(String, String, String, String)>;

    #[zbus(signal)]
    fn action_invoked(&self, id: u32, action_key: String) -> zbus::Result<()>;

    #[zbus(signal)]
    fn notification_closed(&self, id: u32, reason: u32) -> zbus::Result<()>;
}

#[zbus::proxy(
    interface = "org.freedesktop.portal.Settings",
    default_service = "org.freedesktop.portal.Desktop",
    default_path = "/org/freedesktop/portal/desktop",
    gen_blocking = false
)]
trait PortalSettings {
    fn read_one(&self, namespace: &str, key: &str) -> zbus::Result<OwnedValue>;

    fn read(&self, namespace: &str, key: &str) -> zbus::Result<OwnedValue>;

    #[zbus(signal)]
    fn setting_changed(
        &self,
        namespace: String,
        key: String,
        value: OwnedValue,
    ) -> zbus::Result<()>;
}

const CALL_TIMEOUT: Duration = Duration::from_secs(5);

pub(crate) struct Backend {
    conn: zbus::Connection,
    proxy: NotificationsProxy<'static>,
    info_server: String,
    caps: ServerCaps,
    app_name: String,
    icon: String,
    desktop_entry: Option<String>,
}

/// The session bus (or the one given), with calls bounded so a stuck server cannot hold the
/// notifier's thread for long.
pub(crate) async fn connect_bus(bus: &Bus) -> Result<zbus::Connection, String> {
    let builder = match bus {
        Bus::Session => zbus::connection::Builder::session().map_err(|e| e.to_string())?,
        Bus::Address(a) => zbus::connection::Builder::address(a.as_str())
            .map_err(|e| format!("the bus address {a:?}: {e}"))?,
    };
    builder
        .method_timeout(CALL_TIMEOUT)
        .build()
        .await
        .map_err(|e| format!("no D-Bus session bus: {e}"))
}

impl Backend {
    pub(crate) async fn connect(
        config: &NotifierConfig,
        events: UnboundedSender<PlatformEvent>,
    ) -> Result<Backend, String> {
        let conn = connect_bus(&config.bus).await?;
        let proxy = NotificationsProxy::builder(&conn)
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
            .await
            .map_err(|e| e.to_string())?;
        let caps = proxy
            .get_capabilities()
            .await
            .map_err(|e| format!("no notification server on the session bus: {e}"))?;
        let (name, vendor, version, spec) =
            proxy.get_server_information().await.unwrap_or_else(|_| {
                (
                    "a notification server".into(),
                    String::new(),
                    String::new(),
                    String::new(),
                )
            });
        let mut server = format!("{name} {version}").trim().to_string();
        if !vendor.is_empty() && !name.contains(&vendor) {
            server.push_str(&format!(" ({vendor})"));
        }
        if !spec.is_empty() {
            server.push_str(&format!(", spec {spec}"));
        }
        // Signals first, then nothing can be missed after the first Notify.
        let mut actions = proxy
            .receive_action_invoked()
            .await
            .map_err(|e| e.to_string())?;
        let mut closed = proxy
            .receive_notification_closed()
            .await
            .map_err(|e| e.to_string())?;
        let tx = events.clone();
        tokio::spawn(async move {
            while let Some(signal) = actions.next().await {
                if let Ok(args) = signal.args() {
                    let _ = tx.send(PlatformEvent::Action {
                        id: args.id,
                        key: args.action_key,
                    });
                }
            }
        });
        tokio::spawn(async move {
            while let Some(signal) = closed.next().await {
                if let Ok(args) = signal.args() {
                    let _ = events.send(PlatformEvent::Closed {
                        id: args.id,
                        reason: args.reason,
                    });
                }
            }
        });
        Ok(Backend {
            conn,
            proxy,
            info_server: server,
            caps: ServerCaps::from_strings(&caps),
            app_name: config.app_name.clone(),
            icon: config.icon.clone(),
            desktop_entry: config.desktop_entry.clone(),
        })
    }

    pub(crate) fn info(&self) -> BackendInfo {
        BackendInfo {
            server: self.info_server.clone(),
            caps: self.caps.clone(),
            replace: true,
            withdraw: true,
        }
    }

    pub(crate) async fn notify(
        &mut self,
        replaces: u32,
        out: &Outgoing,
        actions: &[(String, String)],
    ) -> Result<u32, String> {
        let flat: Vec<&str> = actions
            .iter()
            .flat_map(|(k, l)| [k.as_str(), l.as_str()])
            .collect();
        let mut hints: HashMap<&str, Value<'_>> = HashMap::new();
        hints.insert("urgency", Value::U8(1));
        hints.insert("category", Value::from(category(out.kind)));
        if let Some(entry) = &self.desktop_entry {
            hints.insert("desktop-entry", Value::from(entry.as_str()));
        }
        match out.sound {
            Some(name) => {
                hints.insert("sound-name", Value::from(name));
            }
            None => {
                hints.insert("suppress-sound", Value::Bool(true));
            }
        }
        let timeout = if out.resident { 0 } else { -1 };
        self.proxy
            .notify(
                &self.app_name,
                replaces,
                &self.icon,
                &out.summary,
                &out.body,
                &flat,
                hints,
                timeout,
            )
            .await
            .map_err(|e| e.to_string())
    }

    pub(crate) async fn close(&mut self, id: u32) -> Result<(), String> {
        self.proxy
            .close_notification(id)
            .await
            .map_err(|e| e.to_string())
    }
}

fn category(kind: NoticeKind) -> &'static str {
    match kind {
        NoticeKind::Card => "x-vults.card",
        NoticeKind::Question => "x-vults.question",
        NoticeKind::TurnDone => "x-vults.done",
        NoticeKind::AsksInTerminal => "x-vults.terminal",
        NoticeKind::Warning => "x-vults.warning",
    }
}

/// The desktop's do-not-disturb: where it is read from and its state now, watched for changes
/// (sent as [`PlatformEvent::DesktopQuiet`]); or why it cannot be read.
pub(crate) async fn read_desktop_dnd(
    backend: Option<&Backend>,
    events: UnboundedSender<PlatformEvent>,
) -> Result<(String, Option<bool>), String> {
    let Some(b) = backend else {
        return Err("no session bus to read it from".into());
    };
    // 1. The notification server's own `Inhibited` (KDE Plasma; some others).
    let props = zbus::fdo::PropertiesProxy::builder(&b.conn)
        .destination("org.freedesktop.Notifications")
        .and_then(|p| p.path("/org/freedesktop/Notifications"))
        .map_err(|e| e.to_string())?
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
        .map_err(|e| e.to_string())?;
    let iface =
        zbus::names::InterfaceName::from_static_str_unchecked("org.freedesktop.Notifications");
    if let Ok(v) = props.get(iface.clone(), "Inhibited").await
        && let Ok(inhibited) = bool::try_from(&*v)
    {
        if let Ok(mut changes) = props.receive_properties_changed().await {
            let tx = events.clone();
            tokio::spawn(async move {
                while let Some(signal) = changes.next().await {
                    let Ok(args) = signal.args() else { continue };
                    if args.interface_name.as_str() != "org.freedesktop.Notifications" {
                        continue;
                    }
                    if let Some(v) = args.changed_properties.get("Inhibited")
                        && let Ok(q) = bool::try_from(v)
                    {
                        let _ = tx.send(PlatformEvent::DesktopQuiet(Some(q)));
                    }
                }
            });
        }
        return Ok((
            "the notification server's Inhibited property".into(),
            Some(inhibited),
        ));
    }
    // 2. GNOME's `show-banners`, through the Settings portal.
    const NS: &str = "org.gnome.desktop.notifications";
    const KEY: &str = "show-banners";
    if let Ok(portal) = PortalSettingsProxy::builder(&b.conn)
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
    {
        let read = match portal.read_one(NS, KEY).await {
            Ok(v) => Ok(v),
            Err(_) => portal.read(NS, KEY).await,
        };
        if let Ok(v) = read
            && let Some(banners) = bool_in(&v)
        {
            if let Ok(mut changes) = portal.receive_setting_changed().await {
                let tx = events.clone();
                tokio::spawn(async move {
                    while let Some(signal) = changes.next().await {
                        let Ok(args) = signal.args() else { continue };
                        if args.namespace == NS
                            && args.key == KEY
                            && let Some(banners) = bool_in(&args.value)
                        {
                            let _ = tx.send(PlatformEvent::DesktopQuiet(Some(!banners)));
                        }
                    }
                });
            }
            return Ok((
                "GNOME's show-banners setting, through the Settings portal".into(),
                Some(!banners),
            ));
        }
    }
    // 3. GNOME without the portal: gsettings, polled.
    let gnome = std::env::var("XDG_CURRENT_DESKTOP").is_ok_and(|d| {
        d.split(':')
            .any(|d| matches!(d, "GNOME" | "Unity" | "Budgie" | "Pantheon"))
    });
    if gnome && let Some(banners) = gsettings_show_banners().await {
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(super::TICK).await;
                let q = gsettings_show_banners().await.map(|b| !b);
                if events.send(PlatformEvent::DesktopQuiet(q)).is_err() {
                    break;
                }
            }
        });
        return Ok((
            "GNOME's show-banners setting, through gsettings".into(),
            Some(!banners),
        ));
    }
    Err(
        "this desktop does not say: its notification server has no Inhibited property and \
         GNOME's show-banners cannot be read"
            .into(),
    )
}

/// A boolean, possibly inside variants (the portal's old `Read` wraps its value twice).
fn bool_in(v: &Value<'_>) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::Value(inner) => bool_in(inner),
        _ => None,
    }
}

async fn gsettings_show_banners() -> Option<bool> {
    let out = tokio::task::spawn_blocking(|| {
        std::process::Command::new("gsettings")
            .args(["get", "org.gnome.desktop.notifications", "show-banners"])
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
    })
    .await
    .ok()?
    .ok()?;
    match String::from_utf8_lossy(&out.stdout).trim() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}
