//! The engine's runtime: its thread and tokio runtime, the hook socket and each SSH host's
//! socket with their accept loops, the signals that stop it, and the handles the window and the
//! subsystems hold ([`Engine`], [`EngineHandle`], [`EngineCommander`], [`HostSockets`]). It owns
//! no card and decides nothing: every event goes to the core task (`core.rs`).

use crate::bus::{Bus, Subscription};
use crate::core::Core;
use crate::in_app::{ConnId, InAppReply, InAppRequest};
use crate::inputs::Input;
use crate::messages::{AuditEntry, EngineCommand, EngineEvent};
use crate::options::EngineOptions;
use crate::stats::{Stats, StatsSnapshot};
use crate::{connection, socket};
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::{mpsc, watch};
use vults_core::paths::Paths;

/// Connection ids, one counter for every listener of every engine in this process (the local
/// socket and each SSH host's) and for the in-app requests, so a connection closing on one can
/// never be taken for another's: a host's connection N closing once withdrew the local card of
/// connection N.
static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

/// A connection id never given before in this process: what an [`InAppRequest`] is keyed by.
pub fn new_conn_id() -> ConnId {
    NEXT_CONN.fetch_add(1, Ordering::Relaxed)
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
    stopped: watch::Receiver<bool>,
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
            self.stopped.clone(),
        ));
        Ok(HostListener {
            task: task.abort_handle(),
            socket,
        })
    }
}

/// Subscribes to a running engine's events (`bus.rs`: the bound, and what a subscriber that
/// falls behind loses); cheap to clone, so a subsystem can hold one and subscribe itself.
#[derive(Clone)]
pub struct EngineEvents(Arc<Bus>);

impl EngineEvents {
    /// A stream of every event from now on, starting with a snapshot of what waits (cards,
    /// sessions, rules, policies, the audit's tail, the last notices).
    pub fn subscribe(&self) -> Subscription {
        self.0.subscribe(None)
    }

    /// As [`Self::subscribe`], and `wake` is called after each batch the engine publishes (for a
    /// reader that polls, as the window's frame does). It must return at once; one that panics
    /// is logged and does not stop the engine.
    pub fn subscribe_waking(&self, wake: Arc<dyn Fn() + Send + Sync>) -> Subscription {
        self.0.subscribe(Some(wake))
    }
}

/// A running engine. Dropping it stops the engine.
pub struct EngineHandle {
    /// Engine → window: the first subscriber, as it always was — every event, unbounded, in
    /// order. Closed (disconnected) once the engine has stopped. The app reads
    /// [`EngineHandle::subscribe`]s instead and calls [`EngineHandle::close_events`], so that
    /// nothing fills this one. Tests and examples read it.
    pub events: std::sync::mpsc::Receiver<EngineEvent>,
    bus: EngineEvents,
    hosts: HostSockets,
    commander: EngineCommander,
    stats: Arc<Stats>,
    socket: PathBuf,
    /// Hears (or sees closed) when the engine's task has ended.
    done: Option<std::sync::mpsc::Receiver<()>>,
    before_stop: BeforeStop,
}

/// What runs when a signal stops the engine, before it stops ([`EngineHandle::before_stop`]).
type BeforeStop = Arc<std::sync::Mutex<Vec<Box<dyn FnOnce() + Send>>>>;

