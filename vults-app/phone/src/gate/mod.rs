//! The one place a phone's request is checked: pairing, then every signed, sealed request.
//!
//! A request to answer a card counts only if, in this order: the device is paired and not
//! revoked; the envelope opens with that device's seal key; the message parses; it names the
//! same device; its Ed25519 signature verifies against that device's key; its time is within
//! ±60 s of the app's clock and not before this link started; its nonce was never seen; the
//! card is still pending; and the answer fits the card. Anything else is refused with the
//! name of the failed check, audited (`decision: refused`), and no card is answered. An
//! accepted answer becomes the same [`EngineCommand::Answer`] a click makes, by
//! `phone:<name> (<device id>)`.
//!
//! Until a request is authenticated (its seal opens with a paired device's key), nothing it
//! says is trusted: its refusal names only what the app knows (a paired device the request
//! *claims* to be, marked as claimed, or an escaped, bounded form of the claimed id) and the
//! source address, and such refusals — failed pairings included — share one flood budget
//! ([`SOURCE_INTERVAL_MS`], [`ANON_BURST`], [`ANON_REFILL_MS`]); what the budget drops is
//! counted in one summary line ([`SUMMARY_INTERVAL_MS`]).
//!
//! Both transports come here: the LAN's `POST /pair` and `POST /api` ([`Gate::pair`],
//! [`Gate::api`]) and the broker's frames ([`Gate::broker_pair`], [`Gate::broker_request`],
//! where the device is the one whose topic the frame arrived on and the source is that
//! topic). They share the checks, in the same order, and one nonce table.
//!
//! Locks: the in-memory state has one mutex, held only for memory work; `devices.json` is
//! written under the store's own mutex, never while the state's is held (store → state is the
//! only order both are taken in), so nothing that reads the state waits for the disk.

mod card_json;
mod flood;
mod names;

pub use card_json::card_json;
#[cfg(any(test, feature = "test-support"))]
pub use card_json::card_json_calls;
pub use flood::{
    ANON_BURST, ANON_REFILL_MS, DEVICE_BURST, DEVICE_REFILL_MS, SOURCE_INTERVAL_MS,
    SUMMARY_INTERVAL_MS, Source,
};
pub use names::claimed_id;

use crate::crypto::{
    self, AppKeys, Direction, Op, SealKey, SignedRequest, WireAnswer, b64, unb64, unb64_array,
};
#[cfg(any(test, feature = "test-support"))]
use crate::devices::WriteHook;
use crate::devices::{Device, DeviceStore, Subscription};
use card_json::{cut_json, fit, fit_list};
use flood::{DeviceFlood, Flood};
use names::{MAX_NAME_CHARS, name_char_ok, unique_name};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use subtle::ConstantTimeEq;
use vults_engine::messages::{
    AnsweredBy, AuditEntry, CardId, EngineCommand, EngineEvent, Outcome, PendingCard,
};

/// Sends an accepted answer (or a refusal to audit) to the engine: the same command a click sends.
pub type CommandSink = Arc<dyn Fn(EngineCommand) + Send + Sync>;

/// How far a request's time may be from the app's clock.
pub const TIME_WINDOW_MS: u64 = 60_000;
/// How long a pairing token is good for.
pub const TOKEN_LIFETIME_MS: u64 = 5 * 60_000;
/// Nonces remembered at most (covering the time window); past it requests are refused as
/// "busy" rather than forgetting a nonce that could still be replayed.
const MAX_NONCES: usize = 50_000;
/// A reply over the broker is at most this large unless the broker's own limit is smaller
/// (its MQTT 5 maximum packet size, less the frame's and the packet's own bytes).
pub const MAX_BROKER_REPLY: usize = 1024 * 1024;
/// What a broker frame and its PUBLISH packet add around the sealed JSON (version, nonce, tag,
/// fixed header, topic, properties), with room to spare.
pub const BROKER_OVERHEAD: usize = 512;
/// Settings → Phone keeps this many refusals of authenticated requests…
const KEEP_AUTHENTICATED: usize = 40;
/// …and, apart, this many of unauthenticated ones, so a flood cannot push the others out.
const KEEP_UNAUTHENTICATED: usize = 10;

/// A check that refused a request (its name goes to the audit and to the phone).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// No paired device has this id.
    UnknownDevice,
    /// The device was revoked in Settings → Phone.
    Revoked,
    /// The sealed envelope does not open with the device's key.
    Seal,
    /// The request is not one the protocol knows (bad JSON, fields, lines).
    Malformed,
    /// The signed request names another device than the one whose key sealed it.
    DeviceMismatch,
    /// The signature does not verify against the device's key.
    Signature,
    /// The request's time is more than 60 s from the app's clock, or before the link started.
    Time,
    /// The nonce was already used: a replayed request.
    Replay,
    /// Too many requests at once: the app holds as many fresh nonces as it keeps.
    Busy,
    /// The card is not waiting any more (answered, or withdrawn).
    CardNotPending,
    /// The answer does not fit the card: an Always where the card offers none, an Allow to a
    /// question, answers to a permission, or not one answer per question.
    AnswerDoesNotFit,
    /// The card was too large to show whole on this phone (the broker's packet limit): only
    /// Deny is taken for it there.
    CardTooLarge,
    /// A push subscription that is not one the app pushes to (not `https://`, bad keys).
    Subscription,
}

