//! For tests (feature `test-support`): a private D-Bus session bus and a stand-in
//! notification server that records every call, as `dbus-monitor` would show them.
//!
//! ```no_run
//! use vults_notify::test_support::{NotificationServer, SessionBus};
//! let Some(bus) = SessionBus::start("my_test") else { return };
//! let server = NotificationServer::start(&bus.address, &["actions", "body", "sound"]);
//! // ... start a Notifier with `Bus::Address(bus.address.clone())`, then:
//! assert_eq!(server.notifies().len(), 1);
//! ```
//!
//! The bus has its own configuration (no service activation, nothing from the machine's
//! session), so a test never reaches the real desktop. Linux only: it needs `dbus-daemon`.

#![cfg(target_os = "linux")]

use std::collections::HashMap;
use std::io::BufRead;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use zbus::object_server::SignalEmitter;
use zbus::zvariant::{OwnedValue, Value};

/// A `dbus-daemon` of the test's own, killed (and its folder removed) on drop.
pub struct SessionBus {
    child: Child,
    dir: PathBuf,
    /// Its address, for `Bus::Address` and `zbus::connection::Builder::address`.
    pub address: String,
}

impl SessionBus {
    /// Starts one. `None` (after saying why on stderr) when `dbus-daemon` is not installed and
    /// `VULTS_DESKTOP_TESTS` is not `1`; with it set, a missing `dbus-daemon` fails the test.
    pub fn start(test: &str) -> Option<SessionBus> {
        let found = std::env::var_os("PATH").is_some_and(|paths| {
            std::env::split_paths(&paths).any(|d| d.join("dbus-daemon").is_file())
        });
        if !found {
            assert!(
                !std::env::var("VULTS_DESKTOP_TESTS").is_ok_and(|v| v == "1"),
                "{test}: VULTS_DESKTOP_TESTS=1 but dbus-daemon is not installed (apt-get install dbus)"
            );
            eprintln!("{test}: skipped, needs dbus-daemon (apt-get install dbus)");
            return None;
        }
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("vults-bus-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("bus folder");
        let socket = dir.join("bus");
        let config = dir.join("bus.conf");
        std::fs::write(
            &config,
            format!(
                r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#,
                socket.display()
            ),
        )
        .expect("bus config");
        let mut child = Command::new("dbus-daemon")
            .arg(format!("--config-file={}", config.display()))
            .args(["--nofork", "--print-address=1"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            // It says, as root, that it cannot raise its fd limit: noise.
            .stderr(Stdio::null())
            .spawn()
            .expect("dbus-daemon starts");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("its stdout");
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .expect("dbus-daemon prints its address");
        let address = line.trim().to_string();
        assert!(
            address.starts_with("unix:"),
            "{test}: bus address {address:?}"
        );
        Some(SessionBus {
            child,
            dir,
            address,
        })
    }
}

impl Drop for SessionBus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A hint as the server received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hint {
    /// A string (`sound-name`, `category`, `desktop-entry`).
    Str(String),
    /// A boolean (`suppress-sound`).
    Bool(bool),
    /// A byte (`urgency`).
    Byte(u8),
    /// Anything else, as zvariant prints it.
    Other(String),
}

/// One `Notify` call as received, with the id the stand-in returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotifyCall {
    /// `app_name`.
    pub app_name: String,
    /// `replaces_id`.
    pub replaces_id: u32,
    /// `summary`.
    pub summary: String,
    /// `body`.
    pub body: String,
    /// `actions`, as sent: key, label, key, label …
    pub actions: Vec<String>,
    /// `hints`.
    pub hints: HashMap<String, Hint>,
    /// `expire_timeout`.
    pub expire_timeout: i32,
    /// The id returned.
    pub id: u32,
}

impl NotifyCall {
    /// The action keys (every other entry of `actions`).
    pub fn action_keys(&self) -> Vec<&str> {
        self.actions.iter().step_by(2).map(String::as_str).collect()
    }

    /// The action labels.
    pub fn action_labels(&self) -> Vec<&str> {
        self.actions
            .iter()
            .skip(1)
            .step_by(2)
            .map(String::as_str)
            .collect()
    }

    /// The key of the action labelled `label`.
    pub fn key_of(&self, label: &str) -> Option<&str> {
        self.actions
            .chunks(2)
            .find(|p| p.len() == 2 && p[1] == label)
            .map(|p| p[0].as_str())
    }
}

/// A call the stand-in received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// `GetCapabilities`.
    GetCapabilities,
    /// `GetServerInformation`.
    GetServerInformation,
    /// `Notify`.
    Notify(NotifyCall),
    /// `CloseNotification(id)`.
    Close(u32),
}

/// The interface itself, in a module of its own: the macro's generated methods carry no docs.
#[allow(missing_docs)]
mod server {
    use super::*;

