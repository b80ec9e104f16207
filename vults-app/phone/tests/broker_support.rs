//! What the broker tests share: the built app example, free ports, a CA and a server certificate
//! for Mosquitto, the app's stderr as lines, the audit log. Shared by the `broker` and `login` modules.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin};
use std::sync::mpsc::{Receiver, channel};

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
