//! Keeping Vults' hook in place while the app runs: the settings files it installed into, and
//! the agents' folders, watched with the `notify` crate.
//!
//! Between two starts another program (an overlay app, a dotfiles sync, an agent's own
//! settings migration, the person in an editor) may rewrite an agent's settings file without
//! Vults' entry; from then on the agent asks in its terminal. The watcher sees the change (a
//! file renamed over the old one, or an edit in place), and after a short quiet spell
//! ([`DEBOUNCE`]) checks each watched agent as `doctor` does:
//!
//! - Vults' entry removed or changed: it says so ([`WatchEvent::Removed`]), and when
//!   [`WatchSettings::keep_in_place`] is on (the default) puts it back with the installer's own
//!   atomic writer, touching no other key;
//! - removed again within [`FIGHT_WINDOW`] of a restore: it stops restoring and says that
//!   another program keeps removing it, naming the file ([`WatchEvent::KeepsRemoving`]); the
//!   entry is restored again only after it has been seen back in place (a Repair);
//! - a file that does not parse is never rewritten ([`WatchEvent::Unparsable`]);
//! - an agent whose folder appears is offered ([`WatchEvent::NewAgent`]), or installed at once
//!   when [`WatchSettings::install_new_agents`] is on; [`WatchHandle::install`] installs one.
//!
//! Vults' own writes are never taken for another program's: the check compares the file's
//! state, not who wrote it, and a restore leaves it installed. An agent turned off in Settings
//! → Agents, or a Vults uninstalled (its hook copy gone), is left alone.
//!
//! [`Keeper`] is the logic, with no thread and no clock of its own (tests drive it);
//! [`spawn`] runs it as a task on the app's one tokio runtime (`vults_engine::rt`, given by the
//! composition root). Dropping the [`WatchHandle`] stops it.

use super::agents::installed_agents;
use super::install::{InstallOptions, install_all};
use super::locate::target;
use super::report::AgentReport;
use super::report::AgentState;
use super::run::{Op, Run};
use super::state::{self, HookCopy, InstallState};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};
use vults_core::agents::Agent;
use vults_core::paths::Paths;

/// How long the files must stay still before they are checked: a program writing a file in
/// several steps is looked at once, when it is done.
pub const DEBOUNCE: Duration = Duration::from_millis(150);
/// However often a file keeps changing, a batch is checked at the latest this long after its
/// first change (within the 2 s in which a removal is said).
pub const BATCH_AT_MOST: Duration = Duration::from_secs(1);

/// A removal this soon after Vults put the entry back means another program keeps removing
/// it: Vults stops restoring rather than fight.
pub const FIGHT_WINDOW: Duration = Duration::from_secs(60);

/// The `settings.json` key of the watcher's two switches.
pub const SETTINGS_KEY: &str = "hooks";

/// The person's choices for the watcher (`settings.json`, `"hooks"`); every field has a
/// default, so an older file reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct WatchSettings {
    /// Put Vults' entry back when another program removes or changes it (Settings → Agents:
    /// "Keep Vults' hook in place"). On by default.
    pub keep_in_place: bool,
    /// Install into an agent whose folder appears while Vults runs, without asking. Off by
    /// default: the new agent is offered.
    pub install_new_agents: bool,
}

impl Default for WatchSettings {
    fn default() -> WatchSettings {
        WatchSettings {
            keep_in_place: true,
            install_new_agents: false,
        }
    }
}

impl WatchSettings {
    /// Reads them from `settings.json`; the defaults when the file, the key or a field is
    /// missing, or the file does not parse.
    pub fn load(paths: &Paths) -> WatchSettings {
        std::fs::read(paths.settings_file())
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .and_then(|v| v.get(SETTINGS_KEY).cloned())
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default()
    }

    /// Saves them into `settings.json`, keeping every other setting (a file that does not
    /// parse is left as it is and reported).
    pub fn save(&self, paths: &Paths) -> io::Result<()> {
        let value = serde_json::to_value(self).map_err(io::Error::other)?;
        state::edit_settings(paths, |root| {
            root.insert(SETTINGS_KEY.into(), value);
        })
    }
}

