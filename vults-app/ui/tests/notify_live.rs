//! Notifications as a person gets them: the whole window with the real engine on a real socket,
//! the real `vults-hook` playing Claude Code, and the real notifier (`DesktopAttention`) on a
//! private D-Bus session bus whose notification server is the stand-in that records every
//! `Notify` and `CloseNotification`, as `dbus-monitor` would list them.

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use serde_json::{Value, json};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant, SystemTime};
use vults_core::paths::Paths;
use vults_engine::Engine;
use vults_notify::test_support::{Call, NotificationServer, NotifyCall, SessionBus};
use vults_notify::{AttentionSettings, Bus};
use vults_ui::app::{Layout, Tab, VultsWindow};
use vults_ui::attention::{AttentionPlaces, DesktopAttention};
use vults_ui::desktop::NoDesktop;

/// A failure bound, not a measurement.
const GIVE_UP: Duration = Duration::from_secs(30);

struct Rig {
    harness: Harness<'static, VultsWindow>,
    // Dropped after the window (and its notifier): the server, then the bus.
    server: NotificationServer,
    _bus: SessionBus,
    home: PathBuf,
}

impl Drop for Rig {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.home);
    }
}

fn paths(home: &std::path::Path) -> Paths {
    let (h, socket) = (home.to_path_buf(), home.join("run").join("vults.sock"));
    Paths::resolve(move |k| match k {
        "VULTS_HOME" => Some(h.clone()),
        "VULTS_SOCKET" => Some(socket.clone()),
        _ => None,
    })
}

