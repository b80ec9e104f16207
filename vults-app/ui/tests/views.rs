//! Each view fed a fixed model: what a person sees and what a click sends. Snapshots of the
//! island, the flock, a Bash card, an Edit card, a question card and Settings → Agents.

use crate::fixtures::Snap;
use crate::fixtures::{self, card_harness, now};
use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use vults_core::agents::Agent;
use vults_core::protocol::AnswerItem;
use vults_core::rules::{AlwaysRule, Scope};
use vults_engine::messages::{AuditEntry, CardAnswer, EngineEvent, NamedTool, Outcome};
use vults_installer::AgentState;
use vults_ui::flock::FlockView;
use vults_ui::island::IslandView;
use vults_ui::settings::SettingsAction;
use vults_ui::settings::agents::AgentsView;
use vults_ui::settings::history::HistoryView;
use vults_ui::state::{AgentInstall, Model};

fn model_with(events: Vec<EngineEvent>) -> Model {
    let mut model = Model::default();
    for e in events {
        model.apply(e);
    }
    model
}

#[test]
fn island_counts_birds_and_waiting_cards() {
    let mut h = fixtures::builder()
        .with_size(vults_ui::island::SIZE)
        .build_ui_state(
            |ui, clicked: &mut bool| *clicked |= IslandView::default().ui(ui, 4, 2, 0, None),
            false,
        );
    h.run();
    h.snap("island");
    h.get_by_label("4 birds, 2 waiting").click();
    h.run();
    assert!(*h.state(), "a click on the island shows the flock");
}

/// Six waiting, two of them in the stack (no room on screen): "+2 more".
#[test]
fn island_says_how_many_cards_wait_in_the_stack() {
    let mut h = fixtures::builder()
        .with_size(vults_ui::island::SIZE)
        .build_ui(|ui| {
            IslandView::default().ui(ui, 12, 6, 2, None);
        });
    h.run();
    h.get_by_label("12 birds, 6 waiting, +2 more");
    h.snap("island_stack");
}

#[test]
fn flock_shows_each_bird_with_agent_folder_state_cost_limits_and_task() {
    let model = model_with(
        fixtures::four_sessions()
            .into_iter()
            .map(EngineEvent::SessionChanged)
            .collect(),
    );
    let mut h = fixtures::builder()
        .with_size(egui::vec2(640.0, 560.0))
        .build_ui(move |ui| FlockView.ui(ui, &model, now()));
    h.run();
    for text in ["Claude Code", "Codex CLI", "OpenCode", "deploy-bot"] {
        h.get_by_label(text);
    }
    h.get_by_label("/home/ada/src/vults");
    h.get_by_label("waiting for you");
    h.get_by_label("from Zeca · task Fix the flaky socket test");
    h.get_by_label("$1.27");
    h.get_by_label("5 h 42 % used, resets in 2 h 13 min");
    h.get_by_label("7 d 18 % used, resets in 3 d 0 h");
    h.get_by_label("Bash  cargo test --workspace");
    // The waiting bird comes first.
    let claude = h.get_by_label("Claude Code").rect();
    let codex = h.get_by_label("Codex CLI").rect();
    assert!(claude.top() < codex.top());
    h.snap("flock_four_agents");
}

#[test]
fn ended_bird_leaves_when_the_engine_says_it_is_gone() {
    let mut sessions = fixtures::four_sessions();
    let key = sessions[1].key.clone();
    sessions[1].state = vults_engine::messages::SessionState::Ended;
    let mut model = model_with(
        sessions
            .into_iter()
            .map(EngineEvent::SessionChanged)
            .collect(),
    );
    assert_eq!(model.birds().len(), 4, "an ended bird stays a moment");
    model.apply(EngineEvent::SessionGone(key));
    let birds: Vec<_> = model.birds().iter().map(|s| s.agent).collect();
    assert_eq!(birds.len(), 3);
    assert!(!birds.contains(&vults_core::protocol::AgentKind::Codex));
}

#[test]
fn bash_card_shows_the_whole_long_command_and_allows() {
    // 2,000 bytes, many lines: all of it is on the card, not a summary.
    let mut command = String::from("for f in $(git ls-files '*.rs'); do\n");
    while command.len() < 1990 {
        command.push_str("  rustfmt --edition 2024 --check \"$f\" || echo bad;\n");
    }
    command.truncate(1995);
    command.push_str("done");
    let mut h = card_harness(fixtures::bash_card(1, &command));
    h.run();
    h.get_by_label(&command);
    h.get_by_label("Claude Code");
    h.get_by_label("Bash");
    h.get_by_label("waiting 10 s");
    h.get_by_label(
        "Always allow: Claude Code may run this exact command with Bash, in this folder.",
    );
    h.get_by_label("Allow").click();
    h.run();
    assert_eq!(h.state().answer, Some(CardAnswer::Allow));
}

