//! Keys from anywhere: optional global shortcuts to bring up the newest card, allow it, deny it.
//!
//! Two halves, kept apart:
//!
//! - [`GlobalKeys`] binds the chords of [`KeysSettings`] with the platform's own mechanism, on a
//!   thread of its own, and reports each press as a [`KeysEvent::Pressed`] — only which action,
//!   never a card. X11: passive key grabs on the root window over x11rb's pure-Rust
//!   connection. Wayland: the XDG GlobalShortcuts portal, where the desktop has it (the
//!   desktop may ask the person and choose other keys; [`KeysEvent::Ready`] says which).
//!   Windows: `RegisterHotKey`. macOS: Carbon's `RegisterEventHotKey`.
//! - [`Gate`] is the safety logic: a pure state machine the window runs each press through. It
//!   turns presses into [`Intent`]s — bring the card up first, answer on a second press, never
//!   allow a destructive card — and never answers by itself.

mod gate;

#[cfg(target_os = "macos")]
mod macos;
#[cfg(target_os = "linux")]
mod portal;
#[cfg(windows)]
mod windows;
#[cfg(target_os = "linux")]
mod x11;

pub use crate::chord::{
    Chord, ChordClash, ChordError, Key, KeyAction, KeysSettings, Mods, NamedKey,
};
pub use gate::{Gate, GateCard, Ignored, Intent, Outcome};

use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender};

/// Where to bind the keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeysTarget {
    /// What this session has: on Linux the portal under Wayland, X11 grabs under X11.
    Auto,
    /// X11 grabs on this display (`None`: `DISPLAY`). Linux.
    X11 {
        /// The display, as `:0`.
        display: Option<String>,
    },
    /// The GlobalShortcuts portal on this bus. Linux.
    Portal {
        /// The session bus to find the portal on.
        bus: crate::notify::Bus,
    },
}

/// Which mechanism bound the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeysBackend {
    /// X11 passive grabs.
    X11,
    /// The XDG GlobalShortcuts portal.
    Portal,
    /// Windows `RegisterHotKey`.
    Windows,
    /// macOS Carbon hot keys.
    MacOs,
}

/// What the keys' thread reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeysEvent {
    /// The keys are bound: each action with the trigger the desktop bound it to, in its words.
    Ready {
        /// The mechanism.
        backend: KeysBackend,
        /// Each action's trigger.
        bindings: Vec<(KeyAction, String)>,
    },
    /// The keys could not be bound, or stopped working: why, for Settings.
    Unavailable(String),
    /// A global key was pressed. Run it through a [`Gate`].
    Pressed(KeyAction),
}

/// The sending side a backend thread gets: events, then a wake of the window.
#[derive(Clone)]
pub(crate) struct Events {
    tx: Sender<KeysEvent>,
    wake: Option<Arc<dyn Fn() + Send + Sync>>,
}

impl Events {
    /// Sends; false once the receiver is gone.
    pub(crate) fn send(&self, e: KeysEvent) -> bool {
        let ok = self.tx.send(e).is_ok();
        if let Some(w) = &self.wake {
            w();
        }
        ok
    }
}

/// Global shortcuts while this lives; dropping it unbinds them and ends their thread.
pub struct GlobalKeys {
    stop: Option<Box<dyn FnOnce() + Send>>,
}

impl std::fmt::Debug for GlobalKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GlobalKeys").finish_non_exhaustive()
    }
}

/// Why there are no global keys here; `Display` is the line Settings shows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeysError {
    /// Switched off in Settings.
    #[error("global keys are off in Settings")]
    Off,
    /// Two actions share a chord.
    #[error(transparent)]
    Clash(#[from] ChordClash),
    /// Linux with neither an X display nor a Wayland session.
    #[error("no X11 display and no Wayland session: no global keys")]
    NoDisplay,
    /// X11 or the portal asked for on a platform that has neither.
    #[error("X11 and the portal are Linux's")]
    NotLinux,
    /// A platform Vults has no global keys on.
    #[error("Vults has no global keys on this platform")]
    Unsupported,
    /// What the desktop's key service (X11, the portal, Carbon, Win32) said: a chord taken by
    /// another program, a refusal, a lost connection.
    #[error("{0}")]
    Desktop(String),
}

