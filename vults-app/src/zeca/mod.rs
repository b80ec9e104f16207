//! Zeca, the app's own chat: drives the user's Claude Code headless with stream-json both ways
//! (`docs/zeca.md`), asks its own cards, and starts tasks.
//!
//! - [`stream`]: the stream-json lines, read and written.
//! - [`store`]: conversations under the data folder and the chat's settings, written atomically.
//! - [`process`]: one CLI process (its own process group), read and written by threads of its
//!   own, so neither the engine's core nor the window ever waits on it.
//! - [`task`]: tasks: an agent in the user's terminal emulator, or headless, with `VULTS_TASK`.
//!
//! [`Zeca`] is owned by the engine's core task: the window sends [`ChatCommand`]s (inside
//! `EngineCommand::Chat`) and reads [`ChatEvent`]s; the processes report [`Note`]s through the
//! sink the engine gives. A `can_use_tool` becomes an [`Ask`]: the engine puts it through the
//! one decision point exactly like a hook's request (a policy deny answers without a card, a
//! destructive call always asks, Always rules answer), as a card of the session `zeca:<chat>`
//! that the window shows inline in the chat. The answer comes back as [`Note::Answered`] and goes
//! to the CLI's stdin as a `control_response`, never through the hook socket.

pub mod codex;
pub mod process;
pub mod store;
pub mod stream;
pub mod task;

use crate::model::AuditEntry;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use vults_core::agents::{self, ReplyShape};
use vults_core::paths::Paths;
use vults_core::protocol::{AgentKind, Decision, Event, Message, Terminal, VERSION};

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

/// What the text denies with.
pub const DENIED: &str = "Denied from Vults";

/// One item of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Entry {
    User {
        text: String,
    },
    Assistant {
        text: String,
    },
    /// A tool call: a compact row, its result once it came.
    Tool {
        id: String,
        name: String,
        summary: String,
        #[serde(default)]
        result: Option<String>,
        #[serde(default)]
        error: bool,
    },
    /// What the chat itself says (a stopped turn, a CLI that could not start …).
    Note {
        text: String,
    },
    /// A task started from the chat.
    Task {
        id: String,
        folder: String,
        agent: String,
        prompt: String,
        headless: bool,
        state: String,
    },
}

/// One conversation: the CLI's own session continues it across turns and restarts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conversation {
    pub id: ChatId,
    pub folder: String,
    /// `claude` (Claude Code, stream-json) or `codex` (Codex CLI's app server).
    pub engine: String,
    /// The CLI's session id (Claude Code) or thread id (Codex), to resume after a restart.
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub entries: Vec<Entry>,
    /// A turn is running.
    #[serde(skip)]
    pub running: bool,
    /// The CLI's process id while it runs.
    #[serde(skip)]
    pub pid: Option<u32>,
}

impl Conversation {
    pub fn new(id: &str, folder: &str, engine: &str) -> Conversation {
        Conversation {
            id: id.to_string(),
            folder: folder.to_string(),
            engine: engine.to_string(),
            session_id: None,
            entries: Vec::new(),
            running: false,
            pid: None,
        }
    }

    /// The first user words, for the conversation list.
    pub fn title(&self) -> String {
        let first = self.entries.iter().find_map(|e| match e {
            Entry::User { text } => Some(text.lines().next().unwrap_or_default().to_string()),
            _ => None,
        });
        let t = first.unwrap_or_else(|| "New chat".into());
        t.chars().take(40).collect()
    }
}

/// The chat's settings (`zeca.json` in the config folder), set in the Chat view.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ZecaSettings {
    /// The `claude` to run; empty: found on PATH.
    #[serde(default)]
    pub claude: Option<String>,
    /// The `codex` to run; empty: found on PATH.
    #[serde(default)]
    pub codex: Option<String>,
    /// The terminal emulator for tasks, as a command prefix (`kitty -e`, `gnome-terminal --`);
    /// empty: found the way the platform does it ([`task::detect_terminal`]).
    #[serde(default)]
    pub terminal: Option<String>,
}