    #[derive(Default)]
    pub(super) struct State {
        pub(super) calls: Vec<Call>,
        pub(super) open: Vec<u32>,
        pub(super) next: u32,
    }

    pub(super) struct Server {
        pub(super) caps: Vec<String>,
        pub(super) state: Arc<Mutex<State>>,
        pub(super) inhibited: Option<bool>,
    }

    #[zbus::interface(name = "org.freedesktop.Notifications")]
    impl Server {
        async fn get_capabilities(&self) -> Vec<String> {
            self.state.lock().unwrap().calls.push(Call::GetCapabilities);
            self.caps.clone()
        }

        async fn get_server_information(&self) -> (String, String, String, String) {
            self.state
                .lock()
                .unwrap()
                .calls
                .push(Call::GetServerInformation);
            (
                "stand-in".into(),
                "vults-tests".into(),
                "1.0".into(),
                "1.2".into(),
            )
        }

        #[allow(clippy::too_many_arguments)]
        async fn notify(
            &self,
            app_name: String,
            replaces_id: u32,
            _app_icon: String,
            summary: String,
            body: String,
            actions: Vec<String>,
            hints: HashMap<String, OwnedValue>,
            expire_timeout: i32,
        ) -> u32 {
            let mut s = self.state.lock().unwrap();
            let id = if replaces_id != 0 && s.open.contains(&replaces_id) {
                replaces_id
            } else {
                s.next += 1;
                let id = s.next;
                s.open.push(id);
                id
            };
            let hints = hints
                .into_iter()
                .map(|(k, v)| {
                    let h = match &*v {
                        Value::Str(t) => Hint::Str(t.to_string()),
                        Value::Bool(b) => Hint::Bool(*b),
                        Value::U8(b) => Hint::Byte(*b),
                        other => Hint::Other(format!("{other:?}")),
                    };
                    (k, h)
                })
                .collect();
            s.calls.push(Call::Notify(NotifyCall {
                app_name,
                replaces_id,
                summary,
                body,
                actions,
                hints,
                expire_timeout,
                id,
            }));
            id
        }

        async fn close_notification(
            &self,
            id: u32,
            #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        ) {
            let was_open = {
                let mut s = self.state.lock().unwrap();
                s.calls.push(Call::Close(id));
                let was = s.open.contains(&id);
                s.open.retain(|o| *o != id);
                was
            };
            if was_open {
                let _ = Server::notification_closed(&emitter, id, 3).await;
            }
        }

        #[zbus(property)]
        async fn inhibited(&self) -> zbus::fdo::Result<bool> {
            self.inhibited
                .ok_or_else(|| zbus::fdo::Error::UnknownProperty("no Inhibited here".into()))
        }

        #[zbus(signal)]
        pub(super) async fn action_invoked(
            emitter: &SignalEmitter<'_>,
            id: u32,
            action_key: &str,
        ) -> zbus::Result<()>;

        #[zbus(signal)]
        pub(super) async fn notification_closed(
            emitter: &SignalEmitter<'_>,
            id: u32,
            reason: u32,
        ) -> zbus::Result<()>;
    }
}
use server::{Server, State};

const PATH: &str = "/org/freedesktop/Notifications";

/// A stand-in `org.freedesktop.Notifications` on a bus: it answers `GetCapabilities` with the
/// capabilities given, returns ids from 1 (the same id for a `replaces_id` it has open), records
/// every call, and lets the test play the person: [`invoke`](NotificationServer::invoke),
/// [`dismiss`](NotificationServer::dismiss), [`set_inhibited`](NotificationServer::set_inhibited).
pub struct NotificationServer {
    rt: tokio::runtime::Runtime,
    conn: zbus::Connection,
    state: Arc<Mutex<State>>,
}

impl NotificationServer {
    /// Serves on the bus at `address` with these capabilities (`actions`, `body`,
    /// `body-markup`, `sound` …), without an `Inhibited` property.
    pub fn start(address: &str, caps: &[&str]) -> NotificationServer {
        NotificationServer::start_with(address, caps, None)
    }

