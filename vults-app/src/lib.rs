//! The Vults desktop app as a library, so tests drive the same code the binary runs.
//!
//! - [`model`]: the typed messages between the engine and the window (start here).
//! - [`engine`]: the private socket server, the decision point's caller, pending cards,
//!   sessions, rules, policies and the audit — on a tokio runtime, headless-capable.
//! - [`installer`]: puts `vults-hook` into each agent's own settings on start, and takes it out.
//! - [`phone`]: the paired phone — the LAN page, pairing, and signed answers verified before
//!   they reach the engine as the same command a click sends.
//! - [`remote`]: agents on SSH hosts — `remote add/remove`, and the links while the app runs.
//! - [`clock`]: wall time as Unix milliseconds, in one place.
//! - [`log`]: the rotated log file (`tracing`), and stderr on a terminal.
//! - [`instance`], [`autostart`], [`welcome`]: one window per user, start at login, the first
//!   run's welcome.
//! - [`ui`]: the egui views (island, flock, chat, cards, settings), one per file.
//! - [`zeca`]: the app's own chat, driving the user's Claude Code (docs/zeca.md).

pub mod autostart;
pub mod clock;
pub mod diff;
pub mod engine;
pub mod installer;
pub mod instance;
pub mod log;
pub mod model;
pub mod phone;
pub mod remote;
pub mod ui;
pub mod welcome;
pub mod zeca;
