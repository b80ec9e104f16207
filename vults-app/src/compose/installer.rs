//! The installer off the window's thread: the app-start install, then repairs, the agents'
//! switches, start at login and the window's placement on request — each a job in the one
//! worker shape (`vults_engine::worker`), run in order (two never write `settings.json` at
//! once), its news read by the window's frame. After the app-start install, the hooks'
//! watcher (`vults_installer::watch`, a task on the one runtime) keeps them in place; what it
//! sees comes to the window as news, each read off the watcher's task.

use std::sync::{Arc, Mutex};
use vults_core::agents::Agent;
use vults_core::paths::Paths;
use vults_engine::worker::Worker;
use vults_installer::AgentReport;
use vults_ui::ports::{InstallerNews, InstallerSide};
use vults_ui::state::AgentInstall;

type Job = Box<dyn FnOnce(&Paths) -> Option<InstallerNews> + Send>;

/// What the worker keeps for the window: the news of runs finished since it last looked.
type News = Vec<InstallerNews>;

/// The installer as the window reaches it.
pub struct BackgroundInstaller {
    worker: Worker<Option<Job>, News>,
    /// The hooks' watcher, once the app-start install has run (stopped when dropped).
    _watch: Arc<Mutex<Option<vults_installer::watch::WatchHandle>>>,
}

impl BackgroundInstaller {
    /// Starts the worker and queues the app-start install.
    pub fn start(paths: Paths, wake: Arc<dyn Fn() + Send + Sync>) -> BackgroundInstaller {
        let worker = Worker::spawn("installer", News::new(), None::<Job>, wake, move |side| {
            while let Some(Some(job)) = side.recv() {
                if let Some(news) = job(&paths) {
                    side.update(|all| all.push(news));
                }
            }
        });
        let watch = Arc::new(Mutex::new(None));
        let me = BackgroundInstaller {
            _watch: watch.clone(),
            worker,
        };
        let jobs = me.worker.sender();
        me.spawn(move |paths| {
            let start = vults_installer::on_app_start(paths);
            // Watched from now on: what the start installed. What it sees is read on this
            // worker, never on the watcher's task.
            let sink: vults_installer::watch::Sink = Arc::new(move |e| {
                let job: Job = Box::new(move |paths: &Paths| {
                    Some(InstallerNews {
                        installs: installs_of(&vults_installer::doctor(paths)),
                        watched: Some(e),
                        ..Default::default()
                    })
                });
                let _ = jobs.send(Some(job));
            });
            match vults_installer::watch::spawn(&vults_engine::rt::handle(), paths, sink) {
                Ok(h) => {
                    if let Ok(mut w) = watch.lock() {
                        *w = Some(h);
                    }
                }
                Err(e) => tracing::warn!("the hooks are not watched: {e}"),
            }
            for r in &start.reports {
                if r.state != vults_installer::AgentState::NotFound {
                    tracing::info!("app start: {} {}", r.agent.display_name(), r.state);
                }
            }
            // The welcome replaces the first-run notice, once; the marker is written here,
            // off the window's thread.
            let welcome = (!vults_installer::welcome::seen(paths)).then(|| {
                if let Err(e) = vults_installer::welcome::mark_seen(paths) {
                    tracing::warn!("cannot record that the welcome was shown: {e}");
                }
                vults_installer::welcome::build(paths, &start.reports)
            });
            InstallerNews {
                watch_settings: Some(vults_installer::watch::WatchSettings::load(paths)),
                message: if welcome.is_some() {
                    None
                } else {
                    start.message()
                },
                installs: installs_of(&start.reports),
                welcome,
                start_at_login: Some(vults_installer::autostart::is_enabled(paths)),
                watched: None,
            }
        });
        me
    }

    fn spawn(&self, run: impl FnOnce(&Paths) -> InstallerNews + Send + 'static) {
        self.worker
            .send(Some(Box::new(move |paths| Some(run(paths)))));
    }
}

