//! Key chords as the person writes them (`Ctrl+Alt+Y`), and the three global actions.

use serde::{Deserialize, Serialize};

/// What a global shortcut asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyAction {
    /// Bring up the newest card.
    ShowNewest,
    /// Allow the newest card (only once it has been shown, never a destructive one).
    Allow,
    /// Deny the newest card (only once it has been shown).
    Deny,
}

impl KeyAction {
    /// The three, in the order Settings lists them.
    pub const ALL: [KeyAction; 3] = [KeyAction::ShowNewest, KeyAction::Allow, KeyAction::Deny];

    /// A stable id (the portal's shortcut id).
    pub fn id(self) -> &'static str {
        match self {
            KeyAction::ShowNewest => "show-newest",
            KeyAction::Allow => "allow",
            KeyAction::Deny => "deny",
        }
    }

    /// What Settings and the portal's dialog call it.
    pub fn description(self) -> &'static str {
        match self {
            KeyAction::ShowNewest => "Vults: bring up the newest card",
            KeyAction::Allow => "Vults: allow the card shown (press twice)",
            KeyAction::Deny => "Vults: deny the card shown (press twice)",
        }
    }

    /// The action whose [`KeyAction::id`] is `id`.
    pub fn from_id(id: &str) -> Option<KeyAction> {
        KeyAction::ALL.into_iter().find(|a| a.id() == id)
    }
}

/// The modifiers of a chord.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Mods {
    /// Control.
    pub ctrl: bool,
    /// Alt (Option on macOS).
    pub alt: bool,
    /// Shift.
    pub shift: bool,
    /// Super (the Windows key, Command on macOS).
    pub super_: bool,
}

/// The key of a chord: a letter, a digit, a function key or a named key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    /// `A` to `Z` (stored upper case).
    Letter(char),
    /// `0` to `9`.
    Digit(u8),
    /// `F1` to `F24`.
    F(u8),
    /// A key with a name.
    Named(NamedKey),
}

/// Keys with a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum NamedKey {
    Space,
    Enter,
    Escape,
    Backspace,
    Tab,
    Insert,
    Delete,
    Home,
    End,
    PageUp,
    PageDown,
    Up,
    Down,
    Left,
    Right,
}

const NAMED: [(&str, NamedKey); 15] = [
    ("Space", NamedKey::Space),
    ("Enter", NamedKey::Enter),
    ("Escape", NamedKey::Escape),
    ("Backspace", NamedKey::Backspace),
    ("Tab", NamedKey::Tab),
    ("Insert", NamedKey::Insert),
    ("Delete", NamedKey::Delete),
    ("Home", NamedKey::Home),
    ("End", NamedKey::End),
    ("PageUp", NamedKey::PageUp),
    ("PageDown", NamedKey::PageDown),
    ("Up", NamedKey::Up),
    ("Down", NamedKey::Down),
    ("Left", NamedKey::Left),
    ("Right", NamedKey::Right),
];

impl NamedKey {
    fn name(self) -> &'static str {
        NAMED
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("?", |(n, _)| n)
    }
}

/// A global shortcut: modifiers and one key, written `Ctrl+Alt+Y`. At least one of Ctrl, Alt
/// and Super is required, so a chord never steals plain typing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Chord {
    /// The modifiers.
    pub mods: Mods,
    /// The key.
    pub key: Key,
}

impl Chord {
    /// `Ctrl+Alt+<key>`.
    pub const fn ctrl_alt(key: Key) -> Chord {
        Chord {
            mods: Mods {
                ctrl: true,
                alt: true,
                shift: false,
                super_: false,
            },
            key,
        }
    }

    /// In the XDG shortcuts format the GlobalShortcuts portal reads (`CTRL+ALT+y`).
    pub fn xdg_trigger(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        let m = self.mods;
        for (on, name) in [
            (m.ctrl, "CTRL"),
            (m.alt, "ALT"),
            (m.shift, "SHIFT"),
            (m.super_, "LOGO"),
        ] {
            if on {
                parts.push(name.into());
            }
        }
        parts.push(match self.key {
            Key::Letter(c) => c.to_ascii_lowercase().to_string(),
            Key::Digit(d) => d.to_string(),
            Key::F(n) => format!("F{n}"),
            Key::Named(n) => match n {
                NamedKey::Space => "space".into(),
                NamedKey::Enter => "Return".into(),
                NamedKey::PageUp => "Page_Up".into(),
                NamedKey::PageDown => "Page_Down".into(),
                other => other.name().into(),
            },
        });
        parts.join("+")
    }
}

