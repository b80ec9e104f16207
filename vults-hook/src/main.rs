//! `vults-hook`: the tiny binary every agent calls on its hook events.
//!
//! ```text
//! vults-hook --agent <name> [--reply vults] [--ask] [--statusline] <Event>
//! vults-hook --version      prints `vults-hook <version> (hook protocol 9)` on stdout
//! ```
//!
//! It reads the agent's JSON on stdin, builds a wire event ([`protocol::build_event`] does the
//! naming, shaping and `wants_reply` rules), hands it to the app over the local socket and, when
//! the event wants a reply, waits for it and prints it in the agent's own shape
//! ([`agents::render_decision`], [`agents::render_answers`]). What it owns is the I/O around that:
//! bounded reads, deadlines, the one stdout writer, and never failing the agent.
//!
//! Rules it keeps (CLAUDE.md rule 1; docs/hook-protocol.md §4 and §6):
//! - always exits 0; a panic is caught and prints nothing;
//! - stdout carries exactly one valid reply line, or nothing (silence is never an allow);
//!   with `--statusline`, exactly what the user's own status-line command printed, or nothing;
//! - stderr carries one line when the call is refused (bad flags, bad name, `--reply vults` with
//!   a built-in agent, input that is not a JSON object), and nothing else unless
//!   `VULTS_HOOK_DEBUG=1`.
//!
//! Time bounds (see also `vults_core::protocol::timeouts`). The hook does its I/O on the main
//! thread with plain blocking calls; one watchdog thread holds the current deadline and ends the
//! process silently when it passes (see [`watchdog`]). No hand-off between threads sits on the
//! hot path, which keeps a busy machine's scheduler out of the agent's wait.
//! - stdin: at most [`MAX_STDIN`] bytes, read for at most [`STDIN_WAIT`]; a TTY is not read. A
//!   complete JSON object ends the read even if the agent never closes stdin.
//! - connecting and writing the event: within [`protocol::WAITING_WITHIN_MS`].
//! - a reply: `waiting` or the answer within [`protocol::WAITING_WITHIN_MS`] of sending; after
//!   `waiting`, up to [`timeouts::PERMISSION_WAIT_S`] (590 s, for a 600 s hook entry) or, with
//!   `--ask`, [`timeouts::ASK_WAIT_S`] (110 s, for a 120 s entry), counted from the hook's
//!   start. `VULTS_HOOK_WAIT_S=<seconds>` overrides that deadline (tests, tools with a shorter
//!   hook timeout of their own).
//! - the user's status-line command: [`timeouts::STATUSLINE_COMMAND_S`].
//!
//! The user's own status line is read from `Paths::install_state_file()` (`install.json` in the
//! config folder), which the installer writes as
//! `{"claude":{"statusLine":{"type":"command","command":"…", …}}}` — the entry it replaced.

mod trust;

