//! Notifications, quiet hours and global keys, wired into the window (the `vults-notify`
//! crate, the notifications crate, does the desktop's part on the app's runtime; Settings →
//! Notifications is `settings::notifications`).
//!
//! - [`Watch`] is pure: after the engine's events are applied to the [`Model`], it says what
//!   each session waits on now — its newest card, a question, an agent asking in its terminal, a
//!   finished turn — as one [`Notice`] per session, and which sessions wait on nothing any more
//!   (their card answered anywhere: a click, a rule, the phone, the terminal).
//! - [`follow`] is the notifier's own subscription to the engine (`vults_engine::bus`): a task
//!   on the app's runtime reads it into a [`Follower`] (a model of its own and a [`Watch`]) and
//!   tells the notifier each step. The window does not relay: the notifier sees every card
//!   whether the window is drawn, hidden, closed to the tray or minimized
//!   ([`DesktopAttention::follow`]).
//! - [`AttentionSide`] is how the window reaches the desktop: the real one,
//!   [`DesktopAttention`], owns the [`Notifier`] (freedesktop over zbus, Windows toasts, macOS),
//!   the [`GlobalKeys`] and the settings in `settings.json`; the keys are bound and the file
//!   written in its worker (`vults_engine::worker`), and a file or a section that does not
//!   parse is never written over.
//! - The window turns what it hears ([`Heard`]) into the same typed answers a click sends,
//!   with [`vults_engine::messages::AnsweredBy::Notification`] or
//!   [`vults_engine::messages::AnsweredBy::GlobalKey`] so History says how it was answered.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::mpsc::Receiver;

use vults_core::paths::Paths;
use vults_engine::messages::{EngineEvent, Session, SessionKey, SessionState};
use vults_engine::worker::{Worker, WorkerSide};
use vults_notify::keys::{GlobalKeys, KeyAction, KeysEvent, KeysSettings, KeysTarget};
use vults_notify::quiet::QuietNow;
use vults_notify::{
    AttentionSettings, Bus, Capabilities, Notice, NoticeAction, Notifier, NotifierConfig,
    NotifierEvent, SessionId, Support, What,
};

use crate::state::Model;

/// The `settings.json` key this part of the app keeps its settings under.
pub const SETTINGS_KEY: &str = "attention";

/// The notifier's session id for an engine session: opaque, one per session.
pub fn session_id(key: &SessionKey) -> SessionId {
    SessionId(format!("{}\u{1f}{}", key.identity, key.session))
}

/// What to tell the notifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The session waits on this now (new, or changed: the notifier replaces its notification).
    Show(SessionKey, Notice),
    /// Nothing waits in the session any more: withdraw its notification.
    Withdraw(SessionKey),
}

/// What each session waits on, worked out from the model after each batch of engine events.
#[derive(Debug, Default)]
pub struct Watch {
    /// Each session's state as last seen, to tell a finished turn from a session that starts idle.
    states: BTreeMap<SessionKey, SessionState>,
    /// Sessions whose turn ended and that have not moved since.
    done: BTreeSet<SessionKey>,
    /// What was last told to the notifier, per session.
    told: BTreeMap<SessionKey, Notice>,
}

/// **The waiting-state hook point.** Whether `now` says the session finished its turn and waits
/// for the person, given the state it was in before (`None`: first seen). Today a turn is done
/// when the engine says so: the session went to [`SessionState::Done`] ("done — waiting for
/// you": `Stop`, `agentStop`, `StopFailure`, an idle prompt's `Notification`) from another state.
/// A session first seen already done raises nothing.
pub fn turn_done(before: Option<SessionState>, now: SessionState) -> bool {
    before.is_some_and(|b| b != SessionState::Done) && now == SessionState::Done
}

impl Watch {
    /// A watch that has told nothing yet.
    pub fn new() -> Watch {
        Watch::default()
    }