impl InstallerSide for BackgroundInstaller {
    fn set_start_at_login(&mut self, enabled: bool) {
        self.spawn(move |paths| {
            let exe = std::env::current_exe().unwrap_or_else(|_| "vults-app".into());
            let message = match vults_installer::autostart::set(paths, enabled, &exe) {
                Ok(entry) if enabled => format!("Vults starts when you log in ({entry})."),
                Ok(entry) => format!("Vults no longer starts at login (removed {entry})."),
                Err(e) => format!("Could not change start at login: {e}"),
            };
            tracing::info!("{message}");
            InstallerNews {
                installs: installs_of(&vults_installer::doctor(paths)),
                message: Some(message),
                start_at_login: Some(vults_installer::autostart::is_enabled(paths)),
                ..Default::default()
            }
        });
    }

    fn save_window_prefs(&mut self, prefs: vults_installer::window_prefs::WindowPrefs) {
        // A file write with no news for the window: the error goes to the log.
        self.worker.send(Some(Box::new(move |paths| {
            if let Err(e) = vults_installer::window_prefs::save(paths, &prefs) {
                tracing::warn!("cannot save where the island and the cards go: {e}");
            }
            None
        })));
    }

    fn show_welcome(&mut self) {
        self.spawn(|paths| {
            let reports = vults_installer::doctor(paths);
            InstallerNews {
                installs: installs_of(&reports),
                welcome: Some(vults_installer::welcome::build(paths, &reports)),
                ..Default::default()
            }
        });
    }

    fn poll(&mut self) -> Option<InstallerNews> {
        // One at a time, in order: the watcher's news each say something.
        let mut news = self.worker.status();
        (!news.is_empty()).then(|| news.remove(0))
    }

    fn set_watch(&mut self, settings: vults_installer::watch::WatchSettings) {
        self.spawn(move |paths| {
            let message = settings
                .save(paths)
                .err()
                .map(|e| format!("Could not save the hooks' settings: {e}"));
            InstallerNews {
                installs: installs_of(&vults_installer::doctor(paths)),
                message,
                watch_settings: Some(vults_installer::watch::WatchSettings::load(paths)),
                ..Default::default()
            }
        });
    }

    fn repair(&mut self, agent: Agent) {
        self.spawn(move |paths| {
            let repaired = vults_installer::repair(paths, agent);
            let message = repaired
                .iter()
                .flat_map(|r| r.notes.iter())
                .cloned()
                .collect::<Vec<_>>()
                .join(" ");
            InstallerNews {
                installs: installs_of(&vults_installer::doctor(paths)),
                message: (!message.is_empty()).then_some(message),
                ..Default::default()
            }
        });
    }

    fn set_enabled(&mut self, agent: Agent, enabled: bool) {
        self.spawn(move |paths| {
            let mut notes = Vec::new();
            match vults_installer::state::set_enabled(paths, agent.name(), enabled) {
                // install_all takes Vults out of a turned-off agent and puts it back when on.
                Ok(()) => {
                    let changed = vults_installer::repair(paths, agent);
                    notes.extend(changed.iter().flat_map(|r| r.notes.iter()).cloned());
                }
                Err(e) => notes.push(format!(
                    "Could not save that {} is turned {}: {e}",
                    agent.display_name(),
                    if enabled { "on" } else { "off" }
                )),
            }
            InstallerNews {
                installs: installs_of(&vults_installer::doctor(paths)),
                message: (!notes.is_empty()).then(|| notes.join(" ")),
                ..Default::default()
            }
        });
    }

    fn remove_leftovers(&mut self, agent: Agent) {
        self.spawn(move |paths| {
            let removed = vults_installer::remove_leftovers(paths, agent);
            InstallerNews {
                installs: installs_of(&vults_installer::doctor(paths)),
                message: Some(if removed.notes.is_empty() {
                    format!("Removed Vults' old {} hooks.", agent.display_name())
                } else {
                    removed.notes.join(" ")
                }),
                ..Default::default()
            }
        });
    }
}

fn installs_of(reports: &[AgentReport]) -> Vec<AgentInstall> {
    reports
        .iter()
        .map(|r| {
            let full = r.state.to_string();
            let mut detail: Vec<String> = r.notes.clone();
            if full != r.state.label() {
                detail.insert(0, full);
            }
            AgentInstall {
                agent: r.agent,
                name: r.agent.display_name().to_string(),
                state: r.state.clone(),
                detail: (!detail.is_empty()).then(|| detail.join(" ")),
                repairable: r.state.needs_repair(),
                retired: r.agent.retired(),
            }
        })
        .collect()
}
