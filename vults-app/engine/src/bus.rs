//! The engine publishes: any number of subscribers (the window, the phone link, the notifier,
//! the headless console) each read their own stream of [`EngineEvent`]s, and none relays
//! another's.
//!
//! **The bound.** Events go out on one broadcast ring of [`BUS_BOUND`] shared events
//! (`Arc<EngineEvent>`, so a card is made once however many read it). A subscriber that falls
//! more than [`BUS_BOUND`] events behind loses the oldest of the ones it had not read; the
//! engine never waits for it, and neither does any other subscriber.
//!
//! **What a slow subscriber loses: never a card.** The engine keeps a snapshot of what waits —
//! every pending card, every session, the Always rules and the policy file's state — updated
//! in the same step that publishes (`Bus::publish`). A [`Subscription`] that finds it fell
//! behind takes that snapshot and hands its reader, in place of what it missed, the events that
//! bring it to the present: [`EngineEvent::CardRemoved`] for each card it was told of that is
//! gone (`by` [`AnsweredBy::Other`]`("missed")`: who answered it is not known to it),
//! [`EngineEvent::SessionGone`] for each session gone, [`EngineEvent::Rules`] and
//! [`EngineEvent::Policies`], [`EngineEvent::SessionChanged`] for every session and
//! [`EngineEvent::CardAdded`] for each waiting card it was not told of; then the live stream
//! from just after the snapshot (events numbered up to the snapshot are skipped, so nothing is
//! applied twice or out of order). What it does lose are the passing events of the gap:
//! notices, audit lines ([`EngineEvent::Audited`]; History reads them back from the log),
//! [`EngineEvent::TooLarge`], [`EngineEvent::NamedToolSeen`] and a [`EngineEvent::HistoryPage`]
//! (ask again). [`Subscription::caught_up`] counts how often it happened.
//!
//! A new subscriber starts the same way, from the snapshot: besides what waits it is given the
//! latest [`AUDIT_TAIL`] audit lines and the last [`NOTICE_TAIL`] notices, so a subscriber made
//! after the engine started sees what one made before it would have drawn.
//!
//! A subscriber reads with [`Subscription::try_recv`] (never waits: the window's frame),
//! [`Subscription::blocking_recv`] (a thread of its own) or [`Subscription::recv`] (a task). A
//! wake ([`crate::EngineHandle::subscribe_waking`]) is called after each batch; it must return
//! at once (the window passes `request_repaint`), and one that panics is logged and dropped.

use crate::messages::{AnsweredBy, AuditEntry, CardId, EngineEvent, SessionKey};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::broadcast;

/// How many events the broadcast ring holds: a subscriber further behind than this catches up
/// from the snapshot instead (module docs). At 10,000 hook events a second the engine publishes
/// a few hundred events per batch, so a window drawing at 60 frames a second never falls this
/// far behind; a hidden or stalled one does, and loses nothing that waits.
pub const BUS_BOUND: usize = 1024;

/// How many of the latest audit lines a new subscriber is given (History's first page).
pub const AUDIT_TAIL: usize = crate::audit::TAIL_LINES;

/// How many of the latest notices a new subscriber is given.
pub const NOTICE_TAIL: usize = 8;

/// What the engine has published, numbered: the number is what a catching-up subscriber skips by.
#[derive(Debug, Clone)]
struct Published {
    seq: u64,
    event: Arc<EngineEvent>,
}

/// What waits now, as the published events said it: the catch-up's source.
#[derive(Default)]
struct Mirror {
    /// Where events go out; `None` once the engine has stopped ([`Bus::close`]).
    tx: Option<broadcast::Sender<Published>>,
    /// The number of the last event published.
    seq: u64,
    /// Each waiting card's `CardAdded`.
    cards: BTreeMap<CardId, Arc<EngineEvent>>,
    /// Each session's latest `SessionChanged`.
    sessions: BTreeMap<SessionKey, Arc<EngineEvent>>,
    rules: Option<Arc<EngineEvent>>,
    policies: Option<Arc<EngineEvent>>,
    audit: VecDeque<AuditEntry>,
    notices: VecDeque<crate::messages::Notice>,
}

