//! Claude Code's plan review, pinned against the real CLI (docs/other-agents.md, "Plan review"):
//! Claude Code started in plan mode (`--permission-mode plan`, interactive under tmux: `-p`
//! does not offer ExitPlanMode at all), the mock scripted with `--plan` (it writes the plan file
//! the plan-mode prompt names, loads the deferred ExitPlanMode with ToolSearch and calls it), and
//! a recording stand-in hook (`capture-hook.mjs`, no Vults) that answers:
//!
//! - allow **with `updatedInput`** (the plan echoed back) → Claude Code leaves plan mode: the
//!   model is told the plan was approved, the next call runs in `default` mode;
//! - deny with a message → the model's next request carries exactly that message as the
//!   ExitPlanMode result (an error), Claude Code stays in plan mode, the turn ends, and an idle
//!   `Notification` follows;
//! - allow **without** `updatedInput` → not honoured: Claude Code's own "Ready to code?" dialog
//!   stays up, nothing reaches the model, and `Notification` `permission_prompt` says so.
//!
//! What each event carries is checked too: PreToolUse and PermissionRequest for ExitPlanMode
//! with `tool_input {plan, planFilePath}` in `plan` mode. A CLI bump that changes any of this
//! fails here first.

use crate::claude_terminal::{Tmux, claude_first_run_done, have_tmux, start_claude, until};
use crate::harness::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const PLAN: &str = "# Plan\n\n1. Write the marker file\n2. Say done\n";
const FEEDBACK: &str = "Keep planning: also say how the marker is checked";
const ALLOW_BASH: &str = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#;

/// One interactive Claude Code session in plan mode, its hook recording into `hook_dir`.
struct PlanRun {
    // Dropped first: Claude Code ends before the work folder goes.
    tmux: Tmux,
    ctx: Ctx,
    hook_dir: PathBuf,
}

impl PlanRun {
    /// `replies`: reply file name → content (see capture-hook.mjs). `None`: skipped.
    fn start(label: &str, replies: &[(&str, &str)]) -> Option<PlanRun> {
        if !wanted("claude") || !have_tmux(label) {
            return None;
        }
        let ctx = Ctx::with_mock("claude", label, &["--plan", PLAN]);
        ctx.setup_agent();
        let hook_dir = ctx.work.dir.join("hook");
        std::fs::create_dir_all(&hook_dir).unwrap();
        for (name, text) in replies {
            std::fs::write(hook_dir.join(name), text).unwrap();
        }
        let capture = here().join("capture-hook.mjs");
        let entry = |event: &str, matcher: bool| {
            let command = format!(
                "node {} {} claude {event}",
                capture.display(),
                hook_dir.display()
            );
            let mut group =
                json!({"hooks": [{"type": "command", "command": command, "timeout": 30}]});
            if matcher {
                group["matcher"] = json!("*");
            }
            json!([group])
        };
        let settings = json!({"hooks": {
            "PreToolUse": entry("PreToolUse", true),
            "PermissionRequest": entry("PermissionRequest", true),
            "PostToolUse": entry("PostToolUse", true),
            "Notification": entry("Notification", false),
            "Stop": entry("Stop", false),
        }});
        // The idle notice after 1 s instead of 60; no "make auto mode your default?" offer
        // after the turn (a dialog on screen holds the idle notice back).
        claude_first_run_done(
            &ctx,
            json!({"messageIdleNotifThresholdMs": 1000, "hasSeenAutoDefaultNudge": true}),
            settings,
        );
        let tmux = start_claude(&ctx, &[], &["--permission-mode", "plan", "write the file"]);
        Some(PlanRun {
            tmux,
            ctx,
            hook_dir,
        })
    }

    /// What the hook recorded so far: `{t, agent, event, payload, replied}`, oldest first.
    fn events(&self) -> Vec<Value> {
        read_events(&self.hook_dir)
    }

