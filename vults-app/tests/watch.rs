//! The running app (`--headless`, a real process) keeps Vults' hook in Claude Code's settings,
//! and warns before a usage limit bites: each warning is one console line and one desktop
//! notification, sent to a notification-server stand-in on a private session bus.
//! Skipped (saying so) without `dbus-daemon`, unless `VULTS_DESKTOP_TESTS=1`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;
use vults_notify::test_support::{Call, NotificationServer, SessionBus};
use vults_tests::{Stdin, TempHome};

/// Claude Code's settings as it writes them, with the person's own compact `permissions`.
const CLAUDE: &str = r#"{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {"allow": ["Bash(cargo test:*)"], "deny": ["Read(./.env)"]},
  "env": {
    "BASH_DEFAULT_TIMEOUT_MS": "120000"
  },
  "model": "opus"
}
"#;

struct App {
    child: Child,
    stderr: PathBuf,
    server: NotificationServer,
    _bus: SessionBus,
    home: TempHome,
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl App {
    /// Installs Vults into Claude Code (with `settings` as Vults' own settings.json), then
    /// starts `vults-app --headless` with the stand-in's bus as its session bus.
    fn start(test: &str, settings: Option<serde_json::Value>) -> Option<App> {
        let bus = SessionBus::start(test)?;
        let server = NotificationServer::start(&bus.address, &["actions", "body"]);
        let home = TempHome::new(test);
        let file = home.home().join(".claude/settings.json");
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(&file, CLAUDE).unwrap();
        if let Some(s) = settings {
            fs::create_dir_all(home.config_dir()).unwrap();
            fs::write(home.config_dir().join("settings.json"), s.to_string()).unwrap();
        }
        let hook = vults_tests::built_hook_bin();
        let out = home
            .command(super::support::app_bin())
            .args(["install", "--hook"])
            .arg(hook)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        assert!(has_vults(&file));
        let stderr = home.dir.join("stderr.txt");
        let child = home
            .command(super::support::app_bin())
            .arg("--headless")
            .env("DBUS_SESSION_BUS_ADDRESS", &bus.address)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        let app = App {
            child,
            stderr,
            server,
            _bus: bus,
            home,
        };
        vults_tests::eventually("the app watching Claude Code's settings", || {
            super::support::log_text(&app.home.dir).contains("watching the hooks of Claude Code")
        });
        Some(app)
    }

    fn file(&self) -> PathBuf {
        self.home.home().join(".claude/settings.json")
    }

    /// The console's `vults: …` lines that contain `what`.
    fn said(&self, what: &str) -> usize {
        fs::read_to_string(&self.stderr)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("vults: ") && l.contains(what))
            .count()
    }

    /// Claude Code's status line, through the real hook.
    fn status_line(&self, used: f64, resets_at: u64) {
        let payload = serde_json::json!({
            "session_id": "limits",
            "cwd": self.home.project(),
            "rate_limits": {"five_hour": {"used_percentage": used, "resets_at": resets_at}}
        });
        let run = vults_tests::run_hook(
            vults_tests::built_hook_bin(),
            &["--agent", "claude", "--statusline"],
            Stdin::Bytes(payload.to_string().as_bytes()),
            &self.home.env(),
            Duration::from_secs(20),
        );
        assert_eq!(run.code, Some(0), "{}", run.stderr);
    }
}

fn notifies(calls: &[Call]) -> usize {
    calls
        .iter()
        .filter(|c| matches!(c, Call::Notify(_)))
        .count()
}

fn has_vults(file: &Path) -> bool {
    fs::read_to_string(file).unwrap().contains("vults-hook")
}

/// Each top-level member's text (two spaces deep), but Vults' own `hooks` and `statusLine`.
fn others(bytes: &[u8]) -> BTreeMap<String, String> {
    let text = String::from_utf8_lossy(bytes);
    let mut out = BTreeMap::new();
    let mut key: Option<String> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("  \"") {
            key = rest.split('"').next().map(str::to_string);
        }
        if let Some(k) = &key
            && line != "}"
        {
            out.entry(k.clone())
                .or_insert_with(String::new)
                .push_str(line.trim_end_matches(','));
        }
    }
    out.remove("hooks");
    out.remove("statusLine");
    out
}

/// Another program's file: Claude Code's settings without Vults, and its `model` changed.
fn theirs() -> Vec<u8> {
    CLAUDE.replace("\"opus\"", "\"sonnet\"").into_bytes()
}

#[test]
fn a_settings_file_renamed_over_without_vults_gets_its_entry_back() {
    let Some(app) = App::start("watch-rename", None) else {
        return;
    };
    let file = app.file();
    let tmp = file.with_file_name("settings.json.tmp-other");
    fs::write(&tmp, theirs()).unwrap();
    fs::rename(&tmp, &file).unwrap();
    vults_tests::eventually("the entry back", || has_vults(&file));
    assert_eq!(others(&fs::read(&file).unwrap()), others(&theirs()));
    assert!(others(&theirs()).contains_key("permissions"));
    vults_tests::eventually("one notification", || app.server.notifies().len() == 1);
    let n = &app.server.notifies()[0];
    assert_eq!(
        n.summary,
        "Vults' hook was removed from Claude Code's settings"
    );
    assert!(n.body.contains("Vults put it back"), "{}", n.body);
    vults_tests::eventually("one console line", || {
        app.said("removed by another program") == 1
    });
    // Nothing more comes of Vults' own write.
    assert!(
        !app.server
            .wait_for(Duration::from_millis(800), |c| notifies(c) > 1)
    );
    assert_eq!(app.said("Vults' hook"), 1);
}

