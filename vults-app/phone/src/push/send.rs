//! One Web Push request (RFC 8030): `POST` of the encrypted body to the subscription's
//! `https://` endpoint, over hyper and rustls (ring) as the rest of the app, with the VAPID
//! header, `TTL`, `Urgency` and `Topic`. Redirects are not followed (a 3xx is a refusal), the
//! response's body is not read, and the server's certificate is checked against the system's
//! roots (tests add their own CA through [`Roots`], which no setting or request can reach).

use super::webpush::{JWT_LIFETIME_S, VapidKey, origin};
use bytes::Bytes;
use http_body_util::Full;
use hyper::Request;
use hyper_util::rt::TokioIo;
use std::sync::Arc;
use std::time::Duration;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::rustls::{ClientConfig, RootCertStore};

/// Connecting, the TLS handshake, and the whole request each give up after this long.
pub const TIMEOUT: Duration = Duration::from_secs(15);
/// The `sub` of the VAPID JWT: who runs the sender (RFC 8292 asks for a contact URI).
pub const SUBJECT: &str = "https://example.invalid/vults";

/// The CA roots a push service's certificate must chain to.
#[derive(Clone)]
pub struct Roots(Arc<ClientConfig>);

impl Roots {
    /// The system's CA roots (the push services of Google, Mozilla and Apple have public
    /// certificates).
    pub fn system() -> Roots {
        let mut roots = RootCertStore::empty();
        for cert in rustls_native_certs::load_native_certs().certs {
            let _ = roots.add(cert);
        }
        Roots::from_store(roots)
    }

    /// Only these CA certificates (DER): the tests' stand-in push service.
    pub fn only(certs: Vec<CertificateDer<'static>>) -> Roots {
        let mut roots = RootCertStore::empty();
        for cert in certs {
            let _ = roots.add(cert);
        }
        Roots::from_store(roots)
    }

    fn from_store(roots: RootCertStore) -> Roots {
        let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
        let mut config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("ring supports the default protocol versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Roots(Arc::new(config))
    }
}

/// How urgent a push is (RFC 8030 section 5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Urgency {
    /// A card waits: wake the phone.
    High,
    /// Housekeeping (a withdraw): deliver when convenient.
    Normal,
}

/// What the push service said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sent {
    /// 200, 201 or 202: taken.
    Delivered,
    /// 404 or 410: the subscription is gone (the phone unsubscribed, the browser was reset).
    Gone(u16),
    /// Worth trying again later: no network, a timeout, 429, a 5xx.
    Retry(PushFailure),
    /// Refused for good (another 4xx, a redirect, an endpoint that is not https://).
    Refused(PushFailure),
}

/// Why a push did not get through: Settings → Phone words it in the person's language; the log
/// and `vults phone` say it in English ([`std::fmt::Display`]). `service` is the push service's
/// origin (`https://fcm.googleapis.com`); `error` what the network library said, as it came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PushFailure {
    /// The push service did not answer in time.
    Timeout,
    /// The subscription's endpoint is not an https:// URL.
    NotHttps,
    /// The endpoint is not a URL.
    NotUrl,
    /// The endpoint has no host.
    NoHost,
    /// The endpoint's host is not a host name.
    BadHost(String),
    /// The service could not be reached (no network, a refused connection).
    Unreachable {
        /// The push service's origin.
        service: String,
        /// What the network library said.
        error: String,
    },
    /// TLS with the service failed.
    Tls {
        /// The push service's origin.
        service: String,
        /// What the network library said.
        error: String,
    },
    /// HTTP with the service failed.
    Http {
        /// The push service's origin.
        service: String,
        /// What the network library said.
        error: String,
    },
    /// The request could not be made.
    Request,
    /// The service took the request and did not answer.
    NoAnswer {
        /// The push service's origin.
        service: String,
        /// What the network library said.
        error: String,
    },
    /// The service answered 429 or a 5xx: busy, tried again later.
    Busy {
        /// The push service's origin.
        service: String,
        /// The HTTP status it answered.
        status: u16,
    },
    /// The service answered with a redirect, which is not followed.
    Redirect {
        /// The push service's origin.
        service: String,
        /// The HTTP status it answered.
        status: u16,
    },
    /// The service refused the push (another 4xx).
    Refused {
        /// The push service's origin.
        service: String,
        /// The HTTP status it answered.
        status: u16,
    },
    /// 404 or 410: the subscription is gone; push is off until the page subscribes again.
    Gone(u16),
    /// The push could not be encrypted for the phone's keys.
    Encrypt(String),
    /// Tried [`super::BACKOFF_S`]'s every wait and given up, on this last failure.
    GaveUp {
        /// The last try's failure.
        last: Box<PushFailure>,
        /// How many tries.
        tries: usize,
    },
}