    /// The steps that bring the notifier up to date with `model`: a [`Step::Show`] for each
    /// session whose notice is new or changed, a [`Step::Withdraw`] for each whose is gone.
    pub fn update(&mut self, model: &Model) -> Vec<Step> {
        for (key, s) in &model.sessions {
            let before = self.states.insert(key.clone(), s.state);
            if turn_done(before, s.state) {
                self.done.insert(key.clone());
            } else if s.state != SessionState::Done {
                self.done.remove(key);
            }
        }
        self.states.retain(|k, _| model.sessions.contains_key(k));
        self.done.retain(|k| model.sessions.contains_key(k));
        let mut now: BTreeMap<SessionKey, Notice> = BTreeMap::new();
        // The newest card of each session (cards are in arrival order).
        for card in &model.cards {
            now.insert(card.session.clone(), vults_notify::card_notice(card));
        }
        for (key, s) in &model.sessions {
            if now.contains_key(key) {
                continue;
            }
            let what = if let Some(text) = &s.in_terminal {
                What::AsksInTerminal {
                    text: Some(text.clone()),
                }
            } else if s.state == SessionState::AsksInTerminal {
                // Its own permission prompt, with no card here (a `permission_prompt` notice).
                What::AsksInTerminal { text: None }
            } else if self.done.contains(key) {
                What::TurnDone
            } else {
                continue;
            };
            now.insert(key.clone(), session_notice(s, what));
        }
        let mut steps = Vec::new();
        for key in self.told.keys() {
            if !now.contains_key(key) {
                steps.push(Step::Withdraw(key.clone()));
            }
        }
        for (key, notice) in &now {
            if self.told.get(key) != Some(notice) {
                steps.push(Step::Show(key.clone(), notice.clone()));
            }
        }
        self.told = now;
        steps
    }
}

/// The notifier's own reading of the engine's events: a model of the cards and sessions (only
/// those: nothing else changes what a session waits on) and the [`Watch`] over it.
#[derive(Debug, Default)]
pub struct Follower {
    model: Model,
    watch: Watch,
}

impl Follower {
    /// A follower that has read nothing yet.
    pub fn new() -> Follower {
        Follower::default()
    }

    /// Takes one engine event; `true` when it may change what a session waits on.
    pub fn apply(&mut self, event: &EngineEvent) -> bool {
        match event {
            EngineEvent::CardAdded(_)
            | EngineEvent::CardRemoved { .. }
            | EngineEvent::SessionChanged(_)
            | EngineEvent::SessionGone(_) => {
                self.model.apply(event.clone());
                true
            }
            _ => false,
        }
    }

    /// What to tell the notifier now ([`Watch::update`]).
    pub fn steps(&mut self) -> Vec<Step> {
        self.watch.update(&self.model)
    }
}

/// The most events read in one go before the notifier is told (a flood is told in steps).
const BATCH: usize = 256;

/// Subscribes to the engine's events and tells `tell` each [`Step`] as they change what a
/// session waits on, from a task on the app's runtime (`vults_engine::rt`). A subscription
/// starts from what waits now and catches up from the engine's snapshot should it fall behind
/// (`vults_engine::Subscription`), so no card is missed. It ends when the engine stops, when
/// `tell` returns `false`, or when the returned task is aborted.
pub fn follow(
    events: &vults_engine::EngineEvents,
    mut tell: impl FnMut(Step) -> bool + Send + 'static,
) -> vults_engine::rt::Task {
    let mut sub = events.subscribe();
    vults_engine::rt::spawn(async move {
        let mut follower = Follower::new();
        while let Some(event) = sub.recv().await {
            let mut changed = follower.apply(&event);
            for _ in 0..BATCH {
                let Ok(event) = sub.try_recv() else { break };
                changed |= follower.apply(&event);
            }
            if changed {
                for step in follower.steps() {
                    if !tell(step) {
                        return;
                    }
                }
            }
        }
    })
}

fn session_notice(s: &Session, what: What) -> Notice {
    Notice {
        agent: match &s.identity {
            Some(identity) => identity.display_name(),
            None => crate::theme::agent_label(s.agent, s.agent_name.as_deref()),
        },
        folder: s.folder.clone(),
        what,
    }
}

/// What the window hears from the desktop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heard {
    /// An action on a session's notification.
    Notification {
        /// The session it was for.
        session: SessionId,
        /// What it asked for.
        action: NoticeAction,
    },
    /// A global key was pressed (run it through the window's [`vults_notify::keys::Gate`]).
    Key(KeyAction),
}

