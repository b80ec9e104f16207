//! Zeca, the app's own chat, end to end: the real Claude Code CLI (pinned, from
//! `tests/real-agents/.cache`) driven headless over stream-json by the engine, against the mock
//! model on 127.0.0.1, with **Vults' own hook installed** in the fake HOME so the run's hooks
//! really fire. The window is the real `VultsWindow` under egui_kittest: the test types into the
//! Chat view and clicks its buttons, and reads what it shows.
//!
//! One run, in order (each step says what it proves):
//! 1. a turn asks for a permission → the card shows **inline in the chat** (the whole command);
//!    Allow → the command ran (marker), the model's text streams into the panel ("done"),
//!    the audit line names the chat (`session: zeca:<chat>`, by click);
//! 2. a second turn continues the same CLI session: the mock sees the first turn's messages;
//! 3. a new chat, Deny → no marker, audited deny for that chat;
//! 4. a policy deny → no card at all, no marker, audited `policy:<name>` for the chat;
//! 5. Stop while a card waits → the CLI's whole process group is gone, the card withdrawn;
//! 6. the hook events of all these runs carried `zeca: true` (counted) and the flock stayed empty;
//! 7. a task started from the chat (headless) → its bird is in the flock with its `VULTS_TASK`,
//!    its card is an ordinary (floating) card; Allow → marker; the chat shows the task ended.
//! 8. after a restart the conversation comes back and its next turn resumes the CLI's session;
//! 9. a CLI idle for longer than `idle_after` is ended (its process group is gone) and the next
//!    turn starts it again on the same session (`--resume`): the mock sees every earlier turn.
//!
//! Along the way each tool row says what happened in words: "ran", "denied by you", "denied by
//! policy <name>", "stopped".
//!
//! `VULTS_REAL_AGENTS=0` skips; `=1` (CI) makes a missing Claude Code a failure.

#[allow(dead_code)]
mod harness;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use harness::*;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};
use vults_engine::EngineHandle;
use vults_engine::messages::{EngineCommand, EngineEvent};
use vults_ui::app::{Layout, Tab, VultsWindow};
use vults_ui::desktop::NoDesktop;
use vults_ui::ports::{ChatSide, EngineSide};
use vults_zeca::{ChatCommand, ChatEvent, Entry, ZecaHandle, ZecaOptions};

/// What the chat's tool rows say, in order.
fn row_marks(h: &H, chat: &str) -> Vec<String> {
    let Some(c) = h.state().model.chats.get(chat) else {
        return Vec::new();
    };
    c.entries
        .iter()
        .filter_map(|e| vults_zeca::tool::status(e, c.running))
        .map(|s| s.mark)
        .collect()
}

/// The resident memory of a process, in MiB (Linux), for the report.
fn rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb / 1024.0)
}

/// The window's link to the engine, keeping a copy of every event for the checks.
struct Tap {
    engine: Arc<Mutex<EngineHandle>>,
    seen: Arc<Mutex<Vec<EngineEvent>>>,
}

impl EngineSide for Tap {
    fn try_recv(&mut self) -> Option<EngineEvent> {
        let ev = self.engine.lock().ok()?.events.try_recv().ok()?;
        if let Ok(mut seen) = self.seen.lock() {
            seen.push(ev.clone());
        }
        Some(ev)
    }
    fn send(&mut self, command: EngineCommand) {
        if let Ok(e) = self.engine.lock() {
            e.send(command);
        }
    }
}

/// The window's link to the chat; the test keeps the chat to send it a turn itself and to end
/// it as quitting the app does.
struct ChatTap(Arc<Mutex<ZecaHandle>>);

impl ChatSide for ChatTap {
    fn try_recv(&mut self) -> Option<ChatEvent> {
        self.0.lock().ok()?.events.try_recv().ok()
    }
    fn send(&mut self, command: ChatCommand) {
        if let Ok(z) = self.0.lock() {
            z.send(command);
        }
    }
}

type H = Harness<'static, VultsWindow>;

/// What [`chat_window`] started: the engine, the chat, and the window over both.
struct Started {
    engine: Arc<Mutex<EngineHandle>>,
    zeca: Arc<Mutex<ZecaHandle>>,
    h: H,
}

