//! A card that arrives before the window manager has shown the island. eframe 0.37 paints a
//! root window that is not yet visible outside winit's event loop, where no window can be
//! created: the card's window made egui panic and the app died, with the agent left waiting
//! (seen in CI under load, when openbox took a moment to map the island). Here openbox is
//! stopped (`SIGSTOP`) while the app starts, so the island stays unmapped for as long as the
//! test wants: the app must live through the card's arrival, open the card once openbox runs
//! again, and the card must answer. Needs openbox and xdotool besides `Xvfb`.

use super::support::{
    Xvfb, app_with, claude_bash, desktop_tools, log_text, reply_within, wait_until, x,
};
use serde_json::json;
use std::process::Command;
use std::time::Duration;
use vults_tests::desktop::{Kids, display_env, openbox};

fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "kill {sig} {pid}");
}

#[test]
fn a_card_that_arrives_before_the_island_is_shown_opens_once_it_is() {
    let Some(xvfb) = Xvfb::start("late island") else {
        return;
    };
    if !desktop_tools("late island", &["openbox", "xdotool"]) {
        return;
    }
    let d = xvfb.display.clone();
    let mut kids = Kids::default();
    let env = display_env(&d);
    let wm = openbox(&mut kids, &env);
    // From here on it takes the island's map request and does nothing with it.
    signal(wm, "-STOP");

    let home = vults_tests::TempHome::new("late-island");
    let mut app = app_with(&home.dir, &d, json!({"welcome": {"shown": true}}));
    let mut hook = claude_bash(&home.dir, "s-late", "cargo fmt --check");
    // The card reaches the app in milliseconds; frames go by while the island is unmapped.
    std::thread::sleep(Duration::from_secs(3));
    let exited = app.child.try_wait().unwrap();
    signal(wm, "-CONT");
    assert!(
        exited.is_none() && !log_text(&home.dir).contains("panic"),
        "the app died of a card that came before its island was shown ({exited:?}):\n{}",
        log_text(&home.dir)
    );
    assert_eq!(
        reply_within(&mut hook, 0),
        None,
        "the hook gave up before the card was shown"
    );

    let mut card = String::new();
    assert!(
        wait_until(30, || {
            card = x(&d, "xdotool", &["search", "--name", "^Vults: Claude Code"]);
            !card.is_empty()
        }),
        "the card's window did not open once the island was shown:\n{}",
        log_text(&home.dir)
    );
    let card = card.lines().next().unwrap().to_string();
    // No window manager gives a card the keyboard (crate::viewport's focus contract): a click
    // into it does, as a person's would (XTEST), then a key.
    assert!(
        wait_until(30, || {
            x(
                &d,
                "xdotool",
                &["mousemove", "--window", &card, "40", "12", "click", "1"],
            );
            x(&d, "xdotool", &["getwindowfocus"]) == card
        }),
        "the card never took the keyboard:\n{}",
        log_text(&home.dir)
    );
    // A card's keys take effect once it has been up a moment (its arming, docs/window.md): a
    // press sooner does nothing, so `d` is pressed again until the card answers.
    let mut reply = None;
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while reply.is_none() && std::time::Instant::now() < until {
        x(&d, "xdotool", &["key", "--delay", "0", "d"]);
        reply = reply_within(&mut hook, 1);
    }
    let reply = reply.unwrap_or_else(|| {
        panic!(
            "D on the card answered nothing (focus {}):\n{}",
            x(&d, "xdotool", &["getwindowfocus", "getwindowname"]),
            log_text(&home.dir)
        )
    });
    let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(
        reply["hookSpecificOutput"]["decision"]["behavior"], "deny",
        "{reply}"
    );
}
