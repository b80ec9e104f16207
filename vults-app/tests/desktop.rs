//! One instance, the first-run welcome and start at login, with the real binary.

use super::support::{RunningApp, Xvfb, app_bin, log_text, run, wait_until};
use std::time::Duration;

#[test]
fn a_second_start_brings_the_running_window_forward_and_exits_0() {
    let Some(x) = Xvfb::start("one instance") else {
        return;
    };
    let home = vults_tests::TempHome::new("instance");
    let first = RunningApp::start(&home.dir, &x.display);
    let channel = home.dir.join("run").join("vults.instance.sock");
    assert!(
        wait_until(60, || channel.exists()
            && log_text(&home.dir).contains("the welcome is shown")),
        "the first app did not come up:\n{}",
        log_text(&home.dir)
    );
    let started = std::time::Instant::now();
    let second = run(
        &app_bin(),
        &[],
        &[
            ("VULTS_HOME", &home.dir),
            ("HOME", &home.dir.join("home")),
            ("DISPLAY", std::path::Path::new(&x.display)),
        ],
    );
    assert!(
        second.status.success(),
        "the second start failed: {second:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(
        wait_until(20, || log_text(&home.dir)
            .contains("brought the window forward for a second start")),
        "the first app did not show its window:\n{}",
        log_text(&home.dir)
    );
    let log = log_text(&home.dir);
    assert!(log.contains("a second start asked for the window"), "{log}");
    assert!(
        log.contains("already running; asked it to bring its window forward"),
        "{log}"
    );
    drop(first);
}

#[test]
fn the_welcome_shows_on_the_first_run_only() {
    let Some(x) = Xvfb::start("first run") else {
        return;
    };
    let home = vults_tests::TempHome::new("welcome");
    // An agent to find: Claude Code's folder.
    std::fs::create_dir_all(home.dir.join("home").join(".claude")).unwrap();
    let settings = home.dir.join("config").join("settings.json");
    let app = RunningApp::start(&home.dir, &x.display);
    assert!(
        wait_until(60, || log_text(&home.dir).contains("the welcome is shown")),
        "no welcome on the first run:\n{}",
        log_text(&home.dir)
    );
    let marker: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&settings).expect("settings.json")).unwrap();
    assert_eq!(marker["welcome"]["shown"], true, "{marker}");
    drop(app);
    let before = log_text(&home.dir);
    let app = RunningApp::start(&home.dir, &x.display);
    // The second run has started its installer (which sends the welcome when it is due).
    assert!(wait_until(60, || log_text(&home.dir).len() > before.len()
        && log_text(&home.dir)[before.len()..]
            .contains("app start: Claude Code")));
    std::thread::sleep(Duration::from_secs(2));
    let second_run = log_text(&home.dir)[before.len()..].to_string();
    assert!(!second_run.contains("the welcome is shown"), "{second_run}");
    drop(app);
}

#[cfg(all(unix, not(target_os = "macos")))]
#[test]
fn autostart_on_writes_the_xdg_entry_and_off_or_uninstall_removes_it() {
    use super::support::stdout;
    let home = vults_tests::TempHome::new("autostart");
    let env = [("VULTS_HOME", home.dir.as_path())];
    let entry = home.dir.join("home/.config/autostart/vults.desktop");
    assert_eq!(
        stdout(&run(&app_bin(), &["autostart", "status"], &env)),
        "Start at login: off\n"
    );
    let on = run(&app_bin(), &["autostart", "on"], &env);
    assert!(on.status.success(), "{on:?}");
    let text = std::fs::read_to_string(&entry).expect("the autostart entry");
    assert!(
        text.contains(&format!("Exec={}\n", app_bin().display())),
        "{text}"
    );
    if std::process::Command::new("desktop-file-validate")
        .arg("--version")
        .output()
        .is_ok()
    {
        let v = std::process::Command::new("desktop-file-validate")
            .arg(&entry)
            .output()
            .unwrap();
        assert!(v.status.success() && v.stdout.is_empty(), "{v:?}");
    }
    assert_eq!(
        stdout(&run(&app_bin(), &["autostart", "status"], &env)),
        "Start at login: on\n"
    );
    assert!(
        run(&app_bin(), &["autostart", "off"], &env)
            .status
            .success()
    );
    assert!(!entry.exists());
    assert!(run(&app_bin(), &["autostart", "on"], &env).status.success());
    let out = run(&app_bin(), &["--uninstall"], &env);
    assert!(stdout(&out).contains("Start at login: removed"), "{out:?}");
    assert!(!entry.exists());
}

