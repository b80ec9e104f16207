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
                .frame(vults_ui::theme::card_frame(false))
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

/// A small seeded random source: the same run every time.
struct Dice(u64);

impl Dice {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n.max(1)
    }
}

impl Geometry {
    fn contains(&self, (px, py): (i64, i64)) -> bool {
        px >= self.x && px < self.x + self.w && py >= self.y && py < self.y + self.h
    }
}

/// The card windows on screen by card number ("Vults: Claude Code — Bash (card 7)"), each with
/// its geometry.
fn numbered_cards(display: &str) -> Vec<(u64, Geometry)> {
    card_windows(display)
        .into_iter()
        .filter_map(|(id, g)| {
            let title = x(display, "xdotool", &["getwindowname", &id]);
            let n = title.rsplit_once("(card ")?.1.trim_end_matches(')');
            Some((n.parse().ok()?, g))
        })
        .collect()
}

/// How many cards the app says are up and wait in the stack (its log's last "cards: " line).
fn counted(home: &std::path::Path) -> Option<(usize, usize)> {
    let text = log_text(home);
    let line = text.lines().rev().find(|l| l.contains("cards: "))?;
    let n: Vec<usize> = line
        .rsplit("cards: ")
        .next()?
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    Some((*n.first()?, *n.get(1)?))
}

/// What the run knows of the cards: where each was seen, when it was first seen, and the
/// earliest it can have been put where it is (the last place freed before it was seen).
#[derive(Default)]
struct Seen {
    /// Each card's geometry once it had settled (a second after it was first seen).
    kept: std::collections::HashMap<u64, Geometry>,
    first: std::collections::HashMap<u64, std::time::Instant>,
    /// The earliest each card can have taken its place.
    earliest: std::collections::HashMap<u64, std::time::Instant>,
    /// Every geometry each card was seen at.
    at: std::collections::HashMap<u64, Vec<Geometry>>,
    /// When a place was last freed (a hook killed, a card answered).
    freed: Option<std::time::Instant>,
    start: Option<std::time::Instant>,
}

impl Seen {
    /// Looks at the screen: every card that stays up keeps its exact geometry.
    fn look(&mut self, display: &str) -> Vec<(u64, Geometry)> {
        let now = std::time::Instant::now();
        let start = *self.start.get_or_insert(now);
        let cards = numbered_cards(display);
        for (n, g) in &cards {
            let first = *self.first.entry(*n).or_insert(now);
            self.earliest
                .entry(*n)
                .or_insert(self.freed.unwrap_or(start));
            self.at.entry(*n).or_default().push(*g);
            match self.kept.get(n) {
                Some(kept) => assert_eq!(
                    kept, g,
                    "card {n} moved or changed size while it was up: {kept:?}, then {g:?}"
                ),
                None if now.duration_since(first) > Duration::from_millis(1500) => {
                    self.kept.insert(*n, *g);
                }
                None => {}
            }
        }
        cards
    }
}

