//! The phone link's cryptography, in the shapes the page's WebCrypto speaks.
//!
//! - Identity: Ed25519 (`ed25519-dalek`); the page's key is a non-extractable WebCrypto key.
//! - Sealing: X25519 between the app's and the device's box keys, HKDF-SHA256 into one
//!   AES-256-GCM key per device; a random 96-bit nonce per message; the direction and the
//!   device id are the associated data, so a sealed message cannot be reflected back or moved
//!   to another device.
//! - Signed requests: the phone signs the exact UTF-8 bytes of a line-based message (see
//!   [`SignedRequest`]); the app verifies those same bytes, so no canonicalisation can differ.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use hkdf::Hkdf;
use sha2::{Digest, Sha256};
use x25519_dalek::{PublicKey, StaticSecret};

/// The first line of every signed request: protocol and version, so a signature made for
/// anything else (another app, another version) never verifies here.
pub const REQUEST_DOMAIN: &str = "vults-phone-v1";
/// The first line of the phone's proof of key possession at pairing.
pub const PAIR_DOMAIN: &str = "vults-phone-pair-v1";
/// The first line of the app's signed pairing receipt.
pub const PAIRED_DOMAIN: &str = "vults-phone-paired-v1";
const HKDF_SALT: &[u8] = b"vults-phone-v1 hkdf salt";
const HKDF_INFO: &[u8] = b"vults-phone-v1 aes-256-gcm";
/// The HKDF info of a device's broker topic (see [`SealKey::topic`]): the same secret as the
/// seal key, another output, so the topic tells nothing about the key.
const TOPIC_INFO: &[u8] = b"vults-phone-v1 mqtt topic";
/// The first byte of every frame on the broker (see [`frame`]).
pub const FRAME_VERSION: u8 = 1;

/// `bytes` as base64url without padding, as the page writes keys, nonces and signatures.
pub fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Base64url without padding back to bytes; `None` for anything else.
pub fn unb64(s: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(s.as_bytes()).ok()
}

/// Exactly `N` bytes from base64url, or `None`.
pub fn unb64_array<const N: usize>(s: &str) -> Option<[u8; N]> {
    unb64(s)?.try_into().ok()
}

/// `N` bytes from the OS's random source. Failing to get randomness is not recoverable for a
/// key or a nonce, and the OS source does not fail on supported platforms.
pub fn random<const N: usize>() -> [u8; N] {
    let mut out = [0u8; N];
    getrandom::fill(&mut out).expect("the OS random source is available");
    out
}

/// The app's own long-lived keys (kept in the keyring, see [`super::secrets`]).
pub struct AppKeys {
    /// The Ed25519 key the app signs pairing receipts with.
    pub sign: SigningKey,
    /// The X25519 secret each device's seal key is agreed from.
    pub boxing: StaticSecret,
}

impl AppKeys {
    /// New keys from the OS's random source (made once, on the first start of the link).
    pub fn generate() -> AppKeys {
        AppKeys::from_bytes(&random::<64>())
    }

    /// 32 bytes of Ed25519 seed, then 32 bytes of X25519 secret.
    pub fn from_bytes(bytes: &[u8; 64]) -> AppKeys {
        let mut seed = [0u8; 32];
        seed.copy_from_slice(&bytes[..32]);
        let mut boxing = [0u8; 32];
        boxing.copy_from_slice(&bytes[32..]);
        AppKeys {
            sign: SigningKey::from_bytes(&seed),
            boxing: StaticSecret::from(boxing),
        }
    }

    /// The 64 bytes [`AppKeys::from_bytes`] reads back.
    pub fn to_bytes(&self) -> [u8; 64] {
        let mut out = [0u8; 64];
        out[..32].copy_from_slice(&self.sign.to_bytes());
        out[32..].copy_from_slice(&self.boxing.to_bytes());
        out
    }

    /// The Ed25519 public key: in the QR code, for the phone to check receipts.
    pub fn sign_public(&self) -> [u8; 32] {
        self.sign.verifying_key().to_bytes()
    }

    /// The X25519 public key: in the QR code, for the phone to agree its seal key.
    pub fn box_public(&self) -> [u8; 32] {
        PublicKey::from(&self.boxing).to_bytes()
    }
}

