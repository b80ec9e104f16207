//! The window's picture of the engine: a [`Model`] that applies [`EngineEvent`]s in order.
//!
//! The views read it and never change it; only [`Model::apply`] does, from the app's `logic`
//! step. Ended birds leave when the engine says [`EngineEvent::SessionGone`] (a few seconds
//! after the end), so the flock shows an ending before it clears it.

use std::collections::{BTreeMap, VecDeque};
use vults_core::rules::AlwaysRule;
use vults_engine::messages::{
    AuditEntry, CardId, EngineEvent, NamedTool, PendingCard, PolicyStatus, Session, SessionKey,
    SessionState,
};

/// Audit lines kept in memory for Settings → History (the log on disk keeps them all).
pub const AUDIT_KEPT: usize = 5000;
const NOTICES_KEPT: usize = 20;

/// What an applied event changed that the app reacts to beyond drawing.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    CardArrived(CardId),
    CardGone(CardId),
    Other,
}

/// One agent's install state, as the installer reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentInstall {
    /// The `--agent` name (`claude`, `cursor`, …).
    pub key: String,
    pub name: String,
    /// `installed`, `outdated`, `tampered`, `missing`, `not found on this machine`, …
    pub state: String,
    /// What is wrong and what to do, when something is.
    pub detail: Option<String>,
    /// A Repair (an install run) would change something.
    pub repairable: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Model {
    /// Pending cards in arrival order (newest last).
    pub cards: Vec<PendingCard>,
    pub sessions: BTreeMap<SessionKey, Session>,
    pub rules: Vec<AlwaysRule>,
    pub policies: PolicyStatus,
    /// Oldest first.
    pub audit: Vec<AuditEntry>,
    pub named_tools: BTreeMap<String, NamedTool>,
    /// Every agent's install state, in the installer's order; empty until it has reported.
    pub installs: Vec<AgentInstall>,
    /// The last engine notices, newest last.
    pub notices: VecDeque<String>,
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
    pub zeca_settings: vults_zeca::ZecaSettings,
    /// The last "Show terminal" result: drawn as a toast, and on its bird and card.
    pub shown: Option<crate::terminal::Shown>,
    /// The sessions whose terminal is being shown now (their buttons say "Showing…").
    pub showing: std::collections::BTreeSet<SessionKey>,
    /// What each terminal found on this machine supports (Settings → General); `None` until
    /// the survey is done.
    pub terminal_survey: Option<Vec<vults_terminal::Support>>,
}

impl Model {
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
                self.sessions.insert(session.key.clone(), session);
            }
            EngineEvent::SessionGone(key) => {
                self.sessions.remove(&key);
            }
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
            EngineEvent::TooLarge(t) => self.notice(format!(
                "{} asks in its terminal: {}",
                t.identity.display_name(),
                t.text()
            )),
            EngineEvent::Notice(line) => self.notice(line),
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

    pub(crate) fn notice(&mut self, line: String) {
        self.notices.push_back(line);
        while self.notices.len() > NOTICES_KEPT {
            self.notices.pop_front();
        }
    }

    /// The birds of the flock: waiting first, then working, idle, ended; the most recently
    /// active first within each.
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

fn state_rank(state: SessionState) -> u8 {
    match state {
        SessionState::WaitingForYou => 0,
        SessionState::Working => 1,
        SessionState::Idle => 2,
        SessionState::Ended => 3,
    }
}