#[test]
fn the_launch_agent_plist_parses_as_a_plist() {
    let plist = vults_installer::autostart::launch_agent_plist(std::path::Path::new(
        "/Applications/Vults & Co.app/Contents/MacOS/vults-app",
    ));
    let Some(parsed) = python_plist(&plist) else {
        return;
    };
    assert_eq!(
        parsed,
        serde_json::json!({
            "Label": "dev.vults.Vults",
            "ProgramArguments": ["/Applications/Vults & Co.app/Contents/MacOS/vults-app"],
            "RunAtLoad": true,
            "ProcessType": "Interactive",
        })
    );
}

/// Parses a plist with python3's plistlib (as macOS' plutil would) and returns it as JSON;
/// `None` when there is no python3 (not on CI's Debian, which has it).
pub fn python_plist(text: &str) -> Option<serde_json::Value> {
    let mut child = match std::process::Command::new("python3")
        .args([
            "-c",
            "import sys, json, plistlib; print(json.dumps(plistlib.loads(sys.stdin.buffer.read())))",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(_) => {
            eprintln!("plist check skipped: no python3");
            return None;
        }
    };
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "plistlib refused it:\n{text}\n{out:?}"
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

#[test]
fn the_macos_info_plist_parses_and_carries_this_version() {
    let path = vults_tests::workspace_root().join("packaging/macos/Info.plist");
    let text = std::fs::read_to_string(&path).expect("packaging/macos/Info.plist");
    let Some(info) = python_plist(&text) else {
        return;
    };
    assert_eq!(info["CFBundleExecutable"], "vults-app");
    assert_eq!(
        info["CFBundleIdentifier"],
        vults_installer::autostart::LABEL
    );
    assert_eq!(
        info["CFBundleShortVersionString"],
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(info["CFBundleIconFile"], "vults.icns");
    assert_eq!(info["LSUIElement"], true);
}

/// Sends the app SIGTERM and waits (20 s at most) for it to exit with status 0; its log says
/// why when it does not.
#[cfg(unix)]
fn sigterm_exits_0(app: &mut RunningApp, home: &std::path::Path) {
    let kill = std::process::Command::new("kill")
        .args(["-TERM", &app.child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let mut status = None;
    assert!(
        wait_until(20, || {
            status = app.child.try_wait().unwrap();
            status.is_some()
        }),
        "the app is still running after SIGTERM:\n{}",
        log_text(home)
    );
    assert!(status.unwrap().success(), "{status:?}\n{}", log_text(home));
}

/// A logout or `kill` sends SIGTERM: the window app quits as its tray's Quit does (the engine
/// stops, the socket goes), with exit status 0, instead of dying with its socket left behind.
#[cfg(unix)]
#[test]
fn sigterm_quits_the_window_app_cleanly() {
    let Some(x) = Xvfb::start("sigterm") else {
        return;
    };
    let home = vults_tests::TempHome::new("sigterm-window");
    let mut app = RunningApp::start(&home.dir, &x.display);
    let socket = home.dir.join("run").join("vults.sock");
    assert!(
        wait_until(60, || socket.exists()
            && log_text(&home.dir).contains("the welcome is shown")),
        "the app did not come up:\n{}",
        log_text(&home.dir)
    );
    sigterm_exits_0(&mut app, &home.dir);
    assert!(!socket.exists(), "the socket was left behind");
    assert!(
        !home.dir.join("run").join("vults.instance.sock").exists(),
        "the one-instance channel's socket was left behind"
    );
    assert!(log_text(&home.dir).contains("SIGTERM: quitting"));
}

/// A SIGTERM while a card is up stops the window app the clean way all through: the card is
/// withdrawn into the audit ("Vults quit"), the waiting hook ends printing nothing (the agent
/// asks in its own terminal), the socket goes and the app exits 0.
#[cfg(unix)]
#[test]
fn sigterm_with_a_card_up_withdraws_it_into_the_audit() {
    use super::support::{app_with, claude_bash, desktop_tools, reply_within, x};
    let Some(xvfb) = Xvfb::start("sigterm with a card") else {
        return;
    };
    if !desktop_tools("sigterm with a card", &["xdotool"]) {
        return;
    }
    let d = xvfb.display.clone();
    let home = vults_tests::TempHome::new("sigterm-card");
    let mut app = app_with(
        &home.dir,
        &d,
        serde_json::json!({"welcome": {"shown": true}}),
    );
    let mut hook = claude_bash(&home.dir, "s-term", "cargo fmt --check");
    assert!(
        wait_until(30, || !x(
            &d,
            "xdotool",
            &["search", "--name", "^Vults: Claude Code"]
        )
        .is_empty()),
        "no card window:\n{}",
        log_text(&home.dir)
    );
    sigterm_exits_0(&mut app, &home.dir);
    assert_eq!(
        reply_within(&mut hook, 10).as_deref(),
        Some(""),
        "the hook must end printing nothing"
    );
    assert!(
        !home.dir.join("run").join("vults.sock").exists(),
        "the socket was left behind"
    );
    let log = vults_core::paths::Paths::resolve(|k| (k == "VULTS_HOME").then(|| home.dir.clone()))
        .audit_log();
    let audit = std::fs::read_to_string(&log).unwrap_or_default();
    let line = audit
        .lines()
        .find(|l| l.contains("cargo fmt --check"))
        .unwrap_or_else(|| panic!("the card left no line in the audit: {audit:?}"));
    let line: serde_json::Value = serde_json::from_str(line).unwrap();
    assert_eq!(line["detail"], "Vults quit", "{line}");
}

/// Show terminal's toast keeps clear of the terminal it raised: an xterm across the top of the
/// screen asks through the real hook, a click into its card and `T` raise it, and the toast
/// ("Vults: terminal") comes under the xterm, not over its top rows under the island.
#[cfg(target_os = "linux")]
#[test]
fn the_show_terminal_toast_keeps_clear_of_the_raised_terminal() {
    use super::support::{app_with, desktop_tools, x};
    use vults_tests::desktop::{Kids, command, display_env, openbox};
    let Some(xvfb) = Xvfb::start("toast placement") else {
        return;
    };
    if !desktop_tools(
        "toast placement",
        &["openbox", "xterm", "xdotool", "xwininfo"],
    ) {
        return;
    }
    let d = xvfb.display.clone();
    let xdotool = |args: &[&str]| x(&d, "xdotool", args);
    // Where a window is on the screen, as the X server says (xdotool's position of a window
    // the window manager framed is off by its frame).
    let geometry = |window: &str| -> [i32; 4] {
        let info = x(&d, "xwininfo", &["-id", window]);
        let field = |k: &str| {
            info.lines()
                .find_map(|l| l.trim().strip_prefix(&format!("{k}:")))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or_else(|| panic!("no {k} in {info:?}"))
        };
        [
            field("Absolute upper-left X"),
            field("Absolute upper-left Y"),
            field("Width"),
            field("Height"),
        ]
    };
    let mut kids = Kids::default();
    let env = display_env(&d);
    openbox(&mut kids, &env);
    let home = vults_tests::TempHome::new("toast-place");
    let _app = app_with(
        &home.dir,
        &d,
        serde_json::json!({"welcome": {"shown": true}}),
    );
    // The agent runs in the xterm: the hook's terminal is that xterm's (its WINDOWID).
    let payload = serde_json::json!({"session_id": "s-top", "cwd": home.dir.join("project"),
        "hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": {"command": "cargo fmt --check"}});
    std::fs::write(home.dir.join("agent.json"), payload.to_string()).unwrap();
    let script = format!(
        "cd '{project}' && VULTS_HOME='{home}' HOME='{home}/home' '{hook}' --agent claude \
         PermissionRequest < '{home}/agent.json' > /dev/null; exec sleep 600",
        project = home.dir.join("project").display(),
        home = home.dir.display(),
        hook = vults_tests::built_hook_bin().display(),
    );
    kids.spawn(command(&env, "xterm").args([
        "-T",
        "agent-at-top",
        "-geometry",
        "140x24+0+0",
        "-e",
        "sh",
        "-c",
        &script,
    ]));
    let mut card = String::new();
    assert!(
        wait_until(30, || {
            card = xdotool(&["search", "--name", "^Vults: Claude Code"]);
            !card.is_empty()
        }),
        "no card:\n{}",
        log_text(&home.dir)
    );
    let term = xdotool(&["search", "--name", "^agent-at-top$"]);
    let [cx, cy, _, _] = geometry(&card);
    let mut toast = String::new();
    assert!(
        wait_until(30, || {
            // Into the card's text, then its Show terminal key, until the toast comes.
            xdotool(&[
                "mousemove",
                &(cx + 200).to_string(),
                &(cy + 60).to_string(),
                "click",
                "1",
            ]);
            xdotool(&["key", "t"]);
            toast = xdotool(&["search", "--name", "^Vults: terminal$"]);
            !toast.is_empty()
        }),
        "no toast:\n{}",
        log_text(&home.dir)
    );
    assert!(
        log_text(&home.dir).contains("Showed xterm"),
        "the xterm was not shown:\n{}",
        log_text(&home.dir)
    );
    let [_, ty, _, th] = geometry(&toast);
    let [_, wy, _, wh] = geometry(&term);
    assert!(wy < 100, "the xterm is not at the top of the screen: {wy}");
    assert!(
        ty >= wy + wh,
        "the toast (y {ty}..{}) covers the xterm (y {wy}..{})",
        ty + th,
        wy + wh
    );
}
