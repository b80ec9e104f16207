//! Platforms without a notification backend here: the notifier runs (quiet hours count) and
//! says why there are no notifications.

use tokio::sync::mpsc::UnboundedSender;

use super::{BackendInfo, NotifierConfig, PlatformEvent};
use crate::notice::Outgoing;

pub(crate) struct Backend;

impl Backend {
    pub(crate) async fn connect(
        _config: &NotifierConfig,
        _events: UnboundedSender<PlatformEvent>,
    ) -> Result<Backend, String> {
        Err("Vults has no desktop notifications on this platform".into())
    }

    pub(crate) fn info(&self) -> BackendInfo {
        BackendInfo {
            server: "none".into(),
            caps: crate::notice::ServerCaps::default(),
            replace: false,
            withdraw: false,
        }
    }

    pub(crate) async fn notify(
        &mut self,
        _replaces: u32,
        _out: &Outgoing,
        _actions: &[(String, String)],
    ) -> Result<u32, String> {
        Err("no backend".into())
    }

    pub(crate) async fn close(&mut self, _id: u32) -> Result<(), String> {
        Ok(())
    }
}

pub(crate) async fn read_desktop_dnd(
    _backend: Option<&Backend>,
    _events: UnboundedSender<PlatformEvent>,
) -> Result<(String, Option<bool>), String> {
    Err("not readable on this platform".into())
}
