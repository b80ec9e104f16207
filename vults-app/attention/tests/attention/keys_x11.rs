//! Global keys under Xvfb: another window (an xterm under openbox) has the focus, `xdotool key`
//! types the chord, the grab sees it, and the gate turns it into intents. Needs Xvfb, openbox,
//! xterm and xdotool: skipped without them unless `VULTS_DESKTOP_TESTS=1`, which requires them.

use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use vults_attention::keys::{
    Gate, GateCard, GlobalKeys, Ignored, Intent, KeyAction, KeysBackend, KeysEvent, KeysSettings,
    KeysTarget, Outcome,
};

/// Processes of the test's own, killed on drop (the last started first).
struct Desktop {
    display: String,
    children: Vec<Child>,
}

impl Drop for Desktop {
    fn drop(&mut self) {
        for c in self.children.iter_mut().rev() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn have(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
}

fn xdotool(display: &str, args: &[&str]) -> String {
    let out = Command::new("xdotool")
        .args(args)
        .env("DISPLAY", display)
        .output()
        .expect("xdotool runs");
    assert!(
        out.status.success(),
        "xdotool {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Xvfb, openbox, and an xterm with the focus.
fn desktop(test: &str) -> Option<(Desktop, String)> {
    let required = std::env::var("VULTS_DESKTOP_TESTS").is_ok_and(|v| v == "1");
    let missing: Vec<&str> = ["Xvfb", "openbox", "xterm", "xdotool"]
        .into_iter()
        .filter(|t| !have(t))
        .collect();
    if !missing.is_empty() {
        assert!(
            !required,
            "{test}: VULTS_DESKTOP_TESTS=1 but {missing:?} not installed"
        );
        eprintln!("{test}: skipped, needs {missing:?}");
        return None;
    }
    let mut d = Desktop {
        display: String::new(),
        children: Vec::new(),
    };
    for attempt in 0..20u32 {
        let n = 600 + (std::process::id() % 300) + attempt * 7;
        if std::path::Path::new(&format!("/tmp/.X{n}-lock")).exists() {
            continue;
        }
        let mut x = Command::new("Xvfb")
            .args([
                &format!(":{n}"),
                "-screen",
                "0",
                "1024x768x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb starts");
        let socket = format!("/tmp/.X11-unix/X{n}");
        let up = (0..100).any(|_| {
            std::thread::sleep(Duration::from_millis(50));
            std::path::Path::new(&socket).exists() || x.try_wait().ok().flatten().is_some()
        }) && x.try_wait().ok().flatten().is_none();
        if up {
            d.display = format!(":{n}");
            d.children.push(x);
            break;
        }
        let _ = x.kill();
        let _ = x.wait();
    }
    assert!(!d.display.is_empty(), "{test}: Xvfb did not start");
    let spawn = |cmd: &str, args: &[&str]| {
        Command::new(cmd)
            .args(args)
            .env("DISPLAY", &d.display)
            .env_remove("WAYLAND_DISPLAY")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{cmd} starts: {e}"))
    };
    let openbox = spawn("openbox", &["--sm-disable"]);
    let xterm = spawn("xterm", &["-title", "focused-terminal"]);
    d.children.push(openbox);
    d.children.push(xterm);
    let window = xdotool(
        &d.display,
        &["search", "--sync", "--name", "focused-terminal"],
    );
    let window = window.lines().next().unwrap_or_default().to_string();
    // openbox gives focus on its own once it manages the window; ask for it and wait.
    let deadline = Instant::now() + Duration::from_secs(10);
    let focused = |display: &str| {
        Command::new("xdotool")
            .arg("getwindowfocus")
            .env("DISPLAY", display)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default()
    };
    while focused(&d.display) != window {
        assert!(
            Instant::now() < deadline,
            "{test}: the xterm never got the focus"
        );
        let _ = Command::new("xdotool")
            .args(["windowactivate", &window])
            .env("DISPLAY", &d.display)
            .output();
        std::thread::sleep(Duration::from_millis(100));
    }
    Some((d, window))
}

fn ready(rx: &Receiver<KeysEvent>) -> Vec<(KeyAction, String)> {
    match rx.recv_timeout(Duration::from_secs(5)) {
        Ok(KeysEvent::Ready { backend, bindings }) => {
            assert_eq!(backend, KeysBackend::X11);
            bindings
        }
        other => panic!("keys not ready: {other:?}"),
    }
}

/// Types `chord` into the focused window's display and returns the action the grab saw.
fn press(d: &Desktop, rx: &Receiver<KeysEvent>, chord: &str) -> KeyAction {
    xdotool(&d.display, &["key", chord]);
    match rx.recv_timeout(Duration::from_secs(5)) {
        Ok(KeysEvent::Pressed(a)) => a,
        other => panic!("{chord}: not seen by the grab: {other:?}"),
    }
}

fn enabled() -> KeysSettings {
    KeysSettings {
        enabled: true,
        ..KeysSettings::default()
    }
}

#[test]
fn global_keys_bring_the_card_up_then_allow_it_but_never_a_destructive_one() {
    let Some((d, window)) = desktop("global_keys") else {
        return;
    };
    let target = KeysTarget::X11 {
        display: Some(d.display.clone()),
    };
    let (keys, rx) = GlobalKeys::start(&enabled(), target.clone(), None).expect("keys bound");
    assert_eq!(
        ready(&rx),
        [
            (KeyAction::ShowNewest, "Ctrl+Alt+V".to_string()),
            (KeyAction::Allow, "Ctrl+Alt+Y".to_string()),
            (KeyAction::Deny, "Ctrl+Alt+N".to_string()),
        ]
    );

    // A safe card: the first Allow press brings it up, the second allows it.
    let mut gate = Gate::new();
    gate.set_newest(Some(GateCard {
        card: 1,
        destructive: false,
    }));
    let a = press(&d, &rx, "ctrl+alt+y");
    assert_eq!(a, KeyAction::Allow);
    assert_eq!(
        gate.press(a, Instant::now()),
        Outcome::Intent(Intent::ShowNewest(1))
    );
    gate.shown(1, Instant::now()); // the window put it in front
    std::thread::sleep(Gate::MIN_SECOND_PRESS + Duration::from_millis(200));
    let a = press(&d, &rx, "ctrl+alt+y");
    assert_eq!(
        gate.press(a, Instant::now()),
        Outcome::Intent(Intent::Allow(1))
    );
    assert_eq!(
        xdotool(&d.display, &["getwindowfocus"]),
        window,
        "the xterm kept the focus"
    );

    // A destructive card: the Allow key is ignored, shown or not; Deny still answers.
    gate.set_newest(Some(GateCard {
        card: 2,
        destructive: true,
    }));
    let a = press(&d, &rx, "ctrl+alt+y");
    assert_eq!(
        gate.press(a, Instant::now()),
        Outcome::Ignored(Ignored::Destructive(2))
    );
    let s = press(&d, &rx, "ctrl+alt+v");
    assert_eq!(s, KeyAction::ShowNewest);
    assert_eq!(
        gate.press(s, Instant::now()),
        Outcome::Intent(Intent::ShowNewest(2))
    );
    gate.shown(2, Instant::now());
    std::thread::sleep(Gate::MIN_SECOND_PRESS + Duration::from_millis(200));
    let a = press(&d, &rx, "ctrl+alt+y");
    assert_eq!(
        gate.press(a, Instant::now()),
        Outcome::Ignored(Ignored::Destructive(2))
    );
    let n = press(&d, &rx, "ctrl+alt+n");
    assert_eq!(n, KeyAction::Deny);
    assert_eq!(
        gate.press(n, Instant::now()),
        Outcome::Intent(Intent::Deny(2))
    );

    // Caps Lock on: the chord still works.
    xdotool(&d.display, &["key", "Caps_Lock"]);
    assert_eq!(press(&d, &rx, "ctrl+alt+v"), KeyAction::ShowNewest);
    xdotool(&d.display, &["key", "Caps_Lock"]);

    // A plain key, or the chord with Shift, is not ours.
    xdotool(&d.display, &["key", "y", "ctrl+alt+shift+y"]);
    assert!(rx.recv_timeout(Duration::from_millis(500)).is_err());

    // While bound, another program cannot take the same chords; once dropped, it can.
    let taken = GlobalKeys::start(&enabled(), target.clone(), None).unwrap_err();
    assert!(taken.contains("is taken by another program"), "{taken}");
    drop(keys);
    let (_again, rx) = GlobalKeys::start(&enabled(), target, None).expect("free again");
    ready(&rx);
    assert_eq!(press(&d, &rx, "ctrl+alt+n"), KeyAction::Deny);
}
