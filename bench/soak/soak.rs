//! bench/soak: the day-compressed load against a running Vults app (headless or the window), and
//! what /proc says of it. Built by bench/soak/run.sh with `rustc -O` (standard library only).
//!
//!   soak load <socket> <app-pid> [sessions=4000] [concurrency=16] [calls=20] [patch=300]
//!             [idle=60] [cpu=40] [rate=0: as fast as the app takes them, else events/s]
//!   soak probe <socket>        (started by `load`; stops at the end of its stdin)
//!   soak live <socket> <app-pid> [sessions=50] [minutes=10]
//!   soak audit-file <path> [lines=1000000]
//!   soak ping <socket>         (exit 0 when the Always rule answers)
//!
//! `load` prints the app's anonymous memory at start, after the first 100 sessions, at every
//! 10 %, at the end and after `idle` seconds of nothing; its CPU over the next `cpu` seconds;
//! the events per second; and the p50/p99 of the Always-rule round trip that a separate probe
//! process measured once every 10 ms while the load ran; and the CPU the load itself took
//! (on a small machine it competes with the app).

mod load;

use load::Shape;
use std::io::{BufRead, Read};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

fn arg(args: &[String], i: usize, default: usize) -> usize {
    args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default)
}

fn mib(kib: Option<u64>) -> String {
    kib.map(|k| format!("{:.1} MiB", k as f64 / 1024.0))
        .unwrap_or_else(|| "?".into())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("probe") => probe(PathBuf::from(&args[2])),
        Some("load") if args.len() >= 4 => soak(&args),
        Some("live") if args.len() >= 4 => live(&args),
        Some("audit-file") if args.len() >= 3 => audit_file(&args),
        Some("ping") if args.len() >= 3 => {
            let ok = load::ask_ruled(std::path::Path::new(&args[2]), "ping", "soak-ping").is_ok();
            std::process::exit(if ok { 0 } else { 1 });
        }
        _ => {
            eprintln!(
                "usage: soak load <socket> <app-pid> [sessions] [concurrency] [calls] [patch] [idle] [cpu]"
            );
            std::process::exit(2);
        }
    }
}

fn probe(socket: PathBuf) {
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    std::thread::spawn(move || {
        let mut sink = Vec::new();
        let _ = std::io::stdin().read_to_end(&mut sink);
        s.store(true, Ordering::Relaxed);
    });
    let mut times = load::probe(&socket, Duration::from_millis(10), &|| {
        stop.load(Ordering::Relaxed)
    });
    times.sort();
    let at = |q: f64| {
        times
            .get(((times.len() as f64 * q) as usize).min(times.len().saturating_sub(1)))
            .map(|d| d.as_secs_f64() * 1000.0)
            .unwrap_or(f64::NAN)
    };
    println!(
        "probe: Always-rule round trip over {} requests: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        times.len(),
        at(0.5),
        at(0.99),
        times
            .last()
            .map(|d| d.as_secs_f64() * 1000.0)
            .unwrap_or(f64::NAN)
    );
}

fn soak(args: &[String]) {
    let socket = PathBuf::from(&args[2]);
    let pid: u32 = args[3].parse().expect("the app's pid");
    let sessions = arg(args, 4, 4000);
    let concurrency = arg(args, 5, 16);
    let shape = Shape {
        calls: arg(args, 6, 20),
        patch_lines: arg(args, 7, 300),
    };
    let idle = arg(args, 8, 60);
    let cpu = arg(args, 9, 40);
    let rate = arg(args, 10, 0);
    let hz = 100.0; // USER_HZ on Linux
    println!(
        "load: {sessions} sessions, {concurrency} at a time, {} events each ({} calls, {}-line patches), {}",
        shape.events(),
        shape.calls,
        shape.patch_lines,
        if rate == 0 {
            "as fast as the app takes them".to_string()
        } else {
            format!("paced at {rate} events/s")
        }
    );
    println!("anon at start: {}", mib(load::anon_kib(pid)));

    let mut probe = Command::new(std::env::current_exe().expect("own path"))
        .arg("probe")
        .arg(&socket)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the probe starts");

    let done = Arc::new(AtomicUsize::new(0));
    let events = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let (app0, own0) = (load::cpu_ticks(pid), load::cpu_ticks(std::process::id()));
    let machine0 = load::machine_ticks();
    let runner = {
        let (socket, done, events) = (socket.clone(), done.clone(), events.clone());
        std::thread::spawn(move || {
            load::run_at(
                &socket,
                0,
                sessions,
                concurrency,
                shape,
                rate as f64,
                &done,
                &events,
            )
        })
    };
    let mut marks: Vec<usize> = vec![100.min(sessions)];
    marks.extend((1..=10).map(|t| sessions * t / 10));
    marks.sort();
    marks.dedup();
    let mut next = 0;
    while next < marks.len() {
        let d = done.load(Ordering::Relaxed);
        if d >= marks[next] {
            println!(
                "anon after {:>5} sessions: {} ({:.0} s, {:.0} events/s)",
                marks[next],
                mib(load::anon_kib(pid)),
                started.elapsed().as_secs_f64(),
                events.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64()
            );
            next += 1;
            continue;
        }
        if runner.is_finished() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let result = runner.join().expect("the load thread");
    let secs = started.elapsed().as_secs_f64();
    let (app1, own1) = (load::cpu_ticks(pid), load::cpu_ticks(std::process::id()));
    let machine1 = load::machine_ticks();
    let share = |a: Option<u64>, b: Option<u64>| match (a, b) {
        (Some(a), Some(b)) => format!("{:.0} %", (b - a) as f64 / hz / secs * 100.0),
        _ => "?".into(),
    };
    drop(probe.stdin.take());
    let mut said = String::new();
    if let Some(out) = probe.stdout.take() {
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            said.push_str(&line);
        }
    }
    let _ = probe.wait();
    if let Err(e) = result {
        eprintln!("the load stopped: {e}");
        std::process::exit(1);
    }
    let sent = events.load(Ordering::Relaxed);
    println!(
        "load done: {} sessions, {sent} events in {secs:.1} s = {:.0} events/s",
        done.load(Ordering::Relaxed),
        sent as f64 / secs
    );
    println!(
        "CPU during the load, of a core: the app {}, the load (without its probe) {}",
        share(app0, app1),
        share(own0, own1)
    );
    if let (Some((all0, steal0)), Some((all1, steal1))) = (machine0, machine1)
        && all1 > all0
    {
        println!(
            "CPU the hypervisor took (steal) during the load: {:.1} % of the machine's",
            (steal1 - steal0) as f64 / (all1 - all0) as f64 * 100.0
        );
    }
    println!("{said}");
    println!("anon at the end: {}", mib(load::anon_kib(pid)));
    std::thread::sleep(Duration::from_secs(idle as u64));
    println!("anon after {idle} s idle: {}", mib(load::anon_kib(pid)));
    let (a, t) = (load::cpu_ticks(pid), Instant::now());
    std::thread::sleep(Duration::from_secs(cpu as u64));
    let (b, s) = (load::cpu_ticks(pid), t.elapsed().as_secs_f64());
    match (a, b) {
        (Some(a), Some(b)) => println!(
            "idle CPU over {cpu} s: {:.2} % of a core",
            (b - a) as f64 / hz / s * 100.0
        ),
        _ => println!("idle CPU: the app is gone"),
    }
    println!("anon at the very end: {}", mib(load::anon_kib(pid)));
}

