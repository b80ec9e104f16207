//! The window: the island, the flock, the cards and settings, one view per file, driven by
//! the engine through [`vults_engine::messages`] messages. Views never do I/O and never block; the
//! [`app::VultsWindow`] drains its own subscription to the engine once per frame into
//! [`state::Model`].
//!
//! The window is handed its ports ([`ports`]) and draws: the app (`vults-app/src/compose/`)
//! starts the engine and every subsystem. Start from [`app::VultsWindow`]; [`native::open`]
//! opens it with eframe (glow renderer).

#![warn(missing_docs)]

pub use error::Error;

pub mod app;
pub mod attention;
pub mod card;
pub mod chat;
pub mod code;
pub mod error;
pub mod flock;
pub mod island;
pub mod markdown;
pub mod native;
pub mod ports;
pub mod settings;
pub mod show_terminal;
pub mod show_terminal_toast;
pub mod state;
pub mod theme;
pub mod viewport;
pub mod welcome;

/// The one-instance socket: moved to `vults_desktop::instance` (it draws nothing).
pub use vults_desktop::instance;
/// The tray, the quit signals and opening a file: moved below the view crate (they draw
/// nothing), to `vults_desktop::tray`; named here too for the window's tests.
pub use vults_desktop::tray as desktop;