#[test]
fn bash_card_snapshot_and_always_allow() {
    let mut h = card_harness(fixtures::bash_card(
        2,
        "cargo test --workspace -- --nocapture 2>&1 | tee /tmp/test.log",
    ));
    h.run();
    h.snap("card_bash");
    h.get_by_label("Always allow").click();
    h.run();
    assert_eq!(h.state().answer, Some(CardAnswer::AlwaysAllow));
}

#[test]
fn card_keys_answer_only_when_nothing_is_being_typed() {
    let mut h = card_harness(fixtures::bash_card(3, "ls -la"));
    h.run();
    h.key_press(egui::Key::D);
    h.run();
    assert_eq!(h.state().answer, Some(CardAnswer::Deny));
}

#[test]
fn destructive_card_is_marked_and_has_no_always_allow() {
    let mut card = fixtures::bash_card(4, "rm -rf /home/ada/src/vults/target");
    card.destructive = Some("rm -rf".into());
    card.always_rule = None;
    let mut h = card_harness(card);
    h.run();
    h.get_by_label("DESTRUCTIVE: rm -rf");
    assert!(h.query_by_label("Always allow").is_none());
    h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::A);
    h.run();
    assert_eq!(
        h.state().answer,
        None,
        "Shift+A makes no rule on a destructive call"
    );
    h.get_by_label("Deny").click();
    h.run();
    assert_eq!(h.state().answer, Some(CardAnswer::Deny));
}

/// The card offers what its presentation offers (`vults_engine::present`, which the notice, the
/// push and the phone page read too): a destructive call offers no Always even when a rule came
/// with the card, by click or by Shift+A.
#[test]
fn a_destructive_card_offers_no_always_even_with_a_rule() {
    let mut card = fixtures::bash_card(6, "rm -rf /home/ada/src/vults/target");
    assert!(card.always_rule.is_some(), "the rule the card came with");
    card.destructive = Some("rm -rf".into());
    let mut h = card_harness(card);
    h.run();
    h.get_by_label("DESTRUCTIVE: rm -rf");
    assert!(h.query_by_label("Always allow").is_none());
    h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::A);
    h.run();
    assert_eq!(h.state().answer, None, "Shift+A makes no rule");
}

#[test]
fn edit_card_shows_path_old_and_new() {
    let mut h = card_harness(fixtures::edit_card(5));
    h.run();
    h.get_by_label("/home/ada/src/vults/vults-core/src/rules.rs");
    // The file was not read: a diff of the old and new text, unnumbered.
    h.get_by_label_contains(
        "+     self.tool == call.tool && self.target == call.target.rule_key()",
    );
    h.snap("card_edit");
    h.get_by_label("Whole text").click();
    h.run();
    h.get_by_label(
        "pub fn matches(&self, call: &ToolCall) -> bool {\n    self.tool == call.tool\n}",
    );
    h.get_by_label_contains("self.target == call.target.rule_key()");
}

#[test]
fn mcp_and_url_cards_show_server_tool_json_and_whole_url() {
    use vults_core::agents::Target;
    let mcp = fixtures::card(
        6,
        fixtures::call(
            "mcp__github__create_issue",
            Target::Mcp {
                server: "github".into(),
                tool: "create_issue".into(),
                input: r#"{"repo":"ada/vults","title":"Cards"}"#.into(),
            },
        ),
        None,
    );
    let mut h = card_harness(mcp);
    h.run();
    h.get_by_label("github / create_issue");
    h.get_by_label_contains("\"repo\": \"ada/vults\"");
    let url = "https://docs.rs/egui/0.37.0/egui/struct.ViewportBuilder.html?search=with_active#method.with_active";
    let mut h = card_harness(fixtures::card(
        7,
        fixtures::call("WebFetch", Target::Url { url: url.into() }),
        None,
    ));
    h.run();
    h.get_by_label(url);
}