/// What a task runs.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskSpec {
    pub folder: String,
    pub prompt: String,
    /// `claude` or `codex`.
    pub agent: String,
    /// Headless (`claude -p`, `codex exec`) instead of in a terminal window.
    pub headless: bool,
}

/// Window → chat (inside `EngineCommand::Chat`).
#[derive(Debug, Clone, PartialEq)]
pub enum ChatCommand {
    /// A user turn; makes the conversation (in `folder`) when it is new.
    Send {
        chat: ChatId,
        folder: String,
        /// `claude` or `codex`; only read when the conversation is new.
        engine: String,
        text: String,
    },
    /// Stops the running turn: the CLI's process group ends; the next turn resumes the session.
    Stop {
        chat: ChatId,
    },
    StartTask {
        chat: ChatId,
        task: TaskSpec,
    },
    Configure(ZecaSettings),
}

/// Chat → window (inside `EngineEvent::Chat`).
#[derive(Debug, Clone, PartialEq)]
pub enum ChatEvent {
    /// The whole conversation as it is now.
    Updated(Conversation),
    Settings(ZecaSettings),
}

/// How the engine runs the chat's CLIs (tests point them at a mock model).
#[derive(Debug, Clone, Default)]
pub struct ZecaOptions {
    /// The `claude` binary, over the setting and PATH.
    pub claude: Option<PathBuf>,
    /// The `codex` binary, over the setting and PATH.
    pub codex: Option<PathBuf>,
    /// Extra environment for every process the chat starts (the CLI and tasks).
    pub env: Vec<(String, String)>,
    /// Variables taken out of the environment of every process the chat starts.
    pub env_remove: Vec<String>,
}

/// What the processes report; the engine hands each to [`Zeca::on_note`].
#[derive(Debug)]
pub enum Note {
    Line {
        chat: ChatId,
        run: u64,
        line: String,
    },
    Exited {
        chat: ChatId,
        run: u64,
        status: String,
    },
    /// The engine's answer to an [`Ask`], and its audit line (written once delivered).
    Answered {
        chat: ChatId,
        request_id: String,
        reply: Box<Message>,
        entry: Box<AuditEntry>,
    },
    /// The card was withdrawn (nobody can answer now): the CLI is told no.
    Withdrawn { chat: ChatId, request_id: String },
    TaskExited {
        chat: ChatId,
        task: String,
        status: String,
    },
}

/// Where the processes' notes go (the engine's core input).
pub type Sink = Arc<dyn Fn(Note) + Send + Sync>;

/// A permission question for the engine's decision point.
#[derive(Debug)]
pub struct Ask {
    /// A connection id of its own, so withdrawing works as for a hook.
    pub conn: u64,
    pub chat: ChatId,
    pub event: Event,
}

/// What the engine does for the chat.
#[derive(Debug)]
pub enum Effect {
    Window(ChatEvent),
    Ask(Ask),
    /// The ask on this connection can no longer be answered: withdraw its card.
    Closed(u64),
    /// An answer's audit line, delivered to the CLI or not.
    Delivered(AuditEntry, bool),
    Notice(String),
}

/// Connection ids of the chat's asks, far from the socket's (which count up from 1).
const CONN_BASE: u64 = 1 << 62;

struct PendingAsk {
    conn: u64,
    payload: Value,
}

struct Chat {
    conv: Conversation,
    proc: Option<process::Proc>,
    /// Codex: the thread of this process is open (turns before that wait in `queued`).
    thread_ready: bool,
    queued: Vec<String>,
    /// Codex: file changes by item id, for the approval that names the item.
    changes: Vec<(String, Value)>,
    next_rpc: u64,
    /// The assistant entry being streamed into.
    open_text: Option<usize>,
    asks: BTreeMap<String, PendingAsk>,
    stopping: bool,
}

