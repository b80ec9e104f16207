//! A phone written in Rust: the same wire as `assets/phone/phone.js`, for tests and as a
//! second, readable statement of the protocol. Blocking, loopback-only use.

use super::crypto::{
    self, Direction, Op, SealKey, SignedRequest, WireAnswer, b64, unb64, unb64_array,
};
use crate::offer::PairingOffer;
use ed25519_dalek::SigningKey;
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use x25519_dalek::{PublicKey, StaticSecret};

/// An HTTP reply as received.
#[derive(Debug, Clone)]
pub struct Response {
    /// The HTTP status code.
    pub status: u16,
    /// The body as received.
    pub body: Vec<u8>,
}

impl Response {
    /// The body as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// A phone: its keys, and once paired, its device id and seal key.
pub struct PhoneClient {
    /// The link's address.
    pub addr: SocketAddr,
    /// The local address to connect from (`None`: the OS picks), so a test can be a second
    /// host on loopback (`127.0.0.2`).
    pub source: Option<IpAddr>,
    /// The phone's Ed25519 signing key.
    pub sign: SigningKey,
    /// The phone's X25519 secret.
    pub boxing: StaticSecret,
    /// The device id the app gave at pairing; empty before.
    pub device: String,
    /// The key shared with the app, once paired.
    pub seal: Option<SealKey>,
}

impl PhoneClient {
    /// A phone with fresh keys, not paired yet, that talks to the link at `addr`.
    pub fn new(addr: SocketAddr) -> PhoneClient {
        PhoneClient {
            addr,
            source: None,
            sign: SigningKey::from_bytes(&crypto::random::<32>()),
            boxing: StaticSecret::from(crypto::random::<32>()),
            device: String::new(),
            seal: None,
        }
    }

    /// The signing key's public half, base64url.
    pub fn sign_public(&self) -> String {
        b64(&self.sign.verifying_key().to_bytes())
    }

    /// The X25519 public key, base64url.
    pub fn box_public(&self) -> String {
        b64(PublicKey::from(&self.boxing).as_bytes())
    }

    /// Pairs with the offer's token; on success keeps the device id and the seal key.
    pub fn pair(&mut self, offer: &PairingOffer, name: &str) -> std::io::Result<Response> {
        let (sign, boxk) = (self.sign_public(), self.box_public());
        let proof = crypto::pair_message(&offer.token, name, &sign, &boxk);
        let body = json!({
            "token": offer.token, "name": name, "sign": sign, "box": boxk,
            "sig": b64(&crypto::sign(&self.sign, proof.as_bytes())),
        });
        let reply = post_from(self.source, self.addr, "/pair", body.to_string().as_bytes())?;
        if reply.status == 200 {
            let v: Value = serde_json::from_slice(&reply.body).unwrap_or_default();
            let device = v["device"].as_str().unwrap_or_default().to_string();
            let receipt = crypto::paired_message(&device, &sign, &boxk);
            let app_sign = unb64_array::<32>(&offer.app_sign_key).unwrap_or_default();
            let sig = v["sig"].as_str().and_then(unb64).unwrap_or_default();
            if !crypto::verify(&app_sign, receipt.as_bytes(), &sig) {
                return Err(std::io::Error::other("the app's receipt does not verify"));
            }
            let app_box = unb64_array::<32>(&offer.app_box_key).unwrap_or_default();
            let mine = PublicKey::from(&self.boxing).to_bytes();
            self.seal = Some(SealKey::agree(&self.boxing, &app_box, &mine, &app_box));
            self.device = device;
        }
        Ok(reply)
    }

    /// A request for this device, now, with a fresh nonce.
    pub fn request(&self, op: Op) -> SignedRequest {
        SignedRequest {
            device: self.device.clone(),
            time_ms: vults_engine::clock::now_ms(),
            nonce: b64(&crypto::random::<16>()),
            op,
        }
    }

    /// A request that answers `card` with `answer`.
    pub fn answer(&self, card: u64, answer: WireAnswer) -> SignedRequest {
        self.request(Op::Answer { card, answer })
    }

