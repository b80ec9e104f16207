//! The window's picture of the engine: a [`Model`] that applies [`EngineEvent`]s in order.
//!
//! The views read it and never change it; only [`Model::apply`] does, from the app's `logic`
//! step. Ended birds leave when the engine says [`EngineEvent::SessionGone`] (a few seconds
//! after the end), so the flock shows an ending before it clears it.
//!
//! Everything in it is bounded, so a window left running for weeks stays its size: cards by
//! the requests waiting now, birds by the sessions the engine knows now (an ended one leaves
//! with [`EngineEvent::SessionGone`]), `audit` by [`AUDIT_KEPT`] lines and `history_page` by one
//! page ([`vults_engine::PAGE_LINES`]), `notices` by 20, `showing` by the "Show terminal" runs under
//! way, named tools, rules, installs and chats by what exists.

use std::collections::{BTreeMap, VecDeque};
use vults_core::rules::AlwaysRule;
use vults_engine::messages::{
    AuditEntry, CardId, EngineEvent, NamedTool, PendingCard, PolicyStatus, Session, SessionKey,
    SessionState,
};

/// Audit lines kept in memory for Settings → History, the newest (the log on disk keeps them
/// all, and History reads older ones a page at a time: [`Model::history_page`]).
pub const AUDIT_KEPT: usize = 1000;
const NOTICES_KEPT: usize = 20;

/// What an applied event changed that the app reacts to beyond drawing.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// A card arrived: it gets a window, and the island pulses.
    CardArrived(CardId),
    /// A card is gone (answered or withdrawn): its window closes.
    CardGone(CardId),
    /// Anything else: only drawing changes.
    Other,
}

/// One agent's install state, as the installer reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentInstall {
    /// The agent.
    pub agent: vults_core::agents::Agent,
    /// The name a person knows it by (`Claude Code`).
    pub name: String,
    /// Installed, outdated, tampered, missing, not found on this machine, … (its
    /// [`label`](vults_installer::AgentState::label) is the word shown).
    pub state: vults_installer::AgentState,
    /// What is wrong and what to do, when something is.
    pub detail: Option<String>,
    /// A Repair (an install run) would change something.
    pub repairable: bool,
    /// Vults no longer serves it ([`vults_core::agents::Agent::retired`]): only its old hooks
    /// can be taken out.
    pub retired: bool,
}