/// The chat's state, owned by the engine's core.
pub struct Zeca {
    store: store::Store,
    options: ZecaOptions,
    settings: ZecaSettings,
    chats: BTreeMap<ChatId, Chat>,
    sink: Sink,
    next_run: u64,
    next_conn: u64,
    next_task: u64,
}

impl Zeca {
    /// Loads the saved conversations and settings; the effects show them in the window.
    pub fn load(paths: &Paths, options: ZecaOptions, sink: Sink) -> (Zeca, Vec<Effect>) {
        let mut effects = Vec::new();
        let store = store::Store::new(paths);
        let (settings, problem) = store.load_settings();
        if let Some(p) = problem {
            effects.push(Effect::Notice(p));
        }
        let (convs, problems) = store.load_all();
        effects.extend(problems.into_iter().map(Effect::Notice));
        let mut chats = BTreeMap::new();
        for conv in convs {
            effects.push(Effect::Window(ChatEvent::Updated(conv.clone())));
            chats.insert(
                conv.id.clone(),
                Chat {
                    conv,
                    proc: None,
                    thread_ready: false,
                    queued: Vec::new(),
                    changes: Vec::new(),
                    next_rpc: 10,
                    open_text: None,
                    asks: BTreeMap::new(),
                    stopping: false,
                },
            );
        }
        effects.push(Effect::Window(ChatEvent::Settings(settings.clone())));
        let zeca = Zeca {
            store,
            options,
            settings,
            chats,
            sink,
            next_run: 0,
            next_conn: CONN_BASE,
            next_task: 0,
        };
        (zeca, effects)
    }

    /// The `claude` to run: the engine's option, the setting, or PATH.
    fn claude(&self) -> Result<PathBuf, String> {
        let setting = self.settings.claude.as_deref();
        cli_path(
            self.options.claude.as_ref(),
            setting,
            "claude",
            "Claude Code",
        )
    }

    /// The `codex` to run: the engine's option, the setting, or PATH.
    fn codex(&self) -> Result<PathBuf, String> {
        let setting = self.settings.codex.as_deref();
        cli_path(self.options.codex.as_ref(), setting, "codex", "Codex CLI")
    }

    pub fn on_command(&mut self, cmd: ChatCommand) -> Vec<Effect> {
        match cmd {
            ChatCommand::Send {
                chat,
                folder,
                engine,
                text,
            } => self.send(chat, &folder, &engine, &text),
            ChatCommand::Stop { chat } => {
                if let Some(c) = self.chats.get_mut(&chat)
                    && let Some(p) = &c.proc
                {
                    c.stopping = true;
                    p.kill();
                }
                Vec::new()
            }
            ChatCommand::StartTask { chat, task } => self.start_task(chat, task),
            ChatCommand::Configure(settings) => {
                self.settings = settings;
                let mut out = vec![Effect::Window(ChatEvent::Settings(self.settings.clone()))];
                if let Err(e) = self.store.save_settings(&self.settings) {
                    out.push(Effect::Notice(e));
                }
                out
            }
        }
    }

    fn chat_mut(&mut self, id: &str, folder: &str, engine: &str) -> &mut Chat {
        self.chats.entry(id.to_string()).or_insert_with(|| Chat {
            conv: Conversation::new(id, folder, engine),
            proc: None,
            thread_ready: false,
            queued: Vec::new(),
            changes: Vec::new(),
            next_rpc: 10,
            open_text: None,
            asks: BTreeMap::new(),
            stopping: false,
        })
    }

