//! The engine publishes: each subscriber reads its own stream, one that stalls or panics stalls
//! neither the engine nor the others, and one that falls behind catches up from the snapshot
//! without missing a card.

use crate::common::*;
use serde_json::json;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use vults_engine::messages::{AnsweredBy, CardAnswer, CardId, EngineCommand, EngineEvent};
use vults_engine::{BUS_BOUND, Subscription, TryRecvError};

const CLAUDE_ALLOW: &str = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#;
const CLAUDE_DENY: &str = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Denied from Vults"}}}"#;

/// How long the stalled subscriber blocks.
const STALL: Duration = Duration::from_secs(30);

/// Reads `sub` until an event matches (returned), or panics after [`PATIENCE`].
fn next_matching(
    sub: &mut Subscription,
    what: &str,
    mut pred: impl FnMut(&EngineEvent) -> bool,
) -> Arc<EngineEvent> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        match sub.try_recv() {
            Ok(ev) if pred(&ev) => return ev,
            Ok(_) => {}
            Err(TryRecvError::Empty) => {
                assert!(Instant::now() < deadline, "timed out waiting for {what}");
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(TryRecvError::Closed) => panic!("the engine stopped before {what}"),
        }
    }
}

fn card_of(sub: &mut Subscription, command: &str) -> CardId {
    let ev = next_matching(
        sub,
        command,
        |e| matches!(e, EngineEvent::CardAdded(c) if c.call.target.rule_key() == command),
    );
    match &*ev {
        EngineEvent::CardAdded(c) => c.id,
        _ => unreachable!(),
    }
}

fn claude_request(home: &Home, command: &str) -> std::process::Child {
    hook(
        home,
        &["--agent", "claude", "PermissionRequest"],
        &bash("s-1", command).to_string(),
    )
}

/// What a subscriber's events say waits: the cards it was told of and not told are gone.
#[derive(Default)]
struct View {
    cards: BTreeSet<CardId>,
    seen: BTreeSet<CardId>,
}

impl View {
    fn apply(&mut self, ev: &EngineEvent) {
        match ev {
            EngineEvent::CardAdded(c) => {
                self.cards.insert(c.id);
                self.seen.insert(c.id);
            }
            EngineEvent::CardRemoved { id, .. } => {
                self.cards.remove(id);
            }
            _ => {}
        }
    }
}

