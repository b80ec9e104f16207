//! Windows: toasts through the WinRT API notify-rust's backend also uses. One toast per
//! session: its tag is the session (hashed to 16 characters), its group "vults", so a new toast
//! for the session replaces the old one in the Action Center and removing it from the
//! notification history withdraws it. Buttons carry the action keys as arguments; a click on
//! the toast is "default". The desktop's do-not-disturb: `SHQueryUserNotificationState`
//! (presentation mode, a full-screen app, quiet time); Focus Assist itself has no API for apps.
//! Compile-checked from Linux and built for Wine (`.ci/cross.sh`); Wine has no toasts.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use tokio::sync::mpsc::UnboundedSender;
use windows::Data::Xml::Dom::XmlDocument;
use windows::Foundation::TypedEventHandler;
use windows::UI::Notifications::{
    ToastActivatedEventArgs, ToastDismissalReason, ToastDismissedEventArgs, ToastNotification,
    ToastNotificationManager,
};
use windows::core::{HSTRING, IInspectable, Interface};

use super::{BackendInfo, NotifierConfig, PlatformEvent};
use crate::notice::{Outgoing, ServerCaps};
use vults_core::text::xml_escape;

/// PowerShell's AppUserModelID: any unpackaged program may send toasts as it.
const POWERSHELL_APP_ID: &str =
    "{1AC14E77-02E7-4E5D-B744-2EB1AE5198B7}\\WindowsPowerShell\\v1.0\\powershell.exe";
const GROUP: &str = "vults";

pub(crate) struct Backend {
    app_id: String,
    events: UnboundedSender<PlatformEvent>,
    /// Our id → the toast's tag.
    tags: HashMap<u32, String>,
    next: u32,
}

impl Backend {
    pub(crate) async fn connect(
        config: &NotifierConfig,
        events: UnboundedSender<PlatformEvent>,
    ) -> Result<Backend, String> {
        let app_id = config
            .windows_app_id
            .clone()
            .unwrap_or_else(|| POWERSHELL_APP_ID.to_string());
        ToastNotificationManager::CreateToastNotifierWithId(&HSTRING::from(&app_id))
            .map_err(|e| format!("no toast notifications: {e}"))?;
        Ok(Backend {
            app_id,
            events,
            tags: HashMap::new(),
            next: 0,
        })
    }

    pub(crate) fn info(&self) -> BackendInfo {
        BackendInfo {
            server: "Windows toast notifications".into(),
            caps: ServerCaps {
                actions: true,
                body_markup: false,
                sound: true,
            },
            replace: true,
            withdraw: true,
        }
    }

    pub(crate) async fn notify(
        &mut self,
        replaces: u32,
        out: &Outgoing,
        actions: &[(String, String)],
    ) -> Result<u32, String> {
        let (id, tag) = match self.tags.get(&replaces) {
            Some(tag) => (replaces, tag.clone()),
            None => {
                self.next += 1;
                let mut h = std::collections::hash_map::DefaultHasher::new();
                (out.summary.as_str(), self.next).hash(&mut h);
                (self.next, format!("{:016x}", h.finish()))
            }
        };
        self.show(id, &tag, out, actions)
            .map_err(|e| format!("toast: {e}"))?;
        self.tags.insert(id, tag);
        Ok(id)
    }

    fn show(
        &self,
        id: u32,
        tag: &str,
        out: &Outgoing,
        actions: &[(String, String)],
    ) -> windows::core::Result<()> {
        let xml = XmlDocument::new()?;
        xml.LoadXml(&HSTRING::from(toast_xml(out, actions)))?;
        let toast = ToastNotification::CreateToastNotification(&xml)?;
        toast.SetTag(&HSTRING::from(tag))?;
        toast.SetGroup(&HSTRING::from(GROUP))?;
        let tx = self.events.clone();
        toast.Activated(&TypedEventHandler::<ToastNotification, IInspectable>::new(
            move |_, args| {
                if let Some(args) = &*args
                    && let Ok(args) = args.cast::<ToastActivatedEventArgs>()
                    && let Ok(key) = args.Arguments()
                {
                    let _ = tx.send(PlatformEvent::Action {
                        id,
                        key: key.to_string(),
                    });
                }
                Ok(())
            },
        ))?;
        let tx = self.events.clone();
        toast.Dismissed(&TypedEventHandler::<
            ToastNotification,
            ToastDismissedEventArgs,
        >::new(move |_, args| {
            if let Some(args) = &*args
                && let Ok(reason) = args.Reason()
            {
                // A toast that timed out is still in the Action Center: not closed.
                let reason = match reason {
                    ToastDismissalReason::UserCanceled => Some(2),
                    ToastDismissalReason::ApplicationHidden => Some(3),
                    _ => None,
                };
                if let Some(reason) = reason {
                    let _ = tx.send(PlatformEvent::Closed { id, reason });
                }
            }
            Ok(())
        }))?;
        ToastNotificationManager::CreateToastNotifierWithId(&HSTRING::from(&self.app_id))?
            .Show(&toast)
    }