impl Mirror {
    fn apply(&mut self, event: &Arc<EngineEvent>) {
        match &**event {
            EngineEvent::CardAdded(card) => {
                self.cards.insert(card.id, event.clone());
            }
            EngineEvent::CardRemoved { id, .. } => {
                self.cards.remove(id);
            }
            // The key is cloned only for a session new to the snapshot.
            EngineEvent::SessionChanged(s) => match self.sessions.get_mut(&s.key) {
                Some(latest) => *latest = event.clone(),
                None => {
                    self.sessions.insert(s.key.clone(), event.clone());
                }
            },
            EngineEvent::SessionGone(key) => {
                self.sessions.remove(key);
            }
            EngineEvent::Rules(_) => self.rules = Some(event.clone()),
            EngineEvent::Policies(_) => self.policies = Some(event.clone()),
            EngineEvent::Audited(lines) => {
                self.audit.extend(lines.iter().cloned());
                let over = self.audit.len().saturating_sub(AUDIT_TAIL);
                self.audit.drain(..over);
            }
            EngineEvent::Notice(text) => {
                self.notices.push_back(text.clone());
                if self.notices.len() > NOTICE_TAIL {
                    self.notices.pop_front();
                }
            }
            EngineEvent::NamedToolSeen(_)
            | EngineEvent::TooLarge(_)
            | EngineEvent::HistoryPage(_) => {}
        }
    }
}

type Wake = Arc<dyn Fn() + Send + Sync>;

/// The engine's publishing side, shared by the core (which publishes) and every subscription.
pub(crate) struct Bus {
    mirror: Mutex<Mirror>,
    wakes: Mutex<Vec<(u64, Wake)>>,
    next_wake: std::sync::atomic::AtomicU64,
}

impl Bus {
    pub(crate) fn new() -> Arc<Bus> {
        Arc::new(Bus {
            mirror: Mutex::new(Mirror {
                tx: Some(broadcast::channel(BUS_BOUND).0),
                ..Mirror::default()
            }),
            wakes: Mutex::default(),
            next_wake: Default::default(),
        })
    }

    fn mirror(&self) -> MutexGuard<'_, Mirror> {
        self.mirror.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Publishes a batch: each event is numbered, kept in the snapshot and sent, under one lock
    /// so that a snapshot is always exactly "everything up to event N". Then every wake is called.
    /// Never waits for a subscriber.
    pub(crate) fn publish(&self, events: impl IntoIterator<Item = Arc<EngineEvent>>) -> bool {
        let mut sent = false;
        {
            let mut mirror = self.mirror();
            for event in events {
                mirror.seq += 1;
                mirror.apply(&event);
                // No subscriber: nothing to send (the snapshot has it for the next one).
                if let Some(tx) = &mirror.tx {
                    let _ = tx.send(Published {
                        seq: mirror.seq,
                        event,
                    });
                }
                sent = true;
            }
        }
        if sent {
            let wakes: Vec<Wake> = self
                .wakes
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .map(|(_, w)| w.clone())
                .collect();
            for wake in wakes {
                if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| wake())).is_err() {
                    tracing::warn!("a subscriber's wake panicked");
                }
            }
        }
        sent
    }

    /// The engine has stopped: every subscriber reads what is left, then hears the end.
    pub(crate) fn close(&self) {
        self.mirror().tx = None;
    }

    /// A new subscription, starting from the snapshot of now.
    pub(crate) fn subscribe(self: &Arc<Bus>, wake: Option<Wake>) -> Subscription {
        let wake_id = wake.map(|w| {
            let id = self
                .next_wake
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.wakes
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((id, w));
            id
        });
        let mirror = self.mirror();
        // After the engine stopped: a receiver whose sender is gone reads the snapshot, then
        // the end.
        let rx = match &mirror.tx {
            Some(tx) => tx.subscribe(),
            None => broadcast::channel(1).1,
        };
        Subscription {
            rx,
            bus: self.clone(),
            wake_id,
            pending: VecDeque::new(),
            skip_to: mirror.seq,
            cards: BTreeSet::new(),
            sessions: BTreeSet::new(),
            caught_up: 0,
        }
        .starting_from(&mirror)
    }
}

/// One subscriber's own stream of the engine's events (module docs: the bound, and what one
/// that falls behind loses). Dropping it unsubscribes.
pub struct Subscription {
    rx: broadcast::Receiver<Published>,
    bus: Arc<Bus>,
    wake_id: Option<u64>,
    /// Catch-up events, handed out before the live stream.
    pending: VecDeque<Arc<EngineEvent>>,
    /// Live events numbered up to this are already in the catch-up.
    skip_to: u64,
    /// The cards and sessions this subscriber has been told of: what a catch-up must take back.
    cards: BTreeSet<CardId>,
    sessions: BTreeSet<SessionKey>,
    caught_up: u64,
}

/// Why [`Subscription::try_recv`] gave no event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TryRecvError {
    /// Nothing new now.
    Empty,
    /// The engine has stopped and everything it published was read.
    Closed,
}

