//! Settings → Hosts says a failed add (or remove) as a failure, in the warning colour and with
//! "Failed:", not as the quiet grey line a success gets.

#[allow(dead_code)]
use crate::fixtures;

use egui_kittest::kittest::Queryable;
use std::sync::mpsc::channel;
use vults_remote::background::{HostsAction, HostsStatus};
use vults_ui::app::{Layout, VultsWindow};
use vults_ui::ports::{EngineChannel, HostsSide};

struct Failed;

impl HostsSide for Failed {
    fn status(&self) -> HostsStatus {
        HostsStatus {
            last: Some("ssh me@devbox failed (exit status: 255): Connection refused".into()),
            last_failed: true,
            ..HostsStatus::default()
        }
    }
    fn apply(&mut self, _action: HostsAction) {}
}

#[test]
fn a_failed_add_reads_as_a_failure() {
    let window = VultsWindow::new(
        Box::new(EngineChannel {
            events: channel().1,
            commands: channel().0,
        }),
        Box::new(vults_ui::desktop::NoDesktop::default()),
        Layout::Embedded,
        Box::new(fixtures::now),
    )
    .with_hosts(Box::new(Failed));
    let mut h = fixtures::window_harness(window);
    h.run_steps(2);
    h.get_by_label("Hosts").click();
    h.run_steps(2);
    h.get_by_label_contains("Failed: ssh me@devbox failed");
}

struct Down;

impl HostsSide for Down {
    fn status(&self) -> HostsStatus {
        HostsStatus {
            hosts: vec![vults_remote::background::HostRow {
                name: "devbox".into(),
                target: "me@devbox".into(),
                system: "Linux x86_64".into(),
                link: "down (ssh: connect to host 127.0.0.1 port 55733: Connection refused); \
                       again in 4 s"
                    .into(),
                linked: false,
            }],
            ..HostsStatus::default()
        }
    }
    fn apply(&mut self, _action: HostsAction) {}
}

/// At 700 px a link that is down says why in full and its Remove stays in the window (the
/// reason ran off the edge and took Remove with it).
#[test]
fn a_long_link_state_wraps_and_remove_stays_in_a_small_window() {
    let window = VultsWindow::new(
        Box::new(EngineChannel {
            events: channel().1,
            commands: channel().0,
        }),
        Box::new(vults_ui::desktop::NoDesktop::default()),
        Layout::Embedded,
        Box::new(fixtures::now),
    )
    .with_hosts(Box::new(Down));
    let mut h = fixtures::builder()
        .with_size(egui::vec2(700.0, 500.0))
        .build_ui_state(
            |ui, w: &mut VultsWindow| {
                w.logic(ui.ctx());
                w.ui(ui);
            },
            window,
        );
    h.run_steps(2);
    h.get_by_label("Hosts").click();
    h.run_steps(3);
    let remove = h.get_by_label("Remove").rect();
    assert!(
        remove.right() <= 700.0,
        "Remove ends at x = {}",
        remove.right()
    );
    let state = h.get_by_label_contains("Connection refused").rect();
    assert!(
        state.right() <= 700.0,
        "the state ends at x = {}",
        state.right()
    );
}

#[derive(Clone, Default)]
struct Unreachable {
    actions: std::sync::Arc<std::sync::Mutex<Vec<HostsAction>>>,
}

impl HostsSide for Unreachable {
    fn status(&self) -> HostsStatus {
        HostsStatus {
            hosts: vec![vults_remote::background::HostRow {
                name: "devbox".into(),
                target: "me@devbox".into(),
                system: "Linux x86_64".into(),
                link: "down (Connection timed out); again in 60 s".into(),
                linked: false,
            }],
            last: Some("ssh me@devbox failed (exit status: 255): Connection timed out".into()),
            last_failed: true,
            offer_forget: Some("devbox".into()),
            ..HostsStatus::default()
        }
    }
    fn apply(&mut self, action: HostsAction) {
        self.actions.lock().unwrap().push(action);
    }
}

/// A Remove that failed offers Forget on that host's row.
#[test]
fn a_failed_remove_offers_to_forget_the_host() {
    let side = Unreachable::default();
    let window = VultsWindow::new(
        Box::new(EngineChannel {
            events: channel().1,
            commands: channel().0,
        }),
        Box::new(vults_ui::desktop::NoDesktop::default()),
        Layout::Embedded,
        Box::new(fixtures::now),
    )
    .with_hosts(Box::new(side.clone()));
    let mut h = fixtures::window_harness(window);
    h.run_steps(2);
    h.get_by_label("Hosts").click();
    h.run_steps(2);
    h.get_by_label("Forget").click();
    h.run_steps(2);
    assert_eq!(
        *side.actions.lock().unwrap(),
        vec![HostsAction::Forget("devbox".into())]
    );
}
