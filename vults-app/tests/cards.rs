//! Cards in the real window under `Xvfb`, fed by the real hook and read back from the X server:
//! Copy reaches the system clipboard (`xclip -o -selection clipboard`), a fast key chord means
//! what it says, and six cards on a small screen never cover each other (their windows'
//! geometry from the X server). Need `xdotool` and `xclip` besides `Xvfb`; with
//! `VULTS_DESKTOP_TESTS=1` a missing one is a failure, otherwise the test says why it skipped.

use super::support::{
    Xvfb, app_with, claude_bash, desktop_tools, log_text, reply_within, wait_until, x,
};
use egui_kittest::kittest::Queryable;
use serde_json::json;
use std::process::Child;
use std::time::Duration;

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

/// Where a card's Copy button is, from its top-left corner (see [`button_in_card`]).
fn copy_button_in_card(folder: &str, command: &str, height: f32) -> egui::Pos2 {
    button_in_card(folder, command, height, "Copy")
}

/// Where the button labelled `label` is on a card for Claude Code's Bash `command` in
/// `folder`, from the card's top-left corner: the same card laid out by the same egui the
/// window runs (the layout is the CPU's, whatever renders it).
pub(super) fn button_in_card(folder: &str, command: &str, height: f32, label: &str) -> egui::Pos2 {
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
    h.get_by_label(label).rect().center()
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
    if !desktop_tools("copy", &["xdotool", "xclip"]) {
        return;
    }
    let d = xvfb.display.clone();
    let home = vults_tests::TempHome::new("copy");
    let _app = app_with(&home.dir, &d, json!({"welcome": {"shown": true}}));
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
    if !desktop_tools("six cards", &["xdotool", "xclip"]) {
        return;
    }
    let d = xvfb.display.clone();
    let home = vults_tests::TempHome::new("six");
    let _app = app_with(&home.dir, &d, json!({"welcome": {"shown": true}}));
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
