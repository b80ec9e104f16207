//! The chat's worker (`vults_engine::worker`): it owns every conversation and CLI process, turns the window's
//! [`ChatCommand`]s and the processes' [`Note`]s into effects (a conversation updated, a card
//! asked of the engine, a line to a CLI), and ends idle CLIs. Started by [`ZecaHandle::start`].

use super::conversation::{
    ChatId, Conversation, Entry, TaskSpec, ZecaSettings, chat_agent, session_of,
};
use super::note::{Note, Sink};
use super::{codex, process, store, stream, task, tool};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use vults_core::agents::{self, Agent, ChatEngine, ReplyShape};
use vults_core::paths::Paths;
use vults_core::protocol::{AgentKind, Decision, Event, Message, Terminal, VERSION};
use vults_engine::messages::{AuditEntry, SessionKey};
use vults_engine::worker::Worker;
use vults_engine::{EngineCommander, InAppReply, InAppRequest};

/// What the text denies with.
pub const DENIED: &str = "Denied from Vults";

/// Window → chat ([`ZecaHandle::send`]).
#[derive(Debug, Clone, PartialEq)]
pub enum ChatCommand {
    /// A user turn; makes the conversation (in `folder`) when it is new.
    Send {
        /// The conversation the turn belongs to.
        chat: ChatId,
        /// The folder the CLI runs in; only read when the conversation is new.
        folder: String,
        /// `claude` or `codex`; only read when the conversation is new.
        engine: String,
        /// What the person wrote.
        text: String,
    },
    /// Stops the running turn: the CLI's process group ends; the next turn resumes the session.
    Stop {
        /// The conversation whose turn to stop.
        chat: ChatId,
    },
    /// Starts a task from a conversation: the task is a row of it.
    StartTask {
        /// The conversation that starts it.
        chat: ChatId,
        /// What to run.
        task: TaskSpec,
    },
    /// New settings: saved to `zeca.json`, and used from the next process on.
    Configure(ZecaSettings),
}

/// Chat → window ([`ZecaHandle::events`]).
#[derive(Debug, Clone, PartialEq)]
pub enum ChatEvent {
    /// The whole conversation as it is now.
    Updated(Conversation),
    /// The chat's settings as they are now (at start, and after a change).
    Settings(ZecaSettings),
    /// A line for the status bar (a conversation that could not be saved or read …).
    Notice(String),
}

/// How the chat runs its CLIs (tests point them at a mock model).
#[derive(Debug, Clone, Default)]
pub struct ZecaOptions {
    /// The CLI binary of an agent the chat drives, over the setting and PATH (tests point it at
    /// a mock model).
    pub clis: BTreeMap<Agent, PathBuf>,
    /// Extra environment for every process the chat starts (the CLI and tasks).
    pub env: Vec<(String, String)>,
    /// Variables taken out of the environment of every process the chat starts.
    pub env_remove: Vec<String>,
    /// How long a conversation's CLI may sit idle (no turn running, no question waiting)
    /// before it is ended; the next message resumes its session. `None`: [`IDLE_AFTER`].
    pub idle_after: Option<Duration>,
}

/// How long an idle chat CLI is kept (each one holds a few hundred MB).
pub const IDLE_AFTER: Duration = Duration::from_secs(10 * 60);

/// A permission question for the engine's decision point.
#[derive(Debug)]
struct Ask {
    /// A connection id of its own, so withdrawing works as for a hook.
    conn: u64,
    chat: ChatId,
    event: Event,
}

/// What the chat's thread does after a command or a note.
#[derive(Debug)]
enum Effect {
    Window(ChatEvent),
    Ask(Ask),
    /// The ask on this connection can no longer be answered: withdraw its card.
    Closed(u64),
    /// An answer's audit line, delivered to the CLI or not.
    Delivered(AuditEntry, bool),
    Notice(String),
}

/// What the chat's worker is handed.
enum Input {
    Command(ChatCommand),
    Note(Note),
    Stop,
}

/// The running chat: its own worker (a loop on the app's runtime's blocking pool), which owns
/// every conversation and CLI process. Dropping it ends every CLI the chat started.
pub struct ZecaHandle {
    /// The one worker shape (`vults_engine::worker`): inputs in; what it says goes out on
    /// [`Self::events`], a stream rather than a snapshot.
    worker: Worker<Input, ()>,
    /// Chat → window: conversations as they are now, the settings, notices.
    pub events: mpsc::Receiver<ChatEvent>,
}