impl EngineHandle {
    /// Runs `f` when a signal (SIGINT, SIGTERM; Ctrl-C on Windows) stops the engine, before it
    /// stops: a subsystem's last words (the phone link's summary of the refusals it dropped)
    /// reach the engine as commands that are carried out, and audited, before the stop.
    pub fn before_stop(&self, f: impl FnOnce() + Send + 'static) {
        self.before_stop
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Box::new(f));
    }

    /// `false` when the engine has stopped.
    pub fn send(&self, command: EngineCommand) -> bool {
        self.commander.send(command)
    }

    /// A subscription of its own to every event ([`EngineEvents::subscribe`]).
    pub fn subscribe(&self) -> Subscription {
        self.bus.subscribe()
    }

    /// A subscription that calls `wake` after each batch ([`EngineEvents::subscribe_waking`]).
    pub fn subscribe_waking(&self, wake: Arc<dyn Fn() + Send + Sync>) -> Subscription {
        self.bus.subscribe_waking(wake)
    }

    /// What subsystems subscribe through, to hold and subscribe later.
    pub fn event_bus(&self) -> EngineEvents {
        self.bus.clone()
    }

    /// Stops filling [`EngineHandle::events`] (every reader subscribes instead): it reads as
    /// closed from now on, and the engine no longer copies each event into it.
    pub fn close_events(&mut self) {
        self.events = std::sync::mpsc::channel().1;
    }

    /// A cheap handle that sends commands to this engine: for the window, the phone link and the
    /// chat, each on its own thread.
    pub fn commander(&self) -> EngineCommander {
        self.commander.clone()
    }

    /// Opens per-host sockets for SSH hosts' links (the vults-remote crate).
    pub fn host_sockets(&self) -> HostSockets {
        self.hosts.clone()
    }

    /// The engine's counters as they are now.
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

    /// Waits for the engine to end (without asking it to). Not from a task of the app's
    /// runtime: it blocks the thread.
    pub fn join(&mut self) {
        if let Some(done) = self.done.take()
            && done.recv().is_err()
        {
            tracing::warn!("the engine's task panicked");
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
        let rt = crate::rt::handle();
        let (listener, signals) = {
            let _guard = rt.enter();
            // The signal handlers go in before the socket exists: a SIGTERM sent as soon as a
            // hook can connect must stop the engine cleanly, not kill it with its socket left.
            let signals = options.stop_on_signal.then(Signals::install);
            (socket::listen(&paths.socket, &paths.runtime_dir)?, signals)
        };
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
        let bus = EngineEvents(core.bus.clone());
        let accept_tx = in_tx.clone();
        let accept_stats = stats.clone();
        let before_stop = BeforeStop::default();
        let on_signal = before_stop.clone();
        // Set when the core has stopped: every accept loop and connection task ends with it.
        let (stopped_tx, stopped) = watch::channel(false);
        let (done_tx, done) = std::sync::mpsc::channel();
        let host_stopped = stopped.clone();
        rt.spawn(async move {
            let accept = tokio::spawn(accept_loop(
                listener,
                accept_tx,
                accept_stats,
                None,
                stopped.clone(),
            ));
            let signal_task = signals.map(|signals| {
                tokio::spawn(stop_on_signal(signals, core.inputs.clone(), on_signal))
            });
            core.run(in_rx).await;
            // Connection tasks still running end: their hooks see the socket close.
            let _ = stopped_tx.send(true);
            // The listener (and with it the socket file) goes when the task does.
            let _ = accept.await;
            if let Some(task) = signal_task {
                task.abort();
            }
            drop(core);
            let _ = done_tx.send(());
        });
        Ok(EngineHandle {
            events: ui_rx,
            bus,
            hosts: HostSockets {
                rt,
                core: in_tx.clone(),
                stopped: host_stopped,
                stats: stats.clone(),
                paths: paths.clone(),
            },
            commander: EngineCommander(in_tx),
            stats,
            socket: paths.socket,
            done: Some(done),
            before_stop,
        })
    }
}

async fn accept_loop(
    listener: interprocess::local_socket::tokio::Listener,
    core: mpsc::UnboundedSender<Input>,
    stats: Arc<Stats>,
    host: Option<Arc<str>>,
    stopped: watch::Receiver<bool>,
) {
    use interprocess::local_socket::traits::tokio::Listener as _;
    loop {
        let mut stop = stopped.clone();
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.wait_for(|s| *s) => return,
        };
        let stream = match accepted {
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
            let _ = core.send(Input::Notice(why.into()));
            continue; // dropping the stream closes it
        }
        stats.accepted.fetch_add(1, Ordering::Relaxed);
        let serve = connection::serve(
            new_conn_id(),
            stream,
            core.clone(),
            stats.clone(),
            host.clone(),
        );
        tokio::spawn(async move {
            // The engine stopping drops the connection: its hook sees the socket close.
            tokio::select! {
                _ = serve => {}
                _ = stop.wait_for(|s| *s) => {}
            }
        });
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

async fn stop_on_signal(
    signals: Signals,
    core: mpsc::UnboundedSender<Input>,
    before_stop: BeforeStop,
) {
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
    // What must be said before the stop goes first: the commands it sends are queued ahead of
    // the Shutdown, so they are carried out (and audited) before the engine stops.
    let last: Vec<_> = std::mem::take(&mut *before_stop.lock().unwrap_or_else(|e| e.into_inner()));
    if !last.is_empty() {
        let _ = tokio::task::spawn_blocking(move || last.into_iter().for_each(|f| f())).await;
    }
    let _ = core.send(Input::Command(EngineCommand::Shutdown));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_ids_are_never_reused_across_listeners() {
        let a = new_conn_id();
        let b = new_conn_id();
        assert!(b > a);
    }
}