    /// As [`start`](NotificationServer::start), with an `Inhibited` property (KDE's
    /// do-not-disturb) set to `inhibited` when `Some`.
    pub fn start_with(address: &str, caps: &[&str], inhibited: Option<bool>) -> NotificationServer {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("runtime");
        let state = Arc::new(Mutex::new(State::default()));
        let server = Server {
            caps: caps.iter().map(|c| c.to_string()).collect(),
            state: state.clone(),
            inhibited,
        };
        let conn = rt
            .block_on(async {
                zbus::connection::Builder::address(address)?
                    .serve_at(PATH, server)?
                    .name("org.freedesktop.Notifications")?
                    .build()
                    .await
            })
            .expect("the stand-in notification server takes its name");
        NotificationServer { rt, conn, state }
    }

    /// Every call so far, in order.
    pub fn calls(&self) -> Vec<Call> {
        self.state.lock().unwrap().calls.clone()
    }

    /// The `Notify` calls so far.
    pub fn notifies(&self) -> Vec<NotifyCall> {
        self.calls()
            .into_iter()
            .filter_map(|c| match c {
                Call::Notify(n) => Some(n),
                _ => None,
            })
            .collect()
    }

    /// The `CloseNotification` ids so far.
    pub fn closes(&self) -> Vec<u32> {
        self.calls()
            .into_iter()
            .filter_map(|c| match c {
                Call::Close(id) => Some(id),
                _ => None,
            })
            .collect()
    }

    /// The ids on screen now.
    pub fn open(&self) -> Vec<u32> {
        self.state.lock().unwrap().open.clone()
    }

    /// Waits up to `timeout` for `check` over the calls to hold; whether it did.
    pub fn wait_for(&self, timeout: Duration, check: impl Fn(&[Call]) -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if check(&self.calls()) {
                return true;
            }
            if Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The person pressed the action `key` on notification `id`: emits `ActionInvoked`.
    pub fn invoke(&self, id: u32, key: &str) {
        self.rt.block_on(async {
            let emitter = SignalEmitter::new(&self.conn, PATH).expect("path");
            Server::action_invoked(&emitter, id, key)
                .await
                .expect("ActionInvoked sent");
        });
    }

    /// The person dismissed notification `id`: emits `NotificationClosed(id, 2)`.
    pub fn dismiss(&self, id: u32) {
        self.state.lock().unwrap().open.retain(|o| *o != id);
        self.rt.block_on(async {
            let emitter = SignalEmitter::new(&self.conn, PATH).expect("path");
            Server::notification_closed(&emitter, id, 2)
                .await
                .expect("NotificationClosed sent");
        });
    }

    /// The desktop's do-not-disturb changed: sets `Inhibited` and emits `PropertiesChanged`.
    pub fn set_inhibited(&self, inhibited: bool) {
        self.rt.block_on(async {
            let iface = self
                .conn
                .object_server()
                .interface::<_, Server>(PATH)
                .await
                .expect("the interface");
            let mut server = iface.get_mut().await;
            server.inhibited = Some(inhibited);
            server
                .inhibited_changed(iface.signal_emitter())
                .await
                .expect("PropertiesChanged sent");
        });
    }
}

/// What the portal stand-in was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PortalCall {
    /// `GlobalShortcuts.CreateSession`, with its `session_handle_token`.
    CreateSession(String),
    /// `GlobalShortcuts.BindShortcuts`: each shortcut's id, description and preferred trigger.
    BindShortcuts(Vec<(String, String, String)>),
    /// `Settings.ReadOne` or `Settings.Read`: namespace and key.
    Read(String, String),
}

#[derive(Default)]
struct PortalState {
    calls: Vec<PortalCall>,
    sessions: Vec<String>,
}

/// The portal's interfaces, in a module of their own: the macro's generated methods carry no
/// docs.
#[allow(missing_docs)]
mod portal {
    use super::*;
    use zbus::zvariant::OwnedObjectPath;

    pub(super) const PATH: &str = "/org/freedesktop/portal/desktop";