/// The window, the engine, the notifier on a private bus; `settings` written to
/// `settings.json` first (as the person left them).
fn rig(test: &str, settings: Option<AttentionSettings>) -> Option<Rig> {
    let bus = SessionBus::start(test)?;
    let server = NotificationServer::start(&bus.address, &["actions", "body", "sound"]);
    static N: AtomicU32 = AtomicU32::new(0);
    let home = std::env::temp_dir().join(format!(
        "vults-notify-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(home.join("project")).unwrap();
    std::fs::create_dir_all(home.join("home")).unwrap();
    let paths = paths(&home);
    if let Some(s) = settings {
        std::fs::create_dir_all(&paths.config_dir).unwrap();
        std::fs::write(paths.settings_file(), json!({ "attention": s }).to_string()).unwrap();
    }
    let engine = Engine::start(paths.clone(), std::sync::Arc::new(|| {})).expect("engine");
    let mut attention = DesktopAttention::start(
        &paths,
        AttentionPlaces {
            bus: Bus::Address(bus.address.clone()),
            keys: vults_notify::keys::KeysTarget::Auto,
            read_desktop_dnd: false,
        },
        std::sync::Arc::new(|| {}),
    );
    // The notifier reads the engine itself, as the app composes it.
    attention.follow(&engine.event_bus());
    let window = VultsWindow::new(
        Box::new(engine),
        Box::new(NoDesktop::default()),
        Layout::Embedded,
        Box::new(SystemTime::now),
    )
    .with_attention(Box::new(attention));
    let harness = crate::fixtures::window_harness(window);
    let mut rig = Rig {
        harness,
        server,
        _bus: bus,
        home,
    };
    // Connected: the server was asked what it can do.
    rig.until("the notifier asks the server", |r| {
        r.server
            .calls()
            .iter()
            .any(|c| matches!(c, Call::GetCapabilities))
    });
    Some(rig)
}

impl Rig {
    fn project(&self) -> String {
        self.home.join("project").display().to_string()
    }

    fn hook(&self, event: &str, payload: &Value) -> Child {
        self.hook_with(&["--agent", "claude", event], payload)
    }

    fn hook_with(&self, args: &[&str], payload: &Value) -> Child {
        let mut child = Command::new(vults_tests::built_hook_bin())
            .args(args)
            .env("VULTS_HOME", &self.home)
            .env("VULTS_SOCKET", self.home.join("run").join("vults.sock"))
            .env("HOME", self.home.join("home"))
            .current_dir(self.project())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the hook starts");
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(payload.to_string().as_bytes()).unwrap();
        drop(stdin);
        child
    }

    fn bash(&self, event: &str, session: &str, command: &str) -> Child {
        self.hook(
            event,
            &json!({
                "session_id": session,
                "cwd": self.project(),
                "hook_event_name": event,
                "tool_name": "Bash",
                "tool_input": {"command": command}
            }),
        )
    }

    /// Steps the window until `found` holds; fails after [`GIVE_UP`].
    fn until(&mut self, what: &str, found: impl Fn(&Rig) -> bool) {
        let deadline = Instant::now() + GIVE_UP;
        while !found(self) {
            assert!(
                Instant::now() < deadline,
                "gave up waiting for: {what}\ncalls: {:#?}",
                self.server.calls()
            );
            std::thread::sleep(Duration::from_millis(10));
            self.harness.step();
        }
        self.harness.step();
    }

    /// Steps the window for `d` (to let anything that would happen, happen).
    fn idle(&mut self, d: Duration) {
        let until = Instant::now() + d;
        while Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
            self.harness.step();
        }
    }

    fn notifies(&self) -> Vec<NotifyCall> {
        self.server.notifies()
    }

    /// Clicks `label` on a card, once the card's answers are armed (issue 38: a card's answers
    /// take effect half a second after it is up in its place, in the window's own time).
    fn click(&mut self, label: &str) {
        crate::fixtures::past_arming(&mut self.harness);
        self.harness.get_by_label(label).click_accesskit();
        self.harness.step();
        self.harness.step();
    }
}

fn printed(child: Child) -> String {
    let out = child.wait_with_output().expect("the hook exits");
    assert!(out.status.success(), "the hook always exits 0");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn claude_allow() -> Value {
    json!({"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}})
}

fn audit_by(home: &std::path::Path, target: &str) -> Vec<String> {
    let text = std::fs::read_to_string(paths(home).audit_log()).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["target"] == target)
        .map(|v| {
            format!(
                "{} by {}",
                v["decision"].as_str().unwrap_or(""),
                v["by"].as_str().unwrap_or("")
            )
        })
        .collect()
}

#[test]
fn a_card_raises_one_notification_naming_agent_folder_and_target_and_a_click_withdraws_it() {
    let Some(mut r) = rig("notify_card_click", None) else {
        return;
    };
    let hook = r.bash("PermissionRequest", "s-click", "cargo test --workspace");
    r.until("the card", |r| {
        r.harness.query_by_label("cargo test --workspace").is_some()
    });
    r.until("its notification", |r| !r.notifies().is_empty());
    // A few more frames and a moment: the same card is not notified twice.
    r.idle(Duration::from_millis(500));
    let notifies = r.notifies();
    assert_eq!(notifies.len(), 1, "exactly one Notify: {notifies:#?}");
    let n = &notifies[0];
    assert_eq!(n.app_name, "Vults");
    assert_eq!(n.summary, "Claude Code asks: Bash");
    assert_eq!(
        n.body,
        format!("cargo test --workspace\nin {}", r.project())
    );
    // The default action (a click on the notification) and the buttons: Show once, so a server
    // that draws every action draws one Show button.
    assert_eq!(n.action_keys()[0], "default");
    assert_eq!(n.action_labels(), ["Show", "Allow", "Deny"]);
    assert_eq!(
        n.expire_timeout, 0,
        "a card's notification stays until answered"
    );
    assert!(r.server.closes().is_empty());
    r.click("Allow");
    assert_eq!(
        serde_json::from_str::<Value>(&printed(hook)).unwrap(),
        claude_allow()
    );
    let id = n.id;
    r.until("the notification withdrawn", |r| {
        r.server.closes().contains(&id)
    });
    assert_eq!(r.notifies().len(), 1, "withdrawn, not replaced");
}

#[test]
fn a_notifications_allow_answers_the_card_and_history_says_so() {
    let Some(mut r) = rig("notify_action_allow", None) else {
        return;
    };
    let hook = r.bash("PermissionRequest", "s-action", "ls -la src");
    r.until("its notification", |r| !r.notifies().is_empty());
    let n = r.notifies().remove(0);
    let key = n.key_of("Allow").expect("an Allow button").to_string();
    r.server.invoke(n.id, &key);
    r.until("the card answered", |r| {
        r.harness.query_by_label("ls -la src").is_none()
    });
    assert_eq!(
        serde_json::from_str::<Value>(&printed(hook)).unwrap(),
        claude_allow()
    );
    r.until("the notification withdrawn", |r| {
        r.server.closes().contains(&n.id)
    });
    let home = r.home.clone();
    r.until("the audit line", |_| {
        !audit_by(&home, "ls -la src").is_empty()
    });
    assert_eq!(audit_by(&home, "ls -la src"), ["allow by notification"]);
    // A key it was not sent with answers nothing (and a destructive card offers no Allow).
    let rm = r.bash("PermissionRequest", "s-action", "rm -rf build");
    r.until("the destructive card's notification", |r| {
        r.notifies().len() >= 2
    });
    let d = r.notifies().pop().unwrap();
    assert_eq!(d.action_labels(), ["Show"], "{d:#?}");
    r.server.invoke(d.id, &key);
    r.idle(Duration::from_millis(500));
    assert!(
        r.harness.query_by_label("rm -rf build").is_some(),
        "still waits"
    );
    r.click("Deny");
    let _ = printed(rm);
}

#[test]
fn a_second_request_a_rule_answers_withdraws_the_first_cards_notification() {
    let Some(mut r) = rig("notify_rule_next", None) else {
        return;
    };
    // An Always rule for `npm run lint`, made on a card of another session.
    let first = r.bash("PermissionRequest", "s-rule-a", "npm run lint");
    r.until("the lint card", |r| {
        r.harness.query_by_label("npm run lint").is_some()
    });
    r.click("Always allow");
    let _ = printed(first);
    let before = r.notifies().len();
    // The session asks for a build: a card and its notification.
    let build = r.bash("PermissionRequest", "s-rule-b", "cargo build");
    r.until("the build's notification", |r| {
        r.notifies()
            .iter()
            .any(|n| n.body.starts_with("cargo build\n"))
    });
    let n = r
        .notifies()
        .into_iter()
        .find(|n| n.body.starts_with("cargo build\n"))
        .unwrap();
    assert_eq!(r.notifies().len(), before + 1);
    // The agent moved on (answered in its terminal): its next request, which the rule answers.
    r.idle(Duration::from_millis(1700));
    let lint = r.bash("PermissionRequest", "s-rule-b", "npm run lint");
    assert_eq!(
        serde_json::from_str::<Value>(&printed(lint)).unwrap(),
        claude_allow(),
        "the rule answered the second request"
    );
    r.until("the build's notification withdrawn", |r| {
        r.server.closes().contains(&n.id)
    });
    assert_eq!(
        printed(build),
        "",
        "the withdrawn card's hook prints nothing"
    );
    assert!(r.harness.query_by_label("cargo build").is_none());
    assert_eq!(
        r.notifies().len(),
        before + 1,
        "nothing raised for the rule's answer"
    );
}

#[test]
fn a_call_that_ran_in_the_terminal_withdraws_its_notification() {
    let Some(mut r) = rig("notify_terminal", None) else {
        return;
    };
    let hook = r.bash("PermissionRequest", "s-term", "make release");
    r.until("its notification", |r| !r.notifies().is_empty());
    let n = r.notifies().remove(0);
    // The person allowed it in Claude Code's own dialog: the call ran.
    let ran = r.bash("PostToolUse", "s-term", "make release");
    let _ = printed(ran);
    r.until("the notification withdrawn", |r| {
        r.server.closes().contains(&n.id)
    });
    assert_eq!(printed(hook), "");
    assert_eq!(audit_by(&r.home, "make release"), ["allow by terminal"]);
    assert_eq!(r.notifies().len(), 1);
}

#[test]
fn with_quiet_hours_on_no_notification_is_sent_and_the_card_still_works() {
    let mut settings = AttentionSettings::default();
    // From 00:00 to 00:00 every day: the whole day is quiet.
    settings.quiet.schedule.enabled = true;
    settings.quiet.schedule.from = "00:00".parse().unwrap();
    settings.quiet.schedule.to = "00:00".parse().unwrap();
    let Some(mut r) = rig("notify_quiet", Some(settings)) else {
        return;
    };
    r.harness.state_mut().tab = Tab::Notifications;
    r.until("Settings says it is quiet", |r| {
        r.harness
            .query_by_label_contains("Quiet now: quiet hours until")
            .is_some()
    });
    let hook = r.bash("PermissionRequest", "s-quiet", "git status");
    r.until("the card", |r| {
        r.harness.query_by_label("git status").is_some()
    });
    r.idle(Duration::from_millis(800));
    assert!(r.notifies().is_empty(), "quiet: {:#?}", r.notifies());
    // The quiet hours switched off in Settings: what still waits is raised (silently).
    r.click("Quiet hours from");
    r.until("the card's notification after quiet", |r| {
        !r.notifies().is_empty()
    });
    let n = r.notifies().remove(0);
    assert!(n.body.starts_with("git status\n"), "{n:#?}");
    // Switched back on: the card still works as ever.
    r.click("Quiet hours from");
    r.click("Allow");
    assert_eq!(
        serde_json::from_str::<Value>(&printed(hook)).unwrap(),
        claude_allow()
    );
    // Saved where the person's settings live (written on a thread of its own).
    let file = paths(&r.home).settings_file();
    let saved = move || -> Value {
        serde_json::from_slice(&std::fs::read(&file).unwrap_or_default()).unwrap_or_default()
    };
    r.until("the settings saved", |_| {
        saved()["attention"]["quiet"]["schedule"]["enabled"] == true
    });
    assert_eq!(saved()["attention"]["quiet"]["schedule"]["from"], "00:00");
}

#[test]
fn a_finished_turn_is_notified_once_and_withdrawn_when_the_person_prompts_again() {
    let Some(mut r) = rig("notify_turn_done", None) else {
        return;
    };
    let event = |r: &Rig, name: &str| {
        let hook = r.hook(
            name,
            &json!({"session_id": "s-turn", "cwd": r.project(), "hook_event_name": name}),
        );
        let _ = printed(hook);
    };
    event(&r, "UserPromptSubmit");
    r.idle(Duration::from_millis(300));
    assert!(
        r.notifies().is_empty(),
        "a working session waits on nothing"
    );
    event(&r, "Stop");
    r.until("the finished turn's notification", |r| {
        !r.notifies().is_empty()
    });
    r.idle(Duration::from_millis(300));
    let n = r.notifies();
    assert_eq!(n.len(), 1, "{n:#?}");
    assert_eq!(n[0].summary, "Claude Code is done — waiting for you");
    assert_eq!(n[0].body, format!("in {}", r.project()));
    assert_ne!(
        n[0].expire_timeout, 0,
        "a finished turn's notification expires"
    );
    event(&r, "UserPromptSubmit");
    let id = n[0].id;
    r.until("withdrawn on the next prompt", |r| {
        r.server.closes().contains(&id)
    });
}

#[test]
fn a_question_is_notified_with_only_show_and_withdrawn_when_answered() {
    let Some(mut r) = rig("notify_question", None) else {
        return;
    };
    let payload = json!({
        "session_id": "s-ask",
        "cwd": r.project(),
        "hook_event_name": "PreToolUse",
        "tool_name": "AskUserQuestion",
        "tool_input": {"questions": [{"question": "Which database should the cache use?",
            "header": "Storage", "multiSelect": false,
            "options": [{"label": "SQLite", "description": "One file"},
                        {"label": "Postgres", "description": "Shared"}]}]}
    });
    let hook = r.hook_with(&["--agent", "claude", "--ask", "PreToolUse"], &payload);
    r.until("the question's notification", |r| !r.notifies().is_empty());
    let n = r.notifies().remove(0);
    assert_eq!(n.summary, "Claude Code asks you a question");
    assert_eq!(
        n.body,
        format!("Which database should the cache use?\nin {}", r.project())
    );
    assert_eq!(
        n.action_labels(),
        ["Show"],
        "a question is answered on its card"
    );
    r.until("the card", |r| r.harness.query_by_label("SQLite").is_some());
    r.click("SQLite");
    r.click("Answer");
    let _ = printed(hook);
    r.until("withdrawn", |r| r.server.closes().contains(&n.id));
}

/// A file change, a plan and an agent asking in its own terminal are notified in the words
/// their card (or the agent) uses: the file and its `+N −M`, the plan's first heading, what the
/// agent said — never the raw tool input — each with one Show.
#[test]
fn a_file_change_a_plan_and_a_terminal_ask_say_what_they_are() {
    let Some(mut r) = rig("notify_words", None) else {
        return;
    };
    let file = r.home.join("project").join("notes.txt");
    std::fs::write(&file, "alpha\nbeta\ngamma\n").unwrap();
    let path = file.display().to_string();
    let edit = r.hook(
        "PermissionRequest",
        &json!({
            "session_id": "s-edit",
            "cwd": r.project(),
            "hook_event_name": "PermissionRequest",
            "tool_name": "MultiEdit",
            "tool_input": {"file_path": path, "edits": [
                {"old_string": "beta", "new_string": "BETA"},
                {"old_string": "gamma", "new_string": "gamma\ndelta"}
            ]}
        }),
    );
    r.until("the edit's notification", |r| !r.notifies().is_empty());
    let n = r.notifies().remove(0);
    assert_eq!(n.summary, "Claude Code asks: MultiEdit");
    assert_eq!(
        n.body,
        format!(
            "{path} · +2 −1\nin {}\nAnswer it on its card, where its diff is.",
            r.project()
        )
    );
    assert_eq!(n.action_labels(), ["Show"]);
    r.click("Deny");
    let _ = printed(edit);

    let plan = r.hook(
        "PermissionRequest",
        &json!({
            "session_id": "s-plan",
            "cwd": r.project(),
            "hook_event_name": "PermissionRequest",
            "tool_name": "ExitPlanMode",
            "tool_input": {"plan": "# Plan: list the project\n\nCheck the files, then stop."}
        }),
    );
    r.until("the plan's notification", |r| {
        r.notifies().iter().any(|n| n.summary.contains("plan"))
    });
    let n = r.notifies().pop().unwrap();
    assert_eq!(n.summary, "Claude Code asks you to approve its plan");
    assert_eq!(
        n.body,
        format!("Plan: list the project\nin {}", r.project())
    );
    assert_eq!(n.action_labels(), ["Show"]);
    r.click("Keep planning");
    let _ = printed(plan);

    let asks = r.hook(
        "Notification",
        &json!({
            "session_id": "s-asks",
            "cwd": r.project(),
            "hook_event_name": "Notification",
            "message": "Claude needs your permission to use Bash",
            "notification_type": "permission_prompt"
        }),
    );
    let _ = printed(asks);
    r.until("the terminal ask's notification", |r| {
        r.notifies()
            .iter()
            .any(|n| n.summary == "Claude Code asks in its terminal")
    });
    let n = r.notifies().pop().unwrap();
    assert_eq!(
        n.body,
        format!(
            "Claude needs your permission to use Bash\nin {}",
            r.project()
        )
    );
    assert_eq!(n.action_labels(), ["Show", "Show terminal"]);
}
