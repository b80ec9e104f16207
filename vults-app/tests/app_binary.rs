//! The real `vults-app` binary as a person meets it: `--version` and `--help`, one instance,
//! the first-run welcome, start at login and the log file, and its cards on the X server
//! (Copy to the system clipboard, keys from `xdotool`, six cards on a small screen). Tests that open the window need an X
//! server: they start their own `Xvfb` and skip (saying so) without one, unless
//! `VULTS_DESKTOP_TESTS=1` (CI), where a missing `Xvfb` is a failure.

#[path = "app_binary/support.rs"]
mod support;

#[path = "app_binary/cli.rs"]
mod cli;

#[path = "app_binary/desktop.rs"]
mod desktop;

#[path = "app_binary/cards.rs"]
mod cards;
