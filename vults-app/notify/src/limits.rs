//! Warnings before a plan's usage limit bites — pure, no I/O.
//!
//! Claude Code's status line carries the plan's rate-limit windows (`rate_limits.five_hour`,
//! `rate_limits.seven_day`: how much is used, when it resets); the engine keeps the latest on
//! each session. [`LimitWatch::observe`] is fed every reading and says when a threshold
//! ([`LimitSettings`]: 80 % and 95 % unless set otherwise) is crossed: one [`LimitWarning`] per
//! threshold per window, never again for the same window until it resets (a later
//! `resets_at`, or the use falling back under the first threshold), and then only at the next
//! crossing. A jump over both thresholds at once warns once, at the higher.
//!
//! The warning becomes a notice ([`LimitWarning::notice`], one notification per window,
//! replaced by the next threshold's); the notifier holds it during quiet hours as it holds
//! every notice. [`LimitWarning::words`] are the same words for the phone's push, and
//! [`nearest`] is the island's line.

use std::collections::BTreeMap;

use crate::notice::{Notice, SessionId, What};
pub use crate::settings::LimitSettings;

/// A plan's rate-limit window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Window {
    /// `rate_limits.five_hour`.
    FiveHour,
    /// `rate_limits.seven_day`.
    SevenDay,
}

impl Window {
    /// The window as the bundles' messages select on it (`{ $window -> [five-hour] … }`):
    /// `five-hour`, `seven-day`.
    pub fn key(self) -> &'static str {
        match self {
            Window::FiveHour => "five-hour",
            Window::SevenDay => "seven-day",
        }
    }
}

/// A threshold crossed.
#[derive(Debug, Clone, PartialEq)]
pub struct LimitWarning {
    /// The agent whose plan it is (`Claude Code`).
    pub agent: String,
    /// Which window.
    pub window: Window,
    /// The threshold crossed, in percent.
    pub threshold: u8,
    /// How much is used now, in percent.
    pub used: f64,
    /// When the window resets, Unix seconds.
    pub resets_at: Option<u64>,
}

impl LimitWarning {
    /// The title and the body, as the desktop notification and the phone's push say them:
    /// "Claude Code: 81 % of the 5-hour limit used", "Resets at 14:05."
    pub fn words(&self, tz: &jiff::tz::TimeZone) -> (String, String) {
        let used = self.used.clamp(0.0, 100.0).floor();
        let window = self.window.key();
        let title = vults_i18n::tr!(
            "notify-limit-title",
            agent = &self.agent,
            used = used,
            window = window
        );
        let body = match self.resets_at.and_then(|s| i64::try_from(s).ok()) {
            Some(secs) => match jiff::Timestamp::from_second(secs) {
                Ok(t) => {
                    let z = t.to_zoned_datetime(tz.clone());
                    let now = jiff::Timestamp::now().to_zoned_datetime(tz.clone());
                    if z.date() == now.date() || self.window == Window::FiveHour {
                        vults_i18n::tr!(
                            "notify-limit-resets-at",
                            time = z.strftime("%H:%M").to_string()
                        )
                    } else {
                        // The day as ISO numbers, read alike in every language.
                        vults_i18n::tr!(
                            "notify-limit-resets-on",
                            day = z.strftime("%Y-%m-%d").to_string(),
                            time = z.strftime("%H:%M").to_string()
                        )
                    }
                }
                Err(_) => vults_i18n::tr!("notify-limit-resets-at-end"),
            },
            None => vults_i18n::tr!("notify-limit-resets-at-end"),
        };
        (title, body)
    }

    /// [`LimitWarning::words`] in this computer's time zone.
    pub fn words_local(&self) -> (String, String) {
        self.words(&jiff::tz::TimeZone::system())
    }

    /// The notice the notifier raises: one per window (the 95 % one replaces the 80 % one).
    /// Worded in this computer's time zone.
    pub fn notice(&self) -> (SessionId, Notice) {
        let (title, body) = self.words_local();
        (
            SessionId(format!("vults-limit-{:?}", self.window)),
            Notice {
                agent: self.agent.clone(),
                folder: String::new(),
                what: What::Warning { title, body },
            },
        )
    }
}

#[derive(Debug, Clone, Default)]
struct Seen {
    resets_at: Option<u64>,
    /// The highest threshold warned about in this window.
    warned: Option<u8>,
}

/// Which thresholds each window has crossed, so each warns once per window.
#[derive(Debug, Clone, Default)]
pub struct LimitWatch {
    seen: BTreeMap<Window, Seen>,
}

impl LimitWatch {
    /// A watch that has warned about nothing.
    pub fn new() -> LimitWatch {
        LimitWatch::default()
    }

    /// A reading of `window`: `used` percent, resetting at `resets_at`. Returns the warning to
    /// raise, when a threshold not yet warned about in this window is crossed.
    pub fn observe(
        &mut self,
        agent: &str,
        window: Window,
        used: f64,
        resets_at: Option<u64>,
        settings: &LimitSettings,
    ) -> Option<LimitWarning> {
        let thresholds = settings.thresholds();
        let seen = self.seen.entry(window).or_default();
        let new_window = match (seen.resets_at, resets_at) {
            (Some(before), Some(now)) => now > before,
            _ => false,
        };
        let fell_back = thresholds.first().is_some_and(|&t| used < f64::from(t));
        if new_window || fell_back {
            seen.warned = None;
        }
        if resets_at.is_some() {
            seen.resets_at = resets_at;
        }
        if !settings.enabled || !used.is_finite() {
            return None;
        }
        let crossed = thresholds
            .iter()
            .copied()
            .filter(|&t| used >= f64::from(t))
            .max()?;
        if seen.warned.is_some_and(|w| w >= crossed) {
            return None;
        }
        seen.warned = Some(crossed);
        Some(LimitWarning {
            agent: agent.to_string(),
            window,
            threshold: crossed,
            used,
            resets_at,
        })
    }
}