use std::io::{IsTerminal, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;
use vults_core::agents::{self, ReplyShape};
use vults_core::paths::Paths;
use vults_core::protocol::{
    self, Built, Event, HookArgs, HookContext, MAX_LINE, Message, ReadLine, timeouts,
};

/// The most of stdin the hook reads; an agent's payload is far smaller (the wire keeps 1 MiB).
const MAX_STDIN: usize = 8 * 1024 * 1024;
/// How long the hook waits for stdin to close (or to hold a whole JSON object).
const STDIN_WAIT: Duration = Duration::from_secs(3);
/// Within this long of sending, the app must say `waiting` or answer.
const WAITING_WITHIN: Duration = Duration::from_millis(protocol::WAITING_WITHIN_MS);

static DEBUG: AtomicBool = AtomicBool::new(false);

/// Logs to stderr only with `VULTS_HOOK_DEBUG=1`.
macro_rules! debug {
    ($($arg:tt)*) => {
        if $crate::DEBUG.load(::std::sync::atomic::Ordering::Relaxed) {
            eprintln!("vults-hook: {}", format_args!($($arg)*));
        }
    };
}

fn main() {
    let started = Instant::now();
    DEBUG.store(
        std::env::var_os("VULTS_HOOK_DEBUG").is_some_and(|v| v == "1"),
        Ordering::Relaxed,
    );
    // The default hook prints the panic on stderr; the agent may show that to the user as a
    // hook failure, so stay quiet unless debugging.
    std::panic::set_hook(Box::new(|info| debug!("panic: {info}")));
    watchdog::start();
    let _ = std::panic::catch_unwind(|| {
        if let Some(text) = run(started) {
            emit(&text);
        }
    });
    // Exit at once, whatever the watchdog thread is doing.
    std::process::exit(0);
}

/// The one place that writes to stdout. Everything the agent reads passes through here.
#[allow(clippy::print_stdout)] // the hook's only stdout writer, by design (see module docs)
fn emit(text: &str) {
    // Holding the watchdog keeps a deadline from cutting the line in half.
    let _held = watchdog::hold();
    print!("{text}");
    let _ = std::io::stdout().flush();
}

/// Says why the hook refused, on one stderr line; the agent goes on as if there were no hook.
fn refuse(why: &str) {
    eprintln!("vults-hook: {why}");
}

/// Everything the hook does; returns what to print.
fn run(started: Instant) -> Option<String> {
    // args_os: a non-UTF-8 argument is refused with a reason, not a panic.
    let argv: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    // A person (or a package test) asking which hook this is; no agent passes these.
    if let [only] = argv.as_slice()
        && (only == "--version" || only == "-V")
    {
        return Some(format!(
            "vults-hook {} (hook protocol {})\n",
            env!("CARGO_PKG_VERSION"),
            protocol::VERSION
        ));
    }
    let args = match HookArgs::parse(argv) {
        Ok(a) => a,
        Err(e) => {
            refuse(&format!(
                "{e} (usage: vults-hook --agent <name> [--reply vults] [--ask] [--statusline] <Event>)"
            ));
            return None;
        }
    };
    watchdog::set(Some(started + STDIN_WAIT));
    let stdin = read_stdin()?;
    watchdog::set(None);
    let ctx = HookContext {
        id: new_id(),
        pid: agent_pid(),
        own_cwd: std::env::current_dir()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default(),
        env: &|k| std::env::var(k).ok(),
    };
    let paths = Paths::from_env();
    let built = protocol::build_event(&args, &stdin, &ctx);
    if args.statusline {
        if let Built::Send(event) = built {
            let _ = send(&paths, &event, started);
        }
        // The command has its own bound, and is killed at it rather than left running.
        watchdog::set(None);
        return statusline::run_users_command(&paths, &stdin);
    }
    match built {
        Built::Nothing => None,
        Built::Refused(why) => {
            refuse(&why);
            None
        }
        Built::Send(event) => {
            let reply = send(&paths, &event, started)?;
            let shape = ReplyShape::of(event.agent, args.reply_vults)?;
            let text = match reply {
                Reply::Decision(d, message) => {
                    // A plan review is approved by echoing the plan the agent sent (its own,
                    // unshaped copy: the app saw it shaped) as updatedInput.
                    let original = original_payload(&stdin);
                    let plan_input = original
                        .as_ref()
                        .filter(|p| {
                            event.lifecycle() == agents::Lifecycle::Permission
                                && agents::plan_review(event.agent, p).is_some()
                        })
                        .and_then(|p| p.get("tool_input"));
                    let extras = agents::DecisionExtras {
                        feedback: message.as_deref(),
                        plan_input,
                    };
                    agents::render_decision_with(shape, event.is_question(), d, extras)
                }
                Reply::Answers(answers) => {
                    // Match the answers to the questions the agent really asked, not to the
                    // shaped copy the app saw (its strings may be cut).
                    let original = original_payload(&stdin)?;
                    agents::render_answers(shape, &original, &answers)?
                }
            };
            Some(text + "\n")
        }
    }
}

/// A reply the hook can print.
enum Reply {
    /// A decision, and a deny's words for the agent when the person wrote some (checked again
    /// when rendered: [`vults_core::answer::clean_feedback`]).
    Decision(protocol::Decision, Option<String>),
    Answers(Vec<protocol::AnswerItem>),
}

/// The agent's payload as it came (BOM stripped), for matching answers to questions.
fn original_payload(stdin: &[u8]) -> Option<Value> {
    serde_json::from_slice(vults_core::text::strip_bom(stdin)).ok()
}

/// The process that ran the hook: the agent (or the shell it ran the hook through, which most
/// shells replace by the hook itself). Unlike the hook's own pid it is the same for every event of
/// one agent process, so with the folder it can stand in for a session id, and "Show terminal"
/// walks up from it to the agent's terminal. On Windows no shell can replace itself by the hook:
/// the cmd, PowerShell or Git Bash an agent runs it through (Codex, Qwen, Copilot) is skipped, as
/// it ends with the hook.
fn agent_pid() -> u32 {
    #[cfg(unix)]
    return std::os::unix::process::parent_id();
    #[cfg(windows)]
    return windows_parent_pid().unwrap_or_else(std::process::id);
}

/// The parent's process id on Windows, from a process snapshot (Windows keeps it per process;
/// std has no call for it); the grandparent's when the parent is a shell that ran the hook.
#[cfg(windows)]
fn windows_parent_pid() -> Option<u32> {
    use std::ffi::c_void;
    #[repr(C)]
    struct ProcessEntry32W {
        size: u32,
        usage: u32,
        pid: u32,
        heap: usize,
        module: u32,
        threads: u32,
        parent: u32,
        priority: i32,
        flags: u32,
        exe: [u16; 260],
    }
    #[link(name = "kernel32")]
    unsafe extern "system" {
        fn CreateToolhelp32Snapshot(flags: u32, pid: u32) -> *mut c_void;
        fn Process32FirstW(snapshot: *mut c_void, entry: *mut ProcessEntry32W) -> i32;
        fn Process32NextW(snapshot: *mut c_void, entry: *mut ProcessEntry32W) -> i32;
        fn CloseHandle(handle: *mut c_void) -> i32;
    }
    const TH32CS_SNAPPROCESS: u32 = 0x2;
    let me = std::process::id();
    // SAFETY: the snapshot handle is checked and closed; the entry is sized as the API wants.
    unsafe {
        let snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
        if snapshot.is_null() || snapshot as isize == -1 {
            return None;
        }
        let mut entry: ProcessEntry32W = std::mem::zeroed();
        entry.size = std::mem::size_of::<ProcessEntry32W>() as u32;
        // (pid, parent, image name in lower case)
        let mut all: Vec<(u32, u32, String)> = Vec::new();
        let mut ok = Process32FirstW(snapshot, &mut entry);
        while ok != 0 {
            let len = entry
                .exe
                .iter()
                .position(|c| *c == 0)
                .unwrap_or(entry.exe.len());
            let name = String::from_utf16_lossy(&entry.exe[..len]).to_ascii_lowercase();
            all.push((entry.pid, entry.parent, name));
            ok = Process32NextW(snapshot, &mut entry);
        }
        CloseHandle(snapshot);
        let parent = all.iter().find(|p| p.0 == me)?.1;
        const SHELLS: &[&str] = &[
            "cmd.exe",
            "powershell.exe",
            "pwsh.exe",
            "bash.exe",
            "sh.exe",
        ];
        match all.iter().find(|p| p.0 == parent) {
            Some((_, grand, name))
                if SHELLS.contains(&name.as_str()) && all.iter().any(|p| p.0 == *grand) =>
            {
                Some(*grand)
            }
            _ => Some(parent),
        }
    }
}

/// An opaque id, unique per message: the time in nanoseconds and the hook's pid (one event per
/// process).
fn new_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("{nanos:x}-{:x}", std::process::id())
}

