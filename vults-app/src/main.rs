//! `vults-app`: the Vults desktop app.
//!
//! ```text
//! vults-app                     the window (island, flock, cards, settings); a second start
//!                               brings the running window forward (vults_ui::instance)
//! vults-app --headless          the engine alone: rules and policies answer, agents ask the rest
//! vults-app --headless --cards  the engine alone, cards answered on stdin (see headless.rs)
//! vults-app install [--hook P]  install or repair the hook in every agent found (cli)
//! vults-app doctor             every agent's install state
//! vults-app --uninstall        remove exactly what Vults added (and start at login)
//! vults-app autostart on|off    start at login (vults_installer::autostart)
//! vults-app remote add|remove|list   agents on SSH hosts (vults_remote, docs/hosts.md)
//! ```
//! `VULTS_HOME` moves every file and the socket (two copies side by side, tests).
//!
//! On Windows this is a GUI-subsystem program, so starting the window from the Start menu or at
//! login opens no console window; the command-line forms attach to the console they were typed
//! in (and write to a pipe or file as any program does when their output is redirected).

#![cfg_attr(windows, windows_subsystem = "windows")]

mod cli;
mod compose;
mod headless;

use std::process::ExitCode;
use vults_core::paths::Paths;
use vults_ui::instance;

const USAGE: &str = "\
usage: vults-app [--headless [--cards]]
       vults-app install [--hook <path>] [--agent <name>]...
       vults-app doctor [--hook <path>]
       vults-app --uninstall
       vults-app autostart on|off|status
       vults-app remote add [user@]host[:port] [--hook <path>] [-- <ssh options>]
       vults-app remote remove [--forget] <host> | list
       vults-app --help | --version

  (nothing)    the window: the island, the flock, cards and Settings. Starting it while it
               runs brings the running window forward.
  --headless   serve agents without a window: Always rules and policies answer,
               anything else is left to the agent's own prompt
  --cards      with --headless: print cards to stderr and answer them on stdin
               (allow | deny | always [card], answer <card> <text>, remove <rule>,
               pause, resume, quit)
  install      install or repair Vults' hook in every agent found (or only the named ones:
               claude codex copilot qwen opencode cursor droid kimi); <path> is the vults-hook
               to copy (default: the one beside this program)
  doctor       print every agent's install state and where the log file is; changes nothing
  --uninstall  remove exactly what Vults added to every agent's settings, and start at login
  autostart    on | off | status: start Vults when you log in (Settings -> General)
  remote       agents on SSH hosts: add places the hook there and registers it, the
               running app links the host; remove takes it all out (docs/hosts.md)
  --help       this text
  --version    the version and the hook protocol version

VULTS_HOME moves config, data, the log and the socket; VULTS_SOCKET moves the socket alone;
VULTS_LOG=debug|trace|warn sets the log level (default info).";

/// The version line both binaries print: the same version, the same hook protocol.
fn version_line() -> String {
    format!(
        "vults-app {} (hook protocol {})",
        env!("CARGO_PKG_VERSION"),
        vults_core::protocol::VERSION
    )
}

#[allow(clippy::print_stdout)] // reason: --help and --version answer on stdout, for scripts.
fn say(text: &str) {
    println!("{text}");
}

fn main() -> ExitCode {
    #[cfg(windows)]
    attach_console();
    // Installer commands (`install`, `doctor`, `--uninstall`) run and exit before anything starts.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(code) = cli::run(&args) {
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    let mut headless = false;
    let mut cards = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--headless" => headless = true,
            "--cards" => cards = true,
            "--help" | "-h" => {
                say(USAGE);
                return ExitCode::SUCCESS;
            }
            "--version" | "-V" => {
                say(&version_line());
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("vults-app: unknown argument {other:?}\n\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    if cards && !headless {
        eprintln!("vults-app: --cards goes with --headless\n\n{USAGE}");
        return ExitCode::from(2);
    }
    let paths = Paths::from_env();
    // The window has no terminal: what happens goes to the log file (and stderr when on one).
    let log_file = match vults_engine::log::init(&paths, headless) {
        Ok(file) => {
            tracing::info!("{} starting; log at {}", version_line(), file.display());
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
