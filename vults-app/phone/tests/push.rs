//! Web Push end to end against a stand-in push service on 127.0.0.1 (HTTPS with a CA of its
//! own, `vults_phone::push::standin`), which checks every request as a real one would (the
//! VAPID JWT, TTL, the content coding) and decrypts it with the subscription's private key.
//! A paired test phone subscribes with a signed, sealed request; the cards the link is fed
//! become pushes; what the service decrypted is opened with the phone's seal key.

use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use vults_core::agents::read_tool_call;
use vults_core::paths::Paths;
use vults_core::protocol::{AgentKind, Identity};
use vults_core::rules::AlwaysRule;
use vults_engine::messages::{EngineCommand, EngineEvent, PendingCard, SessionKey};
use vults_phone::client::PhoneClient;
use vults_phone::crypto::Op;
use vults_phone::devices::Subscription;
use vults_phone::push::standin::{Received, StandIn};
use vults_phone::push::{self, webpush};
use vults_phone::{LinkConfig, PhoneLink};
use vults_tests::eventually;

struct Harness {
    _temp: vults_tests::TempHome,
    paths: Paths,
    link: PhoneLink,
    addr: SocketAddr,
    service: StandIn,
    sent: Arc<Mutex<Vec<EngineCommand>>>,
}

impl Harness {
    fn new(name: &str) -> Harness {
        let temp = vults_tests::TempHome::empty(&format!("push-{name}"));
        let h = temp.dir.clone();
        let paths = Paths::resolve(move |k| (k == "VULTS_HOME").then(|| h.clone()));
        let sent = Arc::new(Mutex::new(Vec::new()));
        let sink = sent.clone();
        let mut link =
            PhoneLink::new(&paths, Arc::new(move |c| sink.lock().unwrap().push(c))).unwrap();
        let service = StandIn::start().unwrap();
        link.set_push_roots(service.roots()).unwrap();
        let addr = link.start(LinkConfig::loopback(0)).unwrap();
        Harness {
            _temp: temp,
            paths,
            link,
            addr: SocketAddr::from(([127, 0, 0, 1], addr.port())),
            service,
            sent,
        }
    }

    fn paired(&self, name: &str) -> PhoneClient {
        let mut phone = PhoneClient::new(self.addr);
        let reply = phone.pair(&self.link.offer().unwrap(), name).unwrap();
        assert_eq!(reply.status, 200, "{}", reply.text());
        phone
    }

    /// The phone subscribes to a new subscription on the stand-in, signed and sealed.
    fn subscribe(&self, phone: &PhoneClient, name: &str) -> Subscription {
        let sub = self.service.subscribe(name);
        let (status, reply) = phone
            .send(&phone.request(Op::Subscribe {
                endpoint: sub.endpoint.clone(),
                p256dh: sub.p256dh.clone(),
                auth: sub.auth.clone(),
            }))
            .unwrap();
        let reply = reply.expect("a sealed reply");
        assert_eq!((status, &reply["ok"]), (200, &json!(true)), "{reply}");
        assert_eq!(reply["push"], json!(true), "{reply}");
        let vapid = webpush::public_key(
            &vults_phone::crypto::unb64(reply["vapid"].as_str().unwrap()).unwrap(),
        );
        assert!(
            vapid.is_some(),
            "the list reply names the app's VAPID key: {reply}"
        );
        sub
    }

    fn card(&self, id: u64, command: &str) {
        self.link
            .on_engine_event(&EngineEvent::CardAdded(card(id, command)));
    }

    fn answered(&self, id: u64) {
        self.link.on_engine_event(&EngineEvent::CardRemoved {
            id,
            by: vults_engine::messages::AnsweredBy::Click,
        });
    }

