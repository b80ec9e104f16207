//! A question card (an AskUserQuestion): each question's options, chosen by click or digit
//! key, an "Other" free text, and "Answer" once every question has one.

use super::block::{Fold, answer_button, more_marker};
use super::keys::{Press, pages_down};
use super::show_terminal::{CardTerminal, terminal_line_ui};
use crate::theme;
use egui::{Color32, Key, RichText};
use vults_core::agents::Question;
use vults_core::protocol::AnswerItem;
use vults_core::text::reveal;
use vults_engine::messages::CardAnswer;
use vults_i18n::tr;

/// A question's choices so far: the options ticked, and the "Other" answer.
#[derive(Debug, Clone, Default)]
struct QuestionChoice {
    chosen: Vec<bool>,
    other_on: bool,
    other: String,
}

/// A question card's own state: each question's choices so far, and the questions' scroll.
#[derive(Debug, Clone, Default)]
pub(super) struct QuestionsView {
    choices: Vec<QuestionChoice>,
    fold: Fold,
}

impl QuestionsView {
    /// Nothing chosen yet on any of the card's questions.
    pub(super) fn new(questions: &[Question]) -> QuestionsView {
        QuestionsView {
            choices: questions.iter().map(QuestionChoice::new).collect(),
            fold: Fold::default(),
        }
    }

    /// Draws the questions and "Answer" / "Deny"; `by_key` says whether the answer came from a
    /// key.
    #[allow(clippy::too_many_arguments)] // the card's state it reads, each its own
    pub(super) fn ui(
        &mut self,
        ui: &mut egui::Ui,
        questions: &[Question],
        presses: &[Press],
        keys: bool,
        armed: bool,
        terminal: &CardTerminal,
        by_key: &mut bool,
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
                self.choices.as_mut_slice(),
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
                *by_key = true;
            }
        }
        let fold = &mut self.fold;
        let ((questions_below, more_below), _) =
            fold.scroll(ui, "questions", 380.0, &egui::TextStyle::Body, |ui| {
                // Where each question starts, to say how many are out of sight.
                let mut tops = Vec::new();
                for (qi, (q, choice)) in questions.iter().zip(self.choices.iter_mut()).enumerate() {
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
        fold.below = match (questions_below, more_below) {
            (0, false) => None,
            (0, true) => Some(tr!("card-more-below")),
            (n, _) => Some(tr!("card-more-questions", count = n)),
        };
        more_marker(ui, fold);
        if pages_down(presses) && fold.page_down() {
            ui.ctx().request_repaint();
        }
        ui.add_space(6.0);
        let items: Option<Vec<AnswerItem>> = questions
            .iter()
            .zip(&self.choices)
            .map(|(q, c)| c.answer(q))
            .collect();
        ui.horizontal(|ui| {
            if !armed {
                ui.multiply_opacity(super::UNARMED_OPACITY);
            }
            let ready = items.is_some();
            let strong = |t: String| RichText::new(t).strong();
            let send = ui
                .add_enabled_ui(ready, |ui| {
                    answer_button(ui, "card-answer", strong, Some(theme::GREEN))
                })
                .inner
                .on_disabled_hover_text(tr!("card-answer-first"));
            if send.clicked()
                && let Some(items) = items.clone()
            {
                answer = Some(CardAnswer::Answers(items));
                *by_key = false;
            }
            if answer_button(ui, "card-deny", RichText::new, None)
                .on_hover_text(tr!("card-deny-question-hover"))
                .clicked()
            {
                answer = Some(CardAnswer::Deny);
                *by_key = false;
            }
        });
        terminal_line_ui(ui, terminal);
        if answer.is_none()
            && send_key
            && let Some(items) = items
        {
            answer = Some(CardAnswer::Answers(items));
            *by_key = true;
        }
        let keys_here = keys;
        let mut keys = vec![match questions {
            [q] if !q.options.is_empty() => {
                tr!("card-question-keys", last = q.options.len().min(9))
            }
            _ => tr!("card-question-keys-no-digits"),
        }];
        if terminal.offered {
            keys.push(tr!("card-keys-terminal"));
        }
        if keys_here {
            ui.label(
                RichText::new(keys.join(" · "))
                    .small()
                    .color(Color32::from_gray(110)),
            );
        }
        answer
    }
}

impl QuestionChoice {
    /// Nothing chosen yet.
    fn new(q: &Question) -> QuestionChoice {
        QuestionChoice {
            chosen: vec![false; q.options.len()],
            ..Default::default()
        }
    }

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
            RichText::new(tr!("card-choose-any"))
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
        let other_label = tr!("card-other");
        let clicked = if q.multi_select {
            let mut v = choice.other_on;
            ui.checkbox(&mut v, other_label.as_str()).changed()
        } else {
            ui.radio(choice.other_on, other_label.as_str()).clicked()
        };
        if clicked {
            choice.other_on = !choice.other_on || !q.multi_select;
            if !q.multi_select {
                choice.chosen.iter_mut().for_each(|c| *c = false);
            }
        }
        let edit = ui.add(
            egui::TextEdit::singleline(&mut choice.other)
                .hint_text(tr!("card-other-hint"))
                .desired_width(f32::INFINITY),
        );
        edit.widget_info(|| {
            egui::WidgetInfo::labeled(
                egui::Role::TextInput,
                true,
                tr!("card-other-answer", number = qi + 1),
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
