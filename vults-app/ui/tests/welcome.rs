//! The first run's welcome in the whole window, fed by a played installer: it shows what was
//! written where (with the `.bak`), how to undo, Codex's trust step; "Got it" closes it, and
//! Settings → General asks the installer for it again and shows start at login.

use crate::fixtures;
use egui_kittest::kittest::Queryable;
use std::path::PathBuf;
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex};
use vults_installer::welcome::{Welcome, Written};
use vults_ui::app::{Layout, VultsWindow};
use vults_ui::desktop::NoDesktop;
use vults_ui::ports::{EngineChannel, InstallerNews, InstallerSide};

#[derive(Clone, Default)]
struct PlayedInstaller {
    news: Arc<Mutex<Vec<InstallerNews>>>,
    asked: Arc<Mutex<Vec<String>>>,
}

impl InstallerSide for PlayedInstaller {
    fn poll(&mut self) -> Option<InstallerNews> {
        self.news.lock().unwrap().pop()
    }
    fn repair(&mut self, _agent: vults_core::agents::Agent) {}
    fn set_enabled(&mut self, _agent: vults_core::agents::Agent, _enabled: bool) {}
    fn remove_leftovers(&mut self, _agent: vults_core::agents::Agent) {}
    fn set_start_at_login(&mut self, enabled: bool) {
        self.asked
            .lock()
            .unwrap()
            .push(format!("start at login {enabled}"));
    }
    fn show_welcome(&mut self) {
        self.asked.lock().unwrap().push("welcome".into());
    }
}

fn welcome() -> Welcome {
    Welcome {
        summary: "Vults found: Claude Code, Codex CLI.\n".into(),
        written: vec![Written {
            agent: "Claude Code".into(),
            path: PathBuf::from("/home/me/.claude/settings.json"),
            backup: Some(PathBuf::from("/home/me/.claude/settings.json.bak")),
        }],
        hook_copy: PathBuf::from("/home/me/.local/share/vults/bin/vults-hook"),
        codex_trust: true,
    }
}

#[test]
fn the_welcome_shows_what_was_written_and_closes_and_comes_back_from_settings() {
    let (_events, events_rx): (Sender<_>, _) = channel();
    let (commands_tx, _commands) = channel();
    let installer = PlayedInstaller::default();
    installer.news.lock().unwrap().push(InstallerNews {
        welcome: Some(welcome()),
        start_at_login: Some(false),
        ..Default::default()
    });
    let mut window = VultsWindow::new(
        Box::new(EngineChannel {
            events: events_rx,
            commands: commands_tx,
        }),
        Box::new(NoDesktop::default()),
        Layout::Embedded,
        Box::new(fixtures::now),
    )
    .with_installer(Box::new(installer.clone()));
    window.set_log_file(Some(PathBuf::from("/home/me/.local/state/vults/vults.log")));
    let mut h = fixtures::window_harness(window);
    h.run_steps(3);
    h.get_by_label("Welcome to Vults");
    h.get_by_label("Claude Code: /home/me/.claude/settings.json");
    h.get_by_label("    your original is kept in /home/me/.claude/settings.json.bak");
    assert!(
        h.query_by_label_contains("type /hooks and trust").is_some(),
        "Codex's trust step"
    );
    assert!(h.query_by_label_contains("vults-app --uninstall").is_some());
    h.get_by_label("Got it").click();
    h.run_steps(3);
    assert!(h.query_by_label("Welcome to Vults").is_none());
    // Settings → General: start at login, the log file, the welcome again.
    h.get_by_label("General").click();
    h.run_steps(3);
    h.get_by_label("/home/me/.local/state/vults/vults.log");
    h.get_by_label("Start Vults when I log in").click();
    h.run_steps(2);
    h.get_by_label("Show the welcome again").click();
    h.run_steps(2);
    assert_eq!(
        *installer.asked.lock().unwrap(),
        vec!["start at login true".to_string(), "welcome".to_string()]
    );
    installer.news.lock().unwrap().push(InstallerNews {
        welcome: Some(welcome()),
        ..Default::default()
    });
    h.run_steps(3);
    h.get_by_label("Welcome to Vults");
    // Choosing a tab while it is open shows that tab: the welcome does not hide every view.
    h.get_by_label("Rules").click();
    h.run_steps(3);
    assert!(h.query_by_label("Welcome to Vults").is_none());
}