    /// The Response of a Request object at the path the spec gives for `token`.
    async fn respond(
        conn: &zbus::Connection,
        sender: &str,
        token: &str,
        results: HashMap<String, OwnedValue>,
    ) -> zbus::fdo::Result<OwnedObjectPath> {
        let path = format!(
            "{PATH}/request/{}/{token}",
            sender.trim_start_matches(':').replace('.', "_")
        );
        let path =
            OwnedObjectPath::try_from(path).map_err(|e| zbus::fdo::Error::Failed(e.to_string()))?;
        conn.emit_signal(
            Some(sender),
            &path,
            "org.freedesktop.portal.Request",
            "Response",
            &(0u32, results),
        )
        .await
        .map_err(|e| zbus::fdo::Error::Failed(e.to_string()))?;
        Ok(path)
    }

    fn string(options: &HashMap<String, OwnedValue>, key: &str) -> String {
        match options.get(key).map(|v| &**v) {
            Some(Value::Str(s)) => s.to_string(),
            _ => String::new(),
        }
    }

    pub(super) struct Shortcuts {
        pub(super) state: Arc<Mutex<PortalState>>,
        /// Triggers the desktop picks instead of the ones proposed, by shortcut id.
        pub(super) chosen: HashMap<String, String>,
    }

    #[zbus::interface(name = "org.freedesktop.portal.GlobalShortcuts")]
    impl Shortcuts {
        async fn create_session(
            &self,
            options: HashMap<String, OwnedValue>,
            #[zbus(header)] header: zbus::message::Header<'_>,
            #[zbus(connection)] conn: &zbus::Connection,
        ) -> zbus::fdo::Result<OwnedObjectPath> {
            let sender = header.sender().map(|s| s.to_string()).unwrap_or_default();
            let token = string(&options, "session_handle_token");
            let session = format!(
                "{PATH}/session/{}/{token}",
                sender.trim_start_matches(':').replace('.', "_")
            );
            {
                let mut s = self.state.lock().unwrap();
                s.calls.push(PortalCall::CreateSession(token));
                s.sessions.push(session.clone());
            }
            let mut results = HashMap::new();
            results.insert(
                "session_handle".to_string(),
                OwnedValue::try_from(Value::from(session)).expect("a string"),
            );
            respond(conn, &sender, &string(&options, "handle_token"), results).await
        }

        async fn bind_shortcuts(
            &self,
            _session_handle: OwnedObjectPath,
            shortcuts: Vec<(String, HashMap<String, OwnedValue>)>,
            _parent_window: String,
            options: HashMap<String, OwnedValue>,
            #[zbus(header)] header: zbus::message::Header<'_>,
            #[zbus(connection)] conn: &zbus::Connection,
        ) -> zbus::fdo::Result<OwnedObjectPath> {
            let sender = header.sender().map(|s| s.to_string()).unwrap_or_default();
            let asked: Vec<(String, String, String)> = shortcuts
                .iter()
                .map(|(id, p)| {
                    (
                        id.clone(),
                        string(p, "description"),
                        string(p, "preferred_trigger"),
                    )
                })
                .collect();
            self.state
                .lock()
                .unwrap()
                .calls
                .push(PortalCall::BindShortcuts(asked.clone()));
            let bound: Vec<(String, HashMap<String, Value<'static>>)> = asked
                .into_iter()
                .map(|(id, description, trigger)| {
                    let mut p = HashMap::new();
                    p.insert("description".to_string(), Value::from(description));
                    // Only a trigger the desktop chose is described; for the others the client
                    // falls back to what it proposed.
                    let _ = trigger;
                    if let Some(t) = self.chosen.get(&id) {
                        p.insert("trigger_description".to_string(), Value::from(t.clone()));
                    }
                    (id, p)
                })
                .collect();
            let mut results = HashMap::new();
            results.insert(
                "shortcuts".to_string(),
                OwnedValue::try_from(Value::from(bound))
                    .map_err(|e| zbus::fdo::Error::Failed(e.to_string()))?,
            );
            respond(conn, &sender, &string(&options, "handle_token"), results).await
        }

        #[zbus(property)]
        async fn version(&self) -> u32 {
            1
        }

        #[zbus(signal)]
        pub(super) async fn activated(
            emitter: &SignalEmitter<'_>,
            session_handle: zbus::zvariant::ObjectPath<'_>,
            shortcut_id: &str,
            timestamp: u64,
            options: HashMap<&str, Value<'_>>,
        ) -> zbus::Result<()>;
    }