#[test]
fn question_card_sends_one_answer_per_question() {
    let mut h = card_harness(fixtures::question_card(8));
    h.run();
    h.get_by_label("Which database should the cache use?");
    h.get_by_label("Which platforms must it run on?");
    h.snap("card_question");
    assert!(
        h.query_by_label("Allow").is_none(),
        "a question is answered, not allowed"
    );
    h.get_by_label("Postgres").click();
    h.run();
    h.get_by_label("SQLite").click();
    h.get_by_label("Linux").click();
    h.get_by_label("Windows").click();
    h.run();
    h.get_by_label("Answer").click();
    h.run();
    assert_eq!(
        h.state().answer,
        Some(CardAnswer::Answers(vec![
            AnswerItem::One("SQLite".into()),
            AnswerItem::Many(vec!["Linux".into(), "Windows".into()]),
        ]))
    );
}

#[test]
fn question_card_takes_an_other_free_text_answer() {
    let mut h = card_harness(fixtures::question_card(9));
    h.run();
    h.get_by_label("Answer").click();
    h.run();
    assert_eq!(
        h.state().answer,
        None,
        "nothing is sent before every question has an answer"
    );
    h.get_by_label("Other answer 1").focus();
    h.run();
    h.get_by_label("Other answer 1").type_text("DuckDB");
    h.run();
    h.get_by_label("macOS").click();
    h.run();
    h.get_by_label("Answer").click();
    h.run();
    assert_eq!(
        h.state().answer,
        Some(CardAnswer::Answers(vec![
            AnswerItem::One("DuckDB".into()),
            AnswerItem::Many(vec!["macOS".into()])
        ]))
    );
}

fn settings_model() -> Model {
    let rule = AlwaysRule {
        id: "r-00ff".into(),
        identity: fixtures::named("deploy-bot"),
        folder: "/srv/releases".into(),
        tool: "deploy".into(),
        target: "{\"env\":\"staging\"}".into(),
        scope: Scope::Target,
        created: fixtures::NOW_UNIX,
    };
    let mut model = model_with(vec![
        EngineEvent::Rules(vec![rule]),
        EngineEvent::NamedToolSeen(NamedTool {
            name: "deploy-bot".into(),
            last_asked: now(),
        }),
        EngineEvent::NamedToolSeen(NamedTool {
            name: "backup-cron".into(),
            last_asked: now(),
        }),
    ]);
    let install =
        |agent: Agent, name: &str, state: AgentState, detail: Option<&str>, repairable: bool| {
            AgentInstall {
                agent,
                name: name.into(),
                state,
                detail: detail.map(str::to_string),
                repairable,
                retired: false,
            }
        };
    model.installs = vec![
        install(
            Agent::Claude,
            "Claude Code",
            AgentState::Installed,
            None,
            false,
        ),
        install(
            Agent::Codex,
            "Codex CLI",
            AgentState::Outdated,
            Some("Vults' entries differ from this version's"),
            true,
        ),
        install(
            Agent::Copilot,
            "Copilot CLI",
            AgentState::NotFound,
            None,
            false,
        ),
        install(Agent::Qwen, "Qwen Code", AgentState::Missing, None, true),
        install(
            Agent::Opencode,
            "OpenCode",
            AgentState::Disabled,
            None,
            false,
        ),
        install(Agent::Cursor, "Cursor", AgentState::Installed, None, false),
    ];
    model
}

#[test]
fn settings_agents_lists_agents_and_named_tools_with_removable_rules() {
    let model = settings_model();
    let mut h = fixtures::builder()
        .with_size(egui::vec2(640.0, 640.0))
        .build_ui_state(
            move |ui, action: &mut Option<SettingsAction>| {
                if let Some(a) = AgentsView.ui(ui, &model) {
                    *action = Some(a);
                }
            },
            None,
        );
    h.run();
    for name in [
        "Claude Code",
        "Codex CLI",
        "OpenCode",
        "Qwen Code",
        "Copilot CLI",
        "deploy-bot",
        "backup-cron",
    ] {
        h.get_by_label(name);
    }
    h.get_by_label("Cursor");
    assert_eq!(h.get_all_by_label("installed").count(), 2);
    // Each state reads on its agent's line (it sat above it).
    for (name, state) in [("Claude Code", "installed"), ("OpenCode", "turned off")] {
        let name = h.get_by_label(name).rect();
        let state = h
            .get_all_by_label(state)
            .map(|n| n.rect())
            .min_by(|a, b| {
                (a.center().y - name.center().y)
                    .abs()
                    .total_cmp(&(b.center().y - name.center().y).abs())
            })
            .unwrap();
        assert!(
            (name.center().y - state.center().y).abs() < 1.5,
            "{name:?} and {state:?}"
        );
    }
    h.get_by_label("outdated");
    h.get_by_label("Vults' entries differ from this version's");
    h.get_by_label("turned off");
    h.get_by_label("Repair Qwen Code");
    assert!(
        h.query_by_label("Repair Claude Code").is_none(),
        "nothing to repair"
    );
    h.get_by_label("{\"env\":\"staging\"}");
    h.get_by_label("No Always rules");
    assert_eq!(
        h.get_all_by_label_contains("last asked 20").count(),
        2,
        "each named tool says when it last asked"
    );
    h.snap("settings_agents");
    h.get_by_label("Remove").click();
    h.run();
    assert_eq!(
        h.state(),
        &Some(SettingsAction::RemoveRule("r-00ff".into()))
    );
    h.get_by_label("Repair Codex CLI").click();
    h.run();
    assert_eq!(h.state(), &Some(SettingsAction::Repair(Agent::Codex)));
    // Each agent found can be turned off, a turned-off one on; one not on this machine cannot.
    assert!(h.query_by_label("Turn off Copilot CLI").is_none());
    assert!(h.query_by_label("Turn on Copilot CLI").is_none());
    h.get_by_label("Turn off Claude Code").click();
    h.run();
    assert_eq!(
        h.state(),
        &Some(SettingsAction::SetEnabled(Agent::Claude, false))
    );
    h.get_by_label("Turn on OpenCode").click();
    h.run();
    assert_eq!(
        h.state(),
        &Some(SettingsAction::SetEnabled(Agent::Opencode, true))
    );
}