/// Which way a sealed message travels (part of the associated data).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// A phone's request to the app.
    ToApp,
    /// The app's reply to a phone.
    ToPhone,
    /// A push message's content, inside the Web Push encryption (docs/phone.md, "Push"): the
    /// service worker opens it with the device's seal key, so a push service, or anyone who
    /// learns a subscription's keys, cannot make the phone show anything.
    Push,
}

/// The AES-256-GCM key one device shares with the app, and the device's broker topic id.
#[derive(Clone)]
pub struct SealKey {
    cipher: Aes256Gcm,
    topic: [u8; 16],
}

impl SealKey {
    /// X25519(`my_secret`, `their_public`) through HKDF-SHA256. Both sides derive the same key;
    /// the info binds it to both public keys (app's first).
    pub fn agree(
        my_secret: &StaticSecret,
        app_box_public: &[u8; 32],
        phone_box_public: &[u8; 32],
        their_public: &[u8; 32],
    ) -> SealKey {
        let shared = my_secret.diffie_hellman(&PublicKey::from(*their_public));
        let hk = Hkdf::<Sha256>::new(Some(HKDF_SALT), shared.as_bytes());
        let mut info = HKDF_INFO.to_vec();
        info.extend_from_slice(app_box_public);
        info.extend_from_slice(phone_box_public);
        let mut key = [0u8; 32];
        hk.expand(&info, &mut key)
            .expect("32 bytes is a valid HKDF-SHA256 output length");
        let mut topic_info = TOPIC_INFO.to_vec();
        topic_info.extend_from_slice(app_box_public);
        topic_info.extend_from_slice(phone_box_public);
        let mut topic = [0u8; 16];
        hk.expand(&topic_info, &mut topic)
            .expect("16 bytes is a valid HKDF-SHA256 output length");
        SealKey {
            cipher: Aes256Gcm::new(&key.into()),
            topic,
        }
    }

    /// The device's topic id on a broker: 128 bits from the same X25519 secret as the seal
    /// key (another HKDF output), as 32 hex digits. Only the app and the phone can compute
    /// it; the broker learns a random name.
    pub fn topic(&self) -> String {
        hex(&self.topic)
    }

    fn aad(direction: Direction, device: &str) -> Vec<u8> {
        let dir = match direction {
            Direction::ToApp => "to-app",
            Direction::ToPhone => "to-phone",
            Direction::Push => "push",
        };
        format!("{REQUEST_DOMAIN} {dir} {device}").into_bytes()
    }

    /// Seals `plain`; returns (nonce, ciphertext with tag).
    pub fn seal(&self, direction: Direction, device: &str, plain: &[u8]) -> ([u8; 12], Vec<u8>) {
        let nonce = random::<12>();
        let aad = SealKey::aad(direction, device);
        let ct = self
            .cipher
            .encrypt(
                &Nonce::from(nonce),
                Payload {
                    msg: plain,
                    aad: &aad,
                },
            )
            .expect("AES-GCM sealing of an in-memory message cannot fail");
        (nonce, ct)
    }

    /// Opens a sealed message, or `None` when it was not sealed with this key, for this
    /// direction and device, or was altered.
    pub fn open(
        &self,
        direction: Direction,
        device: &str,
        nonce: &[u8; 12],
        ct: &[u8],
    ) -> Option<Vec<u8>> {
        let aad = SealKey::aad(direction, device);
        self.cipher
            .decrypt(&Nonce::from(*nonce), Payload { msg: ct, aad: &aad })
            .ok()
    }
}

/// Lower-case hex (topic ids).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A sealed message as it travels on the broker: no JSON, nothing in clear but the version —
/// `[FRAME_VERSION] ‖ prefix ‖ nonce (12) ‖ ciphertext with tag`, where `prefix` is the
/// phone's X25519 public key (32 bytes) on a pairing request and empty otherwise.
pub fn frame(prefix: &[u8], nonce: &[u8; 12], ct: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + prefix.len() + 12 + ct.len());
    out.push(FRAME_VERSION);
    out.extend_from_slice(prefix);
    out.extend_from_slice(nonce);
    out.extend_from_slice(ct);
    out
}

