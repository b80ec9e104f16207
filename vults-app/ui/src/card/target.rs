//! A permission card: the whole target the agent sent (a command, an edit's diff, a file's
//! content, a URL, an MCP call's input…), then Allow, Deny and the Always it offers, with the
//! rule each Always makes in the rule's own words.

use super::block::{
    CODE_FILL, Folds, NEW_FILL, OLD_FILL, answer_button, block_ui, code_block, head_ui,
};
use super::keys::Press;
use super::show_terminal::{CardTerminal, terminal_line_ui};
use crate::code::{self, Laid};
use crate::theme;
use egui::{Color32, Key, RichText};
use std::collections::HashMap;
use vults_core::agents::Target;
use vults_core::rules::AlwaysRule;
use vults_core::text::reveal;
use vults_engine::diff::{FileDiff, changes};
use vults_engine::messages::{CardAnswer, PendingCard};
use vults_i18n::tr;

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
                head_ui(ui, &tr!("card-block-command"), Some(command), None);
                let l = laid
                    .entry("command")
                    .or_insert_with(|| code::command(&ctx, command));
                code_block(ui, "command", l, CODE_FILL, folds);
            }
            Target::Edit { path, old, new } => {
                path_ui(ui, path);
                if shows_diff && let Some(d) = diff {
                    head_ui(
                        ui,
                        &tr!("card-block-diff", changes = changes(d)),
                        None,
                        toggle,
                    );
                    let l = laid
                        .entry("diff")
                        .or_insert_with(|| code::diff(&ctx, d, false));
                    code_block(ui, "diff", l, CODE_FILL, folds);
                    return;
                }
                let lang = code::language_of(path);
                let mut toggle = toggle;
                if let Some(old) = old {
                    head_ui(ui, &tr!("card-block-old"), None, toggle.take());
                    let l = laid
                        .entry("old")
                        .or_insert_with(|| code::text(&ctx, old, lang));
                    code_block(ui, "old", l, OLD_FILL, folds);
                }
                if let Some(new) = new {
                    head_ui(ui, &tr!("card-block-new"), None, toggle.take());
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
                    head_ui(
                        ui,
                        &tr!("card-block-tool-input", tool = tool),
                        None,
                        toggle.take(),
                    );
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
                        &tr!("card-block-diff-with-file", changes = changes(d)),
                        None,
                        toggle,
                    );
                    let l = laid
                        .entry("diff")
                        .or_insert_with(|| code::diff(&ctx, d, false));
                    code_block(ui, "diff", l, CODE_FILL, folds);
                } else if let Some(content) = content {
                    // Only a file the engine found not to exist is called new.
                    let lines = tr!("card-lines", count = content.lines().count());
                    let what = if card.context.is_missing(path) {
                        tr!("card-block-new-file", lines = lines)
                    } else if diff.is_some() {
                        tr!("card-block-content", lines = lines)
                    } else {
                        tr!("card-block-content-unread", lines = lines)
                    };
                    head_ui(ui, &what, None, toggle);
                    let l = laid
                        .entry("content")
                        .or_insert_with(|| code::text(&ctx, content, code::language_of(path)));
                    code_block(ui, "content", l, NEW_FILL, folds);
                }
            }
            Target::Path { path } => path_ui(ui, path),
            Target::Url { url } => block_ui(ui, "URL", &tr!("card-block-url"), url, None, folds),
            Target::Patch { patch } => {
                if shows_diff && let Some(d) = diff {
                    let what = tr!(
                        "card-block-patch-files",
                        count = d.len(),
                        changes = changes(d)
                    );
                    head_ui(ui, &what, None, toggle);
                    let l = laid
                        .entry("diff")
                        .or_insert_with(|| code::diff(&ctx, d, true));
                    code_block(ui, "diff", l, CODE_FILL, folds);
                } else {
                    head_ui(ui, &tr!("card-block-patch"), Some(patch), toggle);
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
                    ui.label(
                        RichText::new(tr!("card-block-mcp"))
                            .small()
                            .color(Color32::from_gray(150)),
                    );
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
                head_ui(ui, &tr!("card-block-input"), None, None);
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
                head_ui(
                    ui,
                    &tr!("card-block-diff", changes = changes(d)),
                    None,
                    toggle,
                );
                let l = laid
                    .entry("diff")
                    .or_insert_with(|| code::diff(&ctx, d, !one_file));
                code_block(ui, "diff", l, CODE_FILL, folds);
            }
            Target::Input { json } => {
                head_ui(ui, &tr!("card-block-tool-input", tool = tool), None, toggle);
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
                block_ui(
                    ui,
                    "questions",
                    &tr!("card-block-questions"),
                    &text,
                    None,
                    folds,
                );
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
pub(super) fn permission_key(
    card: &PendingCard,
    always: bool,
    presses: &[Press],
) -> Option<CardAnswer> {
    presses.iter().find_map(|p| {
        if p.is(Key::A) {
            Some(CardAnswer::Allow)
        } else if p.is(Key::D) {
            Some(CardAnswer::Deny)
        } else if p.is_shift(Key::A) {
            card.always_rule
                .as_ref()
                .filter(|_| always)
                .map(|_| CardAnswer::AlwaysAllow)
        } else {
            None
        }
    })
}

/// Which Always a card offers: "Always allow" alone, or for an edit "this change" and for a
/// write "this content" (the narrow rule, Shift+A), each beside "this file" (any change to it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Always {
    /// "Always allow": the card's one rule.
    Allow,
    /// An edit's exact change.
    ThisChange,
    /// A write's exact content.
    ThisContent,
    /// Any change to the file.
    ThisFile,
}

impl Always {
    /// The message its button reads.
    fn id(self) -> &'static str {
        match self {
            Always::Allow => "card-always-allow",
            Always::ThisChange => "card-always-this-change",
            Always::ThisContent => "card-always-this-content",
            Always::ThisFile => "card-always-this-file",
        }
    }

    /// What its button reads, in the person's language.
    pub fn label(self) -> String {
        tr!(self.id())
    }

    /// The line under the answers: what it answers from now on, in the rule's own words.
    fn rule_line(self, rule: &AlwaysRule) -> String {
        let rule = crate::theme::rule_words(rule);
        match self {
            Always::Allow => tr!("card-always-allow-rule", rule = rule),
            Always::ThisChange => tr!("card-always-this-change-rule", rule = rule),
            Always::ThisContent => tr!("card-always-this-content-rule", rule = rule),
            Always::ThisFile => tr!("card-always-this-file-rule", rule = rule),
        }
    }

    /// Its part of the keys line, when it is the first offer (Shift+A).
    fn key_part(self) -> String {
        match self {
            Always::ThisChange => tr!("card-keys-this-change"),
            Always::ThisContent => tr!("card-keys-this-content"),
            Always::Allow | Always::ThisFile => tr!("card-keys-always"),
        }
    }
}

