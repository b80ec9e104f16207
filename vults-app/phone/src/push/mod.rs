//! The phone buzzes: Web Push to each paired phone that subscribed (docs/phone.md, "Push").
//!
//! The [`Pusher`] follows the cards as the link does (fed the same [`EngineEvent`]s) and, for
//! each device with a subscription, pushes: one push per card (what the desktop notification
//! says, [`card_payload`]), past [`MAX_SINGLE`] shown cards one "N cards wait" push instead,
//! and a withdraw push when a card is answered anywhere (the service worker closes its
//! notification). While quiet hours are on nothing new is pushed.
//!
//! Each message is sealed twice: with the device's own seal key ([`Direction::Push`], so only
//! the paired page's service worker can read it and nobody else can make it show anything),
//! then with Web Push's encryption to the subscription's keys ([`webpush`]), signed for with
//! the app's VAPID key. The push service sees ciphertext, the endpoint, the size and the time.
//!
//! Sending runs on a thread of its own with one queue per device (so a withdraw never
//! overtakes its card); a push service that cannot be reached is tried again with backoff
//! ([`BACKOFF_S`]) while the card waits; a 404 or 410 drops the subscription (saved in
//! `devices.json`) and Settings → Phone says so. Nothing here ever waits on a hook or a card.

pub mod send;
/// A Web Push service stand-in for tests (the `test-support` feature).
#[cfg(any(test, feature = "test-support"))]
pub mod standin;
pub mod webpush;

use super::crypto::Direction;
use super::gate::Gate;
pub use send::PushFailure;
use send::{Headers, Roots, Sent, Urgency};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use vults_engine::messages::{CardId, EngineEvent, PendingCard};
use vults_engine::present::{Answer, Presentation, Surface};
use vults_notify::notice::{Offer, ServerCaps, compose};
use webpush::VapidKey;

/// Cards shown one by one on a phone at most; past it, one "N cards wait" notification.
pub const MAX_SINGLE: usize = 3;
/// Seconds between tries of a push the service did not take (429, 5xx, no network), while
/// its card still waits; then it is given up (and said in Settings → Phone).
pub const BACKOFF_S: &[u64] = &[1, 2, 4, 8, 16, 32, 60, 120, 300];
/// How long a push service keeps a card's push for a phone it cannot reach (seconds).
pub const CARD_TTL_S: u32 = 600;
/// The summary notification's tag.
pub const SUMMARY_TAG: &str = "vults-summary";

/// A card's notification tag (and the push's `Topic`): a newer push for it replaces it.
pub fn card_tag(card: CardId) -> String {
    format!("vults-card-{card}")
}

/// Per device, what Settings → Phone shows of its pushes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PushState {
    /// When a push service last took a push for it (Unix ms).
    pub last_delivered: Option<u64>,
    /// Pushes taken since the app started.
    pub delivered: u64,
    /// The last failure (a 410 that removed the subscription, a refusal, no network): worded
    /// by Settings → Phone, said in English by its `Display`.
    pub last_error: Option<PushFailure>,
}

