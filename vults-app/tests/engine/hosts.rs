//! SSH hosts' sockets (docs/hosts.md): each host's link forwards to a local socket of its own,
//! and the engine tags what arrives there with the host, so the card, the flock, the Always
//! rule and the audit say `host:/folder`, and a host's rule never answers this machine.

use crate::common::*;
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use vults_app::model::{AnsweredBy, CardAnswer, EngineCommand, EngineEvent, PendingCard};

const CLAUDE_ALLOW: &str = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#;

fn card_added(engine: &vults_app::engine::EngineHandle) -> PendingCard {
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

/// The links follow `hosts.json` while the app runs (a `remote add` or `remove` in a terminal):
/// a host added gets its own local socket and a link that says why it is down; a host removed
/// loses both.
#[test]
fn the_links_follow_the_host_list_and_say_why_a_link_is_down() {
    use vults_app::remote::link::{LinkState, Links};
    use vults_app::remote::{Host, HostList};
    let home = Home::new("links");
    let engine = start(&home, true);
    let paths = home.paths();
    let links = Links::start(&paths, engine.host_sockets());
    assert!(links.statuses().is_empty());
    // A host whose ssh cannot connect (a proxy that exits at once): no network is touched.
    let mut host = Host::parse("me@devbox").unwrap();
    host.home = "/home/me".into();
    host.ssh_options = ["-F", "/dev/null", "-o", "ProxyCommand=false"]
        .map(String::from)
        .to_vec();
    let mut list = HostList::default();
    list.put(host);
    list.save(&paths).unwrap();
    let socket = engine.host_sockets().socket_of("devbox");
    eventually("the new host's link to say why it is down", || {
        matches!(
            links.statuses().get("devbox").map(|s| &s.state),
            Some(LinkState::Down { .. })
        )
    });
    assert!(socket.exists(), "the host's own local socket is there");
    let listed: Vec<String> = links.hosts().unwrap().into_iter().map(|h| h.name).collect();
    assert_eq!(
        listed,
        ["devbox"],
        "the window's list comes from the links, not a file read"
    );
    let state = links.statuses()["devbox"].state.clone();
    assert!(
        !state.label().is_empty() && state.label().starts_with("down ("),
        "{state:?}"
    );
    HostList::default().save(&paths).unwrap();
    eventually("the removed host's link to go", || {
        !links.statuses().contains_key("devbox")
    });
    assert!(!socket.exists(), "the removed host's local socket is gone");
}

/// The window repaints only when told: every change of a link's state wakes it (Settings →
/// Hosts showed `connecting` long after the link was up, until the mouse moved).
#[test]
fn a_links_state_change_wakes_the_window() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use vults_app::remote::link::{LinkState, Links};
    use vults_app::remote::{Host, HostList};
    let home = Home::new("links-wake");
    let engine = start(&home, true);
    let paths = home.paths();
    let wakes = Arc::new(AtomicUsize::new(0));
    let counted = wakes.clone();
    let links = Links::start_with_wake(
        &paths,
        engine.host_sockets(),
        Arc::new(move || {
            counted.fetch_add(1, Ordering::SeqCst);
        }),
    );
    let mut host = Host::parse("me@devbox").unwrap();
    host.home = "/home/me".into();
    host.ssh_options = ["-F", "/dev/null", "-o", "ProxyCommand=false"]
        .map(String::from)
        .to_vec();
    let mut list = HostList::default();
    list.put(host);
    list.save(&paths).unwrap();
    eventually("the new host's link to be down", || {
        matches!(
            links.statuses().get("devbox").map(|s| &s.state),
            Some(LinkState::Down { .. })
        )
    });
    let woken = wakes.load(Ordering::SeqCst);
    // The list read, `connecting`, then `down`: each one a wake.
    assert!(woken >= 3, "woken {woken} times");
    HostList::default().save(&paths).unwrap();
    eventually("the removed host's link to go", || {
        !links.statuses().contains_key("devbox")
    });
    assert!(
        wakes.load(Ordering::SeqCst) > woken,
        "removing a host wakes the window"
    );
}

/// Settings → Hosts tells a failed add from a done one (both were the same quiet grey line).
#[test]
fn a_failed_add_is_said_as_a_failure() {
    use std::sync::Arc;
    use vults_app::remote::background::{BackgroundHosts, HostsAction};
    let home = Home::new("hosts-fail");
    let engine = start(&home, true);
    let mut hosts = BackgroundHosts::start(home.paths(), engine.host_sockets(), Arc::new(|| {}));
    hosts.apply(HostsAction::Add {
        spec: "me@x".into(), // one letter: a drive, not a host
        ssh_options: String::new(),
    });
    eventually("the add to end", || {
        hosts.status().busy.is_none() && hosts.status().last.is_some()
    });
    let status = hosts.status();
    assert!(status.last_failed, "{status:?}");
    assert!(status.hosts.is_empty());
}

/// A host that cannot be reached cannot be removed (nothing on it can be edited): Settings then
/// offers to forget it, touching nothing on it, as `remote remove --forget` does (the window
/// only said to run that command).
#[test]
fn a_host_that_cannot_be_removed_can_be_forgotten_from_settings() {
    use std::sync::Arc;
    use vults_app::remote::background::{BackgroundHosts, HostsAction};
    use vults_app::remote::{Host, HostList};
    let home = Home::new("hosts-forget");
    let engine = start(&home, true);
    let paths = home.paths();
    let mut host = Host::parse("me@devbox").unwrap();
    host.home = "/home/me".into();
    host.ssh_options = ["-F", "/dev/null", "-o", "ProxyCommand=false"]
        .map(String::from)
        .to_vec();
    let mut list = HostList::default();
    list.put(host);
    list.save(&paths).unwrap();
    let mut hosts = BackgroundHosts::start(paths.clone(), engine.host_sockets(), Arc::new(|| {}));
    hosts.apply(HostsAction::Remove("devbox".into()));
    eventually("the remove to end", || {
        hosts.status().busy.is_none() && hosts.status().last.is_some()
    });
    let status = hosts.status();
    assert!(status.last_failed, "{status:?}");
    assert_eq!(status.offer_forget.as_deref(), Some("devbox"));
    hosts.apply(HostsAction::Forget("devbox".into()));
    eventually("the host to be forgotten", || {
        hosts.status().busy.is_none() && hosts.status().hosts.is_empty()
    });
    let status = hosts.status();
    assert!(!status.last_failed, "{status:?}");
    assert_eq!(status.offer_forget, None);
    assert!(HostList::load(&paths).unwrap().get("devbox").is_none());
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
