//! The soak load, spoken on the wire (docs/hook-protocol.md): sessions of an agent as a day of
//! work sends them, one connection per event as `vults-hook` makes them, and the memory and CPU
//! of the app that serves them as /proc says. Standard library only, so `bench/soak/run.sh`
//! builds it with `rustc` alone and the app's memory test (`vults-app/tests/memory.rs`) uses the
//! very same load.
//!
//! One session: SessionStart, UserPromptSubmit, `calls` × (PreToolUse of an Edit, its
//! PostToolUse carrying a `patch_lines`-line `structuredPatch`, as the hook keeps it), one
//! PermissionRequest for `cargo test` that the Always rule of [`rules_file`] answers (the
//! decision is read back and checked), Stop, SessionEnd. Linux and macOS (a Unix socket).

#![allow(dead_code)] // the bench and the test each use their part

use std::io::{self, BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The folder every soak session works in; the Always rule is for it.
pub const FOLDER: &str = "/work/soak";
/// The command the Always rule allows.
pub const RULED: &str = "cargo test";

/// What one session sends.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// PreToolUse + PostToolUse pairs.
    pub calls: usize,
    /// Lines of each PostToolUse's `structuredPatch`.
    pub patch_lines: usize,
}

impl Shape {
    /// The load: 20 calls with a 300-line patch each.
    pub const DAY: Shape = Shape {
        calls: 20,
        patch_lines: 300,
    };

    /// Events one session sends.
    pub fn events(&self) -> usize {
        2 * self.calls + 5
    }
}

/// The rules file (`config/rules.json`) whose one rule allows [`RULED`] in [`FOLDER`].
pub fn rules_file() -> String {
    format!(
        "{{\"version\":1,\"rules\":[{{\"id\":\"r-soak\",\"identity\":\"claude\",\"folder\":\"{FOLDER}\",\
         \"tool\":\"Bash\",\"target\":\"{RULED}\",\"created\":0}}]}}\n"
    )
}

/// Writes the rules file under `vults_home` (as `VULTS_HOME` lays it out).
pub fn write_rules(vults_home: &Path) -> io::Result<()> {
    let config = vults_home.join("config");
    std::fs::create_dir_all(&config)?;
    std::fs::write(config.join("rules.json"), rules_file())
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// One event line. `payload` is the agent's JSON (already as the hook shapes it).
pub fn event_line(id: &str, event: &str, wants_reply: bool, payload: &str) -> String {
    format!(
        "{{\"kind\":\"event\",\"v\":9,\"id\":\"{id}\",\"agent\":\"claude\",\"event\":\"{event}\",\
         \"wants_reply\":{wants_reply},\"terminal\":{{\"cwd\":\"{FOLDER}\",\"pid\":4242,\
         \"env\":{{\"TERM_PROGRAM\":\"soak\"}}}},\"payload\":{payload}}}\n"
    )
}

fn base(session: &str, event: &str) -> String {
    format!(
        "\"session_id\":\"{session}\",\"cwd\":\"{FOLDER}\",\"hook_event_name\":\"{event}\",\
         \"permission_mode\":\"default\""
    )
}

/// A `structuredPatch` of `lines` lines in hunks of up to 50.
fn patch(file: &str, lines: usize, call: usize) -> String {
    let mut hunks = Vec::new();
    let mut done = 0;
    while done < lines {
        let n = (lines - done).min(50);
        let body: Vec<String> = (0..n)
            .map(|i| {
                let mark = if i % 2 == 0 { '-' } else { '+' };
                format!(
                    "\"{mark}    let value_{call}_{} = compute(\\\"{}\\\", {});\"",
                    done + i,
                    escape(file),
                    done + i
                )
            })
            .collect();
        hunks.push(format!(
            "{{\"oldStart\":{s},\"oldLines\":{h},\"newStart\":{s},\"newLines\":{h},\"lines\":[{}]}}",
            body.join(","),
            s = done + 1,
            h = n / 2
        ));
        done += n;
    }
    format!("[{}]", hunks.join(","))
}

thread_local! {
    /// The patches made so far, by (lines, call).
    static PATCHES: std::cell::RefCell<std::collections::HashMap<(usize, usize), Arc<str>>> =
        Default::default();
}

/// The `lines`-line patch of call `call`, made once per thread: every session's call `c` sends
/// the same one (of a file named for the call alone). Nothing in the app reads a tool's
/// response, so its text does not change the app's work, and making it for each event cost the
/// load more CPU than the app's parse of it.
fn made_patch(lines: usize, call: usize) -> Arc<str> {
    PATCHES.with(|p| {
        p.borrow_mut()
            .entry((lines, call))
            .or_insert_with(|| patch(&format!("{FOLDER}/src/mod_{call}.rs"), lines, call).into())
            .clone()
    })
}

fn send(socket: &Path, line: &str) -> io::Result<()> {
    let mut s = UnixStream::connect(socket)?;
    s.write_all(line.as_bytes())
}

/// Sends a request that wants a reply and reads the reply line.
pub fn ask(socket: &Path, line: &str) -> io::Result<String> {
    let mut s = UnixStream::connect(socket)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    s.write_all(line.as_bytes())?;
    let mut reply = String::new();
    BufReader::new(&s).read_line(&mut reply)?;
    Ok(reply)
}

/// The PermissionRequest the Always rule answers, for `session`.
pub fn ruled_request(id: &str, session: &str) -> String {
    event_line(
        id,
        "PermissionRequest",
        true,
        &format!(
            "{{{},\"tool_name\":\"Bash\",\"tool_input\":{{\"command\":\"{RULED}\",\
             \"description\":\"Run the tests\"}}}}",
            base(session, "PermissionRequest")
        ),
    )
}

/// Asks the ruled request and checks the rule's allow came back.
pub fn ask_ruled(socket: &Path, id: &str, session: &str) -> io::Result<()> {
    let reply = ask(socket, &ruled_request(id, session))?;
    if reply.contains("\"decision\":\"allow\"") && reply.contains(&format!("\"id\":\"{id}\"")) {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "the Always rule did not answer {id}: {reply:?}"
        )))
    }
}

