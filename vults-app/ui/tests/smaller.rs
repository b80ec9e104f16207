//! Issue 21's smaller items, each seen in the real window: OpenCode's edit read as JSON in the
//! flock and History and its path inside the diff; History's targets in small proportional type
//! (`--all` read `–all`), an Always logged as a plain click, long targets cut at the edge; one
//! line-number column; "content" on a new file; no +N −M; the welcome's backticks; "installed"
//! above its agent's line (views.rs checks that one).

use crate::fixtures::Snap;
use crate::fixtures::{self, card_harness};
use egui_kittest::kittest::{NodeT, Queryable};
use vults_core::agents::Target;
use vults_engine::messages::{AuditEntry, CardContext, EngineEvent};
use vults_ui::settings::history::HistoryView;
use vults_ui::state::Model;

fn value(node: &egui_kittest::Node<'_>) -> String {
    let node = node.accesskit_node();
    node.value().or_else(|| node.label()).unwrap_or_default()
}

const OPENCODE_DIFF: &str = "Index: /home/ada/src/vults/web/app.ts\n===================================================================\n--- /home/ada/src/vults/web/app.ts\n+++ /home/ada/src/vults/web/app.ts\n@@ -10,3 +10,3 @@\n const port = 8080;\n-const host = \"0.0.0.0\";\n+const host = \"127.0.0.1\";\n listen(host, port);\n";

fn opencode_input() -> String {
    vults_core::agents::canonical_json(&serde_json::json!({
        "command": "web/app.ts", "diff": OPENCODE_DIFF, "filepath": "/home/ada/src/vults/web/app.ts"
    }))
}

#[test]
fn an_opencode_edit_reads_as_its_file_on_the_card_in_the_flock_and_in_history() {
    let json = opencode_input();
    let call = fixtures::call("edit", Target::Input { json: json.clone() });
    // The flock's last target and a list's line: the file, not the JSON.
    assert_eq!(call.target.summary(), "/home/ada/src/vults/web/app.ts");
    let card = fixtures::card(30, call.clone(), None);
    let card = fixtures::as_agent(card, vults_core::protocol::AgentKind::Opencode);
    let mut h = card_harness(card.clone());
    h.run();
    // The path on the path line, and the diff under it without a file header of its own.
    h.get_by_label("/home/ada/src/vults/web/app.ts");
    h.get_by_label("diff · +1 −1");
    assert!(h.query_by_label_contains("update /home").is_none());

    let entry = AuditEntry::new(
        fixtures::NOW_UNIX * 1000,
        vults_engine::messages::Outcome::Allow,
        "click".into(),
        None,
    )
    .about(&card.identity, &card.session, &card.folder, &call);
    assert_eq!(entry.target, json, "the audit keeps the exact input");
    let mut model = Model::default();
    model.apply(EngineEvent::Audited(vec![entry]));
    let mut h = fixtures::builder()
        .with_size(egui::vec2(800.0, 240.0))
        .build_ui_state(
            move |ui, view: &mut HistoryView| view.ui(ui, &model),
            HistoryView::default(),
        );
    h.run();
    h.get_by_label("/home/ada/src/vults/web/app.ts");
    assert!(h.query_by_label_contains("\"diff\"").is_none());
}

#[test]
fn history_shows_targets_in_monospace_whole_and_an_always_as_a_rule_made() {
    let command = "cargo test --all -- --nocapture && cargo clippy --workspace --all-targets -- -D warnings && cargo build --release --locked --target x86_64-unknown-linux-gnu";
    let card = fixtures::bash_card(31, command);
    let rule = card.always_rule.clone().unwrap();
    let line = |t: u64, by: &str, detail: Option<String>| {
        AuditEntry::new(t, vults_engine::messages::Outcome::Allow, by.into(), detail).about(
            &card.identity,
            &card.session,
            &card.folder,
            &card.call,
        )
    };
    let mut model = Model::default();
    model.apply(EngineEvent::Rules(vec![rule.clone()]));
    model.apply(EngineEvent::Audited(vec![
        line(fixtures::NOW_UNIX * 1000 - 60_000, "click", None),
        line(
            fixtures::NOW_UNIX * 1000,
            "click",
            Some(format!("always rule {}", rule.id)),
        ),
        line(
            fixtures::NOW_UNIX * 1000 + 1000,
            &format!("rule:{}", rule.id),
            None,
        ),
    ]));
    let mut h = fixtures::builder()
        .with_size(egui::vec2(640.0, 330.0))
        .build_ui_state(
            move |ui, view: &mut HistoryView| view.ui(ui, &model),
            HistoryView::default(),
        );
    h.run();
    // The whole target is there (wrapped, not cut at the window's edge)…
    assert_eq!(h.get_all_by_label(command).count(), 3);
    // …and the click that made a rule says so.
    h.get_by_label("made an Always rule");
    // …in the rule's own sentence, never its id.
    h.get_by_label_contains(&format!("from now on: {}", rule.words()));
    assert!(h.query_by_label_contains("made Always rule r-").is_none());
    h.snap("history");
}

#[test]
fn a_new_file_says_so_with_its_lines_and_a_diff_its_changes() {
    let path = "/home/ada/src/vults/docs/notes.md";
    let content: String = (1..=100).map(|i| format!("line {i}\n")).collect();
    let write = |context: CardContext| {
        let mut card = fixtures::card(
            32,
            fixtures::call(
                "Write",
                Target::Write {
                    path: path.into(),
                    content: Some(content.clone()),
                },
            ),
            None,
        );
        card.context = Box::new(context);
        card
    };
    let mut h = card_harness(write(CardContext {
        missing: vec![path.into()],
        ..Default::default()
    }));
    h.run();
    h.get_by_label("new file · 100 lines");
    // A file that is there but could not be read is not called new.
    let mut h = card_harness(write(CardContext::default()));
    h.run();
    h.get_by_label("content · 100 lines · the file now could not be read");
    // Over a file the engine read: a diff, and how many lines it adds and removes.
    let before: String = (1..=100)
        .map(|i| {
            if i == 50 {
                "old line\n".to_string()
            } else {
                format!("line {i}\n")
            }
        })
        .collect();
    let mut h = card_harness(write(CardContext {
        before: vec![(path.into(), before)],
        ..Default::default()
    }));
    h.run();
    h.get_by_label("diff with the file now · +1 −1");
    let shown = value(&h.get_by_label_contains("old line"));
    assert!(shown.contains("\n50    - old line\n"), "{shown}");
    assert!(shown.contains("\n   50 + line 50\n"), "{shown}");
    assert!(shown.contains("\n51 51   line 51"), "{shown}");
}

#[test]
fn the_welcome_shows_commands_in_monospace_without_backticks() {
    let welcome = vults_installer::welcome::Welcome {
        summary: "Vults found: Claude Code.\nRun `vults-app doctor` to check.".into(),
        first_run: None,
        written: Vec::new(),
        hook_copy: "/home/me/.local/share/vults/bin/vults-hook".into(),
        codex_trust: true,
    };
    let mut h = fixtures::builder()
        .with_size(egui::vec2(700.0, 420.0))
        .build_ui(move |ui| {
            vults_ui::welcome::ui(ui, &welcome, false);
        });
    h.run();
    h.get_by_label("Run vults-app doctor to check.");
    h.get_by_label_contains("or run vults-app --uninstall to remove exactly");
    assert!(
        h.query_by_label_contains("`").is_none(),
        "no backtick shows"
    );
    h.snap("welcome");
}
