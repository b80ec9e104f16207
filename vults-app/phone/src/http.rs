//! The phone link's HTTP/1.1 server: `hyper` (over `tokio-rustls` on the LAN), one request per
//! connection, strict limits, no chunked bodies.
//!
//! Routes: `GET /` (the page), `GET /phone.js`, `GET /words.js`, `GET /mqtt.js`, `GET /phone.css`, `GET /sw.js`,
//! `GET /manifest.webmanifest`, `GET /icon-192.png`, `GET /icon-512.png`, `POST /pair`,
//! `POST /api`.
//!
//! Limits (hyper's where it has them):
//! - the request line and headers: 8 KiB ([`MAX_HEAD`], hyper answers 431 past it), sent
//!   within 5 s ([`READ_TIMEOUT`], hyper's header read timeout: the connection just closes);
//! - the body: 16 KiB ([`MAX_BODY`], 413), within 5 s more (408); chunked bodies get 501 and a
//!   `POST` without `Content-Length` 411;
//! - the TLS handshake: 3 s ([`HANDSHAKE_TIMEOUT`]), then the connection closes;
//! - connections: 16 at once per source address ([`MAX_PER_SOURCE`]) and 64 in all
//!   ([`MAX_CONNECTIONS`]); past either, plain HTTP gets 503 and TLS is closed at once;
//! - requests: per source address a burst of 20, then 5 a second (429).
//!
//! Everything the server says past pairing is sealed; see [`super::gate`].

use super::gate::{CommandSink, Gate, Reply};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::HashMap;
use std::convert::Infallible;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;

/// The request line and headers, at most (hyper's smallest read buffer, exactly 8 KiB).
pub const MAX_HEAD: usize = 8 * 1024;
pub const MAX_BODY: usize = 16 * 1024;
/// To send the headers, and again the body.
pub const READ_TIMEOUT: Duration = Duration::from_secs(5);
/// A TLS handshake not done by then is closed (an idle connection holds a slot only so long).
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(3);
/// Connections open at once from one source address (a browser loading the page opens six or
/// more at once, its preconnects and the service worker's fetch beside them, each request on a
/// connection of its own, closed after it: with 8, a page's styles or a script were sometimes
/// refused while the connections before them were still closing)…
pub const MAX_PER_SOURCE: usize = 16;
/// …and from all together.
pub const MAX_CONNECTIONS: usize = 64;
/// How often dropped refusals are looked at for their summary line.
const FLUSH_EVERY: Duration = Duration::from_secs(10);
const BURST: f64 = 20.0;
const PER_SECOND: f64 = 5.0;

const PAGE: &str = include_str!("../../../assets/phone/index.html");
const SCRIPT: &str = include_str!("../../../assets/phone/phone.js");
// The page's words in every language (made from assets/i18n/<tag>/phone.ftl; tests/page.rs).
const WORDS: &str = include_str!("../../../assets/phone/words.js");
const STYLE: &str = include_str!("../../../assets/phone/phone.css");
const MQTT: &str = include_str!("../../../assets/phone/mqtt.js");
// What makes the page an installable app with push (docs/phone.md, "Push"): the service
// worker, the manifest and its icons.
const WORKER: &str = include_str!("../../../assets/phone/sw.js");
const MANIFEST: &str = include_str!("../../../assets/phone/manifest.webmanifest");
const ICON_192: &[u8] = include_bytes!("../../../assets/phone/icon-192.png");
const ICON_512: &[u8] = include_bytes!("../../../assets/phone/icon-512.png");
// `wss:`: a phone paired over a broker talks to it from this page too.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self' wss:; \
                   img-src 'self' data:; manifest-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Per-address token buckets.
struct RateLimit {
    buckets: HashMap<IpAddr, (f64, Instant)>,
}