impl ZecaHandle {
    /// Starts the chat's worker, which loads the saved conversations and settings (sent first
    /// as [`ChatEvent`]s). Its permission questions go to `engine`; `wake` is called after each
    /// batch of events (the window passes `ctx.request_repaint`).
    pub fn start(
        paths: &Paths,
        options: ZecaOptions,
        engine: EngineCommander,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> std::io::Result<ZecaHandle> {
        let (events_tx, events) = mpsc::channel();
        let paths = paths.clone();
        let worker = Worker::spawn("chat", (), Input::Stop, wake.clone(), move |side| {
            let sink_tx = side.sender();
            let sink: Sink = Arc::new(move |note| {
                let _ = sink_tx.send(Input::Note(note));
            });
            let (zeca, effects) = Zeca::load(&paths, options, sink.clone());
            let mut runner = Runner {
                zeca,
                engine,
                events: events_tx,
                wake,
                sink,
            };
            runner.apply(effects);
            loop {
                // Waits for the next input, or until the next idle CLI is due to end.
                let input = match runner.zeca.next_idle_end() {
                    Some(at) => {
                        match side.recv_timeout(at.saturating_duration_since(Instant::now())) {
                            Ok(input) => Some(input),
                            Err(mpsc::RecvTimeoutError::Timeout) => None,
                            Err(mpsc::RecvTimeoutError::Disconnected) => break,
                        }
                    }
                    None => match side.recv() {
                        Some(input) => Some(input),
                        None => break,
                    },
                };
                let effects = match input {
                    Some(Input::Command(cmd)) => runner.zeca.on_command(cmd),
                    Some(Input::Note(note)) => runner.zeca.on_note(note),
                    Some(Input::Stop) => break,
                    None => runner.zeca.end_idle(Instant::now()),
                };
                runner.apply(effects);
            }
            runner.zeca.shutdown();
        });
        Ok(ZecaHandle { worker, events })
    }

    /// `false` when the chat has stopped.
    pub fn send(&self, command: ChatCommand) -> bool {
        self.worker.send(Input::Command(command))
    }

    /// Ends every CLI the chat started and waits for its worker (what dropping it does).
    pub fn stop(&mut self) {
        self.worker.stop();
    }
}

/// The chat's thread: the state, and where its effects go.
struct Runner {
    zeca: Zeca,
    engine: EngineCommander,
    events: mpsc::Sender<ChatEvent>,
    wake: Arc<dyn Fn() + Send + Sync>,
    sink: Sink,
}

impl Runner {
    fn apply(&mut self, effects: Vec<Effect>) {
        let mut shown = false;
        for effect in effects {
            match effect {
                Effect::Window(ev) => shown |= self.events.send(ev).is_ok(),
                Effect::Ask(ask) => self.ask(ask),
                Effect::Closed(conn) => self.engine.withdraw(conn),
                Effect::Delivered(entry, delivered) => self.engine.delivered(entry, delivered),
                Effect::Notice(text) => {
                    tracing::info!("{text}");
                    shown |= self.events.send(ChatEvent::Notice(text)).is_ok();
                }
            }
        }
        if shown {
            (self.wake)();
        }
    }

    /// The engine decides the ask as a hook's request, as a card of the session
    /// `zeca:<chat>`; its reply comes back to this thread as a [`Note`].
    fn ask(&self, ask: Ask) {
        let Ask { conn, chat, event } = ask;
        let session = SessionKey {
            identity: event.agent.as_str().to_string(),
            session: session_of(&chat),
        };
        let sink = self.sink.clone();
        let request_id = event.id.clone();
        self.engine.ask(InAppRequest {
            conn,
            event,
            session,
            // The chat asks in the window the person is typing in: pausing cards does not
            // reach it.
            while_paused: true,
            reply: Arc::new(move |reply| {
                let (chat, request_id) = (chat.clone(), request_id.clone());
                sink(match reply {
                    InAppReply::Answered { reply, entry } => Note::Answered {
                        chat,
                        request_id,
                        reply,
                        entry,
                    },
                    InAppReply::Withdrawn => Note::Withdrawn { chat, request_id },
                })
            }),
        });
    }
}

struct PendingAsk {
    conn: u64,
    payload: Value,
    /// The tool row it asks for.
    tool_use_id: Option<String>,
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
    /// Since when its CLI has sat with no turn running (`None` while one runs).
    idle_since: Option<Instant>,
    /// Its CLI started a command in the background (Claude Code's `run_in_background`): that
    /// command lives in the CLI's process group, so the CLI is not ended as idle.
    background: bool,
}

impl Chat {
    fn new(conv: Conversation) -> Chat {
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
            idle_since: None,
            background: false,
        }
    }

