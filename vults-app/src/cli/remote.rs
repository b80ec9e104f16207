//! `vults-app remote add|remove|list` (docs/hosts.md).

use clap::ArgMatches;
use std::path::PathBuf;
use vults_core::paths::Paths;
use vults_installer::format_reports;
use vults_remote::{Host, HostList, install};

/// `vults-app remote …`; the exit code.
pub fn run(paths: &Paths, m: &ArgMatches) -> i32 {
    match m.subcommand() {
        Some(("add", m)) => add(paths, m),
        Some(("remove", m)) => {
            let name = m
                .get_one::<String>("host")
                .map(String::as_str)
                .unwrap_or_default();
            if m.get_flag("forget") {
                forget(paths, name)
            } else {
                remove(paths, name)
            }
        }
        Some(("list", _)) => list(paths),
        _ => unreachable!("remote's subcommands are in the command table"),
    }
}

fn remove(paths: &Paths, name: &str) -> i32 {
    match install::remove(paths, name) {
        Ok(r) => {
            say(&about(&format_reports(&r.reports), name));
            say(&format!(
                "{name}: Vults taken out ({} file(s) written back) and the host forgotten.\n",
                r.written.len()
            ));
            0
        }
        Err(e) => {
            eprintln!("vults-app: remote remove {name}: {e}");
            1
        }
    }
}

fn forget(paths: &Paths, name: &str) -> i32 {
    match install::forget(paths, name) {
        Ok(()) => {
            say(&format!(
                "{name}: forgotten; nothing on it was touched (its agents still run \
                 the hook, which stays silent without a link).\n"
            ));
            0
        }
        Err(e) => {
            eprintln!("vults-app: {e}");
            1
        }
    }
}

fn list(paths: &Paths) -> i32 {
    match HostList::load(paths) {
        Ok(list) if list.hosts.is_empty() => {
            say("No hosts. Add one with: vults-app remote add [user@]host\n");
            0
        }
        Ok(list) => {
            for h in &list.hosts {
                let port = h.port.map(|p| format!(":{p}")).unwrap_or_default();
                say(&format!(
                    "{}  {}{port}  {}  hook sha256 {}\n",
                    h.name, h.target, h.system, h.hook_sha256
                ));
            }
            0
        }
        Err(e) => {
            eprintln!("vults-app: {e}");
            1
        }
    }
}

fn add(paths: &Paths, m: &ArgMatches) -> i32 {
    let spec = m.get_one::<String>("host").cloned().unwrap_or_default();
    let hook = m.get_one::<PathBuf>("hook").cloned();
    let mut host = match Host::parse(&spec) {
        Ok(h) => h,
        Err(e) => return super::usage_error(&["remote", "add"], &e.to_string()),
    };
    host.ssh_options = m
        .get_many::<String>("ssh")
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    match install::add(paths, host, hook.as_deref()) {
        Ok(added) => {
            say(&about(&format_reports(&added.reports), &added.host.name));
            say(&format!(
                "{}: {} — hook {} at {} (sha256 {}, checked on the host), {} file(s) written.\n\
                 The running app links it; its agents' calls show as {}:<folder>.\n",
                added.host.name,
                added.host.system,
                if added.uploaded {
                    "placed"
                } else {
                    "already there"
                },
                added.host.hook_path(),
                added.host.hook_sha256,
                added.written.len(),
                added.host.name,
            ));
            let bad = added.reports.iter().any(|r| {
                matches!(
                    r.state,
                    vults_installer::AgentState::Unparsable { .. }
                        | vults_installer::AgentState::Failed(_)
                )
            });
            i32::from(bad)
        }
        Err(e) => {
            eprintln!("vults-app: remote add {spec}: {e}");
            1
        }
    }
}

/// The installer's report, about a host rather than this machine.
fn about(report: &str, host: &str) -> String {
    report.replace("on this machine", &format!("on {host}"))
}

fn say(text: &str) {
    super::print(text);
}
