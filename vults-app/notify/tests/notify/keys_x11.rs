//! Global keys under Xvfb: another window (an xterm under openbox) has the focus, `xdotool key`
//! types the chord, the grab sees it, and the gate turns it into intents. Needs Xvfb, openbox,
//! xterm and xdotool: skipped without them unless `VULTS_DESKTOP_TESTS=1`, which requires them.

use std::process::Command;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use vults_notify::keys::{
    Gate, GateCard, GlobalKeys, Ignored, Intent, KeyAction, KeysBackend, KeysEvent, KeysSettings,
    KeysTarget, Outcome,
};
use vults_tests::desktop::{Kids, Xvfb, tools};

/// The test's X desktop: its `Xvfb` (dropped last) and what runs on it.
struct Desktop {
    display: String,
    children: Kids,
    _xvfb: Xvfb,
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
    if !tools(test, &["Xvfb", "openbox", "xterm", "xdotool"]) {
        return None;
    }
    let xvfb = Xvfb::start_sized(test, "1024x768x24")?;
    let mut d = Desktop {
        display: xvfb.display.clone(),
        children: Kids::default(),
        _xvfb: xvfb,
    };
    let display = d.display.clone();
    let mut spawn = |cmd: &str, args: &[&str]| {
        d.children.spawn(
            Command::new(cmd)
                .args(args)
                .env("DISPLAY", &display)
                .env_remove("WAYLAND_DISPLAY"),
        );
    };
    spawn("openbox", &["--sm-disable"]);
    spawn("xterm", &["-title", "focused-terminal"]);
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
    let taken = GlobalKeys::start(&enabled(), target.clone(), None)
        .unwrap_err()
        .to_string();
    assert!(taken.contains("is taken by another program"), "{taken}");
    drop(keys);
    let (_again, rx) = GlobalKeys::start(&enabled(), target, None).expect("free again");
    ready(&rx);
    assert_eq!(press(&d, &rx, "ctrl+alt+n"), KeyAction::Deny);
}
