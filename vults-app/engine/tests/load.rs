//! Load: many hooks at once lose nothing, and a client stuck in the middle of a line delays
//! nobody.

use crate::common::*;
use serde_json::json;
use std::io::Write;
use std::time::Instant;
use vults_core::protocol::VERSION;

const CLIENTS: usize = 64;
const EVENTS: usize = 20_000;

#[test]
fn sixty_four_concurrent_hooks_send_20000_events_and_none_is_lost() {
    let home = Home::new("load");
    let engine = start(&home, false);
    let socket = home.paths().socket;

    let mut stuck = Client::connect(&socket);
    stuck
        .stream
        .write_all(
            format!(r#"{{"kind":"event","v":{VERSION},"id":"half","agent":"claude","#).as_bytes(),
        )
        .unwrap();

    let started = Instant::now();
    let workers: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let socket = socket.clone();
            std::thread::spawn(move || {
                // Like real hooks: one connection per event.
                for i in (c..EVENTS).step_by(CLIENTS) {
                    let mut client = Client::connect(&socket);
                    client.send(&event_line(
                        &format!("{c}-{i}"),
                        "claude",
                        "PostToolUse",
                        false,
                        json!({"session_id": format!("load-{c}"), "tool_name":"Bash","tool_input":{"command": format!("echo {i}")}}),
                    ));
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    eventually("every event to reach the engine", || {
        engine.stats().events >= EVENTS as u64
    });
    let secs = started.elapsed().as_secs_f64();
    let stats = engine.stats();
    eprintln!(
        "load: {EVENTS} events from {CLIENTS} clients in {secs:.2} s ({:.0}/s, debug build)",
        EVENTS as f64 / secs
    );
    assert_eq!(stats.events, EVENTS as u64, "none lost, none doubled");
    assert_eq!(
        stats.sessions, CLIENTS as u64,
        "one bird per client's session"
    );
    assert_eq!(stats.accepted, EVENTS as u64 + 1);
    assert_eq!(stats.malformed + stats.oversized, 0);

    // The stuck client was never cut off, and finishing its line works.
    stuck
        .stream
        .write_all(br#""event":"Stop","wants_reply":false,"payload":{"session_id":"late"}}"#)
        .unwrap();
    stuck.stream.write_all(b"\n").unwrap();
    eventually("the stuck client's event", || {
        engine.stats().events == EVENTS as u64 + 1
    });
}
