//! Settings → Policies shows what `PolicySet::warnings()` says of the file in force, fed by the
//! real engine reading a real policy file.

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::sync::Arc;
use std::time::{Duration, Instant};
use vults_app::engine::{Engine, EngineOptions};
use vults_app::model::EngineEvent;
use vults_app::ui::settings::policies::PoliciesView;
use vults_app::ui::state::Model;
use vults_core::paths::Paths;

#[test]
fn an_allow_policy_for_other_agents_is_warned_about_in_settings() {
    let dir = std::env::temp_dir().join(format!("vults-ui-pw-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let paths = {
        let dir = dir.clone();
        Paths::resolve(move |k| (k == "VULTS_HOME").then(|| dir.clone()))
    };
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
    let mut h = Harness::builder()
        .with_size(egui::vec2(900.0, 300.0))
        .build_ui(move |ui| {
            PoliciesView.ui(ui, &model);
        });
    h.run();
    h.get_by_label(
        "Warning: policy 'codex may test' (line 1): allow applies to Claude Code only; other \
         agents and named tools still ask",
    );
    let _ = std::fs::remove_dir_all(&dir);
}
