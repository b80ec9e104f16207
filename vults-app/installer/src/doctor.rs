//! `vults-app doctor` for people and for scripts: every agent's hook, the hook copy and the
//! socket, as lines or as JSON (`--json`, the shape in `docs/doctor.schema.json`), with an exit
//! status a script can test, and `--fix`, which repairs what it can and says what it did.
//!
//! The exit status is 1 when any agent found on this machine (and not turned off) has its hook
//! missing, altered (outdated, or its hook copy tampered with) or its settings unreadable, or
//! when the socket is there but not the app's (another user's, not a socket, or served by
//! another user); 0 otherwise. A socket with nobody listening, or none at all, is not a
//! problem: the app is simply not running.
//!
//! [`run`] is what the command line calls; [`report`] is the typed report.

use super::install::{InstallOptions, doctor_against, install_all};
use super::report::{Action, AgentState};
use super::state::{self, HookCopy, InstallState};
use serde::Serialize;
use std::path::{Path, PathBuf};
use vults_core::paths::Paths;
use vults_i18n::Message;

/// The version of the JSON shape (`docs/doctor.schema.json`); a change that could break a
/// script raises it.
pub const SCHEMA_VERSION: u32 = 1;

/// Everything doctor found (and, with `--fix`, did).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DoctorReport {
    /// [`SCHEMA_VERSION`].
    pub schema: u32,
    /// No problem left: the exit status is 0.
    pub ok: bool,
    /// One per agent the installer knows and found (or that has Vults' leftovers).
    pub agents: Vec<AgentDoctor>,
    /// The hook copy the agents run.
    pub hook: HookDoctor,
    /// The socket the hook talks to the app on.
    pub socket: SocketDoctor,
    /// The app's log file.
    pub log_file: PathBuf,
    /// What `--fix` did, a sentence each (empty without `--fix`, or when nothing needed it).
    pub fixed: Vec<String>,
}

/// One agent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentDoctor {
    /// Its `--agent` name (`claude`, `qwen`).
    pub agent: String,
    /// Its display name (`Claude Code`).
    pub name: String,
    /// `installed`, `outdated`, `tampered`, `missing`, `not_found`, `disabled`, `unparsable`,
    /// `leftover` or `failed`.
    pub state: &'static str,
    /// This state makes the exit status 1.
    pub problem: bool,
    /// The settings file (or plugin) Vults writes for it.
    pub path: Option<PathBuf>,
    /// The state in words (where a file does not parse, why a write failed).
    pub detail: String,
    /// What the person should know.
    pub notes: Vec<String>,
}

/// The installed hook copy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HookDoctor {
    /// Where it is.
    pub path: PathBuf,
    /// `verified` (its SHA-256 is the recorded one), `tampered` or `missing`.
    pub state: &'static str,
    /// Whether it is the same build as the `vults-hook` beside this app; `None` when either
    /// is not there.
    pub same_as_app: Option<bool>,
}

/// The hook socket.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SocketDoctor {
    /// Where it is.
    pub path: PathBuf,
    /// `running` (the app answers, as this user), `not_running` (no socket), `stale` (a
    /// socket nobody listens on; the app replaces it when it starts), `not_the_apps` (another
    /// user's folder or file, not a socket, or served by another user) or `not_checked`
    /// (Windows: its named pipe is checked by the hook itself).
    pub state: &'static str,
    /// This state makes the exit status 1.
    pub problem: bool,
    /// Why, in words.
    pub detail: String,
}

fn state_name(s: &AgentState) -> &'static str {
    match s {
        AgentState::Installed => "installed",
        AgentState::Outdated => "outdated",
        AgentState::Tampered => "tampered",
        AgentState::Missing => "missing",
        AgentState::NotFound => "not_found",
        AgentState::Disabled => "disabled",
        AgentState::Unparsable { .. } => "unparsable",
        AgentState::Leftover => "leftover",
        AgentState::Failed(_) => "failed",
    }
}

/// Whether an agent's state makes doctor fail: its hook missing, altered or unreadable.
pub fn is_problem(s: &AgentState) -> bool {
    matches!(
        s,
        AgentState::Outdated
            | AgentState::Tampered
            | AgentState::Missing
            | AgentState::Unparsable { .. }
            | AgentState::Failed(_)
    )
}