/// Splits a frame made by [`frame`] with a `prefix_len`-byte prefix: (prefix, nonce,
/// ciphertext), or `None` for another version or a frame too short to hold a tag.
pub fn unframe(bytes: &[u8], prefix_len: usize) -> Option<(&[u8], [u8; 12], &[u8])> {
    let (&version, rest) = bytes.split_first()?;
    if version != FRAME_VERSION || rest.len() < prefix_len + 12 + 16 {
        return None;
    }
    let (prefix, rest) = rest.split_at(prefix_len);
    let (nonce, ct) = rest.split_at(12);
    Some((prefix, nonce.try_into().ok()?, ct))
}

/// Whether X25519 with `their_public` gives a secret `my_secret` contributes to: a low-order
/// public key (all zeros, one, …) makes the shared secret all zeros, a seal key anyone can
/// compute, and is refused.
pub fn contributory(my_secret: &StaticSecret, their_public: &[u8; 32]) -> bool {
    my_secret
        .diffie_hellman(&PublicKey::from(*their_public))
        .was_contributory()
}

/// A device's id: the first 12 bytes of SHA-256 of its Ed25519 public key, base64url.
pub fn device_id(sign_public: &[u8; 32]) -> String {
    let digest = Sha256::digest(sign_public);
    b64(&digest[..12])
}

/// Verifies `sig` over `message` with `key`, strictly (no malleable or small-order forms).
pub fn verify(key: &[u8; 32], message: &[u8], sig: &[u8]) -> bool {
    let Ok(key) = VerifyingKey::from_bytes(key) else {
        return false;
    };
    let Ok(sig) = <[u8; 64]>::try_from(sig) else {
        return false;
    };
    key.verify_strict(message, &Signature::from_bytes(&sig))
        .is_ok()
}

/// The origin (`https://host[:port]`) of an `https://` URL with a host and no user info, or
/// `None`: what a push subscription's endpoint must be (`devices::Subscription`), and the VAPID
/// JWT's `aud` (`push::webpush`).
pub fn https_origin(endpoint: &str) -> Option<String> {
    let uri: hyper::Uri = endpoint.parse().ok()?;
    if uri.scheme_str() != Some("https") {
        return None;
    }
    let authority = uri.authority()?;
    if authority.as_str().contains('@') || authority.host().is_empty() {
        return None;
    }
    Some(format!("https://{}", authority.as_str()))
}

/// A P-256 public key from its uncompressed form (65 bytes, `0x04 ‖ x ‖ y`), or `None` (not on
/// the curve, compressed, the identity): a push subscription's `p256dh`.
pub fn p256_public(raw: &[u8]) -> Option<p256::PublicKey> {
    if raw.len() != 65 || raw[0] != 4 {
        return None;
    }
    p256::PublicKey::from_sec1_bytes(raw).ok()
}

/// An Ed25519 signature of `message`.
pub fn sign(key: &SigningKey, message: &[u8]) -> [u8; 64] {
    key.sign(message).to_bytes()
}

/// What a phone asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// The pending cards.
    List,
    /// An answer to one card.
    Answer {
        /// The card's id.
        card: u64,
        /// The answer.
        answer: WireAnswer,
    },
    /// Push to this subscription from now on (Web Push; replaces an earlier one).
    Subscribe {
        /// The push service's URL (checked by `devices::Subscription::new`).
        endpoint: String,
        /// The browser's P-256 key, base64url.
        p256dh: String,
        /// The auth secret, base64url.
        auth: String,
    },
    /// Push nothing to this device any more.
    Unsubscribe,
}

/// An answer as the phone words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WireAnswer {
    /// Let the call run, this once.
    Allow,
    /// Refuse the call, this once.
    Deny,
    /// Allow, and create the card's Always rule.
    Always,
    /// Deny, telling the agent the person's words: a plan's "Keep planning" feedback, as a JSON
    /// string (`deny:"…"`), at most [`vults_core::answer::MAX_FEEDBACK`] bytes. It is a line of
    /// the signed message, so a broker cannot change a word of it.
    DenyWith(String),
    /// One entry per question: a label or a list of labels (JSON, as the page builds it).
    Answers(Vec<vults_core::protocol::AnswerItem>),
}

