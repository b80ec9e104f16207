//! The phone link itself: [`PhoneLink`] (paired devices, the pending cards as the phone sees
//! them, the LAN listener and the broker link), what Settings → Phone asks of it
//! ([`PhoneAction`]) and what it shows of it ([`PhoneStatus`]).

use crate::devices::Device;
use crate::error::BrokerError;
use crate::gate::{CommandSink, Gate};
use crate::mqtt::{self, BrokerConfig, BrokerState};
use crate::offer::{PairingOffer, fragment_encode, qr_modules};
use crate::push::{self, PushState};
use crate::secrets::{self, KeyStorage};
use crate::{crypto, devices, http, tls};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use vults_core::paths::Paths;
use vults_engine::clock::now_ms;
use vults_engine::messages::{AuditEntry, EngineEvent};

/// The port the link listens on unless the user picks another.
pub const DEFAULT_PORT: u16 = 47_610;

/// Where the link listens and which address the QR code names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkConfig {
    /// The address to listen on.
    pub bind: IpAddr,
    /// 0 picks a free port (tests).
    pub port: u16,
    /// The host the phone should reach; `None` finds this machine's LAN address.
    pub advertise_host: Option<String>,
    /// HTTPS with the link's self-signed certificate ([`tls`]): phone browsers give the page
    /// WebCrypto only over HTTPS (or on localhost).
    pub tls: bool,
}

impl LinkConfig {
    /// Every interface, so a phone on the same network can reach it.
    pub fn lan(port: u16) -> LinkConfig {
        LinkConfig {
            bind: IpAddr::V4(Ipv4Addr::UNSPECIFIED),
            port,
            advertise_host: None,
            tls: true,
        }
    }

    /// This machine only, plain HTTP (tests; `localhost` is a secure context without TLS).
    pub fn loopback(port: u16) -> LinkConfig {
        LinkConfig {
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port,
            advertise_host: Some("127.0.0.1".into()),
            tls: false,
        }
    }
}

/// The broker as Settings → Phone saves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerSettings {
    /// The broker's settings.
    pub config: BrokerConfig,
    /// `None` keeps the stored password; `Some("")` removes it; anything else replaces it
    /// (kept in the keyring).
    pub password: Option<String>,
    /// The phone's broker password, the same way (its username is
    /// [`BrokerConfig::phone_username`]).
    pub phone_password: Option<String>,
}

/// The broker link as Settings → Phone shows it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BrokerStatus {
    /// The saved settings (none yet: `None`).
    pub config: Option<BrokerConfig>,
    /// The connection's state while it is on.
    pub state: Option<BrokerState>,
    /// A password for the app's login is stored.
    pub password_set: bool,
    /// A password for the phone's login is stored.
    pub phone_password_set: bool,
    /// Where the password is (the keyring, or the fallback file and why), in English.
    pub password_storage: Option<String>,
    /// The same, typed, for the window to word.
    pub password_stored: Option<secrets::Stored>,
    /// Why the settings could not be used or read.
    pub error: Option<String>,
}

/// What Settings → Phone asks the link to do (through [`BackgroundLink::apply`], on the link's
/// own thread).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PhoneAction {
    /// Listen on the LAN on this port and show a pairing code.
    Enable {
        /// The port to listen on (0 picks a free one).
        port: u16,
    },
    /// Listen as `config` says and show a pairing code (`vults-app phone pair --loopback`: the
    /// page on 127.0.0.1 only, for a browser on this machine or a proxy in front of it).
    Listen(LinkConfig),
    /// Stop listening; paired devices stay paired.
    Disable,
    /// A fresh one-time pairing code.
    NewCode,
    /// Revoke the device of this id: its requests are refused from now on.
    Revoke(String),
    /// Save the broker settings and connect (replacing a connection already running).
    Broker(BrokerSettings),
    /// Disconnect from the broker (the settings stay).
    BrokerOff,
    /// Quiet hours (or the tray's quiet switch) went on or off: while on, nothing is pushed.
    Quiet(bool),
    /// Push a test notification to the device of this id.
    TestPush(String),
    /// Push Vults' own warning (a hook removed, a usage limit near) to every subscribed phone,
    /// in the desktop notification's words (`tag` replaces the same warning's last push).
    Warn {
        /// Which warning (`vults-limit-FiveHour`, `vults-hooks-claude`).
        tag: String,
        /// The notification's title.
        title: String,
        /// Its body.
        body: String,
    },
}