impl std::fmt::Display for Chord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m = self.mods;
        for (on, name) in [
            (m.ctrl, "Ctrl"),
            (m.alt, "Alt"),
            (m.shift, "Shift"),
            (m.super_, "Super"),
        ] {
            if on {
                write!(f, "{name}+")?;
            }
        }
        match self.key {
            Key::Letter(c) => write!(f, "{c}"),
            Key::Digit(d) => write!(f, "{d}"),
            Key::F(n) => write!(f, "F{n}"),
            Key::Named(n) => write!(f, "{}", n.name()),
        }
    }
}

/// Why a chord as typed was refused; `Display` names it and says what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChordError {
    /// No key after the modifiers.
    #[error("{0:?}: a chord is modifiers and a key, as Ctrl+Alt+Y")]
    NoKey(String),
    /// A word that is not Ctrl, Alt, Shift or Super.
    #[error("{typed:?}: {word:?} is not a modifier")]
    NotAModifier {
        /// The chord as typed.
        typed: String,
        /// The word.
        word: String,
    },
    /// The same modifier twice.
    #[error("{typed:?}: {word} twice")]
    Twice {
        /// The chord as typed.
        typed: String,
        /// The modifier.
        word: String,
    },
    /// Only Shift, or none.
    #[error(
        "{0:?}: a global shortcut needs Ctrl, Alt or Super, or it would take a key from typing"
    )]
    TakesTyping(String),
    /// A key Vults cannot bind.
    #[error("{typed:?}: {key:?} is not a key Vults can bind")]
    NotAKey {
        /// The chord as typed.
        typed: String,
        /// The key.
        key: String,
    },
}

impl std::str::FromStr for Chord {
    type Err = ChordError;
    fn from_str(s: &str) -> Result<Chord, ChordError> {
        let parts: Vec<&str> = s.split('+').map(str::trim).collect();
        let (key, mods) = parts
            .split_last()
            .filter(|(k, _)| !k.is_empty())
            .ok_or_else(|| ChordError::NoKey(s.to_string()))?;
        let mut m = Mods::default();
        for part in mods {
            let flag = match part.to_ascii_lowercase().as_str() {
                "ctrl" | "control" => &mut m.ctrl,
                "alt" | "option" | "opt" => &mut m.alt,
                "shift" => &mut m.shift,
                "super" | "win" | "windows" | "meta" | "logo" | "cmd" | "command" => &mut m.super_,
                other => {
                    return Err(ChordError::NotAModifier {
                        typed: s.to_string(),
                        word: other.to_string(),
                    });
                }
            };
            if *flag {
                return Err(ChordError::Twice {
                    typed: s.to_string(),
                    word: part.to_string(),
                });
            }
            *flag = true;
        }
        if !(m.ctrl || m.alt || m.super_) {
            return Err(ChordError::TakesTyping(s.to_string()));
        }
        let key = parse_key(key).ok_or_else(|| ChordError::NotAKey {
            typed: s.to_string(),
            key: key.to_string(),
        })?;
        Ok(Chord { mods: m, key })
    }
}

fn parse_key(k: &str) -> Option<Key> {
    let mut chars = k.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        if c.is_ascii_alphabetic() {
            return Some(Key::Letter(c.to_ascii_uppercase()));
        }
        if let Some(d) = c.to_digit(10) {
            return Some(Key::Digit(d as u8));
        }
        return None;
    }
    if let Some(n) = k
        .strip_prefix(['F', 'f'])
        .and_then(|n| n.parse::<u8>().ok())
        .filter(|n| (1..=24).contains(n))
    {
        return Some(Key::F(n));
    }
    let lower = k.to_ascii_lowercase();
    let alias = match lower.as_str() {
        "return" => "enter",
        "esc" => "escape",
        "del" => "delete",
        "ins" => "insert",
        "pgup" => "pageup",
        "pgdn" => "pagedown",
        other => other,
    };
    NAMED
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(alias))
        .map(|(_, k)| Key::Named(*k))
}

