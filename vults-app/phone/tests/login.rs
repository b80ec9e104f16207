//! The phone through a broker that requires every client to log in: Debian's `mosquitto`,
//! started here on 127.0.0.1 with `allow_anonymous false`, a password file made by
//! `mosquitto_passwd` and an ACL that gives the phone's own account only `vults/+/a` (write)
//! and `vults/+/p` (read); its TLS WebSocket listener also serves the page (`http_dir`). The
//! app (`phone_broker_e2e`, LAN link off) logs in as `vults-app` and hands the phone its login
//! in the QR code. Debian's chromium (`tests/phone-browser/broker-login.mjs`) first opens the
//! code with a wrong phone password and with no login — the page says why, nothing pairs and
//! the waiting card stays waiting — then pairs with the right one and answers Allow and, after
//! a reload, Deny through real `vults-hook` calls. Neither password is in `phone-broker.json`,
//! the audit, the app's log folder or its output (but for the pairing URL it prints for the
//! test, which is the QR code's content).
//!
//! Also the page's MQTT client alone, in Node (`tests/phone-browser/mqtt.test.mjs`): CONNECT
//! with and without a login, byte for byte, and a refused CONNACK.
//!
//! The browser test runs when `VULTS_PHONE_BROWSER=1` (as the other browser tests; CI installs
//! `mosquitto`); the Node one whenever `node` runs.

