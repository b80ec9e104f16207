//! Engine benchmark (numbers go to BENCHMARKS.md, "Engine").
//!
//! ```text
//! cargo build --release -p vults-hook
//! cargo run [--release] -p vults-engine --example engine_bench -- target/release/vults-hook
//! ```
//!
//! 1. events/s through the server: 64 threads, one connection per event as real hooks do,
//!    20,000 events, timed until the engine's core has handled the last one; then the same
//!    events pipelined on one connection.
//! 2. spawn-to-reply of `vults-hook` for a PermissionRequest an Always rule answers: spawn,
//!    write stdin, wait for the printed reply and the exit; 300 runs, median and p90 —
//!    interleaved with the same hook run where no app listens, to show its own cost.
//! 3. the socket round trip alone (connect, request, the rule's decision), no process spawn.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use vults_core::agents::read_tool_call;
use vults_core::paths::Paths;
use vults_core::protocol::{AgentKind, Identity};
use vults_core::rules::{AlwaysRule, RuleSet};
use vults_engine::{Engine, EngineOptions};

const EVENTS: usize = 20_000;
const CLIENTS: usize = 64;
const SPAWNS: usize = 300;

fn event(id: usize, session: usize) -> String {
    format!(
        "{{\"kind\":\"event\",\"v\":9,\"id\":\"{id}\",\"agent\":\"claude\",\"event\":\"PostToolUse\",\
         \"wants_reply\":false,\"terminal\":{{\"cwd\":\"/work/proj\",\"pid\":1}},\"payload\":{{\
         \"session_id\":\"bench-{session}\",\"tool_name\":\"Bash\",\"tool_input\":{{\"command\":\"echo {id}\"}}}}}}\n"
    )
}

/// One connection to the app, as `vults-hook` makes it (a Unix socket; a named pipe on Windows).
#[cfg(unix)]
fn connect(socket: &std::path::Path) -> std::io::Result<std::os::unix::net::UnixStream> {
    std::os::unix::net::UnixStream::connect(socket)
}

#[cfg(windows)]
fn connect(socket: &std::path::Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(socket)
}

fn wait_events(engine: &vults_engine::EngineHandle, n: u64) {
    while engine.stats().events < n {
        std::thread::sleep(Duration::from_micros(200));
    }
}

fn main() {
    let hook = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/release/vults-hook"));
    assert!(hook.exists(), "build the hook first: {}", hook.display());
    let home = PathBuf::from(format!("/tmp/vb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let dir = home.clone();
    let paths = Paths::resolve(move |k| (k == "VULTS_HOME").then(|| dir.clone()));

    // The Always rule the hook's request will meet.
    let payload = serde_json::json!({"session_id":"s","cwd":"/work/proj","tool_name":"Bash",
        "tool_input":{"command":"cargo test"}});
    let call = read_tool_call(&payload);
    let mut rules = RuleSet::default();
    rules.add(AlwaysRule::for_call(
        &Identity::Builtin(AgentKind::Claude),
        "/work/proj",
        &call,
        0,
    ));
    rules.save(&paths.rules_file()).expect("rules saved");

    let options = EngineOptions {
        interactive: false,
        ..EngineOptions::default()
    };
    let engine = Engine::start_with(paths.clone(), Arc::new(|| {}), options).expect("engine");
    // 1a. One connection per event.
    let start = Instant::now();
    let workers: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let socket = paths.socket.clone();
            std::thread::spawn(move || {
                for i in (c..EVENTS).step_by(CLIENTS) {
                    let mut s = connect(&socket).expect("connect");
                    s.write_all(event(i, c).as_bytes()).expect("write");
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    wait_events(&engine, EVENTS as u64);
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "events, one connection each, {CLIENTS} clients: {EVENTS} in {secs:.3} s = {:.0} events/s",
        EVENTS as f64 / secs
    );
    while engine.events.try_recv().is_ok() {}

    // 1b. Pipelined on one connection.
    let mut all = String::new();
    for i in 0..EVENTS {
        all.push_str(&event(i, i % CLIENTS));
    }
    let before = engine.stats().events;
    let start = Instant::now();
    let mut s = connect(&paths.socket).expect("connect");
    s.write_all(all.as_bytes()).expect("write");
    wait_events(&engine, before + EVENTS as u64);
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "events, pipelined on one connection: {EVENTS} in {secs:.3} s = {:.0} events/s",
        EVENTS as f64 / secs
    );
    drop(s);
    while engine.events.try_recv().is_ok() {}

    // 2. Spawn-to-reply, interleaved with the same hook run where no app listens (its own cost
    // on this machine at this moment: the difference is the socket round trip and the engine).
    let stdin = payload.to_string();
    let nowhere = home.join("no-app");
    let run_hook = |vults_home: &std::path::Path| {
        let start = Instant::now();
        let mut child = Command::new(&hook)
            .args(["--agent", "claude", "PermissionRequest"])
            .env_clear()
            .env("VULTS_HOME", vults_home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("hook");
        let mut input = child.stdin.take().unwrap();
        input.write_all(stdin.as_bytes()).unwrap();
        drop(input);
        let mut out = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        child.wait().unwrap();
        (start.elapsed(), out)
    };
    let mut with_rule = Vec::with_capacity(SPAWNS);
    let mut no_app = Vec::with_capacity(SPAWNS);
    for _ in 0..SPAWNS {
        let (t, out) = run_hook(&home);
        assert!(out.contains("\"allow\""), "the rule answered: {out:?}");
        with_rule.push(t);
        let (t, out) = run_hook(&nowhere);
        assert!(out.is_empty());
        no_app.push(t);
        while engine.events.try_recv().is_ok() {}
    }

    // 3. The round trip alone: connect, send the request, read the rule's decision.
    let request = format!(
        "{{\"kind\":\"event\",\"v\":9,\"id\":\"rt\",\"agent\":\"claude\",\"event\":\"PermissionRequest\",\
         \"wants_reply\":true,\"terminal\":{{\"cwd\":\"/work/proj\"}},\"payload\":{payload}}}\n"
    );
    let mut round_trip = Vec::with_capacity(SPAWNS);
    for _ in 0..SPAWNS {
        let start = Instant::now();
        let mut s = connect(&paths.socket).expect("connect");
        s.write_all(request.as_bytes()).unwrap();
        let mut reader = std::io::BufReader::new(s);
        let mut line = String::new();
        std::io::BufRead::read_line(&mut reader, &mut line).unwrap();
        round_trip.push(start.elapsed());
        assert!(line.contains("\"allow\""), "{line}");
        while engine.events.try_recv().is_ok() {}
    }
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let report = |what: &str, times: &mut Vec<Duration>| {
        times.sort();
        let n = times.len();
        eprintln!(
            "{what}, {n} runs: median {:.2} ms, p90 {:.2} ms, min {:.2} ms",
            ms(times[n / 2]),
            ms(times[n * 9 / 10]),
            ms(times[0])
        );
    };
    report("vults-hook spawn-to-reply, Always rule", &mut with_rule);
    report(
        "vults-hook with no app listening (its own cost)",
        &mut no_app,
    );
    report(
        "socket round trip alone (connect, request, decision)",
        &mut round_trip,
    );
    let stats = engine.stats();
    eprintln!("engine stats: {stats:?}");
    drop(engine);
    let _ = std::fs::remove_dir_all(&home);
}
