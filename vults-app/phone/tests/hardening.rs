//! The phone link against a hostile LAN (the promises of docs/phone.md): what reaches the audit
//! before a request is authenticated, device names, pairing with revoked or low-order keys,
//! pairing tokens, the HTTP limits, and a window that never waits for the link.
//!
//! Most tests run a real link on loopback; the flood budget across many source addresses is
//! checked on the gate directly, with its clock in the test's hands.

use serde_json::{Value, json};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use vults_core::agents::read_tool_call;
use vults_core::paths::Paths;
use vults_core::protocol::{AgentKind, Identity};
use vults_core::rules::AlwaysRule;
use vults_engine::messages::{AnsweredBy, AuditEntry, CardAnswer, EngineCommand, EngineEvent};
use vults_phone::client::{self, PhoneClient};
use vults_phone::crypto::{self, Op, WireAnswer};
use vults_phone::devices::DeviceStore;
use vults_phone::gate::{ANON_BURST, Gate, SUMMARY_INTERVAL_MS};
use vults_phone::{BackgroundLink, LinkConfig, PhoneAction, PhoneLink};

type Sent = Arc<Mutex<Vec<EngineCommand>>>;

fn home(name: &str) -> (vults_tests::TempHome, Paths) {
    let home = vults_tests::TempHome::empty(&format!("h-{name}"));
    let paths = home.paths();
    (home, paths)
}

fn sink() -> (Sent, vults_phone::CommandSink) {
    let sent: Sent = Arc::new(Mutex::new(Vec::new()));
    let s = sent.clone();
    (sent, Arc::new(move |c| s.lock().unwrap().push(c)))
}

fn audit_of(sent: &Sent) -> Vec<AuditEntry> {
    sent.lock()
        .unwrap()
        .iter()
        .filter_map(|c| match c {
            EngineCommand::Record(e) => Some(e.clone()),
            _ => None,
        })
        .collect()
}

struct Harness {
    /// Removed when the harness is dropped (after the link stopped).
    _home: vults_tests::TempHome,
    link: PhoneLink,
    addr: SocketAddr,
    sent: Sent,
}

impl Harness {
    fn new(name: &str) -> Harness {
        let (home, paths) = home(name);
        let (sent, sink) = sink();
        let mut link = PhoneLink::new(&paths, sink).unwrap();
        let addr = link.start(LinkConfig::loopback(0)).unwrap();
        Harness {
            _home: home,
            link,
            addr,
            sent,
        }
    }

    fn audit(&self) -> Vec<AuditEntry> {
        audit_of(&self.sent)
    }

    fn pair(&self, name: &str) -> (u16, PhoneClient, Value) {
        let mut phone = PhoneClient::new(self.addr);
        let offer = self.link.offer().unwrap();
        let reply = phone.pair(&offer, name).unwrap();
        let v = serde_json::from_slice(&reply.body).unwrap_or_default();
        (reply.status, phone, v)
    }

    fn paired(&self, name: &str) -> PhoneClient {
        let (status, phone, v) = self.pair(name);
        assert_eq!(status, 200, "{v}");
        phone
    }

    /// An `/api` request claiming `claim`, with a body no key made.
    fn claim(&self, claim: &str) -> u16 {
        let body = json!({"d": claim, "n": crypto::b64(&[1u8; 12]), "c": crypto::b64(&[2u8; 40])});
        client::post(self.addr, "/api", body.to_string().as_bytes())
            .unwrap()
            .status
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        self.link.stop();
    }
}

fn card(id: u64) -> vults_engine::messages::PendingCard {
    let identity = Identity::Builtin(AgentKind::Claude);
    let payload =
        json!({"session_id":"s1","cwd":"/w","tool_name":"Bash","tool_input":{"command":"ls"}});
    let call = read_tool_call(&payload);
    vults_engine::messages::PendingCard {
        id,
        agent: AgentKind::Claude,
        always_rule: Some(AlwaysRule::for_call(&identity, "/w", &call, 0)),
        file_rule: None,
        identity,
        session: vults_engine::messages::SessionKey {
            identity: "claude".into(),
            session: "s1".into(),
        },
        folder: "/w".into(),
        call,
        destructive: None,
        reason: vults_engine::messages::Reason::NoRule,
        question: false,
        arrived: std::time::SystemTime::now(),
        context: Default::default(),
    }
}

