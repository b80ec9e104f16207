//! The watcher keeps Vults' hook in place: another program's removal is put back (every other
//! key byte for byte), a program that keeps removing it is not fought, restoring off only
//! reports, a file that does not parse is never written, and a new agent is offered.

use crate::common::TempHome;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};
use vults_installer::watch::{self, Keeper, WatchEvent, WatchSettings};
use vults_installer::{Agent, AgentState, InstallOptions};

/// Claude Code's settings as it writes them (two spaces), with the person's own compact
/// `permissions` and another tool's hook.
const CLAUDE: &str = r#"{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {"allow": ["Bash(cargo test:*)"], "deny": ["Read(./.env)"]},
  "env": {
    "BASH_DEFAULT_TIMEOUT_MS": "120000"
  },
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "npx prettier --write"
          }
        ]
      }
    ]
  },
  "model": "opus"
}
"#;

fn installed(name: &str) -> (TempHome, PathBuf) {
    let home = TempHome::new(name);
    let file = home.home().join(".claude/settings.json");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(&file, CLAUDE).unwrap();
    let paths = home.paths();
    let r =
        vults_installer::install_all(&paths, &home.hook_source("1"), &InstallOptions::default());
    assert!(
        r.iter()
            .any(|r| r.agent == Agent::Claude && r.state == AgentState::Installed)
    );
    (home, file)
}

/// Each top-level member's text, as a file written two spaces deep has it.
fn members(bytes: &[u8]) -> BTreeMap<String, String> {
    let text = String::from_utf8_lossy(bytes);
    let mut out = BTreeMap::new();
    let mut key = None;
    let mut body = String::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("  \"") {
            if let Some(k) = key.take() {
                out.insert(k, body.trim_end().trim_end_matches(',').to_string());
            }
            key = rest.split('"').next().map(str::to_string);
            body.clear();
        }
        if key.is_some() && line != "}" {
            body.push_str(line);
            body.push('\n');
        }
    }
    if let Some(k) = key {
        out.insert(k, body.trim_end().trim_end_matches(',').to_string());
    }
    out
}

fn others(bytes: &[u8]) -> BTreeMap<String, String> {
    let mut m = members(bytes);
    m.remove("hooks");
    m.remove("statusLine");
    m
}

/// What another program writes: the file without Vults' entries, as Claude Code spells it
/// (the person's own status line gone too), and one key of its own changed.
fn without_vults(file: &Path) -> Vec<u8> {
    let mut text = CLAUDE.replace("\"model\": \"opus\"", "\"model\": \"sonnet\"");
    if !file.exists() {
        text.clear();
    }
    text.into_bytes()
}

/// Another program replacing the file: a new file renamed over the old one.
fn rename_over(file: &Path, bytes: &[u8]) {
    let tmp = file.with_file_name("settings.json.other-tmp");
    fs::write(&tmp, bytes).unwrap();
    fs::rename(&tmp, file).unwrap();
}

fn has_vults(file: &Path) -> bool {
    fs::read_to_string(file).unwrap().contains("vults-hook")
}

#[test]
fn a_removed_entry_is_put_back_and_every_other_key_keeps_its_bytes() {
    let (home, file) = installed("watch-restore");
    let paths = home.paths();
    let mut k = Keeper::new(&paths);
    assert_eq!(k.watched(), vec![Agent::Claude]);
    let t0 = Instant::now();
    assert_eq!(
        k.check(t0, SystemTime::now()),
        vec![],
        "nothing changed yet"
    );

    let theirs = without_vults(&file);
    rename_over(&file, &theirs);
    assert!(!has_vults(&file));
    let events = k.check(t0, SystemTime::now());
    assert!(
        matches!(
            &events[..],
            [WatchEvent::Removed {
                agent: Agent::Claude,
                restored: true,
                changed: false,
                ..
            }]
        ),
        "{events:?}"
    );
    assert!(has_vults(&file), "the entry is back");
    let now = fs::read(&file).unwrap();
    assert_eq!(
        others(&now),
        others(&theirs),
        "every other key byte for byte"
    );
    assert!(String::from_utf8_lossy(&now).contains("npx prettier --write"));
    assert_eq!(k.writes(), 1);
    // Vults' own write is not another program's: the next look finds it in place.
    assert_eq!(
        k.check(t0 + Duration::from_secs(1), SystemTime::now()),
        vec![]
    );
    // Well after the fight window, a removal is put back again.
    rename_over(&file, &theirs);
    let later = t0 + watch::FIGHT_WINDOW + Duration::from_secs(1);
    let events = k.check(later, SystemTime::now());
    assert!(
        matches!(&events[..], [WatchEvent::Removed { restored: true, .. }]),
        "{events:?}"
    );
    assert_eq!(k.writes(), 2);
    let text = events[0].text();
    assert!(text.contains("removed by another program at"), "{text}");
    // The file as the agent's settings path names it (on Windows with `\`, where the test's
    // joined path may hold a `/`).
    let slashes = |s: &str| s.replace('\\', "/");
    assert!(
        slashes(&text).contains(&slashes(&file.display().to_string())),
        "{text}"
    );
}

