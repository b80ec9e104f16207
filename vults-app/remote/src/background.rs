//! The window's side of the hosts: the links, and `remote add` / `remove` run in a worker of
//! their own (`vults_engine::worker`; the window never does I/O). Settings → Hosts reads [`HostsStatus`] each frame and
//! sends [`HostsAction`]s.

use super::host::Host;
use super::install;
use super::link::Links;
use std::sync::Arc;
use vults_core::paths::Paths;
use vults_engine::HostSockets;
use vults_engine::worker::{Worker, WorkerSide};

/// One host as Settings → Hosts shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostRow {
    /// What cards and rules call it (`devbox`).
    pub name: String,
    /// What `ssh` is given: `[user@]host`.
    pub target: String,
    /// `uname -sm` of the host when it was added (`Linux x86_64`).
    pub system: String,
    /// The link's state in words (`linked`, `down (…); again in 4 s`).
    pub link: String,
    /// The link is up: the host's agents reach the app.
    pub linked: bool,
}

/// What Settings → Hosts shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostsStatus {
    /// Every host added, in the order of `hosts.json`.
    pub hosts: Vec<HostRow>,
    /// What is being done now (`adding devbox…`).
    pub busy: Option<String>,
    /// What the last add or remove said.
    pub last: Option<String>,
    /// The last add or remove failed (`last` says why).
    pub last_failed: bool,
    /// A host whose Remove failed (it cannot be reached): Settings offers to forget it, touching
    /// nothing on it, as `vults-app remote remove --forget` does.
    pub offer_forget: Option<String>,
    /// `hosts.json` does not parse (it is left alone).
    pub error: Option<String>,
}

/// What Settings → Hosts asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostsAction {
    /// `[user@]host[:port]` and extra ssh options (split as a shell would).
    Add {
        /// What the person typed.
        spec: String,
        /// Extra `ssh` options, as typed.
        ssh_options: String,
    },
    /// Takes Vults out of the host's agents and the hook off it, then forgets it (see
    /// [`crate::install::remove`]).
    Remove(String),
    /// Forgets a host without touching it (after its Remove failed).
    Forget(String),
}

/// How the last add or remove went: the worker's status.
#[derive(Default)]
struct Progress {
    busy: Option<String>,
    last: Option<String>,
    last_failed: bool,
    offer_forget: Option<String>,
}

enum Command {
    Apply(HostsAction),
    Stop,
}

/// The links while the app runs, and add / remove off the window's thread, in the one worker
/// shape: an action in, its progress out, a wake. Dropping it waits for an add or remove under
/// way to end (it is changing the host's files: stopping it halfway would leave them so).
pub struct BackgroundHosts {
    links: Arc<Links>,
    worker: Worker<Command, Progress>,
}

impl BackgroundHosts {
    /// Starts a link for every host in `hosts.json`.
    pub fn start(
        paths: Paths,
        sockets: HostSockets,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> BackgroundHosts {
        let links = Arc::new(Links::start_with_wake(&paths, sockets, wake.clone()));
        let worker_links = links.clone();
        BackgroundHosts {
            links,
            worker: Worker::spawn(
                "hosts",
                Progress::default(),
                Command::Stop,
                wake,
                move |side| run(&paths, &worker_links, &side),
            ),
        }
    }

    /// The hosts and their links as they are now; reads no file, so the window can ask every
    /// frame.
    pub fn status(&self) -> HostsStatus {
        // No file is read here (the window asks each frame): the links keep the list.
        let (hosts, error) = match self.links.hosts() {
            Ok(hosts) => (hosts, None),
            Err(e) => (Vec::new(), Some(e.to_string())),
        };
        let states = self.links.statuses();
        let rows = hosts
            .into_iter()
            .map(|h| {
                let status = states.get(&h.name);
                HostRow {
                    linked: status.is_some_and(|s| s.state == super::link::LinkState::Up),
                    link: status.map_or_else(|| "starting".into(), |s| s.label()),
                    name: h.name,
                    target: h.target,
                    system: h.system,
                }
            })
            .collect();
        let progress = self.worker.status();
        HostsStatus {
            hosts: rows,
            busy: progress.busy.clone(),
            last: progress.last.clone(),
            last_failed: progress.last_failed,
            offer_forget: progress.offer_forget.clone(),
            error,
        }
    }

    /// Hands `action` to the worker (nothing is started while another one runs);
    /// [`BackgroundHosts::status`] says how it went.
    pub fn apply(&mut self, action: HostsAction) {
        let what = match &action {
            HostsAction::Add { spec, .. } => format!("adding {spec}…"),
            HostsAction::Remove(name) => format!("removing {name}…"),
            HostsAction::Forget(name) => format!("forgetting {name}…"),
        };
        {
            let mut progress = self.worker.status();
            if progress.busy.is_some() {
                return;
            }
            progress.busy = Some(what);
        }
        if !self.worker.send(Command::Apply(action)) {
            let mut progress = self.worker.status();
            progress.busy = None;
            progress.last = Some("cannot start: the hosts' worker has stopped".into());
            progress.last_failed = true;
        }
    }
}

/// The worker's loop: one action at a time, then the links read `hosts.json` again.
fn run(paths: &Paths, links: &Links, side: &WorkerSide<Command, Progress>) {
    while let Some(Command::Apply(action)) = side.recv() {
        let mut offer_forget = None;
        let said: Result<String, crate::Error> = match action {
            HostsAction::Add { spec, ssh_options } => match Host::parse(spec.trim())
                .and_then(|h| Ok((h, super::host::split_options(&ssh_options)?)))
            {
                Err(e) => Err(e),
                Ok((mut host, options)) => {
                    host.ssh_options = options;
                    match install::add(paths, host, None) {
                        Ok(a) => Ok(format!(
                            "{} added ({}): hook at {}, {} file(s) written",
                            a.host.name,
                            a.host.system,
                            a.host.hook_path(),
                            a.written.len()
                        )),
                        Err(e) => Err(e),
                    }
                }
            },
            HostsAction::Remove(name) => match install::remove(paths, &name) {
                Ok(r) => Ok(format!(
                    "{name} removed: its agents' files as they were ({} written back)",
                    r.written.len()
                )),
                Err(e) => {
                    offer_forget = Some(name);
                    Err(e)
                }
            },
            HostsAction::Forget(name) => install::forget(paths, &name).map(|()| {
                format!(
                    "{name} forgotten; nothing on it was touched (its agents still run \
                     the hook, which stays silent without a link)"
                )
            }),
        };
        let failed = said.is_err();
        let said = said.unwrap_or_else(|e| e.to_string());
        if failed {
            tracing::warn!("hosts: {said}");
        } else {
            tracing::info!("hosts: {said}");
        }
        links.reload();
        side.update(|p| {
            p.busy = None;
            p.last = Some(said);
            p.last_failed = failed;
            p.offer_forget = offer_forget;
        });
    }
}
