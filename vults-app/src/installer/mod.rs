//! The installer: puts `vults-hook` into each agent's own configuration, keeps it there, and
//! takes it out again — without losing a byte of anything else.
//!
//! Start from [`install_all`] (run on every app start, and by `vults-app install`),
//! [`uninstall_all`] (`vults-app --uninstall`), [`doctor`] (read-only, `vults-app doctor`) and
//! [`first_run_message`]. Each returns one [`AgentReport`] per agent.
//!
//! The promises (RTK's installer, and more):
//! - agents' configs run an absolute path to a Vults-owned copy of the hook whose SHA-256 is
//!   recorded ([`state`]); a copy whose hash changed is reported tampered and replaced;
//! - a file that does not parse is never rewritten: its state says where (line, column);
//! - a `.bak` before the first change, atomic writes that keep permissions and follow symlinks,
//!   a re-read to verify ([`jsonfile`]);
//! - only Vults' own entries are added, updated or removed; other tools' hooks, unknown keys
//!   and key order stay ([`entries`]); a second run changes no byte;
//! - uninstall removes exactly what was added, and gives Claude Code its own status line back.
//!
//! Not here: what the hook does at run time (`vults-hook`), or the window's Settings → Agents
//! view, which shows these reports.

pub mod cli;
pub mod entries;
pub mod jsonfile;
mod opencode;
pub mod state;
mod tomlfile;
pub mod windows;

use entries::Shape;
use serde_json::{Map, Value, json};
use state::{CopyOutcome, HookCopy, InstallState};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use vults_core::paths::Paths;
use vults_core::protocol::timeouts::{ASK_ENTRY_S, OTHER_ENTRY_S, PERMISSION_ENTRY_S};

/// Every agent the installer knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AgentId {
    Claude,
    Codex,
    Copilot,
    Qwen,
    Opencode,
    Cursor,
    Droid,
    Kimi,
    /// Only leftovers: Gemini CLI hooks are no longer installed (the hook sends nothing).
    Gemini,
}

impl AgentId {
    pub const ALL: [AgentId; 9] = [
        AgentId::Claude,
        AgentId::Codex,
        AgentId::Copilot,
        AgentId::Qwen,
        AgentId::Opencode,
        AgentId::Cursor,
        AgentId::Droid,
        AgentId::Kimi,
        AgentId::Gemini,
    ];

    /// The name `--agent` takes, and the key in `settings.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentId::Claude => "claude",
            AgentId::Codex => "codex",
            AgentId::Copilot => "copilot",
            AgentId::Qwen => "qwen",
            AgentId::Opencode => "opencode",
            AgentId::Cursor => "cursor",
            AgentId::Droid => "droid",
            AgentId::Kimi => "kimi",
            AgentId::Gemini => "gemini",
        }
    }

    pub fn parse(s: &str) -> Option<AgentId> {
        AgentId::ALL.into_iter().find(|a| a.as_str() == s)
    }

    pub fn display_name(self) -> &'static str {
        match self {
            AgentId::Claude => "Claude Code",
            AgentId::Codex => "Codex CLI",
            AgentId::Copilot => "Copilot CLI",
            AgentId::Qwen => "Qwen Code",
            AgentId::Opencode => "OpenCode",
            AgentId::Cursor => "Cursor",
            AgentId::Droid => "Factory Droid",
            AgentId::Kimi => "Kimi Code",
            AgentId::Gemini => "Gemini CLI",
        }
    }

    /// Whether Vults answers this agent's permission requests (the others only show sessions).
    pub fn answers_permissions(self) -> bool {
        matches!(
            self,
            AgentId::Claude | AgentId::Codex | AgentId::Copilot | AgentId::Qwen | AgentId::Opencode
        )
    }
}

/// An agent's install state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentState {
    /// Vults' hook is in place, as this version writes it.
    Installed,
    /// Vults' entries are there but differ from what this version writes (repair updates them).
    Outdated,
    /// The installed hook copy's SHA-256 differs from the recorded one.
    Tampered,
    /// The agent is on this machine but Vults' hook is not (or its hook copy is gone).
    Missing,
    /// The agent's config home does not exist here.
    NotFound,
    /// The user turned the agent off in Settings → Agents.
    Disabled,
    /// The file does not parse; it was left untouched.
    Unparsable {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// Old Vults hooks of an agent Vults no longer installs into (Gemini CLI): offer removal.
    Leftover,
    /// Something else went wrong (unreadable file, unexpected shape, a failed write).
    Failed(String),
}

impl AgentState {
    pub fn label(&self) -> &'static str {
        match self {
            AgentState::Installed => "installed",
            AgentState::Outdated => "outdated",
            AgentState::Tampered => "tampered",
            AgentState::Missing => "missing",
            AgentState::NotFound => "not found on this machine",
            AgentState::Disabled => "turned off",
            AgentState::Unparsable { .. } => "cannot parse its settings",
            AgentState::Leftover => "old hooks left",
            AgentState::Failed(_) => "failed",
        }
    }

    /// Whether a Repair (an install run) would change something.
    pub fn needs_repair(&self) -> bool {
        matches!(
            self,
            AgentState::Outdated | AgentState::Tampered | AgentState::Missing
        )
    }
}

