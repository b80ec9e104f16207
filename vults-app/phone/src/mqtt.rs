//! The phone over an MQTT broker the user picks (Mosquitto, EMQX, HiveMQ, a hosted one): a
//! second transport for the same sealed, signed messages, so a phone can answer from anywhere.
//!
//! One connection (`rumqttc`, MQTT 5, over TLS — `mqtts://` — or WebSocket + TLS — `wss://` —
//! with the ring provider the link already builds), reconnecting with backoff
//! (1 s doubling to 30 s); its state is shown in Settings → Phone. The broker is not trusted:
//! every frame on it is sealed (see [`crypto::frame`]), and everything that arrives goes
//! through the same [`Gate`] as the LAN — the same checks in the same order, the same nonces
//! (a request seen on the LAN is a replay over the broker), the same audit.
//!
//! Topics: `vults/<id>/a` (to the app) and `vults/<id>/p` (to the phone), where `<id>` is
//! 32 hex digits — for a paired device, derived from the X25519 secret only it and the app
//! hold ([`crypto::SealKey::topic`]); for pairing, random per QR code. The app subscribes to
//! its devices' topics and the current code's, nothing else; the set is compared with the
//! gate's every [`SYNC_EVERY`] and after each message.
//!
//! Frames are limited per topic (a burst of 20, then 5 a second; past it they are dropped
//! unread, as the LAN answers 429), and in size: MQTT 5 lets the app tell the broker the
//! largest packet it takes ([`MAX_INCOMING`] and a little), so a compliant broker drops a
//! larger frame (a retained one too) instead of sending it, and the connection stays up — under
//! MQTT 3.1.1 such a frame ended the connection, and a retained one ended every reconnect. One
//! that still arrives over [`MAX_INCOMING`] is dropped unread. Replies stay under the broker's
//! own maximum packet size when its CONNACK names one, and under
//! [`gate::MAX_BROKER_REPLY`](super::gate::MAX_BROKER_REPLY): a card list that would not fit is
//! sent with its largest cards cut (see the gate).
//!
//! The connection runs on a thread of its own; nothing here touches the LAN listener, the
//! engine or the window, so a broker that is down or slow changes nothing for them.

use super::crypto;
use super::error::{BrokerError, UrlError};
use super::gate::{CommandSink, Gate};
use rumqttc::v5::mqttbytes::QoS;
use rumqttc::v5::mqttbytes::v5::Packet;
use rumqttc::v5::{AsyncClient, Event, MqttOptions};
use rumqttc::{TlsConfiguration, Transport};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_rustls::rustls::pki_types::CertificateDer;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::{ClientConfig, RootCertStore};

/// How often the subscriptions are compared with the gate's topics.
pub const SYNC_EVERY: Duration = Duration::from_millis(300);
/// The first wait before reconnecting; doubled after each failure…
pub const FIRST_BACKOFF: Duration = Duration::from_secs(1);
/// …up to this.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// A request frame from a phone, at most (the LAN's body limit, and some); the broker is told
/// this plus `PACKET_OVERHEAD` as the app's maximum packet size.
pub const MAX_INCOMING: usize = 64 * 1024;
/// A PUBLISH packet's bytes around its payload (fixed header, topic, properties), with room.
const PACKET_OVERHEAD: usize = 1024;
/// Frames per topic: a burst of this many…
const BURST: f64 = 20.0;
/// …then this many a second; past it frames are dropped unread, as the LAN answers 429
/// (a replay flood cannot fill the audit with "nonce already used").
const PER_SECOND: f64 = 5.0;

/// Per-topic token buckets (the broker hides the sender; the topic is what a frame names).
#[derive(Default)]
struct RateLimit {
    buckets: std::collections::HashMap<String, (f64, std::time::Instant)>,
}

impl RateLimit {
    fn allow(&mut self, topic: &str, now: std::time::Instant) -> bool {
        if self.buckets.len() > 10_000 {
            self.buckets.clear();
        }
        let (tokens, last) = self
            .buckets
            .entry(topic.to_string())
            .or_insert((BURST, now));
        let refill = now.saturating_duration_since(*last).as_secs_f64() * PER_SECOND;
        *tokens = (*tokens + refill).min(BURST);
        *last = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// The topic a phone sends to (the app listens on).
pub fn to_app(id: &str) -> String {
    format!("vults/{id}/a")
}

/// The topic the app answers on (the phone listens on).
pub fn to_phone(id: &str) -> String {
    format!("vults/{id}/p")
}

/// The id in a `vults/<id>/a` topic: 32 lower-case hex digits, or `None`.
pub fn app_topic_id(topic: &str) -> Option<&str> {
    let id = topic.strip_prefix("vults/")?.strip_suffix("/a")?;
    (id.len() == 32 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))).then_some(id)
}

