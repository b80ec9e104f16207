//! The app's one clock helper: wall time as Unix milliseconds, the unit of the audit log,
//! the phone's requests and its pairing tokens.

use std::time::{SystemTime, UNIX_EPOCH};

/// `t` as Unix milliseconds; 0 for a time before 1970 (a clock set wrong).
pub fn unix_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Now, as Unix milliseconds.
pub fn now_ms() -> u64 {
    unix_ms(SystemTime::now())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn unix_ms_counts_from_1970_and_never_goes_below_it() {
        assert_eq!(unix_ms(UNIX_EPOCH), 0);
        assert_eq!(unix_ms(UNIX_EPOCH + Duration::from_micros(1_234_999)), 1234);
        assert_eq!(unix_ms(UNIX_EPOCH - Duration::from_secs(5)), 0);
        let before = unix_ms(SystemTime::now());
        let now = now_ms();
        assert!(before <= now && now <= unix_ms(SystemTime::now()));
    }
}
