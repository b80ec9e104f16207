//! The phone over a real MQTT broker: Debian's `mosquitto`, started here on 127.0.0.1 on free
//! ports with a TLS WebSocket listener that also serves the page (`http_dir`), and a plain
//! listener for this test's own client. The app (`phone_broker_e2e`: the engine and the phone
//! link, LAN link off) connects over WSS; Debian's chromium (playwright-core,
//! `tests/phone-browser/broker.mjs`) loads the page from the broker, pairs over it, and
//! answers Allow, Deny and a question card made by real `vults-hook` calls; the broker is
//! restarted mid-session and the next answer still works.
//!
//! Meanwhile a subscriber on `#` records every payload the broker carried: none holds the
//! command text, a card id, the device name or any JSON in clear. Then each captured payload
//! for the app is published again — each is refused and audited — and a payload moved to a
//! second device's topic is refused too. Last, the broker is stopped: the app shows it
//! reconnecting, and a desktop click (Always), the rule it made, and the LAN link (turned on
//! then, a phone pairing and denying over it) all still answer real hook calls.
//!
//! Runs when `VULTS_PHONE_BROWSER=1` (as the LAN browser test; CI installs `mosquitto`).

use crate::broker_support::{
    App, Broker, audit, build_e2e, certificates, free_ports, lines_of, root, wait_line,
};
use rumqttc::{Client, Event, MqttOptions, Packet, QoS};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use vults_phone::client::{PhoneClient, offer_from_url};
use vults_phone::crypto::Op;

/// Every payload the broker carried, as a subscriber on `#` saw it.
type Log = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

