//! A deliberately small HTTP/1.1 server for the phone link: one request per connection,
//! strict limits, no chunked bodies, no keep-alive.
//!
//! Routes: `GET /` (the page), `GET /phone.js`, `GET /phone.css`, `POST /pair`, `POST /api`.
//! Limits: 8 KiB of headers, 16 KiB of body (413), 5 s to send a request (408), 32
//! connections at once (503, or closed over TLS), and per source address 20 requests in a burst then 5 a second
//! (429). Everything the server says past pairing is sealed; see [`super::gate`].

use super::gate::{Gate, Reply};
use crate::model::EngineCommand;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;

const MAX_HEADER: usize = 8 * 1024;
pub const MAX_BODY: usize = 16 * 1024;
const READ_TIMEOUT: Duration = Duration::from_secs(5);
const MAX_CONNECTIONS: usize = 32;
const BURST: f64 = 20.0;
const PER_SECOND: f64 = 5.0;

const PAGE: &str = include_str!("../../../assets/phone/index.html");
const SCRIPT: &str = include_str!("../../../assets/phone/phone.js");
const STYLE: &str = include_str!("../../../assets/phone/phone.css");

/// Sends an accepted answer to the engine (the same command a click sends).
pub type CommandSink = Arc<dyn Fn(EngineCommand) + Send + Sync>;

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

pub struct Server {
    pub gate: Arc<Mutex<Gate>>,
    pub commands: CommandSink,
    pub on_change: Arc<dyn Fn() + Send + Sync>,
    /// Serve HTTPS with this certificate (the LAN); plain HTTP without (loopback).
    pub tls: Option<tokio_rustls::TlsAcceptor>,
}

