//! The command line: [`table`] defines every command and its help once; this module does what
//! each asks. `vults-app doctor`, `--uninstall`, `install [--hook <path>] [--agent <name>]…`,
//! `autostart on|off|status`, `remote …` ([`remote`]) and `phone …` ([`phone`]) run and exit;
//! no command (or `--headless [--cards]`) starts the app.

mod phone;
mod remote;
pub mod table;

use clap::ArgMatches;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use vults_core::paths::Paths;
use vults_installer::autostart;
use vults_installer::{AgentState, InstallOptions, default_hook_source, format_reports};

/// What the command line starts, when it is not a command that runs and exits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// The window.
    Window,
    /// `--headless`: the engine, the phone and the hosts' links without a window; `cards`:
    /// the console answers cards too.
    Headless {
        /// `--cards`.
        cards: bool,
    },
}

/// The version line both binaries print: the same version, the same hook protocol.
pub fn version_line() -> String {
    format!(
        "vults-app {} (hook protocol {})",
        env!("CARGO_PKG_VERSION"),
        vults_core::protocol::VERSION
    )
}

/// Reads the command line (without the program name): what to start, or the exit code of a
/// command that ran (`--help`, `--version`, a usage error: 2).
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Start, i32> {
    let args = std::iter::once(OsString::from("vults-app")).chain(args);
    let matches = match table::command().try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => {
            // Help goes to stdout (exit 0), a usage error to stderr (exit 2).
            let _ = e.print();
            return Err(e.exit_code());
        }
    };
    if matches.get_flag("version") {
        print(&format!("{}\n", version_line()));
        return Err(0);
    }
    let paths = Paths::from_env();
    if matches.get_flag("uninstall") {
        return Err(uninstall(&paths));
    }
    match matches.subcommand() {
        Some(("install", m)) => Err(install(&paths, m)),
        Some(("doctor", m)) => Err(doctor(&paths, m)),
        Some(("uninstall", _)) => Err(uninstall(&paths)),
        Some(("autostart", m)) => Err(set_autostart(&paths, m)),
        Some(("remote", m)) => Err(remote::run(&paths, m)),
        Some(("phone", m)) => Err(phone::run(paths, m)),
        Some((other, _)) => unreachable!("{other} is not in the command table"),
        None if matches.get_flag("headless") => Ok(Start::Headless {
            cards: matches.get_flag("cards"),
        }),
        None => Ok(Start::Window),
    }
}

/// A usage error of `command` (as clap words its own): to stderr, exit 2.
fn usage_error(path: &[&str], problem: &str) -> i32 {
    let mut command = table::command();
    for name in path {
        let Some(sub) = command.find_subcommand(name).cloned() else {
            break;
        };
        command = sub;
    }
    let _ = command
        .error(clap::error::ErrorKind::ValueValidation, problem)
        .print();
    2
}

fn doctor(paths: &Paths, m: &ArgMatches) -> i32 {
    let hook = m
        .get_one::<PathBuf>("hook")
        .cloned()
        .or_else(default_hook_source);
    // vults_installer::doctor does the work: the report (text, or JSON with --json) and the
    // exit status; --fix repairs what it can first.
    let (out, code) = vults_installer::doctor::run(
        paths,
        hook.as_deref(),
        m.get_flag("json"),
        m.get_flag("fix"),
    );
    print(&out);
    code
}

fn uninstall(paths: &Paths) -> i32 {
    let reports = vults_installer::uninstall_all(paths);
    print(&format_reports(&reports));
    let mut code = exit_code(&reports);
    if autostart::is_enabled(paths) {
        match autostart::set(paths, false, Path::new("")) {
            Ok(entry) => print(&format!("Start at login: removed {entry}\n")),
            Err(e) => {
                print(&format!("Start at login: could not remove it: {e}\n"));
                code = 1;
            }
        }
    }
    code
}

/// `vults-app autostart on|off|status`: the same switch as Settings → General.
fn set_autostart(paths: &Paths, m: &ArgMatches) -> i32 {
    let on = match m.get_one::<String>("state").map(String::as_str) {
        Some("on") => true,
        Some("off") => false,
        _ => {
            let on = autostart::is_enabled(paths);
            print(&format!(
                "Start at login: {}\n",
                if on { "on" } else { "off" }
            ));
            return 0;
        }
    };
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("vults-app"));
    match autostart::set(paths, on, &exe) {
        Ok(entry) => {
            let state = if on { "on" } else { "off" };
            print(&format!("Start at login: {state} ({entry})\n"));
            0
        }
        Err(e) => {
            eprintln!("vults-app: cannot change start at login: {e}");
            1
        }
    }
}

fn install(paths: &Paths, m: &ArgMatches) -> i32 {
    // The table offers only the agents the installer takes.
    let opts = InstallOptions {
        only: m
            .get_many::<String>("agent")
            .into_iter()
            .flatten()
            .filter_map(|name| vults_installer::agent_named(name))
            .collect(),
        ..InstallOptions::default()
    };
    let Some(hook) = m
        .get_one::<PathBuf>("hook")
        .cloned()
        .or_else(default_hook_source)
    else {
        return usage_error(
            &["install"],
            "cannot find vults-hook beside this program; pass --hook <path>",
        );
    };
    if !hook.is_file() {
        return usage_error(
            &["install"],
            &format!(
                "{} does not exist; build it (cargo build -p vults-hook) or pass --hook <path>",
                hook.display()
            ),
        );
    }
    let reports = vults_installer::install_all(paths, &hook, &opts);
    print(&format_reports(&reports));
    exit_code(&reports)
}

/// 1 when some agent could not be handled (a file that does not parse, a failed write).
fn exit_code(reports: &[vults_installer::AgentReport]) -> i32 {
    let bad = reports.iter().any(|r| {
        matches!(
            r.state,
            AgentState::Unparsable { .. } | AgentState::Failed(_)
        )
    });
    i32::from(bad)
}

/// The CLI's report is its output, for people and scripts.
fn print(text: &str) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}
