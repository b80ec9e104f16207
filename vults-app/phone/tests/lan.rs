//! The paired phone over a real loopback socket: pairing, the checks every answer passes
//! before it reaches the engine, and what an unpaired machine on the LAN gets (nothing).
//!
//! Each test runs its own link in its own `VULTS_HOME`; the "engine" is a sink that records
//! the commands the link sends, so "no card answered" means "no command sent".

use serde_json::{Value, json};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use vults_core::agents::read_tool_call;
use vults_core::paths::Paths;
use vults_core::protocol::{AgentKind, AnswerItem, Identity};
use vults_core::rules::AlwaysRule;
use vults_engine::messages::{
    AnsweredBy, CardAnswer, EngineCommand, EngineEvent, PendingCard, SessionKey,
};
use vults_phone::client::{self, PhoneClient};
use vults_phone::crypto::{self, Op, WireAnswer};
use vults_phone::{LinkConfig, PhoneLink, qr_modules};

/// A source address for refusals the gate is handed directly.
const LAN_HOST: IpAddr = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 7));

const COMMAND: &str = "cargo publish --token s3cr3t-in-the-command";

struct Harness {
    /// Removed when the harness is dropped (after the link stopped).
    _temp: vults_tests::TempHome,
    home: PathBuf,
    paths: Paths,
    link: PhoneLink,
    addr: SocketAddr,
    sent: Arc<Mutex<Vec<EngineCommand>>>,
}

impl Harness {
    fn new(name: &str, config: LinkConfig) -> Harness {
        let temp = vults_tests::TempHome::empty(&format!("lan-{name}"));
        let home = temp.dir.clone();
        let h = home.clone();
        let paths = Paths::resolve(move |k| (k == "VULTS_HOME").then(|| h.clone()));
        let sent = Arc::new(Mutex::new(Vec::new()));
        let sink = sent.clone();
        let mut link =
            PhoneLink::new(&paths, Arc::new(move |c| sink.lock().unwrap().push(c))).unwrap();
        let addr = link.start(config).unwrap();
        let addr = SocketAddr::from(([127, 0, 0, 1], addr.port()));
        Harness {
            _temp: temp,
            home,
            paths,
            link,
            addr,
            sent,
        }
    }

    fn loopback(name: &str) -> Harness {
        Harness::new(name, LinkConfig::loopback(0))
    }

    fn paired(&self, name: &str) -> PhoneClient {
        let mut phone = PhoneClient::new(self.addr);
        let offer = self.link.offer().unwrap();
        let reply = phone.pair(&offer, name).unwrap();
        assert_eq!(reply.status, 200, "{}", reply.text());
        phone
    }

    fn add_card(&self, id: u64, question: bool) {
        self.link
            .on_engine_event(&EngineEvent::CardAdded(card(id, question)));
    }

    fn sent(&self) -> Vec<EngineCommand> {
        self.sent.lock().unwrap().clone()
    }

    /// The audit lines the link handed to the engine (which owns the log).
    fn audit(&self) -> Vec<Value> {
        self.sent()
            .into_iter()
            .filter_map(|c| match c {
                EngineCommand::Record(entry) => Some(serde_json::to_value(entry).unwrap()),
                _ => None,
            })
            .collect()
    }

    /// What reached the engine besides audit lines: answers.
    fn answers(&self) -> Vec<EngineCommand> {
        self.sent()
            .into_iter()
            .filter(|c| !matches!(c, EngineCommand::Record(_)))
            .collect()
    }

    /// How the audit names the paired device called `name`: `<name> (<id>)`.
    fn label(&self, name: &str) -> String {
        let d = self
            .link
            .devices()
            .into_iter()
            .find(|d| d.name == name)
            .expect("a paired device by that name");
        format!("{name} ({})", d.id)
    }

