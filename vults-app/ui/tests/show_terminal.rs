//! "Show terminal" in the window (issue 23): a bird's button, a card's button and its key `T`,
//! the island's menu, a Zeca task's button and a request from outside the window (a
//! notification's action) each ask the terminal side to show the right session's place, built
//! from what its latest event said; the line that comes back is drawn as a toast, on the bird
//! and on the card; Settings → General draws the survey's rows.

use crate::fixtures;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::sync::{Arc, Mutex};
use vults_engine::messages::{EngineEvent, Session, SessionKey, SessionTerminal};
use vults_i18n::Message;
use vults_terminal::{Place, Reach, Support};
use vults_ui::app::{Tab, VultsWindow};
use vults_ui::show_terminal::{ShowRequest, Shown, TerminalNews, TerminalSide};

/// A terminal side that records what it was asked and answers what the test gives it.
#[derive(Clone, Default)]
struct FakeTerminal {
    asked: Arc<Mutex<Vec<ShowRequest>>>,
    surveys: Arc<Mutex<usize>>,
    news: Arc<Mutex<Vec<TerminalNews>>>,
}

impl TerminalSide for FakeTerminal {
    fn show(&mut self, request: ShowRequest) {
        self.asked.lock().unwrap().push(request);
    }
    fn survey(&mut self) {
        *self.surveys.lock().unwrap() += 1;
    }
    fn poll(&mut self) -> Option<TerminalNews> {
        let mut news = self.news.lock().unwrap();
        (!news.is_empty()).then(|| news.remove(0))
    }
}

impl FakeTerminal {
    fn asked(&self) -> Vec<ShowRequest> {
        std::mem::take(&mut *self.asked.lock().unwrap())
    }
}

/// Four birds, each with where its agent runs: a tmux pane of its own (pid 1000 + i).
/// What a terminal side found, as it came.
fn said(text: &str) -> Message {
    Message::new("terminal-said").arg("text", text)
}

fn birds() -> Vec<Session> {
    fixtures::four_sessions()
        .into_iter()
        .enumerate()
        .map(|(i, mut s)| {
            s.terminal = Some(SessionTerminal {
                block: serde_json::from_value(serde_json::json!({
                    "cwd": s.folder,
                    "pid": 1000 + i,
                    "env": {"TMUX": "/tmp/tmux-1000/default,7,0", "TMUX_PANE": format!("%{i}")}
                }))
                .unwrap(),
                host: None,
                seen: fixtures::ago(30 + i as u64),
            });
            s
        })
        .collect()
}

/// The place the window must ask for: exactly what the session's latest event said.
fn place(s: &Session) -> Place {
    let t = s.terminal.as_ref().unwrap();
    match &t.host {
        Some(h) => Place::on_host(&t.block, h),
        None => Place::local(&t.block),
    }
    .seen_at(t.seen)
}

struct Shows {
    harness: Harness<'static, VultsWindow>,
    played: fixtures::Played,
    terminal: FakeTerminal,
    requests: std::sync::mpsc::Sender<SessionKey>,
}

fn window() -> Shows {
    let (window, played) = fixtures::played_window();
    let terminal = FakeTerminal::default();
    let (requests, rx) = std::sync::mpsc::channel();
    let window = window
        .with_terminal(Box::new(terminal.clone()))
        .with_show_terminal_requests(rx);
    let mut harness = fixtures::window_harness(window);
    for s in birds() {
        played.events.send(EngineEvent::SessionChanged(s)).unwrap();
    }
    harness.run_steps(3);
    Shows {
        harness,
        played,
        terminal,
        requests,
    }
}

#[test]
fn a_birds_show_terminal_asks_for_that_birds_place() {
    let mut w = window();
    assert_eq!(*w.terminal.surveys.lock().unwrap(), 1, "the survey, once");
    let birds = w
        .harness
        .state()
        .model
        .birds()
        .into_iter()
        .cloned()
        .collect::<Vec<_>>();
    // The Codex bird (the second): its button, by the name a screen reader says.
    w.harness
        .get_by_label("Show terminal of Codex CLI in /home/ada/src/website")
        .click();
    w.harness.run_steps(2);
    let asked = w.terminal.asked();
    let codex = birds.iter().find(|b| b.key.session == "x-1").unwrap();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].session, codex.key);
    assert_eq!(asked[0].place, place(codex));
    assert_eq!(asked[0].who, "Codex CLI");
    // While it runs the button says so and asks no second time.
    w.harness
        .get_by_label("Showing terminal of Codex CLI in /home/ada/src/website");
    w.terminal
        .news
        .lock()
        .unwrap()
        .push(TerminalNews::Shown(Shown {
            session: codex.key.clone(),
            line: Message::new("terminal-showed").arg(
                "what",
                said("tmux pane %1 (window @1, session work) in xterm (pid 300)"),
            ),
            ok: true,
            at: fixtures::now(),
        }));
    w.harness.run_steps(3);
    // The toast, the bird and the status line say it.
    let drawn = w
        .harness
        .query_all_by_label("Showed tmux pane %1 (window @1, session work) in xterm (pid 300)")
        .count();
    assert_eq!(drawn, 3, "toast, bird and status line");
    w.harness
        .get_by_label("Show terminal of Codex CLI in /home/ada/src/website");
    let _ = &w.played;
}

