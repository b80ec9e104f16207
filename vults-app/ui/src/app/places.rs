//! Where the cards float and how they are drawn: the area they are placed in (the chosen
//! monitor, floating; the window, embedded), each card's spot down the right edge or in the
//! stack ([`place_cards`]), and each card in a window of its own or inside the window.

use super::{Layout, Tab, VultsWindow};
use crate::card::{self, CardView};
use crate::theme;
use egui::ViewportId;
use vults_engine::messages::{CardId, PendingCard};

impl VultsWindow {
    /// Whether the chosen monitor shows a fullscreen window that no card may cover.
    fn screen_covered(&self, ctx: &egui::Context) -> bool {
        self.layout == Layout::Floating
            && !self.model.cards_over_fullscreen
            && crate::viewport::screens(ctx).is_some_and(|s| s.covered(&self.model.monitor_choice))
    }

    /// The area (floating: of the chosen monitor; embedded: the window) the cards are placed
    /// in, and how far below its top they start.
    fn card_area(&mut self, ctx: &egui::Context) -> (egui::Rect, f32) {
        let window = egui::Rect::from_min_size(egui::Pos2::ZERO, ctx.content_rect().size());
        match self.layout {
            Layout::Floating => {
                let open = self
                    .model
                    .cards
                    .iter()
                    .any(|c| !self.stacked.contains(&c.id));
                let area = match self.card_screen {
                    Some(kept) if open => kept,
                    _ => self.screen_area(ctx).unwrap_or(window),
                };
                self.card_screen = Some(area);
                (area, 48.0)
            }
            // Embedded, the cards float over the flock, below the island strip and the tabs.
            Layout::Embedded => (window, 104.0),
        }
    }

    /// The cards that float (a chat's own cards are drawn inline while the Chat view shows
    /// that conversation; elsewhere they float like any card, so none waits unseen), oldest
    /// first, each with where it goes, or `None` when it waits in the stack.
    pub(super) fn placement(
        &mut self,
        ctx: &egui::Context,
    ) -> Vec<(PendingCard, Option<Place>, f32)> {
        let (area, top) = self.card_area(ctx);
        let screen = area.size();
        // A fullscreen window on the cards' monitor: every card waits in the stack (the island
        // counts them, the notification tells).
        let covered = self.screen_covered(ctx);
        let chat_open = self.tab == Tab::Chat && self.main_open && !self.model.welcome_open;
        let shown_chat = self.chat.selected.as_deref().filter(|_| chat_open);
        let cards: Vec<PendingCard> = self
            .model
            .cards
            .iter()
            .filter(|c| {
                shown_chat.is_none()
                    || vults_zeca::chat_of_session(&c.session.session) != shown_chat
            })
            .cloned()
            .collect();
        let heights: Vec<f32> = cards
            .iter()
            .map(|card| {
                self.card_heights
                    .get(&card.id)
                    .copied()
                    .unwrap_or_else(|| {
                        // A chat's card that floats says it is the chat's, on a line of its own.
                        let from_chat =
                            vults_zeca::chat_of_session(&card.session.session).is_some();
                        card::estimated_height(card)
                            + if from_chat {
                                crate::chat::ORIGIN_HEIGHT
                            } else {
                                0.0
                            }
                    })
                    .min((screen.y - top - CARD_MARGIN).max(200.0))
            })
            .collect();
        let now = ctx.input(|i| i.time);
        let ids: Vec<(CardId, f32)> = cards.iter().map(|c| c.id).zip(heights).collect();
        // A floating card's window is measured once drawn; until then its height is a guess.
        let guessed: Vec<CardId> = cards
            .iter()
            .map(|c| c.id)
            .filter(|id| self.layout == Layout::Floating && !self.card_heights.contains_key(id))
            .collect();
        let places = self
            .places
            .update_guessed(screen, top, &ids, &guessed, covered, now);
        cards
            .into_iter()
            .zip(places)
            .map(|(c, place)| {
                let height = place.map_or(0.0, |p| p.height);
                let place = place.map(|p| Place {
                    at: p.at + area.min.to_vec2(),
                    ..p
                });
                (c, place, height)
            })
            .collect()
    }