fn random_id() -> String {
    crypto::b64(&crypto::random::<12>())
}

fn lan(n: u32) -> IpAddr {
    IpAddr::V4(Ipv4Addr::from(0x0A00_0000 + n))
}

/// A gate with no listener, its clock given by each call.
fn bare_gate(name: &str) -> (vults_tests::TempHome, Gate, Sent) {
    let (home, _) = home(name);
    let store = DeviceStore::load(&home.dir.join("devices.json")).unwrap();
    let (sent, sink) = sink();
    let gate = Gate::new(crypto::AppKeys::generate(), store, sink, 1_000_000);
    (home, gate, sent)
}

/// A pairing body for `phone` with `token` (its proof signed), as the page posts it.
fn pair_body(phone: &PhoneClient, token: &str, name: &str, boxk: &str) -> Vec<u8> {
    let sign = phone.sign_public();
    let proof = crypto::pair_message(token, name, &sign, boxk);
    json!({"token": token, "name": name, "sign": sign, "box": boxk,
        "sig": crypto::b64(&crypto::sign(&phone.sign, proof.as_bytes()))})
    .to_string()
    .into_bytes()
}

/// Pairs `phone` with `gate` directly and gives it the device id and seal key.
fn pair_with_gate(gate: &Gate, phone: &mut PhoneClient, now: u64) {
    let (token, _) = gate.new_token(now);
    let body = pair_body(phone, &token, "real phone", &phone.box_public());
    let reply = gate.pair(&body, lan(1), now);
    assert_eq!(reply.status, 200);
    let v: Value = serde_json::from_slice(&reply.body).unwrap();
    phone.device = v["device"].as_str().unwrap().to_string();
    let (_, app_box) = gate.public_keys();
    let mine = x25519_dalek::PublicKey::from(&phone.boxing).to_bytes();
    phone.seal = Some(crypto::SealKey::agree(
        &phone.boxing,
        &app_box,
        &mine,
        &app_box,
    ));
}

// ---- 3. the flood budget -------------------------------------------------------------------

#[test]
fn flood_of_claimed_ids_is_throttled_by_one_budget() {
    let h = Harness::new("flood-ids");
    for _ in 0..40 {
        let status = h.claim(&random_id());
        assert!(status == 401 || status == 429, "{status}");
    }
    let audit = h.audit();
    assert_eq!(audit.len(), 1, "one line per source address: {audit:#?}");
    assert_eq!(audit[0].by, "phone:unknown");
    assert!(
        audit[0]
            .detail
            .as_deref()
            .unwrap()
            .contains("from 127.0.0.1")
    );
}

#[test]
fn refusals_from_many_addresses_share_one_budget_and_the_rest_are_counted_in_one_line() {
    let (home, gate, sent) = bare_gate("budget");
    let t0 = 2_000_000;
    let junk = |claim: &str| {
        json!({"d": claim, "n": crypto::b64(&[1u8; 12]), "c": crypto::b64(&[2u8; 40])})
            .to_string()
            .into_bytes()
    };
    for n in 0..50 {
        let (reply, command) = gate.api(&junk(&random_id()), lan(n), t0);
        assert_eq!(reply.status, 401);
        assert!(command.is_none());
    }
    assert_eq!(audit_of(&sent).len(), ANON_BURST as usize);
    // Not yet due; then one line counts the 40 not written.
    gate.flush(t0 + 1_000, false);
    assert_eq!(audit_of(&sent).len(), ANON_BURST as usize);
    gate.flush(t0 + SUMMARY_INTERVAL_MS, false);
    let audit = audit_of(&sent);
    assert_eq!(audit.len(), ANON_BURST as usize + 1);
    let summary = audit.last().unwrap().detail.clone().unwrap();
    assert!(summary.starts_with("40 more refused requests"), "{summary}");
    // Nothing more was dropped: no second summary.
    gate.flush(t0 + 3 * SUMMARY_INTERVAL_MS, true);
    assert_eq!(audit_of(&sent).len(), ANON_BURST as usize + 1);
    drop(home);
}

