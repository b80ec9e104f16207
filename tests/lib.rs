//! Helpers shared by the end-to-end tests: real binaries, a real Unix socket, temp homes.
//!
//! - [`TempHome`]: a fresh `VULTS_HOME` (and `HOME`) under the system temp folder, removed on
//!   drop; tests never touch the real home.
//! - [`TestServer`]: a scripted stand-in for the app on a real Unix socket. For every connection
//!   it reads the one event line, records it ([`Received`]) and plays the [`Script`]'s steps.
//! - [`run_hook`]: runs a `vults-hook` binary with a clean environment, feeds its stdin, kills it
//!   after a bound, and reports stdout, stderr and how long it took.
//! - [`hook_bin`]: where the hook binary is. Tests inside the `vults-hook` package pass
//!   `env!("CARGO_BIN_EXE_vults-hook")` instead (Cargo builds it for them); tests elsewhere find
//!   `target/<profile>/vults-hook` next to their own executable (run `cargo build -p vults-hook`
//!   first, or `cargo test --workspace`, which builds it), or `VULTS_HOOK_BIN` if set.
//!
//! - [`desktop`]: an X desktop of a test's own for the live desktop tests (`Xvfb` on a free
//!   display, openbox, the processes started on it, what `xprop`/`xdotool` say).
//!
//! - [`compositors`]: the desktops of the desktop matrix (openbox, mutter, sway, weston, KWin),
//!   each headless, with their own ways to read windows, click, type and take screenshots.
//!
//! Keep this crate's `[dependencies]` light: the hook's own tests depend on it.

#![warn(missing_docs)]

pub mod compositors;
pub mod desktop;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use vults_core::protocol::{self, Event, Message, ReadLine};

/// A temp folder used as `VULTS_HOME` (and as `HOME`), removed on drop: every test of the
/// workspace that needs a folder of its own makes it here (a crate's suite may wrap it to add
/// what only it needs).
///
/// Inside: `run/` (the socket), `home/` (the agents' `HOME`), `project/` (the folder the
/// agents and tools work in).
pub struct TempHome {
    /// The folder itself, used as `VULTS_HOME`: remove nothing in it by hand, the drop does.
    pub dir: PathBuf,
}

impl TempHome {
    /// Makes a fresh home under the system's temp folder, with `run/`, `home/` and `project/`
    /// in it; `label` (its first 12 characters) names it, so a leftover folder says which test
    /// made it.
    pub fn new(label: &str) -> TempHome {
        let home = TempHome::empty(label);
        for sub in ["run", "home", "project"] {
            std::fs::create_dir_all(home.dir.join(sub)).expect("temp home");
        }
        home
    }

    /// A home with nothing in it yet: for a test of how Vults makes its own folders (the
    /// socket's, with their modes).
    pub fn empty(label: &str) -> TempHome {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        // Short on purpose: a Unix socket path must stay under 104–108 bytes.
        let dir = std::env::temp_dir().join(format!(
            "vt-{}-{}-{n}",
            label.chars().take(12).collect::<String>(),
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp home");
        // The folder as a process sees it (a child's cwd is the real path, e.g. macOS /private;
        // not on Windows, where it would become a `\\?\` path).
        #[cfg(unix)]
        let dir = dir.canonicalize().unwrap_or(dir);
        TempHome { dir }
    }

    /// Leaves the folder on disk (for a look after the test) and gives its path.
    pub fn keep(self) -> PathBuf {
        let dir = self.dir.clone();
        std::mem::forget(self);
        dir
    }

    /// The agents' `HOME` inside it.
    pub fn home(&self) -> PathBuf {
        self.dir.join("home")
    }

    /// The project folder the agents and tools work in (their `cwd`, a card's folder).
    pub fn project(&self) -> PathBuf {
        self.dir.join("project")
    }

    /// Gives `cmd` this home and nothing of the real one: a cleared environment but `PATH`
    /// (and on Windows what a process needs to start), `VULTS_HOME`, `HOME`.
    pub fn isolate<'c>(&self, cmd: &'c mut std::process::Command) -> &'c mut std::process::Command {
        cmd.env_clear();
        for (k, v) in self.env() {
            cmd.env(k, v);
        }
        #[cfg(windows)]
        for k in [
            "SYSTEMROOT",
            "WINDIR",
            "TEMP",
            "TMP",
            "USERPROFILE",
            "APPDATA",
            "LOCALAPPDATA",
        ] {
            if let Some(v) = std::env::var_os(k) {
                cmd.env(k, v);
            }
        }
        cmd
    }

