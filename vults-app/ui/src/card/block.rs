//! The blocks a card shows its target in: a rounded block of code or text that scrolls past
//! [`BLOCK_MAX`], with the small label and Copy / "Whole text" buttons above it and the
//! "12 more lines ↓" marker under it; each block's scroll kept from frame to frame ([`Folds`]).

use crate::code::Laid;
use crate::theme;
use egui::{Color32, RichText};
use std::collections::HashMap;
use vults_core::text::reveal;
use vults_i18n::tr;

/// The tallest a scrolling block (command, old/new text, content) grows before it scrolls.
pub(super) const BLOCK_MAX: f32 = 220.0;

pub(super) const OLD_FILL: Color32 = Color32::from_rgb(0x3A, 0x1F, 0x22);
pub(super) const NEW_FILL: Color32 = Color32::from_rgb(0x1B, 0x33, 0x24);
pub(super) const CODE_FILL: Color32 = Color32::from_gray(16);

/// A block's small label, a Copy button for the exact text, and the diff / whole-text toggle.
pub(super) fn head_ui(ui: &mut egui::Ui, what: &str, copy: Option<&str>, whole: Option<&mut bool>) {
    ui.horizontal(|ui| {
        ui.label(RichText::new(what).small().color(Color32::from_gray(140)));
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if let Some(text) = copy
                && ui
                    .small_button(tr!("card-copy"))
                    .on_hover_text(tr!("card-copy-hover"))
                    .clicked()
            {
                ui.ctx().copy_text(text.to_string());
            }
            if let Some(whole) = whole {
                let button = egui::Button::new(RichText::new(tr!("card-whole-text")).small())
                    .selected(*whole);
                if ui
                    .add(button)
                    .on_hover_text(tr!("card-whole-text-hover"))
                    .clicked()
                {
                    *whole = !*whole;
                }
            }
        });
    });
}

/// A block's scroll, kept from frame to frame: what is out of sight below it, where it is
/// scrolled to, and a scroll asked for (its "12 more lines ↓" or a key).
#[derive(Debug, Clone, Default)]
pub(super) struct Fold {
    /// "12 more lines ↓ · +3 hunks" while something is below the view.
    pub(super) below: Option<String>,
    pub(super) offset: f32,
    pub(super) viewport: f32,
    /// A row of the block's text, to keep one in sight when it scrolls a page.
    pub(super) row: f32,
    pub(super) scroll_to: Option<f32>,
    /// The block is taller than its view: its marker's row stays, scrolled or not, so nothing
    /// under it (the answer buttons) moves while the card is up.
    pub(super) scrolls: bool,
}

impl Fold {
    /// A vertical scroll area at most `max_height` tall whose scroll this fold keeps: it
    /// applies the scroll asked for (a page down), then records where the view is, how tall a
    /// row of `row` text is, and whether the content is taller than the view. Its bar is solid,
    /// never one that shows only under the pointer. Returns what `add` returned and the height
    /// out of sight below the view, in points; the caller says what `below` is.
    pub(super) fn scroll<R>(
        &mut self,
        ui: &mut egui::Ui,
        id: &'static str,
        max_height: f32,
        row: &egui::TextStyle,
        add: impl FnOnce(&mut egui::Ui) -> R,
    ) -> (R, f32) {
        ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
        let mut area = egui::ScrollArea::vertical()
            .id_salt(id)
            .max_height(max_height)
            .auto_shrink([false, true]);
        if let Some(y) = self.scroll_to.take() {
            area = area.vertical_scroll_offset(y);
        }
        let out = area.show(ui, add);
        self.offset = out.state.clamped_offset().y;
        self.viewport = out.inner_rect.height();
        self.row = ui.text_style_height(row);
        self.scrolls |= out.content_size.y > self.viewport + 0.5;
        (out.inner, out.content_size.y - self.offset - self.viewport)
    }

    /// Scrolls a page down (one row stays in sight); `false` when nothing is below.
    pub(super) fn page_down(&mut self) -> bool {
        if self.below.is_none() {
            return false;
        }
        self.scroll_to = Some(self.offset + (self.viewport - self.row).max(self.row));
        true
    }
}

/// Every block's [`Fold`], and the order they were drawn in this frame (the keys scroll the
/// first one with something below).
#[derive(Debug, Clone, Default)]
pub(super) struct Folds {
    pub(super) by_block: HashMap<&'static str, Fold>,
    pub(super) drawn: Vec<&'static str>,
}

impl Folds {
    /// Scrolls the first block drawn that has something out of sight a page down.
    pub(super) fn page_down(&mut self) -> bool {
        let drawn = self.drawn.clone();
        drawn
            .into_iter()
            .any(|what| self.by_block.get_mut(what).is_some_and(Fold::page_down))
    }
}