#[test]
fn a_cards_button_and_its_key_t_ask_for_the_cards_session() {
    let mut w = window();
    let opencode = w
        .harness
        .state()
        .model
        .sessions
        .values()
        .find(|s| s.key.session == "o-1")
        .cloned()
        .unwrap();
    let mut card = fixtures::bash_card(7, "cargo test");
    card.session = opencode.key.clone();
    w.played.events.send(EngineEvent::CardAdded(card)).unwrap();
    w.harness.run_steps(3);
    // The card says its key, and has the button beside Allow and Deny.
    w.harness.get_by_label_contains("· T terminal");
    w.harness.get_by_label("Show terminal").click();
    w.harness.run_steps(2);
    let asked = w.terminal.asked();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].session, opencode.key);
    assert_eq!(asked[0].place, place(&opencode));
    // Its line comes back: on the card too, and a failure reads as one.
    w.terminal
        .news
        .lock()
        .unwrap()
        .push(TerminalNews::Shown(Shown {
            session: opencode.key.clone(),
            line: Message::new("terminal-cannot-show")
                .arg("who", "OpenCode")
                .arg(
                    "reason",
                    Message::new("terminal-failure-mac-automation").arg("app", "Terminal"),
                ),
            ok: false,
            at: fixtures::now(),
        }));
    w.harness.run_steps(3);
    let line = "Cannot show OpenCode's terminal: macOS did not let Vults control Terminal: allow it in System Settings > Privacy & Security > Automation";
    assert_eq!(
        w.harness.query_all_by_label(line).count(),
        4,
        "toast, bird, card and status line"
    );
    // T on the card that takes the keys asks again (and answers nothing).
    w.harness.key_press(egui::Key::T);
    w.harness.run_steps(2);
    let asked = w.terminal.asked();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].session, opencode.key);
    assert!(
        w.played.commands.try_iter().next().is_none(),
        "T answers no card"
    );
    assert_eq!(w.harness.state().model.cards.len(), 1);
}

#[test]
fn the_islands_menu_and_a_notifications_request_show_a_session() {
    let mut w = window();
    w.harness.get_by_label("4 birds").click_secondary();
    w.harness.run_steps(3);
    // One row per bird, waiting first.
    w.harness
        .get_by_label_contains("deploy-bot · working · /srv/releases")
        .click();
    w.harness.run_steps(3);
    let asked = w.terminal.asked();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].session.session, "d-1");
    assert!(
        w.harness
            .query_by_label_contains("deploy-bot · working")
            .is_none(),
        "the menu closes once a row is chosen"
    );
    // A notification's "Show terminal" from another thread: the session's key is enough.
    let claude = SessionKey {
        identity: "claude".into(),
        session: "c-1".into(),
    };
    w.requests.send(claude.clone()).unwrap();
    w.harness.run_steps(2);
    let asked = w.terminal.asked();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].session, claude);
    // A session that has left the flock, or that never said where it runs, says so at once.
    w.requests
        .send(SessionKey {
            identity: "claude".into(),
            session: "gone".into(),
        })
        .unwrap();
    w.harness.run_steps(2);
    let gone = "Cannot show the terminal: that session has left the flock";
    assert_eq!(
        w.harness.query_all_by_label(gone).count(),
        2,
        "the toast and the status line"
    );
    let mut quiet = fixtures::four_sessions().remove(1);
    quiet.key.session = "x-2".into();
    quiet.folder = "/home/ada/src/quiet".into();
    w.played
        .events
        .send(EngineEvent::SessionChanged(quiet))
        .unwrap();
    w.harness.run_steps(2);
    w.harness
        .get_by_label("Show terminal of Codex CLI in /home/ada/src/quiet")
        .click();
    w.harness.run_steps(2);
    assert!(w.terminal.asked().is_empty());
    let quiet = "Cannot show Codex CLI's terminal: its events have not said where it runs";
    assert_eq!(
        w.harness.query_all_by_label(quiet).count(),
        3,
        "the toast, the bird and the status line"
    );
}

#[test]
fn a_zeca_tasks_show_terminal_asks_for_its_birds_session() {
    let mut w = window();
    let mut conv = vults_zeca::Conversation::new("c9", "/home/ada/src/vults", "claude");
    conv.entries = vec![
        vults_zeca::Entry::User {
            text: "start the task".into(),
        },
        vults_zeca::Entry::Task {
            id: "t9".into(),
            folder: "/home/ada/src/vults".into(),
            agent: "claude".into(),
            prompt: "write the file".into(),
            headless: false,
            state: "opened in the terminal".into(),
        },
    ];
    w.played
        .chat_events
        .send(vults_zeca::ChatEvent::Updated(conv))
        .unwrap();
    let mut bird = birds().remove(2);
    bird.task = Some("t9".into());
    w.played
        .events
        .send(EngineEvent::SessionChanged(bird.clone()))
        .unwrap();
    w.harness.state_mut().tab = Tab::Chat;
    w.harness.run_steps(3);
    w.harness.get_by_label("Conversation").click();
    w.harness.run_steps(2);
    w.harness.get_by_label_contains("start the task\n").click();
    w.harness.run_steps(3);
    w.harness.get_by_label("Show terminal of task t9").click();
    w.harness.run_steps(2);
    let asked = w.terminal.asked();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].session, bird.key);
    assert_eq!(asked[0].place, place(&bird));
}