    /// The `n`th push to `sub`, once it came, checked as a push service checks it, and its
    /// content opened with the phone's seal key.
    fn push(&self, phone: &PhoneClient, sub: &Subscription, n: usize) -> (Received, Value) {
        eventually(&format!("push {n} to {}", sub.endpoint), || {
            self.service.received_for(sub).len() > n
        });
        let got = self.service.received_for(sub).remove(n);
        assert_eq!(got.status, 201, "{got:?}");
        let claims = got.vapid.clone().expect("a valid VAPID JWT");
        assert_eq!(
            claims.key,
            self.link.vapid_public().unwrap().to_vec(),
            "signed with the app's key"
        );
        assert_eq!(
            claims.aud,
            format!("https://127.0.0.1:{}", self.service.addr.port())
        );
        assert!(!claims.sub.is_empty());
        assert_eq!(got.headers["content-encoding"], "aes128gcm");
        let sealed = got
            .plaintext
            .clone()
            .expect("decrypted with the subscription's key");
        // The push service's plaintext is itself sealed: nothing of the card in it.
        let text = String::from_utf8_lossy(&sealed).to_string();
        assert!(
            !text.contains("cargo") && !text.contains("Claude"),
            "{text}"
        );
        let payload = push::open_push(phone.seal.as_ref().unwrap(), &phone.device, &sealed)
            .expect("opens with the device's seal key");
        (got, payload)
    }

    fn devices_file(&self) -> String {
        std::fs::read_to_string(self.paths.devices_file()).unwrap()
    }
}

fn card(id: u64, command: &str) -> PendingCard {
    let identity = Identity::Builtin(AgentKind::Claude);
    let payload = json!({"session_id":"s1","cwd":"/work/p","tool_name":"Bash","tool_input":{"command": command}});
    let call = read_tool_call(&payload);
    PendingCard {
        id,
        agent: AgentKind::Claude,
        always_rule: Some(AlwaysRule::for_call(&identity, "/work/p", &call, 0)),
        file_rule: None,
        identity: identity.clone(),
        session: SessionKey {
            identity: "claude".into(),
            session: "s1".into(),
        },
        folder: "/work/p".into(),
        call,
        destructive: None,
        reason: vults_engine::messages::Reason::NoRule,
        question: false,
        arrived: std::time::SystemTime::now(),
        context: Default::default(),
    }
}

#[test]
fn a_card_buzzes_the_phone_with_the_desktop_notification_and_is_withdrawn_when_answered() {
    let h = Harness::new("card");
    let phone = h.paired("Ana's phone");
    let sub = h.subscribe(&phone, "ana");
    assert!(
        h.devices_file().contains(&sub.endpoint),
        "kept with the device"
    );

    h.card(7, "cargo build --release");
    let (got, payload) = h.push(&phone, &sub, 0);
    assert_eq!(got.headers["ttl"], push::CARD_TTL_S.to_string());
    assert_eq!(got.headers["urgency"], "high");
    assert_eq!(got.headers["topic"], "vults-card-7");
    assert_eq!(payload["t"], "card");
    assert_eq!(payload["card"], 7);
    assert_eq!(payload["tag"], "vults-card-7");
    assert_eq!(payload["title"], "Claude Code asks: Bash");
    assert_eq!(payload["body"], "cargo build --release\nin /work/p");
    assert_eq!(payload["actions"], json!(["allow", "deny"]));

    // Answered anywhere: the notification is withdrawn, with the card's topic.
    h.answered(7);
    let (got, payload) = h.push(&phone, &sub, 1);
    assert_eq!(payload["t"], "withdraw");
    assert_eq!(payload["tag"], "vults-card-7");
    assert_eq!(got.headers["topic"], "vults-card-7");
    assert_eq!(got.headers["urgency"], "normal");

    // Under the desktop's rules: a destructive call, or a target that does not fit whole,
    // offers no Allow; a hidden character is written out as the card writes it.
    let mut rm = card(8, "rm -rf /work/p/build");
    rm.destructive = Some("rm -r".into());
    h.link.on_engine_event(&EngineEvent::CardAdded(rm));
    let (_, payload) = h.push(&phone, &sub, 2);
    assert_eq!(payload["actions"], json!([]));
    let body = payload["body"].as_str().unwrap();
    assert!(body.contains("Destructive (rm -r)"), "{body}");
    h.card(9, "cat /tmp/notes\u{1D173}.txt");
    let (_, payload) = h.push(&phone, &sub, 3);
    assert_eq!(payload["actions"], json!([]), "{payload}");
    assert!(
        payload["body"]
            .as_str()
            .unwrap()
            .starts_with("cat /tmp/notes‹U+1D173›.txt\nin /work/p\n"),
        "{payload}"
    );
    h.card(10, "ls");
    let (_, payload) = h.push(&phone, &sub, 4);
    assert_eq!(payload["tag"], "vults-card-10");
    // A fourth card waiting: past three shown ones, the phone gets one "N cards wait".
    h.card(11, "ls -l");
    let (_, payload) = h.push(&phone, &sub, 5);
    assert_eq!(payload["t"], "summary", "{payload}");
    assert_eq!(payload["title"], "4 cards wait", "{payload}");
    assert_eq!(payload["body"], "Open Vults to answer them.");

    // The service answered before the sender noted it: wait for the note.
    eventually("six deliveries noted", || {
        h.link.push_states()[&phone.device].delivered == 6
    });
    let state = &h.link.push_states()[&phone.device];
    assert!(
        state.last_delivered.is_some() && state.last_error.is_none(),
        "{state:?}"
    );
    assert!(h.sent.lock().unwrap().is_empty(), "pushing answers nothing");
}

