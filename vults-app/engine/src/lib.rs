//! The engine: the private socket server and everything behind it — the one decision point's
//! caller, pending cards, sessions, Always rules, policies and the audit — on a tokio runtime
//! of its own thread, with or without a window.
//!
//! Start with [`Engine::start`] (the window) or [`Engine::start_with`]; read
//! [`EngineEvent`]s from [`EngineHandle::events`], send [`EngineCommand`]s with
//! [`EngineHandle::send`]. A subsystem that asks on behalf of a program it drives (the chat)
//! sends [`InAppRequest`]s through an [`EngineCommander`]; SSH hosts' links open their sockets
//! through [`HostSockets`].
//!
//! Inside, one *core* task owns all state; each connection is a task of its own that hands
//! events to the core and writes back what the core sends to it (the core never waits on a
//! socket, so a slow client delays nobody). Only [`EngineCommand::Answer`] answers a card:
//! nothing arriving on the socket can.
//!
//! Not here: deciding (that is `vults_core::decision::decide`), drawing, installing hooks.

mod audit;
pub mod clock;
mod connection;
mod context;
pub mod diff;
mod in_app;
pub mod log;
pub mod messages;
mod sessions;
mod socket;

use crate::clock::{now_ms, unix_ms};
use crate::messages::{
    AnsweredBy, AuditEntry, CardAnswer, CardId, EngineCommand, EngineEvent, NamedTool, Outcome,
    PendingCard, PolicyStatus, Reason, SessionKey,
};
use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::mpsc;
use vults_core::agents;
use vults_core::decision::{self, Silence, Verdict, Why};
use vults_core::paths::Paths;
use vults_core::policy::PolicySet;
use vults_core::protocol::{Decision, Event, Identity, Message};
use vults_core::rules::{AlwaysRule, RuleSet};

pub use audit::{ROTATE_BYTES, TAIL_LINES};
pub use in_app::{ConnId, InAppReply, InAppRequest};
pub use socket::connect;

/// How long an ended session stays in the flock before [`EngineEvent::SessionGone`].
pub const ENDED_LINGER: Duration = Duration::from_secs(3);
/// A session not heard from for this long is taken out of the flock (its agent was killed
/// without saying `SessionEnd`); its next event brings it back.
pub const SILENT_SESSION: Duration = Duration::from_secs(6 * 3600);
/// How often the policy file's modification time is checked.
pub const POLICY_POLL: Duration = Duration::from_secs(1);

/// How the engine runs.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Someone can answer cards (a window, a console, a test driving the API). When `false`,
    /// a request no rule or policy answers gets no card: its connection is closed at once and
    /// the hook prints nothing, so the agent asks in its own terminal.
    pub interactive: bool,
    /// Stop on SIGINT / SIGTERM (Ctrl-C on Windows): for `--headless`.
    pub stop_on_signal: bool,
    /// The audit log moves to `audit.jsonl.1` past this size.
    pub audit_rotate_bytes: u64,
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions {
            interactive: true,
            stop_on_signal: false,
            audit_rotate_bytes: ROTATE_BYTES,
        }
    }
}

/// Counters the engine keeps, for the status bar, benchmarks and tests.
#[derive(Debug, Default)]
pub struct Stats {
    /// Connections accepted from this user.
    pub accepted: AtomicU64,
    /// Connections refused (another user).
    pub refused: AtomicU64,
    /// Events the core handled (zeca included).
    pub events: AtomicU64,
    /// Events of another protocol version (answered `unsupported`).
    pub unsupported: AtomicU64,
    /// Lines that were not an event (bad JSON, or a message only the app may send).
    pub malformed: AtomicU64,
    /// Lines over the 1 MiB limit.
    pub oversized: AtomicU64,
    /// Sessions in the flock now.
    pub sessions: AtomicU64,
    /// Cards waiting now.
    pub cards: AtomicU64,
    /// Events from the chat's own agents (`zeca: true`): counted, never a session or a card.
    pub zeca: AtomicU64,
}

/// A copy of [`Stats`] at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StatsSnapshot {
    pub accepted: u64,
    pub refused: u64,
    pub events: u64,
    pub unsupported: u64,
    pub malformed: u64,
    pub oversized: u64,
    pub sessions: u64,
    pub cards: u64,
    pub zeca: u64,
}

impl Stats {
    pub fn snapshot(&self) -> StatsSnapshot {
        let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
        StatsSnapshot {
            accepted: l(&self.accepted),
            refused: l(&self.refused),
            events: l(&self.events),
            unsupported: l(&self.unsupported),
            malformed: l(&self.malformed),
            oversized: l(&self.oversized),
            sessions: l(&self.sessions),
            cards: l(&self.cards),
            zeca: l(&self.zeca),
        }
    }
}

/// Connection ids, one counter for every listener of every engine in this process (the local
/// socket and each SSH host's) and for the in-app requests, so a connection closing on one can
/// never be taken for another's: a host's connection N closing once withdrew the local card of
/// connection N.
static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

/// A connection id never given before in this process: what an [`InAppRequest`] is keyed by.
pub fn new_conn_id() -> ConnId {
    NEXT_CONN.fetch_add(1, Ordering::Relaxed)
}

/// What a connection's writer is asked to do.
pub(crate) enum Outgoing {
    /// Boxed: a [`Message`] can hold a whole event, and most of these are `Close`-sized.
    Line(Box<Message>),
    /// The answer to the request (a decision or answers) and the audit line that says so. The
    /// writer hands the line back as [`Input::Delivered`] once it knows whether the hook got
    /// the answer: only then is it audited as given.
    Answer(Box<Message>, Box<AuditEntry>),
    /// Close the connection (the hook prints nothing).
    Close,
}