#[test]
fn refusals_for_a_revoked_id_go_under_the_same_throttle() {
    let h = Harness::new("flood-revoked");
    let phone = h.paired("old");
    assert!(h.link.revoke(&phone.device).unwrap());
    for _ in 0..15 {
        assert_eq!(h.claim(&phone.device), 403);
    }
    let audit = h.audit();
    assert_eq!(audit.len(), 1, "{audit:#?}");
    let detail = audit[0].detail.clone().unwrap();
    assert!(detail.starts_with("revoked device"), "{detail}");
    assert!(detail.contains("not authenticated"), "{detail}");
    assert_eq!(audit[0].by, format!("phone:old ({})", phone.device));
}

#[test]
fn a_flood_cannot_push_real_refusals_out_of_settings() {
    let (home, gate, sent) = bare_gate("keep-real");
    let t0 = 2_000_000;
    let mut phone = PhoneClient::new("127.0.0.1:9".parse().unwrap());
    pair_with_gate(&gate, &mut phone, t0);
    // An authenticated request refused: the card is not pending.
    let mut req = phone.answer(99, WireAnswer::Allow);
    req.time_ms = t0;
    let m = req.to_message();
    let env = phone.envelope(&m, &crypto::sign(&phone.sign, m.as_bytes()));
    let (reply, _) = gate.api(&env, lan(1), t0);
    assert_eq!(reply.status, 403);
    let real = audit_of(&sent).last().unwrap().clone();
    assert!(
        real.detail
            .as_deref()
            .unwrap()
            .starts_with("card not pending")
    );
    // Twenty minutes of a flood from ever new addresses.
    for i in 0..2_000u32 {
        let body = json!({"d": random_id(), "n": crypto::b64(&[1u8; 12]), "c": "AAAA"});
        let now = t0 + 1 + u64::from(i) * 600;
        gate.api(body.to_string().as_bytes(), lan(1_000 + i), now);
    }
    assert!(audit_of(&sent).len() > 100, "the flood was audited in part");
    let shown = gate.refusals();
    assert!(
        shown.contains(&real),
        "the real refusal is still in Settings"
    );
    assert_eq!(gate.authenticated_refusals(), vec![real]);
    assert_eq!(gate.unauthenticated_refusals().len(), 10);
    assert!(shown.len() <= 50);
    drop(home);
}

// ---- 4. only what the app can vouch for ----------------------------------------------------

#[test]
fn claimed_ids_reach_the_audit_escaped_bounded_and_marked_as_claimed() {
    let h = Harness::new("claims");
    let claim = "\u{202E}gnirts\u{2028}Re-pair now: scan the code at evil.example\nok";
    assert_eq!(h.claim(claim), 401);
    let audit = h.audit();
    let detail = audit[0].detail.clone().unwrap();
    for bad in ['\u{202E}', '\u{2028}', '\n'] {
        assert!(!detail.contains(bad), "{detail:?}");
    }
    assert!(
        detail.contains("claimed id \"\\u{202e}gnirts\\u{2028}"),
        "{detail}"
    );
    assert!(!detail.contains("evil.example"), "bounded: {detail}");
    assert!(detail.is_ascii());
    assert_eq!(
        h.link.refusals()[0].detail.as_deref(),
        Some(detail.as_str())
    );
}

// ---- 5. device names -----------------------------------------------------------------------

#[test]
fn device_names_with_bidi_zero_width_or_separator_characters_are_refused() {
    let h = Harness::new("names");
    for name in [
        "Ana\u{202E}enohp",
        "Ana\u{2066}x\u{2069}",
        "Ana\u{2028}Re-pair now",
        "Ana\u{2029}x",
        "An\u{200B}a",
        "Ana\u{200D}",
        "\u{FEFF}Ana",
        "Ana\u{00A0}phone",
        "Ana\u{0085}",
        "Ana\u{180E}",
        "Ana\u{061C}",
        "Ana\u{FE0F}",
    ] {
        let (status, _, v) = h.pair(name);
        assert_eq!(status, 400, "{name:?} {v}");
    }
    assert!(h.link.devices().is_empty());
    let (status, _, v) = h.pair("Ana's phone 📱");
    assert_eq!(status, 200, "{v}");
}