/// What Settings shows about notifications, quiet and keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttentionStatus {
    /// The settings in force.
    pub settings: AttentionSettings,
    /// Whether it is quiet now, and why.
    pub quiet: QuietNow,
    /// What the notification server offers (or why there is none).
    pub caps: Capabilities,
    /// Whether this desktop can have global keys at all, and by what (before they are on).
    pub keys_here: Support,
    /// The global keys: bound (by what, to which keys), or why not.
    pub keys: Support,
    /// Why the settings are not saved, when they are not (a `settings.json` that does not parse,
    /// a failed write).
    pub not_saved: Option<String>,
}

impl Default for AttentionStatus {
    fn default() -> AttentionStatus {
        AttentionStatus {
            settings: AttentionSettings::default(),
            quiet: QuietNow::AWAKE,
            caps: Capabilities {
                notifications: Support::Unavailable(vults_i18n::tr!(
                    "notifications-why-not-started"
                )),
                actions: false,
                sound: false,
                replace: false,
                withdraw: false,
                desktop_dnd: Support::Unavailable(vults_i18n::tr!("notifications-why-not-started")),
            },
            keys_here: Support::Unavailable(vults_i18n::tr!("notifications-why-not-known")),
            keys: Support::Unavailable(vults_i18n::tr!("notifications-why-keys-off")),
            not_saved: None,
        }
    }
}

/// How the window reaches notifications, quiet hours and global keys. Every call returns at
/// once (the desktop's side runs on threads of its own). What each session waits on is not the
/// window's to tell: the notifier reads the engine itself ([`follow`]).
pub trait AttentionSide {
    /// Vults' own warning (a hook removed, a limit near), one notification per `id`, replaced
    /// by the next of the same id.
    fn alert(&mut self, _id: &str, _notice: Notice) {}
    /// What was heard since the last call.
    fn poll(&mut self) -> Vec<Heard>;
    /// What Settings shows.
    fn status(&self) -> AttentionStatus;
    /// New settings from Settings or the tray: applied, and saved.
    fn set_settings(&mut self, settings: AttentionSettings);
}

/// What binding the keys came to: the keys and their presses, or why not.
type Bound = Result<(GlobalKeys, Receiver<KeysEvent>), vults_notify::keys::KeysError>;

/// What the desktop's worker is asked to do (it may block: a file written, an X11 connection, a
/// portal call).
enum Job {
    /// Write the settings into `settings.json` (the newest of a burst wins).
    Save(AttentionSettings),
    /// Bind the global keys; the number tells a late answer from the one awaited.
    Bind(u64, KeysSettings),
    Stop,
}

/// What the desktop's worker has done: its status.
#[derive(Default)]
struct Done {
    /// Why the last write failed, if it did.
    save_error: Option<String>,
    /// The keys bound (or why not), for the [`Job::Bind`] of that number; taken by `poll`.
    bound: Option<(u64, Bound)>,
}

/// The real desktop's notifications, quiet hours and keys.
pub struct DesktopAttention {
    /// Shared with its subscription's task ([`DesktopAttention::follow`]), which holds it weakly.
    notifier: Arc<Notifier>,
    /// That task, ended with the notifier.
    follower: Option<vults_engine::rt::Task>,
    events: Receiver<NotifierEvent>,
    settings: AttentionSettings,
    keys: Option<GlobalKeys>,
    key_events: Option<Receiver<KeysEvent>>,
    /// The number of the [`Job::Bind`] whose answer is awaited (a later one replaces it).
    binding: u64,
    keys_state: Support,
    /// What [`vults_notify::keys::support`] said at start.
    keys_here: Support,
    /// Writes the settings and binds the keys, off the window's thread: the one worker shape
    /// (`vults_engine::worker`).
    worker: Worker<Job, Done>,
    /// Why the settings are never written (the file or its section did not parse).
    blocked: Option<String>,
}

/// Where [`DesktopAttention`] finds its desktop: the session bus and the keys' display, or a
/// test's own.
#[derive(Debug, Clone)]
pub struct AttentionPlaces {
    /// The D-Bus session bus of the notification server.
    pub bus: Bus,
    /// Where global keys are bound.
    pub keys: KeysTarget,
    /// Whether the desktop's own do-not-disturb is read.
    pub read_desktop_dnd: bool,
}

