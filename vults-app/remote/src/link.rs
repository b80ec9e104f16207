//! The links: while the app runs, one `ssh -N -R <host socket>:<local socket>` per host.
//!
//! Each host's link forwards the socket in the host's 0700 Vults folder to a local socket of
//! that host's own ([`HostSockets::listen`]), so the engine knows the host by where a call
//! arrives; the hook protocol is unchanged and the same peer and version checks apply (the
//! peer on the local socket is this user's own `ssh`). `ExitOnForwardFailure` makes a link that
//! could not forward end (and be retried) rather than sit idle; `ServerAlive*` notices a dead
//! network. A link that ends is started again after 1 s when it had been up, else after twice
//! the last wait (up to [`MAX_BACKOFF`]). A socket left on the host by a link that died (an
//! sshd without `StreamLocalBindUnlink yes`) makes the forward fail: it is removed over ssh and
//! the link tried again.
//!
//! Link down = silence: the host's hook finds no socket, or one nobody answers, and prints
//! nothing within its 2 s, so the agent asks in its own terminal.

use super::host::{Host, HostList, shell_quote};
use crate::error::Error;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};
use vults_core::paths::Paths;
use vults_engine::HostSockets;

/// The longest wait between two tries.
pub const MAX_BACKOFF: Duration = Duration::from_secs(60);
/// What `ssh -v` prints once the host has accepted the forward: the link is up.
const FORWARD_OK: [&str; 2] = ["remote forward success", "all expected forwarding replies"];

/// A link's state, for Settings → Hosts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkState {
    /// `ssh` is starting, and the host has not accepted the forward yet.
    Connecting,
    /// The forward is up: the host's hooks reach the app.
    Up,
    /// Down: why, and when the next try is.
    Down {
        /// What went wrong (`ssh`'s last words, or its exit).
        why: String,
        /// The wait before the next try.
        retry_in: Duration,
    },
    /// The engine cannot listen on the host's local socket.
    NoSocket(String),
    /// The link was stopped (the host was removed, or the app quits).
    Stopped,
}

impl LinkState {
    /// The state in words, for Settings → Hosts (`linked`, `down (…); again in 4 s`).
    pub fn label(&self) -> String {
        match self {
            LinkState::Connecting => "connecting".into(),
            LinkState::Up => "linked".into(),
            LinkState::Down { why, retry_in } => {
                let secs = retry_in.as_millis().div_ceil(1000).max(1);
                format!("down ({why}); again in {secs} s")
            }
            LinkState::NoSocket(why) => format!("no local socket: {why}"),
            LinkState::Stopped => "stopped".into(),
        }
    }
}

/// One link's status.
#[derive(Debug, Clone)]
pub struct LinkStatus {
    /// The link's state.
    pub state: LinkState,
    /// The running `ssh` process.
    pub pid: Option<u32>,
    /// When the link entered that state.
    pub since: SystemTime,
    /// How many times the link was (re)started.
    pub starts: u32,
}

impl LinkStatus {
    /// The state in words, as of now: a link that is down counts down to its next try.
    pub fn label(&self) -> String {
        match &self.state {
            LinkState::Down { why, retry_in } => {
                let waited = self.since.elapsed().unwrap_or_default();
                LinkState::Down {
                    why: why.clone(),
                    retry_in: retry_in.saturating_sub(waited),
                }
                .label()
            }
            state => state.label(),
        }
    }
}

type Statuses = Arc<Mutex<BTreeMap<String, LinkStatus>>>;

/// Called when a link's state (or the host list) changes: the window repaints.
pub type Wake = Arc<dyn Fn() + Send + Sync>;