#[test]
fn settings_general_lists_what_each_terminal_supports() {
    let mut w = window();
    w.harness.state_mut().tab = Tab::General;
    w.harness.run_steps(2);
    w.harness.get_by_label("Looking for terminals…");
    let rows = vec![
        Support {
            name: Message::new("terminal-survey-desktop-x11").arg("manager", "Openbox"),
            reach: Reach::Window,
            how: Message::new("terminal-survey-x11"),
        },
        Support {
            name: Message::new("terminal-survey-tool")
                .arg("tool", "tmux")
                .arg("version", "3.3a"),
            reach: Reach::Pane,
            how: Message::new("terminal-survey-tmux"),
        },
        Support {
            name: Message::new("terminal-survey-tool")
                .arg("tool", "kitty")
                .arg("version", "0.26.5"),
            reach: Reach::Window,
            how: Message::new("terminal-survey-window"),
        },
    ];
    w.terminal
        .news
        .lock()
        .unwrap()
        .push(TerminalNews::Survey(rows.clone()));
    w.harness.run_steps(3);
    assert!(w.harness.query_by_label("Looking for terminals…").is_none());
    w.harness.get_by_label("Desktop: X11 (Openbox)");
    w.harness
        .get_by_label("windows are raised with _NET_ACTIVE_WINDOW");
    w.harness.get_by_label("tmux 3.3a");
    for row in &rows {
        w.harness.get_by_label(&row.name.text());
        w.harness.get_by_label(&row.how.text());
    }
    assert_eq!(w.harness.query_all_by_label("tab / pane").count(), 1);
    assert_eq!(w.harness.query_all_by_label("window").count(), 2);
}

/// The island's menu tells two sessions apart by their last folder (a folder was cut at its
/// end: `~/src/acme/api` and `~/src/acme/web` read the same), and names a session's task.
#[test]
fn the_island_menu_keeps_what_tells_two_folders_apart() {
    let bird = |id: &str, folder: &str| {
        fixtures::session(fixtures::Bird {
            agent: vults_core::protocol::AgentKind::Claude,
            name: None,
            id,
            folder,
            state: vults_engine::messages::SessionState::Done,
            tool: None,
            cost: None,
            limits: None,
        })
    };
    let long = "/tmp/vults-just-a-long-temp-folder-of-a-test/src/acme";
    let api = bird("a", &format!("{long}/api"));
    let mut web = bird("w", &format!("{long}/web"));
    web.task = Some("Fix the login page".into());
    let model = vults_ui::state::Model::default();
    let mut h = fixtures::builder()
        .with_size(egui::vec2(700.0, 200.0))
        .build_ui(move |ui| {
            vults_ui::show_terminal_toast::menu_ui(ui, &[&api, &web], &model);
        });
    h.run();
    let label = |needle: &str| {
        use egui_kittest::kittest::NodeT;
        let node = h.get_by_label_contains(needle);
        let node = node.accesskit_node();
        node.label().or_else(|| node.value()).unwrap_or_default()
    };
    let (api, web) = (label("/api"), label("/web"));
    assert!(api.starts_with("Claude Code · "), "{api}");
    assert!(api.contains("…/api"), "cut in the middle: {api}");
    assert!(web.ends_with("…/web · Fix the login page"), "{web}");
}

/// The Show terminal button's tooltip, at the right end of a card's window no wider than a
/// card, stays inside that window (it ran past its right edge, cut, when the tooltip took the
/// context's width and not the card's).
#[test]
fn the_show_terminal_tooltip_fits_a_card_window() {
    let width = vults_ui::card::WIDTH;
    let hint = "Bring the agent's terminal window, tab and pane forward (nothing is typed into \
                it). Shortcut: T";
    let mut harness = Harness::builder()
        .with_size(egui::vec2(width, 240.0))
        .build_ui(move |ui| {
            ui.spacing_mut().tooltip_width = width * 0.6;
            ui.with_layout(egui::Layout::right_to_left(egui::Align::TOP), |ui| {
                vults_ui::show_terminal::button(ui, false, hint, None);
            });
        });
    harness.run();
    harness.get_by_label("Show terminal").hover();
    harness.run();
    // egui shows a tooltip after a short delay (kittest's frames advance its clock).
    let mut shown = None;
    for _ in 0..60 {
        harness.step();
        if let Some(node) = harness.query_by_label(hint) {
            shown = Some(node.rect());
            break;
        }
    }
    let rect = shown.expect("the tooltip shows");
    assert!(
        rect.right() <= width && rect.left() >= 0.0,
        "the tooltip at {rect:?} runs out of a card's window {width} wide"
    );
}
