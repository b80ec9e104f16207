//! `vults-app`: the Vults desktop app.
//!
//! ```text
//! vults-app                     the window (island, flock, cards, settings); a second start
//!                               brings the running window forward (vults_desktop::instance)
//! vults-app --headless          the engine, the phone and the hosts' links: rules, policies and
//!                               the phone answer, agents ask the rest (headless.rs)
//! vults-app --headless --cards  the engine alone, cards answered on stdin (see headless.rs)
//! vults-app install [--hook P]  install or repair the hook in every agent found (cli)
//! vults-app doctor             every agent's install state
//! vults-app --uninstall        remove exactly what Vults added (and start at login)
//! vults-app autostart on|off    start at login (vults_installer::autostart)
//! vults-app remote add|remove|list   agents on SSH hosts (vults_remote, docs/hosts.md)
//! vults-app phone pair|list|revoke|test   the running app's paired phone (cli/phone.rs)
//! ```
//! Every command, its arguments and its help are defined once, in `cli/table.rs`.
//! `VULTS_HOME` moves every file and the socket (two copies side by side, tests).
//!
//! On Windows this is a GUI-subsystem program, so starting the window from the Start menu or at
//! login opens no console window; the command-line forms attach to the console they were typed
//! in (and write to a pipe or file as any program does when their output is redirected).

#![cfg_attr(windows, windows_subsystem = "windows")]

mod cli;
mod compose;
// The phone commands' channel is a Unix socket; Windows runs only the link half of it for now.
#[cfg_attr(not(unix), allow(dead_code))]
mod control;
mod headless;

use std::process::ExitCode;
use vults_core::paths::Paths;
use vults_desktop::instance;

fn main() -> ExitCode {
    #[cfg(windows)]
    attach_console();
    // Every command but the app itself (`install`, `doctor`, `phone pair` …) runs and exits here;
    // the command table is cli/table.rs.
    let start = match cli::parse(std::env::args_os().skip(1)) {
        Ok(start) => start,
        Err(code) => return ExitCode::from(u8::try_from(code).unwrap_or(1)),
    };
    let (headless, cards) = match start {
        cli::Start::Window => (false, false),
        cli::Start::Headless { cards } => (true, cards),
    };
    let paths = Paths::from_env();
    // The window has no terminal: what happens goes to the log file (and stderr when on one).
    let log_file = match vults_engine::log::init(&paths, headless) {
        Ok(file) => {
            tracing::info!(
                "{} starting; log at {}",
                cli::version_line(),
                file.display()
            );
            Some(file)
        }
        Err(e) => {
            tracing::warn!("{e}; logging to stderr only");
            None
        }
    };
    if headless {
        return headless::run(paths, cards);
    }
    // One window per user: a running app is asked to come forward, and this start ends.
    let instance = match instance::claim(&paths) {
        Ok(instance::Claim::Running) => {
            tracing::info!("Vults is already running; asked it to bring its window forward");
            return ExitCode::SUCCESS;
        }
        Ok(instance::Claim::First(listener)) => Some(listener),
        Err(e) => {
            tracing::warn!("no one-instance channel ({e}); a second start will not find this one");
            None
        }
    };
    // The channel's socket file goes when this app ends (Quit, SIGTERM), as the hook's does.
    let _channel_file = instance
        .as_ref()
        .map(instance::InstanceListener::remove_on_exit);
    // GUI starts here: the engine, every subsystem and the window (compose.rs).
    match compose::window(paths, instance, log_file) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("vults-app: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A GUI-subsystem program starts with no console: with arguments (a command typed in one),
/// attach to the parent's console so `--version`, `doctor` and the rest print there. Output
/// already redirected to a pipe or file keeps its handles; attaching fails harmlessly when
/// there is no parent console (started from Explorer).
#[cfg(windows)]
fn attach_console() {
    use windows_sys::Win32::System::Console::{ATTACH_PARENT_PROCESS, AttachConsole};
    if std::env::args_os().len() > 1 {
        // SAFETY: no pointers; failure only means there is no console to attach to.
        unsafe {
            AttachConsole(ATTACH_PARENT_PROCESS);
        }
    }
}
