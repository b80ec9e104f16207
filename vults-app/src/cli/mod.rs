//! The command line but for the window and `--headless`: `vults-app doctor`,
//! `vults-app --uninstall`, `vults-app install [--hook <path>] [--agent <name>]…`,
//! `vults-app autostart on|off|status`, and `vults-app remote …` ([`remote`]).
//!
//! `main` calls [`run`] first; it returns `None` for any other command line, which then
//! starts the app as usual.

mod remote;

use std::path::{Path, PathBuf};
use vults_core::paths::Paths;
use vults_installer::autostart;
use vults_installer::{AgentState, InstallOptions, default_hook_source, format_reports};

const USAGE: &str = "\
usage: vults-app install [--hook <path>] [--agent <name>]...
         Installs or repairs Vults' hook in every agent found (or only the named ones),
         copying <path> (default: the vults-hook beside this program) as the installed hook.
       vults-app doctor [--hook <path>] [--json] [--fix]
         Prints every agent's install state, the hook copy, the socket and the log file's path;
         changes nothing. The installed hook copy is compared with <path> (default: the
         vults-hook beside this program). --json: one JSON document (docs/doctor.schema.json).
         --fix: repairs every missing or altered hook first, and says what it did. Exits 1
         when a found agent's hook is missing, altered or unreadable, or the socket is not
         the app's.
       vults-app --uninstall
         Removes exactly what Vults added to every agent's settings, and start at login.
       vults-app autostart on|off|status
         Starts Vults when you log in, or not (the same switch as Settings -> General).";

/// Handles an installer command, returning the process exit code; `None` when `args` (without
/// the program name) is not one.
pub fn run(args: &[String]) -> Option<i32> {
    let first = args.first()?.as_str();
    let paths = Paths::from_env();
    match first {
        "doctor" => {
            // `doctor [--hook <path>] [--json] [--fix]`: vults_installer::doctor does the work.
            let (mut hook, mut json, mut fix) = (None, false, false);
            let mut it = args[1..].iter();
            while let Some(a) = it.next() {
                match a.as_str() {
                    "--json" => json = true,
                    "--fix" => fix = true,
                    "--hook" => match it.next() {
                        Some(p) => hook = Some(PathBuf::from(p)),
                        None => return Some(usage("--hook needs a path")),
                    },
                    _ => return Some(usage("doctor takes --hook <path>, --json and --fix")),
                }
            }
            let hook = hook.or_else(default_hook_source);
            let (out, code) = vults_installer::doctor::run(&paths, hook.as_deref(), json, fix);
            print(&out);
            Some(code)
        }
        "--uninstall" | "uninstall" => {
            let reports = vults_installer::uninstall_all(&paths);
            print(&format_reports(&reports));
            let mut code = exit_code(&reports);
            if autostart::is_enabled(&paths) {
                match autostart::set(&paths, false, Path::new("")) {
                    Ok(entry) => print(&format!("Start at login: removed {entry}\n")),
                    Err(e) => {
                        print(&format!("Start at login: could not remove it: {e}\n"));
                        code = 1;
                    }
                }
            }
            Some(code)
        }
        "autostart" => Some(autostart(&paths, &args[1..])),
        "install" => Some(install(&paths, &args[1..])),
        "remote" => Some(remote::run(&paths, &args[1..])),
        _ => None,
    }
}

/// `vults-app autostart on|off|status`: the same switch as Settings → General.
fn autostart(paths: &Paths, args: &[String]) -> i32 {
    let on = match args {
        [a] if a == "on" => true,
        [a] if a == "off" => false,
        [a] if a == "status" => {
            let on = autostart::is_enabled(paths);
            print(&format!(
                "Start at login: {}\n",
                if on { "on" } else { "off" }
            ));
            return 0;
        }
        _ => return usage("autostart takes on, off or status"),
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

fn install(paths: &Paths, args: &[String]) -> i32 {
    let mut hook: Option<PathBuf> = None;
    let mut opts = InstallOptions::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--hook" => match it.next() {
                Some(p) => hook = Some(PathBuf::from(p)),
                None => return usage("--hook needs a path"),
            },
            "--agent" => match it.next().and_then(|n| vults_installer::agent_named(n)) {
                Some(agent) => opts.only.push(agent),
                None => {
                    return usage(
                        "--agent needs one of: claude codex copilot qwen opencode cursor droid kimi",
                    );
                }
            },
            "-h" | "--help" => return usage(""),
            other => return usage(&format!("unknown argument {other:?}")),
        }
    }
    let Some(hook) = hook.or_else(default_hook_source) else {
        return usage("cannot find vults-hook beside this program; pass --hook <path>");
    };
    if !hook.is_file() {
        return usage(&format!(
            "{} does not exist; build it (cargo build -p vults-hook) or pass --hook <path>",
            hook.display()
        ));
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

fn usage(problem: &str) -> i32 {
    let text = if problem.is_empty() {
        format!("{USAGE}\n")
    } else {
        format!("vults-app: {problem}\n{USAGE}\n")
    };
    eprint!("{text}");
    2
}

#[allow(clippy::print_stdout)] // reason: the CLI's report is its output, for people and scripts.
fn print(text: &str) {
    print!("{text}");
}
