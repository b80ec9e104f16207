//! Notifications end to end: a real [`Notifier`] on its own thread, a private `dbus-daemon`,
//! and the stand-in server recording every `Notify` / `CloseNotification`.

use std::sync::mpsc::Receiver;
use std::time::Duration;

use vults_notify::quiet::{Day, QuietWhy, Schedule};
use vults_notify::test_support::{Call, Hint, NotificationServer, Portal, PortalCall, SessionBus};
use vults_notify::{
    AttentionSettings, Bus, Notice, NoticeAction, Notifier, NotifierConfig, NotifierEvent,
    SessionId, Support, What,
};

const ALL_CAPS: &[&str] = &["actions", "body", "sound", "persistence"];
const T: Duration = Duration::from_secs(10);

struct Rig {
    // Dropped in this order: the notifier, then the server, then the bus.
    notifier: Notifier,
    events: Receiver<NotifierEvent>,
    server: NotificationServer,
    _bus: SessionBus,
}

fn config(bus: &SessionBus, settings: AttentionSettings) -> NotifierConfig {
    let mut c = NotifierConfig::new("Vults");
    c.bus = Bus::Address(bus.address.clone());
    c.settings = settings;
    c.desktop_entry = Some("vults".into());
    c.time_zone = Some(jiff::tz::TimeZone::UTC);
    c.read_desktop_dnd = false;
    c
}

fn rig_with(test: &str, caps: &[&str], settings: AttentionSettings) -> Option<Rig> {
    let bus = SessionBus::start(test)?;
    let server = NotificationServer::start(&bus.address, caps);
    let (notifier, events) = Notifier::start(config(&bus, settings));
    wait_connected(&notifier);
    Some(Rig {
        notifier,
        events,
        server,
        _bus: bus,
    })
}

fn rig(test: &str) -> Option<Rig> {
    rig_with(test, ALL_CAPS, AttentionSettings::default())
}

