//! What the engine tests share: a private home, an engine on it, a raw line client, and the
//! real `vults-hook` binary.
//!
//! The hook is another package's binary, so Cargo gives no `CARGO_BIN_EXE_` for it: the first
//! test that needs it runs `cargo build -p vults-hook` (same profile, same target folder — the
//! outer `cargo test` has released the build lock by the time tests run) and uses
//! `target/<profile>/vults-hook`.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use vults_core::paths::Paths;
use vults_engine::messages::EngineEvent;
use vults_engine::{Engine, EngineHandle, EngineOptions};

pub use vults_tests::{PATIENCE, eventually};

/// A temporary `VULTS_HOME`, removed when dropped.
pub struct Home {
    pub dir: PathBuf,
}

impl Home {
    pub fn new(name: &str) -> Home {
        // Short: a Unix socket path must stay under 108 bytes.
        let dir = PathBuf::from(format!("/tmp/vt-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Home { dir }
    }

    pub fn paths(&self) -> Paths {
        let dir = self.dir.clone();
        Paths::resolve(move |k| (k == "VULTS_HOME").then(|| dir.clone()))
    }

    /// Environment for a child process (hook or app) to use this home and nothing else.
    pub fn env(&self, cmd: &mut Command) {
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("VULTS_HOME", &self.dir)
            .env("HOME", self.dir.join("home"));
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
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

/// A raw client speaking lines, as a hand-made tool (or an attacker) would.
pub struct Client {
    reader: BufReader<UnixStream>,
    pub stream: UnixStream,
}

impl Client {
    pub fn connect(socket: &Path) -> Client {
        let stream = UnixStream::connect(socket).expect("connect");
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
        "kind": "event", "v": 9, "id": id, "agent": agent, "event": event,
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
