//! Quiet hours and do not disturb: whether Vults keeps still right now — pure, no I/O.
//!
//! Quiet is a switch ([`QuietSettings::on`]), a weekly [`Schedule`] in local time, and the
//! desktop's own do-not-disturb when it can be read ([`QuietSettings::follow_desktop`]). While
//! quiet: no notification, no sound, and [`QuietNow::quiet`] for the island to stay still.
//! Cards still come, the phone still gets them, rules and policies still answer.
//!
//! Quiet never answers anything: this module knows no card, no answer and no key — it returns a
//! [`QuietNow`] and nothing else (a test of the crate checks it names none of them).
//!
//! Local time is [`jiff::ZonedDateTime`] in the system's time zone. A window belongs to the day it
//! starts on ("Mon–Fri 22:00–07:00" is quiet from Friday 22:00 to Saturday 07:00) and is fixed
//! as two instants, so a DST change moves neither end: a start that falls in a spring-forward
//! gap begins when the clock is past it, an end in a fall-back hour ends at its first pass.

use jiff::ZonedDateTime;
use jiff::civil::{Date, Time, Weekday};
use jiff::tz::TimeZone;
use serde::{Deserialize, Serialize};

/// The quiet-hours settings: all off by default, but following the desktop's own DND.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct QuietSettings {
    /// Do not disturb, now, until switched off (the tray's and Settings' switch).
    pub on: bool,
    /// The weekly quiet hours.
    pub schedule: Schedule,
    /// Quiet too while the desktop's own do-not-disturb is on, where it can be read.
    pub follow_desktop: bool,
}

impl Default for QuietSettings {
    fn default() -> QuietSettings {
        QuietSettings {
            on: false,
            schedule: Schedule::default(),
            follow_desktop: true,
        }
    }
}

/// Weekly quiet hours: from `from` to `to` on each of `days`, in local time. `to` at or before
/// `from` runs past midnight into the next day; `to == from` is a whole day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Schedule {
    /// Whether the schedule applies (off by default).
    pub enabled: bool,
    /// The days a quiet window starts on.
    pub days: Vec<Day>,
    /// When it starts, local time.
    pub from: ClockTime,
    /// When it ends, local time.
    pub to: ClockTime,
}

impl Default for Schedule {
    fn default() -> Schedule {
        Schedule {
            enabled: false,
            days: Day::ALL.to_vec(),
            from: ClockTime::new(22, 0).expect("22:00"),
            to: ClockTime::new(7, 0).expect("07:00"),
        }
    }
}

/// A day of the week, written `mon` … `sun`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum Day {
    Mon,
    Tue,
    Wed,
    Thu,
    Fri,
    Sat,
    Sun,
}

impl Day {
    /// Monday to Sunday.
    pub const ALL: [Day; 7] = [
        Day::Mon,
        Day::Tue,
        Day::Wed,
        Day::Thu,
        Day::Fri,
        Day::Sat,
        Day::Sun,
    ];

    fn of(w: Weekday) -> Day {
        match w {
            Weekday::Monday => Day::Mon,
            Weekday::Tuesday => Day::Tue,
            Weekday::Wednesday => Day::Wed,
            Weekday::Thursday => Day::Thu,
            Weekday::Friday => Day::Fri,
            Weekday::Saturday => Day::Sat,
            Weekday::Sunday => Day::Sun,
        }
    }
}

/// A wall-clock time to the minute, written `HH:MM` (24-hour).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClockTime {
    hour: u8,
    minute: u8,
}

impl ClockTime {
    /// `hour:minute`; `None` outside 00:00–23:59.
    pub fn new(hour: u8, minute: u8) -> Option<ClockTime> {
        (hour < 24 && minute < 60).then_some(ClockTime { hour, minute })
    }

    /// The hour, 0–23.
    pub fn hour(self) -> u8 {
        self.hour
    }

    /// The minute, 0–59.
    pub fn minute(self) -> u8 {
        self.minute
    }

    fn time(self) -> Time {
        Time::constant(self.hour as i8, self.minute as i8, 0, 0)
    }
}

impl std::fmt::Display for ClockTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:02}:{:02}", self.hour, self.minute)
    }
}

/// A time of day as typed that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a time of day as HH:MM (00:00 to 23:59)")]
pub struct ClockTimeError(pub String);