impl Default for AttentionPlaces {
    fn default() -> AttentionPlaces {
        AttentionPlaces {
            bus: Bus::Session,
            keys: KeysTarget::Auto,
            read_desktop_dnd: true,
        }
    }
}

/// Vults' own warning about its hook in an agent's settings (the watcher's news), as its
/// notification and the phone's push say it, in the active language (`notify.ftl`): the title
/// and the body. The console and the log keep the installer's English (`WatchEvent::title`,
/// `WatchEvent::text`).
pub fn hook_warning(e: &vults_installer::watch::WatchEvent) -> (String, String) {
    use vults_i18n::tr;
    use vults_installer::watch::{WatchEvent, clock};
    let agent = e.agent().display_name();
    match e {
        WatchEvent::Removed {
            file,
            at,
            changed,
            restored,
            ..
        } => (
            if *changed {
                tr!("notify-hook-changed-title", agent = agent)
            } else {
                tr!("notify-hook-removed-title", agent = agent)
            },
            tr!(
                "notify-hook-removed-body",
                agent = agent,
                what = if *changed { "changed" } else { "removed" },
                time = clock(*at),
                file = file.display().to_string(),
                restored = if *restored { "yes" } else { "no" }
            ),
        ),
        WatchEvent::KeepsRemoving { file, at, .. } => (
            tr!("notify-hook-keeps-removing-title", agent = agent),
            tr!(
                "notify-hook-keeps-removing-body",
                agent = agent,
                file = file.display().to_string(),
                time = clock(*at)
            ),
        ),
        WatchEvent::Unparsable { why, .. } => (
            tr!("notify-hook-unparsable-title", agent = agent),
            tr!("notify-hook-unparsable-body", agent = agent, why = why),
        ),
        WatchEvent::RestoreFailed { why, .. } => (
            tr!("notify-hook-restore-failed-title", agent = agent),
            tr!("notify-hook-restore-failed-body", agent = agent, why = why),
        ),
        WatchEvent::NewAgent {
            installed: true, ..
        } => (
            tr!("notify-hook-new-installed-title", agent = agent),
            tr!("notify-hook-new-installed-body", agent = agent),
        ),
        WatchEvent::NewAgent {
            installed: false, ..
        } => (
            tr!("notify-hook-new-offered-title", agent = agent),
            tr!("notify-hook-new-offered-body", agent = agent),
        ),
    }
}

/// Reads the settings from `settings.json`: the defaults when there is no file or no section;
/// `Err` (with the defaults to use) when the file or the section does not parse, in which case
/// nothing is ever written over it.
pub fn load_settings(paths: &Paths) -> (AttentionSettings, Option<String>) {
    let file = paths.settings_file();
    let bytes = match std::fs::read(&file) {
        Ok(b) => b,
        Err(_) => return (AttentionSettings::default(), None),
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return (AttentionSettings::default(), None);
    }
    let root: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            return (
                AttentionSettings::default(),
                Some(format!("{} does not parse ({e})", file.display())),
            );
        }
    };
    match root.get(SETTINGS_KEY) {
        None => (AttentionSettings::default(), None),
        Some(section) => match serde_json::from_value(section.clone()) {
            Ok(s) => (s, None),
            Err(e) => (
                AttentionSettings::default(),
                Some(format!(
                    "its \"{SETTINGS_KEY}\" section in {} does not read ({e})",
                    file.display()
                )),
            ),
        },
    }
}