    /// The request was refused with `check`, audited with that check and device, and no
    /// card was answered.
    fn assert_refused(&self, status: u16, reply: Option<Value>, check: &str, device: &str) {
        let device = self.label(device);
        assert!(status == 401 || status == 403, "status {status}");
        if let Some(r) = reply {
            assert_eq!(r["ok"], json!(false));
            assert_eq!(r["refused"], json!(check));
        }
        assert!(
            self.answers().is_empty(),
            "a refused answer reached the engine"
        );
        let audit = self.audit();
        let last = audit.last().expect("the refusal is audited");
        assert_eq!(last["decision"], "refused");
        assert_eq!(last["by"], format!("phone:{device}"));
        assert!(
            last["detail"].as_str().unwrap().starts_with(check),
            "{last}"
        );
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        self.link.stop();
    }
}

fn card(id: u64, question: bool) -> PendingCard {
    let identity = Identity::Builtin(AgentKind::Claude);
    let payload = if question {
        json!({"session_id":"s1","cwd":"/work/p","tool_name":"AskUserQuestion","tool_input":{
            "questions":[{"question":"Which colour?","header":"Colour","options":[{"label":"Blue"},{"label":"Red"}],"multiSelect":false},
                         {"question":"Which sizes?","header":"Size","options":[{"label":"S"},{"label":"M"}],"multiSelect":true}]}})
    } else {
        json!({"session_id":"s1","cwd":"/work/p","tool_name":"Bash","tool_input":{"command": COMMAND}})
    };
    let call = read_tool_call(&payload);
    PendingCard {
        id,
        agent: AgentKind::Claude,
        always_rule: (!question).then(|| AlwaysRule::for_call(&identity, "/work/p", &call, 0)),
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
        question,
        arrived: std::time::SystemTime::now(),
        context: Default::default(),
    }
}

fn signed_envelope(phone: &PhoneClient, req: &crypto::SignedRequest) -> Vec<u8> {
    let m = req.to_message();
    phone.envelope(&m, &crypto::sign(&phone.sign, m.as_bytes()))
}

#[test]
fn a_paired_phone_sees_the_whole_card_and_its_allow_is_the_engines_answer() {
    let h = Harness::loopback("good");
    let phone = h.paired("Ana's phone");
    h.add_card(7, false);

    let (status, reply) = phone.send(&phone.request(Op::List)).unwrap();
    assert_eq!(status, 200);
    let reply = reply.expect("the reply opens with the paired key");
    assert_eq!(reply["cards"][0]["id"], 7);
    assert_eq!(reply["cards"][0]["target"]["command"], COMMAND);
    assert_eq!(reply["cards"][0]["always"], true);

    let (status, reply) = phone.send(&phone.answer(7, WireAnswer::Allow)).unwrap();
    assert_eq!(status, 200, "{reply:?}");
    assert_eq!(reply.unwrap()["cards"], json!([]));
    assert_eq!(
        h.answers(),
        vec![EngineCommand::Answer {
            card: 7,
            answer: CardAnswer::Allow,
            by: AnsweredBy::Phone(format!("Ana's phone ({})", phone.device)),
        }]
    );
    assert!(h.audit().is_empty(), "nothing refused");
    assert_eq!(h.link.devices()[0].name, "Ana's phone");
}

#[test]
fn question_cards_take_answers_one_per_question() {
    let h = Harness::loopback("question");
    let phone = h.paired("p");
    h.add_card(3, true);
    let wrong = phone.answer(3, WireAnswer::Allow);
    let (status, reply) = phone.send(&wrong).unwrap();
    h.assert_refused(status, reply, "answer does not fit the card", "p");

    let answers = vec![
        AnswerItem::One("Blue".into()),
        AnswerItem::Many(vec!["S".into(), "M".into()]),
    ];
    let (status, _) = phone
        .send(&phone.answer(3, WireAnswer::Answers(answers.clone())))
        .unwrap();
    assert_eq!(status, 200);
    assert_eq!(
        h.answers(),
        vec![EngineCommand::Answer {
            card: 3,
            answer: CardAnswer::Answers(answers),
            by: AnsweredBy::Phone(format!("p ({})", phone.device)),
        }]
    );
}

