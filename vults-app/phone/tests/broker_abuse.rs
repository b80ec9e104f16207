//! The broker link against what anyone holding the broker's login can do, through a real
//! Mosquitto (Debian's, on 127.0.0.1, free ports): the app (`phone_broker_e2e`, LAN link off,
//! over WSS) and an independent phone (this test's `PhoneClient`, on a plain listener, paired
//! over the broker) — then, from the same client:
//!
//! 1. a retained 100 KiB frame on the device's request topic: the app told the broker its
//!    maximum packet size (MQTT 5), so the broker drops that frame instead of sending it; the
//!    link stays up (one connection, no reconnect) and answers all 10 of 10 lists (under MQTT
//!    3.1.1 it dropped and re-opened its connection about once a second, answering nothing);
//! 2. a card list of over 9 MB (four Writes over 500 KiB files — their diffs, every line
//!    removed — made by real `vults-hook` calls): each list is answered under the packet limit, its cards cut, the link still up
//!    (a list over 4 MiB ended the connection on every poll); a cut card takes a Deny;
//! 3. one captured list request replayed 1,000 times: a bounded number of audit lines, and the
//!    rest counted in a summary line written when the broker link is turned off.
//!
//! Runs when `VULTS_PHONE_BROWSER=1` (as the other broker tests; CI installs `mosquitto`).

use crate::broker_support::{
    App, Broker, audit, build_e2e, certificates, free_ports, lines_of, wait_line,
};
use rumqttc::{Client, Event, MqttOptions, Packet, QoS};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use vults_phone::client::{PhoneClient, offer_from_url};
use vults_phone::crypto::{Op, WireAnswer};
use vults_phone::gate::{DEVICE_BURST, DEVICE_REFILL_MS, MAX_BROKER_REPLY};

type Seen = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

/// The app's connections to the broker so far, as Mosquitto logged them (its client ids are
/// `vults-<hex>`; this test's is `abuse-test`), and whether each spoke MQTT 5.
fn app_connections(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("New client connected") && l.contains(" as vults-"))
        .map(str::to_string)
        .collect()
}

/// Waits until Mosquitto has logged a subscription to `topic` (only the app subscribes to a
/// `…/a` topic here; this test's client listens on `vults/+/p`). A frame published before it
/// would be lost, and the link subscribes within its sync interval: waiting for the log, not
/// for a fixed time, keeps a loaded machine from losing the frame.
fn wait_subscribed(log: &Path, topic: &str) {
    let line = format!("\t{topic} (QoS");
    vults_tests::eventually(&format!("the app's subscription to {topic}"), || {
        std::fs::read_to_string(log)
            .unwrap_or_default()
            .contains(&line)
    });
}

