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
mod outcome;
mod place;
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

pub use outcome::{Failure, FailureKind, Shown};
pub use place::Place;
pub use plan::Plan;
pub use survey::{Reach, Support, survey};

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