// ---------------------------------------------------------------------------------------------
// stdin
// ---------------------------------------------------------------------------------------------

/// Reads the agent's input, bounded in size (here) and time (the watchdog). `None`: give up.
fn read_stdin() -> Option<Vec<u8>> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        // Someone typed the command by hand: there is nothing to wait for.
        return Some(Vec::new());
    }
    let mut lock = stdin.lock();
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = match lock.read(&mut chunk) {
            Ok(0) => return Some(buf),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Some(buf),
        };
        buf.extend_from_slice(&chunk[..n]);
        if buf.len() > MAX_STDIN {
            refuse(&format!(
                "the agent's input is over {} MiB; ignored",
                MAX_STDIN >> 20
            ));
            return None;
        }
        // Some agents keep stdin open after writing: a whole object is enough.
        if ends_with_brace(&chunk[..n]) && is_whole_json(&buf) {
            return Some(buf);
        }
    }
}

fn ends_with_brace(chunk: &[u8]) -> bool {
    chunk
        .iter()
        .rev()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'}')
}

fn is_whole_json(buf: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(vults_core::text::strip_bom(buf)).is_ok()
}

// ---------------------------------------------------------------------------------------------
// The socket
// ---------------------------------------------------------------------------------------------

/// Sends the event; when it wants a reply, waits for one. `None`: nothing to print.
fn send(paths: &Paths, event: &Event, started: Instant) -> Option<Reply> {
    let line = Message::Event(event.clone()).to_line();
    // A frozen app whose listen queue is full blocks `connect`; one that never reads blocks a
    // big write. Both count as "no answer within 2 s".
    watchdog::set(Some(Instant::now() + WAITING_WITHIN));
    let mut conn = match connect(&paths.socket) {
        Ok(c) => c,
        Err(e) => {
            debug!("no app at {}: {e}", paths.socket.display());
            return None;
        }
    };
    if let Err(e) = conn.write_all(line.as_bytes()).and_then(|()| conn.flush()) {
        debug!("could not send the event: {e}");
        return None;
    }
    if !event.wants_reply {
        return None;
    }
    watchdog::set(Some(Instant::now() + WAITING_WITHIN));
    let mut lines = LineReader::new(conn);
    loop {
        let Some(line) = lines.next_line() else {
            debug!("the app closed the connection or sent a line over 1 MiB");
            return None;
        };
        let message = match protocol::read_line(&line) {
            ReadLine::Message(m) => m,
            other => {
                debug!("unreadable reply: {other:?}");
                return None;
            }
        };
        if message.id() != event.id {
            debug!("a reply for another id: {}", message.id());
            return None;
        }
        match message {
            Message::Waiting { .. } => {
                debug!("a person is being asked");
                watchdog::set(Some(started + wait_after_waiting(event)));
            }
            Message::Decision {
                decision, message, ..
            } => {
                // Words only ever go with a deny; the renderer bounds and cleans them.
                let message = message.filter(|_| decision == protocol::Decision::Deny);
                return Some(Reply::Decision(decision, message));
            }
            Message::Answer { answers, .. } => return Some(Reply::Answers(answers)),
            Message::Unsupported { .. } | Message::Event(_) => {
                debug!("the app cannot answer this event");
                return None;
            }
        }
    }
}

