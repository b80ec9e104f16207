//! The one worker shape: commands in, a status out, a wake. A subsystem that must do slow or
//! blocking work (write files, bind a port, read the keyring, join a listener) does it in a
//! [`Worker`], so its owner — the window's frame above all — never waits: sending a command and
//! reading the status both return at once.
//!
//! The worker's loop runs on the app's one runtime ([`crate::rt`]) as a blocking task (it may
//! block: it has the runtime's blocking pool, not a worker thread of its own making), reads the
//! commands in order, publishes a new status with [`WorkerSide::publish`] (which calls the wake:
//! the window passes `request_repaint`), and must return when it reads the last command it was
//! given at [`Worker::spawn`]. Dropping the [`Worker`] sends that command and waits for the loop
//! to end: what the loop does on it (the phone link's last summary to the engine) is done when
//! the drop returns — the shutdown order is the order the owner drops its workers in.

use std::sync::mpsc::{Receiver, Sender, TryIter, channel};
use std::sync::{Arc, Mutex, MutexGuard};

type Wake = Arc<dyn Fn() + Send + Sync>;

/// The owner's side: send commands, read the status.
pub struct Worker<C, S> {
    tx: Sender<C>,
    status: Arc<Mutex<S>>,
    done: Option<Receiver<()>>,
    last: Option<C>,
}

/// The loop's side: read commands, publish the status.
pub struct WorkerSide<C, S> {
    rx: Receiver<C>,
    tx: Sender<C>,
    status: Arc<Mutex<S>>,
    wake: Wake,
}

impl<C: Send + 'static, S: Send + 'static> Worker<C, S> {
    /// Starts `run` on the app's runtime with `status` as its first status; `last` is the
    /// command that ends it (sent when the [`Worker`] is dropped). `name` is what the log says
    /// when the loop panics.
    pub fn spawn(
        name: &'static str,
        status: S,
        last: C,
        wake: Wake,
        run: impl FnOnce(WorkerSide<C, S>) + Send + 'static,
    ) -> Worker<C, S> {
        let (tx, rx) = channel();
        let status = Arc::new(Mutex::new(status));
        let (done_tx, done) = channel();
        let side = WorkerSide {
            rx,
            tx: tx.clone(),
            status: status.clone(),
            wake,
        };
        crate::rt::handle().spawn_blocking(move || {
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(side))).is_err() {
                tracing::warn!("the {name} worker panicked");
            }
            let _ = done_tx.send(());
        });
        Worker {
            tx,
            status,
            done: Some(done),
            last: Some(last),
        }
    }
}

impl<C, S> Worker<C, S> {
    /// Queues a command; `false` when the loop has ended.
    pub fn send(&self, command: C) -> bool {
        self.tx.send(command).is_ok()
    }

    /// A sender of commands, for another part (a callback) to queue them too.
    pub fn sender(&self) -> Sender<C> {
        self.tx.clone()
    }

    /// The latest status, locked for reading.
    pub fn status(&self) -> MutexGuard<'_, S> {
        self.status.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends the last command and waits for the loop to end (what dropping it does). Not from
    /// a task of the app's runtime: it blocks the thread.
    pub fn stop(&mut self) {
        if let Some(last) = self.last.take() {
            let _ = self.tx.send(last);
        }
        if let Some(done) = self.done.take() {
            let _ = done.recv();
        }
    }
}

impl<C, S> Drop for Worker<C, S> {
    fn drop(&mut self) {
        self.stop();
    }
}

impl<C, S> WorkerSide<C, S> {
    /// The next command, waiting for it (the loop returns on its last command, so this never
    /// waits forever while its owner lives).
    pub fn recv(&self) -> Option<C> {
        self.rx.recv().ok()
    }

    /// The next command, waiting at most `timeout` (a loop that also keeps a timer: the chat
    /// ends an idle CLI when it is due).
    pub fn recv_timeout(
        &self,
        timeout: std::time::Duration,
    ) -> Result<C, std::sync::mpsc::RecvTimeoutError> {
        self.rx.recv_timeout(timeout)
    }

    /// Every command queued now, without waiting.
    pub fn try_iter(&self) -> TryIter<'_, C> {
        self.rx.try_iter()
    }

    /// A sender into the loop's own queue (a callback that asks the loop to look again).
    pub fn sender(&self) -> Sender<C> {
        self.tx.clone()
    }

    /// Replaces the status and wakes the owner.
    pub fn publish(&self, status: S) {
        *self.status.lock().unwrap_or_else(|e| e.into_inner()) = status;
        (self.wake)();
    }

    /// Changes the status in place and wakes the owner.
    pub fn update(&self, change: impl FnOnce(&mut S)) {
        change(&mut self.status.lock().unwrap_or_else(|e| e.into_inner()));
        (self.wake)();
    }

    /// Wakes the owner without changing the status.
    pub fn wake(&self) {
        (self.wake)();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    enum Cmd {
        Add(u32),
        Stop,
    }

    /// Commands are carried out in order, each status wakes the owner, and dropping the worker
    /// returns only after its loop did what it does on its last command.
    #[test]
    fn commands_in_a_status_out_a_wake_and_the_drop_waits_for_the_last_words() {
        let wakes = Arc::new(AtomicUsize::new(0));
        let last_words = Arc::new(Mutex::new(Vec::new()));
        let (w, said) = (wakes.clone(), last_words.clone());
        let worker = Worker::spawn(
            "test",
            0u32,
            Cmd::Stop,
            Arc::new(move || {
                w.fetch_add(1, Ordering::SeqCst);
            }),
            move |side| {
                while let Some(cmd) = side.recv() {
                    match cmd {
                        Cmd::Add(n) => side.update(|s| *s += n),
                        Cmd::Stop => {
                            std::thread::sleep(std::time::Duration::from_millis(50));
                            said.lock().unwrap().push("bye");
                            return;
                        }
                    }
                }
            },
        );
        for n in 1..=10 {
            assert!(worker.send(Cmd::Add(n)));
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while *worker.status() != 55 {
            assert!(std::time::Instant::now() < deadline, "the sum never came");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(wakes.load(Ordering::SeqCst), 10);
        drop(worker);
        assert_eq!(*last_words.lock().unwrap(), vec!["bye"]);
    }

    /// A loop that panics is logged; its owner's drop still returns.
    #[test]
    fn a_loop_that_panics_does_not_hang_its_owner() {
        let worker: Worker<Cmd, ()> =
            Worker::spawn("panicky", (), Cmd::Stop, Arc::new(|| {}), |_side| {
                panic!("a loop that panics")
            });
        let _ = worker.send(Cmd::Add(1));
        drop(worker);
    }
}