    /// A command for `program` that uses this home and nothing of the real one
    /// ([`TempHome::isolate`]), run in [`TempHome::project`].
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> std::process::Command {
        let mut cmd = std::process::Command::new(program);
        self.isolate(&mut cmd).current_dir(self.project());
        cmd
    }

    /// The socket path the hook derives from this `VULTS_HOME` (on Windows, the named pipe).
    pub fn socket(&self) -> PathBuf {
        let dir = self.dir.clone();
        vults_core::paths::Paths::resolve(move |k| (k == "VULTS_HOME").then(|| dir.clone())).socket
    }

    /// Where Vults keeps rules, policies, settings and devices under this home (`config/`).
    pub fn config_dir(&self) -> PathBuf {
        self.dir.join("config")
    }

    /// Every path Vults derives from this `VULTS_HOME`.
    pub fn paths(&self) -> vults_core::paths::Paths {
        let dir = self.dir.clone();
        vults_core::paths::Paths::resolve(move |k| (k == "VULTS_HOME").then(|| dir.clone()))
    }

    /// The environment a hook run gets: this home, and nothing from the real one.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("VULTS_HOME".into(), self.dir.display().to_string()),
            ("HOME".into(), self.dir.join("home").display().to_string()),
            ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
        ]
    }
}

impl Drop for TempHome {
    /// Removes the folder; a failing test leaves it for a look, and says where.
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("kept for a look: {}", self.dir.display());
            return;
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One step the scripted app plays after reading an event.
#[derive(Debug, Clone)]
pub enum Step {
    /// `waiting` for the event's id.
    Waiting,
    /// A decision for the event's id.
    Decide(protocol::Decision),
    /// Answers for the event's id.
    Answer(Vec<protocol::AnswerItem>),
    /// What a real app would send: answers (each question's first option) to a question,
    /// else this decision.
    Respond(protocol::Decision),
    /// `unsupported` for the event's id.
    Unsupported,
    /// A line as given; `{id}` is replaced with the event's id.
    Raw(String),
    /// Bytes as given, without a newline added.
    Bytes(Vec<u8>),
    /// Wait this long before the next step (an app slow to answer).
    Sleep(Duration),
    /// Keep the connection open without writing until the test ends (a frozen app).
    Hold,
}

/// What the scripted app plays for each event it reads.
#[derive(Debug, Clone, Default)]
pub struct Script {
    /// What to send, in order, on each connection.
    pub steps: Vec<Step>,
    /// Play the steps only when the event wants a reply (a real app never answers others).
    pub only_when_wanted: bool,
}

impl Script {
    /// Plays these steps on every event, whether it wants a reply or not.
    pub fn steps(steps: Vec<Step>) -> Script {
        Script {
            steps,
            only_when_wanted: false,
        }
    }
    /// Reads events and never writes.
    pub fn listen() -> Script {
        Script::default()
    }
    /// Answers every event that wants a reply with this decision (questions with the answers).
    pub fn decide(d: protocol::Decision) -> Script {
        Script {
            steps: vec![Step::Respond(d)],
            only_when_wanted: true,
        }
    }
}

/// An event line the scripted app read.
#[derive(Debug, Clone)]
pub struct Received {
    /// The line's length in bytes, newline included.
    pub len: usize,
    /// The line as read, without its newline.
    pub line: String,
    /// The event, when the line was one of this version.
    pub event: Option<Event>,
    /// When the whole line had been read.
    pub at: Instant,
}

/// A scripted app on a real Unix socket (on Windows, a real named pipe). Dropping it stops
/// accepting and removes the socket.
pub struct TestServer {
    /// Where the app listens: give it to the hook as `VULTS_SOCKET`.
    pub socket: PathBuf,
    received: Arc<Mutex<Vec<Received>>>,
    connections: Arc<AtomicU64>,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

#[cfg(unix)]
impl TestServer {
    /// A scripted app on a real Unix socket at `socket` (a file already there is replaced): it
    /// plays `script` for each event it reads, every connection on a thread of its own.
    pub fn start(socket: &Path, script: Script) -> TestServer {
        use std::os::unix::net::UnixListener;
        let _ = std::fs::remove_file(socket);
        if let Some(dir) = socket.parent() {
            std::fs::create_dir_all(dir).expect("socket dir");
        }
        let listener = UnixListener::bind(socket).expect("bind test socket");
        listener.set_nonblocking(true).expect("nonblocking");
        let received = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (r, c, s) = (received.clone(), connections.clone(), stop.clone());
        std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        c.fetch_add(1, Ordering::Relaxed);
                        let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
                        let (r, s, script) = (r.clone(), s.clone(), script.clone());
                        std::thread::spawn(move || serve(stream, &script, &r, &s));
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(2));
                    }
                    Err(_) => break,
                }
            }
        });
        TestServer {
            socket: socket.to_path_buf(),
            received,
            connections,
            stop,
        }
    }
}

