//! Installing, repairing, checking and uninstalling: one call over every agent (the front
//! door, `lib.rs`, re-exports what is here), each agent through [`Run::agent`].

use super::agents::{self, Kind};
use super::locate::target;
use super::report::{Action, AgentReport, AgentState, CODEX_TRUST_NOTE, first_run_message};
use super::run::{Op, Run};
use super::state::{self, CopyOutcome, InstallState};
use super::{jsonfile, opencode, tomlfile};
use std::fs;
use std::path::{Path, PathBuf};
use vults_core::agents::Agent;
use vults_core::paths::Paths;
use vults_i18n::Message;

/// Options for [`install_all`].
#[derive(Debug, Clone, Default)]
pub struct InstallOptions {
    /// Install only into these agents (all when empty): Settings → Agents' Repair button.
    pub only: Vec<Agent>,
    /// The hook as the agents' configs must name it, when that is not
    /// [`Paths::installed_hook`]: an SSH host's files are installed into a local copy of them
    /// (the vults-remote crate), whose configs name the hook where it lives on the host.
    pub hook_at: Option<HookAt>,
}

/// Where the agents' configs find the hook: `word` starts each command (a shell word, maybe
/// with variables set before it), `path` is the hook's own path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookAt {
    /// What each command starts with: the hook as a shell word (`VULTS_HOME=… /path/vults-hook`).
    pub word: String,
    /// The hook's own path where the agent runs it.
    pub path: String,
}

/// Places the hook copy, then installs or repairs the hook for every agent found on this
/// machine (and turned on). A file that does not parse is reported and left alone.
pub fn install_all(paths: &Paths, hook_source: &Path, opts: &InstallOptions) -> Vec<AgentReport> {
    jsonfile::remove_stale_temps(&paths.install_state_file());
    jsonfile::remove_stale_temps(&paths.installed_hook());
    let mut state = InstallState::load(paths);
    let copy_result = state::place_hook(paths, hook_source, &mut state);
    let copy_note = match &copy_result {
        Ok(CopyOutcome::Repaired) => Some(
            Message::new("agents-note-hook-replaced")
                .arg("path", paths.installed_hook().display().to_string()),
        ),
        Ok(_) => None,
        Err(e) => Some(Message::new("agents-note-hook-not-placed").arg("error", e.to_string())),
    };
    if copy_result.is_ok() {
        // Right away, so the copy and its recorded hash differ for as short a time as possible.
        let _ = state.save(paths);
    }
    let mut run = Run::new(paths, state);
    if let Some(at) = &opts.hook_at {
        run.hook_word = at.word.clone();
        run.hook_path = at.path.clone();
    }
    let mut reports = Vec::new();
    for agent in agents::installed_agents() {
        if !opts.only.is_empty() && !opts.only.contains(&agent) {
            continue;
        }
        let mut report = if copy_result.is_err() {
            run.agent(agent, Op::Check)
        } else if agent.retired() {
            // Leftovers are offered for removal, never removed on their own.
            run.agent(agent, Op::Check)
        } else if state::is_enabled(paths, agent.name()) {
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
                report.state = AgentState::Failed(note.english());
            }
        }
        if include(&report) {
            reports.push(report);
        }
    }
    if let Err(e) = run.state.save(paths) {
        for r in &mut reports {
            r.notes
                .push(Message::new("agents-note-not-saved").arg("error", e.to_string()));
        }
    }
    reports
}

/// What the app's start did: the reports, and whether this was the first run (no install
/// record yet), when the window shows [`first_run_message`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartReport {
    /// One report per agent.
    pub reports: Vec<AgentReport>,
    /// There was no install record before this start.
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
pub fn repair(paths: &Paths, agent: Agent) -> Vec<AgentReport> {
    match default_hook_source().filter(|p| p.is_file()) {
        Some(source) => install_all(
            paths,
            &source,
            &InstallOptions {
                only: vec![agent],
                ..InstallOptions::default()
            },
        ),
        None => missing_source(doctor(paths))
            .into_iter()
            .filter(|r| r.agent == agent)
            .collect(),
    }
}