/// Checks everything; with `fix`, first repairs every agent whose hook is missing or altered
/// (an install run with `hook_source`, the `vults-hook` beside the app), then checks again.
/// A file that does not parse is never written, fixed or not.
pub fn report(paths: &Paths, hook_source: Option<&Path>, fix: bool) -> DoctorReport {
    let mut fixed = Vec::new();
    if fix {
        let before = doctor_against(paths, hook_source);
        let broken: Vec<_> = before
            .iter()
            .filter(|r| r.state.needs_repair())
            .map(|r| r.agent)
            .collect();
        if !broken.is_empty() {
            match hook_source.filter(|p| p.is_file()) {
                None => fixed.push(
                    "Nothing repaired: vults-hook was not found beside the app (pass --hook \
                     <path>)."
                        .to_string(),
                ),
                Some(source) => {
                    let opts = InstallOptions {
                        only: broken,
                        hook_at: None,
                    };
                    for r in install_all(paths, source, &opts) {
                        let name = r.agent.display_name();
                        let line = match (&r.action, &r.state) {
                            (Action::Installed, AgentState::Installed) => {
                                format!("{name}: put Vults' hook back")
                            }
                            (Action::Updated | Action::Nothing, AgentState::Installed) => {
                                format!("{name}: repaired Vults' hook")
                            }
                            (_, state) => format!("{name}: could not repair it ({state})"),
                        };
                        let at = r.path.map(|p| format!(" in {}", p.display()));
                        fixed.push(format!("{line}{}.", at.unwrap_or_default()));
                    }
                }
            }
        }
        for r in &before {
            if let AgentState::Unparsable { .. } = r.state {
                fixed.push(format!(
                    "{}: not repaired: {}; fix the file by hand.",
                    r.agent.display_name(),
                    r.state
                ));
            }
        }
    }
    let agents: Vec<AgentDoctor> = doctor_against(paths, hook_source)
        .into_iter()
        .map(|r| AgentDoctor {
            agent: r.agent.name().to_string(),
            name: r.agent.display_name().to_string(),
            state: state_name(&r.state),
            problem: is_problem(&r.state),
            path: r.path,
            detail: r.state.to_string(),
            // English: `--json`'s readers are programs.
            notes: r.notes.iter().map(Message::english).collect(),
        })
        .collect();
    let install = InstallState::load(paths);
    let copy = state::check_hook_copy(paths, &install);
    let same_as_app = hook_source
        .and_then(|p| std::fs::read(p).ok())
        .zip(std::fs::read(paths.installed_hook()).ok())
        .map(|(a, b)| a == b);
    let hook = HookDoctor {
        path: paths.installed_hook(),
        state: match copy {
            HookCopy::Verified => "verified",
            HookCopy::Tampered => "tampered",
            HookCopy::Missing => "missing",
        },
        same_as_app,
    };
    let socket = check_socket(&paths.socket);
    if fix && socket.problem {
        fixed.push(format!(
            "The socket {} is not the app's ({}): doctor does not touch it; stop what serves \
             it, or remove it, then start Vults.",
            paths.socket.display(),
            socket.detail
        ));
    }
    let ok = !socket.problem && agents.iter().all(|a| !a.problem);
    DoctorReport {
        schema: SCHEMA_VERSION,
        ok,
        agents,
        hook,
        socket,
        log_file: paths.log_file(),
        fixed,
    }
}

/// `vults-app doctor [--json] [--fix]`: the output (lines for a person, or one JSON document)
/// and the exit status (0, or 1 when a problem is left).
pub fn run(paths: &Paths, hook_source: Option<&Path>, json: bool, fix: bool) -> (String, i32) {
    let r = report(paths, hook_source, fix);
    let code = i32::from(!r.ok);
    let out = if json {
        let mut s = serde_json::to_string_pretty(&r).unwrap_or_else(|e| {
            format!("{{\"schema\":{SCHEMA_VERSION},\"ok\":false,\"error\":\"{e}\"}}")
        });
        s.push('\n');
        s
    } else {
        text(&r)
    };
    (out, code)
}

