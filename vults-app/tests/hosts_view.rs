//! Settings → Hosts says a failed add (or remove) as a failure, in the warning colour and with
//! "Failed:", not as the quiet grey line a success gets.

#[allow(dead_code)]
#[path = "ui/fixtures.rs"]
mod fixtures;

use egui_kittest::kittest::Queryable;
use std::sync::mpsc::channel;
use vults_app::remote::background::{HostsAction, HostsStatus};
use vults_app::ui::app::{ChannelLink, HostsSide, Layout, VultsWindow};

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
        Box::new(ChannelLink {
            events: channel().1,
            commands: channel().0,
        }),
        Box::new(vults_app::ui::desktop::NoDesktop::default()),
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