/// The Always buttons a card offers, each with its answer and the rule it makes: "Always
/// allow" alone, or for an edit or a write "Always: this change" (the narrow rule, Shift+A)
/// and "Always: this file" (any change to it).
pub fn always_offers(card: &PendingCard) -> Vec<(Always, CardAnswer, &AlwaysRule)> {
    let Some(rule) = &card.always_rule else {
        return Vec::new();
    };
    match &card.file_rule {
        Some(file) => {
            let narrow = match card.call.target {
                Target::Write { .. } => Always::ThisContent,
                _ => Always::ThisChange,
            };
            vec![
                (narrow, CardAnswer::AlwaysAllow, rule),
                (Always::ThisFile, CardAnswer::AlwaysAllowFile, &**file),
            ]
        }
        None => vec![(Always::Allow, CardAnswer::AlwaysAllow, rule)],
    }
}

/// The answers under a permission card. `always`: its presentation offers Always
/// ([`vults_engine::present::Presentation::offers`]: a rule, and not destructive).
pub(super) fn decision_ui(
    ui: &mut egui::Ui,
    card: &PendingCard,
    always: bool,
    keys: bool,
    armed: bool,
    terminal: &mut CardTerminal,
) -> Option<CardAnswer> {
    let mut answer = None;
    let offers = if always {
        always_offers(card)
    } else {
        Vec::new()
    };
    ui.horizontal_wrapped(|ui| {
        // Faded until the card has been in its place for a moment (super::ARM_DELAY).
        if !armed {
            ui.multiply_opacity(super::UNARMED_OPACITY);
        }
        let strong = |t: String| RichText::new(t).strong().color(Color32::WHITE);
        if answer_button(ui, "card-allow", strong, Some(theme::GREEN))
            .on_hover_text(tr!("card-shortcut-a"))
            .clicked()
        {
            answer = Some(CardAnswer::Allow);
        }
        if answer_button(ui, "card-deny", strong, Some(theme::RED))
            .on_hover_text(tr!("card-shortcut-d"))
            .clicked()
        {
            answer = Some(CardAnswer::Deny);
        }
        for (i, (offer, reply, rule)) in offers.iter().enumerate() {
            let rule = crate::theme::rule_words(rule);
            let hover = if i == 0 {
                tr!("card-always-hover-key", rule = rule)
            } else {
                tr!("card-always-hover", rule = rule)
            };
            if answer_button(ui, offer.id(), RichText::new, None)
                .on_hover_text(hover)
                .clicked()
            {
                answer = Some(reply.clone());
            }
        }
    });
    terminal_line_ui(ui, terminal);
    // What each Always answers from now on, in the words the rule is kept in (Settings → Rules).
    if offers.is_empty() && card.destructive.is_some() {
        ui.label(
            RichText::new(tr!("card-no-always-destructive"))
                .small()
                .color(Color32::from_gray(150)),
        );
    }
    for (offer, _, rule) in &offers {
        rule_words_ui(ui, &offer.rule_line(rule));
    }
    // Only the card that takes the keys says which (in one window, one card does).
    if !keys {
        return answer;
    }
    let mut line = vec![tr!("card-keys-allow-deny")];
    if let Some((offer, _, _)) = offers.first() {
        line.push(offer.key_part());
    }
    if terminal.offered {
        line.push(tr!("card-keys-terminal"));
    }
    ui.label(
        RichText::new(line.join(" · "))
            .small()
            .color(Color32::from_gray(110)),
    );
    answer
}

/// What an Always makes, in the rule's own words: what a person most needs to read before
/// making a rule, so in the body's size and nearly white, never the card's smallest text.
fn rule_words_ui(ui: &mut egui::Ui, text: &str) {
    ui.add(egui::Label::new(RichText::new(text).color(Color32::from_gray(225))).wrap());
}