impl DesktopAttention {
    /// Reads the settings, starts the notifier and, when switched on, the global keys. Returns
    /// at once; `wake` is called when something is heard.
    pub fn start(
        paths: &Paths,
        places: AttentionPlaces,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> DesktopAttention {
        let (settings, blocked) = load_settings(paths);
        if let Some(why) = &blocked {
            tracing::warn!("notification settings: {why}; the defaults are used and not saved");
        }
        let mut config = NotifierConfig::new("Vults");
        config.desktop_entry = Some("vults".into());
        config.bus = places.bus;
        config.settings = settings.clone();
        config.wake = Some(wake.clone());
        config.read_desktop_dnd = places.read_desktop_dnd;
        let (notifier, events) = Notifier::start(config);
        let worker = {
            let (paths, target, wake) = (paths.clone(), places.keys, wake.clone());
            Worker::spawn(
                "desktop attention",
                Done::default(),
                Job::Stop,
                wake.clone(),
                move |side| run(&paths, &target, &wake, &side),
            )
        };
        let mut me = DesktopAttention {
            notifier: Arc::new(notifier),
            follower: None,
            events,
            settings: AttentionSettings::default(),
            keys: None,
            key_events: None,
            binding: 0,
            keys_state: Support::Unavailable(vults_i18n::tr!("notifications-why-keys-off")),
            keys_here: vults_notify::keys::support(),
            worker,
            blocked,
        };
        me.bind_keys(&settings.keys);
        me.settings = settings;
        me
    }

    /// Subscribes the notifier to the engine's events ([`follow`]): from now on each session's
    /// card, question, prompt in its terminal and finished turn is notified, and withdrawn when
    /// nothing waits in it any more, whatever the window does.
    pub fn follow(&mut self, events: &vults_engine::EngineEvents) {
        let notifier = Arc::downgrade(&self.notifier);
        self.follower = Some(follow(events, move |step| {
            let Some(notifier) = notifier.upgrade() else {
                return false;
            };
            match step {
                Step::Show(session, notice) => notifier.show(session_id(&session), notice),
                Step::Withdraw(session) => notifier.withdraw(session_id(&session)),
            }
            true
        }));
    }

    /// (Re)binds the global keys in the worker (an X11 connection, a portal call).
    fn bind_keys(&mut self, keys: &KeysSettings) {
        self.keys = None;
        self.key_events = None;
        // An answer still to come for an earlier bind is not awaited any more.
        self.binding += 1;
        if !keys.enabled {
            self.keys_state = Support::Unavailable(vults_i18n::tr!("notifications-why-keys-off"));
            return;
        }
        self.keys_state = Support::Unavailable(vults_i18n::tr!("notifications-why-binding"));
        if !self.worker.send(Job::Bind(self.binding, keys.clone())) {
            self.keys_state =
                Support::Unavailable(vults_i18n::tr!("notifications-why-worker-stopped"));
        }
    }

    fn save(&mut self) {
        if self.blocked.is_none() {
            let _ = self.worker.send(Job::Save(self.settings.clone()));
        }
    }
}

/// The desktop's worker: writes the settings (only the newest of a burst, a slider dragged)
/// and binds the keys, in the order asked.
fn run(
    paths: &Paths,
    target: &KeysTarget,
    wake: &Arc<dyn Fn() + Send + Sync>,
    side: &WorkerSide<Job, Done>,
) {
    let mut queued = std::collections::VecDeque::new();
    loop {
        let Some(job) = queued.pop_front().or_else(|| side.recv()) else {
            return;
        };
        match job {
            Job::Stop => return,
            Job::Bind(n, keys) => {
                let bound = GlobalKeys::start(&keys, target.clone(), Some(wake.clone()));
                side.update(|done| done.bound = Some((n, bound)));
            }
            Job::Save(mut settings) => {
                for job in side.try_iter() {
                    match job {
                        Job::Save(newer) => settings = newer,
                        other => queued.push_back(other),
                    }
                }
                let Ok(value) = serde_json::to_value(&settings) else {
                    continue;
                };
                let result = vults_installer::state::edit_settings(paths, |root| {
                    root.insert(SETTINGS_KEY.into(), value);
                });
                let said = result.err().map(|e| {
                    tracing::warn!("notification settings not saved: {e}");
                    e.to_string()
                });
                side.update(|done| done.save_error = said);
            }
        }
    }
}

impl Drop for DesktopAttention {
    fn drop(&mut self) {
        if let Some(follower) = self.follower.take() {
            follower.abort();
        }
    }
}

impl AttentionSide for DesktopAttention {
    fn alert(&mut self, id: &str, notice: Notice) {
        self.notifier.show(SessionId(id.to_string()), notice);
    }