/// What Settings → Phone shows; cheap enough to take once per frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PhoneStatus {
    /// Where the link listens, while enabled.
    pub address: Option<SocketAddr>,
    /// The pairing code on screen and its QR modules.
    pub offer: Option<PairingOffer>,
    /// The QR code's modules, row by row (`true` is dark).
    pub qr: Vec<Vec<bool>>,
    /// The paired devices, revoked ones too.
    pub devices: Vec<Device>,
    /// The HTTPS certificate's SHA-256 (`AB:CD:…`), to compare with what the phone shows.
    pub tls_fingerprint: Option<String>,
    /// Where the app's keys are (keyring, or the fallback file and why), in English.
    pub key_storage: String,
    /// The same, typed, for the window to word (`None` until the link has started).
    pub key_stored: Option<secrets::Stored>,
    /// Whether the keys are in the fallback file (shown as a warning).
    pub key_in_file: bool,
    /// The latest refused requests of paired phones (authenticated), oldest first.
    pub refusals: Vec<AuditEntry>,
    /// The latest refused requests that were not authenticated (unknown ids, revoked ids,
    /// failed pairings, the flood summary), oldest first; kept apart so they cannot push the
    /// others out.
    pub unauthenticated: Vec<AuditEntry>,
    /// The last action's failure ("address in use" …).
    pub error: Option<String>,
    /// The broker link, as it is now.
    pub broker: BrokerStatus,
    /// Per device id, its pushes (devices never pushed to have none).
    pub push: std::collections::BTreeMap<String, PushState>,
    /// Where the push (VAPID) key is, or why push is off, in English.
    pub push_storage: String,
    /// Where the push key is, typed, for the window to word.
    pub push_stored: Option<secrets::Stored>,
    /// Why push is off (the error as the link said it), when it is.
    pub push_off: Option<String>,
}

struct Running {
    addr: SocketAddr,
    host: String,
    /// The certificate's SHA-256 when serving HTTPS.
    fingerprint: Option<String>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<vults_engine::rt::Task>,
}

/// The phone link: paired devices, the pending cards as the phone sees them, and — while
/// enabled — the LAN listener.
pub struct PhoneLink {
    gate: Arc<Gate>,
    tls_file: std::path::PathBuf,
    key_storage: KeyStorage,
    commands: CommandSink,
    on_change: Arc<dyn Fn() + Send + Sync>,
    running: Option<Running>,
    shown: Option<(PairingOffer, Vec<Vec<bool>>)>,
    error: Option<String>,
    paths: Paths,
    broker: Option<mqtt::BrokerLink>,
    broker_status: BrokerStatus,
    /// The phone's broker password (from the keyring), for the QR code.
    phone_password: Option<String>,
    broker_on_change: Arc<std::sync::Mutex<Arc<dyn Fn() + Send + Sync>>>,
    /// Web Push to subscribed phones; `None` when the VAPID key could not be had.
    pusher: Option<push::Pusher>,
    vapid: Option<push::webpush::VapidKey>,
    /// Where the push key is, or why it could not be had.
    push_key: Result<KeyStorage, String>,
}