#[cfg(windows)]
impl TestServer {
    /// A scripted app on a real named pipe (`\\.\pipe\…`, what [`TempHome::socket`] gives).
    ///
    /// Accepting blocks (a connect is always pending, as in the app): a client that connects,
    /// writes and leaves before a polling server looked would be dropped by Windows unread.
    /// Dropping the server wakes the accept with one empty connection.
    pub fn start(socket: &Path, script: Script) -> TestServer {
        use interprocess::local_socket::prelude::*;
        use interprocess::local_socket::{GenericFilePath, ListenerOptions};
        let name = socket
            .to_fs_name::<GenericFilePath>()
            .expect("a named pipe path");
        // Owned by this user, for this user alone, as the app makes its pipe: the hook refuses a
        // pipe owned by anyone else (an elevated process's default owner is Administrators).
        use interprocess::os::windows::local_socket::ListenerOptionsExt;
        use interprocess::os::windows::security_descriptor::SecurityDescriptor;
        let me = windows_sid::current_user();
        let sddl = widestring::U16CString::from_str(format!("O:{me}D:P(A;;GA;;;{me})"))
            .expect("an SDDL string");
        let listener = ListenerOptions::new()
            .name(name)
            .security_descriptor(SecurityDescriptor::deserialize(&sddl).expect("an SDDL"))
            .create_sync()
            .expect("create the test pipe");
        let received = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (r, c, s) = (received.clone(), connections.clone(), stop.clone());
        std::thread::spawn(move || {
            while let Ok(stream) = listener.accept() {
                if s.load(Ordering::Relaxed) {
                    break;
                }
                c.fetch_add(1, Ordering::Relaxed);
                let (r, s, script) = (r.clone(), s.clone(), script.clone());
                std::thread::spawn(move || serve(stream, &script, &r, &s));
            }
        });
        TestServer {
            socket: socket.to_path_buf(),
            received,
            connections,
            stop,
        }
    }
}

impl TestServer {
    /// Every event line read so far.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// How many connections were accepted.
    pub fn connections(&self) -> u64 {
        self.connections.load(Ordering::Relaxed)
    }

    /// Waits (up to `within`) for at least `n` events, then returns them.
    pub fn wait_for(&self, n: usize, within: Duration) -> Vec<Received> {
        let until = Instant::now() + within;
        loop {
            let got = self.received();
            if got.len() >= n || Instant::now() >= until {
                return got;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        #[cfg(unix)]
        let _ = std::fs::remove_file(&self.socket);
        // Wake the blocking accept, which then sees `stop`.
        #[cfg(windows)]
        let _ = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.socket);
    }
}

fn serve(
    mut stream: impl Read + Write,
    script: &Script,
    received: &Mutex<Vec<Received>>,
    stop: &std::sync::atomic::AtomicBool,
) {
    // Read the one event line (it may be up to 1 MiB; read whatever comes, up to 4 MiB).
    let mut buf = Vec::new();
    let mut chunk = [0u8; 64 * 1024];
    while !buf.contains(&b'\n') && buf.len() < 4 * 1024 * 1024 {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let len = buf
        .iter()
        .position(|b| *b == b'\n')
        .map_or(buf.len(), |p| p + 1);
    let line = String::from_utf8_lossy(&buf[..len]).trim_end().to_string();
    let event = match protocol::read_line(line.as_bytes()) {
        ReadLine::Message(Message::Event(e)) => Some(e),
        _ => None,
    };
    if let Ok(mut r) = received.lock() {
        r.push(Received {
            len,
            line: line.clone(),
            event: event.clone(),
            at: Instant::now(),
        });
    }
    let id = event.as_ref().map(|e| e.id.clone()).unwrap_or_default();
    if script.only_when_wanted && !event.as_ref().is_some_and(|e| e.wants_reply) {
        return;
    }
    let question = event.as_ref().is_some_and(Event::is_question);
    for step in &script.steps {
        let out = match step {
            Step::Waiting => Message::waiting(&id).to_line(),
            Step::Respond(_) if question => {
                Message::answer(&id, first_options(event.as_ref())).to_line()
            }
            Step::Respond(d) | Step::Decide(d) => Message::decision(&id, *d).to_line(),
            Step::Answer(a) => Message::answer(&id, a.clone()).to_line(),
            Step::Unsupported => Message::unsupported(&id).to_line(),
            Step::Raw(s) => format!("{}\n", s.replace("{id}", &id)),
            Step::Bytes(b) => {
                let _ = stream.write_all(b);
                continue;
            }
            Step::Sleep(d) => {
                std::thread::sleep(*d);
                continue;
            }
            Step::Hold => {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(20));
                }
                return;
            }
        };
        if stream.write_all(out.as_bytes()).is_err() {
            return;
        }
    }
}