/// A plan and an edit buzz the phone in the desktop notification's own words (one
/// `vults_notify::card_notice` serves both): the plan's first heading, the file and `+N −M`
/// as the card says it; never the tool's raw input, and no Allow on either.
#[test]
fn a_pushed_plan_and_a_pushed_edit_say_what_the_desktop_says() {
    let text = "# Plan: list the project\n\nRun ls, then stop.";
    let mut plan = card(1, "ls");
    plan.call = read_tool_call(&json!({
        "session_id": "s1", "cwd": "/work/p", "tool_name": "ExitPlanMode",
        "tool_input": {"plan": text}
    }));
    plan.context.plan = Some(text.into());
    let pushed = push::card_payload(&plan);
    assert_eq!(pushed["title"], "Claude Code asks you to approve its plan");
    let body = pushed["body"].as_str().unwrap();
    assert!(body.starts_with("Plan: list the project\n"), "{body}");
    assert!(!body.contains('{') && !body.contains("Run ls"), "{body}");
    assert_eq!(pushed["actions"], json!([]));

    let mut edit = card(2, "ls");
    edit.call = read_tool_call(&json!({
        "session_id": "s1", "cwd": "/work/p", "tool_name": "Edit",
        "tool_input": {"file_path": "src/a.rs", "old_string": "x", "new_string": "y\nz"}
    }));
    let pushed = push::card_payload(&edit);
    assert_eq!(pushed["title"], "Claude Code asks: Edit");
    let body = pushed["body"].as_str().unwrap();
    assert!(body.starts_with("src/a.rs · +2 −1\n"), "{body}");
    assert!(
        body.contains("Answer it on its card") && !body.contains("replaces:"),
        "{body}"
    );
    assert_eq!(pushed["actions"], json!([]));
}

#[test]
fn a_long_target_says_open_to_read_it_and_offers_no_allow() {
    let h = Harness::new("long");
    let phone = h.paired("Bo");
    let sub = h.subscribe(&phone, "bo");
    h.card(1, &format!("echo {}", "y".repeat(400)));
    let (_, payload) = h.push(&phone, &sub, 0);
    assert_eq!(payload["actions"], json!([]));
    let body = payload["body"].as_str().unwrap();
    assert!(body.ends_with("Open to read it."), "{body}");
    assert!(
        body.chars().count() < 400,
        "cut, as the desktop cuts it: {body}"
    );
}