/// What the watcher saw and did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchEvent {
    /// Vults' entry was removed from (or changed in) an agent's settings by another program.
    Removed {
        /// The agent.
        agent: Agent,
        /// Its settings file.
        file: PathBuf,
        /// When it was seen.
        at: SystemTime,
        /// The entry is still there but not as Vults wrote it (changed, not removed).
        changed: bool,
        /// Vults put it back (keep in place is on and the write worked).
        restored: bool,
    },
    /// Removed again within [`FIGHT_WINDOW`] of a restore: Vults stopped restoring.
    KeepsRemoving {
        /// The agent.
        agent: Agent,
        /// The file another program keeps rewriting.
        file: PathBuf,
        /// When it was seen.
        at: SystemTime,
    },
    /// The file does not parse now; it is left untouched.
    Unparsable {
        /// The agent.
        agent: Agent,
        /// The file.
        file: PathBuf,
        /// Where and why, as `doctor` says it.
        why: String,
    },
    /// Putting the entry back failed (the file is unchanged).
    RestoreFailed {
        /// The agent.
        agent: Agent,
        /// The file.
        file: PathBuf,
        /// Why.
        why: String,
    },
    /// An agent's folder appeared while Vults runs.
    NewAgent {
        /// The agent.
        agent: Agent,
        /// Installed at once ("install in new agents"); otherwise it is offered.
        installed: bool,
    },
}

impl WatchEvent {
    /// The agent it is about.
    pub fn agent(&self) -> Agent {
        match self {
            WatchEvent::Removed { agent, .. }
            | WatchEvent::KeepsRemoving { agent, .. }
            | WatchEvent::Unparsable { agent, .. }
            | WatchEvent::RestoreFailed { agent, .. }
            | WatchEvent::NewAgent { agent, .. } => *agent,
        }
    }

    /// A notification's title.
    pub fn title(&self) -> String {
        let name = self.agent().display_name();
        match self {
            WatchEvent::Removed { changed: false, .. } => {
                format!("Vults' hook was removed from {name}'s settings")
            }
            WatchEvent::Removed { changed: true, .. } => {
                format!("Vults' hook was changed in {name}'s settings")
            }
            WatchEvent::KeepsRemoving { .. } => {
                format!("Another program keeps removing Vults' hook from {name}")
            }
            WatchEvent::Unparsable { .. } => format!("{name}'s settings do not parse"),
            WatchEvent::RestoreFailed { .. } => {
                format!("Vults could not put its hook back into {name}")
            }
            WatchEvent::NewAgent {
                installed: true, ..
            } => format!("{name} found: Vults' hook is installed"),
            WatchEvent::NewAgent {
                installed: false, ..
            } => format!("{name} found: install Vults' hook?"),
        }
    }

    /// What happened and what Vults did, in a sentence or two (the log, the console, the
    /// notification's body, Settings → Agents).
    pub fn text(&self) -> String {
        let name = self.agent().display_name();
        match self {
            WatchEvent::Removed {
                file,
                at,
                changed,
                restored,
                ..
            } => {
                let what = if *changed { "changed" } else { "removed" };
                let then = if *restored {
                    "Vults put it back; nothing else in the file was touched."
                } else {
                    "Keeping it in place is off, so it was left so: the agent asks in its \
                     terminal until you Repair it (Settings > Agents)."
                };
                format!(
                    "{name}: Vults' hook was {what} by another program at {} in {}. {then}",
                    clock(*at),
                    file.display()
                )
            }
            WatchEvent::KeepsRemoving { file, at, .. } => format!(
                "{name}: another program keeps removing Vults' hook from {} (again at {}, \
                 within a minute of Vults putting it back). Vults stopped restoring it; find \
                 the program that rewrites the file, then Repair (Settings > Agents).",
                file.display(),
                clock(*at)
            ),
            WatchEvent::Unparsable { why, .. } => {
                format!("{name}: {why}. Vults does not write a file it cannot read.")
            }
            WatchEvent::RestoreFailed { why, .. } => {
                format!("{name}: Vults' hook was removed and could not be put back: {why}")
            }
            WatchEvent::NewAgent {
                installed: true, ..
            } => format!("{name} appeared on this machine; Vults' hook is installed in it."),
            WatchEvent::NewAgent {
                installed: false, ..
            } => format!(
                "{name} appeared on this machine. Install Vults' hook in it from Settings > \
                 Agents (or turn on \"install in new agents\")."
            ),
        }
    }