impl fmt::Display for AgentState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentState::Unparsable {
                path,
                line,
                column,
                message,
            } => write!(
                f,
                "{} does not parse (line {line}, column {column}: {message}); left untouched",
                path.display()
            ),
            AgentState::Failed(why) => write!(f, "failed: {why}"),
            other => f.write_str(other.label()),
        }
    }
}

/// What a call did to an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Nothing,
    Installed,
    Updated,
    Removed,
}

/// One agent's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentReport {
    pub agent: AgentId,
    /// The state after the call.
    pub state: AgentState,
    pub action: Action,
    /// The file (or plugin) Vults writes for this agent.
    pub path: Option<PathBuf>,
    /// What the user should know: a repaired hook copy, Codex's `/hooks` trust, …
    pub notes: Vec<String>,
}

/// How the agent's configuration is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    /// A JSON file with a `hooks` object.
    Json {
        shape: Shape,
        version: bool,
    },
    /// Codex's `config.toml` `[hooks]`.
    CodexToml,
    /// Kimi Code's `config.toml` `[[hooks]]`.
    KimiToml,
    OpencodePlugin,
}

/// Where an agent is looked for and what Vults writes there.
#[derive(Debug, Clone)]
struct Target {
    agent: AgentId,
    /// Its config home: when this does not exist, the agent is not on this machine.
    home: PathBuf,
    file: PathBuf,
    kind: Kind,
}

const CODEX_TRUST_NOTE: &str = "Codex runs new or changed hooks only after you trust them: \
     open /hooks in Codex once and trust the Vults entries.";

/// A directory an agent lets the user move with an environment variable (`COPILOT_HOME` …).
/// When the agents' home is not the user's own (`VULTS_HOME`, `VULTS_AGENT_HOME`, a test), a
/// variable pointing outside it is ignored, so a test never touches a real home.
fn env_dir(paths: &Paths, var: &str) -> Option<PathBuf> {
    let dir = std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)?;
    let own_home = std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .is_some_and(|h| Path::new(&h) == paths.agent_home);
    (own_home || dir.starts_with(&paths.agent_home)).then_some(dir)
}

fn target(paths: &Paths, agent: AgentId) -> Target {
    let h = &paths.agent_home;
    let grouped = Kind::Json {
        shape: Shape::Grouped,
        version: false,
    };
    match agent {
        AgentId::Claude => Target {
            agent,
            home: h.join(".claude"),
            file: h.join(".claude").join("settings.json"),
            kind: grouped,
        },
        AgentId::Codex => {
            let home = env_dir(paths, "CODEX_HOME").unwrap_or_else(|| h.join(".codex"));
            let json = home.join("hooks.json");
            let toml = home.join("config.toml");
            // The user keeps hooks in config.toml when it has a [hooks] event list and no
            // hooks.json exists; otherwise hooks.json (what Codex documents first).
            if !json.exists() && tomlfile::codex_has_hooks(&toml) {
                Target {
                    agent,
                    home,
                    file: toml,
                    kind: Kind::CodexToml,
                }
            } else {
                Target {
                    agent,
                    home,
                    file: json,
                    kind: grouped,
                }
            }
        }
        AgentId::Copilot => {
            let home = env_dir(paths, "COPILOT_HOME").unwrap_or_else(|| h.join(".copilot"));
            Target {
                agent,
                file: home.join("settings.json"),
                home,
                kind: Kind::Json {
                    shape: Shape::Flat,
                    version: false,
                },
            }
        }
        AgentId::Qwen => Target {
            agent,
            home: h.join(".qwen"),
            file: h.join(".qwen").join("settings.json"),
            kind: grouped,
        },
        AgentId::Opencode => {
            let config = env_dir(paths, "XDG_CONFIG_HOME").unwrap_or_else(|| h.join(".config"));
            let home = config.join("opencode");
            Target {
                agent,
                file: opencode::plugin_file(&home),
                home,
                kind: Kind::OpencodePlugin,
            }
        }
        AgentId::Cursor => Target {
            agent,
            home: h.join(".cursor"),
            file: h.join(".cursor").join("hooks.json"),
            kind: Kind::Json {
                shape: Shape::Flat,
                version: true,
            },
        },
        AgentId::Droid => {
            let home = h.join(".factory");
            // Droid reads settings.json's hooks only while hooks.json is absent: creating
            // hooks.json would silence the user's own hooks, so it is used only if it exists.
            let json = home.join("hooks.json");
            let file = if json.exists() {
                json
            } else {
                home.join("settings.json")
            };
            Target {
                agent,
                home,
                file,
                kind: grouped,
            }
        }
        AgentId::Kimi => {
            let home = env_dir(paths, "KIMI_CODE_HOME").unwrap_or_else(|| h.join(".kimi-code"));
            Target {
                agent,
                file: home.join("config.toml"),
                home,
                kind: Kind::KimiToml,
            }
        }
        AgentId::Gemini => Target {
            agent,
            home: h.join(".gemini"),
            file: h.join(".gemini").join("settings.json"),
            kind: grouped,
        },
    }
}