/// Everything the core task reacts to.
pub(crate) enum Input {
    Event {
        conn: ConnId,
        event: Box<Event>,
        reply: mpsc::UnboundedSender<Outgoing>,
    },
    Closed(ConnId),
    /// An [`Outgoing::Answer`]'s audit line: `delivered` when the write succeeded to a hook that
    /// had not gone away.
    Delivered {
        entry: Box<AuditEntry>,
        delivered: bool,
    },
    Command(EngineCommand),
    Notice(String),
    /// An ended session's linger is over.
    Expire(SessionKey),
    /// A request from inside the app (the chat).
    InApp(InAppRequest),
}

/// Sends commands to a running engine; cheap to clone (the phone endpoint holds one).
#[derive(Clone)]
pub struct EngineCommander(mpsc::UnboundedSender<Input>);

impl EngineCommander {
    /// `false` when the engine has stopped.
    pub fn send(&self, command: EngineCommand) -> bool {
        self.0.send(Input::Command(command)).is_ok()
    }

    /// Decides `request` as a hook's request; its reply comes through `request.reply`
    /// (at once when the engine has stopped: [`InAppReply::Withdrawn`]).
    pub fn ask(&self, request: InAppRequest) {
        if let Err(mpsc::error::SendError(Input::InApp(request))) =
            self.0.send(Input::InApp(request))
        {
            (request.reply)(InAppReply::Withdrawn);
        }
    }

    /// The in-app request on `conn` can no longer be answered (its program ended): its card
    /// is withdrawn, as a hook's when its connection closes.
    pub fn withdraw(&self, conn: ConnId) {
        let _ = self.0.send(Input::Closed(conn));
    }

    /// Hands back an [`InAppReply::Answered`]'s audit line: `delivered` when its program got
    /// the answer. Only then is it audited as given; otherwise as undelivered.
    pub fn delivered(&self, entry: AuditEntry, delivered: bool) {
        let _ = self.0.send(Input::Delivered {
            entry: Box::new(entry),
            delivered,
        });
    }
}

/// Opens the engine's per-host sockets (docs/hosts.md): each SSH host's link forwards to a
/// local socket of its own, so a connection's host is known by where it arrived, with the
/// hook protocol unchanged. Cheap to clone; the link threads hold one.
#[derive(Clone)]
pub struct HostSockets {
    rt: tokio::runtime::Handle,
    core: mpsc::UnboundedSender<Input>,
    stats: Arc<Stats>,
    paths: Paths,
}

/// One host's listening socket; dropping it stops listening and removes the socket file.
pub struct HostListener {
    task: tokio::task::AbortHandle,
    socket: PathBuf,
}

impl Drop for HostListener {
    fn drop(&mut self) {
        self.task.abort();
        // The listener goes with its task; the file may outlive a runtime already stopped.
        let _ = std::fs::remove_file(&self.socket);
    }
}

impl HostSockets {
    /// The local socket that `host`'s link forwards to ([`Paths::host_socket`]).
    pub fn socket_of(&self, host: &str) -> PathBuf {
        self.paths.host_socket(host)
    }

    /// Listens on `host`'s own socket (made in a 0700 folder, 0600, the same peer and version
    /// checks as the main socket); every event that comes through it has the folder
    /// `host:/path`.
    pub fn listen(&self, host: &str) -> io::Result<HostListener> {
        if self.core.is_closed() {
            return Err(io::Error::other("the engine has stopped"));
        }
        if !vults_core::decision::is_host_name(host) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{host:?} is not a host name"),
            ));
        }
        if cfg!(windows) {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "SSH hosts' links need Unix sockets: link hosts from Linux or macOS",
            ));
        }
        let socket = self.socket_of(host);
        // sun_path holds 104 (macOS) to 108 (Linux) bytes.
        if socket.as_os_str().len() > 100 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is too long for a socket; use a shorter host name",
                    socket.display()
                ),
            ));
        }
        let listener = {
            let _guard = self.rt.enter();
            socket::listen(&socket, &self.paths.runtime_dir)?
        };
        let task = self.rt.spawn(accept_loop(
            listener,
            self.core.clone(),
            self.stats.clone(),
            Some(Arc::from(host)),
        ));
        Ok(HostListener {
            task: task.abort_handle(),
            socket,
        })
    }
}

/// A running engine. Dropping it stops the engine.
pub struct EngineHandle {
    /// Engine → window. Closed (disconnected) once the engine has stopped.
    pub events: std::sync::mpsc::Receiver<EngineEvent>,
    hosts: HostSockets,
    commander: EngineCommander,
    stats: Arc<Stats>,
    socket: PathBuf,
    thread: Option<JoinHandle<()>>,
}

impl EngineHandle {
    /// `false` when the engine has stopped.
    pub fn send(&self, command: EngineCommand) -> bool {
        self.commander.send(command)
    }

    pub fn commander(&self) -> EngineCommander {
        self.commander.clone()
    }

    /// Opens per-host sockets for SSH hosts' links (the vults-remote crate).
    pub fn host_sockets(&self) -> HostSockets {
        self.hosts.clone()
    }

    pub fn stats(&self) -> StatsSnapshot {
        self.stats.snapshot()
    }

    /// Where hooks connect.
    pub fn socket(&self) -> &std::path::Path {
        &self.socket
    }

    /// Stops the engine and waits for it: pending cards are withdrawn (their hooks print
    /// nothing), queued audit lines are written, the socket file is removed.
    pub fn stop(&mut self) {
        self.send(EngineCommand::Shutdown);
        self.join();
    }

    /// Waits for the engine's thread to end (without asking it to).
    pub fn join(&mut self) {
        if let Some(t) = self.thread.take()
            && t.join().is_err()
        {
            tracing::warn!("the engine thread panicked");
        }
    }
}

impl Drop for EngineHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Starts engines.
pub struct Engine;