    fn poll(&mut self) -> Vec<Heard> {
        let mut heard = Vec::new();
        for event in self.events.try_iter() {
            match event {
                NotifierEvent::Action { session, action } => {
                    heard.push(Heard::Notification { session, action })
                }
                NotifierEvent::Quiet(q) => {
                    tracing::info!("quiet: {}", if q.quiet { "on" } else { "off" })
                }
                NotifierEvent::Dismissed { .. } | NotifierEvent::Capabilities(_) => {}
            }
        }
        let answer = self.worker.status().bound.take();
        if let Some((_, result)) = answer.filter(|(n, _)| *n == self.binding) {
            match result {
                Ok((keys, events)) => {
                    self.keys = Some(keys);
                    self.key_events = Some(events);
                }
                Err(why) => {
                    tracing::info!("no global keys: {why}");
                    self.keys_state = Support::Unavailable(why.to_string());
                }
            }
        }
        if let Some(events) = &self.key_events {
            for event in events.try_iter() {
                match event {
                    KeysEvent::Ready { backend, bindings } => {
                        let keys = bindings
                            .iter()
                            .map(|(a, t)| format!("{} {t}", action_word(*a)))
                            .collect::<Vec<_>>()
                            .join(", ");
                        tracing::info!("global keys bound ({backend:?}): {keys}");
                        self.keys_state = Support::Available(keys_bound(backend, &bindings));
                    }
                    KeysEvent::Unavailable(why) => {
                        tracing::info!("no global keys: {why}");
                        self.keys_state = Support::Unavailable(why);
                    }
                    KeysEvent::Pressed(action) => heard.push(Heard::Key(action)),
                }
            }
        }
        heard
    }

    fn status(&self) -> AttentionStatus {
        AttentionStatus {
            settings: self.settings.clone(),
            quiet: self.notifier.quiet(),
            caps: self.notifier.capabilities(),
            keys_here: self.keys_here.clone(),
            keys: self.keys_state.clone(),
            not_saved: self.blocked.clone().or_else(|| {
                self.worker
                    .status()
                    .save_error
                    .clone()
                    .map(|e| format!("not saved: {e}"))
            }),
        }
    }

