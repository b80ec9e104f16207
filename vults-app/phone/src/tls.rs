//! The phone page's TLS: a self-signed certificate for the address the QR code names, made on
//! first use and kept (`phone-tls.json`, 0600, config folder) so a phone that accepted it once
//! is not asked again. Phone browsers give WebCrypto only to secure contexts, which a
//! plain-HTTP LAN address is not; the certificate is what makes the page one. Its SHA-256
//! fingerprint is shown in Settings → Phone, to compare with what the phone's browser shows.

use super::crypto::{b64, unb64};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::sync::Arc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A ready acceptor and the certificate's fingerprint.
#[derive(Clone)]
pub struct TlsIdentity {
    /// Accepts the phone's TLS connections with the link's self-signed certificate.
    pub acceptor: TlsAcceptor,
    /// SHA-256 of the certificate, `AB:CD:…` as browsers show it.
    pub fingerprint: String,
}

#[derive(Serialize, Deserialize)]
struct Stored {
    names: Vec<String>,
    cert: String,
    key: String,
}

/// The certificate for `host` (kept, or made anew when it does not name `host`).
pub fn load_or_create(path: &Path, host: &str) -> std::io::Result<TlsIdentity> {
    let stored = std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice::<Stored>(&b).ok())
        .filter(|s| s.names.iter().any(|n| n == host));
    let (cert, key) = match stored.and_then(|s| Some((unb64(&s.cert)?, unb64(&s.key)?))) {
        Some(pair) => pair,
        None => {
            let mut names = vec![host.to_string(), "localhost".into(), "127.0.0.1".into()];
            names.dedup();
            let key = rcgen::KeyPair::generate().map_err(std::io::Error::other)?;
            let mut params =
                rcgen::CertificateParams::new(names.clone()).map_err(std::io::Error::other)?;
            params
                .distinguished_name
                .push(rcgen::DnType::CommonName, "Vults phone link");
            let cert = params.self_signed(&key).map_err(std::io::Error::other)?;
            let (cert, key) = (cert.der().to_vec(), key.serialize_der());
            let stored = Stored {
                names,
                cert: b64(&cert),
                key: b64(&key),
            };
            let json = serde_json::to_vec_pretty(&stored).map_err(std::io::Error::other)?;
            super::secrets::write_secret(path, &json)?;
            (cert, key)
        }
    };
    let fingerprint = Sha256::digest(&cert)
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":");
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(std::io::Error::other)?
        .with_no_client_auth()
        .with_single_cert(
            vec![CertificateDer::from(cert)],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key)),
        )
        .map_err(std::io::Error::other)?;
    Ok(TlsIdentity {
        acceptor: TlsAcceptor::from(Arc::new(config)),
        fingerprint,
    })
}