    /// The state line Settings → Agents shows for the agent ("removed by another program at
    /// 10:42"), `None` for an event that changes nothing there.
    /// A message the window words in the person's language (its `Display` is the English).
    pub fn state_line(&self) -> Option<vults_i18n::Message> {
        use vults_i18n::Message;
        match self {
            WatchEvent::Removed {
                at,
                changed,
                restored,
                ..
            } => Some(
                Message::new(match (*changed, *restored) {
                    (false, false) => "agents-watch-removed",
                    (false, true) => "agents-watch-removed-put-back",
                    (true, false) => "agents-watch-changed",
                    (true, true) => "agents-watch-changed-put-back",
                })
                .arg("time", clock(*at)),
            ),
            WatchEvent::KeepsRemoving { at, .. } => {
                Some(Message::new("agents-watch-keeps-removing").arg("time", clock(*at)))
            }
            WatchEvent::RestoreFailed { .. } => Some(Message::new("agents-watch-restore-failed")),
            _ => None,
        }
    }
}

/// `10:42`, in local time.
pub fn clock(at: SystemTime) -> String {
    jiff::Timestamp::try_from(at)
        .ok()
        .map(|t| t.to_zoned_datetime(jiff::tz::TimeZone::system()))
        .map(|z| z.strftime("%H:%M").to_string())
        .unwrap_or_else(|| "?".into())
}

/// One watched agent.
#[derive(Debug, Clone)]
struct Watched {
    file: PathBuf,
    /// When Vults last put the entry back.
    restored_at: Option<Instant>,
    /// Vults stopped restoring (another program keeps removing it).
    gave_up: bool,
    /// The state last reported, so a state that stays is said once.
    said: Option<AgentState>,
}

/// The watcher's logic: which agents are watched, what each check finds and does. Driven by
/// [`spawn`]'s task (or a test) through [`Keeper::check`].
#[derive(Debug)]
pub struct Keeper {
    paths: Paths,
    watched: BTreeMap<Agent, Watched>,
    /// Agents whose folder is on this machine (a new one is offered once).
    homes: BTreeSet<Agent>,
    /// How many times Vults wrote an agent's settings (restores and installs): a test counts
    /// them to see there is no loop.
    writes: usize,
}

impl Keeper {
    /// Watches every agent whose hook is in place now (installed as this version writes it),
    /// and notes which agents' folders exist.
    pub fn new(paths: &Paths) -> Keeper {
        let mut k = Keeper {
            paths: paths.clone(),
            watched: BTreeMap::new(),
            homes: BTreeSet::new(),
            writes: 0,
        };
        let mut run = Run::new(paths, InstallState::load(paths));
        for agent in installed_agents().filter(|a| !a.retired()) {
            let t = target(paths, agent);
            if t.home.is_dir() {
                k.homes.insert(agent);
            }
            if run.agent(agent, Op::Check).state == AgentState::Installed {
                k.watch(agent);
            }
        }
        k
    }

    fn watch(&mut self, agent: Agent) {
        self.watched.insert(
            agent,
            Watched {
                file: target(&self.paths, agent).file,
                restored_at: None,
                gave_up: false,
                said: None,
            },
        );
    }

    /// The agents watched now.
    pub fn watched(&self) -> Vec<Agent> {
        self.watched.keys().copied().collect()
    }

    /// How many times the watcher wrote an agent's settings since it started.
    pub fn writes(&self) -> usize {
        self.writes
    }