/// The broker as the user set it up (`phone-broker.json` in the config folder; the password
/// is in the keyring, see [`super::secrets`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokerConfig {
    /// How the app reaches the broker: `mqtts://host[:port]` or `wss://host[:port]/path`.
    pub url: String,
    /// The username the app logs in with; `None`: anonymous (the password is in the keyring).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    /// A CA certificate (PEM) for a self-hosted broker; the system's roots otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<PathBuf>,
    /// The broker's WebSocket URL for the phone's page (browsers speak only WebSockets);
    /// the app's own URL when that is `wss://`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone_url: Option<String>,
    /// Where the phone loads the page when the LAN link is off; by default the phone URL's
    /// host and port over HTTPS (Mosquitto's `http_dir`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_url: Option<String>,
    /// The username the phone logs in to the broker with (its password is in the keyring, see
    /// [`super::secrets::phone_broker_password`]); `None`: the phone connects anonymously.
    /// The QR code hands both to the phone. Best its own account, whose ACL reaches only
    /// `vults/+/a` (write) and `vults/+/p` (read) — see docs/phone.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone_username: Option<String>,
    /// Connect when the app starts.
    #[serde(default)]
    pub enabled: bool,
}

/// A broker URL taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerUrl {
    /// `wss://` (MQTT over WebSocket) rather than `mqtts://`.
    pub websocket: bool,
    /// The broker's host name.
    pub host: String,
    /// The port (8883 or 443 when the URL gives none).
    pub port: u16,
    /// The whole URL (for WebSockets, the request URL).
    pub url: String,
}

/// Parses `mqtts://host[:port]` (default 8883) or `wss://host[:port][/path]` (default 443).
/// Plain `mqtt://` and `ws://` are refused: the password and the topic names would cross the
/// network in clear.
pub fn parse_url(url: &str) -> Result<BrokerUrl, UrlError> {
    let url = url.trim();
    let (websocket, rest, default_port) = if let Some(r) = url.strip_prefix("mqtts://") {
        (false, r, 8883)
    } else if let Some(r) = url.strip_prefix("wss://") {
        (true, r, 443)
    } else if url.starts_with("mqtt://") || url.starts_with("ws://") || url.starts_with("tcp://") {
        return Err(UrlError::NotTls);
    } else {
        return Err(UrlError::NotABrokerUrl);
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.contains('@') {
        return Err(UrlError::UserInUrl);
    }
    if !websocket && authority.len() != rest.trim_end_matches('/').len() {
        return Err(UrlError::PathOnMqtts);
    }
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (h, after) = v6.split_once(']').ok_or(UrlError::OpenIpv6)?;
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p),
            None if after.is_empty() => None,
            None => return Err(UrlError::JunkAfterIpv6),
        };
        (h.to_string(), port)
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (authority.to_string(), None),
        }
    };
    let host_ok = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '_'));
    if !host_ok {
        return Err(UrlError::NoHost);
    }
    let port = match port {
        Some(p) => p
            .parse::<u16>()
            .ok()
            .filter(|p| *p > 0)
            .ok_or(UrlError::BadPort)?,
        None => default_port,
    };
    Ok(BrokerUrl {
        websocket,
        host,
        port,
        url: url.to_string(),
    })
}

impl BrokerConfig {
    /// The WebSocket URL the phone's page connects to, if there is one.
    pub fn phone_ws_url(&self) -> Option<String> {
        match self.phone_url.as_deref().map(str::trim) {
            Some(u) if !u.is_empty() => Some(u.to_string()),
            _ => parse_url(&self.url)
                .ok()
                .filter(|u| u.websocket)
                .map(|u| u.url),
        }
    }

    /// Where the phone loads the page from when the LAN link is off.
    pub fn page(&self) -> Option<String> {
        if let Some(u) = self.page_url.as_deref().map(str::trim)
            && !u.is_empty()
        {
            return Some(u.to_string());
        }
        let ws = parse_url(&self.phone_ws_url()?).ok()?;
        let host = if ws.host.contains(':') {
            format!("[{}]", ws.host)
        } else {
            ws.host
        };
        Some(match ws.port {
            443 => format!("https://{host}/"),
            port => format!("https://{host}:{port}/"),
        })
    }