impl PhoneLink {
    /// Loads (or creates) the app's keys and reads the paired devices. Call from a plain
    /// thread (the keyring store may run its own async runtime).
    pub fn new(paths: &Paths, commands: CommandSink) -> std::io::Result<PhoneLink> {
        let (keys, key_storage) = secrets::load_or_create(paths)?;
        let devices = devices::DeviceStore::load(&paths.devices_file())?;
        let gate = Arc::new(Gate::new(keys, devices, commands.clone(), now_ms()));
        let (vapid, push_key) = match secrets::load_or_create_vapid(paths) {
            Ok((key, storage)) => {
                gate.set_vapid_public(&key.public_raw());
                (Some(key), Ok(storage))
            }
            Err(e) => (None, Err(e.to_string())),
        };
        // Told after the link's on-change is set (set_on_change), like the broker's.
        let change_cell: ChangeCell = Arc::new(std::sync::Mutex::new(Arc::new(|| {})));
        let pusher = match &vapid {
            Some(key) => match push::Pusher::start(
                gate.clone(),
                key.clone(),
                push::send::Roots::system(),
                cell_caller(&change_cell),
            ) {
                Ok(p) => Some(p),
                Err(e) => {
                    tracing::warn!("push cannot start: {e}");
                    None
                }
            },
            None => None,
        };
        let mut broker_status = BrokerStatus::default();
        match BrokerConfig::load(&broker_file(paths)) {
            Ok(config) => broker_status.config = config,
            Err(e) => broker_status.error = Some(e.to_string()),
        }
        broker_status.password_set = secrets::broker_password(paths).is_some();
        let phone_password = secrets::phone_broker_password(paths);
        broker_status.phone_password_set = phone_password.is_some();
        let mut link = PhoneLink {
            gate,
            tls_file: paths.config_dir.join("phone-tls.json"),
            key_storage,
            commands,
            on_change: Arc::new(|| {}),
            running: None,
            shown: None,
            error: None,
            paths: paths.clone(),
            broker: None,
            broker_status,
            phone_password,
            broker_on_change: change_cell,
            pusher,
            vapid,
            push_key,
        };
        if let Some(config) = link.broker_status.config.clone().filter(|c| c.enabled) {
            let password = secrets::broker_password(paths);
            if let Err(e) = link.start_broker(config, password) {
                link.broker_status.error = Some(e.to_string());
            }
        }
        Ok(link)
    }

    /// Connects to the broker (on a thread of its own; returns at once). Errors are the
    /// settings' (a bad URL, an unreadable CA file); a broker that does not answer shows in
    /// [`BrokerStatus::state`].
    pub fn start_broker(
        &mut self,
        config: BrokerConfig,
        password: Option<String>,
    ) -> Result<(), BrokerError> {
        self.stop_broker();
        let on_change = cell_caller(&self.broker_on_change);
        let link = mqtt::BrokerLink::start(
            config,
            password,
            self.gate.clone(),
            self.commands.clone(),
            on_change,
        )?;
        self.broker = Some(link);
        Ok(())
    }

    /// Disconnects from the broker.
    pub fn stop_broker(&mut self) {
        if let Some(mut link) = self.broker.take() {
            link.stop();
        }
    }

    /// The broker connection's state, while it is on.
    pub fn broker_state(&self) -> Option<BrokerState> {
        self.broker.as_ref().map(|b| b.state())
    }

    fn save_broker(&mut self, settings: BrokerSettings) -> Result<(), BrokerError> {
        let mut config = settings.config;
        config.validate()?;
        config.enabled = true;
        let stored =
            |storage: KeyStorage, secret: secrets::Secret| secrets::Stored { secret, storage };
        match settings.password.as_deref() {
            None => {}
            Some("") => {
                secrets::set_broker_password(&self.paths, None).map_err(BrokerError::Password)?;
                self.broker_status.password_storage = None;
                self.broker_status.password_stored = None;
            }
            Some(p) => {
                let storage = secrets::set_broker_password(&self.paths, Some(p))
                    .map_err(BrokerError::Password)?;
                let s = stored(storage, secrets::Secret::BrokerPassword);
                self.broker_status.password_storage = Some(s.to_string());
                self.broker_status.password_stored = Some(s);
            }
        }
        match settings.phone_password.as_deref() {
            None => {}
            Some("") => {
                secrets::set_phone_broker_password(&self.paths, None)
                    .map_err(BrokerError::Password)?;
            }
            Some(p) => {
                let storage = secrets::set_phone_broker_password(&self.paths, Some(p))
                    .map_err(BrokerError::Password)?;
                let s = stored(storage, secrets::Secret::PhoneBrokerPassword);
                self.broker_status.password_storage = Some(s.to_string());
                self.broker_status.password_stored = Some(s);
            }
        }
        self.phone_password = secrets::phone_broker_password(&self.paths);
        self.broker_status.phone_password_set = self.phone_password.is_some();
        let password = secrets::broker_password(&self.paths);
        self.broker_status.password_set = password.is_some();
        config
            .save(&broker_file(&self.paths))
            .map_err(BrokerError::Save)?;
        self.broker_status.config = Some(config.clone());
        self.broker_status.error = None;
        self.start_broker(config, password)
    }

    fn broker_off(&mut self) -> Result<(), BrokerError> {
        self.stop_broker();
        if let Some(config) = self.broker_status.config.as_mut() {
            config.enabled = false;
            config
                .save(&broker_file(&self.paths))
                .map_err(BrokerError::Save)?;
        }
        Ok(())
    }