#[test]
fn a_forged_signature_is_refused_and_audited() {
    let h = Harness::loopback("forged");
    let phone = h.paired("p");
    h.add_card(1, false);
    let m = phone.answer(1, WireAnswer::Allow).to_message();
    let other = ed25519_dalek::SigningKey::from_bytes(&[9u8; 32]);
    let env = phone.envelope(&m, &crypto::sign(&other, m.as_bytes()));
    let (status, reply) = phone.send_raw(&env).unwrap();
    h.assert_refused(status, reply, "bad signature", "p");
}

#[test]
fn a_body_changed_after_signing_is_refused_and_audited() {
    let h = Harness::loopback("altered");
    let phone = h.paired("p");
    h.add_card(1, false);
    let m = phone.answer(1, WireAnswer::Deny).to_message();
    let sig = crypto::sign(&phone.sign, m.as_bytes());
    let altered = m.replace("answer=deny", "answer=allow");
    let (status, reply) = phone.send_raw(&phone.envelope(&altered, &sig)).unwrap();
    h.assert_refused(status, reply, "bad signature", "p");
}

#[test]
fn another_cards_id_is_refused_and_audited() {
    let h = Harness::loopback("othercard");
    let phone = h.paired("p");
    h.add_card(1, false);
    h.add_card(2, false);
    // Signed for card 1, sent for card 2.
    let m = phone.answer(1, WireAnswer::Allow).to_message();
    let sig = crypto::sign(&phone.sign, m.as_bytes());
    let moved = m.replace("card=1", "card=2");
    let (status, reply) = phone.send_raw(&phone.envelope(&moved, &sig)).unwrap();
    h.assert_refused(status, reply, "bad signature", "p");
    // Signed for a card that is not pending.
    let (status, reply) = phone.send(&phone.answer(99, WireAnswer::Allow)).unwrap();
    h.assert_refused(status, reply, "card not pending", "p");
}

#[test]
fn a_replayed_nonce_is_refused_and_audited() {
    let h = Harness::loopback("replay");
    let phone = h.paired("p");
    h.add_card(1, false);
    h.add_card(2, false);
    let env = signed_envelope(&phone, &phone.answer(1, WireAnswer::Allow));
    assert_eq!(phone.send_raw(&env).unwrap().0, 200);
    h.sent.lock().unwrap().clear();
    // The same bytes again, and the same nonce in a new, validly signed request.
    let (status, reply) = phone.send_raw(&env).unwrap();
    h.assert_refused(status, reply, "nonce already used", "p");
    let first = phone.answer(1, WireAnswer::Allow);
    let mut again = phone.answer(2, WireAnswer::Allow);
    let (status, _) = phone.send(&first).unwrap();
    assert_eq!(status, 403); // card 1 is already answered
    again.nonce = first.nonce.clone();
    let (status, reply) = phone.send(&again).unwrap();
    h.assert_refused(status, reply, "nonce already used", "p");
}

#[test]
fn stale_and_future_times_are_refused_and_audited() {
    let h = Harness::loopback("time");
    let phone = h.paired("p");
    h.add_card(1, false);
    for shift in [-61_000i64, 61_000, -3_600_000] {
        let mut req = phone.answer(1, WireAnswer::Allow);
        req.time_ms = req.time_ms.saturating_add_signed(shift);
        let (status, reply) = phone.send(&req).unwrap();
        h.assert_refused(status, reply, "time outside ±60 s", "p");
    }
    // Within the window it still counts.
    let mut req = phone.answer(1, WireAnswer::Allow);
    req.time_ms += 30_000;
    assert_eq!(phone.send(&req).unwrap().0, 200);
}

#[test]
fn an_already_answered_card_is_refused_and_audited() {
    let h = Harness::loopback("answered");
    let phone = h.paired("p");
    h.add_card(1, false);
    h.add_card(2, false);
    assert_eq!(
        phone.send(&phone.answer(1, WireAnswer::Deny)).unwrap().0,
        200
    );
    h.sent.lock().unwrap().clear();
    let (status, reply) = phone.send(&phone.answer(1, WireAnswer::Allow)).unwrap();
    h.assert_refused(status, reply, "card not pending", "p");
    // Answered on the desktop: the engine removed it.
    h.link.on_engine_event(&EngineEvent::CardRemoved {
        id: 2,
        by: AnsweredBy::Click,
    });
    let (status, reply) = phone.send(&phone.answer(2, WireAnswer::Allow)).unwrap();
    h.assert_refused(status, reply, "card not pending", "p");
}