impl Engine {
    /// Starts the engine for the window: interactive, `notify` called after each batch of
    /// events (the window passes `ctx.request_repaint`).
    pub fn start(paths: Paths, notify: Arc<dyn Fn() + Send + Sync>) -> io::Result<EngineHandle> {
        Engine::start_with(paths, notify, EngineOptions::default())
    }

    /// Starts the engine. Fails when the socket cannot be made — "another Vults is running"
    /// when one answers on it.
    pub fn start_with(
        paths: Paths,
        notify: Arc<dyn Fn() + Send + Sync>,
        options: EngineOptions,
    ) -> io::Result<EngineHandle> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("vults-engine")
            .enable_all()
            .build()?;
        let (listener, signals) = {
            let _guard = runtime.enter();
            // The signal handlers go in before the socket exists: a SIGTERM sent as soon as a
            // hook can connect must stop the engine cleanly, not kill it with its socket left.
            let signals = options.stop_on_signal.then(Signals::install);
            (socket::listen(&paths.socket, &paths.runtime_dir)?, signals)
        };
        let rt = runtime.handle().clone();
        let (ui_tx, ui_rx) = std::sync::mpsc::channel();
        let (in_tx, in_rx) = mpsc::unbounded_channel();
        let stats = Arc::new(Stats::default());
        let mut core = Core::load(
            paths.clone(),
            options.clone(),
            ui_tx,
            notify,
            stats.clone(),
            in_tx.clone(),
        )?;
        core.flush();
        let accept_tx = in_tx.clone();
        let accept_stats = stats.clone();
        let thread = std::thread::Builder::new()
            .name("vults-engine".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let accept = tokio::spawn(accept_loop(listener, accept_tx, accept_stats, None));
                    if let Some(signals) = signals {
                        tokio::spawn(stop_on_signal(signals, core.inputs.clone()));
                    }
                    core.run(in_rx).await;
                    accept.abort();
                    // The listener (and with it the socket file) goes when the task does.
                    let _ = accept.await;
                });
                // Connection tasks still running are dropped: their hooks see the socket close.
                runtime.shutdown_timeout(Duration::from_millis(500));
            })?;
        Ok(EngineHandle {
            events: ui_rx,
            hosts: HostSockets {
                rt,
                core: in_tx.clone(),
                stats: stats.clone(),
                paths: paths.clone(),
            },
            commander: EngineCommander(in_tx),
            stats,
            socket: paths.socket,
            thread: Some(thread),
        })
    }
}

async fn accept_loop(
    listener: interprocess::local_socket::tokio::Listener,
    core: mpsc::UnboundedSender<Input>,
    stats: Arc<Stats>,
    host: Option<Arc<str>>,
) {
    use interprocess::local_socket::traits::tokio::Listener as _;
    loop {
        let stream = match listener.accept().await {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!("accepting a connection failed: {e}");
                // Out of file descriptors and the like: do not spin.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        if let Err(why) = socket::check_peer(&stream) {
            stats.refused.fetch_add(1, Ordering::Relaxed);
            let _ = core.send(Input::Notice(why));
            continue; // dropping the stream closes it
        }
        stats.accepted.fetch_add(1, Ordering::Relaxed);
        tokio::spawn(connection::serve(
            new_conn_id(),
            stream,
            core.clone(),
            stats.clone(),
            host.clone(),
        ));
    }
}

/// SIGINT and SIGTERM (Ctrl-C on Windows), listened for from the moment they are installed.
struct Signals {
    #[cfg(unix)]
    streams: Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>,
}

impl Signals {
    /// Must run inside the runtime.
    fn install() -> Signals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let streams = match (
                signal(SignalKind::interrupt()),
                signal(SignalKind::terminate()),
            ) {
                (Ok(int), Ok(term)) => Some((int, term)),
                _ => {
                    tracing::warn!("cannot listen for SIGINT/SIGTERM");
                    None
                }
            };
            Signals { streams }
        }
        #[cfg(not(unix))]
        Signals {}
    }
}

async fn stop_on_signal(signals: Signals, core: mpsc::UnboundedSender<Input>) {
    #[cfg(unix)]
    {
        let Some((mut int, mut term)) = signals.streams else {
            return;
        };
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let Signals {} = signals;
        if tokio::signal::ctrl_c().await.is_err() {
            return;
        }
    }
    let _ = core.send(Input::Command(EngineCommand::Shutdown));
}

/// A card and the connection waiting on it.
struct Waiting {
    card: PendingCard,
    conn: ConnId,
    event_id: String,
    reply: mpsc::UnboundedSender<Outgoing>,
    /// The agent's id for the tool call, when the request carried one.
    tool_use_id: Option<String>,
    /// Claude Code's subagent id (`agent_id`): a subagent's events say nothing of the main
    /// agent's dialog, though they share its session.
    agent_id: Option<String>,
}

/// Calls an agent runs side by side arrive within moments of each other: Claude Code runs its
/// read-only tools in parallel, so two Reads outside the project send PreToolUse, PreToolUse,
/// PermissionRequest, PermissionRequest (seen with the pinned CLI). A person takes longer than
/// this to answer a dialog in the terminal, so another call's event withdraws only a card older
/// than this: a sibling never takes its neighbour's card away.
const SIBLING_WINDOW: Duration = Duration::from_millis(1500);

/// What a later event of a card's session says about that card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sign {
    /// The call itself ran (`PostToolUse`) — allowed in the terminal.
    Ran,
    /// The call itself failed or was refused after the dialog (`PostToolUseFailure`,
    /// `PermissionDenied`).
    Ended,
    /// The agent started another call (`PreToolUse`, `PermissionRequest` of another call), more
    /// than [`SIBLING_WINDOW`] after the card came up.
    NextCall,
    /// The agent is past the dialog altogether (a new prompt, a stop, the session's end,
    /// OpenCode's `permission.replied`).
    MovedOn,
}