    /// Called after a device pairs or a request is refused (the window's repaint).
    pub fn set_on_change(&mut self, on_change: Arc<dyn Fn() + Send + Sync>) {
        self.on_change = on_change.clone();
        // A broker link started before this (at creation) calls the new one too.
        *self
            .broker_on_change
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = on_change;
    }

    /// Where the app's keys are (the keyring, or the 0600 file and why).
    pub fn key_storage(&self) -> &KeyStorage {
        &self.key_storage
    }

    /// Starts listening (stopping a listener already running). The port is bound before this
    /// returns, so "address in use" reaches the user at once.
    pub fn start(&mut self, config: LinkConfig) -> std::io::Result<SocketAddr> {
        self.stop();
        let listener = std::net::TcpListener::bind(SocketAddr::new(config.bind, config.port))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let host = match (&config.advertise_host, config.bind) {
            (Some(h), _) => h.clone(),
            (None, ip) if !ip.is_unspecified() => ip.to_string(),
            (None, _) => lan_address()
                .map(|ip| ip.to_string())
                .unwrap_or_else(|| "127.0.0.1".into()),
        };
        let identity = match config.tls {
            true => Some(tls::load_or_create(&self.tls_file, &host)?),
            false => None,
        };
        let server = Arc::new(http::Server {
            gate: self.gate.clone(),
            commands: self.commands.clone(),
            on_change: self.on_change.clone(),
            tls: identity.as_ref().map(|i| i.acceptor.clone()),
        });
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        // A task on the app's runtime; `from_std` needs its reactor, so inside the task.
        let thread = vults_engine::rt::spawn(async move {
            let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                return;
            };
            tokio::select! {
                _ = http::serve(listener, server) => {}
                _ = stop_rx => {}
            }
        });
        self.running = Some(Running {
            addr,
            host,
            fingerprint: identity.map(|i| i.fingerprint),
            stop: Some(stop_tx),
            thread: Some(thread),
        });
        Ok(addr)
    }

    /// Stops listening: the port closes and open connections end.
    pub fn stop(&mut self) {
        self.shown = None;
        self.gate.retire_token();
        self.gate.flush(now_ms(), true);
        if let Some(mut running) = self.running.take() {
            if let Some(stop) = running.stop.take() {
                let _ = stop.send(());
            }
            if let Some(thread) = running.thread.take() {
                thread.join();
            }
        }
    }

    /// The listening address while enabled.
    pub fn address(&self) -> Option<SocketAddr> {
        self.running.as_ref().map(|r| r.addr)
    }

    /// A new pairing offer (a fresh one-time token, good for 5 minutes), while the LAN link
    /// or the broker link is on. With the broker on, the code also names the broker and this
    /// code's pairing topic; with the LAN link off, the page is the one the broker settings
    /// name (Mosquitto's `http_dir`, or any static host).
    pub fn offer(&self) -> Option<PairingOffer> {
        let broker = self.broker.as_ref().and_then(|b| {
            let config = b.config();
            Some((config.phone_ws_url()?, config.page()?))
        });
        let page = match (&self.running, &broker) {
            (Some(running), _) => {
                let host = if running.host.contains(':') {
                    format!("[{}]", running.host)
                } else {
                    running.host.clone()
                };
                let scheme = if running.fingerprint.is_some() {
                    "https"
                } else {
                    "http"
                };
                format!("{scheme}://{host}:{}/", running.addr.port())
            }
            (None, Some((_, page))) => page.clone(),
            (None, None) => return None,
        };
        let (token, expires_at) = self.gate.new_token(now_ms());
        let (sign, boxk) = self.gate.public_keys();
        let (app_sign_key, app_box_key) = (crypto::b64(&sign), crypto::b64(&boxk));
        let mut url = format!("{page}#v=1&t={token}&k={app_sign_key}&x={app_box_key}");
        let broker = match (broker, self.gate.pairing_topic()) {
            (Some((ws, _)), Some(topic)) => {
                url.push_str(&format!("&b={}&p={topic}", fragment_encode(&ws)));
                Some((ws, topic))
            }
            _ => None,
        };
        // The phone's login, only with the broker it is for (in the fragment: never sent to
        // a web server). A username alone is a login too (some brokers check only that).
        let phone_login = self
            .broker
            .as_ref()
            .and_then(|b| b.config().phone_username.clone())
            .filter(|u| broker.is_some() && !u.is_empty())
            .map(|user| (user, self.phone_password.clone().unwrap_or_default()));
        if let Some((user, password)) = &phone_login {
            url.push_str(&format!("&u={}", fragment_encode(user)));
            if !password.is_empty() {
                url.push_str(&format!("&w={}", fragment_encode(password)));
            }
        }
        Some(PairingOffer {
            url,
            token,
            expires_at,
            app_sign_key,
            app_box_key,
            broker,
            phone_login,
        })
    }

    /// Paired devices, revoked ones included (with `revoked_at`).
    pub fn devices(&self) -> Vec<Device> {
        self.gate.devices()
    }

    /// Revokes a device: every later request from it is refused (and audited as such).
    pub fn revoke(&self, device_id: &str) -> std::io::Result<bool> {
        self.gate.revoke(device_id, now_ms())
    }

    /// The latest refused phone requests, both kinds, oldest first.
    pub fn refusals(&self) -> Vec<AuditEntry> {
        self.gate.refusals()
    }

    /// Feed every event the app drains from the engine: cards added and removed keep the
    /// phone's list the same as the window's.
    pub fn on_engine_event(&self, ev: &EngineEvent) {
        self.gate.on_engine_event(ev);
        if let Some(pusher) = &self.pusher {
            pusher.on_engine_event(ev);
        }
    }

    /// Quiet hours on or off: while on, nothing new is pushed.
    pub fn set_quiet(&self, quiet: bool) {
        if let Some(pusher) = &self.pusher {
            pusher.set_quiet(quiet);
        }
    }

    /// Pushes Vults' own warning to every subscribed phone (nothing while quiet).
    pub fn warn(&self, tag: &str, title: &str, body: &str) {
        if let Some(pusher) = &self.pusher {
            pusher.warn(tag, title, body);
        }
    }

    /// Pushes a test notification to a device (if it subscribed).
    pub fn test_push(&self, device: &str) {
        if let Some(pusher) = &self.pusher {
            pusher.test(device);
        }
    }

    /// Per device id, its pushes so far.
    pub fn push_states(&self) -> std::collections::BTreeMap<String, PushState> {
        self.pusher.as_ref().map(|p| p.states()).unwrap_or_default()
    }

    /// The app's VAPID public key (uncompressed P-256), the page's `applicationServerKey`.
    pub fn vapid_public(&self) -> Option<[u8; 65]> {
        self.vapid.as_ref().map(|k| k.public_raw())
    }

    /// Sends pushes trusting only these CA roots instead of the system's (tests: the
    /// stand-in push service's CA). Restarts the sender; only with the `test-support` feature.
    #[cfg(any(test, feature = "test-support"))]
    pub fn set_push_roots(&mut self, roots: push::send::Roots) -> std::io::Result<()> {
        if let Some(key) = &self.vapid {
            self.pusher = None;
            let on_change = cell_caller(&self.broker_on_change);
            self.pusher = Some(push::Pusher::start(
                self.gate.clone(),
                key.clone(),
                roots,
                on_change,
            )?);
        }
        Ok(())
    }

    /// Runs `hook` before each write of `devices.json` (tests: a write held there shows that
    /// nothing else waits for the disk). Only with the `test-support` feature.
    #[cfg(any(test, feature = "test-support"))]
    pub fn set_write_hook(&self, hook: Option<devices::WriteHook>) {
        self.gate.set_write_hook(hook);
    }
}