/// Writes an audit log of `lines` lines (as the engine writes them) for the start-up bench.
fn audit_file(args: &[String]) {
    use std::io::Write;
    let lines = arg(args, 3, 1_000_000);
    let f = std::fs::File::create(&args[2]).expect("the audit file");
    let mut w = std::io::BufWriter::new(f);
    let t0: u64 = 1_764_000_000_000;
    for i in 0..lines {
        writeln!(
            w,
            "{{\"time\":{},\"identity\":\"claude\",\"session\":\"soak-{:06}\",\"folder\":\"{}\",\
             \"tool\":\"Bash\",\"target\":\"cargo test --package part-{}\",\"decision\":\"allow\",\
             \"by\":\"rule:r-soak\"}}",
            t0 + i as u64 * 30_000,
            i / 10,
            load::FOLDER,
            i % 97
        )
        .expect("written");
    }
    w.flush().expect("written");
}

/// 50 sessions working at once, each sending an event a second (an Edit's PreToolUse, its
/// PostToolUse with a 300-line patch, and every tenth second the ruled request), for `minutes`;
/// the app's anonymous memory and CPU each minute.
fn live(args: &[String]) {
    let socket = PathBuf::from(&args[2]);
    let pid: u32 = args[3].parse().expect("the app's pid");
    let sessions = arg(args, 4, 50);
    let minutes = arg(args, 5, 10);
    let hz = 100.0;
    println!("live: {sessions} sessions, an event a second each, {minutes} minutes");
    let stop = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicU64::new(0));
    let workers: Vec<_> = (0..sessions)
        .map(|n| {
            let (socket, stop, sent) = (socket.clone(), stop.clone(), sent.clone());
            std::thread::spawn(move || {
                let mut tick = 0usize;
                let start = Instant::now();
                while !stop.load(Ordering::Relaxed) {
                    if load::live_event(&socket, n, tick).is_ok() {
                        sent.fetch_add(1, Ordering::Relaxed);
                    }
                    tick += 1;
                    // Each session on its own second, spread over the second.
                    let next =
                        start + Duration::from_millis(tick as u64 * 1000 + (n as u64 * 1000 / 50));
                    if let Some(wait) = next.checked_duration_since(Instant::now()) {
                        std::thread::sleep(wait);
                    }
                }
                let _ = load::end_session(&socket, n);
            })
        })
        .collect();
    println!("anon at start: {}", mib(load::anon_kib(pid)));
    for m in 1..=minutes {
        let (a, t) = (load::cpu_ticks(pid), Instant::now());
        std::thread::sleep(Duration::from_secs(60));
        let (b, s) = (load::cpu_ticks(pid), t.elapsed().as_secs_f64());
        let cpu = match (a, b) {
            (Some(a), Some(b)) => format!("{:.1} % of a core", (b - a) as f64 / hz / s * 100.0),
            _ => "?".into(),
        };
        println!(
            "minute {m:>2}: anon {}, CPU {cpu}, {} events so far",
            mib(load::anon_kib(pid)),
            sent.load(Ordering::Relaxed)
        );
    }
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        let _ = w.join();
    }
}
