//! Web Push's cryptography, pure Rust: RFC 8291 message encryption (`aes128gcm`, RFC 8188's
//! content coding, with P-256 ECDH and HKDF-SHA256) and RFC 8292's VAPID (an ES256 JWT and the
//! `Authorization: vapid t=…, k=…` header).
//!
//! The app encrypts every push to the subscription's `p256dh` key and `auth` secret, so the
//! push service carries only ciphertext; it signs a short-lived JWT naming the endpoint's
//! origin with its own VAPID key, whose public half the page subscribed with, so only this app
//! can push to that subscription. [`decrypt`] and [`verify_vapid`] are the other side of both
//! (the browser's and the push service's): the tests' stand-in push service uses them.

use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes128Gcm, Nonce};
use hkdf::Hkdf;
use p256::ecdsa::signature::{Signer, Verifier};
use p256::ecdsa::{Signature, SigningKey, VerifyingKey};
use p256::{PublicKey, SecretKey};
use serde_json::{Value, json};
use sha2::Sha256;

use crate::crypto::{b64, random, unb64};
use crate::error::VapidError;

/// The record size written in the header: one record holds the whole message.
pub const RECORD_SIZE: u32 = 4096;
/// A push message's body is at most this large (RFC 8030 asks services to take 4096 bytes):
/// the header (86 bytes), the padding delimiter and the tag leave this much for the plaintext.
pub const MAX_PLAINTEXT: usize = 4096 - 86 - 1 - 16;
/// A VAPID JWT is valid for at most 24 hours (RFC 8292 section 2); the app asks for 12.
pub const MAX_JWT_LIFETIME_S: u64 = 24 * 3600;
/// What the app asks for.
pub const JWT_LIFETIME_S: u64 = 12 * 3600;

/// The app's VAPID key pair (P-256), kept like its other keys (`secrets::load_or_create_vapid`).
#[derive(Clone)]
pub struct VapidKey {
    secret: SecretKey,
}

impl std::fmt::Debug for VapidKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VapidKey")
            .field("public", &b64(&self.public_raw()))
            .finish_non_exhaustive()
    }
}

impl VapidKey {
    /// A new key from the OS's random source.
    pub fn generate() -> VapidKey {
        loop {
            // A scalar at or past the group order (probability ~2^-32) is drawn again.
            if let Some(key) = VapidKey::from_bytes(&random::<32>()) {
                return key;
            }
        }
    }

    /// The 32-byte private scalar back to a key; `None` when it is not a valid P-256 scalar.
    pub fn from_bytes(bytes: &[u8; 32]) -> Option<VapidKey> {
        SecretKey::from_slice(bytes)
            .ok()
            .map(|secret| VapidKey { secret })
    }

    /// The 32-byte private scalar.
    pub fn to_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        out.copy_from_slice(&self.secret.to_bytes());
        out
    }

    /// The public key, uncompressed (65 bytes, `0x04 ‖ x ‖ y`): the `applicationServerKey` the
    /// page subscribes with, and `k=` of the Authorization header.
    pub fn public_raw(&self) -> [u8; 65] {
        point_bytes(&self.secret.public_key())
    }

    /// The `Authorization` header for a push to `endpoint_origin` (`https://host[:port]`),
    /// valid until `exp_s` (Unix seconds), naming `sub` as the contact.
    pub fn authorization(&self, endpoint_origin: &str, exp_s: u64, sub: &str) -> String {
        format!(
            "vapid t={}, k={}",
            self.jwt(endpoint_origin, exp_s, sub),
            b64(&self.public_raw())
        )
    }

    /// The ES256 JWT: `{"typ":"JWT","alg":"ES256"}` . `{"aud","exp","sub"}` . signature
    /// (r ‖ s, 64 bytes), each part base64url without padding.
    pub fn jwt(&self, aud: &str, exp_s: u64, sub: &str) -> String {
        let header = b64(json!({"typ": "JWT", "alg": "ES256"}).to_string().as_bytes());
        let claims = b64(json!({"aud": aud, "exp": exp_s, "sub": sub})
            .to_string()
            .as_bytes());
        let signing_input = format!("{header}.{claims}");
        let key = SigningKey::from(&self.secret);
        let sig: Signature = key.sign(signing_input.as_bytes());
        format!("{signing_input}.{}", b64(&sig.to_bytes()))
    }
}

