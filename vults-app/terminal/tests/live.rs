//! "Show terminal" on a live X11 desktop: an `Xvfb` of the test's own with openbox, four
//! xterms (one running the agent, one attached to a tmux session with three panes in each of
//! two windows, one running GNU screen with two windows, one running `ssh` to a host: a
//! stand-in client), and a kitty with remote control on and two tabs. An agent stand-in in
//! each place calls the real `vults-hook` against a scripted server on a real socket; the
//! captured `terminal` block is all `vults_terminal::show` gets, and the X server's
//! `_NET_ACTIVE_WINDOW` (read with `xprop`, not this crate), tmux's, screen's and kitty's own
//! state say whether the right window, pane and tab came forward.
//!
//! Needs Xvfb, openbox, xterm, tmux, kitty, screen, xdotool and xprop (x11-utils). Without
//! them the test says so and passes, unless `VULTS_DESKTOP_TESTS=1` (CI), where a missing one
//! fails it.
//!
//! This binary holds one test: it sets `DISPLAY` for itself before any other thread runs.
//! X11 only: empty on Windows and macOS.
#![cfg(all(unix, not(target_os = "macos")))]

use std::path::Path;
use std::process::Command;
use vults_core::protocol::{Decision, Event};
use vults_terminal::{FailureKind, Place, Reach};
use vults_tests::desktop::{
    Kids, TmuxServer, Xvfb, activate, active_window, command, openbox, run, tools, wait_for,
    windows_named, xterm,
};
use vults_tests::{Script, TempHome, TestServer};

const TOOLS: &[&str] = &[
    "Xvfb", "openbox", "xterm", "tmux", "kitty", "screen", "xdotool", "xprop",
];

/// The agent stand-in: calls the real hook once with a permission request tagged `$1` (so
/// the test knows which place sent it), then waits as an agent would.
const AGENT: &str = r#"#!/bin/sh
printf '{"session_id":"%s","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"echo %s"}}' "$1" "$1" \
    | "$VULTS_HOOK" --agent claude PermissionRequest
echo "agent $1 asked"
exec sleep 600
"#;

/// A GNU screen session of the test's own, quit when the test ends (a killed client leaves
/// its server running).
struct ScreenSession {
    name: String,
    env: Vec<(String, String)>,
}

impl Drop for ScreenSession {
    fn drop(&mut self) {
        let _ = run(&self.env, "screen", &["-S", &self.name, "-X", "quit"]);
    }
}

fn event_tagged(server: &TestServer, tag: &str) -> Event {
    wait_for(30, &format!("the hook's event from {tag}"), || {
        server
            .received()
            .into_iter()
            .filter_map(|r| r.event)
            .find(|e| e.payload.get("session_id").and_then(|s| s.as_str()) == Some(tag))
    })
}