    /// The folders to watch: each agent's folder (for its settings file), and the folders its
    /// folder would appear in (for a new agent).
    pub fn folders(&self) -> BTreeSet<PathBuf> {
        let mut out = BTreeSet::new();
        for agent in installed_agents().filter(|a| !a.retired()) {
            let t = target(&self.paths, agent);
            if let Some(dir) = t.file.parent() {
                out.insert(dir.to_path_buf());
            }
            out.insert(t.home.clone());
            if let Some(parent) = t.home.parent() {
                out.insert(parent.to_path_buf());
            }
        }
        out
    }

    /// Whether a change at `path` may concern the watcher: an agent's folder, or a file in it
    /// named as a settings file Vults writes. Anything else (another file in the home folder)
    /// is not even checked.
    pub fn concerns(&self, path: &Path) -> bool {
        installed_agents().filter(|a| !a.retired()).any(|agent| {
            let t = target(&self.paths, agent);
            path == t.home
                || path == t.file
                || (path.parent() == t.file.parent()
                    && path.file_name().is_some_and(|n| {
                        let n = n.to_string_lossy();
                        ["settings.json", "hooks.json", "config.toml"].contains(&n.as_ref())
                    }))
        })
    }

    /// Looks at every watched agent and at the agents' folders, and does what the settings say.
    /// `now` is the monotonic clock (for [`FIGHT_WINDOW`]), `at` the wall clock (for the words).
    pub fn check(&mut self, now: Instant, at: SystemTime) -> Vec<WatchEvent> {
        let mut out = Vec::new();
        let paths = self.paths.clone();
        let install = InstallState::load(&self.paths);
        // No hook copy, or not the recorded one: Vults was uninstalled, or is being updated.
        if state::check_hook_copy(&self.paths, &install) != HookCopy::Verified {
            return out;
        }
        let settings = WatchSettings::load(&self.paths);
        let mut run = Run::new(&paths, install);
        let agents: Vec<Agent> = self.watched.keys().copied().collect();
        for agent in agents {
            if !state::is_enabled(&self.paths, agent.name()) {
                // Turned off in Settings → Agents: Vults took its entry out itself.
                continue;
            }
            let report = run.agent(agent, Op::Check);
            let Some(w) = self.watched.get_mut(&agent) else {
                continue;
            };
            if let Some(p) = &report.path {
                w.file = p.clone();
            }
            let file = w.file.clone();
            match &report.state {
                AgentState::Installed => {
                    if w.gave_up {
                        // Put back by someone (a Repair): restore again from now on.
                        w.gave_up = false;
                        w.restored_at = None;
                    }
                    w.said = None;
                }
                AgentState::Missing | AgentState::Outdated => {
                    if w.gave_up {
                        continue;
                    }
                    let changed = report.state == AgentState::Outdated;
                    if w.restored_at
                        .is_some_and(|t| now.duration_since(t) < FIGHT_WINDOW)
                    {
                        w.gave_up = true;
                        w.said = Some(report.state.clone());
                        out.push(WatchEvent::KeepsRemoving { agent, file, at });
                        continue;
                    }
                    if !settings.keep_in_place {
                        if w.said.as_ref() != Some(&report.state) {
                            w.said = Some(report.state.clone());
                            out.push(WatchEvent::Removed {
                                agent,
                                file,
                                at,
                                changed,
                                restored: false,
                            });
                        }
                        continue;
                    }
                    w.restored_at = Some(now);
                    w.said = None;
                    self.writes += 1;
                    let restored = restore(&self.paths, agent);
                    // The fresh state of the run's record (a restore saves install.json).
                    run = Run::new(&paths, InstallState::load(&self.paths));
                    match restored {
                        Ok(()) => out.push(WatchEvent::Removed {
                            agent,
                            file,
                            at,
                            changed,
                            restored: true,
                        }),
                        Err(why) => out.push(WatchEvent::RestoreFailed {
                            agent,
                            file,
                            why: why.to_string(),
                        }),
                    }
                }
                AgentState::Unparsable { .. } | AgentState::Failed(_)
                    if w.said.as_ref() != Some(&report.state) =>
                {
                    w.said = Some(report.state.clone());
                    out.push(WatchEvent::Unparsable {
                        agent,
                        file,
                        why: report.state.to_string(),
                    });
                }
                // Its folder went (the agent was removed), or the hook copy changed: nothing
                // to put back.
                _ => {}
            }
        }
        // An agent installed since (a Repair, Settings' Install, `vults-app install`): watched.
        for agent in installed_agents().filter(|a| !a.retired()) {
            if !self.watched.contains_key(&agent)
                && self.homes.contains(&agent)
                && state::is_enabled(&self.paths, agent.name())
                && run.agent(agent, Op::Check).state == AgentState::Installed
            {
                self.watch(agent);
            }
        }
        for agent in installed_agents().filter(|a| !a.retired()) {
            if self.homes.contains(&agent) || !target(&self.paths, agent).home.is_dir() {
                continue;
            }
            self.homes.insert(agent);
            if !state::is_enabled(&self.paths, agent.name()) {
                continue;
            }
            let installed = settings.install_new_agents && self.install(agent).is_ok();
            out.push(WatchEvent::NewAgent { agent, installed });
        }
        out
    }

