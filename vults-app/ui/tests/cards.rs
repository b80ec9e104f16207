//! Cards read at a glance: a unified diff for an Edit, a MultiEdit, a Codex `apply_patch` and a
//! Write over an existing file; the agent's own words above a command; a long chained command
//! wrapped at its operators. Each is a snapshot, and each is also read back as text: every
//! changed line is on the card, and the whole target is one click away.

use crate::fixtures::Snap;
use crate::fixtures::{self, CardState, card_harness as harness};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use vults_core::agents::Target;
use vults_engine::diff::{FileDiff, Tag};
use vults_engine::messages::{CardAnswer, CardContext, EditPair, PendingCard};
use vults_ui::code;

fn with_context(tool: &str, target: Target, context: CardContext) -> PendingCard {
    let mut card = fixtures::card(20, fixtures::call(tool, target), None);
    card.context = Box::new(context);
    card
}

/// The text of the one label that contains `needle`.
fn label_with(h: &Harness<'_, CardState>, needle: &str) -> String {
    // A label's text is its node's value in AccessKit.
    let node = h.get_by_label_contains(needle);
    let node = node.accesskit_node();
    node.value().or_else(|| node.label()).unwrap_or_default()
}

/// Every removed and added line of the card's diff is in the diff on screen, marked, with
/// its line number where the file was read (a removed line in the old column, an added one in
/// the new).
fn every_changed_line_is_shown(h: &Harness<'_, CardState>) -> Vec<FileDiff> {
    let files = h
        .state()
        .view
        .diff()
        .expect("the card shows a diff")
        .to_vec();
    let first = files[0].hunks[0].lines[0].text.clone();
    let shown = label_with(h, &first);
    let mut changed = 0;
    for l in files.iter().flat_map(|f| &f.hunks).flat_map(|h| &h.lines) {
        if l.tag == Tag::Context {
            continue;
        }
        changed += 1;
        let line = format!("{} {}", l.tag.mark(), l.text);
        let found = shown.lines().any(|s| {
            s.trim_start().ends_with(&line)
                && l.line()
                    .is_none_or(|n| s.trim_start().starts_with(&format!("{n} ")))
        });
        assert!(
            found,
            "{line:?} (line {:?}) is not on the card:\n{shown}",
            l.line()
        );
    }
    assert!(changed > 0);
    files
}

/// "Whole text" shows the exact text the agent sent.
fn whole_text_shows(h: &mut Harness<'_, CardState>, exact: &[&str]) {
    h.get_by_label("Whole text").click();
    h.run();
    for text in exact {
        h.get_by_label(text);
    }
    h.get_by_label("Whole text").click();
    h.run();
}

const RULES_RS: &str = "//! Always rules.

use crate::agents::ToolCall;

pub struct AlwaysRule {
    pub id: String,
    pub tool: String,
    pub target: String,
}

impl AlwaysRule {
    /// Whether the rule answers this call.
    pub fn matches(&self, call: &ToolCall) -> bool {
        self.tool == call.tool
    }