pub async fn serve(listener: TcpListener, server: Arc<Server>) {
    let limits = Arc::new(Mutex::new(RateLimit {
        buckets: HashMap::new(),
    }));
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    // Connection tasks live in this set: when the link stops, dropping it ends them all.
    let mut tasks = tokio::task::JoinSet::new();
    loop {
        let Ok((stream, peer)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        while tasks.try_join_next().is_some() {}
        let Ok(permit) = slots.clone().try_acquire_owned() else {
            // Over TLS there is no cheap way to say so: the connection just closes.
            if server.tls.is_none() {
                tasks.spawn(async move {
                    let mut stream = stream;
                    let _ =
                        write_reply(&mut stream, &Reply::error(503, "too many connections")).await;
                });
            }
            continue;
        };
        let allowed = limits
            .lock()
            .map(|mut l| l.allow(peer.ip(), Instant::now()))
            .unwrap_or(false);
        let server = server.clone();
        tasks.spawn(async move {
            let _permit = permit;
            match server.tls.clone() {
                Some(acceptor) => {
                    // A failed or slow handshake (a plain-HTTP client, a port scan) just ends.
                    if let Ok(Ok(mut tls)) =
                        tokio::time::timeout(READ_TIMEOUT, acceptor.accept(stream)).await
                    {
                        handle(&mut tls, &server, allowed).await;
                    }
                }
                None => {
                    let mut stream = stream;
                    handle(&mut stream, &server, allowed).await;
                }
            }
        });
    }
}

async fn handle<S: AsyncRead + AsyncWrite + Unpin>(stream: &mut S, server: &Server, allowed: bool) {
    let reply = if allowed {
        match tokio::time::timeout(READ_TIMEOUT, read_request(stream)).await {
            Ok(Ok(req)) => route(server, req),
            Ok(Err(reply)) => reply,
            Err(_) => Reply::error(408, "request took too long"),
        }
    } else {
        Reply::error(429, "too many requests: slow down")
    };
    let _ = write_reply(stream, &reply).await;
}

struct Request {
    method: String,
    path: String,
    body: Vec<u8>,
}

async fn read_request<S: AsyncRead + Unpin>(stream: &mut S) -> Result<Request, Reply> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    let head_end = loop {
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            break i;
        }
        if buf.len() > MAX_HEADER {
            return Err(Reply::error(431, "headers too large"));
        }
        let n = stream
            .read(&mut chunk)
            .await
            .map_err(|_| Reply::error(400, "connection failed"))?;
        if n == 0 {
            return Err(Reply::error(400, "incomplete request"));
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head =
        std::str::from_utf8(&buf[..head_end]).map_err(|_| Reply::error(400, "bad headers"))?;
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or_default().split(' ');
    let (Some(method), Some(target), Some(version)) = (first.next(), first.next(), first.next())
    else {
        return Err(Reply::error(400, "bad request line"));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(Reply::error(505, "HTTP/1.x only"));
    }
    let mut length: Option<usize> = None;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Err(Reply::error(400, "bad header"));
        };
        let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
        match name.as_str() {
            "content-length" => {
                let n: usize = value
                    .parse()
                    .map_err(|_| Reply::error(400, "bad content-length"))?;
                if length.is_some_and(|l| l != n) {
                    return Err(Reply::error(400, "conflicting content-length"));
                }
                length = Some(n);
            }
            "transfer-encoding" => {
                return Err(Reply::error(501, "chunked bodies are not accepted"));
            }
            _ => {}
        }
    }
    let method = method.to_string();
    let path = target.split('?').next().unwrap_or_default().to_string();
    let mut body = buf[head_end + 4..].to_vec();
    if method == "POST" {
        let Some(length) = length else {
            return Err(Reply::error(411, "content-length required"));
        };
        if length > MAX_BODY {
            return Err(Reply::error(413, "body too large"));
        }
        while body.len() < length {
            let n = stream
                .read(&mut chunk)
                .await
                .map_err(|_| Reply::error(400, "connection failed"))?;
            if n == 0 {
                return Err(Reply::error(400, "incomplete body"));
            }
            body.extend_from_slice(&chunk[..n]);
        }
        body.truncate(length);
    } else {
        body.clear();
    }
    Ok(Request { method, path, body })
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn route(server: &Server, req: Request) -> Reply {
    let now = super::now_ms();
    match (req.method.as_str(), req.path.as_str()) {
        ("GET", "/") | ("GET", "/index.html") => asset(PAGE, "text/html; charset=utf-8"),
        ("GET", "/phone.js") => asset(SCRIPT, "text/javascript; charset=utf-8"),
        ("GET", "/phone.css") => asset(STYLE, "text/css; charset=utf-8"),
        ("POST", "/pair") => {
            let reply = match server.gate.lock() {
                Ok(mut gate) => gate.pair(&req.body, now),
                Err(_) => Reply::error(500, "internal error"),
            };
            if reply.status == 200 {
                (server.on_change)();
            }
            reply
        }
        ("POST", "/api") => {
            let (reply, command) = match server.gate.lock() {
                Ok(mut gate) => gate.api(&req.body, now),
                Err(_) => (Reply::error(500, "internal error"), None),
            };
            if let Some(command) = command {
                (server.commands)(command);
            }
            if reply.status != 200 {
                (server.on_change)();
            }
            reply
        }
        (_, "/" | "/index.html" | "/phone.js" | "/phone.css" | "/pair" | "/api") => {
            Reply::error(405, "method not allowed")
        }
        _ => Reply::error(404, "not found"),
    }
}

fn asset(text: &'static str, content_type: &'static str) -> Reply {
    Reply {
        status: 200,
        content_type,
        body: text.as_bytes().to_vec(),
    }
}

async fn write_reply<S: AsyncWrite + Unpin>(stream: &mut S, reply: &Reply) -> std::io::Result<()> {
    let reason = match reply.status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        410 => "Gone",
        411 => "Length Required",
        413 => "Content Too Large",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Error",
    };
    let head = format!(
        "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n\
         Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'\r\n\r\n",
        reply.status,
        reply.content_type,
        reply.body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(&reply.body).await?;
    stream.shutdown().await
}