    /// Installs Vults' hook into `agent` (a new agent the person chose to install) and watches
    /// it from then on.
    pub fn install(&mut self, agent: Agent) -> Result<AgentReport, WatchError> {
        self.writes += 1;
        let report = install_one(&self.paths, agent)?;
        self.homes.insert(agent);
        self.watch(agent);
        Ok(report)
    }
}

/// Puts Vults' entries back into `agent`'s settings with the installer (the same atomic writer,
/// every other key kept), from the hook copy already in place.
fn restore(paths: &Paths, agent: Agent) -> Result<(), WatchError> {
    install_one(paths, agent).map(|_| ())
}

fn install_one(paths: &Paths, agent: Agent) -> Result<AgentReport, WatchError> {
    let copy = paths.installed_hook();
    let reports = install_all(
        paths,
        &copy,
        &InstallOptions {
            only: vec![agent],
            hook_at: None,
        },
    );
    match reports.into_iter().find(|r| r.agent == agent) {
        Some(r) if r.state == AgentState::Installed => Ok(r),
        Some(r) => Err(WatchError::NotInstalled(r.state)),
        None => Err(WatchError::NotFound),
    }
}

/// Why the watcher could not start, or could not put an agent's hook back.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// The install ran and left the agent in this state.
    #[error("{0}")]
    NotInstalled(AgentState),
    /// The install did not report on the agent.
    #[error("the agent was not found")]
    NotFound,
    /// The platform cannot watch files.
    #[error("cannot watch files here: {0}")]
    CannotWatch(notify::Error),
}

enum Cmd {
    Install(Agent),
}

/// The running watcher. Dropping it stops it.
pub struct WatchHandle {
    cmds: tokio::sync::mpsc::UnboundedSender<Cmd>,
    task: Option<tokio::task::AbortHandle>,
}

impl WatchHandle {
    /// Installs Vults' hook into an offered agent ([`WatchEvent::NewAgent`]); what it did comes
    /// back as a [`WatchEvent::NewAgent`] with `installed`.
    pub fn install(&self, agent: Agent) {
        let _ = self.cmds.send(Cmd::Install(agent));
    }
}

impl Drop for WatchHandle {
    fn drop(&mut self) {
        if let Some(t) = self.task.take() {
            t.abort();
        }
    }
}

/// Where the watcher's events go (a log line, the window's model, a notification).
pub type Sink = Arc<dyn Fn(WatchEvent) + Send + Sync>;

/// Starts the watcher as a task on `rt` (the app's runtime): the `notify` crate's own thread
/// feeds it; each batch of changes is checked [`DEBOUNCE`] after the last one, on a blocking
/// thread. Err when the platform cannot watch files (said once, the app runs on).
pub fn spawn(
    rt: &tokio::runtime::Handle,
    paths: &Paths,
    sink: Sink,
) -> Result<WatchHandle, WatchError> {
    let (cmds, task) = prepare(paths, sink)?;
    let task = rt.spawn(task).abort_handle();
    Ok(WatchHandle {
        cmds,
        task: Some(task),
    })
}

