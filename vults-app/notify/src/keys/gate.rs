//! The safety logic of the global keys: a small pure state machine that turns key presses into
//! intents. It never answers by itself — it returns an [`Intent`] the window carries out.
//!
//! - Any key with no card waiting does nothing.
//! - A key on a card the person has not been shown brings it up ([`Intent::ShowNewest`]); the
//!   window shows it and reports [`Gate::shown`]. Only a later press answers it.
//! - The answering press must come [`Gate::MIN_SECOND_PRESS`] after the card was shown: a held
//!   key's auto-repeat or a bounce is not a second look.
//! - The Allow key never answers a destructive card (not even to bring it up); the Deny key may.
//! - "Shown" belongs to the newest card: when another card becomes the newest, it must be shown
//!   before a key answers it, and after an answer the next one must be shown again.

use std::time::{Duration, Instant};

use super::KeyAction;
use crate::notice::CardId;

/// The newest waiting card as the gate sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GateCard {
    /// Its id.
    pub card: CardId,
    /// Whether the call is destructive (answered on its card only; the Allow key ignores it).
    pub destructive: bool,
}

/// What the window should do for a key press.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// Bring this card up in front of the person, then call [`Gate::shown`].
    ShowNewest(CardId),
    /// Allow this card, as a click on its Allow would.
    Allow(CardId),
    /// Deny this card, as a click on its Deny would.
    Deny(CardId),
}

/// Why a press did nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ignored {
    /// No card waits.
    NoCard,
    /// The Allow key on a destructive card: it is answered on the card.
    Destructive(CardId),
    /// The answering press came too soon after the card was shown.
    TooSoon(CardId),
}

/// The result of a press.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Do this.
    Intent(Intent),
    /// Nothing to do, and why (Settings or the island may say it).
    Ignored(Ignored),
}

/// The global keys' state: which card is newest, and whether it has been shown.
#[derive(Debug, Clone, Default)]
pub struct Gate {
    newest: Option<GateCard>,
    /// When the newest card was put in front of the person.
    shown_at: Option<Instant>,
}

impl Gate {
    /// The least time between a card coming up and a key answering it.
    pub const MIN_SECOND_PRESS: Duration = Duration::from_millis(400);

    /// A gate with no card.
    pub fn new() -> Gate {
        Gate::default()
    }

    /// The newest waiting card, each time the cards change (`None`: none waits). Another card
    /// than before starts unseen.
    pub fn set_newest(&mut self, newest: Option<GateCard>) {
        if self.newest.map(|c| c.card) != newest.map(|c| c.card) {
            self.shown_at = None;
        }
        self.newest = newest;
    }

    /// The window put `card` in front of the person at `at` (after an
    /// [`Intent::ShowNewest`]). Ignored unless `card` is the newest.
    pub fn shown(&mut self, card: CardId, at: Instant) {
        if self.newest.is_some_and(|c| c.card == card) {
            self.shown_at = Some(at);
        }
    }

    /// Whether the newest card has been shown since it became the newest.
    pub fn is_shown(&self) -> bool {
        self.shown_at.is_some()
    }