fn first_options(event: Option<&Event>) -> Vec<protocol::AnswerItem> {
    let questions = event
        .and_then(|e| vults_core::agents::tool_input(&e.payload))
        .and_then(|i| i.get("questions").and_then(|q| q.as_array().cloned()))
        .unwrap_or_default();
    questions
        .iter()
        .map(|q| {
            let label = q
                .pointer("/options/0/label")
                .and_then(|l| l.as_str())
                .unwrap_or("yes");
            protocol::AnswerItem::One(label.to_string())
        })
        .collect()
}

/// How a hook run went.
#[derive(Debug)]
pub struct HookRun {
    /// All the hook printed on stdout: its one reply, or nothing.
    pub stdout: String,
    /// All the hook wrote on stderr.
    pub stderr: String,
    /// `None` when it had to be killed.
    pub code: Option<i32>,
    /// How long the run took, from just before the spawn.
    pub elapsed: Duration,
    /// When the run was seen to have ended.
    pub ended: Instant,
    /// Whether it overran its time limit and had to be killed.
    pub killed: bool,
}

/// What to feed a hook's stdin.
pub enum Stdin<'a> {
    /// These bytes, then close.
    Bytes(&'a [u8]),
    /// These bytes, and keep stdin open (an agent that never closes it).
    BytesThenHold(&'a [u8]),
}

/// Runs the hook with only `env` in its environment (plus nothing else from the test's), kills
/// it after `kill_after`.
pub fn run_hook(
    bin: &Path,
    args: &[&str],
    stdin: Stdin,
    env: &[(String, String)],
    kill_after: Duration,
) -> HookRun {
    let started = Instant::now();
    let mut child = Command::new(bin)
        .args(args)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn vults-hook");
    let (bytes, hold) = match stdin {
        Stdin::Bytes(b) => (b.to_vec(), false),
        Stdin::BytesThenHold(b) => (b.to_vec(), true),
    };
    let mut input = child.stdin.take().expect("stdin");
    let (hold_tx, hold_rx) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
        let _ = input.flush();
        if hold {
            // Keep the pipe open until the run is over.
            let _ = hold_rx.recv();
        }
    });
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let out_t = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let mut killed = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() >= kill_after => {
                killed = true;
                let _ = child.kill();
                break child.wait().ok();
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(_) => break None,
        }
    };
    let ended = Instant::now();
    let elapsed = ended - started;
    drop(hold_tx);
    let stdout = String::from_utf8_lossy(&out_t.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&err_t.join().unwrap_or_default()).into_owned();
    HookRun {
        stdout,
        stderr,
        code: status.and_then(|s| s.code()),
        elapsed,
        ended,
        killed,
    }
}

/// The `vults-hook` binary for tests outside its package (see the module docs).
pub fn hook_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("VULTS_HOOK_BIN") {
        return PathBuf::from(p);
    }
    // target/<profile>/deps/<test-exe> → target/<profile>/vults-hook
    let exe = std::env::current_exe().expect("current exe");
    let name = if cfg!(windows) {
        "vults-hook.exe"
    } else {
        "vults-hook"
    };
    exe.parent()
        .and_then(Path::parent)
        .map(|dir| dir.join(name))
        .expect("target folder")
}