#[test]
fn an_edit_in_place_is_put_back_and_a_second_removal_is_not_fought() {
    let Some(app) = App::start("watch-inplace", None) else {
        return;
    };
    let file = app.file();
    fs::write(&file, theirs()).unwrap();
    vults_tests::eventually("the entry back", || has_vults(&file));
    assert_eq!(others(&fs::read(&file).unwrap()), others(&theirs()));
    vults_tests::eventually("one notification", || app.server.notifies().len() == 1);
    assert_eq!(app.said("removed by another program"), 1);
    // Removed again at once: said, not put back.
    fs::write(&file, theirs()).unwrap();
    vults_tests::eventually("the second notice", || {
        app.said("another program keeps removing") == 1
    });
    vults_tests::eventually("its notification", || app.server.notifies().len() == 2);
    let n = &app.server.notifies()[1];
    assert_eq!(
        n.summary,
        "Another program keeps removing Vults' hook from Claude Code"
    );
    assert!(n.body.contains(&file.display().to_string()), "{}", n.body);
    assert!(
        !app.server
            .wait_for(Duration::from_millis(800), |c| notifies(c) > 2)
    );
    assert_eq!(
        fs::read(&file).unwrap(),
        theirs(),
        "no write after it stopped"
    );
}

#[test]
fn with_restoring_off_it_only_reports() {
    let settings = serde_json::json!({"hooks": {"keep_in_place": false}});
    let Some(app) = App::start("watch-report", Some(settings)) else {
        return;
    };
    let file = app.file();
    fs::write(&file, theirs()).unwrap();
    vults_tests::eventually("the notice", || app.said("removed by another program") == 1);
    vults_tests::eventually("one notification", || app.server.notifies().len() == 1);
    assert!(
        app.server.notifies()[0]
            .body
            .contains("Keeping it in place is off")
    );
    assert_eq!(
        fs::read(&file).unwrap(),
        theirs(),
        "left as the other program wrote it"
    );
}

#[test]
fn the_5_hour_window_warns_at_80_and_95_once_each_until_it_resets() {
    let Some(app) = App::start("watch-limits", None) else {
        return;
    };
    let resets = 4_102_444_800; // 2100-01-01
    app.status_line(79.0, resets);
    app.status_line(81.0, resets);
    vults_tests::eventually("the 80 % warning", || app.server.notifies().len() == 1);
    app.status_line(96.0, resets);
    vults_tests::eventually("the 95 % warning", || app.server.notifies().len() == 2);
    let n = app.server.notifies();
    assert_eq!(n[0].summary, "Claude Code: 81 % of the 5-hour limit used");
    assert_eq!(n[1].summary, "Claude Code: 96 % of the 5-hour limit used");
    assert!(n[1].body.starts_with("Resets "), "{}", n[1].body);
    assert_eq!(
        n[1].replaces_id, n[0].id,
        "one notification per window, replaced"
    );
    assert_eq!(app.said("of the 5-hour limit used"), 2);
    // More readings in the same window: nothing. A new window: nothing until it crosses again.
    app.status_line(97.0, resets);
    app.status_line(10.0, resets + 18_000);
    app.status_line(50.0, resets + 18_000);
    assert!(
        !app.server
            .wait_for(Duration::from_millis(800), |c| notifies(c) > 2)
    );
    app.status_line(82.0, resets + 18_000);
    vults_tests::eventually("the next crossing", || app.server.notifies().len() == 3);
    assert_eq!(app.said("of the 5-hour limit used"), 3);
}

#[test]
fn quiet_holds_the_limit_warnings() {
    let settings = serde_json::json!({"attention": {"quiet": {"on": true}}});
    let Some(app) = App::start("watch-quiet", Some(settings)) else {
        return;
    };
    let resets = 4_102_444_800;
    for used in [79.0, 81.0, 96.0] {
        app.status_line(used, resets);
    }
    // The warnings are worked out (the log says them) but no notification is raised.
    vults_tests::eventually("both warnings logged", || {
        app.said("of the 5-hour limit used") == 2
    });
    assert!(
        !app.server
            .wait_for(Duration::from_secs(1), |c| notifies(c) > 0)
    );
    assert!(app.server.notifies().is_empty());
}

/// `--headless` speaks the language settings.json chooses (Settings → General's "language"):
/// the limit warning's and the hook warning's notifications are in Brazilian Portuguese; their
/// console lines stay English.
#[test]
fn the_headless_app_warns_in_the_language_settings_choose() {
    let settings = serde_json::json!({"language": "pt-BR"});
    let Some(app) = App::start("watch-pt-br", Some(settings)) else {
        return;
    };
    app.status_line(81.0, 4_102_444_800);
    vults_tests::eventually("the 80 % warning", || app.server.notifies().len() == 1);
    let n = app.server.notifies();
    assert_eq!(n[0].summary, "Claude Code: 81 % do limite de 5 horas usado");
    assert!(n[0].body.starts_with("Renova "), "{}", n[0].body);
    assert_eq!(
        app.said("of the 5-hour limit used"),
        1,
        "the console in English"
    );
    // Vults' hook removed by another program: the warning in Portuguese too.
    let file = app.file();
    let tmp = file.with_file_name("settings.json.tmp-other");
    fs::write(&tmp, theirs()).unwrap();
    fs::rename(&tmp, &file).unwrap();
    vults_tests::eventually("the hook's warning", || app.server.notifies().len() == 2);
    let n = &app.server.notifies()[1];
    assert_eq!(
        n.summary,
        "O hook do Vults foi removido das configurações do Claude Code"
    );
    assert!(n.body.contains("O Vults o colocou de volta"), "{}", n.body);
    vults_tests::eventually("its console line, in English", || {
        app.said("removed by another program") == 1
    });
}
