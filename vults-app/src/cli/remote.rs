//! `vults-app remote add|remove|list` (docs/hosts.md).

use std::path::PathBuf;
use vults_core::paths::Paths;
use vults_installer::format_reports;
use vults_remote::{Host, HostList, install};

pub const USAGE: &str = "\
usage: vults-app remote add [user@]host[:port] [--hook <path>] [-- <ssh options>...]
         Places vults-hook on the host (for its OS and architecture) and registers it in the
         agents found there; the running app links the host and answers its agents.
         <ssh options> are given to every ssh for this host (e.g. -i KEY -F CONFIG).
       vults-app remote remove [--forget] <host>
         Takes Vults out of the host's agents (their files as they were) and forgets the host.
         --forget: only forgets it, touching nothing on the host (one you cannot reach any more).
       vults-app remote list
         The hosts, their system and their hook's SHA-256.
VULTS_SSH names the ssh program (default: ssh from PATH); VULTS_HOST_HOOKS a folder of
prebuilt hooks for other systems, as <platform>/vults-hook (docs/hosts.md).";

/// `vults-app remote …` (the words after `remote`); the exit code.
pub fn run(paths: &Paths, args: &[String]) -> i32 {
    match args.first().map(String::as_str) {
        Some("add") => add(paths, &args[1..]),
        Some("remove") => match &args[1..] {
            [name] => match install::remove(paths, name) {
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
            },
            [flag, name] if flag == "--forget" => match install::forget(paths, name) {
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
            },
            _ => usage("remote remove takes one host name"),
        },
        Some("list") => match HostList::load(paths) {
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
        },
        Some("-h" | "--help") | None => usage(""),
        Some(other) => usage(&format!("unknown remote command {other:?}")),
    }
}

fn add(paths: &Paths, args: &[String]) -> i32 {
    let mut spec = None;
    let mut hook = None;
    let mut ssh_options = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--hook" => match it.next() {
                Some(p) => hook = Some(PathBuf::from(p)),
                None => return usage("--hook needs a path"),
            },
            "--" => {
                ssh_options.extend(it.by_ref().cloned());
            }
            s if spec.is_none() && !s.starts_with('-') => spec = Some(s.to_string()),
            other => return usage(&format!("unknown argument {other:?}")),
        }
    }
    let Some(spec) = spec else {
        return usage("remote add needs [user@]host[:port]");
    };
    let mut host = match Host::parse(&spec) {
        Ok(h) => h,
        Err(e) => return usage(&e),
    };
    host.ssh_options = ssh_options;
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

fn usage(problem: &str) -> i32 {
    if problem.is_empty() {
        eprintln!("{USAGE}");
    } else {
        eprintln!("vults-app: {problem}\n{USAGE}");
    }
    2
}

#[allow(clippy::print_stdout)] // reason: the CLI's report is its output, for people and scripts.
fn say(text: &str) {
    print!("{text}");
}