/// How long after its start the hook may wait once the app said `waiting`.
fn wait_after_waiting(event: &Event) -> Duration {
    let overridden = std::env::var("VULTS_HOOK_WAIT_S")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok());
    let secs = overridden.unwrap_or(if event.is_question() {
        timeouts::ASK_WAIT_S
    } else {
        timeouts::PERMISSION_WAIT_S
    });
    Duration::from_secs(secs)
}

/// The app's lines, each at most [`MAX_LINE`] bytes (newline included).
struct LineReader {
    conn: Conn,
    buf: Vec<u8>,
}

impl LineReader {
    fn new(conn: Conn) -> LineReader {
        LineReader {
            conn,
            buf: Vec::new(),
        }
    }

    /// The next line without its newline; `None` when the connection ends or fails, or the
    /// line is too long to be one the app may send.
    fn next_line(&mut self) -> Option<Vec<u8>> {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            if let Some(pos) = self.buf.iter().position(|b| *b == b'\n') {
                let mut line: Vec<u8> = self.buf.drain(..=pos).collect();
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Some(line);
            }
            if self.buf.len() >= MAX_LINE {
                return None;
            }
            match self.conn.read(&mut chunk) {
                Ok(0) => return None,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
    }
}

#[cfg(unix)]
type Conn = std::os::unix::net::UnixStream;

#[cfg(windows)]
type Conn = std::fs::File;

/// Connects to the app, and only to this user's own (see [`trust`]).
#[cfg(unix)]
fn connect(socket: &std::path::Path) -> std::io::Result<Conn> {
    trust::socket_path(socket)?;
    let stream = std::os::unix::net::UnixStream::connect(socket)?;
    trust::peer(&stream)?;
    Ok(stream)
}

/// Connects to the app's pipe, and only to this user's own app (see [`trust`]).
#[cfg(windows)]
fn connect(socket: &std::path::Path) -> std::io::Result<Conn> {
    // The app's named pipe (`\\.\pipe\vults-<user>`) opens like a file. Every instance busy
    // (ERROR_PIPE_BUSY: other hooks got there between the app's accept and its next instance)
    // is not "no app": wait for a free instance, within the 2 s rule (the watchdog bounds it
    // too).
    use std::os::windows::ffi::OsStrExt;
    const ERROR_PIPE_BUSY: i32 = 231;
    #[link(name = "kernel32")]
    unsafe extern "system" {
        fn WaitNamedPipeW(name: *const u16, timeout_ms: u32) -> i32;
    }
    let wide: Vec<u16> = socket.as_os_str().encode_wide().chain([0]).collect();
    let until = Instant::now() + WAITING_WITHIN;
    loop {
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(socket)
        {
            Err(e) if e.raw_os_error() == Some(ERROR_PIPE_BUSY) => {
                let left = until.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(e);
                }
                // SAFETY: a NUL-terminated UTF-16 name; the call only waits.
                unsafe { WaitNamedPipeW(wide.as_ptr(), left.as_millis().clamp(1, 2000) as u32) };
            }
            Ok(pipe) => {
                trust::pipe(&pipe)?;
                return Ok(pipe);
            }
            Err(e) => return Err(e),
        }
    }
}