    /// The first recorded `event` (for `tool`, when given) that `ok` accepts, waited for.
    fn wait_event(&self, event: &str, tool: Option<&str>, ok: impl Fn(&Value) -> bool) -> Value {
        until(&format!("{event} {tool:?}"), &self.tmux, || {
            self.events().into_iter().find(|e| {
                e["event"] == event
                    && tool.is_none_or(|t| e["payload"]["tool_name"] == t)
                    && ok(&e["payload"])
            })
        })
    }

    /// The plan-review events every run starts with: PreToolUse, then PermissionRequest, for
    /// ExitPlanMode in plan mode, both carrying the plan the mock wrote and its file.
    fn check_review_events(&self) -> Value {
        let request = self.wait_event("PermissionRequest", Some("ExitPlanMode"), |_| true);
        let events = self.events();
        let pre = events
            .iter()
            .find(|e| e["event"] == "PreToolUse" && e["payload"]["tool_name"] == "ExitPlanMode")
            .unwrap_or_else(|| {
                panic!("no PreToolUse for ExitPlanMode before its PermissionRequest: {events:#?}")
            });
        let p = &request["payload"];
        assert_eq!(p["permission_mode"], "plan", "{p:#}");
        assert_eq!(p["tool_input"]["plan"], PLAN, "{p:#}");
        let file = p["tool_input"]["planFilePath"].as_str().unwrap_or_default();
        assert!(
            Path::new(file).starts_with(self.ctx.home.join(".claude/plans"))
                && file.ends_with(".md"),
            "planFilePath {file:?} is not the plan file under the fake HOME: {p:#}"
        );
        assert_eq!(std::fs::read_to_string(file).unwrap_or_default(), PLAN);
        assert_eq!(pre["payload"]["tool_input"], p["tool_input"], "{pre:#}");
        assert_eq!(pre["payload"]["permission_mode"], "plan");
        assert!(pre["payload"]["tool_use_id"].is_string(), "{pre:#}");
        request
    }
}

fn read_events(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("events.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

pub fn approved_with_updated_input_leaves_plan_mode() {
    let _one_at_a_time = AGENT_SLOTS.take();
    let Some(mut run) = PlanRun::start(
        "claude-plan-approved",
        &[
            (
                "reply-PermissionRequest-ExitPlanMode.json",
                r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":"$TOOL_INPUT"}}}"#,
            ),
            ("reply-PermissionRequest-Bash.json", ALLOW_BASH),
        ],
    ) else {
        return;
    };
    run.check_review_events();
    until("the marker (the plan's command ran)", &run.tmux, || {
        run.ctx.marker.exists().then_some(())
    });
    let result = run
        .ctx
        .mock
        .last_result_of("ExitPlanMode")
        .expect("the model got ExitPlanMode's result");
    assert_eq!(result["is_error"], false, "{result:#}");
    let text = result["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("User has approved your plan") && text.contains("1. Write the marker file"),
        "{text}"
    );
    // Out of plan mode: the next call asks in `default` mode, and the turn ends there.
    let bash = run.wait_event("PreToolUse", Some("Bash"), |_| true);
    assert_eq!(bash["payload"]["permission_mode"], "default", "{bash:#}");
    let stop = run.wait_event("Stop", None, |_| true);
    assert_eq!(stop["payload"]["permission_mode"], "default", "{stop:#}");
    run.ctx.work.keep = false;
}

pub fn kept_planning_sends_the_feedback_to_the_model() {
    let deny = json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
        "decision": {"behavior": "deny", "message": FEEDBACK}}})
    .to_string();
    let _one_at_a_time = AGENT_SLOTS.take();
    let Some(mut run) = PlanRun::start(
        "claude-plan-kept",
        &[("reply-PermissionRequest-ExitPlanMode.json", &deny)],
    ) else {
        return;
    };
    run.check_review_events();
    let result = until("the model's next request", &run.tmux, || {
        run.ctx.mock.last_result_of("ExitPlanMode")
    });
    assert_eq!(result["is_error"], true, "{result:#}");
    assert_eq!(
        result["text"], FEEDBACK,
        "the model did not get the feedback as it was written"
    );
    // Still planning: the turn ends in plan mode, nothing ran, and Claude Code then says it
    // waits for the person.
    let stop = run.wait_event("Stop", None, |_| true);
    assert_eq!(stop["payload"]["permission_mode"], "plan", "{stop:#}");
    let idle = run.wait_event("Notification", None, |p| {
        p["notification_type"] == "idle_prompt"
    });
    assert_eq!(
        idle["payload"]["message"],
        "Claude is waiting for your input"
    );
    assert!(
        !run.ctx.marker.exists(),
        "a command ran although the plan was not approved"
    );
    assert!(
        !run.events()
            .iter()
            .any(|e| e["payload"]["tool_name"] == "Bash"),
        "a Bash call after the plan was kept: {:#?}",
        run.events()
    );
    run.ctx.work.keep = false;
}

