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

//!
//! The card's state, its keys and its header live here; each kind of card draws in a module of
//! its own: [`target`] (a permission: the target and Allow / Deny / Always), [`question`] and
//! [`plan`]; [`block`] is the scrolling block they show text in.

mod block;
mod plan;
mod question;
mod target;

pub use target::{always_offers, changes};

use super::code::{self, Laid};
use super::look;
use block::Folds;
use egui::{Color32, Key, RichText};
use question::QuestionChoice;
use std::collections::HashMap;
use std::time::SystemTime;
use target::{decision_ui, permission_key, pretty_json};
use vults_core::agents::Target;
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

impl CardView {
    /// The state of a card as it arrives: nothing chosen yet, its diff and code laid out once.
    pub fn new(card: &PendingCard) -> CardView {
        let questions = match &card.call.target {
            Target::Questions { questions } => questions.iter().map(QuestionChoice::new).collect(),
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