    /// The sealed envelope for `message` with signature `sig` (tests alter either).
    pub fn envelope(&self, message: &str, sig: &[u8]) -> Vec<u8> {
        let inner = json!({"m": message, "s": b64(sig)}).to_string();
        let (n, c) = match &self.seal {
            Some(k) => k.seal(Direction::ToApp, &self.device, inner.as_bytes()),
            None => ([0u8; 12], inner.into_bytes()),
        };
        json!({"d": self.device, "n": b64(&n), "c": b64(&c)})
            .to_string()
            .into_bytes()
    }

    /// Signs and sends a request; returns the status and the opened reply (if it opens).
    pub fn send(&self, req: &SignedRequest) -> std::io::Result<(u16, Option<Value>)> {
        let m = req.to_message();
        let sig = crypto::sign(&self.sign, m.as_bytes());
        self.send_raw(&self.envelope(&m, &sig))
    }

    /// Sends an envelope as is.
    pub fn send_raw(&self, envelope: &[u8]) -> std::io::Result<(u16, Option<Value>)> {
        let reply = post_from(self.source, self.addr, "/api", envelope)?;
        Ok((reply.status, self.open(&reply.body)))
    }

    /// Opens a sealed reply from the app.
    pub fn open(&self, body: &[u8]) -> Option<Value> {
        let v: Value = serde_json::from_slice(body).ok()?;
        let n = unb64_array::<12>(v["n"].as_str()?)?;
        let c = unb64(v["c"].as_str()?)?;
        let plain = self
            .seal
            .as_ref()?
            .open(Direction::ToPhone, &self.device, &n, &c)?;
        serde_json::from_slice(&plain).ok()
    }
}

/// Over a broker: the same requests as frames (see [`crypto::frame`]); the test moves the
/// bytes through its own MQTT connection.
impl PhoneClient {
    /// The pairing request for `offer`'s code, to publish on `vults/<pairing topic>/a`:
    /// the phone's X25519 key, then the request sealed to the app's key, bound to the topic.
    pub fn broker_pair_frame(&self, offer: &PairingOffer, name: &str) -> Option<Vec<u8>> {
        let (_, topic) = offer.broker.as_ref()?;
        let (sign, boxk) = (self.sign_public(), self.box_public());
        let proof = crypto::pair_message(&offer.token, name, &sign, &boxk);
        let body = json!({
            "token": offer.token, "name": name, "sign": sign, "box": boxk,
            "sig": b64(&crypto::sign(&self.sign, proof.as_bytes())),
        });
        let key = self.pairing_key(offer)?;
        let aad = super::gate::pairing_aad(topic);
        let (n, c) = key.seal(Direction::ToApp, &aad, body.to_string().as_bytes());
        Some(crypto::frame(
            PublicKey::from(&self.boxing).as_bytes(),
            &n,
            &c,
        ))
    }

    fn pairing_key(&self, offer: &PairingOffer) -> Option<SealKey> {
        let app_box = unb64_array::<32>(&offer.app_box_key)?;
        let mine = PublicKey::from(&self.boxing).to_bytes();
        Some(SealKey::agree(&self.boxing, &app_box, &mine, &app_box))
    }

    /// Reads the app's reply to [`PhoneClient::broker_pair_frame`]: the status, and on
    /// success (the receipt verified against the QR code's key) the device id and seal key.
    pub fn broker_pair_reply(&mut self, offer: &PairingOffer, frame: &[u8]) -> Option<u16> {
        let (_, topic) = offer.broker.as_ref()?;
        let key = self.pairing_key(offer)?;
        let (_, n, c) = crypto::unframe(frame, 0)?;
        let plain = key.open(Direction::ToPhone, &super::gate::pairing_aad(topic), &n, c)?;
        let v: Value = serde_json::from_slice(&plain).ok()?;
        let status = v["status"].as_u64()? as u16;
        if status == 200 {
            let device = v["body"]["device"].as_str()?.to_string();
            let receipt = crypto::paired_message(&device, &self.sign_public(), &self.box_public());
            let app_sign = unb64_array::<32>(&offer.app_sign_key)?;
            let sig = v["body"]["sig"].as_str().and_then(unb64)?;
            if !crypto::verify(&app_sign, receipt.as_bytes(), &sig) {
                return None;
            }
            self.seal = Some(key);
            self.device = device;
        }
        Some(status)
    }

    /// This device's topic id (once paired).
    pub fn broker_topic(&self) -> Option<String> {
        self.seal.as_ref().map(SealKey::topic)
    }