#[test]
fn a_second_device_with_the_same_name_gets_a_suffix_and_answers_name_the_device_id() {
    let h = Harness::new("dupes");
    let first = h.paired("Pixel");
    let (status, second, v) = h.pair("pixel");
    assert_eq!(status, 200);
    assert_eq!(v["name"], "pixel (2)");
    let names: Vec<String> = h.link.devices().into_iter().map(|d| d.name).collect();
    assert_eq!(names, ["Pixel", "pixel (2)"]);
    h.link.on_engine_event(&EngineEvent::CardAdded(card(4)));
    h.link.on_engine_event(&EngineEvent::CardAdded(card(5)));
    assert_eq!(
        first.send(&first.answer(4, WireAnswer::Deny)).unwrap().0,
        200
    );
    assert_eq!(
        second.send(&second.answer(5, WireAnswer::Allow)).unwrap().0,
        200
    );
    let answers: Vec<EngineCommand> = h.sent.lock().unwrap().clone();
    assert_eq!(
        answers,
        vec![
            EngineCommand::Answer {
                card: 4,
                answer: CardAnswer::Deny,
                by: AnsweredBy::Phone(format!("Pixel ({})", first.device)),
            },
            EngineCommand::Answer {
                card: 5,
                answer: CardAnswer::Allow,
                by: AnsweredBy::Phone(format!("pixel (2) ({})", second.device)),
            },
        ]
    );
    // The audit's `by` stays readable and History's "phone" filter still finds it.
    let by = AnsweredBy::Phone(format!("Pixel ({})", first.device)).label();
    assert!(by.starts_with("phone:Pixel ("), "{by}");
}

// ---- 6. revoked keys -----------------------------------------------------------------------

#[test]
fn a_revoked_key_cannot_pair_again_and_the_attempt_is_audited() {
    let h = Harness::new("repair-revoked");
    let mut phone = h.paired("lost");
    assert!(h.link.revoke(&phone.device).unwrap());
    let offer = h.link.offer().unwrap();
    let reply = phone.pair(&offer, "found again").unwrap();
    assert_eq!(reply.status, 403, "{}", reply.text());
    let devices = h.link.devices();
    assert_eq!(devices.len(), 1);
    assert_eq!(devices[0].name, "lost");
    assert!(
        devices[0].revoked_at.is_some(),
        "a revoked key stays revoked"
    );
    let last = h.audit().last().cloned().unwrap();
    assert_eq!(last.by, format!("phone:lost ({})", phone.device));
    assert!(
        last.detail
            .unwrap()
            .starts_with("pairing refused: revoked device")
    );
    // And it still cannot talk to the link.
    assert_eq!(h.claim(&phone.device), 403);
}

// ---- 7. failed pairings and tokens ---------------------------------------------------------

#[test]
fn failed_pairings_are_audited_under_the_flood_budget() {
    let h = Harness::new("pair-guess");
    let offer = h.link.offer().unwrap();
    for _ in 0..5 {
        let mut guess = offer.clone();
        guess.token = crypto::b64(&crypto::random::<16>());
        let mut g = PhoneClient::new(h.addr);
        assert_eq!(g.pair(&guess, "g").unwrap().status, 403);
    }
    let audit = h.audit();
    assert_eq!(audit.len(), 1, "{audit:#?}");
    assert_eq!(audit[0].by, "phone:unknown");
    let detail = audit[0].detail.clone().unwrap();
    assert!(
        detail.starts_with("pairing refused: unknown pairing token"),
        "{detail}"
    );
    assert!(!detail.contains(&offer.token));
    // From many addresses: the one shared budget.
    let (home, gate, sent) = bare_gate("pair-guess-gate");
    let phone = PhoneClient::new(h.addr);
    gate.new_token(2_000_000);
    for n in 0..30 {
        let body = pair_body(
            &phone,
            &crypto::b64(&[n as u8; 16]),
            "g",
            &phone.box_public(),
        );
        assert_eq!(gate.pair(&body, lan(n), 2_000_000).status, 403);
    }
    assert_eq!(audit_of(&sent).len(), ANON_BURST as usize);
    drop(home);
}

#[test]
fn only_the_newest_pairing_token_pairs_and_stopping_the_link_retires_it() {
    let mut h = Harness::new("one-token");
    let older = h.link.offer().unwrap();
    let newer = h.link.offer().unwrap();
    let mut phone = PhoneClient::new(h.addr);
    let reply = phone.pair(&older, "a").unwrap();
    assert_eq!(reply.status, 403, "{}", reply.text());
    assert_eq!(phone.pair(&newer, "a").unwrap().status, 200);

    let pending = h.link.offer().unwrap();
    h.link.stop();
    h.addr = h.link.start(LinkConfig::loopback(0)).unwrap();
    let mut late = PhoneClient::new(h.addr);
    assert_eq!(late.pair(&pending, "b").unwrap().status, 403);
    assert_eq!(h.link.devices().len(), 1);
}

