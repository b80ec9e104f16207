//! What Settings shows is what the engine knows: Policies lists `PolicySet::warnings()` for the
//! file in force (fed by the real engine reading a real policy file), and History can pick out
//! answers given in the agents' own terminals and answers that were never delivered.

use egui_kittest::kittest::Queryable;
use std::sync::Arc;
use std::time::{Duration, Instant};
use vults_engine::messages::{EngineEvent, Outcome};
use vults_engine::{Engine, EngineOptions};
use vults_ui::settings::policies::PoliciesView;
use vults_ui::state::Model;

#[test]
fn an_allow_policy_for_other_agents_is_warned_about_in_settings() {
    let home = vults_tests::TempHome::new("ui-pw");
    let paths = home.paths();
    std::fs::create_dir_all(&paths.config_dir).unwrap();
    std::fs::write(
        paths.policies_file(),
        "[[policy]]\nname = \"codex may test\"\nagents = [\"codex\"]\ntarget = \"cargo test\"\naction = \"allow\"\n",
    )
    .unwrap();
    let engine = Engine::start_with(paths, Arc::new(|| {}), EngineOptions::default())
        .expect("the engine starts");
    let mut model = Model::default();
    let deadline = Instant::now() + Duration::from_secs(20);
    while model.policies.count == 0 {
        let left = deadline
            .checked_duration_since(Instant::now())
            .expect("the engine reported the policies");
        if let Ok(e) = engine.events.recv_timeout(left) {
            if let EngineEvent::Policies(p) = &e {
                assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
            }
            model.apply(e);
        }
    }
    drop(engine);
    let mut h = crate::fixtures::builder()
        .with_size(egui::vec2(900.0, 300.0))
        .build_ui(move |ui| {
            PoliciesView.ui(ui, &model);
        });
    h.run();
    h.get_by_label(
        "Warning: policy 'codex may test' (line 1): allow applies to Claude Code only; other \
         agents and named tools still ask",
    );
}

/// History can show just what was answered in the agents' own terminals.
#[test]
fn history_filters_answers_given_in_the_agents_terminal() {
    use egui::accesskit::Role;
    use vults_engine::messages::AuditEntry;
    use vults_ui::settings::history::HistoryView;
    let entry = |t: u64, decision: &str, by: &str, target: &str| AuditEntry {
        time: t,
        identity: "claude".into(),
        session: "c-1".into(),
        folder: "/p".into(),
        host: None,
        tool: "Bash".into(),
        target: target.into(),
        decision: Outcome::parse(decision),
        by: by.into(),
        detail: None,
    };
    let mut model = Model::default();
    model.apply(EngineEvent::Audited(vec![
        entry(1_000, "allow", "click", "echo clicked"),
        entry(2_000, "allow", "terminal", "echo in the terminal"),
        entry(3_000, "undelivered", "rule:r-1", "echo too late"),
    ]));
    let mut h = crate::fixtures::builder()
        .with_size(egui::vec2(900.0, 400.0))
        .build_ui_state(
            move |ui, view: &mut HistoryView| view.ui(ui, &model),
            HistoryView::default(),
        );
    h.run();
    h.get_by_role_and_label(Role::Button, "terminal").click();
    h.run();
    h.get_by_label_contains("echo in the terminal");
    assert!(h.query_by_label_contains("echo clicked").is_none());
    h.get_by_role_and_label(Role::Button, "undelivered").click();
    h.run();
    assert!(h.query_by_label_contains("echo in the terminal").is_none());
}