use crate::broker_support::{App, audit, build_e2e, certificates, free_ports, lines_of, root};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn the_pages_mqtt_client_encodes_the_login_and_says_when_it_is_refused() {
    let node = Command::new("node")
        .current_dir(root().join("tests/phone-browser"))
        .arg("mqtt.test.mjs")
        .output();
    let out = match node {
        Ok(out) => out,
        Err(e) => {
            eprintln!("skipped: node does not run ({e})");
            return;
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains(" passed, 0 failed") && !text.contains("not ok"),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Mosquitto, stopped when dropped.
struct Broker(Child);

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Every file under `dir`, read as text (lossy), with its path.
fn files_under(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else if let Ok(bytes) = std::fs::read(&path) {
            out.push((path, String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
    out
}

#[test]
fn the_phone_logs_in_to_a_broker_that_refuses_anonymous_clients() {
    if std::env::var("VULTS_PHONE_BROWSER").as_deref() != Ok("1") {
        eprintln!(
            "skipped: set VULTS_PHONE_BROWSER=1 (needs mosquitto, chromium, node, and npm ci in tests/phone-browser)"
        );
        return;
    }
    let root = root();
    let (app_bin, hook_bin) = build_e2e();

    let temp = vults_tests::TempHome::empty("phone-login");
    let home = temp.dir.clone();
    let www = home.join("www");
    std::fs::create_dir_all(&www).unwrap();
    let tag = format!("{}", std::process::id());
    let app_password = format!("app-pw-{tag}-A7q");
    let phone_password = format!("phone pw&={tag}#Zx");

    // The broker: no anonymous clients, two accounts, an ACL per account.
    const NAME: &str = "vults-broker.test";
    let (ca, cert, key) = certificates(&home, &[NAME, "127.0.0.1"]);
    for f in ["index.html", "phone.js", "words.js", "phone.css", "mqtt.js"] {
        std::fs::copy(root.join("assets/phone").join(f), www.join(f)).unwrap();
    }
    let passwd = home.join("passwd");
    for (i, (user, password)) in [
        ("vults-app", app_password.as_str()),
        ("vults-phone", phone_password.as_str()),
    ]
    .iter()
    .enumerate()
    {
        let mut cmd = Command::new("mosquitto_passwd");
        cmd.arg("-b");
        if i == 0 {
            cmd.arg("-c");
        }
        let made = cmd
            .arg(&passwd)
            .args([user, password])
            .status()
            .expect("run mosquitto_passwd (apt-get install mosquitto)");
        assert!(made.success());
    }
    let acl = home.join("acl");
    std::fs::write(
        &acl,
        "user vults-app\ntopic readwrite vults/#\n\n\
         user vults-phone\ntopic write vults/+/a\ntopic read vults/+/p\n",
    )
    .unwrap();
    // Mosquitto drops root for its own user, which must read these.
    #[cfg(unix)]
    for f in [&passwd, &acl] {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let [plain, wss] = free_ports();
    let conf = home.join("mosquitto.conf");
    std::fs::write(
        &conf,
        format!(
            "persistence false\nallow_anonymous false\nlog_dest stderr\nlog_type all\n\
             password_file {}\nacl_file {}\n\
             listener {plain} 127.0.0.1\n\
             listener {wss} 127.0.0.1\nprotocol websockets\nhttp_dir {}\n\
             certfile {}\nkeyfile {}\n",
            passwd.display(),
            acl.display(),
            www.display(),
            cert.display(),
            key.display()
        ),
    )
    .unwrap();
    let broker_log = home.join("mosquitto.log");
    let broker = Broker(
        Command::new("mosquitto")
            .arg("-c")
            .arg(&conf)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&broker_log).unwrap())
            .spawn()
            .expect("run mosquitto (apt-get install mosquitto)"),
    );
    // (Mosquitto 2.0.11 starts no WebSocket listener without another one beside it: the
    // plain one, which lets no one in without a login either.)
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", wss)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "mosquitto did not start:\n{}",
            std::fs::read_to_string(&broker_log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    // The app, LAN link off, logged in as vults-app; the phone's login through Settings' path.
    let mut child = Command::new(&app_bin)
        .arg(format!("wss://127.0.0.1:{wss}/"))
        .args(["--ca".as_ref(), ca.as_os_str()])
        .args(["--phone", &format!("wss://{NAME}:{wss}/")])
        .args(["--page", &format!("https://{NAME}:{wss}/")])
        .args(["--user", "vults-app", "--password", &app_password])
        .args(["--phone-user", "vults-phone"])
        .args(["--phone-password", &phone_password])
        .env("HOME", home.join("home"))
        .env("VULTS_HOME", &home)
        .env("VULTS_SOCKET", home.join("vults.sock"))
        .env("VULTS_LOG", "trace")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start phone_broker_e2e");
    let app_lines = lines_of(&mut child);
    let app = App {
        stdin: child.stdin.take(),
        child,
    };
    let mut app_output = Vec::new();
    let pair_url = loop {
        let line = app_lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| {
                panic!(
                    "no pairing URL from the app:\n{}",
                    std::fs::read_to_string(&broker_log).unwrap_or_default()
                )
            });
        if let Some(url) = line.strip_prefix("vults-phone-e2e: pair ") {
            break url.trim().to_string();
        }
        app_output.push(line);
    };
    assert!(
        pair_url.starts_with(&format!("https://{NAME}:{wss}/#")),
        "{pair_url}"
    );
    let offer = vults_phone::client::offer_from_url(&pair_url).expect("a pairing URL");
    assert_eq!(
        offer.phone_login,
        Some(("vults-phone".to_string(), phone_password.clone())),
        "the code carries the phone's login"
    );

    let node = Command::new("node")
        .current_dir(root.join("tests/phone-browser"))
        .arg("broker-login.mjs")
        .arg(&pair_url)
        .arg(&hook_bin)
        .arg(&home)
        .arg(&tag)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run node (is Node.js installed?)");
    let out = node.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    for line in text.lines() {
        eprintln!("[node] {line}");
    }
    assert!(
        out.status.success() && text.contains("7 passed, 0 failed"),
        "the browser test failed:\n{text}\n--- mosquitto ---\n{}",
        std::fs::read_to_string(&broker_log).unwrap_or_default()
    );
    let device = text
        .lines()
        .find_map(|l| l.strip_prefix("DEVICE "))
        .expect("the device id")
        .to_string();

    // The broker refused the wrong logins (its own log says so) and let the right one in.
    let broker_said = std::fs::read_to_string(&broker_log).unwrap_or_default();
    let refusals = broker_said
        .lines()
        .filter(|l| l.contains("Sending CONNACK") && l.contains("(0, 5)"))
        .count();
    assert!(refusals >= 2, "both wrong logins refused:\n{broker_said}");
    assert!(
        broker_said.contains("u'vults-phone'"),
        "the phone logged in with its own account:\n{broker_said}"
    );

    // The audit names the phone for both answers, and one device is paired.
    let by = format!("phone:Login phone {tag} ({device})");
    let entries = audit(&home);
    let decisions: Vec<String> = entries
        .iter()
        .filter(|e| e["by"] == by.as_str())
        .map(|e| e["decision"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        decisions.contains(&"allow".to_string()) && decisions.contains(&"deny".to_string()),
        "{entries:?}"
    );
    let devices: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("config/devices.json")).unwrap())
            .unwrap();
    assert_eq!(devices["devices"].as_array().map(Vec::len), Some(1));

    // Neither password in the settings file, the audit, the log folder or the app's output;
    // each is kept apart (here, with no keyring service, in its own 0600 file).
    drop(app);
    while let Ok(line) = app_lines.try_recv() {
        if !line.starts_with("vults-phone-e2e: pair ") {
            app_output.push(line);
        }
    }
    let settings = std::fs::read_to_string(home.join("config/phone-broker.json")).unwrap();
    assert!(
        settings.contains("\"phone_username\": \"vults-phone\""),
        "{settings}"
    );
    let mut places = vec![
        (home.join("config/phone-broker.json"), settings),
        (
            home.join("data/audit.jsonl"),
            std::fs::read_to_string(home.join("data/audit.jsonl")).unwrap(),
        ),
        (PathBuf::from("the app's output"), app_output.join("\n")),
    ];
    let logs = files_under(&home.join("log"));
    assert!(
        logs.iter()
            .any(|(_, text)| text.contains("phone broker: connecting to")
                && text.contains("phones log in as vults-phone")),
        "the app's log was written: {logs:?}"
    );
    places.extend(logs);
    for (place, text) in &places {
        for secret in [&app_password, &phone_password] {
            assert!(
                !text.contains(secret.as_str()),
                "a password in {}",
                place.display()
            );
        }
    }
    #[cfg(unix)]
    for (file, secret) in [
        ("config/phone-broker.secret", &app_password),
        ("config/phone-broker-phone.secret", &phone_password),
    ] {
        use std::os::unix::fs::PermissionsExt;
        let path = home.join(file);
        if let Ok(meta) = std::fs::metadata(&path) {
            assert_eq!(meta.permissions().mode() & 0o777, 0o600, "{file}");
            assert_eq!(&std::fs::read_to_string(&path).unwrap(), secret, "{file}");
        }
    }
    drop(broker);
    let _ = std::fs::remove_dir_all(&home);
}
