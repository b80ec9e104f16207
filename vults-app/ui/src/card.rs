//! A card: one pending request, with the whole command, file or URL the agent sent, and the
//! answers — Allow, Deny, Always allow (with the exact rule it makes; never on a destructive
//! call), or, for an AskUserQuestion, each question's choice and an "other" free text; for a
//! plan review (Claude Code asking to leave plan mode) the plan rendered from its markdown, with
//! "Approve" and "Keep planning" and a line of feedback for the model.
//!
//! An edit, a write over an existing file or a patch shows as a unified diff with syntax colour
//! ([`vults_engine::diff`], [`super::code`]), with the exact text the agent sent one click away
//! ("Whole text"); a long command wraps at its operators. The agent's own words about the call
//! stand above the target, labelled as the agent's, never instead of it.

use super::code::{self, Laid};
use super::look;
use egui::{Color32, Key, RichText};
use std::collections::HashMap;
use std::time::SystemTime;
use vults_core::agents::{Question, Target};
use vults_core::protocol::AnswerItem;
use vults_core::rules::AlwaysRule;
use vults_core::text::reveal;
use vults_engine::diff::FileDiff;
use vults_engine::messages::{CardAnswer, PendingCard, Reason};

/// Width of a card window in points.
pub const WIDTH: f32 = 460.0;
/// The tallest a scrolling block (command, old/new text, content) grows before it scrolls.
const BLOCK_MAX: f32 = 220.0;
/// The tallest a plan grows before it scrolls: a plan is read, not glanced at.
const PLAN_MAX: f32 = 380.0;

/// A card's own state: the choices made so far on a question card, its diff (computed once)
/// and its code laid out once, by block.
#[derive(Debug, Clone, Default)]
pub struct CardView {
    questions: Vec<QuestionChoice>,
    diff: Option<Vec<FileDiff>>,
    /// Shows the exact text the agent sent instead of the diff.
    whole: bool,
    laid: HashMap<&'static str, Laid>,
    /// A Super key is down (followed from its own key events: see [`CardView::presses`]).
    super_held: bool,
    /// Something the card shows has a hidden character ([`vults_core::text::is_hidden`]): it is
    /// written out as `‹U+202E›` where it stands, and the card says so at the top.
    hidden: bool,
    /// Each scrolling block's scroll and what is out of sight below it.
    folds: Folds,
    /// A plan card's line of feedback, sent with "Keep planning".
    feedback: String,
    /// A plan card's laid-out markdown.
    markdown: Markdown,
    /// "Show terminal" on this card.
    terminal: CardTerminal,
    /// The last answer [`CardView::ui`] returned came from a key (A, D, Shift+A, a digit's
    /// Enter), not a click: the audit says `by: key`.
    by_key: bool,
}

/// "Show terminal" on a card: offered on every card but a chat's own (Zeca's CLI has no
/// terminal), the line of its last show, and a click or `T` not yet taken by the window.
#[derive(Debug, Clone, Default)]
struct CardTerminal {
    offered: bool,
    showing: bool,
    shown: Option<crate::terminal::Shown>,
    asked: bool,
}

/// A plan's markdown, parsed once ([`super::markdown::Blocks`]).
#[derive(Debug, Clone, Default)]
struct Markdown(Option<super::markdown::Blocks>);

/// One key press that may answer a card: no Ctrl, Alt, Cmd or Super with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Press {
    key: Key,
    shift: bool,
}

impl Press {
    fn is(self, key: Key) -> bool {
        self.key == key && !self.shift
    }
    fn is_shift(self, key: Key) -> bool {
        self.key == key && self.shift
    }
}

/// What a permission card's keys answer: `A` allow, `D` deny, `Shift+A` the card's first
/// Always (none on a card that offers none). The first press that means something wins.
fn permission_key(card: &PendingCard, presses: &[Press]) -> Option<CardAnswer> {
    presses.iter().find_map(|p| {
        if p.is(Key::A) {
            Some(CardAnswer::Allow)
        } else if p.is(Key::D) {
            Some(CardAnswer::Deny)
        } else if p.is_shift(Key::A) {
            card.always_rule.as_ref().map(|_| CardAnswer::AlwaysAllow)
        } else {
            None
        }
    })
}

#[derive(Debug, Clone, Default)]
struct QuestionChoice {
    chosen: Vec<bool>,
    other_on: bool,
    other: String,
}

