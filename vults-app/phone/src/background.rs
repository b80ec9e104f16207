//! The phone link in a worker of its own (`vults_engine::worker`), so the window never waits
//! for it: binding the port, making the certificate, joining the listener and writing
//! `devices.json` all happen there.
//!
//! The window sends [`PhoneAction`]s down a channel and reads a [`PhoneStatus`] snapshot the
//! thread replaces after each change (and wakes the window). The engine's events come from a
//! subscription of the link's own ([`BackgroundLink::follow`]): the phone sees every card
//! whether the window is open, hidden, minimized or absent (`vults-app --headless`). The
//! window never blocks on it.

use crate::gate::CommandSink;
use crate::link::{PhoneAction, PhoneLink, PhoneStatus};
use std::sync::{Arc, Mutex};
use vults_core::paths::Paths;
use vults_engine::clock::now_ms;
use vults_engine::messages::EngineEvent;
use vults_engine::worker::{Worker, WorkerSide};

enum Command {
    Apply(PhoneAction),
    Event(Arc<EngineEvent>),
    /// The listener paired a device or refused a request: take a new snapshot.
    Refresh,
    Stop,
}

/// The phone link as the window holds it: the one worker shape (`vults_engine::worker`),
/// commands in and a status snapshot out.
pub struct BackgroundLink {
    worker: Worker<Command, PhoneStatus>,
}

impl BackgroundLink {
    /// Creates the link on the app's runtime (loading the app's keys from the keyring there,
    /// too). A link that cannot be made says why in its status.
    pub fn spawn(
        paths: Paths,
        commands: CommandSink,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> BackgroundLink {
        BackgroundLink::start(move || PhoneLink::new(&paths, commands), wake)
    }

    /// Runs an existing link in its worker (tests).
    pub fn with_link(link: PhoneLink, wake: Arc<dyn Fn() + Send + Sync>) -> BackgroundLink {
        BackgroundLink::start(move || Ok(link), wake)
    }

    fn start(
        make: impl FnOnce() -> std::io::Result<PhoneLink> + Send + 'static,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> BackgroundLink {
        BackgroundLink {
            worker: Worker::spawn(
                "phone link",
                PhoneStatus::default(),
                Command::Stop,
                wake,
                move |side| run(make, side),
            ),
        }
    }

    /// Asks the link to act; returns at once (the snapshot shows the result when it is done).
    pub fn apply(&self, action: PhoneAction) {
        self.worker.send(Command::Apply(action));
    }

    /// Passes on the engine events the phone needs (cards added and removed). The app does
    /// not call it: the link reads its own subscription ([`Self::follow`]).
    pub fn on_engine_event(&self, event: &EngineEvent) {
        if Self::wanted(event) {
            self.worker.send(Command::Event(Arc::new(event.clone())));
        }
    }

    fn wanted(event: &EngineEvent) -> bool {
        matches!(
            event,
            EngineEvent::CardAdded(_) | EngineEvent::CardRemoved { .. }
        )
    }

    /// Subscribes the link to the engine's events itself: a task on the app's runtime reads a
    /// subscription of its own and hands the link every card added and removed, from what
    /// waits now on (a subscription starts from the engine's snapshot, and catches up from it
    /// should it fall behind: `vults_engine::Subscription`). It ends when the link or the
    /// engine does. Nothing else needs to pass the link engine events.
    pub fn follow(&self, events: &vults_engine::EngineEvents) {
        let mut sub = events.subscribe();
        let tx = self.worker.sender();
        vults_engine::rt::handle().spawn(async move {
            while let Some(event) = sub.recv().await {
                if Self::wanted(&event) && tx.send(Command::Event(event)).is_err() {
                    break;
                }
            }
        });
    }

    /// The latest snapshot (a pairing code past its expiry is not shown).
    pub fn status(&self) -> PhoneStatus {
        let mut status = self.worker.status().clone();
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

/// Dropping the link stops it: its last words (the summary of the refusals it dropped) reach the
/// engine before the drop returns.
fn run(make: impl FnOnce() -> std::io::Result<PhoneLink>, side: WorkerSide<Command, PhoneStatus>) {
    let mut link = match make() {
        Ok(link) => link,
        Err(e) => {
            side.publish(PhoneStatus {
                error: Some(format!("The phone link cannot start: {e}")),
                ..PhoneStatus::default()
            });
            // Keep reading until the window goes, so sends never fail loudly.
            while let Some(command) = side.recv() {
                if matches!(command, Command::Stop) {
                    break;
                }
            }
            return;
        }
    };
    let refresh = Mutex::new(side.sender());
    link.set_on_change(Arc::new(move || {
        let _ = refresh
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(Command::Refresh);
    }));
    side.publish(link.status());
    while let Some(first) = side.recv() {
        // Everything queued, then one snapshot: a burst of refusals is one repaint.
        let mut changed = false;
        for command in std::iter::once(first).chain(side.try_iter()) {
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
            side.publish(link.status());
        }
    }
    link.stop();
}
