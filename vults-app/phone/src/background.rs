//! The phone link on a thread of its own, so the window never waits for it: binding the port,
//! making the certificate, building the runtime, joining the listener's thread and writing
//! `devices.json` all happen there.
//!
//! The window sends [`PhoneAction`]s and the engine events the phone needs down a channel and
//! reads a [`PhoneStatus`] snapshot the thread replaces after each change (and wakes the
//! window). Like the background installer (`ui/native.rs`), the window never blocks on it.

use crate::gate::CommandSink;
use crate::link::{PhoneAction, PhoneLink, PhoneStatus};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use vults_core::paths::Paths;
use vults_engine::clock::now_ms;
use vults_engine::messages::EngineEvent;

enum Command {
    Apply(PhoneAction),
    Event(Box<EngineEvent>),
    /// The listener paired a device or refused a request: take a new snapshot.
    Refresh,
    Stop,
}

/// The phone link as the window holds it: a command channel and a status snapshot.
pub struct BackgroundLink {
    tx: Sender<Command>,
    snapshot: Arc<Mutex<PhoneStatus>>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl BackgroundLink {
    /// Creates the link on its own thread (loading the app's keys from the keyring there, too).
    /// A link that cannot be made says why in its status.
    pub fn spawn(
        paths: Paths,
        commands: CommandSink,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> BackgroundLink {
        BackgroundLink::start(move || PhoneLink::new(&paths, commands), wake)
    }

    /// Runs an existing link on its own thread (tests).
    pub fn with_link(link: PhoneLink, wake: Arc<dyn Fn() + Send + Sync>) -> BackgroundLink {
        BackgroundLink::start(move || Ok(link), wake)
    }

    fn start(
        make: impl FnOnce() -> std::io::Result<PhoneLink> + Send + 'static,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> BackgroundLink {
        let (tx, rx) = channel();
        let snapshot = Arc::new(Mutex::new(PhoneStatus::default()));
        let (shared, refresh) = (snapshot.clone(), tx.clone());
        let thread = std::thread::Builder::new()
            .name("vults-phone".into())
            .spawn(move || run(make, rx, refresh, shared, wake))
            .map_err(|e| eprintln!("vults: cannot start the phone link's thread: {e}"))
            .ok();
        BackgroundLink {
            tx,
            snapshot,
            thread: Mutex::new(thread),
        }
    }

    /// Asks the link to act; returns at once (the snapshot shows the result when it is done).
    pub fn apply(&self, action: PhoneAction) {
        let _ = self.tx.send(Command::Apply(action));
    }

    /// Passes on the engine events the phone needs (cards added and removed).
    pub fn on_engine_event(&self, event: &EngineEvent) {
        if matches!(
            event,
            EngineEvent::CardAdded(_) | EngineEvent::CardRemoved { .. }
        ) {
            let _ = self.tx.send(Command::Event(Box::new(event.clone())));
        }
    }

    /// The latest snapshot (a pairing code past its expiry is not shown).
    pub fn status(&self) -> PhoneStatus {
        let mut status = self
            .snapshot
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if status
            .offer
            .as_ref()
            .is_some_and(|o| o.expires_at <= now_ms())
        {
            status.offer = None;
            status.qr.clear();
        }
        status
    }
}

impl BackgroundLink {
    /// Stops the link and waits until it has (its last summary of refusals sent to the
    /// engine, the listener and the broker link closed); later actions do nothing. For a holder
    /// that shares the link (the headless app stops it before the engine stops).
    pub fn stop(&self) {
        let _ = self.tx.send(Command::Stop);
        let thread = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(thread) = thread {
            let _ = thread.join();
        }
    }
}

impl Drop for BackgroundLink {
    fn drop(&mut self) {
        self.stop();
    }
}

fn run(
    make: impl FnOnce() -> std::io::Result<PhoneLink>,
    rx: Receiver<Command>,
    refresh: Sender<Command>,
    snapshot: Arc<Mutex<PhoneStatus>>,
    wake: Arc<dyn Fn() + Send + Sync>,
) {
    let publish = |status: PhoneStatus| {
        *snapshot.lock().unwrap_or_else(|e| e.into_inner()) = status;
        wake();
    };
    let mut link = match make() {
        Ok(link) => link,
        Err(e) => {
            publish(PhoneStatus {
                error: Some(format!("The phone link cannot start: {e}")),
                ..PhoneStatus::default()
            });
            // Keep the channel open until the window goes, so sends never fail loudly.
            while let Ok(command) = rx.recv() {
                if matches!(command, Command::Stop) {
                    break;
                }
            }
            return;
        }
    };
    let refresh = Mutex::new(refresh);
    link.set_on_change(Arc::new(move || {
        let _ = refresh
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(Command::Refresh);
    }));
    publish(link.status());
    while let Ok(first) = rx.recv() {
        // Everything queued, then one snapshot: a burst of refusals is one repaint.
        let mut changed = false;
        for command in std::iter::once(first).chain(rx.try_iter()) {
            match command {
                Command::Apply(action) => {
                    link.apply(action);
                    changed = true;
                }
                Command::Event(event) => link.on_engine_event(&event),
                Command::Refresh => changed = true,
                Command::Stop => {
                    link.stop();
                    return;
                }
            }
        }
        if changed {
            publish(link.status());
        }
    }
    link.stop();
}