#[test]
fn a_revoked_device_is_refused_and_audited() {
    let h = Harness::loopback("revoked");
    let phone = h.paired("old phone");
    h.add_card(1, false);
    assert!(h.link.revoke(&phone.device).unwrap());
    let (status, reply) = phone.send(&phone.answer(1, WireAnswer::Allow)).unwrap();
    assert!(reply.is_none(), "a revoked device gets nothing it can read");
    h.assert_refused(status, None, "revoked device", "old phone");
    // Revocation is kept across restarts of the app.
    let saved = std::fs::read_to_string(h.paths.devices_file()).unwrap();
    assert!(saved.contains("revoked_at"));
}

#[test]
fn an_unpaired_key_is_refused_and_audited() {
    let h = Harness::loopback("unpaired");
    let phone = h.paired("p");
    h.add_card(1, false);
    // Knows the device id and even the seal key, but signs with a key that was never paired.
    let mut impostor = PhoneClient::new(h.addr);
    impostor.device = phone.device.clone();
    impostor.seal = phone.seal.clone();
    let (status, reply) = impostor
        .send(&impostor.answer(1, WireAnswer::Allow))
        .unwrap();
    h.assert_refused(status, reply, "bad signature", "p");
    // Knows only the device id: its sealed request does not open.
    let mut stranger = PhoneClient::new(h.addr);
    let offer_app_box = h.link.offer().unwrap().app_box_key;
    let app_box = crypto::unb64_array::<32>(&offer_app_box).unwrap();
    let mine = x25519_dalek::PublicKey::from(&stranger.boxing).to_bytes();
    stranger.seal = Some(crypto::SealKey::agree(
        &stranger.boxing,
        &app_box,
        &mine,
        &app_box,
    ));
    stranger.device = phone.device.clone();
    let (status, reply) = stranger
        .send(&stranger.answer(1, WireAnswer::Allow))
        .unwrap();
    assert!(reply.is_none());
    h.assert_refused(status, None, "seal does not open", "p");
}

#[test]
fn an_unpaired_client_on_the_lan_port_gets_no_card_and_answers_nothing() {
    // All interfaces, as for a phone; plain HTTP so this test's client can speak to it (the
    // browser test covers HTTPS).
    let h = Harness::new(
        "lan",
        LinkConfig {
            tls: false,
            ..LinkConfig::lan(0)
        },
    );
    let _paired = h.paired("p");
    h.add_card(1, false);

    // The page is public; the cards are not in it.
    let page = client::get(h.addr, "/").unwrap();
    assert_eq!(page.status, 200);
    assert!(!page.text().contains(COMMAND));

    // A machine that never paired: its own keys, its own device id.
    let mut stranger = PhoneClient::new(h.addr);
    stranger.device = crypto::device_id(&stranger.sign.verifying_key().to_bytes());
    for op in [
        Op::List,
        Op::Answer {
            card: 1,
            answer: WireAnswer::Allow,
        },
    ] {
        let req = stranger.request(op);
        let m = req.to_message();
        let raw = client::post(
            h.addr,
            "/api",
            &stranger.envelope(&m, &crypto::sign(&stranger.sign, m.as_bytes())),
        )
        .unwrap();
        assert_eq!(raw.status, 401);
        assert!(!raw.text().contains(COMMAND) && !raw.text().contains("cargo"));
    }
    // Pairing needs the one-time token from the QR code.
    let mut guesser = PhoneClient::new(h.addr);
    let mut fake = h.link.offer().unwrap();
    fake.token = crypto::b64(&[0u8; 16]);
    assert_eq!(guesser.pair(&fake, "g").unwrap().status, 403);
    assert!(h.answers().is_empty(), "no card was answered");
    assert_eq!(h.audit().last().unwrap()["by"], "phone:unknown");
}