/// How an event can end the wait of a card in its session. Names are compared as in the
/// flock's bookkeeping: without case and separators (`PostToolUse`, `postToolUse`).
fn sign_of(event_name: &str) -> Option<Sign> {
    let name: String = event_name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    Some(match name.as_str() {
        "posttooluse" => Sign::Ran,
        "posttoolusefailure" | "permissiondenied" => Sign::Ended,
        "pretooluse" | "permissionrequest" => Sign::NextCall,
        "userpromptsubmit"
        | "userpromptsubmitted"
        | "stop"
        | "stopfailure"
        | "agentstop"
        | "sessionend"
        | "permissionreplied" => Sign::MovedOn,
        _ => return None,
    })
}

fn payload_str(payload: &serde_json::Value, key: &str) -> Option<String> {
    payload
        .get(key)
        .and_then(serde_json::Value::as_str)
        .map(str::to_string)
}

/// The modification stamp of the policy file (`None`: missing).
type Stamp = Option<(SystemTime, u64)>;

fn stamp(path: &std::path::Path) -> Stamp {
    std::fs::metadata(path)
        .ok()
        .map(|m| (m.modified().unwrap_or(UNIX_EPOCH), m.len()))
}

/// All state, owned by the core task.
struct Core {
    paths: Paths,
    options: EngineOptions,
    ui: std::sync::mpsc::Sender<EngineEvent>,
    notify: Arc<dyn Fn() + Send + Sync>,
    stats: Arc<Stats>,
    inputs: mpsc::UnboundedSender<Input>,
    rules: RuleSet,
    /// `false` when the rules file could not be read at start: it is never overwritten then.
    rules_writable: bool,
    policies: PolicySet,
    policy_status: PolicyStatus,
    policy_stamp: Stamp,
    sessions: sessions::Sessions,
    dirty: BTreeSet<SessionKey>,
    cards: BTreeMap<CardId, Waiting>,
    next_card: CardId,
    paused: bool,
    audit: audit::AuditWriter,
    outbox: Vec<EngineEvent>,
}

impl Core {
    fn load(
        paths: Paths,
        options: EngineOptions,
        ui: std::sync::mpsc::Sender<EngineEvent>,
        notify: Arc<dyn Fn() + Send + Sync>,
        stats: Arc<Stats>,
        inputs: mpsc::UnboundedSender<Input>,
    ) -> io::Result<Core> {
        // Every folder and file of Vults' own is private; say what had to be tightened.
        let tightened = paths.make_private();
        let audit_path = paths.audit_log();
        if let Err(e) = audit::repair(&audit_path) {
            tracing::warn!("cannot check the audit log {}: {e}", audit_path.display());
        }
        let history = audit::tail(&audit_path, TAIL_LINES);
        let audit = audit::AuditWriter::spawn(audit_path, options.audit_rotate_bytes)?;
        let mut core = Core {
            policy_status: PolicyStatus {
                path: paths.policies_file(),
                error: None,
                count: 0,
                warnings: Vec::new(),
            },
            paths,
            options,
            ui,
            notify,
            stats,
            inputs,
            rules: RuleSet::default(),
            rules_writable: true,
            policies: PolicySet::default(),
            policy_stamp: None,
            sessions: sessions::Sessions::default(),
            dirty: BTreeSet::new(),
            cards: BTreeMap::new(),
            next_card: 0,
            paused: false,
            audit,
            outbox: Vec::new(),
        };
        match RuleSet::load(&core.paths.rules_file()) {
            Ok((rules, dropped)) => {
                for why in dropped {
                    core.notice(format!("a rule was dropped at load: {why}"));
                }
                core.rules = rules;
            }
            Err(why) => {
                core.rules_writable = false;
                core.notice(format!(
                    "Always rules not loaded: {why}. New rules will hold until Vults quits and \
                     the file will not be touched"
                ));
            }
        }
        core.outbox
            .push(EngineEvent::Rules(core.rules.rules.clone()));
        for n in tightened {
            core.notice(n);
        }
        core.reload_policies(true);
        core.outbox.push(EngineEvent::Audited(history));
        Ok(core)
    }

