//! "Show terminal" from the window, live (issue 23): an `Xvfb` of the test's own with openbox,
//! an xterm attached to a tmux session whose second window holds an agent stand-in in the
//! middle of three panes, and another xterm in front. The stand-in calls the real `vults-hook`;
//! the real engine makes its bird and card; clicking the bird's "Show terminal", then the
//! card's, in the window (the real `BackgroundTerminal` behind it) makes that xterm the X
//! server's `_NET_ACTIVE_WINDOW` (read with `xprop`) and the agent's pane tmux's active one;
//! once the agent has ended, the bird's button says so in one line.
//!
//! The show reads `DISPLAY` from the process environment, and this binary runs its tests on
//! threads: the test runs itself again as a child process (`--exact` this test) with the test
//! display in its environment, and the parent only starts Xvfb and reads the child's result.
//!
//! Needs Xvfb, openbox, xterm, tmux, xdotool and xprop; without them it says so and passes,
//! unless `VULTS_DESKTOP_TESTS=1` (CI), where a missing one fails it. X11 only.
#![cfg(all(unix, not(target_os = "macos")))]

use egui_kittest::kittest::Queryable;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};
use vults_engine::Engine;
use vults_tests::desktop::{
    Kids, TmuxServer, Xvfb, activate, active_window, openbox, tools, wait_for, windows_named, xterm,
};
use vults_ui::app::{Layout, VultsWindow};
use vults_ui::desktop::NoDesktop;
use vults_ui::show_terminal::BackgroundTerminal;

const TOOLS: &[&str] = &["Xvfb", "openbox", "xterm", "tmux", "xdotool", "xprop"];
const CHILD: &str = "VULTS_SHOWTERM_CHILD";
const TEST: &str =
    "show_terminal_live::the_windows_show_terminal_brings_the_agents_xterm_and_tmux_pane_forward";

/// The agent stand-in: asks once through the real hook (a card), then waits as an agent would.
const AGENT: &str = r#"#!/bin/sh
printf '{"session_id":"showterm-live","cwd":"%s","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"echo from the pane"}}' "$PWD" \
    | "$VULTS_HOOK" --agent claude PermissionRequest
exec sleep 600
"#;