impl std::str::FromStr for ClockTime {
    type Err = ClockTimeError;
    fn from_str(s: &str) -> Result<ClockTime, ClockTimeError> {
        let bad = || ClockTimeError(s.to_string());
        let (h, m) = s.trim().split_once(':').ok_or_else(bad)?;
        let digits =
            |t: &str| !t.is_empty() && t.len() <= 2 && t.bytes().all(|b| b.is_ascii_digit());
        if !digits(h) || m.len() != 2 || !digits(m) {
            return Err(bad());
        }
        ClockTime::new(h.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?).ok_or_else(bad)
    }
}

impl Serialize for ClockTime {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ClockTime {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ClockTime, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Whether Vults keeps still now, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuietNow {
    /// No notification, no sound, the island still.
    pub quiet: bool,
    /// Why, when quiet.
    pub why: Option<QuietWhy>,
}

impl QuietNow {
    /// Not quiet.
    pub const AWAKE: QuietNow = QuietNow {
        quiet: false,
        why: None,
    };
}

impl QuietNow {
    /// In words, for Settings and the tray: "Quiet now: do not disturb is on", "Quiet now: quiet
    /// hours until 07:00", "Quiet now: the desktop's do not disturb", or "Not quiet now".
    pub fn words(&self) -> String {
        match &self.why {
            None => "Not quiet now".into(),
            Some(QuietWhy::Switch) => "Quiet now: do not disturb is on".into(),
            Some(QuietWhy::Schedule { until }) => {
                format!("Quiet now: quiet hours until {}", until.strftime("%H:%M"))
            }
            Some(QuietWhy::Desktop) => "Quiet now: the desktop's do not disturb is on".into(),
        }
    }
}

/// What made it quiet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuietWhy {
    /// The do-not-disturb switch.
    Switch,
    /// The quiet hours, until then.
    Schedule {
        /// When this window ends.
        until: ZonedDateTime,
    },
    /// The desktop's own do-not-disturb.
    Desktop,
}

/// Whether it is quiet at `now`. `desktop` is the desktop's do-not-disturb as last read
/// (`None`: it cannot be read here).
pub fn quiet_now(settings: &QuietSettings, now: &ZonedDateTime, desktop: Option<bool>) -> QuietNow {
    let why = if settings.on {
        Some(QuietWhy::Switch)
    } else if let Some((_, until)) = settings.schedule.window_containing(now) {
        Some(QuietWhy::Schedule { until })
    } else if settings.follow_desktop && desktop == Some(true) {
        Some(QuietWhy::Desktop)
    } else {
        None
    };
    QuietNow {
        quiet: why.is_some(),
        why,
    }
}

impl Schedule {
    /// The quiet window `now` is in: its start and end. `None` when the schedule is off or
    /// `now` is outside every window.
    pub fn window_containing(&self, now: &ZonedDateTime) -> Option<(ZonedDateTime, ZonedDateTime)> {
        if !self.enabled {
            return None;
        }
        let today = now.date();
        // A window started today, or yesterday and running past midnight.
        [today.yesterday().ok(), Some(today)]
            .into_iter()
            .flatten()
            .filter_map(|d| self.window_on(d, now.time_zone()))
            .find(|(start, end)| start <= now && now < end)
    }

    /// When quiet next starts or ends after `now`: the end of the window `now` is in, else the
    /// next start within a week. `None` when the schedule is off or has no days.
    pub fn next_change(&self, now: &ZonedDateTime) -> Option<ZonedDateTime> {
        if let Some((_, end)) = self.window_containing(now) {
            return Some(end);
        }
        if !self.enabled {
            return None;
        }
        let mut day = now.date();
        for _ in 0..8 {
            if let Some((start, _)) = self.window_on(day, now.time_zone())
                && start > *now
            {
                return Some(start);
            }
            day = day.tomorrow().ok()?;
        }
        None
    }