impl Started {
    /// Quits as the app does: the window goes, the chat ends its CLIs, the engine stops.
    fn quit(self) {
        drop(self.h);
        if let Ok(mut z) = self.zeca.lock() {
            z.stop();
        }
        if let Ok(mut e) = self.engine.lock() {
            e.stop();
        }
    }
}

/// The engine with `options` and the real window over it, under kittest; `seen` keeps every
/// event the window was sent.
fn chat_window(
    ctx: &Ctx,
    options: ZecaOptions,
    seen: Arc<Mutex<Vec<EngineEvent>>>,
    what: &str,
) -> Started {
    let handle = vults_engine::Engine::start(ctx.paths(), Arc::new(|| {}))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let zeca = ZecaHandle::start(&ctx.paths(), options, handle.commander(), Arc::new(|| {}))
        .unwrap_or_else(|e| panic!("{what}: the chat: {e}"));
    let engine = Arc::new(Mutex::new(handle));
    let zeca = Arc::new(Mutex::new(zeca));
    let window = VultsWindow::new(
        Box::new(Tap {
            engine: engine.clone(),
            seen,
        }),
        Box::new(NoDesktop::default()),
        Layout::Embedded,
        Box::new(SystemTime::now),
    )
    .with_chat(Box::new(ChatTap(zeca.clone())));
    let h: H = Harness::builder()
        .with_size(egui::vec2(1100.0, 1000.0))
        .build_ui_state(
            |ui, w: &mut VultsWindow| {
                w.logic(ui.ctx());
                w.ui(ui);
            },
            window,
        );
    Started { engine, zeca, h }
}

/// Steps the window until `done` holds; panics with `what` after `secs`.
fn until(h: &mut H, what: &str, secs: u64, report: &dyn Fn() -> String, done: impl Fn(&H) -> bool) {
    let start = Instant::now();
    loop {
        h.step();
        if done(h) {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(secs),
            "zeca: gave up after {secs} s waiting for {what}{}",
            report()
        );
        std::thread::sleep(Duration::from_millis(40));
    }
}

fn type_into(h: &mut H, label: &str, text: &str) {
    h.get_by_label(label).focus();
    h.run_steps(1);
    h.get_by_label(label).type_text(text);
    h.run_steps(1);
}

/// The ids of the chats the window knows.
fn chat_ids(h: &H) -> Vec<String> {
    h.state().model.chats.keys().cloned().collect()
}