#[test]
fn the_windows_show_terminal_brings_the_agents_xterm_and_tmux_pane_forward() {
    if std::env::var_os(CHILD).is_some() {
        return child();
    }
    if !tools("show terminal from the window", TOOLS) {
        return;
    }
    // Built here, before the child runs (it would build it too, under its own timeout).
    let hook = vults_tests::built_hook_bin();
    let home = vults_tests::TempHome::new("showlive");
    let xvfb = Xvfb::start("show terminal from the window").expect("the tools are there");
    let out = Command::new(std::env::current_exe().expect("this test binary"))
        .args([TEST, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("DISPLAY", &xvfb.display)
        .env("XDG_SESSION_TYPE", "x11")
        .env("HOME", home.dir.join("home"))
        .env("VULTS_HOME", &home.dir)
        .env("VULTS_HOOK_BIN", hook)
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .env_remove("SWAYSOCK")
        .env_remove("HYPRLAND_INSTANCE_SIGNATURE")
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .stdin(Stdio::null())
        .output()
        .expect("the test runs itself");
    let said = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && said.contains("1 passed"),
        "the desktop part failed:\n{said}"
    );
}

/// The desktop part, in the child: `DISPLAY`, `HOME` and `VULTS_HOME` are the test's own.
fn child() {
    let home = PathBuf::from(std::env::var_os("VULTS_HOME").expect("VULTS_HOME"));
    let display = std::env::var("DISPLAY").expect("DISPLAY");
    let hook = vults_tests::built_hook_bin();
    let dir = home.join("t");
    let project = home.join("project");
    std::fs::create_dir_all(home.join("home")).expect("dirs");
    std::fs::create_dir_all(&dir).expect("dirs");
    std::fs::create_dir_all(&project).expect("dirs");
    let agent = dir.join("agent.sh");
    std::fs::write(&agent, AGENT).expect("agent script");
    let agent = agent.display().to_string();
    let env: Vec<(String, String)> = vec![
        ("DISPLAY".into(), display),
        ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
        ("VULTS_HOME".into(), home.display().to_string()),
        ("VULTS_HOOK".into(), hook.display().to_string()),
        ("HOME".into(), home.join("home").display().to_string()),
        ("TERM".into(), "xterm".into()),
        ("LANG".into(), "C.UTF-8".into()),
    ];
    let mut kids = Kids::default();
    openbox(&mut kids, &env);

    // The real engine on a real socket, and the window with the real Show terminal behind it.
    let paths = vults_core::paths::Paths::resolve({
        let home = home.clone();
        move |k| (k == "VULTS_HOME").then(|| home.clone())
    });
    let engine = Engine::start(paths, std::sync::Arc::new(|| {})).expect("the engine starts");
    let window = VultsWindow::new(
        Box::new(engine),
        Box::new(NoDesktop::default()),
        Layout::Embedded,
        Box::new(SystemTime::now),
    )
    .with_terminal(Box::new(BackgroundTerminal::start(std::sync::Arc::new(
        || {},
    ))));
    let mut h = crate::fixtures::builder()
        .with_size(egui::vec2(1100.0, 900.0))
        .build_ui_state(
            |ui, w: &mut VultsWindow| {
                w.logic(ui.ctx());
                w.ui(ui);
            },
            window,
        );

    // tmux: window "one" with a shell; window "two" with the agent in the middle of three
    // panes. Window one is selected when xterm A attaches.
    let sock = dir.join("tmux.sock").display().to_string();
    let tmux_server = TmuxServer {
        socket: sock.clone(),
        env: env.clone(),
    };
    let tmux = |args: &[&str]| tmux_server.run(args);
    let project_dir = project.display().to_string();
    tmux(&[
        "new-session",
        "-d",
        "-s",
        "vults",
        "-n",
        "one",
        "-c",
        &project_dir,
        "-x",
        "160",
        "-y",
        "48",
        "sh",
    ]);
    tmux(&[
        "new-window",
        "-t",
        "vults",
        "-n",
        "two",
        "-c",
        &project_dir,
        "sh",
    ]);
    let agent_cmd = format!("sh {agent}");
    tmux(&[
        "split-window",
        "-t",
        "vults:two.0",
        "-c",
        &project_dir,
        &agent_cmd,
    ]);
    tmux(&[
        "split-window",
        "-t",
        "vults:two.1",
        "-c",
        &project_dir,
        "sh",
    ]);
    tmux(&["select-layout", "-t", "vults:two", "even-vertical"]);
    let agent_pane = tmux(&["display-message", "-p", "-t", "vults:two.1", "#{pane_id}"])
        .trim()
        .to_string();
    let back_to_one = || {
        tmux(&["select-window", "-t", "vults:one"]);
        tmux(&["select-pane", "-t", "vults:two.0"]);
    };
    back_to_one();
    let xterm_a = xterm(
        &mut kids,
        &env,
        "vults-xterm-a",
        "tmux",
        &["-S", &sock, "attach", "-t", "vults"],
    );
    let is_xterm_a =
        |w: Option<u32>| w.is_some_and(|w| windows_named(&env, "vults-xterm-a").contains(&w));
    let xterm_b = xterm(&mut kids, &env, "vults-xterm-b", "sleep", &["600"]);
    let _ = xterm_a;
    let active_pane = || {
        tmux(&[
            "display-message",
            "-p",
            "-t",
            "vults",
            "#{window_name} #{pane_id}",
        ])
        .trim()
        .to_string()
    };

    // The agent's card, and its bird with where it runs.
    let until = Instant::now() + Duration::from_secs(30);
    while h.state().model.cards.is_empty() {
        assert!(Instant::now() < until, "no card came from the pane's hook");
        h.run_steps(2);
        std::thread::sleep(Duration::from_millis(50));
    }
    let session = h.state().model.cards[0].session.clone();
    let bird = h.state().model.sessions[&session].clone();
    assert_eq!(
        bird.terminal
            .as_ref()
            .and_then(|t| t.block.env.get("TMUX_PANE")),
        Some(&serde_json::json!(agent_pane)),
        "the bird keeps the pane its event named"
    );
    let bird_button = format!("Show terminal of Claude Code in {}", bird.folder);

    // 1. The bird's button.
    activate(&env, xterm_b);
    assert_ne!(active_pane(), format!("two {agent_pane}"));
    let shown = show(&mut h, &bird_button);
    assert!(shown.ok, "{}", shown.line);
    assert!(
        shown
            .line
            .to_string()
            .starts_with(&format!("Showed tmux pane {agent_pane} ")),
        "{}",
        shown.line
    );
    assert!(is_xterm_a(active_window(&env)), "{}", shown.line);
    assert_eq!(active_pane(), format!("two {agent_pane}"), "{}", shown.line);
    // The line is drawn: the toast, the bird and the status line.
    assert!(h.query_all_by_label(&shown.line.text()).count() >= 3);

    // 2. The card's button, from the other window and pane again.
    back_to_one();
    activate(&env, xterm_b);
    let shown = show(&mut h, "Show terminal");
    assert!(shown.ok, "{}", shown.line);
    assert!(is_xterm_a(active_window(&env)), "{}", shown.line);
    assert_eq!(active_pane(), format!("two {agent_pane}"), "{}", shown.line);
    assert_eq!(shown.session, session);

    // 3. The agent ends (its pane is closed): the bird's button says so in one line.
    let pid = bird
        .terminal
        .as_ref()
        .and_then(|t| t.block.pid)
        .expect("pid");
    tmux(&["kill-pane", "-t", &agent_pane]);
    wait_for(10, "the agent to end", || {
        (!Path::new(&format!("/proc/{pid}")).exists()).then_some(())
    });
    let until = Instant::now() + Duration::from_secs(20);
    while h.query_by_label(&bird_button).is_none() {
        assert!(Instant::now() < until, "the bird left the flock");
        h.run_steps(1);
    }
    let shown = show(&mut h, &bird_button);
    assert!(!shown.ok);
    assert_eq!(
        shown.line.to_string(),
        format!("Cannot show Claude Code's terminal: the agent's process (pid {pid}) has ended")
    );
}

/// Clicks a "Show terminal" in the window and waits for the line it brings back.
fn show(
    h: &mut egui_kittest::Harness<'static, VultsWindow>,
    label: &str,
) -> vults_ui::show_terminal::Shown {
    h.state_mut().model.shown = None;
    h.get_by_label(label).click_accesskit();
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        h.run_steps(1);
        if let Some(shown) = h.state().model.shown.clone() {
            return shown;
        }
        assert!(Instant::now() < until, "no line came back for {label}");
        std::thread::sleep(Duration::from_millis(50));
    }
}