/// The real `vults-hook` for tests outside its own package (Cargo gives them no
/// `CARGO_BIN_EXE_vults-hook`): brought up to date once per test process in the same target
/// folder and profile as the running test (the outer `cargo test` has released the build lock
/// by the time tests run; see `built_bin` for how), so it is never a stale binary. `VULTS_HOOK_BIN`
/// overrides it.
pub fn built_hook_bin() -> &'static Path {
    static BIN: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BIN.get_or_init(|| built_bin("vults-hook", "VULTS_HOOK_BIN"))
}

/// The real `vults-app` (the window, `--headless`, the command line), for tests outside its own
/// package, built as [`built_hook_bin`] builds the hook. `VULTS_APP_BIN` overrides it.
pub fn built_app_bin() -> &'static Path {
    static BIN: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BIN.get_or_init(|| built_bin("vults-app", "VULTS_APP_BIN"))
}

/// `<package>`'s binary (named as the package), built into the running test's target folder
/// and profile; `overridden_by` names the variable that points elsewhere.
fn built_bin(package: &str, overridden_by: &str) -> PathBuf {
    if let Some(p) = std::env::var_os(overridden_by) {
        return PathBuf::from(p);
    }
    let profile_dir = cargo_build(&["-p", package]);
    let bin = profile_dir.join(format!("{package}{}", std::env::consts::EXE_SUFFIX));
    assert!(bin.exists(), "{} was not built", bin.display());
    bin
}

/// `example` of `package` and the real `vults-hook`, built as [`built_hook_bin`] builds the
/// hook (the phone tests run the app as its `phone_e2e` examples); their paths, (example, hook).
pub fn built_example(package: &str, example: &str) -> (PathBuf, PathBuf) {
    let profile_dir = cargo_build(&["-p", "vults-hook", "-p", package, "--example", example]);
    let suffix = std::env::consts::EXE_SUFFIX;
    let example = profile_dir.join(format!("examples/{example}{suffix}"));
    let hook = profile_dir.join(format!("vults-hook{suffix}"));
    for built in [&example, &hook] {
        assert!(built.exists(), "{} was not built", built.display());
    }
    (example, hook)
}

/// Brings what `cargo build <build_args>` makes up to date in the running test's target folder
/// and profile; that profile's folder (`target/<profile>`).
///
/// Under `cargo test --workspace` (the README's `tests/run` without nextest) the build is `cargo
/// test --workspace --no-run` instead: the very build the outer run has just made (binaries and
/// examples included), so nothing is compiled again (it takes a third of a second) and the
/// binary is the one the other suites run. A `cargo build -p <package>` there would unify other
/// features (no dev-dependencies) and compile half the tree a second time, over the same files,
/// and the next suite's build would compile it back. Under `cargo nextest run --workspace`
/// (`tests/run`) that same build is done before any test starts, and every test is a process of
/// its own, so nothing is run at all: a third of a second in each of some two hundred processes
/// was a tenth of the run's CPU. Under anything else (`cargo test -p vults-engine`) it is the
/// `cargo build`, the least that brings the files up to date.
fn cargo_build(build_args: &[&str]) -> PathBuf {
    // target/<profile>/deps/<test-exe>
    let exe = std::env::current_exe().expect("current exe");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>")
        .to_path_buf();
    let outer = outer_run();
    if outer == OuterRun::NextestWorkspace {
        return profile_dir;
    }
    let release = profile_dir.file_name().is_some_and(|n| n == "release");
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace");
    let mut cmd = cargo();
    cmd.current_dir(workspace);
    if outer == OuterRun::CargoTestWorkspace {
        cmd.args(["test", "--workspace", "--no-run"]);
    } else {
        cmd.arg("build").args(build_args);
    }
    cmd.args(["--quiet", "--target-dir"])
        .arg(profile_dir.parent().expect("target folder"));
    if release {
        cmd.arg("--release");
    }
    let status = cmd.status().expect("cargo runs");
    assert!(status.success(), "cargo build {build_args:?} failed");
    profile_dir
}

