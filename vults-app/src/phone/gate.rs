//! The one place a phone's request is checked: pairing, then every signed, sealed request.
//!
//! A request to answer a card counts only if, in this order: the device is paired and not
//! revoked; the envelope opens with that device's seal key; the message parses; it names the
//! same device; its Ed25519 signature verifies against that device's key; its time is within
//! ±60 s of the app's clock and not before this link started; its nonce was never seen; the
//! card is still pending; and the answer fits the card. Anything else is refused with the
//! name of the failed check, audited (`decision: refused`, `by: phone:<device>`), and no card
//! is answered. An accepted answer becomes the same [`EngineCommand::Answer`] a click makes.

use super::crypto::{
    self, AppKeys, Direction, Op, SealKey, SignedRequest, WireAnswer, b64, unb64, unb64_array,
};
use super::devices::{Device, DeviceStore};
use super::http::CommandSink;
use crate::model::{
    AnsweredBy, AuditEntry, CardAnswer, CardId, EngineCommand, EngineEvent, PendingCard,
};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap, VecDeque};
use vults_core::agents::Target;

/// How far a request's time may be from the app's clock.
pub const TIME_WINDOW_MS: u64 = 60_000;
/// How long a pairing token is good for.
pub const TOKEN_LIFETIME_MS: u64 = 5 * 60_000;
/// Nonces remembered at most (covering the time window); past it requests are refused as
/// "busy" rather than forgetting a nonce that could still be replayed.
const MAX_NONCES: usize = 50_000;
const MAX_NAME_CHARS: usize = 40;

/// A check that refused a request (its name goes to the audit and to the phone).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    UnknownDevice,
    Revoked,
    Seal,
    Malformed,
    DeviceMismatch,
    Signature,
    Time,
    Replay,
    Busy,
    CardNotPending,
    AnswerDoesNotFit,
}

impl Check {
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
        }
    }
}

/// What the HTTP layer sends back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

impl Reply {
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

struct PairToken {
    token: String,
    expires_ms: u64,
    used: bool,
}

/// The link's state, behind one mutex shared by the HTTP tasks and the app.
pub struct Gate {
    keys: AppKeys,
    devices: DeviceStore,
    seal_keys: HashMap<String, SealKey>,
    pending: BTreeMap<CardId, PendingCard>,
    nonces: HashMap<(String, String), u64>,
    tokens: Vec<PairToken>,
    /// Requests signed before this instant are refused: a restarted app has forgotten the
    /// nonces it saw, and this keeps a request captured before the restart from replaying.
    started_ms: u64,
    /// Where refusals are audited: the engine (`EngineCommand::Record`), which owns the log.
    record: CommandSink,
    /// Pre-authentication refusals are audited at most once per 10 s per claimed device, so
    /// a flood from the LAN cannot flood the audit log.
    last_anonymous_audit: HashMap<String, u64>,
    refusals: VecDeque<AuditEntry>,
}

impl Gate {
    pub fn new(keys: AppKeys, devices: DeviceStore, record: CommandSink, now_ms: u64) -> Gate {
        Gate {
            keys,
            devices,
            seal_keys: HashMap::new(),
            pending: BTreeMap::new(),
            nonces: HashMap::new(),
            tokens: Vec::new(),
            started_ms: now_ms,
            record,
            last_anonymous_audit: HashMap::new(),
            refusals: VecDeque::new(),
        }
    }

    pub fn keys(&self) -> &AppKeys {
        &self.keys
    }

    pub fn devices(&self) -> &[Device] {
        self.devices.all()
    }

    pub fn pending_count(&self) -> usize {
        self.pending.len()
    }

    pub fn revoke(&mut self, id: &str, now_ms: u64) -> std::io::Result<bool> {
        self.seal_keys.remove(id);
        self.devices.revoke(id, now_ms)
    }

    /// The latest refusals, newest last (for Settings → Phone).
    pub fn refusals(&self) -> impl Iterator<Item = &AuditEntry> {
        self.refusals.iter()
    }

    pub fn on_engine_event(&mut self, ev: &EngineEvent) {
        match ev {
            EngineEvent::CardAdded(card) => {
                self.pending.insert(card.id, card.clone());
            }
            EngineEvent::CardRemoved { id, .. } => {
                self.pending.remove(id);
            }
            _ => {}
        }
    }

    /// A new one-time pairing token (the newest few stay valid until they expire).
    pub fn new_token(&mut self, now_ms: u64) -> (String, u64) {
        let token = b64(&crypto::random::<16>());
        let expires_ms = now_ms + TOKEN_LIFETIME_MS;
        self.tokens.retain(|t| t.expires_ms > now_ms);
        if self.tokens.len() >= 4 {
            self.tokens.remove(0);
        }
        self.tokens.push(PairToken {
            token: token.clone(),
            expires_ms,
            used: false,
        });
        (token, expires_ms)
    }

    /// Whether a pairing token can still pair (not used, not expired).
    pub fn token_open(&self, token: &str, now_ms: u64) -> bool {
        self.tokens
            .iter()
            .any(|t| t.token == token && !t.used && t.expires_ms > now_ms)
    }