/// The report as lines, one per agent (as `vults-app doctor` always printed), then the hook
/// copy, the socket, the log file, and what `--fix` did.
pub fn text(r: &DoctorReport) -> String {
    let mut out = String::new();
    for a in &r.agents {
        out.push_str(&format!("{:<14} {}", a.name, a.detail));
        if let Some(p) = &a.path
            && a.state != "unparsable"
        {
            out.push_str(&format!("  [{}]", p.display()));
        }
        out.push('\n');
        for n in &a.notes {
            out.push_str(&format!("               - {n}\n"));
        }
    }
    if r.agents.is_empty() {
        out.push_str("No agent found on this machine.\n");
    }
    out.push_str(&format!(
        "Hook copy:     {} [{}]\n",
        r.hook.state,
        r.hook.path.display()
    ));
    out.push_str(&format!(
        "Socket:        {} [{}]\n",
        r.socket.detail,
        r.socket.path.display()
    ));
    out.push_str(&format!("Log file: {}\n", r.log_file.display()));
    for f in &r.fixed {
        out.push_str(&format!("Fixed: {f}\n"));
    }
    if !r.ok {
        out.push_str(
            "Problems found: run `vults-app doctor --fix`, or Repair in Settings > Agents.\n",
        );
    }
    out
}

/// Whether the socket is the app's: its folder and file this user's, and the listener too.
#[cfg(unix)]
pub fn check_socket(socket: &Path) -> SocketDoctor {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let me = vults_core::paths::current_uid();
    let mk = |state: &'static str, problem: bool, detail: String| SocketDoctor {
        path: socket.to_path_buf(),
        state,
        problem,
        detail,
    };
    let meta = match std::fs::symlink_metadata(socket) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return mk("not_running", false, "the app is not running".into());
        }
        Err(e) => return mk("not_the_apps", true, format!("cannot read it: {e}")),
        Ok(m) => m,
    };
    let folder = socket
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    match std::fs::symlink_metadata(folder) {
        Ok(f) if !f.is_dir() => {
            return mk(
                "not_the_apps",
                true,
                format!("{} is not a folder", folder.display()),
            );
        }
        Ok(f) if f.uid() != me => {
            return mk(
                "not_the_apps",
                true,
                format!(
                    "its folder belongs to uid {}, not to you (uid {me})",
                    f.uid()
                ),
            );
        }
        Ok(f) if f.mode() & 0o022 != 0 => {
            return mk(
                "not_the_apps",
                true,
                format!(
                    "its folder can be written by others (mode {:o})",
                    f.mode() & 0o777
                ),
            );
        }
        Ok(_) => {}
        Err(e) => return mk("not_the_apps", true, format!("cannot read its folder: {e}")),
    }
    if !meta.file_type().is_socket() {
        return mk("not_the_apps", true, "it is not a socket".into());
    }
    if meta.uid() != me {
        return mk(
            "not_the_apps",
            true,
            format!("it belongs to uid {}, not to you (uid {me})", meta.uid()),
        );
    }
    match std::os::unix::net::UnixStream::connect(socket) {
        Err(_) => mk(
            "stale",
            false,
            "nobody listens on it (the app is not running; it replaces the file when it starts)"
                .into(),
        ),
        Ok(stream) => match vults_core::peer::peer_uid(&stream) {
            Ok(uid) if uid == me => mk("running", false, "the app is running".into()),
            Ok(uid) => mk(
                "not_the_apps",
                true,
                format!("it is served by uid {uid}, not by you (uid {me})"),
            ),
            Err(e) => mk(
                "not_the_apps",
                true,
                format!("cannot tell who serves it: {e}"),
            ),
        },
    }
}

/// Windows: the named pipe's server is checked by the hook itself before each event.
#[cfg(not(unix))]
pub fn check_socket(socket: &Path) -> SocketDoctor {
    SocketDoctor {
        path: socket.to_path_buf(),
        state: "not_checked",
        problem: false,
        detail: "not checked here (the hook checks the pipe's server before each event)".into(),
    }
}
