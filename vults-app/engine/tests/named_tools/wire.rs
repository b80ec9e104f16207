//! What a named tool sees at the edges of the contract: an old hook (a version-8 event) is
//! answered `unsupported`, a hook that is told `unsupported` prints nothing (so the tool asks
//! on its own), and a built-in agent's name with `--reply vults` is refused without waiting.

use super::support::*;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use vults_core::protocol::VERSION;
use vults_engine::messages::CardAnswer;

fn read_json_line(r: &mut impl BufRead) -> Option<serde_json::Value> {
    let mut line = String::new();
    match r.read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(serde_json::from_str(&line).expect("a JSON line")),
    }
}

#[test]
fn an_old_hook_event_is_answered_unsupported_and_makes_no_card() {
    let home = Home::new("old");
    let engine = start_engine(&home);
    let mut w = Watch::new(&engine);

    // A hook of protocol version 8, as a named tool with an old hook copy would send it.
    let stream = UnixStream::connect(engine.socket()).expect("connect");
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let old = serde_json::json!({
        "kind": "event", "v": 8, "id": "old-1", "agent": "other", "agent_name": "tool-a",
        "event": "PermissionRequest", "wants_reply": true,
        "terminal": {"cwd": home.project, "pid": 4242},
        "payload": serde_json::from_str::<serde_json::Value>(
            &bash_request("s-old", &home.project, "make old")).unwrap(),
    });
    (&stream).write_all(format!("{old}\n").as_bytes()).unwrap();
    let reply = read_json_line(&mut reader).expect("the app answers an old event");
    assert_eq!(reply["kind"], "unsupported", "{reply}");
    assert_eq!(reply["id"], "old-1", "{reply}");
    assert_eq!(reply["v"], 9, "{reply}");
    drop(reader);
    drop(stream);

    // The next card is the current hook's request, not the old one.
    let p = hook(
        &home,
        &["--agent", "tool-a", "--reply", "vults", "PermissionRequest"],
        &bash_request("s-new", &home.project, "make new"),
    );
    let card = w.card("tool-a");
    assert_eq!(card.call.target.rule_key(), "make new");
    w.answer(&card, CardAnswer::Deny);
    assert_eq!(hook_done(p).out(), DENY_VULTS);
    assert_eq!(engine.stats().unsupported, 1);
}

/// A scripted app: answers every event `unsupported` and then, on the same connection, an
/// `allow` for the same id — which a hook must ignore, having been told `unsupported`.
fn unsupported_app(home: &Home) -> std::thread::JoinHandle<usize> {
    let socket = home.paths().socket;
    let dir = socket.parent().unwrap();
    std::fs::create_dir_all(dir).unwrap();
    std::fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let listener = UnixListener::bind(&socket).unwrap();
    listener.set_nonblocking(false).unwrap();
    std::thread::spawn(move || {
        let mut served = 0;
        // Two clients: the bare hook, then the shell example's hook.
        for stream in listener.incoming().take(2) {
            let stream = stream.unwrap();
            stream.set_read_timeout(Some(PATIENCE)).unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let Some(event) = read_json_line(&mut reader) else {
                continue;
            };
            assert_eq!(event["v"], 9, "the hook speaks version 9: {event}");
            assert_eq!(event["reply"], "vults", "{event}");
            let id = event["id"].as_str().unwrap().to_string();
            let mut w = &stream;
            let _ = w.write_all(
                format!("{{\"kind\":\"unsupported\",\"v\":{VERSION},\"id\":\"{id}\"}}\n")
                    .as_bytes(),
            );
            let _ = w.write_all(
                format!(
                    "{{\"kind\":\"decision\",\"v\":{VERSION},\"id\":\"{id}\",\"decision\":\"allow\"}}\n"
                )
                .as_bytes(),
            );
            // Hold the connection until the hook goes away.
            while read_json_line(&mut reader).is_some() {}
            served += 1;
        }
        served
    })
}

#[test]
fn a_hook_told_unsupported_prints_nothing_and_the_tool_asks_itself() {
    let home = Home::new("unsup");
    let app = unsupported_app(&home);

    let done = hook_done(hook(
        &home,
        &["--agent", "tool-a", "--reply", "vults", "PermissionRequest"],
        &bash_request("s", &home.project, "make"),
    ));
    assert_eq!(done.stdout, "", "unsupported prints nothing: {done:#?}");

    // The shell example, told nothing, asks on its own terminal; "n" → not run.
    let marker = home.project.join("unsupported.txt");
    let mut cmd = home.command("sh");
    cmd.arg(examples_dir().join("named-tool.sh"))
        .arg("touch unsupported.txt")
        .env("VULTS_HOOK", hook_bin())
        .env("VULTS_TOOL_NAME", "tool-a");
    let done = spawn("named-tool.sh (unsupported)", cmd, b"n\n").finish();
    assert!(done.stderr.contains("[y/N]"), "it asks itself: {done:#?}");
    assert_ne!(done.code, Some(0), "{done:#?}");
    assert!(!marker.exists(), "{done:#?}");

    assert_eq!(
        app.join().unwrap(),
        2,
        "both hooks reached the scripted app"
    );
}

#[test]
fn a_builtin_name_with_reply_vults_is_refused_at_once() {
    let home = Home::new("builtin");
    let engine = start_engine(&home);
    let mut w = Watch::new(&engine);
    let accepted = engine.stats().accepted;

    // No answer ever comes from this engine without a click: a hook that connected and waited
    // would be killed at the bound and fail here.
    let done = hook_done(hook(
        &home,
        &["--agent", "claude", "--reply", "vults", "PermissionRequest"],
        &bash_request("s", &home.project, "make claude"),
    ));
    assert_eq!(done.stdout, "", "{done:#?}");
    let lines: Vec<&str> = done.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one stderr line says why: {done:#?}");
    assert!(lines[0].contains("--reply vults"), "{done:#?}");

    // The engine never heard of it: the next connection and card are a named tool's.
    let p = hook(
        &home,
        &["--agent", "tool-a", "--reply", "vults", "PermissionRequest"],
        &bash_request("s", &home.project, "make tool-a"),
    );
    let card = w.card("tool-a");
    assert_eq!(card.call.target.rule_key(), "make tool-a");
    assert_eq!(
        engine.stats().accepted,
        accepted + 1,
        "the refused hook never connected"
    );
    w.answer(&card, CardAnswer::Allow);
    assert_eq!(hook_done(p).out(), ALLOW_VULTS);
}
