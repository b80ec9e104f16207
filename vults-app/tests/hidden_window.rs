//! The notifier and the phone see every card while the window is out of sight: the real app
//! under `Xvfb` and openbox, its notifier on a private session bus whose notification server is
//! the stand-in (`vults_notify::test_support`), a phone paired beforehand (`vults-app phone
//! pair`, the Rust test phone) whose Web Push subscription is on the push service's stand-in
//! (`vults_phone::push::standin`), and the real hook asking. Once with the main window closed
//! (to the tray: the floating layout starts with it closed, only the island up), once with the
//! one window of the embedded layout minimized. Both subscribe to the engine themselves, so
//! neither waits on the window's frames. Linux only (D-Bus, openbox); it skips, saying why,
//! without `Xvfb`, openbox, xdotool or dbus-daemon unless `VULTS_DESKTOP_TESTS=1`.

use super::support::{Xvfb, app_bin, claude_bash, desktop_tools, log_text, wait_until, x};
use serde_json::{Value, json};
use std::io::BufRead;
use std::path::Path;
use std::process::{Command, Stdio};
use vults_notify::test_support::{NotificationServer, SessionBus};
use vults_phone::client::{PhoneClient, offer_from_url};
use vults_phone::push::standin::StandIn;
use vults_tests::desktop::{Kids, display_env, openbox};

/// Pairs the Rust test phone with the app on `home` before the app runs (`vults-app phone pair`
/// then runs the link itself), and gives it a Web Push subscription on `service`, written into
/// `devices.json` as the link keeps it once the page subscribed.
fn paired_phone(home: &Path, env: &[(String, String)], service: &StandIn) -> PhoneClient {
    let mut pair = Command::new(app_bin())
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env("VULTS_HOME", home)
        .env("HOME", home.join("home"))
        .args(["phone", "pair", "--loopback", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("vults-app phone pair starts");
    let mut out = std::io::BufReader::new(pair.stdout.take().unwrap());
    let url = loop {
        let mut line = String::new();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "phone pair ended before its link"
        );
        if line.starts_with("http") {
            break line.trim_end().to_string();
        }
    };
    let offer = offer_from_url(&url).expect("the link holds the pairing code");
    let addr = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .parse()
        .expect("the page's address");
    let mut phone = PhoneClient::new(addr);
    let reply = phone.pair(&offer, "Hidden phone").unwrap();
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert!(pair.wait().unwrap().success(), "phone pair says it paired");
    let file = home.join("config").join("devices.json");
    let mut devices: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let sub = service.subscribe("hidden");
    devices["devices"][0]["push"] = serde_json::to_value(&sub).unwrap();
    std::fs::write(&file, devices.to_string()).unwrap();
    phone
}

/// A PEM file of the push stand-in's CA, for the app's `SSL_CERT_FILE`.
fn ca_file(dir: &Path, der: &[u8]) -> std::path::PathBuf {
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

fn card_notified(layout: &str, hide: impl Fn(&str, &std::path::Path)) {
    let Some(xvfb) = Xvfb::start(&format!("hidden window {layout}")) else {
        return;
    };
    if !desktop_tools("hidden window", &["openbox", "xdotool", "dbus-daemon"]) {
        return;
    }
    let Some(bus) = SessionBus::start(&format!("hidden-{layout}")) else {
        return;
    };
    let server = NotificationServer::start(&bus.address, &["actions", "body"]);
    let d = xvfb.display.clone();
    let mut kids = Kids::default();
    let mut env = display_env(&d);
    openbox(&mut kids, &env);
    let home = vults_tests::TempHome::new(&format!("hidden-{layout}"));
    std::fs::create_dir_all(home.dir.join("config")).unwrap();
    std::fs::write(
        home.dir.join("config").join("settings.json"),
        json!({"welcome": {"shown": true}}).to_string(),
    )
    .unwrap();
    env.push(("DBUS_SESSION_BUS_ADDRESS".into(), bus.address.clone()));
    env.push(("VULTS_LAYOUT".into(), layout.into()));
    let service = StandIn::start().unwrap();
    let ca = ca_file(&home.dir, service.ca_der());
    env.push(("SSL_CERT_FILE".into(), ca.display().to_string()));
    let phone = paired_phone(&home.dir, &env, &service);
    let app = super::support::RunningApp::start_env(&home.dir, &env);
    assert!(
        wait_until(60, || home.dir.join("run").join("vults.sock").exists()),
        "the app did not come up:\n{}",
        log_text(&home.dir)
    );
    hide(&d, &home.dir);

    let mut hook = claude_bash(&home.dir, "s-hidden", "cargo publish --dry-run");
    assert!(
        wait_until(30, || server
            .notifies()
            .iter()
            .any(|n| n.body.contains("cargo publish --dry-run"))),
        "no notification while the window was out of sight: {:?}\n{}",
        server.notifies(),
        log_text(&home.dir)
    );
    // The same card is pushed to the phone: decrypted by the push service's stand-in, opened
    // with the phone's own seal key.
    let pushed = || -> Vec<Value> {
        service
            .received()
            .iter()
            .filter_map(|got| got.plaintext.as_ref())
            .filter_map(|sealed| {
                vults_phone::push::open_push(phone.seal.as_ref()?, &phone.device, sealed)
            })
            .collect()
    };
    assert!(
        wait_until(30, || pushed().iter().any(|p| p["t"] == "card"
            && p["body"]
                .as_str()
                .is_some_and(|b| b.contains("cargo publish --dry-run")))),
        "no push while the window was out of sight: {:?} {:?}\n{}",
        service.received(),
        pushed(),
        log_text(&home.dir)
    );
    // The app gone, its hook ends (printing nothing).
    drop(app);
    let _ = hook.wait();
}

#[test]
fn a_card_is_notified_with_the_main_window_closed_to_the_tray() {
    card_notified("floating", |d, home| {
        // Only the island: the main window was never opened (the welcome was seen).
        assert!(
            wait_until(30, || !x(
                d,
                "xdotool",
                &["search", "--name", "^Vults island$"]
            )
            .is_empty()),
            "no island:\n{}",
            log_text(home)
        );
        assert!(
            x(
                d,
                "xdotool",
                &["search", "--onlyvisible", "--name", "^Vults$"]
            )
            .is_empty(),
            "the main window is open"
        );
    });
}

#[test]
fn a_card_is_notified_with_the_window_minimized() {
    card_notified("embedded", |d, home| {
        let mut window = String::new();
        assert!(
            wait_until(30, || {
                window = x(
                    d,
                    "xdotool",
                    &["search", "--onlyvisible", "--name", "^Vults$"],
                );
                !window.is_empty()
            }),
            "no window:\n{}",
            log_text(home)
        );
        let window = window.lines().next().unwrap().to_string();
        x(d, "xdotool", &["windowminimize", "--sync", &window]);
        assert!(
            wait_until(10, || x(d, "xprop", &["-id", &window, "_NET_WM_STATE"])
                .contains("_NET_WM_STATE_HIDDEN")),
            "not minimized: {}",
            x(d, "xprop", &["-id", &window, "_NET_WM_STATE"])
        );
    });
}