/// Cargo, as the running test's own `cargo` (`$CARGO`), with the environment of the outer run:
/// what Cargo sets for the running test (its package's CARGO_MANIFEST_DIR, CARGO_PKG_*, …) is
/// taken out. ring's build script reruns when CARGO_MANIFEST_DIR changes, and with it everything
/// above ring, relinking the running test's own binary.
pub fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    for (key, _) in std::env::vars_os() {
        let k = key.to_string_lossy();
        if k.starts_with("CARGO_PKG_")
            || k.starts_with("CARGO_MANIFEST_")
            || [
                "CARGO_CRATE_NAME",
                "CARGO_PRIMARY_PACKAGE",
                "CARGO_TARGET_TMPDIR",
                "OUT_DIR",
            ]
            .contains(&k.as_ref())
        {
            cmd.env_remove(&key);
        }
    }
    cmd
}

/// What runs this test, as far as [`cargo_build`] cares.
#[derive(Debug, PartialEq, Eq)]
enum OuterRun {
    /// `cargo test --workspace` (or `--all`).
    CargoTestWorkspace,
    /// `cargo nextest run --workspace` (or `--all`): nextest's own process, the parent of every
    /// test it runs, built the whole workspace before the first test started.
    NextestWorkspace,
    /// Anything else: `cargo test -p …`, a test binary run by hand, not Linux.
    Other,
}

