//! A card's keys mean what the key press said: each press is read from its own event, with the
//! modifiers winit gave that very press. A fast chord (`xdotool key --delay 0 shift+a`) reaches
//! egui as one frame of events — Shift down, A down with Shift, A up, Shift up — so the frame's
//! modifiers already say "none" when the card is drawn; a card that read those answered Allow
//! for Shift+A, and Allow for Ctrl+A (select all). Each test below feeds one frame exactly as
//! egui-winit builds it from such a burst.

use crate::fixtures::{self, CardState, card_harness};
use egui::{Event, Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use vults_core::agents::Target;
use vults_engine::messages::CardAnswer;

fn key(key: Key, pressed: bool, modifiers: Modifiers) -> Event {
    Event::Key {
        key,
        physical_key: None,
        pressed,
        repeat: false,
        modifiers,
    }
}

/// One frame holding `events`, as winit delivered them between two frames.
fn frame(h: &mut Harness<'_, CardState>, events: Vec<Event>) {
    h.input_mut().events.extend(events);
    h.step();
    h.step();
}

/// `k` pressed and released, with no modifier.
fn tap(k: Key) -> Vec<Event> {
    vec![
        key(k, true, Modifiers::NONE),
        key(k, false, Modifiers::NONE),
    ]
}

/// `modifier+key` pressed and released within one frame: the frame ends with no modifier.
fn fast_chord(modifiers: Modifiers, k: Key) -> Vec<Event> {
    vec![
        Event::ModifiersChanged(modifiers),
        key(k, true, modifiers),
        key(k, false, modifiers),
        Event::ModifiersChanged(Modifiers::NONE),
    ]
}

fn destructive() -> fixtures::CardState {
    let mut card = fixtures::bash_card(1, "git push --force origin main");
    card.destructive = Some("git push --force".into());
    card.always_rule = None;
    CardState {
        view: vults_ui::card::CardView::new(&card),
        card,
        answer: None,
    }
}

fn web_fetch() -> vults_engine::messages::PendingCard {
    fixtures::card(
        2,
        fixtures::call(
            "WebFetch",
            Target::Url {
                url: "https://example.com/install.sh".into(),
            },
        ),
        None,
    )
}

#[test]
fn a_fast_shift_a_on_a_destructive_card_answers_nothing() {
    let mut h = card_harness(fixtures::bash_card(1, "x"));
    *h.state_mut() = destructive();
    h.run();
    frame(&mut h, fast_chord(Modifiers::SHIFT, Key::A));
    assert_eq!(
        h.state().answer,
        None,
        "Shift+A is Always, which a destructive card does not offer: never Allow"
    );
    // Plain A still allows it: the key said A.
    frame(&mut h, vec![key(Key::A, true, Modifiers::NONE)]);
    assert_eq!(h.state().answer, Some(CardAnswer::Allow));
}

#[test]
fn a_fast_shift_a_is_always_and_an_a_before_shift_is_allow() {
    let mut h = card_harness(fixtures::bash_card(3, "cargo test"));
    h.run();
    frame(&mut h, fast_chord(Modifiers::SHIFT, Key::A));
    assert_eq!(h.state().answer, Some(CardAnswer::AlwaysAllow));

    // The other way round: A pressed alone, and Shift pressed before the frame is drawn (the
    // frame's modifiers say Shift, the press did not).
    let mut h = card_harness(fixtures::bash_card(4, "cargo test"));
    h.run();
    frame(
        &mut h,
        vec![
            key(Key::A, true, Modifiers::NONE),
            key(Key::A, false, Modifiers::NONE),
            Event::ModifiersChanged(Modifiers::SHIFT),
        ],
    );
    assert_eq!(h.state().answer, Some(CardAnswer::Allow));
}

#[test]
fn ctrl_alt_and_command_chords_never_answer() {
    for modifiers in [
        Modifiers::CTRL,
        Modifiers::ALT,
        Modifiers::COMMAND,
        Modifiers::MAC_CMD,
        Modifiers::CTRL | Modifiers::SHIFT,
        Modifiers::ALT | Modifiers::SHIFT,
    ] {
        let mut h = card_harness(web_fetch());
        h.run();
        for k in [Key::A, Key::D] {
            frame(&mut h, fast_chord(modifiers, k));
            // Held across frames, too.
            frame(&mut h, vec![Event::ModifiersChanged(modifiers)]);
            frame(
                &mut h,
                vec![key(k, true, modifiers), key(k, false, modifiers)],
            );
            frame(&mut h, vec![Event::ModifiersChanged(Modifiers::NONE)]);
        }
        assert_eq!(h.state().answer, None, "{modifiers:?}");
    }
}

/// egui has no Super modifier on Linux and Windows: the card follows the Super key's own
/// events, in order, within a frame and across frames.
#[test]
fn a_super_chord_never_answers() {
    let mut h = card_harness(web_fetch());
    h.run();
    frame(
        &mut h,
        vec![
            key(Key::SuperLeft, true, Modifiers::NONE),
            key(Key::A, true, Modifiers::NONE),
            key(Key::A, false, Modifiers::NONE),
            key(Key::SuperLeft, false, Modifiers::NONE),
        ],
    );
    assert_eq!(h.state().answer, None);
    frame(&mut h, vec![key(Key::SuperRight, true, Modifiers::NONE)]);
    frame(&mut h, vec![key(Key::D, true, Modifiers::NONE)]);
    frame(&mut h, vec![key(Key::D, false, Modifiers::NONE)]);
    assert_eq!(h.state().answer, None, "Super held since an earlier frame");
    frame(&mut h, vec![key(Key::SuperRight, false, Modifiers::NONE)]);
    frame(&mut h, vec![key(Key::D, true, Modifiers::NONE)]);
    assert_eq!(h.state().answer, Some(CardAnswer::Deny), "Super released");
}

/// A held A answers one card: its repeats do not answer the card that comes up next.
#[test]
fn a_held_key_repeating_does_not_answer_the_next_card() {
    let mut h = card_harness(fixtures::bash_card(5, "ls"));
    h.run();
    frame(&mut h, vec![key(Key::A, true, Modifiers::NONE)]);
    assert_eq!(h.state().answer, Some(CardAnswer::Allow));
    let next = fixtures::bash_card(6, "rm -rf ./dist");
    *h.state_mut() = CardState {
        view: vults_ui::card::CardView::new(&next),
        card: next,
        answer: None,
    };
    // The key is still down: winit sends it again, egui marks it a repeat.
    frame(&mut h, vec![key(Key::A, true, Modifiers::NONE)]);
    frame(&mut h, vec![key(Key::A, true, Modifiers::NONE)]);
    assert_eq!(h.state().answer, None);
    frame(&mut h, vec![key(Key::A, false, Modifiers::NONE)]);
    frame(&mut h, vec![key(Key::A, true, Modifiers::NONE)]);
    assert_eq!(h.state().answer, Some(CardAnswer::Allow));
}

#[test]
fn a_question_card_takes_keys_too() {
    let mut card = fixtures::question_card(7);
    if let Target::Questions { questions } = &mut card.call.target {
        questions.truncate(1);
    }
    let mut h = card_harness(card);
    h.run();
    h.get_by_label("Keys: 1–2 choose · Enter answer · D deny · T terminal");
    // Enter with nothing chosen sends nothing.
    frame(&mut h, tap(Key::Enter));
    assert_eq!(h.state().answer, None);
    // Ctrl+2 is no choice; 2 chooses Postgres; Enter sends it.
    frame(&mut h, fast_chord(Modifiers::CTRL, Key::Num2));
    frame(&mut h, tap(Key::Enter));
    assert_eq!(h.state().answer, None);
    frame(&mut h, tap(Key::Num2));
    frame(&mut h, tap(Key::Enter));
    assert_eq!(
        h.state().answer,
        Some(CardAnswer::Answers(vec![
            vults_core::protocol::AnswerItem::One("Postgres".into())
        ]))
    );

    // D denies a question card; Shift+D does not.
    let mut h = card_harness(fixtures::question_card(8));
    h.run();
    h.get_by_label("Keys: Enter answer · D deny · T terminal");
    frame(&mut h, fast_chord(Modifiers::SHIFT, Key::D));
    assert_eq!(h.state().answer, None);
    frame(&mut h, tap(Key::D));
    assert_eq!(h.state().answer, Some(CardAnswer::Deny));
}