impl PhoneLink {
    /// Does what Settings → Phone asked; a failure is kept for [`PhoneLink::status`].
    pub fn apply(&mut self, action: PhoneAction) {
        self.error = None;
        let result = match action {
            PhoneAction::Enable { port } => self.start(LinkConfig::lan(port)).map(|_| ()),
            PhoneAction::Listen(config) => self.start(config).map(|_| ()),
            PhoneAction::Disable => {
                self.stop();
                Ok(())
            }
            PhoneAction::NewCode => Ok(()),
            PhoneAction::Revoke(id) => self.revoke(&id).map(|_| ()),
            // Shown beside the broker's settings, not as the link's error.
            PhoneAction::Broker(settings) => {
                if let Err(e) = self.save_broker(settings) {
                    self.broker_status.error = Some(e.to_string());
                }
                Ok(())
            }
            PhoneAction::BrokerOff => self.broker_off().map_err(std::io::Error::other),
            PhoneAction::Quiet(on) => {
                self.set_quiet(on);
                return;
            }
            PhoneAction::Warn { tag, title, body } => {
                self.warn(&tag, &title, &body);
                return;
            }
            PhoneAction::TestPush(id) => {
                self.test_push(&id);
                return;
            }
        };
        match result {
            Ok(()) => {
                self.shown = self.offer().map(|o| {
                    let qr = qr_modules(&o);
                    (o, qr)
                });
            }
            Err(e) => self.error = Some(e.to_string()),
        }
    }