    async fn run(&mut self, mut inputs: mpsc::UnboundedReceiver<Input>) {
        let mut tick = tokio::time::interval(POLICY_POLL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut running = true;
        while running {
            tokio::select! {
                input = inputs.recv() => {
                    let Some(input) = input else { break };
                    running = self.handle(input);
                    // Take what else is queued, so the window hears of it in one batch.
                    let mut n = 0;
                    while running && n < 4096 {
                        match inputs.try_recv() {
                            Ok(input) => running = self.handle(input),
                            Err(_) => break,
                        }
                        n += 1;
                    }
                }
                _ = tick.tick() => {
                    self.reload_policies(false);
                    self.forget_silent_sessions();
                }
            }
            self.flush();
        }
        let ids: Vec<CardId> = self.cards.keys().copied().collect();
        for id in ids {
            self.withdraw(id, "Vults quit");
        }
        // Answers written just before quitting: their lines still go to the audit.
        while let Ok(input) = inputs.try_recv() {
            if let Input::Delivered { entry, delivered } = input {
                self.delivered(*entry, delivered);
            }
        }
        self.flush();
    }

    /// `false` on Shutdown.
    fn handle(&mut self, input: Input) -> bool {
        match input {
            Input::Event { conn, event, reply } => self.on_event(conn, *event, reply),
            Input::Closed(conn) => {
                let ids: Vec<CardId> = self
                    .cards
                    .iter()
                    .filter(|(_, w)| w.conn == conn)
                    .map(|(id, _)| *id)
                    .collect();
                for id in ids {
                    self.withdraw(id, "the agent stopped waiting");
                }
            }
            Input::Delivered { entry, delivered } => self.delivered(*entry, delivered),
            Input::Command(EngineCommand::Shutdown) => return false,
            Input::Command(cmd) => self.on_command(cmd),
            Input::Notice(text) => self.notice(text),
            Input::InApp(request) => self.on_in_app(request),
            Input::Expire(key) => {
                if self.sessions.remove_if_ended(&key) {
                    self.dirty.remove(&key);
                    self.outbox.push(EngineEvent::SessionGone(key));
                }
            }
        }
        true
    }

    fn notice(&mut self, text: String) {
        tracing::info!("{text}");
        self.outbox.push(EngineEvent::Notice(text));
    }

    /// Sends what accumulated to the window, and wakes it.
    fn flush(&mut self) {
        // Counters first: whoever hears of a change reads them up to date.
        self.stats
            .sessions
            .store(self.sessions.len() as u64, Ordering::Relaxed);
        self.stats
            .cards
            .store(self.cards.len() as u64, Ordering::Relaxed);
        let dirty = std::mem::take(&mut self.dirty);
        let mut sent = false;
        for key in dirty {
            if let Some(s) = self.sessions.get(&key) {
                sent |= self.ui.send(EngineEvent::SessionChanged(s.clone())).is_ok();
            }
        }
        for ev in self.outbox.drain(..) {
            sent |= self.ui.send(ev).is_ok();
        }
        if sent {
            (self.notify)();
        }
    }

    fn on_event(&mut self, conn: ConnId, event: Event, reply: mpsc::UnboundedSender<Outgoing>) {
        self.stats.events.fetch_add(1, Ordering::Relaxed);
        // The chat's own agents: never a session, never a card (and never a reply).
        if event.zeca {
            self.stats.zeca.fetch_add(1, Ordering::Relaxed);
            if event.wants_reply {
                // Never sent by the hook (seed 001); a hand-made client is not left waiting.
                let _ = reply.send(Outgoing::Close);
            }
            return;
        }
        let now = SystemTime::now();
        let Some(key) = self.sessions.apply(&event, now) else {
            tracing::info!(
                "an empty {} event from {} names no session: ignored",
                event.event,
                event.agent.as_str()
            );
            return;
        };
        self.dirty.insert(key.clone());
        if self
            .sessions
            .get(&key)
            .is_some_and(|s| s.state == crate::messages::SessionState::Ended)
        {
            let inputs = self.inputs.clone();
            let key = key.clone();
            tokio::spawn(async move {
                tokio::time::sleep(ENDED_LINGER).await;
                let _ = inputs.send(Input::Expire(key));
            });
        }
        self.answered_in_terminal(&event, &key, now);
        if let Some(cut) = event.too_large
            && !event.wants_reply
        {
            self.too_large(&event, &key, cut.bytes, now);
        }
        if event.wants_reply {
            self.on_request(conn, event, reply, key, now, false);
        }
    }

    /// A request the hook cut to fit the wire, so it waits for no reply: no card could show
    /// all an Allow would authorise, and the agent asks in its own terminal (correct, and
    /// unchanged). The person is told where: the bird says "asks in its terminal: Write of
    /// 2.7 KB is too large to show", History gets a line, and the window hears of it.
    fn too_large(&mut self, event: &Event, session: &SessionKey, bytes: u64, now: SystemTime) {
        let Some(identity) = event.identity() else {
            return; // an `other` without a name never wanted a reply
        };
        let call = agents::read_tool_call(&event.payload);
        let folder = sessions::folder_of(event);
        let too_large = crate::messages::TooLarge {
            session: session.clone(),
            identity: identity.clone(),
            folder: folder.clone(),
            tool: call.tool.clone(),
            bytes,
            at: now,
        };
        let what = too_large.text();
        tracing::info!("{} asks in its terminal: {what}", identity.display_name());
        if self.sessions.set_in_terminal(session, what.clone()) {
            self.dirty.insert(session.clone());
        }
        let line = AuditEntry::new(
            unix_ms(now),
            Outcome::TooLarge,
            AnsweredBy::Terminal,
            Some(format!("{what}; the agent asks in its terminal")),
        )
        .about(&identity, session, &folder, &call);
        self.audit(line);
        self.outbox.push(EngineEvent::TooLarge(too_large));
    }

    /// Withdraws the cards of `session` that this event shows were answered in the agent's own
    /// terminal: the waiting hook ends silently (it prints nothing: the agent has its answer)
    /// and the audit says `by: terminal`, never a click. An event for the very call a card is
    /// about (Claude Code's PreToolUse comes before its PermissionRequest, and their hooks
    /// race) is no sign unless it says the call ran or ended. A call is matched by the agent's
    /// `tool_use_id` when both sides carry one, else by tool and whole target.
    fn answered_in_terminal(&mut self, event: &Event, session: &SessionKey, now: SystemTime) {
        let Some(sign) = sign_of(&event.event) else {
            return;
        };
        if !self.cards.values().any(|w| &w.card.session == session) {
            return;
        }
        let call = agents::read_tool_call(&event.payload);
        let tool_use_id = payload_str(&event.payload, "tool_use_id");
        let agent_id = payload_str(&event.payload, "agent_id");
        let same_call = |w: &Waiting| match (&w.tool_use_id, &tool_use_id) {
            (Some(a), Some(b)) => a == b,
            _ => {
                w.card.call.tool == call.tool
                    && w.card.call.target.rule_key() == call.target.rule_key()
            }
        };
        let ids: Vec<CardId> = self
            .cards
            .iter()
            .filter(|(_, w)| &w.card.session == session)
            .filter(|(_, w)| match sign {
                Sign::Ran | Sign::Ended => same_call(w),
                // An agent whose calls cannot be told apart (OpenCode's plugin relays a call's
                // PreToolUse without its call id and in other words than its permission): only
                // the signs of the session moving on count (its row's `tells_calls_apart`).
                Sign::NextCall => {
                    w.card
                        .agent
                        .agent()
                        .is_none_or(|a| a.spec().tells_calls_apart)
                        && w.agent_id == agent_id
                        && !same_call(w)
                        && now
                            .duration_since(w.card.arrived)
                            .is_ok_and(|up| up >= SIBLING_WINDOW)
                }
                Sign::MovedOn => true,
            })
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            let (decision, detail) = match sign {
                Sign::Ran => (Outcome::Allow, format!("{}: the call ran", event.event)),
                Sign::Ended => (
                    Outcome::Answered,
                    format!("{}: the call ended", event.event),
                ),
                Sign::NextCall => (
                    Outcome::Answered,
                    format!("{} of another call: the agent moved on", event.event),
                ),
                Sign::MovedOn => (
                    Outcome::Answered,
                    format!("{}: the agent moved on", event.event),
                ),
            };
            let Some(w) = self.cards.remove(&id) else {
                continue;
            };
            // Closing ends the hook's wait: it prints nothing.
            let _ = w.reply.send(Outgoing::Close);
            let by = AnsweredBy::Terminal;
            self.outbox
                .push(EngineEvent::CardRemoved { id, by: by.clone() });
            self.finish_card(&w, decision, &by, Some(detail), None);
        }
    }

