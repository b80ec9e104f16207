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
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime};
use vults_engine::Engine;
use vults_ui::app::{Layout, VultsWindow};
use vults_ui::desktop::NoDesktop;
use vults_ui::terminal::BackgroundTerminal;

const TOOLS: &[&str] = &["Xvfb", "openbox", "xterm", "tmux", "xdotool", "xprop"];
const CHILD: &str = "VULTS_SHOWTERM_CHILD";
const TEST: &str =
    "show_terminal_live::the_windows_show_terminal_brings_the_agents_xterm_and_tmux_pane_forward";

fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
}

/// Processes killed (and reaped) when the test ends, however it ends.
#[derive(Default)]
struct Kids(Vec<Child>);

impl Kids {
    fn spawn(&mut self, cmd: &mut Command) -> u32 {
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{cmd:?} starts: {e}"));
        let pid = child.id();
        self.0.push(child);
        pid
    }
}

impl Drop for Kids {
    fn drop(&mut self) {
        for c in self.0.iter_mut().rev() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Polls `f` until it gives `Some`, for up to `secs`.
fn wait_for<T>(secs: u64, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let until = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < until, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Runs a program to its end with the test desktop's environment; its stdout.
fn run(env: &[(String, String)], program: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(program)
        .args(args)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{program}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{program} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// The X server's active window, by `xprop` (not by the code under test).
fn active_window(env: &[(String, String)]) -> Option<u32> {
    let out = run(env, "xprop", &["-root", "_NET_ACTIVE_WINDOW"]).ok()?;
    let hex = out.rsplit("# ").next()?.trim().split(',').next()?.trim();
    u32::from_str_radix(hex.strip_prefix("0x")?, 16)
        .ok()
        .filter(|w| *w != 0)
}

/// The windows named exactly `title`, by `xdotool`.
fn windows_named(env: &[(String, String)], title: &str) -> Vec<u32> {
    run(env, "xdotool", &["search", "--name", &format!("^{title}$")])
        .map(|o| o.lines().filter_map(|l| l.trim().parse().ok()).collect())
        .unwrap_or_default()
}

/// Makes `window` the active one (so that a show has something to change).
fn activate(env: &[(String, String)], window: u32) {
    let w = window.to_string();
    let _ = run(env, "xdotool", &["windowactivate", "--sync", &w]);
    wait_for(10, "the other window to be active", || {
        (active_window(env) == Some(window)).then_some(())
    });
}

/// The agent stand-in: asks once through the real hook (a card), then waits as an agent would.
const AGENT: &str = r#"#!/bin/sh
printf '{"session_id":"showterm-live","cwd":"%s","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"echo from the pane"}}' "$PWD" \
    | "$VULTS_HOOK" --agent claude PermissionRequest
exec sleep 600
"#;

/// A tmux server of the test's own, killed when the test ends, however it ends.
struct TmuxServer {
    socket: String,
    env: Vec<(String, String)>,
}

impl Drop for TmuxServer {
    fn drop(&mut self) {
        let _ = run(&self.env, "tmux", &["-S", &self.socket, "kill-server"]);
    }
}

/// The lock file and socket of an X display of the test's own, removed when the test ends.
struct Display(u32);

impl Drop for Display {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(format!("/tmp/.X{}-lock", self.0));
        let _ = std::fs::remove_file(format!("/tmp/.X11-unix/X{}", self.0));
    }
}

#[test]
fn the_windows_show_terminal_brings_the_agents_xterm_and_tmux_pane_forward() {
    if std::env::var_os(CHILD).is_some() {
        return child();
    }
    let missing: Vec<&str> = TOOLS.iter().copied().filter(|t| !on_path(t)).collect();
    if !missing.is_empty() {
        assert!(
            std::env::var("VULTS_DESKTOP_TESTS").as_deref() != Ok("1"),
            "VULTS_DESKTOP_TESTS=1 but {missing:?} are not installed"
        );
        eprintln!("skipped: needs {missing:?}");
        return;
    }
    // Built here, before the child runs (it would build it too, under its own timeout).
    let hook = vults_tests::built_hook_bin();
    let home = vults_tests::TempHome::new("showlive");
    let mut kids = Kids::default();
    let n = wait_for(20, "a free X display", || {
        for n in 340..380u32 {
            if Path::new(&format!("/tmp/.X{n}-lock")).exists()
                || Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
            {
                continue;
            }
            kids.spawn(Command::new("Xvfb").args([
                &format!(":{n}"),
                "-screen",
                "0",
                "1280x800x24",
                "-nolisten",
                "tcp",
            ]));
            let socket = PathBuf::from(format!("/tmp/.X11-unix/X{n}"));
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(5) {
                if socket.exists() {
                    return Some(n);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        None
    });
    let _display = Display(n);
    let out = Command::new(std::env::current_exe().expect("this test binary"))
        .args([TEST, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("DISPLAY", format!(":{n}"))
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
    let cmd = |program: &str| {
        let mut c = Command::new(program);
        c.env_clear().envs(env.iter().map(|(k, v)| (k, v)));
        c
    };
    kids.spawn(cmd("openbox").arg("--sm-disable"));
    wait_for(60, "openbox", || {
        run(&env, "xprop", &["-root", "_NET_SUPPORTING_WM_CHECK"])
            .ok()
            .filter(|o| o.contains("window id"))
    });

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
    let mut h = egui_kittest::Harness::builder()
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
    let _tmux_server = TmuxServer {
        socket: sock.clone(),
        env: env.clone(),
    };
    let tmux = |args: &[&str]| {
        let mut all = vec!["-f", "/dev/null", "-S", sock.as_str()];
        all.extend_from_slice(args);
        run(&env, "tmux", &all).unwrap_or_else(|e| panic!("{e}"))
    };
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
    kids.spawn(cmd("xterm").args([
        "-T",
        "vults-xterm-a",
        "-e",
        "tmux",
        "-S",
        &sock,
        "attach",
        "-t",
        "vults",
    ]));
    let xterm_a = wait_for(20, "xterm A", || {
        windows_named(&env, "vults-xterm-a").first().copied()
    });
    let is_xterm_a =
        |w: Option<u32>| w.is_some_and(|w| windows_named(&env, "vults-xterm-a").contains(&w));
    kids.spawn(cmd("xterm").args(["-T", "vults-xterm-b", "-e", "sleep", "600"]));
    let xterm_b = wait_for(20, "xterm B", || {
        windows_named(&env, "vults-xterm-b").first().copied()
    });
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
            .starts_with(&format!("Showed tmux pane {agent_pane} ")),
        "{}",
        shown.line
    );
    assert!(is_xterm_a(active_window(&env)), "{}", shown.line);
    assert_eq!(active_pane(), format!("two {agent_pane}"), "{}", shown.line);
    // The line is drawn: the toast, the bird and the status line.
    assert!(h.query_all_by_label(&shown.line).count() >= 3);

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
        shown.line,
        format!("Cannot show Claude Code's terminal: the agent's process (pid {pid}) has ended")
    );
}

/// Clicks a "Show terminal" in the window and waits for the line it brings back.
fn show(
    h: &mut egui_kittest::Harness<'static, VultsWindow>,
    label: &str,
) -> vults_ui::terminal::Shown {
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