/// The reply to `frame` (a request whose nonce is `nonce`) on the device's `…/p` topic.
fn ask(
    client: &Client,
    seen: &Seen,
    phone: &PhoneClient,
    topic: &str,
    frame: Vec<u8>,
    nonce: &str,
    within: Duration,
) -> Option<(usize, Value)> {
    let from = seen.lock().unwrap().len();
    client
        .publish(format!("vults/{topic}/a"), QoS::AtMostOnce, false, frame)
        .unwrap();
    let deadline = Instant::now() + within;
    let reply_topic = format!("vults/{topic}/p");
    while Instant::now() < deadline {
        let found = seen.lock().unwrap()[from..]
            .iter()
            .filter(|(t, _)| *t == reply_topic)
            .find_map(|(_, p)| {
                let v = phone.open_frame(p)?;
                (v["re"] == nonce).then_some((p.len(), v))
            });
        if found.is_some() {
            return found;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
}

#[test]
fn a_hostile_broker_client_leaves_the_link_answering_and_the_audit_bounded() {
    if std::env::var("VULTS_PHONE_BROWSER").as_deref() != Ok("1") {
        eprintln!("skipped: set VULTS_PHONE_BROWSER=1 (needs mosquitto)");
        return;
    }
    let (app_bin, hook_bin) = build_e2e();
    let temp = vults_tests::TempHome::empty("broker-abuse");
    let home = temp.dir.clone();
    std::fs::create_dir_all(&home).unwrap();
    let (ca, cert, key) = certificates(&home, &["127.0.0.1"]);
    let [plain, wss] = free_ports();
    let broker = Broker::anonymous(&home, [plain, wss], (&cert, &key), None);
    let log = broker.log.clone();

    // This test's client: the phone's transport, and the attacker's.
    let mut options = MqttOptions::new("abuse-test", "127.0.0.1", plain);
    options.set_max_packet_size(16 * 1024 * 1024, 1024 * 1024);
    options.set_keep_alive(Duration::from_secs(5));
    let (client, mut connection) = Client::new(options, 2000);
    let seen: Seen = Arc::default();
    let (sub, record) = (client.clone(), seen.clone());
    let (ready_tx, ready) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for event in connection.iter() {
            match event {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    let _ = sub.try_subscribe("vults/+/p", QoS::AtMostOnce);
                }
                Ok(Event::Incoming(Packet::SubAck(_))) => {
                    let _ = ready_tx.send(());
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    record
                        .lock()
                        .unwrap()
                        .push((p.topic.clone(), p.payload.to_vec()));
                }
                Ok(_) => {}
                Err(_) => std::thread::sleep(Duration::from_millis(200)),
            }
        }
    });
    ready
        .recv_timeout(Duration::from_secs(10))
        .expect("subscribed");

    // The app.
    let socket = home.join("vults.sock");
    let env = [
        ("HOME", home.join("home")),
        ("VULTS_HOME", home.clone()),
        ("VULTS_SOCKET", socket.clone()),
    ];
    let url = format!("wss://127.0.0.1:{wss}/");
    let mut child = Command::new(&app_bin)
        .arg(&url)
        .args(["--ca".as_ref(), ca.as_os_str()])
        .args(["--phone", &url])
        .args(["--page", &format!("https://127.0.0.1:{wss}/")])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start phone_broker_e2e");
    let app_lines = lines_of(&mut child);
    let mut app = App {
        stdin: child.stdin.take(),
        child,
    };
    let pair_url = wait_line(&app_lines, "vults-phone-e2e: pair ");
    let offer = offer_from_url(&pair_url).expect("the pairing URL's fragment");
    let (_, pair_topic) = offer.broker.clone().expect("the code names the broker");
    wait_subscribed(&log, &format!("vults/{pair_topic}/a"));
    let connections = app_connections(&log);
    assert_eq!(connections.len(), 1, "{connections:?}");
    assert!(connections[0].contains("(p5,"), "MQTT 5: {connections:?}");

    // The phone pairs over the broker.
    let mut phone = PhoneClient::new("127.0.0.1:9".parse().unwrap());
    let frame = phone.broker_pair_frame(&offer, "Abused phone").unwrap();
    let from = seen.lock().unwrap().len();
    client
        .publish(
            format!("vults/{pair_topic}/a"),
            QoS::AtMostOnce,
            false,
            frame,
        )
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let reply = loop {
        let r = seen.lock().unwrap()[from..]
            .iter()
            .find(|(t, _)| *t == format!("vults/{pair_topic}/p"))
            .map(|(_, p)| p.clone());
        if let Some(r) = r {
            break r;
        }
        assert!(Instant::now() < deadline, "no pairing reply");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(phone.broker_pair_reply(&offer, &reply), Some(200));
    let topic = phone.broker_topic().unwrap();
    wait_subscribed(&log, &format!("vults/{topic}/a"));
    let list = |within: Duration| {
        let req = phone.request(Op::List);
        let frame = phone.broker_frame(&req).unwrap();
        ask(&client, &seen, &phone, &topic, frame, &req.nonce, within)
    };
    assert!(list(Duration::from_secs(10)).is_some(), "the first list");

    // 1. A retained 100 KiB frame on the device's request topic.
    let mut junk = vec![1u8; 100 * 1024];
    for (i, b) in junk.iter_mut().enumerate().skip(1) {
        *b = (i * 7919 % 251) as u8;
    }
    client
        .publish(format!("vults/{topic}/a"), QoS::AtLeastOnce, true, junk)
        .unwrap();
    let mut answered = 0;
    for _ in 0..10 {
        if list(Duration::from_secs(2)).is_some() {
            answered += 1;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    let connections = app_connections(&log);
    assert_eq!(
        (answered, connections.len()),
        (10, 1),
        "10 of 10 lists answered on one connection: {connections:?}\n{}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    client
        .publish(
            format!("vults/{topic}/a"),
            QoS::AtLeastOnce,
            true,
            Vec::new(),
        )
        .unwrap();

    // 2. A card list of over 9 MB: four Writes over 500 KiB files, from real hook calls.
    let project = home.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let mut hooks = Vec::new();
    for n in 0..4 {
        let file = project.join(format!("big{n}.txt"));
        // Short lines: the card's diff (every line removed) is far larger than the file.
        let old: String = (0..500 * 1024 / 3)
            .map(|i| format!("o{}\n", i % 10))
            .collect();
        std::fs::write(&file, old).unwrap();
        // Under the hook's 2,000-byte cut, so the request waits for its card.
        let new = "new\n".repeat(400);
        let payload = json!({"session_id": format!("big{n}"), "cwd": project,
            "hook_event_name": "PermissionRequest", "tool_name": "Write",
            "tool_input": {"file_path": file, "content": new}});
        let mut hook = Command::new(&hook_bin)
            .args(["--agent", "claude", "PermissionRequest"])
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .current_dir(&project)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        hook.stdin
            .take()
            .unwrap()
            .write_all(payload.to_string().as_bytes())
            .unwrap();
        hooks.push(hook);
        wait_line(&app_lines, "vults-phone-e2e: card ");
    }
    let mut sizes = Vec::new();
    for _ in 0..3 {
        let (size, reply) = list(Duration::from_secs(20)).expect("a list of the big cards");
        let cards = reply["cards"].as_array().unwrap().clone();
        assert_eq!(cards.len(), 4, "{reply}");
        let whole: u64 = cards.iter().filter_map(|c| c["too_large"].as_u64()).sum();
        assert!(whole > 9_000_000, "a card list of {whole} bytes");
        assert!(size <= MAX_BROKER_REPLY + 64, "a reply of {size} bytes");
        sizes.push((size, whole));
        std::thread::sleep(Duration::from_millis(300));
    }
    eprintln!("card list replies (sent, whole): {sizes:?}");
    let cards: Vec<u64> = list(Duration::from_secs(20)).unwrap().1["cards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_u64().unwrap())
        .collect();
    for card in cards {
        let req = phone.answer(card, WireAnswer::Deny);
        let frame = phone.broker_frame(&req).unwrap();
        let r = ask(
            &client,
            &seen,
            &phone,
            &topic,
            frame,
            &req.nonce,
            Duration::from_secs(20),
        );
        assert_eq!(r.expect("the deny's reply").1["ok"], true);
    }
    for hook in hooks {
        let out = hook.wait_with_output().unwrap();
        assert!(String::from_utf8_lossy(&out.stdout).contains("deny"));
    }
    assert_eq!(app_connections(&log).len(), 1, "the link stayed up");

    // 3. One captured request replayed 1,000 times (as fast as the app takes them: 40 a second,
    //    under its per-topic limit's refill for a good part of them).
    let req = phone.request(Op::List);
    let captured = phone.broker_frame(&req).unwrap();
    assert!(
        ask(
            &client,
            &seen,
            &phone,
            &topic,
            captured.clone(),
            &req.nonce,
            Duration::from_secs(10)
        )
        .is_some()
    );
    let label = format!("phone:Abused phone ({})", phone.device);
    let refused = |a: &[Value]| -> Vec<Value> {
        a.iter()
            .filter(|e| e["decision"] == "refused" && e["by"] == label.as_str())
            .cloned()
            .collect()
    };
    let before = refused(&audit(&home)).len();
    let t0 = Instant::now();
    for _ in 0..1000 {
        client
            .publish(
                format!("vults/{topic}/a"),
                QoS::AtMostOnce,
                false,
                captured.clone(),
            )
            .unwrap();
        std::thread::sleep(Duration::from_millis(25));
    }
    std::thread::sleep(Duration::from_secs(1));
    let flood_s = t0.elapsed().as_secs();
    writeln!(app.stdin.as_mut().unwrap(), "broker-off").unwrap();
    wait_line(&app_lines, "vults-phone-e2e: broker off done");
    std::thread::sleep(Duration::from_secs(1));
    let lines: Vec<Value> = refused(&audit(&home)).split_off(before);
    let one_by_one = lines
        .iter()
        .filter(|e| {
            e["detail"]
                .as_str()
                .is_some_and(|d| d.starts_with("nonce already used"))
        })
        .count() as u64;
    let summary: Vec<&Value> = lines
        .iter()
        .filter(|e| {
            e["detail"]
                .as_str()
                .is_some_and(|d| d.contains("more refused requests of device"))
        })
        .collect();
    let bound = DEVICE_BURST as u64 + flood_s * 1000 / DEVICE_REFILL_MS + 1;
    eprintln!(
        "1,000 replays in {flood_s} s: {one_by_one} audit lines one by one, {} summary line(s): {:?}",
        summary.len(),
        summary
            .iter()
            .map(|e| e["detail"].clone())
            .collect::<Vec<_>>()
    );
    assert!(one_by_one <= bound, "{one_by_one} lines (at most {bound})");
    assert!(
        !summary.is_empty(),
        "a summary line when the link stopped: {lines:?}"
    );
    assert!(
        lines.len() as u64 <= bound + 3,
        "{} audit lines",
        lines.len()
    );
    drop(app);
    drop(broker);
    let _ = std::fs::remove_dir_all(&home);
}

/// Refusals the flood budget dropped just before a SIGTERM are counted in a summary line the
/// engine audits before it stops (the broker link's last words: `EngineHandle::before_stop`).
/// Before, 20 forged frames and a SIGTERM left no summary at all.
#[test]
fn refusals_dropped_before_a_sigterm_are_summed_up_in_the_audit() {
    if std::env::var("VULTS_PHONE_BROWSER").as_deref() != Ok("1") {
        eprintln!("skipped: set VULTS_PHONE_BROWSER=1 (needs mosquitto)");
        return;
    }
    let (app_bin, _) = build_e2e();
    let temp = vults_tests::TempHome::empty("broker-sigterm");
    let home = temp.dir.clone();
    std::fs::create_dir_all(&home).unwrap();
    let (ca, cert, key) = certificates(&home, &["127.0.0.1"]);
    let [plain, wss] = free_ports();
    let broker = Broker::anonymous(&home, [plain, wss], (&cert, &key), None);
    let log = broker.log.clone();
    let url = format!("wss://127.0.0.1:{wss}/");
    let mut child = Command::new(&app_bin)
        .arg(&url)
        .args(["--ca".as_ref(), ca.as_os_str()])
        .args(["--phone", &url])
        .env("HOME", home.join("home"))
        .env("VULTS_HOME", &home)
        .env("VULTS_SOCKET", home.join("vults.sock"))
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start phone_broker_e2e");
    let app_lines = lines_of(&mut child);
    let mut app = App {
        stdin: child.stdin.take(),
        child,
    };
    let pair_url = wait_line(&app_lines, "vults-phone-e2e: pair ");
    let offer = offer_from_url(&pair_url).expect("the pairing URL's fragment");
    let (_, pair_topic) = offer.broker.clone().expect("the code names the broker");
    let topic = format!("vults/{pair_topic}/a");
    wait_subscribed(&log, &topic);

    // 20 forged frames: the first is audited, the rest only counted (the flood budget)…
    let mut options = MqttOptions::new("sigterm-test", "127.0.0.1", plain);
    options.set_keep_alive(Duration::from_secs(5));
    let (client, mut connection) = Client::new(options, 100);
    let seen: Seen = Arc::default();
    let (sub, record) = (client.clone(), seen.clone());
    let (ready_tx, ready) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for event in connection.iter() {
            match event {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    let _ = sub.try_subscribe("vults/+/p", QoS::AtMostOnce);
                }
                Ok(Event::Incoming(Packet::SubAck(_))) => {
                    let _ = ready_tx.send(());
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    record
                        .lock()
                        .unwrap()
                        .push((p.topic.clone(), p.payload.to_vec()));
                }
                Ok(_) => {}
                Err(_) => std::thread::sleep(Duration::from_millis(200)),
            }
        }
    });
    ready
        .recv_timeout(Duration::from_secs(10))
        .expect("subscribed");
    // 20 forged frames on the pairing topic: the first is audited, the rest only counted (the
    // flood budget).
    for i in 0..20 {
        client
            .publish(
                &topic,
                QoS::AtMostOnce,
                false,
                format!("forged {i}").into_bytes(),
            )
            .unwrap();
    }
    // All 20 are in the app's connection, and the link has refused the first.
    vults_tests::eventually("mosquitto sent the app all 20 frames", || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("Sending PUBLISH to vults-") && l.contains(&topic))
            .count()
            >= 20
    });
    let refused_lines = |home: &Path| -> Vec<String> {
        audit(home)
            .into_iter()
            .filter(|e| e["decision"] == "refused" && e["by"] == "phone:unknown")
            .filter_map(|e| e["detail"].as_str().map(str::to_string))
            .collect()
    };
    vults_tests::eventually("the first refusal audited", || {
        !refused_lines(&home).is_empty()
    });
    let one_by_one = refused_lines(&home).len();
    assert!(one_by_one < 20, "{one_by_one} refusals audited one by one");
    let status = Command::new("kill")
        .args(["-TERM", &app.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(app.child.wait().unwrap().success(), "a clean stop");
    let lines = refused_lines(&home);
    assert_eq!(
        lines.len(),
        one_by_one + 1,
        "one line more, at the stop: {lines:?}"
    );
    let summary = lines.last().unwrap();
    let counted: usize = summary
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(
        summary.contains(
            "more refused requests that were not authenticated (flood limit) were not logged \
             one by one"
        ) && (1..=20 - one_by_one).contains(&counted),
        "the forged frames not audited one by one are counted: {summary}"
    );
    drop(app);
    drop(broker);
}