/// What the window knows of the engine, the installer and the chat, built from their events
/// ([`Model::apply`]): the views only read it.
#[derive(Debug, Clone, Default)]
pub struct Model {
    /// Pending cards in arrival order (newest last).
    pub cards: Vec<PendingCard>,
    /// Every session the engine knows, as a bird of the flock.
    pub sessions: BTreeMap<SessionKey, Session>,
    /// The Always rules in force.
    pub rules: Vec<AlwaysRule>,
    /// The policy file's state.
    pub policies: PolicyStatus,
    /// The newest audit lines, oldest first; at most [`AUDIT_KEPT`].
    pub audit: Vec<AuditEntry>,
    /// The page of the audit log History asked for last (older lines than `audit` holds).
    pub history_page: Option<vults_engine::AuditPage>,
    /// The named tools that have asked for a card, by name.
    pub named_tools: BTreeMap<String, NamedTool>,
    /// Every agent's install state, in the installer's order; empty until it has reported.
    pub installs: Vec<AgentInstall>,
    /// The last engine notices, newest last.
    pub notices: VecDeque<String>,
    /// Notices about one session's moment ("… asks in its terminal: Bash of 10 KB is too large
    /// to show"): each goes from `notices` when its session moves on or leaves.
    session_notices: Vec<(SessionKey, String)>,
    /// Cards are paused (the window asked the engine to leave requests to the agents).
    pub paused: bool,
    /// The first run's welcome, once the installer has built it (or on request).
    pub welcome: Option<vults_installer::welcome::Welcome>,
    /// The welcome is on screen (in place of the tab's pane).
    pub welcome_open: bool,
    /// Whether Vults starts at login; `None` until the installer has looked.
    pub start_at_login: Option<bool>,
    /// Where the log file is (Settings → General).
    pub log_file: Option<std::path::PathBuf>,
    /// The chat's conversations (Zeca), by id.
    pub chats: BTreeMap<String, vults_zeca::Conversation>,
    /// The chat's settings, as the chat last said them.
    pub zeca_settings: vults_zeca::ZecaSettings,
    /// The last "Show terminal" result: drawn as a toast, and on its bird and card.
    pub shown: Option<crate::show_terminal::Shown>,
    /// The sessions whose terminal is being shown now (their buttons say "Showing…").
    pub showing: std::collections::BTreeSet<SessionKey>,
    /// What each terminal found on this machine supports (Settings → General); `None` until
    /// the survey is done.
    pub terminal_survey: Option<Vec<vults_terminal::Support>>,
    /// Why no tray icon shows (no StatusNotifierItem host), once known (Settings → General).
    pub tray_note: Option<vults_notify::no_tray::NoTray>,
    /// Which monitor the island and the cards go to (Settings → General, saved).
    pub monitor_choice: crate::viewport::MonitorChoice,
    /// The language Vults speaks (Settings → General; applied at once through vults_i18n).
    pub language: vults_i18n::Choice,
    /// Cards float over a fullscreen window on that monitor; off (the default), they wait in
    /// the stack while one shows (Settings → General, saved).
    pub cards_over_fullscreen: bool,
    /// The monitors the X server names (floating layout), for Settings → General.
    pub monitor_names: Vec<String>,
    /// The layout the window runs in, and why, for Settings → General: the id of its message
    /// ([`crate::native::layout_note`]).
    pub layout_note: Option<String>,
    /// What the hooks' watcher last said per agent: Settings → Agents' state line ("removed by
    /// another program at 10:42, put back").
    pub watch_lines: BTreeMap<vults_core::agents::Agent, vults_i18n::Message>,
    /// The agents whose hook the watcher saw go and could not (or was told not to) put back:
    /// the island says so until they are installed again.
    pub hooks_out: std::collections::BTreeSet<vults_core::agents::Agent>,
    /// Agents that appeared while Vults runs, offered an install.
    pub offered: std::collections::BTreeSet<vults_core::agents::Agent>,
    /// The watcher's switches.
    pub watch_settings: vults_installer::watch::WatchSettings,
    /// The plan's limit closest to its end and how much of it is used, in percent: the
    /// island's line ("5 h limit 81 %", [`Model::limit_line`]).
    pub limit_nearest: Option<(vults_notify::limits::Window, u8)>,
}

impl Model {
    /// What the hooks' watcher saw: the agent's state line, the island's line, the offer.
    pub fn watched(&mut self, e: &vults_installer::watch::WatchEvent) {
        use vults_installer::watch::WatchEvent;
        let key = e.agent();
        if let Some(line) = e.state_line() {
            self.watch_lines.insert(key, line);
        }
        match e {
            WatchEvent::Removed { restored: true, .. } => {
                self.hooks_out.remove(&key);
            }
            WatchEvent::Removed { .. }
            | WatchEvent::KeepsRemoving { .. }
            | WatchEvent::RestoreFailed { .. }
            | WatchEvent::Unparsable { .. } => {
                self.hooks_out.insert(key);
            }
            WatchEvent::NewAgent {
                installed: false, ..
            } => {
                self.offered.insert(key);
            }
            WatchEvent::NewAgent {
                installed: true, ..
            } => {
                self.offered.remove(&key);
            }
        }
        self.notice(e.text());
    }

    /// The island's words for an agent whose hook is out ("Claude Code hook out"), in the
    /// active language.
    pub fn hooks_out_line(&self) -> Option<String> {
        let name = self.hooks_out.iter().next()?.display_name();
        Some(match self.hooks_out.len() {
            1 => vults_i18n::tr!("island-hook-out", agent = name),
            n => vults_i18n::tr!("island-hooks-out", count = n),
        })
    }

    /// The island's line for the plan's limit closest to its end ("5 h limit 81 %"), in the
    /// active language.
    pub fn limit_line(&self) -> Option<String> {
        let (window, used) = self.limit_nearest?;
        Some(vults_i18n::tr!(
            "island-limit",
            window = window.key(),
            used = used
        ))
    }

