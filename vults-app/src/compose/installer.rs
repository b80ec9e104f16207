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
use vults_i18n::{Message, tr};
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
                Ok(entry) if enabled => {
                    Message::new("agents-news-login-on").arg("entry", entry.to_string())
                }
                Ok(entry) => Message::new("agents-news-login-off").arg("entry", entry.to_string()),
                Err(e) => Message::new("agents-news-login-failed").arg("error", e.to_string()),
            };
            tracing::info!("{message}");
            let message = message.text();
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
                .map(|e| tr!("agents-news-watch-not-saved", error = e.to_string()));
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
            let message = words(repaired.iter().flat_map(|r| &r.notes));
            InstallerNews {
                installs: installs_of(&vults_installer::doctor(paths)),
                message: (!message.is_empty()).then_some(message),
                ..Default::default()
            }
        });
    }

    fn set_enabled(&mut self, agent: Agent, enabled: bool) {
        self.spawn(move |paths| {
            let message = match vults_installer::state::set_enabled(paths, agent.name(), enabled) {
                // install_all takes Vults out of a turned-off agent and puts it back when on.
                Ok(()) => words(
                    vults_installer::repair(paths, agent)
                        .iter()
                        .flat_map(|r| &r.notes),
                ),
                Err(e) => tr!(
                    if enabled {
                        "agents-news-on-not-saved"
                    } else {
                        "agents-news-off-not-saved"
                    },
                    name = agent.display_name(),
                    error = e.to_string()
                ),
            };
            InstallerNews {
                installs: installs_of(&vults_installer::doctor(paths)),
                message: (!message.is_empty()).then_some(message),
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
                    tr!("agents-news-old-hooks-removed", name = agent.display_name())
                } else {
                    words(&removed.notes)
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
            let mut detail: Vec<String> = r.notes.iter().map(Message::text).collect();
            if let Some(full) = state_words(&r.state) {
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

/// Notes as one line, in the person's language (worded here, on the window's side: the news
/// carries the line the window shows); empty when there are none.
fn words<'a>(notes: impl IntoIterator<Item = &'a Message>) -> String {
    notes
        .into_iter()
        .map(Message::text)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A state's whole sentence, when it says more than its label: where a file does not parse,
/// why an install failed (the parser's and the system's words as they came).
fn state_words(state: &vults_installer::AgentState) -> Option<String> {
    match state {
        vults_installer::AgentState::Unparsable {
            path,
            line,
            column,
            message,
        } => Some(tr!(
            "agents-detail-unparsable",
            path = path.display().to_string(),
            line = *line,
            column = *column,
            message = message
        )),
        vults_installer::AgentState::Failed(why) => Some(tr!("agents-detail-failed", why = why)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vults_installer::{Action, AgentState};

    #[test]
    fn an_agents_notes_and_state_are_worded_in_the_persons_language() {
        let report = AgentReport {
            agent: Agent::Codex,
            state: AgentState::Failed("disk full".into()),
            action: Action::Nothing,
            path: None,
            notes: vec![Message::new("agents-note-codex-trust")],
        };
        let english = installs_of(std::slice::from_ref(&report))[0]
            .detail
            .clone()
            .unwrap();
        assert!(english.starts_with("failed: disk full"), "{english}");
        assert!(english.contains("trust them"), "{english}");
        let _pt = vults_i18n::scoped(&vults_i18n::Choice::Language("pt-BR".into()));
        let pt = installs_of(&[report])[0].detail.clone().unwrap();
        assert!(pt.starts_with("falhou: disk full"), "{pt}");
        assert!(pt.contains("confie"), "{pt}");
        assert!(!pt.contains("trust them"), "{pt}");
    }
}