impl WireAnswer {
    /// The `answer=` line's text: `allow`, `deny`, `always` or `answers:<JSON list>`.
    pub fn to_field(&self) -> String {
        match self {
            WireAnswer::Allow => "allow".into(),
            WireAnswer::Deny => "deny".into(),
            WireAnswer::Always => "always".into(),
            WireAnswer::DenyWith(words) => format!("deny:{}", serde_json::json!(words)),
            WireAnswer::Answers(items) => {
                let v: Vec<serde_json::Value> = items
                    .iter()
                    .map(|i| match i {
                        vults_core::protocol::AnswerItem::One(s) => serde_json::json!(s),
                        vults_core::protocol::AnswerItem::Many(v) => serde_json::json!(v),
                    })
                    .collect();
                format!("answers:{}", serde_json::Value::Array(v))
            }
        }
    }

    fn parse(field: &str) -> Option<WireAnswer> {
        match field {
            "allow" => Some(WireAnswer::Allow),
            "deny" => Some(WireAnswer::Deny),
            "always" => Some(WireAnswer::Always),
            other if other.starts_with("deny:") => {
                // A JSON string: one line, whatever it says (a newline is written \n).
                let words: String = serde_json::from_str(other.strip_prefix("deny:")?).ok()?;
                (words.len() <= vults_core::answer::MAX_FEEDBACK)
                    .then_some(WireAnswer::DenyWith(words))
            }
            other => {
                let json = other.strip_prefix("answers:")?;
                let list: Vec<serde_json::Value> = serde_json::from_str(json).ok()?;
                let mut items = Vec::with_capacity(list.len());
                for v in list {
                    items.push(match v {
                        serde_json::Value::String(s) => vults_core::protocol::AnswerItem::One(s),
                        serde_json::Value::Array(a) => vults_core::protocol::AnswerItem::Many(
                            a.into_iter()
                                .map(|x| x.as_str().map(str::to_string))
                                .collect::<Option<Vec<String>>>()?,
                        ),
                        _ => return None,
                    });
                }
                (!items.is_empty()).then_some(WireAnswer::Answers(items))
            }
        }
    }
}

/// A request as signed: these lines, joined by `\n`, in this order, nothing else.
///
/// ```text
/// vults-phone-v1
/// op=answer            (or list)
/// device=<device id>
/// time=<unix ms>
/// nonce=<base64url of 16 random bytes>
/// card=<card id>       (answer only)
/// answer=allow|deny|always|deny:<JSON string>|answers:<JSON list>   (answer only)
/// endpoint=<https URL> (subscribe only; op=unsubscribe has no more lines)
/// p256dh=<base64url>   (subscribe only)
/// auth=<base64url>     (subscribe only)
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedRequest {
    /// The id of the device that signs it.
    pub device: String,
    /// When the phone made it (Unix ms): taken only within ±60 s of the app's clock.
    pub time_ms: u64,
    /// 16 random bytes, base64url: each is taken once.
    pub nonce: String,
    /// What the phone asks for.
    pub op: Op,
}

impl SignedRequest {
    /// The exact text that is signed (see the type's doc).
    pub fn to_message(&self) -> String {
        let op = match self.op {
            Op::List => "list",
            Op::Answer { .. } => "answer",
            Op::Subscribe { .. } => "subscribe",
            Op::Unsubscribe => "unsubscribe",
        };
        let mut m = format!(
            "{REQUEST_DOMAIN}\nop={op}\ndevice={}\ntime={}\nnonce={}",
            self.device, self.time_ms, self.nonce
        );
        if let Op::Answer { card, answer } = &self.op {
            m.push_str(&format!("\ncard={card}\nanswer={}", answer.to_field()));
        }
        if let Op::Subscribe {
            endpoint,
            p256dh,
            auth,
        } = &self.op
        {
            m.push_str(&format!(
                "\nendpoint={endpoint}\np256dh={p256dh}\nauth={auth}"
            ));
        }
        m
    }