impl Check {
    /// The check's name, as the audit and the phone say it.
    pub fn as_str(self) -> &'static str {
        match self {
            Check::UnknownDevice => "unknown device",
            Check::Revoked => "revoked device",
            Check::Seal => "seal does not open",
            Check::Malformed => "malformed request",
            Check::DeviceMismatch => "device mismatch",
            Check::Signature => "bad signature",
            Check::Time => "time outside ±60 s",
            Check::Replay => "nonce already used",
            Check::Busy => "too many requests",
            Check::CardNotPending => "card not pending",
            Check::AnswerDoesNotFit => "answer does not fit the card",
            Check::CardTooLarge => {
                "card too large to show on the phone: answer it on the desktop (Deny works)"
            }
            Check::Subscription => {
                "push subscription refused: the endpoint must be an https:// URL, with P-256 keys"
            }
        }
    }
}

/// What the HTTP layer sends back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The HTTP status code.
    pub status: u16,
    /// The `Content-Type` of the body.
    pub content_type: &'static str,
    /// The body, mostly JSON.
    pub body: Vec<u8>,
}

impl Reply {
    /// A JSON error reply: `{"error": message}` with this status.
    pub fn error(status: u16, message: &str) -> Reply {
        Reply {
            status,
            content_type: "application/json",
            body: json!({ "error": message }).to_string().into_bytes(),
        }
    }
    fn json(status: u16, v: Value) -> Reply {
        Reply {
            status,
            content_type: "application/json",
            body: v.to_string().into_bytes(),
        }
    }
}

/// The one pairing token that can pair (the newest; none once the link stops).
struct PairToken {
    token: String,
    expires_ms: u64,
    used: bool,
    /// The topic id a phone pairs on over the broker: random per code.
    topic: String,
}

/// What a request over the broker comes to.
#[derive(Debug)]
pub struct BrokerReply {
    /// The sealed reply to publish to the phone; `None` when the request was not
    /// authenticated (nothing is sent).
    pub frame: Option<Vec<u8>>,
    /// The accepted answer, for the engine.
    pub command: Option<EngineCommand>,
    /// Whether it was refused (and audited).
    pub refused: bool,
}

/// What the broker link subscribes to: each device's topic id (revoked ones too, so their
/// requests are refused and audited as on the LAN), and the pairing code's while it can pair.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BrokerTopics {
    /// (topic id, device id)
    pub devices: Vec<(String, String)>,
    /// The pairing code's topic id, while a code can pair.
    pub pairing: Option<String>,
}

/// A pending card as the phone gets it: its JSON (with its diff) made once, when the card
/// came, outside the gate's lock, and its size.
struct Shown {
    card: PendingCard,
    json: Arc<str>,
}

/// The link's state in memory: behind [`Gate`]'s mutex, which no disk write is made under.
struct State {
    keys: AppKeys,
    /// A copy of the store's list, replaced after each write.
    devices: Vec<Device>,
    seal_keys: HashMap<String, SealKey>,
    pending: BTreeMap<CardId, Shown>,
    /// Per device, the cards its last list showed cut (too large for its transport): an Allow
    /// of one from that device is refused, as the phone could not show what it authorizes.
    cut: HashMap<String, std::collections::BTreeSet<CardId>>,
    /// The largest sealed reply (its JSON) the broker takes now.
    broker_reply_limit: usize,
    /// The app's VAPID public key (base64url), told to paired phones in the list reply so
    /// their page can subscribe to pushes from this app only.
    vapid: Option<String>,
    device_flood: DeviceFlood,
    nonces: HashMap<(String, String), u64>,
    token: Option<PairToken>,
    /// Requests signed before this instant are refused: a restarted app has forgotten the
    /// nonces it saw, and this keeps a request captured before the restart from replaying.
    started_ms: u64,
    flood: Flood,
    authenticated: VecDeque<AuditEntry>,
    unauthenticated: VecDeque<AuditEntry>,
}

/// The checks and the state they need, shared by the HTTP tasks and the link's thread.
pub struct Gate {
    state: Mutex<State>,
    /// The one writer of `devices.json`; taken before `state` when both are needed.
    store: Mutex<DeviceStore>,
    /// Where refusals are audited: the engine (`EngineCommand::Record`), which owns the log.
    record: CommandSink,
}

