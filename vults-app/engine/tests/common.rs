//! What the engine tests share: a private home, an engine on it, a raw line client, and the
//! real `vults-hook` binary.
//!
//! The hook is another package's binary, so Cargo gives no `CARGO_BIN_EXE_` for it: the first
//! test that needs it runs `cargo build -p vults-hook` (same profile, same target folder — the
//! outer `cargo test` has released the build lock by the time tests run) and uses
//! `target/<profile>/vults-hook`.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use vults_core::paths::Paths;
use vults_core::protocol::VERSION;
use vults_engine::messages::EngineEvent;
use vults_engine::{Engine, EngineHandle, EngineOptions};

pub use vults_tests::{PATIENCE, TempHome, eventually};

/// A temporary `VULTS_HOME` with nothing in it yet (the engine makes its own folders, and
/// these tests check how), removed when dropped.
pub struct Home(TempHome);

impl Home {
    pub fn new(name: &str) -> Home {
        Home(TempHome::empty(name))
    }

    /// Environment for a child process (hook or app) to use this home and nothing else.
    pub fn env(&self, cmd: &mut Command) {
        self.0.isolate(cmd);
    }
}

impl std::ops::Deref for Home {
    type Target = TempHome;
    fn deref(&self) -> &TempHome {
        &self.0
    }
}

pub fn start(home: &Home, interactive: bool) -> EngineHandle {
    start_paths(home.paths(), interactive)
}

pub fn start_paths(paths: Paths, interactive: bool) -> EngineHandle {
    Engine::start_with(
        paths,
        Arc::new(|| {}),
        EngineOptions {
            interactive,
            ..EngineOptions::default()
        },
    )
    .expect("engine starts")
}

/// Reads events until one matches (returned) or [`PATIENCE`] runs out (`None`).
pub fn wait_for(
    engine: &EngineHandle,
    mut pred: impl FnMut(&EngineEvent) -> bool,
) -> Option<EngineEvent> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let left = deadline.checked_duration_since(Instant::now())?;
        match engine.events.recv_timeout(left) {
            Ok(ev) if pred(&ev) => return Some(ev),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
}

/// Every event that arrives within `d` (for "nothing of this kind happened").
pub fn drain_for(engine: &EngineHandle, d: Duration) -> Vec<EngineEvent> {
    let deadline = Instant::now() + d;
    let mut out = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match engine.events.recv_timeout(left) {
            Ok(ev) => out.push(ev),
            Err(_) => break,
        }
    }
    out
}

/// The connection to the app: a Unix socket, or on Windows the named pipe (opened as a file).
#[cfg(unix)]
pub type Stream = std::os::unix::net::UnixStream;
#[cfg(windows)]
pub type Stream = std::fs::File;

/// A raw client speaking lines, as a hand-made tool (or an attacker) would.
pub struct Client {
    reader: BufReader<Stream>,
    pub stream: Stream,
}

/// Connects to the app's socket or pipe; a pipe with every instance busy is tried again.
pub fn connect(socket: &Path) -> std::io::Result<Stream> {
    #[cfg(unix)]
    {
        Stream::connect(socket)
    }
    #[cfg(windows)]
    {
        const ERROR_PIPE_BUSY: i32 = 231;
        let deadline = Instant::now() + PATIENCE;
        loop {
            match std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(socket)
            {
                Err(e)
                    if e.raw_os_error() == Some(ERROR_PIPE_BUSY) && Instant::now() < deadline =>
                {
                    std::thread::sleep(Duration::from_millis(5))
                }
                other => return other,
            }
        }
    }
}

impl Client {
    pub fn connect(socket: &Path) -> Client {
        let stream = connect(socket).expect("connect");
        // A pipe opened as a file has no read timeout: the test's own bound is the hook's.
        #[cfg(unix)]
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        Client {
            reader: BufReader::new(stream.try_clone().unwrap()),
            stream,
        }
    }

    pub fn send(&mut self, line: &str) {
        self.stream.write_all(line.as_bytes()).unwrap();
        self.stream.write_all(b"\n").unwrap();
    }

    /// The next line, or `None` when the app closed the connection.
    pub fn recv(&mut self) -> Option<serde_json::Value> {
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) => None,
            Ok(_) => Some(serde_json::from_str(&line).expect("the app sends JSON lines")),
            Err(e) => panic!("reading from the app: {e}"),
        }
    }

    /// Whether the app closed the connection (reads to the end).
    pub fn closed(&mut self) -> bool {
        let mut rest = Vec::new();
        self.reader.read_to_end(&mut rest).is_ok() && rest.is_empty()
    }
}

/// An event line as `vults-hook` sends it.
pub fn event_line(
    id: &str,
    agent: &str,
    event: &str,
    wants_reply: bool,
    payload: serde_json::Value,
) -> String {
    serde_json::json!({
        "kind": "event", "v": VERSION, "id": id, "agent": agent, "event": event,
        "wants_reply": wants_reply,
        "terminal": {"cwd": "/work/proj", "pid": 4242},
        "payload": payload,
    })
    .to_string()
}

pub fn bash(session: &str, command: &str) -> serde_json::Value {
    serde_json::json!({"session_id": session, "cwd": "/work/proj", "hook_event_name": "PermissionRequest",
        "tool_name": "Bash", "tool_input": {"command": command}})
}

/// The real `vults-hook`, built once per test run.
pub fn hook_bin() -> &'static Path {
    vults_tests::built_hook_bin()
}

/// Starts `vults-hook <args>` on `home` with `stdin` written and closed.
pub fn hook(home: &Home, args: &[&str], stdin: &str) -> Child {
    let mut cmd = Command::new(hook_bin());
    home.env(&mut cmd);
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("vults-hook starts");
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).unwrap();
    drop(input);
    child
}

/// Waits for the hook and returns what it printed (trimmed). It must exit 0.
pub fn hook_output(child: Child) -> String {
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "vults-hook always exits 0; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}
