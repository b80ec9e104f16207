//! Cards in the real window under `Xvfb`, fed by the real hook and read back from the X server:
//! Copy reaches the system clipboard (`xclip -o -selection clipboard`), a fast key chord means
//! what it says, and six cards on a small screen never cover each other (their windows'
//! geometry from the X server). Need `xdotool` and `xclip` besides `Xvfb`; with
//! `VULTS_DESKTOP_TESTS=1` a missing one is a failure, otherwise the test says why it skipped.

use super::support::{RunningApp, Xvfb, log_text, wait_until};
use egui_kittest::kittest::Queryable;
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Whether the X tools these tests drive are installed (a failure when they must be).
fn tools(test: &str) -> bool {
    let required = std::env::var("VULTS_DESKTOP_TESTS").is_ok_and(|v| v == "1");
    let missing: Vec<&str> = ["xdotool", "xclip"]
        .into_iter()
        .filter(|t| {
            !std::env::var_os("PATH")
                .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(t).is_file()))
        })
        .collect();
    if missing.is_empty() {
        return true;
    }
    assert!(
        !required,
        "{test}: VULTS_DESKTOP_TESTS=1 but {missing:?} is not installed (apt-get install xdotool xclip)"
    );
    eprintln!("{test}: skipped, needs {missing:?}");
    false
}

/// An X client's output, on `display`.
fn x(display: &str, program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .env("DISPLAY", display)
        .stderr(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{program} runs: {e}"));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A window's place and size on the screen, from the X server.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Geometry {
    x: i64,
    y: i64,
    w: i64,
    h: i64,
}

impl Geometry {
    fn overlaps(&self, o: &Geometry) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }
}

fn geometry(display: &str, window: &str) -> Option<Geometry> {
    let text = x(display, "xwininfo", &["-id", window]);
    let field = |name: &str| -> Option<i64> {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
    };
    Some(Geometry {
        x: field("Absolute upper-left X:")?,
        y: field("Absolute upper-left Y:")?,
        w: field("Width:")?,
        h: field("Height:")?,
    })
}

/// The card windows on screen (their titles start "Vults: "), each with its geometry.
fn card_windows(display: &str) -> Vec<(String, Geometry)> {
    x(
        display,
        "xdotool",
        &["search", "--onlyvisible", "--name", "^Vults: "],
    )
    .lines()
    .filter_map(|id| Some((id.to_string(), geometry(display, id)?)))
    .collect()
}

/// The card windows once they have stopped moving (a card's window fits its content one frame
/// after it is drawn, and the others move with it).
fn settled_cards(display: &str, count: usize) -> Vec<(String, Geometry)> {
    let mut last = Vec::new();
    let settled = wait_until(60, || {
        let now = card_windows(display);
        let same = now.len() == count && now == last;
        last = now;
        std::thread::sleep(Duration::from_millis(400));
        same
    });
    assert!(settled, "{count} card windows did not settle: {last:?}");
    last
}

/// The window app with the welcome already seen (it would open the main window over the
/// cards), under `display`.
fn app(home: &Path, display: &str) -> RunningApp {
    let config = home.join("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("settings.json"),
        r#"{"welcome": {"shown": true}}"#,
    )
    .unwrap();
    std::fs::create_dir_all(home.join("project")).unwrap();
    let app = RunningApp::start(home, display);
    let socket = home.join("run").join("vults.sock");
    assert!(
        wait_until(60, || socket.exists()),
        "the app did not come up:\n{}",
        log_text(home)
    );
    app
}

