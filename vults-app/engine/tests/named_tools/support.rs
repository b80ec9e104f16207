//! What the named-tool tests share: a private home, an in-process engine on it, a watcher of
//! its events, the real `vults-hook` binary, and subprocesses that are always killed.
//!
//! The hook is another package's binary, so Cargo gives no `CARGO_BIN_EXE_` for it: the first
//! test that needs it runs `cargo build -p vults-hook` (same profile, same target folder — the
//! outer `cargo test` has released the build lock by the time tests run), as the engine tests do.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use vults_core::paths::Paths;
use vults_engine::messages::{
    AnsweredBy, AuditEntry, CardAnswer, EngineCommand, EngineEvent, PendingCard,
};
use vults_engine::{Engine, EngineHandle, EngineOptions};
use vults_tests::TempHome;

/// How long to wait for an engine event. Generous: the machine may be busy building; nothing
/// here measures time, a slow run only waits longer.
pub const PATIENCE: Duration = Duration::from_secs(30);
/// Every subprocess (script, node, hook) is killed after this: a hang fails the test instead
/// of stalling it. The hook's own deadline after `waiting` is far longer, so a hook that waits
/// when it should not is caught here.
pub const KILL_AFTER: Duration = Duration::from_secs(30);

/// A temporary `VULTS_HOME` ([`TempHome`]) with a project folder the tools run in; removed
/// when dropped.
pub struct Home {
    home: TempHome,
    pub dir: PathBuf,
    /// Where the tools run (their `cwd`, the card's folder).
    pub project: PathBuf,
}

impl Home {
    pub fn new(name: &str) -> Home {
        let home = TempHome::new(name);
        let (dir, project) = (home.dir.clone(), home.project());
        Home { home, dir, project }
    }

    pub fn paths(&self) -> Paths {
        self.home.paths()
    }

    /// A command for a child process that uses this home and nothing of the real one.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = self.home.command(program);
        cmd.env("VULTS_SOCKET", self.paths().socket);
        cmd
    }

    /// Writes the policy file (`docs/policies.md`).
    pub fn write_policies(&self, toml: &str) {
        let path = self.paths().policies_file();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, toml).unwrap();
    }
}

/// An interactive engine (someone answers cards: this test) on `home`'s socket.
pub fn start_engine(home: &Home) -> EngineHandle {
    Engine::start_with(
        home.paths(),
        Arc::new(|| {}),
        EngineOptions {
            interactive: true,
            ..EngineOptions::default()
        },
    )
    .expect("the engine starts")
}

/// Reads an engine's events and keeps every one it saw, for assertions over the whole run.
pub struct Watch<'a> {
    pub engine: &'a EngineHandle,
    pub seen: Vec<EngineEvent>,
}

impl<'a> Watch<'a> {
    pub fn new(engine: &'a EngineHandle) -> Watch<'a> {
        Watch {
            engine,
            seen: Vec::new(),
        }
    }

    /// The first event from now on that matches; panics with `what` after [`PATIENCE`].
    pub fn until(&mut self, what: &str, mut pred: impl FnMut(&EngineEvent) -> bool) -> EngineEvent {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                panic!("timed out waiting for {what}; seen: {:#?}", self.seen);
            };
            match self.engine.events.recv_timeout(left) {
                Ok(ev) => {
                    self.seen.push(ev.clone());
                    if pred(&ev) {
                        return ev;
                    }
                }
                Err(e) => panic!("waiting for {what}: {e}; seen: {:#?}", self.seen),
            }
        }
    }

    /// The next card; panics if it is not `identity`'s, or if an answer came without a card
    /// (a rule or a policy answered: every earlier answer's audit line was already read).
    pub fn card(&mut self, identity: &str) -> PendingCard {
        match self.until(&format!("a card for {identity}"), |e| match e {
            EngineEvent::Audited(v) => !v.is_empty(),
            EngineEvent::CardAdded(_) => true,
            _ => false,
        }) {
            EngineEvent::CardAdded(c) => {
                assert_eq!(
                    c.identity.key(),
                    identity,
                    "the card is {identity}'s: {c:#?}"
                );
                c
            }
            EngineEvent::Audited(v) => panic!("answered with no card for {identity}: {v:#?}"),
            _ => unreachable!(),
        }
    }

    /// The next audit line (a fresh home has no history); panics if a card comes first.
    pub fn audited(&mut self) -> AuditEntry {
        match self.until("an audit line or a card", |e| match e {
            EngineEvent::Audited(v) => !v.is_empty(),
            EngineEvent::CardAdded(_) => true,
            _ => false,
        }) {
            EngineEvent::Audited(v) => {
                assert_eq!(v.len(), 1, "one answer, one audit line: {v:#?}");
                v.into_iter().next().unwrap()
            }
            EngineEvent::CardAdded(c) => panic!("a card came up where none should: {c:#?}"),
            _ => unreachable!(),
        }
    }

    /// Answers a card as a click does.
    pub fn answer(&self, card: &PendingCard, answer: CardAnswer) {
        assert!(self.engine.send(EngineCommand::Answer {
            card: card.id,
            answer,
            by: AnsweredBy::Click,
        }));
    }

    /// Forces a policy reload and waits until it took `count` policies without an error.
    pub fn reload_policies(&mut self, count: usize) {
        assert!(self.engine.send(EngineCommand::ReloadPolicies));
        match self.until(
            "the policies to load",
            |e| matches!(e, EngineEvent::Policies(p) if p.count == count || p.error.is_some()),
        ) {
            EngineEvent::Policies(p) => {
                assert_eq!(p.error, None, "the policy file parses");
                assert_eq!(p.count, count);
            }
            _ => unreachable!(),
        }
    }
}

