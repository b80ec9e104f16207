//! A permission card: the whole target the agent sent (a command, an edit's diff, a file's
//! content, a URL, an MCP call's input…), then Allow, Deny and the Always it offers, with the
//! rule each Always makes in the rule's own words.

use super::block::{CODE_FILL, Folds, NEW_FILL, OLD_FILL, block_ui, code_block, head_ui};
use super::keys::Press;
use super::terminal::{CardTerminal, terminal_line_ui};
use crate::code::{self, Laid};
use crate::look;
use egui::{Color32, Key, RichText};
use std::collections::HashMap;
use vults_core::agents::Target;
use vults_core::rules::AlwaysRule;
use vults_core::text::reveal;
use vults_engine::diff::{FileDiff, changes};
use vults_engine::messages::{CardAnswer, PendingCard};

/// A permission card's own state: its diff (computed once), whether it shows the exact text
/// instead, and its code laid out once, by block.
#[derive(Debug, Clone, Default)]
pub(super) struct TargetView {
    diff: Option<Vec<FileDiff>>,
    /// Shows the exact text the agent sent instead of the diff.
    whole: bool,
    laid: HashMap<&'static str, Laid>,
}

impl TargetView {
    /// The card's target as it arrives: its diff computed once (none when empty).
    pub(super) fn new(card: &PendingCard) -> TargetView {
        TargetView {
            diff: vults_engine::diff::card_diff(&card.call, &card.context)
                .filter(|d| !d.is_empty()),
            ..Default::default()
        }
    }

    /// The card's diff, when it shows one.
    pub(super) fn diff(&self) -> Option<&[FileDiff]> {
        self.diff.as_deref()
    }

    /// The whole target, never a summary: a diff where there is one (the exact text a click
    /// away), else the exact text.
    pub(super) fn ui(&mut self, ui: &mut egui::Ui, card: &PendingCard, folds: &mut Folds) {
        let tool = card.call.tool.as_str();
        let ctx = ui.ctx().clone();
        let TargetView { diff, whole, laid } = self;
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

fn path_ui(ui: &mut egui::Ui, path: &str) {
    ui.add(egui::Label::new(RichText::new(reveal(path).text).monospace().strong()).wrap());
}

/// Pretty-prints JSON for reading; anything that does not parse shows as it came.
pub(super) fn pretty_json(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| text.to_string())
}

/// What a permission card's keys answer: `A` allow, `D` deny, `Shift+A` the card's first
/// Always (none on a card that offers none). The first press that means something wins.
pub(super) fn permission_key(card: &PendingCard, presses: &[Press]) -> Option<CardAnswer> {
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

pub(super) fn decision_ui(
    ui: &mut egui::Ui,
    card: &PendingCard,
    keys: bool,
    armed: bool,
    terminal: &mut CardTerminal,
) -> Option<CardAnswer> {
    let mut answer = None;
    let offers = always_offers(card);
    ui.horizontal_wrapped(|ui| {
        // Faded until the card has been in its place for a moment (super::ARM_DELAY).
        if !armed {
            ui.multiply_opacity(super::UNARMED_OPACITY);
        }
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
                .on_hover_text(format!(
                    "{key}Allows, and from now on: {}",
                    crate::look::rule_words(rule)
                ))
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
            rule_words_ui(
                ui,
                &format!("Always allow: {}", crate::look::rule_words(rule)),
            );
        }
        several => {
            for (label, _, rule) in several {
                let short = label.trim_start_matches("Always: ");
                rule_words_ui(
                    ui,
                    &format!("Always {short}: {}", crate::look::rule_words(rule)),
                );
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