    /// `POST /pair`: `{token, name, sign, box, sig}` — the phone's public keys, the token from
    /// the QR code, and its signature over [`crypto::pair_message`] proving it holds the key.
    pub fn pair(&mut self, body: &[u8], now_ms: u64) -> Reply {
        let Ok(v) = serde_json::from_slice::<Value>(body) else {
            return Reply::error(400, "malformed JSON");
        };
        let field = |k: &str| v.get(k).and_then(Value::as_str);
        let (Some(token), Some(name), Some(sign), Some(boxk), Some(sig)) = (
            field("token"),
            field("name"),
            field("sign"),
            field("box"),
            field("sig"),
        ) else {
            return Reply::error(400, "expected token, name, sign, box and sig");
        };
        let Some(t) = self.tokens.iter().position(|t| t.token == token) else {
            return Reply::error(403, "unknown pairing token: show a new QR code");
        };
        if self.tokens[t].used {
            return Reply::error(410, "pairing token already used: show a new QR code");
        }
        if self.tokens[t].expires_ms <= now_ms {
            return Reply::error(410, "pairing token expired: show a new QR code");
        }
        let name = name.trim();
        if name.is_empty()
            || name.chars().count() > MAX_NAME_CHARS
            || name.chars().any(char::is_control)
        {
            return Reply::error(400, "a device name is 1 to 40 printable characters");
        }
        let (Some(sign_pub), Some(_box_pub)) = (unb64_array::<32>(sign), unb64_array::<32>(boxk))
        else {
            return Reply::error(400, "keys must be 32 bytes, base64url");
        };
        let proof = crypto::pair_message(token, name, sign, boxk);
        if !unb64(sig).is_some_and(|s| crypto::verify(&sign_pub, proof.as_bytes(), &s)) {
            return Reply::error(403, "the pairing signature does not verify");
        }
        let id = crypto::device_id(&sign_pub);
        let device = Device {
            id: id.clone(),
            name: name.to_string(),
            sign_key: sign.to_string(),
            box_key: boxk.to_string(),
            paired_at: now_ms,
            revoked_at: None,
        };
        if let Err(e) = self.devices.add(device) {
            return Reply::error(500, &format!("could not save the device: {e}"));
        }
        self.seal_keys.remove(&id);
        self.tokens[t].used = true;
        let receipt = crypto::paired_message(&id, sign, boxk);
        Reply::json(
            200,
            json!({
                "device": id,
                "sig": b64(&crypto::sign(&self.keys.sign, receipt.as_bytes())),
            }),
        )
    }

    /// `POST /api`: `{"d": device, "n": nonce, "c": ciphertext}` sealed to the app, holding
    /// `{"m": message, "s": signature}`. Returns the reply, and the command to send to the
    /// engine when an answer was accepted (sent by the caller, outside the lock).
    pub fn api(&mut self, body: &[u8], now_ms: u64) -> (Reply, Option<EngineCommand>) {
        let Ok(v) = serde_json::from_slice::<Value>(body) else {
            return (Reply::error(400, "malformed JSON"), None);
        };
        let field = |k: &str| v.get(k).and_then(Value::as_str);
        let (Some(device_id), Some(nonce), Some(ct)) = (field("d"), field("n"), field("c")) else {
            return (Reply::error(400, "expected d, n and c"), None);
        };
        let (Some(nonce), Some(ct)) = (unb64_array::<12>(nonce), unb64(ct)) else {
            return (Reply::error(400, "n and c must be base64url"), None);
        };
        let device_id: String = device_id.chars().take(64).collect();
        let Some(device) = self.devices.get(&device_id).cloned() else {
            self.refuse_anonymous(Check::UnknownDevice, &device_id, now_ms);
            return (Reply::error(401, Check::UnknownDevice.as_str()), None);
        };
        if device.revoked_at.is_some() {
            self.refuse(Check::Revoked, &device, None, now_ms);
            return (Reply::error(403, Check::Revoked.as_str()), None);
        }
        let Some(key) = self.seal_key(&device) else {
            self.refuse(Check::Malformed, &device, None, now_ms);
            return (
                Reply::error(500, "the stored device keys are damaged"),
                None,
            );
        };
        let Some(plain) = key.open(Direction::ToApp, &device.id, &nonce, &ct) else {
            self.refuse_anonymous(Check::Seal, &device.id, now_ms);
            return (Reply::error(401, Check::Seal.as_str()), None);
        };
        match self.check_signed(&device, &plain, now_ms) {
            Ok((req, command)) => {
                let cards: Vec<Value> = self.pending.values().map(card_json).collect();
                let out = json!({"re": req.nonce, "ok": true, "now": now_ms, "cards": cards});
                (self.sealed(&key, &device, 200, out), command)
            }
            Err((check, req_nonce, card)) => {
                self.refuse(check, &device, card, now_ms);
                let out =
                    json!({"re": req_nonce, "ok": false, "refused": check.as_str(), "now": now_ms});
                (self.sealed(&key, &device, 403, out), None)
            }
        }
    }