    /// A request that wants a reply: decide, answer at once, or put up a card. `while_paused`:
    /// asked even while cards are paused (an in-app request from the window the person types in).
    fn on_request(
        &mut self,
        conn: ConnId,
        event: Event,
        reply: mpsc::UnboundedSender<Outgoing>,
        session: SessionKey,
        now: SystemTime,
        while_paused: bool,
    ) {
        // An `other` without a name has no identity to decide for (the hook never waits then,
        // but a hand-made client might).
        let Some(identity) = event.identity() else {
            let _ = reply.send(Outgoing::Close);
            return;
        };
        let call = agents::read_tool_call(&event.payload);
        let folder = sessions::folder_of(&event);
        let question = event.is_question();
        let open_reply = event.reply.as_deref() == Some("vults");
        let asking = if !self.options.interactive {
            decision::Asking::NobodyHere
        } else if self.paused && !while_paused {
            decision::Asking::Paused
        } else {
            decision::Asking::Yes
        };
        // Every gate is decide()'s, in its written order.
        let verdict = decision::decide(
            &decision::Request {
                identity: &identity,
                folder: &folder,
                call: &call,
                question,
                open_reply,
                shape: agents::ReplyShape::of(event.agent, open_reply),
                asking,
            },
            &self.rules,
            &self.policies,
        );
        if let Identity::Named(name) = &identity
            && verdict != Verdict::Silent(Silence::NoOpenReply)
        {
            self.outbox.push(EngineEvent::NamedToolSeen(NamedTool {
                name: name.to_string(),
                last_asked: now,
            }));
        }
        let entry = |decision: Outcome, by: &AnsweredBy, detail: Option<String>| {
            AuditEntry::new(unix_ms(now), decision, by.clone(), detail)
                .about(&identity, &session, &folder, &call)
        };
        // Answered by a rule or a policy: who answered.
        let by_of = |why: &Why| match why {
            Why::Rule(id) => AnsweredBy::Rule(id.clone()),
            Why::Policy(name) => AnsweredBy::Policy(name.clone()),
            // decide() never allows or denies for these; say so if it ever does.
            Why::Destructive(_) | Why::NoMatch => AnsweredBy::Policy("(none)".into()),
        };
        let decided = match &verdict {
            Verdict::Allow(_) => Some(Decision::Allow),
            Verdict::Deny(_) => Some(Decision::Deny),
            _ => None,
        };
        let why = match verdict {
            Verdict::Allow(why) | Verdict::Deny(why) => {
                // The decision goes out at once, with no `waiting`.
                let d = decided.unwrap_or(Decision::Deny);
                let line = entry(d.into(), &by_of(&why), None);
                self.answer(&reply, Message::decision(&event.id, d), line);
                return;
            }
            Verdict::Silent(Silence::Unreadable { decision: d, why }) => {
                // This agent reads only answers back for a question (OpenCode's plugin): the
                // hook prints nothing, the agent asks in its own prompt, and the audit says the
                // policy's deny was not delivered.
                let _ = reply.send(Outgoing::Close);
                let line = entry(
                    Outcome::Undelivered,
                    &by_of(&why),
                    Some(format!(
                        "{} for a question {} cannot read; it asks in its own prompt",
                        d.as_str(),
                        event.agent.display_name()
                    )),
                );
                self.audit(line);
                return;
            }
            Verdict::Silent(_) => {
                // Nobody to ask, or a tool that reads no answer: close at once so the hook
                // prints nothing and the agent asks in its own terminal (rather than after the
                // hook's 2 s wait for `waiting`).
                let _ = reply.send(Outgoing::Close);
                return;
            }
            Verdict::Ask(why) => why,
        };
        let reason = Reason::new(&why, question);
        let destructive = match &why {
            Why::Destructive(what) => Some(what.clone()),
            _ => None,
        };
        // The narrowest rule is the one Always makes; an edit or a write also offers its file.
        // No Always for a call whose target is empty: such a rule would allow every call that
        // names nothing (vults_core::rules::AlwaysRule::offer).
        let (always_rule, file_rule) = if destructive.is_none() && !question {
            let created = unix_ms(now) / 1000;
            let target = AlwaysRule::offer(&identity, &folder, &call, created);
            let exact = AlwaysRule::exact_for_call(&identity, &folder, &call, created)
                .filter(AlwaysRule::is_whole);
            match exact {
                Some(exact) => (Some(exact), target.map(Box::new)),
                None => (target, None),
            }
        } else {
            (None, None)
        };
        if reply
            .send(Outgoing::Line(Box::new(Message::waiting(&event.id))))
            .is_err()
        {
            return; // the hook is already gone
        }
        self.next_card += 1;
        let id = self.next_card;
        // Read only for a card: the agent's words, and the files it changes as they are now.
        // A host's files are not on this machine: its cards show the call without them.
        let local = decision::host_of(&folder)
            .is_none()
            .then_some(folder.as_str());
        let context = context::read(&event.payload, &call, local);
        let card = PendingCard {
            id,
            agent: event.agent,
            identity,
            session: session.clone(),
            folder,
            call,
            destructive,
            reason,
            always_rule,
            file_rule,
            question,
            arrived: now,
            context: Box::new(context),
        };
        if self.sessions.set_waiting(&session, true) {
            self.dirty.insert(session);
        }
        self.outbox.push(EngineEvent::CardAdded(card.clone()));
        self.cards.insert(
            id,
            Waiting {
                card,
                conn,
                tool_use_id: payload_str(&event.payload, "tool_use_id"),
                agent_id: payload_str(&event.payload, "agent_id"),
                event_id: event.id,
                reply,
            },
        );
    }

