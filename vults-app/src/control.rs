//! The phone's control channel: how `vults-app phone pair|list|revoke|test` reach the phone link
//! of the running headless app, and what each asks of it.
//!
//! **The channel.** A socket of its own beside the hook's (`<socket stem>.phone.sock`, e.g.
//! `vults.phone.sock`), never the hook socket, so the hook protocol stays as it is. It is made
//! 0600 in the runtime folder (0700), and both ends check the other's user: the app refuses a
//! peer of another uid before reading a byte, and the command refuses an app of another uid (a
//! listener planted there would otherwise hand it a QR code of its own). On Windows it is a
//! named pipe beside the hook's (`\\.\pipe\vults-<user>.phone.sock`) that admits this user
//! alone, and the command checks the user of the process serving it.
//!
//! **The wire.** One request line of JSON (at most [`MAX_REQUEST`] bytes, within
//! [`READ_WITHIN`]): `{"op":"pair","broker":false,"port":null,"loopback":false}`,
//! `{"op":"list"}`, `{"op":"revoke","device":"<id or name>"}`, `{"op":"test","device":null}`.
//! The app answers with JSON lines: `pair` with `{"offer":{…}}` and, once the phone paired or
//! the code ended, `{"paired":{…}}` or `{"ended":"expired"|"replaced"}`; the others with one
//! line; any failure is `{"error":"…"}`. A request that is not one of these is refused with an
//! error and nothing else happens. Everything a phone chose (its name) reaches the terminal
//! only through [`crate::cli`]'s escaping.
//!
//! The same [`handle`] serves a command with no app running: it then starts the link itself
//! ([`PhonePort::start`]) for as long as the command runs.

use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::io;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};
use vults_core::paths::Paths;
use vults_engine::clock::now_ms;
use vults_phone::{
    BackgroundLink, CommandSink, DEFAULT_PORT, LinkConfig, PhoneAction, PhoneStatus,
};

/// A request line is at most this long.
pub const MAX_REQUEST: u64 = 4096;
/// A request must arrive within this long of connecting.
pub const READ_WITHIN: Duration = Duration::from_secs(5);
/// Requests served at once; more are refused (with an error line).
const MAX_AT_ONCE: usize = 16;
/// How long the link may take to do what a command asked (bind, make the TLS certificate,
/// write `devices.json`) before the command says it did not.
const ACT_WITHIN: Duration = Duration::from_secs(20);
/// How long a test push may take to be taken (or refused) by the push service.
const PUSH_WITHIN: Duration = Duration::from_secs(30);

/// The channel's socket: beside the hook's, its own.
pub fn socket_path(paths: &Paths) -> std::path::PathBuf {
    let stem = paths
        .socket
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "vults".into());
    paths.socket.with_file_name(format!("{stem}.phone.sock"))
}

/// The phone link as the headless app (or a command with no app running) holds it: the link
/// on its own thread, and a counter its every new snapshot bumps, so a request can wait for
/// what it asked to show instead of polling.
pub struct PhonePort {
    /// `None` once stopped ([`PhonePort::stop`]).
    link: Mutex<Option<BackgroundLink>>,
    changes: Arc<Changes>,
}

#[derive(Default)]
struct Changes {
    count: Mutex<u64>,
    changed: Condvar,
}

impl Changes {
    fn bump(&self) {
        *self.count.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.changed.notify_all();
    }
    fn now(&self) -> u64 {
        *self.count.lock().unwrap_or_else(|e| e.into_inner())
    }
    /// Waits until the count passes `seen`, at most `within`.
    fn wait(&self, seen: u64, within: Duration) {
        let count = self.count.lock().unwrap_or_else(|e| e.into_inner());
        let _ = self
            .changed
            .wait_timeout_while(count, within, |c| *c <= seen);
    }
}

