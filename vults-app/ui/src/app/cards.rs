//! Where the cards float and how they are drawn: the area they are placed in (the chosen
//! monitor, floating; the window, embedded), each card's spot down the right edge or in the
//! stack ([`place_cards`]), and each card in a window of its own or inside the window.

use super::{Layout, Tab, VultsWindow};
use crate::card::{self, CardView};
use crate::look;
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
    ) -> Vec<(PendingCard, Option<egui::Pos2>, f32)> {
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
        let spots = place_cards(screen, top, &heights)
            .into_iter()
            .map(|spot| spot.filter(|_| !covered).map(|p| p + area.min.to_vec2()));
        cards
            .into_iter()
            .zip(spots)
            .zip(heights)
            .map(|((c, spot), h)| (c, spot, h))
            .collect()
    }

    pub(super) fn cards_ui(
        &mut self,
        ctx: &egui::Context,
        placement: Vec<(PendingCard, Option<egui::Pos2>, f32)>,
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
        for (card, at, height) in &placement {
            let Some(pos) = *at else {
                continue; // waits in the stack (island, flock); its window is closed
            };
            let (card, height) = (card, *height);
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
            let keys = self.layout == Layout::Floating || keys_card == Some(card.id);
            let frame = look::card_frame(card.destructive.is_some());
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
        placement: &[(PendingCard, Option<egui::Pos2>, f32)],
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

/// Where each card goes, oldest first: down the right edge of `screen` from `top`, then in
/// columns further left. A card never covers another: the first card that fits in no column
/// waits, with every card after it (so they keep their order), in the stack the island and the
/// flock show ("+2 more"). `heights` are the cards' window heights, oldest first.
pub fn place_cards(screen: egui::Vec2, top: f32, heights: &[f32]) -> Vec<Option<egui::Pos2>> {
    let mut x = screen.x - card::WIDTH - 16.0;
    let mut y = top;
    let mut out = Vec::with_capacity(heights.len());
    let mut full = false;
    for &h in heights {
        if !full && y > top && y + h > screen.y - CARD_MARGIN {
            x -= card::WIDTH + COLUMN_GAP;
            y = top;
        }
        // The first card of a column is always placed (its height is capped to the screen's).
        full |= x < 0.0 || (y > top && y + h > screen.y - CARD_MARGIN);
        if full {
            out.push(None);
            continue;
        }
        out.push(Some(egui::pos2(x, y)));
        y += h + CARD_MARGIN;
    }
    out
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