#[test]
fn show_terminal_brings_the_agents_xterm_tmux_pane_and_kitty_tab_forward() {
    let test = "show terminal live";
    if !tools(test, TOOLS) {
        eprintln!("(apt-get install xvfb openbox xterm tmux kitty screen xdotool x11-utils)");
        return;
    }
    let hook = vults_tests::built_hook_bin();
    let home = TempHome::new("showterm");
    let server = TestServer::start(&home.socket(), Script::decide(Decision::Deny));
    // An X server of our own (dropped after `kids`, the X clients) and a window manager.
    let xvfb = Xvfb::start(test).expect("the tools are there");
    let mut kids = Kids::default();
    let display = xvfb.display.clone();
    // SAFETY: this binary's only test; no other thread of it reads the environment yet.
    unsafe {
        std::env::set_var("DISPLAY", &display);
        for k in [
            "WAYLAND_DISPLAY",
            "WAYLAND_SOCKET",
            "SWAYSOCK",
            "HYPRLAND_INSTANCE_SIGNATURE",
        ] {
            std::env::remove_var(k);
        }
        std::env::set_var("XDG_SESSION_TYPE", "x11");
        // The survey reads kitty.conf from HOME: never the real one.
        std::env::set_var("HOME", home.dir.join("home"));
        std::env::remove_var("XDG_CONFIG_HOME");
        std::env::remove_var("KITTY_CONFIG_DIRECTORY");
    }
    let dir = home.dir.join("t");
    std::fs::create_dir_all(dir.join("home")).expect("dirs");
    let agent = dir.join("agent.sh");
    std::fs::write(&agent, AGENT).expect("agent script");
    let agent = agent.display().to_string();
    // screen's sockets in a 0700 folder of the test's own.
    let screens = dir.join("screens");
    std::fs::create_dir_all(&screens).expect("screen dir");
    std::fs::set_permissions(
        &screens,
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .expect("screen dir mode");
    let mut env = home.env();
    env.extend([
        ("DISPLAY".to_string(), display.clone()),
        ("VULTS_HOOK".to_string(), hook.display().to_string()),
        ("HOME".to_string(), dir.join("home").display().to_string()),
        ("LIBGL_ALWAYS_SOFTWARE".to_string(), "1".to_string()),
        ("TERM".to_string(), "xterm".to_string()),
        ("LANG".to_string(), "C.UTF-8".to_string()),
        ("SCREENDIR".to_string(), screens.display().to_string()),
    ]);
    openbox(&mut kids, &env);

    // 1. An xterm running the agent directly.
    let xterm_b = xterm(&mut kids, &env, "vults-xterm-b", "sh", &[&agent, "xterm-b"]);
    let is_xterm_b =
        |w: Option<u32>| w.is_some_and(|w| windows_named(&env, "vults-xterm-b").contains(&w));

    // 1b. GNU screen in a third xterm: the agent in window 0, window 1 opened after it.
    let screen_name = format!("vults-{}", std::process::id());
    let _screen_session = ScreenSession {
        name: screen_name.clone(),
        env: env.clone(),
    };
    let xterm_c = xterm(
        &mut kids,
        &env,
        "vults-xterm-c",
        "screen",
        &["-S", &screen_name, "sh", &agent, "screen"],
    );
    let screen_ev = event_tagged(&server, "screen");
    let screen_now = || {
        run(&env, "screen", &["-S", &screen_name, "-Q", "number"])
            .map(|o| o.split_whitespace().next().unwrap_or("").to_string())
            .unwrap_or_default()
    };
    run(&env, "screen", &["-S", &screen_name, "-X", "screen", "sh"])
        .unwrap_or_else(|e| panic!("{e}"));
    wait_for(10, "screen's second window", || {
        (screen_now() == "1").then_some(())
    });
    let is_xterm_c =
        |w: Option<u32>| w.is_some_and(|w| windows_named(&env, "vults-xterm-c").contains(&w));

    // 1c. A fourth xterm running `ssh me@<host>`: a stand-in client (a copy of sh named ssh,
    //     with an ssh command line) that connects nowhere.
    let host = format!("vults-devbox-{}", std::process::id());
    let fake_ssh = dir.join("ssh");
    std::fs::copy("/bin/sh", &fake_ssh).expect("a stand-in ssh");
    let fake_ssh = fake_ssh.display().to_string();
    let ssh_dest = format!("me@{host}");
    let xterm_ssh = xterm(
        &mut kids,
        &env,
        "vults-xterm-ssh",
        &fake_ssh,
        &["-c", "sleep 600; :", &ssh_dest],
    );
    let is_xterm_ssh =
        |w: Option<u32>| w.is_some_and(|w| windows_named(&env, "vults-xterm-ssh").contains(&w));

    // 2. tmux: window "one" with three shells; window "two" with the agent in the middle of
    //    three panes. The session is made before any client attaches (so no pane knows the
    //    xterm's WINDOWID), then window one is selected, then xterm A attaches.
    let sock = dir.join("tmux.sock").display().to_string();
    let tmux_server = TmuxServer {
        socket: sock.clone(),
        env: env.clone(),
    };
    let tmux = |args: &[&str]| tmux_server.run(args);
    tmux(&[
        "new-session",
        "-d",
        "-s",
        "vults",
        "-n",
        "one",
        "-x",
        "160",
        "-y",
        "48",
        "sh",
    ]);
    tmux(&["split-window", "-t", "vults:one", "sh"]);
    tmux(&["split-window", "-t", "vults:one", "sh"]);
    tmux(&["new-window", "-t", "vults", "-n", "two", "sh"]);
    let agent_cmd = format!("sh {agent} tmux");
    tmux(&["split-window", "-t", "vults:two.0", &agent_cmd]);
    tmux(&["split-window", "-t", "vults:two.1", "sh"]);
    tmux(&["select-layout", "-t", "vults:two", "even-vertical"]);
    tmux(&["select-window", "-t", "vults:one"]);
    tmux(&["select-pane", "-t", "vults:one.0"]);
    let tmux_ev = event_tagged(&server, "tmux");
    let agent_pane = tmux_ev.terminal.env["TMUX_PANE"]
        .as_str()
        .expect("TMUX_PANE")
        .to_string();
    assert_eq!(
        tmux(&[
            "display-message",
            "-p",
            "-t",
            &agent_pane,
            "#{window_name}.#{pane_index}"
        ])
        .trim(),
        "two.1",
        "the agent is in the middle pane of window two"
    );
    assert!(!tmux_ev.terminal.env.contains_key("WINDOWID"));
    let xterm_a = xterm(
        &mut kids,
        &env,
        "vults-xterm-a",
        "tmux",
        &["-S", &sock, "attach", "-t", "vults"],
    );
    let is_xterm_a =
        |w: Option<u32>| w.is_some_and(|w| windows_named(&env, "vults-xterm-a").contains(&w));
    wait_for(20, "xterm A's tmux client", || {
        (!tmux(&["list-clients", "-F", "#{client_pid}"])
            .trim()
            .is_empty())
        .then_some(())
    });

    // 3. kitty with remote control: the agent in the first tab, a second tab opened after.
    let kitty_sock = format!("unix:{}", dir.join("kitty.sock").display());
    kids.spawn(command(&env, "kitty").args([
        "-o",
        "allow_remote_control=yes",
        "--listen-on",
        &kitty_sock,
        "--title",
        "vults-kitty",
        "sh",
        &agent,
        "kitty",
    ]));
    let kitty_ev = event_tagged(&server, "kitty");
    let kitty_win = wait_for(40, "kitty's window", || {
        windows_named(&env, "vults-kitty").first().copied()
    });
    let is_kitty =
        |w: Option<u32>| w.is_some_and(|w| windows_named(&env, "vults-kitty").contains(&w));
    run(
        &env,
        "kitty",
        &["@", "--to", &kitty_sock, "launch", "--type=tab", "sh"],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let kitty_focused = || {
        let ls =
            run(&env, "kitty", &["@", "--to", &kitty_sock, "ls"]).unwrap_or_else(|e| panic!("{e}"));
        let v: serde_json::Value = serde_json::from_str(&ls).expect("kitty ls");
        v[0]["tabs"]
            .as_array()
            .expect("tabs")
            .iter()
            .find(|t| t["is_focused"] == true)
            .and_then(|t| t["windows"][0]["id"].as_u64())
    };
    let agent_kitty_window: u64 = kitty_ev.terminal.env["KITTY_WINDOW_ID"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("KITTY_WINDOW_ID");
    wait_for(20, "kitty's second tab", || {
        (kitty_focused() != Some(agent_kitty_window)).then_some(())
    });

    let xterm_ev = event_tagged(&server, "xterm-b");
    assert!(xterm_ev.terminal.env.contains_key("WINDOWID"));

    // Show each, from another window being active.
    activate(&env, xterm_b);
    let shown = vults_terminal::show(&Place::local(&screen_ev.terminal)).expect("screen shown");
    assert!(is_xterm_c(active_window(&env)), "{shown}");
    assert_eq!(screen_now(), "0", "{shown}");
    assert!(
        shown
            .what
            .to_string()
            .starts_with("screen window 0 (session "),
        "{shown}"
    );
    let _ = xterm_c;

    activate(&env, kitty_win);
    let shown = vults_terminal::show(&Place::local(&xterm_ev.terminal)).expect("xterm B shown");
    assert!(is_xterm_b(active_window(&env)), "{shown}");
    assert!(shown.what.to_string().starts_with("xterm (pid "), "{shown}");

    activate(&env, xterm_b);
    let shown = vults_terminal::show(&Place::local(&tmux_ev.terminal)).expect("tmux pane shown");
    assert!(is_xterm_a(active_window(&env)), "{shown}");
    assert!(
        shown
            .what
            .to_string()
            .starts_with(&format!("tmux pane {agent_pane} ")),
        "{shown}"
    );
    assert_eq!(
        tmux(&[
            "display-message",
            "-p",
            "-t",
            "vults",
            "#{window_name}.#{pane_index} #{pane_id}"
        ])
        .trim(),
        format!("two.1 {agent_pane}"),
        "{shown}"
    );

    activate(&env, xterm_a);
    let shown = vults_terminal::show(&Place::local(&kitty_ev.terminal)).expect("kitty tab shown");
    assert!(is_kitty(active_window(&env)), "{shown}");
    assert_eq!(kitty_focused(), Some(agent_kitty_window), "{shown}");
    assert_eq!(shown.caveat, None, "{shown}");

    // Settings → General's survey of this desktop: openbox, and the running kitty's remote
    // control (its command line; there is no kitty.conf).
    let survey = vults_terminal::survey();
    for row in &survey {
        eprintln!("survey: {} — {:?} — {}", row.name, row.reach, row.how);
    }
    assert_eq!(
        survey[0].name.to_string(),
        "Desktop: X11 (Openbox)",
        "{survey:?}"
    );
    assert_eq!(survey[0].reach, Reach::Window);
    let row = |name: &str| {
        survey
            .iter()
            .find(|r| r.name.to_string().split(' ').next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} in {survey:?}"))
    };
    assert_eq!(row("tmux").reach, Reach::Pane);
    assert_eq!(row("kitty").reach, Reach::Pane);
    assert_eq!(row("xterm").reach, Reach::Window);

    // tmux's client on another session is switched back to the agent's.
    tmux(&["new-session", "-d", "-s", "other", "sh"]);
    let client_tty = tmux(&["list-clients", "-F", "#{client_tty}"])
        .trim()
        .to_string();
    tmux(&["switch-client", "-c", &client_tty, "-t", "other"]);
    activate(&env, xterm_b);
    let shown = vults_terminal::show(&Place::local(&tmux_ev.terminal)).expect("tmux pane shown");
    assert!(is_xterm_a(active_window(&env)), "{shown}");
    assert_eq!(
        tmux(&[
            "display-message",
            "-p",
            "-c",
            &client_tty,
            "#{session_name} #{pane_id}"
        ])
        .trim(),
        format!("vults {agent_pane}")
    );

    // An agent on the SSH host: its block (the tmux one stands in: its pid and pane mean
    // nothing here) shows the xterm running ssh to that host, and nothing else.
    activate(&env, xterm_a);
    let on_host = Place::on_host(&tmux_ev.terminal, &host);
    let shown = vults_terminal::show(&on_host).expect("the ssh terminal shown");
    assert!(is_xterm_ssh(active_window(&env)), "{shown}");
    assert!(
        shown
            .what
            .to_string()
            .starts_with(&format!("ssh to {host} (pid ")),
        "{shown}"
    );
    assert!(
        shown
            .caveat
            .as_ref()
            .is_some_and(|c| c.to_string().contains(&format!("runs on {host}"))),
        "{shown}"
    );
    let _ = xterm_ssh;
    let elsewhere = vults_terminal::show(&Place::on_host(&tmux_ev.terminal, "otherbox"))
        .expect_err("no terminal runs ssh to otherbox");
    assert_eq!(elsewhere.kind, FailureKind::Elsewhere, "{elsewhere}");

    // The one-line reasons: an agent that ended, a tmux session nobody is attached to.
    let agent_pid = xterm_ev.terminal.pid.expect("pid");
    let _ = Command::new("kill").arg(agent_pid.to_string()).status();
    wait_for(10, "the agent to end", || {
        (!Path::new(&format!("/proc/{agent_pid}")).exists()).then_some(())
    });
    let ended = vults_terminal::show(&Place::local(&xterm_ev.terminal)).expect_err("ended");
    assert_eq!(ended.kind, FailureKind::Ended);
    assert_eq!(
        ended.message.to_string(),
        format!("the agent's process (pid {agent_pid}) has ended")
    );

    tmux(&["detach-client", "-s", "vults"]);
    wait_for(10, "no tmux client", || {
        tmux(&["list-clients", "-F", "#{client_pid}"])
            .trim()
            .is_empty()
            .then_some(())
    });
    let detached = vults_terminal::show(&Place::local(&tmux_ev.terminal)).expect_err("detached");
    assert_eq!(detached.kind, FailureKind::Detached, "{detached}");
    // The remedy first, naming the server's own socket: the command attaches.
    assert!(
        detached.message.to_string().starts_with(&format!(
            "run `tmux -S {sock} attach -t vults` in a terminal"
        )),
        "{detached}"
    );
}