#[test]
fn quiet_hours_push_nothing_and_a_flood_becomes_one_summary() {
    let h = Harness::new("quiet");
    let phone = h.paired("Cy");
    let sub = h.subscribe(&phone, "cy");
    h.link.set_quiet(true);
    h.card(1, "make");
    h.link.set_quiet(false);
    h.link.test_push(&phone.device);
    // One queue per device, in order: had card 1 been pushed, it would have come first.
    let (_, payload) = h.push(&phone, &sub, 0);
    assert_eq!(payload["t"], "test", "{payload}");
    for id in 2..=5 {
        h.card(id, &format!("make target{id}"));
    }
    let kinds: Vec<(Value, Value)> = (1..=4)
        .map(|n| {
            let (_, p) = h.push(&phone, &sub, n);
            (p["t"].clone(), p["tag"].clone())
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            (json!("card"), json!("vults-card-2")),
            (json!("card"), json!("vults-card-3")),
            (json!("card"), json!("vults-card-4")),
            (json!("summary"), json!("vults-summary")),
        ]
    );
    let (_, summary) = h.push(&phone, &sub, 4);
    assert_eq!(summary["title"], "5 cards wait");
    // Cards 1 and 5 answered: the summary goes (every card left is shown on its own).
    h.answered(1);
    let (_, p) = h.push(&phone, &sub, 5);
    assert_eq!(
        (p["t"].clone(), p["title"].clone()),
        (json!("summary"), json!("4 cards wait"))
    );
    h.answered(5);
    let (_, p) = h.push(&phone, &sub, 6);
    assert_eq!(
        (p["t"].clone(), p["tag"].clone()),
        (json!("withdraw"), json!("vults-summary"))
    );
}

#[test]
fn a_gone_subscription_is_dropped_and_revoking_a_device_forgets_its_own() {
    let h = Harness::new("gone");
    let phone = h.paired("Di");
    let sub = h.subscribe(&phone, "di");
    h.service.answer(&sub, 410);
    h.link.test_push(&phone.device);
    eventually("the 410 to drop the subscription", || {
        h.link.devices().iter().all(|d| d.push.is_none())
    });
    assert!(!h.devices_file().contains(&sub.endpoint));
    // Settings → Phone says why (noted right after the subscription was dropped).
    eventually("the 410 said in the push state", || {
        h.link
            .push_states()
            .get(&phone.device)
            .and_then(|s| s.last_error.clone())
            .is_some_and(|e| {
                e == vults_phone::PushFailure::Gone(410) && e.to_string().contains("gone (410)")
            })
    });
    assert_eq!(h.service.received_for(&sub)[0].status, 410);

    // A redirect is not followed: it is a refusal, said as such.
    let moved = h.subscribe(&phone, "di-moved");
    h.service.answer(&moved, 301);
    h.link.test_push(&phone.device);
    eventually("the redirect to be refused", || {
        h.link
            .push_states()
            .get(&phone.device)
            .and_then(|s| s.last_error.clone())
            .is_some_and(|e| {
                matches!(e, vults_phone::PushFailure::Redirect { status: 301, .. })
                    && e.to_string().contains("redirect")
            })
    });
    assert_eq!(h.service.received_for(&moved).len(), 1);

    let other = h.paired("Ed");
    let sub2 = h.subscribe(&other, "ed");
    assert!(h.devices_file().contains(&sub2.endpoint));
    h.link.revoke(&other.device).unwrap();
    assert!(
        !h.devices_file().contains(&sub2.endpoint),
        "revoked: forgotten"
    );
    // A revoked phone cannot subscribe again.
    let again = h.service.subscribe("ed-again");
    let (status, _) = other
        .send(&other.request(Op::Subscribe {
            endpoint: again.endpoint.clone(),
            p256dh: again.p256dh,
            auth: again.auth,
        }))
        .unwrap();
    assert_eq!(status, 403);
    assert!(!h.devices_file().contains(&again.endpoint));
}

