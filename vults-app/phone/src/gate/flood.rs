//! The flood budgets for refusals: what the audit writes of a flood of refused requests, per
//! source address (or broker topic) and in bursts for the unauthenticated, per device for the
//! authenticated, and one summary line for what each budget dropped.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use vults_engine::messages::AnsweredBy;

/// Unauthenticated refusals: at most one audit line per source address in this long…
pub const SOURCE_INTERVAL_MS: u64 = 10_000;
/// …and at most this many lines in a burst, all sources together…
pub const ANON_BURST: f64 = 10.0;
/// …refilled by one line per this long (10 a minute).
pub const ANON_REFILL_MS: u64 = 6_000;
/// Refusals the budget dropped are counted in one summary line at most this often (and when
/// the link stops).
pub const SUMMARY_INTERVAL_MS: u64 = 60_000;
/// Source addresses remembered for the per-address interval; past it, new addresses are
/// dropped (and counted) until old ones age out.
const MAX_SOURCES: usize = 4096;
/// Refusals of authenticated requests (a replayed frame still opens and verifies: "nonce
/// already used", "time outside ±60 s"), per device: at most this many lines in a burst…
pub const DEVICE_BURST: f64 = 20.0;
/// …refilled by one line per this long (10 a minute); the rest are counted in one summary line
/// per device ([`SUMMARY_INTERVAL_MS`], and when a link stops).
pub const DEVICE_REFILL_MS: u64 = 6_000;

/// Where a request came from, as far as the app can vouch for it: a LAN address, or the
/// broker topic it arrived on (the broker hides the sender's address).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Source {
    /// A LAN address.
    Ip(IpAddr),
    /// The topic id (32 hex digits) of the broker topic the request arrived on.
    Broker(String),
}

impl From<IpAddr> for Source {
    fn from(ip: IpAddr) -> Source {
        Source::Ip(ip)
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Ip(ip) => write!(f, "{ip}"),
            // The first 8 hex digits tell topics apart in the audit without spelling them out.
            Source::Broker(topic) => {
                write!(f, "the broker, topic {}…", topic.get(..8).unwrap_or(topic))
            }
        }
    }
}

/// The flood budget for refusals of requests that are not authenticated.
pub(super) struct Flood {
    last_by_source: HashMap<Source, u64>,
    tokens: f64,
    refilled_at: u64,
    dropped: u64,
    /// When the first refusal not written since the last summary came.
    dropped_since: Option<u64>,
}

impl Flood {
    pub(super) fn new(now_ms: u64) -> Flood {
        Flood {
            last_by_source: HashMap::new(),
            tokens: ANON_BURST,
            refilled_at: now_ms,
            dropped: 0,
            dropped_since: None,
        }
    }

    /// Whether a refusal from `from` may be audited now; counts it as dropped if not.
    pub(super) fn admit(&mut self, from: &Source, now_ms: u64) -> bool {
        let elapsed = now_ms.saturating_sub(self.refilled_at) as f64;
        self.tokens = (self.tokens + elapsed / ANON_REFILL_MS as f64).min(ANON_BURST);
        self.refilled_at = self.refilled_at.max(now_ms);
        if self.last_by_source.len() >= MAX_SOURCES {
            self.last_by_source
                .retain(|_, t| now_ms.saturating_sub(*t) < SOURCE_INTERVAL_MS);
        }
        let source_ok = match self.last_by_source.get(from) {
            Some(t) => now_ms.saturating_sub(*t) >= SOURCE_INTERVAL_MS,
            None => self.last_by_source.len() < MAX_SOURCES,
        };
        if !source_ok || self.tokens < 1.0 {
            self.dropped += 1;
            self.dropped_since.get_or_insert(now_ms);
            return false;
        }
        self.tokens -= 1.0;
        self.last_by_source.insert(from.clone(), now_ms);
        true
    }

    /// The dropped count and since when, once [`SUMMARY_INTERVAL_MS`] has passed since the
    /// first of them (or now, `force`).
    pub(super) fn summary(&mut self, now_ms: u64, force: bool) -> Option<(u64, u64)> {
        let since = self.dropped_since?;
        if !force && now_ms.saturating_sub(since) < SUMMARY_INTERVAL_MS {
            return None;
        }
        let out = (self.dropped, since);
        self.dropped = 0;
        self.dropped_since = None;
        Some(out)
    }
}

/// The budget for refusals of authenticated requests, one bucket per device: a broker that
/// replays one captured frame gets a refusal each time, and without this every one was an
/// audit line (5 a second per topic), so the audit's rotation dropped the real history.
#[derive(Default)]
pub(super) struct DeviceFlood {
    buckets: HashMap<String, (f64, u64)>,
    /// Per device: (its label, dropped count by check, since when).
    dropped: BTreeMap<String, (AnsweredBy, BTreeMap<&'static str, u64>, u64)>,
}

impl DeviceFlood {
    pub(super) fn admit(
        &mut self,
        device: &str,
        by: &AnsweredBy,
        check: &'static str,
        now_ms: u64,
    ) -> bool {
        if self.buckets.len() > MAX_SOURCES {
            self.buckets.retain(|_, (t, at)| {
                *t < DEVICE_BURST || now_ms.saturating_sub(*at) < SUMMARY_INTERVAL_MS
            });
        }
        let (tokens, at) = self
            .buckets
            .entry(device.to_string())
            .or_insert((DEVICE_BURST, now_ms));
        let refill = now_ms.saturating_sub(*at) as f64 / DEVICE_REFILL_MS as f64;
        *tokens = (*tokens + refill).min(DEVICE_BURST);
        *at = (*at).max(now_ms);
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            return true;
        }
        let slot = self
            .dropped
            .entry(device.to_string())
            .or_insert_with(|| (by.clone(), BTreeMap::new(), now_ms));
        *slot.1.entry(check).or_default() += 1;
        false
    }

    /// The devices whose dropped refusals are due a summary line (all of them with `force`).
    pub(super) fn due(
        &mut self,
        now_ms: u64,
        force: bool,
    ) -> Vec<(String, AnsweredBy, BTreeMap<&'static str, u64>, u64)> {
        let due: Vec<String> = self
            .dropped
            .iter()
            .filter(|(_, (_, _, since))| {
                force || now_ms.saturating_sub(*since) >= SUMMARY_INTERVAL_MS
            })
            .map(|(d, _)| d.clone())
            .collect();
        due.into_iter()
            .filter_map(|d| {
                let (by, counts, since) = self.dropped.remove(&d)?;
                Some((d, by, counts, since))
            })
            .collect()
    }
}
