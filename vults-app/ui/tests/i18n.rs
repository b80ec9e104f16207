//! The views drawn in another language (issue 41). In the pseudo-language every message is
//! wrapped in `«…»` and 40 % longer: a text drawn without the marks skipped the bundles (a
//! literal in the code), and a text cut by its clip or drawn over another is a widget too narrow
//! for a longer language. The same views in Brazilian Portuguese are snapshots people can look
//! at; switching the language redraws at once.
//!
//! Here: Settings → General, Rules and Policies, the flock, the island, the tab row and the rule
//! sentence. Beside it, `i18n_window.rs`: every kind of card (and switching the language under an
//! open one), History, Settings → Agents, Notifications and Phone, the stack and Zeca's chat.
//! Each view added to the bundles gets its case in one of them.

use crate::fixtures::{self, Snap, now};
use egui_kittest::kittest::Queryable;
use vults_engine::messages::EngineEvent;
use vults_i18n::Choice;
use vults_ui::flock::FlockView;
use vults_ui::settings::SettingsAction;
use vults_ui::settings::general::GeneralView;
use vults_ui::state::Model;

/// Every text the last frame drew, with where it was drawn and the rect it was clipped to.
pub(crate) fn drawn_texts<S>(
    h: &egui_kittest::Harness<'_, S>,
) -> Vec<(String, egui::Rect, egui::Rect)> {
    let mut out = Vec::new();
    for clipped in &h.output().shapes {
        collect(&clipped.shape, clipped.clip_rect, &mut out);
    }
    out
}

fn collect(shape: &egui::Shape, clip: egui::Rect, out: &mut Vec<(String, egui::Rect, egui::Rect)>) {
    match shape {
        egui::Shape::Text(t) => {
            let text = t.galley.text().to_string();
            if !text.trim().is_empty() {
                out.push((text, t.visual_bounding_rect(), clip));
            }
        }
        egui::Shape::Vec(shapes) => {
            for s in shapes {
                collect(s, clip, out);
            }
        }
        _ => {}
    }
}