#[test]
fn a_program_that_keeps_removing_it_is_not_fought() {
    let (home, file) = installed("watch-fight");
    let paths = home.paths();
    let mut k = Keeper::new(&paths);
    let t0 = Instant::now();
    let theirs = without_vults(&file);
    rename_over(&file, &theirs);
    let first = k.check(t0, SystemTime::now());
    assert!(matches!(
        &first[..],
        [WatchEvent::Removed { restored: true, .. }]
    ));
    // Removed again 10 s later: Vults stops and says so, naming the file.
    rename_over(&file, &theirs);
    let second = k.check(t0 + Duration::from_secs(10), SystemTime::now());
    let [WatchEvent::KeepsRemoving { file: named, .. }] = &second[..] else {
        panic!("{second:?}");
    };
    assert_eq!(named, &file);
    assert!(second[0].text().contains("another program keeps removing"));
    assert!(!has_vults(&file));
    // And stays stopped: no more writes, nothing said again.
    for i in 0..5 {
        rename_over(&file, &theirs);
        assert_eq!(
            k.check(t0 + Duration::from_secs(20 + i), SystemTime::now()),
            vec![]
        );
    }
    assert_eq!(k.writes(), 1, "one restore, no loop");
    assert_eq!(
        fs::read(&file).unwrap(),
        theirs,
        "their file is left as they wrote it"
    );
    // A Repair puts it back: from then on a removal is restored again.
    vults_installer::install_all(&paths, &paths.installed_hook(), &InstallOptions::default());
    assert_eq!(
        k.check(t0 + Duration::from_secs(200), SystemTime::now()),
        vec![]
    );
    rename_over(&file, &theirs);
    let again = k.check(t0 + Duration::from_secs(300), SystemTime::now());
    assert!(
        matches!(&again[..], [WatchEvent::Removed { restored: true, .. }]),
        "{again:?}"
    );
}

#[test]
fn with_restoring_off_it_only_reports_once() {
    let (home, file) = installed("watch-off");
    let paths = home.paths();
    WatchSettings {
        keep_in_place: false,
        install_new_agents: false,
    }
    .save(&paths)
    .unwrap();
    assert!(!WatchSettings::load(&paths).keep_in_place);
    let mut k = Keeper::new(&paths);
    let theirs = without_vults(&file);
    // Edited in place this time.
    fs::write(&file, &theirs).unwrap();
    let t0 = Instant::now();
    let events = k.check(t0, SystemTime::now());
    assert!(
        matches!(
            &events[..],
            [WatchEvent::Removed {
                restored: false,
                ..
            }]
        ),
        "{events:?}"
    );
    assert!(
        events[0]
            .state_line()
            .unwrap()
            .to_string()
            .starts_with("removed by another program at ")
    );
    assert_eq!(k.check(t0, SystemTime::now()), vec![], "said once");
    assert_eq!(fs::read(&file).unwrap(), theirs);
    assert_eq!(k.writes(), 0);
}

#[test]
fn a_changed_entry_is_said_changed_and_an_unparsable_file_is_never_written() {
    let (home, file) = installed("watch-unparsable");
    let paths = home.paths();
    let mut k = Keeper::new(&paths);
    let t0 = Instant::now();
    let text = fs::read_to_string(&file).unwrap();
    // Another program changes Vults' entry (its timeout).
    fs::write(&file, text.replacen("\"timeout\": ", "\"timeout\": 1", 1)).unwrap();
    let events = k.check(t0, SystemTime::now());
    assert!(
        matches!(
            &events[..],
            [WatchEvent::Removed {
                changed: true,
                restored: true,
                ..
            }]
        ),
        "{events:?}"
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), text);
    let broken = b"{\n  \"model\": \"opus\",\n".to_vec();
    fs::write(&file, &broken).unwrap();
    let events = k.check(t0 + watch::FIGHT_WINDOW * 2, SystemTime::now());
    assert!(
        matches!(&events[..], [WatchEvent::Unparsable { .. }]),
        "{events:?}"
    );
    assert_eq!(
        k.check(t0 + watch::FIGHT_WINDOW * 2, SystemTime::now()),
        vec![]
    );
    assert_eq!(fs::read(&file).unwrap(), broken, "never written");
}