impl RateLimit {
    fn allow(&mut self, ip: IpAddr, now: Instant) -> bool {
        if self.buckets.len() > 10_000 {
            self.buckets.clear();
        }
        let (tokens, last) = self.buckets.entry(ip).or_insert((BURST, now));
        let refill = now.duration_since(*last).as_secs_f64() * PER_SECOND;
        *tokens = (*tokens + refill).min(BURST);
        *last = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Open connections, in all and per source address.
#[derive(Default)]
struct Slots {
    total: usize,
    per_source: HashMap<IpAddr, usize>,
}

/// One open connection's slot, given back when the connection ends.
struct Slot {
    slots: Arc<Mutex<Slots>>,
    ip: IpAddr,
}

impl Slot {
    fn take(slots: &Arc<Mutex<Slots>>, ip: IpAddr) -> Option<Slot> {
        let mut s = slots.lock().unwrap_or_else(|e| e.into_inner());
        let mine = s.per_source.get(&ip).copied().unwrap_or(0);
        if s.total >= MAX_CONNECTIONS || mine >= MAX_PER_SOURCE {
            return None;
        }
        s.total += 1;
        *s.per_source.entry(ip).or_insert(0) += 1;
        Some(Slot {
            slots: slots.clone(),
            ip,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut s = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        s.total -= 1;
        if let Some(n) = s.per_source.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                s.per_source.remove(&self.ip);
            }
        }
    }
}

pub struct Server {
    pub gate: Arc<Gate>,
    pub commands: CommandSink,
    pub on_change: Arc<dyn Fn() + Send + Sync>,
    /// Serve HTTPS with this certificate (the LAN); plain HTTP without (loopback).
    pub tls: Option<tokio_rustls::TlsAcceptor>,
}

pub async fn serve(listener: TcpListener, server: Arc<Server>) {
    let limits = Arc::new(Mutex::new(RateLimit {
        buckets: HashMap::new(),
    }));
    let slots = Arc::new(Mutex::new(Slots::default()));
    let mut flush = tokio::time::interval(FLUSH_EVERY);
    // Connection tasks live in this set: when the link stops, dropping it ends them all.
    let mut tasks = tokio::task::JoinSet::new();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = flush.tick() => {
                server.gate.flush(vults_engine::clock::now_ms(), false);
                continue;
            }
        };
        let Ok((stream, peer)) = accepted else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        while tasks.try_join_next().is_some() {}
        let ip = peer.ip();
        let Some(slot) = Slot::take(&slots, ip) else {
            // Over TLS there is no cheap way to say so: the connection just closes.
            if server.tls.is_none() {
                tasks.spawn(async move {
                    let mut stream = stream;
                    let reply = Reply::error(503, "too many connections");
                    let _ = tokio::time::timeout(
                        Duration::from_secs(1),
                        write_raw(&mut stream, &reply),
                    )
                    .await;
                });
            }
            continue;
        };
        let allowed = limits
            .lock()
            .map(|mut l| l.allow(ip, Instant::now()))
            .unwrap_or(false);
        let server = server.clone();
        tasks.spawn(async move {
            let _slot = slot;
            match server.tls.clone() {
                Some(acceptor) => {
                    // A failed or slow handshake (a plain-HTTP client, a port scan) just ends.
                    if let Ok(Ok(tls)) =
                        tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await
                    {
                        connection(tls, server, ip, allowed).await;
                    }
                }
                None => connection(stream, server, ip, allowed).await,
            }
        });
    }
}

/// One connection, one request, through hyper with the limits above.
async fn connection<S>(io: S, server: Arc<Server>, ip: IpAddr, allowed: bool)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = service_fn(move |req: Request<Incoming>| {
        let server = server.clone();
        async move { Ok::<_, Infallible>(respond(&server, req, ip, allowed).await) }
    });
    let conn = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(READ_TIMEOUT)
        .max_buf_size(MAX_HEAD)
        .keep_alive(false)
        .serve_connection(TokioIo::new(io), service);
    // Headers (5 s) + body (5 s) + the reply: nothing holds a slot longer.
    let _ = tokio::time::timeout(READ_TIMEOUT * 3, conn).await;
}