/// The hook's path as a shell word: quoted when it holds anything but plain path characters.
pub fn shell_path(path: &Path) -> String {
    let s = path.to_string_lossy();
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%=\\".contains(c));
    if plain {
        s.into_owned()
    } else if cfg!(windows) {
        format!("\"{s}\"")
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// One hook entry Vults wants: its event, optional matcher, flags and timeout.
struct Want {
    event: &'static str,
    matcher: Option<&'static str>,
    flags: &'static str,
    timeout: u64,
}

const fn want(event: &'static str, matcher: Option<&'static str>, timeout: u64) -> Want {
    Want {
        event,
        matcher,
        flags: "",
        timeout,
    }
}

const T: u64 = OTHER_ENTRY_S;
const P: u64 = PERMISSION_ENTRY_S;
const ALL_TOOLS: Option<&str> = Some("*");

fn wants(agent: AgentId) -> Vec<Want> {
    match agent {
        AgentId::Claude => vec![
            want("SessionStart", None, T),
            want("UserPromptSubmit", None, T),
            want("PreToolUse", ALL_TOOLS, T),
            Want {
                event: "PreToolUse",
                matcher: Some("AskUserQuestion"),
                flags: " --ask",
                timeout: ASK_ENTRY_S,
            },
            want("PermissionRequest", ALL_TOOLS, P),
            want("PostToolUse", ALL_TOOLS, T),
            // A call that ran and failed after the user allowed it in Claude Code's own dialog:
            // its card is withdrawn as answered in the terminal.
            want("PostToolUseFailure", ALL_TOOLS, T),
            want("Notification", None, T),
            want("Stop", None, T),
            want("SubagentStop", None, T),
            want("PreCompact", None, T),
            want("SessionEnd", None, T),
        ],
        // The events Codex 0.169 was seen to run. It clamps SessionEnd to 3 s (with a warning
        // otherwise); no matcher keeps the trust hash the user reviews in /hooks simple.
        AgentId::Codex => vec![
            want("SessionStart", None, T),
            want("UserPromptSubmit", None, T),
            want("PreToolUse", None, T),
            want("PermissionRequest", None, P),
            want("PostToolUse", None, T),
            want("Stop", None, T),
            want("SessionEnd", None, 3),
        ],
        AgentId::Copilot => vec![
            want("sessionStart", None, T),
            want("userPromptSubmitted", None, T),
            want("preToolUse", None, T),
            want("permissionRequest", None, P),
            want("postToolUse", None, T),
            want("notification", None, T),
            want("errorOccurred", None, T),
            want("agentStop", None, T),
            want("subagentStop", None, T),
            want("sessionEnd", None, T),
        ],
        // Seconds below 1000 (Qwen reads larger values as legacy milliseconds).
        AgentId::Qwen => vec![
            want("SessionStart", None, T),
            want("UserPromptSubmit", None, T),
            want("PreToolUse", ALL_TOOLS, T),
            want("PermissionRequest", ALL_TOOLS, P),
            want("PostToolUse", ALL_TOOLS, T),
            want("PostToolUseFailure", ALL_TOOLS, T),
            want("Notification", None, T),
            want("Stop", None, T),
            want("SubagentStop", None, T),
            want("PreCompact", None, T),
            want("SessionEnd", None, T),
        ],
        AgentId::Cursor => vec![
            want("sessionStart", None, T),
            want("beforeSubmitPrompt", None, T),
            want("preToolUse", None, T),
            want("postToolUse", None, T),
            want("subagentStop", None, T),
            want("preCompact", None, T),
            want("stop", None, T),
            want("sessionEnd", None, T),
        ],
        AgentId::Droid | AgentId::Kimi => vec![
            want("SessionStart", None, T),
            want("UserPromptSubmit", None, T),
            want("PreToolUse", ALL_TOOLS, T),
            want("PostToolUse", ALL_TOOLS, T),
            want("Notification", None, T),
            want("Stop", None, T),
            want("SubagentStop", None, T),
            want("PreCompact", None, T),
            want("SessionEnd", None, T),
        ],
        AgentId::Opencode | AgentId::Gemini => Vec::new(),
    }
}

fn command(hook: &str, agent: AgentId, w: &Want) -> String {
    format!("{hook} --agent {}{} {}", agent.as_str(), w.flags, w.event)
}

/// The hook's arguments for one entry (`--agent <id> [--ask] <event>`).
fn hook_args(agent: AgentId, w: &Want) -> Vec<String> {
    ["--agent", agent.as_str()]
        .into_iter()
        .chain(w.flags.split_whitespace())
        .chain([w.event])
        .map(String::from)
        .collect()
}

/// Vults' entries for a JSON-kept agent, event by event in order. `hook_path`: the installed
/// hook's path (as a shell word on Unix; on Windows in the form each agent's runner needs, see
/// [`windows`]).
fn wanted_entries(agent: AgentId, shape: Shape, hook_path: &str) -> Vec<(String, Vec<Value>)> {
    let hook = shell_path(Path::new(hook_path));
    let mut out: Vec<(String, Vec<Value>)> = Vec::new();
    for w in wants(agent) {
        let cmd = command(&hook, agent, &w);
        let on_windows = if cfg!(windows) {
            windows::handler(
                agent,
                Path::new(hook_path),
                &hook_args(agent, &w),
                w.timeout,
            )
        } else {
            None
        };
        let entry = match (shape, agent) {
            (Shape::Grouped, _) => {
                let mut group = Map::new();
                if let Some(m) = w.matcher {
                    group.insert("matcher".into(), json!(m));
                }
                let handler = on_windows.unwrap_or_else(
                    || json!({"type": "command", "command": cmd, "timeout": w.timeout}),
                );
                group.insert("hooks".into(), json!([handler]));
                Value::Object(group)
            }
            // What the real CLI ran: the command under the shell's own key, timeoutSec (on
            // Windows, `powershell`).
            (Shape::Flat, AgentId::Copilot) => on_windows.unwrap_or_else(
                || json!({"type": "command", "bash": cmd, "timeoutSec": w.timeout}),
            ),
            (Shape::Flat, _) => json!({"command": cmd, "timeout": w.timeout}),
        };
        match out.iter_mut().find(|(e, _)| e == w.event) {
            Some((_, list)) => list.push(entry),
            None => out.push((w.event.to_string(), vec![entry])),
        }
    }
    out
}

/// A settings file that could not be replaced: which one, why, and that it is unchanged (the
/// write is atomic). On Windows "access denied" or a sharing violation mostly means another
/// program (an editor) holds the file open without letting others replace it.
fn write_failed(path: &Path, e: &std::io::Error) -> AgentState {
    let held = if cfg!(windows) && matches!(e.raw_os_error(), Some(5 | 32 | 33)) {
        "; another program may hold it open: close it, then Repair"
    } else {
        ""
    };
    AgentState::Failed(format!(
        "cannot write {}: {e}{held}; the file is unchanged",
        path.display()
    ))
}

fn statusline_command(hook: &str) -> String {
    format!("{hook} --agent claude --statusline")
}

/// What the installer works with during one call.
struct Run<'a> {
    paths: &'a Paths,
    state: InstallState,
    /// The installed hook's path, as written into configs.
    hook_word: String,
    /// The installed hook's path, to recognise Vults' entries.
    hook_path: String,
    copy: HookCopy,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Install,
    Uninstall,
    Check,
}

/// Options for [`install_all`].
#[derive(Debug, Clone, Default)]
pub struct InstallOptions {
    /// Install only into these agents (all when empty): Settings → Agents' Repair button.
    pub only: Vec<AgentId>,
}

/// Places the hook copy, then installs or repairs the hook for every agent found on this
/// machine (and turned on). A file that does not parse is reported and left alone.
pub fn install_all(paths: &Paths, hook_source: &Path, opts: &InstallOptions) -> Vec<AgentReport> {
    jsonfile::remove_stale_temps(&paths.install_state_file());
    jsonfile::remove_stale_temps(&paths.installed_hook());
    let mut state = InstallState::load(paths);
    let copy_result = state::place_hook(paths, hook_source, &mut state);
    let copy_note = match &copy_result {
        Ok(CopyOutcome::Repaired) => Some(format!(
            "The hook copy at {} did not match its recorded SHA-256 (tampered); it was replaced.",
            paths.installed_hook().display()
        )),
        Ok(_) => None,
        Err(e) => Some(format!("The hook copy could not be placed: {e}")),
    };
    if copy_result.is_ok() {
        // Right away, so the copy and its recorded hash differ for as short a time as possible.
        let _ = state.save(paths);
    }
    let mut run = Run::new(paths, state);
    let mut reports = Vec::new();
    for agent in AgentId::ALL {
        if !opts.only.is_empty() && !opts.only.contains(&agent) {
            continue;
        }
        let mut report = if copy_result.is_err() {
            run.agent(agent, Op::Check)
        } else if agent == AgentId::Gemini {
            // Leftovers are offered for removal, never removed on their own.
            run.agent(agent, Op::Check)
        } else if state::is_enabled(paths, agent.as_str()) {
            run.agent(agent, Op::Install)
        } else {
            // Turned off: take Vults out, and say it is off.
            let mut r = run.agent(agent, Op::Uninstall);
            if r.state == AgentState::Missing || r.state == AgentState::Installed {
                r.state = AgentState::Disabled;
            }
            r
        };
        if let Some(note) = &copy_note
            && report.path.is_some()
            && !matches!(report.state, AgentState::NotFound | AgentState::Disabled)
        {
            report.notes.insert(0, note.clone());
            if copy_result.is_err() {
                report.state = AgentState::Failed(note.clone());
            }
        }
        if include(&report) {
            reports.push(report);
        }
    }
    if let Err(e) = run.state.save(paths) {
        for r in &mut reports {
            r.notes
                .push(format!("Vults could not save what it installed: {e}"));
        }
    }
    reports
}

/// What the app's start did: the reports, and whether this was the first run (no install
/// record yet), when the window shows [`first_run_message`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartReport {
    pub reports: Vec<AgentReport>,
    pub first_run: bool,
}