pub(super) fn code_block(
    ui: &mut egui::Ui,
    what: &'static str,
    laid: &mut Laid,
    fill: Color32,
    folds: &mut Folds,
) {
    scroll_block(ui, what, fill, folds, |ui| {
        laid.ui(ui);
        laid.below().text()
    });
}

/// A rounded block of `fill` that scrolls past `BLOCK_MAX`: every command, text and diff on a
/// card. Its scroll bar is always drawn when it scrolls, and what is out of sight below is said
/// under it — "12 more lines ↓ · +3 hunks" — a button that scrolls a page (as ↓, Page Down and
/// Space do on the card that takes the keys). `add` says what is below, when it can count it.
pub(super) fn scroll_block(
    ui: &mut egui::Ui,
    what: &'static str,
    fill: Color32,
    folds: &mut Folds,
    add: impl FnOnce(&mut egui::Ui) -> Option<String>,
) {
    folds.drawn.push(what);
    let fold = folds.by_block.entry(what).or_default();
    egui::Frame::new()
        .fill(fill)
        .corner_radius(6)
        .inner_margin(egui::Margin::same(8))
        .show(ui, |ui| {
            let (counted, hidden) =
                fold.scroll(ui, what, BLOCK_MAX, &egui::TextStyle::Monospace, add);
            let row = fold.row;
            fold.below = match counted {
                Some(text) => Some(text),
                // A block that cannot count its lines: the rows of its height out of sight.
                None if hidden > row * 0.5 => Some(tr!(
                    "card-more-lines",
                    count = (hidden / row).ceil() as usize
                )),
                None => None,
            };
        });
    more_marker(ui, fold);
}

/// The marker under a block with more out of sight ("3 more lines ↓"): a click scrolls a page.
/// A block that scrolls keeps the marker's row when scrolled to its end ("the end ↑", muted),
/// so the answer buttons under it never move under the person's pointer.
pub(super) fn more_marker(ui: &mut egui::Ui, fold: &mut Fold) {
    let Some(text) = fold.below.clone() else {
        if fold.scrolls {
            let end = egui::Button::new(
                RichText::new(tr!("card-the-end"))
                    .monospace()
                    .size(11.5)
                    .color(Color32::from_gray(120)),
            )
            .frame(false)
            .sense(egui::Sense::hover());
            ui.add(end).on_hover_text(tr!("card-the-end-hover"));
        }
        return;
    };
    let more = egui::Button::new(
        RichText::new(text)
            .monospace()
            .size(11.5)
            .color(theme::AMBER),
    )
    .frame(false);
    if ui.add(more).on_hover_text(tr!("card-more-hover")).clicked() {
        fold.page_down();
        ui.ctx().request_repaint();
    }
}

/// A block of plain text: `what` keeps its scroll, `label` says what it is.
pub(super) fn block_ui(
    ui: &mut egui::Ui,
    what: &'static str,
    label: &str,
    text: &str,
    fill: Option<Color32>,
    folds: &mut Folds,
) {
    ui.label(RichText::new(label).small().color(Color32::from_gray(140)));
    scroll_block(ui, what, fill.unwrap_or(CODE_FILL), folds, |ui| {
        ui.add(
            egui::Label::new(
                RichText::new(reveal(text).text)
                    .monospace()
                    .color(Color32::from_gray(235)),
            )
            .wrap()
            .selectable(true),
        );
        None
    });
}

/// A card's answer button (Allow, Deny, an Always, Approve, Answer…) reading the message `id`,
/// drawn by `look`, as wide as its words are in the widest language Vults speaks (or in the
/// one shown, when wider), its words centred: switching the language (Settings → General)
/// redraws an open card with every answer in the same place, so none moves under the pointer.
pub(super) fn answer_button(
    ui: &mut egui::Ui,
    id: &str,
    look: impl Fn(String) -> RichText,
    fill: Option<Color32>,
) -> egui::Response {
    let shown = tr!(id);
    let mut widest = egui::Vec2::ZERO;
    let mut measure = |text: String| {
        let galley = egui::WidgetText::from(look(text)).into_galley(
            ui,
            Some(egui::TextWrapMode::Extend),
            f32::INFINITY,
            egui::TextStyle::Button,
        );
        widest = widest.max(galley.size());
    };
    for language in vults_i18n::languages() {
        let _in = vults_i18n::scoped(&vults_i18n::Choice::Language(language.tag.into()));
        measure(tr!(id));
    }
    measure(shown.clone());
    let padding = ui.spacing().button_padding;
    let size = egui::vec2(
        widest.x + 2.0 * padding.x,
        (widest.y + 2.0 * padding.y).max(ui.spacing().interact_size.y),
    );
    let mut button = egui::Button::new(look(shown));
    if let Some(fill) = fill {
        button = button.fill(fill);
    }
    ui.add_sized(size, button)
}
