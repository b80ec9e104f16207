//! Claude Code interactive, under tmux, answered in its own dialog: a card comes up for the Bash call; the
//! person answers in Claude Code's own dialog instead (`tmux send-keys Enter` on "1. Yes"); the
//! command runs, and the card is withdrawn at once, its hook process ends, the audit says
//! `by: terminal`, and a click on the card afterwards answers nothing and audits nothing.
//!
//! Needs `tmux` (a private server, `tmux -L <name>`, killed at the end). The first-run
//! screens are skipped and the `default` permission mode set by the files the test writes into
//! the fake HOME (`.claude.json`, `.claude/settings.json`).

use crate::harness::*;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use vults_engine::messages::{AnsweredBy, CardAnswer, EngineCommand, EngineEvent};
use vults_engine::{Engine, EngineOptions};

/// A failure bound, not a measurement.
const PATIENCE: Duration = Duration::from_secs(90);

/// A private tmux server, killed on drop, which then waits (up to 5 s) for the program it ran to
/// exit, so nothing writes into a work folder after the test removed it.
pub struct Tmux {
    name: String,
    pane_pid: Option<u32>,
}

impl Tmux {
    pub fn cmd(&self) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-L", &self.name]);
        c
    }

    pub fn screen(&self) -> String {
        self.cmd()
            .args(["capture-pane", "-p", "-t", "claude"])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd().arg("kill-server").status();
        if let Some(pid) = self.pane_pid {
            let deadline = Instant::now() + Duration::from_secs(5);
            while Path::new(&format!("/proc/{pid}")).exists() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

/// Whether tmux is there; without it (and `VULTS_REAL_AGENTS` not `1`) the test is skipped.
pub fn have_tmux(label: &str) -> bool {
    if Command::new("tmux").arg("-V").output().is_ok() {
        return true;
    }
    assert!(
        std::env::var("VULTS_REAL_AGENTS").as_deref() != Ok("1"),
        "real-agents: tmux is needed for Claude Code's interactive tests (apt-get install tmux)"
    );
    eprintln!("real-agents: {label} skipped (no tmux)");
    false
}

/// What interactive Claude Code needs in the fake HOME to go straight to work: `.claude.json`
/// with the first-run screens done (onboarding, the API key, the folder's trust dialog) plus the
/// keys of `extra`, and `.claude/settings.json` = `settings`. Vults' installer, run after this,
/// adds its hooks to that settings file.
pub fn claude_first_run_done(ctx: &Ctx, extra: serde_json::Value, settings: serde_json::Value) {
    let project = ctx.project.to_string_lossy().into_owned();
    let mut global = serde_json::json!({"hasCompletedOnboarding": true, "theme": "dark",
        "customApiKeyResponses": {"approved": ["sk-test"], "rejected": []},
        "projects": {project: {"hasTrustDialogAccepted": true, "allowedTools": []}}});
    if let (Some(g), Some(e)) = (global.as_object_mut(), extra.as_object()) {
        g.extend(e.clone());
    }
    std::fs::write(ctx.home.join(".claude.json"), global.to_string()).unwrap();
    std::fs::create_dir_all(ctx.home.join(".claude")).unwrap();
    std::fs::write(ctx.home.join(".claude/settings.json"), settings.to_string()).unwrap();
}

/// Starts the pinned Claude Code with `args` in the project folder, in a private tmux server
/// (160×45, session `claude`) named after the work folder, against the test's mock, with `env`
/// on top of the fake HOME's.
pub fn start_claude(ctx: &Ctx, env: &[(&str, String)], args: &[&str]) -> Tmux {
    let claude =
        here().join(".cache/claude/node_modules/@anthropic-ai/claude-code-linux-x64/claude");
    let tmux = Tmux {
        name: ctx
            .work
            .dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| format!("vults-ra-{}", std::process::id())),
        pane_pid: None,
    };
    let base = [
        ("HOME", ctx.home.to_string_lossy().into_owned()),
        (
            "ANTHROPIC_BASE_URL",
            format!("http://127.0.0.1:{}", ctx.mock.port),
        ),
        ("ANTHROPIC_API_KEY", "sk-test".into()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
        ("DISABLE_AUTOUPDATER", "1".into()),
    ];
    let project = ctx.project.to_string_lossy().into_owned();
    let mut start = tmux.cmd();
    start.args([
        "new-session",
        "-d",
        "-x",
        "160",
        "-y",
        "45",
        "-s",
        "claude",
        "-c",
        &project,
    ]);
    for (k, v) in base.iter().chain(env) {
        start.args(["-e", &format!("{k}={v}")]);
    }
    start.args(["--", &claude.to_string_lossy()]).args(args);
    let status = start.status().expect("tmux starts");
    assert!(status.success(), "tmux new-session failed");
    let mut tmux = tmux;
    tmux.pane_pid = tmux
        .cmd()
        .args(["list-panes", "-t", "claude", "-F", "#{pane_pid}"])
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok());
    tmux
}

/// Pids of processes running exactly this installed hook for a PermissionRequest.
fn waiting_hooks(hook: &Path) -> Vec<u32> {
    let want = hook.to_string_lossy().into_owned();
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else {
            continue;
        };
        let Ok(raw) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let args: Vec<String> = raw
            .split(|b| *b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        if args.first() == Some(&want) && args.iter().any(|a| a == "PermissionRequest") {
            pids.push(pid);
        }
    }
    pids
}

/// Polls `f` until it gives something; fails with the screen after [`PATIENCE`].
pub fn until<T>(what: &str, screen: &Tmux, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}; screen:\n{}",
            screen.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub fn claude_answered_in_its_own_dialog() {
    if !wanted("claude") {
        return;
    }
    if !have_tmux("claude-terminal") {
        return;
    }
    let _one_at_a_time = AGENT_SLOTS.take();
    let mut ctx = Ctx::new("claude");
    ctx.setup_agent();
    // Interactive sessions default to `auto` (a classifier runs the call with no dialog): the
    // dialog, and with it PermissionRequest, comes back in `default` mode.
    claude_first_run_done(
        &ctx,
        serde_json::json!({}),
        serde_json::json!({"permissions": {"defaultMode": "default"}}),
    );
    ctx.install_vults();
    let paths = ctx.paths();
    let hook = paths.installed_hook();
    let engine = Engine::start_with(
        paths.clone(),
        std::sync::Arc::new(|| {}),
        EngineOptions::default(),
    )
    .expect("the engine starts");

    let tmux = start_claude(
        &ctx,
        &[("VULTS_HOME", ctx.vults_home.to_string_lossy().into_owned())],
        &["write the file"],
    );

    // The card comes; Claude Code's own dialog is on screen at the same time.
    let card = until("a card", &tmux, || {
        engine
            .events
            .recv_timeout(Duration::from_millis(50))
            .ok()
            .and_then(|e| match e {
                EngineEvent::CardAdded(c) => Some(c),
                _ => None,
            })
    });
    assert_eq!(card.call.target.rule_key(), ctx.command);
    until("Claude Code's dialog", &tmux, || {
        let s = tmux.screen();
        (s.contains("Do you want to proceed?") && s.contains("1. Yes")).then_some(())
    });
    let hooks = waiting_hooks(&hook);
    assert!(!hooks.is_empty(), "the hook is waiting for the card");

    // The person answers in the terminal: "1. Yes" is selected, Enter takes it.
    assert!(
        tmux.cmd()
            .args(["send-keys", "-t", "claude", "Enter"])
            .status()
            .unwrap()
            .success()
    );
    let ran = until("the command to run", &tmux, || {
        ctx.marker.exists().then(Instant::now)
    });
    let (removed_at, by) = until("the card to be withdrawn", &tmux, || {
        engine
            .events
            .recv_timeout(Duration::from_millis(20))
            .ok()
            .and_then(|e| match e {
                EngineEvent::CardRemoved { id, by } if id == card.id => Some((Instant::now(), by)),
                _ => None,
            })
    });
    assert_eq!(by, AnsweredBy::Terminal);
    let late = removed_at.saturating_duration_since(ran);
    assert!(
        late <= Duration::from_secs(1),
        "the card stayed up {late:?} after the command ran"
    );
    until("the hook process to end", &tmux, || {
        waiting_hooks(&hook)
            .iter()
            .all(|p| !hooks.contains(p))
            .then_some(())
    });
    let line = until("the audit line", &tmux, || {
        engine
            .events
            .recv_timeout(Duration::from_millis(50))
            .ok()
            .and_then(|e| match e {
                EngineEvent::Audited(l) if l.len() == 1 && l[0].by == "terminal" => {
                    Some(l[0].clone())
                }
                _ => None,
            })
    });
    assert_eq!(
        (line.decision.as_str(), line.target.as_str()),
        ("allow", ctx.command.as_str())
    );

    // A click on the card now answers nothing and audits nothing.
    engine.send(EngineCommand::Answer {
        card: card.id,
        answer: CardAnswer::Deny,
        by: AnsweredBy::Click,
    });
    let deadline = Instant::now() + Duration::from_secs(1);
    let mut refused = false;
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match engine.events.recv_timeout(left) {
            Ok(EngineEvent::Audited(l)) => {
                assert!(
                    !l.iter().any(|a| a.by == "click"),
                    "a click on a withdrawn card was audited: {l:?}"
                );
            }
            Ok(EngineEvent::Notice(t)) if t.to_string().contains("no longer waiting") => {
                refused = true
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    assert!(refused, "the stale click was not refused");
    let audit = std::fs::read_to_string(paths.audit_log()).unwrap_or_default();
    assert!(!audit.contains("\"by\":\"click\""), "{audit}");
    drop(tmux);
    ctx.work.keep = false;
}