impl GlobalKeys {
    /// Binds `settings`' chords. Returns at once; [`KeysEvent::Ready`] or
    /// [`KeysEvent::Unavailable`] follows on the receiver, then the presses. `Err` says at once
    /// why there are no global keys here (switched off, no display, an unsupported platform,
    /// chords that clash or are taken). On macOS call it on the main thread: Carbon delivers hot keys through the
    /// application's event loop.
    pub fn start(
        settings: &KeysSettings,
        target: KeysTarget,
        wake: Option<Arc<dyn Fn() + Send + Sync>>,
    ) -> Result<(GlobalKeys, Receiver<KeysEvent>), KeysError> {
        if !settings.enabled {
            return Err(KeysError::Off);
        }
        settings.check()?;
        let (tx, rx) = std::sync::mpsc::channel();
        let events = Events { tx, wake };
        let bindings = settings.bindings();
        let stop = start_platform(&bindings, target, events)?;
        Ok((GlobalKeys { stop: Some(stop) }, rx))
    }
}

impl Drop for GlobalKeys {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop();
        }
    }
}

type Stop = Box<dyn FnOnce() + Send>;

#[cfg(target_os = "linux")]
fn start_platform(
    bindings: &[(KeyAction, Chord); 3],
    target: KeysTarget,
    events: Events,
) -> Result<Stop, KeysError> {
    let target = match target {
        KeysTarget::Auto => {
            let wayland = std::env::var("XDG_SESSION_TYPE").is_ok_and(|t| t == "wayland")
                || std::env::var_os("WAYLAND_DISPLAY").is_some_and(|d| !d.is_empty());
            if wayland {
                KeysTarget::Portal {
                    bus: crate::notify::Bus::Session,
                }
            } else if std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty()) {
                KeysTarget::X11 { display: None }
            } else {
                return Err(KeysError::NoDisplay);
            }
        }
        t => t,
    };
    match target {
        KeysTarget::X11 { display } => {
            x11::start(bindings, display, events).map_err(KeysError::Desktop)
        }
        KeysTarget::Portal { bus } => {
            portal::start(bindings, bus, events).map_err(KeysError::Desktop)
        }
        KeysTarget::Auto => unreachable!("resolved above"),
    }
}

#[cfg(windows)]
fn start_platform(
    bindings: &[(KeyAction, Chord); 3],
    target: KeysTarget,
    events: Events,
) -> Result<Stop, KeysError> {
    match target {
        KeysTarget::Auto => windows::start(bindings, events).map_err(KeysError::Desktop),
        _ => Err(KeysError::NotLinux),
    }
}

#[cfg(target_os = "macos")]
fn start_platform(
    bindings: &[(KeyAction, Chord); 3],
    target: KeysTarget,
    events: Events,
) -> Result<Stop, KeysError> {
    match target {
        KeysTarget::Auto => macos::start(bindings, events).map_err(KeysError::Desktop),
        _ => Err(KeysError::NotLinux),
    }
}

#[cfg(not(any(target_os = "linux", windows, target_os = "macos")))]
fn start_platform(
    _bindings: &[(KeyAction, Chord); 3],
    _target: KeysTarget,
    _events: Events,
) -> Result<Stop, KeysError> {
    Err(KeysError::Unsupported)
}

/// What Settings can say about global keys here before they are switched on (from the
/// environment only; the real answer is [`GlobalKeys::start`]'s), in the person's language.
pub fn support() -> crate::notify::Support {
    use crate::notify::Support;
    use vults_i18n::tr;
    if cfg!(windows) {
        return Support::Available(tr!("notifications-keys-here-windows"));
    }
    if cfg!(target_os = "macos") {
        return Support::Available(tr!("notifications-keys-here-macos"));
    }
    if !cfg!(target_os = "linux") {
        return Support::Unavailable(tr!("notifications-keys-here-not-on-platform"));
    }
    let wayland = std::env::var("XDG_SESSION_TYPE").is_ok_and(|t| t == "wayland")
        || std::env::var_os("WAYLAND_DISPLAY").is_some_and(|d| !d.is_empty());
    if wayland {
        Support::Available(tr!("notifications-keys-here-wayland"))
    } else if std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty()) {
        Support::Available(tr!("notifications-keys-by-x11"))
    } else {
        Support::Unavailable(tr!("notifications-keys-here-none"))
    }
}

#[cfg(test)]
mod words {
    use super::support;
    use vults_i18n::{Choice, scoped};

    fn said() -> String {
        match support() {
            crate::notify::Support::Available(s) | crate::notify::Support::Unavailable(s) => s,
        }
    }

    /// Where the keys can be had is said in the person's language.
    #[test]
    fn where_keys_can_be_had_is_said_in_the_persons_language() {
        let english = {
            let _en = scoped(&Choice::Language("en".into()));
            said()
        };
        let _pt = scoped(&Choice::Language("pt-BR".into()));
        let pt = said();
        assert!(!pt.is_empty());
        assert_ne!(pt, english, "still English in pt-BR");
    }
}
