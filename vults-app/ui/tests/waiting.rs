//! Sessions that wait for the person without a card: a finished turn says "done — waiting for
//! you", a question in the agent's own terminal "asks in its terminal"; the flock sorts them
//! first (after a card's bird) and the island counts them with the cards.

use crate::fixtures::{self, Bird};
use egui_kittest::kittest::Queryable;
use vults_core::protocol::AgentKind;
use vults_engine::messages::{EngineEvent, Session, SessionState};

fn bird(agent: AgentKind, id: &'static str, folder: &'static str, state: SessionState) -> Session {
    fixtures::session(Bird {
        agent,
        name: None,
        id,
        folder,
        state,
        tool: None,
        cost: None,
        limits: None,
    })
}

#[test]
fn done_and_asking_birds_say_so_come_first_and_the_island_counts_them() {
    let (window, played) = fixtures::played_window();
    let mut h = fixtures::window_harness(window);
    let mut working = bird(
        AgentKind::Codex,
        "x-1",
        "/home/ada/w",
        SessionState::Working,
    );
    // The working bird was heard from last: it still sorts after the ones that wait.
    working.last_event = fixtures::now();
    for s in [
        working,
        bird(AgentKind::Claude, "c-1", "/home/ada/d", SessionState::Done),
        bird(
            AgentKind::Qwen,
            "q-1",
            "/home/ada/q",
            SessionState::AsksInTerminal,
        ),
        bird(
            AgentKind::Opencode,
            "o-1",
            "/home/ada/i",
            SessionState::Idle,
        ),
    ] {
        played.events.send(EngineEvent::SessionChanged(s)).unwrap();
    }
    h.run_steps(3);
    // Two wait for the person, with no card up.
    h.get_by_label("4 birds, 2 waiting");
    h.get_by_label("done — waiting for you");
    h.get_by_label("asks in its terminal");
    let top = |folder: &str| h.get_by_label(folder).rect().top();
    let (asks, done, work, idle) = (
        top("/home/ada/q"),
        top("/home/ada/d"),
        top("/home/ada/w"),
        top("/home/ada/i"),
    );
    assert!(
        asks < done && done < work && work < idle,
        "asks {asks}, done {done}, working {work}, idle {idle}"
    );

    // A new turn: the Claude Code bird works again, and the island counts one.
    played
        .events
        .send(EngineEvent::SessionChanged(bird(
            AgentKind::Claude,
            "c-1",
            "/home/ada/d",
            SessionState::Working,
        )))
        .unwrap();
    h.run_steps(3);
    h.get_by_label("4 birds, 1 waiting");
    assert!(h.query_by_label("done — waiting for you").is_none());
}