/// Which run this test is in: its parent process's command line says so (Linux; elsewhere,
/// [`OuterRun::Other`]).
fn outer_run() -> OuterRun {
    #[cfg(target_os = "linux")]
    {
        let parent = std::os::unix::process::parent_id();
        let Ok(cmdline) = std::fs::read(format!("/proc/{parent}/cmdline")) else {
            return OuterRun::Other;
        };
        let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
        if !args.iter().any(|a| *a == b"--workspace" || *a == b"--all") {
            return OuterRun::Other;
        }
        let mut words = args
            .iter()
            .skip(1)
            .filter(|a| !a.starts_with(b"-") && !a.starts_with(b"+"));
        match words.next() {
            Some(w) if *w == b"test" => OuterRun::CargoTestWorkspace,
            Some(w) if *w == b"nextest" && words.next() == Some(&&b"run"[..]) => {
                OuterRun::NextestWorkspace
            }
            _ => OuterRun::Other,
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        OuterRun::Other
    }
}

/// How long a test waits for something that should happen: generous, as the machine may be
/// busy building; nothing here measures time.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// Waits until `cond` holds, or panics with `what` after [`PATIENCE`].
pub fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The workspace's root folder (where `Cargo.toml`, `examples/`, `assets/` and `packaging/` are).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

/// The workspace's own packages as `cargo metadata --no-deps --offline` describes them (the
/// layering and errors tests read the crates and their edges from it).
pub fn workspace_metadata() -> serde_json::Value {
    let out = cargo()
        .current_dir(workspace_root())
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata's JSON")
}

/// A Rust file's code without its comment lines and the items marked `#[cfg(test)]` (a test
/// module, a test helper), wherever they stand: what the layering and errors tests read. An item ends at its `;` or at the brace that closes its
/// first `{`; braces in strings, characters and comments are not counted, so a test's `"{"`
/// does not hide what follows it.
pub fn code_of(text: &str) -> String {
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = String::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        rest = &rest[at + "#[cfg(test)]".len()..];
        let end = item_end(rest);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Where the item at the start of `code` ends (just after its `;` or its closing `}`), reading
/// past strings (`"…"`, `r#"…"#`, `b"…"`), characters (`'{'`, not lifetimes) and comments.
fn item_end(code: &str) -> usize {
    let b = code.as_bytes();
    let mut depth = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b';' if depth == 0 => return i + 1,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            b'r' if !code[..i].chars().next_back().is_some_and(is_ident)
                && matches!(b.get(i + 1), Some(b'"' | b'#')) =>
            {
                // A raw string: r"…", r#"…"#, …
                let hashes = b[i + 1..].iter().take_while(|c| **c == b'#').count();
                if b.get(i + 1 + hashes) == Some(&b'"') {
                    let close = format!("\"{}", "#".repeat(hashes));
                    let body = i + 2 + hashes;
                    i = code[body..]
                        .find(&close)
                        .map_or(b.len(), |e| body + e + close.len())
                        - 1;
                }
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'\'' => {
                // '{' or '\'' is a character; 'a (a lifetime, a label) is not.
                if b.get(i + 1) == Some(&b'\\') {
                    i += 3; // past the backslash and the character it escapes
                    while i < b.len() && b[i] != b'\'' {
                        i += 1;
                    }
                } else if let Some(c) = code[i + 1..].chars().next()
                    && code[i + 1 + c.len_utf8()..].starts_with('\'')
                {
                    i += c.len_utf8() + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// Whether `c` may stand in a Rust identifier.
pub fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The test data folder of vults-core (real agent payloads and golden fixtures).
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("vults-core")
        .join("tests")
        .join("fixtures")
}

/// Reads a fixture file by its path under [`fixtures_dir`].
pub fn fixture(rel: &str) -> Vec<u8> {
    let path = fixtures_dir().join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()))
}

/// A small deterministic PRNG (xorshift64*) for property tests: reproducible from its seed.
pub struct Prng(u64);

impl Prng {
    /// A generator started from `seed` (a zero seed is taken as 1).
    pub fn new(seed: u64) -> Prng {
        Prng(seed.max(1))
    }
    /// The next number of the sequence.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// `true` about `percent` times in a hundred.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    /// One of `items`, chosen evenly (`items` is not empty).
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
    /// `len` bytes of the sequence.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next_u64() as u8).collect()
    }
}

/// Parses a line the hook printed and says which agent shape it is in, if any.
pub fn reply_shape_of(line: &str) -> Option<&'static str> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    let o = v.as_object()?;
    let keys: HashMap<&str, &serde_json::Value> = o.iter().map(|(k, v)| (k.as_str(), v)).collect();
    if let Some(h) = keys.get("hookSpecificOutput") {
        let name = h.get("hookEventName")?.as_str()?;
        return match name {
            "PermissionRequest" => {
                let b = h.pointer("/decision/behavior")?.as_str()?;
                matches!(b, "allow" | "deny").then_some("hookSpecific")
            }
            "PreToolUse" => {
                let d = h.get("permissionDecision")?.as_str()?;
                matches!(d, "allow" | "deny").then_some("preToolUse")
            }
            _ => None,
        };
    }
    if keys.len() > 2 {
        return None;
    }
    if let Some(b) = keys.get("behavior") {
        return matches!(b.as_str()?, "allow" | "deny").then_some("flat");
    }
    if let Some(r) = keys.get("reply") {
        return matches!(r.as_str()?, "once" | "reject").then_some("opencode");
    }
    if let Some(a) = keys.get("answers") {
        return a
            .as_array()?
            .iter()
            .all(|x| {
                x.as_array()
                    .is_some_and(|l| l.iter().all(|s| s.is_string()))
            })
            .then_some("opencodeAnswers");
    }
    if let Some(d) = keys.get("decision") {
        return matches!(d.as_str()?, "allow" | "deny").then_some("vults");
    }
    None
}

/// This process's user as an SID string (`S-1-5-21-…`), from its token (Windows).
#[cfg(windows)]
pub mod windows_sid {
    use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, LocalFree};
    use windows_sys::Win32::Security::Authorization::ConvertSidToStringSidW;
    use windows_sys::Win32::Security::{GetTokenInformation, TOKEN_QUERY, TOKEN_USER, TokenUser};
    use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};

    /// The SID of the user this process runs as: the owner a pipe must have for the hook to
    /// trust it. Panics when the token cannot be read (a test cannot go on without it).
    pub fn current_user() -> String {
        // SAFETY: token and buffer handled as the API documents; the token is closed; the SID
        // string is NUL-terminated and freed with LocalFree.
        unsafe {
            let mut token: HANDLE = std::ptr::null_mut();
            assert!(OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &mut token) != 0);
            let mut buf = vec![0u64; 128];
            let mut len = 0u32;
            let ok = GetTokenInformation(
                token,
                TokenUser,
                buf.as_mut_ptr().cast(),
                (buf.len() * 8) as u32,
                &mut len,
            );
            CloseHandle(token);
            assert!(ok != 0, "{}", std::io::Error::last_os_error());
            let user = &*(buf.as_ptr() as *const TOKEN_USER);
            let mut text: *mut u16 = std::ptr::null_mut();
            assert!(ConvertSidToStringSidW(user.User.Sid, &mut text) != 0);
            let mut n = 0;
            while *text.add(n) != 0 {
                n += 1;
            }
            let sid = String::from_utf16_lossy(std::slice::from_raw_parts(text, n));
            LocalFree(text.cast());
            sid
        }
    }
}