    /// A short text for lists.
    pub fn summary(&self) -> String {
        format!(\"{} {}\", self.tool, self.target)
    }
}
";

const RULES_PATH: &str = "/home/ada/src/vults/vults-core/src/rules.rs";

#[test]
fn edit_card_is_a_numbered_unified_diff_with_the_whole_text_a_click_away() {
    let old = "        self.tool == call.tool\n";
    let new = "        self.tool == call.tool && self.target == call.target.rule_key()\n";
    let card = with_context(
        "Edit",
        Target::Edit {
            path: RULES_PATH.into(),
            old: Some(old.into()),
            new: Some(new.into()),
        },
        CardContext {
            before: vec![(RULES_PATH.into(), RULES_RS.into())],
            ..Default::default()
        },
    );
    let mut h = harness(card);
    h.run();
    h.get_by_label(RULES_PATH);
    let files = every_changed_line_is_shown(&h);
    let shown = label_with(&h, "self.target == call.target.rule_key()");
    // Two columns: the old file's numbers, then the new file's; a removed line has only the
    // first, an added line only the second, a context line both.
    assert!(
        shown.contains("\n14    -         self.tool == call.tool\n"),
        "{shown}"
    );
    assert!(
        shown.contains("\n   14 +         self.tool == call.tool && self.target"),
        "{shown}"
    );
    assert!(shown.contains("\n13 13       pub fn matches"), "{shown}");
    assert_eq!(files[0].hunks.len(), 1);
    h.snap("card_edit_diff");
    whole_text_shows(&mut h, &[old, new]);
    h.get_by_label("Allow").click();
    h.run();
    assert_eq!(h.state().answer, Some(CardAnswer::Allow));
}

#[test]
fn multi_edit_card_shows_each_edit_as_a_hunk() {
    let edits = vec![
        EditPair {
            old: "//! Always rules.".into(),
            new: "//! Always rules: an exact target a person allowed once for all.".into(),
            replace_all: false,
        },
        EditPair {
            old: "format!(\"{} {}\", self.tool, self.target)".into(),
            new: "format!(\"{} on {}\", self.tool, self.target)".into(),
            replace_all: false,
        },
    ];
    let json = serde_json::to_string_pretty(&serde_json::json!(
        edits
            .iter()
            .map(|e| serde_json::json!({"old_string": e.old, "new_string": e.new}))
            .collect::<Vec<_>>()
    ))
    .unwrap();
    let card = with_context(
        "MultiEdit",
        Target::Edit {
            path: RULES_PATH.into(),
            old: None,
            new: Some(json.clone()),
        },
        CardContext {
            edits,
            before: vec![(RULES_PATH.into(), RULES_RS.into())],
            ..Default::default()
        },
    );
    let mut h = harness(card);
    h.run();
    let files = every_changed_line_is_shown(&h);
    assert_eq!(files[0].hunks.len(), 2, "two edits far apart: two hunks");
    h.snap("card_multiedit_diff");
    whole_text_shows(&mut h, &[&json]);
}

const PATCH: &str = "*** Begin Patch
*** Add File: docs/rules.md
+# Rules
+
+An Always rule answers one exact target.
*** Update File: vults-core/src/rules.rs
@@ impl AlwaysRule {
     /// Whether the rule answers this call.
     pub fn matches(&self, call: &ToolCall) -> bool {
-        self.tool == call.tool
+        self.tool == call.tool && self.target == call.target.rule_key()
     }
*** End Patch
";

#[test]
fn apply_patch_card_shows_each_file_and_its_hunks() {
    let card = with_context(
        "apply_patch",
        Target::Patch {
            patch: PATCH.into(),
        },
        CardContext {
            before: vec![("vults-core/src/rules.rs".into(), RULES_RS.into())],
            ..Default::default()
        },
    );
    let card = fixtures::as_agent(card, vults_core::protocol::AgentKind::Codex);
    let mut h = harness(card);
    h.run();
    let files = every_changed_line_is_shown(&h);
    assert_eq!(files.len(), 2);
    let shown = label_with(&h, "add docs/rules.md");
    assert!(shown.contains("update vults-core/src/rules.rs"), "{shown}");
    assert!(shown.contains("⋯ impl AlwaysRule {"), "{shown}");
    h.snap("card_apply_patch_diff");
    whole_text_shows(&mut h, &[PATCH]);
}

const CARGO_TOML: &str = "[package]
name = \"vults-core\"
version = \"0.1.0\"
edition = \"2024\"

[dependencies]
serde = { version = \"1\", features = [\"derive\"] }
serde_json = \"1\"
";

#[test]
fn write_over_an_existing_file_is_a_diff_and_a_new_file_shows_its_content() {
    let path = "/home/ada/src/vults/vults-core/Cargo.toml";
    let content = CARGO_TOML.replace(
        "serde_json = \"1\"\n",
        "serde_json = \"1\"\nsimilar = \"3\"\n",
    );
    let target = Target::Write {
        path: path.into(),
        content: Some(content.clone()),
    };
    let card = with_context(
        "Write",
        target.clone(),
        CardContext {
            before: vec![(path.into(), CARGO_TOML.into())],
            ..Default::default()
        },
    );
    let mut h = harness(card);
    h.run();
    every_changed_line_is_shown(&h);
    h.get_by_label_contains("9 + similar = \"3\"");
    h.snap("card_write_diff");
    whole_text_shows(&mut h, &[&content]);

    // The same Write to a file that does not exist: its content, as it is.
    let mut h = harness(with_context("Write", target, CardContext::default()));
    h.run();
    assert!(h.state().view.diff().is_none());
    h.get_by_label(&content);
    assert!(h.query_by_label("Whole text").is_none());
}

#[test]
fn bash_card_shows_the_agents_own_words_above_the_exact_command() {
    let command = "cargo test --workspace && git push origin cards";
    let mut card = fixtures::bash_card(21, command);
    card.context.said = Some("Run the tests, then push the branch".into());
    let mut h = harness(card);
    h.run();
    let said = h.get_by_label("Claude Code says: Run the tests, then push the branch");
    let target = h.get_by_label(command);
    assert!(
        said.rect().bottom() <= target.rect().top(),
        "the agent's words stand above the target"
    );
    h.snap("card_bash_description");
}

#[test]
fn long_chained_command_wraps_at_operators_and_copy_gives_the_exact_command() {
    let command = "cargo fmt --all -- --check && cargo clippy --workspace --all-targets -- -D warnings && cargo test --workspace 2>&1 | tee /tmp/test.log || echo 'tests failed; see /tmp/test.log'";
    let mut h = harness(fixtures::bash_card(22, command));
    h.run();
    let shown = label_with(&h, "cargo fmt --all");
    assert_eq!(
        shown,
        [
            "cargo fmt --all -- --check &&",
            "cargo clippy --workspace --all-targets -- -D warnings &&",
            "cargo test --workspace 2>&1 |",
            "tee /tmp/test.log ||",
            "echo 'tests failed; see /tmp/test.log'",
        ]
        .join(&format!("\n{}", code::CONTINUATION))
    );
    // Nothing but line breaks and marks were added: the command reads back exactly.
    assert_eq!(
        shown.replace(&format!("\n{}", code::CONTINUATION), " "),
        command
    );
    h.snap("card_long_command");
    h.get_by_label("Copy").click();
    h.step(); // the frame that handles the click is the one whose output copies

    let copied: Vec<String> = h
        .output()
        .platform_output
        .commands
        .iter()
        .filter_map(|c| match c {
            egui::OutputCommand::CopyText(t) => Some(t.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(copied, vec![command.to_string()]);
}

/// A real OpenCode edit, as its plugin relays it: an edit of its file like any agent's (the
/// file on the path line, OpenCode's own diff, this change and this file to Always), its input
/// as sent a click away.
#[test]
fn opencode_edit_card_shows_the_diff_opencode_made() {
    let payload: serde_json::Value = serde_json::from_str(include_str!(
        "../../../vults-core/tests/fixtures/relay/opencode-edit-PermissionRequest.json"
    ))
    .unwrap();
    let call = vults_core::agents::read_tool_call(&payload);
    let card = fixtures::card(23, call.clone(), None);
    let card = fixtures::as_agent(card, vults_core::protocol::AgentKind::Opencode);
    let mut h = harness(card);
    h.run();
    every_changed_line_is_shown(&h);
    // Its file on the path line, as for an Edit (it was a header inside the diff).
    h.get_by_label("/home/me/project/app.ts");
    h.get_by_label("diff · +2 −1");
    assert!(h.query_by_label_contains("update /home").is_none());
    h.get_by_label("Always: this change");
    h.get_by_label("Always: this file");
    let exact = call.exact.expect("its whole input");
    let pretty =
        serde_json::to_string_pretty(&serde_json::from_str::<serde_json::Value>(&exact).unwrap())
            .unwrap();
    whole_text_shows(&mut h, &[&pretty]);
}

/// The rule sentence under the Always buttons is what a person most needs to read before making
/// a rule: in the body's size (each of its rows a body row), never the card's small print.
#[test]
fn the_rule_sentence_is_in_the_body_size() {
    let h = harness(fixtures::bash_card(23, "ls"));
    let body = egui::TextStyle::Body.resolve(&h.ctx.global_style());
    let row = h.ctx.fonts_mut(|f| f.row_height(&body));
    let small = egui::TextStyle::Small.resolve(&h.ctx.global_style());
    assert!(small.size < body.size);
    let sentence = h.get_by_label_contains("Always allow: ").rect().height();
    let rows = (sentence / row).round();
    assert!(
        rows >= 1.0 && (sentence - rows * row).abs() < 1.0,
        "the sentence is {sentence} points tall: not whole rows of {row} (body {} pt)",
        body.size
    );
}

/// An edit's four answers share one row, and "Show terminal" has its place at the card's top
/// right (it wrapped onto a row of its own under them).
#[test]
fn an_edits_answers_share_a_row_and_show_terminal_is_at_the_top() {
    let mut card = fixtures::edit_card(24);
    card.call.tool = "Edit".into();
    assert!(
        card.file_rule.is_some(),
        "an edit offers this change and this file"
    );
    let h = harness(card);
    let answers: Vec<egui::Rect> = ["Allow", "Deny", "Always: this change", "Always: this file"]
        .iter()
        .map(|b| h.get_by_label(b).rect())
        .collect();
    for r in &answers {
        assert!((r.top() - answers[0].top()).abs() < 1.0, "{answers:?}");
    }
    let show = h.get_by_label("Show terminal").rect();
    assert!(
        show.bottom() < answers[0].top(),
        "{show:?} above {answers:?}"
    );
    assert!(show.right() <= vults_ui::card::WIDTH, "{show:?}");
    let path = h.get_by_label(fixtures::FOLDER).rect();
    assert!(
        show.bottom() <= path.top() + 1.0,
        "in the header: {show:?} {path:?}"
    );
}

/// A long added line wraps after the line-number gutter, never under the numbers: the numbers
/// and marks stand in a column of their own, left of the code's whole block (issue 32, 11).
#[test]
fn a_wrapped_diff_line_continues_after_the_line_numbers() {
    let long = "        self.tool == call.tool && self.target == call.target.rule_key() && self.folder == call.folder && self.scope.allows(call)\n";
    let card = with_context(
        "Edit",
        Target::Edit {
            path: RULES_PATH.into(),
            old: Some("        self.tool == call.tool\n".into()),
            new: Some(long.into()),
        },
        CardContext {
            before: vec![(RULES_PATH.into(), RULES_RS.into())],
            ..Default::default()
        },
    );
    let mut h = harness(card);
    h.run();
    let mono = egui::TextStyle::Monospace.resolve(&h.ctx.global_style());
    let (row, column) = h
        .ctx
        .fonts_mut(|f| (f.row_height(&mono), f.glyph_width(&mono, '0')));
    let code = h.get_by_label_contains("self.scope.allows(call)").rect();
    let path = h.get_by_label(RULES_PATH).rect();
    // The added line wraps: the code block is taller than its 10 lines.
    assert!(code.height() > 10.5 * row, "{code:?}: no line wrapped");
    // Every row of the code, wrapped ones too, starts right of "14 14 + ": at least 7 columns
    // in from the block's left (where the path starts).
    assert!(
        code.left() >= path.left() + 7.0 * column,
        "the code starts at {} and the block at {}: wrapped rows would run under the numbers",
        code.left(),
        path.left()
    );
}
