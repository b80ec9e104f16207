//! The window's cards, History and Settings pages drawn in another language (issue 41), beside
//! `i18n.rs`: in the pseudo-language every text is a message from the bundles or the agent's
//! own data, none cut by its clip, none over another; the same views in Brazilian Portuguese are
//! snapshots people can look at, with the card's fixed rows still one row each; and switching
//! the language redraws an open card with its answers in the same places.

use crate::fixtures::{self, CardState, Snap, now};
use crate::i18n::{assert_localized, drawn_texts};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use vults_core::agents::Target;
use vults_core::text::reveal;
use vults_engine::messages::{PendingCard, Reason};
use vults_i18n::{Choice, tr};
use vults_ui::card::{self, CardView};

const PATCH: &str = "*** Begin Patch
*** Add File: docs/rules.md
+# Rules
+
+An Always rule answers one exact target.
*** Update File: vults-core/src/rules.rs
@@ impl AlwaysRule {
-        self.tool == call.tool
+        self.tool == call.tool && self.target == call.target.rule_key()
*** End Patch
";

const PLAN: &str = "# Plan: add the marker check

Write the marker file, then prove it is there.

## Steps

- write the marker with the date
- check that it exists

```sh
test -s marker.txt && echo ok
```
";

fn pretty(json: &str) -> String {
    serde_json::from_str::<serde_json::Value>(json)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_default()
}

/// Every kind of card, by name: each target, a plan, a question, a destructive call with a
/// hidden character, one a policy asked for.
fn every_kind() -> Vec<(&'static str, PendingCard)> {
    let mut bash = fixtures::bash_card(1, "cargo test --workspace && cargo clippy --workspace");
    bash.context.said = Some("Run the tests before the commit".into());

    let new_file = "/home/ada/src/vults/docs/rules.md";
    let mut write_new = fixtures::card(
        3,
        fixtures::call(
            "Write",
            Target::Write {
                path: new_file.into(),
                content: Some("# Rules\n\nOne exact target.\n".into()),
            },
        ),
        None,
    );
    write_new.context.missing = vec![new_file.into()];

    let toml = "/home/ada/src/vults/Cargo.toml";
    let mut write_over = fixtures::card(
        4,
        fixtures::call(
            "Write",
            Target::Write {
                path: toml.into(),
                content: Some("[workspace]\nmembers = [\"a\", \"b\"]\n".into()),
            },
        ),
        None,
    );
    write_over.context.before = vec![(toml.into(), "[workspace]\nmembers = [\"a\"]\n".into())];

    let url = fixtures::card(
        5,
        fixtures::call(
            "WebFetch",
            Target::Url {
                url: "https://docs.rs/egui/latest/egui/struct.Button.html".into(),
            },
        ),
        None,
    );
    let mut patch = fixtures::card(
        6,
        fixtures::call(
            "apply_patch",
            Target::Patch {
                patch: PATCH.into(),
            },
        ),
        None,
    );
    patch.context.before = vec![(
        "vults-core/src/rules.rs".into(),
        "impl AlwaysRule {\n        self.tool == call.tool\n}\n".into(),
    )];
    let patch = fixtures::as_agent(patch, vults_core::protocol::AgentKind::Codex);
    let mcp = fixtures::card(
        7,
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
    let input = fixtures::card(
        8,
        fixtures::call(
            "deploy",
            Target::Input {
                json: r#"{"env":"staging"}"#.into(),
            },
        ),
        None,
    );
    let read = fixtures::card(
        9,
        fixtures::call(
            "Read",
            Target::Path {
                path: "/home/ada/src/vults/README.md".into(),
            },
        ),
        None,
    );
    let destructive = fixtures::card(
        10,
        fixtures::call(
            "Bash",
            Target::Command {
                command: "git push --force origin main\u{202e}".into(),
            },
        ),
        Some("git push --force"),
    );
    let mut policy = fixtures::bash_card(11, "curl https://example.com/install.sh");
    policy.reason = Reason::Policy("no-curl".into());

    let mut plan = fixtures::card(
        12,
        fixtures::call(
            "ExitPlanMode",
            Target::Input {
                json: serde_json::json!({ "plan": PLAN }).to_string(),
            },
        ),
        None,
    );
    plan.always_rule = None;
    plan.file_rule = None;
    plan.context.plan = Some(PLAN.into());

    vec![
        ("bash", bash),
        ("edit", fixtures::edit_card(2)),
        ("write_new", write_new),
        ("write_over", write_over),
        ("url", url),
        ("patch", patch),
        ("mcp", mcp),
        ("input", input),
        ("read", read),
        ("destructive", destructive),
        ("policy", policy),
        ("plan", plan),
        ("question", fixtures::question_card(13)),
    ]
}

/// What a card shows that is the agent's own (the target, its words, names, paths), as it is
/// and as it is drawn (hidden characters written out, JSON laid out).
fn agent_data(card: &PendingCard) -> String {
    let mut data = vec![
        card.folder.clone(),
        card.identity.display_name(),
        card.call.tool.clone(),
        vults_ui::theme::agent_letter(card.agent, None),
    ];
    match &card.call.target {
        Target::Command { command } => data.push(command.clone()),
        Target::Edit { path, old, new } => {
            data.push(path.clone());
            data.extend(old.iter().chain(new).cloned());
        }
        Target::Write { path, content } => {
            data.push(path.clone());
            data.extend(content.iter().cloned());
        }
        Target::Path { path } => data.push(path.clone()),
        Target::Url { url } => data.push(url.clone()),
        Target::Patch { patch } => data.push(patch.clone()),
        Target::Mcp {
            server,
            tool,
            input,
        } => data.extend([format!("{server} / {tool}"), pretty(input)]),
        Target::Input { json } => data.push(pretty(json)),
        Target::Questions { questions } => {
            for q in questions {
                data.extend([q.question.clone(), q.header.clone()]);
                for o in &q.options {
                    data.extend([o.label.clone(), o.description.clone()]);
                }
            }
        }
    }
    data.extend(card.call.exact.as_deref().map(pretty));
    data.extend(card.context.said.iter().cloned());
    data.extend(card.context.plan.iter().cloned());
    data.extend(card.destructive.iter().cloned());
    for (path, text) in &card.context.before {
        data.extend([path.clone(), text.clone()]);
    }
    let revealed: Vec<String> = data.iter().map(|d| reveal(d).text.into_owned()).collect();
    data.extend(revealed);
    data.join("\n")
}

/// Whether a drawn text is the agent's own data line by line (or has no letters: numbers,
/// marks, "+3 −1"), each line either in `data` or a whole message.
fn is_data(text: &str, data: &str) -> bool {
    // A diff's gap between hunks is drawn "⋯ <the hunk's header>", a plan's list item "• …".
    text.lines()
        .map(|l| l.trim().trim_start_matches(['⋯', '•']).trim())
        .all(|line| {
            line.is_empty()
                || !line.chars().any(char::is_alphabetic)
                || vults_i18n::is_pseudo(line)
                || data.contains(line)
        })
}

/// A card on its own as the card window draws it, `extra` points taller than its estimate
/// (the pseudo-language's words are 40 % longer and wrap into more lines).
fn card_harness(card: PendingCard, extra: f32) -> Harness<'static, CardState> {
    let height = card::estimated_height(&card) + extra;
    fixtures::builder()
        .with_size(egui::vec2(card::WIDTH, height))
        .build_ui_state(
            |ui, s: &mut CardState| {
                egui::Frame::new()
                    .fill(vults_ui::theme::CARD_FILL)
                    .inner_margin(14)
                    .show(ui, |ui| {
                        if let Some(a) = s.view.ui(ui, &s.card, now(), true) {
                            s.answer = Some(a);
                        }
                    });
            },
            CardState {
                view: CardView::new(&card),
                card,
                answer: None,
            },
        )
}

fn assert_card_localized(h: &Harness<'_, CardState>, card: &PendingCard, kind: &str) {
    let data = agent_data(card);
    let texts = drawn_texts(h);
    let own: Vec<String> = texts
        .iter()
        .filter(|(t, _, _)| !vults_i18n::is_pseudo(t) && is_data(t, &data))
        .map(|(t, _, _)| t.clone())
        .collect();
    // The agent's own text scrolls in its block (cut by the block's clip on purpose): only
    // the messages must be whole.
    let texts: Vec<_> = texts
        .into_iter()
        .map(|(t, rect, clip)| {
            let clip = if own.contains(&t) { rect } else { clip };
            (t, rect, clip)
        })
        .collect();
    eprintln!("the {kind} card");
    let own: Vec<&str> = own.iter().map(String::as_str).collect();
    assert_localized(&texts, &own);
}

#[test]
fn every_card_kind_in_the_pseudo_language_draws_only_messages_uncut() {
    let _pseudo = vults_i18n::scoped(&Choice::Language(vults_i18n::PSEUDO.into()));
    for (kind, card) in every_kind() {
        let mut h = card_harness(card.clone(), 260.0);
        h.run();
        assert_card_localized(&h, &card, kind);
    }
}

/// The texts drawn on the answer buttons' row and the keys line, for the fixed-row checks.
fn row_of(h: &Harness<'_, CardState>, labels: &[String]) -> Vec<egui::Rect> {
    labels
        .iter()
        .map(|l| h.get_by_label(l).rect())
        .collect::<Vec<_>>()
}

/// The answers of a card of `kind`, in the active language.
fn answers(card: &PendingCard) -> Vec<String> {
    if card.plan().is_some() {
        return vec![tr!("card-approve"), tr!("card-keep-planning")];
    }
    if card.question {
        return vec![tr!("card-answer"), tr!("card-deny")];
    }
    let mut out = vec![tr!("card-allow"), tr!("card-deny")];
    out.extend(
        card::always_offers(card)
            .into_iter()
            .map(|(always, _, _)| always.label()),
    );
    out
}

/// In Brazilian Portuguese every card's answers stay on one row, the keys line is one line and
/// nothing is cut; the kinds people look at most are snapshots.
#[test]
fn every_card_kind_in_brazilian_portuguese_keeps_its_fixed_rows() {
    let _pt = vults_i18n::scoped(&Choice::Language("pt-BR".into()));
    let snapped = [
        "bash",
        "edit",
        "write_new",
        "destructive",
        "plan",
        "question",
    ];
    // One set of snapshot results for the test's several harnesses (kittest asks for one).
    let mut results = egui_kittest::SnapshotResults::new();
    for (kind, card) in every_kind() {
        let mut h = card_harness(card.clone(), 0.0);
        h.run();
        let row = row_of(&h, &answers(&card));
        assert!(
            row.iter().all(|r| (r.top() - row[0].top()).abs() < 0.5),
            "{kind}: the answers wrapped: {row:?}"
        );
        let texts = drawn_texts(&h);
        let keys = texts
            .iter()
            .find(|(t, _, _)| t.starts_with("Teclas:"))
            .unwrap_or_else(|| panic!("{kind}: no keys line"));
        assert!(keys.1.height() < 18.0, "{kind}: the keys line wrapped");
        let width = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(card::WIDTH, 4000.0));
        for (text, rect, _) in &texts {
            assert!(
                width.expand(0.5).contains_rect(*rect),
                "{kind}: {text:?} leaves the card"
            );
        }
        if snapped.contains(&kind) {
            h.snap(&format!("pt_BR_card_{kind}"));
        }
        results.extend(h.take_snapshot_results());
    }
    results.unwrap();
}

