//! A week without a restart: the headless app gives back what its sessions took. It serves
//! bench/soak's load (the same code: `bench/soak/load.rs`) and its anonymous memory after 2,000
//! ended sessions may exceed that after 200 by no more than 10 MiB — a bound, not a timing: a
//! map or list that keeps something per session, call or connection passes it. The sessions are
//! lighter than the bench's (4 calls with 60-line patches, not 20 with 300) to keep the run
//! short on CI's two cores; what is kept per session does not depend on its size.
//! Linux only (/proc).

#![cfg(target_os = "linux")]

#[path = "../../bench/soak/load.rs"]
mod load;

use super::support::{app_bin, wait_until};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize};

const BOUND_KIB: u64 = 10 * 1024;
const SHAPE: load::Shape = load::Shape {
    calls: 4,
    patch_lines: 60,
};

fn audit_lines(home: &std::path::Path) -> usize {
    std::fs::read_to_string(home.join("data").join("audit.jsonl"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

#[test]
fn headless_memory_after_2000_sessions_stays_within_10_mib_of_that_after_200() {
    let home = vults_tests::TempHome::new("memory");
    load::write_rules(&home.dir).expect("the Always rule is written");
    let mut app = std::process::Command::new(app_bin())
        .arg("--headless")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("VULTS_HOME", &home.dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("vults-app --headless starts");
    let pid = app.id();
    let socket = home.dir.join("run").join("vults.sock");
    assert!(
        wait_until(30, || std::os::unix::net::UnixStream::connect(&socket)
            .is_ok()),
        "the headless app never served {}",
        socket.display()
    );
    let done = Arc::new(AtomicUsize::new(0));
    let events = Arc::new(AtomicU64::new(0));
    // Each session's request is answered by the rule and audited once delivered: the app has
    // handled a batch when its lines are all in the log.
    let batch = |from: usize, to: usize| {
        load::run(&socket, from, to, 4, SHAPE, &done, &events).expect("the load runs");
        assert!(
            wait_until(60, || audit_lines(&home.dir) >= to),
            "{} of {to} requests audited",
            audit_lines(&home.dir)
        );
        load::anon_kib(pid).expect("the app's memory is readable")
    };
    let after_200 = batch(0, 200);
    let after_2000 = batch(200, 2000);
    let _ = app.kill();
    let _ = app.wait();
    eprintln!("anonymous memory: {after_200} KiB after 200 sessions, {after_2000} KiB after 2000");
    assert!(
        after_2000 <= after_200 + BOUND_KIB,
        "the app kept {} KiB more after 2,000 ended sessions than after 200 ({after_200} → \
         {after_2000} KiB): something is kept per session",
        after_2000.saturating_sub(after_200)
    );
}