mod watchdog {
    //! The hook's one deadline. Every blocking step (stdin, connect, write, each wait for the
    //! app) sets it before it starts; when it passes, the process ends at once with exit 0 and
    //! nothing on stdout — the same as giving up. [`hold`] keeps it from firing while the one
    //! reply line is being written.

    use std::sync::{Condvar, Mutex, MutexGuard};
    use std::time::Instant;

    static DEADLINE: Mutex<Option<Instant>> = Mutex::new(None);
    static CHANGED: Condvar = Condvar::new();

    fn lock() -> MutexGuard<'static, Option<Instant>> {
        DEADLINE.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn start() {
        std::thread::spawn(|| {
            let mut deadline = lock();
            loop {
                deadline = match *deadline {
                    None => CHANGED.wait(deadline).unwrap_or_else(|e| e.into_inner()),
                    Some(at) => {
                        let now = Instant::now();
                        if now >= at {
                            debug!("deadline passed; giving up");
                            // Exits holding the lock, so no reply can be half written.
                            std::process::exit(0);
                        }
                        CHANGED
                            .wait_timeout(deadline, at - now)
                            .map(|(g, _)| g)
                            .unwrap_or_else(|e| e.into_inner().0)
                    }
                };
            }
        });
    }

    /// Sets (or with `None`, clears) the deadline.
    pub fn set(at: Option<Instant>) {
        *lock() = at;
        CHANGED.notify_one();
    }

    /// Clears the deadline and keeps it clear while the guard lives.
    pub fn hold() -> MutexGuard<'static, Option<Instant>> {
        let mut g = lock();
        *g = None;
        g
    }
}

// ---------------------------------------------------------------------------------------------
// The status line
// ---------------------------------------------------------------------------------------------

mod statusline {
    //! Runs the user's own status-line command (saved by the installer) with the same stdin,
    //! bounded in time, and returns exactly what it printed.

    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    use std::sync::mpsc;
    use std::time::Duration;
    use vults_core::paths::Paths;
    use vults_core::protocol::timeouts;

    /// The user's command from `install.json`: `{"claude":{"statusLine":{"command":"…"}}}`.
    pub fn users_command(paths: &Paths) -> Option<String> {
        let text = std::fs::read(paths.install_state_file()).ok()?;
        let state: serde_json::Value = serde_json::from_slice(&text).ok()?;
        let command = state
            .get("claude")?
            .get("statusLine")?
            .get("command")?
            .as_str()?
            .trim();
        (!command.is_empty()).then(|| command.to_string())
    }

    pub fn run_users_command(paths: &Paths, stdin: &[u8]) -> Option<String> {
        let command = users_command(paths)?;
        let mut child = shell(&command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| debug!("cannot run the status line {command:?}: {e}"))
            .ok()?;
        if let Some(mut input) = child.stdin.take() {
            let bytes = stdin.to_vec();
            std::thread::spawn(move || {
                let _ = input.write_all(&bytes);
            });
        }
        let mut out = child.stdout.take()?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = out.read_to_end(&mut buf);
            let _ = tx.send(buf);
        });
        match rx.recv_timeout(Duration::from_secs(timeouts::STATUSLINE_COMMAND_S)) {
            Ok(buf) => {
                let _ = child.wait();
                Some(String::from_utf8_lossy(&buf).into_owned()).filter(|s| !s.is_empty())
            }
            Err(_) => {
                debug!("the status line {command:?} took too long");
                let _ = child.kill();
                let _ = child.wait();
                None
            }
        }
    }

    #[cfg(unix)]
    fn shell(command: &str) -> Command {
        let mut c = Command::new("sh");
        c.arg("-c").arg(command);
        c
    }

    #[cfg(windows)]
    fn shell(command: &str) -> Command {
        let mut c = Command::new("cmd");
        c.arg("/C").arg(command);
        c
    }
}