#[test]
fn a_card_in_brazilian_portuguese_reads_in_portuguese() {
    let _pt = vults_i18n::scoped(&Choice::Language("pt-BR".into()));
    let mut h = card_harness(fixtures::edit_card(2), 0.0);
    h.run();
    h.get_by_label("Permitir");
    h.get_by_label("Negar");
    h.get_by_label("Sempre: esta mudança");
    h.get_by_label("Sempre: o arquivo");
    h.get_by_label("quer usar");
    h.get_by_label("esperando há 10 s");
    h.get_by_label_contains("Sempre o arquivo: Claude Code pode editar");
    let mut h = card_harness(fixtures::question_card(13), 0.0);
    h.run();
    h.get_by_label("Responder");
    h.get_by_label("Escolha quantas quiser");
}

/// Switching the language (Settings → General's `choose`) redraws an open card in the new
/// language at once, with each answer where it was: none moves under the pointer.
#[test]
fn switching_the_language_redraws_an_open_card_with_its_answers_in_place() {
    let plan = every_kind()
        .into_iter()
        .find(|(k, _)| *k == "plan")
        .map(|(_, c)| c)
        .expect("a plan card");
    for card in [fixtures::edit_card(2), fixtures::question_card(13), plan] {
        let en = vults_i18n::scoped(&Choice::Language("en".into()));
        let mut h = card_harness(card.clone(), 0.0);
        h.run();
        let before = row_of(&h, &answers(&card));
        drop(en);
        for language in ["pt-BR", "en"] {
            let _l = vults_i18n::scoped(&Choice::Language(language.into()));
            h.run();
            let after = row_of(&h, &answers(&card));
            assert_eq!(
                before,
                after,
                "{language}: the answers moved ({:?})",
                answers(&card)
            );
        }
    }
}