#[test]
fn a_subscriber_that_blocks_for_30_s_stalls_neither_the_engine_nor_the_others() {
    let home = Home::new("stalled");
    let mut engine = start(&home, true);
    // The app's way: nobody reads the first subscriber's channel.
    engine.close_events();
    let mut window = engine.subscribe();

    // A subscriber whose wake panics, and one that panics on the first card it reads.
    let _panicky_wake = engine.subscribe_waking(Arc::new(|| panic!("a wake that panics")));
    let mut panicking = engine.subscribe();
    let panicked = std::thread::spawn(move || {
        while let Some(ev) = panicking.blocking_recv() {
            if matches!(*ev, EngineEvent::CardAdded(_)) {
                panic!("a subscriber that panics on a card");
            }
        }
    });

    // The stalled one reads the first card, then blocks for 30 s, then reads what it can.
    let mut stalled = engine.subscribe();
    let (read_first, first_read) = std::sync::mpsc::channel();
    let stall_over = Arc::new(AtomicBool::new(false));
    let over = stall_over.clone();
    let stalled = std::thread::spawn(move || {
        let mut view = View::default();
        while let Some(ev) = stalled.blocking_recv() {
            view.apply(&ev);
            if matches!(*ev, EngineEvent::CardAdded(_)) {
                break;
            }
        }
        read_first.send(()).unwrap();
        std::thread::sleep(STALL);
        over.store(true, Ordering::SeqCst);
        loop {
            match stalled.try_recv() {
                Ok(ev) => view.apply(&ev),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Closed) => panic!("the engine stopped"),
            }
        }
        (view, stalled.caught_up())
    });

    // The first card: the window and the stalled subscriber both see it; Always allow.
    let child = claude_request(&home, "npm run build");
    let first = card_of(&mut window, "npm run build");
    first_read.recv().unwrap();
    engine.send(EngineCommand::Answer {
        card: first,
        answer: CardAnswer::AlwaysAllow,
        by: AnsweredBy::Click,
    });
    assert_eq!(hook_output(child), CLAUDE_ALLOW);

    // While it is stalled, far more events than the bus holds: one session each.
    let socket = home.paths().socket;
    let flood = 3 * BUS_BOUND as u64;
    let before = engine.stats().events;
    for i in 0..flood {
        let mut client = Client::connect(&socket);
        client.send(&event_line(
            &format!("f-{i}"),
            "claude",
            "PreToolUse",
            false,
            json!({"session_id": format!("flood-{i}"), "tool_name":"Bash",
                "tool_input":{"command": format!("echo {i}")}}),
        ));
    }
    eventually("the flood to reach the engine", || {
        engine.stats().events >= before + flood
    });

    // A rule still answers the hook, and cards still reach the window.
    assert_eq!(
        hook_output(claude_request(&home, "npm run build")),
        CLAUDE_ALLOW,
        "the rule answers while a subscriber is stalled"
    );
    let denied = claude_request(&home, "make deploy");
    let denied_id = card_of(&mut window, "make deploy");
    let waiting = claude_request(&home, "make release");
    let waiting_id = card_of(&mut window, "make release");
    engine.send(EngineCommand::Answer {
        card: denied_id,
        answer: CardAnswer::Deny,
        by: AnsweredBy::Click,
    });
    assert_eq!(hook_output(denied), CLAUDE_DENY);
    next_matching(
        &mut window,
        "the denied card to go",
        |e| matches!(e, EngineEvent::CardRemoved { id, .. } if *id == denied_id),
    );
    assert!(
        !stall_over.load(Ordering::SeqCst),
        "all of this happened while the subscriber was stalled"
    );
    assert!(
        panicked.join().is_err(),
        "the panicking subscriber did panic"
    );

    // Caught up from the snapshot: the card that waits, and not those answered meanwhile.
    let (view, caught_up) = stalled.join().unwrap();
    assert!(caught_up >= 1, "it fell behind and caught up");
    assert_eq!(
        view.cards,
        BTreeSet::from([waiting_id]),
        "the stalled subscriber knows exactly the card that waits"
    );
    assert!(view.seen.contains(&first) && view.seen.contains(&waiting_id));

    // The engine, still answering: the last card goes to its hook.
    engine.send(EngineCommand::Answer {
        card: waiting_id,
        answer: CardAnswer::Allow,
        by: AnsweredBy::Click,
    });
    assert_eq!(hook_output(waiting), CLAUDE_ALLOW);
}

#[test]
fn a_subscriber_made_later_starts_from_what_waits_and_hears_the_end() {
    let home = Home::new("late-sub");
    let mut engine = start(&home, true);
    let child = claude_request(&home, "cargo publish");
    let mut early = engine.subscribe();
    let id = card_of(&mut early, "cargo publish");

    // Made after the card came up, it starts with the rules, the policies and the card.
    let mut late = engine.subscribe();
    let mut first = Vec::new();
    while let Ok(ev) = late.try_recv() {
        first.push(ev);
    }
    assert!(matches!(*first[0], EngineEvent::Rules(_)), "{first:?}");
    assert!(
        first
            .iter()
            .any(|e| matches!(&**e, EngineEvent::Policies(_)))
    );
    assert!(
        first
            .iter()
            .any(|e| matches!(&**e, EngineEvent::SessionChanged(s) if s.key.session == "s-1"))
    );
    assert!(
        first
            .iter()
            .any(|e| matches!(&**e, EngineEvent::CardAdded(c) if c.id == id))
    );
    assert_eq!(late.caught_up(), 0);

    engine.send(EngineCommand::Answer {
        card: id,
        answer: CardAnswer::Allow,
        by: AnsweredBy::Phone("pixel".into()),
    });
    assert_eq!(hook_output(child), CLAUDE_ALLOW);
    // Each reads the answer for itself, and who gave it.
    for sub in [&mut early, &mut late] {
        let ev = next_matching(
            sub,
            "the answer",
            |e| matches!(e, EngineEvent::CardRemoved { id: i, .. } if *i == id),
        );
        assert!(
            matches!(&*ev, EngineEvent::CardRemoved { by, .. } if *by == AnsweredBy::Phone("pixel".into()))
        );
    }

    engine.stop();
    let mut rest = 0;
    loop {
        match late.try_recv() {
            Ok(_) => rest += 1,
            Err(TryRecvError::Closed) => break,
            Err(TryRecvError::Empty) => panic!("the stopped engine's stream must end"),
        }
        assert!(rest < 1000);
    }
    // A reader on a thread of its own hears the end too.
    while early.blocking_recv().is_some() {}
}