impl CardView {
    /// The state of a card as it arrives: nothing chosen yet, its diff and code laid out once.
    pub fn new(card: &PendingCard) -> CardView {
        let questions = match &card.call.target {
            Target::Questions { questions } => questions
                .iter()
                .map(|q| QuestionChoice {
                    chosen: vec![false; q.options.len()],
                    ..Default::default()
                })
                .collect(),
            _ => Vec::new(),
        };
        let diff =
            vults_engine::diff::card_diff(&card.call, &card.context).filter(|d| !d.is_empty());
        CardView {
            questions,
            diff,
            hidden: card.has_hidden_characters(),
            terminal: CardTerminal {
                offered: vults_zeca::chat_of_session(&card.session.session).is_none(),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// What the card says of "Show terminal" for its session: one is under way (`showing`),
    /// and the line of the last one (`shown`, when it was for this card's session).
    pub fn set_terminal(&mut self, showing: bool, shown: Option<&crate::terminal::Shown>) {
        self.terminal.showing = showing;
        self.terminal.shown = shown.cloned();
    }

    /// Whether "Show terminal" was clicked (or `T` pressed) on the card since the last call.
    pub fn take_show_terminal(&mut self) -> bool {
        std::mem::take(&mut self.terminal.asked)
    }

    /// Whether the card flags hidden characters in what it shows.
    pub fn has_hidden_characters(&self) -> bool {
        self.hidden
    }

    /// The card's diff, when it shows one.
    pub fn diff(&self) -> Option<&[FileDiff]> {
        self.diff.as_deref()
    }

    /// Who gave the answer [`CardView::ui`] last returned: a key on the card, or a click.
    pub fn answered_by(&self) -> vults_engine::messages::AnsweredBy {
        if self.by_key {
            vults_engine::messages::AnsweredBy::Key
        } else {
            vults_engine::messages::AnsweredBy::Click
        }
    }

    /// Draws the card. `keys`: whether this card answers the keyboard shortcuts (a card in a
    /// window of its own does; in one shared window, only one card). Returns the answer when
    /// the person gave one.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        card: &PendingCard,
        now: SystemTime,
        keys: bool,
    ) -> Option<CardAnswer> {
        let presses = self.presses(ui, keys);
        // T: Show terminal, on any card that offers it.
        if self.terminal.offered && presses.iter().any(|p| p.is(Key::T)) {
            self.terminal.asked = true;
        }
        header_ui(ui, card, now, self.hidden, &mut self.terminal);
        ui.add_space(4.0);
        self.by_key = false;
        if let Some(plan) = card.plan() {
            return self.plan_ui(ui, plan, &presses, keys);
        }
        match &card.call.target {
            Target::Questions { questions } if card.question => {
                self.questions_ui(ui, questions, &presses, keys)
            }
            _ => {
                said_ui(ui, card);
                self.target_ui(ui, card);
                // ↓, Page Down and Space bring what is out of sight into view, a page at a time.
                if presses
                    .iter()
                    .any(|p| p.is(Key::ArrowDown) || p.is(Key::PageDown) || p.is(Key::Space))
                    && self.folds.page_down()
                {
                    ui.ctx().request_repaint();
                }
                ui.add_space(6.0);
                decision_ui(ui, card, keys, &mut self.terminal).or_else(|| {
                    let key = permission_key(card, &presses);
                    self.by_key = key.is_some();
                    key
                })
            }
        }
    }

    /// This frame's key presses that may answer: each read from its own event — the key and the
    /// modifiers winit gave that very press — never from the modifiers held when the frame is
    /// drawn (a fast `shift+a` has released Shift by then). A press with Ctrl, Alt, Cmd or
    /// Super held is never one; nor is a repeat, nor anything while a text field has the
    /// focus. Super is not among egui's modifiers on Linux and Windows, so its own key events
    /// are followed, in order, across frames.
    fn presses(&mut self, ui: &egui::Ui, keys: bool) -> Vec<Press> {
        let typing = ui.ctx().memory(|m| m.focused().is_some());
        let mut out = Vec::new();
        ui.input(|i| {
            for event in &i.events {
                match event {
                    egui::Event::Key {
                        key: Key::SuperLeft | Key::SuperRight,
                        pressed,
                        ..
                    } => self.super_held = *pressed,
                    egui::Event::WindowFocused(false) => self.super_held = false,
                    egui::Event::Key {
                        key,
                        pressed: true,
                        repeat: false,
                        modifiers,
                        ..
                    } if keys && !typing => {
                        let chord = modifiers.ctrl
                            || modifiers.alt
                            || modifiers.command
                            || modifiers.mac_cmd
                            || self.super_held;
                        if !chord {
                            out.push(Press {
                                key: *key,
                                shift: modifiers.shift,
                            });
                        }
                    }
                    _ => {}
                }
            }
        });
        out
    }

    fn questions_ui(
        &mut self,
        ui: &mut egui::Ui,
        questions: &[Question],
        presses: &[Press],
        keys: bool,
    ) -> Option<CardAnswer> {
        let mut answer = None;
        // Keys: 1–9 choose an option of a card's one question, Enter answers, D denies.
        const DIGITS: [Key; 9] = [
            Key::Num1,
            Key::Num2,
            Key::Num3,
            Key::Num4,
            Key::Num5,
            Key::Num6,
            Key::Num7,
            Key::Num8,
            Key::Num9,
        ];
        let mut send_key = false;
        for p in presses {
            if let (Some(n), [q], [choice]) = (
                DIGITS.iter().position(|d| p.is(*d)),
                questions,
                self.questions.as_mut_slice(),
            ) && n < q.options.len()
            {
                if q.multi_select {
                    choice.chosen[n] = !choice.chosen[n];
                } else {
                    choice.chosen.iter_mut().for_each(|c| *c = false);
                    choice.chosen[n] = true;
                    choice.other_on = false;
                }
            } else if p.is(Key::Enter) {
                send_key = true;
            } else if p.is(Key::D) {
                answer = Some(CardAnswer::Deny);
                self.by_key = true;
            }
        }
        ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
        let mut area = egui::ScrollArea::vertical()
            .id_salt("questions")
            .max_height(380.0)
            .auto_shrink([false, true]);
        let fold = self.folds.by_block.entry("questions").or_default();
        if let Some(y) = fold.scroll_to.take() {
            area = area.vertical_scroll_offset(y);
        }
        let out = area.show(ui, |ui| {
            // Where each question starts, to say how many are out of sight.
            let mut tops = Vec::new();
            for (qi, (q, choice)) in questions.iter().zip(self.questions.iter_mut()).enumerate() {
                if qi > 0 {
                    ui.separator();
                }
                tops.push(ui.cursor().top());
                // The digit keys choose an option of a card's one question: each says its key.
                let digits = keys && questions.len() == 1;
                question_ui(ui, qi, q, choice, digits);
            }
            let bottom = ui.clip_rect().bottom();
            (
                tops.iter().filter(|t| **t + 8.0 > bottom).count(),
                bottom < ui.min_rect().bottom() - 4.0,
            )
        });
        let (questions_below, more_below) = out.inner;
        fold.offset = out.state.clamped_offset().y;
        fold.viewport = out.inner_rect.height();
        fold.row = ui.text_style_height(&egui::TextStyle::Body);
        fold.scrolls |= out.content_size.y > fold.viewport + 0.5;
        fold.below = match (questions_below, more_below) {
            (0, false) => None,
            (0, true) => Some("more below ↓".to_string()),
            (1, _) => Some("1 more question ↓".to_string()),
            (n, _) => Some(format!("{n} more questions ↓")),
        };
        more_marker(ui, fold);
        if presses
            .iter()
            .any(|p| p.is(Key::ArrowDown) || p.is(Key::PageDown) || p.is(Key::Space))
            && fold.page_down()
        {
            ui.ctx().request_repaint();
        }
        ui.add_space(6.0);
        let items: Option<Vec<AnswerItem>> = questions
            .iter()
            .zip(&self.questions)
            .map(|(q, c)| c.answer(q))
            .collect();
        ui.horizontal(|ui| {
            let ready = items.is_some();
            let send = ui
                .add_enabled(
                    ready,
                    egui::Button::new(RichText::new("Answer").strong()).fill(look::GREEN),
                )
                .on_disabled_hover_text("Answer every question first");
            if send.clicked()
                && let Some(items) = items.clone()
            {
                answer = Some(CardAnswer::Answers(items));
                self.by_key = false;
            }
            if ui
                .button("Deny")
                .on_hover_text("Send no answer: the agent goes on without one")
                .clicked()
            {
                answer = Some(CardAnswer::Deny);
                self.by_key = false;
            }
        });
        terminal_line_ui(ui, &self.terminal);
        if answer.is_none()
            && send_key
            && let Some(items) = items
        {
            answer = Some(CardAnswer::Answers(items));
            self.by_key = true;
        }
        let keys_here = keys;
        let mut keys = match questions {
            [q] if !q.options.is_empty() => format!(
                "Keys: 1–{} choose · Enter answer · D deny",
                q.options.len().min(9)
            ),
            _ => "Keys: Enter answer · D deny".to_string(),
        };
        if self.terminal.offered {
            keys.push_str(" · T terminal");
        }
        if keys_here {
            ui.label(RichText::new(keys).small().color(Color32::from_gray(110)));
        }
        answer
    }
}

impl CardView {
    /// The feedback typed on a plan card so far.
    pub fn feedback(&self) -> &str {
        &self.feedback
    }

    /// A plan card: the plan drawn from its markdown (headings, lists, code blocks; every
    /// hidden character written out), scrollable, then a line of feedback and "Approve" /
    /// "Keep planning". Keep planning sends the feedback as the deny's words (the model reads
    /// them and revises); Enter in the feedback line sends it too. Keys when the field is not
    /// being typed in: A approve, D keep planning.
    fn plan_ui(
        &mut self,
        ui: &mut egui::Ui,
        plan: &str,
        presses: &[Press],
        keys: bool,
    ) -> Option<CardAnswer> {
        ui.label(RichText::new("plan").small().color(Color32::from_gray(140)));
        let blocks = self
            .markdown
            .0
            .get_or_insert_with(|| super::markdown::Blocks::parse(&reveal(plan).text));
        self.folds.drawn.push("plan");
        let fold = self.folds.by_block.entry("plan").or_default();
        let row = ui.text_style_height(&egui::TextStyle::Body);
        egui::Frame::new()
            .fill(PLAN_FILL)
            .corner_radius(6)
            .inner_margin(egui::Margin::same(10))
            .show(ui, |ui| {
                ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
                let mut area = egui::ScrollArea::vertical()
                    .id_salt("plan")
                    .max_height(PLAN_MAX)
                    .auto_shrink([false, true]);
                if let Some(y) = fold.scroll_to.take() {
                    area = area.vertical_scroll_offset(y);
                }
                let out = area.show(ui, |ui| {
                    blocks.ui(ui);
                });
                let (offset, viewport) = (out.state.clamped_offset().y, out.inner_rect.height());
                let hidden = out.content_size.y - offset - viewport;
                fold.offset = offset;
                fold.viewport = viewport;
                fold.row = row;
                fold.scrolls |= out.content_size.y > viewport + 0.5;
                fold.below = (hidden > row * 0.5).then(|| "more of the plan ↓".to_string());
            });
        more_marker(ui, fold);
        if presses
            .iter()
            .any(|p| p.is(Key::ArrowDown) || p.is(Key::PageDown) || p.is(Key::Space))
            && self.folds.page_down()
        {
            ui.ctx().request_repaint();
        }
        ui.add_space(6.0);
        let label = ui.label(
            RichText::new("Feedback")
                .small()
                .color(Color32::from_gray(140)),
        );
        let field = ui
            .add(
                egui::TextEdit::singleline(&mut self.feedback)
                    .id_salt("plan feedback")
                    .desired_width(f32::INFINITY)
                    .char_limit(vults_core::answer::MAX_FEEDBACK)
                    .hint_text("What should change? (optional, sent with Keep planning)"),
            )
            .labelled_by(label.id);
        let entered = field.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
        let keep = || match vults_core::answer::clean_feedback(&self.feedback) {
            Some(words) => CardAnswer::DenyWith(words),
            None => CardAnswer::Deny,
        };
        let mut answer = None;
        ui.add_space(4.0);
        ui.horizontal_wrapped(|ui| {
            let approve =
                egui::Button::new(RichText::new("Approve").strong().color(Color32::WHITE))
                    .fill(look::GREEN);
            if ui
                .add(approve)
                .on_hover_text("The agent leaves plan mode and carries the plan out. Shortcut: A")
                .clicked()
            {
                answer = Some(CardAnswer::Allow);
            }
            let kept = egui::Button::new(
                RichText::new("Keep planning")
                    .strong()
                    .color(Color32::BLACK),
            )
            .fill(look::AMBER);
            if ui
                .add(kept)
                .on_hover_text(
                    "The agent stays in plan mode and is told your feedback (or that the plan \
                     was not approved). Shortcut: D",
                )
                .clicked()
            {
                answer = Some(keep());
            }
        });
        ui.label(
            RichText::new("No Always for a plan: each plan is yours to approve.")
                .small()
                .color(Color32::from_gray(150)),
        );
        if keys {
            ui.label(
                RichText::new("Keys: A approve · D keep planning · Enter sends the feedback")
                    .small()
                    .color(Color32::from_gray(110)),
            );
        }
        if entered && answer.is_none() && !self.feedback.trim().is_empty() {
            answer = Some(keep());
            self.by_key = true;
        }
        if answer.is_some() {
            return answer;
        }
        self.by_key = true;
        answer.or_else(|| {
            presses.iter().find_map(|p| {
                if p.is(Key::A) {
                    Some(CardAnswer::Allow)
                } else if p.is(Key::D) {
                    Some(keep())
                } else {
                    None
                }
            })
        })
    }
}

impl QuestionChoice {
    /// The answer so far, or `None` while nothing is chosen.
    fn answer(&self, q: &Question) -> Option<AnswerItem> {
        let mut labels: Vec<String> = q
            .options
            .iter()
            .zip(&self.chosen)
            .filter(|(_, on)| **on)
            .map(|(o, _)| o.label.clone())
            .collect();
        let other = self.other.trim();
        if self.other_on && !other.is_empty() {
            labels.push(other.to_string());
        }
        if labels.is_empty() {
            return None;
        }
        if q.multi_select {
            Some(AnswerItem::Many(labels))
        } else {
            labels.pop().map(AnswerItem::One)
        }
    }
}

fn question_ui(
    ui: &mut egui::Ui,
    qi: usize,
    q: &Question,
    choice: &mut QuestionChoice,
    digits: bool,
) {
    if !q.header.is_empty() {
        ui.label(
            RichText::new(reveal(&q.header).text)
                .small()
                .color(Color32::from_gray(150)),
        );
    }
    ui.add(egui::Label::new(RichText::new(reveal(&q.question).text).strong()).wrap());
    if q.multi_select {
        ui.label(
            RichText::new("Choose any")
                .small()
                .color(Color32::from_gray(140)),
        );
    }
    for (oi, option) in q.options.iter().enumerate() {
        let on = choice.chosen[oi];
        let clicked = ui
            .horizontal(|ui| {
                let clicked = if q.multi_select {
                    let mut v = on;
                    ui.checkbox(&mut v, reveal(&option.label).text).changed()
                } else {
                    ui.radio(on, reveal(&option.label).text).clicked()
                };
                if digits && oi < 9 {
                    ui.label(
                        RichText::new(format!("{}", oi + 1))
                            .monospace()
                            .small()
                            .color(Color32::from_gray(110)),
                    );
                }
                clicked
            })
            .inner;
        if clicked {
            if q.multi_select {
                choice.chosen[oi] = !on;
            } else {
                choice.chosen.iter_mut().for_each(|c| *c = false);
                choice.chosen[oi] = true;
                choice.other_on = false;
            }
        }
        if !option.description.is_empty() {
            ui.indent(("desc", qi, oi), |ui| {
                ui.add(
                    egui::Label::new(
                        RichText::new(reveal(&option.description).text)
                            .small()
                            .color(Color32::from_gray(150)),
                    )
                    .wrap(),
                );
            });
        }
    }
    ui.horizontal(|ui| {
        let other_label = "Other";
        let clicked = if q.multi_select {
            let mut v = choice.other_on;
            ui.checkbox(&mut v, other_label).changed()
        } else {
            ui.radio(choice.other_on, other_label).clicked()
        };
        if clicked {
            choice.other_on = !choice.other_on || !q.multi_select;
            if !q.multi_select {
                choice.chosen.iter_mut().for_each(|c| *c = false);
            }
        }
        let edit = ui.add(
            egui::TextEdit::singleline(&mut choice.other)
                .hint_text("your own answer")
                .desired_width(f32::INFINITY),
        );
        edit.widget_info(|| {
            egui::WidgetInfo::labeled(
                egui::Role::TextInput,
                true,
                format!("Other answer {}", qi + 1),
            )
        });
        if edit.changed() && !choice.other.trim().is_empty() && !choice.other_on {
            choice.other_on = true;
            if !q.multi_select {
                choice.chosen.iter_mut().for_each(|c| *c = false);
            }
        }
    });
}

fn header_ui(
    ui: &mut egui::Ui,
    card: &PendingCard,
    now: SystemTime,
    hidden: bool,
    terminal: &mut CardTerminal,
) {
    let name = match &card.identity {
        vults_core::protocol::Identity::Named(n) => Some(n.as_str()),
        _ => None,
    };
    let color = look::agent_color(card.agent, name);
    ui.horizontal(|ui| {
        look::paint_bird(ui, color, &look::agent_letter(card.agent, name), 26.0);
        ui.label(
            RichText::new(card.identity.display_name())
                .strong()
                .color(color),
        );
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            // "Show terminal" has the same place on every card, at the top right: never a row
            // of its own under an edit's four answers.
            terminal_button_ui(ui, terminal);
            let waited = now
                .duration_since(card.arrived)
                .unwrap_or_default()
                .as_secs();
            ui.label(
                RichText::new(match look::waited_text(waited).as_str() {
                    "just now" => "arrived just now".to_string(),
                    text => format!("waiting {text}"),
                })
                .small()
                .color(Color32::from_gray(150)),
            );
        });
    });
    ui.add(
        egui::Label::new(
            RichText::new(reveal(&card.folder).text)
                .monospace()
                .color(Color32::from_gray(190)),
        )
        .wrap(),
    );
    ui.horizontal_wrapped(|ui| {
        if card.question {
            ui.label(RichText::new("asks you").color(Color32::from_gray(160)));
        } else if card.plan().is_some() {
            ui.label(RichText::new("asks you to approve its plan").color(Color32::from_gray(160)))
                .on_hover_text(format!(
                    "{} asks to leave plan mode ({}) and carry this plan out",
                    card.identity.display_name(),
                    reveal(&card.call.tool).text
                ));
        } else {
            ui.label(RichText::new("wants to use").color(Color32::from_gray(160)));
            ui.label(
                RichText::new(reveal(&card.call.tool).text)
                    .monospace()
                    .strong(),
            );
        }
        if hidden {
            ui.label(
                RichText::new("contains hidden characters")
                    .strong()
                    .color(Color32::BLACK)
                    .background_color(look::AMBER),
            )
            .on_hover_text(
                "Characters that show as nothing, or reorder the text around them (bidi \
                 controls, zero-width spaces, control characters), are written out where they \
                 stand, as ‹U+202E›. Copy still copies the exact text.",
            );
        }
        if let Some(why) = &card.destructive {
            ui.label(
                // Monospace: what was found is command text ("git push --force" drawn in the
                // proportional face reads as "git push –force").
                RichText::new(format!("DESTRUCTIVE: {}", reveal(why).text))
                    .monospace()
                    .strong()
                    .color(Color32::WHITE)
                    .background_color(look::RED),
            );
        }
    });
    // A policy that says "ask" is worth naming: it is why this card exists.
    if let Reason::Policy(_) = card.reason {
        ui.label(
            RichText::new(format!("Asked by {}", card.reason))
                .small()
                .color(look::AMBER),
        );
    }
}