/// A click that comes before the card is armed says why it did nothing, in the language.
#[test]
fn the_too_soon_line_is_a_message_in_every_language() {
    for (language, expected) in [
        (vults_i18n::PSEUDO, None),
        (
            "pt-BR",
            Some("Acabou de chegar — clique de novo daqui a pouco"),
        ),
    ] {
        let _l = vults_i18n::scoped(&Choice::Language(language.into()));
        let card = fixtures::bash_card(1, "cargo test");
        let mut h = fixtures::builder()
            .with_size(egui::vec2(card::WIDTH, 360.0))
            .with_step_dt(1.0 / 60.0)
            .build_ui_state(
                |ui, s: &mut CardState| {
                    let (time, dt) = ui.input(|i| (i.time, f64::from(i.predicted_dt)));
                    s.view.arm(Some(0.0), time, time - dt);
                    if let Some(a) = s.view.ui(ui, &s.card, now(), true) {
                        s.answer = Some(a);
                    }
                },
                CardState {
                    view: CardView::new(&card),
                    card,
                    answer: None,
                },
            );
        h.step();
        h.step();
        h.get_by_label(&tr!("card-allow")).click();
        // The click, then the line's own layer (an area is sized on its first frame).
        h.step();
        h.step();
        assert!(h.state().answer.is_none(), "too soon: no answer");
        let line = tr!("card-too-soon-click");
        let texts = drawn_texts(&h);
        let (_, rect, clip) = texts
            .iter()
            .find(|(t, _, _)| *t == line)
            .unwrap_or_else(|| panic!("{language}: no {line:?} in {texts:?}"));
        assert!(
            clip.expand(0.5).contains_rect(*rect),
            "{language}: the line is cut"
        );
        assert!(
            rect.width() < card::WIDTH,
            "{language}: the line is wider than the card"
        );
        if let Some(expected) = expected {
            assert_eq!(line, expected);
        } else {
            assert!(vults_i18n::is_pseudo(&line), "{line}");
        }
    }
}

// ---- Settings → Agents, History, Notifications, Phone ----

