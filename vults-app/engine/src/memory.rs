//! Giving memory back after a burst (issue 30, BENCHMARKS.md "Soak").
//!
//! The engine keeps nothing per ended session, call or connection (each map's bound is in its
//! own module: the core's cards, `sessions.rs`, the window's `state.rs`), yet with glibc the
//! process's anonymous memory stayed at the burst's high-water mark: 17 MiB after 300
//! sessions with 250 KiB of heap in use (heaptrack). The freed chunks sit in malloc's arenas —
//! one per thread that allocated, and the connection tasks allocate on both runtime threads —
//! between chunks still in use, where the allocator's own trimming (only the top of the main
//! heap, past 128 KiB) never reaches them. `malloc_trim(0)` gives every whole free page of
//! every arena back to the system.
//!
//! `Trimmer` decides when: once after each burst, when a whole [`crate::POLICY_POLL`] tick
//! passed with no input after one that had some, and at most once every [`BUSY_TRIM`] while
//! inputs keep coming (a steady load's freed pages come back too). It costs a walk of the
//! arenas, done on a blocking thread so the core never waits for it. Other platforms' and
//! other C libraries' allocators give pages back themselves: there it does nothing.
//!
//! `VULTS_MALLOC_TRIM=0` turns it off, for bench/soak to measure what it gives back.

use std::time::{Duration, Instant};

/// While busy, trim at most this often.
pub const BUSY_TRIM: Duration = Duration::from_secs(30);

/// Decides, tick by tick, when freed memory is given back.
#[derive(Debug)]
pub(crate) struct Trimmer {
    /// Inputs handled since the last tick.
    inputs: u64,
    /// Inputs handled since the last trim.
    since_trim: u64,
    last_trim: Instant,
}

impl Trimmer {
    pub(crate) fn new(now: Instant) -> Trimmer {
        Trimmer {
            inputs: 0,
            since_trim: 0,
            last_trim: now,
        }
    }

    /// Counts handled inputs.
    pub(crate) fn handled(&mut self, n: u64) {
        self.inputs += n;
        self.since_trim += n;
    }

    /// Called each tick: whether to trim now.
    pub(crate) fn tick(&mut self, now: Instant) -> bool {
        let quiet = self.inputs == 0;
        self.inputs = 0;
        let due = self.since_trim > 0 && (quiet || now.duration_since(self.last_trim) >= BUSY_TRIM);
        if due {
            self.since_trim = 0;
            self.last_trim = now;
        }
        due
    }
}

/// Gives the allocator's free pages back to the system (glibc's `malloc_trim`); `false` where
/// there is nothing to do (another C library, macOS, Windows) or `VULTS_MALLOC_TRIM=0`.
pub fn give_back() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static OFF: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        if *OFF.get_or_init(|| std::env::var_os("VULTS_MALLOC_TRIM").is_some_and(|v| v == "0")) {
            return false;
        }
        // SAFETY: malloc_trim takes no pointers and may be called from any thread at any time.
        unsafe { libc::malloc_trim(0) };
        true
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_once_after_a_burst_and_every_30_s_while_busy() {
        let t0 = Instant::now();
        let mut t = Trimmer::new(t0);
        let s = Duration::from_secs;
        assert!(!t.tick(t0 + s(1)), "nothing happened: nothing to give back");
        t.handled(500);
        assert!(!t.tick(t0 + s(2)), "still busy this tick");
        assert!(t.tick(t0 + s(3)), "a quiet tick after the burst");
        assert!(!t.tick(t0 + s(4)), "once per burst");
        // A steady load: a trim every BUSY_TRIM, never on every tick.
        let mut trims = 0;
        for i in 5..95 {
            t.handled(10);
            trims += usize::from(t.tick(t0 + s(i)));
        }
        assert_eq!(
            trims, 3,
            "90 busy seconds: one trim every 30 s (at 33, 63, 93)"
        );
        assert!(t.tick(t0 + s(95)), "and once more when it goes quiet");
    }

    #[test]
    fn giving_back_is_safe_from_any_thread() {
        let here = give_back();
        let there = std::thread::spawn(give_back).join().unwrap();
        assert_eq!(here, there);
        let off = std::env::var_os("VULTS_MALLOC_TRIM").is_some_and(|v| v == "0");
        assert_eq!(
            here,
            cfg!(all(target_os = "linux", target_env = "gnu")) && !off
        );
    }
}