fn point_bytes(public: &PublicKey) -> [u8; 65] {
    let sec1 = public.to_sec1_bytes();
    let mut out = [0u8; 65];
    // P-256 points are written uncompressed (the curve does not compress by default).
    out.copy_from_slice(&sec1);
    out
}

/// A P-256 public key from its uncompressed form, or `None` (not on the curve, compressed,
/// the identity).
pub fn public_key(raw: &[u8]) -> Option<PublicKey> {
    crate::crypto::p256_public(raw)
}

fn info(label: &str, ua_public: &[u8], as_public: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(label.len() + 1 + 130);
    out.extend_from_slice(label.as_bytes());
    out.push(0);
    out.extend_from_slice(ua_public);
    out.extend_from_slice(as_public);
    out
}

/// The content key and nonce of RFC 8291 section 3.4, from the ECDH secret, the auth secret,
/// both public keys and the salt.
fn keys(
    ecdh: &[u8],
    auth: &[u8; 16],
    ua_public: &[u8; 65],
    as_public: &[u8; 65],
    salt: &[u8; 16],
) -> ([u8; 16], [u8; 12]) {
    let mut ikm = [0u8; 32];
    Hkdf::<Sha256>::new(Some(auth), ecdh)
        .expand(&info("WebPush: info", ua_public, as_public), &mut ikm)
        .expect("32 bytes is a valid HKDF-SHA256 output length");
    let hk = Hkdf::<Sha256>::new(Some(salt), &ikm);
    let mut cek = [0u8; 16];
    hk.expand(b"Content-Encoding: aes128gcm\0", &mut cek)
        .expect("16 bytes is a valid HKDF-SHA256 output length");
    let mut nonce = [0u8; 12];
    hk.expand(b"Content-Encoding: nonce\0", &mut nonce)
        .expect("12 bytes is a valid HKDF-SHA256 output length");
    (cek, nonce)
}

/// Why a push could not be encrypted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncryptError {
    /// The subscription's `p256dh` is not a P-256 public key.
    BadKey,
    /// The message is longer than [`MAX_PLAINTEXT`].
    TooLong,
}

/// Encrypts `plain` for a subscription (its `p256dh` key and `auth` secret) with a fresh
/// sender key and salt: the body of the push request, `Content-Encoding: aes128gcm`.
pub fn encrypt(
    plain: &[u8],
    ua_public: &[u8; 65],
    auth: &[u8; 16],
) -> Result<Vec<u8>, EncryptError> {
    let sender = VapidKey::generate();
    encrypt_with(plain, ua_public, auth, &sender.secret, &random::<16>())
}

/// [`encrypt`] with the sender key and salt given (RFC 8291's worked example fixes both).
pub fn encrypt_with(
    plain: &[u8],
    ua_public: &[u8; 65],
    auth: &[u8; 16],
    as_secret: &SecretKey,
    salt: &[u8; 16],
) -> Result<Vec<u8>, EncryptError> {
    if plain.len() > MAX_PLAINTEXT {
        return Err(EncryptError::TooLong);
    }
    let ua = public_key(ua_public).ok_or(EncryptError::BadKey)?;
    let as_public = point_bytes(&as_secret.public_key());
    let shared = p256::ecdh::diffie_hellman(as_secret.to_nonzero_scalar(), ua.as_affine());
    let (cek, nonce) = keys(
        shared.raw_secret_bytes().as_slice(),
        auth,
        ua_public,
        &as_public,
        salt,
    );
    // One record, the last: the plaintext, then the delimiter 0x02, no padding.
    let mut record = Vec::with_capacity(plain.len() + 1);
    record.extend_from_slice(plain);
    record.push(2);
    let ct = Aes128Gcm::new(&cek.into())
        .encrypt(&Nonce::from(nonce), record.as_slice())
        .expect("AES-GCM over an in-memory message cannot fail");
    let mut out = Vec::with_capacity(86 + ct.len());
    out.extend_from_slice(salt);
    out.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    out.push(65);
    out.extend_from_slice(&as_public);
    out.extend_from_slice(&ct);
    Ok(out)
}

