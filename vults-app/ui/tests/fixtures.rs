//! Fixed data for deterministic views and snapshots.

use egui_kittest::Harness;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use vults_core::agents::{Question, QuestionOption, Target, ToolCall, ToolKind};
use vults_core::protocol::{AgentKind, AgentName, Identity};
use vults_core::rules::AlwaysRule;
use vults_engine::messages::{
    CardAnswer, EngineCommand, EngineEvent, PendingCard, RateWindow, Reason, Session, SessionKey,
    SessionState,
};
use vults_ui::card::{self, CardView};

/// The folder every fixed card comes from.
pub const FOLDER: &str = "/home/ada/src/vults";

/// 2026-11-18 11:06:40 UTC: every fixed view is drawn at this instant.
pub const NOW_UNIX: u64 = 1_795_000_000;

pub fn now() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(NOW_UNIX)
}

pub fn ago(secs: u64) -> SystemTime {
    now() - Duration::from_secs(secs)
}

pub fn named(name: &str) -> Identity {
    Identity::Named(AgentName::new(name).expect("a valid tool name"))
}

pub struct Bird<'a> {
    pub agent: AgentKind,
    pub name: Option<&'a str>,
    pub id: &'a str,
    pub folder: &'a str,
    pub state: SessionState,
    pub tool: Option<(&'a str, &'a str)>,
    pub cost: Option<f64>,
    pub limits: Option<(f64, f64)>,
}

pub fn session(b: Bird) -> Session {
    let identity = match b.name {
        Some(n) => named(n),
        None => Identity::Builtin(b.agent),
    };
    Session {
        key: SessionKey {
            identity: identity.key().to_string(),
            session: b.id.to_string(),
        },
        identity: Some(identity),
        agent: b.agent,
        agent_name: b.name.map(str::to_string),
        folder: b.folder.to_string(),
        state: b.state,
        last_tool: b.tool.map(|t| t.0.to_string()),
        last_target: b.tool.map(|t| t.1.to_string()),
        cost_usd: b.cost,
        five_hour: b.limits.map(|l| RateWindow {
            used_percentage: l.0,
            resets_at: Some(NOW_UNIX + 2 * 3600 + 780),
        }),
        seven_day: b.limits.map(|l| RateWindow {
            used_percentage: l.1,
            resets_at: Some(NOW_UNIX + 3 * 86400),
        }),
        task: None,
        in_terminal: None,
        terminal: None,
        started: ago(600),
        last_event: ago(5),
    }
}

/// Four birds of four different agents.
pub fn four_sessions() -> Vec<Session> {
    let mut claude = session(Bird {
        agent: AgentKind::Claude,
        name: None,
        id: "c-1",
        folder: "/home/ada/src/vults",
        state: SessionState::WaitingForYou,
        tool: Some(("Bash", "cargo test --workspace")),
        cost: Some(1.27),
        limits: Some((42.0, 18.0)),
    });
    claude.task = Some("Fix the flaky socket test".into());
    vec![
        claude,
        session(Bird {
            agent: AgentKind::Codex,
            name: None,
            id: "x-1",
            folder: "/home/ada/src/website",
            state: SessionState::Working,
            tool: Some(("apply_patch", "*** Begin Patch")),
            cost: None,
            limits: None,
        }),
        session(Bird {
            agent: AgentKind::Opencode,
            name: None,
            id: "o-1",
            folder: "/home/ada/notes",
            state: SessionState::Idle,
            tool: Some(("read", "/home/ada/notes/todo.md")),
            cost: None,
            limits: None,
        }),
        session(Bird {
            agent: AgentKind::Other,
            name: Some("deploy-bot"),
            id: "d-1",
            folder: "/srv/releases",
            state: SessionState::Working,
            tool: Some(("deploy", "{\"env\":\"staging\"}")),
            cost: None,
            limits: None,
        }),
    ]
}

pub fn call(tool: &str, target: Target) -> ToolCall {
    // An edit or a write carries its whole input, as `read_tool_call` reads it: the key of the
    // narrower Always rule.
    let exact = match &target {
        Target::Edit { path, old, new } => Some(serde_json::json!({
            "file_path": path, "old_string": old, "new_string": new
        })),
        Target::Write { path, content } => {
            Some(serde_json::json!({"file_path": path, "content": content}))
        }
        _ => None,
    }
    .map(|input| vults_core::agents::canonical_json(&input));
    ToolCall {
        session_id: Some("c-1".into()),
        cwd: Some("/home/ada/src/vults".into()),
        tool: tool.into(),
        kind: ToolKind::of(tool),
        target,
        exact,
    }
}

