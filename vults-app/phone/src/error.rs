//! What the phone link's public functions say when they fail, each `Display` the one line a
//! person reads: [`BrokerError`] (the broker's settings and connection), [`UrlError`] (a broker
//! URL), [`KeyringError`] (the system keyring) and [`VapidError`] (a push's VAPID header, as a
//! push service checks it).

use std::path::PathBuf;

/// Why a broker URL was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// `mqtt://`, `ws://`, `tcp://`: in clear.
    #[error("the broker must be reached over TLS: use mqtts:// or wss://")]
    NotTls,
    /// Another scheme.
    #[error("a broker URL starts with mqtts:// or wss://")]
    NotABrokerUrl,
    /// `user@` in the URL.
    #[error("put the username in its own field, not in the URL")]
    UserInUrl,
    /// `mqtts://host/path`.
    #[error("an mqtts:// URL has no path")]
    PathOnMqtts,
    /// `[::1` without its `]`.
    #[error("an IPv6 host needs its closing ]")]
    OpenIpv6,
    /// `[::1]x`.
    #[error("junk after the IPv6 host")]
    JunkAfterIpv6,
    /// No host, or one with odd characters.
    #[error("the broker URL has no valid host")]
    NoHost,
    /// A port that is not 1 to 65535.
    #[error("the port must be a number from 1 to 65535")]
    BadPort,
}

/// Why the broker link could not start or its settings could not be saved.
#[derive(Debug, thiserror::Error)]
pub enum BrokerError {
    /// The broker's URL.
    #[error(transparent)]
    Url(#[from] UrlError),
    /// The phone's URL.
    #[error("phone URL: {0}")]
    PhoneUrl(UrlError),
    /// A phone URL that browsers cannot open.
    #[error("the phone URL must be wss:// (browsers speak only WebSockets)")]
    PhoneNotWss,
    /// An mqtts:// broker and no phone URL.
    #[error(
        "with an mqtts:// broker, give the phone its wss:// URL (browsers speak only WebSockets)"
    )]
    PhoneUrlNeeded,
    /// The CA file could not be read.
    #[error("cannot read the CA file {}: {source}", path.display())]
    CaUnreadable {
        /// The CA file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The CA file is not PEM.
    #[error("the CA file {} is not PEM: {why}", path.display())]
    CaNotPem {
        /// The CA file.
        path: PathBuf,
        /// The parser's words.
        why: String,
    },
    /// A certificate in the CA file was refused.
    #[error("a certificate in {} is refused: {why}", path.display())]
    CaRefused {
        /// The CA file.
        path: PathBuf,
        /// TLS's words.
        why: String,
    },
    /// The CA file holds no certificate.
    #[error("no certificate in the CA file {}", .0.display())]
    NoCertificate(PathBuf),
    /// No CA file given and the system has none.
    #[error("no system CA certificates found: give the broker's CA file")]
    NoSystemCa,
    /// TLS could not be set up.
    #[error("{0}")]
    Tls(String),
    /// A password could not be kept.
    #[error("{0}")]
    Password(std::io::Error),
    /// The settings could not be saved.
    #[error("cannot save the broker settings: {0}")]
    Save(std::io::Error),
}

/// Why the system keyring cannot be used (the file beside the settings is, then).
#[derive(Debug, thiserror::Error)]
pub enum KeyringError {
    /// The platform's store did not start.
    #[error("{0}")]
    Store(keyring_core::Error),
    /// Vults knows no store for this platform.
    #[error("no keyring store for this platform")]
    NoStore,
}

/// Why a VAPID `Authorization` header is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VapidError {
    /// A part missing or not as RFC 8292 writes it (which, in words).
    #[error("{0}")]
    Malformed(&'static str),
    /// A parameter other than `t` and `k`.
    #[error("unexpected parameter {0:?}")]
    UnexpectedParameter(String),
    /// A JWT header other than ES256 / JWT.
    #[error("the JWT header is {0}")]
    BadHeader(String),
    /// The audience is another origin.
    #[error("aud is {aud}, the endpoint's origin is {origin}")]
    WrongAudience {
        /// The JWT's `aud`.
        aud: String,
        /// The endpoint's origin.
        origin: String,
    },
    /// Expired, or too far ahead.
    #[error("exp {exp} is not within 24 h after {now_s}")]
    Expiry {
        /// The JWT's `exp`.
        exp: u64,
        /// Now, in seconds since the epoch.
        now_s: u64,
    },
}