impl StartReport {
    /// The first-run text, only on the first run.
    pub fn message(&self) -> Option<String> {
        self.first_run.then(|| first_run_message(&self.reports))
    }
}

/// The app's start: installs or repairs with the `vults-hook` built beside the app. Without
/// one (a development run of the app alone) nothing is written and the states are reported.
pub fn on_app_start(paths: &Paths) -> StartReport {
    let first_run = !paths.install_state_file().exists();
    let reports = match default_hook_source().filter(|p| p.is_file()) {
        Some(source) => install_all(paths, &source, &InstallOptions::default()),
        None => missing_source(doctor(paths)),
    };
    StartReport { reports, first_run }
}

/// Settings → Agents' Repair button (also turns nothing off or on).
pub fn repair(paths: &Paths, agent: AgentId) -> Vec<AgentReport> {
    match default_hook_source().filter(|p| p.is_file()) {
        Some(source) => install_all(paths, &source, &InstallOptions { only: vec![agent] }),
        None => missing_source(doctor(paths))
            .into_iter()
            .filter(|r| r.agent == agent)
            .collect(),
    }
}

fn missing_source(mut reports: Vec<AgentReport>) -> Vec<AgentReport> {
    for r in &mut reports {
        if r.state != AgentState::NotFound {
            r.notes.push(
                "vults-hook was not found beside the app, so nothing was installed; reinstall Vults."
                    .into(),
            );
        }
    }
    reports
}

