//! What the broker tests share: the built app example, free ports, a CA and a server certificate
//! for Mosquitto and Mosquitto itself, the app's stderr as lines, the audit log. Shared by the
//! `broker`, `broker_abuse` and `login` modules.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// `N` free ports on 127.0.0.1, all held until all are picked (so no two are the same).
pub fn free_ports<const N: usize>() -> [u16; N] {
    let held: Vec<TcpListener> = (0..N)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    std::array::from_fn(|i| held[i].local_addr().unwrap().port())
}

fn pem(label: &str, der: &[u8]) -> String {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
    let lines: Vec<&str> = b64
        .as_bytes()
        .chunks(64)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    format!(
        "-----BEGIN {label}-----\n{}\n-----END {label}-----\n",
        lines.join("\n")
    )
}

/// A CA, and a server certificate it signed for `names`: (ca.pem, cert.pem, key.pem).
pub fn certificates(dir: &Path, names: &[&str]) -> (PathBuf, PathBuf, PathBuf) {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(rcgen::DnType::CommonName, "Vults test broker CA");
    ca.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::CrlSign,
    ];
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca, ca_key);
    let key = rcgen::KeyPair::generate().unwrap();
    let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    let server = rcgen::CertificateParams::new(names)
        .unwrap()
        .signed_by(&key, &issuer)
        .unwrap();
    let paths = (
        dir.join("ca.pem"),
        dir.join("cert.pem"),
        dir.join("key.pem"),
    );
    std::fs::write(&paths.0, pem("CERTIFICATE", ca_cert.der())).unwrap();
    std::fs::write(&paths.1, pem("CERTIFICATE", server.der())).unwrap();
    std::fs::write(&paths.2, pem("PRIVATE KEY", &key.serialize_der())).unwrap();
    (paths.0, paths.1, paths.2)
}

/// The app's stderr, line by line.
pub fn lines_of(child: &mut Child) -> Receiver<String> {
    let (tx, rx) = channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            eprintln!("[app] {line}");
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

pub fn audit(home: &Path) -> Vec<Value> {
    std::fs::read_to_string(home.join("data/audit.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The workspace root.
pub fn root() -> PathBuf {
    vults_tests::workspace_root()
}

/// Builds the hook and the app as the broker tests run it (the `phone_broker_e2e` example);
/// their paths: (app, hook).
pub fn build_e2e() -> (PathBuf, PathBuf) {
    vults_tests::built_example("vults-phone", "phone_broker_e2e")
}

/// The app, stopped when dropped.
pub struct App {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
}

impl Drop for App {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The next line of the app's stderr that starts with `prefix`, without it.
pub fn wait_line(rx: &Receiver<String>, prefix: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = rx
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no line starting with {prefix:?} from the app"));
        if let Some(rest) = line.strip_prefix(prefix) {
            return rest.trim().to_string();
        }
    }
}

/// A Mosquitto configuration in `home` for anonymous clients: a plain listener on `plain` and a
/// WebSocket one over TLS (`cert`, `key`) on `wss`, serving `http_dir` when given.
fn anonymous_conf(
    home: &Path,
    [plain, wss]: [u16; 2],
    (cert, key): (&Path, &Path),
    http_dir: Option<&Path>,
) -> PathBuf {
    let conf = home.join("mosquitto.conf");
    let http_dir = http_dir
        .map(|d| format!("http_dir {}\n", d.display()))
        .unwrap_or_default();
    std::fs::write(
        &conf,
        format!(
            "persistence false\nallow_anonymous true\nlog_dest stderr\nlog_type all\n\
             listener {plain} 127.0.0.1\n\
             listener {wss} 127.0.0.1\nprotocol websockets\n{http_dir}\
             certfile {}\nkeyfile {}\n",
            cert.display(),
            key.display()
        ),
    )
    .unwrap();
    conf
}

/// Debian's `mosquitto` on 127.0.0.1, run with `conf`; stopped when dropped.
pub struct Broker {
    pub conf: PathBuf,
    /// Mosquitto's own log (its stderr), appended to across restarts.
    pub log: PathBuf,
    /// The plain listener's port: the broker is up once it accepts a connection there.
    pub plain: u16,
    pub child: Option<Child>,
}

impl Broker {
    /// Mosquitto for anonymous clients (a plain listener on the first port, WebSocket over TLS on
    /// the second, serving `http_dir` when given), started; its log is `home/mosquitto.log`.
    pub fn anonymous(
        home: &Path,
        ports: [u16; 2],
        cert_key: (&Path, &Path),
        http_dir: Option<&Path>,
    ) -> Broker {
        let mut broker = Broker {
            conf: anonymous_conf(home, ports, cert_key, http_dir),
            log: home.join("mosquitto.log"),
            plain: ports[0],
            child: None,
        };
        broker.start();
        broker
    }

    /// Starts Mosquitto with `conf`, and waits until it listens on `plain`.
    pub fn start(&mut self) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .unwrap();
        let child = Command::new("mosquitto")
            .arg("-c")
            .arg(&self.conf)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("run mosquitto (apt-get install mosquitto)");
        self.child = Some(child);
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.plain)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "mosquitto did not start:\n{}",
                std::fs::read_to_string(&self.log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stops it (a test that restarts the broker starts it again).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        self.stop();
    }
}