    /// Applies one engine event, and says what changed that the app must act on.
    pub fn apply(&mut self, event: EngineEvent) -> Change {
        match event {
            EngineEvent::CardAdded(card) => {
                let id = card.id;
                self.cards.retain(|c| c.id != id);
                self.cards.push(card);
                return Change::CardArrived(id);
            }
            EngineEvent::CardRemoved { id, .. } => {
                let before = self.cards.len();
                self.cards.retain(|c| c.id != id);
                if self.cards.len() != before {
                    return Change::CardGone(id);
                }
            }
            EngineEvent::SessionChanged(session) => {
                let key = session.key.clone();
                let moved_on = session.in_terminal.is_none();
                self.sessions.insert(key.clone(), session);
                if moved_on {
                    self.drop_session_notices(&key);
                }
            }
            EngineEvent::SessionGone(key) => {
                self.sessions.remove(&key);
                self.drop_session_notices(&key);
            }
            EngineEvent::HistoryPage(page) => self.history_page = Some(page),
            EngineEvent::Rules(rules) => self.rules = rules,
            EngineEvent::Policies(status) => self.policies = status,
            EngineEvent::Audited(mut lines) => {
                self.audit.append(&mut lines);
                if self.audit.len() > AUDIT_KEPT {
                    let extra = self.audit.len() - AUDIT_KEPT;
                    self.audit.drain(..extra);
                }
            }
            EngineEvent::NamedToolSeen(tool) => {
                self.named_tools.insert(tool.name.clone(), tool);
            }
            // The bird says it (its session carries it) and History has its line; the status
            // line says it at once.
            EngineEvent::TooLarge(t) => {
                let line = vults_i18n::tr!(
                    "notice-asks-in-terminal",
                    who = t.identity.display_name(),
                    what = t.text()
                );
                self.session_notices.push((t.session.clone(), line.clone()));
                self.notice(line);
            }
            EngineEvent::Notice(n) => self.notice(engine_notice(&n)),
        }
        Change::Other
    }

    /// Applies one chat event (Zeca's thread sends them beside the engine's).
    pub fn apply_chat(&mut self, event: vults_zeca::ChatEvent) {
        match event {
            vults_zeca::ChatEvent::Updated(c) => {
                self.chats.insert(c.id.clone(), c);
            }
            vults_zeca::ChatEvent::Settings(s) => self.zeca_settings = s,
            vults_zeca::ChatEvent::Notice(line) => self.notice(line),
        }
    }

    /// The session moved on (or left): its notices are no longer true.
    fn drop_session_notices(&mut self, key: &SessionKey) {
        let (gone, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.session_notices)
            .into_iter()
            .partition(|(k, _)| k == key);
        self.session_notices = kept;
        for (_, line) in gone {
            if let Some(at) = self.notices.iter().rposition(|n| *n == line) {
                self.notices.remove(at);
            }
        }
    }

    pub(crate) fn notice(&mut self, line: String) {
        self.notices.push_back(line);
        while self.notices.len() > NOTICES_KEPT {
            self.notices.pop_front();
        }
    }

    /// Sessions that wait for the person with no card up: done with their turn, or asking in
    /// their own terminal. The island counts them with the cards.
    pub fn sessions_waiting(&self) -> usize {
        self.sessions
            .values()
            .filter(|s| matches!(s.state, SessionState::Done | SessionState::AsksInTerminal))
            .count()
    }

    /// The birds of the flock: waiting first (a card, asks in its terminal, done), then
    /// working, idle, ended; the most recently active first within each.
    pub fn birds(&self) -> Vec<&Session> {
        let mut birds: Vec<&Session> = self.sessions.values().collect();
        birds.sort_by(|a, b| {
            state_rank(a.state)
                .cmp(&state_rank(b.state))
                .then(b.last_event.cmp(&a.last_event))
                .then(a.key.cmp(&b.key))
        });
        birds
    }

    /// The waiting card of this id.
    pub fn card(&self, id: CardId) -> Option<&PendingCard> {
        self.cards.iter().find(|c| c.id == id)
    }

    /// The Always rules of one identity (a built-in kind's key or a named tool's name).
    pub fn rules_of<'a>(&'a self, identity: &'a str) -> impl Iterator<Item = &'a AlwaysRule> + 'a {
        self.rules
            .iter()
            .filter(move |r| r.identity.key() == identity)
    }
}

