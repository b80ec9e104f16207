//! The links while the app runs (docs/hosts.md): they follow `hosts.json`, say why a link is
//! down, wake the window on every change, and Settings → Hosts' add, remove and forget.

use std::sync::Arc;
use vults_engine::{Engine, EngineHandle};
use vults_tests::{TempHome, eventually};

fn start(home: &TempHome) -> EngineHandle {
    Engine::start(home.paths(), Arc::new(|| {})).expect("engine starts")
}

/// The links follow `hosts.json` while the app runs (a `remote add` or `remove` in a terminal):
/// a host added gets its own local socket and a link that says why it is down; a host removed
/// loses both.
#[test]
fn the_links_follow_the_host_list_and_say_why_a_link_is_down() {
    use vults_remote::link::{LinkState, Links};
    use vults_remote::{Host, HostList};
    let home = TempHome::new("links");
    let engine = start(&home);
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
    use std::sync::atomic::{AtomicUsize, Ordering};
    use vults_remote::link::{LinkState, Links};
    use vults_remote::{Host, HostList};
    let home = TempHome::new("links-wake");
    let engine = start(&home);
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
    use vults_remote::background::{BackgroundHosts, HostsAction};
    let home = TempHome::new("hosts-fail");
    let engine = start(&home);
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
    use vults_remote::background::{BackgroundHosts, HostsAction};
    use vults_remote::{Host, HostList};
    let home = TempHome::new("hosts-forget");
    let engine = start(&home);
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
