//! A conversation as the chat keeps it and the window shows it: its id and the session its
//! cards belong to ([`session_of`]), its items ([`Entry`]; a tool row's question in [`Asked`]),
//! the chat's settings, what a task runs, and the agent a conversation's `engine` names
//! ([`chat_agent`]).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use vults_core::agents::{Agent, ChatEngine};
use vults_engine::messages::AnsweredBy;

/// A conversation's id: letters, digits, `-` and `_` (it names its file).
pub type ChatId = String;

/// The session key's `session` of a chat's cards (and its audit lines): `zeca:<chat id>`.
pub fn session_of(chat: &str) -> String {
    format!("zeca:{chat}")
}

/// The chat a card belongs to, from its session (`zeca:<chat id>`).
pub fn chat_of_session(session: &str) -> Option<&str> {
    session.strip_prefix("zeca:")
}

/// One item of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Entry {
    /// What the person wrote.
    User {
        /// The message as typed.
        text: String,
    },
    /// What the agent answered.
    Assistant {
        /// The answer's text (Markdown), as it streamed in.
        text: String,
    },
    /// A tool call: a compact row, its result once it came.
    Tool {
        /// The CLI's id of the call (`tool_use` id): its result and its question name it.
        id: String,
        /// The tool as the agent names it (`Bash`, `Edit` …).
        name: String,
        /// The call's target in short (the command, the file), for the row.
        summary: String,
        /// What the tool said back, once it ran.
        #[serde(default)]
        result: Option<String>,
        /// The tool failed, or was refused.
        #[serde(default)]
        error: bool,
        /// What became of its permission question, when it asked one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        asked: Option<Asked>,
        /// The turn was stopped before it had run, or while it ran.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        stopped: bool,
    },
    /// What the chat itself says (a stopped turn, a CLI that could not start …).
    Note {
        /// The note's words.
        text: String,
    },
    /// A task started from the chat.
    Task {
        /// The task's id: its session's `VULTS_TASK`, and its log's name.
        id: String,
        /// The folder it runs in.
        folder: String,
        /// `claude` or `codex`.
        agent: String,
        /// The prompt it was started with.
        prompt: String,
        /// Started headless instead of in a terminal window.
        headless: bool,
        /// `running`, or `ended (<exit status>)`.
        state: String,
    },
}

/// One conversation: the CLI's own session continues it across turns and restarts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conversation {
    /// Its id: names its file.
    pub id: ChatId,
    /// The folder the CLI runs in.
    pub folder: String,
    /// `claude` (Claude Code, stream-json) or `codex` (Codex CLI's app server).
    pub engine: String,
    /// The CLI's session id (Claude Code) or thread id (Codex), to resume after a restart.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Everything said and done in it, oldest first.
    #[serde(default)]
    pub entries: Vec<Entry>,
    /// When the person or the agent last did something in it (Unix ms): the picker says it and
    /// sorts by it. A file saved before it existed reads its modification time.
    #[serde(default)]
    pub last_active: u64,
    /// A turn is running.
    #[serde(skip)]
    pub running: bool,
    /// The CLI's process id while it runs.
    #[serde(skip)]
    pub pid: Option<u32>,
}

impl Conversation {
    /// A new, empty conversation of `engine` in `folder`.
    pub fn new(id: &str, folder: &str, engine: &str) -> Conversation {
        Conversation {
            id: id.to_string(),
            folder: folder.to_string(),
            engine: engine.to_string(),
            session_id: None,
            entries: Vec::new(),
            last_active: 0,
            running: false,
            pid: None,
        }
    }

    /// The first user words, for the conversation list (a conversation that only started tasks:
    /// its first task's prompt).
    pub fn title(&self) -> String {
        let first = self.entries.iter().find_map(|e| match e {
            Entry::User { text } => Some(text.lines().next().unwrap_or_default().to_string()),
            _ => None,
        });
        let task = || {
            self.entries.iter().find_map(|e| match e {
                Entry::Task { prompt, .. } => Some(match prompt.lines().next() {
                    Some(p) if !p.trim().is_empty() => format!("task: {p}"),
                    _ => "task".to_string(),
                }),
                _ => None,
            })
        };
        let t = first.or_else(task).unwrap_or_else(|| "New chat".into());
        t.chars().take(40).collect()
    }
}

