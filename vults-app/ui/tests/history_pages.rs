//! Settings → History past the newest lines: the pager asks the engine for a page of the log
//! (never the whole of it), and the model keeps that one page.

use crate::fixtures;
use egui_kittest::kittest::Queryable;
use std::sync::{Arc, Mutex};
use vults_engine::messages::{AnsweredBy, AuditEntry, EngineEvent, Outcome};
use vults_engine::{AuditCursor, AuditPage, PageOf, TAIL_LINES};
use vults_ui::settings::SettingsAction;
use vults_ui::settings::history::HistoryView;
use vults_ui::state::Model;

fn line(t: u64) -> AuditEntry {
    let mut e = AuditEntry::new(t, Outcome::Allow, AnsweredBy::Click, None);
    e.identity = "claude".into();
    e.tool = "Bash".into();
    e.target = format!("echo line-{t}");
    e
}

#[test]
fn history_asks_for_older_pages_and_shows_the_page_it_gets() {
    let mut model = Model::default();
    // Fewer lines than the engine reads back at start: the log has no more, no pager.
    model.apply(EngineEvent::Audited((0..3).map(line).collect()));
    let model = Arc::new(Mutex::new(model));
    let asked = Arc::new(Mutex::new(Vec::new()));
    let (m, a) = (model.clone(), asked.clone());
    let mut h = fixtures::builder()
        .with_size(egui::vec2(700.0, 500.0))
        .build_ui_state(
            move |ui, view: &mut HistoryView| {
                view.ui(ui, &m.lock().unwrap());
                a.lock().unwrap().extend(view.asked());
            },
            HistoryView::default(),
        );
    h.run();
    assert!(h.query_by_label("Older lines…").is_none());

    // A full tail: older lines may be on disk.
    model.lock().unwrap().apply(EngineEvent::Audited(
        (3..TAIL_LINES as u64 + 3).map(line).collect(),
    ));
    h.run();
    h.get_by_label("Older lines…").click();
    h.run();
    assert_eq!(
        asked.lock().unwrap().as_slice(),
        [SettingsAction::ReadHistory(PageOf::Newest)]
    );

    // The engine's page comes: it is shown in place of the newest lines, with its pager.
    let edge = |offset| AuditCursor {
        rotated: false,
        offset,
    };
    let page = AuditPage {
        lines: vec![line(90_000), line(90_001)],
        first: edge(100),
        last: edge(200),
        has_older: true,
        has_newer: true,
    };
    model.lock().unwrap().apply(EngineEvent::HistoryPage(page));
    h.run();
    h.get_by_label_contains("echo line-90001");
    assert!(h.query_by_label_contains("echo line-502").is_none());
    h.get_by_label("Older").click();
    h.run();
    h.get_by_label("Newer").click();
    h.run();
    assert_eq!(
        asked.lock().unwrap()[1..],
        [
            SettingsAction::ReadHistory(PageOf::Older(edge(100))),
            SettingsAction::ReadHistory(PageOf::Newer(edge(200)))
        ]
    );
    // Back to the newest lines as they come.
    h.get_by_label("Newest").click();
    h.run();
    h.get_by_label_contains("echo line-502");
    assert!(h.query_by_label_contains("echo line-90001").is_none());
}
