//! A stand-in push service for tests (like [`crate::client`], the test phone): HTTPS on
//! 127.0.0.1 with a certificate from a CA of its own ([`StandIn::roots`] is the only way the
//! app's sender trusts it), checking each request as a real push service does — the VAPID
//! `Authorization` (ES256 with `k`, `aud` = the endpoint's origin, `exp` within 24 h, a
//! `sub`), `TTL`, `Content-Encoding: aes128gcm` — and decrypting the body with the private
//! key of the subscription it made. It answers 201, or what the test asks (410).

use super::send::Roots;
use super::webpush::{VapidClaims, decrypt, verify_vapid};
use crate::crypto::{b64, random};
use crate::devices::Subscription;
use crate::error::VapidError;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use p256::SecretKey;
use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// One request the stand-in took, as it checked it.
#[derive(Debug, Clone)]
pub struct Received {
    /// The path (which subscription).
    pub path: String,
    /// The request's headers, names in lower case.
    pub headers: BTreeMap<String, String>,
    /// The VAPID claims, or why they are refused.
    pub vapid: Result<VapidClaims, VapidError>,
    /// The decrypted body, when it decrypted with the subscription's keys.
    pub plaintext: Option<Vec<u8>>,
    /// What it answered.
    pub status: u16,
}

struct Keys {
    secret: SecretKey,
    auth: [u8; 16],
}

#[derive(Default)]
struct State {
    keys: HashMap<String, Keys>,
    answer: HashMap<String, u16>,
    received: Vec<Received>,
    feed: Option<std::sync::mpsc::Sender<Received>>,
}