    fn set_settings(&mut self, settings: AttentionSettings) {
        if settings == self.settings {
            return;
        }
        if settings.keys != self.settings.keys {
            self.bind_keys(&settings.keys);
        }
        self.notifier.set_settings(settings.clone());
        self.settings = settings;
        self.save();
    }
}

/// The keys bound, and by what, in the person's language: Settings → Notifications' line.
fn keys_bound(
    backend: vults_notify::keys::KeysBackend,
    bindings: &[(KeyAction, impl std::fmt::Display)],
) -> String {
    use vults_i18n::tr;
    let keys = bindings
        .iter()
        .map(|(a, t)| {
            let action = match a {
                KeyAction::ShowNewest => tr!("notifications-key-bring-up"),
                KeyAction::Allow => tr!("notifications-key-allow"),
                KeyAction::Deny => tr!("notifications-key-deny"),
            };
            format!("{action} {t}")
        })
        .collect::<Vec<_>>()
        .join(", ");
    let by = match backend {
        vults_notify::keys::KeysBackend::X11 => tr!("notifications-keys-by-x11"),
        vults_notify::keys::KeysBackend::Portal => tr!("notifications-keys-by-portal"),
        vults_notify::keys::KeysBackend::Windows => tr!("notifications-keys-by-windows"),
        vults_notify::keys::KeysBackend::MacOs => tr!("notifications-keys-by-macos"),
    };
    format!("{by}: {keys}")
}

/// A key action as Settings names it (in English: the log's).
pub fn action_word(action: KeyAction) -> &'static str {
    match action {
        KeyAction::ShowNewest => "bring up",
        KeyAction::Allow => "allow",
        KeyAction::Deny => "deny",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;
    use vults_core::agents::Target;
    use vults_core::protocol::{AgentKind, Identity};
    use vults_engine::messages::PendingCard;

    #[test]
    fn vults_own_words_on_notifications_and_keys_are_in_the_persons_language() {
        let bound = [
            (KeyAction::ShowNewest, "Ctrl+Alt+V"),
            (KeyAction::Allow, "Ctrl+Alt+A"),
        ];
        let status = AttentionStatus::default();
        assert_eq!(
            status.keys,
            Support::Unavailable("global keys are off in Settings".into())
        );
        assert_eq!(
            keys_bound(vults_notify::keys::KeysBackend::X11, &bound),
            "X11 key grabs: bring up Ctrl+Alt+V, allow Ctrl+Alt+A"
        );
        let _pt = vults_i18n::scoped(&vults_i18n::Choice::Language("pt-BR".into()));
        let status = AttentionStatus::default();
        assert_eq!(
            status.keys,
            Support::Unavailable("as teclas globais estão desligadas nas Configurações".into())
        );
        assert_eq!(
            status.caps.notifications,
            Support::Unavailable("não iniciado".into())
        );
        assert_eq!(
            keys_bound(vults_notify::keys::KeysBackend::X11, &bound),
            "captura de teclas do X11: trazer Ctrl+Alt+V, permitir Ctrl+Alt+A"
        );
    }

    fn key(s: &str) -> SessionKey {
        SessionKey {
            identity: "claude".into(),
            session: s.into(),
        }
    }

    fn session(s: &str, state: SessionState) -> Session {
        Session {
            key: key(s),
            identity: Some(Identity::Builtin(AgentKind::Claude)),
            agent: AgentKind::Claude,
            agent_name: None,
            folder: "/w".into(),
            state,
            last_tool: None,
            last_target: None,
            cost_usd: None,
            five_hour: None,
            seven_day: None,
            task: None,
            in_terminal: None,
            terminal: None,
            started: SystemTime::UNIX_EPOCH,
            last_event: SystemTime::UNIX_EPOCH,
        }
    }

    fn card(id: u64, s: &str, target: Target, destructive: Option<&str>) -> PendingCard {
        PendingCard::sample(id, s, "/w", target, destructive)
    }

    fn cmd(c: &str) -> Target {
        Target::Command { command: c.into() }
    }

    #[test]
    fn one_notice_per_session_its_newest_card_and_withdrawn_when_none_waits() {
        let mut m = Model::default();
        let mut w = Watch::new();
        m.apply(EngineEvent::SessionChanged(session(
            "a",
            SessionState::Working,
        )));
        assert!(
            w.update(&m).is_empty(),
            "a working session waits on nothing"
        );
        m.apply(EngineEvent::CardAdded(card(1, "a", cmd("ls"), None)));
        let steps = w.update(&m);
        assert_eq!(steps.len(), 1);
        let Step::Show(k, n) = &steps[0] else {
            panic!("{steps:?}")
        };
        assert_eq!(k, &key("a"));
        assert_eq!((n.agent.as_str(), n.folder.as_str()), ("Claude Code", "/w"));
        assert!(matches!(&n.what, What::Card { card: 1, target, .. } if target == "ls"));
        assert!(w.update(&m).is_empty(), "the same again tells nothing");
        // A second card of the session: its notification says the newest.
        m.apply(EngineEvent::CardAdded(card(2, "a", cmd("pwd"), None)));
        assert!(matches!(&w.update(&m)[..], [Step::Show(_, n)] if n.what.card() == Some(2)));
        m.apply(EngineEvent::CardRemoved {
            id: 2,
            by: vults_engine::messages::AnsweredBy::Click,
        });
        assert!(matches!(&w.update(&m)[..], [Step::Show(_, n)] if n.what.card() == Some(1)));
        m.apply(EngineEvent::CardRemoved {
            id: 1,
            by: vults_engine::messages::AnsweredBy::Terminal,
        });
        assert_eq!(w.update(&m), [Step::Withdraw(key("a"))]);
        assert!(w.update(&m).is_empty());
    }

    #[test]
    fn a_finished_turn_waits_until_the_session_moves_but_a_session_that_starts_idle_does_not() {
        let mut m = Model::default();
        let mut w = Watch::new();
        m.apply(EngineEvent::SessionChanged(session(
            "idle",
            SessionState::Idle,
        )));
        assert!(w.update(&m).is_empty());
        m.apply(EngineEvent::SessionChanged(session(
            "b",
            SessionState::Working,
        )));
        w.update(&m);
        m.apply(EngineEvent::SessionChanged(session(
            "b",
            SessionState::Done,
        )));
        assert!(
            matches!(&w.update(&m)[..], [Step::Show(k, n)] if *k == key("b") && n.what == What::TurnDone)
        );
        // A status line (the session stays done) keeps it; a new prompt withdraws it.
        m.apply(EngineEvent::SessionChanged(session(
            "b",
            SessionState::Done,
        )));
        assert!(w.update(&m).is_empty());
        m.apply(EngineEvent::SessionChanged(session(
            "b",
            SessionState::Working,
        )));
        assert_eq!(w.update(&m), [Step::Withdraw(key("b"))]);
        // Its own permission prompt with no card here: it asks in its terminal.
        m.apply(EngineEvent::SessionChanged(session(
            "b",
            SessionState::AsksInTerminal,
        )));
        assert!(matches!(
            &w.update(&m)[..],
            [Step::Show(_, n)] if n.what == What::AsksInTerminal { text: None }
        ));
        // An agent asking in its terminal about a call too large says what it asks.
        let mut s = session("b", SessionState::WaitingForYou);
        s.in_terminal = Some("Write of 2.7 KB is too large to show".into());
        m.apply(EngineEvent::SessionChanged(s));
        assert!(matches!(
            &w.update(&m)[..],
            [Step::Show(_, n)] if n.what == What::AsksInTerminal { text: Some("Write of 2.7 KB is too large to show".into()) }
        ));
        m.apply(EngineEvent::SessionGone(key("b")));
        assert_eq!(w.update(&m), [Step::Withdraw(key("b"))]);
    }

    /// The notifier's own reading of the engine (what `cards_are_told_to_the_notifier_once`
    /// checked of the window before the notifier subscribed itself): a card is told once, an
    /// event that changes nothing tells nothing, and a card answered anywhere is withdrawn.
    #[test]
    fn the_follower_tells_a_card_once_and_withdraws_it_when_answered_anywhere() {
        let mut f = Follower::new();
        assert!(f.apply(&EngineEvent::CardAdded(card(
            1,
            "a",
            cmd("make release"),
            None
        ))));
        let steps = f.steps();
        assert!(
            matches!(&steps[..], [Step::Show(k, n)] if *k == key("a") && n.agent == "Claude Code" && n.what.card() == Some(1)),
            "{steps:?}"
        );
        assert!(!f.apply(&EngineEvent::Notice(
            vults_engine::messages::Notice::RulesKeptInMemory
        )));
        assert!(f.steps().is_empty(), "told once");
        assert!(f.apply(&EngineEvent::CardRemoved {
            id: 1,
            by: vults_engine::messages::AnsweredBy::Phone("Ana (d1)".into()),
        }));
        assert_eq!(f.steps(), [Step::Withdraw(key("a"))]);
    }

    #[test]
    fn settings_that_do_not_read_are_the_defaults_and_blocked_from_saving() {
        let home = std::env::temp_dir().join(format!("vults-attn-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&home);
        let paths = Paths::resolve(|k| (k == "VULTS_HOME").then(|| home.clone()));
        assert_eq!(load_settings(&paths), (AttentionSettings::default(), None));
        std::fs::create_dir_all(&paths.config_dir).unwrap();
        std::fs::write(
            paths.settings_file(),
            r#"{"attention":{"quiet":{"on":true}},"agents":{}}"#,
        )
        .unwrap();
        let (s, blocked) = load_settings(&paths);
        assert!(s.quiet.on && blocked.is_none());
        std::fs::write(
            paths.settings_file(),
            r#"{"attention":{"keys":{"allow":"Y"}}}"#,
        )
        .unwrap();
        let (s, blocked) = load_settings(&paths);
        assert_eq!(s, AttentionSettings::default());
        assert!(blocked.unwrap().contains("\"attention\" section"));
        std::fs::write(paths.settings_file(), "{ not json").unwrap();
        assert!(load_settings(&paths).1.unwrap().contains("does not parse"));
        let _ = std::fs::remove_dir_all(&home);
    }
}