pub fn a_bare_allow_leaves_the_plan_dialog_up() {
    let _one_at_a_time = AGENT_SLOTS.take();
    let Some(mut run) = PlanRun::start(
        "claude-plan-bare",
        &[("reply-PermissionRequest-ExitPlanMode.json", ALLOW_BASH)],
    ) else {
        return;
    };
    let request = run.check_review_events();
    assert_eq!(
        request["replied"], ALLOW_BASH,
        "the hook answered {request:#}"
    );
    until("Claude Code's own plan dialog", &run.tmux, || {
        run.tmux.screen().contains("Ready to code?").then_some(())
    });
    // Claude Code waits for the person in its terminal, and says so after a while.
    let asked = Instant::now();
    let notice = run.wait_event("Notification", None, |p| {
        p["notification_type"] == "permission_prompt"
    });
    let message = notice["payload"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("plan"), "{notice:#}");
    // Still nothing for the model, and the dialog still up: the allow changed nothing.
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        run.ctx.mock.last_result_of("ExitPlanMode").is_none(),
        "an allow without updatedInput was honoured ({:?} after the dialog): update \
         docs/other-agents.md",
        asked.elapsed()
    );
    assert!(run.tmux.screen().contains("Ready to code?"));
    run.ctx.work.keep = false;
}

// ---------------------------------------------------------------------------------------------
// The same plan review with Vults: the installed hook, the engine, a plan card.
// ---------------------------------------------------------------------------------------------

/// Claude Code in plan mode with Vults' own hook installed and the engine running in-process.
struct VultsPlanRun {
    // Dropped first: Claude Code ends before the engine and the work folder go.
    tmux: Tmux,
    engine: vults_engine::EngineHandle,
    ctx: Ctx,
}

impl VultsPlanRun {
    fn start(label: &str) -> Option<VultsPlanRun> {
        if !wanted("claude") || !have_tmux(label) {
            return None;
        }
        let mut ctx = Ctx::with_mock("claude", label, &["--plan", PLAN]);
        ctx.setup_agent();
        claude_first_run_done(
            &ctx,
            json!({"messageIdleNotifThresholdMs": 1000, "hasSeenAutoDefaultNudge": true}),
            json!({}),
        );
        ctx.install_vults();
        let engine = vults_engine::Engine::start_with(
            ctx.paths(),
            std::sync::Arc::new(|| {}),
            vults_engine::EngineOptions::default(),
        )
        .expect("the engine starts");
        let tmux = start_claude(
            &ctx,
            &[("VULTS_HOME", ctx.vults_home.to_string_lossy().into_owned())],
            &["--permission-mode", "plan", "write the file"],
        );
        Some(VultsPlanRun { tmux, engine, ctx })
    }

    /// The next engine event `pick` takes, waited for; the others are kept in `seen`.
    fn next<T>(
        &self,
        what: &str,
        seen: &mut Vec<vults_engine::messages::EngineEvent>,
        mut pick: impl FnMut(&vults_engine::messages::EngineEvent) -> Option<T>,
    ) -> T {
        until(what, &self.tmux, || {
            let e = self
                .engine
                .events
                .recv_timeout(Duration::from_millis(50))
                .ok()?;
            let got = pick(&e);
            seen.push(e);
            got
        })
    }