/// Takes Vults out of every agent: exactly what was added, the user's status line back.
/// The hook copy and its record are removed too.
pub fn uninstall_all(paths: &Paths) -> Vec<AgentReport> {
    jsonfile::remove_stale_temps(&paths.install_state_file());
    jsonfile::remove_stale_temps(&paths.installed_hook());
    let mut run = Run::new(paths, InstallState::load(paths));
    let mut reports = Vec::new();
    for agent in AgentId::ALL {
        let r = run.agent(agent, Op::Uninstall);
        if include(&r) {
            reports.push(r);
        }
    }
    let clean = reports.iter().all(|r| {
        !matches!(
            r.state,
            AgentState::Unparsable { .. } | AgentState::Failed(_)
        )
    });
    if clean {
        // Nothing points at the copy any more; a file Vults could not edit keeps it working.
        let _ = fs::remove_file(paths.installed_hook());
        run.state.hook = None;
    }
    if run.state == InstallState::default() {
        let _ = fs::remove_file(paths.install_state_file());
    } else {
        let _ = run.state.save(paths);
    }
    reports
}

/// Every agent's state, touching nothing.
pub fn doctor(paths: &Paths) -> Vec<AgentReport> {
    doctor_against(paths, None)
}

/// [`doctor`], also comparing the installed hook copy with `hook_source` (the `vults-hook` of
/// the app that asks): a copy of another version makes installed agents outdated, since the
/// hook and the app must speak the same protocol version.
pub fn doctor_against(paths: &Paths, hook_source: Option<&Path>) -> Vec<AgentReport> {
    let state = InstallState::load(paths);
    let stale_copy = hook_source
        .and_then(|p| fs::read(p).ok())
        .zip(state.hook.as_ref())
        .is_some_and(|(bytes, rec)| state::sha256_hex(&bytes) != rec.sha256);
    let mut run = Run::new(paths, state);
    AgentId::ALL
        .into_iter()
        .map(|agent| {
            let mut r = run.agent(agent, Op::Check);
            if !state::is_enabled(paths, agent.as_str()) && agent != AgentId::Gemini {
                r.state = AgentState::Disabled;
            } else if stale_copy && r.state == AgentState::Installed {
                r.state = AgentState::Outdated;
                r.notes.push(
                    "The installed vults-hook is another version than this app's; \
                     starting the app (or Repair) updates it."
                        .into(),
                );
            }
            r
        })
        .filter(include)
        .collect()
}

/// Removes Vults' leftover Gemini CLI hooks (offered, never done on its own).
pub fn remove_gemini_leftovers(paths: &Paths) -> AgentReport {
    let mut run = Run::new(paths, InstallState::load(paths));
    let r = run.agent(AgentId::Gemini, Op::Uninstall);
    let _ = run.state.save(paths);
    r
}

