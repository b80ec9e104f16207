//! The notifier sees every card while the window is out of sight: the real app under `Xvfb`
//! and openbox, its notifier on a private session bus whose notification server is the
//! stand-in (`vults_attention::test_support`), and the real hook asking. Once with the main
//! window closed (to the tray: the floating layout starts with it closed, only the island up),
//! once with the one window of the embedded layout minimized. Linux only (D-Bus, openbox); it
//! skips, saying why, without `Xvfb`, openbox, xdotool or dbus-daemon unless
//! `VULTS_DESKTOP_TESTS=1`.

use super::support::{Xvfb, claude_bash, desktop_tools, log_text, wait_until, x};
use serde_json::json;
use vults_attention::test_support::{NotificationServer, SessionBus};
use vults_tests::desktop::{Kids, display_env, openbox};

fn card_notified(layout: &str, hide: impl Fn(&str, &std::path::Path)) {
    let Some(xvfb) = Xvfb::start(&format!("hidden window {layout}")) else {
        return;
    };
    if !desktop_tools("hidden window", &["openbox", "xdotool", "dbus-daemon"]) {
        return;
    }
    let Some(bus) = SessionBus::start(&format!("hidden-{layout}")) else {
        return;
    };
    let server = NotificationServer::start(&bus.address, &["actions", "body"]);
    let d = xvfb.display.clone();
    let mut kids = Kids::default();
    let mut env = display_env(&d);
    openbox(&mut kids, &env);
    let home = vults_tests::TempHome::new(&format!("hidden-{layout}"));
    std::fs::create_dir_all(home.dir.join("config")).unwrap();
    std::fs::write(
        home.dir.join("config").join("settings.json"),
        json!({"welcome": {"shown": true}}).to_string(),
    )
    .unwrap();
    env.push(("DBUS_SESSION_BUS_ADDRESS".into(), bus.address.clone()));
    env.push(("VULTS_LAYOUT".into(), layout.into()));
    let app = super::support::RunningApp::start_env(&home.dir, &env);
    assert!(
        wait_until(60, || home.dir.join("run").join("vults.sock").exists()),
        "the app did not come up:\n{}",
        log_text(&home.dir)
    );
    hide(&d, &home.dir);

    let mut hook = claude_bash(&home.dir, "s-hidden", "cargo publish --dry-run");
    assert!(
        wait_until(30, || server
            .notifies()
            .iter()
            .any(|n| n.body.contains("cargo publish --dry-run"))),
        "no notification while the window was out of sight: {:?}\n{}",
        server.notifies(),
        log_text(&home.dir)
    );
    // The app gone, its hook ends (printing nothing).
    drop(app);
    let _ = hook.wait();
}

#[test]
fn a_card_is_notified_with_the_main_window_closed_to_the_tray() {
    card_notified("floating", |d, home| {
        // Only the island: the main window was never opened (the welcome was seen).
        assert!(
            wait_until(30, || !x(
                d,
                "xdotool",
                &["search", "--name", "^Vults island$"]
            )
            .is_empty()),
            "no island:\n{}",
            log_text(home)
        );
        assert!(
            x(
                d,
                "xdotool",
                &["search", "--onlyvisible", "--name", "^Vults$"]
            )
            .is_empty(),
            "the main window is open"
        );
    });
}

#[test]
fn a_card_is_notified_with_the_window_minimized() {
    card_notified("embedded", |d, home| {
        let mut window = String::new();
        assert!(
            wait_until(30, || {
                window = x(
                    d,
                    "xdotool",
                    &["search", "--onlyvisible", "--name", "^Vults$"],
                );
                !window.is_empty()
            }),
            "no window:\n{}",
            log_text(home)
        );
        let window = window.lines().next().unwrap().to_string();
        x(d, "xdotool", &["windowminimize", "--sync", &window]);
        assert!(
            wait_until(10, || x(d, "xprop", &["-id", &window, "_NET_WM_STATE"])
                .contains("_NET_WM_STATE_HIDDEN")),
            "not minimized: {}",
            x(d, "xprop", &["-id", &window, "_NET_WM_STATE"])
        );
    });
}