    pub(super) struct Settings {
        pub(super) state: Arc<Mutex<PortalState>>,
        pub(super) show_banners: Option<bool>,
    }

    impl Settings {
        fn value(&self, namespace: &str, key: &str) -> zbus::fdo::Result<OwnedValue> {
            self.state
                .lock()
                .unwrap()
                .calls
                .push(PortalCall::Read(namespace.into(), key.into()));
            match (namespace, key, self.show_banners) {
                ("org.gnome.desktop.notifications", "show-banners", Some(b)) => {
                    Ok(OwnedValue::from(b))
                }
                _ => Err(zbus::fdo::Error::Failed(
                    "Requested setting not found".into(),
                )),
            }
        }
    }

    #[zbus::interface(name = "org.freedesktop.portal.Settings")]
    impl Settings {
        async fn read_one(&self, namespace: String, key: String) -> zbus::fdo::Result<OwnedValue> {
            self.value(&namespace, &key)
        }

        #[zbus(signal)]
        pub(super) async fn setting_changed(
            emitter: &SignalEmitter<'_>,
            namespace: &str,
            key: &str,
            value: Value<'_>,
        ) -> zbus::Result<()>;
    }
}

/// A stand-in `org.freedesktop.portal.Desktop`: `GlobalShortcuts` (sessions, binding with the
/// triggers the test says the desktop chose — only those get a `trigger_description` —,
/// `Activated` on [`press`](Portal::press)) and
/// `Settings` (GNOME's `show-banners`, changed with [`set_show_banners`](Portal::set_show_banners)).
pub struct Portal {
    rt: tokio::runtime::Runtime,
    conn: zbus::Connection,
    state: Arc<Mutex<PortalState>>,
}

impl Portal {
    /// Serves on the bus at `address`. `chosen`: (shortcut id, trigger) the desktop binds
    /// instead of the one proposed. `show_banners`: GNOME's setting, `None` for a portal that
    /// does not have it.
    pub fn start(address: &str, chosen: &[(&str, &str)], show_banners: Option<bool>) -> Portal {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("runtime");
        let state = Arc::new(Mutex::new(PortalState::default()));
        let shortcuts = portal::Shortcuts {
            state: state.clone(),
            chosen: chosen
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
        };
        let settings = portal::Settings {
            state: state.clone(),
            show_banners,
        };
        let conn = rt
            .block_on(async {
                zbus::connection::Builder::address(address)?
                    .serve_at(portal::PATH, shortcuts)?
                    .serve_at(portal::PATH, settings)?
                    .name("org.freedesktop.portal.Desktop")?
                    .build()
                    .await
            })
            .expect("the stand-in portal takes its name");
        Portal { rt, conn, state }
    }

    /// Every call so far.
    pub fn calls(&self) -> Vec<PortalCall> {
        self.state.lock().unwrap().calls.clone()
    }

    /// The person pressed the shortcut `id` of the newest session: emits `Activated`.
    pub fn press(&self, id: &str) {
        let session = self
            .state
            .lock()
            .unwrap()
            .sessions
            .last()
            .cloned()
            .expect("a session");
        self.rt.block_on(async {
            let emitter = SignalEmitter::new(&self.conn, portal::PATH).expect("path");
            let path = zbus::zvariant::ObjectPath::try_from(session.as_str()).expect("a path");
            portal::Shortcuts::activated(&emitter, path, id, 0, HashMap::new())
                .await
                .expect("Activated sent");
        });
    }

    /// GNOME's `show-banners` changed: emits `SettingChanged`.
    pub fn set_show_banners(&self, on: bool) {
        self.rt.block_on(async {
            let iface = self
                .conn
                .object_server()
                .interface::<_, portal::Settings>(portal::PATH)
                .await
                .expect("the interface");
            iface.get_mut().await.show_banners = Some(on);
            portal::Settings::setting_changed(
                iface.signal_emitter(),
                "org.gnome.desktop.notifications",
                "show-banners",
                Value::from(on),
            )
            .await
            .expect("SettingChanged sent");
        });
    }
}