impl PhonePort {
    /// Starts the link (its keys, devices and saved broker) on a thread of its own; `commands`
    /// is where accepted answers and refusals go (the engine).
    pub fn start(paths: Paths, commands: CommandSink) -> PhonePort {
        let changes = Arc::new(Changes::default());
        let bump = changes.clone();
        let link = BackgroundLink::spawn(paths, commands, Arc::new(move || bump.bump()));
        PhonePort {
            link: Mutex::new(Some(link)),
            changes,
        }
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Option<BackgroundLink>> {
        self.link.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The link's latest snapshot (once stopped, one that says so).
    pub fn status(&self) -> PhoneStatus {
        match self.held().as_ref() {
            Some(link) => link.status(),
            None => PhoneStatus {
                error: Some("the phone link has stopped".into()),
                ..PhoneStatus::default()
            },
        }
    }

    /// The phone link follows the engine itself: a subscription of its own to the engine's
    /// events ([`BackgroundLink::follow`]); nothing else relays them.
    pub fn follow(&self, events: &vults_engine::EngineEvents) {
        if let Some(link) = self.held().as_ref() {
            link.follow(events);
        }
    }

    /// Pushes Vults' own warning (a hook removed, a usage limit near) to the paired phones, in
    /// the words the desktop notification says ([`vults_phone::PhoneAction::Warn`]).
    pub fn warn(&self, tag: &str, title: &str, body: &str) {
        if let Some(link) = self.held().as_ref() {
            link.apply(vults_phone::PhoneAction::Warn {
                tag: tag.to_string(),
                title: title.to_string(),
                body: body.to_string(),
            });
        }
    }

    /// Stops the link and waits until it has (its last summary of refusals sent to the engine,
    /// the listener and the broker link closed); what is asked of it later is refused.
    pub fn stop(&self) {
        let link = self.held().take();
        drop(link);
        self.changes.bump();
    }

    /// Calls `f` with each new snapshot, on a thread of its own, for as long as the process
    /// runs.
    pub fn watch(self: &Arc<Self>, mut f: impl FnMut(&PhoneStatus) + Send + 'static) {
        let port = self.clone();
        let spawned = std::thread::Builder::new()
            .name("vults-phone-watch".into())
            .spawn(move || {
                let mut seen = 0;
                loop {
                    port.changes.wait(seen, Duration::from_secs(3600));
                    let now = port.changes.now();
                    if now != seen {
                        seen = now;
                        f(&port.status());
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot watch the phone link: {e}");
        }
    }

    /// Asks the link to act; the count of snapshots before it, for [`PhonePort::wait_for`].
    fn act(&self, action: PhoneAction) -> u64 {
        let mark = self.changes.now();
        if let Some(link) = self.held().as_ref() {
            link.apply(action);
        }
        mark
    }

    /// The first snapshot after `mark` for which `done` says something, or `None` at
    /// `deadline` (or when `gone` says the asker left).
    fn wait_for<T>(
        &self,
        mark: u64,
        deadline: Instant,
        gone: &dyn Fn() -> bool,
        mut done: impl FnMut(&PhoneStatus) -> Option<T>,
    ) -> Option<T> {
        loop {
            let seen = self.changes.now();
            if seen > mark
                && let Some(found) = done(&self.status())
            {
                return Some(found);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || gone() {
                return None;
            }
            // Woken by the next snapshot; at most a second, to look at the clock and the asker.
            self.changes.wait(seen, left.min(Duration::from_secs(1)));
        }
    }
}

/// What a request asks, checked: anything else is refused before the link is touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// A pairing code; over the broker, or the LAN page (started on `port`, on loopback only
    /// with `loopback`, when it is not on yet).
    Pair {
        /// Over the broker.
        broker: bool,
        /// The LAN page's port when it starts.
        port: Option<u16>,
        /// The page on 127.0.0.1, plain HTTP.
        loopback: bool,
    },
    /// The paired phones.
    List,
    /// Revoke a phone, by id or unique name.
    Revoke(String),
    /// A test push, to one phone or to every phone with push on.
    Test(Option<String>),
}

/// A device name or id in a request is at most this long (names are 40 characters).
const MAX_DEVICE: usize = 200;

impl Request {
    /// The request line's JSON.
    pub fn to_json(&self) -> Value {
        match self {
            Request::Pair {
                broker,
                port,
                loopback,
            } => json!({"op": "pair", "broker": broker, "port": port, "loopback": loopback}),
            Request::List => json!({"op": "list"}),
            Request::Revoke(device) => json!({"op": "revoke", "device": device}),
            Request::Test(device) => json!({"op": "test", "device": device}),
        }
    }

    /// Reads a request line; `Err` says what is wrong with it.
    pub fn parse(line: &str) -> Result<Request, String> {
        let v: Value = serde_json::from_str(line).map_err(|_| "not a JSON request")?;
        let obj = v.as_object().ok_or("not a JSON object")?;
        let op = obj.get("op").and_then(Value::as_str).ok_or("no op")?;
        let allowed: &[&str] = match op {
            "pair" => &["op", "broker", "port", "loopback"],
            "list" => &["op"],
            "revoke" | "test" => &["op", "device"],
            _ => return Err("unknown op".into()),
        };
        if let Some(key) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(format!(
                "unknown field {:?}",
                key.chars().take(40).collect::<String>()
            ));
        }
        let flag = |k: &str| match obj.get(k) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(format!("{k} is not true or false")),
        };
        let device = || match obj.get("device") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if !s.is_empty() && s.chars().count() <= MAX_DEVICE => {
                Ok(Some(s.clone()))
            }
            Some(_) => Err("device is not a phone's id or name".to_string()),
        };
        Ok(match op {
            "pair" => Request::Pair {
                broker: flag("broker")?,
                port: match obj.get("port") {
                    None | Some(Value::Null) => None,
                    Some(p) => Some(
                        p.as_u64()
                            .and_then(|p| u16::try_from(p).ok())
                            .ok_or("port is not a port number")?,
                    ),
                },
                loopback: flag("loopback")?,
            },
            "list" => Request::List,
            "revoke" => Request::Revoke(device()?.ok_or("revoke needs a device")?),
            _ => Request::Test(device()?),
        })
    }
}

fn error(text: impl Into<String>) -> Value {
    json!({ "error": text.into() })
}

/// Does what `request` asks of the link; each reply line goes to `out` (which says `false` when
/// the asker is gone); `gone` is asked while a pairing waits.
pub fn handle(
    port: &PhonePort,
    request: &Request,
    out: &mut dyn FnMut(Value) -> bool,
    gone: &dyn Fn() -> bool,
) {
    match request {
        Request::Pair {
            broker,
            port: lan_port,
            loopback,
        } => pair(port, *broker, *lan_port, *loopback, out, gone),
        Request::List => {
            out(match first_status(port) {
                Some(status) => list(&status),
                None => error("the phone link did not start"),
            });
        }
        Request::Revoke(device) => {
            out(revoke(port, device));
        }
        Request::Test(device) => {
            out(test_push(port, device.as_deref()));
        }
    }
}

fn pair(
    port: &PhonePort,
    broker: bool,
    lan_port: Option<u16>,
    loopback: bool,
    out: &mut dyn FnMut(Value) -> bool,
    gone: &dyn Fn() -> bool,
) {
    // The link loads its keys and devices on its own thread: wait for its first snapshot.
    let first = port.wait_for(0, Instant::now() + ACT_WITHIN, gone, |s| Some(s.clone()));
    let Some(before) = first else {
        out(error("the phone link did not start"));
        return;
    };
    // A link that could not be made (its keys, devices.json) says only why.
    if let Some(e) = before
        .error
        .as_ref()
        .filter(|_| before.key_storage.is_empty())
    {
        out(error(e.clone()));
        return;
    }
    let known: BTreeSet<String> = before.devices.iter().map(|d| d.id.clone()).collect();
    let action = if broker {
        if before.broker.state.is_none() {
            out(error(match &before.broker.error {
                Some(e) => format!("the broker link is off: {e}"),
                None => "the broker link is off: save the broker's settings first \
                         (phone-broker.json with \"enabled\": true, docs/server.md)"
                    .to_string(),
            }));
            return;
        }
        PhoneAction::NewCode
    } else if before.address.is_none() {
        let lan_port = lan_port.unwrap_or(DEFAULT_PORT);
        PhoneAction::Listen(if loopback {
            LinkConfig::loopback(lan_port)
        } else {
            LinkConfig::lan(lan_port)
        })
    } else {
        PhoneAction::NewCode
    };
    let old = before.offer.as_ref().map(|o| o.token.clone());
    let mark = port.act(action);
    let made = port.wait_for(mark, Instant::now() + ACT_WITHIN, gone, |s| {
        if let Some(e) = &s.error {
            return Some(Err(e.clone()));
        }
        s.offer
            .clone()
            .filter(|o| Some(&o.token) != old.as_ref())
            .map(|o| Ok((o, s.address, s.tls_fingerprint.clone())))
    });
    let (offer, address, fingerprint) = match made {
        Some(Ok(made)) => made,
        Some(Err(e)) => {
            out(error(format!("the phone link cannot listen: {e}")));
            return;
        }
        None => {
            out(error("the phone link made no pairing code"));
            return;
        }
    };
    if broker && offer.broker.is_none() {
        out(error(
            "the broker's settings name no page for the phone: set phone_url (wss://) or \
             page_url in phone-broker.json (docs/phone.md)",
        ));
        return;
    }
    let sent = out(json!({"offer": {
        "url": offer.url,
        "expires_at": offer.expires_at,
        "address": address.map(|a| a.to_string()),
        "tls_fingerprint": fingerprint,
        "broker": offer.broker.is_some(),
    }}));
    if !sent {
        return;
    }
    let token = offer.token.clone();
    let left = offer.expires_at.saturating_sub(now_ms());
    let deadline = Instant::now() + Duration::from_millis(left);
    let ended = port.wait_for(0, deadline, gone, |s| {
        if let Some(d) = s.devices.iter().find(|d| !known.contains(&d.id)) {
            return Some(json!({"paired": {"id": d.id, "name": d.name}}));
        }
        let newer = s
            .offer
            .as_ref()
            .is_some_and(|o| o.token != token && o.expires_at > offer.expires_at);
        newer.then(|| json!({"ended": "replaced"}))
    });
    out(ended.unwrap_or_else(|| json!({"ended": "expired"})));
}

fn list(status: &PhoneStatus) -> Value {
    let devices: Vec<Value> = status
        .devices
        .iter()
        .map(|d| {
            let push = status.push.get(&d.id);
            json!({
                "id": d.id,
                "name": d.name,
                "paired_at": d.paired_at,
                "revoked_at": d.revoked_at,
                "push": d.push.is_some(),
                "last_delivered": push.and_then(|p| p.last_delivered),
                "delivered": push.map(|p| p.delivered).unwrap_or(0),
                "last_error": push.and_then(|p| p.last_error.as_ref()).map(ToString::to_string),
            })
        })
        .collect();
    json!({
        "devices": devices,
        "address": status.address.map(|a| a.to_string()),
        "broker": status.broker.state.as_ref().map(|s| s.describe()),
        "key_storage": status.key_storage,
        "push_storage": status.push_storage,
        "error": status.error,
    })
}

/// The one device `which` names: its id, or its name when no other device has it.
fn find_device<'a>(
    status: &'a PhoneStatus,
    which: &str,
) -> Result<&'a vults_phone::Device, String> {
    if let Some(d) = status.devices.iter().find(|d| d.id == which) {
        return Ok(d);
    }
    let named: Vec<_> = status.devices.iter().filter(|d| d.name == which).collect();
    match named.as_slice() {
        [one] => Ok(one),
        [] => Err("no paired phone has that id or name (vults-app phone list)".into()),
        many => Err(format!(
            "{} phones have that name; give its id: {}",
            many.len(),
            many.iter()
                .map(|d| d.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

fn first_status(port: &PhonePort) -> Option<PhoneStatus> {
    port.wait_for(0, Instant::now() + ACT_WITHIN, &|| false, |s| {
        Some(s.clone())
    })
}

fn revoke(port: &PhonePort, which: &str) -> Value {
    let Some(status) = first_status(port) else {
        return error("the phone link did not start");
    };
    let device = match find_device(&status, which) {
        Ok(d) => d.clone(),
        Err(e) => return error(e),
    };
    if device.revoked_at.is_some() {
        return json!({"revoked": {"id": device.id, "name": device.name, "already": true}});
    }
    let mark = port.act(PhoneAction::Revoke(device.id.clone()));
    let done = port.wait_for(mark, Instant::now() + ACT_WITHIN, &|| false, |s| {
        if let Some(e) = &s.error {
            return Some(Err(e.clone()));
        }
        s.devices
            .iter()
            .any(|d| d.id == device.id && d.revoked_at.is_some())
            .then_some(Ok(()))
    });
    match done {
        Some(Ok(())) => {
            json!({"revoked": {"id": device.id, "name": device.name, "already": false}})
        }
        Some(Err(e)) => error(format!("could not revoke it: {e}")),
        None => error("the phone link did not say it revoked it"),
    }
}

fn test_push(port: &PhonePort, which: Option<&str>) -> Value {
    let Some(status) = first_status(port) else {
        return error("the phone link did not start");
    };
    let targets: Vec<vults_phone::Device> = match which {
        Some(which) => match find_device(&status, which) {
            Ok(d) if d.revoked_at.is_some() => return error("that phone is revoked"),
            Ok(d) if d.push.is_none() => {
                return error(
                    "that phone has push off: turn on notifications on its page (an HTTPS \
                     address, docs/phone.md#push)",
                );
            }
            Ok(d) => vec![d.clone()],
            Err(e) => return error(e),
        },
        None => status
            .devices
            .iter()
            .filter(|d| d.revoked_at.is_none() && d.push.is_some())
            .cloned()
            .collect(),
    };
    if targets.is_empty() {
        return error("no paired phone has push on");
    }
    let before = status.push.clone();
    let mut mark = u64::MAX;
    for d in &targets {
        mark = mark.min(port.act(PhoneAction::TestPush(d.id.clone())));
    }
    // A push state that moved: taken (one more delivered) or refused (a new failure).
    let moved = |s: &PhoneStatus, id: &str| {
        let (was, now) = (before.get(id), s.push.get(id));
        match now {
            None => false,
            Some(now) => was.is_none_or(|was| {
                now.delivered > was.delivered
                    || (now.last_error.is_some() && now.last_error != was.last_error)
            }),
        }
    };
    let settled = port.wait_for(mark, Instant::now() + PUSH_WITHIN, &|| false, |s| {
        targets.iter().all(|d| moved(s, &d.id)).then(|| s.clone())
    });
    let status = settled.unwrap_or_else(|| port.status());
    let results: Vec<Value> = targets
        .iter()
        .map(|d| {
            let state = status.push.get(&d.id);
            let delivered = moved(&status, &d.id)
                && state
                    .is_some_and(|p| before.get(&d.id).is_none_or(|b| p.delivered > b.delivered));
            json!({
                "id": d.id,
                "name": d.name,
                "delivered": delivered,
                "error": if delivered { None } else {
                    Some(state.and_then(|p| p.last_error.as_ref()).map(ToString::to_string)
                        .unwrap_or_else(|| "the push service did not answer in time".into()))
                },
            })
        })
        .collect();
    json!({ "tested": results })
}

#[cfg(unix)]
pub use unix::{Served, connect, serve};
#[cfg(windows)]
pub use windows::{Served, connect, serve};

/// A connection of the channel: a Unix socket, or a named pipe on Windows.
trait Conn: Send + Sync + Sized + 'static
where
    for<'a> &'a Self: io::Read + io::Write,
{
    /// Reads and writes give up after `within`.
    fn limit_time(&self, within: Duration);
    /// The asker left (Ctrl-C on `phone pair`): its connection reads as closed. It sends
    /// nothing after its request, so whatever else it sent may be read and dropped.
    fn gone(&self) -> bool;
}

/// Serves the channel's connections, each on a thread of its own, at most [`MAX_AT_ONCE`] at
/// once (more are refused with an error line). `who` refuses a peer of another user before a
/// byte is read, where the platform leaves that to the app (Unix).
fn accept<S: Conn>(
    incoming: impl Iterator<Item = io::Result<S>>,
    who: impl Fn(&S) -> Result<(), String>,
    port: &Arc<PhonePort>,
) where
    for<'a> &'a S: io::Read + io::Write,
{
    use std::io::Write as _;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let busy = Arc::new(AtomicUsize::new(0));
    for stream in incoming {
        let Ok(stream) = stream else { continue };
        if let Err(why) = who(&stream) {
            tracing::warn!("phone control channel: {why}");
            continue;
        }
        if busy.fetch_add(1, Ordering::SeqCst) >= MAX_AT_ONCE {
            busy.fetch_sub(1, Ordering::SeqCst);
            stream.limit_time(READ_WITHIN);
            let _ = writeln!(&stream, "{}", error("too many phone commands at once"));
            continue;
        }
        let (port, busy) = (port.clone(), busy.clone());
        let spawned = std::thread::Builder::new()
            .name("vults-phone-command".into())
            .spawn(move || {
                serve_one::<S>(stream, &port);
                busy.fetch_sub(1, Ordering::SeqCst);
            });
        if let Err(e) = spawned {
            tracing::warn!("phone control channel: cannot serve a command: {e}");
        }
    }
}

/// Reads one request line and answers it.
fn serve_one<S: Conn>(stream: S, port: &PhonePort)
where
    for<'a> &'a S: io::Read + io::Write,
{
    use std::io::{BufRead as _, Write as _};
    stream.limit_time(READ_WITHIN);
    let mut line = String::new();
    let read = io::BufReader::new(io::Read::take(&stream, MAX_REQUEST)).read_line(&mut line);
    let mut out = |v: Value| {
        let mut writer = &stream;
        writeln!(writer, "{v}")
            .and_then(|()| writer.flush())
            .is_ok()
    };
    let request = match read {
        Ok(_) if line.ends_with('\n') => Request::parse(line.trim_end()),
        _ => Err("no request line".to_string()),
    };
    let request = match request {
        Ok(r) => r,
        Err(why) => {
            tracing::warn!("phone control channel: refused a request: {why}");
            out(error(format!("refused: {why}")));
            return;
        }
    };
    tracing::info!("phone control channel: {request:?}");
    let gone = || stream.gone();
    handle(port, &request, &mut out, &gone);
}

#[cfg(unix)]
mod unix {
    use super::{Conn, PhonePort};
    use std::io;
    use std::os::unix::net::{UnixListener, UnixStream};
    use std::sync::Arc;
    use std::time::Duration;
    use vults_core::paths::Paths;

    impl Conn for UnixStream {
        fn limit_time(&self, within: Duration) {
            let _ = self.set_read_timeout(Some(within));
            let _ = self.set_write_timeout(Some(within));
        }
        fn gone(&self) -> bool {
            let mut byte = [0u8; 64];
            if self.set_nonblocking(true).is_err() {
                return false;
            }
            let closed = matches!(io::Read::read(&mut &*self, &mut byte), Ok(0));
            let _ = self.set_nonblocking(false);
            closed
        }
    }

    /// The channel's socket file while the app serves it: removed when dropped, only if it is
    /// still the file this app made.
    pub struct Served {
        path: std::path::PathBuf,
        id: Option<(u64, u64, i64)>,
    }

    impl Drop for Served {
        fn drop(&mut self) {
            if self.id.is_some() && file_id(&self.path) == self.id {
                let _ = std::fs::remove_file(&self.path);
            }
        }
    }

    fn file_id(path: &std::path::Path) -> Option<(u64, u64, i64)> {
        use std::os::unix::fs::MetadataExt;
        std::fs::symlink_metadata(path).ok().map(|m| {
            (
                m.dev(),
                m.ino(),
                m.ctime().saturating_mul(1_000_000_000) + m.ctime_nsec(),
            )
        })
    }

    /// The peer runs as this user, or an error saying who it is.
    pub(super) fn same_user(stream: &UnixStream) -> Result<(), String> {
        let uid = vults_core::peer::peer_uid(stream)
            .map_err(|_| "refused a peer whose user cannot be read".to_string())?;
        let me = vults_core::paths::current_uid();
        if uid != me {
            return Err(format!(
                "refused a peer of uid {uid} (this app runs as uid {me})"
            ));
        }
        Ok(())
    }

    /// Listens on the channel and serves each request on a thread of its own.
    pub fn serve(paths: &Paths, port: Arc<PhonePort>) -> io::Result<Served> {
        use std::os::unix::fs::{DirBuilderExt, FileTypeExt, PermissionsExt};
        let path = super::socket_path(paths);
        if let Some(parent) = path.parent().filter(|p| !p.exists()) {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(parent)?;
        }
        if let Ok(meta) = std::fs::symlink_metadata(&path) {
            if !meta.file_type().is_socket() {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!("{} is there and is not a socket", path.display()),
                ));
            }
            // The engine already refused a second app on these folders; a socket nobody
            // answers on is one an app left when it died.
            if UnixStream::connect(&path).is_ok() {
                return Err(io::Error::new(
                    io::ErrorKind::AddrInUse,
                    format!("another app serves {}", path.display()),
                ));
            }
            std::fs::remove_file(&path)?;
        }
        let listener = UnixListener::bind(&path)?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
        let served = Served {
            id: file_id(&path),
            path,
        };
        std::thread::Builder::new()
            .name("vults-phone-control".into())
            .spawn(move || super::accept::<UnixStream>(listener.incoming(), same_user, &port))?;
        Ok(served)
    }

    /// The running app's channel: `Ok(None)` when no app serves one.
    pub fn connect(paths: &Paths) -> io::Result<Option<UnixStream>> {
        let path = super::socket_path(paths);
        let stream = match UnixStream::connect(&path) {
            Ok(s) => s,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused
                ) =>
            {
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        same_user(&stream).map_err(|why| io::Error::new(io::ErrorKind::PermissionDenied, why))?;
        Ok(Some(stream))
    }
}

/// Windows: a named pipe beside the hook's (`\\.\pipe\vults-<user>.phone.sock`), made with the
/// hook pipe's security descriptor (this user alone may open it), and a command that connects
/// checks that the process serving it runs as this user before it trusts a byte.
#[cfg(windows)]
mod windows {
    use super::{Conn, PhonePort};
    use interprocess::local_socket::traits::{ListenerExt as _, Stream as _, StreamCommon as _};
    use interprocess::local_socket::{GenericFilePath, ListenerOptions, Stream, ToFsName as _};
    use interprocess::os::windows::local_socket::ListenerOptionsExt as _;
    use std::io;
    use std::sync::Arc;
    use std::time::Duration;
    use vults_core::paths::Paths;
    use vults_engine::pipe_security::{current_user_sid, owner_only, user_sid_of_process};

    impl Conn for Stream {
        fn limit_time(&self, within: Duration) {
            let _ = self.set_recv_timeout(Some(within));
            let _ = self.set_send_timeout(Some(within));
        }
        /// A pipe's client that left makes peeking fail (broken, or no longer connected);
        /// a read without data would block, or under Wine return nothing as if closed.
        fn gone(&self) -> bool {
            use std::os::windows::io::{AsHandle as _, AsRawHandle as _};
            use windows_sys::Win32::System::Pipes::PeekNamedPipe;
            let Stream::NamedPipe(pipe) = self;
            let mut available = 0u32;
            // SAFETY: the handle is the stream's, alive for this call; no buffer is read into.
            let ok = unsafe {
                PeekNamedPipe(
                    pipe.as_handle().as_raw_handle(),
                    std::ptr::null_mut(),
                    0,
                    std::ptr::null_mut(),
                    &mut available,
                    std::ptr::null_mut(),
                )
            };
            ok == 0
        }
    }

    /// The pipe goes with the app; nothing to remove.
    pub struct Served;

    /// Listens on the channel and serves each request on a thread of its own.
    pub fn serve(paths: &Paths, port: Arc<PhonePort>) -> io::Result<Served> {
        let path = super::socket_path(paths);
        let name = path.as_path().to_fs_name::<GenericFilePath>()?;
        if Stream::connect(name.clone()).is_ok() {
            return Err(io::Error::new(
                io::ErrorKind::AddrInUse,
                format!("another app serves {}", path.display()),
            ));
        }
        let listener = ListenerOptions::new()
            .name(name)
            .security_descriptor(owner_only()?)
            .create_sync()?;
        std::thread::Builder::new()
            .name("vults-phone-control".into())
            .spawn(move || {
                super::accept::<Stream>(listener.incoming(), |_: &Stream| Ok(()), &port)
            })?;
        Ok(Served)
    }

    /// The running app's channel: `Ok(None)` when no app serves one. A pipe served by a
    /// process of another user (one that made the name first) is refused.
    pub fn connect(paths: &Paths) -> io::Result<Option<Stream>> {
        let path = super::socket_path(paths);
        let name = path.as_path().to_fs_name::<GenericFilePath>()?;
        let stream = match Stream::connect(name) {
            Ok(s) => s,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused
                ) =>
            {
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        let refused = |why: String| io::Error::new(io::ErrorKind::PermissionDenied, why);
        let pid = stream
            .peer_creds()
            .ok()
            .and_then(|c| c.pid())
            .ok_or_else(|| {
                refused(format!(
                    "cannot tell which process serves {}",
                    path.display()
                ))
            })?;
        let theirs = user_sid_of_process(pid).map_err(|e| {
            refused(format!(
                "cannot tell who runs the process serving {}: {e}",
                path.display()
            ))
        })?;
        if theirs != current_user_sid()? {
            return Err(refused(format!(
                "{} is served by another user's process (pid {pid}, {theirs})",
                path.display()
            )));
        }
        Ok(Some(stream))
    }
}