/// Issue 38: ten cards (six on screen, "+4 more"), fed by the real hook over the real socket.
/// At random (seeded) a card's hook is killed (its card is withdrawn) or a card is answered by
/// a click, while a clicker clicks where it last saw a card's Allow: at once after that card
/// went (the card of the stack that takes its place must not answer), or once the new card
/// has been up a while (it answers). No click ever answers a card that cannot have been drawn
/// at that spot `ARM_DELAY` before the click, and every card that stays up keeps its exact
/// geometry (`xwininfo`) all through.
#[test]
fn ten_cards_never_move_and_a_click_answers_only_a_card_read_there() {
    use std::time::Instant;
    let Some(xvfb) = Xvfb::start_sized("ten cards", "1400x900x24") else {
        return;
    };
    if !desktop_tools("ten cards", &["xdotool", "xwininfo"]) {
        return;
    }
    let d = xvfb.display.clone();
    let home = vults_tests::TempHome::new("ten-cards");
    let _app = app_with(&home.dir, &d, json!({"welcome": {"shown": true}}));
    let delay = Duration::from_secs_f64(vults_ui::card::ARM_DELAY);
    let folder = home.dir.join("project").display().to_string();
    let mut dice = Dice(38);
    // Hook k asks for card k (the engine numbers cards from 1 as they come, one at a time).
    let mut hooks: Vec<Option<Child>> = Vec::new();
    let mut live = 0;
    let add = |hooks: &mut Vec<Option<Child>>, live: &mut usize| {
        let k = hooks.len() + 1;
        hooks.push(Some(claude_bash(&home.dir, &format!("s-{k}"), "echo card")));
        *live += 1;
        let want = *live;
        assert!(
            wait_until(30, || if want == 1 {
                card_windows(&d).len() == 1
            } else {
                counted(&home.dir).is_some_and(|(up, stacked)| up + stacked == want)
            }),
            "card {k} did not come: {:?}\n{}",
            counted(&home.dir),
            log_text(&home.dir)
        );
    };
    for _ in 0..10 {
        add(&mut hooks, &mut live);
    }
    assert_eq!(counted(&home.dir), Some((6, 4)), "{}", log_text(&home.dir));
    let mut seen = Seen::default();
    let cards = settled_cards(&d, 6);
    seen.look(&d);
    // Every card asks the same, so its Allow is at the same spot in each.
    let height = cards[0].1.h;
    let allow = button_in_card(&folder, "echo card", height as f32, "Allow");
    let spot_of = |g: &Geometry| (g.x + allow.x.round() as i64, g.y + allow.y.round() as i64);
    // The hooks answered since the last look, each with its reply.
    let answered = |hooks: &mut Vec<Option<Child>>| -> Vec<(u64, String)> {
        let mut out = Vec::new();
        for (i, slot) in hooks.iter_mut().enumerate() {
            if let Some(hook) = slot
                && hook.try_wait().unwrap().is_some()
            {
                let reply = reply_within(hook, 0).unwrap_or_default();
                out.push((i as u64 + 1, reply));
                *slot = None;
            }
        }
        out
    };
    let click = |spot: (i64, i64)| {
        // The pointer comes to the spot and moves a little, as a hand does, then clicks.
        for dx in [-3, 0] {
            x(
                &d,
                "xdotool",
                &["mousemove", &(spot.0 + dx).to_string(), &spot.1.to_string()],
            );
        }
        x(&d, "xdotool", &["click", "1"]);
    };
    // Checks a click made from `from` to `to` at `spot`: whatever answered was at the spot and
    // can have been up there the delay before the click.
    let check = |seen: &Seen, from: Instant, to: Instant, spot, got: &[(u64, String)]| {
        for (k, reply) in got {
            assert!(
                reply.contains("allow"),
                "card {k} was answered, not allowed: {reply}"
            );
            let at = seen.at.get(k).cloned().unwrap_or_default();
            assert!(
                at.iter().all(|g| g.contains(spot)),
                "a click at {spot:?} answered card {k}, seen at {at:?}"
            );
            let earliest = seen.earliest[k];
            assert!(
                to.duration_since(earliest) >= delay
                    || earliest <= from.checked_sub(delay).unwrap(),
                "a click at {spot:?} answered card {k}, which can have been there only {:?} \
                 before the click",
                to.duration_since(earliest)
            );
        }
    };
    let (mut refused_rounds, mut late_answers, mut direct_answers) = (0, 0, 0);
    // Fourteen rounds of the dice, then (on a machine so loaded that no click came within the
    // delay of a card going) rounds of clicking at once until one has.
    for round in 0..24 {
        if round >= 14 && refused_rounds > 0 {
            break;
        }
        let up = seen.look(&d);
        if up.is_empty() {
            break;
        }
        let (card, g) = up[dice.next(up.len() as u64) as usize];
        let spot = spot_of(&g);
        let kind = if round >= 14 { 0 } else { dice.next(3) };
        match kind {
            // Its hook ends; the clicker, pointing at its Allow, clicks at once.
            0 => {
                x(
                    &d,
                    "xdotool",
                    &["mousemove", &spot.0.to_string(), &spot.1.to_string()],
                );
                let under = || x(&d, "xdotool", &["getmouse", "--shell"]);
                let before = under();
                let killed = Instant::now();
                let Some(mut hook) = hooks[card as usize - 1].take() else {
                    continue; // answered a moment ago: its window is going
                };
                let _ = hook.kill();
                let _ = hook.wait();
                live -= 1;
                seen.freed = Some(killed);
                // Until another window is under the pointer (the card of the stack took the
                // place), at most a moment. One X client per look: a whole look at every card
                // takes a dozen, which on a loaded machine outlasts the delay.
                let _ = wait_until(1, || {
                    under() != before || killed.elapsed() > Duration::from_millis(250)
                });
                let from = Instant::now();
                x(&d, "xdotool", &["click", "1"]);
                let to = Instant::now();
                // Whatever the click did, the places settle.
                std::thread::sleep(Duration::from_millis(1500));
                seen.look(&d);
                let got = answered(&mut hooks);
                if to.duration_since(killed) < delay {
                    assert!(
                        got.is_empty(),
                        "round {round}: a click {:?} after card {card} went answered {got:?}",
                        to.duration_since(killed)
                    );
                    refused_rounds += 1;
                } else {
                    check(&seen, from, to, spot, &got);
                    live -= got.len();
                }
            }
            // Its hook ends; the clicker clicks where its Allow was once the card that took
            // its place has been up a while: that card answers.
            1 => {
                let stacked = counted(&home.dir).map_or(0, |(_, s)| s);
                let killed = Instant::now();
                let Some(mut hook) = hooks[card as usize - 1].take() else {
                    continue; // answered a moment ago: its window is going
                };
                let _ = hook.kill();
                let _ = hook.wait();
                live -= 1;
                seen.freed = Some(killed);
                while killed.elapsed() < Duration::from_millis(1500) {
                    seen.look(&d);
                    std::thread::sleep(Duration::from_millis(100));
                }
                let now = seen.look(&d);
                let there = now.iter().find(|(_, g)| g.contains(spot)).map(|(n, _)| *n);
                assert!(
                    there.is_some() || stacked == 0,
                    "round {round}: card {card} went and no card of the stack ({stacked}) took \
                     its place: {now:?}\n{}",
                    log_text(&home.dir)
                );
                let mut got = Vec::new();
                for _ in 0..3 {
                    let from = Instant::now();
                    click(spot);
                    let to = Instant::now();
                    let _ = wait_until(3, || {
                        got = answered(&mut hooks);
                        !got.is_empty()
                    });
                    check(&seen, from, to, spot, &got);
                    if !got.is_empty() {
                        seen.freed = Some(from);
                    }
                    if !got.is_empty() || there.is_none() {
                        break;
                    }
                }
                if let Some(n) = there {
                    assert_eq!(
                        got.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
                        vec![n],
                        "round {round}: card {n} took card {card}'s place a while ago"
                    );
                    late_answers += 1;
                }
                live -= got.len();
            }
            // A click on a card that has been up a while answers it.
            _ => {
                let mut got = Vec::new();
                for _ in 0..3 {
                    let from = Instant::now();
                    click(spot);
                    let to = Instant::now();
                    let _ = wait_until(3, || {
                        got = answered(&mut hooks);
                        !got.is_empty()
                    });
                    check(&seen, from, to, spot, &got);
                    if !got.is_empty() {
                        seen.freed = Some(from);
                        break;
                    }
                }
                assert_eq!(
                    got.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
                    vec![card],
                    "round {round}: a click on card {card}'s Allow"
                );
                direct_answers += 1;
                live -= 1;
                std::thread::sleep(Duration::from_millis(1000));
            }
        }
        // Keep the stack full: a new card now and then.
        if live < 8 && dice.next(2) == 0 {
            add(&mut hooks, &mut live);
        }
    }
    eprintln!(
        "ten cards: {refused_rounds} clicks too soon did nothing, {late_answers} cards that \
         took a freed place answered, {direct_answers} answered where they came"
    );
    assert!(
        refused_rounds > 0 && late_answers + direct_answers > 0,
        "the run never tried both"
    );
    for mut hook in hooks.into_iter().flatten() {
        let _ = hook.kill();
        let _ = hook.wait();
    }
}