    /// Everything that can be checked before connecting.
    pub fn validate(&self) -> Result<BrokerUrl, BrokerError> {
        let url = parse_url(&self.url)?;
        if let Some(phone) = self.phone_url.as_deref().filter(|u| !u.trim().is_empty()) {
            let p = parse_url(phone).map_err(BrokerError::PhoneUrl)?;
            if !p.websocket {
                return Err(BrokerError::PhoneNotWss);
            }
        } else if !url.websocket {
            return Err(BrokerError::PhoneUrlNeeded);
        }
        Ok(url)
    }

    /// Reads `phone-broker.json`: `Ok(None)` when there is none; an error for a file that does
    /// not parse (which is then never overwritten without the user saving new settings).
    pub fn load(path: &Path) -> std::io::Result<Option<BrokerConfig>> {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{} cannot be read: {e}", path.display()),
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Writes the settings to `path` atomically, private to the user (0600).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let json = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        vults_core::atomic::write(path, &json, Some(0o600))
    }
}

/// The connection's state, for Settings → Phone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BrokerState {
    /// Connecting for the first time.
    Connecting,
    /// Connected: phones can reach the app through the broker.
    Connected,
    /// The last failure, and the wait before the next try.
    Reconnecting {
        /// Why the last try failed.
        error: String,
        /// Seconds until the next try.
        retry_in_s: u64,
    },
}

impl BrokerState {
    /// The state in words, for Settings → Phone.
    pub fn describe(&self) -> String {
        match self {
            BrokerState::Connecting => "Connecting…".into(),
            BrokerState::Connected => "Connected".into(),
            BrokerState::Reconnecting { error, retry_in_s } => {
                format!("Reconnecting in {retry_in_s} s — {error}")
            }
        }
    }
}