    /// The plan card: the plan the mock wrote, whole, and no Always.
    fn plan_card(
        &self,
        seen: &mut Vec<vults_engine::messages::EngineEvent>,
    ) -> vults_engine::messages::PendingCard {
        use vults_engine::messages::EngineEvent;
        let card = self.next("the plan card", seen, |e| match e {
            EngineEvent::CardAdded(c) => Some(c.clone()),
            _ => None,
        });
        assert_eq!(card.call.tool, "ExitPlanMode");
        assert_eq!(
            card.plan(),
            Some(PLAN),
            "the card shows the plan: {card:#?}"
        );
        assert!(card.always_rule.is_none() && card.file_rule.is_none());
        card
    }

    fn answer(&self, card: u64, answer: vults_engine::messages::CardAnswer) {
        assert!(
            self.engine
                .send(vults_engine::messages::EngineCommand::Answer {
                    card,
                    answer,
                    by: vults_engine::messages::AnsweredBy::Click,
                })
        );
    }
}

/// Approve on the plan card: Claude Code leaves plan mode (the model is told the plan was
/// approved), and the plan's command then asks as an ordinary card, in `default` mode.
pub fn vults_approve_leaves_plan_mode() {
    use vults_engine::messages::{CardAnswer, EngineEvent};
    let _one_at_a_time = AGENT_SLOTS.take();
    let Some(mut run) = VultsPlanRun::start("vults-plan-approve") else {
        return;
    };
    let mut seen = Vec::new();
    let card = run.plan_card(&mut seen);
    run.answer(card.id, CardAnswer::Allow);
    let bash = run.next("the command's card", &mut seen, |e| match e {
        EngineEvent::CardAdded(c) if c.call.tool == "Bash" => Some(c.clone()),
        _ => None,
    });
    let result = run
        .ctx
        .mock
        .last_result_of("ExitPlanMode")
        .expect("the model got ExitPlanMode's result");
    assert_eq!(result["is_error"], false, "{result:#}");
    let text = result["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("User has approved your plan") && text.contains("1. Write the marker file"),
        "{text}"
    );
    run.answer(bash.id, CardAnswer::Allow);
    until("the marker (the plan's command ran)", &run.tmux, || {
        run.ctx.marker.exists().then_some(())
    });
    run.ctx.work.keep = false;
}

/// Keep planning with feedback on the plan card: the model's next request carries exactly the
/// feedback as ExitPlanMode's error, nothing runs, the turn ends, and the bird says it is done
/// and waits for the person.
pub fn vults_keep_planning_sends_the_feedback() {
    use vults_engine::messages::{CardAnswer, EngineEvent, SessionState};
    let _one_at_a_time = AGENT_SLOTS.take();
    let Some(mut run) = VultsPlanRun::start("vults-plan-keep") else {
        return;
    };
    let mut seen = Vec::new();
    let card = run.plan_card(&mut seen);
    run.answer(card.id, CardAnswer::DenyWith(FEEDBACK.into()));
    let result = until("the model's next request", &run.tmux, || {
        run.ctx.mock.last_result_of("ExitPlanMode")
    });
    assert_eq!(result["is_error"], true, "{result:#}");
    assert_eq!(
        result["text"], FEEDBACK,
        "the model did not get the feedback as it was written"
    );
    // The turn ended (Stop, in plan mode): done — waiting for you.
    let done = run.next("the bird done and waiting", &mut seen, |e| match e {
        EngineEvent::SessionChanged(s) if s.state == SessionState::Done => Some(s.clone()),
        _ => None,
    });
    assert_eq!(done.key.session, card.session.session);
    assert!(
        !run.ctx.marker.exists(),
        "a command ran although the plan was kept"
    );
    assert!(
        !seen
            .iter()
            .any(|e| matches!(e, EngineEvent::CardAdded(c) if c.call.tool == "Bash")),
        "a Bash call after the plan was kept"
    );
    run.ctx.work.keep = false;
}