// ---- 8. low-order keys ---------------------------------------------------------------------

#[test]
fn a_low_order_box_key_is_refused_at_pairing() {
    let h = Harness::new("low-order");
    let mut one = [0u8; 32];
    one[0] = 1;
    for low in [[0u8; 32], one] {
        let offer = h.link.offer().unwrap();
        let phone = PhoneClient::new(h.addr);
        let body = pair_body(&phone, &offer.token, "p", &crypto::b64(&low));
        let reply = client::post(h.addr, "/pair", &body).unwrap();
        assert_eq!(reply.status, 400, "{}", reply.text());
        assert!(reply.text().contains("low-order"));
    }
    assert!(h.link.devices().is_empty());
    let detail = h.audit()[0].detail.clone().unwrap();
    assert!(detail.contains("low-order"), "{detail}");
}

// ---- 9. the HTTP layer ---------------------------------------------------------------------

#[test]
fn idle_connections_from_one_host_do_not_lock_out_the_paired_phone() {
    let h = Harness::new("idle");
    let phone_host: IpAddr = Ipv4Addr::new(127, 0, 0, 2).into();
    let mut phone = PhoneClient::new(h.addr);
    phone.source = Some(phone_host);
    let offer = h.link.offer().unwrap();
    assert_eq!(phone.pair(&offer, "p").unwrap().status, 200);
    // One host opens 34 connections and sends nothing on them: 20 at once, then just under
    // the per-address request rate (5 a second), all well within the read timeout.
    let idle: Vec<std::net::TcpStream> = (0..34)
        .filter_map(|i| {
            if i >= 20 {
                std::thread::sleep(Duration::from_millis(210));
            }
            std::net::TcpStream::connect(h.addr).ok()
        })
        .collect();
    assert_eq!(idle.len(), 34);
    std::thread::sleep(Duration::from_millis(100));
    let (status, reply) = phone.send(&phone.request(Op::List)).unwrap();
    assert_eq!(status, 200, "{reply:?}");
    let page = client::exchange_from(
        Some(phone_host),
        h.addr,
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
    )
    .unwrap();
    assert_eq!(page.status, 200);
    // The idle host itself is told it has too many.
    assert_eq!(client::get(h.addr, "/").unwrap().status, 503);
    drop(idle);
}

#[test]
fn an_idle_tls_handshake_is_closed_after_3_s() {
    let (home, paths) = home("tls-idle");
    let (_sent, sink) = sink();
    let mut link = PhoneLink::new(&paths, sink).unwrap();
    let addr = link
        .start(LinkConfig {
            tls: true,
            ..LinkConfig::loopback(0)
        })
        .unwrap();
    // A connection that never starts its TLS handshake.
    let mut idle = std::net::TcpStream::connect(addr).unwrap();
    idle.set_read_timeout(Some(Duration::from_millis(4_500)))
        .unwrap();
    let started = std::time::Instant::now();
    let mut buf = [0u8; 16];
    let read = std::io::Read::read(&mut idle, &mut buf);
    assert!(
        matches!(read, Ok(0)),
        "still open after {:?}: {read:?}",
        started.elapsed()
    );
    link.stop();
    drop(home);
}

#[test]
fn headers_over_8_kib_get_431_and_smaller_ones_are_served() {
    let h = Harness::new("head");
    let request = |pad: usize| {
        format!(
            "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: {}\r\n\r\n",
            "a".repeat(pad)
        )
        .into_bytes()
    };
    assert_eq!(
        client::exchange(h.addr, &request(7 * 1024)).unwrap().status,
        200
    );
    assert_eq!(
        client::exchange(h.addr, &request(8 * 1024 + 512))
            .unwrap()
            .status,
        431
    );
    // The 8 KiB is for the head: a body of 12 KiB (under the 16 KiB limit) still reaches the
    // gate, which finds no envelope in it.
    let body = json!({"pad": "a".repeat(12 * 1024)}).to_string();
    let reply = client::post(h.addr, "/api", body.as_bytes()).unwrap();
    assert_eq!(reply.status, 400, "{}", reply.text());
    assert!(reply.text().contains("expected d, n and c"));
}