    pub(super) fn cards_ui(
        &mut self,
        ctx: &egui::Context,
        placement: Vec<(PendingCard, Option<Place>, f32)>,
    ) {
        let now = (self.clock)();
        let mut answers = Vec::new();
        // A chat's card that floats says it is the chat's; clicked, that says which to open.
        let mut open_chat = None;
        let shown = placement.iter().filter(|(_, at, _)| at.is_some()).count();
        let counts = (shown, placement.len() - shown);
        if counts != self.logged_counts {
            self.logged_counts = counts;
            if counts.1 > 0 || placement.len() > 1 {
                tracing::info!(
                    "cards: {} on screen, {} wait in the stack",
                    counts.0,
                    counts.1
                );
            }
        }
        let keys_card = self.keys_card;
        let mut undrawn = false;
        let mut open_windows = Vec::new();
        // This frame's time and the frame before's (the window's own clock: kittest steps it).
        let (now_t, before_t) = ctx.input(|i| (i.time, i.time - f64::from(i.unstable_dt)));
        for (card, at, height) in &placement {
            let Some(place) = *at else {
                // Waits in the stack (island, flock); its window is closed. Opened in the
                // flock's list it answers there as it is drawn.
                if let Some(view) = self.cards.get_mut(&card.id) {
                    view.arm(None, now_t, before_t);
                }
                continue;
            };
            let (card, height, pos) = (card, *height, place.at);
            let title = card_title(card);
            let builder = crate::viewport::floating(
                crate::viewport::Floating::Card,
                title.clone(),
                pos,
                egui::vec2(card::WIDTH, height),
            );
            open_windows.push(title.clone());
            let view = self
                .cards
                .entry(card.id)
                .or_insert_with(|| CardView::new(card));
            // Its answers take effect once it has been in this place for a moment.
            view.arm(Some(place.since), now_t, before_t);
            let keys = self.layout == Layout::Floating || keys_card == Some(card.id);
            let frame = theme::card_frame(card.destructive.is_some());
            if self.layout == Layout::Embedded {
                // One window: the card is an area on top of it, where the stack puts it.
                let answer = egui::Area::new(card_id(card.id).0)
                    .fixed_pos(pos)
                    .order(egui::Order::Foreground)
                    .show(ctx, |ui| {
                        ui.set_width(card::WIDTH - 30.0);
                        frame
                            .show(ui, |ui| {
                                if let Some(c) = crate::chat::card_origin_ui(ui, &self.model, card)
                                {
                                    open_chat = Some(c);
                                }
                                view.ui(ui, card, now, keys)
                            })
                            .inner
                    })
                    .inner;
                if let Some(answer) = answer {
                    answers.push((card.id, answer));
                }
                continue;
            }
            let shown = crate::viewport::immediate(ctx, card_id(card.id), builder, |ui, class| {
                // A card never takes the keyboard when it appears (crate::viewport's contract);
                // a click into it takes it, so its keys work.
                if class != egui::ViewportClass::EmbeddedWindow {
                    let (pressed, moving) = ui.input(|i| {
                        (
                            i.pointer.any_pressed(),
                            i.pointer.has_pointer()
                                && (i.pointer.delta() != egui::Vec2::ZERO || moved_within(i)),
                        )
                    });
                    // Every click asks, focused or not: the window's own word on its focus lags
                    // what the compositor did with the keyboard since (under XWayland the X
                    // focus stays on a card after a click gave a Wayland window the keys).
                    if pressed {
                        crate::viewport::take_keyboard(ui.ctx(), card_id(card.id), &title);
                    }
                    let over = ui.input(|i| i.pointer.has_pointer());
                    if moving || !over {
                        crate::viewport::pointer_over(ui.ctx(), &title, over);
                    }
                    // The keys typed under the card's grab (XWayland) are its own.
                    let grabbed = crate::viewport::take_keys(ui.ctx(), &title);
                    if !grabbed.is_empty() {
                        ui.ctx().input_mut(|i| i.events.extend(grabbed));
                    }
                }
                if class == egui::ViewportClass::EmbeddedWindow {
                    (
                        frame
                            .show(ui, |ui| {
                                if let Some(c) = crate::chat::card_origin_ui(ui, &self.model, card)
                                {
                                    open_chat = Some(c);
                                }
                                view.ui(ui, card, now, keys)
                            })
                            .inner,
                        None,
                    )
                } else {
                    egui::CentralPanel::default()
                        .frame(frame)
                        .show(ui, |ui| {
                            // The window fits what the card shows (plus the frame's margins):
                            // measured on the card's own content, never on the panel, which
                            // fills the window (so a window taller than its card only shrank
                            // a pixel every other frame).
                            let shown = ui.scope(|ui| {
                                if let Some(c) = crate::chat::card_origin_ui(ui, &self.model, card)
                                {
                                    open_chat = Some(c);
                                }
                                view.ui(ui, card, now, keys)
                            });
                            (shown.inner, Some(shown.response.rect.height() + 30.0))
                        })
                        .inner
                }
            });
            let Some((answer, measured)) = shown else {
                // Its window opens on a later frame: the card is not drawn yet.
                undrawn = true;
                continue;
            };
            if let Some(h) = measured.map(f32::ceil)
                && self.card_heights.get(&card.id) != Some(&h)
            {
                // Settles in one more frame: the content's height does not depend on the window's.
                self.card_heights.insert(card.id, h);
                ctx.request_repaint();
            }
            if let Some(answer) = answer {
                answers.push((card.id, answer));
            }
        }
        self.open_cards = open_windows;
        let cards = &self.model.cards;
        self.card_heights
            .retain(|id, _| cards.iter().any(|c| c.id == *id));
        if let Some(frames) = self.card_pending_draw.take_if(|_| !undrawn) {
            self.frames_to_card = Some(frames);
            if self.log_card_frames {
                tracing::info!("card drawn {frames} frame(s) after its event arrived");
            }
        }
        // Repainted when a card's answers arm (its buttons show it) and when its "too soon"
        // line is due to go.
        if let Some(after) = placement
            .iter()
            .filter_map(|(c, at, _)| at.and(self.cards.get(&c.id)))
            .filter_map(|view| view.wakes(now_t))
            .min_by(f64::total_cmp)
        {
            ctx.request_repaint_after(std::time::Duration::from_secs_f64(after));
        }
        for (id, answer) in answers {
            self.answer(id, answer);
        }
        if let Some(chat) = open_chat {
            self.tab = Tab::Chat;
            self.model.welcome_open = false;
            self.chat.selected = Some(chat);
            self.show_main(ctx);
        }
    }