/// The real `vults-hook`, built once per test run.
pub fn hook_bin() -> &'static Path {
    vults_tests::built_hook_bin()
}

/// The repository's `examples/` folder.
pub fn examples_dir() -> PathBuf {
    vults_tests::workspace_root().join("examples")
}

/// A running subprocess in a process group of its own. Dropping it kills the whole group, so a
/// failed assertion never leaves a script, a node or a hook behind.
pub struct Proc {
    what: String,
    child: Option<Child>,
    out: Option<JoinHandle<Vec<u8>>>,
    err: Option<JoinHandle<Vec<u8>>>,
}

/// How a subprocess ended.
#[derive(Debug)]
pub struct Finished {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Finished {
    /// What it printed, trimmed.
    pub fn out(&self) -> &str {
        self.stdout.trim()
    }
}

fn drain(mut r: impl Read + Send + 'static) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        buf
    })
}

/// Starts `cmd` with `stdin` written and then closed.
pub fn spawn(what: &str, mut cmd: Command, stdin: &[u8]) -> Proc {
    cmd.process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("{what} does not start: {e}"));
    let mut input = child.stdin.take().unwrap();
    // Small inputs: they fit in the pipe whether or not the child ever reads them.
    let _ = input.write_all(stdin);
    drop(input);
    let out = drain(child.stdout.take().unwrap());
    let err = drain(child.stderr.take().unwrap());
    Proc {
        what: what.to_string(),
        child: Some(child),
        out: Some(out),
        err: Some(err),
    }
}

impl Proc {
    fn kill_group(&self, pid: u32) {
        // SAFETY: kill(2) with a negative pid signals the process group this test created.
        unsafe {
            libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
        }
    }

    /// Waits for it to exit, at most [`KILL_AFTER`]; a hang is killed and fails the test.
    pub fn finish(mut self) -> Finished {
        let mut child = self.child.take().unwrap();
        let deadline = Instant::now() + KILL_AFTER;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() >= deadline {
                self.kill_group(child.id());
                let _ = child.wait();
                panic!("{} hung and was killed", self.what);
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        // Whatever it left behind in its group (nothing, normally) must not hold the pipes.
        self.kill_group(child.id());
        let text = |h: Option<JoinHandle<Vec<u8>>>| {
            String::from_utf8_lossy(&h.unwrap().join().unwrap()).into_owned()
        };
        Finished {
            code: status.code(),
            stdout: text(self.out.take()),
            stderr: text(self.err.take()),
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            self.kill_group(child.id());
            let _ = child.wait();
        }
    }
}

/// `vults-hook <args>` on `home`, with `stdin`.
pub fn hook(home: &Home, args: &[&str], stdin: &str) -> Proc {
    let mut cmd = home.command(hook_bin());
    cmd.args(args);
    spawn(
        &format!("vults-hook {}", args.join(" ")),
        cmd,
        stdin.as_bytes(),
    )
}

/// Waits for a hook run: it must exit 0 (a hook always does).
pub fn hook_done(p: Proc) -> Finished {
    let f = p.finish();
    assert_eq!(f.code, Some(0), "vults-hook always exits 0: {f:#?}");
    f
}

/// Claude Code's PermissionRequest for a Bash command, as a named tool sends it.
pub fn bash_request(session: &str, cwd: &Path, command: &str) -> String {
    serde_json::json!({
        "session_id": session,
        "cwd": cwd,
        "hook_event_name": "PermissionRequest",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    })
    .to_string()
}

pub const ALLOW_VULTS: &str = r#"{"decision":"allow"}"#;
pub const DENY_VULTS: &str = r#"{"decision":"deny","reason":"Denied from Vults"}"#;
pub const ALLOW_CLAUDE: &str = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#;
