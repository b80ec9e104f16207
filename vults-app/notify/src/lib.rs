//! The notifications crate (named `attention` in code; "Notifications" wherever a person reads
//! it: the Settings tab, the docs): getting a waiting agent to the person, and leaving the
//! person alone when asked — desktop notifications that say what and where, quiet hours, and
//! keys that work from anywhere.
//!
//! This crate raises nothing and answers nothing by itself. The app tells it what waits; it
//! tells the app what the person did, as typed events the app carries out through its usual
//! answer path (a notification's Allow is a click on the card's Allow, checked the same way).
//!
//! Start from:
//!
//! - [`Notifier`] ([`notify`]): one desktop notification per session — [`Notifier::show`] with
//!   a [`Notice`] (a card waiting, a finished turn, an agent asking in its terminal, a
//!   question), replaced when it changes, withdrawn with [`Notifier::withdraw`] when answered
//!   anywhere. "Show" where the desktop has actions; "Allow"/"Deny" only for a non-destructive
//!   card whose whole target is in the body. Actions come back as [`NotifierEvent::Action`].
//!   Linux freedesktop over zbus, Windows toasts, macOS; on its own thread, never blocking the
//!   window. [`Notifier::capabilities`] is the report for Settings.
//! - [`quiet`]: quiet hours and do not disturb — a [`quiet::Schedule`] and a switch in
//!   [`quiet::QuietSettings`], and the desktop's own DND where it can be read. While quiet no
//!   notification and no sound; [`Notifier::quiet`] is the island's flag. Quiet can answer
//!   nothing: it only returns a [`quiet::QuietNow`].
//! - [`keys`]: global shortcuts ([`keys::GlobalKeys`]: X11 grabs, the Wayland GlobalShortcuts
//!   portal, Windows `RegisterHotKey`, macOS hot keys) and their safety logic, the pure
//!   [`keys::Gate`]: a first press brings the newest card up, a second answers it, the Allow
//!   key never answers a destructive card; it yields [`keys::Intent`]s.
//! - [`card_notice`]: a pending card's notice in the card's own words, for the
//!   desktop's notification and the phone's push alike.
//! - [`limits`]: a warning when a plan's usage window (Claude Code's status line
//!   `rate_limits`) crosses 80 % and 95 % ([`limits::LimitWatch`]), once per window.
//! - [`AttentionSettings`]: everything above as the person sets it, serializable, with
//!   defaults (notifications on, sounds, quiet hours and keys off).
//!
//! With the `test-support` feature, `test_support` has a private session bus and a
//! notification-server stand-in that records every call.

#![warn(missing_docs)]

pub mod card_notice;
mod chord;
pub mod keys;
pub mod limits;
pub mod no_tray;
pub mod notice;
pub mod notify;
pub mod quiet;
pub mod settings;
#[cfg(feature = "test-support")]
pub mod test_support;
#[cfg(target_os = "linux")]
pub mod tray_host;
pub mod words;

pub use card_notice::card_notice;
pub use notice::{CardId, Notice, NoticeKind, SessionId, What};
pub use notify::{
    Bus, Capabilities, NoticeAction, Notifier, NotifierConfig, NotifierEvent, Support,
};
pub use settings::{AttentionSettings, NotifySettings, PerKind};
