//! One CLI process of the chat: started in a process group of its own (so a stop ends it and
//! everything it started — hooks, shells — with no orphan), stdout read line by line on a
//! thread that hands each line to the sink, stdin written by a thread of its own (a write never
//! blocks the engine), stderr kept (its last lines) for the note when it ends badly.

use super::conversation::ChatId;
use super::note::{Note, Sink};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// How long a stopped process gets to end on SIGTERM before SIGKILL.
pub const KILL_AFTER: Duration = Duration::from_secs(2);
/// How long an ended process's stderr is still read for its last words.
const STDERR_GRACE: Duration = Duration::from_millis(500);

/// One running CLI of a conversation: its stdin is written by a thread of its own, its stdout
/// and stderr read by two more.
pub struct Proc {
    /// Which start of the chat's CLI this is: a stopped one's late lines are told apart.
    pub run: u64,
    /// The process id (also its process group's).
    pub pid: u32,
    stdin: mpsc::Sender<String>,
    exited: Arc<AtomicBool>,
}

impl Proc {
    /// Starts `program` in `folder`; `env` is added to the app's, `remove` taken out of it.
    #[allow(clippy::too_many_arguments)]
    pub fn spawn(
        program: &Path,
        args: &[String],
        folder: &str,
        env: &[(String, String)],
        remove: &[&str],
        chat: ChatId,
        run: u64,
        sink: Sink,
    ) -> std::io::Result<Proc> {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .current_dir(folder)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for k in remove {
            cmd.env_remove(k);
        }
        cmd.envs(env.iter().map(|(k, v)| (k, v)));
        own_group(&mut cmd);
        let mut child = cmd.spawn()?;
        let pid = child.id();
        let (tx, rx) = mpsc::channel::<String>();
        let exited = Arc::new(AtomicBool::new(false));
        if let Some(mut stdin) = child.stdin.take() {
            std::thread::Builder::new()
                .name("zeca-stdin".into())
                .spawn(move || {
                    for line in rx {
                        if stdin
                            .write_all(line.as_bytes())
                            .and_then(|()| stdin.write_all(b"\n"))
                            .and_then(|()| stdin.flush())
                            .is_err()
                        {
                            break;
                        }
                    }
                    // Dropping stdin closes it: the CLI ends after its turn.
                })?;
        }
        let tail = Arc::new(Mutex::new(VecDeque::<String>::new()));
        // Says when stderr is read to its end, so the note on exit has the CLI's last words.
        let (stderr_done, stderr_read) = mpsc::channel::<()>();
        if let Some(stderr) = child.stderr.take() {
            let tail = tail.clone();
            std::thread::Builder::new()
                .name("zeca-stderr".into())
                .spawn(move || {
                    let _done = stderr_done;
                    for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                        tracing::debug!("zeca stderr: {line}");
                        if let Ok(mut t) = tail.lock() {
                            t.push_back(line);
                            if t.len() > 5 {
                                t.pop_front();
                            }
                        }
                    }
                })?;
        }
        let stdout = child.stdout.take();
        let done = exited.clone();
        std::thread::Builder::new()
            .name("zeca-stdout".into())
            .spawn(move || {
                if let Some(out) = stdout {
                    for line in BufReader::new(out).lines().map_while(Result::ok) {
                        if line.trim().is_empty() {
                            continue;
                        }
                        sink(Note::Line {
                            chat: chat.clone(),
                            run,
                            line,
                        });
                    }
                }
                let status = match child.wait() {
                    Ok(s) => s.to_string(),
                    Err(e) => format!("not known: {e}"),
                };
                // The process is gone, but its stderr may not be read to the end yet (a
                // process it left behind may even hold it open): wait a little, not forever.
                let _ = stderr_read.recv_timeout(STDERR_GRACE);
                done.store(true, Ordering::SeqCst);
                let tail: Vec<String> = tail
                    .lock()
                    .map(|t| t.iter().cloned().collect())
                    .unwrap_or_default();
                let status = if tail.is_empty() {
                    status
                } else {
                    format!("{status}: {}", tail.join(" / "))
                };
                sink(Note::Exited { chat, run, status });
            })?;
        Ok(Proc {
            run,
            pid,
            stdin: tx,
            exited,
        })
    }

    /// Queues one line for stdin; `false` when the writer has stopped.
    pub fn write(&self, line: String) -> bool {
        !self.exited.load(Ordering::SeqCst) && self.stdin.send(line).is_ok()
    }

    /// Ends the process and its whole group: SIGTERM, then SIGKILL after [`KILL_AFTER`]
    /// (Windows: `taskkill /T /F`, the tree).
    pub fn kill(&self) {
        kill_tree(self.pid, self.exited.clone());
    }
}

#[cfg(unix)]
fn own_group(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0);
}

#[cfg(not(unix))]
fn own_group(_cmd: &mut Command) {}

/// Ends the process group of `pid`: SIGTERM, then SIGKILL after [`KILL_AFTER`] (the group's
/// leader may be gone while its children live on).
#[cfg(unix)]
pub fn kill_tree(pid: u32, _exited: Arc<AtomicBool>) {
    let Ok(pgid) = libc::pid_t::try_from(pid) else {
        return;
    };
    // SAFETY: kill(2) on the process group we made for our own child; no memory is touched.
    unsafe { libc::kill(-pgid, libc::SIGTERM) };
    let _ = std::thread::Builder::new()
        .name("zeca-kill".into())
        .spawn(move || {
            std::thread::sleep(KILL_AFTER);
            // The group's leader may be gone while its children live on: the group is killed
            // whatever the leader did (a reaped leader's id is not reused while its group lives).
            // SAFETY: as above.
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
        });
}

/// Ends `pid` and every process it started (`taskkill /T /F`).
#[cfg(not(unix))]
pub fn kill_tree(pid: u32, _exited: Arc<AtomicBool>) {
    let _ = Command::new("taskkill")
        .args(["/T", "/F", "/PID", &pid.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
}