#[test]
fn a_new_agent_folder_is_offered_and_installed_when_chosen() {
    let (home, _file) = installed("watch-new");
    let paths = home.paths();
    let mut k = Keeper::new(&paths);
    let t0 = Instant::now();
    let qwen = home.home().join(".qwen");
    fs::create_dir_all(&qwen).unwrap();
    let events = k.check(t0, SystemTime::now());
    assert_eq!(
        events,
        vec![WatchEvent::NewAgent {
            agent: Agent::Qwen,
            installed: false
        }]
    );
    assert!(events[0].text().contains("Qwen Code appeared"));
    assert_eq!(k.check(t0, SystemTime::now()), vec![], "offered once");
    assert!(
        !qwen.join("settings.json").exists(),
        "offered, not installed"
    );
    // Chosen: installed, and watched from then on.
    let r = k.install(Agent::Qwen).unwrap();
    assert_eq!(r.state, AgentState::Installed);
    assert!(
        fs::read_to_string(qwen.join("settings.json"))
            .unwrap()
            .contains("vults-hook")
    );
    assert!(k.watched().contains(&Agent::Qwen));
    fs::write(qwen.join("settings.json"), "{}\n").unwrap();
    let events = k.check(t0, SystemTime::now());
    assert!(
        matches!(
            &events[..],
            [WatchEvent::Removed {
                agent: Agent::Qwen,
                restored: true,
                ..
            }]
        ),
        "{events:?}"
    );

    // "Install in new agents": at once.
    WatchSettings {
        keep_in_place: true,
        install_new_agents: true,
    }
    .save(&paths)
    .unwrap();
    fs::create_dir_all(home.home().join(".factory")).unwrap();
    let events = k.check(t0, SystemTime::now());
    assert_eq!(
        events,
        vec![WatchEvent::NewAgent {
            agent: Agent::Droid,
            installed: true
        }]
    );
    assert!(k.watched().contains(&Agent::Droid));
}

#[test]
fn uninstalled_or_turned_off_agents_are_left_alone() {
    let (home, file) = installed("watch-uninstall");
    let paths = home.paths();
    let mut k = Keeper::new(&paths);
    let t0 = Instant::now();
    vults_installer::state::set_enabled(&paths, "claude", false).unwrap();
    vults_installer::repair(&paths, Agent::Claude);
    rename_over(&file, &without_vults(&file));
    assert_eq!(
        k.check(t0, SystemTime::now()),
        vec![],
        "turned off: not put back"
    );
    vults_installer::state::set_enabled(&paths, "claude", true).unwrap();
    vults_installer::uninstall_all(&paths);
    assert_eq!(
        k.check(t0, SystemTime::now()),
        vec![],
        "uninstalled: not put back"
    );
    assert!(!has_vults(&file));
    assert_eq!(k.writes(), 0);
}

#[cfg(not(windows))]
/// Waits for `what` with a generous timeout: the watcher itself is quick, a loaded CI is not.
fn wait_for(what: &str, mut ok: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(30);
    while !ok() {
        assert!(Instant::now() < until, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A runtime for the watcher, as the app's composition root gives it one: a current-thread
/// runtime driven on a thread of its own for the rest of the test.
#[cfg(not(windows))]
fn runtime() -> tokio::runtime::Handle {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        tx.send(rt.handle().clone()).unwrap();
        rt.block_on(std::future::pending::<()>());
    });
    rx.recv().unwrap()
}

// Linux and macOS: Wine's ReadDirectoryChangesW, where CI runs the Windows suites, is not the
// real one (docs/platforms.md).
#[cfg(not(windows))]
#[test]
fn the_running_watcher_sees_a_rename_over_and_an_edit_in_place() {
    use std::sync::{Arc, Mutex};
    let (home, file) = installed("watch-live");
    let paths = home.paths();
    let seen: Arc<Mutex<Vec<WatchEvent>>> = Arc::default();
    let sink = {
        let seen = seen.clone();
        Arc::new(move |e: WatchEvent| seen.lock().unwrap().push(e))
    };
    let handle = watch::spawn(&runtime(), &paths, sink).unwrap();
    let theirs = without_vults(&file);
    // The watch is set up before spawn returns; a write now is seen.
    rename_over(&file, &theirs);
    wait_for("the entry back after a rename", || has_vults(&file));
    wait_for("one event", || !seen.lock().unwrap().is_empty());
    assert_eq!(others(&fs::read(&file).unwrap()), others(&theirs));
    // Within the fight window an edit in place is another removal: said, not fought.
    fs::write(&file, &theirs).unwrap();
    wait_for("the second event", || seen.lock().unwrap().len() >= 2);
    let events = seen.lock().unwrap().clone();
    assert!(
        matches!(&events[0], WatchEvent::Removed { restored: true, .. }),
        "{events:?}"
    );
    assert!(
        matches!(&events[1], WatchEvent::KeepsRemoving { .. }),
        "{events:?}"
    );
    // A new agent's folder, seen live.
    fs::create_dir_all(home.home().join(".qwen")).unwrap();
    wait_for("the new agent", || {
        seen.lock().unwrap().iter().any(|e| {
            matches!(
                e,
                WatchEvent::NewAgent {
                    agent: Agent::Qwen,
                    installed: false
                }
            )
        })
    });
    handle.install(Agent::Qwen);
    wait_for("qwen installed", || {
        fs::read_to_string(home.home().join(".qwen/settings.json"))
            .is_ok_and(|t| t.contains("vults-hook"))
    });
    drop(handle);
    // (Cloned first: a failing assert_eq! formats its message while its operands' temporaries,
    // a guard of the same lock among them, are still alive.)
    let events = seen.lock().unwrap().clone();
    assert_eq!(events.len(), 4, "{events:?}");
}
