//! Wayland: the XDG GlobalShortcuts portal (`org.freedesktop.portal.GlobalShortcuts`), over
//! zbus in a task on the app's one runtime (`vults_engine::rt`). The portal owns the keys: Vults proposes its chords as
//! `preferred_trigger`s, the desktop may ask the person and bind others, and says which in
//! `BindShortcuts`' response ([`KeysEvent::Ready`]). Presses come as `Activated` signals of
//! our session.

use std::collections::HashMap;
use std::time::Duration;

use futures_lite::StreamExt;
use zbus::zvariant::{ObjectPath, OwnedObjectPath, OwnedValue, Value};

use super::{Chord, Events, KeyAction, KeysBackend, KeysEvent, Stop};
use crate::notify::Bus;

#[zbus::proxy(
    interface = "org.freedesktop.portal.GlobalShortcuts",
    default_service = "org.freedesktop.portal.Desktop",
    default_path = "/org/freedesktop/portal/desktop",
    gen_blocking = false
)]
trait GlobalShortcuts {
    fn create_session(&self, options: HashMap<&str, Value<'_>>) -> zbus::Result<OwnedObjectPath>;

    fn bind_shortcuts(
        &self,
        session_handle: &ObjectPath<'_>,
        shortcuts: &[(&str, HashMap<&str, Value<'_>>)],
        parent_window: &str,
        options: HashMap<&str, Value<'_>>,
    ) -> zbus::Result<OwnedObjectPath>;

    #[zbus(signal)]
    fn activated(
        &self,
        session_handle: OwnedObjectPath,
        shortcut_id: String,
        timestamp: u64,
        options: HashMap<String, OwnedValue>,
    ) -> zbus::Result<()>;

    #[zbus(property)]
    fn version(&self) -> zbus::Result<u32>;
}

#[zbus::proxy(
    interface = "org.freedesktop.portal.Request",
    default_service = "org.freedesktop.portal.Desktop",
    gen_blocking = false
)]
trait Request {
    #[zbus(signal)]
    fn response(&self, response: u32, results: HashMap<String, OwnedValue>) -> zbus::Result<()>;
}

#[zbus::proxy(
    interface = "org.freedesktop.portal.Session",
    default_service = "org.freedesktop.portal.Desktop",
    gen_blocking = false
)]
trait Session {
    fn close(&self) -> zbus::Result<()>;
}

/// How long the person may take with the desktop's "allow these shortcuts?" dialog.
const DIALOG_TIMEOUT: Duration = Duration::from_secs(300);

pub(super) fn start(
    bindings: &[(KeyAction, Chord); 3],
    bus: Bus,
    events: Events,
) -> Result<Stop, String> {
    let bindings = bindings.to_vec();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    // A task on the app's one runtime (`vults_engine::rt`), not a thread of its own.
    let task = vults_engine::rt::spawn(async move {
        tokio::select! {
            why = run(&bindings, &bus, &events) => {
                events.send(KeysEvent::Unavailable(why));
            }
            _ = stop_rx => {}
        }
    });
    Ok(Box::new(move || {
        let _ = stop_tx.send(());
        task.join();
    }))
}

/// The portal's request object for `token` (the spec's path, known before the call so the
/// response cannot be missed).
fn request_path(conn: &zbus::Connection, token: &str) -> Result<OwnedObjectPath, String> {
    let sender = conn
        .unique_name()
        .ok_or("no unique name on the bus")?
        .trim_start_matches(':')
        .replace('.', "_");
    OwnedObjectPath::try_from(format!(
        "/org/freedesktop/portal/desktop/request/{sender}/{token}"
    ))
    .map_err(|e| e.to_string())
}

/// Calls a portal method that answers through a Request: subscribes first, then calls, then
/// waits for `Response`. `Err` says why in words.
async fn request<F, Fut>(
    conn: &zbus::Connection,
    token: &str,
    timeout: Duration,
    call: F,
) -> Result<HashMap<String, OwnedValue>, String>
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = zbus::Result<OwnedObjectPath>>,
{
    let path = request_path(conn, token)?;
    let req = RequestProxy::builder(conn)
        .path(path)
        .map_err(|e| e.to_string())?
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
        .map_err(|e| e.to_string())?;
    let mut responses = req.receive_response().await.map_err(|e| e.to_string())?;
    call().await.map_err(|e| e.to_string())?;
    let signal = tokio::time::timeout(timeout, responses.next())
        .await
        .map_err(|_| "the desktop did not answer".to_string())?
        .ok_or("the portal went away")?;
    let args = signal.args().map_err(|e| e.to_string())?;
    match args.response {
        0 => Ok(args.results),
        1 => Err("you declined the shortcuts in the desktop's dialog".into()),
        _ => Err("the desktop refused the shortcuts".into()),
    }
}

