//! The phone over a broker, without a broker: the frames the broker would carry handed to the
//! gate (the same one the LAN uses) — pairing sealed to the app's key, answers, one nonce
//! table across both transports, refusals audited as on the LAN — and a broker that cannot
//! be reached leaving the LAN link alone. The run through a real Mosquitto and a real
//! browser is `phone_broker.rs`.

use serde_json::{Value, json};
use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use vults_core::agents::read_tool_call;
use vults_core::paths::Paths;
use vults_core::protocol::{AgentKind, Identity};
use vults_core::rules::AlwaysRule;
use vults_engine::messages::{CardAnswer, EngineCommand, EngineEvent, PendingCard, SessionKey};
use vults_phone::client::PhoneClient;
use vults_phone::crypto::{self, Op, WireAnswer};
use vults_phone::devices::DeviceStore;
use vults_phone::gate::Gate;
use vults_phone::{BrokerConfig, BrokerState, LinkConfig, PairingOffer, PhoneAction, PhoneLink};

const LAN_HOST: IpAddr = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 7));
const NOW: u64 = 2_000_000_000_000;

type Sent = Arc<Mutex<Vec<EngineCommand>>>;

fn home(name: &str) -> vults_tests::TempHome {
    vults_tests::TempHome::empty(&format!("bg-{name}"))
}

fn gate(name: &str) -> (vults_tests::TempHome, Gate, Sent) {
    let home = home(name);
    let store = DeviceStore::load(&home.dir.join("devices.json")).unwrap();
    let sent: Sent = Arc::default();
    let sink = sent.clone();
    let gate = Gate::new(
        crypto::AppKeys::generate(),
        store,
        Arc::new(move |c| sink.lock().unwrap().push(c)),
        NOW - 10_000,
    );
    (home, gate, sent)
}

fn audit(sent: &Sent) -> Vec<Value> {
    sent.lock()
        .unwrap()
        .iter()
        .filter_map(|c| match c {
            EngineCommand::Record(e) => Some(serde_json::to_value(e).unwrap()),
            _ => None,
        })
        .collect()
}

fn answers(sent: &Sent) -> Vec<EngineCommand> {
    sent.lock()
        .unwrap()
        .iter()
        .filter(|c| !matches!(c, EngineCommand::Record(_)))
        .cloned()
        .collect()
}

/// The offer a QR code would carry for the gate's current code.
fn offer(gate: &Gate) -> PairingOffer {
    let (token, expires_at) = gate.new_token(NOW);
    let (sign, boxk) = gate.public_keys();
    PairingOffer {
        url: String::new(),
        token,
        expires_at,
        app_sign_key: crypto::b64(&sign),
        app_box_key: crypto::b64(&boxk),
        broker: Some(("wss://broker.test/".into(), gate.pairing_topic().unwrap())),
        phone_login: None,
    }
}

/// Pairs a new phone over the "broker" (frames handed to the gate).
fn pair(gate: &Gate, name: &str) -> PhoneClient {
    let mut phone = PhoneClient::new("127.0.0.1:9".parse().unwrap());
    let offer = offer(gate);
    let topic = offer.broker.clone().unwrap().1;
    let frame = phone.broker_pair_frame(&offer, name).unwrap();
    let reply = gate
        .broker_pair(&topic, &frame, NOW)
        .expect("a sealed reply");
    assert_eq!(phone.broker_pair_reply(&offer, &reply), Some(200));
    phone
}

