//! Global keys through the XDG GlobalShortcuts portal (Wayland), against the stand-in portal
//! on a private session bus.

use std::time::Duration;

use vults_notify::Bus;
use vults_notify::keys::{
    GlobalKeys, KeyAction, KeysBackend, KeysError, KeysEvent, KeysSettings, KeysTarget,
};
use vults_notify::test_support::{Portal, PortalCall, SessionBus};

fn enabled() -> KeysSettings {
    KeysSettings {
        enabled: true,
        ..KeysSettings::default()
    }
}

#[test]
fn the_portal_binds_what_the_desktop_chose_and_reports_presses() {
    let Some(bus) = SessionBus::start("keys_portal") else {
        return;
    };
    let portal = Portal::start(&bus.address, &[("allow", "Super+A")], None);
    let target = KeysTarget::Portal {
        bus: Bus::Address(bus.address.clone()),
    };
    let (keys, rx) = GlobalKeys::start(&enabled(), target, None).expect("started");
    match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(KeysEvent::Ready { backend, bindings }) => {
            assert_eq!(backend, KeysBackend::Portal);
            assert_eq!(
                bindings,
                [
                    (KeyAction::ShowNewest, "Ctrl+Alt+V".to_string()),
                    (KeyAction::Allow, "Super+A".to_string()),
                    (KeyAction::Deny, "Ctrl+Alt+N".to_string()),
                ],
                "the desktop's choice is what Settings shows"
            );
        }
        other => panic!("not ready: {other:?}"),
    }
    let calls = portal.calls();
    assert!(matches!(&calls[0], PortalCall::CreateSession(t) if t.starts_with("vults_")));
    assert_eq!(
        calls[1],
        PortalCall::BindShortcuts(vec![
            (
                "show-newest".into(),
                "Vults: bring up the newest card".into(),
                "CTRL+ALT+v".into()
            ),
            (
                "allow".into(),
                "Vults: allow the card shown (press twice)".into(),
                "CTRL+ALT+y".into()
            ),
            (
                "deny".into(),
                "Vults: deny the card shown (press twice)".into(),
                "CTRL+ALT+n".into()
            ),
        ])
    );
    portal.press("allow");
    assert_eq!(
        rx.recv_timeout(Duration::from_secs(5)),
        Ok(KeysEvent::Pressed(KeyAction::Allow))
    );
    portal.press("not-ours");
    portal.press("show-newest");
    assert_eq!(
        rx.recv_timeout(Duration::from_secs(5)),
        Ok(KeysEvent::Pressed(KeyAction::ShowNewest)),
        "an id it did not bind is no press"
    );
    drop(keys);
}

#[test]
fn keys_switched_off_bind_nothing() {
    let off = KeysSettings::default();
    let err = GlobalKeys::start(&off, KeysTarget::Auto, None).unwrap_err();
    assert_eq!(err, KeysError::Off);
    assert_eq!(err.to_string(), "global keys are off in Settings");
    let clash = KeysSettings {
        deny: KeysSettings::default().allow,
        ..enabled()
    };
    let err = GlobalKeys::start(&clash, KeysTarget::Auto, None).unwrap_err();
    assert!(matches!(err, KeysError::Clash(_)), "{err}");
    assert!(err.to_string().contains("is set for both"), "{err}");
}

#[test]
fn without_the_portal_settings_are_told_why() {
    let Some(bus) = SessionBus::start("keys_no_portal") else {
        return;
    };
    let target = KeysTarget::Portal {
        bus: Bus::Address(bus.address.clone()),
    };
    let (_keys, rx) = GlobalKeys::start(&enabled(), target, None).expect("started");
    match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(KeysEvent::Unavailable(why)) => {
            assert!(why.contains("no GlobalShortcuts portal"), "{why}")
        }
        other => panic!("expected a reason: {other:?}"),
    }
}