fn wait_connected(n: &Notifier) {
    for _ in 0..500 {
        if n.capabilities().notifications.is_available() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("the notifier did not connect: {:?}", n.capabilities());
}

fn card(id: u64, target: &str, destructive: Option<&str>) -> Notice {
    Notice {
        agent: "Claude Code".into(),
        folder: "/home/ana/vults".into(),
        what: What::Card {
            card: id,
            tool: "Bash".into(),
            target: target.into(),
            destructive: destructive.map(Into::into),
            allow: destructive.is_none(),
        },
    }
}

fn done() -> Notice {
    Notice {
        agent: "Codex".into(),
        folder: "/home/ana/site".into(),
        what: What::TurnDone,
    }
}

fn sync(r: &Rig) {
    assert!(r.notifier.sync(T), "the notifier answers");
}

/// Every `Notify` and `CloseNotification`, as `dbus-monitor` would list them.
fn log(r: &Rig) -> Vec<String> {
    r.server
        .calls()
        .into_iter()
        .filter_map(|c| match c {
            Call::Notify(n) => Some(format!(
                "Notify replaces {} -> {}: {}",
                n.replaces_id, n.id, n.summary
            )),
            Call::Close(id) => Some(format!("Close {id}")),
            _ => None,
        })
        .collect()
}

fn next_action(r: &Rig) -> Option<NotifierEvent> {
    let deadline = std::time::Instant::now() + Duration::from_secs(3);
    while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
        match r.events.recv_timeout(left) {
            Ok(e @ (NotifierEvent::Action { .. } | NotifierEvent::Dismissed { .. })) => {
                return Some(e);
            }
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    None
}

#[test]
fn one_notification_per_session_replaced_not_stacked() {
    let Some(r) = rig("one_per_session") else {
        return;
    };
    let a = SessionId::from("claude/a");
    r.notifier.show(a.clone(), card(1, "cargo test", None));
    r.notifier.show(a.clone(), card(1, "cargo test", None));
    sync(&r);
    r.notifier.show(a.clone(), card(2, "cargo build", None));
    r.notifier.show(SessionId::from("codex/b"), done());
    sync(&r);
    assert_eq!(
        log(&r),
        [
            "Notify replaces 0 -> 1: Claude Code asks: Bash",
            "Notify replaces 1 -> 1: Claude Code asks: Bash",
            "Notify replaces 0 -> 2: Codex is done — waiting for you",
        ]
    );
    assert_eq!(r.server.open(), [1, 2], "two sessions, two notifications");
    let n = r.server.notifies();
    assert_eq!(n[0].app_name, "Vults");
    assert_eq!(n[0].body, "cargo test\nin /home/ana/vults");
    assert_eq!(n[1].body, "cargo build\nin /home/ana/vults");
    assert_eq!(n[0].expire_timeout, 0, "a card stays until it is answered");
    assert_eq!(n[2].expire_timeout, -1);
    assert_eq!(n[2].body, "in /home/ana/site");
    assert_eq!(
        n[0].hints.get("desktop-entry"),
        Some(&Hint::Str("vults".into()))
    );
    assert_eq!(
        n[0].hints.get("category"),
        Some(&Hint::Str("x-vults.card".into()))
    );
    assert_eq!(
        n[2].hints.get("category"),
        Some(&Hint::Str("x-vults.done".into()))
    );
}

#[test]
fn withdrawn_when_answered_anywhere() {
    let Some(r) = rig("withdrawn") else { return };
    let a = SessionId::from("a");
    let b = SessionId::from("b");
    r.notifier.show(a.clone(), card(1, "ls", None));
    r.notifier.show(b.clone(), card(2, "pwd", None));
    sync(&r);
    r.notifier.withdraw(a.clone());
    r.notifier.withdraw(a.clone());
    sync(&r);
    assert_eq!(r.server.closes(), [1], "closed once");
    assert_eq!(r.server.open(), [2]);
    // Withdrawn before the server answered the Notify: the id it returns is closed.
    r.notifier.show(a.clone(), card(3, "id", None));
    r.notifier.withdraw(a.clone());
    sync(&r);
    assert_eq!(r.server.open(), [2]);
    // Quitting withdraws what is left.
    let Rig {
        notifier,
        server,
        _bus,
        ..
    } = r;
    drop(notifier);
    assert_eq!(server.open(), Vec::<u32>::new());
    assert_eq!(server.closes().last(), Some(&2));
}

#[test]
fn actions_only_where_allowed_and_they_come_back_typed() {
    let Some(r) = rig("actions") else { return };
    let a = SessionId::from("a");
    r.notifier.show(a.clone(), card(1, "cargo test", None));
    sync(&r);
    let n = r.server.notifies().pop().unwrap();
    assert_eq!(n.action_labels(), ["Show", "Allow", "Deny"]);
    assert_eq!(n.action_keys()[0], "default");
    let allow = n.key_of("Allow").unwrap().to_string();
    r.server.invoke(n.id, &allow);
    assert_eq!(
        next_action(&r),
        Some(NotifierEvent::Action {
            session: a.clone(),
            action: NoticeAction::Allow(1)
        })
    );
    r.server.invoke(n.id, "default");
    assert_eq!(
        next_action(&r),
        Some(NotifierEvent::Action {
            session: a.clone(),
            action: NoticeAction::Show { card: Some(1) }
        })
    );
    // A key it did not send (another process guessing) is no answer.
    r.server
        .invoke(n.id, "allow.00000000000000000000000000000000");
    r.server.invoke(n.id, "allow");
    assert_eq!(next_action(&r), None);

    // Destructive: Show only, so no key can allow it.
    r.notifier
        .show(a.clone(), card(2, "rm -rf target", Some("rm -r")));
    sync(&r);
    let n = r.server.notifies().pop().unwrap();
    assert_eq!(n.action_labels(), ["Show"]);
    assert!(
        n.body
            .contains("Destructive (rm -r): answer it on its card.")
    );
    r.server.invoke(n.id, &allow);
    assert_eq!(
        next_action(&r),
        None,
        "the old card's Allow does not carry over"
    );
    // A target too long to show whole: Show only.
    r.notifier.show(a.clone(), card(3, &"x".repeat(500), None));
    sync(&r);
    assert_eq!(r.server.notifies().pop().unwrap().action_labels(), ["Show"]);
}

/// A target the card writes out (`‹U+1D173›`: a musical beam that draws as nothing) is written
/// out alike in the notification the server gets, which then offers no Allow.
#[test]
fn a_hidden_character_is_written_as_the_card_writes_it_and_offers_no_allow() {
    let Some(r) = rig("hidden") else { return };
    r.notifier.show(
        SessionId::from("a"),
        card(1, "cat /tmp/notes\u{1D173}.txt", None),
    );
    sync(&r);
    let n = r.server.notifies().pop().unwrap();
    assert!(
        n.body.starts_with("cat /tmp/notes‹U+1D173›.txt\n"),
        "{}",
        n.body
    );
    assert!(!n.body.contains('\u{1D173}'), "{}", n.body);
    assert_eq!(n.action_labels(), ["Show"]);
}

#[test]
fn no_actions_when_the_server_has_none() {
    let Some(r) = rig_with("no_actions", &["body"], AttentionSettings::default()) else {
        return;
    };
    r.notifier.show(SessionId::from("a"), card(1, "ls", None));
    sync(&r);
    let n = r.server.notifies();
    assert_eq!(n.len(), 1);
    assert!(n[0].actions.is_empty());
    let caps = r.notifier.capabilities();
    assert!(!caps.actions && !caps.sound && caps.replace && caps.withdraw);
    assert_eq!(
        caps.notifications,
        Support::Available("stand-in 1.0 (vults-tests), spec 1.2".into())
    );
}

#[test]
fn the_sound_hint_follows_each_kinds_switch() {
    let Some(r) = rig("sound") else { return };
    r.notifier.show(SessionId::from("a"), card(1, "ls", None));
    sync(&r);
    let mut s = AttentionSettings::default();
    s.notifications.sound.card = true;
    r.notifier.set_settings(s);
    r.notifier.show(SessionId::from("b"), card(2, "pwd", None));
    r.notifier.show(SessionId::from("c"), done());
    sync(&r);
    let n = r.server.notifies();
    assert_eq!(
        n.len(),
        3,
        "a sound setting does not raise again what is on screen"
    );
    assert_eq!(n[0].hints.get("sound-name"), None);
    assert_eq!(n[0].hints.get("suppress-sound"), Some(&Hint::Bool(true)));
    assert_eq!(
        n[1].hints.get("sound-name"),
        Some(&Hint::Str("message-new-instant".into()))
    );
    assert_eq!(n[1].hints.get("suppress-sound"), None);
    assert_eq!(
        n[2].hints.get("sound-name"),
        None,
        "finished turns stay silent"
    );
}

fn all_day() -> Schedule {
    Schedule {
        enabled: true,
        days: Day::ALL.to_vec(),
        from: "00:00".parse().unwrap(),
        to: "00:00".parse().unwrap(),
    }
}

#[test]
fn quiet_hours_send_no_notify_at_all() {
    let mut s = AttentionSettings::default();
    s.quiet.schedule = all_day();
    s.notifications.sound.card = true;
    let Some(r) = rig_with("quiet", ALL_CAPS, s.clone()) else {
        return;
    };
    let a = SessionId::from("a");
    r.notifier.show(a.clone(), card(1, "ls", None));
    r.notifier.show(SessionId::from("b"), done());
    r.notifier.show(a.clone(), card(2, "pwd", None));
    sync(&r);
    assert!(r.server.notifies().is_empty(), "{:?}", log(&r));
    let q = r.notifier.quiet();
    assert!(q.quiet);
    assert!(matches!(q.why, Some(QuietWhy::Schedule { .. })));
    // The switch is quiet too.
    let mut on = s.clone();
    on.quiet.schedule.enabled = false;
    on.quiet.on = true;
    r.notifier.set_settings(on);
    r.notifier.show(a.clone(), card(3, "id", None));
    sync(&r);
    assert!(r.server.notifies().is_empty(), "{:?}", log(&r));
    assert_eq!(r.notifier.quiet().why, Some(QuietWhy::Switch));
    // Quiet ends: what still waits is raised, without a sound.
    let mut awake = s;
    awake.quiet.schedule.enabled = false;
    r.notifier.set_settings(awake);
    sync(&r);
    let n = r.server.notifies();
    assert_eq!(n.len(), 2, "{:?}", log(&r));
    assert!(
        n[0].body.starts_with("id\n"),
        "the newest notice, not the ones it replaced"
    );
    assert!(n.iter().all(|n| !n.hints.contains_key("sound-name")));
    assert!(!r.notifier.quiet().quiet);
}

#[test]
fn the_desktops_own_do_not_disturb_is_followed() {
    let Some(bus) = SessionBus::start("desktop_dnd") else {
        return;
    };
    let server = NotificationServer::start_with(&bus.address, ALL_CAPS, Some(false));
    let mut c = config(&bus, AttentionSettings::default());
    c.read_desktop_dnd = true;
    let (notifier, _events) = Notifier::start(c);
    wait_connected(&notifier);
    assert!(notifier.sync(T));
    assert_eq!(
        notifier.capabilities().desktop_dnd,
        Support::Available("the notification server's Inhibited property".into())
    );
    server.set_inhibited(true);
    for _ in 0..300 {
        if notifier.quiet().quiet {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(notifier.quiet().why, Some(QuietWhy::Desktop));
    notifier.show(SessionId::from("a"), card(1, "ls", None));
    assert!(notifier.sync(T));
    assert!(server.notifies().is_empty());
    server.set_inhibited(false);
    assert!(server.wait_for(T, |calls| {
        calls.iter().any(|c| matches!(c, Call::Notify(_)))
    }));
    assert!(!notifier.quiet().quiet);
}

#[test]
fn gnomes_show_banners_is_read_through_the_portal() {
    let Some(bus) = SessionBus::start("gnome_dnd") else {
        return;
    };
    let server = NotificationServer::start(&bus.address, ALL_CAPS);
    let portal = Portal::start(&bus.address, &[], Some(true));
    let mut c = config(&bus, AttentionSettings::default());
    c.read_desktop_dnd = true;
    let (notifier, _events) = Notifier::start(c);
    wait_connected(&notifier);
    assert!(notifier.sync(T));
    assert_eq!(
        notifier.capabilities().desktop_dnd,
        Support::Available("GNOME's show-banners setting, through the Settings portal".into())
    );
    assert!(portal.calls().contains(&PortalCall::Read(
        "org.gnome.desktop.notifications".into(),
        "show-banners".into()
    )));
    assert!(!notifier.quiet().quiet);
    portal.set_show_banners(false);
    for _ in 0..300 {
        if notifier.quiet().quiet {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(notifier.quiet().why, Some(QuietWhy::Desktop));
    notifier.show(SessionId::from("a"), card(1, "ls", None));
    assert!(notifier.sync(T));
    assert!(server.notifies().is_empty());
    // Following the desktop can be switched off.
    let mut s = AttentionSettings::default();
    s.quiet.follow_desktop = false;
    notifier.set_settings(s);
    assert!(server.wait_for(T, |calls| {
        calls.iter().any(|c| matches!(c, Call::Notify(_)))
    }));
}

#[test]
fn without_the_property_the_desktops_dnd_is_said_to_be_unreadable() {
    let Some(bus) = SessionBus::start("dnd_unreadable") else {
        return;
    };
    let _server = NotificationServer::start(&bus.address, ALL_CAPS);
    let mut c = config(&bus, AttentionSettings::default());
    c.read_desktop_dnd = true;
    let (notifier, _events) = Notifier::start(c);
    wait_connected(&notifier);
    assert!(notifier.sync(T));
    assert!(matches!(
        notifier.capabilities().desktop_dnd,
        Support::Unavailable(why) if why.contains("does not say")
    ));
}

#[test]
fn dismissed_by_the_person_it_is_not_raised_again() {
    let Some(r) = rig("dismissed") else { return };
    let a = SessionId::from("a");
    r.notifier.show(a.clone(), card(1, "ls", None));
    sync(&r);
    r.server.dismiss(1);
    assert_eq!(
        next_action(&r),
        Some(NotifierEvent::Dismissed { session: a.clone() })
    );
    r.notifier.show(a.clone(), card(1, "ls", None));
    sync(&r);
    assert_eq!(r.server.notifies().len(), 1);
    r.notifier.show(a.clone(), card(2, "pwd", None));
    sync(&r);
    let n = r.server.notifies();
    assert_eq!(
        (n.len(), n[1].replaces_id),
        (2, 0),
        "a new one, not a replacement of a closed one"
    );
}

#[test]
fn without_a_server_it_says_why_and_never_blocks() {
    let Some(bus) = SessionBus::start("no_server") else {
        return;
    };
    let (notifier, _events) = Notifier::start(config(&bus, AttentionSettings::default()));
    notifier.show(SessionId::from("a"), card(1, "ls", None));
    assert!(notifier.sync(T));
    assert!(matches!(
        notifier.capabilities().notifications,
        Support::Unavailable(why) if why.contains("no notification server")
    ));
}

/// A pending card as the engine makes it, for the notice rendered from its presentation.
fn pending(id: u64, command: &str) -> vults_engine::messages::PendingCard {
    use vults_core::protocol::{AgentKind, Identity};
    vults_engine::messages::PendingCard {
        id,
        agent: AgentKind::Claude,
        identity: Identity::Builtin(AgentKind::Claude),
        session: vults_engine::messages::SessionKey {
            identity: "claude".into(),
            session: "s".into(),
        },
        folder: "/home/ana/vults".into(),
        call: vults_core::agents::read_tool_call(&serde_json::json!({
            "tool_name": "Bash", "tool_input": {"command": command}
        })),
        destructive: None,
        reason: vults_engine::messages::Reason::NoRule,
        always_rule: None,
        file_rule: None,
        question: false,
        arrived: std::time::SystemTime::now(),
        context: Default::default(),
    }
}

/// In Brazilian Portuguese, through the stand-in server: the words and the buttons are
/// translated, the target and the folder are not, and what is offered is the same as in
/// English — a card whose target hides a character (rendered from its presentation) offers
/// no Allow in any language.
#[test]
fn notifications_speak_brazilian_portuguese_and_offer_the_same() {
    let Some(r) = rig("pt-br") else { return };
    let _pt = vults_i18n::scoped(&vults_i18n::Choice::Language("pt-BR".into()));
    r.notifier.show(
        SessionId::from("a"),
        vults_notify::card_notice(&pending(1, "cargo test")),
    );
    sync(&r);
    let n = r.server.notifies().pop().unwrap();
    assert_eq!(n.summary, "Claude Code pede: Bash");
    assert_eq!(n.body, "cargo test\nem /home/ana/vults");
    assert_eq!(n.action_labels(), ["Mostrar", "Permitir", "Negar"]);

    r.notifier.show(
        SessionId::from("b"),
        vults_notify::card_notice(&pending(2, "cat /tmp/notes\u{1D173}.txt")),
    );
    sync(&r);
    let n = r.server.notifies().pop().unwrap();
    assert_eq!(n.body, "cat /tmp/notes‹U+1D173›.txt\nem /home/ana/vults");
    assert_eq!(
        n.action_labels(),
        ["Mostrar"],
        "no Allow from a notification"
    );

    r.notifier.show(
        SessionId::from("c"),
        card(3, "rm -rf target", Some("rm -r")),
    );
    sync(&r);
    let n = r.server.notifies().pop().unwrap();
    assert!(
        n.body.ends_with("Destrutivo (rm -r): responda no cartão."),
        "{}",
        n.body
    );
    r.notifier.show(SessionId::from("d"), done());
    sync(&r);
    let n = r.server.notifies().pop().unwrap();
    assert_eq!(n.summary, "Codex terminou — esperando por você");
    assert_eq!(n.action_labels(), ["Mostrar", "Mostrar terminal"]);
    // Another language chosen: the same notice shown again is worded again, in place.
    drop(_pt);
    let _en = vults_i18n::scoped(&vults_i18n::Choice::Language("en".into()));
    r.notifier.show(SessionId::from("d"), done());
    sync(&r);
    let again = r.server.notifies().pop().unwrap();
    assert_eq!(again.summary, "Codex is done — waiting for you");
    assert_eq!(again.replaces_id, n.id, "replaced, not stacked");
}