    /// A global key was pressed at `at`.
    pub fn press(&mut self, key: KeyAction, at: Instant) -> Outcome {
        let Some(card) = self.newest else {
            return Outcome::Ignored(Ignored::NoCard);
        };
        let answer = match key {
            KeyAction::ShowNewest => return Outcome::Intent(Intent::ShowNewest(card.card)),
            KeyAction::Allow if card.destructive => {
                return Outcome::Ignored(Ignored::Destructive(card.card));
            }
            KeyAction::Allow => Intent::Allow(card.card),
            KeyAction::Deny => Intent::Deny(card.card),
        };
        match self.shown_at {
            None => Outcome::Intent(Intent::ShowNewest(card.card)),
            Some(t) if at.saturating_duration_since(t) < Gate::MIN_SECOND_PRESS => {
                Outcome::Ignored(Ignored::TooSoon(card.card))
            }
            Some(_) => {
                // One press, one answer: the next card (or this one again) must be shown anew.
                self.shown_at = None;
                Outcome::Intent(answer)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAFE: GateCard = GateCard {
        card: 1,
        destructive: false,
    };
    const RM: GateCard = GateCard {
        card: 2,
        destructive: true,
    };

    fn later(t: Instant, ms: u64) -> Instant {
        t + Duration::from_millis(ms)
    }

    #[test]
    fn no_card_no_intent() {
        let mut g = Gate::new();
        let t = Instant::now();
        for k in KeyAction::ALL {
            assert_eq!(g.press(k, t), Outcome::Ignored(Ignored::NoCard));
        }
    }

    #[test]
    fn the_first_press_brings_the_card_up_and_a_second_answers_it() {
        let t = Instant::now();
        for (key, answer) in [
            (KeyAction::Allow, Intent::Allow(1)),
            (KeyAction::Deny, Intent::Deny(1)),
        ] {
            let mut g = Gate::new();
            g.set_newest(Some(SAFE));
            assert_eq!(g.press(key, t), Outcome::Intent(Intent::ShowNewest(1)));
            // Pressed again before the window showed it: still only brings it up.
            assert_eq!(
                g.press(key, later(t, 900)),
                Outcome::Intent(Intent::ShowNewest(1))
            );
            g.shown(1, later(t, 1000));
            assert_eq!(
                g.press(key, later(t, 1100)),
                Outcome::Ignored(Ignored::TooSoon(1)),
                "auto-repeat of a held key is not a second look"
            );
            assert_eq!(g.press(key, later(t, 1400)), Outcome::Intent(answer));
            // Answered once; the same card (still newest until the engine says) is not answered
            // twice by a third press.
            assert_eq!(
                g.press(key, later(t, 2000)),
                Outcome::Intent(Intent::ShowNewest(1))
            );
        }
    }

    #[test]
    fn the_allow_key_never_answers_a_destructive_card() {
        let t = Instant::now();
        let mut g = Gate::new();
        g.set_newest(Some(RM));
        assert_eq!(
            g.press(KeyAction::Allow, t),
            Outcome::Ignored(Ignored::Destructive(2))
        );
        assert_eq!(
            g.press(KeyAction::ShowNewest, t),
            Outcome::Intent(Intent::ShowNewest(2))
        );
        g.shown(2, t);
        for ms in [500, 1000, 5000] {
            assert_eq!(
                g.press(KeyAction::Allow, later(t, ms)),
                Outcome::Ignored(Ignored::Destructive(2))
            );
        }
        assert_eq!(
            g.press(KeyAction::Deny, later(t, 6000)),
            Outcome::Intent(Intent::Deny(2)),
            "denying is always safe once shown"
        );
    }

    #[test]
    fn a_new_newest_card_must_be_shown_before_a_key_answers_it() {
        let t = Instant::now();
        let mut g = Gate::new();
        g.set_newest(Some(SAFE));
        g.shown(1, t);
        // Another card arrives on top.
        let other = GateCard {
            card: 3,
            destructive: false,
        };
        g.set_newest(Some(other));
        assert!(!g.is_shown());
        assert_eq!(
            g.press(KeyAction::Allow, later(t, 1000)),
            Outcome::Intent(Intent::ShowNewest(3))
        );
        // Card 3 is answered elsewhere; card 1 is the newest again and was shown before — but
        // not since it became the newest again.
        g.set_newest(Some(SAFE));
        assert_eq!(
            g.press(KeyAction::Allow, later(t, 2000)),
            Outcome::Intent(Intent::ShowNewest(1))
        );
        // Shown reports for a card that is not the newest count for nothing.
        g.shown(3, later(t, 2100));
        assert!(!g.is_shown());
        // The same card reported again keeps its shown state.
        g.shown(1, later(t, 2200));
        g.set_newest(Some(SAFE));
        assert!(g.is_shown());
        g.set_newest(None);
        assert_eq!(
            g.press(KeyAction::Allow, later(t, 3000)),
            Outcome::Ignored(Ignored::NoCard)
        );
    }

    #[test]
    fn a_card_that_turns_destructive_is_not_allowed() {
        // The engine's view of a card wins: the flag is read at each press.
        let t = Instant::now();
        let mut g = Gate::new();
        g.set_newest(Some(SAFE));
        g.shown(1, t);
        g.set_newest(Some(GateCard {
            card: 1,
            destructive: true,
        }));
        assert_eq!(
            g.press(KeyAction::Allow, later(t, 1000)),
            Outcome::Ignored(Ignored::Destructive(1))
        );
    }
}