    fn on_command(&mut self, cmd: EngineCommand) {
        match cmd {
            EngineCommand::Answer { card, answer, by } => self.on_answer(card, answer, by),
            EngineCommand::RemoveRule(id) => match self.rules.remove(&id) {
                Some(_) => {
                    self.save_rules();
                    self.outbox
                        .push(EngineEvent::Rules(self.rules.rules.clone()));
                }
                None => self.notice(format!("no Always rule {id} to remove")),
            },
            EngineCommand::ReloadPolicies => self.reload_policies(true),
            EngineCommand::SetPaused(p) => self.paused = p,
            EngineCommand::Record(entry) => self.audit(entry),
            // Handled by the loop.
            EngineCommand::Shutdown => {}
        }
    }

    fn on_answer(&mut self, id: CardId, answer: CardAnswer, by: AnsweredBy) {
        let Some(w) = self.cards.get(&id) else {
            self.notice(format!(
                "card {id} is no longer waiting (answered, or the agent went away)"
            ));
            return;
        };
        let (message, word, detail) = match (&answer, w.card.question) {
            (CardAnswer::Answers(items), true) => (
                Message::answer(&w.event_id, items.clone()),
                Outcome::Answer,
                serde_json::to_string(items).ok(),
            ),
            (CardAnswer::Answers(_), false) => {
                self.notice(format!("card {id} asks for a permission, not for answers"));
                return;
            }
            (CardAnswer::Allow, _) => (
                Message::decision(&w.event_id, Decision::Allow),
                Outcome::Allow,
                None,
            ),
            (CardAnswer::Deny, _) => (
                Message::decision(&w.event_id, Decision::Deny),
                Outcome::Deny,
                None,
            ),
            (CardAnswer::AlwaysAllow | CardAnswer::AlwaysAllowFile, _) => {
                let offered = match answer {
                    CardAnswer::AlwaysAllowFile => w.card.file_rule.as_deref().cloned(),
                    _ => w.card.always_rule.clone(),
                };
                let Some(rule) = offered else {
                    self.notice(format!(
                        "card {id} has no Always (a destructive call or a question); answer it \
                         once"
                    ));
                    return;
                };
                let detail = format!("always rule {}", rule.id);
                let message = Message::decision(&w.event_id, Decision::Allow);
                if self.rules.add(rule) {
                    self.save_rules();
                    self.outbox
                        .push(EngineEvent::Rules(self.rules.rules.clone()));
                }
                (message, Outcome::Allow, Some(detail))
            }
        };
        let Some(w) = self.cards.remove(&id) else {
            return;
        };
        self.outbox
            .push(EngineEvent::CardRemoved { id, by: by.clone() });
        self.finish_card(&w, word, &by, detail, Some(message));
    }

    /// An in-app request ([`InAppRequest`]): decided as any hook's request
    /// ([`Core::on_request`]), as a card of its own session (never a bird: no session is made
    /// for it). What its "connection" is sent goes to its `reply`.
    fn on_in_app(&mut self, request: InAppRequest) {
        let InAppRequest {
            conn,
            event,
            session,
            while_paused,
            reply,
        } = request;
        let (tx, mut rx) = mpsc::unbounded_channel::<Outgoing>();
        tokio::spawn(async move {
            while let Some(out) = rx.recv().await {
                match out {
                    Outgoing::Line(_) => continue, // `waiting`: the card is up
                    Outgoing::Answer(message, entry) => reply(InAppReply::Answered {
                        reply: message,
                        entry,
                    }),
                    Outgoing::Close => reply(InAppReply::Withdrawn),
                }
                return;
            }
            // Dropped without a word (the engine stopped): nobody can answer it now.
            reply(InAppReply::Withdrawn);
        });
        self.on_request(conn, event, tx, session, SystemTime::now(), while_paused);
    }

    /// Takes a card down because its hook went away (or the app quits). Whatever the reason,
    /// the hook's wait ends now: its connection is told to close (the hook prints nothing), so
    /// no hook is ever left waiting for a card that is gone.
    fn withdraw(&mut self, id: CardId, why: &str) {
        let Some(w) = self.cards.remove(&id) else {
            return;
        };
        let _ = w.reply.send(Outgoing::Close);
        let by = AnsweredBy::Withdrawn;
        self.outbox
            .push(EngineEvent::CardRemoved { id, by: by.clone() });
        self.finish_card(&w, Outcome::Withdrawn, &by, Some(why.to_string()), None);
    }