/// The agent's own words about the call, muted and labelled as the agent's.
fn said_ui(ui: &mut egui::Ui, card: &PendingCard) {
    if let Some(said) = &card.context.said {
        ui.add(
            egui::Label::new(
                RichText::new(format!(
                    "{} says: {}",
                    card.identity.display_name(),
                    reveal(said).text
                ))
                .italics()
                .color(Color32::from_gray(165)),
            )
            .wrap(),
        );
    }
}

const OLD_FILL: Color32 = Color32::from_rgb(0x3A, 0x1F, 0x22);
const NEW_FILL: Color32 = Color32::from_rgb(0x1B, 0x33, 0x24);
const CODE_FILL: Color32 = Color32::from_gray(16);
/// A plan is prose with code in it: a lighter block than a command's.
const PLAN_FILL: Color32 = Color32::from_gray(28);

impl CardView {
    /// The whole target, never a summary: a diff where there is one (the exact text a click
    /// away), else the exact text.
    fn target_ui(&mut self, ui: &mut egui::Ui, card: &PendingCard) {
        let tool = card.call.tool.as_str();
        let ctx = ui.ctx().clone();
        let CardView {
            diff,
            whole,
            laid,
            folds,
            ..
        } = self;
        folds.drawn.clear();
        let shows_diff = diff.is_some() && !*whole;
        let toggle = diff.is_some().then_some(whole);
        match &card.call.target {
            Target::Command { command } => {
                head_ui(ui, "command", Some(command), None);
                let l = laid
                    .entry("command")
                    .or_insert_with(|| code::command(&ctx, command));
                code_block(ui, "command", l, CODE_FILL, folds);
            }
            Target::Edit { path, old, new } => {
                path_ui(ui, path);
                if shows_diff && let Some(d) = diff {
                    head_ui(ui, &format!("diff · {}", changes(d)), None, toggle);
                    let l = laid
                        .entry("diff")
                        .or_insert_with(|| code::diff(&ctx, d, false));
                    code_block(ui, "diff", l, CODE_FILL, folds);
                    return;
                }
                let lang = code::language_of(path);
                let mut toggle = toggle;
                if let Some(old) = old {
                    head_ui(ui, "old", None, toggle.take());
                    let l = laid
                        .entry("old")
                        .or_insert_with(|| code::text(&ctx, old, lang));
                    code_block(ui, "old", l, OLD_FILL, folds);
                }
                if let Some(new) = new {
                    head_ui(ui, "new", None, toggle.take());
                    // A MultiEdit's edits come as JSON.
                    let lang = if old.is_none() && new.trim_start().starts_with('[') {
                        "json"
                    } else {
                        lang
                    };
                    let l = laid
                        .entry("new")
                        .or_insert_with(|| code::text(&ctx, new, lang));
                    code_block(ui, "new", l, NEW_FILL, folds);
                }
                // OpenCode says an edit as the diff it made: its input, as it was sent.
                if let (None, None, Some(exact)) = (old, new, &card.call.exact) {
                    head_ui(ui, &format!("{tool} input"), None, toggle.take());
                    let l = laid
                        .entry("input")
                        .or_insert_with(|| code::text(&ctx, &pretty_json(exact), "json"));
                    code_block(ui, "input", l, CODE_FILL, folds);
                }
            }
            Target::Write { path, content } => {
                path_ui(ui, path);
                if shows_diff && let Some(d) = diff {
                    head_ui(
                        ui,
                        &format!("diff with the file now · {}", changes(d)),
                        None,
                        toggle,
                    );
                    let l = laid
                        .entry("diff")
                        .or_insert_with(|| code::diff(&ctx, d, false));
                    code_block(ui, "diff", l, CODE_FILL, folds);
                } else if let Some(content) = content {
                    // Only a file the engine found not to exist is called new.
                    let lines = match content.lines().count() {
                        1 => "1 line".to_string(),
                        n => format!("{n} lines"),
                    };
                    let what = if card.context.is_missing(path) {
                        format!("new file · {lines}")
                    } else if diff.is_some() {
                        format!("content · {lines}")
                    } else {
                        format!("content · {lines} · the file now could not be read")
                    };
                    head_ui(ui, &what, None, toggle);
                    let l = laid
                        .entry("content")
                        .or_insert_with(|| code::text(&ctx, content, code::language_of(path)));
                    code_block(ui, "content", l, NEW_FILL, folds);
                }
            }
            Target::Path { path } => path_ui(ui, path),
            Target::Url { url } => block_ui(ui, "URL", url, None, folds),
            Target::Patch { patch } => {
                if shows_diff && let Some(d) = diff {
                    let files = match d.len() {
                        1 => String::new(),
                        n => format!("{n} files · "),
                    };
                    head_ui(ui, &format!("patch · {files}{}", changes(d)), None, toggle);
                    let l = laid
                        .entry("diff")
                        .or_insert_with(|| code::diff(&ctx, d, true));
                    code_block(ui, "diff", l, CODE_FILL, folds);
                } else {
                    head_ui(ui, "patch", Some(patch), toggle);
                    let l = laid
                        .entry("patch")
                        .or_insert_with(|| code::text(&ctx, patch, ""));
                    code_block(ui, "patch", l, CODE_FILL, folds);
                }
            }
            Target::Mcp {
                server,
                tool: mcp_tool,
                input,
            } => {
                ui.horizontal_wrapped(|ui| {
                    ui.label(RichText::new("MCP").small().color(Color32::from_gray(150)));
                    ui.label(
                        RichText::new(format!(
                            "{} / {}",
                            reveal(server).text,
                            reveal(mcp_tool).text
                        ))
                        .monospace()
                        .strong(),
                    );
                });
                head_ui(ui, "input", None, None);
                let l = laid
                    .entry("input")
                    .or_insert_with(|| code::text(&ctx, &pretty_json(input), "json"));
                code_block(ui, "input", l, CODE_FILL, folds);
            }
            Target::Input { .. } if shows_diff && let Some(d) = diff => {
                // OpenCode's own diff of one file: its path on the path line, as for an Edit.
                let one_file = match d.as_slice() {
                    [only] if !only.path.is_empty() => {
                        path_ui(ui, &only.path);
                        true
                    }
                    _ => false,
                };
                head_ui(ui, &format!("diff · {}", changes(d)), None, toggle);
                let l = laid
                    .entry("diff")
                    .or_insert_with(|| code::diff(&ctx, d, !one_file));
                code_block(ui, "diff", l, CODE_FILL, folds);
            }
            Target::Input { json } => {
                head_ui(ui, &format!("{tool} input"), None, toggle);
                let l = laid
                    .entry("input")
                    .or_insert_with(|| code::text(&ctx, &pretty_json(json), "json"));
                code_block(ui, "input", l, CODE_FILL, folds);
            }
            Target::Questions { questions } => {
                let text = questions
                    .iter()
                    .map(|q| q.question.as_str())
                    .collect::<Vec<_>>()
                    .join("\n");
                block_ui(ui, "questions", &text, None, folds);
            }
        }
    }
}