    /// The card that takes the keys in one window: the oldest on screen of all — floating, or
    /// inline in the Chat view shown — never one waiting in the stack.
    pub(super) fn keys_card(
        &self,
        placement: &[(PendingCard, Option<Place>, f32)],
    ) -> Option<CardId> {
        let floating = placement
            .iter()
            .find(|(_, at, _)| at.is_some())
            .map(|(c, _, _)| c.id);
        let inline = self
            .model
            .cards
            .iter()
            .find(|c| !placement.iter().any(|(p, _, _)| p.id == c.id))
            .map(|c| c.id);
        [floating, inline].into_iter().flatten().min()
    }

    /// Cards waiting in the stack because the screen has no room for them, oldest first.
    pub fn stacked(&self) -> &[CardId] {
        &self.stacked
    }
}

/// Space kept free below the lowest card and between cards.
const CARD_MARGIN: f32 = 10.0;
/// Space between two columns of cards.
const COLUMN_GAP: f32 = 12.0;

/// One card's place: where its window's top left is, how tall it is, and since when (the
/// window's egui time, `ctx.input(|i| i.time)`) it has been there at that size. Its answers take
/// effect [`crate::card::ARM_DELAY`] after `since`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Place {
    /// The card window's top left, in the area's coordinates.
    pub at: egui::Pos2,
    /// The card window's height.
    pub height: f32,
    /// When the card took this place (or last changed its height in it).
    pub since: f64,
}

impl Place {
    fn rect(&self) -> egui::Rect {
        egui::Rect::from_min_size(self.at, egui::vec2(card::WIDTH, self.height))
    }
}

