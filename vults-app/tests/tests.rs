//! The real `vults-app` binary as a person meets it, in one test binary: `--version` and
//! `--help`, one instance, the first-run welcome, start at login and the log file (`cli`,
//! `desktop`), `vults-app remote add/remove` on a stand-in host (`remote_hosts`), and a killed
//! app leaving no link behind (`link_orphan`), and the headless app giving back what 2,000
//! ended sessions took (`memory`, Linux). Tests that open the window need an X server:
//! they start their own `Xvfb` and skip (saying so) without one, unless `VULTS_DESKTOP_TESTS=1`
//! (CI), where a missing `Xvfb` is a failure.

mod cards;
mod cli;
mod desktop;
#[cfg(target_os = "linux")]
mod desktops;
mod help_remote;
mod keys;
mod late_island;
mod link_orphan;
mod memory;
mod remote_hosts;
mod support;
// The notification-server stand-in runs on a private D-Bus session bus.
#[cfg(target_os = "linux")]
mod watch;
