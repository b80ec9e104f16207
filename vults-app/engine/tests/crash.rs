//! Crash safety: `vults-app --headless --cards` killed with SIGKILL again and again while it
//! writes Always rules and audit lines. The rules file is always old-or-new and parses; the
//! audit log holds whole lines (a cut last line is dropped at the next start).

use crate::common::*;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use vults_core::rules::RuleSet;
use vults_engine::messages::AuditEntry;

const ROUNDS: usize = 8;

fn pseudo_random_ms(lo: u64, hi: u64) -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64;
    lo + nanos % (hi - lo)
}

/// Whole lines of the audit log, and whether a cut fragment follows them.
fn audit_lines(home: &Home) -> (Vec<AuditEntry>, bool) {
    let bytes = std::fs::read(home.paths().audit_log()).unwrap_or_default();
    let cut = !bytes.is_empty() && !bytes.ends_with(b"\n");
    let whole_end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let entries = bytes[..whole_end]
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            serde_json::from_slice::<AuditEntry>(l)
                .unwrap_or_else(|e| panic!("torn audit line ({e}): {}", String::from_utf8_lossy(l)))
        })
        .collect();
    (entries, cut)
}

fn spawn_app(home: &Home) -> std::process::Child {
    let mut cmd = Command::new(vults_tests::built_app_bin());
    home.env(&mut cmd);
    cmd.args(["--headless", "--cards"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("vults-app starts")
}

/// Asks for `command` and, when a card comes up, answers "always" on the app's console.
/// `None` once the app is gone.
fn ask(home: &Home, stdin: &mut std::process::ChildStdin, id: &str, command: &str) -> Option<()> {
    let mut c = std::os::unix::net::UnixStream::connect(home.paths().socket).ok()?;
    c.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let line = event_line(
        id,
        "claude",
        "PermissionRequest",
        true,
        bash("crash", command),
    );
    c.write_all(format!("{line}\n").as_bytes()).ok()?;
    let mut reader = std::io::BufReader::new(c);
    let mut reply = String::new();
    std::io::BufRead::read_line(&mut reader, &mut reply).ok()?;
    if reply.contains("\"waiting\"") {
        stdin.write_all(b"always\n").ok()?;
        reply.clear();
        std::io::BufRead::read_line(&mut reader, &mut reply).ok()?;
    }
    reply.contains("\"allow\"").then_some(())
}

#[test]
fn kill_9_during_rule_and_audit_writes_leaves_whole_files() {
    let home = Home::new("crash");
    let rules_path = home.paths().rules_file();
    let mut n = 0usize;
    for round in 0..ROUNDS {
        let mut app = spawn_app(&home);
        let mut stdin = app.stdin.take().unwrap();
        eventually("the app to listen", || {
            std::os::unix::net::UnixStream::connect(home.paths().socket).is_ok()
        });
        let pid = app.id();
        let delay = pseudo_random_ms(150, 700);
        let killer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(delay));
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        });
        // Each command twice: first a card answered "always" (a rule write and an audit
        // line), then the rule answers it (an audit line).
        while ask(
            &home,
            &mut stdin,
            &format!("{round}-{n}"),
            &format!("echo {}", n / 2),
        )
        .is_some()
        {
            n += 1;
        }
        killer.join().unwrap();
        let _ = app.wait();

        match RuleSet::load(&rules_path) {
            Ok((_, dropped)) => assert!(dropped.is_empty(), "{dropped:?}"),
            Err(e) => panic!("round {round}: the rules file is torn: {e}"),
        }
        audit_lines(&home); // panics on a torn line
    }
    // A clean start repairs a cut last line; everything written is whole.
    let mut app = spawn_app(&home);
    eventually("the app to listen", || {
        std::os::unix::net::UnixStream::connect(home.paths().socket).is_ok()
    });
    let _ = app.stdin.take().unwrap().write_all(b"quit\n");
    assert!(app.wait().unwrap().success());
    let (entries, cut) = audit_lines(&home);
    assert!(!cut, "the cut last line was dropped at start");
    let (rules, _) = RuleSet::load(&rules_path).unwrap();
    eprintln!(
        "crash: {ROUNDS} kills, {n} requests, {} rules and {} audit lines survived",
        rules.rules.len(),
        entries.len()
    );
    assert!(
        !rules.rules.is_empty() && !entries.is_empty(),
        "the loop wrote rules and audit lines"
    );
}

#[test]
fn headless_stops_on_sigterm_and_takes_its_socket_away() {
    // SIGTERM the moment the socket exists (a hook could connect from then on): the engine
    // stops cleanly every time, never killed by the signal's default action with its socket
    // left behind. Several rounds, since that moment is a race.
    for round in 0..8 {
        let home = Home::new(&format!("sigterm{round}"));
        let mut cmd = Command::new(vults_tests::built_app_bin());
        home.env(&mut cmd);
        let mut app = cmd
            .arg("--headless")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("vults-app starts");
        let socket = home.paths().socket;
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while !socket.exists() {
            assert!(
                std::time::Instant::now() < deadline,
                "the app never listened"
            );
            std::thread::yield_now();
        }
        let status = Command::new("kill")
            .args(["-TERM", &app.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        assert!(
            app.wait().unwrap().success(),
            "a clean exit (round {round})"
        );
        assert!(
            !socket.exists(),
            "no stale socket left behind (round {round})"
        );
    }
}
