//! One task per hook connection: reads lines (at most [`MAX_LINE`] bytes, never buffering a
//! longer one whole), hands events to the engine's core, and writes back what the core sends to
//! this connection only. A slow or stuck client holds only its own task.
//!
//! Bounds: everything a connection holds (its 16 KiB reader, the line buffer of at most
//! [`MAX_LINE`], its reply channel) goes with its task when it closes; the core keeps its id
//! only while a card of it waits.

use crate::in_app::ConnId;
use crate::inputs::{Input, Outgoing};
use crate::stats::Stats;
use interprocess::local_socket::tokio::Stream;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use vults_core::protocol::{MAX_LINE, Message, ReadLine, read_line};

/// What one read produced.
#[derive(Debug, PartialEq)]
pub enum LineRead {
    /// A whole line, without its newline.
    Line,
    /// The peer closed (a final line without newline is returned as `Line` first).
    Eof,
    /// The line passed `max` bytes (newline included); what was read of it is dropped.
    TooLong,
}

/// Reads one line into `buf` (cleared first), refusing to hold more than `max` bytes of it.
pub async fn read_bounded_line<R: AsyncBufRead + Unpin>(
    r: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<LineRead> {
    buf.clear();
    loop {
        let available = r.fill_buf().await?;
        if available.is_empty() {
            return Ok(if buf.is_empty() {
                LineRead::Eof
            } else {
                LineRead::Line
            });
        }
        match memchr::memchr(b'\n', available) {
            Some(i) => {
                if buf.len() + i + 1 > max {
                    return Ok(LineRead::TooLong);
                }
                buf.extend_from_slice(&available[..i]);
                r.consume(i + 1);
                return Ok(LineRead::Line);
            }
            None => {
                let n = available.len();
                // Even with its newline next, this line would pass the limit.
                if buf.len() + n + 1 > max {
                    return Ok(LineRead::TooLong);
                }
                buf.extend_from_slice(available);
                r.consume(n);
            }
        }
    }
}

/// Marks an event as coming from `host`: its folder becomes `host:/path`.
pub fn tag_host(event: &mut vults_core::protocol::Event, host: &str) {
    let folder = crate::arrival::folder_of(event);
    event.terminal.cwd = Some(vults_core::decision::host_folder(host, &folder));
}

/// Serves one connection until it closes.
/// `host`: the SSH host whose link this connection came through (its own local socket), or
/// `None` for the local socket. A host's events get the folder `host:/path`
/// ([`vults_core::decision::host_folder`]) before anything else sees them.
pub async fn serve(
    conn: ConnId,
    stream: Stream,
    core: mpsc::UnboundedSender<Input>,
    stats: Arc<Stats>,
    host: Option<Arc<str>>,
) {
    // `&Stream` reads and writes; the socket closes when both holders are gone.
    let stream = Arc::new(stream);
    let (out_tx, out_rx) = mpsc::unbounded_channel::<Outgoing>();
    let mut writer = Writer::new(out_rx);
    // Filled with zeros when made, once per connection: 16 KiB, not the 64 KiB that showed in a
    // profile of a burst; a longer line takes a few reads.
    let mut reader = BufReader::with_capacity(16 * 1024, &*stream);
    let mut buf = Vec::new();
    let mut closed_by_us = false;
    loop {
        let read = tokio::select! {
            r = read_bounded_line(&mut reader, &mut buf, MAX_LINE) => r,
            // The core closed this connection (nobody to ask, or a refusal).
            _ = out_tx.closed() => break,
        };
        match read {
            Ok(LineRead::Line) => {}
            Ok(LineRead::Eof) => break,
            Ok(LineRead::TooLong) => {
                stats.oversized.fetch_add(1, Ordering::Relaxed);
                tracing::warn!("connection {conn}: a line over {MAX_LINE} bytes; closing it");
                closed_by_us = true;
                break;
            }
            Err(e) => {
                tracing::warn!("connection {conn}: read failed: {e}");
                break;
            }
        }
        if buf.is_empty() {
            continue;
        }
        match read_line(&buf) {
            ReadLine::Message(Message::Event(mut event)) => {
                if event.wants_reply && peer_gone(&mut reader).await {
                    // The hook gave up before its request was read (the app was frozen or
                    // busy): the event still counts for the flock, but nobody is waiting for
                    // an answer, so none is decided, shown as a card, or audited.
                    eprintln!(
                        "vults: connection {conn}: the hook left before its request was read; \
                         not answered"
                    );
                    event.wants_reply = false;
                }
                // read_line left the tool's response out of an event that waits for no
                // reply; one the peer has left no longer waits for one.
                event.drop_unread_response();
                if let Some(host) = &host {
                    tag_host(&mut event, host);
                }
                if event.wants_reply {
                    writer.start(&stream, &core);
                }
                if core
                    .send(Input::Event {
                        conn,
                        event: Box::new(event),
                        reply: out_tx.clone(),
                    })
                    .is_err()
                {
                    break;
                }
            }
            ReadLine::Message(other) => {
                // Only the engine's API answers a card: a hook (or anything that reached the
                // socket) sending an answer is refused and cut off.
                stats.malformed.fetch_add(1, Ordering::Relaxed);
                let _ = core.send(Input::Notice(crate::messages::Notice::RefusedMessage {
                    kind: kind_of(&other).to_string(),
                }));
                closed_by_us = true;
                break;
            }
            ReadLine::OtherVersion { id, v } => {
                stats.unsupported.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(
                    "connection {conn}: protocol version {} is not {}; answered unsupported",
                    v.map(|v| v.to_string()).unwrap_or_else(|| "(none)".into()),
                    vults_core::protocol::VERSION
                );
                writer.start(&stream, &core);
                let _ = out_tx.send(Outgoing::Line(Box::new(Message::unsupported(&id))));
            }
            ReadLine::Malformed(why) => {
                stats.malformed.fetch_add(1, Ordering::Relaxed);
                tracing::warn!("connection {conn}: malformed line ({why}); closing it");
                closed_by_us = true;
                break;
            }
        }
    }
    match writer.task {
        Some(task) => {
            let _ = core.send(Input::Closed(conn));
            if closed_by_us {
                let _ = out_tx.send(Outgoing::Close);
            }
            drop(out_tx);
            // The writer ends once the core has dropped this connection's reply handles
            // (Closed above withdraws its cards) and everything queued is written.
            let _ = task.await;
        }
        // Without a writer the core holds no card of this connection to withdraw, and the
        // socket closes as the task ends. Should an answer have been queued all the same, it
        // is audited as undelivered, as the writer would have; one sent later fails, and the
        // core audits that one so.
        None => {
            if let Some(out_rx) = writer.idle {
                undelivered(out_rx, &core);
            }
        }
    }
}

/// This connection's writer: started by the first event that waits for a reply (or the first
/// line the connection itself answers), so the many that wait for none (a PostToolUse, a Stop)
/// cost no second task, no wake of it when the core lets go, and no `Closed` to the core.
struct Writer {
    /// The channel's end while the writer is not started (the core sends only to an event
    /// that wants a reply).
    idle: Option<mpsc::UnboundedReceiver<Outgoing>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Writer {
    fn new(out_rx: mpsc::UnboundedReceiver<Outgoing>) -> Writer {
        Writer {
            idle: Some(out_rx),
            task: None,
        }
    }

    fn start(&mut self, stream: &Arc<Stream>, core: &mpsc::UnboundedSender<Input>) {
        if let Some(out_rx) = self.idle.take() {
            self.task = Some(tokio::spawn(write_loop(
                stream.clone(),
                out_rx,
                core.clone(),
            )));
        }
    }
}

/// Closes the channel and audits each answer still queued in it as undelivered.
fn undelivered(
    mut out_rx: mpsc::UnboundedReceiver<Outgoing>,
    to_core: &mpsc::UnboundedSender<Input>,
) {
    out_rx.close();
    while let Ok(out) = out_rx.try_recv() {
        if let Outgoing::Answer(_, entry) = out {
            let _ = to_core.send(Input::Delivered {
                entry,
                delivered: false,
            });
        }
    }
}

/// Writes what the core sends this connection until it says close or lets go.
async fn write_loop(
    stream: Arc<Stream>,
    mut out_rx: mpsc::UnboundedReceiver<Outgoing>,
    to_core: mpsc::UnboundedSender<Input>,
) {
    let mut send = &*stream;
    while let Some(out) = out_rx.recv().await {
        match out {
            Outgoing::Line(msg) => {
                if send.write_all(msg.to_line().as_bytes()).await.is_err() {
                    break;
                }
            }
            Outgoing::Answer(msg, entry) => {
                // A hook that gave up has closed its end: the write fails (EPIPE) and the
                // answer is audited as undelivered.
                let delivered = send.write_all(msg.to_line().as_bytes()).await.is_ok()
                    && send.flush().await.is_ok();
                let _ = to_core.send(Input::Delivered { entry, delivered });
                if !delivered {
                    break;
                }
            }
            Outgoing::Close => break,
        }
    }
    // Answers still queued never reach anyone: say so rather than drop their lines.
    undelivered(out_rx, &to_core);
}

/// Whether the peer has already closed, without waiting: a zero-length read available at once.
/// Data after the line (nothing a hook sends) or nothing yet both mean it is still there.
async fn peer_gone<R: AsyncBufRead + Unpin>(r: &mut R) -> bool {
    match tokio::time::timeout(std::time::Duration::ZERO, r.fill_buf()).await {
        Ok(Ok(rest)) => rest.is_empty(),
        Ok(Err(_)) => true,
        Err(_) => false,
    }
}

fn kind_of(m: &Message) -> &'static str {
    match m {
        Message::Event(_) => "event",
        Message::Waiting { .. } => "waiting",
        Message::Decision { .. } => "decision",
        Message::Answer { .. } => "answer",
        Message::Unsupported { .. } => "unsupported",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One connection served by [`serve`] with the test as the core: the line a client sends,
    /// and every input the core is handed, until the connection's task and writer let go.
    /// `hold` keeps the client's end open until the core has the event (a hook waiting for
    /// its answer) and closes it after.
    #[cfg(unix)]
    async fn inputs_of(line: &'static str, hold: bool) -> Vec<String> {
        use interprocess::local_socket::traits::tokio::Listener as _;
        use tokio::io::AsyncWriteExt as _;
        let dir = std::env::temp_dir().join(format!(
            "vults-conn-{}-{}",
            std::process::id(),
            crate::runtime::new_conn_id()
        ));
        let path = dir.join("s.sock");
        let listener = crate::socket::listen(&path, &dir).unwrap();
        let (core_tx, mut core_rx) = mpsc::unbounded_channel();
        let (done_tx, done_rx) = tokio::sync::oneshot::channel::<()>();
        let client = tokio::spawn(async move {
            let mut c = crate::socket::connect(&path).await.unwrap();
            c.write_all(line.as_bytes()).await.unwrap();
            if hold {
                let _ = done_rx.await;
            }
        });
        let stream = listener.accept().await.unwrap();
        let server = tokio::spawn(serve(
            crate::runtime::new_conn_id(),
            stream,
            core_tx,
            Arc::new(Stats::default()),
            None,
        ));
        let mut seen = Vec::new();
        let mut done_tx = Some(done_tx);
        while let Some(input) = core_rx.recv().await {
            seen.push(match input {
                Input::Event { event, .. } => {
                    // The event and its reply handle are let go; the client may now leave.
                    if let Some(done) = done_tx.take() {
                        let _ = done.send(());
                    }
                    format!("event wants_reply={}", event.wants_reply)
                }
                Input::Closed(_) => "closed".to_string(),
                _ => "other".to_string(),
            });
        }
        server.await.unwrap();
        client.await.unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        seen
    }

    /// A connection whose events wait for no reply (most of them: a PostToolUse, a Stop) starts
    /// no writer and tells the core nothing when it closes; one that waited for an answer does,
    /// so its card is withdrawn.
    #[cfg(unix)]
    #[tokio::test]
    async fn only_a_connection_that_waited_for_an_answer_tells_the_core_it_closed() {
        let event = r#"{"kind":"event","v":9,"id":"e1","agent":"claude","event":"PostToolUse","wants_reply":false,"payload":{"session_id":"s1"}}
"#;
        assert_eq!(
            inputs_of(event, false).await,
            ["event wants_reply=false"],
            "no Closed for a connection the core holds nothing of"
        );
        let request = r#"{"kind":"event","v":9,"id":"e2","agent":"claude","event":"PermissionRequest","wants_reply":true,"payload":{"session_id":"s1"}}
"#;
        assert_eq!(
            inputs_of(request, true).await,
            ["event wants_reply=true", "closed"],
            "a request's connection says it closed"
        );
    }

    #[tokio::test]
    async fn lines_are_read_one_at_a_time_and_a_long_one_is_refused_early() {
        let data = b"one\ntwo\n".to_vec();
        let mut r = BufReader::with_capacity(4, data.as_slice());
        let mut buf = Vec::new();
        assert_eq!(
            read_bounded_line(&mut r, &mut buf, 16).await.unwrap(),
            LineRead::Line
        );
        assert_eq!(buf, b"one");
        assert_eq!(
            read_bounded_line(&mut r, &mut buf, 16).await.unwrap(),
            LineRead::Line
        );
        assert_eq!(buf, b"two");
        assert_eq!(
            read_bounded_line(&mut r, &mut buf, 16).await.unwrap(),
            LineRead::Eof
        );

        // Exactly at the limit (newline included) passes; one byte more does not, and the
        // buffer never holds more than the limit.
        let ok = [vec![b'x'; 15], b"\n".to_vec()].concat();
        let mut r = BufReader::with_capacity(4, ok.as_slice());
        assert_eq!(
            read_bounded_line(&mut r, &mut buf, 16).await.unwrap(),
            LineRead::Line
        );
        let long = vec![b'x'; 1000];
        let mut r = BufReader::with_capacity(4, long.as_slice());
        assert_eq!(
            read_bounded_line(&mut r, &mut buf, 16).await.unwrap(),
            LineRead::TooLong
        );
        assert!(buf.len() <= 16);
    }
}