/// The places of the cards on screen, kept from frame to frame: **a card never moves while it
/// is up**. Each frame [`Places::update`] is given the cards that float, oldest first, and:
///
/// - a card that went (answered, withdrawn, drawn inline in the Chat view) frees its place, and
///   no other card moves;
/// - a card keeps its top left for as long as it is up; when its height changes (its window is
///   measured on its first frame, "Whole text" opens a block) it keeps its place if the new
///   height still fits there without touching another card, else it takes the first place that
///   fits as a new card would (or waits in the stack);
/// - a card with no place (new, or waiting in the stack, oldest first) takes the first place it
///   fits in without overlapping any card: down the right column from the top, then the next
///   column to the left, each gap between cards tried from the top. The first card that fits
///   nowhere waits in the stack, and so does every card newer than it, so the oldest card of
///   the stack is always the next to come up (a freed place too small for it stays free for it
///   to grow into, rather than going to a newer, smaller card);
/// - while a fullscreen window covers the area, or when the area itself changes (another
///   monitor, the one window resized), every card leaves its place and is placed anew.
///
/// Whenever a card takes a place or its height changes there, `since` is the time of that
/// frame: its answers wait [`crate::card::ARM_DELAY`] from then.
#[derive(Debug, Clone, Default)]
pub struct Places {
    /// The area's size and top the places were made in.
    area: Option<(egui::Vec2, f32)>,
    /// The cards that have a place, in the order they took it.
    held: Vec<(CardId, Place)>,
}

impl Places {
    /// The places of `cards` (each with its window's height, oldest first) this frame, at
    /// `now`, in an area of size `screen` whose cards start `top` below its top; `None` for a
    /// card that waits in the stack. With `covered` (a fullscreen window), every card waits.
    pub fn update(
        &mut self,
        screen: egui::Vec2,
        top: f32,
        cards: &[(CardId, f32)],
        covered: bool,
        now: f64,
    ) -> Vec<Option<Place>> {
        self.update_guessed(screen, top, cards, &[], covered, now)
    }

    /// [`Places::update`], where the heights of the cards in `guessed` are estimates (their
    /// windows not measured yet): such a card may take a freed place lower than its guess
    /// ([`Places::first_free`]).
    pub fn update_guessed(
        &mut self,
        screen: egui::Vec2,
        top: f32,
        cards: &[(CardId, f32)],
        guessed: &[CardId],
        covered: bool,
        now: f64,
    ) -> Vec<Option<Place>> {
        if covered || self.area != Some((screen, top)) {
            self.held.clear();
        }
        self.area = Some((screen, top));
        if covered {
            return vec![None; cards.len()];
        }
        self.held
            .retain(|(id, _)| cards.iter().any(|(c, _)| c == id));
        // A card whose height changed keeps its place when it still fits there.
        let mut i = 0;
        while i < self.held.len() {
            let (id, place) = self.held[i];
            let height = cards
                .iter()
                .find(|(c, _)| *c == id)
                .map_or(place.height, |(_, h)| *h);
            if height == place.height {
                i += 1;
                continue;
            }
            let grown = Place { height, ..place };
            let others = self
                .held
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, (_, p))| p.rect());
            if fits(screen, top, grown.rect(), others) {
                self.held[i].1 = Place {
                    height,
                    since: now,
                    ..place
                };
                i += 1;
            } else {
                self.held.remove(i);
            }
        }
        let mut waiting = false;
        let mut out = Vec::with_capacity(cards.len());
        for &(id, height) in cards {
            if let Some((_, place)) = self.held.iter().find(|(c, _)| *c == id) {
                out.push(Some(*place));
                continue;
            }
            let free = (!waiting)
                .then(|| self.first_free(screen, top, height, guessed.contains(&id)))
                .flatten();
            waiting = free.is_none();
            let place = free.map(|(at, height)| Place {
                at,
                height,
                since: now,
            });
            if let Some(place) = place {
                self.held.push((id, place));
            }
            out.push(place);
        }
        out
    }

    /// Where a card `height` tall fits first, and the height it gets there: each column from
    /// the right, each gap in it from the top. A card whose height is only `guessed` (its
    /// window not measured yet) takes a gap at least [`card::MIN_HEIGHT`] high even when its
    /// guess is taller, with the gap's height: measured a frame later, it stays when it fits.
    fn first_free(
        &self,
        screen: egui::Vec2,
        top: f32,
        height: f32,
        guessed: bool,
    ) -> Option<(egui::Pos2, f32)> {
        let least = if guessed {
            card::MIN_HEIGHT.min(height)
        } else {
            height
        };
        let mut x = screen.x - card::WIDTH - 16.0;
        while x >= 0.0 {
            let column: Vec<egui::Rect> = self
                .held
                .iter()
                .map(|(_, p)| p.rect())
                .filter(|r| r.min.x == x)
                .collect();
            let mut tops: Vec<f32> = std::iter::once(top)
                .chain(column.iter().map(|r| r.max.y + CARD_MARGIN))
                .collect();
            tops.sort_by(f32::total_cmp);
            for y in tops {
                let at = egui::pos2(x, y);
                let rect = |h: f32| egui::Rect::from_min_size(at, egui::vec2(card::WIDTH, h));
                if fits(screen, top, rect(height), column.iter().copied()) {
                    return Some((at, height));
                }
                // The room down to the next card or the area's bottom.
                let room = column
                    .iter()
                    .filter(|r| r.min.y >= y)
                    .map(|r| r.min.y - CARD_MARGIN)
                    .fold(screen.y - CARD_MARGIN, f32::min)
                    - y;
                if room >= least
                    && room < height
                    && fits(screen, top, rect(room), column.iter().copied())
                {
                    return Some((at, room));
                }
            }
            x -= card::WIDTH + COLUMN_GAP;
        }
        None
    }
}

