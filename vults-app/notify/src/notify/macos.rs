//! macOS: NSUserNotification through mac-notification-sys, as notify-rust's macOS backend
//! does: the title, the body and the sound. It cannot replace or withdraw a notification, nor
//! carry Vults' actions, and the Focus state cannot be read by an app without Apple's
//! Communication Notifications entitlement — Capabilities says so. Compile-checked from Linux.

use tokio::sync::mpsc::UnboundedSender;

use super::{BackendInfo, NotifierConfig, PlatformEvent};
use crate::notice::{Outgoing, ServerCaps};

pub(crate) struct Backend {
    next: u32,
}

impl Backend {
    pub(crate) async fn connect(
        _config: &NotifierConfig,
        _events: UnboundedSender<PlatformEvent>,
    ) -> Result<Backend, String> {
        Ok(Backend { next: 0 })
    }

    pub(crate) fn info(&self) -> BackendInfo {
        BackendInfo {
            server: "macOS notifications (NSUserNotification)".into(),
            caps: ServerCaps {
                actions: false,
                body_markup: false,
                sound: true,
            },
            replace: false,
            withdraw: false,
        }
    }

    pub(crate) async fn notify(
        &mut self,
        _replaces: u32,
        out: &Outgoing,
        _actions: &[(String, String)],
    ) -> Result<u32, String> {
        let mut n = mac_notification_sys::Notification::new();
        n.title(&out.summary).message(&out.body).asynchronous(true);
        if out.sound.is_some() {
            n.default_sound();
        }
        n.send().map_err(|e| e.to_string())?;
        self.next += 1;
        Ok(self.next)
    }

    pub(crate) async fn close(&mut self, _id: u32) -> Result<(), String> {
        Ok(())
    }
}

pub(crate) async fn read_desktop_dnd(
    _backend: Option<&Backend>,
    _events: UnboundedSender<PlatformEvent>,
) -> Result<(String, Option<bool>), String> {
    Err(
        "macOS does not let an app read Focus without Apple's Communication Notifications \
         entitlement; use Vults' own quiet hours"
            .into(),
    )
}