/// This test's own MQTT client on the plain listener: records everything (`#`), publishes.
fn recorder(port: u16) -> (Client, Log) {
    let mut options = MqttOptions::new("vults-test-recorder", "127.0.0.1", port);
    options.set_max_packet_size(16 * 1024 * 1024, 1024 * 1024);
    options.set_keep_alive(Duration::from_secs(5));
    let (client, mut connection) = Client::new(options, 1000);
    let log: Log = Arc::default();
    let (sub, seen) = (client.clone(), log.clone());
    let (ready_tx, ready) = channel();
    std::thread::spawn(move || {
        for event in connection.iter() {
            match event {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    let _ = sub.try_subscribe("#", QoS::AtMostOnce);
                }
                Ok(Event::Incoming(Packet::SubAck(_))) => {
                    let _ = ready_tx.send(());
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    seen.lock()
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
        .expect("the recorder subscribed to #");
    (client, log)
}

fn eventually(what: &str, within: Duration, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + within;
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn is_app_topic(topic: &str) -> bool {
    vults_phone::mqtt::app_topic_id(topic).is_some()
}

#[test]
fn the_phone_answers_through_mosquitto_which_sees_only_sealed_bytes() {
    if std::env::var("VULTS_PHONE_BROWSER").as_deref() != Ok("1") {
        eprintln!(
            "skipped: set VULTS_PHONE_BROWSER=1 (needs mosquitto, chromium, node, and npm ci in tests/phone-browser)"
        );
        return;
    }
    let root = root();
    let (app_bin, hook_bin) = build_e2e();

    let temp = vults_tests::TempHome::empty("phone-broker");
    let home = temp.dir.clone();
    let www = home.join("www");
    std::fs::create_dir_all(&www).unwrap();
    let tag = format!("{}", std::process::id());

    // The broker: certificates from a CA made here, the page in its http_dir.
    const NAME: &str = "vults-broker.test";
    let (ca, cert, key) = certificates(&home, &[NAME, "127.0.0.1"]);
    for f in ["index.html", "phone.js", "words.js", "phone.css", "mqtt.js"] {
        std::fs::copy(root.join("assets/phone").join(f), www.join(f)).unwrap();
    }
    let [plain, wss] = free_ports();
    let mut broker = Broker::anonymous(&home, [plain, wss], (&cert, &key), Some(&www));
    let (client, log) = recorder(plain);

    // The app, LAN link off, over WSS.
    let env = [
        ("HOME", home.join("home")),
        ("VULTS_HOME", home.clone()),
        ("VULTS_SOCKET", home.join("vults.sock")),
    ];
    let mut child = Command::new(&app_bin)
        .arg(format!("wss://127.0.0.1:{wss}/"))
        .args(["--ca".as_ref(), ca.as_os_str()])
        .args(["--phone", &format!("wss://{NAME}:{wss}/")])
        .args(["--page", &format!("https://{NAME}:{wss}/")])
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
    assert!(
        pair_url.starts_with(&format!("https://{NAME}:{wss}/#")),
        "{pair_url}"
    );

    // The browser.
    let mut node = Command::new("node")
        .current_dir(root.join("tests/phone-browser"))
        .arg("broker.mjs")
        .arg(&pair_url)
        .arg(&hook_bin)
        .arg(&home)
        .arg(&tag)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run node (is Node.js installed?)");
    let mut node_in = node.stdin.take().unwrap();
    let mut out = String::new();
    let mut device = String::new();
    for line in BufReader::new(node.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        eprintln!("[node] {line}");
        if line == "REPLAY-TO-PHONE" {
            let to_phone: Vec<(String, Vec<u8>)> = log
                .lock()
                .unwrap()
                .iter()
                .filter(|(t, _)| t.ends_with("/p"))
                .cloned()
                .collect();
            assert!(!to_phone.is_empty(), "replies were carried");
            for (topic, payload) in to_phone {
                client
                    .publish(topic, QoS::AtMostOnce, false, payload)
                    .unwrap();
                std::thread::sleep(Duration::from_millis(20));
            }
            writeln!(node_in, "replayed").unwrap();
        }
        if line == "RESTART-BROKER" {
            broker.stop();
            std::thread::sleep(Duration::from_millis(500));
            broker.start();
            writeln!(node_in, "restarted").unwrap();
        }
        if let Some(d) = line.strip_prefix("DEVICE ") {
            device = d.to_string();
        }
        out.push_str(&line);
        out.push('\n');
    }
    let status = node.wait().unwrap();
    assert!(
        status.success() && out.contains("9 passed, 0 failed"),
        "the browser test failed:\n{out}\n--- mosquitto ---\n{}",
        std::fs::read_to_string(&broker.log).unwrap_or_default()
    );

    // What the broker carried: sealed frames on random-looking topics, nothing else.
    let carried = log.lock().unwrap().clone();
    assert!(
        carried.len() >= 10,
        "the recorder saw the traffic: {}",
        carried.len()
    );
    let name = format!("Broker phone {tag}");
    let audit_before = audit(&home);
    // Card ids count up from 1: none of the first ones may appear as a field in clear.
    let card_ids: Vec<String> = (1..=20).map(|c| c.to_string()).collect();
    for (topic, payload) in &carried {
        let id = topic
            .strip_prefix("vults/")
            .and_then(|t| t.strip_suffix("/a").or_else(|| t.strip_suffix("/p")))
            .unwrap_or_else(|| panic!("unexpected topic {topic}"));
        assert!(
            id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()),
            "{topic}"
        );
        assert_eq!(payload[0], 1, "a frame of version 1 on {topic}");
        let text = String::from_utf8_lossy(payload);
        for secret in [
            "vults-broker-e2e",
            tag.as_str(),
            name.as_str(),
            device.as_str(),
            "Which colour",
            "echo ",
        ] {
            assert!(
                !text.contains(secret),
                "{secret:?} in clear on {topic}: {text}"
            );
        }
        for c in &card_ids {
            for pattern in [format!("card={c}"), format!("\"id\":{c}")] {
                assert!(!text.contains(&pattern), "{pattern} in clear on {topic}");
            }
        }
        // No JSON, and nothing readable: the keys every message of the protocol has are
        // absent, and no 24 printable characters follow each other (in random bytes that is
        // a one-in-millions chance; in any JSON or signed message it is certain).
        assert!(
            serde_json::from_slice::<Value>(payload).is_err(),
            "JSON on {topic}"
        );
        for key in [
            "\"cards\"",
            "\"ok\":",
            "\"re\":",
            "\"now\":",
            "\"token\"",
            "\"device\"",
            "\"status\"",
            "\"sig\"",
            "\"m\":",
            "vults-phone",
            "op=list",
            "op=answer",
            "nonce=",
        ] {
            assert!(!text.contains(key), "{key} in clear on {topic}");
        }
        let longest = payload
            .split(|b| !(0x20..0x7f).contains(b))
            .map(<[u8]>::len)
            .max()
            .unwrap_or(0);
        assert!(
            longest < 24,
            "{longest} readable bytes in a row on {topic}: {text}"
        );
    }

    // Each captured payload for the app, published again: refused, and audited.
    let label = format!("phone:{name} ({device})");
    let replays: Vec<(String, Vec<u8>)> = carried
        .iter()
        .filter(|(t, _)| is_app_topic(t))
        .cloned()
        .collect();
    let first_offer = offer_from_url(&pair_url).expect("the pairing URL's fragment");
    let first_pairing = first_offer
        .broker
        .clone()
        .expect("the code names the broker")
        .1;
    let pairing_topics = [format!("vults/{first_pairing}/a")];
    let device_replays = replays
        .iter()
        .filter(|(t, _)| !pairing_topics.contains(t))
        .count();
    assert!(
        device_replays >= 4,
        "list and answer requests were captured"
    );
    let refused_before = |a: &[Value]| {
        a.iter()
            .filter(|e| e["decision"] == "refused" && e["by"] == label.as_str())
            .count()
    };
    let before = refused_before(&audit_before);
    let answers_before = audit_before
        .iter()
        .filter(|e| e["by"] == label.as_str() && e["decision"] != "refused")
        .count();
    for (topic, payload) in &replays {
        client
            .publish(topic.clone(), QoS::AtMostOnce, false, payload.clone())
            .unwrap();
        std::thread::sleep(Duration::from_millis(20));
    }
    // Every request the app received got exactly one sealed reply on the device's `…/p`
    // topic; each of those requests, replayed, must be refused. (A request the broker dropped
    // — one the page sent while the app was still reconnecting — was never seen: replayed, it
    // is new, as a delayed one would be. It still answers nothing: the cards are gone.)
    // (Distinct frames: those replayed to the page above were carried twice.)
    let received = carried
        .iter()
        .filter(|(t, _)| {
            t.ends_with("/p") && !t.contains(&first_pairing) && t.starts_with("vults/")
        })
        .map(|(_, p)| p.clone())
        .collect::<std::collections::HashSet<_>>()
        .len();
    eprintln!(
        "replayed {} frames, {device_replays} for the device, {received} of them answered once",
        replays.len()
    );
    assert!(received >= 4 && received <= device_replays);
    eventually(
        "every replayed request refused and audited",
        Duration::from_secs(20),
        || refused_before(&audit(&home)) >= before + received,
    );
    std::thread::sleep(Duration::from_millis(500));
    let after = audit(&home);
    let refused = refused_before(&after) - before;
    assert!(
        (received..=device_replays).contains(&refused),
        "{refused} refusals for {received} replayed requests the app had seen"
    );
    let refusals: Vec<&Value> = after
        .iter()
        .filter(|e| e["decision"] == "refused" && e["by"] == label.as_str())
        .skip(before)
        .collect();
    let replay_refusals = refusals
        .iter()
        .filter(|e| {
            let d = e["detail"].as_str().unwrap_or_default();
            d.starts_with("nonce already used") || d.starts_with("time outside")
        })
        .count();
    assert!(replay_refusals >= received, "{refusals:?}");
    assert!(
        refusals.iter().all(|e| {
            let d = e["detail"].as_str().unwrap_or_default();
            d.starts_with("nonce already used")
                || d.starts_with("time outside")
                || d.starts_with("card not pending")
        }),
        "{refusals:?}"
    );
    assert_eq!(
        after
            .iter()
            .filter(|e| e["by"] == label.as_str() && e["decision"] != "refused")
            .count(),
        answers_before,
        "no replay answered anything"
    );
    // The pairing request replayed: its token is spent.
    if !pairing_topics.is_empty() {
        eventually(
            "the replayed pairing refused and audited",
            Duration::from_secs(10),
            || {
                audit(&home).iter().any(|e| {
                    e["decision"] == "refused"
                        && e["detail"].as_str().is_some_and(|d| {
                            d.starts_with("pairing refused: pairing token already used")
                        })
                })
            },
        );
    }

    // A second device, paired over the broker by the test's own phone; a payload of the
    // first moved to its topic is refused.
    let stdin = app.stdin.as_mut().unwrap();
    writeln!(stdin, "code").unwrap();
    let url = wait_line(&app_lines, "vults-phone-e2e: pair ");
    wait_line(&app_lines, "vults-phone-e2e: code ready");
    let offer = offer_from_url(&url).expect("the pairing URL's fragment");
    let (_, pair_topic) = offer.broker.clone().expect("the code names the broker");
    let mut second = PhoneClient::new("127.0.0.1:9".parse().unwrap());
    let frame = second.broker_pair_frame(&offer, "Second phone").unwrap();
    let seen = log.lock().unwrap().len();
    client
        .publish(
            format!("vults/{pair_topic}/a"),
            QoS::AtMostOnce,
            false,
            frame,
        )
        .unwrap();
    let reply_topic = format!("vults/{pair_topic}/p");
    let mut reply = None;
    eventually("the pairing reply", Duration::from_secs(10), || {
        reply = log.lock().unwrap()[seen..]
            .iter()
            .find(|(t, _)| *t == reply_topic)
            .map(|(_, p)| p.clone());
        reply.is_some()
    });
    assert_eq!(second.broker_pair_reply(&offer, &reply.unwrap()), Some(200));
    let topic2 = second.broker_topic().unwrap();
    // It works on its own topic…
    let seen = log.lock().unwrap().len();
    let list = second.broker_frame(&second.request(Op::List)).unwrap();
    client
        .publish(format!("vults/{topic2}/a"), QoS::AtMostOnce, false, list)
        .unwrap();
    let mut listed = None;
    eventually("the second phone's list", Duration::from_secs(10), || {
        listed = log.lock().unwrap()[seen..]
            .iter()
            .find(|(t, _)| *t == format!("vults/{topic2}/p"))
            .and_then(|(_, p)| second.open_frame(p));
        listed.is_some()
    });
    assert_eq!(listed.unwrap()["ok"], true);
    // …and the first phone's request on it is refused (its seal does not open there).
    let (_, first_request) = replays
        .iter()
        .find(|(t, _)| !pairing_topics.contains(t))
        .unwrap();
    client
        .publish(
            format!("vults/{topic2}/a"),
            QoS::AtMostOnce,
            false,
            first_request.clone(),
        )
        .unwrap();
    let second_label = format!("phone:Second phone ({})", second.device);
    eventually(
        "the moved payload refused and audited",
        Duration::from_secs(10),
        || {
            audit(&home).iter().any(|e| {
                e["decision"] == "refused"
                    && e["by"] == second_label.as_str()
                    && e["detail"]
                        .as_str()
                        .is_some_and(|d| d.starts_with("seal does not open"))
            })
        },
    );

    // The broker goes away: the app says so, and desktop cards, rules and the LAN link work on.
    broker.stop();
    let stdin = app.stdin.as_mut().unwrap();
    let started = Instant::now();
    loop {
        writeln!(stdin, "state").unwrap();
        let state = wait_line(&app_lines, "vults-phone-e2e: broker ");
        if state.starts_with("Reconnecting") {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "{state}");
        std::thread::sleep(Duration::from_millis(200));
    }
    let hook = |command: &str| {
        let mut child = Command::new(&hook_bin)
            .args(["--agent", "claude", "PermissionRequest"])
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env("VULTS_HOOK_WAIT_S", "60")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let payload = serde_json::json!({
            "session_id": "broker-down", "cwd": home, "hook_event_name": "PermissionRequest",
            "permission_mode": "default", "tool_name": "Bash",
            "tool_input": {"command": command},
        });
        child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.to_string().as_bytes())
            .unwrap();
        child
    };
    let behavior = |child: Child| {
        let out = child.wait_with_output().unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        v["hookSpecificOutput"]["decision"]["behavior"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    // A desktop card, answered Always with a click: the hook prints the allow…
    let down_cmd = format!("ls vults-broker-down-{tag}");
    let first = hook(&down_cmd);
    let card = wait_line(&app_lines, "vults-phone-e2e: card ");
    writeln!(app.stdin.as_mut().unwrap(), "click {card} always").unwrap();
    assert_eq!(behavior(first), "allow");
    // …and the rule it made answers the same call again, with no card.
    assert_eq!(behavior(hook(&down_cmd)), "allow");
    // (The engine writes the audit on its own: wait for the line.)
    eventually("the rule's audit line", Duration::from_secs(10), || {
        audit(&home).iter().any(|e| {
            e["target"] == down_cmd.as_str()
                && e["by"].as_str().unwrap_or_default().starts_with("rule:")
        })
    });
    // The LAN link: on, a phone pairs over it and denies a card.
    let stdin = app.stdin.as_mut().unwrap();
    writeln!(stdin, "lan").unwrap();
    let lan: std::net::SocketAddr = wait_line(&app_lines, "vults-phone-e2e: lan ")
        .parse()
        .unwrap();
    writeln!(stdin, "code").unwrap();
    let url = wait_line(&app_lines, "vults-phone-e2e: pair ");
    assert!(url.starts_with(&format!("http://{lan}/#")), "{url}");
    let offer = offer_from_url(&url).unwrap();
    let mut lan_phone = PhoneClient::new(lan);
    assert_eq!(lan_phone.pair(&offer, "LAN phone").unwrap().status, 200);
    let denied = hook(&format!("ls vults-broker-down-lan-{tag}"));
    let card: u64 = wait_line(&app_lines, "vults-phone-e2e: card ")
        .parse()
        .unwrap();
    let (status, reply) = lan_phone
        .send(&lan_phone.answer(card, vults_phone::crypto::WireAnswer::Deny))
        .unwrap();
    assert_eq!(status, 200, "{reply:?}");
    assert_eq!(behavior(denied), "deny");

    drop(app);
    drop(broker);
    let _ = std::fs::remove_dir_all(&home);
}

/// Settings → Phone's broker over `mqtts://` with a login: a wrong password shows as
/// "Reconnecting" with the broker's refusal, the right one connects; the password is kept
/// apart from `phone-broker.json` (the keyring, or its 0600 file where none runs).
#[test]
fn settings_connect_over_mqtts_with_a_password() {
    if std::env::var("VULTS_PHONE_BROWSER").as_deref() != Ok("1") {
        eprintln!("skipped: set VULTS_PHONE_BROWSER=1 (needs mosquitto)");
        return;
    }
    use vults_phone::{BrokerConfig, BrokerSettings, BrokerState, PhoneAction, PhoneLink};
    let temp = vults_tests::TempHome::empty("phone-mqtts");
    let home = temp.dir.clone();
    std::fs::create_dir_all(&home).unwrap();
    let (ca, cert, key) = certificates(&home, &["127.0.0.1"]);
    let passwd = home.join("passwd");
    let made = Command::new("mosquitto_passwd")
        .args(["-b", "-c"])
        .arg(&passwd)
        .args(["vults-app", "s3cret-pw"])
        .status()
        .expect("run mosquitto_passwd");
    assert!(made.success());
    // Mosquitto drops root for its own user, which must read these.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&passwd, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let [port] = free_ports();
    let conf = home.join("mosquitto.conf");
    std::fs::write(
        &conf,
        format!(
            "persistence false\nallow_anonymous false\nlog_dest stderr\npassword_file {}\n\
             listener {port} 127.0.0.1\ncertfile {}\nkeyfile {}\n",
            passwd.display(),
            cert.display(),
            key.display()
        ),
    )
    .unwrap();
    let mut broker = Broker {
        conf,
        log: home.join("mosquitto.log"),
        plain: port,
        child: None,
    };
    broker.start();

    let h = home.clone();
    let paths = vults_core::paths::Paths::resolve(move |k| (k == "VULTS_HOME").then(|| h.clone()));
    let mut link = PhoneLink::new(&paths, Arc::new(|_| {})).unwrap();
    let settings = |password: &str| BrokerSettings {
        config: BrokerConfig {
            url: format!("mqtts://127.0.0.1:{port}"),
            username: Some("vults-app".into()),
            ca_file: Some(ca.clone()),
            phone_url: Some("wss://broker.test/".into()),
            ..BrokerConfig::default()
        },
        password: Some(password.into()),
        phone_password: None,
    };
    let wait_for = |link: &PhoneLink, what: &str, ok: &dyn Fn(&BrokerState) -> bool| {
        let started = Instant::now();
        loop {
            let state = link.broker_state().expect("the broker link is on");
            if ok(&state) {
                return state;
            }
            assert!(
                started.elapsed() < Duration::from_secs(15),
                "{what}: {state:?}\n{}",
                std::fs::read_to_string(&broker.log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    link.apply(PhoneAction::Broker(settings("wrong")));
    let refused = wait_for(&link, "a refusal", &|s| {
        matches!(s, BrokerState::Reconnecting { .. })
    });
    let BrokerState::Reconnecting { error, .. } = refused else {
        unreachable!()
    };
    assert!(
        error.contains("NotAuthorized") || error.contains("BadUserNamePassword"),
        "{error}"
    );
    link.apply(PhoneAction::Broker(settings("s3cret-pw")));
    wait_for(&link, "connected", &|s| *s == BrokerState::Connected);
    let status = link.status();
    assert!(status.broker.password_set);
    assert_eq!(status.broker.error, None);
    let saved = std::fs::read_to_string(vults_phone::broker_file(&paths)).unwrap();
    assert!(saved.contains("mqtts://127.0.0.1"), "{saved}");
    assert!(
        !saved.contains("s3cret-pw"),
        "no password in the settings file"
    );
    // With the broker on, a pairing code names it (and its page, the LAN link being off).
    let offer = link.offer().expect("a code while the broker is on");
    assert!(
        offer.url.starts_with("https://broker.test/#"),
        "{}",
        offer.url
    );
    assert!(offer.broker.is_some());

    link.apply(PhoneAction::BrokerOff);
    assert_eq!(link.broker_state(), None);
    drop(link);
    // Off stays off across a restart; the settings stay.
    let again = PhoneLink::new(&paths, Arc::new(|_| {})).unwrap();
    assert_eq!(again.broker_state(), None);
    assert!(again.status().broker.config.is_some());
    drop(again);
    drop(broker);
    let _ = std::fs::remove_dir_all(&home);
}