    /// The window that starts on `date`, when `date` is one of the days: from the first
    /// instant its start time is on the clock, to the first instant its end time is.
    fn window_on(&self, date: Date, tz: &TimeZone) -> Option<(ZonedDateTime, ZonedDateTime)> {
        if !self.days.contains(&Day::of(date.weekday())) {
            return None;
        }
        let start = date
            .to_datetime(self.from.time())
            .to_zoned_datetime(tz.clone())
            .ok()?;
        let end_date = if self.to > self.from {
            date
        } else {
            date.tomorrow().ok()?
        };
        let end = end_date
            .to_datetime(self.to.time())
            .to_zoned_datetime(tz.clone())
            .ok()?;
        (start < end).then_some((start, end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Central European time with its DST rules, without the system's tz database.
    fn cet() -> TimeZone {
        TimeZone::posix("CET-1CEST,M3.5.0,M10.5.0/3").unwrap()
    }

    fn at(tz: &TimeZone, s: &str) -> ZonedDateTime {
        s.parse::<jiff::civil::DateTime>()
            .unwrap()
            .to_zoned_datetime(tz.clone())
            .unwrap()
    }

    fn schedule(days: &[Day], from: &str, to: &str) -> Schedule {
        Schedule {
            enabled: true,
            days: days.to_vec(),
            from: from.parse().unwrap(),
            to: to.parse().unwrap(),
        }
    }

    fn quiet_at(s: &Schedule, tz: &TimeZone, when: &str) -> bool {
        s.window_containing(&at(tz, when)).is_some()
    }

    #[test]
    fn a_window_across_midnight_belongs_to_the_day_it_starts() {
        let tz = TimeZone::UTC;
        // 2026-03-06 is a Friday.
        let s = schedule(
            &[Day::Mon, Day::Tue, Day::Wed, Day::Thu, Day::Fri],
            "22:00",
            "07:00",
        );
        assert!(!quiet_at(&s, &tz, "2026-03-06T21:59"));
        assert!(quiet_at(&s, &tz, "2026-03-06T22:00"));
        assert!(
            quiet_at(&s, &tz, "2026-03-07T03:00"),
            "Friday night runs into Saturday"
        );
        assert!(quiet_at(&s, &tz, "2026-03-07T06:59"));
        assert!(
            !quiet_at(&s, &tz, "2026-03-07T07:00"),
            "the end is not quiet"
        );
        assert!(
            !quiet_at(&s, &tz, "2026-03-07T23:00"),
            "Saturday night is not a day"
        );
        assert!(!quiet_at(&s, &tz, "2026-03-09T03:00"), "nor Sunday night");
        assert!(quiet_at(&s, &tz, "2026-03-09T23:30"), "Monday night is");
    }

    #[test]
    fn a_window_within_a_day_and_a_whole_day() {
        let tz = TimeZone::UTC;
        let lunch = schedule(&Day::ALL, "12:30", "13:15");
        assert!(!quiet_at(&lunch, &tz, "2026-06-01T12:29"));
        assert!(quiet_at(&lunch, &tz, "2026-06-01T12:30"));
        assert!(quiet_at(&lunch, &tz, "2026-06-01T13:14"));
        assert!(!quiet_at(&lunch, &tz, "2026-06-01T13:15"));
        assert!(!quiet_at(&lunch, &tz, "2026-06-01T00:00"));
        // 2026-06-06 is a Saturday.
        let weekend = schedule(&[Day::Sat, Day::Sun], "00:00", "00:00");
        assert!(!quiet_at(&weekend, &tz, "2026-06-05T23:59"));
        assert!(quiet_at(&weekend, &tz, "2026-06-06T00:00"));
        assert!(quiet_at(&weekend, &tz, "2026-06-07T23:59"));
        assert!(!quiet_at(&weekend, &tz, "2026-06-08T00:00"));
    }

    #[test]
    fn no_days_or_switched_off_is_never_quiet() {
        let tz = TimeZone::UTC;
        let none = schedule(&[], "00:00", "00:00");
        assert!(!quiet_at(&none, &tz, "2026-06-01T10:00"));
        assert_eq!(none.next_change(&at(&tz, "2026-06-01T10:00")), None);
        let mut off = schedule(&Day::ALL, "00:00", "00:00");
        off.enabled = false;
        assert!(!quiet_at(&off, &tz, "2026-06-01T10:00"));
        assert_eq!(off.next_change(&at(&tz, "2026-06-01T10:00")), None);
    }

    #[test]
    fn daylight_saving_changes_move_neither_end() {
        let tz = cet();
        // 2026-03-29: clocks go 02:00 → 03:00. A night window 22:00–07:00 lasts 8 real hours.
        let night = schedule(&Day::ALL, "22:00", "07:00");
        let (start, end) = night
            .window_containing(&at(&tz, "2026-03-29T02:30"))
            .expect("02:30 does not exist; the instant it names is inside the window");
        assert_eq!(start.datetime().to_string(), "2026-03-28T22:00:00");
        assert_eq!(start.offset().seconds(), 3600);
        assert_eq!(end.datetime().to_string(), "2026-03-29T07:00:00");
        assert_eq!(
            end.timestamp().as_second() - start.timestamp().as_second(),
            8 * 3600
        );
        // A window starting inside the gap starts once the clock is past it.
        let gap = schedule(&[Day::Sun], "02:30", "05:00");
        assert!(!quiet_at(&gap, &tz, "2026-03-29T01:59"));
        assert!(quiet_at(&gap, &tz, "2026-03-29T03:31"));
        assert!(!quiet_at(&gap, &tz, "2026-03-29T05:00"));
        // 2026-10-25: clocks go 03:00 → 02:00; the night lasts 10 real hours, ending once.
        let (start, end) = night
            .window_containing(&at(&tz, "2026-10-25T05:00"))
            .unwrap();
        assert_eq!(
            end.timestamp().as_second() - start.timestamp().as_second(),
            10 * 3600
        );
        // An end inside the repeated hour ends at its first pass, and it is not quiet again in
        // the second pass.
        let early = schedule(&[Day::Sat], "23:00", "02:30");
        let first_pass = at(&tz, "2026-10-25T02:30"); // compatible: the earlier 02:30 (+02:00)
        assert_eq!(first_pass.offset().seconds(), 7200);
        assert!(early.window_containing(&first_pass).is_none());
        let second_pass = first_pass
            .checked_add(jiff::SignedDuration::from_mins(50))
            .unwrap();
        assert_eq!(second_pass.datetime().to_string(), "2026-10-25T02:20:00");
        assert!(early.window_containing(&second_pass).is_none());
        let before = first_pass
            .checked_sub(jiff::SignedDuration::from_mins(1))
            .unwrap();
        assert!(early.window_containing(&before).is_some());
    }

    #[test]
    fn next_change_is_the_end_inside_and_the_next_start_outside() {
        let tz = TimeZone::UTC;
        // 2026-03-04 is a Wednesday.
        let s = schedule(&[Day::Fri], "22:00", "07:00");
        let wed = at(&tz, "2026-03-04T12:00");
        assert_eq!(
            s.next_change(&wed).unwrap().datetime().to_string(),
            "2026-03-06T22:00:00"
        );
        let fri_night = at(&tz, "2026-03-06T23:00");
        assert_eq!(
            s.next_change(&fri_night).unwrap().datetime().to_string(),
            "2026-03-07T07:00:00"
        );
        let sat = at(&tz, "2026-03-07T08:00");
        assert_eq!(
            s.next_change(&sat).unwrap().datetime().to_string(),
            "2026-03-13T22:00:00"
        );
    }

    #[test]
    fn the_switch_beats_the_schedule_which_beats_the_desktop() {
        let tz = TimeZone::UTC;
        let noon = at(&tz, "2026-06-01T12:00");
        let mut s = QuietSettings::default();
        assert_eq!(quiet_now(&s, &noon, None), QuietNow::AWAKE);
        assert_eq!(
            quiet_now(&s, &noon, Some(true)).why,
            Some(QuietWhy::Desktop)
        );
        s.follow_desktop = false;
        assert_eq!(quiet_now(&s, &noon, Some(true)), QuietNow::AWAKE);
        s.schedule = schedule(&Day::ALL, "11:00", "13:00");
        let q = quiet_now(&s, &noon, Some(true));
        assert!(q.quiet);
        assert!(
            matches!(&q.why, Some(QuietWhy::Schedule { until }) if until.datetime().to_string() == "2026-06-01T13:00:00")
        );
        s.on = true;
        assert_eq!(quiet_now(&s, &noon, None).why, Some(QuietWhy::Switch));
    }

    #[test]
    fn times_and_days_read_and_write_as_text() {
        assert_eq!("7:05".parse::<ClockTime>().unwrap().to_string(), "07:05");
        for bad in [
            "24:00", "12:60", "12", "12:5", "-1:00", "ab:cd", "12:00:00", "",
        ] {
            assert!(bad.parse::<ClockTime>().is_err(), "{bad}");
        }
        let s = schedule(&[Day::Mon, Day::Sun], "22:00", "07:30");
        let text = serde_json::to_string(&s).unwrap();
        assert_eq!(
            text,
            r#"{"enabled":true,"days":["mon","sun"],"from":"22:00","to":"07:30"}"#
        );
        assert_eq!(serde_json::from_str::<Schedule>(&text).unwrap(), s);
        assert!(serde_json::from_str::<Schedule>(r#"{"from":"25:00"}"#).is_err());
        let d: QuietSettings = serde_json::from_str("{}").unwrap();
        assert_eq!(d, QuietSettings::default());
        assert!(d.follow_desktop && !d.on && !d.schedule.enabled);
    }

    #[test]
    fn the_system_time_zone_is_readable_here() {
        // The platform's local time without a C library (jiff reads the tz database).
        let now = ZonedDateTime::now();
        assert!(quiet_now(&QuietSettings::default(), &now, None) == QuietNow::AWAKE);
    }
}