    fn send(&mut self, id: ChatId, folder: &str, engine: &str, text: &str) -> Vec<Effect> {
        if !store::valid_id(&id) {
            return vec![Effect::Notice(format!("not a chat id: {id:?}"))];
        }
        if engine != "claude" && engine != "codex" {
            return vec![Effect::Notice(format!("no such chat engine: {engine:?}"))];
        }
        let engine = self
            .chats
            .get(&id)
            .map_or_else(|| engine.to_string(), |c| c.conv.engine.clone());
        let codex = engine == "codex";
        let program = if codex { self.codex() } else { self.claude() };
        let env = self.options.env.clone();
        let remove = self.options.env_remove.clone();
        self.next_run += 1;
        let run = self.next_run;
        let sink = self.sink.clone();
        let chat = self.chat_mut(&id, folder, &engine);
        // A conversation whose CLI never started (a folder that does not exist, a CLI not
        // found) takes the folder it is sent with: a typo does not hold it there for good.
        let never_ran = chat.conv.session_id.is_none() && chat.proc.is_none();
        if chat.conv.folder.is_empty() || never_ran && !folder.trim().is_empty() {
            chat.conv.folder = folder.trim().to_string();
        }
        chat.conv.entries.push(Entry::User {
            text: text.to_string(),
        });
        let folder = chat.conv.folder.clone();
        if chat.proc.is_none() {
            let started = program.and_then(|program| {
                if !std::path::Path::new(&folder).is_dir() {
                    return Err(format!("the folder {folder:?} does not exist"));
                }
                let mut args: Vec<String> = if codex {
                    vec!["app-server".to_string()]
                } else {
                    [
                        "-p",
                        "--input-format",
                        "stream-json",
                        "--output-format",
                        "stream-json",
                        "--verbose",
                        "--permission-prompt-tool",
                        "stdio",
                        "--include-partial-messages",
                    ]
                    .iter()
                    .map(|s| s.to_string())
                    .collect()
                };
                if let Some(sid) = chat.conv.session_id.as_ref().filter(|_| !codex) {
                    args.push("--resume".into());
                    args.push(sid.clone());
                }
                let mut env = env;
                env.push(("VULTS_ZECA".into(), "1".into()));
                let remove: Vec<&str> = remove.iter().map(String::as_str).collect();
                process::Proc::spawn(
                    &program,
                    &args,
                    &folder,
                    &env,
                    &remove,
                    id.clone(),
                    run,
                    sink,
                )
                .map_err(|e| format!("cannot start {}: {e}", program.display()))
            });
            match started {
                Ok(p) => {
                    chat.conv.pid = Some(p.pid);
                    chat.thread_ready = false;
                    chat.queued.clear();
                    if codex {
                        for line in codex::opening(&folder, chat.conv.session_id.as_deref()) {
                            p.write(line);
                        }
                    }
                    chat.proc = Some(p);
                }
                Err(e) => {
                    chat.conv.entries.push(Entry::Note { text: e });
                    return self.changed(&id);
                }
            }
        }
        let Some(p) = &chat.proc else {
            return Vec::new();
        };
        if !codex {
            p.write(stream::user_line(text));
        } else if chat.thread_ready
            && let Some(thread) = &chat.conv.session_id
        {
            chat.next_rpc += 1;
            p.write(codex::turn_line(chat.next_rpc, thread, text));
        } else {
            chat.queued.push(text.to_string());
        }
        chat.conv.running = true;
        chat.open_text = None;
        self.changed(&id)
    }

    /// Saves a conversation and shows it.
    fn changed(&mut self, id: &str) -> Vec<Effect> {
        let Some(chat) = self.chats.get(id) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        // An atomic write is a few fsyncs: let the runtime move other tasks off this thread.
        let saved = tokio::task::block_in_place(|| self.store.save(&chat.conv));
        if let Err(e) = saved {
            out.push(Effect::Notice(e));
        }
        out.push(Effect::Window(ChatEvent::Updated(chat.conv.clone())));
        out
    }

    /// Shows a conversation without saving it (streamed text: saved when the message is whole).
    fn shown(&self, id: &str) -> Vec<Effect> {
        self.chats
            .get(id)
            .map(|c| vec![Effect::Window(ChatEvent::Updated(c.conv.clone()))])
            .unwrap_or_default()
    }

