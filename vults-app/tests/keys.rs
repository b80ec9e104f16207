//! Global keys in the real app under `Xvfb` and openbox: another window (an xterm) has the
//! focus, `xdotool key` types the chord, the app's X11 grab sees it. The first press brings the
//! card up (its window gets the focus), a second allows it (the real hook prints the allow), and
//! a destructive card ignores the Allow key. Needs openbox, xterm and xdotool besides `Xvfb`;
//! with `VULTS_DESKTOP_TESTS=1` a missing one is a failure, otherwise the test says why it
//! skipped.

use super::support::{
    Xvfb, app_with, claude_bash, desktop_tools, log_text, reply_within, wait_until, x,
};
use serde_json::json;
use std::time::Duration;
use vults_tests::desktop::{Kids, command, display_env, openbox};

fn xdotool(display: &str, args: &[&str]) -> String {
    x(display, "xdotool", args)
}

/// The focused window's name.
fn focused(display: &str) -> String {
    xdotool(display, &["getwindowfocus", "getwindowname"])
}

#[test]
fn a_global_key_brings_the_card_up_a_second_allows_it_and_never_a_destructive_one() {
    let Some(x) = Xvfb::start("global keys") else {
        return;
    };
    if !desktop_tools("global keys", &["openbox", "xterm", "xdotool"]) {
        return;
    }
    let d = x.display.clone();
    let mut kids = Kids::default();
    let env = display_env(&d);
    openbox(&mut kids, &env);
    kids.spawn(command(&env, "xterm").args(["-T", "other-window", "-geometry", "80x24+10+400"]));
    let mut xterm = String::new();
    assert!(
        wait_until(20, || {
            xterm = xdotool(&d, &["search", "--name", "^other-window$"]);
            !xterm.is_empty()
        }),
        "no xterm"
    );
    let xterm = xterm.lines().next().unwrap().to_string();
    let focus_xterm = || {
        xdotool(&d, &["windowactivate", "--sync", &xterm]);
        assert!(
            wait_until(10, || focused(&d) == "other-window"),
            "the xterm has not the focus: {:?}",
            focused(&d)
        );
    };

    let home = vults_tests::TempHome::new("keys");
    let _app = app_with(
        &home.dir,
        &d,
        json!({"welcome": {"shown": true}, "attention": {"keys": {"enabled": true}}}),
    );
    assert!(
        wait_until(60, || log_text(&home.dir).contains("global keys bound")),
        "the keys were not bound:\n{}",
        log_text(&home.dir)
    );

    let mut hook = claude_bash(&home.dir, "s-keys", "cargo fmt --check");
    assert!(
        wait_until(30, || !xdotool(
            &d,
            &["search", "--name", "^Vults: Claude Code"]
        )
        .is_empty()),
        "no card window:\n{}",
        log_text(&home.dir)
    );
    focus_xterm();
    xdotool(&d, &["key", "ctrl+alt+y"]);
    assert!(
        wait_until(10, || log_text(&home.dir)
            .contains("global key: brought up card")),
        "the first press did not bring the card up:\n{}",
        log_text(&home.dir)
    );
    assert!(
        wait_until(30, || focused(&d).starts_with("Vults: Claude Code")),
        "the card did not come up in front: {:?} has the focus",
        focused(&d)
    );
    assert_eq!(
        reply_within(&mut hook, 1),
        None,
        "the first press answered a card the person had not been shown"
    );
    focus_xterm();
    std::thread::sleep(Duration::from_millis(600));
    xdotool(&d, &["key", "ctrl+alt+y"]);
    let reply = reply_within(&mut hook, 20).expect("the second press answers the card");
    let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(
        reply,
        json!({"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}})
    );
    assert!(
        wait_until(10, || log_text(&home.dir)
            .contains("global key: allowed card")),
        "{}",
        log_text(&home.dir)
    );
    let log = vults_core::paths::Paths::resolve(|k| (k == "VULTS_HOME").then(|| home.dir.clone()))
        .audit_log();
    let mut audit = String::new();
    assert!(
        wait_until(10, || {
            audit = std::fs::read_to_string(&log).unwrap_or_default();
            audit.contains(r#""by":"key:global""#)
        }),
        "History does not say a global key answered: {audit}"
    );
    assert!(
        wait_until(10, || xdotool(
            &d,
            &["search", "--name", "^Vults: Claude Code"]
        )
        .is_empty()),
        "the answered card's window stays"
    );

    // A destructive card: the Allow key, pressed and pressed again, never answers it.
    let mut rm = claude_bash(&home.dir, "s-keys", "rm -rf build");
    assert!(
        wait_until(30, || !xdotool(
            &d,
            &["search", "--name", "^Vults: Claude Code"]
        )
        .is_empty()),
        "no destructive card:\n{}",
        log_text(&home.dir)
    );
    for _ in 0..3 {
        focus_xterm();
        xdotool(&d, &["key", "ctrl+alt+y"]);
        std::thread::sleep(Duration::from_millis(600));
    }
    assert_eq!(
        reply_within(&mut rm, 2),
        None,
        "the Allow key answered a destructive card"
    );
    assert!(
        log_text(&home.dir).contains("is answered on its card (destructive"),
        "{}",
        log_text(&home.dir)
    );
    // Deny may: it brings the card up first, then denies.
    focus_xterm();
    xdotool(&d, &["key", "ctrl+alt+n"]);
    std::thread::sleep(Duration::from_millis(600));
    focus_xterm();
    xdotool(&d, &["key", "ctrl+alt+n"]);
    let reply = reply_within(&mut rm, 20).expect("the Deny key answers it");
    let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(
        reply["hookSpecificOutput"]["decision"]["behavior"], "deny",
        "{reply}"
    );
}