#[test]
fn only_an_https_subscription_with_real_keys_is_taken() {
    let h = Harness::new("bad-sub");
    let phone = h.paired("Flo");
    let good = h.service.subscribe("flo");
    for (endpoint, p256dh, auth) in [
        (
            "http://127.0.0.1:9/push/x".to_string(),
            good.p256dh.clone(),
            good.auth.clone(),
        ),
        (
            "https://user@127.0.0.1/push/x".into(),
            good.p256dh.clone(),
            good.auth.clone(),
        ),
        (
            good.endpoint.clone(),
            vults_phone::crypto::b64(&[4u8; 65]),
            good.auth.clone(),
        ),
        (good.endpoint.clone(), good.p256dh.clone(), "c2hvcnQ".into()),
    ] {
        let (status, reply) = phone
            .send(&phone.request(Op::Subscribe {
                endpoint: endpoint.clone(),
                p256dh,
                auth,
            }))
            .unwrap();
        let reply = reply.unwrap();
        assert_eq!(status, 403, "{endpoint}: {reply}");
        assert!(
            reply["refused"]
                .as_str()
                .unwrap()
                .starts_with("push subscription refused"),
            "{reply}"
        );
    }
    assert!(h.link.devices().iter().all(|d| d.push.is_none()));
    // Unsubscribing is signed too, and forgets it.
    let sub = h.subscribe(&phone, "flo");
    let (status, reply) = phone.send(&phone.request(Op::Unsubscribe)).unwrap();
    assert_eq!((status, &reply.unwrap()["push"]), (200, &json!(false)));
    assert!(!h.devices_file().contains(&sub.endpoint));
}

#[test]
fn a_push_service_that_fails_is_tried_again_with_backoff() {
    let h = Harness::new("retry");
    let phone = h.paired("Gil");
    let sub = h.subscribe(&phone, "gil");
    h.service.answer(&sub, 503);
    h.card(1, "make");
    eventually("the first try, refused with 503", || {
        h.service.received_for(&sub).len() == 1
    });
    eventually("the 503 said in the push state", || {
        h.link
            .push_states()
            .get(&phone.device)
            .and_then(|s| s.last_error.clone())
            .is_some_and(|e| e.to_string().contains("503"))
    });
    // The service is back: the next try (after the first backoff step) is taken.
    h.service.answer(&sub, 201);
    // (More 503s may come first on a slow machine: the one taken is the one checked.)
    eventually("a try that is taken", || {
        h.service.received_for(&sub).iter().any(|r| r.status == 201)
    });
    let taken = h
        .service
        .received_for(&sub)
        .iter()
        .position(|r| r.status == 201)
        .unwrap();
    let (got, payload) = h.push(&phone, &sub, taken);
    assert_eq!(got.status, 201);
    assert_eq!(payload["tag"], "vults-card-1");
    eventually("the delivery noted", || {
        h.link
            .push_states()
            .get(&phone.device)
            .is_some_and(|s| s.delivered == 1 && s.last_error.is_none())
    });
    assert!(
        h.devices_file().contains(&sub.endpoint),
        "a 503 keeps the subscription"
    );
}