    /// The state Settings → Phone shows.
    pub fn status(&self) -> PhoneStatus {
        let now = now_ms();
        let (offer, qr) = match &self.shown {
            Some((o, qr))
                if (self.running.is_some() || self.broker.is_some())
                    && self.gate.token_open(&o.token, now) =>
            {
                (Some(o.clone()), qr.clone())
            }
            _ => (None, Vec::new()),
        };
        PhoneStatus {
            address: self.address(),
            offer,
            qr,
            devices: self.devices(),
            tls_fingerprint: self.running.as_ref().and_then(|r| r.fingerprint.clone()),
            key_storage: self.key_storage.describe(),
            key_stored: Some(secrets::Stored {
                secret: secrets::Secret::LinkKeys,
                storage: self.key_storage.clone(),
            }),
            key_in_file: matches!(self.key_storage, KeyStorage::File { .. }),
            refusals: self.gate.authenticated_refusals(),
            unauthenticated: self.gate.unauthenticated_refusals(),
            error: self.error.clone(),
            broker: BrokerStatus {
                state: self.broker_state(),
                ..self.broker_status.clone()
            },
            push: self.push_states(),
            push_storage: match &self.push_key {
                Ok(storage) => storage.describe_as(secrets::Secret::PushKey.english()),
                Err(e) => format!("Push is off: {e}"),
            },
            push_stored: self.push_key.as_ref().ok().map(|storage| secrets::Stored {
                secret: secrets::Secret::PushKey,
                storage: storage.clone(),
            }),
            push_off: self.push_key.as_ref().err().cloned(),
        }
    }
}

impl Drop for PhoneLink {
    fn drop(&mut self) {
        self.stop();
        self.stop_broker();
    }
}

type ChangeCell = Arc<std::sync::Mutex<Arc<dyn Fn() + Send + Sync>>>;

/// A callback that calls whatever the cell holds when it runs (set later by
/// [`PhoneLink::set_on_change`]).
fn cell_caller(cell: &ChangeCell) -> Arc<dyn Fn() + Send + Sync> {
    let cell = cell.clone();
    Arc::new(move || {
        let f = cell.lock().unwrap_or_else(|e| e.into_inner()).clone();
        f();
    })
}

/// Where the broker settings are kept (no password: that is in the keyring).
pub fn broker_file(paths: &Paths) -> std::path::PathBuf {
    paths.config_dir.join("phone-broker.json")
}