type Prepared = (
    tokio::sync::mpsc::UnboundedSender<Cmd>,
    std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
);

fn prepare(paths: &Paths, sink: Sink) -> Result<Prepared, WatchError> {
    let (raw_tx, mut raw) = tokio::sync::mpsc::unbounded_channel::<notify::Result<notify::Event>>();
    let mut watcher = notify::recommended_watcher(move |ev| {
        let _ = raw_tx.send(ev);
    })
    .map_err(WatchError::CannotWatch)?;
    let keeper = Keeper::new(paths);
    let mut folders = BTreeSet::new();
    add_watches(&mut watcher, &keeper, &mut folders);
    tracing::info!(
        "watching the hooks of {}",
        match keeper.watched().as_slice() {
            [] => "no agent yet".to_string(),
            list => list
                .iter()
                .map(|a| a.display_name())
                .collect::<Vec<_>>()
                .join(", "),
        }
    );
    let (cmds, mut cmd_rx) = tokio::sync::mpsc::unbounded_channel::<Cmd>();
    let task = async move {
        let mut keeper = Some(keeper);
        let mut due: Option<tokio::time::Instant> = None;
        // When the batch's first change came (the check waits at most BATCH_AT_MOST from it).
        let mut first: Option<tokio::time::Instant> = None;
        loop {
            let wait = async {
                match due {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                ev = raw.recv() => match ev {
                    None => break,
                    // A read (an agent reading its settings, many times a minute) changes
                    // nothing; anything else about a settings file is looked at once the files
                    // have been still for DEBOUNCE (a program that truncates, then writes, is
                    // seen when it is done), and at the latest BATCH_AT_MOST after the first
                    // change of a batch.
                    Some(Ok(ev)) if !ev.kind.is_access() => {
                        let k = keeper.as_ref().expect("the keeper is back after each check");
                        if ev.paths.iter().any(|p| k.concerns(p)) {
                            let now = tokio::time::Instant::now();
                            let start = *first.get_or_insert(now);
                            due = Some((now + DEBOUNCE).min(start + BATCH_AT_MOST));
                        }
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => tracing::debug!("watch: {e}"),
                },
                cmd = cmd_rx.recv() => match cmd {
                    None => break,
                    Some(Cmd::Install(agent)) => {
                        let mut k = keeper.take().expect("the keeper is back after each check");
                        let file = target(&k.paths, agent).file;
                        let (k, result) = blocking(move || {
                            let r = k.install(agent);
                            (k, r)
                        }).await;
                        add_watches(&mut watcher, &k, &mut folders);
                        keeper = Some(k);
                        match result {
                            Ok(_) => sink(WatchEvent::NewAgent { agent, installed: true }),
                            Err(why) => sink(WatchEvent::RestoreFailed { agent, file, why: why.to_string() }),
                        }
                    }
                },
                () = wait => {
                    due = None;
                    first = None;
                    let mut k = keeper.take().expect("the keeper is back after each check");
                    let (k, events) = blocking(move || {
                        let e = k.check(Instant::now(), SystemTime::now());
                        (k, e)
                    }).await;
                    // A folder that appeared (a new agent's) is watched from now on.
                    add_watches(&mut watcher, &k, &mut folders);
                    keeper = Some(k);
                    for e in events {
                        tracing::warn!("{}", e.text());
                        sink(e);
                    }
                }
            }
        }
    };
    Ok((cmds, Box::pin(task)))
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f)
        .await
        .expect("the watcher's check does not panic")
}

fn add_watches(
    watcher: &mut notify::RecommendedWatcher,
    keeper: &Keeper,
    folders: &mut BTreeSet<PathBuf>,
) {
    use notify::Watcher;
    for dir in keeper.folders() {
        if folders.contains(&dir) || !dir.is_dir() {
            continue;
        }
        match watcher.watch(&dir, notify::RecursiveMode::NonRecursive) {
            Ok(()) => {
                folders.insert(dir);
            }
            Err(e) => tracing::debug!("cannot watch {}: {e}", dir.display()),
        }
    }
}