/// Whether a card at `rect` fits in the area without touching any of `others` (with
/// [`CARD_MARGIN`] between): above the area's bottom margin, except a card alone at the top of
/// its column (its height is capped to the screen's, so the first card of a column always has
/// a place).
fn fits(
    screen: egui::Vec2,
    top: f32,
    rect: egui::Rect,
    others: impl Iterator<Item = egui::Rect>,
) -> bool {
    let mut alone = true;
    for other in others {
        if other.min.x != rect.min.x {
            continue;
        }
        alone = false;
        if rect.min.y < other.max.y + CARD_MARGIN && other.min.y < rect.max.y + CARD_MARGIN {
            return false;
        }
    }
    rect.max.y <= screen.y - CARD_MARGIN || (alone && rect.min.y == top)
}

/// Where each card goes when they all arrive at once, oldest first: down the right edge of
/// `screen` from `top`, then in columns further left ([`Places`], from no place taken). A card
/// never covers another; the first card that fits nowhere waits, with every card after it, in
/// the stack the island and the flock show ("+2 more"). `heights` are the cards' window heights,
/// oldest first.
pub fn place_cards(screen: egui::Vec2, top: f32, heights: &[f32]) -> Vec<Option<egui::Pos2>> {
    let cards: Vec<(CardId, f32)> = heights
        .iter()
        .enumerate()
        .map(|(i, h)| (i as CardId, *h))
        .collect();
    Places::default()
        .update(screen, top, &cards, false, 0.0)
        .into_iter()
        .map(|p| p.map(|p| p.at))
        .collect()
}

/// The title of a card's own window (floating layout): the agent and the tool, and the card's
/// number, which tells the app's own windows apart on the X server (crate::viewport).
pub(crate) fn card_title(card: &PendingCard) -> String {
    format!(
        "Vults: {} — {} (card {})",
        card.identity.display_name(),
        card.call.tool,
        card.id
    )
}

/// The viewport of card `id`'s own window (floating layout).
pub fn card_id(id: CardId) -> ViewportId {
    ViewportId::from_hash_of(("vults-card", id))
}

