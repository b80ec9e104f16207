//! The person's choices, serializable with defaults: notifications on (sounds off), quiet hours
//! off, global keys off. Every field has a default, so a settings file from an older version
//! (or one missing a section) reads; an unknown field is ignored.

use serde::{Deserialize, Serialize};

use crate::chord::KeysSettings;
use crate::quiet::QuietSettings;

/// Everything this crate reads from the person's settings.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AttentionSettings {
    /// Desktop notifications.
    pub notifications: NotifySettings,
    /// Quiet hours and the do-not-disturb switch.
    pub quiet: QuietSettings,
    /// Global shortcuts.
    pub keys: KeysSettings,
    /// Warnings before a plan's usage limit bites.
    pub limits: LimitSettings,
}

/// Warnings before a plan's usage limit bites (the `limits` module): the thresholds, in `settings.json` under `attention.limits`; each field has a default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct LimitSettings {
    /// Whether Vults warns at all.
    pub enabled: bool,
    /// The first warning, in percent of a window (80).
    pub first: u8,
    /// The second warning, in percent of a window (95).
    pub second: u8,
}

impl Default for LimitSettings {
    fn default() -> LimitSettings {
        LimitSettings {
            enabled: true,
            first: 80,
            second: 95,
        }
    }
}

impl LimitSettings {
    /// The thresholds in use, lowest first, each within 1–100; one when both are the same.
    pub fn thresholds(&self) -> Vec<u8> {
        let mut t = vec![self.first.clamp(1, 100), self.second.clamp(1, 100)];
        t.sort_unstable();
        t.dedup();
        t
    }
}

/// Desktop notifications: on, one switch per kind, sounds off.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct NotifySettings {
    /// Whether Vults raises desktop notifications at all.
    pub enabled: bool,
    /// Which kinds raise one (a kind missing from the file: on).
    #[serde(deserialize_with = "kinds_on")]
    pub notify: PerKind,
    /// Which kinds play their sound, the notification's own `sound-name` hint (a kind missing
    /// from the file: off).
    #[serde(deserialize_with = "kinds_off")]
    pub sound: PerKind,
}

impl Default for NotifySettings {
    fn default() -> NotifySettings {
        NotifySettings {
            enabled: true,
            notify: PerKind::all(true),
            sound: PerKind::all(false),
        }
    }
}

/// One switch per [`NoticeKind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PerKind {
    /// A permission card.
    pub card: bool,
    /// A question card.
    pub question: bool,
    /// A finished turn.
    pub turn_done: bool,
    /// An agent asking in its own terminal.
    pub asks_in_terminal: bool,
    /// Vults' own warnings: its hook removed from an agent, a usage limit near.
    pub warning: bool,
}

/// A [`PerKind`] as written, each kind optional.
#[derive(Deserialize)]
struct Written {
    card: Option<bool>,
    question: Option<bool>,
    turn_done: Option<bool>,
    asks_in_terminal: Option<bool>,
    warning: Option<bool>,
}

fn kinds<'de, D: serde::Deserializer<'de>>(d: D, missing: bool) -> Result<PerKind, D::Error> {
    let w = Written::deserialize(d)?;
    Ok(PerKind {
        card: w.card.unwrap_or(missing),
        question: w.question.unwrap_or(missing),
        turn_done: w.turn_done.unwrap_or(missing),
        asks_in_terminal: w.asks_in_terminal.unwrap_or(missing),
        warning: w.warning.unwrap_or(missing),
    })
}

fn kinds_on<'de, D: serde::Deserializer<'de>>(d: D) -> Result<PerKind, D::Error> {
    kinds(d, true)
}

fn kinds_off<'de, D: serde::Deserializer<'de>>(d: D) -> Result<PerKind, D::Error> {
    kinds(d, false)
}

impl PerKind {
    /// Every kind set to `on`.
    pub const fn all(on: bool) -> PerKind {
        PerKind {
            card: on,
            question: on,
            turn_done: on,
            asks_in_terminal: on,
            warning: on,
        }
    }

    /// The switch for `kind`.
    pub fn get(&self, kind: NoticeKind) -> bool {
        match kind {
            NoticeKind::Card => self.card,
            NoticeKind::Question => self.question,
            NoticeKind::TurnDone => self.turn_done,
            NoticeKind::AsksInTerminal => self.asks_in_terminal,
            NoticeKind::Warning => self.warning,
        }
    }
}

/// The kinds of notice, each with its own notify and sound switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NoticeKind {
    /// a permission card (`What::Card`).
    Card,
    /// a question (`What::Question`).
    Question,
    /// a finished turn (`What::TurnDone`).
    TurnDone,
    /// an agent asking in its terminal (`What::AsksInTerminal`).
    AsksInTerminal,
    /// Vults' own warning (`What::Warning`): a hook removed, a limit near.
    Warning,
}

impl NoticeKind {
    /// The freedesktop sound-naming-spec name played for this kind when its sound is on.
    pub fn sound_name(self) -> &'static str {
        match self {
            NoticeKind::Card => "message-new-instant",
            NoticeKind::Question => "dialog-question",
            NoticeKind::TurnDone => "complete",
            NoticeKind::AsksInTerminal => "dialog-information",
            NoticeKind::Warning => "dialog-warning",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_notifications_on_sounds_quiet_and_keys_off() {
        let s = AttentionSettings::default();
        assert!(s.notifications.enabled);
        assert_eq!(s.notifications.notify, PerKind::all(true));
        assert_eq!(s.notifications.sound, PerKind::all(false));
        assert!(!s.quiet.on && !s.quiet.schedule.enabled);
        assert!(!s.keys.enabled);
    }

    #[test]
    fn an_empty_or_partial_file_reads_with_defaults_and_round_trips() {
        let empty: AttentionSettings = serde_json::from_str("{}").unwrap();
        assert_eq!(empty, AttentionSettings::default());
        let partial: AttentionSettings = serde_json::from_str(
            r#"{"notifications":{"sound":{"card":true}},"quiet":{"on":true},"future":1}"#,
        )
        .unwrap();
        assert!(partial.notifications.sound.card && !partial.notifications.sound.turn_done);
        assert!(partial.notifications.notify.turn_done);
        assert!(partial.quiet.on);
        let text = serde_json::to_string(&partial).unwrap();
        let back: AttentionSettings = serde_json::from_str(&text).unwrap();
        assert_eq!(back, partial);
    }
}