pub fn card(id: u64, call: ToolCall, destructive: Option<&str>) -> PendingCard {
    let identity = Identity::Builtin(AgentKind::Claude);
    let question = call.kind == ToolKind::Question;
    // As the engine offers them: the narrowest rule first, and an edit's or a write's file.
    let offered = destructive.is_none() && !question;
    let target = offered.then(|| AlwaysRule::for_call(&identity, FOLDER, &call, NOW_UNIX));
    let exact = offered
        .then(|| AlwaysRule::exact_for_call(&identity, FOLDER, &call, NOW_UNIX))
        .flatten();
    let (always_rule, file_rule) = match exact {
        Some(exact) => (Some(exact), target.map(Box::new)),
        None => (target, None),
    };
    PendingCard {
        id,
        agent: AgentKind::Claude,
        identity,
        session: SessionKey {
            identity: "claude".into(),
            session: "c-1".into(),
        },
        folder: "/home/ada/src/vults".into(),
        call,
        destructive: destructive.map(str::to_string),
        reason: match destructive {
            Some(what) => Reason::Destructive(what.to_string()),
            None => Reason::NoRule,
        },
        always_rule,
        file_rule,
        question,
        arrived: ago(12),
        context: Default::default(),
    }
}

/// The same card asked by another built-in agent, with the rules it would offer.
pub fn as_agent(card: PendingCard, agent: AgentKind) -> PendingCard {
    let mut again = self::card(card.id, card.call.clone(), card.destructive.as_deref());
    again.agent = agent;
    again.identity = Identity::Builtin(agent);
    again.session.identity = agent.as_str().to_string();
    let fresh = self::card(card.id, card.call, card.destructive.as_deref());
    let rule = |r: &AlwaysRule| AlwaysRule {
        id: vults_core::rules::rule_id(&again.identity, &r.folder, &r.tool, r.scope, &r.target),
        identity: again.identity.clone(),
        ..r.clone()
    };
    again.always_rule = fresh.always_rule.as_ref().map(rule);
    again.file_rule = fresh.file_rule.as_deref().map(|r| Box::new(rule(r)));
    again.context = card.context;
    again
}

pub fn bash_card(id: u64, command: &str) -> PendingCard {
    card(
        id,
        call(
            "Bash",
            Target::Command {
                command: command.into(),
            },
        ),
        None,
    )
}

pub fn edit_card(id: u64) -> PendingCard {
    card(
        id,
        call(
            "Edit",
            Target::Edit {
                path: "/home/ada/src/vults/vults-core/src/rules.rs".into(),
                old: Some("pub fn matches(&self, call: &ToolCall) -> bool {\n    self.tool == call.tool\n}".into()),
                new: Some(
                    "pub fn matches(&self, call: &ToolCall) -> bool {\n    self.tool == call.tool && self.target == call.target.rule_key()\n}"
                        .into(),
                ),
            },
        ),
        None,
    )
}

pub fn questions() -> Vec<Question> {
    vec![
        Question {
            question: "Which database should the cache use?".into(),
            header: "Storage".into(),
            options: vec![
                QuestionOption {
                    label: "SQLite".into(),
                    description: "One file next to the config".into(),
                },
                QuestionOption {
                    label: "Postgres".into(),
                    description: "The team's shared server".into(),
                },
            ],
            multi_select: false,
        },
        Question {
            question: "Which platforms must it run on?".into(),
            header: "Platforms".into(),
            options: vec![
                QuestionOption {
                    label: "Linux".into(),
                    description: String::new(),
                },
                QuestionOption {
                    label: "macOS".into(),
                    description: String::new(),
                },
                QuestionOption {
                    label: "Windows".into(),
                    description: String::new(),
                },
            ],
            multi_select: true,
        },
    ]
}

pub fn question_card(id: u64) -> PendingCard {
    card(
        id,
        call(
            "AskUserQuestion",
            Target::Questions {
                questions: questions(),
            },
        ),
        None,
    )
}