    /// The tool row `id`'s permission question (or its answer).
    fn mark_asked(&mut self, id: Option<&str>, asked: tool::Asked) {
        let Some(id) = id else { return };
        for e in &mut self.conv.entries {
            if let Entry::Tool {
                id: row, asked: a, ..
            } = e
                && row == id
            {
                *a = Some(asked.clone());
            }
        }
    }

    /// Its CLI waits for nothing: no turn runs, no question waits, no stop is under way, and
    /// nothing it started in the background would end with it.
    fn idle(&self) -> bool {
        self.proc.is_some()
            && !self.conv.running
            && self.asks.is_empty()
            && !self.stopping
            && !self.background
    }
}

/// The chat's state, owned by its thread ([`ZecaHandle`]).
struct Zeca {
    store: store::Store,
    options: ZecaOptions,
    settings: ZecaSettings,
    chats: BTreeMap<ChatId, Chat>,
    sink: Sink,
    next_run: u64,
    next_task: u64,
}

impl Zeca {
    /// Loads the saved conversations and settings; the effects show them in the window.
    fn load(paths: &Paths, options: ZecaOptions, sink: Sink) -> (Zeca, Vec<Effect>) {
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
            chats.insert(conv.id.clone(), Chat::new(conv));
        }
        effects.push(Effect::Window(ChatEvent::Settings(settings.clone())));
        let zeca = Zeca {
            store,
            options,
            settings,
            chats,
            sink,
            next_run: 0,
            next_task: 0,
        };
        (zeca, effects)
    }

    /// The CLI of `agent` to run: the chat's option, the setting, or its name on PATH.
    fn cli(&self, agent: Agent) -> Result<PathBuf, String> {
        if agent.spec().chat.is_none() {
            return Err(format!("Zeca does not chat with {}", agent.display_name()));
        }
        let option = self.options.clis.get(&agent);
        let setting = self.settings.clis.get(agent.name()).map(String::as_str);
        cli_path(option, setting, agent.name(), agent.display_name())
    }

    fn on_command(&mut self, cmd: ChatCommand) -> Vec<Effect> {
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
            ChatCommand::Configure(mut settings) => {
                // The folder is the chat's to remember; a settings form does not set it.
                settings.last_folder = self.settings.last_folder.clone();
                self.settings = settings;
                let mut out = vec![Effect::Window(ChatEvent::Settings(self.settings.clone()))];
                if let Err(e) = self.store.save_settings(&self.settings) {
                    out.push(Effect::Notice(e.to_string()));
                }
                out
            }
        }
    }

    fn chat_mut(&mut self, id: &str, folder: &str, engine: &str) -> &mut Chat {
        self.chats
            .entry(id.to_string())
            .or_insert_with(|| Chat::new(Conversation::new(id, folder, engine)))
    }

    fn idle_after(&self) -> Duration {
        self.options.idle_after.unwrap_or(IDLE_AFTER)
    }

    /// When the next idle CLI is due to end, if one is idle.
    fn next_idle_end(&self) -> Option<Instant> {
        let after = self.idle_after();
        self.chats
            .values()
            .filter(|c| c.idle())
            .filter_map(|c| c.idle_since)
            .map(|since| since + after)
            .min()
    }

    /// Ends the CLIs idle for [`ZecaOptions::idle_after`]: each holds a few hundred MB while it
    /// waits. Its session is kept; the next message starts the CLI again on it (`--resume`,
    /// Codex: `thread/resume`), as after a restart. Nothing is said in the conversation.
    fn end_idle(&mut self, now: Instant) -> Vec<Effect> {
        let after = self.idle_after();
        let due: Vec<ChatId> = self
            .chats
            .iter()
            .filter(|(_, c)| c.idle() && c.idle_since.is_some_and(|s| now >= s + after))
            .map(|(id, _)| id.clone())
            .collect();
        let mut out = Vec::new();
        for id in due {
            let Some(c) = self.chats.get_mut(&id) else {
                continue;
            };
            if let Some(p) = c.proc.take() {
                tracing::info!(
                    "zeca {id}: its CLI (pid {}) sat idle for {} s and is ended; the next \
                     message resumes its session",
                    p.pid,
                    after.as_secs()
                );
                // Taken out now: a message that comes while it ends starts a new one at once,
                // and the old one's last lines and exit are told apart by their run.
                p.kill();
            }
            c.conv.pid = None;
            c.thread_ready = false;
            c.queued.clear();
            c.idle_since = None;
            out.extend(self.changed(&id));
        }
        out
    }

    fn send(&mut self, id: ChatId, folder: &str, engine: &str, text: &str) -> Vec<Effect> {
        if !store::valid_id(&id) {
            return vec![Effect::Notice(format!("not a chat id: {id:?}"))];
        }
        if chat_agent(engine).is_none() {
            return vec![Effect::Notice(format!("no such chat engine: {engine:?}"))];
        }
        let engine = self
            .chats
            .get(&id)
            .map_or_else(|| engine.to_string(), |c| c.conv.engine.clone());
        let Some((agent, chat_engine)) = chat_agent(&engine) else {
            return vec![Effect::Notice(format!("no such chat engine: {engine:?}"))];
        };
        let codex = chat_engine == ChatEngine::AppServer;
        let program = self.cli(agent);
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
        chat.conv.last_active = vults_engine::clock::now_ms();
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
                    chat.background = false;
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
        chat.idle_since = None;
        chat.open_text = None;
        let mut out = self.remember_folder(&folder);
        out.extend(self.changed(&id));
        out
    }

    /// A new chat starts in the folder the last one ran in, also after a restart: it is
    /// saved with the settings (before, it was forgotten and Send then stayed disabled).
    fn remember_folder(&mut self, folder: &str) -> Vec<Effect> {
        if folder.is_empty() || self.settings.last_folder.as_deref() == Some(folder) {
            return Vec::new();
        }
        self.settings.last_folder = Some(folder.to_string());
        let mut out = vec![Effect::Window(ChatEvent::Settings(self.settings.clone()))];
        if let Err(e) = self.store.save_settings(&self.settings) {
            out.push(Effect::Notice(e.to_string()));
        }
        out
    }

    /// Saves a conversation and shows it.
    fn changed(&mut self, id: &str) -> Vec<Effect> {
        let Some(chat) = self.chats.get(id) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if let Err(e) = self.store.save(&chat.conv) {
            out.push(Effect::Notice(e.to_string()));
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

    fn on_note(&mut self, note: Note) -> Vec<Effect> {
        match note {
            Note::Line { chat, run, line } => self.on_line(&chat, run, &line),
            Note::Exited { chat, run, status } => self.on_exit(&chat, run, &status),
            Note::Answered {
                chat,
                request_id,
                reply,
                entry,
            } => {
                let tool_use_id = self
                    .chats
                    .get(&chat)
                    .and_then(|c| c.asks.get(&request_id))
                    .and_then(|a| a.tool_use_id.clone());
                let delivered = self.reply(&chat, &request_id, &reply);
                let mut out = vec![Effect::Delivered((*entry).clone(), delivered)];
                if let Some(c) = self.chats.get_mut(&chat)
                    && tool_use_id.is_some()
                {
                    let by = entry.by.clone();
                    let asked = match *reply {
                        Message::Decision {
                            decision: Decision::Allow,
                            ..
                        } => tool::Asked::Allowed { by },
                        Message::Answer { .. } => tool::Asked::Answered { by },
                        _ => tool::Asked::Denied { by },
                    };
                    c.mark_asked(tool_use_id.as_deref(), asked);
                    out.extend(self.changed(&chat));
                }
                out
            }
            Note::Withdrawn { chat, request_id } => {
                let Some(c) = self.chats.get_mut(&chat) else {
                    return Vec::new();
                };
                let Some(ask) = c.asks.remove(&request_id) else {
                    return Vec::new();
                };
                if let Some(p) = &c.proc {
                    p.write(if app_server(&c.conv.engine) {
                        codex::decision_line(&request_id, false)
                    } else {
                        stream::deny_line(&request_id, "Nobody could answer in Vults")
                    });
                }
                c.mark_asked(ask.tool_use_id.as_deref(), tool::Asked::Withdrawn);
                self.changed(&chat)
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
        if app_server(&c.conv.engine) {
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
            // A plan's Keep planning: the person's words (cleaned by the engine) for the model.
            Message::Decision {
                decision: Decision::Deny,
                message,
                ..
            } => stream::deny_line(request_id, message.as_deref().unwrap_or(DENIED)),
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
        let Some(chat) = self.chats.get_mut(id) else {
            return Vec::new();
        };
        if chat.proc.as_ref().map(|p| p.run) != Some(run) {
            return Vec::new(); // a stopped process's last words
        }
        let codex = app_server(&chat.conv.engine);
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
                            if input.get("run_in_background").and_then(Value::as_bool) == Some(true)
                            {
                                chat.background = true;
                            }
                            chat.open_text = None;
                            let summary = stream::summary(&name, &input);
                            entries.push(Entry::Tool {
                                id,
                                name,
                                summary,
                                result: None,
                                error: false,
                                asked: None,
                                stopped: false,
                            });
                        }
                    }
                }
            }
            stream::Out::ToolResults(results) => {
                let stopping = chat.stopping;
                for r in results {
                    for e in entries.iter_mut() {
                        if let Entry::Tool {
                            id,
                            result,
                            error,
                            stopped,
                            ..
                        } = e
                            && *id == r.tool_use_id
                        {
                            let words = tool::result_words(&r.text);
                            let mut t: String = words.chars().take(2000).collect();
                            if t.len() < words.len() {
                                t.push('…');
                            }
                            *result = Some(t);
                            *error = r.is_error;
                            // What a stopped turn's tool says as it dies ("Exit code 137") is
                            // the stop, not a failure of its own.
                            *stopped |= stopping && r.is_error;
                        }
                    }
                }
            }
            stream::Out::CanUseTool(ask) => {
                // An id of its own among every connection the engine serves.
                let next_conn = vults_engine::new_conn_id();
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
                    agent: chat_agent(&chat.conv.engine)
                        .and_then(|(a, _)| a.kind())
                        .unwrap_or(AgentKind::Other),
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
                chat.mark_asked(ask.tool_use_id.as_deref(), tool::Asked::Waiting);
                chat.asks.insert(
                    ask.request_id,
                    PendingAsk {
                        conn: next_conn,
                        payload,
                        tool_use_id: ask.tool_use_id.clone(),
                    },
                );
                // The row says it asks (saved and shown), then the engine decides.
                let mut out = self.changed(id);
                out.push(Effect::Ask(Ask {
                    conn: next_conn,
                    chat: id.to_string(),
                    event,
                }));
                return out;
            }
            stream::Out::Result {
                is_error,
                text,
                session_id,
            } => {
                chat.conv.running = false;
                chat.conv.last_active = vults_engine::clock::now_ms();
                chat.idle_since = Some(Instant::now());
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
            // The calls of the stopped turn that had no result: stopped, not "no result".
            let turn = chat
                .conv
                .entries
                .iter()
                .rposition(|e| matches!(e, Entry::User { .. }))
                .unwrap_or(0);
            for e in &mut chat.conv.entries[turn..] {
                if let Entry::Tool {
                    result: None,
                    stopped,
                    ..
                } = e
                {
                    *stopped = true;
                }
            }
            chat.conv.entries.push(Entry::Note {
                text: "Stopped.".into(),
            });
        } else if chat.conv.running {
            chat.conv.entries.push(Entry::Note {
                text: format!(
                    "{} ended in the middle of a turn ({status})",
                    chat_agent(&chat.conv.engine).map_or("The CLI", |(a, _)| a.display_name())
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
            vults_engine::clock::unix_ms(std::time::SystemTime::now()),
            self.next_task
        );
        let program = match chat_agent(&spec.agent) {
            Some((agent, _)) => self.cli(agent),
            None => Err(format!("no such agent for a task: {}", spec.agent)),
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
            .map_err(|e| e.to_string())
        });
        let state = match launched {
            Ok(how) => how,
            Err(e) => format!("could not start: {e}"),
        };
        let chat = self.chat_mut(&chat_id, &folder, "claude");
        chat.conv.last_active = vults_engine::clock::now_ms();
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
    fn shutdown(&mut self) {
        for c in self.chats.values_mut() {
            if let Some(p) = c.proc.take() {
                p.kill();
            }
        }
    }
}

/// Whether a conversation's `engine` is driven through an app server (Codex CLI).
fn app_server(engine: &str) -> bool {
    chat_agent(engine).is_some_and(|(_, e)| e == ChatEngine::AppServer)
}

/// A CLI to run: the chat's option, else the path set in the Chat's settings, else `program`
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