    /// Parses a message strictly: any other line, order, or extra text is refused.
    pub fn parse(message: &str) -> Option<SignedRequest> {
        let mut lines = message.split('\n');
        if lines.next()? != REQUEST_DOMAIN {
            return None;
        }
        let mut field =
            |name: &str| -> Option<&str> { lines.next()?.strip_prefix(name)?.strip_prefix('=') };
        let op = field("op")?.to_string();
        let device = field("device")?.to_string();
        let time_ms: u64 = field("time")?.parse().ok()?;
        let nonce = field("nonce")?.to_string();
        let nonce_ok = unb64(&nonce).is_some_and(|n| (16..=32).contains(&n.len()));
        if device.is_empty() || !nonce_ok {
            return None;
        }
        let op = match op.as_str() {
            "list" => Op::List,
            "answer" => {
                let card: u64 = field("card")?.parse().ok()?;
                let answer = WireAnswer::parse(field("answer")?)?;
                Op::Answer { card, answer }
            }
            "subscribe" => Op::Subscribe {
                endpoint: field("endpoint")?.to_string(),
                p256dh: field("p256dh")?.to_string(),
                auth: field("auth")?.to_string(),
            },
            "unsubscribe" => Op::Unsubscribe,
            _ => return None,
        };
        if lines.next().is_some() {
            return None;
        }
        Some(SignedRequest {
            device,
            time_ms,
            nonce,
            op,
        })
    }
}

/// The message a phone signs to prove it holds the key it pairs with.
pub fn pair_message(token: &str, name: &str, sign_pub: &str, box_pub: &str) -> String {
    format!("{PAIR_DOMAIN}\ntoken={token}\nname={name}\nsign={sign_pub}\nbox={box_pub}")
}

