//! What the installer says: one [`AgentReport`] per agent, its [`AgentState`], and the texts
//! built from them (`vults-app doctor`'s lines, the first run's message).

use std::fmt;
use std::path::PathBuf;
use vults_core::agents::Agent;
use vults_i18n::Message;

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
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's words.
        message: String,
    },
    /// Old Vults hooks of an agent Vults no longer installs into (Gemini CLI): offer removal.
    Leftover,
    /// Something else went wrong (unreadable file, unexpected shape, a failed write).
    Failed(String),
}

impl AgentState {
    /// The state in a few words, as Settings → Agents and `doctor` show it.
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
    /// Nothing was written.
    Nothing,
    /// Vults' entries were added.
    Installed,
    /// Vults' entries were brought up to date.
    Updated,
    /// Vults' entries were taken out.
    Removed,
}

/// One agent's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentReport {
    /// The agent.
    pub agent: Agent,
    /// The state after the call.
    pub state: AgentState,
    /// What the call wrote.
    pub action: Action,
    /// The file (or plugin) Vults writes for this agent.
    pub path: Option<PathBuf>,
    /// What the user should know: a repaired hook copy, Codex's `/hooks` trust, …
    /// Each a message the window words in the person's language; its `Display` is the English
    /// `doctor` and the log print.
    pub notes: Vec<Message>,
}

/// The note's id: Codex runs new hooks only once trusted in its `/hooks`.
pub(super) const CODEX_TRUST_NOTE: &str = "agents-note-codex-trust";

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
        let state = if r.agent.retired() && r.action == Action::Removed {
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

/// What the first run found and did, in parts: [`first_run_message`] says it in English, and
/// the window words the same parts in the person's language (the welcome).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FirstRun {
    /// The agents found on this machine, by the names people know.
    pub found: Vec<String>,
    /// Those whose hook is installed.
    pub installed: Vec<String>,
    /// Those installed whose permission requests now come as cards.
    pub cards: Vec<String>,
    /// Those installed that only show their sessions in the flock.
    pub sessions_only: Vec<String>,
    /// Claude Code's status line now also feeds Vults.
    pub status_line: bool,
    /// What is still to do, in order.
    pub todo: Vec<ToDo>,
}

/// One thing still to do after the first run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToDo {
    /// Codex runs new hooks only once trusted in its `/hooks`.
    CodexTrust,
    /// An agent's settings file does not parse; it was left untouched.
    Unparsable {
        /// The agent's name.
        agent: String,
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's words.
        message: String,
    },
    /// The install failed, and why (the installer's words).
    Failed {
        /// The agent's name.
        agent: String,
        /// Why.
        why: String,
    },
    /// Old Vults hooks of an agent Vults no longer installs into.
    Leftover {
        /// The agent's name.
        agent: String,
    },
}

/// The first run's parts ([`FirstRun`]) from the app-start install's reports.
pub fn first_run(reports: &[AgentReport]) -> FirstRun {
    let names = |f: &dyn Fn(&AgentReport) -> bool| -> Vec<String> {
        reports
            .iter()
            .filter(|r| f(r))
            .map(|r| r.agent.display_name().to_string())
            .collect()
    };
    let installed = |r: &AgentReport| r.state == AgentState::Installed;
    let mut todo = Vec::new();
    for r in reports {
        let agent = r.agent.display_name().to_string();
        match &r.state {
            AgentState::Installed | AgentState::Outdated if r.agent.needs_trust() => {
                todo.push(ToDo::CodexTrust);
            }
            AgentState::Unparsable {
                path,
                line,
                column,
                message,
            } => todo.push(ToDo::Unparsable {
                agent,
                path: path.clone(),
                line: *line,
                column: *column,
                message: message.clone(),
            }),
            AgentState::Failed(why) => todo.push(ToDo::Failed {
                agent,
                why: why.clone(),
            }),
            AgentState::Leftover => todo.push(ToDo::Leftover { agent }),
            _ => {}
        }
    }
    FirstRun {
        found: names(&|r| !r.agent.retired() && r.state != AgentState::NotFound),
        installed: names(&installed),
        cards: names(&|r| installed(r) && r.agent.answers_permissions()),
        sessions_only: names(&|r| installed(r) && !r.agent.answers_permissions()),
        status_line: reports
            .iter()
            .any(|r| r.agent.keeps_status_line() && installed(r)),
        todo,
    }
}

/// What the app says on its first run: the agents found, what was installed, and what the
/// user must still do ([`first_run`]'s parts, in English).
pub fn first_run_message(reports: &[AgentReport]) -> String {
    let run = first_run(reports);
    let mut out = String::new();
    if run.found.is_empty() {
        out.push_str(
            "Vults found no coding agent on this machine yet. Install one (Claude Code, Codex CLI, \
             Copilot CLI, Qwen Code, OpenCode …) and restart Vults: it puts its hook in by itself.\n",
        );
        return out;
    }
    out.push_str(&format!("Vults found: {}.\n", run.found.join(", ")));
    if !run.installed.is_empty() {
        out.push_str(&format!(
            "Its hook is installed for: {}.\n",
            run.installed.join(", ")
        ));
    }
    if !run.cards.is_empty() {
        out.push_str(&format!(
            "Permission requests of {} now show up as cards.\n",
            run.cards.join(", ")
        ));
    }
    if !run.sessions_only.is_empty() {
        out.push_str(&format!(
            "{} only show their sessions in the flock; they keep asking for permission in their own window.\n",
            run.sessions_only.join(", ")
        ));
    }
    if run.status_line {
        out.push_str(
            "Claude Code's status line now also feeds Vults; a status line of your own still shows.\n",
        );
    }
    if !run.todo.is_empty() {
        out.push_str("Still to do:\n");
        for t in &run.todo {
            let line = match t {
                ToDo::CodexTrust => format!("Codex CLI: {}", Message::new(CODEX_TRUST_NOTE)),
                ToDo::Unparsable {
                    agent,
                    path,
                    line,
                    column,
                    message,
                } => format!(
                    "{agent}: {} does not parse (line {line}, column {column}: {message}); left \
                     untouched. Fix the file and Vults installs on its next start.",
                    path.display()
                ),
                ToDo::Failed { agent, why } => format!("{agent}: {why}"),
                ToDo::Leftover { agent } => format!(
                    "{agent}: old Vults hooks are still in its settings; they do nothing now. \
                     Remove them from Settings > Agents."
                ),
            };
            out.push_str(&format!("- {line}\n"));
        }
    }
    out
}