/// Gemini shows up only when something of Vults is left there.
fn include(r: &AgentReport) -> bool {
    r.agent != AgentId::Gemini || r.state == AgentState::Leftover || r.action == Action::Removed
}

impl<'a> Run<'a> {
    fn new(paths: &'a Paths, state: InstallState) -> Run<'a> {
        let installed = paths.installed_hook();
        let copy = state::check_hook_copy(paths, &state);
        Run {
            paths,
            hook_word: shell_path(&installed),
            hook_path: installed.to_string_lossy().into_owned(),
            state,
            copy,
        }
    }

    fn agent(&mut self, agent: AgentId, op: Op) -> AgentReport {
        let t = target(self.paths, agent);
        let mut report = AgentReport {
            agent,
            state: AgentState::NotFound,
            action: Action::Nothing,
            path: Some(t.file.clone()),
            notes: Vec::new(),
        };
        if !t.home.is_dir() {
            report.path = None;
            return report;
        }
        if op != Op::Check {
            jsonfile::remove_stale_temps(&t.file);
            jsonfile::remove_stale_temps(&jsonfile::backup_path(&t.file));
        }
        let outcome = match &t.kind {
            Kind::Json { shape, version } => self.json_agent(&t, *shape, *version, op),
            Kind::CodexToml => tomlfile::codex(self, &t, op),
            Kind::KimiToml => tomlfile::kimi(self, &t, op),
            Kind::OpencodePlugin => opencode::apply(self, &t, op),
        };
        match outcome {
            Ok((state, action)) => {
                report.state = state;
                report.action = action;
            }
            Err(state) => report.state = state,
        }
        if agent == AgentId::Codex
            && matches!(report.state, AgentState::Installed | AgentState::Outdated)
        {
            report.notes.push(CODEX_TRUST_NOTE.into());
        }
        if agent == AgentId::Gemini && op == Op::Uninstall && report.state == AgentState::Missing {
            if report.action == Action::Removed {
                // Say what went, not "not found": Vults' old hooks were there a moment ago.
                report.notes.push(
                    "Vults' old Gemini CLI hooks were removed from its settings (they did \
                     nothing any more); the rest of the file is as it was."
                        .into(),
                );
            } else {
                report.state = AgentState::NotFound;
            }
        }
        report
    }

    /// The state of an agent whose config is as Vults wants it (`current_is_wanted`) or holds
    /// some Vults entries (`has_ours`), given the hook copy.
    fn state_of(&self, current_is_wanted: bool, has_ours: bool) -> AgentState {
        match (current_is_wanted, has_ours, self.copy) {
            (_, true, HookCopy::Tampered) | (true, _, HookCopy::Tampered) => AgentState::Tampered,
            (_, _, HookCopy::Missing) => AgentState::Missing,
            (true, _, HookCopy::Verified) => AgentState::Installed,
            (false, true, _) => AgentState::Outdated,
            (false, false, _) => AgentState::Missing,
        }
    }

    /// What an install that has just written (and verified) a settings file reports: updated
    /// when Vults' entries were there before, installed when they are new.
    fn written(&self, had_ours: bool) -> (AgentState, Action) {
        let action = if had_ours {
            Action::Updated
        } else {
            Action::Installed
        };
        (self.state_of(true, true), action)
    }

    fn created_for(&self, file: &Path) -> Option<Vec<String>> {
        self.state.created_in(file).cloned()
    }

    fn record_created(&mut self, file: &Path, new: Vec<String>) {
        let key = file.to_string_lossy().into_owned();
        let list = self.state.created.entry(key.clone()).or_default();
        for item in new {
            if !list.contains(&item) {
                list.push(item);
            }
        }
        if list.is_empty() {
            self.state.created.remove(&key);
        }
    }

    fn forget_created(&mut self, file: &Path) {
        self.state
            .created
            .remove(&file.to_string_lossy().into_owned());
    }

    fn json_agent(
        &mut self,
        t: &Target,
        shape: Shape,
        version: bool,
        op: Op,
    ) -> Result<(AgentState, Action), AgentState> {
        let loaded = jsonfile::load(&t.file).map_err(|e| load_error(&t.file, e))?;
        let current = loaded.value.clone();
        let has_ours = entries::contains_ours(
            current.get("hooks").unwrap_or(&Value::Null),
            shape,
            &self.hook_path,
        ) || (t.agent == AgentId::Claude && self.statusline_is_ours(&current));
        let created = self.created_for(&t.file);
        let want = if op == Op::Uninstall || t.agent == AgentId::Gemini {
            Vec::new()
        } else {
            wanted_entries(t.agent, shape, &self.hook_path)
        };
        let mut next = current.clone();
        let mut scratch_state = self.state.clone();
        let mut made = Vec::new();
        {
            let root = next
                .as_object_mut()
                .ok_or_else(|| AgentState::Failed("not a JSON object".into()))?;
            // Cursor's file starts with `"version": 1`; put it first in a file Vults starts.
            if version
                && !want.is_empty()
                && !root.contains_key("version")
                && !root.contains_key("hooks")
            {
                root.insert("version".into(), json!(1));
                made.push("version".into());
            }
            let edit = entries::apply(
                root,
                "hooks",
                &want,
                shape,
                &self.hook_path,
                created.as_deref(),
            )
            .map_err(|e| {
                AgentState::Failed(format!("{}: {e}; left untouched", t.file.display()))
            })?;
            made.extend(edit.created);
            if version
                && want.is_empty()
                && !root.contains_key("hooks")
                && created
                    .as_ref()
                    .is_some_and(|c| c.iter().any(|x| x == "version"))
            {
                root.remove("version");
            }
            if t.agent == AgentId::Claude {
                let cmd = statusline_command(&self.hook_word);
                if want.is_empty() {
                    statusline_uninstall(root, &mut scratch_state, &self.hook_path);
                } else {
                    statusline_install(root, &mut scratch_state, &cmd, &self.hook_path);
                }
            }
        }
        if t.agent == AgentId::Gemini && op == Op::Check {
            let state = if has_ours {
                AgentState::Leftover
            } else {
                AgentState::NotFound
            };
            return Ok((state, Action::Nothing));
        }
        if op == Op::Check {
            return Ok((self.state_of(next == current, has_ours), Action::Nothing));
        }
        if op == Op::Uninstall {
            let made = created.unwrap_or_default();
            let back_to_nothing = next.as_object().is_some_and(Map::is_empty) && has_ours;
            let result = if back_to_nothing && made.iter().any(|c| c == "file") {
                fs::remove_file(&t.file)
            } else if back_to_nothing && made.iter().any(|c| c == "empty") {
                jsonfile::write_verified(&t.file, None, b"", None)
            } else if next != current {
                // When the result is exactly what the .bak holds, its own bytes come back
                // (the user's formatting too); otherwise the file is written in its style.
                let bytes = match jsonfile::backup_matching(&t.file, &next) {
                    Some(original) => Ok(original),
                    None => jsonfile::render(&next, &loaded.style),
                };
                bytes.and_then(|bytes| {
                    jsonfile::write_verified(&t.file, loaded.bytes.as_deref(), &bytes, Some(&next))
                })
            } else {
                Ok(())
            };
            result.map_err(|e| write_failed(&t.file, &e))?;
            self.state = scratch_state;
            self.forget_created(&t.file);
            let action = if has_ours {
                Action::Removed
            } else {
                Action::Nothing
            };
            return Ok((AgentState::Missing, action));
        }
        if next == current {
            self.state = scratch_state;
            return Ok((self.state_of(true, has_ours), Action::Nothing));
        }
        let bytes = jsonfile::render(&next, &loaded.style)
            .map_err(|e| AgentState::Failed(e.to_string()))?;
        if !loaded.existed() {
            made.push("file".into());
        } else if loaded.was_empty() {
            made.push("empty".into());
        }
        // Write-ahead: what uninstall needs (the user's status line, what Vults creates) is
        // saved before the settings file changes, so a crash in between loses nothing.
        self.state = scratch_state;
        self.record_created(&t.file, made);
        self.state
            .save(self.paths)
            .map_err(|e| AgentState::Failed(format!("cannot save install state: {e}")))?;
        // A file that was empty or absent has no user content to back up.
        let original = loaded.bytes.as_deref().filter(|_| !loaded.was_empty());
        jsonfile::write_verified(&t.file, original, &bytes, Some(&next))
            .map_err(|e| write_failed(&t.file, &e))?;
        Ok(self.written(has_ours))
    }

    fn statusline_is_ours(&self, doc: &Value) -> bool {
        doc.get("statusLine")
            .is_some_and(|s| entries::is_ours_handler(s, &self.hook_path))
    }
}

/// Claude Code's `statusLine` becomes Vults' (the user's own is saved, and chained by the hook).
fn statusline_install(
    root: &mut Map<String, Value>,
    state: &mut InstallState,
    cmd: &str,
    hook: &str,
) {
    let current = root.get("statusLine").cloned();
    let mut ours = match &current {
        Some(Value::Object(o)) => Value::Object(o.clone()),
        _ => json!({}),
    };
    if let Some(user) = current.filter(|s| !entries::is_ours_handler(s, hook)) {
        state.claude.insert("statusLine".into(), user);
    }
    ours["type"] = json!("command");
    ours["command"] = json!(cmd);
    match root.get_mut("statusLine") {
        Some(slot) => *slot = ours,
        None => {
            root.insert("statusLine".into(), ours);
        }
    }
}

fn statusline_uninstall(root: &mut Map<String, Value>, state: &mut InstallState, hook: &str) {
    let ours = root
        .get("statusLine")
        .is_some_and(|s| entries::is_ours_handler(s, hook));
    if !ours {
        return;
    }
    match state.claude.remove("statusLine") {
        Some(user) => {
            if let Some(slot) = root.get_mut("statusLine") {
                *slot = user;
            }
        }
        None => {
            root.remove("statusLine");
        }
    }
}

fn load_error(path: &Path, e: jsonfile::LoadError) -> AgentState {
    match e {
        jsonfile::LoadError::Unparsable {
            line,
            column,
            message,
        } => AgentState::Unparsable {
            path: path.to_path_buf(),
            line,
            column,
            message,
        },
        jsonfile::LoadError::Unexpected(why) => {
            AgentState::Failed(format!("{}: {why}; left untouched", path.display()))
        }
        jsonfile::LoadError::Io(why) => AgentState::Failed(why),
    }
}

/// The hook built next to the running app (`vults-hook` beside `vults-app`).
pub fn default_hook_source() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let name = if cfg!(windows) {
        "vults-hook.exe"
    } else {
        "vults-hook"
    };
    Some(exe.parent()?.join(name))
}