/// Spaces events out to a rate shared by every load thread: event `k` of the run is sent no
/// earlier than `k / rate` seconds after the start (a thread that falls behind sends at once, so
/// an app or a machine slower than the rate gets the load as fast as it takes it).
pub struct Pace {
    start: Instant,
    every: Option<Duration>,
    next: AtomicU64,
}

impl Pace {
    /// `rate` events a second; 0 = as fast as the app takes them.
    pub fn new(rate: f64) -> Pace {
        Pace {
            start: Instant::now(),
            every: (rate > 0.0).then(|| Duration::from_secs_f64(1.0 / rate)),
            next: AtomicU64::new(0),
        }
    }

    /// Waits for the next event's turn.
    pub fn wait(&self) {
        let Some(every) = self.every else { return };
        let k = self.next.fetch_add(1, Ordering::Relaxed);
        let due = self.start + every.mul_f64(k as f64);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
}

/// One whole session, numbered `n`; returns the events sent.
pub fn session(socket: &Path, n: usize, shape: Shape) -> io::Result<usize> {
    session_paced(socket, n, shape, &Pace::new(0.0))
}

/// [`session`], each event sent at its turn of `pace`.
pub fn session_paced(socket: &Path, n: usize, shape: Shape, pace: &Pace) -> io::Result<usize> {
    let sid = format!("soak-{n:06}");
    let id = |k: &str| format!("{sid}-{k}");
    let send = |socket: &Path, line: &str| {
        pace.wait();
        send(socket, line)
    };
    send(
        socket,
        &event_line(
            &id("start"),
            "SessionStart",
            false,
            &format!("{{{},\"source\":\"startup\"}}", base(&sid, "SessionStart")),
        ),
    )?;
    send(
        socket,
        &event_line(
            &id("prompt"),
            "UserPromptSubmit",
            false,
            &format!(
                "{{{},\"prompt\":\"make the tests of part {n} pass\"}}",
                base(&sid, "UserPromptSubmit")
            ),
        ),
    )?;
    for c in 0..shape.calls {
        let file = format!("{FOLDER}/src/part_{n}/mod_{c}.rs");
        let input = format!(
            "{{\"file_path\":\"{file}\",\"old_string\":\"let a = {c};\",\"new_string\":\"let a = {};\"}}",
            c + 1
        );
        let tool_use = format!("toolu_{n}_{c}");
        send(
            socket,
            &event_line(
                &id(&format!("pre{c}")),
                "PreToolUse",
                false,
                &format!(
                    "{{{},\"tool_name\":\"Edit\",\"tool_input\":{input},\"tool_use_id\":\"{tool_use}\"}}",
                    base(&sid, "PreToolUse")
                ),
            ),
        )?;
        send(
            socket,
            &event_line(
                &id(&format!("post{c}")),
                "PostToolUse",
                false,
                &format!(
                    "{{{},\"tool_name\":\"Edit\",\"tool_input\":{input},\"tool_use_id\":\"{tool_use}\",\
                     \"tool_response\":{{\"structuredPatch\":{}}}}}",
                    base(&sid, "PostToolUse"),
                    made_patch(shape.patch_lines, c)
                ),
            ),
        )?;
    }
    pace.wait();
    ask_ruled(socket, &id("ask"), &sid)?;
    send(
        socket,
        &event_line(
            &id("stop"),
            "Stop",
            false,
            &format!("{{{},\"stop_hook_active\":false}}", base(&sid, "Stop")),
        ),
    )?;
    send(
        socket,
        &event_line(
            &id("end"),
            "SessionEnd",
            false,
            &format!("{{{},\"reason\":\"exit\"}}", base(&sid, "SessionEnd")),
        ),
    )?;
    Ok(shape.events())
}

/// Runs sessions `from..to` on `concurrency` threads. `done` counts whole sessions and `events`
/// the events sent, as they happen (the caller samples them). The first error stops the run.
pub fn run(
    socket: &Path,
    from: usize,
    to: usize,
    concurrency: usize,
    shape: Shape,
    done: &Arc<AtomicUsize>,
    events: &Arc<AtomicU64>,
) -> io::Result<()> {
    run_at(socket, from, to, concurrency, shape, 0.0, done, events)
}

/// [`run`] at `rate` events a second over all threads (0: as fast as the app takes them).
#[allow(clippy::too_many_arguments)] // run's, and the rate
pub fn run_at(
    socket: &Path,
    from: usize,
    to: usize,
    concurrency: usize,
    shape: Shape,
    rate: f64,
    done: &Arc<AtomicUsize>,
    events: &Arc<AtomicU64>,
) -> io::Result<()> {
    let next = Arc::new(AtomicUsize::new(from));
    let pace = Arc::new(Pace::new(rate));
    let workers: Vec<_> = (0..concurrency.max(1))
        .map(|_| {
            let (next, done, events, pace) =
                (next.clone(), done.clone(), events.clone(), pace.clone());
            let socket: PathBuf = socket.to_path_buf();
            std::thread::spawn(move || -> io::Result<()> {
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= to {
                        return Ok(());
                    }
                    let sent = session_paced(&socket, n, shape, &pace)?;
                    events.fetch_add(sent as u64, Ordering::Relaxed);
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    let mut result = Ok(());
    for w in workers {
        let r = w
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("a load thread panicked")));
        if result.is_ok() {
            result = r;
        }
    }
    result
}

/// A process's anonymous memory in KiB: `Anonymous` of /proc/<pid>/smaps_rollup, else
/// `RssAnon` of /proc/<pid>/status.
pub fn anon_kib(pid: u32) -> Option<u64> {
    let field = |file: &str, name: &str| -> Option<u64> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/{file}")).ok()?;
        text.lines()
            .find(|l| l.starts_with(name))?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    field("smaps_rollup", "Anonymous:").or_else(|| field("status", "RssAnon:"))
}

/// A process's CPU time so far (user + system), in clock ticks (/proc/<pid>/stat).
pub fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command name in parentheses: state is field 3, utime 14, stime 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

/// The machine's CPU time so far, in clock ticks (the first line of /proc/stat): all of it, and
/// what the hypervisor gave other guests (`steal`). A virtual machine's cores are not always its
/// own: the same build measured 2.4 times slower one afternoon than that evening, and the steal
/// during a load says which kind of run it was.
pub fn machine_ticks() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let f: Vec<u64> = stat
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .map_while(|n| n.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal (guest and guest_nice are inside user).
    Some((f.iter().take(8).sum(), *f.get(7)?))
}

/// The round trips of the ruled request, one every `every`, until `stop` returns true.
pub fn probe(socket: &Path, every: Duration, stop: &dyn Fn() -> bool) -> Vec<Duration> {
    let mut times = Vec::new();
    let mut i = 0u64;
    while !stop() {
        let t = Instant::now();
        if ask_ruled(socket, &format!("probe-{i}"), "soak-probe").is_ok() {
            times.push(t.elapsed());
        }
        i += 1;
        std::thread::sleep(every);
    }
    times
}

/// One event of a live session `n` at its second `tick`: SessionStart first, then an Edit's
/// PreToolUse and PostToolUse (300-line patch) in turn, and the ruled request every tenth.
pub fn live_event(socket: &Path, n: usize, tick: usize) -> io::Result<()> {
    let sid = format!("live-{n:03}");
    let id = format!("{sid}-{tick}");
    if tick == 0 {
        return send(
            socket,
            &event_line(
                &id,
                "SessionStart",
                false,
                &format!("{{{},\"source\":\"startup\"}}", base(&sid, "SessionStart")),
            ),
        );
    }
    if tick.is_multiple_of(10) {
        return ask_ruled(socket, &id, &sid);
    }
    let c = tick / 2;
    let file = format!("{FOLDER}/src/live_{n}/mod_{c}.rs");
    let input = format!(
        "{{\"file_path\":\"{file}\",\"old_string\":\"let a = {c};\",\"new_string\":\"let a = {};\"}}",
        c + 1
    );
    let (name, extra) = if !tick.is_multiple_of(2) {
        ("PreToolUse", String::new())
    } else {
        (
            "PostToolUse",
            format!(
                ",\"tool_response\":{{\"structuredPatch\":{}}}",
                patch(&file, 300, c)
            ),
        )
    };
    send(
        socket,
        &event_line(
            &id,
            name,
            false,
            &format!(
                "{{{},\"tool_name\":\"Edit\",\"tool_input\":{input},\"tool_use_id\":\"toolu_{n}_{c}\"{extra}}}",
                base(&sid, name)
            ),
        ),
    )
}

/// Ends live session `n`: Stop, then SessionEnd.
pub fn end_session(socket: &Path, n: usize) -> io::Result<()> {
    let sid = format!("live-{n:03}");
    for name in ["Stop", "SessionEnd"] {
        send(
            socket,
            &event_line(
                &format!("{sid}-{name}"),
                name,
                false,
                &format!("{{{}}}", base(&sid, name)),
            ),
        )?;
    }
    Ok(())
}