/// Sends `text` from the Chat view; returns the id of the chat it went to.
fn send(h: &mut H, text: &str) -> String {
    let before = chat_ids(h);
    type_into(h, "Message", text);
    h.get_by_label("Send").click();
    h.run_steps(2);
    let start = Instant::now();
    loop {
        h.step();
        let ids = chat_ids(h);
        if let Some(new) = ids.iter().find(|i| !before.contains(i)) {
            return new.clone();
        }
        if before.len() == ids.len()
            && !before.is_empty()
            && start.elapsed() > Duration::from_secs(1)
        {
            // A turn of a chat that exists already.
            return h
                .state()
                .model
                .chats
                .values()
                .max_by_key(|c| c.entries.len())
                .map(|c| c.id.clone())
                .unwrap_or_default();
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the chat never appeared"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn running(h: &H, chat: &str) -> bool {
    h.state().model.chats.get(chat).is_some_and(|c| c.running)
}

fn entries(h: &H, chat: &str) -> Vec<Entry> {
    h.state()
        .model
        .chats
        .get(chat)
        .map(|c| c.entries.clone())
        .unwrap_or_default()
}

fn audit_of(ctx: &Ctx, chat: &str) -> Vec<serde_json::Value> {
    audit_lines(&ctx.paths())
        .iter()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["session"] == format!("zeca:{chat}"))
        .collect()
}

#[cfg(unix)]
fn group_alive(pid: u32) -> bool {
    let pgid = libc::pid_t::try_from(pid).expect("pid");
    // SAFETY: signal 0 only checks whether the group exists; nothing is sent.
    unsafe { libc::kill(-pgid, 0) == 0 }
}

#[test]
fn zeca_drives_real_claude_code() {
    if !wanted("claude") {
        return;
    }
    let _serial = AGENT_SLOTS.take();
    let t0 = Instant::now();
    let mut ctx = Ctx::named("claude", "zeca");
    ctx.setup_agent();
    ctx.install_vults();
    let claude =
        here().join(".cache/claude/node_modules/@anthropic-ai/claude-code-linux-x64/claude");
    let s = |p: &Path| p.display().to_string();
    let options = ZecaOptions {
        clis: [(vults_core::agents::Agent::Claude, claude)].into(),
        env: vec![
            ("HOME".into(), s(&ctx.home)),
            (
                "ANTHROPIC_BASE_URL".into(),
                format!("http://127.0.0.1:{}", ctx.mock.port),
            ),
            ("ANTHROPIC_API_KEY".into(), "sk-test".into()),
            (
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
                "1".into(),
            ),
            ("DISABLE_AUTOUPDATER".into(), "1".into()),
            ("NO_COLOR".into(), "1".into()),
            // The hook finds this test's engine.
            ("VULTS_HOME".into(), s(&ctx.vults_home)),
        ],
        env_remove: vec![
            "CI".into(),
            "GITHUB_ACTIONS".into(),
            "VULTS_SOCKET".into(),
            "VULTS_AGENT_HOME".into(),
        ],
        ..ZecaOptions::default()
    };
    // After the restart (steps 8 and 9) an idle CLI is ended after a few seconds.
    let options2 = ZecaOptions {
        idle_after: Some(Duration::from_secs(3)),
        ..options.clone()
    };
    let seen = Arc::new(Mutex::new(Vec::<EngineEvent>::new()));
    let Started {
        engine,
        zeca,
        mut h,
    } = chat_window(&ctx, options, seen.clone(), "the engine starts");
    let work = ctx.work.dir.clone();
    let mock_log = ctx.mock.log.clone();
    let audit = ctx.paths().audit_log();
    let report = move || {
        format!(
            "\n---- mock log (tail) ----\n{}\n---- audit ----\n{}\n---- work dir ----\n{}",
            std::fs::read_to_string(&mock_log)
                .unwrap_or_default()
                .lines()
                .rev()
                .take(3)
                .map(|l| l.chars().take(600).collect::<String>())
                .collect::<Vec<_>>()
                .join("\n"),
            std::fs::read_to_string(&audit).unwrap_or_default(),
            work.display()
        )
    };
    h.state_mut().tab = Tab::Chat;
    h.run_steps(2);
    type_into(&mut h, "Folder", &s(&ctx.project));

    // 1. A card inline in the chat; Allow runs the command; the text streams in.
    let _ = std::fs::remove_file(&ctx.marker);
    let a = send(&mut h, "write the file");
    until(&mut h, "the inline card", 90, &report, |h| {
        h.query_by_label("Allow").is_some()
    });
    // The tool row and the card both show the whole command.
    assert!(
        h.query_all_by_label_contains(&ctx.command).count() >= 2,
        "the inline card shows the whole command {:?}{}",
        ctx.command,
        report()
    );
    {
        let m = &h.state().model;
        assert_eq!(m.cards.len(), 1, "one card, the chat's");
        assert_eq!(m.cards[0].call.target.command(), Some(ctx.command.as_str()));
        assert_eq!(m.cards[0].session.session, format!("zeca:{a}"));
        assert!(m.sessions.is_empty(), "the chat is no bird");
    }
    h.get_by_label("Allow").click();
    until(&mut h, "the turn's end and the text", 90, &report, |h| {
        !running(h, &a) && h.query_by_label("done").is_some()
    });
    assert!(ctx.marker.exists(), "Allow ran the command{}", report());
    let tool_ok = entries(&h, &a).iter().any(
        |e| matches!(e, Entry::Tool { name, result: Some(_), error: false, .. } if name == "Bash"),
    );
    assert!(tool_ok, "a tool row with its result: {:?}", entries(&h, &a));
    assert_eq!(row_marks(&h, &a), ["ran"], "{:?}", entries(&h, &a));
    let lines = audit_of(&ctx, &a);
    assert!(
        lines.iter().any(|l| l["decision"] == "allow"
            && l["by"] == "click"
            && l["target"] == ctx.command.as_str()),
        "the audit names the chat (allow by click): {lines:?}{}",
        report()
    );

    // 2. A second turn continues the same CLI session: the mock sees the first turn.
    let session = h.state().model.chats[&a].session_id.clone();
    assert!(session.is_some(), "the CLI's session id was kept");
    let requests_before = std::fs::read_to_string(&ctx.mock.log)
        .unwrap_or_default()
        .lines()
        .count();
    let again = send(&mut h, "and now say it again");
    assert_eq!(again, a, "the second turn goes to the same chat");
    until(&mut h, "the second turn", 60, &report, |h| {
        !running(h, &a)
            && entries(h, &a)
                .iter()
                .filter(|e| matches!(e, Entry::Assistant { .. }))
                .count()
                >= 2
    });
    let log = std::fs::read_to_string(&ctx.mock.log).unwrap_or_default();
    let later: Vec<&str> = log.lines().skip(requests_before).collect();
    assert!(
        later
            .iter()
            .any(|l| l.contains("write the file") && l.contains("and now say it again")),
        "the second turn's request carries the first turn's messages{}",
        report()
    );
    assert_eq!(
        h.state().model.chats[&a].session_id,
        session,
        "the same session"
    );

    // 3. A new chat; Deny: nothing runs, the audit says deny for that chat.
    let _ = std::fs::remove_file(&ctx.marker);
    h.get_by_label("Start a new chat").click();
    h.run_steps(2);
    let b = send(&mut h, "write the file");
    assert_ne!(b, a);
    until(&mut h, "the second chat's card", 90, &report, |h| {
        h.query_by_label("Deny").is_some()
    });
    h.get_by_label("Deny").click();
    until(&mut h, "the denied turn's end", 90, &report, |h| {
        !running(h, &b)
    });
    assert!(!ctx.marker.exists(), "Deny ran nothing{}", report());
    let denied_row = entries(&h, &b)
        .iter()
        .any(|e| matches!(e, Entry::Tool { error: true, .. }));
    assert!(
        denied_row,
        "the tool row says it was refused: {:?}",
        entries(&h, &b)
    );
    assert_eq!(
        row_marks(&h, &b),
        ["denied by you"],
        "{:?}",
        entries(&h, &b)
    );
    assert!(
        audit_of(&ctx, &b)
            .iter()
            .any(|l| l["decision"] == "deny" && l["by"] == "click"),
        "deny audited for chat {b}{}",
        report()
    );

    // 4. A policy deny: no card at all.
    std::fs::write(
        ctx.paths().policies_file(),
        format!(
            "[[policy]]\nname = \"{POLICY_NAME}\"\nagents = [\"claude\"]\nkind = \"shell\"\ntarget = \"echo vults-e2e *\"\naction = \"deny\"\n"
        ),
    )
    .expect("policies.toml");
    engine.lock().unwrap().send(EngineCommand::ReloadPolicies);
    h.get_by_label("Start a new chat").click();
    h.run_steps(2);
    let cards_before = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|e| matches!(e, EngineEvent::CardAdded(_)))
        .count();
    let c = send(&mut h, "write the file");
    until(&mut h, "the policy-denied turn's end", 90, &report, |h| {
        !running(h, &c) && !entries(h, &c).is_empty()
    });
    let cards_after = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|e| matches!(e, EngineEvent::CardAdded(_)))
        .count();
    assert_eq!(cards_before, cards_after, "a policy deny raises no card");
    assert_eq!(
        row_marks(&h, &c),
        [format!("denied by policy {POLICY_NAME}")],
        "a policy's deny reads apart from a click's: {:?}",
        entries(&h, &c)
    );
    assert!(!ctx.marker.exists(), "the policy denied it{}", report());
    assert!(
        audit_of(&ctx, &c)
            .iter()
            .any(|l| l["decision"] == "deny" && l["by"] == format!("policy:{POLICY_NAME}")),
        "policy deny audited for chat {c}{}",
        report()
    );
    std::fs::remove_file(ctx.paths().policies_file()).expect("remove policies.toml");
    engine.lock().unwrap().send(EngineCommand::ReloadPolicies);

    // 5. Stop while the CLI waits on a card: its whole process group ends, the card goes.
    h.get_by_label("Start a new chat").click();
    h.run_steps(2);
    let d = send(&mut h, "write the file");
    until(&mut h, "a card to stop at", 90, &report, |h| {
        h.query_by_label("Allow").is_some()
    });
    let pid = h.state().model.chats[&d]
        .pid
        .expect("the CLI's pid while it runs");
    #[cfg(not(unix))]
    let _ = pid;
    h.get_by_label("Stop").click();
    until(&mut h, "the stopped CLI to end", 30, &report, |h| {
        h.state().model.chats[&d].pid.is_none() && h.state().model.cards.is_empty()
    });
    #[cfg(unix)]
    {
        let start = Instant::now();
        while group_alive(pid) && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(
            !group_alive(pid),
            "no process of the stopped CLI's group is left"
        );
    }
    assert!(
        entries(&h, &d)
            .iter()
            .any(|e| matches!(e, Entry::Note { text } if text == "Stopped.")),
        "the chat says it stopped: {:?}",
        entries(&h, &d)
    );
    assert_eq!(
        row_marks(&h, &d),
        ["stopped"],
        "the row of the stopped call: {:?}",
        entries(&h, &d)
    );

    // 6. The chat's own hook events: counted as zeca, never a bird.
    let zeca_events = engine.lock().unwrap().stats().zeca;
    assert!(
        zeca_events >= 4,
        "the installed hook fired with zeca: true ({zeca_events} events){}",
        report()
    );
    let birds = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|e| matches!(e, EngineEvent::SessionChanged(_)))
        .count();
    assert_eq!(birds, 0, "the flock stayed empty while only the chat ran");

    // 7. A task from the chat: a bird with its VULTS_TASK, an ordinary card.
    let _ = std::fs::remove_file(&ctx.marker);
    h.get_by_label("Start a task…").click();
    h.run_steps(2);
    type_into(&mut h, "Task prompt", "write the file");
    h.get_by_label("Headless").click();
    h.run_steps(2);
    h.get_by_label("Start task (headless)").click();
    until(&mut h, "the task's card", 90, &report, |h| {
        !h.state().model.cards.is_empty()
    });
    let task_id = entries(&h, &d)
        .iter()
        .find_map(|e| match e {
            Entry::Task { id, .. } => Some(id.clone()),
            _ => None,
        })
        .expect("the chat shows the task");
    {
        let m = &h.state().model;
        let card = &m.cards[0];
        assert!(
            !card.session.session.starts_with("zeca:"),
            "the task's card is an ordinary card: {:?}",
            card.session
        );
        let bird = m.sessions.get(&card.session).expect("the task's bird");
        assert_eq!(
            bird.task.as_deref(),
            Some(task_id.as_str()),
            "its VULTS_TASK"
        );
    }
    // The flock shows the bird's link to the chat's task.
    h.state_mut().tab = Tab::Flock;
    h.run_steps(2);
    assert!(
        h.query_by_label(&format!("from Zeca · task {task_id}"))
            .is_some(),
        "the flock shows the bird took off from the task"
    );
    h.state_mut().tab = Tab::Chat;
    // A floating card's first frame only sizes it.
    h.run_steps(2);
    h.get_by_label("Allow").click();
    until(&mut h, "the task to end", 90, &report, |h| {
        entries(h, &d)
            .iter()
            .any(|e| matches!(e, Entry::Task { state, .. } if state.starts_with("ended")))
    });
    assert!(
        ctx.marker.exists(),
        "the task's Allow ran the command{}",
        report()
    );
    h.run_steps(2);
    assert!(
        h.query_by_label_contains(&format!("Task {task_id}"))
            .is_some(),
        "the chat shows the task"
    );

    // The first chat's CLI waits for its next turn; quitting the app ends it.
    let idle = h.state().model.chats[&a]
        .pid
        .expect("the first chat's CLI stays for the next turn");
    #[cfg(not(unix))]
    let _ = idle;
    Started { engine, zeca, h }.quit();
    #[cfg(unix)]
    {
        let start = Instant::now();
        while group_alive(idle) && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(
            !group_alive(idle),
            "nothing of the chat's CLIs is left after the app quits"
        );
    }

    // 8. After a restart the conversation is back, and its next turn resumes the CLI's session
    //    (`--resume`): the mock sees the turns from before the restart.
    let Started {
        engine,
        zeca,
        mut h,
    } = chat_window(
        &ctx,
        options2,
        Arc::new(Mutex::new(Vec::new())),
        "the engine starts again",
    );
    until(&mut h, "the saved conversations", 10, &report, |h| {
        h.state().model.chats.len() >= 4
    });
    let saved = h.state().model.chats[&a].clone();
    assert_eq!(saved.session_id, session, "the CLI's session id came back");
    assert!(!saved.running && saved.pid.is_none());
    let requests_before = std::fs::read_to_string(&ctx.mock.log)
        .unwrap_or_default()
        .lines()
        .count();
    zeca.lock().unwrap().send(ChatCommand::Send {
        chat: a.clone(),
        folder: String::new(),
        engine: "claude".into(),
        text: "after a restart".into(),
    });
    until(&mut h, "the resumed turn", 60, &report, |h| {
        let e = entries(h, &a);
        !running(h, &a) && e.len() > saved.entries.len() + 1
    });
    let log = std::fs::read_to_string(&ctx.mock.log).unwrap_or_default();
    assert!(
        log.lines()
            .skip(requests_before)
            .any(|l| l.contains("write the file")
                && l.contains("and now say it again")
                && l.contains("after a restart")),
        "the resumed turn's request carries the turns from before the restart{}",
        report()
    );

    // 9. Idle for `idle_after` (3 s here, 10 min by default): the CLI is ended, its whole
    //    process group gone; the next turn starts it again on the same session.
    let idle = h.state().model.chats[&a]
        .pid
        .expect("the resumed CLI waits for the next turn");
    if let Some(mib) = rss_mib(idle) {
        eprintln!("real-agents: zeca: an idle Claude Code holds {mib:.0} MiB (resident)");
    }
    until(&mut h, "the idle CLI to be ended", 30, &report, |h| {
        h.state().model.chats[&a].pid.is_none()
    });
    #[cfg(unix)]
    {
        let start = Instant::now();
        while group_alive(idle) && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(!group_alive(idle), "nothing of the idle CLI is left");
    }
    #[cfg(not(unix))]
    let _ = idle;
    let turns_before = entries(&h, &a).len();
    let requests_before = std::fs::read_to_string(&ctx.mock.log)
        .unwrap_or_default()
        .lines()
        .count();
    zeca.lock().unwrap().send(ChatCommand::Send {
        chat: a.clone(),
        folder: String::new(),
        engine: "claude".into(),
        text: "back from a rest".into(),
    });
    until(&mut h, "the turn after the rest", 60, &report, |h| {
        !running(h, &a) && entries(h, &a).len() > turns_before + 1
    });
    assert!(
        h.state().model.chats[&a].pid.is_some_and(|p| p != idle),
        "a new CLI process took the turn"
    );
    assert_eq!(
        h.state().model.chats[&a].session_id,
        session,
        "the same session"
    );
    let log = std::fs::read_to_string(&ctx.mock.log).unwrap_or_default();
    assert!(
        log.lines()
            .skip(requests_before)
            .any(|l| l.contains("write the file")
                && l.contains("after a restart")
                && l.contains("back from a rest")),
        "the turn after the rest carries every earlier turn{}",
        report()
    );
    assert!(
        !entries(&h, &a)
            .iter()
            .skip(turns_before)
            .any(|e| matches!(e, Entry::Note { .. })),
        "seamless: the chat says nothing about it: {:?}",
        entries(&h, &a)
    );
    Started { engine, zeca, h }.quit();
    ctx.work.keep = false;
    eprintln!(
        "real-agents: zeca passed in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
}