fn agents_model() -> vults_ui::state::Model {
    use vults_core::agents::Agent;
    use vults_installer::AgentState;
    use vults_ui::state::AgentInstall;
    let install = |agent: Agent, name: &str, state: AgentState, retired: bool| AgentInstall {
        agent,
        name: name.into(),
        repairable: state == AgentState::Outdated,
        state,
        detail: None,
        retired,
    };
    let mut model = vults_ui::state::Model::default();
    model.installs = vec![
        install(Agent::Claude, "Claude Code", AgentState::Installed, false),
        install(Agent::Codex, "Codex CLI", AgentState::Outdated, false),
        install(Agent::Opencode, "OpenCode", AgentState::Disabled, false),
        install(Agent::Gemini, "Gemini CLI", AgentState::Leftover, true),
    ];
    model.named_tools.insert(
        "deploy-bot".into(),
        vults_engine::messages::NamedTool {
            name: "deploy-bot".into(),
            last_asked: now(),
        },
    );
    model
}

fn agents_harness(model: vults_ui::state::Model) -> Harness<'static> {
    fixtures::builder()
        .with_size(egui::vec2(760.0, 560.0))
        .build_ui(move |ui| {
            let _ = vults_ui::settings::agents::AgentsView.ui(ui, &model);
        })
}

fn history_model() -> vults_ui::state::Model {
    use vults_engine::messages::{AuditEntry, EngineEvent, Outcome};
    let card = fixtures::bash_card(31, "cargo test --workspace");
    let rule = card.always_rule.clone().expect("a Bash card offers a rule");
    let line = |t: u64, outcome: Outcome, by: &str, detail: Option<String>| {
        AuditEntry::new(t, outcome, by.into(), detail).about(
            &card.identity,
            &card.session,
            &card.folder,
            &card.call,
        )
    };
    let mut model = vults_ui::state::Model::default();
    model.rules = vec![rule.clone()];
    model.apply(EngineEvent::Audited(vec![
        line(fixtures::NOW_UNIX * 1000, Outcome::Allow, "click", None),
        line(fixtures::NOW_UNIX * 1000 + 1000, Outcome::Deny, "key", None),
        line(
            fixtures::NOW_UNIX * 1000 + 2000,
            Outcome::Allow,
            "click",
            Some(format!("always rule {}", rule.id)),
        ),
    ]));
    model
}

fn history_harness(
    model: vults_ui::state::Model,
) -> Harness<'static, vults_ui::settings::history::HistoryView> {
    fixtures::builder()
        .with_size(egui::vec2(760.0, 420.0))
        .build_ui_state(
            move |ui, view: &mut vults_ui::settings::history::HistoryView| view.ui(ui, &model),
            Default::default(),
        )
}

fn attention_status() -> vults_ui::attention::AttentionStatus {
    use vults_notify::{Capabilities, Support};
    vults_ui::attention::AttentionStatus {
        caps: Capabilities {
            notifications: Support::Available("Stand-in 1.0".into()),
            actions: true,
            sound: false,
            replace: true,
            withdraw: true,
            desktop_dnd: Support::Unavailable("no Inhibited".into()),
        },
        keys_here: Support::Available("X11".into()),
        keys: Support::Unavailable("off".into()),
        ..Default::default()
    }
}

fn notifications_harness() -> Harness<'static> {
    let status = attention_status();
    let mut view = vults_ui::settings::notifications::NotificationsView::default();
    fixtures::builder()
        .with_size(egui::vec2(760.0, 900.0))
        .build_ui(move |ui| {
            let _ = view.ui(ui, &status);
        })
}