    fn sealed(&self, key: &SealKey, device: &Device, status: u16, v: Value) -> Reply {
        let (n, c) = key.seal(Direction::ToPhone, &device.id, v.to_string().as_bytes());
        Reply::json(status, json!({"n": b64(&n), "c": b64(&c)}))
    }

    fn seal_key(&mut self, device: &Device) -> Option<SealKey> {
        if let Some(k) = self.seal_keys.get(&device.id) {
            return Some(k.clone());
        }
        let phone_box = unb64_array::<32>(&device.box_key)?;
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
            Op::List => None,
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
        let command = match &req.op {
            Op::List => None,
            Op::Answer { card, answer } => {
                let Some(pending) = self.pending.get(card) else {
                    return Err(fail(Check::CardNotPending));
                };
                let answer = fit(pending, answer).ok_or(fail(Check::AnswerDoesNotFit))?;
                // Gone from the phone's list at once: a second answer to it is refused.
                self.pending.remove(card);
                Some(EngineCommand::Answer {
                    card: *card,
                    answer,
                    by: AnsweredBy::Phone(device.name.clone()),
                })
            }
        };
        Ok((req, command))
    }

    fn refuse_anonymous(&mut self, check: Check, claimed: &str, now_ms: u64) {
        if self.last_anonymous_audit.len() > 1000 {
            self.last_anonymous_audit.clear();
        }
        let last = self
            .last_anonymous_audit
            .entry(claimed.to_string())
            .or_insert(0);
        if now_ms.saturating_sub(*last) < 10_000 {
            return;
        }
        *last = now_ms;
        let label = match self.devices.get(claimed) {
            Some(d) => d.name.clone(),
            None => "unknown".to_string(),
        };
        self.audit(check, &label, claimed, None, now_ms);
    }

    fn refuse(&mut self, check: Check, device: &Device, card: Option<CardId>, now_ms: u64) {
        let (name, id) = (device.name.clone(), device.id.clone());
        self.audit(check, &name, &id, card, now_ms);
    }

    fn audit(&mut self, check: Check, name: &str, id: &str, card: Option<CardId>, now_ms: u64) {
        let pending = card.and_then(|c| self.pending.get(&c));
        let mut detail = format!("{} (device {id})", check.as_str());
        if let Some(c) = card {
            detail.push_str(&format!(", card {c}"));
        }
        let entry = AuditEntry {
            time: now_ms,
            identity: pending
                .map(|p| p.identity.key().to_string())
                .unwrap_or_default(),
            session: pending
                .map(|p| p.session.session.clone())
                .unwrap_or_default(),
            folder: pending.map(|p| p.folder.clone()).unwrap_or_default(),
            tool: pending.map(|p| p.call.tool.clone()).unwrap_or_default(),
            target: pending
                .map(|p| p.call.target.rule_key())
                .unwrap_or_default(),
            decision: "refused".into(),
            by: format!("phone:{name}"),
            detail: Some(detail),
        };
        // The engine writes it with every other answer and shows it in History at once.
        (self.record)(EngineCommand::Record(entry.clone()));
        self.push_refusal(entry);
    }

    fn push_refusal(&mut self, entry: AuditEntry) {
        if self.refusals.len() >= 50 {
            self.refusals.pop_front();
        }
        self.refusals.push_back(entry);
    }
}

/// The engine's answer for a phone's answer, if it fits the card: a question card takes
/// answers (one per question) or a deny; any other card allow, deny, or — when the card
/// offers it — always.
fn fit(card: &PendingCard, answer: &WireAnswer) -> Option<CardAnswer> {
    match (card.question, answer) {
        (_, WireAnswer::Deny) => Some(CardAnswer::Deny),
        (true, WireAnswer::Answers(items)) => {
            let expected = match &card.call.target {
                Target::Questions { questions } => questions.len(),
                _ => return None,
            };
            (items.len() == expected).then(|| CardAnswer::Answers(items.clone()))
        }
        (false, WireAnswer::Allow) => Some(CardAnswer::Allow),
        (false, WireAnswer::Always) if card.always_rule.is_some() && card.destructive.is_none() => {
            Some(CardAnswer::AlwaysAllow)
        }
        _ => None,
    }
}

/// A card as the phone shows it: the same content as the desktop card.
pub fn card_json(c: &PendingCard) -> Value {
    let arrived = c
        .arrived
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    json!({
        "id": c.id,
        "agent": c.identity.display_name(),
        "folder": c.folder,
        "tool": c.call.tool,
        "kind": c.call.kind,
        "target": c.call.target,
        "destructive": c.destructive,
        "reason": c.reason,
        "always": c.always_rule.is_some() && c.destructive.is_none(),
        "question": c.question,
        "arrived": arrived,
        // What the desktop card shows besides the target: the agent's own words, and the
        // unified diff of an edit, a write over an existing file or a patch (docs/phone.md).
        "said": c.context.said,
        "diff": crate::diff::card_diff(&c.call, &c.context).map(|d| crate::diff::to_json(&d)),
    })
}