/// "+3 −1": the lines a diff adds and removes.
pub fn changes(files: &[FileDiff]) -> String {
    let lines = || files.iter().flat_map(|f| &f.hunks).flat_map(|h| &h.lines);
    let added = lines()
        .filter(|l| l.tag == vults_engine::diff::Tag::Added)
        .count();
    let removed = lines()
        .filter(|l| l.tag == vults_engine::diff::Tag::Removed)
        .count();
    format!("+{added} −{removed}")
}

/// A block's small label, a Copy button for the exact text, and the diff / whole-text toggle.
fn head_ui(ui: &mut egui::Ui, what: &str, copy: Option<&str>, whole: Option<&mut bool>) {
    ui.horizontal(|ui| {
        ui.label(RichText::new(what).small().color(Color32::from_gray(140)));
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if let Some(text) = copy
                && ui
                    .small_button("Copy")
                    .on_hover_text("Copies the exact text, as the agent sent it")
                    .clicked()
            {
                ui.ctx().copy_text(text.to_string());
            }
            if let Some(whole) = whole {
                let button =
                    egui::Button::new(RichText::new("Whole text").small()).selected(*whole);
                if ui
                    .add(button)
                    .on_hover_text("The exact text the agent sent, instead of the diff")
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
struct Fold {
    /// "12 more lines ↓ · +3 hunks" while something is below the view.
    below: Option<String>,
    offset: f32,
    viewport: f32,
    /// A row of the block's text, to keep one in sight when it scrolls a page.
    row: f32,
    scroll_to: Option<f32>,
    /// The block is taller than its view: its marker's row stays, scrolled or not, so nothing
    /// under it (the answer buttons) moves while the card is up.
    scrolls: bool,
}

impl Fold {
    /// Scrolls a page down (one row stays in sight); `false` when nothing is below.
    fn page_down(&mut self) -> bool {
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
struct Folds {
    by_block: HashMap<&'static str, Fold>,
    drawn: Vec<&'static str>,
}

impl Folds {
    /// Scrolls the first block drawn that has something out of sight a page down.
    fn page_down(&mut self) -> bool {
        let drawn = self.drawn.clone();
        drawn
            .into_iter()
            .any(|what| self.by_block.get_mut(what).is_some_and(Fold::page_down))
    }
}

fn code_block(
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
fn scroll_block(
    ui: &mut egui::Ui,
    what: &'static str,
    fill: Color32,
    folds: &mut Folds,
    add: impl FnOnce(&mut egui::Ui) -> Option<String>,
) {
    folds.drawn.push(what);
    let fold = folds.by_block.entry(what).or_default();
    let row = ui.text_style_height(&egui::TextStyle::Monospace);
    egui::Frame::new()
        .fill(fill)
        .corner_radius(6)
        .inner_margin(egui::Margin::same(8))
        .show(ui, |ui| {
            // A solid bar, never one that shows only under the pointer.
            ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
            let mut area = egui::ScrollArea::vertical()
                .id_salt(what)
                .max_height(BLOCK_MAX)
                .auto_shrink([false, true]);
            if let Some(y) = fold.scroll_to.take() {
                area = area.vertical_scroll_offset(y);
            }
            let out = area.show(ui, add);
            let (offset, viewport) = (out.state.clamped_offset().y, out.inner_rect.height());
            let hidden = out.content_size.y - offset - viewport;
            fold.offset = offset;
            fold.viewport = viewport;
            fold.row = row;
            fold.scrolls |= out.content_size.y > viewport + 0.5;
            fold.below = match out.inner {
                Some(text) => Some(text),
                // A block that cannot count its lines: the rows of its height out of sight.
                None if hidden > row * 0.5 => Some(match (hidden / row).ceil() as usize {
                    1 => "1 more line ↓".to_string(),
                    n => format!("{n} more lines ↓"),
                }),
                None => None,
            };
        });
    more_marker(ui, fold);
}

/// The marker under a block with more out of sight ("3 more lines ↓"): a click scrolls a page.
/// A block that scrolls keeps the marker's row when scrolled to its end ("the end ↑", muted),
/// so the answer buttons under it never move under the person's pointer.
fn more_marker(ui: &mut egui::Ui, fold: &mut Fold) {
    let Some(text) = fold.below.clone() else {
        if fold.scrolls {
            let end = egui::Button::new(
                RichText::new("the end ↑")
                    .monospace()
                    .size(11.5)
                    .color(Color32::from_gray(120)),
            )
            .frame(false)
            .sense(egui::Sense::hover());
            ui.add(end)
                .on_hover_text("Scroll up to read it again (the mouse wheel or the scroll bar)");
        }
        return;
    };
    let more = egui::Button::new(
        RichText::new(text)
            .monospace()
            .size(11.5)
            .color(look::AMBER),
    )
    .frame(false);
    if ui
        .add(more)
        .on_hover_text(
            "Scroll down (the Down arrow, Page Down or Space on the card that takes the keys)",
        )
        .clicked()
    {
        fold.page_down();
        ui.ctx().request_repaint();
    }
}

fn path_ui(ui: &mut egui::Ui, path: &str) {
    ui.add(egui::Label::new(RichText::new(reveal(path).text).monospace().strong()).wrap());
}

fn block_ui(
    ui: &mut egui::Ui,
    what: &'static str,
    text: &str,
    fill: Option<Color32>,
    folds: &mut Folds,
) {
    ui.label(RichText::new(what).small().color(Color32::from_gray(140)));
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

/// The Always buttons a card offers, each with its answer and the label its button reads:
/// "Always allow" alone, or for an edit or a write "Always: this change" (the narrow rule,
/// Shift+A) and "Always: this file" (any change to it).
pub fn always_offers(card: &PendingCard) -> Vec<(&'static str, CardAnswer, &AlwaysRule)> {
    let Some(rule) = &card.always_rule else {
        return Vec::new();
    };
    match &card.file_rule {
        Some(file) => {
            let narrow = match card.call.target {
                Target::Write { .. } => "Always: this content",
                _ => "Always: this change",
            };
            vec![
                (narrow, CardAnswer::AlwaysAllow, rule),
                ("Always: this file", CardAnswer::AlwaysAllowFile, &**file),
            ]
        }
        None => vec![("Always allow", CardAnswer::AlwaysAllow, rule)],
    }
}

/// The card's "Show terminal" button, when it offers one. Its tooltip wraps narrower than a
/// card, so the card's window never cuts it at its right edge.
fn terminal_button_ui(ui: &mut egui::Ui, t: &mut CardTerminal) {
    ui.spacing_mut().tooltip_width = WIDTH * 0.6;
    if t.offered
        && crate::terminal::button(
            ui,
            t.showing,
            "Bring the agent's terminal window, tab and pane forward (nothing is typed into it). Shortcut: T",
            None,
        )
    {
        t.asked = true;
    }
}

/// The line of the card's last "Show terminal".
fn terminal_line_ui(ui: &mut egui::Ui, t: &CardTerminal) {
    if let Some(shown) = t.shown.as_ref().filter(|_| t.offered) {
        crate::terminal::line_ui(ui, shown);
    }
}

fn decision_ui(
    ui: &mut egui::Ui,
    card: &PendingCard,
    keys: bool,
    terminal: &mut CardTerminal,
) -> Option<CardAnswer> {
    let mut answer = None;
    let offers = always_offers(card);
    ui.horizontal_wrapped(|ui| {
        let allow = egui::Button::new(RichText::new("Allow").strong().color(Color32::WHITE))
            .fill(look::GREEN);
        if ui.add(allow).on_hover_text("Shortcut: A").clicked() {
            answer = Some(CardAnswer::Allow);
        }
        let deny =
            egui::Button::new(RichText::new("Deny").strong().color(Color32::WHITE)).fill(look::RED);
        if ui.add(deny).on_hover_text("Shortcut: D").clicked() {
            answer = Some(CardAnswer::Deny);
        }
        for (i, (label, offer, rule)) in offers.iter().enumerate() {
            let key = if i == 0 { "Shortcut: Shift+A. " } else { "" };
            if ui
                .button(*label)
                .on_hover_text(format!("{key}Allows, and from now on: {}", rule.words()))
                .clicked()
            {
                answer = Some(offer.clone());
            }
        }
    });
    terminal_line_ui(ui, terminal);
    // What each Always answers from now on, in the words the rule is kept in (Settings → Rules).
    match offers.as_slice() {
        [] if card.destructive.is_some() => {
            ui.label(
                RichText::new("No Always allow: a destructive call always asks you.")
                    .small()
                    .color(Color32::from_gray(150)),
            );
        }
        [] => {}
        [(_, _, rule)] => {
            rule_words_ui(ui, &format!("Always allow: {}", rule.words()));
        }
        several => {
            for (label, _, rule) in several {
                let short = label.trim_start_matches("Always: ");
                rule_words_ui(ui, &format!("Always {short}: {}", rule.words()));
            }
        }
    }
    // Only the card that takes the keys says which (in one window, one card does).
    if !keys {
        return answer;
    }
    let mut line = match offers.first() {
        Some(("Always allow", _, _)) => "Keys: A allow · D deny · Shift+A always".to_string(),
        Some((label, _, _)) => format!(
            "Keys: A allow · D deny · Shift+A {}",
            label.trim_start_matches("Always: ")
        ),
        None => "Keys: A allow · D deny".to_string(),
    };
    if terminal.offered {
        line.push_str(" · T terminal");
    }
    ui.label(RichText::new(line).small().color(Color32::from_gray(110)));
    answer
}

/// What an Always makes, in the rule's own words: what a person most needs to read before
/// making a rule, so in the body's size and nearly white, never the card's smallest text.
fn rule_words_ui(ui: &mut egui::Ui, text: &str) {
    ui.add(egui::Label::new(RichText::new(text).color(Color32::from_gray(225))).wrap());
}

/// Pretty-prints JSON for reading; anything that does not parse shows as it came.
fn pretty_json(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| text.to_string())
}

/// A card's window height in points, from what it shows (the blocks scroll past their cap).
pub fn estimated_height(card: &PendingCard) -> f32 {
    fn lines(text: &str) -> f32 {
        let chars_per_line = 52.0;
        text.lines()
            .map(|l| (l.chars().count() as f32 / chars_per_line).ceil().max(1.0))
            .sum::<f32>()
            .max(1.0)
    }
    fn block(text: &str) -> f32 {
        (lines(text) * 15.0).min(BLOCK_MAX) + 36.0
    }
    let base = 150.0
        + if card.context.said.is_some() {
            20.0
        } else {
            0.0
        };
    if let Some(plan) = card.plan() {
        // The plan (headings and lists draw taller than text), the feedback line, the buttons.
        return (base + (lines(plan) * 15.5).min(PLAN_MAX) + 100.0).clamp(200.0, 720.0);
    }
    let body = match &card.call.target {
        Target::Command { command } => {
            let shown: Vec<String> = code::command_lines(command)
                .into_iter()
                .map(|(_, l)| l)
                .collect();
            20.0 + block(&shown.join("\n"))
        }
        Target::Edit { .. } | Target::Write { .. } | Target::Patch { .. }
            if let Some(files) = vults_engine::diff::card_diff(&card.call, &card.context) =>
        {
            let text: String = files
                .iter()
                .map(|f| format!("{} {}\n{}", f.op.word(), f.path, f.text()))
                .collect();
            48.0 + block(&text)
        }
        Target::Edit { old, new, .. } => {
            24.0 + old.as_deref().map(block).unwrap_or(0.0)
                + new.as_deref().map(block).unwrap_or(0.0)
        }
        Target::Write { content, .. } => 24.0 + content.as_deref().map(block).unwrap_or(0.0),
        Target::Path { .. } => 24.0,
        Target::Url { url } => block(url),
        Target::Patch { patch } => 20.0 + block(patch),
        Target::Mcp { input, .. } => 24.0 + block(&pretty_json(input)),
        Target::Input { json } => block(&pretty_json(json)),
        Target::Questions { questions } => questions
            .iter()
            .map(|q| 60.0 + 24.0 * (q.options.len() as f32 + 1.0))
            .sum::<f32>()
            .min(380.0),
    };
    let rule = if card.file_rule.is_some() {
        64.0
    } else if card.always_rule.is_some() || card.destructive.is_some() {
        34.0
    } else {
        0.0
    };
    (base + body + rule).clamp(200.0, 720.0)
}