fn token() -> String {
    let mut b = [0u8; 8];
    let _ = getrandom::fill(&mut b);
    format!(
        "vults_{}",
        b.iter().map(|x| format!("{x:02x}")).collect::<String>()
    )
}

/// Binds and then reads presses until the portal or the bus goes; returns why it stopped.
async fn run(bindings: &[(KeyAction, Chord)], bus: &Bus, events: &Events) -> String {
    let conn = match crate::notify::connect_bus(bus).await {
        Ok(c) => c,
        Err(e) => return e,
    };
    let portal = match GlobalShortcutsProxy::builder(&conn)
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
    {
        Ok(p) => p,
        Err(e) => return e.to_string(),
    };
    if let Err(e) = portal.version().await {
        return format!(
            "this desktop has no GlobalShortcuts portal (GNOME before 48, Sway, wlroots \
             desktops): {e}"
        );
    }
    let session_token = token();
    let create_token = token();
    let results = match request(&conn, &create_token, Duration::from_secs(30), || {
        let mut options: HashMap<&str, Value<'_>> = HashMap::new();
        options.insert("handle_token", Value::from(create_token.as_str()));
        options.insert("session_handle_token", Value::from(session_token.as_str()));
        portal.create_session(options)
    })
    .await
    {
        Ok(r) => r,
        Err(e) => return format!("the portal made no session: {e}"),
    };
    let session = match results.get("session_handle").and_then(|v| match &**v {
        Value::Str(s) => OwnedObjectPath::try_from(s.as_str()).ok(),
        Value::ObjectPath(p) => Some(OwnedObjectPath::from(p.clone())),
        _ => None,
    }) {
        Some(s) => s,
        None => return "the portal's session had no handle".into(),
    };
    let mut activated = match portal.receive_activated().await {
        Ok(s) => s,
        Err(e) => return e.to_string(),
    };
    let bind_token = token();
    let descriptions: Vec<(KeyAction, String, String)> = bindings
        .iter()
        .map(|(a, c)| (*a, a.description().to_string(), c.xdg_trigger()))
        .collect();
    let results = match request(&conn, &bind_token, DIALOG_TIMEOUT, || {
        let shortcuts: Vec<(&str, HashMap<&str, Value<'_>>)> = descriptions
            .iter()
            .map(|(a, d, t)| {
                let mut m: HashMap<&str, Value<'_>> = HashMap::new();
                m.insert("description", Value::from(d.as_str()));
                m.insert("preferred_trigger", Value::from(t.as_str()));
                (a.id(), m)
            })
            .collect();
        let mut options: HashMap<&str, Value<'_>> = HashMap::new();
        options.insert("handle_token", Value::from(bind_token.as_str()));
        let session = session.as_ref();
        async move {
            portal
                .bind_shortcuts(&session, &shortcuts, "", options)
                .await
        }
    })
    .await
    {
        Ok(r) => r,
        Err(e) => return format!("the shortcuts were not bound: {e}"),
    };
    events.send(KeysEvent::Ready {
        backend: KeysBackend::Portal,
        bindings: bound_triggers(&results, bindings),
    });
    while let Some(signal) = activated.next().await {
        let Ok(args) = signal.args() else { continue };
        if args.session_handle != session {
            continue;
        }
        if let Some(action) = KeyAction::from_id(&args.shortcut_id)
            && !events.send(KeysEvent::Pressed(action))
        {
            break;
        }
    }
    if let Ok(b) = SessionProxy::builder(&conn).path(session.clone())
        && let Ok(s) = b
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
            .await
    {
        let _ = s.close().await;
    }
    "the portal stopped sending shortcuts".into()
}

/// Each action's trigger as the portal bound it (`shortcuts` in the response: `a(sa{sv})`
/// with `trigger_description`), else the chord proposed.
fn bound_triggers(
    results: &HashMap<String, OwnedValue>,
    bindings: &[(KeyAction, Chord)],
) -> Vec<(KeyAction, String)> {
    let mut described: HashMap<String, String> = HashMap::new();
    if let Some(v) = results.get("shortcuts")
        && let Ok(list) = <Vec<(String, HashMap<String, OwnedValue>)>>::try_from(v.clone())
    {
        for (id, props) in list {
            if let Some(Value::Str(t)) = props.get("trigger_description").map(|v| &**v) {
                described.insert(id, t.to_string());
            }
        }
    }
    bindings
        .iter()
        .map(|(a, c)| {
            let t = described
                .get(a.id())
                .filter(|t| !t.is_empty())
                .cloned()
                .unwrap_or_else(|| c.to_string());
            (*a, t)
        })
        .collect()
}
