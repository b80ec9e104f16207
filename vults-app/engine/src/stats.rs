//! The engine's counters, for the status bar, benchmarks and tests.

use std::sync::atomic::{AtomicU64, Ordering};

/// Counters the engine keeps, for the status bar, benchmarks and tests.
#[derive(Debug, Default)]
pub struct Stats {
    /// Connections accepted from this user.
    pub accepted: AtomicU64,
    /// Connections refused (another user).
    pub refused: AtomicU64,
    /// Events the core handled (zeca included).
    pub events: AtomicU64,
    /// Events of another protocol version (answered `unsupported`).
    pub unsupported: AtomicU64,
    /// Lines that were not an event (bad JSON, or a message only the app may send).
    pub malformed: AtomicU64,
    /// Lines over the 1 MiB limit.
    pub oversized: AtomicU64,
    /// Sessions in the flock now.
    pub sessions: AtomicU64,
    /// Cards waiting now.
    pub cards: AtomicU64,
    /// Events from the chat's own agents (`zeca: true`): counted, never a session or a card.
    pub zeca: AtomicU64,
}

/// A copy of [`Stats`] at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StatsSnapshot {
    /// See [`Stats::accepted`].
    pub accepted: u64,
    /// See [`Stats::refused`].
    pub refused: u64,
    /// See [`Stats::events`].
    pub events: u64,
    /// See [`Stats::unsupported`].
    pub unsupported: u64,
    /// See [`Stats::malformed`].
    pub malformed: u64,
    /// See [`Stats::oversized`].
    pub oversized: u64,
    /// See [`Stats::sessions`].
    pub sessions: u64,
    /// See [`Stats::cards`].
    pub cards: u64,
    /// See [`Stats::zeca`].
    pub zeca: u64,
}

impl Stats {
    /// Reads every counter at once.
    pub fn snapshot(&self) -> StatsSnapshot {
        let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
        StatsSnapshot {
            accepted: l(&self.accepted),
            refused: l(&self.refused),
            events: l(&self.events),
            unsupported: l(&self.unsupported),
            malformed: l(&self.malformed),
            oversized: l(&self.oversized),
            sessions: l(&self.sessions),
            cards: l(&self.cards),
            zeca: l(&self.zeca),
        }
    }
}