#[test]
fn settings_agents_says_what_the_watcher_saw_offers_a_new_agent_and_sets_the_watch() {
    let mut model = settings_model();
    model.watched(&vults_installer::watch::WatchEvent::KeepsRemoving {
        agent: vults_installer::Agent::Claude,
        file: "/home/ana/.claude/settings.json".into(),
        at: std::time::SystemTime::now(),
    });
    model.watched(&vults_installer::watch::WatchEvent::NewAgent {
        agent: vults_installer::Agent::Qwen,
        installed: false,
    });
    let mut h = fixtures::builder()
        .with_size(egui::vec2(640.0, 640.0))
        .build_ui_state(
            move |ui, action: &mut Option<SettingsAction>| {
                if let Some(a) = AgentsView.ui(ui, &model) {
                    *action = Some(a);
                }
            },
            None,
        );
    h.run();
    h.get_by_label_contains("another program keeps removing it (last at ");
    // The new agent: Install, not Repair.
    assert!(h.query_by_label("Repair Qwen Code").is_none());
    h.get_by_label("Install in Qwen Code").click();
    h.run();
    assert_eq!(h.state(), &Some(SettingsAction::Repair(Agent::Qwen)));
    h.get_by_label("Keep Vults' hook in place").click();
    h.run();
    assert_eq!(
        h.state(),
        &Some(SettingsAction::SetWatch(
            vults_installer::watch::WatchSettings {
                keep_in_place: false,
                install_new_agents: false,
            }
        ))
    );
    h.get_by_label("Install in new agents").click();
    h.run();
    assert_eq!(
        h.state(),
        &Some(SettingsAction::SetWatch(
            vults_installer::watch::WatchSettings {
                keep_in_place: true,
                install_new_agents: true,
            }
        ))
    );
}

#[test]
fn the_island_says_a_hook_is_out_and_how_close_the_nearest_limit_is() {
    let mut island = IslandView {
        alert: Some("Claude Code hook out".into()),
        limit: Some("5 h limit 81 %".into()),
        ..IslandView::default()
    };
    let mut h = fixtures::builder()
        .with_size(vults_ui::island::SIZE)
        .build_ui(move |ui| {
            island.ui(ui, 2, 0, 0, None);
        });
    h.run();
    h.get_by_label("2 birds, Claude Code hook out, 5 h limit 81 %");
}

#[test]
fn settings_agents_offers_to_remove_gemini_leftovers() {
    let mut model = settings_model();
    model.installs.push(vults_ui::state::AgentInstall {
        agent: Agent::Gemini,
        name: "Gemini CLI".into(),
        state: AgentState::Leftover,
        detail: None,
        repairable: false,
        retired: true,
    });
    let mut h = fixtures::builder()
        .with_size(egui::vec2(640.0, 640.0))
        .build_ui_state(
            move |ui, action: &mut Option<SettingsAction>| {
                if let Some(a) = AgentsView.ui(ui, &model) {
                    *action = Some(a);
                }
            },
            None,
        );
    h.run();
    assert!(h.query_by_label("Turn off Gemini CLI").is_none());
    h.get_by_label("Remove old Gemini CLI hooks").click();
    h.run();
    assert_eq!(
        h.state(),
        &Some(SettingsAction::RemoveLeftovers(Agent::Gemini))
    );
}

