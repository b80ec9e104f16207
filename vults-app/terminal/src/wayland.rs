//! Wayland compositors that let an app raise a window: sway (its i3-compatible IPC), Hyprland
//! (its command socket) and KDE Plasma (a KWin script over D-Bus). GNOME and the rest offer no
//! such interface; the plan says so before getting here.

use crate::outcome::{Failure, FailureKind};
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;
use vults_i18n::Message;

const IO_TIMEOUT: Duration = Duration::from_secs(3);

/// One i3/sway IPC message: `i3-ipc`, the payload's length and the message type (native byte
/// order), then the payload.
pub(crate) fn i3_message(kind: u32, payload: &str) -> Vec<u8> {
    let mut m = b"i3-ipc".to_vec();
    m.extend_from_slice(&(payload.len() as u32).to_ne_bytes());
    m.extend_from_slice(&kind.to_ne_bytes());
    m.extend_from_slice(payload.as_bytes());
    m
}

/// A RUN_COMMAND reply: `[{"success":true}]`, or the compositor's error.
pub(crate) fn i3_outcome(reply: &[u8]) -> Result<(), String> {
    let v: serde_json::Value =
        serde_json::from_slice(reply).map_err(|e| format!("unreadable reply: {e}"))?;
    let first = v.get(0).ok_or("empty reply")?;
    if first.get("success").and_then(serde_json::Value::as_bool) == Some(true) {
        Ok(())
    } else {
        Err(first
            .get("error")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("refused")
            .to_string())
    }
}

/// sway: `[pid=N] focus`.
pub(crate) fn sway(socket: &Path, pid: u32) -> Result<(), Failure> {
    let fail = |e: String| Failure::tool(FailureKind::Failed, "sway", e);
    let mut s = UnixStream::connect(socket).map_err(|e| fail(e.to_string()))?;
    s.set_read_timeout(Some(IO_TIMEOUT)).ok();
    s.set_write_timeout(Some(IO_TIMEOUT)).ok();
    s.write_all(&i3_message(0, &format!("[pid={pid}] focus")))
        .map_err(|e| fail(e.to_string()))?;
    let mut header = [0u8; 14];
    s.read_exact(&mut header).map_err(|e| fail(e.to_string()))?;
    if &header[..6] != b"i3-ipc" {
        return Err(fail("not an i3-ipc reply".into()));
    }
    let len = u32::from_ne_bytes([header[6], header[7], header[8], header[9]]) as usize;
    if len > 1 << 20 {
        return Err(fail("reply too long".into()));
    }
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).map_err(|e| fail(e.to_string()))?;
    i3_outcome(&body).map_err(|e| {
        Failure::new(
            FailureKind::NotFound,
            Message::new("terminal-failure-sway-no-window")
                .arg("pid", pid)
                .arg("error", crate::outcome::one_line(&e.to_string())),
        )
    })
}

/// Hyprland: `dispatch focuswindow pid:N` on the first of its sockets that exists.
pub(crate) fn hyprland(sockets: &[PathBuf], pid: u32) -> Result<(), Failure> {
    let socket = sockets.iter().find(|s| s.exists()).ok_or_else(|| {
        Failure::new(
            FailureKind::Failed,
            Message::new("terminal-failure-hyprland-no-socket"),
        )
    })?;
    let fail = |e: String| Failure::tool(FailureKind::Failed, "Hyprland", e);
    let mut s = UnixStream::connect(socket).map_err(|e| fail(e.to_string()))?;
    s.set_read_timeout(Some(IO_TIMEOUT)).ok();
    s.write_all(format!("dispatch focuswindow pid:{pid}").as_bytes())
        .map_err(|e| fail(e.to_string()))?;
    let mut reply = String::new();
    let _ = s.take(4096).read_to_string(&mut reply);
    if reply.trim() == "ok" {
        Ok(())
    } else {
        Err(Failure::new(
            FailureKind::NotFound,
            Message::new("terminal-failure-hyprland-no-focus")
                .arg("pid", pid)
                .arg("reply", crate::outcome::one_line(&reply)),
        ))
    }
}

/// The KWin script could not be written: "KWin script: <the system's error>".
fn kwin_script_failed(e: impl std::fmt::Display) -> Message {
    Message::new("terminal-failure-kwin-script")
        .arg("error", crate::outcome::one_line(&e.to_string()))
}

/// The KWin script that activates the window of `pid` (Plasma 6's `windowList` and
/// `activeWindow`, Plasma 5's `clientList` and `activeClient`).
pub(crate) fn kwin_script(pid: u32) -> String {
    format!(
        "const pid = {pid};\n\
         const list = workspace.windowList ? workspace.windowList() : workspace.clientList();\n\
         for (const w of list) {{\n\
         \x20   if (w.pid === pid) {{\n\
         \x20       if ('activeWindow' in workspace) workspace.activeWindow = w;\n\
         \x20       else workspace.activeClient = w;\n\
         \x20       break;\n\
         \x20   }}\n\
         }}\n"
    )
}