/// Whether the pointer was at two places within this frame's events: it moved over the window
/// even where egui's delta says nothing (the frame it came in, which has no earlier position).
/// One position alone is a pointer that rests where a window just appeared.
fn moved_within(input: &egui::InputState) -> bool {
    let mut at = input.events.iter().filter_map(|e| match e {
        egui::Event::PointerMoved(p) => Some(*p),
        _ => None,
    });
    let first = at.next();
    first.is_some_and(|f| at.any(|p| p != f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A pointer that came to rest where a card appeared did not move over it; one that was at
    /// two places in the card's first frame did (two XTEST moves, a fast hand).
    #[test]
    fn a_pointer_moved_within_a_frame_only_when_it_was_at_two_places() {
        let moved = |places: &[(f32, f32)]| {
            let ctx = egui::Context::default();
            let raw = egui::RawInput {
                events: places
                    .iter()
                    .map(|&(x, y)| egui::Event::PointerMoved(egui::pos2(x, y)))
                    .collect(),
                ..Default::default()
            };
            let mut out = false;
            let mut full = ctx.run_ui(raw, |ui| out = ui.input(moved_within));
            full.textures_delta.clear();
            out
        };
        assert!(!moved(&[]));
        assert!(!moved(&[(10.0, 10.0)]));
        assert!(!moved(&[(10.0, 10.0), (10.0, 10.0)]));
        assert!(moved(&[(10.0, 10.0), (20.0, 10.0)]));
    }

    /// A small seeded random source (the same run every time).
    struct Dice(u64);
    impl Dice {
        fn next(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }
    }

    /// The rects of the placed cards, with their ids.
    fn rects(cards: &[(CardId, f32)], places: &[Option<Place>]) -> Vec<(CardId, egui::Rect)> {
        cards
            .iter()
            .zip(places)
            .filter_map(|((id, _), p)| p.map(|p| (*id, p.rect())))
            .collect()
    }

    /// Ten cards (six on screen, "+4 more"); one goes: no other card moves, and the oldest of
    /// the stack takes the freed place when it fits there (else the next place that fits).
    #[test]
    fn a_freed_place_goes_to_the_oldest_stacked_card_and_no_other_card_moves() {
        let screen = egui::vec2(1280.0, 800.0);
        let mut places = Places::default();
        let mut cards: Vec<(CardId, f32)> = (1..=10).map(|id| (id, 240.0)).collect();
        let first = places.update(screen, 48.0, &cards, false, 0.0);
        assert_eq!(first.iter().filter(|p| p.is_some()).count(), 6, "{first:?}");
        assert!(first[6..].iter().all(Option::is_none));
        // Card 2 (right column, second from the top) goes.
        let was = rects(&cards, &first);
        cards.retain(|(id, _)| *id != 2);
        let then = places.update(screen, 48.0, &cards, false, 1.0);
        let now = rects(&cards, &then);
        for (id, rect) in &was {
            if let Some((_, r)) = now.iter().find(|(i, _)| i == id) {
                assert_eq!(r, rect, "card {id} moved");
            }
        }
        let card2 = was.iter().find(|(id, _)| *id == 2).unwrap().1;
        let seven = now
            .iter()
            .find(|(id, _)| *id == 7)
            .expect("card 7 came up")
            .1;
        assert_eq!(
            seven, card2,
            "the oldest stacked card takes the freed place"
        );
        assert_eq!(
            then[5].unwrap().since,
            1.0,
            "and is armed from when it came"
        );
        assert_eq!(then[0].unwrap().since, 0.0, "the others keep their time");
        assert!(then[6..].iter().all(Option::is_none), "8, 9, 10 still wait");

        // A freed place too small for the oldest stacked card stays free; a newer, smaller card
        // never jumps the queue.
        let mut places = Places::default();
        let cards = [(1, 300.0), (2, 300.0), (3, 700.0), (4, 100.0)];
        let screen = egui::vec2(card::WIDTH + 40.0, 800.0);
        let first = places.update(screen, 48.0, &cards[..2], false, 0.0);
        assert!(first.iter().all(Option::is_some));
        let next = places.update(screen, 48.0, &cards[1..], false, 1.0);
        assert_eq!(next[0], first[1], "card 2 stays");
        assert_eq!(next[1], None, "card 3 does not fit card 1's place");
        assert_eq!(next[2], None, "card 4 waits behind card 3");
    }

    /// A card not yet measured (its height a guess, often taller than it draws) takes a freed
    /// place lower than its guess, at that place's height; measured, it stays when it fits.
    #[test]
    fn a_guessed_card_takes_a_freed_place_lower_than_its_guess() {
        let screen = egui::vec2(card::WIDTH + 40.0, 800.0);
        let mut places = Places::default();
        let cards = [(1, 230.0), (2, 230.0), (3, 230.0)];
        let first = places.update(screen, 48.0, &cards, false, 0.0);
        assert!(first.iter().all(Option::is_some));
        let next = [(1, 230.0), (3, 230.0), (4, 255.0)];
        let then = places.update_guessed(screen, 48.0, &next, &[4], false, 1.0);
        let four = then[2].expect("the stacked card takes the freed place");
        assert_eq!(four.at, first[1].unwrap().at);
        assert_eq!(four.height, 230.0);
        assert_eq!(then[1], first[2], "card 3 stays");
        // Measured at 228: it stays there, armed from then.
        let measured = [(1, 230.0), (3, 230.0), (4, 228.0)];
        let after = places.update(screen, 48.0, &measured, false, 1.1);
        assert_eq!(after[2].map(|p| p.at), Some(four.at));
        // Not guessed, the same card waits: 255 does not fit the 230 freed.
        let mut places = Places::default();
        places.update(screen, 48.0, &cards, false, 0.0);
        assert_eq!(places.update(screen, 48.0, &next, false, 1.0)[2], None);
    }

    /// A card whose window changes height keeps its top left when the new height fits there
    /// (its answers arm again), and takes the first place that fits when it does not.
    #[test]
    fn a_card_that_grows_keeps_its_place_while_it_fits() {
        let screen = egui::vec2(1280.0, 800.0);
        let mut places = Places::default();
        let first = places.update(screen, 48.0, &[(1, 200.0), (2, 200.0)], false, 0.0);
        let grown = places.update(screen, 48.0, &[(1, 200.0), (2, 300.0)], false, 0.5);
        assert_eq!(grown[1].unwrap().at, first[1].unwrap().at);
        assert_eq!(grown[1].unwrap().since, 0.5);
        assert_eq!(grown[0], first[0]);
        // Card 1 grows into card 2: it cannot stay, and card 2 does not move.
        let moved = places.update(screen, 48.0, &[(1, 400.0), (2, 300.0)], false, 1.0);
        assert_eq!(moved[1], grown[1]);
        let one = moved[0].unwrap();
        assert!(!one.rect().intersects(moved[1].unwrap().rect()));
        assert_eq!(one.since, 1.0);
    }

    /// A fullscreen window sends every card to the stack; when it goes they come up again.
    #[test]
    fn covered_cards_all_wait_and_come_back() {
        let screen = egui::vec2(1280.0, 800.0);
        let mut places = Places::default();
        let cards = [(1, 200.0), (2, 200.0)];
        places.update(screen, 48.0, &cards, false, 0.0);
        assert_eq!(
            places.update(screen, 48.0, &cards, true, 1.0),
            vec![None, None]
        );
        let back = places.update(screen, 48.0, &cards, false, 2.0);
        assert!(back.iter().all(|p| p.is_some_and(|p| p.since == 2.0)));
    }

    /// The run, on the placement alone: ten cards arrive; at random one is withdrawn,
    /// answered, or a new one arrives, and a clicker clicks where it last saw a button. A click
    /// answers only a card armed (in its place for [`card::ARM_DELAY`]), and whatever it
    /// answers is the card whose button was at that spot when the clicker saw it, at least the
    /// delay before. No card that stays up ever moves, no two overlap.
    #[test]
    fn random_withdrawals_and_clicks_never_answer_an_unread_card() {
        for seed in 1..40 {
            let mut dice = Dice(seed);
            let screen = egui::vec2(1400.0, 860.0);
            let mut places = Places::default();
            let mut next_id: CardId = 1;
            let mut cards: Vec<(CardId, f32)> = Vec::new();
            let mut seen_at: HashMap<CardId, Place> = HashMap::new();
            let mut drawn: HashMap<CardId, Vec<(f64, egui::Rect)>> = HashMap::new();
            // What the clicker saw: a button's spot, the card there, and when.
            let mut saw: Vec<(egui::Pos2, CardId, f64)> = Vec::new();
            let mut now = 0.0;
            let (mut answered, mut refused) = (0, 0);
            for _ in 0..10 {
                cards.push((next_id, 200.0 + dice.next(200) as f32));
                next_id += 1;
            }
            for _ in 0..400 {
                now += 0.05 + dice.next(300) as f64 / 1000.0;
                match dice.next(6) {
                    0 if !cards.is_empty() => {
                        // Withdrawn: its hook ended.
                        let i = dice.next(cards.len() as u64) as usize;
                        cards.remove(i);
                    }
                    1 if cards.len() < 14 => {
                        cards.push((next_id, 200.0 + dice.next(200) as f32));
                        next_id += 1;
                    }
                    _ => {}
                }
                let placed = places.update(screen, 48.0, &cards, false, now);
                let up = rects(&cards, &placed);
                for (i, (a, ra)) in up.iter().enumerate() {
                    for (b, rb) in &up[i + 1..] {
                        assert!(!ra.intersects(*rb), "{a} and {b} overlap");
                    }
                }
                for ((id, _), place) in cards.iter().zip(&placed) {
                    let Some(place) = place else { continue };
                    // Its top left never changes while it is up (height changes are not made
                    // in this run).
                    let first = seen_at.entry(*id).or_insert(*place);
                    assert_eq!(first.at, place.at, "card {id} moved");
                    assert_eq!(first.since, place.since, "card {id} was placed again");
                }
                // This frame is drawn: the clicker sees it (an Allow at each card's lower left).
                let clicks_now = !saw.is_empty() && dice.next(2) == 0;
                for ((id, _), place) in cards.iter().zip(&placed) {
                    if let Some(p) = place {
                        saw.push((p.at + egui::vec2(40.0, p.height - 30.0), *id, now));
                        drawn.entry(*id).or_default().push((now, p.rect()));
                    }
                }
                // The clicker clicks a spot it saw, maybe a moment ago.
                if clicks_now {
                    let (spot, read, _) = saw.remove(dice.next(saw.len() as u64) as usize);
                    let hit = cards.iter().zip(&placed).find_map(|((id, _), p)| {
                        p.filter(|p| p.rect().contains(spot)).map(|p| (*id, p))
                    });
                    if let Some((id, place)) = hit {
                        if now - place.since >= card::ARM_DELAY {
                            // The card answered had its button at the spot in every frame
                            // drawn since at least the delay before the click.
                            let frames = &drawn[&id];
                            let read_then = frames
                                .iter()
                                .any(|(t, r)| now - t >= card::ARM_DELAY && r.contains(spot));
                            let stayed = frames
                                .iter()
                                .filter(|(t, _)| now - t < card::ARM_DELAY)
                                .all(|(_, r)| r.contains(spot));
                            assert!(
                                read_then && stayed,
                                "seed {seed}: a click meant for card {read} answered card \
                                 {id}, not read there for {}s",
                                card::ARM_DELAY
                            );
                            if id == read {
                                answered += 1;
                            }
                            cards.retain(|(c, _)| *c != id);
                        } else {
                            refused += 1;
                        }
                    }
                }
                saw.retain(|(_, _, when)| now - when < 1.0);
            }
            assert!(answered > 20, "seed {seed}: {answered} answered");
            assert!(refused > 0, "seed {seed}: no click came too soon");
        }
    }

    /// Whatever the cards' heights and the screen, no two cards overlap, every card placed is
    /// on the screen, and the ones that wait are the newest, in order.
    #[test]
    fn placed_cards_never_overlap_and_the_newest_wait() {
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for _ in 0..500 {
            let screen = egui::vec2(
                card::WIDTH + 20.0 + next(2000) as f32,
                260.0 + next(1200) as f32,
            );
            let top = 48.0;
            let cap = (screen.y - top - CARD_MARGIN).max(200.0);
            let heights: Vec<f32> = (0..next(12))
                .map(|_| (200.0 + next(600) as f32).min(cap))
                .collect();
            let spots = place_cards(screen, top, &heights);
            assert_eq!(spots.len(), heights.len());
            let placed: Vec<egui::Rect> = spots
                .iter()
                .zip(&heights)
                .filter_map(|(s, h)| {
                    s.map(|p| egui::Rect::from_min_size(p, egui::vec2(card::WIDTH, *h)))
                })
                .collect();
            let first_waiting = spots.iter().position(Option::is_none);
            if let Some(w) = first_waiting {
                assert!(spots[w..].iter().all(Option::is_none), "{spots:?}");
            }
            let area = egui::Rect::from_min_size(egui::Pos2::ZERO, screen);
            for (i, a) in placed.iter().enumerate() {
                assert!(
                    area.contains_rect(*a) || heights.len() == 1,
                    "{a:?} in {screen:?}"
                );
                for b in &placed[i + 1..] {
                    assert!(!a.intersects(*b), "{a:?} and {b:?}");
                }
            }
            if !heights.is_empty() && screen.x >= card::WIDTH + 16.0 {
                assert!(spots[0].is_some(), "the oldest card always has a place");
            }
        }
    }
}