fn missing_source(mut reports: Vec<AgentReport>) -> Vec<AgentReport> {
    for r in &mut reports {
        if r.state != AgentState::NotFound {
            r.notes.push(Message::new("agents-note-no-hook-beside"));
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
    for agent in agents::installed_agents() {
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
    agents::installed_agents()
        .map(|agent| {
            let mut r = run.agent(agent, Op::Check);
            if !state::is_enabled(paths, agent.name()) && !agent.retired() {
                r.state = AgentState::Disabled;
            } else if stale_copy && r.state == AgentState::Installed {
                r.state = AgentState::Outdated;
                r.notes.push(Message::new("agents-note-other-version"));
            }
            r
        })
        .filter(include)
        .collect()
}

/// Removes Vults' old hooks from the settings of an agent Vults no longer serves
/// ([`Agent::retired`]; offered, never done on its own).
pub fn remove_leftovers(paths: &Paths, agent: Agent) -> AgentReport {
    let mut run = Run::new(paths, InstallState::load(paths));
    let r = run.agent(agent, Op::Uninstall);
    let _ = run.state.save(paths);
    r
}

/// A retired agent shows up only when something of Vults is left there.
fn include(r: &AgentReport) -> bool {
    !r.agent.retired() || r.state == AgentState::Leftover || r.action == Action::Removed
}

impl Run<'_> {
    /// Installs, removes or checks Vults for one agent: finds its file ([`locate::target`]) and
    /// hands it to the module that keeps its format.
    pub(super) fn agent(&mut self, agent: Agent, op: Op) -> AgentReport {
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
        // A backup from an earlier install (one this run makes is of the file as it found it).
        let earlier_backup = jsonfile::backup_path(&t.file).exists();
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
                if op == Op::Uninstall
                    && earlier_backup
                    && let Some(note) = settle_backup(&t.file)
                {
                    report.notes.push(note);
                }
            }
            Err(state) => report.state = state,
        }
        if agent.needs_trust()
            && matches!(report.state, AgentState::Installed | AgentState::Outdated)
        {
            report.notes.push(Message::new(CODEX_TRUST_NOTE));
        }
        if agent.retired() && op == Op::Uninstall && report.state == AgentState::Missing {
            if report.action == Action::Removed {
                // Say what went, not "not found": Vults' old hooks were there a moment ago.
                report.notes.push(
                    Message::new("agents-note-old-hooks-removed").arg("name", agent.display_name()),
                );
            } else {
                report.state = AgentState::NotFound;
            }
        }
        report
    }
}

/// Every agent's config home, and the files the installer may write there (settings, hooks and
/// After an uninstall, the `.bak` made before the first change: removed when the file is back
/// byte for byte as it holds (the folder is as Vults found it, and nothing is lost), else kept,
/// and the note says where. `None` when there is none, or it went.
fn settle_backup(file: &std::path::Path) -> Option<Message> {
    let bak = jsonfile::backup_path(file);
    let kept = std::fs::read(&bak).ok()?;
    if std::fs::read(file).is_ok_and(|now| now == kept) {
        match std::fs::remove_file(&bak) {
            Ok(()) => return None,
            Err(e) => tracing::warn!("cannot remove {}: {e}", bak.display()),
        }
    }
    Some(Message::new("agents-note-backup-kept").arg("path", bak.display().to_string()))
}

/// TOML files and their `.bak`s): what `vults-remote` copies from an SSH host and back.
/// Only the agents [`on_hosts`] says (OpenCode is left out).
pub fn config_files(paths: &Paths) -> Vec<(Agent, PathBuf, Vec<PathBuf>)> {
    agents::installed_agents()
        .filter(|a| agents::on_hosts(*a))
        .map(|agent| {
            let home = target(paths, agent).home;
            let files = ["settings.json", "hooks.json", "config.toml"]
                .iter()
                .flat_map(|name| {
                    let file = home.join(name);
                    [jsonfile::backup_path(&file), file]
                })
                .collect();
            (agent, home, files)
        })
        .collect()
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