    pub(crate) async fn close(&mut self, id: u32) -> Result<(), String> {
        let Some(tag) = self.tags.remove(&id) else {
            return Ok(());
        };
        ToastNotificationManager::History()
            .and_then(|h| {
                h.RemoveGroupedTagWithId(
                    &HSTRING::from(tag),
                    &HSTRING::from(GROUP),
                    &HSTRING::from(&self.app_id),
                )
            })
            .map_err(|e| format!("toast history: {e}"))
    }
}

/// The toast's XML: title, body, buttons (not the "default" key: a click on the toast is it),
/// sound or silence.
fn toast_xml(out: &Outgoing, actions: &[(String, String)]) -> String {
    let scenario = if out.resident {
        r#" scenario="reminder""#
    } else {
        ""
    };
    let mut x = format!(
        r#"<toast launch="default"{scenario}><visual><binding template="ToastGeneric"><text>{}</text><text>{}</text></binding></visual>"#,
        xml_escape(&out.summary),
        xml_escape(&out.body)
    );
    let buttons: Vec<&(String, String)> = actions.iter().filter(|(k, _)| k != "default").collect();
    if !buttons.is_empty() {
        x.push_str("<actions>");
        for (key, label) in buttons {
            x.push_str(&format!(
                r#"<action content="{}" arguments="{}" activationType="foreground"/>"#,
                xml_escape(label),
                xml_escape(key)
            ));
        }
        x.push_str("</actions>");
    }
    x.push_str(match out.sound {
        Some(_) => r#"<audio src="ms-winsoundevent:Notification.Default"/>"#,
        None => r#"<audio silent="true"/>"#,
    });
    x.push_str("</toast>");
    x
}

/// Windows' notification state, polled: presentation mode, a full-screen app or quiet time is
/// quiet.
pub(crate) async fn read_desktop_dnd(
    _backend: Option<&Backend>,
    events: UnboundedSender<PlatformEvent>,
) -> Result<(String, Option<bool>), String> {
    let now = notification_state()?;
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(super::TICK).await;
            if events
                .send(PlatformEvent::DesktopQuiet(notification_state().ok()))
                .is_err()
            {
                break;
            }
        }
    });
    Ok((
        "Windows' notification state (presentation mode, full screen, quiet time; Focus Assist \
         itself is not readable by apps)"
            .into(),
        Some(now),
    ))
}

fn notification_state() -> Result<bool, String> {
    use windows_sys::Win32::UI::Shell::{
        QUNS_BUSY, QUNS_PRESENTATION_MODE, QUNS_QUIET_TIME, QUNS_RUNNING_D3D_FULL_SCREEN,
        SHQueryUserNotificationState,
    };
    let mut state = 0;
    // SAFETY: `state` is a valid out pointer for the call.
    let hr = unsafe { SHQueryUserNotificationState(&mut state) };
    if hr != 0 {
        return Err(format!("SHQueryUserNotificationState failed ({hr:#x})"));
    }
    Ok(matches!(
        state,
        QUNS_BUSY | QUNS_RUNNING_D3D_FULL_SCREEN | QUNS_PRESENTATION_MODE | QUNS_QUIET_TIME
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notice::NoticeKind;

    #[test]
    fn the_toast_says_what_and_escapes_it() {
        let out = Outgoing {
            summary: "Claude Code asks: Bash".into(),
            body: "echo <a> & \"b\"\nin C:\\w".into(),
            offers: Vec::new(),
            sound: None,
            resident: true,
            kind: NoticeKind::Card,
        };
        let actions = vec![
            ("default".to_string(), "Show".to_string()),
            ("allow.t".into(), "Allow".into()),
        ];
        let x = toast_xml(&out, &actions);
        assert!(
            x.contains("<text>echo &lt;a&gt; &amp; &quot;b&quot;\nin C:\\w</text>"),
            "{x}"
        );
        assert!(x.contains(r#"<action content="Allow" arguments="allow.t""#));
        assert!(!x.contains(r#"arguments="default""#));
        assert!(x.contains(r#"<audio silent="true"/>"#));
        assert!(x.starts_with(r#"<toast launch="default" scenario="reminder">"#));
    }
}
