//! The phone answers a headless Vults, end to end: the real `vults-app --headless` runs;
//! `vults-app phone pair` prints the offer (the QR code and the link on a line of its own)
//! through the app's control channel; this test's phone (`vults_phone::client`, the same wire
//! as the page) pairs with it; a real `vults-hook` PermissionRequest becomes a card the phone
//! answers with a signed request, and the hook prints allow. Then the same over Mosquitto
//! (`phone pair --broker`), Web Push against the stand-in push service (`phone test`,
//! `phone revoke`), the console and the phone answering the same cards (`--cards`), and a
//! hostile peer on the control channel.
//!
//! The LAN, push and console tests always run (the app's page on loopback, plain HTTP:
//! `phone pair --loopback --port 0`); the broker's runs when `VULTS_PHONE_BROWSER=1` (CI
//! installs `mosquitto`), as the other broker tests.

use crate::broker_support::{Broker, audit, certificates, free_ports, lines_of};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};
use vults_phone::client::{PhoneClient, offer_from_url};
use vults_phone::crypto::{Op, WireAnswer};
use vults_phone::push::standin::StandIn;
use vults_tests::{TempHome, eventually};

/// The app, `vults-app --headless`, stopped (SIGKILL) when dropped.
struct Headless {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every stderr line read so far (the ones [`Headless::line`] skipped too).
    seen: Vec<String>,
}

impl Drop for Headless {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Headless {
    /// Starts it on `home` (`--cards` too when asked), with `env` added, and waits until its
    /// phone commands' channel is up.
    fn start(home: &TempHome, cards: bool, env: &[(&str, &Path)]) -> Headless {
        let mut cmd = home.command(vults_tests::built_app_bin());
        cmd.arg("--headless");
        if cards {
            cmd.arg("--cards");
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("vults-app --headless starts");
        let lines = lines_of(&mut child);
        let mut app = Headless {
            stdin: child.stdin.take(),
            child,
            lines,
            seen: Vec::new(),
        };
        app.line("phone commands (vults-app phone pair|list|revoke|test) on ");
        app
    }

    /// The next stderr line that holds `text`.
    fn line(&mut self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).unwrap_or_else(|_| {
                panic!(
                    "no line with {text:?} from the app:\n{}",
                    self.seen.join("\n")
                )
            });
            self.seen.push(line.clone());
            if line.contains(text) {
                return line;
            }
        }
    }

    /// Types a line on the console (`--cards`).
    fn type_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("the console's stdin");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }
}