/// The flock's order: whatever waits for the person first (a card, a question in its terminal,
/// a finished turn), then working, idle, ended.
fn state_rank(state: SessionState) -> u8 {
    match state {
        SessionState::WaitingForYou => 0,
        SessionState::AsksInTerminal => 1,
        SessionState::Done => 2,
        SessionState::Working => 3,
        SessionState::Idle => 4,
        SessionState::Ended => 5,
    }
}

/// The engine's notice in the active language; its data (a rule id, a path, a library's or the
/// system's error) stays as the engine said it.
pub fn engine_notice(n: &vults_engine::messages::Notice) -> String {
    use vults_engine::messages::Notice;
    use vults_i18n::tr;
    match n {
        Notice::RuleDropped { why } => tr!("engine-rule-dropped", why = why.as_str()),
        Notice::RulesNotLoaded { why } => tr!("engine-rules-not-loaded", why = why.as_str()),
        Notice::Private(vults_core::paths::PrivateNote::Tightened { path, was, now }) => tr!(
            "engine-private-tightened",
            path = path.display().to_string(),
            was = format!("{was:o}"),
            now = format!("{now:o}")
        ),
        Notice::Private(vults_core::paths::PrivateNote::Failed { path, error }) => tr!(
            "engine-private-failed",
            path = path.display().to_string(),
            error = error
        ),
        Notice::NoSuchRule { rule } => tr!("engine-no-such-rule", rule = rule.as_str()),
        Notice::CardGone { card } => tr!("engine-card-gone", card = card.to_string()),
        Notice::NotAQuestion { card } => tr!("engine-not-a-question", card = card.to_string()),
        Notice::NoAlways { card } => tr!("engine-no-always", card = card.to_string()),
        Notice::RulesKeptInMemory => tr!("engine-rules-kept-in-memory"),
        Notice::RulesNotSaved { path, error } => tr!(
            "engine-rules-not-saved",
            path = path.display().to_string(),
            error = error.as_str()
        ),
        Notice::RefusedMessage { kind } => tr!("engine-refused-message", kind = kind.as_str()),
        Notice::RefusedUser {
            uid,
            pid: Some(pid),
            me,
        } => tr!(
            "engine-refused-user-pid",
            uid = uid.to_string(),
            pid = pid.to_string(),
            me = me.to_string()
        ),
        Notice::RefusedUser { uid, pid: None, me } => tr!(
            "engine-refused-user",
            uid = uid.to_string(),
            me = me.to_string()
        ),
        Notice::RefusedUnknownUser => tr!("engine-refused-unknown-user"),
        Notice::RefusedUnreadable { error } => {
            tr!("engine-refused-unreadable", error = error.as_str())
        }
    }
}

#[cfg(test)]
mod watch_tests {
    use super::Model;
    use std::time::SystemTime;
    use vults_installer::Agent;
    use vults_installer::watch::WatchEvent;

    #[test]
    fn what_the_watcher_saw_shows_in_settings_and_on_the_island() {
        let mut m = Model::default();
        let file = std::path::PathBuf::from("/h/.claude/settings.json");
        m.watched(&WatchEvent::Removed {
            agent: Agent::Claude,
            file: file.clone(),
            at: SystemTime::now(),
            changed: false,
            restored: true,
        });
        let line = m.watch_lines[&Agent::Claude].to_string();
        assert!(line.starts_with("removed by another program at "), "{line}");
        assert!(line.ends_with(", put back"), "{line}");
        let pt = vults_i18n::scoped(&vults_i18n::Choice::Language("pt-BR".into()));
        let line = m.watch_lines[&Agent::Claude].text();
        assert!(
            line.starts_with("removido por outro programa às "),
            "{line}"
        );
        drop(pt);
        assert_eq!(
            m.hooks_out_line(),
            None,
            "put back: the island says nothing"
        );
        assert_eq!(m.notices.len(), 1);
        m.watched(&WatchEvent::KeepsRemoving {
            agent: Agent::Claude,
            file,
            at: SystemTime::now(),
        });
        assert_eq!(m.hooks_out_line().as_deref(), Some("Claude Code hook out"));
        assert!(
            m.notices
                .back()
                .unwrap()
                .contains("/h/.claude/settings.json")
        );
        m.watched(&WatchEvent::NewAgent {
            agent: Agent::Qwen,
            installed: false,
        });
        assert!(m.offered.contains(&Agent::Qwen));
    }
}