    pub fn on_note(&mut self, note: Note) -> Vec<Effect> {
        match note {
            Note::Line { chat, run, line } => self.on_line(&chat, run, &line),
            Note::Exited { chat, run, status } => self.on_exit(&chat, run, &status),
            Note::Answered {
                chat,
                request_id,
                reply,
                entry,
            } => {
                let delivered = self.reply(&chat, &request_id, &reply);
                vec![Effect::Delivered(*entry, delivered)]
            }
            Note::Withdrawn { chat, request_id } => {
                if let Some(c) = self.chats.get_mut(&chat)
                    && c.asks.remove(&request_id).is_some()
                    && let Some(p) = &c.proc
                {
                    p.write(if c.conv.engine == "codex" {
                        codex::decision_line(&request_id, false)
                    } else {
                        stream::deny_line(&request_id, "Nobody could answer in Vults")
                    });
                }
                Vec::new()
            }
            Note::TaskExited { chat, task, status } => {
                let Some(c) = self.chats.get_mut(&chat) else {
                    return Vec::new();
                };
                for e in &mut c.conv.entries {
                    if let Entry::Task { id, state, .. } = e
                        && *id == task
                    {
                        *state = format!("ended ({status})");
                    }
                }
                self.changed(&chat)
            }
        }
    }

    /// Writes the engine's answer to the CLI; `false` when the CLI is gone.
    fn reply(&mut self, chat: &str, request_id: &str, reply: &Message) -> bool {
        let Some(c) = self.chats.get_mut(chat) else {
            return false;
        };
        let Some(ask) = c.asks.remove(request_id) else {
            return false;
        };
        let Some(p) = &c.proc else {
            return false;
        };
        if c.conv.engine == "codex" {
            let accept = matches!(
                reply,
                Message::Decision {
                    decision: Decision::Allow,
                    ..
                }
            );
            return p.write(codex::decision_line(request_id, accept));
        }
        let input = agents::tool_input(&ask.payload).unwrap_or(json!({}));
        let line = match reply {
            Message::Decision {
                decision: Decision::Allow,
                ..
            } => stream::allow_line(request_id, &input),
            Message::Decision {
                decision: Decision::Deny,
                ..
            } => stream::deny_line(request_id, DENIED),
            Message::Answer { answers, .. } => {
                let updated =
                    agents::render_answers(ReplyShape::HookSpecific, &ask.payload, answers)
                        .and_then(|s| serde_json::from_str::<Value>(&s).ok())
                        .and_then(|v| v.pointer("/hookSpecificOutput/updatedInput").cloned());
                match updated {
                    Some(u) => stream::allow_line(request_id, &u),
                    None => stream::deny_line(request_id, "The answers did not fit the questions"),
                }
            }
            _ => stream::deny_line(request_id, DENIED),
        };
        p.write(line)
    }

