//! Settings → Hosts: shown only with hosts' links, each host with its link's state, and Add /
//! Remove passed to the hosts' side (which runs them off the window's thread).

use crate::fixtures;
use crate::fixtures::Snap;
use egui_kittest::kittest::Queryable;
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use vults_remote::background::{HostRow, HostsAction, HostsStatus};
use vults_ui::app::{Layout, Tab, VultsWindow};
use vults_ui::ports::{EngineChannel, HostsSide};

#[derive(Clone, Default)]
struct FakeHosts {
    actions: Arc<Mutex<Vec<HostsAction>>>,
}

impl HostsSide for FakeHosts {
    fn status(&self) -> HostsStatus {
        HostsStatus {
            hosts: vec![
                HostRow {
                    name: "devbox".into(),
                    target: "me@devbox".into(),
                    system: "Linux x86_64".into(),
                    link: "linked".into(),
                    linked: true,
                },
                HostRow {
                    name: "build.lan".into(),
                    target: "ci@build.lan".into(),
                    system: "Linux aarch64".into(),
                    link: "down (Connection refused); again in 4 s".into(),
                    linked: false,
                },
            ],
            ..HostsStatus::default()
        }
    }
    fn apply(&mut self, action: HostsAction) {
        self.actions.lock().unwrap().push(action);
    }
}

fn window() -> VultsWindow {
    VultsWindow::new(
        Box::new(EngineChannel {
            events: channel().1,
            commands: channel().0,
        }),
        Box::new(vults_ui::desktop::NoDesktop::default()),
        Layout::Embedded,
        Box::new(fixtures::now),
    )
}

#[test]
fn settings_hosts_shows_each_link_and_passes_add_and_remove_on() {
    let h = fixtures::window_harness(window());
    assert!(
        h.query_by_label("Hosts").is_none(),
        "no hosts' links, no Hosts tab"
    );
    let hosts = FakeHosts::default();
    let mut h = fixtures::window_harness(window().with_hosts(Box::new(hosts.clone())));
    h.run_steps(2);
    h.get_by_label("Hosts").click();
    h.run_steps(2);
    assert_eq!(h.state().tab, Tab::Hosts);
    h.snap("settings_hosts");
    h.get_by_label("linked");
    h.get_by_label("down (Connection refused); again in 4 s");
    h.get_all_by_label("Remove").next().unwrap().click();
    h.run_steps(2);
    h.get_by_label("Host").focus();
    h.run();
    h.get_by_label("Host").type_text("me@devbox2:2222");
    h.run();
    h.get_by_label("Add host").click();
    h.run_steps(2);
    assert_eq!(
        *hosts.actions.lock().unwrap(),
        vec![
            HostsAction::Remove("devbox".into()),
            HostsAction::Add {
                spec: "me@devbox2:2222".into(),
                ssh_options: String::new()
            }
        ]
    );
}