/// KDE Plasma: load the script into KWin over D-Bus (`dbus-send`), run it, unload it.
pub(crate) fn kwin(pid: u32) -> Result<(), Failure> {
    let dbus_send = crate::run::find_program("dbus-send").ok_or_else(|| {
        Failure::new(
            FailureKind::Forbidden,
            Message::new("terminal-failure-kwin-no-dbus-send"),
        )
    })?;
    // The session's private runtime folder (0700), never a shared /tmp path.
    let run = std::env::var_os("XDG_RUNTIME_DIR").ok_or_else(|| {
        Failure::new(
            FailureKind::Failed,
            Message::new("terminal-failure-kwin-no-runtime-dir"),
        )
    })?;
    let dir = Path::new(&run).join(format!("vults-kwin-{}", std::process::id()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| Failure::new(FailureKind::Failed, kwin_script_failed(e)))?;
    let file = dir.join(format!("show-{pid}.js"));
    std::fs::write(&file, kwin_script(pid))
        .map_err(|e| Failure::new(FailureKind::Failed, kwin_script_failed(e)))?;
    let name = format!("vults-show-{pid}");
    let call = |path: &str, method: &str, args: &[String]| {
        let mut a = vec![
            "--session".to_string(),
            "--print-reply".to_string(),
            "--dest=org.kde.KWin".to_string(),
            path.to_string(),
            method.to_string(),
        ];
        a.extend_from_slice(args);
        crate::run::output(&crate::plan::Cmd {
            program: dbus_send.clone(),
            args: a,
            env: Vec::new(),
        })
    };
    let loaded = call(
        "/Scripting",
        "org.kde.kwin.Scripting.loadScript",
        &[
            format!("string:{}", file.display()),
            format!("string:{name}"),
        ],
    );
    let result = loaded
        .map_err(|e| Failure::new(FailureKind::Failed, crate::outcome::tool_said("KWin", e)))
        .and_then(|out| {
            let id = out
                .split_whitespace()
                .skip_while(|w| *w != "int32")
                .nth(1)
                .and_then(|n| n.parse::<i64>().ok())
                .ok_or_else(|| {
                    Failure::new(
                        FailureKind::Failed,
                        Message::new("terminal-failure-kwin-not-loaded"),
                    )
                })?;
            // Plasma 6 names the script /Scripting/Script<N>, Plasma 5 /<N>.
            call(
                &format!("/Scripting/Script{id}"),
                "org.kde.kwin.Script.run",
                &[],
            )
            .or_else(|_| call(&format!("/{id}"), "org.kde.kwin.Script.run", &[]))
            .map(|_| ())
            .map_err(|e| Failure::new(FailureKind::Failed, crate::outcome::tool_said("KWin", e)))
        });
    let _ = call(
        "/Scripting",
        "org.kde.kwin.Scripting.unloadScript",
        &[format!("string:{name}")],
    );
    let _ = std::fs::remove_dir_all(&dir);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i3_messages_and_replies() {
        let m = i3_message(0, "[pid=42] focus");
        assert_eq!(&m[..6], b"i3-ipc");
        assert_eq!(u32::from_ne_bytes([m[6], m[7], m[8], m[9]]), 14);
        assert_eq!(u32::from_ne_bytes([m[10], m[11], m[12], m[13]]), 0);
        assert_eq!(&m[14..], b"[pid=42] focus");
        assert_eq!(i3_outcome(br#"[{"success":true}]"#), Ok(()));
        assert_eq!(
            i3_outcome(br#"[{"success":false,"error":"No matching node"}]"#),
            Err("No matching node".into())
        );
        assert!(i3_outcome(b"nope").is_err());
    }

    #[test]
    fn a_sway_socket_that_answers_focuses_and_one_that_refuses_says_why() {
        use std::os::unix::net::UnixListener;
        let dir = std::env::temp_dir().join(format!("vults-sway-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("sway.sock");
        let listener = UnixListener::bind(&path).expect("bind");
        let server = std::thread::spawn(move || {
            let mut got = Vec::new();
            for reply in [
                r#"[{"success":true}]"#,
                r#"[{"success":false,"error":"No matching node"}]"#,
            ] {
                let (mut s, _) = listener.accept().expect("accept");
                let mut header = [0u8; 14];
                s.read_exact(&mut header).expect("header");
                let len = u32::from_ne_bytes([header[6], header[7], header[8], header[9]]);
                let mut body = vec![0u8; len as usize];
                s.read_exact(&mut body).expect("body");
                got.push(String::from_utf8(body).expect("utf8"));
                s.write_all(&i3_message(0, reply)).expect("reply");
            }
            got
        });
        assert_eq!(sway(&path, 4242), Ok(()));
        let refused = sway(&path, 4243).expect_err("refused");
        assert_eq!(refused.kind, FailureKind::NotFound);
        assert!(
            refused.message.to_string().contains("No matching node"),
            "{refused}"
        );
        assert_eq!(
            server.join().expect("server"),
            ["[pid=4242] focus", "[pid=4243] focus"]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_kwin_script_names_only_the_pid() {
        let s = kwin_script(4242);
        assert!(s.starts_with("const pid = 4242;"));
        assert!(
            s.contains("workspace.activeWindow = w") && s.contains("workspace.activeClient = w")
        );
    }
}