    /// A signed request as a frame for `vults/<topic>/a`.
    pub fn broker_frame(&self, req: &SignedRequest) -> Option<Vec<u8>> {
        let m = req.to_message();
        let sig = crypto::sign(&self.sign, m.as_bytes());
        let inner = json!({"m": m, "s": b64(&sig)}).to_string();
        let (n, c) = self
            .seal
            .as_ref()?
            .seal(Direction::ToApp, &self.device, inner.as_bytes());
        Some(crypto::frame(&[], &n, &c))
    }

    /// Opens a reply frame from `vults/<topic>/p`.
    pub fn open_frame(&self, frame: &[u8]) -> Option<Value> {
        let (_, n, c) = crypto::unframe(frame, 0)?;
        let plain = self
            .seal
            .as_ref()?
            .open(Direction::ToPhone, &self.device, &n, c)?;
        serde_json::from_slice(&plain).ok()
    }
}

/// The pairing offer a QR code's URL holds (its fragment: `t`, `k`, `x`, and `b`, `p` for a
/// broker), as the page reads it.
pub fn offer_from_url(url: &str) -> Option<PairingOffer> {
    let (_, fragment) = url.split_once('#')?;
    let mut fields = std::collections::HashMap::new();
    for pair in fragment.split('&') {
        let (k, v) = pair.split_once('=')?;
        fields.insert(k.to_string(), percent_decode(v)?);
    }
    let get = |k: &str| fields.get(k).cloned();
    let broker = match (get("b"), get("p")) {
        (Some(b), Some(p)) => Some((b, p)),
        _ => None,
    };
    // The phone's broker login, only with a broker to use it on.
    let phone_login = match (&broker, get("u")) {
        (Some(_), Some(user)) => Some((user, get("w").unwrap_or_default())),
        _ => None,
    };
    Some(PairingOffer {
        url: url.to_string(),
        token: get("t")?,
        expires_at: 0,
        app_sign_key: get("k")?,
        app_box_key: get("x")?,
        broker,
        phone_login,
    })
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let h = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(h, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// One HTTP/1.1 POST, read to the end.
pub fn post(addr: SocketAddr, path: &str, body: &[u8]) -> std::io::Result<Response> {
    post_from(None, addr, path, body)
}

/// One HTTP/1.1 POST from a given local address, read to the end.
pub fn post_from(
    source: Option<IpAddr>,
    addr: SocketAddr,
    path: &str,
    body: &[u8],
) -> std::io::Result<Response> {
    let mut req = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(body);
    exchange_from(source, addr, &req)
}

/// One HTTP/1.1 GET, read to the end.
pub fn get(addr: SocketAddr, path: &str) -> std::io::Result<Response> {
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    exchange(addr, req.as_bytes())
}

/// Sends raw bytes and reads the reply (tests of malformed requests use it directly).
pub fn exchange(addr: SocketAddr, request: &[u8]) -> std::io::Result<Response> {
    exchange_from(None, addr, request)
}

/// A TCP connection to `addr`, from `source` when given.
pub fn connect_from(source: Option<IpAddr>, addr: SocketAddr) -> std::io::Result<TcpStream> {
    let Some(source) = source else {
        return TcpStream::connect(addr);
    };
    let socket = socket2::Socket::new(
        socket2::Domain::for_address(addr),
        socket2::Type::STREAM,
        Some(socket2::Protocol::TCP),
    )?;
    socket.bind(&SocketAddr::new(source, 0).into())?;
    socket.connect(&addr.into())?;
    Ok(socket.into())
}

/// [`exchange`] from a given local address.
pub fn exchange_from(
    source: Option<IpAddr>,
    addr: SocketAddr,
    request: &[u8],
) -> std::io::Result<Response> {
    let mut s = connect_from(source, addr)?;
    s.set_read_timeout(Some(std::time::Duration::from_secs(10)))?;
    // A server that answers before reading everything may reset the rest; the reply counts.
    let _ = s.write_all(request);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out);
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("no HTTP status in {text:?}")))?;
    let body = match out.windows(4).position(|w| w == b"\r\n\r\n") {
        Some(i) => out[i + 4..].to_vec(),
        None => Vec::new(),
    };
    Ok(Response { status, body })
}
