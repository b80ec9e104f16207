//! The pairing code: what its QR code holds (the page's URL with the one-time token and the
//! app's public keys in the fragment) and the QR code's modules for the window to draw.

/// What the QR code holds: the page's URL with the one-time token and the app's public keys in
/// the fragment (`#…`), which browsers never send to a server, so it reaches no log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairingOffer {
    /// The page's address, with the pairing in its fragment: what the QR code says.
    pub url: String,
    /// The one-time pairing token: good once, until [`PairingOffer::expires_at`].
    pub token: String,
    /// Unix milliseconds.
    pub expires_at: u64,
    /// The app's Ed25519 public key, base64url.
    pub app_sign_key: String,
    /// The app's X25519 public key, base64url.
    pub app_box_key: String,
    /// The broker's WebSocket URL and this code's pairing topic id, while the broker link is
    /// on (the phone then pairs, and talks, over the broker).
    pub broker: Option<(String, String)>,
    /// The username and password the phone logs in to the broker with (Settings → Phone's
    /// "phone login"), when one is set and the code names the broker. A secret: anyone who
    /// sees the code can use that broker account (still not answer a card without pairing).
    pub phone_login: Option<(String, String)>,
}

/// `s` for a URL fragment's `key=value` (what `URLSearchParams` decodes): unreserved
/// characters as they are, everything else percent-encoded.
pub fn fragment_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The QR code of an offer as rows of dark (`true`) and light modules, without the quiet zone
/// (the window draws a 4-module light border around it).
pub fn qr_modules(offer: &PairingOffer) -> Vec<Vec<bool>> {
    let Ok(code) =
        qrcode::QrCode::with_error_correction_level(offer.url.as_bytes(), qrcode::EcLevel::M)
    else {
        return Vec::new();
    };
    let width = code.width();
    let colors = code.to_colors();
    colors
        .chunks(width)
        .map(|row| row.iter().map(|c| *c == qrcode::Color::Dark).collect())
        .collect()
}