#[test]
fn a_pairing_token_works_once_and_not_after_it_expires() {
    let h = Harness::loopback("token");
    let offer = h.link.offer().unwrap();
    let mut first = PhoneClient::new(h.addr);
    assert_eq!(first.pair(&offer, "one").unwrap().status, 200);
    let mut second = PhoneClient::new(h.addr);
    let reused = second.pair(&offer, "two").unwrap();
    assert_eq!(reused.status, 410);
    assert!(reused.text().contains("already used"));
    assert_eq!(h.link.devices().len(), 1);

    // Expiry, on the gate's clock.
    let keys = crypto::AppKeys::generate();
    let store = vults_phone::devices::DeviceStore::load(&h.home.join("d.json")).unwrap();
    let gate = vults_phone::gate::Gate::new(keys, store, Arc::new(|_| {}), 0);
    let (token, expires) = gate.new_token(1_000);
    let phone = PhoneClient::new(h.addr);
    let (sign, boxk) = (phone.sign_public(), phone.box_public());
    let proof = crypto::pair_message(&token, "late", &sign, &boxk);
    let body = json!({"token": token, "name": "late", "sign": sign, "box": boxk,
        "sig": crypto::b64(&crypto::sign(&phone.sign, proof.as_bytes()))});
    let late = gate.pair(body.to_string().as_bytes(), LAN_HOST, expires + 1);
    assert_eq!(late.status, 410);
    assert!(String::from_utf8_lossy(&late.body).contains("expired"));
    assert!(gate.devices().is_empty());
}

#[test]
fn bad_input_gets_a_clear_status_and_the_link_keeps_serving() {
    let h = Harness::loopback("badinput");
    let phone = h.paired("p");
    h.add_card(1, false);
    let huge = vec![b'x'; 64 * 1024];
    assert_eq!(client::post(h.addr, "/api", &huge).unwrap().status, 413);
    assert_eq!(
        client::post(h.addr, "/api", b"{not json").unwrap().status,
        400
    );
    assert_eq!(client::post(h.addr, "/pair", b"[1,2]").unwrap().status, 400);
    assert_eq!(
        client::post(h.addr, "/api", br#"{"d":"x","n":"!!","c":"??"}"#)
            .unwrap()
            .status,
        400
    );
    let chunked = b"POST /api HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
    assert_eq!(client::exchange(h.addr, chunked).unwrap().status, 501);
    assert_eq!(
        client::exchange(h.addr, b"garbage\r\n\r\n").unwrap().status,
        400
    );
    assert_eq!(
        client::get(h.addr, "/../../etc/passwd").unwrap().status,
        404
    );
    assert_eq!(client::get(h.addr, "/api").unwrap().status, 405);
    // Still answering, and nothing was answered by the garbage.
    assert_eq!(phone.send(&phone.request(Op::List)).unwrap().0, 200);
    assert!(h.answers().is_empty());
}

#[test]
fn a_flood_from_one_address_is_slowed_down() {
    let h = Harness::loopback("flood");
    let statuses: Vec<u16> = (0..60)
        .map(|_| client::get(h.addr, "/").unwrap().status)
        .collect();
    assert!(statuses.contains(&429), "{statuses:?}");
    assert_eq!(statuses[0], 200);
}

#[test]
fn the_page_is_served_only_while_the_link_is_enabled() {
    let mut h = Harness::loopback("stop");
    assert_eq!(client::get(h.addr, "/").unwrap().status, 200);
    assert!(h.link.offer().is_some());
    h.link.stop();
    assert!(client::get(h.addr, "/").is_err(), "the port is closed");
    assert!(h.link.offer().is_none(), "no QR code while disabled");
}

#[test]
fn devices_and_keys_survive_a_restart_so_the_phone_stays_paired() {
    let mut h = Harness::loopback("restart");
    let phone = h.paired("p");
    let first_key = h.link.offer().unwrap().app_sign_key;
    h.link.stop();
    let sink: vults_phone::CommandSink = Arc::new(|_| {});
    let mut again = PhoneLink::new(&h.paths, sink).unwrap();
    let addr = again.start(LinkConfig::loopback(0)).unwrap();
    assert_eq!(again.offer().unwrap().app_sign_key, first_key);
    assert_eq!(again.devices().len(), 1);
    // Without a keyring service (as here) the keys are in a file only the user can read.
    match again.key_storage() {
        vults_phone::KeyStorage::File { path, .. } => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(path).unwrap().permissions().mode();
                assert_eq!(mode & 0o777, 0o600);
            }
            let _ = path;
        }
        vults_phone::KeyStorage::Keyring => {}
    }
    let mut moved = PhoneClient::new(addr);
    moved.sign = phone.sign.clone();
    moved.device = phone.device.clone();
    moved.seal = phone.seal.clone();
    let (status, reply) = moved.send(&moved.request(Op::List)).unwrap();
    assert_eq!(status, 200, "{reply:?}");
}