    fn on_line(&mut self, id: &str, run: u64, line: &str) -> Vec<Effect> {
        let next_conn = self.next_conn;
        let Some(chat) = self.chats.get_mut(id) else {
            return Vec::new();
        };
        if chat.proc.as_ref().map(|p| p.run) != Some(run) {
            return Vec::new(); // a stopped process's last words
        }
        let codex = chat.conv.engine == "codex";
        let read = if codex {
            codex::read_line(line, &mut chat.changes)
        } else {
            stream::read_line(line)
        };
        let out = match read {
            Ok(o) => o,
            Err(e) => {
                tracing::debug!("zeca {id}: a stdout line skipped: {e}");
                return Vec::new();
            }
        };
        if codex && let stream::Out::Init { session_id } = &out {
            // The thread is open: the turns typed meanwhile go now.
            chat.thread_ready = true;
            let queued = std::mem::take(&mut chat.queued);
            if let Some(p) = &chat.proc {
                for text in queued {
                    chat.next_rpc += 1;
                    p.write(codex::turn_line(chat.next_rpc, session_id, &text));
                }
            }
        }
        let entries = &mut chat.conv.entries;
        match out {
            stream::Out::Init { session_id } => {
                if chat.conv.session_id.as_deref() == Some(session_id.as_str()) {
                    return Vec::new();
                }
                chat.conv.session_id = Some(session_id);
            }
            stream::Out::MessageStart => {
                chat.open_text = None;
                return Vec::new();
            }
            stream::Out::TextStart => {
                entries.push(Entry::Assistant {
                    text: String::new(),
                });
                chat.open_text = Some(entries.len() - 1);
                return Vec::new();
            }
            stream::Out::TextDelta(t) => {
                if let Some(Entry::Assistant { text }) =
                    chat.open_text.and_then(|i| entries.get_mut(i))
                {
                    text.push_str(&t);
                } else {
                    entries.push(Entry::Assistant { text: t });
                    chat.open_text = Some(entries.len() - 1);
                }
                return self.shown(id);
            }
            stream::Out::Assistant(blocks) => {
                for b in blocks {
                    match b {
                        stream::Block::Text(t) => {
                            // The whole text of what was streamed: replaces it, never doubles it.
                            match chat.open_text.take().and_then(|i| entries.get_mut(i)) {
                                Some(Entry::Assistant { text }) => *text = t,
                                _ if t.is_empty() => {}
                                _ => entries.push(Entry::Assistant { text: t }),
                            }
                        }
                        stream::Block::ToolUse { id, name, input } => {
                            chat.open_text = None;
                            let summary = stream::summary(&name, &input);
                            entries.push(Entry::Tool {
                                id,
                                name,
                                summary,
                                result: None,
                                error: false,
                            });
                        }
                    }
                }
            }
            stream::Out::ToolResults(results) => {
                for r in results {
                    for e in entries.iter_mut() {
                        if let Entry::Tool {
                            id, result, error, ..
                        } = e
                            && *id == r.tool_use_id
                        {
                            let mut t: String = r.text.chars().take(2000).collect();
                            if t.len() < r.text.len() {
                                t.push('…');
                            }
                            *result = Some(t);
                            *error = r.is_error;
                        }
                    }
                }
            }
            stream::Out::CanUseTool(ask) => {
                self.next_conn = next_conn + 1;
                let folder = chat.conv.folder.clone();
                let mut payload = json!({
                    "session_id": chat.conv.session_id.clone().unwrap_or_default(),
                    "cwd": folder,
                    "permission_mode": "default",
                    "tool_name": ask.tool_name,
                    "tool_input": ask.input,
                });
                if let Some(t) = &ask.tool_use_id {
                    payload["tool_use_id"] = json!(t);
                }
                let question = ask.tool_name == "AskUserQuestion";
                let event = Event {
                    v: VERSION,
                    id: ask.request_id.clone(),
                    agent: if codex {
                        AgentKind::Codex
                    } else {
                        AgentKind::Claude
                    },
                    agent_name: None,
                    event: if question {
                        "PreToolUse".into()
                    } else {
                        "PermissionRequest".into()
                    },
                    wants_reply: true,
                    reply: None,
                    zeca: false,
                    too_large: None,
                    terminal: Terminal {
                        cwd: Some(folder),
                        pid: chat.conv.pid,
                        env: Default::default(),
                    },
                    payload: payload.clone(),
                };
                chat.asks.insert(
                    ask.request_id,
                    PendingAsk {
                        conn: next_conn,
                        payload,
                    },
                );
                return vec![Effect::Ask(Ask {
                    conn: next_conn,
                    chat: id.to_string(),
                    event,
                })];
            }
            stream::Out::Result {
                is_error,
                text,
                session_id,
            } => {
                chat.conv.running = false;
                chat.open_text = None;
                if let Some(s) = session_id {
                    chat.conv.session_id = Some(s);
                }
                if is_error {
                    entries.push(Entry::Note {
                        text: format!(
                            "The turn failed: {}",
                            text.unwrap_or_else(|| "no reason given".into())
                        ),
                    });
                }
            }
            stream::Out::Other => return Vec::new(),
        }
        self.changed(id)
    }