/// The real hook asking for Claude Code's Bash `command`, waiting for its answer.
fn claude_bash(home: &Path, session: &str, command: &str) -> Child {
    let project = home.join("project");
    let mut child = Command::new(vults_tests::built_hook_bin())
        .args(["--agent", "claude", "PermissionRequest"])
        .env("VULTS_HOME", home)
        .env("HOME", home.join("home"))
        .current_dir(&project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the hook starts");
    let payload = json!({
        "session_id": session,
        "cwd": project.display().to_string(),
        "hook_event_name": "PermissionRequest",
        "tool_name": "Bash",
        "tool_input": {"command": command}
    });
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(payload.to_string().as_bytes()).unwrap();
    drop(stdin);
    child
}

/// Where a card's Copy button is, from its top-left corner: the same card laid out by the same
/// egui the window runs (the layout is the CPU's, whatever renders it).
fn copy_button_in_card(folder: &str, command: &str, height: f32) -> egui::Pos2 {
    use vults_core::protocol::{AgentKind, Identity};
    use vults_engine::messages::{PendingCard, Reason, SessionKey};
    let call = vults_core::agents::read_tool_call(&json!({
        "tool_name": "Bash", "tool_input": {"command": command}
    }));
    let identity = Identity::Builtin(AgentKind::Claude);
    let card = PendingCard {
        id: 1,
        agent: AgentKind::Claude,
        identity: identity.clone(),
        session: SessionKey {
            identity: "claude".into(),
            session: "s".into(),
        },
        folder: folder.into(),
        always_rule: Some(vults_core::rules::AlwaysRule::for_call(
            &identity, folder, &call, 0,
        )),
        file_rule: None,
        call,
        destructive: None,
        reason: Reason::NoRule,
        question: false,
        arrived: std::time::SystemTime::now(),
        context: Default::default(),
    };
    let mut view = vults_ui::card::CardView::new(&card);
    let mut h = egui_kittest::Harness::builder()
        .with_size(egui::vec2(vults_ui::card::WIDTH, height))
        .build_ui(move |ui| {
            egui::CentralPanel::default()
                .frame(vults_ui::look::card_frame(false))
                .show(ui, |ui| {
                    view.ui(ui, &card, std::time::SystemTime::now(), true);
                });
        });
    h.run();
    h.get_by_label("Copy").rect().center()
}

/// The hook's reply, once it has exited (within `secs`), or `None` while it still waits.
fn reply_within(hook: &mut Child, secs: u64) -> Option<String> {
    let exited = wait_until(secs, || hook.try_wait().unwrap().is_some());
    if !exited {
        return None;
    }
    let mut out = String::new();
    std::io::Read::read_to_string(hook.stdout.as_mut().unwrap(), &mut out).unwrap();
    Some(out.trim().to_string())
}

/// Copy on a card puts the exact command on the system clipboard: the release app had no
/// clipboard backend (eframe's `clipboard` feature was off), so Copy did nothing outside egui.
/// Then keys from `xdotool`, as fast as it types: Ctrl+A (select all) and Shift+A on a card
/// whose Always is offered answer nothing and Always respectively — here Ctrl+A must leave the
/// card waiting — and D denies.
#[test]
fn copy_reaches_the_x11_clipboard_and_fast_chords_mean_what_they_say() {
    let Some(xvfb) = Xvfb::start("copy") else {
        return;
    };
    if !tools("copy") {
        return;
    }
    let d = xvfb.display.clone();
    let home = vults_tests::TempHome::new("copy");
    let _app = app(&home.dir, &d);
    let command = "cargo build --release && ./target/release/vults-app --headless 2>&1 | tee \"build log.txt\" # ⟶ é";
    let mut hook = claude_bash(&home.dir, "s-copy", command);
    let cards = settled_cards(&d, 1);
    let (window, g) = cards[0].clone();
    let folder = home.dir.join("project").display().to_string();
    let at = copy_button_in_card(&folder, command, g.h as f32);
    let (cx, cy) = (g.x + at.x.round() as i64, g.y + at.y.round() as i64);
    x(
        &d,
        "xdotool",
        &["mousemove", &cx.to_string(), &cy.to_string()],
    );
    std::thread::sleep(Duration::from_millis(300));
    x(&d, "xdotool", &["click", "1"]);
    let mut clipboard = String::new();
    let copied = wait_until(10, || {
        clipboard = x(&d, "xclip", &["-o", "-selection", "clipboard"]);
        clipboard == command
    });
    assert!(
        copied,
        "the clipboard holds {clipboard:?}, not the command (Copy clicked at {cx},{cy} in {g:?})\n{}",
        log_text(&home.dir)
    );

    // The card has the keyboard now (the click asked for it); keys as fast as xdotool goes.
    x(&d, "xdotool", &["windowfocus", "--sync", &window]);
    x(&d, "xdotool", &["key", "--delay", "0", "ctrl+a"]);
    assert_eq!(
        reply_within(&mut hook, 2),
        None,
        "Ctrl+A (select all) answered the card"
    );
    x(&d, "xdotool", &["key", "--delay", "0", "d"]);
    let reply = reply_within(&mut hook, 20).expect("D answers the card");
    let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(
        reply["hookSpecificOutput"]["decision"]["behavior"], "deny",
        "{reply}"
    );
}

/// Issue 21: six cards on a 1400×900 screen, two hidden under others. On a screen too small for
/// six, the windows the X server shows never overlap and all are on the screen, and the app
/// says how many wait in the stack (the island's "+N more").
#[test]
fn six_cards_on_a_small_screen_never_cover_each_other() {
    let Some(xvfb) = Xvfb::start_sized("six cards", "1024x640x24") else {
        return;
    };
    if !tools("six cards") {
        return;
    }
    let d = xvfb.display.clone();
    let home = vults_tests::TempHome::new("six");
    let _app = app(&home.dir, &d);
    let commands = [
        "cargo build --release",
        "cargo test --workspace -- --nocapture",
        "npm run lint -- --fix && npm test",
        "docker compose up --build -d",
        "kubectl -n staging rollout status deploy/api",
        "git log --oneline -20",
    ];
    let hooks: Vec<Child> = commands
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let hook = claude_bash(&home.dir, &format!("s-{i}"), c);
            // One at a time, so the cards arrive in this order.
            std::thread::sleep(Duration::from_millis(300));
            hook
        })
        .collect();
    let mut line = String::new();
    assert!(
        wait_until(60, || {
            line = log_text(&home.dir)
                .lines()
                .rev()
                .find(|l| l.contains("cards: "))
                .unwrap_or_default()
                .to_string();
            line.contains("cards: ") && {
                let n: Vec<usize> = line
                    .split(|c: char| !c.is_ascii_digit())
                    .filter_map(|w| w.parse().ok())
                    .collect();
                n.len() >= 2 && n[n.len() - 2] + n[n.len() - 1] == 6
            }
        }),
        "the app never placed six cards: {line:?}\n{}",
        log_text(&home.dir)
    );
    let numbers: Vec<usize> = line
        .rsplit("cards: ")
        .next()
        .unwrap()
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    let (on_screen, stacked) = (numbers[0], numbers[1]);
    let cards = settled_cards(&d, on_screen);
    for (i, (a, ga)) in cards.iter().enumerate() {
        assert!(
            ga.x >= 0 && ga.y >= 0 && ga.x + ga.w <= 1024 && ga.y + ga.h <= 640,
            "card window {a} {ga:?} leaves the 1024×640 screen"
        );
        for (b, gb) in &cards[i + 1..] {
            assert!(!ga.overlaps(gb), "card window {a} {ga:?} covers {b} {gb:?}");
        }
    }
    assert!(
        on_screen >= 1 && stacked >= 1,
        "1024×640 has room for some of six cards, not all: {line}"
    );
    for mut hook in hooks {
        let _ = hook.kill();
        let _ = hook.wait();
    }
}