impl Gate {
    /// The gate for `devices`, with the app's `keys`; `record` takes the audit lines of the
    /// refusals, and `now_ms` starts the flood budgets.
    pub fn new(keys: AppKeys, devices: DeviceStore, record: CommandSink, now_ms: u64) -> Gate {
        Gate {
            state: Mutex::new(State {
                keys,
                devices: devices.all().to_vec(),
                seal_keys: HashMap::new(),
                pending: BTreeMap::new(),
                cut: HashMap::new(),
                broker_reply_limit: MAX_BROKER_REPLY,
                vapid: None,
                device_flood: DeviceFlood::default(),
                nonces: HashMap::new(),
                token: None,
                started_ms: now_ms,
                flood: Flood::new(now_ms),
                authenticated: VecDeque::new(),
                unauthenticated: VecDeque::new(),
            }),
            store: Mutex::new(devices),
            record,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn store(&self) -> MutexGuard<'_, DeviceStore> {
        self.store.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The app's public keys: (Ed25519, X25519).
    pub fn public_keys(&self) -> ([u8; 32], [u8; 32]) {
        let st = self.state();
        (st.keys.sign_public(), st.keys.box_public())
    }

    /// Every paired device, revoked ones too.
    pub fn devices(&self) -> Vec<Device> {
        self.state().devices.clone()
    }

    /// Runs `hook` before each write of `devices.json` (tests; the `test-support` feature).
    #[cfg(any(test, feature = "test-support"))]
    pub fn set_write_hook(&self, hook: Option<WriteHook>) {
        self.store().set_write_hook(hook);
    }

    /// The app's VAPID public key, for the list reply.
    pub fn set_vapid_public(&self, key: &[u8]) {
        self.state().vapid = Some(b64(key));
    }

    /// Sets or removes a device's push subscription (saved before this returns); see
    /// [`DeviceStore::set_push`]. Returns whether it changed.
    pub fn set_push(
        &self,
        id: &str,
        push: Option<Subscription>,
        only_if: Option<&str>,
    ) -> std::io::Result<bool> {
        let mut store = self.store();
        let changed = store.set_push(id, push, only_if)?;
        let devices = store.all().to_vec();
        self.state().devices = devices;
        Ok(changed)
    }

    /// `plain` sealed for the device's service worker ([`Direction::Push`]): `{"n", "c"}`, the
    /// JSON that goes inside the Web Push encryption. `None` for a device without a seal key.
    pub fn seal_push(&self, device: &str, plain: &[u8]) -> Option<String> {
        let mut st = self.state();
        let d = st.devices.iter().find(|d| d.id == device)?.clone();
        let key = st.seal_key(&d)?;
        drop(st);
        let (n, c) = key.seal(Direction::Push, device, plain);
        Some(json!({"n": b64(&n), "c": b64(&c)}).to_string())
    }

    /// Revokes a device (saved before this returns): every later request from it is refused,
    /// and its key can never pair again.
    pub fn revoke(&self, id: &str, now_ms: u64) -> std::io::Result<bool> {
        let mut store = self.store();
        let found = store.revoke(id, now_ms)?;
        let devices = store.all().to_vec();
        let mut st = self.state();
        st.devices = devices;
        st.seal_keys.remove(id);
        Ok(found)
    }

    /// The latest refusals of authenticated requests (and of revoked keys pairing again),
    /// oldest first: at most 40, apart from the others so a flood cannot push them out.
    pub fn authenticated_refusals(&self) -> Vec<AuditEntry> {
        self.state().authenticated.iter().cloned().collect()
    }

    /// The latest refusals of requests that were not authenticated (and the summary lines of
    /// those not written), oldest first: at most 10.
    pub fn unauthenticated_refusals(&self) -> Vec<AuditEntry> {
        self.state().unauthenticated.iter().cloned().collect()
    }

    /// Both kinds of refusal, oldest first.
    pub fn refusals(&self) -> Vec<AuditEntry> {
        let st = self.state();
        let mut all: Vec<AuditEntry> = st
            .authenticated
            .iter()
            .chain(st.unauthenticated.iter())
            .cloned()
            .collect();
        all.sort_by_key(|e| e.time);
        all
    }

    /// Follows the cards: a card's JSON, diff included, is made here once, before the lock is
    /// taken (a large edit's diff once stalled every poll, made under the lock each time).
    pub fn on_engine_event(&self, ev: &EngineEvent) {
        match ev {
            EngineEvent::CardAdded(card) => {
                let shown = Shown {
                    card: card.clone(),
                    json: Arc::from(card_json(card).to_string()),
                };
                self.state().pending.insert(card.id, shown);
            }
            EngineEvent::CardRemoved { id, .. } => {
                let mut st = self.state();
                st.pending.remove(id);
                for cut in st.cut.values_mut() {
                    cut.remove(id);
                }
            }
            _ => {}
        }
    }

    /// The broker's own limit on a packet (its MQTT 5 maximum packet size), when it says one:
    /// replies over the broker stay under it (and under [`MAX_BROKER_REPLY`]).
    pub fn set_broker_packet_limit(&self, limit: Option<usize>) {
        let reply = limit
            .map(|l| l.saturating_sub(BROKER_OVERHEAD))
            .unwrap_or(MAX_BROKER_REPLY)
            .min(MAX_BROKER_REPLY);
        self.state().broker_reply_limit = reply;
    }

    /// A new one-time pairing token; it replaces (retires) any earlier one.
    pub fn new_token(&self, now_ms: u64) -> (String, u64) {
        let token = b64(&crypto::random::<16>());
        let expires_ms = now_ms + TOKEN_LIFETIME_MS;
        self.state().token = Some(PairToken {
            token: token.clone(),
            expires_ms,
            used: false,
            topic: crypto::hex(&crypto::random::<16>()),
        });
        (token, expires_ms)
    }

    /// The current pairing code's broker topic id (random per code).
    pub fn pairing_topic(&self) -> Option<String> {
        self.state().token.as_ref().map(|t| t.topic.clone())
    }

    /// The topics the broker link should listen on now. The pairing topic stays while its
    /// code is the current one (used or not), so a replayed pairing request is refused and
    /// audited, not silently lost; it goes when the code expires or is replaced.
    pub fn broker_topics(&self, now_ms: u64) -> BrokerTopics {
        let mut st = self.state();
        let devices: Vec<Device> = st.devices.clone();
        let mut out = BrokerTopics::default();
        for d in &devices {
            if let Some(key) = st.seal_key(d) {
                out.devices.push((key.topic(), d.id.clone()));
            }
        }
        out.pairing = st
            .token
            .as_ref()
            .filter(|t| t.expires_ms > now_ms)
            .map(|t| t.topic.clone());
        out
    }

    /// No token pairs any more (the link stopped).
    pub fn retire_token(&self) {
        self.state().token = None;
    }

    /// Whether a pairing token can still pair (the current one, not used, not expired).
    pub fn token_open(&self, token: &str, now_ms: u64) -> bool {
        self.state().token.as_ref().is_some_and(|t| {
            bool::from(t.token.as_bytes().ct_eq(token.as_bytes()))
                && !t.used
                && t.expires_ms > now_ms
        })
    }

    /// Writes the summary line of dropped unauthenticated refusals, if one is due (`force`:
    /// whenever any were dropped, as when the link stops).
    pub fn flush(&self, now_ms: u64, force: bool) {
        let mut st = self.state();
        st.summarize(&self.record, now_ms, force);
        st.summarize_devices(&self.record, now_ms, force);
    }

    /// `POST /pair`: `{token, name, sign, box, sig}` — the phone's public keys, the token from
    /// the QR code, and its signature over [`crypto::pair_message`] proving it holds the key.
    /// Every refusal is audited: under the flood budget, except a revoked key trying again
    /// with a good token, which is audited always.
    pub fn pair(&self, body: &[u8], from: impl Into<Source>, now_ms: u64) -> Reply {
        let from = from.into();
        let device = {
            let mut st = self.state();
            match st.check_pairing(body, now_ms) {
                Ok(device) => device,
                Err((status, message)) => {
                    st.refuse_pairing(&self.record, message, &from, now_ms);
                    return Reply::error(status, message);
                }
            }
        };
        // The token is spent; the file is written without the state's lock.
        let mut store = self.store();
        if let Some(old) = store.get(&device.id).filter(|d| d.revoked_at.is_some()) {
            let by = AnsweredBy::Phone(old.label());
            drop(store);
            let detail =
                format!("pairing refused: revoked device (its key stays revoked), from {from}");
            let mut st = self.state();
            st.refuse_authenticated(&self.record, by, detail, None, None, now_ms);
            return Reply::error(403, "this device was revoked: it cannot pair again");
        }
        let mut device = device;
        device.name = unique_name(&device.name, store.all(), &device.id);
        if let Err(e) = store.add(device.clone()) {
            return Reply::error(500, &format!("could not save the device: {e}"));
        }
        let devices = store.all().to_vec();
        let mut st = self.state();
        st.devices = devices;
        st.seal_keys.remove(&device.id);
        let receipt = crypto::paired_message(&device.id, &device.sign_key, &device.box_key);
        Reply::json(
            200,
            json!({
                "device": device.id,
                "name": device.name,
                "sig": b64(&crypto::sign(&st.keys.sign, receipt.as_bytes())),
            }),
        )
    }

    /// A pairing request over the broker, on the current code's topic: the frame holds the
    /// phone's X25519 key, then the request ([`Gate::pair`]'s body) sealed to the app's
    /// X25519 key under the key both derive (as for every later request), bound to this
    /// topic. The body's `box` must be the key in the frame. Returns the framed reply,
    /// sealed the same way, or `None` when nothing could be opened (refused and audited).
    pub fn broker_pair(&self, topic: &str, frame: &[u8], now_ms: u64) -> Option<Vec<u8>> {
        let from = Source::Broker(topic.to_string());
        let refuse = |why: &str| {
            self.state()
                .refuse_pairing(&self.record, why, &from, now_ms);
        };
        let Some((prefix, nonce, ct)) = crypto::unframe(frame, 32) else {
            refuse("not a pairing frame");
            return None;
        };
        let phone_box: [u8; 32] = prefix.try_into().ok()?;
        let aad = pairing_aad(topic);
        let key = {
            let st = self.state();
            crypto::contributory(&st.keys.boxing, &phone_box).then(|| {
                SealKey::agree(
                    &st.keys.boxing,
                    &st.keys.box_public(),
                    &phone_box,
                    &phone_box,
                )
            })
        };
        let Some(key) = key else {
            refuse("the box key is a low-order X25519 point");
            return None;
        };
        let Some(plain) = key.open(Direction::ToApp, &aad, &nonce, ct) else {
            refuse(Check::Seal.as_str());
            return None;
        };
        let same_key = serde_json::from_slice::<Value>(&plain)
            .ok()
            .and_then(|v| {
                v.get("box")
                    .and_then(Value::as_str)
                    .and_then(unb64_array::<32>)
            })
            .is_some_and(|k| k == phone_box);
        let reply = if same_key {
            self.pair(&plain, from.clone(), now_ms)
        } else {
            refuse("the request names another box key than it is sealed with");
            Reply::error(400, "the box key differs from the sealing key")
        };
        let body: Value = serde_json::from_slice(&reply.body).unwrap_or(Value::Null);
        let out = json!({"status": reply.status, "body": body});
        let (n, c) = key.seal(Direction::ToPhone, &aad, out.to_string().as_bytes());
        Some(crypto::frame(&[], &n, &c))
    }

    /// `POST /api`: `{"d": device, "n": nonce, "c": ciphertext}` sealed to the app, holding
    /// `{"m": message, "s": signature}`. Returns the reply, and the command to send to the
    /// engine when an answer was accepted (sent by the caller, outside the lock).
    pub fn api(
        &self,
        body: &[u8],
        from: impl Into<Source>,
        now_ms: u64,
    ) -> (Reply, Option<EngineCommand>) {
        let Ok(v) = serde_json::from_slice::<Value>(body) else {
            return (Reply::error(400, "malformed JSON"), None);
        };
        let field = |k: &str| v.get(k).and_then(Value::as_str);
        let (Some(claim), Some(nonce), Some(ct)) = (field("d"), field("n"), field("c")) else {
            return (Reply::error(400, "expected d, n and c"), None);
        };
        let (Some(nonce), Some(ct)) = (unb64_array::<12>(nonce), unb64(ct)) else {
            return (Reply::error(400, "n and c must be base64url"), None);
        };
        self.sealed_request(claim, &nonce, &ct, &from.into(), now_ms, None)
    }

    /// A sealed request from the broker: the device is the one whose topic it arrived on,
    /// the frame holds the nonce and ciphertext (see [`crypto::frame`]). The same checks as
    /// [`Gate::api`], in the same order, sharing its nonces; a frame that does not split is
    /// refused as the seal would be. Returns the framed, sealed reply (`None` when the
    /// request was not authenticated: the broker gets nothing to read) and the command.
    pub fn broker_request(&self, topic: &str, frame: &[u8], now_ms: u64) -> BrokerReply {
        let from = Source::Broker(topic.to_string());
        let device = {
            let mut st = self.state();
            let devices = st.devices.clone();
            devices
                .into_iter()
                .find(|d| st.seal_key(d).is_some_and(|k| k.topic() == topic))
        };
        // An unknown topic claims no device: its id in the audit is the topic's.
        let claim = device.map(|d| d.id).unwrap_or_else(|| topic.to_string());
        let (nonce, ct) = match crypto::unframe(frame, 0) {
            Some((_, nonce, ct)) => (nonce, ct.to_vec()),
            None => ([0u8; 12], Vec::new()),
        };
        let limit = self.state().broker_reply_limit;
        let (reply, command) = self.sealed_request(&claim, &nonce, &ct, &from, now_ms, Some(limit));
        BrokerReply {
            frame: reframe(&reply),
            command,
            refused: reply.status != 200,
        }
    }

    /// `limit`: the largest reply JSON the transport takes (the broker's), `None` for the LAN.
    fn sealed_request(
        &self,
        claim: &str,
        nonce: &[u8; 12],
        ct: &[u8],
        from: &Source,
        now_ms: u64,
        limit: Option<usize>,
    ) -> (Reply, Option<EngineCommand>) {
        let (nonce, ct) = (*nonce, ct);
        let mut st = self.state();
        let record = &self.record;
        let Some(device) = st.devices.iter().find(|d| d.id == claim).cloned() else {
            let detail = format!(
                "{} ({}, from {from})",
                Check::UnknownDevice.as_str(),
                claimed_id(claim)
            );
            st.refuse_unauthenticated(record, &AnsweredBy::UnknownPhone, detail, from, now_ms);
            return (Reply::error(401, Check::UnknownDevice.as_str()), None);
        };
        // Until the seal opens, the request only claims to be this device.
        let by = AnsweredBy::Phone(device.label());
        let unverified = |check: Check| {
            format!(
                "{} (device {}, claimed by a request from {from} that is not authenticated)",
                check.as_str(),
                device.id
            )
        };
        if device.revoked_at.is_some() {
            let detail = unverified(Check::Revoked);
            st.refuse_unauthenticated(record, &by, detail, from, now_ms);
            return (Reply::error(403, Check::Revoked.as_str()), None);
        }
        let opened = st
            .seal_key(&device)
            .and_then(|key| Some((key.open(Direction::ToApp, &device.id, &nonce, ct)?, key)));
        let Some((plain, key)) = opened else {
            let detail = unverified(Check::Seal);
            st.refuse_unauthenticated(record, &by, detail, from, now_ms);
            return (Reply::error(401, Check::Seal.as_str()), None);
        };
        match st.check_signed(&device, &plain, now_ms) {
            Ok((req, command)) => {
                // A subscription, checked in check_signed, is written without the state's lock.
                let push = match &req.op {
                    Op::Subscribe {
                        endpoint,
                        p256dh,
                        auth,
                    } => Some(Subscription::new(endpoint, p256dh, auth).ok()),
                    Op::Unsubscribe => Some(None),
                    _ => None,
                };
                if let Some(push) = push {
                    drop(st);
                    if let Err(e) = self.set_push(&device.id, push, None) {
                        let out = json!({"re": req.nonce, "ok": false, "refused": format!("could not save the subscription: {e}"), "now": now_ms});
                        return (sealed(&key, &device, 500, out), None);
                    }
                    st = self.state();
                }
                let subscribed = st
                    .devices
                    .iter()
                    .any(|d| d.id == device.id && d.push.is_some());
                let mut extra = match &st.vapid {
                    Some(k) => format!(",\"vapid\":\"{k}\",\"push\":{subscribed}"),
                    None => String::new(),
                };
                // The app's language: the page speaks it (its words for every language Vults
                // speaks are in words.js), else the browser's.
                extra.push_str(&format!(
                    ",\"lang\":{}",
                    Value::String(vults_i18n::active().to_string())
                ));
                // The cards' JSON was made when they came; here it is only shared, and the
                // reply is put together and sealed after the lock is let go.
                let cards: Vec<(CardId, Arc<str>, String)> = st
                    .pending
                    .iter()
                    .map(|(id, s)| {
                        let short = cut_json(&s.card, s.json.len()).to_string();
                        (*id, s.json.clone(), short)
                    })
                    .collect();
                drop(st);
                let (out, cut) = fit_list(&req.nonce, now_ms, &extra, &cards, limit);
                self.state().cut.insert(device.id.clone(), cut);
                (sealed_bytes(&key, &device, 200, out.as_bytes()), command)
            }
            Err((check, req_nonce, card)) => {
                let mut detail = format!("{} (device {})", check.as_str(), device.id);
                if let Some(c) = card {
                    detail.push_str(&format!(", card {c}"));
                }
                st.refuse_authenticated(
                    record,
                    by,
                    detail,
                    card,
                    Some((&device.id, check)),
                    now_ms,
                );
                drop(st);
                let out =
                    json!({"re": req_nonce, "ok": false, "refused": check.as_str(), "now": now_ms});
                (sealed(&key, &device, 403, out), None)
            }
        }
    }
}

/// The associated data's "device" for a pairing over the broker: bound to the code's topic,
/// so a pairing request or reply cannot be moved to another code.
pub fn pairing_aad(topic: &str) -> String {
    format!("pair-{topic}")
}

/// A sealed reply (`{"n", "c"}`) as a broker frame; `None` for a plain refusal, which the
/// broker is not sent.
fn reframe(reply: &Reply) -> Option<Vec<u8>> {
    let v: Value = serde_json::from_slice(&reply.body).ok()?;
    let nonce = unb64_array::<12>(v.get("n")?.as_str()?)?;
    let ct = unb64(v.get("c")?.as_str()?)?;
    Some(crypto::frame(&[], &nonce, &ct))
}

fn sealed(key: &SealKey, device: &Device, status: u16, v: Value) -> Reply {
    sealed_bytes(key, device, status, v.to_string().as_bytes())
}

fn sealed_bytes(key: &SealKey, device: &Device, status: u16, plain: &[u8]) -> Reply {
    let (n, c) = key.seal(Direction::ToPhone, &device.id, plain);
    Reply::json(status, json!({"n": b64(&n), "c": b64(&c)}))
}

impl State {
    /// Everything about a pairing that needs no disk: the token (compared in constant time),
    /// the name, the keys (a low-order X25519 key is refused: its shared secret would be all
    /// zeros, a seal key anyone can compute) and the proof. Spends the token on success.
    fn check_pairing(&mut self, body: &[u8], now_ms: u64) -> Result<Device, (u16, &'static str)> {
        let v: Value = serde_json::from_slice(body).map_err(|_| (400, "malformed JSON"))?;
        let field = |k: &str| v.get(k).and_then(Value::as_str);
        let (Some(token), Some(name), Some(sign), Some(boxk), Some(sig)) = (
            field("token"),
            field("name"),
            field("sign"),
            field("box"),
            field("sig"),
        ) else {
            return Err((400, "expected token, name, sign, box and sig"));
        };
        let current = self
            .token
            .as_mut()
            .filter(|t| bool::from(t.token.as_bytes().ct_eq(token.as_bytes())))
            .ok_or((403, "unknown pairing token: show a new QR code"))?;
        if current.used {
            return Err((410, "pairing token already used: show a new QR code"));
        }
        if current.expires_ms <= now_ms {
            return Err((410, "pairing token expired: show a new QR code"));
        }
        // Only plain spaces are trimmed: any other whitespace is refused below.
        let name = name.trim_matches(' ');
        let length = name.chars().count();
        if !(1..=MAX_NAME_CHARS).contains(&length) || !name.chars().all(name_char_ok) {
            return Err((
                400,
                "a device name is 1 to 40 visible characters: no control, format, bidi, \
                 zero-width or line-separator characters, and no whitespace but spaces",
            ));
        }
        let (Some(sign_pub), Some(box_pub)) = (unb64_array::<32>(sign), unb64_array::<32>(boxk))
        else {
            return Err((400, "keys must be 32 bytes, base64url"));
        };
        if !crypto::contributory(&self.keys.boxing, &box_pub) {
            return Err((400, "the box key is a low-order X25519 point"));
        }
        let proof = crypto::pair_message(token, name, sign, boxk);
        if !unb64(sig).is_some_and(|s| crypto::verify(&sign_pub, proof.as_bytes(), &s)) {
            return Err((403, "the pairing signature does not verify"));
        }
        if let Some(t) = self.token.as_mut() {
            t.used = true;
        }
        Ok(Device {
            id: crypto::device_id(&sign_pub),
            name: name.to_string(),
            sign_key: sign.to_string(),
            box_key: boxk.to_string(),
            paired_at: now_ms,
            revoked_at: None,
            push: None,
        })
    }

    fn seal_key(&mut self, device: &Device) -> Option<SealKey> {
        if let Some(k) = self.seal_keys.get(&device.id) {
            return Some(k.clone());
        }
        let phone_box = unb64_array::<32>(&device.box_key)?;
        if !crypto::contributory(&self.keys.boxing, &phone_box) {
            return None;
        }
        let key = SealKey::agree(
            &self.keys.boxing,
            &self.keys.box_public(),
            &phone_box,
            &phone_box,
        );
        self.seal_keys.insert(device.id.clone(), key.clone());
        Some(key)
    }

    #[allow(clippy::type_complexity)] // (request, command) or (check, nonce, card): read once, here.
    fn check_signed(
        &mut self,
        device: &Device,
        plain: &[u8],
        now_ms: u64,
    ) -> Result<(SignedRequest, Option<EngineCommand>), (Check, String, Option<CardId>)> {
        let inner: Value =
            serde_json::from_slice(plain).map_err(|_| (Check::Malformed, String::new(), None))?;
        let (Some(message), Some(sig)) = (
            inner.get("m").and_then(Value::as_str),
            inner.get("s").and_then(Value::as_str).and_then(unb64),
        ) else {
            return Err((Check::Malformed, String::new(), None));
        };
        let req = SignedRequest::parse(message).ok_or((Check::Malformed, String::new(), None))?;
        let card = match &req.op {
            Op::Answer { card, .. } => Some(*card),
            _ => None,
        };
        let fail = |c: Check| (c, req.nonce.clone(), card);
        if req.device != device.id {
            return Err(fail(Check::DeviceMismatch));
        }
        let sign_key = unb64_array::<32>(&device.sign_key).ok_or(fail(Check::Signature))?;
        if !crypto::verify(&sign_key, message.as_bytes(), &sig) {
            return Err(fail(Check::Signature));
        }
        if req.time_ms.abs_diff(now_ms) > TIME_WINDOW_MS || req.time_ms < self.started_ms {
            return Err(fail(Check::Time));
        }
        self.nonces.retain(|_, expires| *expires > now_ms);
        let nonce_key = (device.id.clone(), req.nonce.clone());
        if self.nonces.contains_key(&nonce_key) {
            return Err(fail(Check::Replay));
        }
        if self.nonces.len() >= MAX_NONCES {
            return Err(fail(Check::Busy));
        }
        // Kept until the request's time leaves the window: after that, the time check alone
        // refuses a replay.
        self.nonces
            .insert(nonce_key, req.time_ms + TIME_WINDOW_MS + 1);
        if let Op::Subscribe {
            endpoint,
            p256dh,
            auth,
        } = &req.op
            && Subscription::new(endpoint, p256dh, auth).is_err()
        {
            return Err(fail(Check::Subscription));
        }
        let command = match &req.op {
            Op::List | Op::Subscribe { .. } | Op::Unsubscribe => None,
            Op::Answer { card, answer } => {
                let Some(pending) = self.pending.get(card) else {
                    return Err(fail(Check::CardNotPending));
                };
                let shown_cut = self
                    .cut
                    .get(&device.id)
                    .is_some_and(|cut| cut.contains(card));
                if shown_cut && !matches!(answer, WireAnswer::Deny | WireAnswer::DenyWith(_)) {
                    return Err(fail(Check::CardTooLarge));
                }
                let answer = fit(&pending.card, answer).ok_or(fail(Check::AnswerDoesNotFit))?;
                // Gone from the phone's list at once: a second answer to it is refused.
                self.pending.remove(card);
                Some(EngineCommand::Answer {
                    card: *card,
                    answer,
                    by: AnsweredBy::Phone(device.label()),
                })
            }
        };
        Ok((req, command))
    }

    /// Audits a refused pairing, under the flood budget: what was wrong and where it came from.
    fn refuse_pairing(&mut self, record: &CommandSink, why: &str, from: &Source, now_ms: u64) {
        let detail = format!("pairing refused: {why} (from {from})");
        self.refuse_unauthenticated(record, &AnsweredBy::UnknownPhone, detail, from, now_ms);
    }

    /// Audits a refusal of a request that is not authenticated, if the flood budget allows;
    /// otherwise counts it for the summary line.
    fn refuse_unauthenticated(
        &mut self,
        record: &CommandSink,
        by: &AnsweredBy,
        detail: String,
        from: &Source,
        now_ms: u64,
    ) {
        if self.flood.admit(from, now_ms) {
            let entry = self.entry(by.clone(), detail, None, now_ms);
            record(EngineCommand::Record(entry.clone()));
            push(&mut self.unauthenticated, entry, KEEP_UNAUTHENTICATED);
        }
        self.summarize(record, now_ms, false);
    }

    /// Audits a refusal of an authenticated request, under its device's budget
    /// (`budget`: the device and the check; otherwise counted for its summary line), or a
    /// revoked key with a good token (`None`: always).
    fn refuse_authenticated(
        &mut self,
        record: &CommandSink,
        by: AnsweredBy,
        detail: String,
        card: Option<CardId>,
        budget: Option<(&str, Check)>,
        now_ms: u64,
    ) {
        let admitted = budget.is_none_or(|(device, check)| {
            self.device_flood.admit(device, &by, check.as_str(), now_ms)
        });
        if admitted {
            let entry = self.entry(by, detail, card, now_ms);
            record(EngineCommand::Record(entry.clone()));
            push(&mut self.authenticated, entry, KEEP_AUTHENTICATED);
        }
        self.summarize_devices(record, now_ms, false);
    }

    /// One line per device whose refusals the budget dropped, once it is due (or now, `force`).
    fn summarize_devices(&mut self, record: &CommandSink, now_ms: u64, force: bool) {
        for (device, by, counts, since) in self.device_flood.due(now_ms, force) {
            let total: u64 = counts.values().sum();
            let seconds = now_ms.saturating_sub(since).div_ceil(1000);
            let kinds: Vec<String> = counts.iter().map(|(c, n)| format!("{c}: {n}")).collect();
            let detail = format!(
                "{total} more refused requests of device {device} ({}) were not logged one by \
                 one (refusal limit), in the last {seconds} s",
                kinds.join(", ")
            );
            let entry = self.entry(by, detail, None, now_ms);
            record(EngineCommand::Record(entry.clone()));
            push(&mut self.authenticated, entry, KEEP_AUTHENTICATED);
        }
    }

    fn summarize(&mut self, record: &CommandSink, now_ms: u64, force: bool) {
        let Some((dropped, since)) = self.flood.summary(now_ms, force) else {
            return;
        };
        let seconds = now_ms.saturating_sub(since).div_ceil(1000);
        let detail = format!(
            "{dropped} more refused requests that were not authenticated (flood limit) were \
             not logged one by one, in the last {seconds} s"
        );
        let entry = self.entry(AnsweredBy::UnknownPhone, detail, None, now_ms);
        record(EngineCommand::Record(entry.clone()));
        push(&mut self.unauthenticated, entry, KEEP_UNAUTHENTICATED);
    }

    fn entry(
        &self,
        by: AnsweredBy,
        detail: String,
        card: Option<CardId>,
        now_ms: u64,
    ) -> AuditEntry {
        let entry = AuditEntry::new(now_ms, Outcome::Refused, by, Some(detail));
        match card.and_then(|c| self.pending.get(&c)) {
            Some(pending) => entry.about_card(&pending.card),
            None => entry,
        }
    }
}

fn push(list: &mut VecDeque<AuditEntry>, entry: AuditEntry, keep: usize) {
    while list.len() >= keep {
        list.pop_front();
    }
    list.push_back(entry);
}