impl std::fmt::Display for PushFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PushFailure::Timeout => f.write_str("the push service did not answer in time"),
            PushFailure::NotHttps => f.write_str("the endpoint is not an https:// URL"),
            PushFailure::NotUrl => f.write_str("the endpoint is not a URL"),
            PushFailure::NoHost => f.write_str("the endpoint has no host"),
            PushFailure::BadHost(host) => write!(f, "{host} is not a host name"),
            PushFailure::Unreachable { service, error } => {
                write!(f, "cannot reach {service}: {error}")
            }
            PushFailure::Tls { service, error } => write!(f, "TLS with {service} failed: {error}"),
            PushFailure::Http { service, error } => {
                write!(f, "HTTP with {service} failed: {error}")
            }
            PushFailure::Request => f.write_str("the request could not be made"),
            PushFailure::NoAnswer { service, error } => {
                write!(f, "{service} did not answer: {error}")
            }
            PushFailure::Busy { service, status } => write!(f, "{service} answered {status}"),
            PushFailure::Redirect { service, status } => write!(
                f,
                "{service} answered with a redirect ({status}), which is not followed"
            ),
            PushFailure::Refused { service, status } => {
                write!(f, "{service} refused the push ({status})")
            }
            PushFailure::Gone(status) => write!(
                f,
                "the push service says this phone's subscription is gone ({status}): push is \
                 off until the page subscribes again"
            ),
            PushFailure::Encrypt(why) => write!(f, "the push could not be encrypted: {why}"),
            PushFailure::GaveUp { last, tries } => {
                write!(f, "{last} (gave up after {tries} tries)")
            }
        }
    }
}

/// A push's headers beyond the body.
#[derive(Debug, Clone)]
pub struct Headers {
    /// Seconds the service keeps it for an unreachable phone.
    pub ttl: u32,
    /// How urgent.
    pub urgency: Urgency,
    /// A newer push with the same topic replaces this one in the service's queue (at most 32
    /// characters of base64url's alphabet).
    pub topic: Option<String>,
}

/// POSTs `body` (already encrypted, [`super::webpush::encrypt`]) to `endpoint`.
pub async fn post(
    roots: &Roots,
    vapid: &VapidKey,
    endpoint: &str,
    body: Vec<u8>,
    headers: &Headers,
    now_s: u64,
) -> Sent {
    match tokio::time::timeout(
        TIMEOUT,
        post_inner(roots, vapid, endpoint, body, headers, now_s),
    )
    .await
    {
        Ok(sent) => sent,
        Err(_) => Sent::Retry(PushFailure::Timeout),
    }
}

async fn post_inner(
    roots: &Roots,
    vapid: &VapidKey,
    endpoint: &str,
    body: Vec<u8>,
    headers: &Headers,
    now_s: u64,
) -> Sent {
    let Some(aud) = origin(endpoint) else {
        return Sent::Refused(PushFailure::NotHttps);
    };
    let Ok(uri) = endpoint.parse::<hyper::Uri>() else {
        return Sent::Refused(PushFailure::NotUrl);
    };
    let Some(authority) = uri.authority() else {
        return Sent::Refused(PushFailure::NoHost);
    };
    let host = authority
        .host()
        .trim_start_matches('[')
        .trim_end_matches(']');
    let port = authority.port_u16().unwrap_or(443);
    let Ok(name) = ServerName::try_from(host.to_string()) else {
        return Sent::Refused(PushFailure::BadHost(host.to_string()));
    };
    let tcp = match tokio::net::TcpStream::connect((host, port)).await {
        Ok(s) => s,
        Err(e) => {
            return Sent::Retry(PushFailure::Unreachable {
                service: aud,
                error: e.to_string(),
            });
        }
    };
    let tls = match TlsConnector::from(roots.0.clone()).connect(name, tcp).await {
        Ok(s) => s,
        Err(e) => {
            return Sent::Retry(PushFailure::Tls {
                service: aud,
                error: e.to_string(),
            });
        }
    };
    let (mut sender, conn) = match hyper::client::conn::http1::handshake(TokioIo::new(tls)).await {
        Ok(pair) => pair,
        Err(e) => {
            return Sent::Retry(PushFailure::Http {
                service: aud,
                error: e.to_string(),
            });
        }
    };
    let driver = tokio::spawn(async move {
        let _ = conn.await;
    });
    let path = uri
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "/".into());
    let mut request = Request::post(path)
        .header(hyper::header::HOST, authority.as_str())
        .header(
            hyper::header::AUTHORIZATION,
            vapid.authorization(&aud, now_s + JWT_LIFETIME_S, SUBJECT),
        )
        .header("TTL", headers.ttl.to_string())
        .header(
            "Urgency",
            match headers.urgency {
                Urgency::High => "high",
                Urgency::Normal => "normal",
            },
        )
        .header(hyper::header::CONTENT_ENCODING, "aes128gcm")
        .header(hyper::header::CONTENT_TYPE, "application/octet-stream")
        .header(hyper::header::CONTENT_LENGTH, body.len().to_string());
    if let Some(topic) = &headers.topic {
        request = request.header("Topic", topic.as_str());
    }
    let Ok(request) = request.body(Full::new(Bytes::from(body))) else {
        return Sent::Refused(PushFailure::Request);
    };
    let response = sender.send_request(request).await;
    driver.abort();
    let status = match response {
        Ok(r) => r.status().as_u16(),
        Err(e) => {
            return Sent::Retry(PushFailure::NoAnswer {
                service: aud,
                error: e.to_string(),
            });
        }
    };
    match status {
        200..=202 => Sent::Delivered,
        404 | 410 => Sent::Gone(status),
        429 | 500..=599 => Sent::Retry(PushFailure::Busy {
            service: aud,
            status,
        }),
        300..=399 => Sent::Refused(PushFailure::Redirect {
            service: aud,
            status,
        }),
        _ => Sent::Refused(PushFailure::Refused {
            service: aud,
            status,
        }),
    }
}
