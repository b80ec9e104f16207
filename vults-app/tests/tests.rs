//! The real `vults-app` binary as a person meets it, in one test binary: `--version` and
//! `--help` (every command's help a snapshot: `help`), the systemd user unit (`service`), one
//! instance, the first-run welcome, start at login and the log file (`cli`, `desktop`),
//! `vults-app remote add/remove` on a stand-in host (`remote_hosts`), and a killed app leaving
//! no link behind (`link_orphan`), the headless app giving back what 2,000 ended sessions took
//! (`memory`, Linux), and a card notified while the window is closed to the tray or minimized
//! (`hidden_window`, Linux). Tests that open the window need an X server:
//! they start their own `Xvfb` and skip (saying so) without one, unless `VULTS_DESKTOP_TESTS=1`
//! (CI), where a missing `Xvfb` is a failure.

mod cards;
mod cli;
mod desktop;
#[cfg(target_os = "linux")]
mod desktops;
mod help;
mod help_remote;
/// Linux only: the desktop's notification server is a D-Bus service.
#[cfg(target_os = "linux")]
mod hidden_window;
mod keys;
mod late_island;
mod link_orphan;
mod memory;
mod remote_hosts;
mod service;
mod support;
// The notification-server stand-in runs on a private D-Bus session bus.
#[cfg(target_os = "linux")]
mod watch;