/// The receiving side (the browser's): opens an `aes128gcm` body with the subscription's
/// private key and auth secret. `None` for anything that is not one sealed record for them.
pub fn decrypt(body: &[u8], ua_secret: &SecretKey, auth: &[u8; 16]) -> Option<Vec<u8>> {
    if body.len() < 86 + 17 || body[20] != 65 {
        return None;
    }
    let salt: [u8; 16] = body[..16].try_into().ok()?;
    let as_public: [u8; 65] = body[21..86].try_into().ok()?;
    let sender = public_key(&as_public)?;
    let ua_public = point_bytes(&ua_secret.public_key());
    let shared = p256::ecdh::diffie_hellman(ua_secret.to_nonzero_scalar(), sender.as_affine());
    let (cek, nonce) = keys(
        shared.raw_secret_bytes().as_slice(),
        auth,
        &ua_public,
        &as_public,
        &salt,
    );
    let mut record = Aes128Gcm::new(&cek.into())
        .decrypt(&Nonce::from(nonce), &body[86..])
        .ok()?;
    // Strip the padding (zeros) and the last record's delimiter, 0x02.
    while record.last() == Some(&0) {
        record.pop();
    }
    (record.pop() == Some(2)).then_some(record)
}

/// The origin of an `https://` URL (`https://host[:port]`): the JWT's `aud`.
pub fn origin(endpoint: &str) -> Option<String> {
    crate::crypto::https_origin(endpoint)
}

/// What a push service reads in a valid `Authorization: vapid` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VapidClaims {
    /// `k=`: the app's public key, uncompressed.
    pub key: Vec<u8>,
    /// `aud`.
    pub aud: String,
    /// `exp`, Unix seconds.
    pub exp: u64,
    /// `sub`.
    pub sub: String,
}