/// What became of a tool call's permission question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Asked {
    /// Its card waits for an answer.
    Waiting,
    /// Allowed: the tool runs.
    Allowed {
        /// Who allowed it.
        by: AnsweredBy,
    },
    /// Denied: the CLI was told no.
    Denied {
        /// Who denied it.
        by: AnsweredBy,
    },
    /// A question, answered.
    Answered {
        /// Who answered it.
        by: AnsweredBy,
    },
    /// Nobody could answer it (its card was withdrawn): the CLI was told no.
    Withdrawn,
}

/// The chat's settings (`zeca.json` in the config folder), set in the Chat view.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ZecaSettings {
    /// The CLI to run for each agent the chat drives (its row's `chat`), by its `--agent` name
    /// (`claude`, `codex`: the file's own keys); an agent not here is found on PATH.
    #[serde(flatten, deserialize_with = "chat_clis")]
    pub clis: BTreeMap<String, String>,
    /// The terminal emulator for tasks, as a command prefix (`kitty -e`, `gnome-terminal --`);
    /// empty: found the way the platform does it ([`crate::task::detect_terminal`]).
    #[serde(default)]
    pub terminal: Option<String>,
    /// The folder the last chat ran in: a new chat starts there (also after a restart).
    #[serde(default)]
    pub last_folder: Option<String>,
}

/// The flattened keys of `zeca.json` that name a chatting agent's CLI (others, and a key without
/// a path, are not a CLI).
fn chat_clis<'de, D: serde::Deserializer<'de>>(d: D) -> Result<BTreeMap<String, String>, D::Error> {
    let keys = BTreeMap::<String, serde_json::Value>::deserialize(d)?;
    Ok(keys
        .into_iter()
        .filter(|(name, _)| Agent::parse(name).is_some_and(|a| a.spec().chat.is_some()))
        .filter_map(|(name, path)| Some((name, path.as_str()?.to_string())))
        .collect())
}

/// What a task runs.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskSpec {
    /// The folder the agent starts in.
    pub folder: String,
    /// What the agent is asked to do.
    pub prompt: String,
    /// `claude` or `codex`.
    pub agent: String,
    /// Headless (`claude -p`, `codex exec`) instead of in a terminal window.
    pub headless: bool,
}

/// The agent a conversation's (or a task's) `engine` names, with the chat engine its row says
/// drives it; `None` for an agent Zeca does not chat with.
pub fn chat_agent(engine: &str) -> Option<(Agent, ChatEngine)> {
    let agent = Agent::parse(engine)?;
    Some((agent, agent.spec().chat?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `zeca.json` as earlier versions wrote it (`"claude"`, `"codex"`, `null` when unset)
    /// still reads, and is written back the same way: each chatting agent's CLI by its name.
    #[test]
    fn settings_read_each_chatting_agents_cli_by_its_name() {
        let old =
            r#"{"claude":"/opt/claude","codex":null,"terminal":"kitty -e","qwen":"/q","x":5}"#;
        let s: ZecaSettings = serde_json::from_str(old).unwrap();
        assert_eq!(
            s.clis,
            BTreeMap::from([("claude".to_string(), "/opt/claude".to_string())])
        );
        assert_eq!(s.terminal.as_deref(), Some("kitty -e"));
        let written = serde_json::to_value(&s).unwrap();
        assert_eq!(written["claude"], "/opt/claude");
        let again: ZecaSettings = serde_json::from_value(written).unwrap();
        assert_eq!(again, s);
    }

    /// A conversation that only started a task is named by the task, not "New chat" (which
    /// is the picker's own first row).
    #[test]
    fn a_conversation_is_named_by_its_first_words_or_its_first_task() {
        let mut c = Conversation::new("c1", "/p", "claude");
        assert_eq!(c.title(), "New chat");
        c.entries.push(Entry::Task {
            id: "t1".into(),
            folder: "/p".into(),
            agent: "claude".into(),
            prompt: "write the release notes\nin full".into(),
            headless: true,
            state: "running".into(),
        });
        assert_eq!(c.title(), "task: write the release notes");
        c.entries.push(Entry::User {
            text: "now fix the build".into(),
        });
        assert_eq!(c.title(), "now fix the build");
    }
}