async fn respond(
    server: &Arc<Server>,
    req: Request<Incoming>,
    ip: IpAddr,
    allowed: bool,
) -> Response<Full<Bytes>> {
    if !allowed {
        return response(Reply::error(429, "too many requests: slow down"));
    }
    let (parts, body) = req.into_parts();
    if parts.headers.contains_key(header::TRANSFER_ENCODING) {
        return response(Reply::error(501, "chunked bodies are not accepted"));
    }
    let path = parts.uri.path().to_string();
    let body = if parts.method == Method::POST {
        let length = parts
            .headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<usize>().ok());
        let Some(length) = length else {
            return response(Reply::error(411, "content-length required"));
        };
        if length > MAX_BODY {
            return response(Reply::error(413, "body too large"));
        }
        match tokio::time::timeout(READ_TIMEOUT, Limited::new(body, MAX_BODY).collect()).await {
            Ok(Ok(collected)) => collected.to_bytes(),
            Ok(Err(_)) => return response(Reply::error(400, "incomplete body")),
            Err(_) => return response(Reply::error(408, "request took too long")),
        }
    } else {
        Bytes::new()
    };
    response(route(server, &parts.method, &path, body, ip).await)
}

async fn route(
    server: &Arc<Server>,
    method: &Method,
    path: &str,
    body: Bytes,
    ip: IpAddr,
) -> Reply {
    let now = vults_engine::clock::now_ms();
    match (method.as_str(), path) {
        ("GET", "/") | ("GET", "/index.html") => asset(PAGE, "text/html; charset=utf-8"),
        ("GET", "/phone.js") => asset(SCRIPT, "text/javascript; charset=utf-8"),
        ("GET", "/words.js") => asset(WORDS, "text/javascript; charset=utf-8"),
        ("GET", "/phone.css") => asset(STYLE, "text/css; charset=utf-8"),
        ("GET", "/mqtt.js") => asset(MQTT, "text/javascript; charset=utf-8"),
        ("GET", "/sw.js") => asset(WORKER, "text/javascript; charset=utf-8"),
        ("GET", "/manifest.webmanifest") => asset(MANIFEST, "application/manifest+json"),
        ("GET", "/icon-192.png") => image(ICON_192),
        ("GET", "/icon-512.png") => image(ICON_512),
        ("POST", "/pair") => {
            // Pairing writes devices.json: off the link's one async thread.
            let gate = server.gate.clone();
            let reply = tokio::task::spawn_blocking(move || gate.pair(&body, ip, now))
                .await
                .unwrap_or_else(|_| Reply::error(500, "internal error"));
            (server.on_change)();
            reply
        }
        ("POST", "/api") => {
            let (reply, command) = server.gate.api(&body, ip, now);
            if let Some(command) = command {
                (server.commands)(command);
            }
            if reply.status != 200 {
                (server.on_change)();
            }
            reply
        }
        (
            _,
            "/" | "/index.html" | "/phone.js" | "/words.js" | "/phone.css" | "/mqtt.js" | "/pair"
            | "/api",
        ) => Reply::error(405, "method not allowed"),
        _ => Reply::error(404, "not found"),
    }
}

fn image(png: &'static [u8]) -> Reply {
    Reply {
        status: 200,
        content_type: "image/png",
        body: png.to_vec(),
    }
}

fn asset(text: &'static str, content_type: &'static str) -> Reply {
    Reply {
        status: 200,
        content_type,
        body: text.as_bytes().to_vec(),
    }
}

fn response(reply: Reply) -> Response<Full<Bytes>> {
    let mut out = Response::new(Full::new(Bytes::from(reply.body)));
    *out.status_mut() =
        StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let h = out.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(reply.content_type),
    );
    h.insert(header::CONNECTION, HeaderValue::from_static("close"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    out
}

/// A whole reply written by hand: only the 503 for a connection over the limits, which gets
/// no hyper connection (and so costs no slot).
async fn write_raw<S: AsyncWrite + Unpin>(stream: &mut S, reply: &Reply) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {} Service Unavailable\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        reply.status,
        reply.content_type,
        reply.body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(&reply.body).await?;
    stream.shutdown().await
}