    fn on_exit(&mut self, id: &str, run: u64, status: &str) -> Vec<Effect> {
        let Some(chat) = self.chats.get_mut(id) else {
            return Vec::new();
        };
        if chat.proc.as_ref().map(|p| p.run) != Some(run) {
            return Vec::new();
        }
        chat.proc = None;
        chat.conv.pid = None;
        let mut out: Vec<Effect> = std::mem::take(&mut chat.asks)
            .into_values()
            .map(|a| Effect::Closed(a.conn))
            .collect();
        if chat.stopping {
            chat.conv.entries.push(Entry::Note {
                text: "Stopped.".into(),
            });
        } else if chat.conv.running {
            chat.conv.entries.push(Entry::Note {
                text: format!(
                    "{} ended in the middle of a turn ({status})",
                    if chat.conv.engine == "codex" {
                        "Codex CLI"
                    } else {
                        "Claude Code"
                    }
                ),
            });
        }
        chat.stopping = false;
        chat.conv.running = false;
        chat.open_text = None;
        out.extend(self.changed(id));
        out
    }

    fn start_task(&mut self, chat_id: ChatId, spec: TaskSpec) -> Vec<Effect> {
        self.next_task += 1;
        let task_id = format!(
            "t{}-{}",
            crate::clock::unix_ms(std::time::SystemTime::now()),
            self.next_task
        );
        let program = match spec.agent.as_str() {
            "claude" => self.claude(),
            "codex" => self.codex(),
            other => Err(format!("no such agent for a task: {other}")),
        };
        let folder = if spec.folder.trim().is_empty() {
            self.chats
                .get(&chat_id)
                .map(|c| c.conv.folder.clone())
                .unwrap_or_default()
        } else {
            spec.folder.trim().to_string()
        };
        let log = self.store.task_log(&task_id);
        let launched = program.and_then(|program| {
            let launch = task::Launch {
                program,
                agent: spec.agent.clone(),
                prompt: spec.prompt.clone(),
                folder: folder.clone(),
                task: task_id.clone(),
                env: self.options.env.clone(),
                remove: self.options.env_remove.clone(),
            };
            if spec.headless {
                task::headless(&launch, &log, chat_id.clone(), self.sink.clone())
            } else {
                task::in_terminal(&launch, self.settings.terminal.as_deref())
            }
        });
        let state = match launched {
            Ok(how) => how,
            Err(e) => format!("could not start: {e}"),
        };
        let chat = self.chat_mut(&chat_id, &folder, "claude");
        chat.conv.entries.push(Entry::Task {
            id: task_id,
            folder,
            agent: spec.agent,
            prompt: spec.prompt,
            headless: spec.headless,
            state,
        });
        self.changed(&chat_id)
    }

    /// Ends every CLI the chat started (the app quits).
    pub fn shutdown(&mut self) {
        for c in self.chats.values_mut() {
            if let Some(p) = c.proc.take() {
                p.kill();
            }
        }
    }
}

/// A CLI to run: the engine's option, else the path set in the Chat's settings, else `program`
/// on PATH.
fn cli_path(
    option: Option<&PathBuf>,
    setting: Option<&str>,
    program: &str,
    name: &str,
) -> Result<PathBuf, String> {
    if let Some(p) = option {
        return Ok(p.clone());
    }
    if let Some(p) = setting.map(str::trim).filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    task::find_on_path(program).ok_or_else(|| {
        format!("{name} (`{program}`) is not on PATH; set its path in the Chat's settings")
    })
}