    /// Audits an answered card and lets its session go back to work. With a `message` (the
    /// answer), the line is audited once the hook got it ([`Core::answer`]).
    fn finish_card(
        &mut self,
        w: &Waiting,
        word: Outcome,
        by: &AnsweredBy,
        detail: Option<String>,
        message: Option<Message>,
    ) {
        let c = &w.card;
        let line = AuditEntry::new(now_ms(), word, by.clone(), detail).about_card(c);
        match message {
            Some(m) => self.answer(&w.reply, m, line),
            None => self.audit(line),
        }
        let still = self.cards.values().any(|o| o.card.session == c.session);
        if !still && self.sessions.set_waiting(&c.session, false) {
            self.dirty.insert(c.session.clone());
        }
    }

    /// Sends a request's answer; `line` is audited when the connection's writer reports the
    /// hook got it ([`Input::Delivered`]), right away as undelivered when the connection is gone.
    fn answer(
        &mut self,
        reply: &mpsc::UnboundedSender<Outgoing>,
        message: Message,
        line: AuditEntry,
    ) {
        if let Err(mpsc::error::SendError(Outgoing::Answer(_, line))) =
            reply.send(Outgoing::Answer(Box::new(message), Box::new(line)))
        {
            self.delivered(*line, false);
        }
    }

    /// Audits an answer as given, or — when the hook had stopped waiting — as undelivered: the
    /// agent never read it, so no line may say it was answered.
    fn delivered(&mut self, mut entry: AuditEntry, delivered: bool) {
        if !delivered {
            let was = std::mem::replace(&mut entry.decision, Outcome::Undelivered);
            entry.detail = Some(match entry.detail.take() {
                Some(d) => format!("{was} ({d}) not delivered: the hook had stopped waiting"),
                None => format!("{was} not delivered: the hook had stopped waiting"),
            });
        }
        self.audit(entry);
    }

    fn audit(&mut self, entry: AuditEntry) {
        self.audit.append(&entry);
        self.outbox.push(EngineEvent::Audited(vec![entry]));
    }

    fn save_rules(&mut self) {
        if !self.rules_writable {
            self.notice(
                "the rules file could not be read at start, so it is not overwritten; this \
                 change holds until Vults quits"
                    .into(),
            );
            return;
        }
        let path = self.paths.rules_file();
        // An atomic write is a few fsyncs: let the runtime move other tasks off this thread.
        let result = tokio::task::block_in_place(|| self.rules.save(&path));
        if let Err(e) = result {
            self.notice(format!(
                "cannot save the Always rules to {}: {e}",
                path.display()
            ));
        }
    }

    fn forget_silent_sessions(&mut self) {
        let Some(before) = SystemTime::now().checked_sub(SILENT_SESSION) else {
            return;
        };
        let cards = &self.cards;
        let waiting = |k: &SessionKey| cards.values().any(|w| &w.card.session == k);
        for key in self.sessions.remove_silent(before, &waiting) {
            self.dirty.remove(&key);
            self.outbox.push(EngineEvent::SessionGone(key));
        }
    }

    /// Reloads the policy file when it changed (or always, when `force`).
    fn reload_policies(&mut self, force: bool) {
        let path = self.paths.policies_file();
        let now = stamp(&path);
        if !force && now == self.policy_stamp {
            return;
        }
        self.policy_stamp = now;
        if now.is_none() {
            self.policies = PolicySet::default();
            self.policy_status.error = None;
        } else {
            match PolicySet::load(&path) {
                Ok(set) => {
                    self.policies = set;
                    self.policy_status.error = None;
                }
                Err(e) => {
                    let text = format!("{}:{}: {}", e.line, e.column, e.message);
                    tracing::warn!(
                        "{} not taken ({text}); the last good policies stay in force",
                        path.display()
                    );
                    self.policy_status.error = Some(text);
                }
            }
        }
        self.policy_status.count = self.policies.policies.len();
        self.policy_status.warnings = self.policies.warnings();
        self.outbox
            .push(EngineEvent::Policies(self.policy_status.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vults_core::protocol::ReadLine;

    fn core(name: &str) -> (Core, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("vults-core-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let d = dir.clone();
        let paths = Paths::resolve(move |k| (k == "VULTS_HOME").then(|| d.clone()));
        let (ui, _) = std::sync::mpsc::channel();
        let (inputs, _) = mpsc::unbounded_channel();
        let core = Core::load(
            paths,
            EngineOptions::default(),
            ui,
            Arc::new(|| {}),
            Arc::new(Stats::default()),
            inputs,
        )
        .expect("the core loads");
        (core, dir)
    }

    fn request(id: &str) -> Event {
        let line = serde_json::json!({"kind":"event","v":9,"id":id,"agent":"claude",
            "event":"PermissionRequest","wants_reply":true,"terminal":{"cwd":"/p"},
            "payload":{"session_id":"s","cwd":"/p","tool_name":"Bash",
                "tool_input":{"command":"make"}}})
        .to_string();
        match vults_core::protocol::read_line(line.as_bytes()) {
            ReadLine::Message(Message::Event(e)) => e,
            _ => panic!("an event line"),
        }
    }

    /// A card withdrawn for any reason ends its hook's wait at once: its connection is told to
    /// close, even while the connection (which holds its own handle) is still open. Before, only
    /// the card's handle was dropped, and a hook whose card was withdrawn by another socket's
    /// connection id waited with no card anywhere.
    #[tokio::test]
    async fn a_withdrawn_card_closes_its_hooks_connection() {
        let (mut core, dir) = core("withdraw");
        let (reply, mut out) = mpsc::unbounded_channel();
        core.on_event(new_conn_id(), request("e1"), reply.clone());
        assert!(matches!(out.try_recv(), Ok(Outgoing::Line(_))), "waiting");
        let id = *core.cards.keys().next().expect("a card");
        core.withdraw(id, "the agent stopped waiting");
        assert!(
            matches!(out.try_recv(), Ok(Outgoing::Close)),
            "the hook's connection is closed"
        );
        drop(reply);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn connection_ids_are_never_reused_across_listeners() {
        let a = new_conn_id();
        let b = new_conn_id();
        assert!(b > a);
    }
}