/// The machine's address on the network the default route leaves by. Connecting a UDP socket
/// sends nothing; it only asks the OS which interface it would use.
fn lan_address() -> Option<IpAddr> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    socket.connect("192.0.2.1:9").ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_unspecified()).then_some(ip)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client;

    #[test]
    fn a_broker_url_survives_the_qr_codes_fragment() {
        let _keyring = secrets::test_lock();
        let ws = "wss://[::1]:8884/mqtt?x=1&y=2#z";
        let encoded = fragment_encode(ws);
        assert!(
            !encoded.contains(['&', '#', '=', '/', ':', '?']),
            "{encoded}"
        );
        let url = format!("https://h/#v=1&t=tok&k=K&x=X&b={encoded}&p=00ff");
        let offer = client::offer_from_url(&url).unwrap();
        assert_eq!(offer.broker, Some((ws.to_string(), "00ff".to_string())));
        assert_eq!(offer.phone_login, None);
        // A login without a broker to use it on is ignored.
        let url = "https://h/#v=1&t=tok&k=K&x=X&u=phone&w=pw";
        assert_eq!(client::offer_from_url(url).unwrap().phone_login, None);
        assert_eq!(
            (offer.token.as_str(), offer.app_box_key.as_str()),
            ("tok", "X")
        );
        assert_eq!(fragment_encode("aZ09-_.~"), "aZ09-_.~");
    }

    /// A CA certificate (PEM) in `dir`, so a broker link can start without the system's roots.
    fn ca_file(dir: &std::path::Path) -> std::path::PathBuf {
        use base64::Engine as _;
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = rcgen::CertificateParams::new(vec!["broker.test".to_string()])
            .unwrap()
            .self_signed(&key)
            .unwrap();
        let b64 = base64::engine::general_purpose::STANDARD.encode(cert.der());
        let path = dir.join("ca.pem");
        std::fs::write(
            &path,
            format!("-----BEGIN CERTIFICATE-----\n{b64}\n-----END CERTIFICATE-----\n"),
        )
        .unwrap();
        path
    }

    #[test]
    fn the_phone_login_rides_in_the_qr_codes_fragment_and_only_there() {
        let _keyring = secrets::test_lock();
        let home = std::env::temp_dir().join(format!("vults-phone-login-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&home);
        std::fs::create_dir_all(&home).unwrap();
        let h = home.clone();
        let paths = Paths::resolve(move |k| (k == "VULTS_HOME").then(|| h.clone()));
        let mut link = PhoneLink::new(&paths, Arc::new(|_| {})).unwrap();
        // Nothing listens on port 1: the link stays "Reconnecting", the code is made anyway.
        let config = BrokerConfig {
            url: "wss://127.0.0.1:1/mqtt".into(),
            username: Some("vults-app".into()),
            ca_file: Some(ca_file(&home)),
            phone_username: Some("phone one&=#".into()),
            ..BrokerConfig::default()
        };
        let password = "p@ss w=rd&#é/?";
        link.apply(PhoneAction::Broker(BrokerSettings {
            config: config.clone(),
            password: Some("app-secret".into()),
            phone_password: Some(password.into()),
        }));
        let status = link.status();
        assert_eq!(status.broker.error, None);
        assert!(status.broker.phone_password_set);
        let offer = link.offer().expect("a code while the broker is on");
        assert_eq!(
            offer.phone_login,
            Some(("phone one&=#".to_string(), password.to_string()))
        );
        let (_, fragment) = offer.url.split_once('#').unwrap();
        assert!(!fragment.contains(password), "percent-encoded: {fragment}");
        let read = client::offer_from_url(&offer.url).expect("the page's view of the code");
        assert_eq!(read.phone_login, offer.phone_login, "{}", offer.url);
        assert_eq!(read.broker, offer.broker);
        assert_eq!(read.token, offer.token);
        // Kept in the keyring (here its 0600 file), never in the settings file.
        let saved = std::fs::read_to_string(broker_file(&paths)).unwrap();
        assert!(saved.contains("phone one&=#"), "{saved}");
        assert!(
            !saved.contains(password) && !saved.contains("app-secret"),
            "{saved}"
        );
        assert_eq!(
            secrets::phone_broker_password(&paths).as_deref(),
            Some(password)
        );

        // Removed: the code carries the username alone (a broker may check only that)…
        link.apply(PhoneAction::Broker(BrokerSettings {
            config: config.clone(),
            password: None,
            phone_password: Some(String::new()),
        }));
        let offer = link.offer().unwrap();
        assert_eq!(
            offer.phone_login,
            Some(("phone one&=#".to_string(), String::new()))
        );
        assert!(!offer.url.contains("&w="), "{}", offer.url);
        assert_eq!(
            secrets::broker_password(&paths).as_deref(),
            Some("app-secret"),
            "the app's own login is untouched"
        );
        // …and without a phone username, none at all (the phone connects anonymously).
        link.apply(PhoneAction::Broker(BrokerSettings {
            config: BrokerConfig {
                phone_username: None,
                ..config
            },
            password: None,
            phone_password: Some("ignored-without-a-user".into()),
        }));
        let offer = link.offer().unwrap();
        assert_eq!(offer.phone_login, None);
        assert!(!offer.url.contains("&u="), "{}", offer.url);
        assert_eq!(
            client::offer_from_url(&offer.url).unwrap().phone_login,
            None
        );
        drop(link);
        let _ = std::fs::remove_dir_all(&home);
    }
}