struct Running {
    host: Host,
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

/// How often `hosts.json` is looked at, so a `vults-app remote add` or `remove` in a terminal
/// reaches the running app.
pub const WATCH_EVERY: Duration = Duration::from_secs(1);

/// Every host's link. Dropping it stops them (each `ssh` is ended).
pub struct Links {
    inner: Arc<Mutex<Inner>>,
    statuses: Statuses,
    listed: Listed,
    watch_stop: Arc<AtomicBool>,
    watcher: Option<JoinHandle<()>>,
}

/// The hosts as last read from `hosts.json`, or why it could not be read.
type Listed = Arc<Mutex<Result<Vec<Host>, Arc<Error>>>>;

struct Inner {
    paths: Paths,
    sockets: HostSockets,
    statuses: Statuses,
    listed: Listed,
    running: BTreeMap<String, Running>,
    /// `hosts.json`'s modification time and length when last read.
    stamp: Option<(SystemTime, u64)>,
    wake: Wake,
}

fn stamp(paths: &Paths) -> Option<(SystemTime, u64)> {
    let meta = std::fs::metadata(HostList::file(paths)).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

impl Links {
    /// Starts a link for every host in `hosts.json`, and follows the file from then on.
    pub fn start(paths: &Paths, sockets: HostSockets) -> Links {
        Links::start_with_wake(paths, sockets, Arc::new(|| {}))
    }

    /// [`Links::start`], calling `wake` whenever a link's state or the host list changes (the
    /// window repaints only when told).
    pub fn start_with_wake(paths: &Paths, sockets: HostSockets, wake: Wake) -> Links {
        let statuses = Statuses::default();
        let listed: Listed = Arc::new(Mutex::new(Ok(Vec::new())));
        let inner = Arc::new(Mutex::new(Inner {
            paths: paths.clone(),
            sockets,
            statuses: statuses.clone(),
            listed: listed.clone(),
            running: BTreeMap::new(),
            stamp: None,
            wake,
        }));
        if let Ok(mut i) = inner.lock() {
            i.reload();
        }
        let watch_stop = Arc::new(AtomicBool::new(false));
        let (flag, watched) = (watch_stop.clone(), inner.clone());
        let watcher = std::thread::Builder::new()
            .name("vults-hosts-watch".into())
            .spawn(move || {
                while wait(WATCH_EVERY, &flag) {
                    if let Ok(mut i) = watched.lock()
                        && stamp(&i.paths) != i.stamp
                    {
                        i.reload();
                    }
                }
            })
            .map_err(|e| tracing::warn!("hosts: cannot watch hosts.json: {e}"))
            .ok();
        Links {
            inner,
            statuses,
            listed,
            watch_stop,
            watcher,
        }
    }

    /// Follows `hosts.json` now: starts links for new hosts, stops those of removed ones, and
    /// restarts a host whose settings changed.
    pub fn reload(&self) {
        if let Ok(mut i) = self.inner.lock() {
            i.reload();
        }
    }

    /// Every link's status, by host name.
    pub fn statuses(&self) -> BTreeMap<String, LinkStatus> {
        self.statuses.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// The hosts as last read from `hosts.json` (no file is read here: the window asks each
    /// frame), or why the file could not be read.
    pub fn hosts(&self) -> Result<Vec<Host>, Arc<Error>> {
        self.listed
            .lock()
            .map(|l| l.clone())
            .unwrap_or_else(|_| Ok(Vec::new()))
    }
}

impl Inner {
    fn reload(&mut self) {
        self.stamp = stamp(&self.paths);
        let loaded = HostList::load(&self.paths)
            .map(|l| l.hosts)
            .map_err(Arc::new);
        if let Ok(mut l) = self.listed.lock() {
            *l = loaded.clone();
        }
        (self.wake)();
        let hosts = match loaded {
            Ok(hosts) => hosts,
            Err(e) => {
                tracing::warn!("hosts: {e}");
                return;
            }
        };
        let stale: Vec<String> = self
            .running
            .iter()
            .filter(|(n, r)| !hosts.iter().any(|h| &h.name == *n && h == &r.host))
            .map(|(n, _)| n.clone())
            .collect();
        for name in stale {
            self.stop_one(&name);
        }
        for host in hosts {
            if !self.running.contains_key(&host.name) {
                self.start_one(host);
            }
        }
    }

    fn start_one(&mut self, host: Host) {
        let stop = Arc::new(AtomicBool::new(false));
        let name = host.name.clone();
        let (sockets, flag) = (self.sockets.clone(), stop.clone());
        let told = Told {
            statuses: self.statuses.clone(),
            wake: self.wake.clone(),
        };
        let linked = host.clone();
        let thread = std::thread::Builder::new()
            .name(format!("vults-link-{name}"))
            .spawn(move || run_link(linked, sockets, told, flag));
        match thread {
            Ok(thread) => {
                self.running.insert(name, Running { host, stop, thread });
            }
            Err(e) => tracing::warn!("hosts: cannot start the link to {name}: {e}"),
        }
    }

    fn stop_one(&mut self, name: &str) {
        if let Some(r) = self.running.remove(name) {
            r.stop.store(true, Ordering::Relaxed);
            let _ = r.thread.join();
        }
        if let Ok(mut s) = self.statuses.lock() {
            s.remove(name);
        }
        (self.wake)();
    }

    fn stop_all(&mut self) {
        for r in self.running.values() {
            r.stop.store(true, Ordering::Relaxed);
        }
        for (_, r) in std::mem::take(&mut self.running) {
            let _ = r.thread.join();
        }
    }
}

impl Drop for Links {
    fn drop(&mut self) {
        self.watch_stop.store(true, Ordering::Relaxed);
        if let Some(w) = self.watcher.take() {
            let _ = w.join();
        }
        if let Ok(mut i) = self.inner.lock() {
            i.stop_all();
        }
    }
}

/// Where a link says how it is: the statuses, and the window to wake.
struct Told {
    statuses: Statuses,
    wake: Wake,
}

fn set(told: &Told, name: &str, state: LinkState, pid: Option<u32>, starts: u32) {
    let mut changed = false;
    if let Ok(mut s) = told.statuses.lock() {
        let old = s.get(name);
        changed = old.is_none_or(|o| o.state != state);
        if changed {
            tracing::info!("hosts: link to {name}: {}", state.label());
        }
        let since = match old {
            Some(o) if !changed => o.since,
            _ => SystemTime::now(),
        };
        s.insert(
            name.to_string(),
            LinkStatus {
                since,
                state,
                pid,
                starts,
            },
        );
    }
    if changed {
        (told.wake)();
    }
}

/// Sleeps `d` in short steps; `false` when asked to stop meanwhile.
fn wait(d: Duration, stop: &AtomicBool) -> bool {
    let end = Instant::now() + d;
    while Instant::now() < end {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    !stop.load(Ordering::Relaxed)
}

/// The `ssh` that holds one link.
pub fn link_command(host: &Host, local_socket: &std::path::Path) -> std::process::Command {
    let mut c = host.ssh();
    c.args([
        // -v: its "remote forward success" line says when the link is up.
        "-v",
        "-N",
        "-T",
        "-o",
        "ExitOnForwardFailure=yes",
        "-o",
        "StreamLocalBindUnlink=yes",
        "-o",
        "ServerAliveInterval=15",
        "-o",
        "ServerAliveCountMax=3",
        "-R",
    ])
    .arg(format!(
        "{}:{}",
        host.socket_path(),
        local_socket.to_string_lossy()
    ))
    .arg("--")
    .arg(&host.target);
    c
}

fn run_link(host: Host, sockets: HostSockets, statuses: Told, stop: Arc<AtomicBool>) {
    let name = host.name.clone();
    let mut backoff = Duration::from_secs(1);
    let mut starts = 0u32;
    // The engine's end of the link: held while the link runs.
    let listener = loop {
        match sockets.listen(&name) {
            Ok(l) => break l,
            Err(e) => {
                set(
                    &statuses,
                    &name,
                    LinkState::NoSocket(e.to_string()),
                    None,
                    0,
                );
                if !wait(backoff, &stop) {
                    set(&statuses, &name, LinkState::Stopped, None, 0);
                    return;
                }
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
        }
    };
    backoff = Duration::from_secs(1);
    let local = sockets.socket_of(&name);
    while !stop.load(Ordering::Relaxed) {
        starts += 1;
        set(&statuses, &name, LinkState::Connecting, None, starts);
        let mut cmd = link_command(&host, &local);
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        ends_with_this_thread(&mut cmd);
        let child = cmd.spawn();
        let (why, was_up) = match child {
            Ok(child) => watch(child, &name, &statuses, starts, &stop),
            Err(e) => (format!("cannot run ssh: {e}"), false),
        };
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let stale = why.contains("forwarding failed") || why.contains("remote port forwarding");
        if stale {
            // A socket left by a link that died: remove it, then try again at once.
            let _ = host.run(&format!("rm -f {}", shell_quote(&host.socket_path())), None);
        }
        if was_up || stale {
            backoff = Duration::from_secs(1);
        }
        set(
            &statuses,
            &name,
            LinkState::Down {
                why,
                retry_in: backoff,
            },
            None,
            starts,
        );
        if !wait(backoff, &stop) {
            break;
        }
        if !was_up && !stale {
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    }
    drop(listener);
    set(&statuses, &name, LinkState::Stopped, None, starts);
}

/// The link's `ssh` ends when the thread that holds it does: an app that is killed, or ends
/// without stopping its links, leaves no `ssh` holding the host's forward (Linux:
/// `PR_SET_PDEATHSIG`; the link's thread lives exactly as long as the link).
#[cfg(target_os = "linux")]
fn ends_with_this_thread(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id();
    // SAFETY: runs in the child between fork and exec and only calls prctl(2) and getppid(2),
    // which are async-signal-safe and touch no memory of the parent's.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The app ended between fork and prctl: nobody is left to hold the link for.
            if u32::try_from(libc::getppid()).ok() != Some(parent) {
                return Err(std::io::Error::other("the app is gone"));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn ends_with_this_thread(_cmd: &mut std::process::Command) {}

/// Watches one `ssh` until it ends (or the link is stopped, which kills it). Returns why it
/// ended (its last line on stderr) and whether it had been up.
fn watch(
    mut child: Child,
    name: &str,
    statuses: &Told,
    starts: u32,
    stop: &AtomicBool,
) -> (String, bool) {
    let pid = child.id();
    let last_line = Arc::new(Mutex::new(String::new()));
    let forwarded = Arc::new(AtomicBool::new(false));
    let reader = child.stderr.take().map(|err| {
        let (last, forwarded) = (last_line.clone(), forwarded.clone());
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let line = line.trim().to_string();
                if FORWARD_OK.iter().any(|ok| line.contains(ok)) {
                    forwarded.store(true, Ordering::Relaxed);
                }
                if line.is_empty() || !is_news(&line) {
                    continue;
                }
                tracing::debug!("ssh: {line}");
                if let Ok(mut l) = last.lock() {
                    *l = line;
                }
            }
        })
    });
    let mut up = false;
    set(statuses, name, LinkState::Connecting, Some(pid), starts);
    let status = loop {
        if stop.load(Ordering::Relaxed) {
            let _ = child.kill();
            let _ = child.wait();
            return ("stopped".into(), up);
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return (format!("lost the ssh process: {e}"), up);
            }
        }
        if !up && forwarded.load(Ordering::Relaxed) {
            up = true;
            set(statuses, name, LinkState::Up, Some(pid), starts);
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    if let Some(r) = reader {
        let _ = r.join();
    }
    let line = last_line.lock().map(|l| l.clone()).unwrap_or_default();
    let why = if line.is_empty() {
        format!("ssh ended ({status})")
    } else {
        line
    };
    (why, up)
}

/// A line of `ssh -v` worth showing as why a link ended (not its debug chatter).
fn is_news(line: &str) -> bool {
    ![
        "debug",
        "OpenSSH_",
        "Authenticated to",
        "Transferred:",
        "Bytes per second",
    ]
    .iter()
    .any(|p| line.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_that_is_down_counts_down_to_its_next_try() {
        let status = LinkStatus {
            state: LinkState::Down {
                why: "Connection refused".into(),
                retry_in: Duration::from_secs(8),
            },
            pid: None,
            since: SystemTime::now() - Duration::from_secs(5),
            starts: 3,
        };
        assert_eq!(status.label(), "down (Connection refused); again in 3 s");
        let up = LinkStatus {
            state: LinkState::Up,
            ..status
        };
        assert_eq!(up.label(), "linked");
    }

    #[test]
    fn the_link_command_forwards_the_hosts_socket_to_its_own_local_socket() {
        let mut host = Host::parse("me@devbox:2222").unwrap();
        host.home = "/home/me".into();
        host.ssh_options = vec!["-i".into(), "/k".into()];
        let c = link_command(
            &host,
            std::path::Path::new("/run/u/vults/hosts/devbox.sock"),
        );
        let args: Vec<String> = c
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let joined = args.join(" ");
        assert!(is_news(
            "Warning: remote port forwarding failed for listen path /x"
        ));
        assert!(!is_news("debug1: remote forward success for: listen /x"));
        for want in [
            "-o BatchMode=yes",
            "-p 2222",
            "-i /k",
            "-N",
            "-o ExitOnForwardFailure=yes",
            "-o StreamLocalBindUnlink=yes",
            "-o ServerAliveInterval=15",
            "-o ServerAliveCountMax=3",
            "-R /home/me/.local/share/vults/host/run/vults.sock:/run/u/vults/hosts/devbox.sock",
        ] {
            assert!(joined.contains(want), "{want} missing in {joined}");
        }
        assert_eq!(args.last().map(String::as_str), Some("me@devbox"));
        assert_eq!(args[args.len() - 2], "--");
    }
}