/// The running stand-in; stops when dropped.
pub struct StandIn {
    /// Where it listens.
    pub addr: SocketAddr,
    ca: CertificateDer<'static>,
    state: Arc<Mutex<State>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl StandIn {
    /// Starts it on a free port of 127.0.0.1.
    pub fn start() -> std::io::Result<StandIn> {
        let ca_key = rcgen::KeyPair::generate().map_err(std::io::Error::other)?;
        let mut ca_params =
            rcgen::CertificateParams::new(Vec::<String>::new()).map_err(std::io::Error::other)?;
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "Vults test push CA");
        let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key)
            .map_err(std::io::Error::other)?;
        let leaf_key = rcgen::KeyPair::generate().map_err(std::io::Error::other)?;
        let leaf = rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()])
            .map_err(std::io::Error::other)?
            .signed_by(&leaf_key, &ca)
            .map_err(std::io::Error::other)?;
        let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
        let config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(std::io::Error::other)?
            .with_no_client_auth()
            .with_single_cert(
                vec![leaf.der().clone()],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der())),
            )
            .map_err(std::io::Error::other)?;
        let acceptor = TlsAcceptor::from(Arc::new(config));
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let state = Arc::new(Mutex::new(State::default()));
        let shared = state.clone();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()?;
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("push-stand-in".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                        return;
                    };
                    tokio::select! {
                        _ = serve(listener, acceptor, shared, addr) => {}
                        _ = stop_rx => {}
                    }
                })
            })?;
        Ok(StandIn {
            addr,
            ca: ca.der().clone(),
            state,
            stop: Some(stop_tx),
            thread: Some(thread),
        })
    }

    /// The roots the app's sender must be given to trust this service (and nothing else).
    pub fn roots(&self) -> Roots {
        Roots::only(vec![self.ca.clone()])
    }

    /// The CA certificate (DER), for a browser told to trust it.
    pub fn ca_der(&self) -> &[u8] {
        &self.ca
    }

    /// A new subscription on this service: its keys are made here (as a browser would), so
    /// what is pushed to it can be decrypted and checked.
    pub fn subscribe(&self, name: &str) -> Subscription {
        let secret = loop {
            if let Ok(k) = SecretKey::from_slice(&random::<32>()) {
                break k;
            }
        };
        let auth = random::<16>();
        let path = format!("/push/{name}");
        let sub = Subscription {
            endpoint: format!("https://127.0.0.1:{}{path}", self.addr.port()),
            p256dh: b64(&secret.public_key().to_sec1_bytes()),
            auth: b64(&auth),
        };
        self.lock().keys.insert(path, Keys { secret, auth });
        sub
    }

    /// Answers requests for this subscription with `status` from now on (410: it is gone).
    pub fn answer(&self, sub: &Subscription, status: u16) {
        let path = path_of(&sub.endpoint);
        self.lock().answer.insert(path, status);
    }

    /// From now on, each request as it is taken (the browser test prints them).
    pub fn feed(&self) -> std::sync::mpsc::Receiver<Received> {
        let (tx, rx) = std::sync::mpsc::channel();
        self.lock().feed = Some(tx);
        rx
    }

    /// Every request taken so far, oldest first.
    pub fn received(&self) -> Vec<Received> {
        self.lock().received.clone()
    }

    /// The requests for one subscription.
    pub fn received_for(&self, sub: &Subscription) -> Vec<Received> {
        let path = path_of(&sub.endpoint);
        self.received()
            .into_iter()
            .filter(|r| r.path == path)
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn path_of(endpoint: &str) -> String {
    endpoint
        .parse::<hyper::Uri>()
        .ok()
        .and_then(|u| u.path_and_query().map(|p| p.as_str().to_string()))
        .unwrap_or_default()
}

async fn serve(
    listener: tokio::net::TcpListener,
    acceptor: TlsAcceptor,
    state: Arc<Mutex<State>>,
    addr: SocketAddr,
) {
    let origin = format!("https://127.0.0.1:{}", addr.port());
    loop {
        let Ok((tcp, _)) = listener.accept().await else {
            continue;
        };
        let (acceptor, state, origin) = (acceptor.clone(), state.clone(), origin.clone());
        tokio::spawn(async move {
            let Ok(tls) = acceptor.accept(tcp).await else {
                return;
            };
            let service = service_fn(move |req: Request<hyper::body::Incoming>| {
                let (state, origin) = (state.clone(), origin.clone());
                async move {
                    let status = handle(req, &state, &origin).await;
                    Ok::<_, std::convert::Infallible>(
                        Response::builder()
                            .status(status)
                            .body(Full::new(Bytes::new()))
                            .expect("a status and an empty body make a response"),
                    )
                }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(tls), service)
                .await;
        });
    }
}

async fn handle(
    req: Request<hyper::body::Incoming>,
    state: &Arc<Mutex<State>>,
    origin: &str,
) -> u16 {
    let path = req.uri().path().to_string();
    let headers: BTreeMap<String, String> = req
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_ascii_lowercase(),
                v.to_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let is_post = req.method() == hyper::Method::POST;
    let body = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes().to_vec())
        .unwrap_or_default();
    let now_s = vults_engine::clock::now_ms() / 1000;
    let vapid = headers
        .get("authorization")
        .ok_or(VapidError::Malformed("no Authorization header"))
        .and_then(|h| verify_vapid(h, origin, now_s));
    let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
    let plaintext = st
        .keys
        .get(&path)
        .and_then(|k| decrypt(&body, &k.secret, &k.auth));
    let ttl_ok = headers.get("ttl").is_some_and(|t| t.parse::<u32>().is_ok());
    let coding_ok = headers.get("content-encoding").map(String::as_str) == Some("aes128gcm");
    let status = if !st.keys.contains_key(&path) {
        404
    } else if !is_post || vapid.is_err() || !ttl_ok || !coding_ok || plaintext.is_none() {
        400
    } else {
        st.answer.get(&path).copied().unwrap_or(201)
    };
    let got = Received {
        path,
        headers,
        vapid,
        plaintext,
        status,
    };
    if let Some(feed) = &st.feed {
        let _ = feed.send(got.clone());
    }
    st.received.push(got);
    status
}