fn phone_status() -> vults_phone::PhoneStatus {
    let offer = vults_phone::PairingOffer {
        url: "https://192.0.2.10:47610/#v=1&t=tok&k=k&x=x".into(),
        token: "tok".into(),
        expires_at: u64::MAX,
        app_sign_key: "k".into(),
        app_box_key: "x".into(),
        broker: None,
        phone_login: None,
    };
    let device = |id: &str, name: &str, revoked: bool| vults_phone::Device {
        id: id.into(),
        name: name.into(),
        sign_key: String::new(),
        box_key: String::new(),
        paired_at: 0,
        revoked_at: revoked.then_some(1),
        push: None,
    };
    vults_phone::PhoneStatus {
        address: Some("0.0.0.0:47610".parse().expect("an address")),
        offer: Some(offer),
        devices: vec![device("dev1", "Ana", false), device("dev2", "Bo", true)],
        tls_fingerprint: Some("AB:CD".into()),
        broker: vults_phone::BrokerStatus {
            state: Some(vults_phone::BrokerState::Connected),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Settings → Phone when things go wrong: a device whose subscription the push service dropped,
/// one whose pushes were given up on, and a broker reconnecting after an error.
fn phone_status_failing() -> vults_phone::PhoneStatus {
    use vults_phone::PushFailure;
    let mut status = phone_status();
    let mut cy = status.devices[0].clone();
    cy.id = "dev3".into();
    cy.name = "Cy".into();
    status.devices.push(cy);
    let failed = |e: PushFailure| vults_phone::PushState {
        last_error: Some(e),
        ..Default::default()
    };
    status
        .push
        .insert("dev1".into(), failed(PushFailure::Gone(410)));
    status.push.insert(
        "dev3".into(),
        failed(PushFailure::GaveUp {
            last: Box::new(PushFailure::Busy {
                service: "https://push.example".into(),
                status: 503,
            }),
            tries: 10,
        }),
    );
    status.broker.state = Some(vults_phone::BrokerState::Reconnecting {
        error: "connection refused".into(),
        retry_in_s: 4,
    });
    status
}

/// Settings → Phone on a system with no keyring: the link's keys, the push key and the broker
/// password in their private files, and a second look with push off.
fn phone_status_in_files() -> vults_phone::PhoneStatus {
    use vults_phone::{KeyStorage, Secret, Stored};
    let in_file = |secret, file: &str, reason: &str| Stored {
        secret,
        storage: KeyStorage::File {
            path: format!("/home/u/.config/vults/{file}").into(),
            reason: reason.into(),
        },
    };
    let mut status = phone_status();
    status.key_in_file = true;
    status.key_stored = Some(in_file(
        Secret::LinkKeys,
        "phone-link.key",
        "Platform failure: zbus error: Failed to connect to address `unix:path=/run/user/0/bus`",
    ));
    status.push_stored = Some(in_file(
        Secret::PushKey,
        "phone-push.key",
        "org.freedesktop.DBus.Error.ServiceUnknown: org.freedesktop.secrets",
    ));
    status.broker.password_stored = Some(in_file(
        Secret::BrokerPassword,
        "broker-password",
        "the collection is locked",
    ));
    status
}

fn phone_harness() -> Harness<'static> {
    phone_harness_of(phone_status())
}

fn phone_harness_of(status: vults_phone::PhoneStatus) -> Harness<'static> {
    let mut view = vults_ui::settings::phone::PhoneView::default();
    fixtures::builder()
        .with_size(egui::vec2(760.0, 900.0))
        .build_ui(move |ui| {
            let _ = view.ui(ui, &status);
        })
}

/// Each Settings page drawn in the pseudo-language: only messages and the data it lists (agent
/// and device names, paths, commands, what the desktop says of itself), none cut, none over
/// another.
#[test]
fn the_settings_pages_in_the_pseudo_language_draw_only_messages_uncut() {
    let _pseudo = vults_i18n::scoped(&Choice::Language(vults_i18n::PSEUDO.into()));
    let mut h = agents_harness(agents_model());
    h.run();
    eprintln!("Settings → Agents");
    assert_localized(
        &drawn_texts(&h),
        &[
            "Claude Code",
            "Codex CLI",
            "OpenCode",
            "Gemini CLI",
            "deploy-bot",
            "C",
            "X",
            "O",
            "G",
            "D",
        ],
    );
    let mut h = history_harness(history_model());
    h.run();
    eprintln!("Settings → History");
    assert_localized(
        &drawn_texts(&h),
        &["claude", "Bash", "cargo test --workspace"],
    );
    let mut h = notifications_harness();
    h.run();
    eprintln!("Settings → Notifications");
    assert_localized(
        &drawn_texts(&h),
        &["Ctrl+Alt+V", "Ctrl+Alt+Y", "Ctrl+Alt+N"],
    );
    let mut h = phone_harness();
    h.run();
    eprintln!("Settings → Phone");
    assert_localized(
        &drawn_texts(&h),
        &[
            "https://192.0.2.10:47610/#v=1&t=tok&k=k&x=x",
            "Ana",
            "Bo",
            "dev1",
            "dev2",
        ],
    );
    let mut h = phone_harness_of(phone_status_in_files());
    h.run();
    eprintln!("Settings → Phone, no keyring");
    let texts = drawn_texts(&h);
    for path in [
        "/home/u/.config/vults/phone-link.key",
        "/home/u/.config/vults/phone-push.key",
        "/home/u/.config/vults/broker-password",
    ] {
        assert!(
            texts
                .iter()
                .any(|(t, _, _)| vults_i18n::is_pseudo(t) && t.contains(path)),
            "{path} is drawn inside a message"
        );
    }
    assert_localized(
        &texts,
        &[
            "https://192.0.2.10:47610/#v=1&t=tok&k=k&x=x",
            "Ana",
            "Bo",
            "dev1",
            "dev2",
        ],
    );
    let mut push_off = phone_status_in_files();
    push_off.push_stored = None;
    push_off.push_off = Some("the stored push (VAPID) key is not in the expected form".into());
    let mut h = phone_harness_of(push_off);
    h.run();
    eprintln!("Settings → Phone, push off");
    let texts = drawn_texts(&h);
    assert!(
        texts.iter().any(|(t, _, _)| vults_i18n::is_pseudo(t)
            && t.contains("the stored push (VAPID) key is not in the expected form")),
        "why push is off is drawn inside a message"
    );
    assert_localized(
        &texts,
        &[
            "https://192.0.2.10:47610/#v=1&t=tok&k=k&x=x",
            "Ana",
            "Bo",
            "dev1",
            "dev2",
        ],
    );
    let mut h = phone_harness_of(phone_status_failing());
    h.run();
    eprintln!("Settings → Phone, failing");
    let texts = drawn_texts(&h);
    for arg in ["connection refused", "https://push.example"] {
        assert!(
            texts
                .iter()
                .any(|(t, _, _)| vults_i18n::is_pseudo(t) && t.contains(arg)),
            "{arg} is drawn inside a message"
        );
    }
    assert_localized(
        &texts,
        &[
            "https://192.0.2.10:47610/#v=1&t=tok&k=k&x=x",
            "Ana",
            "Bo",
            "Cy",
            "dev1",
            "dev2",
            "dev3",
        ],
    );
}

#[test]
fn the_settings_pages_in_brazilian_portuguese() {
    let _pt = vults_i18n::scoped(&Choice::Language("pt-BR".into()));
    let mut results = egui_kittest::SnapshotResults::new();
    let mut h = agents_harness(agents_model());
    h.run();
    h.get_by_label("Agentes");
    h.get_by_label("instalado");
    h.get_by_label("Reparar Codex CLI");
    h.get_by_label("Ligar OpenCode");
    h.get_by_label("Remover hooks antigos do Gemini CLI");
    h.get_by_label("Ferramentas nomeadas");
    h.snap("pt_BR_settings_agents");
    results.extend(h.take_snapshot_results());

    let mut h = history_harness(history_model());
    h.run();
    h.get_by_label("Histórico");
    assert!(h.get_all_by_label("por você").next().is_some());
    h.get_by_label("por você, com uma tecla no cartão");
    h.get_by_label("criou uma regra \"Sempre\"");
    h.get_by_label_contains("daqui em diante: Claude Code pode executar exatamente este comando");
    h.snap("pt_BR_history");
    results.extend(h.take_snapshot_results());

    let mut h = notifications_harness();
    h.run();
    h.get_by_label("Notificações do desktop");
    h.get_by_label("Horário de silêncio");
    h.get_by_label("Atalhos globais");
    h.snap("pt_BR_settings_notifications");
    results.extend(h.take_snapshot_results());

    let mut h = phone_harness();
    h.run();
    h.get_by_label("Ligado — escutando na porta 47610");
    h.get_by_label("Broker: Conectado");
    h.get_by_label("revogado");
    h.snap("pt_BR_settings_phone");
    results.extend(h.take_snapshot_results());
    let mut h = phone_harness_of(phone_status_failing());
    h.run();
    h.get_by_label("Broker: Reconectando em 4 s — connection refused");
    h.get_by_label(
        "Push: o serviço de push diz que a inscrição deste celular não existe mais (410): o push \
         fica desligado até a página se inscrever de novo",
    );
    h.get_by_label("Push: https://push.example respondeu 503 (desistiu depois de 10 tentativas)");
    let mut h = phone_harness_of(phone_status_in_files());
    h.run();
    h.get_by_label(
        "Sem chaveiro do sistema: não foi encontrado o barramento da sessão (D-Bus), então nenhum \
         serviço de chaveiro pode ser alcançado. As chaves do link do celular estão em \
         /home/u/.config/vults/phone-link.key (só você pode ler).",
    );
    h.get_by_label(
        "Sem chaveiro do sistema: nenhum serviço de chaveiro (GNOME Keyring, KWallet) está \
         rodando. A chave de push está em /home/u/.config/vults/phone-push.key (só você pode ler).",
    );
    h.get_by_label(
        "Sem chaveiro do sistema: o chaveiro está bloqueado. A senha do broker está em \
         /home/u/.config/vults/broker-password (só você pode ler).",
    );
    let mut push_off = phone_status_in_files();
    push_off.push_stored = None;
    push_off.push_off = Some("no such file".into());
    let mut h = phone_harness_of(push_off);
    h.run();
    h.get_by_label("O push está desligado: no such file");
    // The phone's broker password is left out of the URL shown under the code, in words.
    let mut with_login = phone_status();
    if let Some(offer) = &mut with_login.offer {
        offer.url.push_str("&u=vults-phone&w=s3cret%20pw");
        offer.phone_login = Some(("vults-phone".into(), "s3cret pw".into()));
    }
    let h = phone_harness_of(with_login);
    h.get_by_label("https://192.0.2.10:47610/#v=1&t=tok&k=k&x=x&u=vults-phone&w=(oculta)");
    results.unwrap();
}

// ---- Zeca's chat ----

/// A window on the Chat view with one conversation (its words, a tool row allowed by a policy
/// and one denied, a task) and the chat's card inline, picked as a person picks it.
fn chat_window() -> (
    Harness<'static, vults_ui::app::VultsWindow>,
    fixtures::Played,
) {
    use vults_engine::messages::{AnsweredBy, EngineEvent};
    use vults_zeca::tool::Asked;
    use vults_zeca::{ChatEvent, Conversation, Entry};
    let (window, played) = fixtures::played_window();
    let mut h = fixtures::window_harness(window);
    let mut conv = Conversation::new("c1", "/home/ada/src/vults", "claude");
    let tool = |id: &str, summary: &str, asked: Option<Asked>, result: Option<&str>| Entry::Tool {
        id: id.into(),
        name: "Bash".into(),
        summary: summary.into(),
        result: result.map(str::to_string),
        error: false,
        asked,
        stopped: false,
    };
    conv.entries = vec![
        Entry::User {
            text: "fix the build".into(),
        },
        Entry::Assistant {
            text: "Running the build".into(),
        },
        tool(
            "t1",
            "cargo build --locked",
            Some(Asked::Allowed {
                by: AnsweredBy::Policy("ci".into()),
            }),
            Some("Finished dev"),
        ),
        tool(
            "t2",
            "git push",
            Some(Asked::Denied {
                by: AnsweredBy::Click,
            }),
            None,
        ),
        Entry::Task {
            id: "t-1".into(),
            folder: "/home/ada/src/web".into(),
            agent: "claude".into(),
            prompt: "update the docs".into(),
            headless: true,
            state: "running".into(),
        },
    ];
    conv.running = true;
    played.chat_events.send(ChatEvent::Updated(conv)).unwrap();
    let mut card = fixtures::bash_card(7, "rm -rf target");
    card.session.session = "zeca:c1".into();
    played.events.send(EngineEvent::CardAdded(card)).unwrap();
    h.state_mut().tab = vults_ui::app::Tab::Chat;
    h.run_steps(3);
    h.get_by_label(&tr!("chat-conversation")).click();
    h.run_steps(2);
    h.get_by_label_contains("fix the build\n").click();
    h.run_steps(3);
    (h, played)
}

#[test]
fn the_chat_in_the_pseudo_language_draws_only_messages_uncut() {
    let _pseudo = vults_i18n::scoped(&Choice::Language(vults_i18n::PSEUDO.into()));
    let (h, _played) = chat_window();
    let texts: Vec<_> = drawn_texts(&h)
        .into_iter()
        // The card inline has its own test above (every kind); here the chat around it.
        .filter(|(t, _, _)| !t.contains("rm -rf target"))
        .collect();
    assert_localized(
        &texts,
        &[
            "fix the build",
            "Running the build",
            "Bash",
            "cargo build --locked",
            "   Finished dev",
            "git push",
            "update the docs",
            "/home/ada/src/vults",
            "Claude Code",
            "C",
            "ci",
        ],
    );
}

#[test]
fn the_chat_in_brazilian_portuguese() {
    let _pt = vults_i18n::scoped(&Choice::Language("pt-BR".into()));
    let (mut h, _played) = chat_window();
    h.get_by_label("rodou · permitido pela política ci");
    h.get_by_label("negado por você");
    h.get_by_label("Tarefa t-1 · claude em /home/ada/src/web");
    h.get_by_label("rodando · ainda fora do bando");
    h.get_by_label("Enviar");
    h.get_by_label("Parar");
    h.snap("pt_BR_chat");
}

/// The cards with no room on screen, listed above the flock: their line is a message, each
/// card's row its own data (agent, tool, target) and how long it waited.
#[test]
fn the_stack_in_the_pseudo_language_draws_only_messages_uncut() {
    let _pseudo = vults_i18n::scoped(&Choice::Language(vults_i18n::PSEUDO.into()));
    let cards = [
        fixtures::bash_card(1, "cargo test"),
        fixtures::bash_card(2, "cargo build"),
    ];
    let mut views = std::collections::HashMap::new();
    let mut h = fixtures::builder()
        .with_size(egui::vec2(760.0, 300.0))
        .build_ui(move |ui| {
            let stacked: Vec<&PendingCard> = cards.iter().collect();
            let _ = vults_ui::flock::stack_ui(ui, &stacked, &mut views, now());
        });
    h.run();
    let texts = drawn_texts(&h);
    let waited = tr!("waited-seconds", seconds = 10);
    let rows: Vec<String> = ["cargo test", "cargo build"]
        .iter()
        .map(|c| format!("Claude Code · Bash  {c} · {waited}"))
        .collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    assert_localized(&texts, &rows);
    assert!(
        texts
            .iter()
            .any(|(t, _, _)| vults_i18n::is_pseudo(t) && t.contains('2')),
        "the line says how many: {texts:?}"
    );
}

/// Settings → General's note on the layout is worded when the page is drawn (the window keeps
/// its message's id), so it follows a change of language like the rest of the page.
#[test]
fn the_layout_note_follows_the_language() {
    use vults_ui::app::Layout;
    let mut model = vults_ui::state::Model::default();
    model.layout_note = Some(vults_ui::native::layout_note(Layout::Floating));
    let mut h = fixtures::builder()
        .with_size(egui::vec2(560.0, 600.0))
        .build_ui(move |ui| {
            let _ = vults_ui::settings::general::GeneralView.ui(ui, &model);
        });
    let pseudo = vults_i18n::scoped(&Choice::Language(vults_i18n::PSEUDO.into()));
    h.run();
    let note = tr!("layout-floating");
    assert!(vults_i18n::is_pseudo(&note));
    h.get_by_label(&note);
    drop(pseudo);
    let _pt = vults_i18n::scoped(&Choice::Language("pt-BR".into()));
    h.run();
    h.get_by_label_contains("A ilha e cada cartão flutuam sobre as suas janelas");
}

/// The welcome's account of the first run, from the installer's parts (its English summary is
/// `first_run_message`), worded in the person's language: no English sentence of the installer
/// in the pseudo-language, only names and paths; in Portuguese, what a person reads.
#[test]
fn the_first_runs_account_is_worded_in_the_language() {
    use vults_installer::{FirstRun, ToDo};
    let welcome = vults_installer::welcome::Welcome {
        summary: "Vults found: Claude Code, Codex CLI, Gemini CLI.\n".into(),
        first_run: Some(FirstRun {
            found: vec!["Claude Code".into(), "Codex CLI".into()],
            installed: vec!["Claude Code".into(), "Codex CLI".into()],
            cards: vec!["Claude Code".into(), "Codex CLI".into()],
            sessions_only: vec![],
            status_line: true,
            todo: vec![
                ToDo::CodexTrust,
                ToDo::Leftover {
                    agent: "Gemini CLI".into(),
                },
            ],
        }),
        written: Vec::new(),
        hook_copy: "/home/ada/.local/share/vults/bin/vults-hook".into(),
        codex_trust: false,
    };
    let shown = welcome.clone();
    let mut h = fixtures::builder()
        .with_size(egui::vec2(760.0, 640.0))
        .build_ui(move |ui| {
            let _ = vults_ui::welcome::ui(ui, &shown, false);
        });
    let pseudo = vults_i18n::scoped(&Choice::Language(vults_i18n::PSEUDO.into()));
    h.run();
    let texts = drawn_texts(&h);
    for line in vults_ui::welcome::first_run_lines(welcome.first_run.as_ref().unwrap()) {
        assert!(vults_i18n::is_pseudo(&line), "{line}");
    }
    assert!(
        texts.iter().all(|(t, _, _)| !t.contains("Vults found")),
        "the installer's English summary is not drawn: {texts:?}"
    );
    drop(pseudo);
    let _pt = vults_i18n::scoped(&Choice::Language("pt-BR".into()));
    h.run();
    h.get_by_label_contains("O Vults encontrou: Claude Code, Codex CLI.");
    h.get_by_label_contains("Os pedidos de permissão de Claude Code, Codex CLI agora aparecem");
    h.get_by_label_contains("Ainda falta:");
    h.get_by_label_contains("Gemini CLI: ainda há hooks antigos do Vults");
}

/// One of each notice the engine sends, with data a person would see.
fn every_engine_notice() -> Vec<vults_engine::messages::Notice> {
    use vults_engine::messages::Notice;
    vec![
        Notice::RuleDropped {
            why: "line 3: unknown tool".into(),
        },
        Notice::RulesNotLoaded {
            why: "expected value at line 1".into(),
        },
        Notice::Private(vults_core::paths::PrivateNote::Tightened {
            path: "/tmp/vults/rules.json".into(),
            was: 0o644,
            now: 0o600,
        }),
        Notice::Private(vults_core::paths::PrivateNote::Failed {
            path: "/tmp/vults".into(),
            error: "EPERM".into(),
        }),
        Notice::NoSuchRule {
            rule: "r-41".into(),
        },
        Notice::CardGone { card: 7 },
        Notice::NotAQuestion { card: 8 },
        Notice::NoAlways { card: 9 },
        Notice::RulesKeptInMemory,
        Notice::RulesNotSaved {
            path: "/tmp/vults/rules.json".into(),
            error: "EACCES".into(),
        },
        Notice::RefusedMessage {
            kind: "answer".into(),
        },
        Notice::RefusedUser {
            uid: 1001,
            pid: Some(4242),
            me: 1000,
        },
        Notice::RefusedUser {
            uid: 1002,
            pid: None,
            me: 1000,
        },
        Notice::RefusedUnknownUser,
        Notice::RefusedUnreadable {
            error: "EBADF".into(),
        },
    ]
}

/// Applies each engine notice to a window and returns the bottom row's line as drawn.
fn drawn_engine_notices() -> Vec<(vults_engine::messages::Notice, String, Vec<String>)> {
    let (window, played) = fixtures::played_window();
    let mut h = fixtures::window_harness(window);
    h.run_steps(2);
    let mut out = Vec::new();
    for n in every_engine_notice() {
        played
            .events
            .send(vults_engine::messages::EngineEvent::Notice(n.clone()))
            .unwrap();
        h.run_steps(2);
        let line = vults_ui::state::engine_notice(&n);
        let texts = drawn_texts(&h).into_iter().map(|(t, _, _)| t).collect();
        out.push((n, line, texts));
    }
    out
}

/// The engine's notices in the bottom row: in the pseudo-language each is a message (only its
/// data is the engine's); in Portuguese, the words written for it.
#[test]
fn the_engines_notices_are_worded_in_the_language() {
    {
        let _pseudo = vults_i18n::scoped(&Choice::Language(vults_i18n::PSEUDO.into()));
        for (n, line, texts) in drawn_engine_notices() {
            assert!(vults_i18n::is_pseudo(&line), "{n:?}: {line}");
            assert!(texts.contains(&line), "{n:?}: {line:?} not in {texts:?}");
            assert!(!texts.contains(&n.to_string()), "{n:?} drawn in English");
        }
    }
    let _pt = vults_i18n::scoped(&Choice::Language("pt-BR".into()));
    let drawn = drawn_engine_notices();
    for (n, line, texts) in &drawn {
        assert!(texts.contains(line), "{n:?}: {line:?} not in {texts:?}");
        assert_ne!(*line, n.to_string(), "{n:?} is still English");
    }
    let lines: Vec<&str> = drawn.iter().map(|(_, l, _)| l.as_str()).collect();
    for expected in [
        "O cartão 7 não está mais esperando (já foi respondido, ou o agente saiu)",
        "/tmp/vults/rules.json podia ser lido por outros (644); agora é privado (600)",
        "Não foi possível salvar as regras Sempre em /tmp/vults/rules.json: EACCES",
        "Conexão recusada do uid 1001 (pid 4242) (este app roda como uid 1000)",
        "Uma mensagem \"answer\" foi recusada no socket do hook: de lá só pode vir um evento",
    ] {
        assert!(lines.contains(&expected), "{expected:?} not in {lines:?}");
    }
}