/// The same panel drives Codex CLI through its app server (`codex app-server`): the approval
/// request shows inline as a card of the chat; Allow runs the command, Deny does not; the text
/// streams in; the audit names the chat; an app server idle for `idle_after` is ended, and the
/// next turn opens the same thread again (`thread/resume`): the mock sees the earlier turn.
#[test]
fn zeca_drives_real_codex() {
    if !wanted("codex") {
        return;
    }
    let _serial = AGENT_SLOTS.take();
    let mut ctx = Ctx::named("codex", "zeca-codex");
    ctx.setup_agent();
    ctx.install_vults();
    let s = |p: &Path| p.display().to_string();
    let options = ZecaOptions {
        clis: [(
            vults_core::agents::Agent::Codex,
            here().join(".cache/codex/node_modules/.bin/codex"),
        )]
        .into(),
        env: vec![
            ("HOME".into(), s(&ctx.home)),
            ("CODEX_HOME".into(), s(&ctx.home.join(".codex"))),
            ("MOCK_API_KEY".into(), "sk-test".into()),
            ("NO_COLOR".into(), "1".into()),
            ("VULTS_HOME".into(), s(&ctx.vults_home)),
        ],
        env_remove: vec![
            "CI".into(),
            "GITHUB_ACTIONS".into(),
            "VULTS_SOCKET".into(),
            "VULTS_AGENT_HOME".into(),
        ],
        idle_after: Some(Duration::from_secs(3)),
    };
    let Started {
        engine,
        zeca,
        mut h,
    } = chat_window(
        &ctx,
        options,
        Arc::new(Mutex::new(Vec::new())),
        "the engine starts",
    );
    let work = ctx.work.dir.clone();
    let audit = ctx.paths().audit_log();
    let report = move || {
        format!(
            "\n---- audit ----\n{}\n---- work dir ----\n{}",
            std::fs::read_to_string(&audit).unwrap_or_default(),
            work.display()
        )
    };
    h.state_mut().tab = Tab::Chat;
    h.run_steps(2);
    type_into(&mut h, "Folder", &s(&ctx.project));
    h.get_by_label("Codex CLI").click();
    h.run_steps(2);

    let _ = std::fs::remove_file(&ctx.marker);
    let a = send(&mut h, "write the file");
    assert_eq!(h.state().model.chats[&a].engine, "codex");
    until(&mut h, "Codex's inline card", 90, &report, |h| {
        h.query_by_label("Allow").is_some()
    });
    {
        let card = &h.state().model.cards[0];
        assert_eq!(card.identity.key(), "codex");
        assert_eq!(card.session.session, format!("zeca:{a}"));
        let command = card.call.target.command().unwrap_or_default();
        assert!(
            command.contains(&ctx.command),
            "the whole command: {command}"
        );
    }
    h.get_by_label("Allow").click();
    until(&mut h, "Codex's text", 90, &report, |h| {
        !running(h, &a) && h.query_by_label("done").is_some()
    });
    assert!(ctx.marker.exists(), "Allow ran Codex's command{}", report());
    assert!(
        audit_of(&ctx, &a)
            .iter()
            .any(|l| l["decision"] == "allow" && l["by"] == "click" && l["identity"] == "codex"),
        "the audit names the chat{}",
        report()
    );

    let _ = std::fs::remove_file(&ctx.marker);
    h.get_by_label("Start a new chat").click();
    h.run_steps(2);
    let b = send(&mut h, "write the file");
    until(&mut h, "Codex's second card", 90, &report, |h| {
        h.query_by_label("Deny").is_some()
    });
    h.get_by_label("Deny").click();
    until(&mut h, "the denied turn's end", 90, &report, |h| {
        !running(h, &b)
    });
    assert!(!ctx.marker.exists(), "Deny ran nothing{}", report());
    assert!(
        audit_of(&ctx, &b)
            .iter()
            .any(|l| l["decision"] == "deny" && l["by"] == "click"),
        "deny audited for chat {b}{}",
        report()
    );
    assert_eq!(
        row_marks(&h, &b),
        ["denied by you"],
        "{:?}",
        entries(&h, &b)
    );

    // The first chat's app server sat idle meanwhile: it is ended, and the next turn opens the
    // same thread again.
    let thread = h.state().model.chats[&a].session_id.clone();
    until(
        &mut h,
        "the idle app server to be ended",
        30,
        &report,
        |h| h.state().model.chats[&a].pid.is_none(),
    );
    let turns_before = entries(&h, &a).len();
    let requests_before = std::fs::read_to_string(&ctx.mock.log)
        .unwrap_or_default()
        .lines()
        .count();
    zeca.lock().unwrap().send(ChatCommand::Send {
        chat: a.clone(),
        folder: String::new(),
        engine: "codex".into(),
        text: "back from a rest".into(),
    });
    until(&mut h, "Codex's turn after the rest", 90, &report, |h| {
        !running(h, &a) && entries(h, &a).len() > turns_before + 1
    });
    assert_eq!(
        h.state().model.chats[&a].session_id,
        thread,
        "the same thread"
    );
    let log = std::fs::read_to_string(&ctx.mock.log).unwrap_or_default();
    assert!(
        log.lines()
            .skip(requests_before)
            .any(|l| l.contains("write the file") && l.contains("back from a rest")),
        "the turn after the rest carries the earlier turn{}",
        report()
    );
    Started { engine, zeca, h }.quit();
    ctx.work.keep = false;
}