#[test]
fn history_is_newest_first_and_filters_by_decision() {
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
    let model = model_with(vec![EngineEvent::Audited(vec![
        entry(1_000, "allow", "click", "echo first"),
        entry(2_000, "deny", "click", "echo second"),
        entry(3_000, "allow", "rule:r-1", "echo third"),
    ])]);
    let mut h = fixtures::builder()
        .with_size(egui::vec2(700.0, 400.0))
        .build_ui_state(
            move |ui, view: &mut HistoryView| view.ui(ui, &model),
            HistoryView::default(),
        );
    h.run();
    let first = h.get_by_label_contains("echo first").rect();
    let third = h.get_by_label_contains("echo third").rect();
    assert!(third.top() < first.top(), "newest first");
    h.get_by_role_and_label(Role::Button, "deny").click();
    h.run();
    assert!(h.query_by_label_contains("echo first").is_none());
    h.get_by_label_contains("echo second");
}

#[test]
fn a_card_the_engine_withdraws_is_gone_from_the_model() {
    let mut model = model_with(vec![EngineEvent::CardAdded(fixtures::bash_card(
        10, "make",
    ))]);
    assert_eq!(model.cards.len(), 1);
    model.apply(EngineEvent::CardRemoved {
        id: 10,
        by: vults_engine::messages::AnsweredBy::Withdrawn,
    });
    assert!(model.cards.is_empty());
}

#[test]
fn settings_agents_says_unknown_until_the_installer_reports() {
    let model = Model::default();
    let mut h = fixtures::builder()
        .with_size(egui::vec2(640.0, 400.0))
        .build_ui(move |ui| {
            AgentsView.ui(ui, &model);
        });
    h.run();
    assert_eq!(h.get_all_by_label("unknown").count(), 5);
}

#[test]
fn policies_pane_shows_the_file_its_parse_error_and_opens_it() {
    use vults_engine::messages::PolicyStatus;
    use vults_ui::settings::policies::PoliciesView;
    let path = std::path::PathBuf::from("/home/ada/.config/vults/policies.toml");
    let model = model_with(vec![EngineEvent::Policies(PolicyStatus {
        path: path.clone(),
        error: Some("3:7: expected `=`".into()),
        count: 2,
        ..PolicyStatus::default()
    })]);
    let mut h = fixtures::builder()
        .with_size(egui::vec2(640.0, 300.0))
        .build_ui_state(
            move |ui, action: &mut Option<SettingsAction>| {
                if let Some(a) = PoliciesView.ui(ui, &model) {
                    *action = Some(a);
                }
            },
            None,
        );
    h.run();
    h.get_by_label("/home/ada/.config/vults/policies.toml");
    h.get_by_label("Cannot read the policies: 3:7: expected `=`");
    h.get_by_label("Open policy file").click();
    h.run();
    assert_eq!(h.state(), &Some(SettingsAction::Open(path)));
    h.get_by_label("Reload").click();
    h.run();
    assert_eq!(h.state(), &Some(SettingsAction::ReloadPolicies));
}

#[test]
fn a_named_tools_kept_rule_shows_even_before_the_tool_asks_again() {
    let rule = AlwaysRule {
        id: "r-0a0a".into(),
        identity: fixtures::named("backup-cron"),
        folder: "/srv".into(),
        tool: "Bash".into(),
        target: "restic backup /srv".into(),
        scope: Scope::Target,
        created: fixtures::NOW_UNIX,
    };
    let model = model_with(vec![EngineEvent::Rules(vec![rule])]);
    let mut h = fixtures::builder()
        .with_size(egui::vec2(640.0, 500.0))
        .build_ui(move |ui| {
            AgentsView.ui(ui, &model);
        });
    h.run();
    h.get_by_label("backup-cron");
    h.get_by_label("restic backup /srv");
}

#[test]
fn a_card_a_policy_asked_for_names_the_policy() {
    let mut card = fixtures::bash_card(11, "npm publish");
    card.reason = vults_engine::messages::Reason::Policy("ask-before-publish".into());
    let mut h = card_harness(card);
    h.run();
    h.get_by_label("Asked by policy ask-before-publish");
    let mut h = card_harness(fixtures::bash_card(12, "npm test"));
    h.run();
    assert!(h.query_by_label_contains("Asked by").is_none());
}