/// Checks an `Authorization` header as a push service does (RFC 8292): the `vapid` scheme
/// with `t` and `k`, a JWT of three parts with `alg: ES256`, whose signature verifies with
/// `k`, whose `aud` is `origin`, whose `exp` is in the future and at most 24 hours ahead of
/// `now_s`, and which has a `sub`. Returns the claims, or what is wrong.
pub fn verify_vapid(header: &str, origin: &str, now_s: u64) -> Result<VapidClaims, VapidError> {
    let params = header
        .strip_prefix("vapid ")
        .ok_or(VapidError::Malformed("the scheme is not vapid"))?;
    let (mut t, mut k) = (None, None);
    for part in params.split(',') {
        match part.trim().split_once('=') {
            Some(("t", v)) => t = Some(v.trim()),
            Some(("k", v)) => k = Some(v.trim()),
            _ => return Err(VapidError::UnexpectedParameter(part.to_string())),
        }
    }
    let (t, k) = (
        t.ok_or(VapidError::Malformed("no t="))?,
        k.ok_or(VapidError::Malformed("no k="))?,
    );
    let key = unb64(k).ok_or(VapidError::Malformed("k is not base64url"))?;
    let verifying = VerifyingKey::from_sec1_bytes(&key)
        .map_err(|_| VapidError::Malformed("k is not a P-256 key"))?;
    let parts: Vec<&str> = t.split('.').collect();
    let [h, c, s] = parts[..] else {
        return Err(VapidError::Malformed("the JWT does not have three parts"));
    };
    let header: Value = serde_json::from_slice(
        &unb64(h).ok_or(VapidError::Malformed("the JWT header is not base64url"))?,
    )
    .map_err(|_| VapidError::Malformed("the JWT header is not JSON"))?;
    if header["alg"] != "ES256" || header["typ"] != "JWT" {
        return Err(VapidError::BadHeader(header.to_string()));
    }
    let sig = Signature::from_slice(
        &unb64(s).ok_or(VapidError::Malformed("the signature is not base64url"))?,
    )
    .map_err(|_| VapidError::Malformed("the signature is not 64 bytes of r ‖ s"))?;
    verifying
        .verify(format!("{h}.{c}").as_bytes(), &sig)
        .map_err(|_| VapidError::Malformed("the JWT signature does not verify with k"))?;
    let claims: Value = serde_json::from_slice(
        &unb64(c).ok_or(VapidError::Malformed("the claims are not base64url"))?,
    )
    .map_err(|_| VapidError::Malformed("the claims are not JSON"))?;
    let aud = claims["aud"]
        .as_str()
        .ok_or(VapidError::Malformed("no aud"))?;
    if aud != origin {
        return Err(VapidError::WrongAudience {
            aud: aud.to_string(),
            origin: origin.to_string(),
        });
    }
    let exp = claims["exp"]
        .as_u64()
        .ok_or(VapidError::Malformed("no exp"))?;
    if exp <= now_s || exp > now_s + MAX_JWT_LIFETIME_S {
        return Err(VapidError::Expiry { exp, now_s });
    }
    let sub = claims["sub"]
        .as_str()
        .filter(|s| !s.is_empty())
        .ok_or(VapidError::Malformed("no sub"))?;
    Ok(VapidClaims {
        key,
        aud: aud.to_string(),
        exp,
        sub: sub.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Vec<u8> {
        unb64(s).unwrap()
    }

    // RFC 8291 section 5 (and appendix A): every value as the RFC prints it.
    const PLAINTEXT: &str = "When I grow up, I want to be a watermelon";
    const AS_PRIVATE: &str = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";
    const AS_PUBLIC: &str =
        "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8";
    const UA_PRIVATE: &str = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94";
    const UA_PUBLIC: &str =
        "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
    const SALT: &str = "DGv6ra1nlYgDCS1FRnbzlw";
    const AUTH: &str = "BTBZMqHH6r4Tts7J_aSIgg";
    const ECDH: &str = "kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs";
    const CEK: &str = "oIhVW04MRdy2XN9CiKLxTg";
    const NONCE: &str = "4h_95klXJ5E_qnoN";
    const BODY: &str = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN";

    #[test]
    fn rfc_8291_worked_example() {
        let as_secret = SecretKey::from_slice(&d(AS_PRIVATE)).unwrap();
        assert_eq!(b64(&point_bytes(&as_secret.public_key())), AS_PUBLIC);
        let ua_public: [u8; 65] = d(UA_PUBLIC).try_into().unwrap();
        let auth: [u8; 16] = d(AUTH).try_into().unwrap();
        let salt: [u8; 16] = d(SALT).try_into().unwrap();
        // The intermediate values too: the ECDH secret, the content key and the nonce.
        let ua = public_key(&ua_public).unwrap();
        let shared = p256::ecdh::diffie_hellman(as_secret.to_nonzero_scalar(), ua.as_affine());
        assert_eq!(b64(shared.raw_secret_bytes().as_slice()), ECDH);
        let as_public = point_bytes(&as_secret.public_key());
        let (cek, nonce) = keys(
            shared.raw_secret_bytes().as_slice(),
            &auth,
            &ua_public,
            &as_public,
            &salt,
        );
        assert_eq!(
            (b64(&cek), b64(&nonce)),
            (CEK.to_string(), NONCE.to_string())
        );
        let body =
            encrypt_with(PLAINTEXT.as_bytes(), &ua_public, &auth, &as_secret, &salt).unwrap();
        assert_eq!(b64(&body), BODY);
        // And the browser's side opens it.
        let ua_secret = SecretKey::from_slice(&d(UA_PRIVATE)).unwrap();
        assert_eq!(b64(&point_bytes(&ua_secret.public_key())), UA_PUBLIC);
        assert_eq!(
            decrypt(&d(BODY), &ua_secret, &auth).as_deref(),
            Some(PLAINTEXT.as_bytes())
        );
    }

    #[test]
    fn a_fresh_push_opens_only_with_its_subscriptions_keys() {
        let ua = VapidKey::generate();
        let auth = random::<16>();
        let body = encrypt(b"{\"t\":\"card\"}", &ua.public_raw(), &auth).unwrap();
        assert_eq!(body.len(), 86 + 12 + 1 + 16);
        assert_eq!(
            decrypt(&body, &ua.secret, &auth).as_deref(),
            Some(&b"{\"t\":\"card\"}"[..])
        );
        assert_eq!(
            decrypt(&body, &ua.secret, &random::<16>()),
            None,
            "another auth secret"
        );
        assert_eq!(decrypt(&body, &VapidKey::generate().secret, &auth), None);
        let mut altered = body.clone();
        *altered.last_mut().unwrap() ^= 1;
        assert_eq!(decrypt(&altered, &ua.secret, &auth), None);
        // Two pushes of the same message share nothing an observer could match.
        let again = encrypt(b"{\"t\":\"card\"}", &ua.public_raw(), &auth).unwrap();
        assert_ne!(body[..86], again[..86]);
        assert_ne!(body[86..], again[86..]);
        assert_eq!(
            encrypt(&[b'x'; MAX_PLAINTEXT + 1], &ua.public_raw(), &auth),
            Err(EncryptError::TooLong)
        );
        assert_eq!(
            encrypt(b"x", &[4u8; 65], &auth),
            Err(EncryptError::BadKey),
            "not a point on the curve"
        );
    }

    /// RFC 8292's shape: `vapid t=<JWT>, k=<key>`, the JWT's header `{"typ":"JWT","alg":"ES256"}`,
    /// claims `aud` (the origin), `exp` (within 24 h), `sub`, and an ES256 signature — 64 bytes
    /// of r ‖ s, not DER — that verifies with `k`.
    #[test]
    fn rfc_8292_jwt_shape() {
        let key = VapidKey::generate();
        let now = 1_800_000_000;
        let origin = "https://push.example.net";
        let header = key.authorization(origin, now + JWT_LIFETIME_S, "mailto:ops@example.net");
        let (t, k) = header
            .strip_prefix("vapid t=")
            .and_then(|rest| rest.split_once(", k="))
            .unwrap();
        assert_eq!(unb64(k).unwrap(), key.public_raw());
        assert_eq!(key.public_raw().len(), 65);
        let parts: Vec<&str> = t.split('.').collect();
        assert_eq!(parts.len(), 3);
        assert!(
            parts.iter().all(|p| !p.contains(['=', '+', '/'])),
            "base64url, no padding"
        );
        let h: Value = serde_json::from_slice(&unb64(parts[0]).unwrap()).unwrap();
        assert_eq!(h, json!({"typ": "JWT", "alg": "ES256"}));
        let c: Value = serde_json::from_slice(&unb64(parts[1]).unwrap()).unwrap();
        assert_eq!(
            c,
            json!({"aud": origin, "exp": now + JWT_LIFETIME_S, "sub": "mailto:ops@example.net"})
        );
        assert_eq!(unb64(parts[2]).unwrap().len(), 64);
        let claims = verify_vapid(&header, origin, now).unwrap();
        assert_eq!(claims.sub, "mailto:ops@example.net");
        // What a push service refuses.
        assert!(verify_vapid(&header, "https://other.example.net", now).is_err());
        assert!(
            verify_vapid(&header, origin, now + JWT_LIFETIME_S).is_err(),
            "expired"
        );
        let far = key.authorization(origin, now + MAX_JWT_LIFETIME_S + 1, "mailto:a@b.c");
        assert!(
            verify_vapid(&far, origin, now).is_err(),
            "more than 24 h ahead"
        );
        let other = VapidKey::generate();
        let forged = header.replace(k, &b64(&other.public_raw()));
        assert!(verify_vapid(&forged, origin, now).is_err(), "another key");
        let no_sub = key.authorization(origin, now + 60, "");
        assert!(verify_vapid(&no_sub, origin, now).is_err());
        // The key survives its stored form.
        let again = VapidKey::from_bytes(&key.to_bytes()).unwrap();
        assert_eq!(again.public_raw(), key.public_raw());
        assert!(
            VapidKey::from_bytes(&[0xff; 32]).is_none(),
            "past the group order"
        );
    }

    #[test]
    fn only_https_endpoints_have_an_origin() {
        assert_eq!(
            origin("https://fcm.googleapis.com/fcm/send/abc").as_deref(),
            Some("https://fcm.googleapis.com")
        );
        assert_eq!(
            origin("https://127.0.0.1:8443/push/1").as_deref(),
            Some("https://127.0.0.1:8443")
        );
        for bad in [
            "http://push.example/1",
            "ftp://push.example/1",
            "https://user:pw@push.example/1",
            "https:///nohost",
            "push.example/1",
            "",
        ] {
            assert_eq!(origin(bad), None, "{bad}");
        }
    }
}