/// The message the app signs when it accepts a device, so the page knows it paired with the
/// app whose key was in the QR code.
pub fn paired_message(device: &str, sign_pub: &str, box_pub: &str) -> String {
    format!("{PAIRED_DOMAIN}\ndevice={device}\nsign={sign_pub}\nbox={box_pub}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_agree_on_the_seal_key_and_direction_matters() {
        let app = AppKeys::generate();
        let phone = StaticSecret::from(random::<32>());
        let phone_pub = PublicKey::from(&phone).to_bytes();
        let at_app = SealKey::agree(&app.boxing, &app.box_public(), &phone_pub, &phone_pub);
        let at_phone = SealKey::agree(&phone, &app.box_public(), &phone_pub, &app.box_public());
        let (n, ct) = at_phone.seal(Direction::ToApp, "dev", b"hello");
        assert_eq!(
            at_app.open(Direction::ToApp, "dev", &n, &ct).as_deref(),
            Some(&b"hello"[..])
        );
        assert_eq!(at_app.open(Direction::ToPhone, "dev", &n, &ct), None);
        assert_eq!(at_app.open(Direction::ToApp, "other", &n, &ct), None);
    }

    #[test]
    fn request_messages_round_trip_and_reject_extras() {
        let r = SignedRequest {
            device: "abc".into(),
            time_ms: 1_700_000_000_000,
            nonce: b64(&[7u8; 16]),
            op: Op::Answer {
                card: 42,
                answer: WireAnswer::Answers(vec![
                    vults_core::protocol::AnswerItem::One("Blue".into()),
                    vults_core::protocol::AnswerItem::Many(vec!["S".into(), "M".into()]),
                ]),
            },
        };
        let m = r.to_message();
        assert_eq!(SignedRequest::parse(&m), Some(r));
        assert_eq!(SignedRequest::parse(&format!("{m}\nextra=1")), None);
        assert_eq!(
            SignedRequest::parse(&m.replace("op=answer", "op=delete")),
            None
        );
    }

    #[test]
    fn a_subscription_is_three_more_signed_lines_and_nothing_else() {
        let r = SignedRequest {
            device: "abc".into(),
            time_ms: 1_700_000_000_000,
            nonce: b64(&[7u8; 16]),
            op: Op::Subscribe {
                endpoint: "https://push.example/s/1".into(),
                p256dh: "BKey".into(),
                auth: "QXV0aA".into(),
            },
        };
        let m = r.to_message();
        assert!(m.ends_with("\nendpoint=https://push.example/s/1\np256dh=BKey\nauth=QXV0aA"));
        assert_eq!(SignedRequest::parse(&m), Some(r));
        assert_eq!(SignedRequest::parse(&format!("{m}\nextra=1")), None);
        // Its lines in their order only.
        let swapped = m.replace("\np256dh=BKey\nauth=QXV0aA", "\nauth=QXV0aA\np256dh=BKey");
        assert_eq!(SignedRequest::parse(&swapped), None);
        let off = SignedRequest {
            op: Op::Unsubscribe,
            ..SignedRequest::parse(&m).unwrap()
        };
        assert_eq!(SignedRequest::parse(&off.to_message()), Some(off));
        assert!(https_origin("https://push.example/s/1").is_some());
        assert!(p256_public(&[4u8; 65]).is_none(), "not on the curve");
    }

    #[test]
    fn topics_are_shared_per_device_and_tell_nothing_of_the_key() {
        let app = AppKeys::generate();
        let phone = StaticSecret::from(random::<32>());
        let phone_pub = PublicKey::from(&phone).to_bytes();
        let at_app = SealKey::agree(&app.boxing, &app.box_public(), &phone_pub, &phone_pub);
        let at_phone = SealKey::agree(&phone, &app.box_public(), &phone_pub, &app.box_public());
        let topic = at_app.topic();
        assert_eq!(topic, at_phone.topic(), "both sides derive the same topic");
        assert_eq!(topic.len(), 32);
        assert!(
            topic
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        let other = StaticSecret::from(random::<32>());
        let other_pub = PublicKey::from(&other).to_bytes();
        let at_other = SealKey::agree(&app.boxing, &app.box_public(), &other_pub, &other_pub);
        assert_ne!(at_other.topic(), topic, "another device, another topic");
        // The topic is not the seal key: a message sealed under the topic bytes does not open.
        let (n, ct) = at_phone.seal(Direction::ToApp, "dev", b"x");
        let mut forged = [0u8; 32];
        forged[..16].copy_from_slice(&at_app.topic);
        let guess = SealKey {
            cipher: Aes256Gcm::new(&forged.into()),
            topic: at_app.topic,
        };
        assert_eq!(guess.open(Direction::ToApp, "dev", &n, &ct), None);
    }

    #[test]
    fn frames_carry_only_the_version_and_sealed_bytes() {
        let (nonce, ct) = ([3u8; 12], vec![5u8; 40]);
        let plain = frame(&[], &nonce, &ct);
        assert_eq!(plain.len(), 1 + 12 + 40);
        assert_eq!(plain[0], FRAME_VERSION);
        assert_eq!(unframe(&plain, 0), Some((&[][..], nonce, &ct[..])));
        let key = [8u8; 32];
        let pairing = frame(&key, &nonce, &ct);
        assert_eq!(unframe(&pairing, 32), Some((&key[..], nonce, &ct[..])));
        // Another version, or too short to hold a nonce and a tag: refused.
        let mut v2 = plain.clone();
        v2[0] = 2;
        assert_eq!(unframe(&v2, 0), None);
        assert_eq!(unframe(&frame(&[], &nonce, &[1u8; 15]), 0), None);
        assert_eq!(unframe(&[], 0), None);
        assert_eq!(
            unframe(&plain, 32),
            None,
            "a device frame is no pairing frame"
        );
        // A sealed round trip through a frame.
        let app = AppKeys::generate();
        let phone = StaticSecret::from(random::<32>());
        let phone_pub = PublicKey::from(&phone).to_bytes();
        let k = SealKey::agree(&app.boxing, &app.box_public(), &phone_pub, &phone_pub);
        let (n, c) = k.seal(Direction::ToApp, "d", br#"{"m":"secret"}"#);
        let bytes = frame(&[], &n, &c);
        assert!(!bytes.windows(6).any(|w| w == b"secret"));
        let (_, n2, c2) = unframe(&bytes, 0).unwrap();
        assert_eq!(
            k.open(Direction::ToApp, "d", &n2, c2).as_deref(),
            Some(&br#"{"m":"secret"}"#[..])
        );
    }

    #[test]
    fn keys_survive_their_byte_form() {
        let k = AppKeys::generate();
        let again = AppKeys::from_bytes(&k.to_bytes());
        assert_eq!(again.sign_public(), k.sign_public());
        assert_eq!(again.box_public(), k.box_public());
    }
}