/// The link reads the engine itself (`BackgroundLink::follow`): with no window at all, a real
/// hook's request becomes a card the phone is pushed, and its answer withdraws the push. Nobody
/// hands the link an event.
#[test]
fn the_link_follows_the_engine_itself_and_pushes_a_real_hooks_card_with_no_window() {
    use std::io::Write;
    let h = Harness::new("follow");
    let phone = h.paired("Ana's phone");
    let sub = h.subscribe(&phone, "ana");
    let Harness {
        _temp: temp,
        paths,
        link,
        service,
        ..
    } = h;
    let engine = vults_engine::Engine::start_with(
        paths.clone(),
        Arc::new(|| {}),
        vults_engine::EngineOptions {
            interactive: true,
            ..Default::default()
        },
    )
    .expect("the engine starts");
    let background = vults_phone::BackgroundLink::with_link(link, Arc::new(|| {}));
    background.follow(&engine.event_bus());
    let mut window = engine.subscribe();

    let mut cmd = std::process::Command::new(vults_tests::built_hook_bin());
    temp.isolate(&mut cmd);
    let mut hook = cmd
        .args(["--agent", "claude", "PermissionRequest"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("vults-hook starts");
    let payload = json!({"session_id":"s1","cwd":"/work/p","hook_event_name":"PermissionRequest",
        "tool_name":"Bash","tool_input":{"command":"cargo build --release"}});
    hook.stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();

    let opened = |n: usize| {
        eventually(&format!("push {n}"), || {
            service.received_for(&sub).len() > n
        });
        let got = service.received_for(&sub).remove(n);
        assert_eq!(got.status, 201, "{got:?}");
        push::open_push(
            phone.seal.as_ref().unwrap(),
            &phone.device,
            &got.plaintext.expect("decrypted"),
        )
        .expect("opens with the device's seal key")
    };
    let pushed = opened(0);
    assert_eq!(pushed["t"], "card");
    assert_eq!(pushed["body"], "cargo build --release\nin /work/p");
    let id = pushed["card"].as_u64().expect("the card's id");

    // The window's own subscription saw the same card.
    let deadline = std::time::Instant::now() + vults_tests::PATIENCE;
    loop {
        match window.try_recv() {
            Ok(ev) if matches!(&*ev, EngineEvent::CardAdded(c) if c.id == id) => break,
            Ok(_) => {}
            Err(_) => {
                assert!(
                    std::time::Instant::now() < deadline,
                    "no card for the window"
                );
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
    }
    engine.send(EngineCommand::Answer {
        card: id,
        answer: vults_engine::messages::CardAnswer::Allow,
        by: vults_engine::messages::AnsweredBy::Click,
    });
    let out = hook.wait_with_output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(r#""behavior":"allow""#),
        "the hook is allowed"
    );
    let withdrawn = opened(1);
    assert_eq!(withdrawn["t"], "withdraw");
    assert_eq!(withdrawn["tag"], format!("vults-card-{id}"));
    drop(background);
    drop(engine);
}

#[test]
fn a_warning_is_pushed_in_the_desktops_words_and_not_while_quiet() {
    let h = Harness::new("warning");
    let phone = h.paired("Di");
    let sub = h.subscribe(&phone, "di");
    h.link.set_quiet(true);
    h.link.warn(
        "vults-limit-FiveHour",
        "Claude Code: 81 % of the 5-hour limit used",
        "Resets at 14:05.",
    );
    h.link.set_quiet(false);
    h.link.warn(
        "vults-limit-FiveHour",
        "Claude Code: 96 % of the 5-hour limit used",
        "Resets at 14:05.",
    );
    // One queue per device, in order: had the quiet one been pushed, it would have come first.
    let (_, p) = h.push(&phone, &sub, 0);
    assert_eq!(p["t"], "warning", "{p}");
    assert_eq!(p["tag"], "vults-limit-FiveHour");
    assert_eq!(p["title"], "Claude Code: 96 % of the 5-hour limit used");
    assert_eq!(p["body"], "Resets at 14:05.");
    assert_eq!(p.get("actions"), None, "a warning is answered nowhere");
}

/// The push's words in Brazilian Portuguese, through the stand-in push service: the language
/// active where the card came (the app's choice) words it; the target and the folder are not
/// translated, a hidden character is written out and no Allow is offered, as in English.
#[test]
fn a_card_is_pushed_in_brazilian_portuguese() {
    let h = Harness::new("pt-br");
    let phone = h.paired("Celular da Ana");
    let sub = h.subscribe(&phone, "ana");
    let _pt = vults_i18n::scoped(&vults_i18n::Choice::Language("pt-BR".into()));
    h.card(1, "cargo build");
    let (_, payload) = h.push(&phone, &sub, 0);
    assert_eq!(payload["title"], "Claude Code pede: Bash", "{payload}");
    assert_eq!(payload["body"], "cargo build\nem /work/p");
    assert_eq!(payload["actions"], json!(["allow", "deny"]));
    assert_eq!(
        payload["labels"],
        json!({"allow": "Permitir", "deny": "Negar"})
    );
    h.card(2, "cat /tmp/notes\u{1D173}.txt");
    let (_, payload) = h.push(&phone, &sub, 1);
    assert_eq!(
        payload["body"], "cat /tmp/notes‹U+1D173›.txt\nem /work/p\nAbra para ler tudo.",
        "{payload}"
    );
    assert_eq!(payload["actions"], json!([]), "no Allow from a push");
    h.card(3, "ls");
    h.card(4, "ls -l");
    let (_, payload) = h.push(&phone, &sub, 3);
    assert_eq!(payload["t"], "summary", "{payload}");
    assert_eq!(payload["title"], "4 cartões esperam");
    assert_eq!(payload["body"], "Abra o Vults para respondê-los.");
}