/// `vults-app phone <args>` on `home`, to its end: (exit code, stdout, stderr).
fn phone_cmd(home: &TempHome, args: &[&str]) -> (i32, String, String) {
    let out = home
        .command(vults_tests::built_app_bin())
        .arg("phone")
        .args(args)
        .output()
        .expect("vults-app phone runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `vults-app phone pair <args>`, running: its stdout's lines as they come.
struct Pairing {
    child: Child,
    stdout: BufReader<std::process::ChildStdout>,
}

impl Drop for Pairing {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Pairing {
    fn start(home: &TempHome, args: &[&str]) -> Pairing {
        let mut child = home
            .command(vults_tests::built_app_bin())
            .args(["phone", "pair"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("vults-app phone pair starts");
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Pairing { child, stdout }
    }

    /// The QR code's lines, then the link on a line of its own: the link.
    fn link(&mut self) -> String {
        let mut qr: Vec<String> = Vec::new();
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "phone pair ended before its link; it printed:\n{}\n{}",
                qr.join("\n"),
                self.stderr()
            );
            let line = line.trim_end().to_string();
            if line.starts_with("http") {
                // A QR code of half blocks came first, as tall as it is wide / 2.
                assert!(qr.len() > 10, "{qr:?}");
                assert!(
                    qr.iter()
                        .all(|l| l.chars().all(|c| " ▀▄█".contains(c)) && !l.is_empty()),
                    "{qr:?}"
                );
                return line;
            }
            qr.push(line);
        }
    }

    fn stderr(&mut self) -> String {
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        err
    }

    /// Its exit code and everything else it printed, once it ends.
    fn end(mut self) -> (i32, String) {
        let mut rest = String::new();
        self.stdout.read_to_string(&mut rest).unwrap();
        let status = self.child.wait().unwrap();
        let err = self.stderr();
        (status.code().unwrap_or(-1), format!("{rest}{err}"))
    }
}

/// The phone pairs with the link `url` names over the LAN page; it talks to `addr`.
fn pair_over_lan(url: &str, name: &str) -> PhoneClient {
    let offer = offer_from_url(url).expect("the link holds the pairing code");
    let addr: SocketAddr = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .parse()
        .expect("the page's address");
    let mut phone = PhoneClient::new(addr);
    let reply = phone.pair(&offer, name).unwrap();
    assert_eq!(reply.status, 200, "{}", reply.text());
    phone
}

/// The real hook asking Claude Code's Bash `command` of the app on `home`, waiting for its reply.
fn hook(home: &TempHome, session: &str, command: &str) -> Child {
    let mut child = home
        .command(vults_tests::built_hook_bin())
        .args(["--agent", "claude", "PermissionRequest"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the hook starts");
    let payload = json!({
        "session_id": session,
        "cwd": home.project(),
        "hook_event_name": "PermissionRequest",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    });
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    child
}

/// What the hook printed once it ended (it always exits 0).
fn reply_of(mut hook: Child) -> String {
    let status = hook.wait().unwrap();
    assert!(status.success(), "the hook exits 0");
    let mut out = String::new();
    hook.stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    out
}

/// The card the app shows for `command` (the next one it logs), once the phone sees it: its
/// id. The link takes the card on its own thread, maybe just after the app logged it; the phone
/// asks at most 4 times a second, under the page's limit (a burst of 20, then 5 a second, 429).
fn card_on_phone(app: &mut Headless, phone: &PhoneClient, command: &str) -> u64 {
    let line = loop {
        let line = app.line("vults: card ");
        if line.contains(" — ") {
            break line;
        }
    };
    let id: u64 = line["vults: card ".len()..]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a card id in {line:?}"));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, reply) = phone.send(&phone.request(Op::List)).unwrap();
        assert_eq!(status, 200, "{reply:?}");
        let reply = reply.unwrap();
        let card = reply["cards"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .cloned();
        if let Some(card) = card {
            assert_eq!(card["target"]["command"], command, "{card}");
            return id;
        }
        assert!(
            Instant::now() < deadline,
            "card {id} never on the phone: {reply}"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

fn audit_by(home: &Path, command: &str) -> Vec<String> {
    audit(home)
        .into_iter()
        .filter(|l| l["target"].as_str().is_some_and(|t| t.contains(command)))
        .map(|l| {
            format!(
                "{} {}",
                l["decision"].as_str().unwrap_or("?"),
                l["by"].as_str().unwrap_or("?")
            )
        })
        .collect()
}

#[test]
fn a_phone_pairs_with_a_headless_vults_and_answers_a_real_hooks_card() {
    let home = TempHome::new("hl-lan");
    let mut app = Headless::start(&home, false, &[]);

    let mut pairing = Pairing::start(&home, &["--loopback", "--port", "0"]);
    let url = pairing.link();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let phone = pair_over_lan(&url, "Server phone");
    let (code, said) = pairing.end();
    assert_eq!(code, 0, "{said}");
    assert!(
        said.contains(&format!("Paired: Server phone ({})", phone.device)),
        "{said}"
    );

    let (code, list, _) = phone_cmd(&home, &["list"]);
    assert_eq!(code, 0);
    assert!(
        list.contains(&phone.device) && list.contains("Server phone"),
        "{list}"
    );
    assert!(
        list.contains("push off") && list.contains("last delivery never"),
        "{list}"
    );

    let asked = hook(&home, "s1", "echo answered from the phone");
    let card = card_on_phone(&mut app, &phone, "echo answered from the phone");
    let (status, reply) = phone.send(&phone.answer(card, WireAnswer::Allow)).unwrap();
    assert_eq!(status, 200, "{reply:?}");
    let printed = reply_of(asked);
    assert!(
        printed.contains(r#""behavior":"allow""#),
        "the hook printed {printed}"
    );
    app.line(&format!(
        "vults: card {card} done (phone:Server phone ({}))",
        phone.device
    ));
    eventually("the audit line", || {
        audit_by(&home.dir, "echo answered from the phone")
            == vec![format!("allow phone:Server phone ({})", phone.device)]
    });

    // A code nobody uses ends, and says so; a code replaced by a newer one too.
    let mut first = Pairing::start(&home, &[]);
    first.link();
    let mut second = Pairing::start(&home, &[]);
    second.link();
    let (code, said) = first.end();
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("a newer pairing code replaced this one"),
        "{said}"
    );
    drop(second);
}

#[test]
fn the_console_and_the_phone_answer_the_same_cards_and_the_first_wins() {
    let home = TempHome::new("hl-cards");
    let mut app = Headless::start(&home, true, &[]);
    let mut pairing = Pairing::start(&home, &["--loopback", "--port", "0"]);
    let phone = pair_over_lan(&pairing.link(), "Race phone");
    assert_eq!(pairing.end().0, 0);

    // The console first: the phone's answer to the same card is refused.
    let asked = hook(&home, "s1", "echo console first");
    let card = card_on_phone(&mut app, &phone, "echo console first");
    app.type_line(&format!("allow {card}"));
    assert!(reply_of(asked).contains(r#""behavior":"allow""#));
    app.line(&format!("vults: card {card} done (click)"));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (_, reply) = phone.send(&phone.request(Op::List)).unwrap();
        if reply.unwrap()["cards"] == json!([]) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "card {card} never withdrawn from the phone"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    let (status, reply) = phone.send(&phone.answer(card, WireAnswer::Deny)).unwrap();
    assert_eq!(status, 403, "{reply:?}");
    assert_eq!(reply.unwrap()["refused"], "card not pending");

    // The phone first: the console's answer to it does nothing.
    let asked = hook(&home, "s2", "echo phone first");
    let card = card_on_phone(&mut app, &phone, "echo phone first");
    let (status, _) = phone.send(&phone.answer(card, WireAnswer::Deny)).unwrap();
    assert_eq!(status, 200);
    assert!(reply_of(asked).contains(r#""behavior":"deny""#));
    app.line(&format!(
        "vults: card {card} done (phone:Race phone ({}))",
        phone.device
    ));
    app.type_line(&format!("allow {card}"));
    let by_phone = format!("deny phone:Race phone ({})", phone.device);
    eventually("the audit says who answered each", || {
        audit_by(&home.dir, "echo console first") == vec!["allow click".to_string()]
            && audit_by(&home.dir, "echo phone first") == vec![by_phone.clone()]
    });
    // The console's late allow changed nothing: a third card still comes to both.
    let asked = hook(&home, "s3", "echo third");
    let card = card_on_phone(&mut app, &phone, "echo third");
    app.type_line("allow");
    assert!(reply_of(asked).contains(r#""behavior":"allow""#));
    app.line(&format!("vults: card {card} done (click)"));
    assert_eq!(audit_by(&home.dir, "echo phone first"), vec![by_phone]);
}

/// The stand-in push service's CA as a PEM file: what the app trusts through `SSL_CERT_FILE`,
/// as any program using the system's roots does.
fn ca_file(dir: &Path, der: &[u8]) -> PathBuf {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
    let path = dir.join("push-ca.pem");
    std::fs::write(
        &path,
        format!("-----BEGIN CERTIFICATE-----\n{b64}\n-----END CERTIFICATE-----\n"),
    )
    .unwrap();
    path
}

#[test]
fn a_headless_vults_pushes_its_cards_and_a_revoked_phone_gets_none() {
    let home = TempHome::new("hl-push");
    let service = StandIn::start().unwrap();
    let ca = ca_file(&home.dir, service.ca_der());
    let mut app = Headless::start(&home, false, &[("SSL_CERT_FILE", &ca)]);
    let mut pairing = Pairing::start(&home, &["--loopback", "--port", "0"]);
    let url = pairing.link();
    let phone = pair_over_lan(&url, "Pushed phone");
    assert_eq!(pairing.end().0, 0);
    let mut pairing = Pairing::start(&home, &[]);
    let other = pair_over_lan(&pairing.link(), "Other phone");
    assert_eq!(pairing.end().0, 0);

    let subscribe = |phone: &PhoneClient, name: &str| {
        let sub = service.subscribe(name);
        let (status, reply) = phone
            .send(&phone.request(Op::Subscribe {
                endpoint: sub.endpoint.clone(),
                p256dh: sub.p256dh.clone(),
                auth: sub.auth.clone(),
            }))
            .unwrap();
        let reply = reply.unwrap();
        assert_eq!((status, &reply["push"]), (200, &json!(true)), "{reply}");
        let vapid = vults_phone::crypto::unb64(reply["vapid"].as_str().unwrap()).unwrap();
        (sub, vapid)
    };
    let (sub, vapid) = subscribe(&phone, "pushed");
    let (other_sub, _) = subscribe(&other, "other");
    // The nth push to a subscription: checked as a push service checks it (VAPID signed by the
    // app's key, for this service), decrypted, and opened with the phone's own seal key.
    let push = |phone: &PhoneClient, sub, n: usize| -> Value {
        eventually(&format!("push {n} to {}", phone.device), || {
            service.received_for(sub).len() > n
        });
        let got = service.received_for(sub).remove(n);
        assert_eq!(got.status, 201, "{got:?}");
        let claims = got.vapid.clone().expect("a valid VAPID JWT");
        assert_eq!(claims.key, vapid, "signed with the app's VAPID key");
        assert_eq!(
            claims.aud,
            format!("https://127.0.0.1:{}", service.addr.port())
        );
        let sealed = got
            .plaintext
            .clone()
            .expect("decrypted with the subscription's key");
        assert!(
            !String::from_utf8_lossy(&sealed).contains("echo"),
            "sealed inside"
        );
        vults_phone::push::open_push(phone.seal.as_ref().unwrap(), &phone.device, &sealed)
            .expect("opens with the phone's seal key")
    };

    let asked = hook(&home, "s1", "echo pushed card");
    let card = card_on_phone(&mut app, &phone, "echo pushed card");
    let buzz = push(&phone, &sub, 0);
    assert_eq!(
        (buzz["t"].as_str(), buzz["card"].as_u64()),
        (Some("card"), Some(card)),
        "{buzz}"
    );
    assert!(
        buzz["body"].as_str().unwrap().contains("echo pushed card"),
        "{buzz}"
    );
    let (status, _) = phone.send(&phone.answer(card, WireAnswer::Allow)).unwrap();
    assert_eq!(status, 200);
    assert!(reply_of(asked).contains(r#""behavior":"allow""#));
    let withdrawn = push(&phone, &sub, 1);
    assert_eq!(withdrawn["t"], "withdraw", "{withdrawn}");
    assert_eq!(withdrawn["tag"], format!("vults-card-{card}"));
    app.line(&format!("vults: card {card} done"));

    // `phone test` pushes through the app; `phone list` says so.
    let (code, said, err) = phone_cmd(&home, &["test", "Pushed phone"]);
    assert_eq!(code, 0, "{said}{err}");
    assert!(
        said.contains("the push service took the test push"),
        "{said}"
    );
    assert_eq!(push(&phone, &sub, 2)["t"], "test");
    let (_, list, _) = phone_cmd(&home, &["list"]);
    let line = list.lines().find(|l| l.contains("Pushed phone")).unwrap();
    assert!(
        line.contains("push on") && line.contains("s ago") && line.contains("last failure none"),
        "{line}"
    );

    // Revoked: refused, and no push any more (the other phone's shows the card was pushed).
    let (code, said, err) = phone_cmd(&home, &["revoke", &phone.device]);
    assert_eq!(code, 0, "{err}");
    assert!(said.contains("revoked"), "{said}");
    let before = service.received_for(&sub).len();
    let asked = hook(&home, "s2", "echo after revoking");
    let card = card_on_phone(&mut app, &other, "echo after revoking");
    let buzz = push(&other, &other_sub, 2);
    assert_eq!(buzz["card"].as_u64(), Some(card), "{buzz}");
    assert_eq!(
        service.received_for(&sub).len(),
        before,
        "nothing pushed to the revoked phone"
    );
    let (status, _) = phone.send(&phone.request(Op::List)).unwrap();
    assert_eq!(status, 403, "the revoked phone's requests are refused");
    let (_, list, _) = phone_cmd(&home, &["list"]);
    let line = list.lines().find(|l| l.contains("Pushed phone")).unwrap();
    assert!(
        line.contains("revoked") && line.contains("push off"),
        "{line}"
    );
    let (code, _, err) = phone_cmd(&home, &["test", &phone.device]);
    assert_eq!(code, 1);
    assert!(err.contains("revoked"), "{err}");
    let (status, _) = other.send(&other.answer(card, WireAnswer::Deny)).unwrap();
    assert_eq!(status, 200);
    assert!(reply_of(asked).contains(r#""behavior":"deny""#));
}

#[cfg(unix)]
#[test]
fn the_control_channel_takes_only_its_own_requests() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::net::UnixStream;
    let home = TempHome::new("hl-ctl");
    let mut app = Headless::start(&home, false, &[]);
    let socket = home.dir.join("run/vults.phone.sock");
    let mode = std::fs::metadata(&socket).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the channel is the user's alone");
    let ask = |bytes: &[u8]| -> String {
        let mut s = UnixStream::connect(&socket).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let _ = s.write_all(bytes);
        let _ = s.shutdown(std::net::Shutdown::Write);
        let mut reply = String::new();
        let _ = s.read_to_string(&mut reply);
        reply
    };
    for bad in [
        &b"{\"op\":\"shutdown\"}\n"[..],
        b"{\"op\":\"list\",\"then\":\"revoke\"}\n",
        b"not json\n",
        b"{\"op\":\"list\"}",
        &[b'x'; 10_000],
    ] {
        let reply = ask(bad);
        assert!(reply.starts_with("{\"error\":\"refused: "), "{reply}");
        app.line("phone control channel: refused a request");
    }
    // A silent peer is let go; the channel still answers.
    let idle = UnixStream::connect(&socket).unwrap();
    let reply = ask(b"{\"op\":\"list\"}\n");
    assert!(reply.contains("\"devices\":[]"), "{reply}");
    drop(idle);
    // What a phone could name itself reaches the terminal escaped.
    let (code, list, _) = phone_cmd(&home, &["revoke", "\u{1b}[2J"]);
    assert_eq!(code, 1);
    assert!(!list.contains('\u{1b}'));
}

/// Every frame the test's MQTT client received: (topic, payload).
type Seen = std::sync::Arc<std::sync::Mutex<Vec<(String, Vec<u8>)>>>;

/// The broker's settings as `phone-broker.json` holds them (docs/server.md).
fn save_broker(home: &TempHome, wss: u16, ca: &Path) {
    let config = vults_phone::BrokerConfig {
        url: format!("wss://127.0.0.1:{wss}/"),
        ca_file: Some(ca.to_path_buf()),
        phone_url: Some(format!("wss://127.0.0.1:{wss}/")),
        page_url: Some(format!("https://127.0.0.1:{wss}/")),
        enabled: true,
        ..Default::default()
    };
    config
        .save(&vults_phone::broker_file(&home.paths()))
        .unwrap();
}

#[test]
fn a_phone_pairs_with_a_headless_vults_over_mosquitto_and_answers_a_real_hooks_card() {
    if std::env::var("VULTS_PHONE_BROWSER").as_deref() != Ok("1") {
        eprintln!("skipped: set VULTS_PHONE_BROWSER=1 (needs mosquitto)");
        return;
    }
    use rumqttc::{Client, Event, MqttOptions, Packet, QoS};
    use std::sync::Arc;
    let home = TempHome::new("hl-mqtt");
    let (ca, cert, key) = certificates(&home.dir, &["127.0.0.1"]);
    let [plain, wss] = free_ports();
    let broker = Broker::anonymous(&home.dir, [plain, wss], (&cert, &key), None);
    save_broker(&home, wss, &ca);
    let mut app = Headless::start(&home, false, &[]);

    // This test's client: the phone's transport (on the plain listener).
    let mut options = MqttOptions::new("headless-test", "127.0.0.1", plain);
    options.set_max_packet_size(16 * 1024 * 1024, 1024 * 1024);
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
    let subscribed = |topic: &str| {
        let line = format!("\t{topic} (QoS");
        eventually(&format!("the app's subscription to {topic}"), || {
            std::fs::read_to_string(&broker.log)
                .unwrap_or_default()
                .contains(&line)
        });
    };
    // The reply on `topic`'s `/p` that `open` reads, after `from` frames.
    let reply_on = |topic: &str, from: usize, open: &dyn Fn(&[u8]) -> Option<Value>| {
        let mut found = None;
        eventually(&format!("a reply on vults/{topic}/p"), || {
            found = seen.lock().unwrap()[from..]
                .iter()
                .filter(|(t, _)| *t == format!("vults/{topic}/p"))
                .find_map(|(_, p)| open(p));
            found.is_some()
        });
        found.unwrap()
    };

    let mut pairing = Pairing::start(&home, &["--broker"]);
    let url = pairing.link();
    assert!(
        url.starts_with(&format!("https://127.0.0.1:{wss}/#")),
        "{url}"
    );
    let offer = offer_from_url(&url).unwrap();
    let (_, pair_topic) = offer.broker.clone().expect("the code names the broker");
    subscribed(&format!("vults/{pair_topic}/a"));
    let mut phone = PhoneClient::new("127.0.0.1:9".parse().unwrap());
    let frame = phone.broker_pair_frame(&offer, "Broker phone").unwrap();
    let from = seen.lock().unwrap().len();
    client
        .publish(
            format!("vults/{pair_topic}/a"),
            QoS::AtMostOnce,
            false,
            frame,
        )
        .unwrap();
    let frame = reply_on(&pair_topic, from, &|p| Some(json!(p)));
    let bytes: Vec<u8> = serde_json::from_value(frame).unwrap();
    assert_eq!(phone.broker_pair_reply(&offer, &bytes), Some(200));
    let (code, said) = pairing.end();
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("Paired: Broker phone"), "{said}");
    let topic = phone.broker_topic().unwrap();
    subscribed(&format!("vults/{topic}/a"));

    let ask = |op: Op| -> Value {
        let req = phone.request(op);
        let from = seen.lock().unwrap().len();
        client
            .publish(
                format!("vults/{topic}/a"),
                QoS::AtMostOnce,
                false,
                phone.broker_frame(&req).unwrap(),
            )
            .unwrap();
        reply_on(&topic, from, &|p| {
            phone
                .open_frame(p)
                .filter(|v| v["re"] == req.nonce.as_str())
        })
    };
    let asked = hook(&home, "s1", "echo over the broker");
    app.line("vults: card ");
    // The console and the phone link each read the engine's events from a subscription of
    // their own: the phone's list has the card once its link has read it too.
    let card_of = |list: &Value| {
        list["cards"]
            .as_array()
            .and_then(|cards| {
                cards
                    .iter()
                    .find(|c| c["target"]["command"] == "echo over the broker")
            })
            .and_then(|c| c["id"].as_u64())
    };
    let mut list = ask(Op::List);
    let deadline = Instant::now() + Duration::from_secs(30);
    while card_of(&list).is_none() && Instant::now() < deadline {
        list = ask(Op::List);
    }
    let card = card_of(&list).unwrap_or_else(|| panic!("the card over the broker: {list}"));
    let reply = ask(Op::Answer {
        card,
        answer: WireAnswer::Allow,
    });
    assert!(reply["refused"].is_null(), "{reply}");
    assert!(reply_of(asked).contains(r#""behavior":"allow""#));
    eventually("the audit says the phone answered", || {
        audit_by(&home.dir, "echo over the broker")
            == vec![format!("allow phone:Broker phone ({})", phone.device)]
    });
}

#[test]
fn with_no_app_running_the_phone_commands_run_the_link_themselves() {
    let home = TempHome::new("hl-alone");
    let (code, list, _) = phone_cmd(&home, &["list"]);
    assert_eq!(code, 0);
    assert!(list.contains("No paired phones"), "{list}");
    // Paired by the command's own link, with the keys the app then loads.
    let mut pairing = Pairing::start(&home, &["--loopback", "--port", "0"]);
    let phone = pair_over_lan(&pairing.link(), "Early phone");
    let (code, said) = pairing.end();
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("no headless Vults runs here"), "{said}");
    let mut app = Headless::start(&home, false, &[]);
    let (_, list, _) = phone_cmd(&home, &["list"]);
    assert!(list.contains(&phone.device), "{list}");
    // The app answers with the same keys: the phone's signed answer counts (its LAN page
    // turned on by a pairing nobody finishes).
    let mut pairing = Pairing::start(&home, &["--loopback", "--port", "0"]);
    let url = pairing.link();
    drop(pairing);
    let addr: SocketAddr = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let phone = PhoneClient { addr, ..phone };
    let asked = hook(&home, "s1", "echo paired before the app");
    let card = card_on_phone(&mut app, &phone, "echo paired before the app");
    let (status, _) = phone.send(&phone.answer(card, WireAnswer::Allow)).unwrap();
    assert_eq!(status, 200);
    assert!(reply_of(asked).contains(r#""behavior":"allow""#));
}

/// A server has no Settings → Phone: `phone broker-password` sets the broker's passwords from
/// standard input into the same store the window uses (here, with no session bus, the 0600
/// file), never from an argument; empty input changes nothing, and `--clear` forgets.
#[test]
fn a_server_sets_the_broker_passwords_from_standard_input() {
    let home = TempHome::new("hl-brokerpw");
    let run = |args: &[&str], input: &str| -> (i32, String, String) {
        let mut child = home
            .command(vults_tests::built_app_bin())
            .args(["phone", "broker-password"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("vults-app phone broker-password runs");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let paths = home.paths();
    let app_file = vults_phone::secrets::broker_password_file(&paths);
    let phone_file = vults_phone::secrets::phone_broker_password_file(&paths);
    let (code, out, err) = run(&[], "s3cret pass\n");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("app's broker password is"), "{out}");
    // Windows keeps it in its credential store (Wine's too); elsewhere, with no session bus, in
    // the private file.
    let in_file = !out.contains("system keyring");
    if in_file {
        assert_eq!(std::fs::read_to_string(&app_file).unwrap(), "s3cret pass");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&app_file).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
    let (code, out, err) = run(&["--phone"], "for the phone\r\n");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("phone's broker password is"), "{out}");
    if in_file {
        assert_eq!(
            std::fs::read_to_string(&phone_file).unwrap(),
            "for the phone"
        );
        assert_eq!(std::fs::read_to_string(&app_file).unwrap(), "s3cret pass");
    }
    // Nothing typed: nothing changes.
    let (code, _, err) = run(&[], "");
    assert_eq!(code, 1);
    assert!(err.contains("no password on standard input"), "{err}");
    if in_file {
        assert_eq!(std::fs::read_to_string(&app_file).unwrap(), "s3cret pass");
    }
    let (code, out, err) = run(&["--clear"], "");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("forgotten"), "{out}");
    assert!(!app_file.exists());
    assert!(phone_file.exists() || !in_file);
}
