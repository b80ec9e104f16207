//! A plan card (Claude Code asking to leave plan mode): the plan drawn from its markdown, a line
//! of feedback for the model, and "Approve" / "Keep planning". No Always: each plan is approved
//! by a person.

use super::block::{Fold, answer_button, more_marker};
use super::keys::{Press, pages_down};
use crate::theme;
use egui::{Color32, Key, RichText};
use vults_core::text::reveal;
use vults_engine::messages::CardAnswer;
use vults_i18n::tr;

/// A plan is prose with code in it: a lighter block than a command's.
const PLAN_FILL: Color32 = Color32::from_gray(28);

/// The tallest a plan grows before it scrolls: a plan is read, not glanced at.
pub(super) const PLAN_MAX: f32 = 380.0;

/// A plan card's own state: its markdown, parsed once, and the line of feedback typed so far.
#[derive(Debug, Clone, Default)]
pub(super) struct PlanView {
    /// The plan's markdown, parsed once ([`crate::markdown::Blocks`]).
    markdown: Option<crate::markdown::Blocks>,
    /// The line of feedback, sent with "Keep planning".
    feedback: String,
    /// The plan's scroll and what is out of sight below it.
    fold: Fold,
}

impl PlanView {
    /// The feedback typed on the plan card so far.
    pub(super) fn feedback(&self) -> &str {
        &self.feedback
    }

    /// A plan card: the plan drawn from its markdown (headings, lists, code blocks; every
    /// hidden character written out), scrollable, then a line of feedback and "Approve" /
    /// "Keep planning". Keep planning sends the feedback as the deny's words (the model reads
    /// them and revises); Enter in the feedback line sends it too. Keys when the field is not
    /// being typed in: A approve, D keep planning.
    /// `by_key` says whether the answer came from a key.
    pub(super) fn ui(
        &mut self,
        ui: &mut egui::Ui,
        plan: &str,
        presses: &[Press],
        keys: bool,
        armed: bool,
        by_key: &mut bool,
    ) -> Option<CardAnswer> {
        ui.label(
            RichText::new(tr!("card-plan"))
                .small()
                .color(Color32::from_gray(140)),
        );
        let blocks = self
            .markdown
            .get_or_insert_with(|| crate::markdown::Blocks::parse(&reveal(plan).text));
        let fold = &mut self.fold;
        egui::Frame::new()
            .fill(PLAN_FILL)
            .corner_radius(6)
            .inner_margin(egui::Margin::same(10))
            .show(ui, |ui| {
                let ((), hidden) =
                    fold.scroll(ui, "plan", PLAN_MAX, &egui::TextStyle::Body, |ui| {
                        blocks.ui(ui);
                    });
                fold.below = (hidden > fold.row * 0.5).then(|| tr!("card-plan-more"));
            });
        more_marker(ui, fold);
        if pages_down(presses) && self.fold.page_down() {
            ui.ctx().request_repaint();
        }
        ui.add_space(6.0);
        let label = ui.label(
            RichText::new(tr!("card-feedback"))
                .small()
                .color(Color32::from_gray(140)),
        );
        let field = ui
            .add(
                egui::TextEdit::singleline(&mut self.feedback)
                    .id_salt("plan feedback")
                    .desired_width(f32::INFINITY)
                    .char_limit(vults_core::answer::MAX_FEEDBACK)
                    .hint_text(tr!("card-feedback-hint")),
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
            if !armed {
                ui.multiply_opacity(super::UNARMED_OPACITY);
            }
            let white = |t: String| RichText::new(t).strong().color(Color32::WHITE);
            if answer_button(ui, "card-approve", white, Some(theme::GREEN))
                .on_hover_text(tr!("card-approve-hover"))
                .clicked()
            {
                answer = Some(CardAnswer::Allow);
            }
            let black = |t: String| RichText::new(t).strong().color(Color32::BLACK);
            if answer_button(ui, "card-keep-planning", black, Some(theme::AMBER))
                .on_hover_text(tr!("card-keep-planning-hover"))
                .clicked()
            {
                answer = Some(keep());
            }
        });
        ui.label(
            RichText::new(tr!("card-plan-no-always"))
                .small()
                .color(Color32::from_gray(150)),
        );
        if keys {
            ui.label(
                RichText::new(tr!("card-plan-keys"))
                    .small()
                    .color(Color32::from_gray(110)),
            );
        }
        if entered && answer.is_none() && !self.feedback.trim().is_empty() {
            answer = Some(keep());
            *by_key = true;
        }
        if answer.is_some() {
            return answer;
        }
        *by_key = true;
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
