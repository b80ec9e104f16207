//! `vults-app`: the Vults desktop app.
//!
//! ```text
//! vults-app                     the window (island, flock, cards, settings)
//! vults-app --headless          the engine alone: rules and policies answer, agents ask the rest
//! vults-app --headless --cards  the engine alone, cards answered on stdin (see engine::headless)
//! vults-app install [--hook P]  install or repair the hook in every agent found (installer::cli)
//! vults-app doctor             every agent's install state
//! vults-app --uninstall        remove exactly what Vults added
//! ```
//! `VULTS_HOME` moves every file and the socket (two copies side by side, tests).

use std::process::ExitCode;
use vults_app::engine::headless;
use vults_core::paths::Paths;

const USAGE: &str = "usage: vults-app [--headless [--cards]]

  --headless   serve agents without a window: Always rules and policies answer,
               anything else is left to the agent's own prompt
  --cards      with --headless: print cards to stderr and answer them on stdin
               (allow | deny | always [card], answer <card> <text>, remove <rule>,
               pause, resume, quit)
  --help       this text
  --version    the version

VULTS_HOME moves config, data and the socket; VULTS_SOCKET moves the socket alone.";

fn main() -> ExitCode {
    // Installer commands (`install`, `doctor`, `--uninstall`) run and exit before anything starts.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(code) = vults_app::installer::cli::run(&args) {
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    let mut headless = false;
    let mut cards = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--headless" => headless = true,
            "--cards" => cards = true,
            "--help" | "-h" => {
                eprintln!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            "--version" | "-V" => {
                eprintln!("vults-app {}", env!("CARGO_PKG_VERSION"));
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
    if headless {
        return headless::run(paths, cards);
    }
    // GUI starts here: the engine, the installer's app-start run, and the window (ui::native).
    match vults_app::ui::native::run(paths) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vults-app: {e}");
            ExitCode::FAILURE
        }
    }
}
