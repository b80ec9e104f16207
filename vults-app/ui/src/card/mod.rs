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
//! [`CardView`] here is the card: its header and which kind it draws. Each kind of card is a view
//! of its own, with its own state: [`target`] (a permission: the target and Allow / Deny /
//! Always), [`question`] and [`plan`]. They share [`block`] (the scrolling block they show
//! text in), [`keys`] and [`show_terminal`] ("Show terminal"), and none imports from here.

mod block;
mod keys;
mod plan;
mod question;
mod show_terminal;
mod target;

pub use target::{Always, always_offers};

use super::code;
use super::theme;
use block::{BLOCK_MAX, Folds};
use egui::{Color32, Key, RichText};
use keys::{pages_down, presses};
use plan::{PLAN_MAX, PlanView};
use question::QuestionsView;
use show_terminal::{CardTerminal, terminal_button_ui};
use std::time::SystemTime;
use target::{TargetView, decision_ui, permission_key, pretty_json};
use vults_core::agents::Target;
use vults_core::text::reveal;
use vults_engine::diff::FileDiff;
use vults_engine::messages::{CardAnswer, PendingCard, Reason};
use vults_engine::present::{Answer, Marks, Presentation, Surface};
use vults_i18n::tr;

/// Width of a card window in points.
pub const WIDTH: f32 = 460.0;

/// The least height of a card window ([`estimated_height`] never guesses less).
pub const MIN_HEIGHT: f32 = 200.0;

/// How long a card must have been in its place before its answer buttons and keys take effect,
/// in seconds (like Firefox's `security.dialog_enable_delay`): a click meant for the card that
/// was there a moment ago never answers the one that just took its place (docs/window.md).
pub const ARM_DELAY: f64 = 0.5;

/// How the answer buttons of a card not yet armed are drawn: faded, so they visibly arm.
const UNARMED_OPACITY: f32 = 0.45;

/// How long a card says why an answer that came too soon did nothing, in seconds.
const TOO_SOON_FOR: f64 = 3.0;

/// When a card's answers take effect ([`CardView::arm`]); the default: at once.
#[derive(Debug, Clone, Copy, Default)]
struct Arming {
    /// When the card took its place (egui time); `None`: it does not move, answers at once.
    placed: Option<f64>,
    /// It has been drawn in that place.
    drawn: bool,
    /// The first frame after it was drawn there: it was on the screen by then.
    seen: Option<f64>,
    /// This frame's time and the frame before's.
    now: f64,
    before: f64,
}

/// A card's own state: each kind's view (its target, its questions, its plan) and what every
/// card has (the keys held, the scrolls, "Show terminal", how it was answered).
#[derive(Debug, Clone, Default)]
pub struct CardView {
    /// A permission card's target: its diff, computed once, and its code laid out once.
    target: TargetView,
    /// A question card's choices so far.
    questions: QuestionsView,
    /// A plan card's markdown and feedback.
    plan: PlanView,
    /// A Super key is down (followed from its own key events: see [`keys::presses`]).
    super_held: bool,
    /// What the card shows a person, decided once for every surface
    /// ([`vults_engine::present::Presentation`]): its marks — hidden characters (each written
    /// out as `‹U+202E›` where it stands, and said at the top), destructive — and whether it
    /// offers Always, as the notice, the push and the phone page read them.
    present: Option<Presentation>,
    /// Each scrolling block's scroll and what is out of sight below it.
    folds: Folds,
    /// "Show terminal" on this card.
    terminal: CardTerminal,
    /// The last answer [`CardView::ui`] returned came from a key (A, D, Shift+A, a digit's
    /// Enter), not a click: the audit says `by: key`.
    by_key: bool,
    /// Since when the card's answers may take effect ([`CardView::arm`]).
    arming: Arming,
    /// When an answer came before the card was armed, and whether it was a key: the card says
    /// why it did nothing, for [`TOO_SOON_FOR`].
    too_soon: Option<(f64, bool)>,
}