impl Subscription {
    /// The next event, without waiting.
    pub fn try_recv(&mut self) -> Result<Arc<EngineEvent>, TryRecvError> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Ok(self.told(event));
            }
            match self.rx.try_recv() {
                Ok(p) if p.seq <= self.skip_to => continue,
                Ok(p) => return Ok(self.told(p.event)),
                Err(broadcast::error::TryRecvError::Lagged(_)) => self.catch_up(),
                Err(broadcast::error::TryRecvError::Empty) => return Err(TryRecvError::Empty),
                Err(broadcast::error::TryRecvError::Closed) => return Err(TryRecvError::Closed),
            }
        }
    }

    /// The next event, waiting for it on this thread; `None` once the engine has stopped and
    /// everything it published was read. Not from inside a tokio task (use [`Self::recv`]).
    pub fn blocking_recv(&mut self) -> Option<Arc<EngineEvent>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some(self.told(event));
            }
            match self.rx.blocking_recv() {
                Ok(p) if p.seq <= self.skip_to => continue,
                Ok(p) => return Some(self.told(p.event)),
                Err(broadcast::error::RecvError::Lagged(_)) => self.catch_up(),
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }

    /// The next event, for a task; `None` once the engine has stopped and everything it
    /// published was read.
    pub async fn recv(&mut self) -> Option<Arc<EngineEvent>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some(self.told(event));
            }
            match self.rx.recv().await {
                Ok(p) if p.seq <= self.skip_to => continue,
                Ok(p) => return Some(self.told(p.event)),
                Err(broadcast::error::RecvError::Lagged(_)) => self.catch_up(),
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }

    /// How many times this subscriber fell more than [`BUS_BOUND`] events behind and caught up
    /// from the snapshot.
    pub fn caught_up(&self) -> u64 {
        self.caught_up
    }

    /// Notes what the reader is told, so that a later catch-up knows what to take back.
    fn told(&mut self, event: Arc<EngineEvent>) -> Arc<EngineEvent> {
        match &*event {
            EngineEvent::CardAdded(card) => {
                self.cards.insert(card.id);
            }
            EngineEvent::CardRemoved { id, .. } => {
                self.cards.remove(id);
            }
            EngineEvent::SessionChanged(s) if !self.sessions.contains(&s.key) => {
                self.sessions.insert(s.key.clone());
            }
            EngineEvent::SessionGone(key) => {
                self.sessions.remove(key);
            }
            _ => {}
        }
        event
    }

    /// Fell behind: what it missed is replaced by the events that bring it to the snapshot.
    fn catch_up(&mut self) {
        let bus = self.bus.clone();
        let mirror = bus.mirror();
        self.caught_up += 1;
        tracing::info!(
            "an engine subscriber fell more than {BUS_BOUND} events behind; it catches up from \
             the snapshot"
        );
        self.pending.clear();
        let gone_cards: Vec<CardId> = self
            .cards
            .iter()
            .filter(|id| !mirror.cards.contains_key(id))
            .copied()
            .collect();
        for id in gone_cards {
            self.pending.push_back(Arc::new(EngineEvent::CardRemoved {
                id,
                by: AnsweredBy::Other("missed".into()),
            }));
        }
        let gone_sessions: Vec<SessionKey> = self
            .sessions
            .iter()
            .filter(|k| !mirror.sessions.contains_key(*k))
            .cloned()
            .collect();
        for key in gone_sessions {
            self.pending
                .push_back(Arc::new(EngineEvent::SessionGone(key)));
        }
        self.pending.extend(mirror.rules.iter().cloned());
        self.pending.extend(mirror.policies.iter().cloned());
        self.pending.extend(mirror.sessions.values().cloned());
        let new_cards = mirror
            .cards
            .iter()
            .filter(|(id, _)| !self.cards.contains(id))
            .map(|(_, e)| e.clone());
        self.pending.extend(new_cards);
        self.skip_to = mirror.seq;
    }

    /// A new subscriber's first events: the catch-up, plus the audit tail and the last notices.
    fn starting_from(mut self, mirror: &Mirror) -> Subscription {
        self.pending.extend(mirror.rules.iter().cloned());
        self.pending.extend(mirror.policies.iter().cloned());
        self.pending.extend(
            mirror
                .notices
                .iter()
                .map(|n| Arc::new(EngineEvent::Notice(n.clone()))),
        );
        if !mirror.audit.is_empty() {
            self.pending.push_back(Arc::new(EngineEvent::Audited(
                mirror.audit.iter().cloned().collect(),
            )));
        }
        self.pending.extend(mirror.sessions.values().cloned());
        self.pending.extend(mirror.cards.values().cloned());
        self.skip_to = mirror.seq;
        self
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(id) = self.wake_id {
            self.bus
                .wakes
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .retain(|(w, _)| *w != id);
        }
    }
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("pending", &self.pending.len())
            .field("caught_up", &self.caught_up)
            .finish()
    }
}