#[test]
fn the_qr_code_is_a_square_with_finder_patterns() {
    let h = Harness::loopback("qr");
    let offer = h.link.offer().unwrap();
    assert!(offer.url.contains("#v=1&t="), "{}", offer.url);
    let m = qr_modules(&offer);
    let n = m.len();
    assert!(n >= 21 && m.iter().all(|row| row.len() == n));
    // The top-left finder: a dark 7×7 ring around a light ring around a dark 3×3.
    assert!((0..7).all(|i| m[0][i] && m[6][i] && m[i][0] && m[i][6]));
    assert!((1..6).all(|i| !m[1][i] && !m[5][i]));
    assert!(m[3][3]);
}

/// Claude Code's plan review as the engine makes it (docs/other-agents.md, "Plan review").
fn plan_card(id: u64) -> PendingCard {
    let mut c = card(id, false);
    let payload = json!({"session_id":"s1","cwd":"/work/p","tool_name":"ExitPlanMode",
        "tool_input":{"plan": PLAN, "planFilePath": "/home/ana/.claude/plans/p.md"}});
    c.call = read_tool_call(&payload);
    c.always_rule = None;
    c.context.plan = Some(PLAN.into());
    c
}

const PLAN: &str = "# Plan\n\n1. Write the marker\n2. Check it\n";

#[test]
fn a_plan_card_shows_the_plan_and_keep_planning_sends_the_signed_feedback() {
    let h = Harness::loopback("plan");
    let phone = h.paired("p");
    h.link
        .on_engine_event(&EngineEvent::CardAdded(plan_card(5)));
    let (_, reply) = phone.send(&phone.request(Op::List)).unwrap();
    let listed = &reply.expect("a reply")["cards"][0];
    assert_eq!(listed["plan"], PLAN);
    assert_eq!(listed["always"], false);

    // The feedback is a line of the signed message: changed on the way, it does not verify.
    let words = "Also say how the marker is checked\nanswer=allow";
    let m = phone
        .answer(5, WireAnswer::DenyWith(words.into()))
        .to_message();
    assert_eq!(
        m.lines().filter(|l| l.starts_with("answer=")).count(),
        1,
        "{m}"
    );
    let sig = crypto::sign(&phone.sign, m.as_bytes());
    let altered = m.replace("Also say", "Just do");
    let (status, reply) = phone.send_raw(&phone.envelope(&altered, &sig)).unwrap();
    h.assert_refused(status, reply, "bad signature", "p");

    // Words fit only a plan card's deny, and only up to MAX_FEEDBACK bytes.
    h.add_card(6, false);
    let (status, reply) = phone
        .send(&phone.answer(6, WireAnswer::DenyWith("x".into())))
        .unwrap();
    h.assert_refused(status, reply, "answer does not fit the card", "p");
    let long = "y".repeat(vults_core::answer::MAX_FEEDBACK + 1);
    let (status, reply) = phone
        .send(&phone.answer(5, WireAnswer::DenyWith(long)))
        .unwrap();
    assert_ne!(status, 200, "{reply:?}");
    assert!(h.answers().is_empty());

    let (status, _) = phone.send_raw(&phone.envelope(&m, &sig)).unwrap();
    assert_eq!(status, 200);
    assert_eq!(
        h.answers(),
        vec![EngineCommand::Answer {
            card: 5,
            answer: CardAnswer::DenyWith(words.into()),
            by: AnsweredBy::Phone(format!("p ({})", phone.device)),
        }]
    );
}
