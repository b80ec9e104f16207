//! # vults-terminal: back to the agent in one click
//!
//! "Show terminal" for an agent session: from the `terminal` block its hook sent
//! ([`vults_core::protocol::Terminal`]: the agent's pid, its folder and the variables that name
//! a terminal), find the terminal window, tab and multiplexer pane the agent runs in, choose that
//! tab or pane with the terminal's own remote control, and bring the window forward. It never
//! types anything into a terminal, and never runs anything on an SSH host.
//!
//! Start from:
//! - [`Place`]: where an agent runs, as its latest event said ([`Place::local`] for this
//!   computer's hook socket, [`Place::on_host`] for an event that came over a host's link).
//! - [`show`]: finds the place and shows it. It blocks (it reads the process table, runs
//!   `tmux`/`kitty @`/…, talks to the X server) for up to a few seconds: call it off the UI
//!   thread. It answers [`Shown`] (one line saying what came forward, and a caveat when only
//!   part could be done, e.g. kitty's remote control is off) or a [`Failure`] (one line saying
//!   why, and a [`FailureKind`]).
//! - [`plan`] and [`Plan::run`]: the same in two halves, to say what "Show terminal" would
//!   reach ([`Plan`]'s `Display`) before doing it.
//! - [`survey`]: what each terminal and multiplexer found on this machine supports
//!   ([`Support`]), for Settings → General.
//!
//! ```no_run
//! use vults_terminal::{FailureKind, Place};
//! # let event_terminal = vults_core::protocol::Terminal::default();
//! // In the engine, off the UI thread (tokio's spawn_blocking), from the session's latest event:
//! let place = Place::local(&event_terminal).seen_at(std::time::SystemTime::now());
//! let line = match vults_terminal::show(&place) {
//!     Ok(shown) => shown.to_string(), // "Showed tmux pane %3 (…) in xterm (pid 300)"
//!     Err(f) if f.kind == FailureKind::NoTerminal => "a headless task: see its log".into(),
//!     Err(f) => f.to_string(), // "the agent's process (pid 4242) has ended"
//! };
//! # let _ = line;
//! ```
//!
//! How a place is found: the agent's process and its parents (Linux `/proc`, macOS `libproc`,
//! Windows a Toolhelp32 snapshot) up to the first terminal emulator, editor or multiplexer
//! server. A multiplexer's pane is chosen with its own commands (tmux `switch-client`,
//! `select-window`, `select-pane`; screen `-X select`; Zellij `action focus-pane-id`), and the
//! walk goes on from the client that shows it to that client's terminal. A terminal's tab is
//! chosen with its remote control (kitty `@ focus-window`, `wezterm cli activate-pane`,
//! Konsole's D-Bus, iTerm2 and Terminal by AppleScript), and the window is raised: X11
//! `_NET_ACTIVE_WINDOW`, sway IPC, Hyprland, KWin, `SetForegroundWindow`, `open -a`, or the
//! editor's own command line. docs/window.md has the table per terminal and platform.

#![warn(missing_docs)]

mod exec;
mod kinds;
mod mux;
mod plan;
#[cfg(test)]
mod plan_tests;
mod procs;
mod run;
mod survey;

#[cfg(all(unix, not(target_os = "macos")))]
mod wayland;
#[cfg(windows)]
mod windows;
#[cfg(all(unix, not(target_os = "macos")))]
mod x11;

mod macos;

use std::collections::BTreeMap;
use std::time::SystemTime;
use vults_core::protocol::Terminal;

pub use plan::Plan;
pub use survey::{Reach, Support, survey};

/// Where an agent runs, as its event said: the `terminal` block, and the host it came from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Place {
    pid: Option<u32>,
    cwd: Option<String>,
    env: BTreeMap<String, String>,
    host: Option<String>,
    seen: Option<SystemTime>,
}

impl Place {
    /// An agent on this computer (its event came over the local hook socket).
    pub fn local(terminal: &Terminal) -> Place {
        Place {
            pid: terminal.pid,
            cwd: terminal.cwd.clone(),
            env: terminal
                .env
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect(),
            host: None,
            seen: None,
        }
    }

    /// An agent on an SSH host (its event came over that host's link; `host` as Vults names
    /// it, `[user@]host[:port]`). Its pid means nothing here: only the local terminal running
    /// `ssh` to that host can be shown.
    pub fn on_host(terminal: &Terminal, host: &str) -> Place {
        Place {
            host: Some(host.to_string()),
            ..Place::local(terminal)
        }
    }

