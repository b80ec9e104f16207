//! SSH hosts' sockets (docs/hosts.md): each host's link forwards to a local socket of its own,
//! and the engine tags what arrives there with the host, so the card, the flock, the Always
//! rule and the audit say `host:/folder`, and a host's rule never answers this machine.

use crate::common::*;
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use vults_engine::messages::{AnsweredBy, CardAnswer, EngineCommand, EngineEvent, PendingCard};

const CLAUDE_ALLOW: &str = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#;

fn card_added(engine: &vults_engine::EngineHandle) -> PendingCard {
    match wait_for(engine, |e| matches!(e, EngineEvent::CardAdded(_))) {
        Some(EngineEvent::CardAdded(c)) => c,
        _ => panic!("no card came up"),
    }
}

/// The real hook, as a host's agent runs it: `VULTS_SOCKET` names the forwarded socket.
fn hook_on(home: &Home, socket: &std::path::Path, command: &str) -> std::process::Child {
    let mut cmd = Command::new(hook_bin());
    home.env(&mut cmd);
    cmd.env("VULTS_SOCKET", socket)
        .args(["--agent", "claude", "PermissionRequest"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("vults-hook starts");
    use std::io::Write;
    let mut input = child.stdin.take().unwrap();
    input
        .write_all(bash("s-h", command).to_string().as_bytes())
        .unwrap();
    drop(input);
    child
}

#[test]
fn a_hosts_socket_tags_its_calls_with_the_host_and_its_rules_stay_there() {
    let home = Home::new("hosts");
    let engine = start(&home, true);
    let hosts = engine.host_sockets();
    let listener = hosts.listen("devbox").expect("listens for devbox");
    let socket = hosts.socket_of("devbox");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&socket), 0o600, "the host's socket is the user's only");
    assert_eq!(mode(socket.parent().unwrap()), 0o700);
    assert!(
        hosts.listen("x").is_err(),
        "one letter is a drive, not a host"
    );

    // Through the host's socket: the card names the host, Always makes a host rule.
    let child = hook_on(&home, &socket, "make deploy");
    let card = card_added(&engine);
    assert_eq!(card.folder, "devbox:/work/proj");
    let rule = card.always_rule.clone().expect("an Always rule is offered");
    assert_eq!(rule.folder, "devbox:/work/proj");
    assert!(engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::AlwaysAllow,
        by: AnsweredBy::Click,
    }));
    assert_eq!(hook_output(child), CLAUDE_ALLOW);
    let audited = wait_for(
        &engine,
        |e| matches!(e, EngineEvent::Audited(l) if l.iter().any(|a| a.decision == "allow")),
    );
    match audited {
        Some(EngineEvent::Audited(l)) => {
            assert_eq!(l[0].folder, "devbox:/work/proj");
            assert_eq!(l[0].host.as_deref(), Some("devbox"));
        }
        _ => panic!("no audit line"),
    }

    // The host's rule answers the host's next call, without a card.
    let child = hook_on(&home, &socket, "make deploy");
    assert_eq!(hook_output(child), CLAUDE_ALLOW);

    // The same folder on this machine is another folder: a card, not the host's rule.
    let child = hook(
        &home,
        &["--agent", "claude", "PermissionRequest"],
        &bash("s-l", "make deploy").to_string(),
    );
    let card = card_added(&engine);
    assert_eq!(card.folder, "/work/proj");
    assert!(engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::Deny,
        by: AnsweredBy::Click,
    }));
    assert!(hook_output(child).contains("deny"));

    // The link's end closes: the socket goes, and the host's hook is silent at once.
    drop(listener);
    assert!(
        !socket.exists(),
        "the host's socket is removed with its listener"
    );
    let t0 = Instant::now();
    let child = hook_on(&home, &socket, "make deploy");
    assert_eq!(hook_output(child), "", "no socket: silence");
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
}

/// Connection ids are one counter for every socket: a host's connection closing never withdraws
/// the local card of the connection that has the same number on the local socket (each accept
/// loop counted from 1, so the host's first connection closing took the local first card down
/// and left its hook waiting with no card anywhere).
#[test]
fn a_host_connection_closing_never_withdraws_a_local_card() {
    let home = Home::new("connids");
    let engine = start(&home, true);
    let hosts = engine.host_sockets();
    let _listener = hosts.listen("devbox").expect("listens for devbox");
    let socket = hosts.socket_of("devbox");

    // The local socket's first connection: a card, its hook waiting.
    let local = hook(
        &home,
        &["--agent", "claude", "PermissionRequest"],
        &bash("s-l", "make local").to_string(),
    );
    let card = card_added(&engine);
    assert_eq!(card.folder, "/work/proj");

    // The host's socket's first connection comes and goes.
    let mut c = Client::connect(&socket);
    c.send(&event_line(
        "h1",
        "claude",
        "Stop",
        false,
        serde_json::json!({"session_id": "s-h"}),
    ));
    drop(c);
    let seen = drain_for(&engine, Duration::from_millis(800));
    assert!(
        !seen
            .iter()
            .any(|e| matches!(e, EngineEvent::CardRemoved { id, .. } if *id == card.id)),
        "the host's connection closing withdrew the local card: {seen:?}"
    );
    assert!(
        seen.iter().any(
            |e| matches!(e, EngineEvent::SessionChanged(s) if s.folder.starts_with("devbox:"))
        ),
        "the host's event arrived: {seen:?}"
    );
    assert!(engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::Allow,
        by: AnsweredBy::Click,
    }));
    assert_eq!(
        hook_output(local),
        CLAUDE_ALLOW,
        "the local hook got its answer"
    );
}