/// What a view drew in the pseudo-language is all messages (but `data`: the agent's own words,
/// paths, names), none cut by its clip, none over another.
pub(crate) fn assert_localized(texts: &[(String, egui::Rect, egui::Rect)], data: &[&str]) {
    let mut wrong = Vec::new();
    for (text, rect, clip) in texts {
        let is_data = data.iter().any(|d| text == d) || !text.chars().any(char::is_alphabetic);
        if !vults_i18n::is_pseudo(text) && !is_data {
            wrong.push(format!("not from the bundles: {text:?}"));
        }
        if !clip.expand(0.5).contains_rect(*rect) {
            wrong.push(format!("cut by its clip: {text:?} at {rect:?} in {clip:?}"));
        }
    }
    for (i, (a, ra, _)) in texts.iter().enumerate() {
        for (b, rb, _) in &texts[i + 1..] {
            if ra.shrink(1.0).intersects(rb.shrink(1.0)) {
                wrong.push(format!("{a:?} drawn over {b:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn general_model() -> Model {
    let mut model = Model::default();
    // Not the system's: what it resolves to depends on the machine's locale.
    model.language = Choice::Language("en".into());
    model.start_at_login = Some(true);
    model.log_file = Some("/home/ada/.local/state/vults/vults.log".into());
    // As vults-terminal's survey says them: its words are messages, a program's name is not.
    model.terminal_survey = Some(vec![
        vults_terminal::Support {
            name: vults_i18n::Message::new("terminal-survey-desktop-x11").arg("manager", "Openbox"),
            reach: vults_terminal::Reach::Window,
            how: vults_i18n::Message::new("terminal-survey-x11"),
        },
        vults_terminal::Support {
            name: vults_i18n::Message::new("terminal-said").arg("text", "xterm"),
            reach: vults_terminal::Reach::Window,
            how: vults_i18n::Message::new("terminal-survey-window"),
        },
    ]);
    model
}

fn general_harness(model: Model) -> egui_kittest::Harness<'static, Vec<SettingsAction>> {
    fixtures::builder()
        .with_size(egui::vec2(560.0, 520.0))
        .build_ui_state(
            move |ui, actions: &mut Vec<SettingsAction>| {
                if let Some(a) = GeneralView.ui(ui, &model) {
                    actions.push(a);
                }
            },
            Vec::new(),
        )
}

#[test]
fn settings_general_in_the_pseudo_language_draws_only_messages_uncut() {
    let _pseudo = vults_i18n::scoped(&Choice::Language(vults_i18n::PSEUDO.into()));
    let mut model = general_model();
    // Why no tray icon shows is worded here, with the D-Bus library's own words as they came.
    model.tray_note = Some(vults_notify::no_tray::NoTray::NoBus("no address".into()));
    let mut h = general_harness(model);
    h.run();
    let texts = drawn_texts(&h);
    assert!(
        texts
            .iter()
            .any(|(t, _, _)| vults_i18n::is_pseudo(t) && t.contains("no address")),
        "the tray's note is drawn, from the bundles"
    );
    assert_localized(
        &texts,
        &[
            "/home/ada/.local/state/vults/vults.log",
            // Each language is named in its own words, whatever the language shown.
            "English",
            "xterm",
        ],
    );
}

#[test]
fn the_flock_in_the_pseudo_language_draws_only_messages_uncut() {
    let _pseudo = vults_i18n::scoped(&Choice::Language(vults_i18n::PSEUDO.into()));
    let mut model = Model::default();
    for s in fixtures::four_sessions() {
        model.apply(EngineEvent::SessionChanged(s));
    }
    // A "Show terminal" that failed, under its bird: the reason vults-terminal found, worded.
    let first = model.birds()[0].key.clone();
    model.shown = Some(vults_ui::show_terminal::Shown {
        session: first,
        line: vults_i18n::Message::new("terminal-cannot-show")
            .arg("who", "Claude Code")
            .arg(
                "reason",
                vults_i18n::Message::new("terminal-failure-tmux-pane-gone").arg("pane", "%5"),
            ),
        ok: false,
        at: std::time::SystemTime::UNIX_EPOCH,
    });
    let mut h = fixtures::builder()
        .with_size(egui::vec2(720.0, 640.0))
        .build_ui(move |ui| FlockView.ui(ui, &model, now()));
    h.run();
    assert_localized(
        &drawn_texts(&h),
        &[
            "Claude Code",
            "Codex CLI",
            "OpenCode",
            "deploy-bot",
            "C",
            "X",
            "O",
            "D",
            "/home/ada/src/vults",
            "/home/ada/src/website",
            "/home/ada/notes",
            "/srv/releases",
            "Bash  cargo test --workspace",
            "apply_patch  *** Begin Patch",
            "read  /home/ada/notes/todo.md",
            "deploy  {\"env\":\"staging\"}",
        ],
    );
}

#[test]
fn settings_general_in_brazilian_portuguese() {
    let _pt = vults_i18n::scoped(&Choice::Language("pt-BR".into()));
    let mut model = general_model();
    model.language = Choice::Language("pt-BR".into());
    let mut h = general_harness(model);
    h.run();
    h.get_by_label("Geral");
    h.get_by_label("Iniciar o Vults quando eu entrar");
    h.get_by_label("Mostrar as boas-vindas de novo");
    h.snap("pt_BR_settings_general");
    // Why no tray icon shows, in Portuguese.
    let mut model = general_model();
    model.tray_note = Some(vults_notify::no_tray::NoTray::Missing);
    let mut h = general_harness(model);
    h.run();
    h.get_by_label_contains("Sem bandeja nesta área de trabalho");
}

/// What the terminal side found is worded when drawn: the same survey rows, once the language
/// changes, read in the new one at the next frame.
#[test]
fn the_terminal_survey_follows_a_change_of_language() {
    let english = vults_i18n::scoped(&Choice::Language("en".into()));
    let mut h = general_harness(general_model());
    h.run();
    h.get_by_label("Desktop: X11 (Openbox)");
    h.get_by_label("windows are raised with _NET_ACTIVE_WINDOW");
    drop(english);
    let _pt = vults_i18n::scoped(&Choice::Language("pt-BR".into()));
    h.run();
    h.get_by_label("Área de trabalho: X11 (Openbox)");
    h.get_by_label("as janelas vêm para a frente com _NET_ACTIVE_WINDOW");
    h.get_by_label("a janela dele vem para a frente");
    // A program's name is the same in every language.
    h.get_by_label("xterm");
    assert!(h.query_by_label("Desktop: X11 (Openbox)").is_none());
}

#[test]
fn the_flock_in_brazilian_portuguese() {
    let _pt = vults_i18n::scoped(&Choice::Language("pt-BR".into()));
    let mut model = Model::default();
    for s in fixtures::four_sessions() {
        model.apply(EngineEvent::SessionChanged(s));
    }
    let mut h = fixtures::builder()
        .with_size(egui::vec2(640.0, 560.0))
        .build_ui(move |ui| FlockView.ui(ui, &model, now()));
    h.run();
    h.get_by_label("esperando por você");
    h.get_by_label("do Zeca · tarefa Fix the flaky socket test");
    h.get_by_label("5 h 42 % usado, renova em 2 h 13 min");
    h.snap("pt_BR_flock_four_agents");
}

/// Choosing Português (Brasil) in Settings → General asks for it, and once applied the next
/// frame draws in it, the chooser in the same place.
#[test]
fn choosing_a_language_in_settings_redraws_in_it_at_once() {
    let _en = vults_i18n::scoped(&Choice::Language("en".into()));
    let mut h = general_harness(general_model());
    h.run();
    let before = h.get_by_label("Start Vults when I log in").rect();
    h.get_by_role_and_label(egui::accesskit::Role::ComboBox, "Language")
        .click();
    h.run();
    h.get_by_label("Português (Brasil)").click();
    h.run();
    assert_eq!(
        h.state().as_slice(),
        [SettingsAction::SetLanguage(Choice::Language(
            "pt-BR".into()
        ))]
    );
    // What the window does with the action (vults_i18n::choose), on this test's thread.
    let _pt = vults_i18n::scoped(&Choice::Language("pt-BR".into()));
    h.run();
    let after = h.get_by_label("Iniciar o Vults quando eu entrar").rect();
    assert_eq!(before.top(), after.top(), "the checkbox keeps its row");
}

fn rules_model() -> Model {
    use vults_core::rules::{AlwaysRule, Scope};
    let mut model = Model::default();
    model.rules = vec![
        AlwaysRule {
            id: "r-0a0a".into(),
            identity: vults_core::protocol::Identity::Builtin(
                vults_core::protocol::AgentKind::Claude,
            ),
            folder: "/home/ada/src/vults".into(),
            tool: "Edit".into(),
            target: "/home/ada/src/vults/src/server.py".into(),
            scope: Scope::Target,
            created: fixtures::NOW_UNIX,
        },
        AlwaysRule {
            id: "r-0b0b".into(),
            identity: vults_core::protocol::Identity::Builtin(
                vults_core::protocol::AgentKind::Claude,
            ),
            folder: "/home/ada/src/vults".into(),
            tool: "Bash".into(),
            target: "cargo test --workspace".into(),
            scope: Scope::Target,
            created: fixtures::NOW_UNIX,
        },
    ];
    model.policies = vults_engine::messages::PolicyStatus {
        path: "/home/ada/.config/vults/policies.toml".into(),
        error: None,
        count: 3,
        warnings: vec![],
    };
    model
}

fn rules_harness(model: Model) -> egui_kittest::Harness<'static> {
    fixtures::builder()
        .with_size(egui::vec2(640.0, 560.0))
        .build_ui(move |ui| {
            let _ = vults_ui::settings::policies::PoliciesView.ui(ui, &model);
            ui.separator();
            let _ = vults_ui::settings::rules::RulesView.ui(ui, &model);
        })
}

#[test]
fn rules_and_policies_in_the_pseudo_language_draw_only_messages_uncut() {
    let _pseudo = vults_i18n::scoped(&Choice::Language(vults_i18n::PSEUDO.into()));
    let mut h = rules_harness(rules_model());
    h.run();
    assert_localized(
        &drawn_texts(&h),
        &[
            "Claude Code",
            "Edit",
            "Bash",
            "/home/ada/src/vults",
            "/home/ada/src/vults/src/server.py",
            "cargo test --workspace",
            "/home/ada/.config/vults/policies.toml",
        ],
    );
}

/// The rule's sentence, under Settings → Rules (and the card's Always), says in Portuguese what
/// it answers, with the path, the agent and the tool left as they are.
#[test]
fn rules_and_policies_in_brazilian_portuguese() {
    let _pt = vults_i18n::scoped(&Choice::Language("pt-BR".into()));
    let mut h = rules_harness(rules_model());
    h.run();
    h.get_by_label(
        "Claude Code pode editar src/server.py com Edit — qualquer alteração, nesta pasta.",
    );
    h.get_by_label("Claude Code pode executar exatamente este comando com Bash, nesta pasta.");
    h.get_by_label("3 políticas em vigor");
    h.snap("pt_BR_rules_and_policies");
}

/// The island at its fixed size: six waiting, two in the stack, paused, in every language;
/// nothing drawn outside the pill, no word over another.
#[test]
fn the_island_in_the_pseudo_language_and_in_brazilian_portuguese_fits_its_pill() {
    for language in [vults_i18n::PSEUDO, "pt-BR"] {
        let _l = vults_i18n::scoped(&Choice::Language(language.into()));
        for paused in [false, true] {
            let mut h = fixtures::builder()
                .with_size(vults_ui::island::SIZE)
                .build_ui(move |ui| {
                    let mut island = vults_ui::island::IslandView {
                        paused,
                        ..Default::default()
                    };
                    island.ui(ui, 12, 6, 2, None);
                });
            h.run();
            let texts = drawn_texts(&h);
            let pill = egui::Rect::from_min_size(egui::Pos2::ZERO, vults_ui::island::SIZE);
            for (text, rect, _) in &texts {
                assert!(
                    pill.expand(0.5).contains_rect(*rect),
                    "{language}: {text:?} at {rect:?} leaves the pill"
                );
            }
            if language == vults_i18n::PSEUDO {
                // The bird count may stand alone when the words need its room.
                assert_localized(&texts, &["12"]);
            }
        }
    }
    let _pt = vults_i18n::scoped(&Choice::Language("pt-BR".into()));
    let mut h = fixtures::builder()
        .with_size(vults_ui::island::SIZE)
        .build_ui(|ui| {
            vults_ui::island::IslandView::default().ui(ui, 12, 6, 2, None);
        });
    h.run();
    h.get_by_label("12 pássaros, 6 esperando, +2 mais");
    h.snap("pt_BR_island_stack");
}

/// The island with nothing waiting says an agent's hook is out and how close the plan's nearest
/// limit is, worded by the bundles, inside its pill, in every language.
#[test]
fn the_islands_hook_and_limit_lines_in_the_pseudo_language_and_in_brazilian_portuguese() {
    for language in [vults_i18n::PSEUDO, "pt-BR"] {
        let _l = vults_i18n::scoped(&Choice::Language(language.into()));
        for hook_out in [false, true] {
            let mut model = Model::default();
            model.limit_nearest = Some((vults_notify::limits::Window::FiveHour, 81));
            if hook_out {
                model.hooks_out.insert(vults_core::agents::Agent::Claude);
            }
            let alert = model.hooks_out_line();
            let limit = model.limit_line();
            let mut h = fixtures::builder()
                .with_size(vults_ui::island::SIZE)
                .build_ui(move |ui| {
                    let mut island = vults_ui::island::IslandView {
                        alert: alert.clone(),
                        limit: limit.clone(),
                        ..Default::default()
                    };
                    island.ui(ui, 2, 0, 0, None);
                });
            h.run();
            let texts = drawn_texts(&h);
            let pill = egui::Rect::from_min_size(egui::Pos2::ZERO, vults_ui::island::SIZE);
            for (text, rect, _) in &texts {
                assert!(
                    pill.expand(0.5).contains_rect(*rect),
                    "{language}: {text:?} at {rect:?} leaves the pill"
                );
            }
            if language == vults_i18n::PSEUDO {
                // "Vults" is the app's name, the same in every language; it is not drawn here.
                assert_localized(&texts, &[]);
            } else if hook_out {
                h.get_by_label("2 pássaros, Claude Code sem hook, limite de 5 h: 81 %");
                assert!(texts.iter().any(|(t, _, _)| t == "Claude Code sem hook"));
            } else {
                h.get_by_label("2 pássaros, limite de 5 h: 81 %");
                assert!(texts.iter().any(|(t, _, _)| t == "limite de 5 h: 81 %"));
            }
        }
    }
}

/// The main window at its first size: the tab row stays one row in English and in Brazilian
/// Portuguese (about 25 % longer), each tab inside the window, and the bottom row's Pause cards
/// where it is in English. In the pseudo-language (40 % longer and marked) the row may wrap, as
/// it does in a narrow window, but no word is cut or drawn over another.
#[test]
fn the_tab_row_stays_one_row_in_every_language() {
    use vults_ui::app::Tab;
    let mut pause_in_english = None;
    for language in ["en", "pt-BR", vults_i18n::PSEUDO] {
        let _l = vults_i18n::scoped(&Choice::Language(language.into()));
        let (window, _played) = fixtures::played_window();
        // Every tab: the phone's, the hosts' and the notifications' too.
        let window = window
            .with_phone(Box::new(crate::pause::NoPhone))
            .with_hosts(Box::new(crate::pause::NoHosts))
            .with_attention(Box::new(crate::pause::Quiet));
        let mut h = fixtures::builder()
            .with_size(egui::vec2(760.0, 560.0))
            .build_ui_state(
                |ui, w: &mut vults_ui::app::VultsWindow| {
                    w.logic(ui.ctx());
                    w.ui(ui);
                },
                window,
            );
        h.run_steps(3);
        let tops: Vec<(String, egui::Rect)> = Tab::ALL
            .iter()
            .filter_map(|tab| {
                let title = tab.title();
                let rect = h.query_by_label(&title).map(|n| n.rect());
                rect.map(|r| (title, r))
            })
            .collect();
        assert_eq!(
            tops.len(),
            Tab::ALL.len(),
            "{language}: every tab is drawn: {tops:?}"
        );
        for (title, rect) in &tops {
            assert!(
                rect.right() <= 760.5,
                "{language}: {title} leaves the window"
            );
            if language != vults_i18n::PSEUDO {
                assert_eq!(
                    rect.top(),
                    tops[0].1.top(),
                    "{language}: {title} wrapped: {tops:?}"
                );
            }
        }
        let pause = h.get_by_label(&vults_i18n::tr!("pause-cards")).rect();
        match pause_in_english {
            None => pause_in_english = Some(pause),
            Some(english) => assert!(
                (pause.top() - english.top()).abs() < 0.5 && pause.right() <= 760.5,
                "{language}: Pause cards moved: {pause:?}, in English {english:?}"
            ),
        }
        if language == vults_i18n::PSEUDO {
            let texts: Vec<_> = drawn_texts(&h)
                .into_iter()
                .filter(|(text, ..)| tops.iter().any(|(title, _)| title == text))
                .collect();
            assert_localized(&texts, &[]);
        }
    }
}