impl CardView {
    /// The state of a card as it arrives: nothing chosen yet, its diff and code laid out once.
    pub fn new(card: &PendingCard) -> CardView {
        let questions = match &card.call.target {
            Target::Questions { questions } => QuestionsView::new(questions),
            _ => QuestionsView::default(),
        };
        CardView {
            target: TargetView::new(card),
            questions,
            present: Some(Presentation::of(card)),
            terminal: CardTerminal {
                offered: vults_zeca::chat_of_session(&card.session.session).is_none(),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// What the card says of "Show terminal" for its session: one is under way (`showing`),
    /// and the line of the last one (`shown`, when it was for this card's session).
    pub fn set_terminal(&mut self, showing: bool, shown: Option<&crate::show_terminal::Shown>) {
        self.terminal.showing = showing;
        self.terminal.shown = shown.cloned();
    }

    /// Whether "Show terminal" was clicked (or `T` pressed) on the card since the last call.
    pub fn take_show_terminal(&mut self) -> bool {
        std::mem::take(&mut self.terminal.asked)
    }

    /// Whether the card flags hidden characters in what it shows.
    pub fn has_hidden_characters(&self) -> bool {
        self.present.as_ref().is_some_and(|p| p.marks.hidden)
    }

    /// The card's marks, from its presentation (none before [`CardView::new`]).
    fn marks(&self) -> Marks {
        self.present
            .as_ref()
            .map(|p| p.marks.clone())
            .unwrap_or_default()
    }

    /// Whether the card offers Always: its presentation's say (a rule, and not destructive).
    fn offers_always(&self) -> bool {
        self.present
            .as_ref()
            .is_some_and(|p| p.may(Surface::Card, Answer::Always))
    }

    /// The card's diff, when it shows one.
    pub fn diff(&self) -> Option<&[FileDiff]> {
        self.target.diff()
    }

    /// The feedback typed on a plan card so far.
    pub fn feedback(&self) -> &str {
        self.plan.feedback()
    }

    /// Who gave the answer [`CardView::ui`] last returned: a key on the card, or a click.
    pub fn answered_by(&self) -> vults_engine::messages::AnsweredBy {
        if self.by_key {
            vults_engine::messages::AnsweredBy::Key
        } else {
            vults_engine::messages::AnsweredBy::Click
        }
    }

    /// Says when the card took its place (`since`, in the egui time of the window that places
    /// it, `ctx.input(|i| i.time)`), the time of this frame (`now`) and of the frame before
    /// (`before`), ahead of [`CardView::ui`]. `None`: the card does not move where it is drawn
    /// and answers at once (the default).
    ///
    /// The delay counts from the first frame after the card was drawn in its place (it was on
    /// the screen by then, however long its window took to open), and an answer counts only
    /// when the frame before the one that reads it began [`ARM_DELAY`] after that: the click or
    /// key came after the frame before began, so the card had been up that long when it came,
    /// however late the window reads it.
    pub fn arm(&mut self, since: Option<f64>, now: f64, before: f64) {
        let a = &mut self.arming;
        if a.placed != since {
            *a = Arming {
                placed: since,
                ..Default::default()
            };
        } else if a.drawn && a.seen.is_none() {
            a.seen = Some(now);
        }
        a.now = now;
        a.before = before;
    }

    /// Whether the card's answers take effect in this frame ([`CardView::arm`]).
    pub fn armed(&self) -> bool {
        let a = &self.arming;
        a.placed.is_none() || a.seen.is_some_and(|seen| a.before - seen >= ARM_DELAY)
    }

    /// Whether the card's answer buttons are drawn ready: it has been up [`ARM_DELAY`] now (a
    /// click that comes after this frame takes effect).
    fn looks_armed(&self) -> bool {
        let a = &self.arming;
        a.placed.is_none() || a.seen.is_some_and(|seen| a.now - seen >= ARM_DELAY)
    }

    /// In how many seconds the card must be drawn again at `now`: when it arms, or when its
    /// "too soon" line goes.
    pub fn wakes(&self, now: f64) -> Option<f64> {
        let a = &self.arming;
        let arms = match (a.placed, a.seen) {
            (None, _) => None,
            // Drawn: the next frame starts its delay.
            (Some(_), None) => Some(0.0),
            (Some(_), Some(seen)) => Some(seen + ARM_DELAY - now).filter(|left| *left > 0.0),
        };
        let line = self
            .too_soon
            .map(|(at, _)| at + TOO_SOON_FOR - now)
            .filter(|left| *left > 0.0);
        [arms, line].into_iter().flatten().min_by(f64::total_cmp)
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
        let (armed, looks_armed) = (self.armed(), self.looks_armed());
        let answer = self.answer_ui(ui, card, now, keys, looks_armed);
        self.arming.drawn = true;
        let time = self.arming.placed.map(|_| self.arming.now);
        let answer = if answer.is_some() && !armed {
            // Too soon: a click or key meant for what was here a moment ago does nothing.
            self.too_soon = time.map(|t| (t, self.by_key));
            self.by_key = false;
            ui.ctx().request_repaint();
            None
        } else {
            answer
        };
        if let (Some((at, key)), Some(t)) = (self.too_soon, time) {
            if t - at < TOO_SOON_FOR {
                too_soon_ui(ui, key, card.id);
            } else {
                self.too_soon = None;
            }
        }
        answer
    }

    /// The card's header and its kind's view, with the answer the person gave this frame.
    /// `armed`: the answer buttons are drawn ready (else faded, their answer dropped by the
    /// caller).
    fn answer_ui(
        &mut self,
        ui: &mut egui::Ui,
        card: &PendingCard,
        now: SystemTime,
        keys: bool,
        armed: bool,
    ) -> Option<CardAnswer> {
        let presses = presses(ui, keys, &mut self.super_held);
        // T: Show terminal, on any card that offers it.
        if self.terminal.offered && presses.iter().any(|p| p.is(Key::T)) {
            self.terminal.asked = true;
        }
        let marks = self.marks();
        header_ui(ui, card, now, &marks, &mut self.terminal);
        ui.add_space(4.0);
        self.by_key = false;
        if let Some(plan) = card.plan() {
            return self
                .plan
                .ui(ui, plan, &presses, keys, armed, &mut self.by_key);
        }
        match &card.call.target {
            Target::Questions { questions } if card.question => self.questions.ui(
                ui,
                questions,
                &presses,
                keys,
                armed,
                &self.terminal,
                &mut self.by_key,
            ),
            _ => {
                said_ui(ui, card);
                self.target.ui(ui, card, &mut self.folds);
                // ↓, Page Down and Space bring what is out of sight into view, a page at a time.
                if pages_down(&presses) && self.folds.page_down() {
                    ui.ctx().request_repaint();
                }
                ui.add_space(6.0);
                let always = self.offers_always();
                decision_ui(ui, card, always, keys, armed, &mut self.terminal).or_else(|| {
                    let key = permission_key(card, always, &presses);
                    self.by_key = key.is_some();
                    key
                })
            }
        }
    }
}

/// Why an answer did nothing: the card had only just taken its place. One line, over the
/// card's lower part (its own layer, so the card's height never changes for it), in amber.
fn too_soon_ui(ui: &mut egui::Ui, key: bool, card: vults_engine::messages::CardId) {
    let text = if key {
        tr!("card-too-soon-key")
    } else {
        tr!("card-too-soon-click")
    };
    let rect = ui.min_rect();
    egui::Area::new(egui::ViewportId::from_hash_of(("vults-too-soon", card)).0)
        .order(egui::Order::Tooltip)
        .interactable(false)
        .pivot(egui::Align2::CENTER_BOTTOM)
        .fixed_pos(egui::pos2(rect.center().x, rect.bottom()))
        .show(ui.ctx(), |ui| {
            egui::Frame::new()
                .fill(Color32::from_rgb(0x33, 0x2A, 0x18))
                .stroke(egui::Stroke::new(1.0, theme::AMBER))
                .corner_radius(6)
                .inner_margin(egui::Margin::symmetric(10, 4))
                .show(ui, |ui| {
                    ui.label(RichText::new(text).strong().color(theme::AMBER));
                });
        });
}

fn header_ui(
    ui: &mut egui::Ui,
    card: &PendingCard,
    now: SystemTime,
    marks: &Marks,
    terminal: &mut CardTerminal,
) {
    let name = match &card.identity {
        vults_core::protocol::Identity::Named(n) => Some(n.as_str()),
        _ => None,
    };
    let color = theme::agent_color(card.agent, name);
    ui.horizontal(|ui| {
        theme::paint_bird(ui, color, &theme::agent_letter(card.agent, name), 26.0);
        ui.label(
            RichText::new(card.identity.display_name())
                .strong()
                .color(color),
        );
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            // "Show terminal" has the same place on every card, at the top right: never a row
            // of its own under an edit's four answers.
            terminal_button_ui(ui, terminal, WIDTH * 0.6);
            let waited = now
                .duration_since(card.arrived)
                .unwrap_or_default()
                .as_secs();
            ui.label(
                RichText::new(if waited < 5 {
                    tr!("card-arrived-just-now")
                } else {
                    tr!("card-waiting-for", time = theme::waited_text(waited))
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
            ui.label(RichText::new(tr!("card-asks-you")).color(Color32::from_gray(160)));
        } else if card.plan().is_some() {
            ui.label(
                RichText::new(tr!("card-asks-to-approve-plan")).color(Color32::from_gray(160)),
            )
            .on_hover_text(tr!(
                "card-plan-hover",
                who = card.identity.display_name(),
                tool = &*reveal(&card.call.tool).text
            ));
        } else {
            ui.label(RichText::new(tr!("card-wants-to-use")).color(Color32::from_gray(160)));
            ui.label(
                RichText::new(reveal(&card.call.tool).text)
                    .monospace()
                    .strong(),
            );
        }
        if marks.hidden {
            ui.label(
                RichText::new(tr!("card-hidden"))
                    .strong()
                    .color(Color32::BLACK)
                    .background_color(theme::AMBER),
            )
            .on_hover_text(tr!("card-hidden-hover"));
        }
        if let Some(why) = &marks.destructive {
            ui.label(
                // Monospace: what was found is command text ("git push --force" drawn in the
                // proportional face reads as "git push –force").
                RichText::new(tr!("card-destructive", why = &*reveal(why).text))
                    .monospace()
                    .strong()
                    .color(Color32::WHITE)
                    .background_color(theme::RED),
            );
        }
    });
    // A policy that says "ask" is worth naming: it is why this card exists.
    if let Reason::Policy(name) = &card.reason {
        ui.label(
            RichText::new(tr!("card-asked-by-policy", name = name))
                .small()
                .color(theme::AMBER),
        );
    }
}

/// The agent's own words about the call, muted and labelled as the agent's.
fn said_ui(ui: &mut egui::Ui, card: &PendingCard) {
    if let Some(said) = &card.context.said {
        ui.add(
            egui::Label::new(
                RichText::new(tr!(
                    "card-says",
                    who = card.identity.display_name(),
                    said = &*reveal(said).text
                ))
                .italics()
                .color(Color32::from_gray(165)),
            )
            .wrap(),
        );
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