fn card(id: u64) -> PendingCard {
    let identity = Identity::Builtin(AgentKind::Claude);
    let payload = json!({"session_id":"s1","cwd":"/work/p","tool_name":"Bash",
        "tool_input":{"command":"cargo publish"}});
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

/// (nonce, ciphertext) of a LAN envelope, as a broker frame: the same sealed bytes.
fn as_frame(envelope: &[u8]) -> Vec<u8> {
    let v: Value = serde_json::from_slice(envelope).unwrap();
    let n = crypto::unb64_array::<12>(v["n"].as_str().unwrap()).unwrap();
    let c = crypto::unb64(v["c"].as_str().unwrap()).unwrap();
    crypto::frame(&[], &n, &c)
}

fn signed(phone: &PhoneClient, req: &crypto::SignedRequest) -> Vec<u8> {
    let m = req.to_message();
    phone.envelope(&m, &crypto::sign(&phone.sign, m.as_bytes()))
}

#[test]
fn pairing_and_answers_over_the_broker_go_through_the_gate() {
    let (home, gate, sent) = gate("answer");
    let phone = pair(&gate, "Train phone");
    let topic = phone.broker_topic().unwrap();
    assert!(
        gate.broker_topics(NOW)
            .devices
            .contains(&(topic.clone(), phone.device.clone()))
    );
    gate.on_engine_event(&EngineEvent::CardAdded(card(7)));

    let mut req = phone.answer(7, WireAnswer::Allow);
    req.time_ms = NOW;
    let out = gate.broker_request(&topic, &phone.broker_frame(&req).unwrap(), NOW);
    assert!(!out.refused);
    let reply = phone.open_frame(&out.frame.unwrap()).unwrap();
    assert_eq!(reply["ok"], true);
    assert_eq!(reply["re"], req.nonce.as_str());
    assert!(matches!(
        out.command,
        Some(EngineCommand::Answer {
            card: 7,
            answer: CardAnswer::Allow,
            ..
        })
    ));
    // The same frame again: refused and audited by the device, no second answer.
    let again = gate.broker_request(&topic, &phone.broker_frame(&req).unwrap(), NOW);
    assert!(again.refused && again.command.is_none());
    let refused = phone.open_frame(&again.frame.unwrap()).unwrap();
    assert_eq!(refused["refused"], "nonce already used");
    let last = audit(&sent).pop().unwrap();
    assert_eq!(
        last["by"],
        format!("phone:Train phone ({})", phone.device).as_str()
    );
    assert!(
        last["detail"]
            .as_str()
            .unwrap()
            .starts_with("nonce already used")
    );
    drop(home);
}

#[test]
fn a_nonce_seen_on_one_transport_is_a_replay_on_the_other() {
    let (home, gate, sent) = gate("replay");
    let phone = pair(&gate, "Phone");
    let topic = phone.broker_topic().unwrap();

    // LAN first, then the same sealed bytes over the broker.
    let mut req = phone.request(Op::List);
    req.time_ms = NOW;
    let envelope = signed(&phone, &req);
    assert_eq!(gate.api(&envelope, LAN_HOST, NOW).0.status, 200);
    let out = gate.broker_request(&topic, &as_frame(&envelope), NOW);
    assert!(out.refused);
    assert_eq!(
        phone.open_frame(&out.frame.unwrap()).unwrap()["refused"],
        "nonce already used"
    );

    // Broker first, then the LAN.
    let mut req = phone.request(Op::List);
    req.time_ms = NOW;
    let envelope = signed(&phone, &req);
    assert!(
        !gate
            .broker_request(&topic, &as_frame(&envelope), NOW)
            .refused
    );
    let (reply, command) = gate.api(&envelope, LAN_HOST, NOW);
    assert_eq!(reply.status, 403);
    assert!(command.is_none());
    let refusals = audit(&sent)
        .iter()
        .filter(|e| {
            e["detail"]
                .as_str()
                .is_some_and(|d| d.starts_with("nonce already used"))
        })
        .count();
    assert_eq!(refusals, 2, "both replays audited");
    drop(home);
}

#[test]
fn frames_on_the_wrong_topic_or_malformed_are_refused_and_audited() {
    let (home, gate, sent) = gate("wrong");
    let first = pair(&gate, "First");
    let second = pair(&gate, "Second");
    let (t1, t2) = (
        first.broker_topic().unwrap(),
        second.broker_topic().unwrap(),
    );
    assert_ne!(t1, t2);
    let mut req = first.request(Op::List);
    req.time_ms = NOW;
    let frame = first.broker_frame(&req).unwrap();

    // The first phone's request on the second's topic: its seal does not open there.
    let out = gate.broker_request(&t2, &frame, NOW);
    assert!(out.refused && out.frame.is_none() && out.command.is_none());
    let last = audit(&sent).pop().unwrap();
    assert_eq!(
        last["by"],
        format!("phone:Second ({})", second.device).as_str()
    );
    let detail = last["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("seal does not open") && detail.contains("from the broker, topic"),
        "{detail}"
    );
    // It was not used up there: on its own topic it still counts.
    assert!(!gate.broker_request(&t1, &frame, NOW).refused);

    // A topic no device has, a frame of another version, a frame too short: refused, no reply.
    let unknown = crypto::hex(&crypto::random::<16>());
    let out = gate.broker_request(&unknown, &frame, NOW + 20_000);
    assert!(out.refused && out.frame.is_none());
    let mut v2 = first.broker_frame(&req).unwrap();
    v2[0] = 2;
    assert!(gate.broker_request(&t1, &v2, NOW + 40_000).refused);
    assert!(gate.broker_request(&t1, &[1, 2, 3], NOW + 60_000).refused);
    let details: Vec<String> = audit(&sent)
        .iter()
        .filter_map(|e| e["detail"].as_str().map(str::to_string))
        .collect();
    assert!(
        details
            .iter()
            .any(|d| d.starts_with("unknown device") && d.contains(&unknown[..8])),
        "{details:?}"
    );
    assert!(answers(&sent).is_empty());
    drop(home);
}

#[test]
fn pairing_over_the_broker_is_sealed_single_use_and_refused_otherwise() {
    let (home, gate, sent) = gate("pairing");
    let offer = offer(&gate);
    let topic = offer.broker.clone().unwrap().1;
    let mut phone = PhoneClient::new("127.0.0.1:9".parse().unwrap());
    let frame = phone.broker_pair_frame(&offer, "Phone").unwrap();
    // Nothing of the request is in clear: not the token, the name or a key.
    let text = String::from_utf8_lossy(&frame);
    for secret in [offer.token.as_str(), "Phone", &phone.sign_public()] {
        assert!(!text.contains(secret), "{secret} in clear");
    }

    // Sealed to another app: does not open, refused and audited, no reply.
    let other = crypto::AppKeys::generate();
    let wrong = PairingOffer {
        app_box_key: crypto::b64(&other.box_public()),
        ..offer.clone()
    };
    let stranger = PhoneClient::new("127.0.0.1:9".parse().unwrap());
    let bad = stranger.broker_pair_frame(&wrong, "Stranger").unwrap();
    assert!(gate.broker_pair(&topic, &bad, NOW).is_none());
    let last = audit(&sent).pop().unwrap();
    assert_eq!(last["by"], "phone:unknown");
    assert!(
        last["detail"]
            .as_str()
            .unwrap()
            .starts_with("pairing refused: seal does not open (from the broker, topic"),
        "{last}"
    );
    assert!(gate.token_open(&offer.token, NOW), "the token is not spent");

    // Moved to another code's topic: the seal is bound to the topic.
    let elsewhere = crypto::hex(&crypto::random::<16>());
    assert!(gate.broker_pair(&elsewhere, &frame, NOW + 11_000).is_none());

    // The good one pairs; the same frame again is refused (the token is spent).
    let reply = gate.broker_pair(&topic, &frame, NOW).unwrap();
    assert_eq!(phone.broker_pair_reply(&offer, &reply), Some(200));
    let again = gate.broker_pair(&topic, &frame, NOW + 22_000).unwrap();
    let mut replayed = PhoneClient::new("127.0.0.1:9".parse().unwrap());
    replayed.boxing = phone.boxing.clone();
    replayed.sign = phone.sign.clone();
    assert_eq!(replayed.broker_pair_reply(&offer, &again), Some(410));
    assert!(audit(&sent).iter().any(|e| {
        e["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("pairing refused: pairing token already used"))
    }));

    // Revoked: its requests over the broker are refused as on the LAN.
    gate.revoke(&phone.device, NOW).unwrap();
    let mut req = phone.request(Op::List);
    req.time_ms = NOW;
    let out = gate.broker_request(
        &phone.broker_topic().unwrap(),
        &phone.broker_frame(&req).unwrap(),
        NOW + 33_000,
    );
    assert!(out.refused && out.frame.is_none());
    assert!(
        audit(&sent).pop().unwrap()["detail"]
            .as_str()
            .unwrap()
            .starts_with("revoked device")
    );
    drop(home);
}

/// A CA file rustls accepts (its certificate is never presented: the broker is not there).
fn ca_file(dir: &std::path::Path) -> PathBuf {
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let cert = params.self_signed(&key).unwrap();
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(cert.der());
    let body: Vec<&str> = b64
        .as_bytes()
        .chunks(64)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    let path = dir.join("ca.pem");
    std::fs::write(
        &path,
        format!(
            "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n",
            body.join("\n")
        ),
    )
    .unwrap();
    path
}

#[test]
fn a_broker_that_cannot_be_reached_leaves_the_lan_link_alone() {
    let temp = home("down");
    let home = temp.dir.clone();
    let h = home.clone();
    let paths = Paths::resolve(move |k| (k == "VULTS_HOME").then(|| h.clone()));
    let sent: Sent = Arc::default();
    let sink = sent.clone();
    let mut link = PhoneLink::new(&paths, Arc::new(move |c| sink.lock().unwrap().push(c))).unwrap();
    let addr = link.start(LinkConfig::loopback(0)).unwrap();
    // A port nothing listens on.
    let dead = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = BrokerConfig {
        url: format!("wss://127.0.0.1:{dead}/"),
        ca_file: Some(ca_file(&home)),
        enabled: true,
        ..BrokerConfig::default()
    };
    link.start_broker(config, None).unwrap();
    let started = Instant::now();
    loop {
        if let Some(BrokerState::Reconnecting { error, .. }) = link.broker_state() {
            assert!(!error.is_empty());
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            link.broker_state()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Settings reads its state at once, and shows it.
    let t = Instant::now();
    let status = link.status();
    assert!(t.elapsed() < Duration::from_millis(200));
    assert!(matches!(
        status.broker.state,
        Some(BrokerState::Reconnecting { .. })
    ));

    // The LAN link pairs and answers as ever.
    let offer = link.offer().unwrap();
    // The code names both: the page falls back to the LAN while the broker is down.
    assert!(
        offer
            .url
            .starts_with(&format!("http://127.0.0.1:{}/#", addr.port()))
    );
    assert!(offer.broker.is_some());
    let mut phone = PhoneClient::new(std::net::SocketAddr::from(([127, 0, 0, 1], addr.port())));
    assert_eq!(phone.pair(&offer, "LAN phone").unwrap().status, 200);
    link.on_engine_event(&EngineEvent::CardAdded(card(3)));
    let (status, reply) = phone.send(&phone.answer(3, WireAnswer::Deny)).unwrap();
    assert_eq!(status, 200, "{reply:?}");
    assert!(matches!(
        answers(&sent).as_slice(),
        [EngineCommand::Answer {
            card: 3,
            answer: CardAnswer::Deny,
            ..
        }]
    ));

    // Turning the broker off from Settings leaves the LAN link on.
    link.apply(PhoneAction::BrokerOff);
    assert_eq!(link.broker_state(), None);
    assert_eq!(link.address().map(|a| a.port()), Some(addr.port()));
    link.stop();
    drop(home);
}

#[test]
fn bad_broker_settings_are_a_clear_error_and_an_unreadable_file_is_kept() {
    let temp = home("settings");
    let home = temp.dir.clone();
    let h = home.clone();
    let paths = Paths::resolve(move |k| (k == "VULTS_HOME").then(|| h.clone()));
    let mut link = PhoneLink::new(&paths, Arc::new(|_| {})).unwrap();
    link.apply(PhoneAction::Broker(vults_phone::BrokerSettings {
        config: BrokerConfig {
            url: "mqtt://broker.example".into(),
            ..BrokerConfig::default()
        },
        password: None,
        phone_password: None,
    }));
    let status = link.status();
    let error = status.broker.error.expect("the broker's error");
    assert!(error.contains("TLS"), "{error}");
    assert_eq!(
        status.error, None,
        "shown beside the broker, not as the link's"
    );
    assert_eq!(link.broker_state(), None);
    let file = vults_phone::broker_file(&paths);
    assert!(!file.exists(), "nothing saved");
    drop(link);

    // A settings file that does not parse: reported, and left as it is.
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "{ not json").unwrap();
    let mut link = PhoneLink::new(&paths, Arc::new(|_| {})).unwrap();
    let error = link.status().broker.error.expect("the file's error");
    assert!(error.contains("cannot be read"), "{error}");
    link.apply(PhoneAction::BrokerOff);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{ not json");
    drop(link);
    drop(home);
}

/// A broker replays one captured request 1,000 times (4.5 a second, as measured through
/// Mosquitto): each still opens and verifies, and is refused, but the audit gets at most the
/// device's budget (a burst of 20, then one line per 6 s) and summary lines counting the rest,
/// one a minute and one when the link stops — not 1,000 lines that rotate the real history out.
/// Settings → Phone keeps its 40 latest, the summaries among them.
#[test]
fn one_captured_frame_replayed_1000_times_adds_a_bounded_number_of_audit_lines() {
    use vults_phone::gate::{DEVICE_BURST, DEVICE_REFILL_MS, SUMMARY_INTERVAL_MS};
    let (home, gate, sent) = gate("flood");
    let phone = pair(&gate, "Pocket");
    let topic = phone.broker_topic().unwrap();
    let mut req = phone.request(Op::List);
    req.time_ms = NOW;
    let frame = phone.broker_frame(&req).unwrap();
    assert!(!gate.broker_request(&topic, &frame, NOW).refused);
    let before = audit(&sent).len();
    let mut now = NOW;
    for i in 0..1000u64 {
        now = NOW + i * 1000 / 45 * 10; // 4.5 a second
        let out = gate.broker_request(&topic, &frame, now);
        assert!(out.refused && out.command.is_none());
    }
    gate.flush(now + 1, true); // the link stops
    let lines: Vec<Value> = audit(&sent).split_off(before);
    let seconds = (now - NOW) / 1000;
    let bound = DEVICE_BURST as u64
        + seconds * 1000 / DEVICE_REFILL_MS
        + 1
        + seconds * 1000 / SUMMARY_INTERVAL_MS
        + 2;
    assert!(
        (lines.len() as u64) <= bound,
        "{} audit lines for 1,000 replays in {seconds} s (at most {bound})",
        lines.len()
    );
    let summarized: u64 = lines
        .iter()
        .filter_map(|e| {
            let d = e["detail"].as_str()?;
            d.contains("more refused requests of device")
                .then(|| d.split_whitespace().next()?.parse::<u64>().ok())?
        })
        .sum();
    let one_by_one = lines
        .iter()
        .filter(|e| {
            e["detail"].as_str().is_some_and(|d| {
                d.starts_with("nonce already used") || d.starts_with("time outside")
            })
        })
        .count() as u64;
    assert_eq!(
        one_by_one + summarized,
        1000,
        "every refusal is written or counted: {lines:?}"
    );
    assert!(lines.iter().all(
        |e| e["by"] == format!("phone:Pocket ({})", phone.device).as_str()
            && e["decision"] == "refused"
    ));
    // A second device's refusal still gets its own line: the budget is per device.
    let other = pair(&gate, "Other");
    let mut r = other.request(Op::List);
    r.time_ms = now;
    let f = other.broker_frame(&r).unwrap();
    let t = other.broker_topic().unwrap();
    assert!(!gate.broker_request(&t, &f, now).refused);
    assert!(gate.broker_request(&t, &f, now).refused);
    let last = audit(&sent).pop().unwrap();
    assert!(last["by"].as_str().unwrap().contains("Other"), "{last}");
    drop(home);
}

/// A Write card of `kb` KiB of new text (its diff in the card too).
fn big_card(id: u64, kb: usize) -> PendingCard {
    let mut c = card(id);
    let content: String = (0..kb * 1024 / 12)
        .map(|i| format!("line {i:06}\n"))
        .collect();
    let payload = json!({"session_id":"s1","cwd":"/work/p","tool_name":"Write",
        "tool_input":{"file_path":format!("/work/p/f{id}.txt"),"content":content}});
    c.call = read_tool_call(&payload);
    c.always_rule = Some(AlwaysRule::for_call(&c.identity, "/work/p", &c.call, 0));
    c
}

/// A card list larger than the broker takes (three Writes of 1.5 MiB: over 4.5 MiB of JSON)
/// is sent under the limit, its largest cards cut — and a cut card takes only Deny from that
/// phone, whose page could not show what an Allow would authorize; shown whole over the LAN, it
/// takes an Allow again. A broker whose CONNACK names a smaller limit gets smaller replies.
#[test]
fn a_card_list_over_the_brokers_limit_is_sent_cut_and_a_cut_card_takes_only_deny() {
    use vults_phone::gate::{BROKER_OVERHEAD, MAX_BROKER_REPLY};
    let (home, gate, _sent) = gate("big");
    let phone = pair(&gate, "Phone");
    let topic = phone.broker_topic().unwrap();
    for id in 1..=3 {
        gate.on_engine_event(&EngineEvent::CardAdded(big_card(id, 1536)));
    }
    gate.on_engine_event(&EngineEvent::CardAdded(card(4)));
    let list = |now: u64| {
        let mut req = phone.request(Op::List);
        req.time_ms = now;
        let out = gate.broker_request(&topic, &phone.broker_frame(&req).unwrap(), now);
        let frame = out.frame.unwrap();
        (frame.len(), phone.open_frame(&frame).unwrap())
    };
    let (size, reply) = list(NOW);
    assert!(size <= MAX_BROKER_REPLY + 64, "{size} bytes");
    let cards = reply["cards"].as_array().unwrap();
    assert_eq!(cards.len(), 4);
    let cut: Vec<u64> = cards
        .iter()
        .filter(|c| c["too_large"].is_u64())
        .map(|c| c["id"].as_u64().unwrap())
        .collect();
    assert_eq!(
        cut,
        [1, 2, 3],
        "the big ones are cut, the small one is whole"
    );
    assert_eq!(cards[0]["target"]["type"], "cut");
    assert!(cards[0]["too_large"].as_u64().unwrap() > 1024 * 1024);
    assert_eq!(cards[3]["target"]["command"], "cargo publish");
    // A smaller limit from the broker.
    gate.set_broker_packet_limit(Some(300 * 1024));
    let (size, _) = list(NOW + 1);
    assert!(size <= 300 * 1024 - BROKER_OVERHEAD + 64, "{size} bytes");
    gate.set_broker_packet_limit(None);
    // A cut card: Allow and Always refused, Deny taken.
    for answer in [WireAnswer::Allow, WireAnswer::Always] {
        let mut req = phone.answer(1, answer);
        req.time_ms = NOW + 2;
        let out = gate.broker_request(&topic, &phone.broker_frame(&req).unwrap(), NOW + 2);
        assert!(out.refused && out.command.is_none());
        let r = phone.open_frame(&out.frame.unwrap()).unwrap();
        assert!(
            r["refused"].as_str().unwrap().starts_with("card too large"),
            "{r}"
        );
    }
    let mut req = phone.answer(1, WireAnswer::Deny);
    req.time_ms = NOW + 3;
    let out = gate.broker_request(&topic, &phone.broker_frame(&req).unwrap(), NOW + 3);
    assert!(matches!(
        out.command,
        Some(EngineCommand::Answer {
            card: 1,
            answer: CardAnswer::Deny,
            ..
        })
    ));
    // Over the LAN (no limit) card 2 is shown whole: it takes an Allow.
    let mut req = phone.request(Op::List);
    req.time_ms = NOW + 4;
    let (reply, _) = gate.api(&signed(&phone, &req), LAN_HOST, NOW + 4);
    assert_eq!(reply.status, 200);
    let mut req = phone.answer(2, WireAnswer::Allow);
    req.time_ms = NOW + 5;
    let (reply, command) = gate.api(&signed(&phone, &req), LAN_HOST, NOW + 5);
    assert_eq!(reply.status, 200);
    assert!(matches!(
        command,
        Some(EngineCommand::Answer {
            card: 2,
            answer: CardAnswer::Allow,
            ..
        })
    ));
    drop(home);
}

/// A card's JSON, its diff included, is made once, when it comes — not on every poll under the
/// gate's lock, where a large edit's diff stalled the link for every phone.
#[test]
fn a_cards_json_is_made_once_however_often_phones_poll() {
    let (home, gate, _sent) = gate("once");
    let phone = pair(&gate, "Phone");
    let topic = phone.broker_topic().unwrap();
    let before = vults_phone::gate::card_json_calls();
    gate.on_engine_event(&EngineEvent::CardAdded(big_card(1, 256)));
    gate.on_engine_event(&EngineEvent::CardAdded(card(2)));
    for i in 0..10 {
        let mut req = phone.request(Op::List);
        req.time_ms = NOW + i;
        let out = gate.broker_request(&topic, &phone.broker_frame(&req).unwrap(), NOW + i);
        assert!(!out.refused);
        let mut req = phone.request(Op::List);
        req.time_ms = NOW + i;
        assert_eq!(
            gate.api(&signed(&phone, &req), LAN_HOST, NOW + i).0.status,
            200
        );
    }
    assert_eq!(
        vults_phone::gate::card_json_calls() - before,
        2,
        "one per card, none per poll"
    );
    drop(home);
}