impl LimitWatch {
    /// Every reading a session carries (the engine keeps the latest of each window on the
    /// session, from Claude Code's status line); the warnings to raise.
    pub fn observe_session(
        &mut self,
        s: &vults_engine::messages::Session,
        settings: &LimitSettings,
    ) -> Vec<LimitWarning> {
        let agent = s
            .identity
            .as_ref()
            .map_or_else(|| "Claude Code".to_string(), |i| i.display_name());
        [
            (Window::FiveHour, s.five_hour),
            (Window::SevenDay, s.seven_day),
        ]
        .into_iter()
        .filter_map(|(w, r)| {
            let r = r?;
            self.observe(&agent, w, r.used_percentage, r.resets_at, settings)
        })
        .collect()
    }
}

/// What the island's line says (`"5 h limit 81 %"`, worded by the window): the window closest
/// to its limit and how much of it is used, in whole percent, when any window is at or over
/// `from` percent; `None` below that, or with no reading.
pub fn nearest(readings: &[(Window, f64)], from: f64) -> Option<(Window, u8)> {
    readings
        .iter()
        .filter(|(_, used)| used.is_finite() && *used >= from)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(w, used)| (*w, percent(*used)))
}

/// A percentage as the island says it: whole, between 0 and 100.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // reason: clamped to 0..=100 first.
fn percent(used: f64) -> u8 {
    used.clamp(0.0, 100.0).floor() as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(w: &mut LimitWatch, used: f64, resets: u64) -> Option<u8> {
        w.observe(
            "Claude Code",
            Window::FiveHour,
            used,
            Some(resets),
            &LimitSettings::default(),
        )
        .map(|x| x.threshold)
    }

    #[test]
    fn each_threshold_warns_once_per_window_and_again_after_a_reset() {
        let mut w = LimitWatch::new();
        assert_eq!(feed(&mut w, 79.0, 1000), None);
        assert_eq!(feed(&mut w, 81.0, 1000), Some(80));
        assert_eq!(feed(&mut w, 85.0, 1000), None);
        assert_eq!(feed(&mut w, 96.0, 1000), Some(95));
        assert_eq!(feed(&mut w, 99.0, 1000), None);
        // The window reset: no warning until the next crossing.
        assert_eq!(feed(&mut w, 3.0, 19000), None);
        assert_eq!(feed(&mut w, 50.0, 19000), None);
        assert_eq!(feed(&mut w, 80.0, 19000), Some(80));
        // A jump over both warns once, at the higher.
        let mut w = LimitWatch::new();
        assert_eq!(feed(&mut w, 97.0, 1000), Some(95));
        assert_eq!(feed(&mut w, 98.0, 1000), None);
        // A later resets_at with the use still high is a new window: it warns again.
        assert_eq!(feed(&mut w, 96.0, 2000), Some(95));
    }

    #[test]
    fn thresholds_can_be_set_and_off_is_off() {
        let s = LimitSettings {
            enabled: true,
            first: 50,
            second: 90,
        };
        let mut w = LimitWatch::new();
        let t = |w: &mut LimitWatch, used| {
            w.observe("c", Window::SevenDay, used, None, &s)
                .map(|x| x.threshold)
        };
        assert_eq!(t(&mut w, 49.0), None);
        assert_eq!(t(&mut w, 51.0), Some(50));
        assert_eq!(t(&mut w, 91.0), Some(90));
        let off = LimitSettings {
            enabled: false,
            ..s
        };
        assert_eq!(
            LimitWatch::new().observe("c", Window::FiveHour, 99.0, None, &off),
            None
        );
        let odd = LimitSettings {
            enabled: true,
            first: 200,
            second: 0,
        };
        assert_eq!(odd.thresholds(), vec![1, 100]);
        let old: LimitSettings = serde_json::from_str(r#"{"first":70}"#).unwrap();
        assert_eq!(old.thresholds(), vec![70, 95]);
    }

    #[test]
    fn the_words_say_how_much_which_window_and_when_it_resets() {
        let w = LimitWarning {
            agent: "Claude Code".into(),
            window: Window::FiveHour,
            threshold: 80,
            used: 81.4,
            resets_at: Some(1_738_425_600),
        };
        let (title, body) = w.words(&jiff::tz::TimeZone::UTC);
        assert_eq!(title, "Claude Code: 81 % of the 5-hour limit used");
        assert_eq!(body, "Resets at 16:00.");
        assert_eq!(
            nearest(&[(Window::FiveHour, 40.0), (Window::SevenDay, 62.5)], 0.0),
            Some((Window::SevenDay, 62))
        );
        assert_eq!(nearest(&[(Window::FiveHour, 40.0)], 50.0), None);
    }
}