/// Each message that words a push carries the language active where it was sent (the app's
/// choice, a test's scoped one): the push is worded in it on the sending task.
enum Msg {
    Event(Box<EngineEvent>, &'static str),
    Quiet(bool),
    Test(String, &'static str),
    Warning {
        tag: String,
        title: String,
        body: String,
    },
}

/// One push for one device.
struct Job {
    /// The plaintext (JSON), sealed for the device when sent.
    payload: Value,
    headers: Headers,
    /// Given up once this card no longer waits (a card's own push).
    card: Option<CardId>,
}

/// What the sending thread shares with the link: its queue and what Settings shows.
pub struct Pusher {
    tx: UnboundedSender<Msg>,
    states: Arc<Mutex<BTreeMap<String, PushState>>>,
    thread: Option<vults_engine::rt::Task>,
}

impl Pusher {
    /// Starts the sending thread. `roots`: the CAs a push service's certificate must chain to
    /// ([`Roots::system`] in the app).
    /// `on_change` is called after each push's result is noted (Settings → Phone repaints).
    pub fn start(
        gate: Arc<Gate>,
        vapid: VapidKey,
        roots: Roots,
        on_change: Arc<dyn Fn() + Send + Sync>,
    ) -> std::io::Result<Pusher> {
        let (tx, rx) = unbounded_channel();
        let states = Arc::new(Mutex::new(BTreeMap::new()));
        let shared = Shared {
            gate,
            vapid,
            roots,
            states: states.clone(),
            on_change,
            waiting: Arc::new(Mutex::new(BTreeSet::new())),
        };
        let thread = vults_engine::rt::spawn(run(shared, rx));
        Ok(Pusher {
            tx,
            states,
            thread: Some(thread),
        })
    }

    /// Follows the cards (the events the link is fed).
    pub fn on_engine_event(&self, ev: &EngineEvent) {
        if matches!(
            ev,
            EngineEvent::CardAdded(_) | EngineEvent::CardRemoved { .. }
        ) {
            let _ = self
                .tx
                .send(Msg::Event(Box::new(ev.clone()), vults_i18n::active()));
        }
    }

    /// Quiet hours (or the tray's quiet switch) on or off: while on, nothing new is pushed.
    pub fn set_quiet(&self, quiet: bool) {
        let _ = self.tx.send(Msg::Quiet(quiet));
    }

    /// Pushes Vults' own warning (a hook removed, a usage limit near) to every subscribed
    /// device, in the desktop notification's words; `tag` replaces the same warning's last
    /// push. Nothing while quiet.
    pub fn warn(&self, tag: &str, title: &str, body: &str) {
        let _ = self.tx.send(Msg::Warning {
            tag: tag.to_string(),
            title: title.to_string(),
            body: body.to_string(),
        });
    }

    /// Pushes a test notification to the device (Settings → Phone's "Send a test").
    pub fn test(&self, device: &str) {
        let _ = self
            .tx
            .send(Msg::Test(device.to_string(), vults_i18n::active()));
    }

    /// Per device id, its pushes so far.
    pub fn states(&self) -> BTreeMap<String, PushState> {
        self.states
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl Drop for Pusher {
    fn drop(&mut self) {
        // Closing the queue ends the task's loop; its pending retries go with it.
        let (tx, _) = unbounded_channel();
        drop(std::mem::replace(&mut self.tx, tx));
        if let Some(thread) = self.thread.take() {
            thread.join();
        }
    }
}

#[derive(Clone)]
struct Shared {
    gate: Arc<Gate>,
    vapid: VapidKey,
    roots: Roots,
    states: Arc<Mutex<BTreeMap<String, PushState>>>,
    on_change: Arc<dyn Fn() + Send + Sync>,
    /// The cards still waiting: a retry of a card's push stops once it is answered.
    waiting: Arc<Mutex<BTreeSet<CardId>>>,
}

impl Shared {
    fn note(&self, device: &str, f: impl FnOnce(&mut PushState)) {
        {
            let mut states = self.states.lock().unwrap_or_else(|e| e.into_inner());
            f(states.entry(device.to_string()).or_default());
        }
        (self.on_change)();
    }

    fn still_wanted(&self, job: &Job) -> bool {
        job.card.is_none_or(|c| {
            self.waiting
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .contains(&c)
        })
    }
}

/// What one device was shown.
#[derive(Default)]
struct Shown {
    cards: BTreeSet<CardId>,
    /// The count the "N cards wait" notification says (every card that waits), while it is up.
    summary: Option<usize>,
}

async fn run(shared: Shared, mut rx: UnboundedReceiver<Msg>) {
    let mut cards: BTreeMap<CardId, PendingCard> = BTreeMap::new();
    let mut shown: HashMap<String, Shown> = HashMap::new();
    let mut queues: HashMap<String, UnboundedSender<Job>> = HashMap::new();
    // Each device's queue ends with this loop (its pending retries too), as when the loop had a
    // runtime of its own that went with it.
    let mut device_tasks = tokio::task::JoinSet::new();
    let mut quiet = false;
    while let Some(msg) = rx.recv().await {
        let mut jobs: Vec<(String, Job)> = Vec::new();
        let lang = match &msg {
            Msg::Event(_, lang) | Msg::Test(_, lang) => lang,
            _ => vults_i18n::ENGLISH,
        };
        let _lang = vults_i18n::scoped(&vults_i18n::Choice::Language(lang.to_string()));
        match msg {
            Msg::Quiet(on) => quiet = on,
            Msg::Test(device, _) => jobs.push((device, test_job())),
            Msg::Warning { tag, title, body } => {
                if !quiet {
                    for device in subscribed(&shared.gate) {
                        jobs.push((device, warning_job(&tag, &title, &body)));
                    }
                }
            }
            Msg::Event(ev, _) => match *ev {
                EngineEvent::CardAdded(card) => {
                    let id = card.id;
                    shared
                        .waiting
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(id);
                    cards.insert(id, card);
                    if quiet {
                        continue;
                    }
                    for device in subscribed(&shared.gate) {
                        let seen = shown.entry(device.clone()).or_default();
                        if seen.cards.len() < MAX_SINGLE && seen.summary.is_none() {
                            seen.cards.insert(id);
                            jobs.push((device, card_job(&cards[&id])));
                        } else {
                            // Every card that waits, the ones shown alone too.
                            seen.summary = Some(cards.len());
                            jobs.push((device, summary_job(cards.len(), false)));
                        }
                    }
                }
                EngineEvent::CardRemoved { id, .. } => {
                    shared
                        .waiting
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .remove(&id);
                    cards.remove(&id);
                    for (device, seen) in shown.iter_mut() {
                        if seen.cards.remove(&id) {
                            jobs.push((device.clone(), withdraw_job(&card_tag(id))));
                        }
                        if let Some(was) = seen.summary {
                            // Up while some card that waits is not shown on its own.
                            if cards.keys().all(|c| seen.cards.contains(c)) {
                                seen.summary = None;
                                jobs.push((device.clone(), withdraw_job(SUMMARY_TAG)));
                            } else if cards.len() != was {
                                seen.summary = Some(cards.len());
                                jobs.push((device.clone(), summary_job(cards.len(), true)));
                            }
                        }
                    }
                }
                _ => {}
            },
        }
        for (device, job) in jobs {
            let queue = queues.entry(device.clone()).or_insert_with(|| {
                let (tx, rx) = unbounded_channel();
                device_tasks.spawn(device_queue(shared.clone(), device.clone(), rx));
                tx
            });
            let _ = queue.send(job);
        }
    }
}

/// The devices to push to: paired, not revoked, subscribed.
fn subscribed(gate: &Gate) -> Vec<String> {
    gate.devices()
        .into_iter()
        .filter(|d| d.revoked_at.is_none() && d.push.is_some())
        .map(|d| d.id)
        .collect()
}

/// One device's pushes, in order.
async fn device_queue(shared: Shared, device: String, mut rx: UnboundedReceiver<Job>) {
    while let Some(job) = rx.recv().await {
        let mut tries = BACKOFF_S.iter();
        loop {
            if !shared.still_wanted(&job) {
                break;
            }
            match deliver(&shared, &device, &job).await {
                Some(Sent::Retry(why)) => match tries.next() {
                    Some(s) => {
                        tracing::info!("push to {device}: {why}; trying again in {s} s");
                        tokio::time::sleep(std::time::Duration::from_secs(*s)).await;
                    }
                    None => {
                        shared.note(&device, |st| {
                            st.last_error = Some(PushFailure::GaveUp {
                                last: Box::new(why),
                                tries: BACKOFF_S.len() + 1,
                            })
                        });
                        break;
                    }
                },
                _ => break,
            }
        }
    }
}

/// Seals, encrypts and sends one push; notes the result. `None`: nothing to send to.
async fn deliver(shared: &Shared, device: &str, job: &Job) -> Option<Sent> {
    let d = shared
        .gate
        .devices()
        .into_iter()
        .find(|d| d.id == device && d.revoked_at.is_none())?;
    let sub = d.push?;
    let (p256dh, auth) = sub.keys()?;
    let sealed = shared
        .gate
        .seal_push(device, job.payload.to_string().as_bytes())?;
    let body = match webpush::encrypt(sealed.as_bytes(), &p256dh, &auth) {
        Ok(b) => b,
        Err(e) => {
            shared.note(device, |st| {
                st.last_error = Some(PushFailure::Encrypt(format!("{e:?}")))
            });
            return None;
        }
    };
    let now = vults_engine::clock::now_ms();
    let sent = send::post(
        &shared.roots,
        &shared.vapid,
        &sub.endpoint,
        body,
        &job.headers,
        now / 1000,
    )
    .await;
    match &sent {
        Sent::Delivered => shared.note(device, |st| {
            st.last_delivered = Some(now);
            st.delivered += 1;
            st.last_error = None;
        }),
        Sent::Gone(status) => {
            let removed = shared
                .gate
                .set_push(device, None, Some(&sub.endpoint))
                .unwrap_or(false);
            tracing::info!(
                "push to {device}: the subscription is gone ({status}); removed: {removed}"
            );
            shared.note(device, |st| {
                st.last_error = Some(PushFailure::Gone(*status))
            });
        }
        Sent::Refused(why) | Sent::Retry(why) => {
            let why = why.clone();
            shared.note(device, |st| st.last_error = Some(why));
        }
    }
    Some(sent)
}

fn card_job(card: &PendingCard) -> Job {
    Job {
        payload: card_payload(card),
        headers: Headers {
            ttl: CARD_TTL_S,
            urgency: Urgency::High,
            topic: Some(card_tag(card.id)),
        },
        card: Some(card.id),
    }
}

fn summary_job(count: usize, silent: bool) -> Job {
    Job {
        payload: json!({
            "v": 1, "t": "summary", "tag": SUMMARY_TAG, "count": count,
            "title": vults_i18n::tr!("cards-waiting", count = count),
            "body": vults_i18n::tr!("push-summary-body"),
            "silent": silent, "time": vults_engine::clock::now_ms(),
        }),
        headers: Headers {
            ttl: CARD_TTL_S,
            urgency: if silent {
                Urgency::Normal
            } else {
                Urgency::High
            },
            topic: Some(SUMMARY_TAG.into()),
        },
        card: None,
    }
}

fn withdraw_job(tag: &str) -> Job {
    Job {
        payload: json!({"v": 1, "t": "withdraw", "tag": tag, "time": vults_engine::clock::now_ms()}),
        headers: Headers {
            ttl: CARD_TTL_S,
            urgency: Urgency::Normal,
            // The same topic as the card's: an undelivered card push is replaced by this.
            topic: Some(tag.to_string()),
        },
        card: None,
    }
}

/// Vults' own warning, as the desktop notification says it; no actions.
fn warning_job(tag: &str, title: &str, body: &str) -> Job {
    Job {
        payload: json!({
            "v": 1, "t": "warning", "tag": tag, "title": title, "body": body,
            "time": vults_engine::clock::now_ms(),
        }),
        headers: Headers {
            ttl: 3600,
            urgency: Urgency::High,
            topic: None,
        },
        card: None,
    }
}

fn test_job() -> Job {
    Job {
        payload: json!({
            "v": 1, "t": "test", "tag": "vults-test", "title": "Vults",
            "body": vults_i18n::tr!("push-test-body"),
            "time": vults_engine::clock::now_ms(),
        }),
        headers: Headers {
            ttl: 60,
            urgency: Urgency::High,
            topic: None,
        },
        card: None,
    }
}

/// What a card's push says, in the active language: the desktop notification's title and body
/// (agent, tool, the whole target when it fits, else its start and "open to read it", the
/// folder, hidden characters as escapes, a "Destructive" line), and Allow and Deny where the
/// card's presentation offers them on a push ([`Surface::Push`]: never on a destructive card,
/// one with a hidden character, one whose target does not fit, a question, or a plan), with
/// their labels for the service worker's buttons. Nothing else.
pub fn card_payload(card: &PendingCard) -> Value {
    let shown = Presentation::of(card);
    let notice = vults_notify::card_notice(card);
    let caps = ServerCaps {
        actions: true,
        body_markup: false,
        sound: false,
    };
    let settings = vults_notify::NotifySettings::default();
    let out = compose(&notice, &caps, &settings, true);
    let (title, mut body, allow) = match out {
        Some(o) => (
            o.summary,
            o.body,
            o.offers.iter().any(|x| matches!(x, Offer::Allow(_)))
                && shown.may(Surface::Push, Answer::Allow),
        ),
        None => (
            vults_i18n::tr!(
                "notify-asks",
                agent = &shown.title.agent,
                tool = &shown.title.tool
            ),
            String::new(),
            false,
        ),
    };
    let fits = card.question || allow || card.destructive.is_some();
    if !fits {
        body.push('\n');
        body.push_str(&vults_i18n::tr!("push-open-to-read"));
    }
    json!({
        "v": 1,
        "t": "card",
        "tag": card_tag(card.id),
        "card": card.id,
        "title": title,
        "body": body,
        "actions": if allow { vec!["allow", "deny"] } else { Vec::new() },
        // The buttons' words, in the app's language (sw.js shows them).
        "labels": {
            "allow": vults_i18n::tr!("notify-action-allow"),
            "deny": vults_i18n::tr!("notify-action-deny"),
        },
        "question": card.question,
        "destructive": card.destructive.is_some(),
        "time": vults_engine::clock::now_ms(),
    })
}

/// Opens what [`Gate::seal_push`] sealed (the service worker's side; tests).
pub fn open_push(key: &super::crypto::SealKey, device: &str, sealed: &[u8]) -> Option<Value> {
    let v: Value = serde_json::from_slice(sealed).ok()?;
    let n = super::crypto::unb64_array::<12>(v["n"].as_str()?)?;
    let c = super::crypto::unb64(v["c"].as_str()?)?;
    let plain = key.open(Direction::Push, device, &n, &c)?;
    serde_json::from_slice(&plain).ok()
}