/// One line per agent, as `vults-app doctor` prints it.
pub fn format_reports(reports: &[AgentReport]) -> String {
    let mut out = String::new();
    for r in reports {
        let what = match r.action {
            Action::Nothing => String::new(),
            Action::Installed => " (installed now)".into(),
            Action::Updated => " (updated now)".into(),
            Action::Removed => " (removed now)".into(),
        };
        let state = if r.agent == AgentId::Gemini && r.action == Action::Removed {
            "old Vults hooks".to_string()
        } else {
            r.state.to_string()
        };
        out.push_str(&format!("{:<14} {state}{what}", r.agent.display_name()));
        if let Some(p) = &r.path
            && !matches!(r.state, AgentState::Unparsable { .. })
        {
            out.push_str(&format!("  [{}]", p.display()));
        }
        out.push('\n');
        for n in &r.notes {
            out.push_str(&format!("               - {n}\n"));
        }
    }
    if reports.is_empty() {
        out.push_str("No agent found on this machine.\n");
    }
    out
}

/// What the app says on its first run: the agents found, what was installed, and what the
/// user must still do.
pub fn first_run_message(reports: &[AgentReport]) -> String {
    let names = |f: &dyn Fn(&AgentReport) -> bool| -> Vec<&str> {
        reports
            .iter()
            .filter(|r| f(r))
            .map(|r| r.agent.display_name())
            .collect()
    };
    let found = names(&|r| r.agent != AgentId::Gemini && r.state != AgentState::NotFound);
    let mut out = String::new();
    if found.is_empty() {
        out.push_str(
            "Vults found no coding agent on this machine yet. Install one (Claude Code, Codex CLI, \
             Copilot CLI, Qwen Code, OpenCode …) and restart Vults: it puts its hook in by itself.\n",
        );
        return out;
    }
    out.push_str(&format!("Vults found: {}.\n", found.join(", ")));
    let done = names(&|r| matches!(r.state, AgentState::Installed));
    if !done.is_empty() {
        out.push_str(&format!(
            "Its hook is installed for: {}.\n",
            done.join(", ")
        ));
    }
    let cards = names(&|r| r.state == AgentState::Installed && r.agent.answers_permissions());
    if !cards.is_empty() {
        out.push_str(&format!(
            "Permission requests of {} now show up as cards.\n",
            cards.join(", ")
        ));
    }
    let sessions_only =
        names(&|r| r.state == AgentState::Installed && !r.agent.answers_permissions());
    if !sessions_only.is_empty() {
        out.push_str(&format!(
            "{} only show their sessions in the flock; they keep asking for permission in their own window.\n",
            sessions_only.join(", ")
        ));
    }
    if reports
        .iter()
        .any(|r| r.agent == AgentId::Claude && r.state == AgentState::Installed)
    {
        out.push_str(
            "Claude Code's status line now also feeds Vults; a status line of your own still shows.\n",
        );
    }
    let mut todo = Vec::new();
    for r in reports {
        match &r.state {
            AgentState::Installed | AgentState::Outdated if r.agent == AgentId::Codex => {
                todo.push(format!("Codex CLI: {CODEX_TRUST_NOTE}"));
            }
            AgentState::Unparsable { .. } => todo.push(format!(
                "{}: {}. Fix the file and Vults installs on its next start.",
                r.agent.display_name(),
                r.state
            )),
            AgentState::Failed(why) => todo.push(format!("{}: {why}", r.agent.display_name())),
            AgentState::Leftover => todo.push(
                "Gemini CLI: old Vults hooks are still in its settings; they do nothing now. \
                 Remove them from Settings > Agents."
                    .into(),
            ),
            _ => {}
        }
    }
    if !todo.is_empty() {
        out.push_str("Still to do:\n");
        for t in todo {
            out.push_str(&format!("- {t}\n"));
        }
    }
    out
}