    /// When an event from this place arrived: a process with the agent's pid that started
    /// later is not the agent (its pid was given to another program).
    pub fn seen_at(mut self, at: SystemTime) -> Place {
        self.seen = Some(at);
        self
    }

    /// The host the agent runs on, for an SSH host's place.
    pub fn host(&self) -> Option<&str> {
        self.host.as_deref()
    }
}

/// What "Show terminal" brought forward.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// One line: what came forward ("tmux pane %3 (window @1, session work) in xterm").
    pub what: String,
    /// One line when only part could be done (a tab that could not be chosen and how to let
    /// Vults choose it, an agent on an SSH host whose pane there is not chosen).
    pub caveat: Option<String>,
}

impl std::fmt::Display for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Showed {}", self.what)?;
        if let Some(c) = &self.caveat {
            write!(f, "; {c}")?;
        }
        Ok(())
    }
}

/// Why "Show terminal" could not show the agent's terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FailureKind {
    /// The agent's process is gone (or its pid now belongs to another program).
    Ended,
    /// No terminal window was found for it.
    NotFound,
    /// Its multiplexer session has no client attached: no window shows it.
    Detached,
    /// It runs where this computer has no window for it: an SSH host no local terminal runs
    /// `ssh` to, or an SSH login into this computer.
    Elsewhere,
    /// It has no terminal: Vults started it headless (a Zeca task; its output is the task's
    /// log).
    NoTerminal,
    /// The desktop cannot or will not raise the window (Wayland without an interface for it,
    /// focus refused, an app permission missing).
    Forbidden,
    /// There is no display: Vults runs without X11 or Wayland.
    NoDisplay,
    /// A terminal's or multiplexer's own command failed (its message is in the line).
    Failed,
}

/// Why "Show terminal" did nothing, in one line for the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What kind of reason it is.
    pub kind: FailureKind,
    /// One line, e.g. "the agent's process (pid 4242) has ended".
    pub message: String,
}

impl Failure {
    pub(crate) fn new(kind: FailureKind, message: impl Into<String>) -> Failure {
        let message: String = message.into();
        Failure {
            kind,
            message: one_line(&message),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// The first non-empty line, at most 300 characters: every reason is one line.
pub(crate) fn one_line(s: &str) -> String {
    let line = s
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if line.chars().count() > 300 {
        let cut: String = line.chars().take(299).collect();
        format!("{cut}…")
    } else {
        line.to_string()
    }
}

/// Finds where the agent of `place` runs and how to show it, without showing it yet.
/// Blocking: it reads the process table and asks multiplexers for their panes and clients.
pub fn plan(place: &Place) -> Result<Plan, Failure> {
    plan::plan_for(place, &plan::LiveSystem::new())
}

/// Shows the agent's terminal: chooses its tab or pane and raises its window. Blocking (up to
/// a few seconds: call it off the UI thread).
pub fn show(place: &Place) -> Result<Shown, Failure> {
    plan(place)?.run()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_place_keeps_the_string_variables_of_the_terminal_block() {
        let t: Terminal = serde_json::from_value(json!({
            "cwd": "/proj", "pid": 42,
            "env": {"TMUX": "/tmp/tmux-1000/default,7,0", "TMUX_PANE": "%3", "ODD": 5}
        }))
        .expect("terminal block");
        let p = Place::local(&t);
        assert_eq!(p.pid, Some(42));
        assert_eq!(p.cwd.as_deref(), Some("/proj"));
        assert_eq!(p.env.len(), 2);
        assert_eq!(p.env["TMUX_PANE"], "%3");
        assert_eq!(p.host(), None);
        assert_eq!(Place::on_host(&t, "me@devbox").host(), Some("me@devbox"));
    }

    #[test]
    fn reasons_are_one_line() {
        let f = Failure::new(FailureKind::Failed, "\n  tmux: no server\nsecond line\n");
        assert_eq!(f.to_string(), "tmux: no server");
        assert_eq!(one_line(&"x".repeat(400)).chars().count(), 300);
        let shown = Shown {
            what: "xterm (pid 3)".into(),
            caveat: Some("its tab is not chosen".into()),
        };
        assert_eq!(
            shown.to_string(),
            "Showed xterm (pid 3); its tab is not chosen"
        );
    }
}
