//! The app's one tokio runtime. The composition root (`vults-app/src/compose.rs`) builds it and
//! [`install`]s it before it starts anything; every subsystem (the engine, the phone link, the
//! SSH hosts' links, the notifier) runs on it as tasks from [`handle`], and none builds a runtime
//! of its own (`tests/runtimes.rs` fails on one that does).
//!
//! A program with no composition root — a crate's tests, its examples — gets one built here the
//! first time [`handle`] is asked for, the same shape as the app's ([`build`]).

use std::sync::OnceLock;
pub use tokio::runtime::{Handle, Runtime};

/// The runtime's worker threads: the engine's core and its connections, the phone link, the
/// hosts' links and the notifier share them. Two, as the engine alone had before: at 10,000
/// hook events a second the engine uses about one core (BENCHMARKS.md).
pub const WORKERS: usize = 2;

static INSTALLED: OnceLock<Handle> = OnceLock::new();
static FALLBACK: OnceLock<Runtime> = OnceLock::new();

/// The one runtime's shape: [`WORKERS`] worker threads named `vults-rt`, I/O and timers on.
pub fn build() -> std::io::Result<Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(WORKERS)
        .thread_name("vults-rt")
        .enable_all()
        .build()
}

/// Makes `runtime` the one every subsystem runs on; `false` when one was already in use (the
/// first stays). The caller keeps the runtime alive for as long as the app runs.
pub fn install(runtime: &Runtime) -> bool {
    INSTALLED.set(runtime.handle().clone()).is_ok()
}

/// The app's runtime: the installed one, or (with no composition root) one built here once.
pub fn handle() -> Handle {
    if let Some(h) = INSTALLED.get() {
        return h.clone();
    }
    let rt = FALLBACK.get_or_init(|| build().expect("a tokio runtime can be built"));
    // The first asked for wins; later asks read the same.
    INSTALLED.get_or_init(|| rt.handle().clone()).clone()
}

/// A task on the app's runtime that a plain thread waits for as it would for a thread it
/// spawned ([`Task::join`]): what a subsystem's "thread with a runtime of its own" became.
pub struct Task {
    done: std::sync::mpsc::Receiver<()>,
    abort: tokio::task::AbortHandle,
}

/// Spawns `work` on the app's runtime.
pub fn spawn(work: impl std::future::Future<Output = ()> + Send + 'static) -> Task {
    let (tx, done) = std::sync::mpsc::channel();
    let task = handle().spawn(async move {
        work.await;
        let _ = tx.send(());
    });
    Task {
        done,
        abort: task.abort_handle(),
    }
}

impl Task {
    /// Waits for the task to end (or to be dropped: aborted, panicked, the runtime gone).
    /// It blocks the thread: not from a task of the app's runtime.
    pub fn join(self) {
        let _ = self.done.recv();
    }

    /// Ends the task at its next await, without waiting for it.
    pub fn abort(&self) {
        self.abort.abort();
    }
}