/// The TLS client configuration: the CA file's certificates when given, the system's roots
/// otherwise.
fn tls_config(ca_file: Option<&Path>) -> Result<ClientConfig, BrokerError> {
    let mut roots = RootCertStore::empty();
    match ca_file {
        Some(path) => {
            let pem = std::fs::read(path).map_err(|source| BrokerError::CaUnreadable {
                path: path.to_path_buf(),
                source,
            })?;
            let mut added = 0;
            for cert in CertificateDer::pem_slice_iter(&pem) {
                let cert = cert.map_err(|e| BrokerError::CaNotPem {
                    path: path.to_path_buf(),
                    why: e.to_string(),
                })?;
                roots.add(cert).map_err(|e| BrokerError::CaRefused {
                    path: path.to_path_buf(),
                    why: e.to_string(),
                })?;
                added += 1;
            }
            if added == 0 {
                return Err(BrokerError::NoCertificate(path.to_path_buf()));
            }
        }
        None => {
            for cert in rustls_native_certs::load_native_certs().certs {
                let _ = roots.add(cert);
            }
            if roots.is_empty() {
                return Err(BrokerError::NoSystemCa);
            }
        }
    }
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    Ok(ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| BrokerError::Tls(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

/// The running connection: its thread, a way to stop it, and its state.
pub struct BrokerLink {
    config: BrokerConfig,
    state: Arc<Mutex<BrokerState>>,
    gate: Arc<Gate>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<vults_engine::rt::Task>,
}

impl BrokerLink {
    /// Checks the settings and the CA file, then connects on a thread of its own (returning
    /// at once: a broker that does not answer shows as "Reconnecting" in the state).
    pub fn start(
        config: BrokerConfig,
        password: Option<String>,
        gate: Arc<Gate>,
        commands: CommandSink,
        on_change: Arc<dyn Fn() + Send + Sync>,
    ) -> Result<BrokerLink, BrokerError> {
        let url = config.validate()?;
        let tls = TlsConfiguration::Rustls(Arc::new(tls_config(config.ca_file.as_deref())?));
        let client_id = format!("vults-{}", crypto::hex(&crypto::random::<8>()));
        let mut options = if url.websocket {
            let mut o = MqttOptions::new(client_id, url.url.clone(), url.port);
            o.set_transport(Transport::Wss(tls));
            o
        } else {
            let mut o = MqttOptions::new(client_id, url.host.clone(), url.port);
            o.set_transport(Transport::Tls(tls));
            o
        };
        options
            .set_keep_alive(Duration::from_secs(30))
            .set_clean_start(true)
            // Told to the broker (CONNECT's maximum packet size): it drops larger frames rather
            // than send them, so one cannot end the connection.
            .set_max_packet_size(Some((MAX_INCOMING + PACKET_OVERHEAD) as u32));
        let user = config.username.as_deref().filter(|u| !u.is_empty());
        if let Some(user) = user {
            options.set_credentials(user, password.unwrap_or_default());
        }
        // Names, never a password (nor the phone's: it is only in the QR code).
        tracing::info!(
            "phone broker: connecting to {} as {}; phones log in {}",
            url.url,
            user.unwrap_or("(anonymous)"),
            match config.phone_username.as_deref().filter(|u| !u.is_empty()) {
                Some(u) => format!("as {u}"),
                None => "anonymously".into(),
            }
        );
        let state = Arc::new(Mutex::new(BrokerState::Connecting));
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let shared = state.clone();
        let for_run = gate.clone();
        let thread =
            vults_engine::rt::spawn(run(options, for_run, commands, on_change, shared, stop_rx));
        Ok(BrokerLink {
            config,
            state,
            gate,
            stop: Some(stop_tx),
            thread: Some(thread),
        })
    }

    /// The settings it was started with.
    pub fn config(&self) -> &BrokerConfig {
        &self.config
    }

    /// The connection's state now.
    pub fn state(&self) -> BrokerState {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Disconnects and joins the thread; the refusals the flood budgets dropped meanwhile are
    /// written as their summary lines now (as when the LAN link stops).
    pub fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            thread.join();
            self.gate.flush(vults_engine::clock::now_ms(), true);
        }
    }
}

impl Drop for BrokerLink {
    fn drop(&mut self) {
        self.stop();
    }
}

async fn run(
    options: MqttOptions,
    gate: Arc<Gate>,
    commands: CommandSink,
    on_change: Arc<dyn Fn() + Send + Sync>,
    state: Arc<Mutex<BrokerState>>,
    mut stop: tokio::sync::oneshot::Receiver<()>,
) {
    let set = |s: BrokerState| {
        let mut current = state.lock().unwrap_or_else(|e| e.into_inner());
        let changed = *current != s;
        *current = s;
        changed
    };
    let (client, events) = AsyncClient::new(options, 256);
    // The event loop is polled by a task of its own and never cancelled: a `poll` dropped by
    // the select below while it was writing would lose that request (a reply, a subscription).
    let (polled_tx, mut polled) = tokio::sync::mpsc::channel::<Polled>(64);
    let poller = tokio::spawn(poll_forever(events, polled_tx));
    let mut subscribed: BTreeSet<String> = BTreeSet::new();
    let mut connected = false;
    let mut sync = tokio::time::interval(SYNC_EVERY);
    let mut limits = RateLimit::default();
    let mut broker_limit: Option<usize> = None;
    loop {
        let event = tokio::select! {
            _ = &mut stop => break,
            _ = sync.tick() => {
                if connected {
                    sync_topics(&client, &gate, &mut subscribed);
                }
                // A summary line of dropped refusals is written when due, flood over or not.
                gate.flush(vults_engine::clock::now_ms(), false);
                continue;
            }
            event = polled.recv() => match event {
                Some(Polled::Event(e)) => Ok(*e),
                Some(Polled::Failed(e, retry_in)) => Err((e, retry_in)),
                Some(Polled::Retrying) => {
                    set(BrokerState::Connecting);
                    continue;
                }
                None => break,
            },
        };
        match event {
            Ok(Event::Incoming(Packet::ConnAck(ack))) => {
                // The broker's own limit, if it says one: replies stay under it.
                let limit = ack
                    .properties
                    .as_ref()
                    .and_then(|p| p.max_packet_size)
                    .map(|m| m as usize);
                gate.set_broker_packet_limit(limit);
                broker_limit = limit;
                connected = true;
                // A clean session: the broker forgot every subscription.
                subscribed.clear();
                sync_topics(&client, &gate, &mut subscribed);
                if set(BrokerState::Connected) {
                    tracing::info!("phone broker: connected");
                    on_change();
                }
            }
            Ok(Event::Incoming(Packet::Publish(p))) => {
                let Some(id) = std::str::from_utf8(&p.topic).ok().and_then(app_topic_id) else {
                    continue;
                };
                if p.payload.len() > MAX_INCOMING {
                    // A broker that sent it anyway: dropped unread, the connection kept.
                    continue;
                }
                if !limits.allow(id, std::time::Instant::now()) {
                    continue;
                }
                let now = vults_engine::clock::now_ms();
                let (reply, refused) = if gate.broker_topics(now).pairing.as_deref() == Some(id) {
                    // Pairing writes devices.json: off this thread's runtime.
                    let (g, i, bytes) = (gate.clone(), id.to_string(), p.payload.to_vec());
                    let reply = tokio::task::spawn_blocking(move || g.broker_pair(&i, &bytes, now))
                        .await
                        .unwrap_or(None);
                    (reply, true)
                } else {
                    let out = gate.broker_request(id, &p.payload, now);
                    if let Some(command) = out.command {
                        (commands)(command);
                    }
                    (out.frame, out.refused)
                };
                // A device that just paired is subscribed to before it hears back, so its
                // first request cannot reach the broker before the app listens for it.
                sync_topics(&client, &gate, &mut subscribed);
                if let Some(frame) = reply {
                    let room = broker_limit.map(|l| l.saturating_sub(PACKET_OVERHEAD));
                    if room.is_some_and(|room| frame.len() > room) {
                        // Sending it would end the connection; the gate keeps lists under the
                        // limit, so only a list of thousands of cards gets here.
                        tracing::warn!(
                            "phone broker: a reply of {} bytes is over the broker's limit; not sent",
                            frame.len()
                        );
                    } else {
                        let _ = client.try_publish(to_phone(id), QoS::AtMostOnce, false, frame);
                    }
                }
                if refused {
                    on_change();
                }
            }
            Ok(_) => {}
            Err((e, retry_in)) => {
                connected = false;
                let retry_in_s = retry_in.as_secs();
                if set(BrokerState::Reconnecting {
                    error: e.clone(),
                    retry_in_s,
                }) {
                    tracing::warn!("phone broker: {e}; retrying in {retry_in_s} s");
                    on_change();
                }
            }
        }
    }
    let _ = client.try_disconnect();
    // Give the disconnect a moment to leave; a broker that is gone just times out here.
    let _ = tokio::time::timeout(Duration::from_millis(300), async {
        while let Some(p) = polled.recv().await {
            if let Polled::Event(e) = p
                && matches!(*e, Event::Outgoing(rumqttc::Outgoing::Disconnect))
            {
                break;
            }
        }
    })
    .await;
    poller.abort();
}

/// What the event loop's task hands the link.
enum Polled {
    /// Boxed: an event can hold a whole PUBLISH.
    Event(Box<Event>),
    /// The connection failed; the next try is after this long.
    Failed(String, Duration),
    /// The wait is over: connecting again.
    Retrying,
}

/// Polls the event loop until the link is gone, waiting between failed tries (1 s doubling
/// to [`MAX_BACKOFF`], back to 1 s once connected).
async fn poll_forever(mut events: rumqttc::v5::EventLoop, tx: tokio::sync::mpsc::Sender<Polled>) {
    let mut backoff = FIRST_BACKOFF;
    loop {
        let next = match events.poll().await {
            Ok(event) => {
                if matches!(event, Event::Incoming(Packet::ConnAck(_))) {
                    backoff = FIRST_BACKOFF;
                }
                Polled::Event(Box::new(event))
            }
            Err(e) => {
                if tx
                    .send(Polled::Failed(e.to_string(), backoff))
                    .await
                    .is_err()
                {
                    return;
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
                Polled::Retrying
            }
        };
        if tx.send(next).await.is_err() {
            return;
        }
    }
}

/// Subscribes to the topics the gate wants and unsubscribes from the others.
fn sync_topics(client: &AsyncClient, gate: &Gate, subscribed: &mut BTreeSet<String>) {
    let topics = gate.broker_topics(vults_engine::clock::now_ms());
    let wanted: BTreeSet<String> = topics
        .devices
        .iter()
        .map(|(t, _)| t.clone())
        .chain(topics.pairing)
        .map(|id| to_app(&id))
        .collect();
    for t in wanted.difference(subscribed) {
        if client.try_subscribe(t.clone(), QoS::AtMostOnce).is_err() {
            return; // the request queue is full: the next sync tries again
        }
    }
    for t in subscribed.difference(&wanted) {
        let _ = client.try_unsubscribe(t.clone());
    }
    *subscribed = wanted;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_are_fixed_shapes_around_a_hex_id() {
        let id = "0123456789abcdef0123456789abcdef";
        assert_eq!(to_app(id), format!("vults/{id}/a"));
        assert_eq!(to_phone(id), format!("vults/{id}/p"));
        assert_eq!(app_topic_id(&to_app(id)), Some(id));
        assert_eq!(
            app_topic_id(&to_phone(id)),
            None,
            "the app never reads its own replies"
        );
        assert_eq!(app_topic_id("vults/0123/a"), None);
        assert_eq!(app_topic_id(&to_app(&id.to_uppercase())), None);
        assert_eq!(app_topic_id(&format!("vults/{id}/a/x")), None);
        assert_eq!(app_topic_id(&format!("x/{id}/a")), None);
    }

    #[test]
    fn each_topic_gets_a_burst_then_five_frames_a_second() {
        let mut limits = RateLimit::default();
        let t0 = std::time::Instant::now();
        for _ in 0..20 {
            assert!(limits.allow("a", t0));
        }
        assert!(!limits.allow("a", t0), "past the burst");
        assert!(limits.allow("b", t0), "another topic has its own bucket");
        assert!(
            limits.allow("a", t0 + Duration::from_millis(200)),
            "refilled"
        );
        assert!(!limits.allow("a", t0 + Duration::from_millis(200)));
    }

    #[test]
    fn broker_urls_need_tls_and_a_host() {
        let u = parse_url("mqtts://broker.example").unwrap();
        assert_eq!(
            (u.websocket, u.host.as_str(), u.port),
            (false, "broker.example", 8883)
        );
        let u = parse_url("wss://127.0.0.1:9443/mqtt").unwrap();
        assert_eq!(
            (u.websocket, u.host.as_str(), u.port),
            (true, "127.0.0.1", 9443)
        );
        let u = parse_url("wss://[::1]:8884").unwrap();
        assert_eq!((u.host.as_str(), u.port), ("::1", 8884));
        assert_eq!(parse_url("wss://h.example/").unwrap().port, 443);
        for bad in [
            "mqtt://broker.example",
            "ws://broker.example",
            "https://broker.example",
            "mqtts://",
            "mqtts://user:pw@host",
            "mqtts://host:0",
            "mqtts://host:99999",
            "mqtts://host/path",
            "wss://ho st",
        ] {
            assert!(parse_url(bad).is_err(), "{bad} must be refused");
        }
    }

    #[test]
    fn the_page_and_phone_urls_follow_the_broker_unless_given() {
        let c = BrokerConfig {
            url: "wss://broker.example:8884/".into(),
            ..BrokerConfig::default()
        };
        assert!(c.validate().is_ok());
        assert_eq!(
            c.phone_ws_url().as_deref(),
            Some("wss://broker.example:8884/")
        );
        assert_eq!(c.page().as_deref(), Some("https://broker.example:8884/"));
        let mqtts = BrokerConfig {
            url: "mqtts://broker.example".into(),
            ..BrokerConfig::default()
        };
        assert!(
            matches!(mqtts.validate(), Err(BrokerError::PhoneUrlNeeded)),
            "the phone needs a WebSocket URL"
        );
        let both = BrokerConfig {
            phone_url: Some("wss://broker.example".into()),
            page_url: Some("https://pages.example/vults/".into()),
            ..mqtts
        };
        assert!(both.validate().is_ok());
        assert_eq!(both.phone_ws_url().as_deref(), Some("wss://broker.example"));
        assert_eq!(both.page().as_deref(), Some("https://pages.example/vults/"));
    }

    #[test]
    fn a_ca_file_that_is_not_pem_is_a_clear_error() {
        let dir = std::env::temp_dir().join(format!("vults-mqtt-ca-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let junk = dir.join("ca.pem");
        std::fs::write(&junk, "not a certificate").unwrap();
        let e = tls_config(Some(&junk)).unwrap_err();
        assert!(matches!(e, BrokerError::NoCertificate(_)), "{e}");
        assert!(e.to_string().contains("no certificate"), "{e}");
        let e = tls_config(Some(&dir.join("missing.pem"))).unwrap_err();
        assert!(matches!(e, BrokerError::CaUnreadable { .. }), "{e}");
        assert!(e.to_string().contains("cannot read"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