impl Serialize for Chord {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Chord {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Chord, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// The global-shortcut settings: off by default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct KeysSettings {
    /// Whether Vults binds global shortcuts at all.
    pub enabled: bool,
    /// Bring up the newest card (default `Ctrl+Alt+V`).
    pub show: Chord,
    /// Allow the card shown (default `Ctrl+Alt+Y`).
    pub allow: Chord,
    /// Deny the card shown (default `Ctrl+Alt+N`).
    pub deny: Chord,
}

impl Default for KeysSettings {
    fn default() -> KeysSettings {
        KeysSettings {
            enabled: false,
            show: Chord::ctrl_alt(Key::Letter('V')),
            allow: Chord::ctrl_alt(Key::Letter('Y')),
            deny: Chord::ctrl_alt(Key::Letter('N')),
        }
    }
}

/// Two actions set to the same chord.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{chord} is set for both \"{}\" and \"{}\"", first.description(), second.description())]
pub struct ChordClash {
    /// The chord both have.
    pub chord: Chord,
    /// The first action.
    pub first: KeyAction,
    /// The other.
    pub second: KeyAction,
}

impl KeysSettings {
    /// The chord of each action.
    pub fn bindings(&self) -> [(KeyAction, Chord); 3] {
        [
            (KeyAction::ShowNewest, self.show),
            (KeyAction::Allow, self.allow),
            (KeyAction::Deny, self.deny),
        ]
    }

    /// An error when two actions share a chord.
    pub fn check(&self) -> Result<(), ChordClash> {
        let b = self.bindings();
        for (i, (a, ca)) in b.iter().enumerate() {
            for (other, cb) in &b[i + 1..] {
                if ca == cb {
                    return Err(ChordClash {
                        chord: *ca,
                        first: *a,
                        second: *other,
                    });
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chords_read_in_any_case_and_write_one_way() {
        let c: Chord = "ctrl + alt + y".parse().unwrap();
        assert_eq!(c, Chord::ctrl_alt(Key::Letter('Y')));
        assert_eq!(c.to_string(), "Ctrl+Alt+Y");
        assert_eq!(c.xdg_trigger(), "CTRL+ALT+y");
        let c: Chord = "Super+Shift+Return".parse().unwrap();
        assert_eq!(c.to_string(), "Shift+Super+Enter");
        assert_eq!(c.xdg_trigger(), "SHIFT+LOGO+Return");
        assert_eq!("Cmd+F12".parse::<Chord>().unwrap().to_string(), "Super+F12");
        assert_eq!("Ctrl+7".parse::<Chord>().unwrap().key, Key::Digit(7));
        assert_eq!(
            "Alt+pgdn".parse::<Chord>().unwrap().xdg_trigger(),
            "ALT+Page_Down"
        );
    }

    #[test]
    fn chords_that_would_steal_typing_or_make_no_sense_are_refused() {
        for bad in [
            "Y",
            "Shift+Y",
            "Ctrl+",
            "",
            "Ctrl+Ctrl+Y",
            "Hyper+Y",
            "Ctrl+F25",
            "Ctrl+é",
            "Ctrl+Alt+YY",
        ] {
            assert!(bad.parse::<Chord>().is_err(), "{bad}");
        }
    }

    #[test]
    fn settings_are_off_by_default_and_round_trip() {
        let s = KeysSettings::default();
        assert!(!s.enabled);
        s.check().unwrap();
        let text = serde_json::to_string(&s).unwrap();
        assert_eq!(
            text,
            r#"{"enabled":false,"show":"Ctrl+Alt+V","allow":"Ctrl+Alt+Y","deny":"Ctrl+Alt+N"}"#
        );
        assert_eq!(serde_json::from_str::<KeysSettings>(&text).unwrap(), s);
        assert!(serde_json::from_str::<KeysSettings>(r#"{"allow":"Y"}"#).is_err());
        let same = KeysSettings {
            deny: s.allow,
            ..s.clone()
        };
        assert!(
            same.check()
                .unwrap_err()
                .to_string()
                .contains("Ctrl+Alt+Y is set for both")
        );
    }

    #[test]
    fn action_ids_round_trip() {
        for a in KeyAction::ALL {
            assert_eq!(KeyAction::from_id(a.id()), Some(a));
        }
        assert_eq!(KeyAction::from_id("nope"), None);
    }
}