/// A harness builder whose snapshots are drawn on the CPU ([`crate::raster::CpuRenderer`]),
/// made at the first snapshot (kittest keeps the textures until then), so a harness that never
/// takes one never copies them.
/// A harness as the app draws: the CPU renderer, and the window's fonts from the first frame
/// (the app installs them on its first frame, before anything is drawn).
pub fn builder<S>() -> egui_kittest::HarnessBuilder<S> {
    Harness::builder()
        .renderer(egui_kittest::LazyRenderer::new(
            crate::raster::CpuRenderer::default,
        ))
        .with_context_setup(vults_ui::theme::install_fonts)
}

/// The whole window in a harness, as the app runs it each frame: `logic` (drain the engine)
/// then `ui`, embedded layout, big enough for the flock and a card side by side.
pub fn window_harness(
    window: vults_ui::app::VultsWindow,
) -> egui_kittest::Harness<'static, vults_ui::app::VultsWindow> {
    builder()
        .with_size(egui::vec2(1100.0, 900.0))
        .build_ui_state(
            |ui, w: &mut vults_ui::app::VultsWindow| {
                w.logic(ui.ctx());
                w.ui(ui);
            },
            window,
        )
}

/// Steps a window's harness past a card's arming: the card's answers take effect
/// [`vults_ui::card::ARM_DELAY`] after it is up in its place (counted from the frame after it
/// was drawn, and a click counts when the frame before the one that reads it is that late), in
/// the harness's own time (its frames' step), never a sleep.
pub fn past_arming<S>(h: &mut Harness<'_, S>) {
    let step = f64::from(h.input().predicted_dt).max(0.01);
    let frames = (vults_ui::card::ARM_DELAY / step).ceil() as usize + 2;
    h.run_steps(frames);
}

/// What a test plays for a window: the engine's events and the chat's, and what the window
/// sent each of them.
pub struct Played {
    pub events: std::sync::mpsc::Sender<EngineEvent>,
    pub commands: std::sync::mpsc::Receiver<EngineCommand>,
    pub chat_events: std::sync::mpsc::Sender<vults_zeca::ChatEvent>,
    pub chat_commands: std::sync::mpsc::Receiver<vults_zeca::ChatCommand>,
}

/// A window (embedded layout, no desktop) whose engine and chat the test plays.
pub fn played_window() -> (vults_ui::app::VultsWindow, Played) {
    use std::sync::mpsc::channel;
    let (events, events_rx) = channel();
    let (commands_tx, commands) = channel();
    let (chat_events, chat_rx) = channel();
    let (chat_tx, chat_commands) = channel();
    let window = vults_ui::app::VultsWindow::new(
        Box::new(vults_ui::ports::EngineChannel {
            events: events_rx,
            commands: commands_tx,
        }),
        Box::new(vults_ui::desktop::NoDesktop::default()),
        vults_ui::app::Layout::Embedded,
        Box::new(now),
    )
    .with_chat(Box::new(vults_ui::ports::ChatChannel {
        events: chat_rx,
        commands: chat_tx,
    }));
    (
        window,
        Played {
            events,
            commands,
            chat_events,
            chat_commands,
        },
    )
}

/// One card view on its own, as a floating card draws it, and the answer it gave.
pub struct CardState {
    pub view: CardView,
    pub card: PendingCard,
    pub answer: Option<CardAnswer>,
}

pub fn card_harness(card: PendingCard) -> Harness<'static, CardState> {
    let height = card::estimated_height(&card);
    builder()
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

/// Compares a harness's picture, drawn on the CPU ([`builder`]), with its stored snapshot. Under
/// Wine (`.ci/cross.sh` sets `VULTS_NO_SNAPSHOTS=1`) the Windows run checks everything but the
/// pixels, which the Linux run compares.
pub trait Snap {
    /// The snapshot named `name` (`tests/snapshots/<name>.png`).
    fn snap(&mut self, name: &str);
}

impl<S> Snap for Harness<'_, S> {
    fn snap(&mut self, name: &str) {
        if std::env::var_os("VULTS_NO_SNAPSHOTS").is_some() {
            return;
        }
        self.snapshot(name);
    }
}