// ---- 11. the window never waits ------------------------------------------------------------

/// A write hook that says when a write of devices.json started and holds it until released.
fn held_writes() -> (
    vults_phone::devices::WriteHook,
    mpsc::Receiver<()>,
    mpsc::Sender<()>,
) {
    let (entered_tx, entered_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let (entered_tx, release_rx) = (Mutex::new(entered_tx), Mutex::new(release_rx));
    let hook: vults_phone::devices::WriteHook = Arc::new(move || {
        let _ = entered_tx.lock().unwrap().send(());
        let _ = release_rx
            .lock()
            .unwrap()
            .recv_timeout(Duration::from_secs(30));
    });
    (hook, entered_rx, release_tx)
}

/// Runs `f` on a thread; whether it finished within 5 s.
fn finishes(f: impl FnOnce() + Send + 'static) -> bool {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        f();
        let _ = tx.send(());
    });
    rx.recv_timeout(Duration::from_secs(5)).is_ok()
}

#[test]
fn nothing_waits_for_the_gate_while_devices_json_is_written() {
    let h = Harness::new("no-wait");
    let phone = Arc::new(h.paired("p"));
    let (hook, entered, release) = held_writes();
    h.link.set_write_hook(Some(hook));
    // A second phone pairs: its devices.json write is held.
    let offer = h.link.offer().unwrap();
    let addr = h.addr;
    let pairing = std::thread::spawn(move || {
        let mut other = PhoneClient::new(addr);
        other.pair(&offer, "second").unwrap().status
    });
    entered
        .recv_timeout(Duration::from_secs(10))
        .expect("the write started");
    // Meanwhile the paired phone is served and the link's state can be read.
    let p = phone.clone();
    assert!(
        finishes(move || assert_eq!(p.send(&p.request(Op::List)).unwrap().0, 200)),
        "a request waited for the disk"
    );
    assert_eq!(h.link.devices().len(), 1, "not yet saved, not yet shown");
    h.link.on_engine_event(&EngineEvent::CardAdded(card(1)));
    let _ = h.link.refusals();
    release.send(()).unwrap();
    assert_eq!(pairing.join().unwrap(), 200);
    assert_eq!(h.link.devices().len(), 2);
}

#[test]
fn settings_actions_return_at_once_and_the_window_reads_a_snapshot() {
    let (home, paths) = home("background");
    let (sent, sink) = sink();
    let mut link = PhoneLink::new(&paths, sink).unwrap();
    let addr = link.start(LinkConfig::loopback(0)).unwrap();
    let mut phone = PhoneClient::new(addr);
    assert_eq!(phone.pair(&link.offer().unwrap(), "p").unwrap().status, 200);
    let (hook, entered, release) = held_writes();
    link.set_write_hook(Some(hook));
    let woken = Arc::new(Mutex::new(0u32));
    let w = woken.clone();
    // What the window holds (`vults_ui::ports::PhoneSide` is this link's own methods).
    let side = BackgroundLink::with_link(link, Arc::new(move || *w.lock().unwrap() += 1));
    // Revoking writes devices.json, held here: the window's call returns anyway…
    side.apply(PhoneAction::Revoke(phone.device.clone()));
    entered
        .recv_timeout(Duration::from_secs(10))
        .expect("the link thread is writing");
    // …and the window reads the snapshot meanwhile (the device not yet revoked in it).
    let status = side.status();
    assert!(status.devices[0].revoked_at.is_none());
    side.on_engine_event(&EngineEvent::CardAdded(card(1)));
    release.send(()).unwrap();
    // The snapshot follows once the write is done.
    let revoked = (0..100).any(|_| {
        std::thread::sleep(Duration::from_millis(50));
        side.status().devices[0].revoked_at.is_some()
    });
    assert!(revoked);
    assert!(*woken.lock().unwrap() > 0, "the window was woken");
    drop(side);
    assert!(
        client::get(addr, "/").is_err(),
        "dropping it stops the link"
    );
    assert!(audit_of(&sent).is_empty());
    drop(home);
}
