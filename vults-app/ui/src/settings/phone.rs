//! Settings → Phone: turn the phone link on or off (the port is visible and changeable), the
//! broker (URL, login, the phone's own login, CA file; Connect / Disconnect and the connection's state), the pairing
//! QR code, the paired devices with Revoke, and the latest refused phone requests.
//!
//! The view does no I/O: it reads a [`PhoneStatus`] snapshot (from `BackgroundLink::status()`,
//! once per frame) and returns a [`PhoneAction`] for the app to pass to
//! `BackgroundLink::apply`, which only sends it to the link's own thread.
//!
//! Wiring, in the app (`vults-app/src/compose.rs`): `phone::secrets::use_platform_store()`
//! once; then `BackgroundLink::spawn(paths, Arc::new(move |c| { commander.send(c); }), wake)`
//! with the engine's `EngineCommander` and the repaint callback, and
//! `link.follow(&engine.event_bus())`: the link reads the engine's events itself.

use egui::{Color32, RichText};
use vults_phone::{BrokerConfig, BrokerSettings, DEFAULT_PORT, PhoneAction, PhoneStatus};

/// Settings → Phone: the link's port and switch, its broker, the pairing code, the paired
/// devices and their push.
#[derive(Debug)]
pub struct PhoneView {
    port: String,
    broker: BrokerFields,
}

/// The broker settings being edited (filled from the saved ones once).
#[derive(Debug, Default)]
struct BrokerFields {
    loaded: bool,
    url: String,
    username: String,
    /// Empty: keep the stored password.
    password: String,
    /// The phone's own login (handed to it in the QR code); empty: anonymous.
    phone_username: String,
    /// Empty: keep the stored phone password.
    phone_password: String,
    ca_file: String,
    phone_url: String,
    page_url: String,
}

impl BrokerFields {
    fn load(&mut self, config: Option<&BrokerConfig>) {
        if self.loaded {
            return;
        }
        self.loaded = true;
        let Some(c) = config else { return };
        self.url = c.url.clone();
        self.username = c.username.clone().unwrap_or_default();
        self.phone_username = c.phone_username.clone().unwrap_or_default();
        self.ca_file = c
            .ca_file
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        self.phone_url = c.phone_url.clone().unwrap_or_default();
        self.page_url = c.page_url.clone().unwrap_or_default();
    }

    fn settings(&mut self) -> BrokerSettings {
        let opt = |s: &str| Some(s.trim().to_string()).filter(|s| !s.is_empty());
        let password = std::mem::take(&mut self.password);
        let phone_password = std::mem::take(&mut self.phone_password);
        BrokerSettings {
            config: BrokerConfig {
                url: self.url.trim().to_string(),
                username: opt(&self.username),
                ca_file: opt(&self.ca_file).map(Into::into),
                phone_url: opt(&self.phone_url),
                page_url: opt(&self.page_url),
                phone_username: opt(&self.phone_username),
                enabled: true,
            },
            password: (!password.is_empty()).then_some(password),
            phone_password: (!phone_password.is_empty()).then_some(phone_password),
        }
    }
}

impl Default for PhoneView {
    fn default() -> PhoneView {
        PhoneView {
            port: DEFAULT_PORT.to_string(),
            broker: BrokerFields::default(),
        }
    }
}

use vults_i18n::tr;

const MUTED: Color32 = Color32::from_gray(150);
const WARN: Color32 = Color32::from_rgb(230, 160, 60);

impl PhoneView {
    /// Draws the pane; returns what the person asked the link to do.
    pub fn ui(&mut self, ui: &mut egui::Ui, status: &PhoneStatus) -> Option<PhoneAction> {
        let mut action = None;
        ui.heading(tr!("settings-phone-title"));
        ui.label(RichText::new(tr!("settings-phone-intro")).color(MUTED));
        ui.add_space(6.0);
        ui.horizontal(|ui| {
            let label = ui.label(tr!("settings-phone-port"));
            let port_ok = self.port.trim().parse::<u16>().is_ok_and(|p| p > 0);
            ui.add_enabled(
                status.address.is_none(),
                egui::TextEdit::singleline(&mut self.port).desired_width(60.0),
            )
            .labelled_by(label.id);
            match status.address {
                Some(addr) => {
                    ui.label(
                        RichText::new(tr!("settings-phone-listening", port = addr.port())).strong(),
                    );
                    if ui.button(tr!("settings-phone-turn-off")).clicked() {
                        action = Some(PhoneAction::Disable);
                    }
                }
                None => {
                    if ui
                        .add_enabled(port_ok, egui::Button::new(tr!("settings-phone-turn-on")))
                        .clicked()
                        && let Ok(port) = self.port.trim().parse()
                    {
                        action = Some(PhoneAction::Enable { port });
                    }
                    ui.label(RichText::new(tr!("settings-phone-off")).color(MUTED));
                }
            }
        });
        if let Some(err) = &status.error {
            ui.colored_label(Color32::from_rgb(220, 80, 80), err);
        }
        let key_color = if status.key_in_file { WARN } else { MUTED };
        if let Some(stored) = &status.key_stored {
            ui.label(RichText::new(stored_words(stored)).color(key_color).small());
        }
        ui.add_space(8.0);

        if let Some(a) = self.broker_ui(ui, status) {
            action = Some(a);
        }
        ui.add_space(8.0);

        if status.address.is_some() || status.broker.state.is_some() {
            match &status.offer {
                Some(offer) => {
                    ui.label(tr!("settings-phone-scan"));
                    qr(ui, &status.qr);
                    ui.label(
                        RichText::new(shown_url(offer))
                            .monospace()
                            .small()
                            .color(MUTED),
                    );
                    if offer.phone_login.is_some() {
                        ui.label(
                            RichText::new(tr!("settings-phone-code-carries-login"))
                                .small()
                                .color(WARN),
                        );
                    }
                    if let Some(fp) = &status.tls_fingerprint {
                        ui.label(
                            RichText::new(tr!("settings-phone-fingerprint", fingerprint = fp))
                                .small()
                                .color(MUTED),
                        );
                    }
                    let reach = if offer.broker.is_some() {
                        tr!("settings-phone-one-use-broker")
                    } else {
                        tr!("settings-phone-one-use-lan")
                    };
                    ui.label(RichText::new(reach).small().color(MUTED));
                }
                None => {
                    ui.label(RichText::new(tr!("settings-phone-code-expired")).color(MUTED));
                }
            }
            if ui.button(tr!("settings-phone-new-code")).clicked() {
                action = Some(PhoneAction::NewCode);
            }
            ui.add_space(8.0);
        }

        ui.strong(tr!("settings-phone-paired"));
        if status.devices.is_empty() {
            ui.label(RichText::new(tr!("settings-phone-none-yet")).color(MUTED));
        }
        for d in &status.devices {
            ui.horizontal(|ui| {
                ui.label(RichText::new(&d.name).strong());
                ui.label(RichText::new(&d.id).monospace().small().color(MUTED));
                if d.revoked_at.is_some() {
                    ui.label(RichText::new(tr!("settings-phone-revoked")).color(WARN));
                } else if ui
                    .button(tr!("settings-phone-revoke"))
                    .on_hover_text(tr!("settings-phone-revoke-hover"))
                    .clicked()
                {
                    action = Some(PhoneAction::Revoke(d.id.clone()));
                }
            });
            if d.revoked_at.is_none()
                && let Some(a) = push_line(ui, d, status.push.get(&d.id))
            {
                action = Some(a);
            }
        }
        if let Some(stored) = &status.push_stored {
            ui.label(RichText::new(stored_words(stored)).small().color(MUTED));
        } else if let Some(error) = &status.push_off {
            ui.label(
                RichText::new(tr!("settings-phone-push-key-off", error = error))
                    .small()
                    .color(MUTED),
            );
        }
        refusal_list(
            ui,
            &tr!("settings-phone-refused-paired"),
            &status.refusals,
            10,
            WARN,
        );
        refusal_list(
            ui,
            &tr!("settings-phone-refused-unauthenticated"),
            &status.unauthenticated,
            5,
            MUTED,
        );
        action
    }
}

impl PhoneView {
    /// The broker: its settings, Connect / Disconnect, and the connection's state.
    fn broker_ui(&mut self, ui: &mut egui::Ui, status: &PhoneStatus) -> Option<PhoneAction> {
        let mut action = None;
        let b = &status.broker;
        self.broker.load(b.config.as_ref());
        ui.strong(tr!("settings-phone-broker-title"));
        ui.label(
            RichText::new(tr!("settings-phone-broker-intro"))
                .color(MUTED)
                .small(),
        );
        let f = &mut self.broker;
        egui::Grid::new("phone-broker")
            .num_columns(2)
            .show(ui, |ui| {
                let row = |ui: &mut egui::Ui,
                           label: &str,
                           value: &mut String,
                           hint: &str,
                           secret: bool| {
                    let l = ui.label(label);
                    ui.add(
                        egui::TextEdit::singleline(value)
                            .hint_text(hint)
                            .password(secret)
                            .desired_width(320.0),
                    )
                    .labelled_by(l.id);
                    ui.end_row();
                };
                let (optional, unchanged) = (
                    tr!("settings-phone-optional"),
                    tr!("settings-phone-unchanged"),
                );
                row(
                    ui,
                    &tr!("settings-phone-broker-url"),
                    &mut f.url,
                    &tr!("settings-phone-broker-url-hint"),
                    false,
                );
                row(
                    ui,
                    &tr!("settings-phone-username"),
                    &mut f.username,
                    &optional,
                    false,
                );
                let hint = if b.password_set {
                    &unchanged
                } else {
                    &optional
                };
                row(
                    ui,
                    &tr!("settings-phone-password"),
                    &mut f.password,
                    hint,
                    true,
                );
                row(
                    ui,
                    &tr!("settings-phone-phone-username"),
                    &mut f.phone_username,
                    &tr!("settings-phone-phone-username-hint"),
                    false,
                );
                let hint = if b.phone_password_set {
                    &unchanged
                } else {
                    &optional
                };
                row(
                    ui,
                    &tr!("settings-phone-phone-password"),
                    &mut f.phone_password,
                    hint,
                    true,
                );
                row(
                    ui,
                    &tr!("settings-phone-ca"),
                    &mut f.ca_file,
                    &tr!("settings-phone-ca-hint"),
                    false,
                );
                row(
                    ui,
                    &tr!("settings-phone-phone-broker-url"),
                    &mut f.phone_url,
                    &tr!("settings-phone-phone-broker-url-hint"),
                    false,
                );
                row(
                    ui,
                    &tr!("settings-phone-page-url"),
                    &mut f.page_url,
                    &tr!("settings-phone-page-url-hint"),
                    false,
                );
            });
        ui.horizontal(|ui| {
            let label = if b.state.is_some() {
                tr!("settings-phone-save-reconnect")
            } else {
                tr!("settings-phone-connect")
            };
            if ui
                .add_enabled(!f.url.trim().is_empty(), egui::Button::new(label))
                .clicked()
            {
                action = Some(PhoneAction::Broker(f.settings()));
            }
            if b.password_set && ui.button(tr!("settings-phone-forget-password")).clicked() {
                action = Some(PhoneAction::Broker(BrokerSettings {
                    password: Some(String::new()),
                    ..f.settings()
                }));
            }
            if b.phone_password_set
                && ui
                    .button(tr!("settings-phone-forget-phone-password"))
                    .clicked()
            {
                action = Some(PhoneAction::Broker(BrokerSettings {
                    phone_password: Some(String::new()),
                    ..f.settings()
                }));
            }
            match &b.state {
                Some(state) => {
                    let color = if *state == vults_phone::BrokerState::Connected {
                        Color32::from_rgb(90, 180, 90)
                    } else {
                        WARN
                    };
                    ui.label(
                        RichText::new(tr!(
                            "settings-phone-broker-state",
                            state = broker_words(state)
                        ))
                        .color(color),
                    );
                    if ui.button(tr!("settings-phone-disconnect")).clicked() {
                        action = Some(PhoneAction::BrokerOff);
                    }
                }
                None => {
                    ui.label(RichText::new(tr!("settings-phone-broker-off")).color(MUTED));
                }
            }
        });
        if let Some(err) = &b.error {
            ui.colored_label(Color32::from_rgb(220, 80, 80), err);
        }
        if let Some(stored) = &b.password_stored {
            ui.label(RichText::new(stored_words(stored)).small().color(MUTED));
        }
        if !f.phone_username.trim().is_empty() {
            ui.label(
                RichText::new(tr!(
                    "settings-phone-qr-login",
                    write = "vults/+/a",
                    read = "vults/+/p"
                ))
                .small()
                .color(MUTED),
            );
        }
        action
    }
}

/// The broker connection's state in the person's words (the error as the link said it).
fn broker_words(state: &vults_phone::BrokerState) -> String {
    match state {
        vults_phone::BrokerState::Connecting => tr!("settings-phone-broker-connecting"),
        vults_phone::BrokerState::Connected => tr!("settings-phone-broker-connected"),
        vults_phone::BrokerState::Reconnecting { error, retry_in_s } => tr!(
            "settings-phone-broker-reconnecting",
            seconds = *retry_in_s,
            error = error
        ),
    }
}

/// Where a secret is kept, in the person's words: the keyring, or the private file and why
/// (the keyring's own error is in the log); the file's path as it is.
pub fn stored_words(stored: &vults_phone::Stored) -> String {
    use vults_phone::{KeyStorage, NoKeyring, Secret};
    match &stored.storage {
        KeyStorage::Keyring => match stored.secret {
            Secret::LinkKeys => tr!("settings-phone-keys-in-keyring"),
            Secret::PushKey => tr!("settings-phone-push-key-in-keyring"),
            Secret::BrokerPassword => tr!("settings-phone-broker-password-in-keyring"),
            Secret::PhoneBrokerPassword => tr!("settings-phone-phone-password-in-keyring"),
        },
        KeyStorage::File { path, .. } => {
            let why = match stored.storage.no_keyring().unwrap_or(NoKeyring::NoAnswer) {
                NoKeyring::NoService => tr!("settings-phone-no-keyring-service"),
                NoKeyring::NoBus => tr!("settings-phone-no-keyring-bus"),
                NoKeyring::Locked => tr!("settings-phone-no-keyring-locked"),
                NoKeyring::Unsupported => tr!("settings-phone-no-keyring-unsupported"),
                NoKeyring::NoAnswer => tr!("settings-phone-no-keyring-no-answer"),
            };
            let path = path.display().to_string();
            match stored.secret {
                Secret::LinkKeys => tr!("settings-phone-keys-in-file", why = why, path = path),
                Secret::PushKey => {
                    tr!("settings-phone-push-key-in-file", why = why, path = path)
                }
                Secret::BrokerPassword => tr!(
                    "settings-phone-broker-password-in-file",
                    why = why,
                    path = path
                ),
                Secret::PhoneBrokerPassword => tr!(
                    "settings-phone-phone-password-in-file",
                    why = why,
                    path = path
                ),
            }
        }
    }
}

/// The pairing URL as printed under the code: the phone's broker password, if the code
/// carries one, is left out (the code itself holds it).
fn shown_url(offer: &vults_phone::PairingOffer) -> String {
    match &offer.phone_login {
        Some((_, password)) if !password.is_empty() => offer.url.replace(
            &format!("&w={}", vults_phone::fragment_encode(password)),
            &format!("&w=({})", tr!("settings-phone-url-hidden")),
        ),
        _ => offer.url.clone(),
    }
}

/// The newest `shown` of `entries` (oldest first), under a heading, if there are any.
/// A device's push: on (when it was last delivered, "Send a test") or off (how to turn it on),
/// and the last failure (a push service that said the subscription is gone).
fn push_line(
    ui: &mut egui::Ui,
    d: &vults_phone::Device,
    state: Option<&vults_phone::PushState>,
) -> Option<PhoneAction> {
    let mut action = None;
    ui.horizontal_wrapped(|ui| {
        if d.push.is_some() {
            let last = state
                .and_then(|s| s.last_delivered)
                .map(|ms| tr!("settings-phone-push-last", time = super::history::clock(ms)))
                .unwrap_or_else(|| tr!("settings-phone-push-nothing"));
            ui.label(RichText::new(tr!("settings-phone-push-on", last = last)).small());
            if ui
                .small_button(tr!("settings-phone-push-test"))
                .on_hover_text(tr!("settings-phone-push-test-hover"))
                .clicked()
            {
                action = Some(PhoneAction::TestPush(d.id.clone()));
            }
        } else {
            ui.label(
                RichText::new(tr!("settings-phone-push-off", doc = "docs/phone.md"))
                    .small()
                    .color(MUTED),
            );
        }
    });
    if let Some(error) = state.and_then(|s| s.last_error.as_ref()) {
        ui.label(
            RichText::new(tr!(
                "settings-phone-push-error",
                error = push_failure_words(error)
            ))
            .small()
            .color(WARN),
        );
    }
    action
}

/// Why a push did not get through, in the person's language; the push service's address, the
/// network library's words and the status are arguments, as they came.
fn push_failure_words(failure: &vults_phone::PushFailure) -> String {
    use vults_phone::PushFailure as F;
    match failure {
        F::Timeout => tr!("settings-phone-push-failure-timeout"),
        F::NotHttps => tr!("settings-phone-push-failure-not-https"),
        F::NotUrl => tr!("settings-phone-push-failure-not-url"),
        F::NoHost => tr!("settings-phone-push-failure-no-host"),
        F::BadHost(host) => tr!("settings-phone-push-failure-bad-host", host = host.as_str()),
        F::Unreachable { service, error } => tr!(
            "settings-phone-push-failure-unreachable",
            service = service.as_str(),
            error = error.as_str()
        ),
        F::Tls { service, error } => tr!(
            "settings-phone-push-failure-tls",
            service = service.as_str(),
            error = error.as_str()
        ),
        F::Http { service, error } => tr!(
            "settings-phone-push-failure-http",
            service = service.as_str(),
            error = error.as_str()
        ),
        F::Request => tr!("settings-phone-push-failure-request"),
        F::NoAnswer { service, error } => tr!(
            "settings-phone-push-failure-no-answer",
            service = service.as_str(),
            error = error.as_str()
        ),
        F::Busy { service, status } => tr!(
            "settings-phone-push-failure-busy",
            service = service.as_str(),
            status = *status
        ),
        F::Redirect { service, status } => tr!(
            "settings-phone-push-failure-redirect",
            service = service.as_str(),
            status = *status
        ),
        F::Refused { service, status } => tr!(
            "settings-phone-push-failure-refused",
            service = service.as_str(),
            status = *status
        ),
        F::Gone(status) => tr!("settings-phone-push-failure-gone", status = *status),
        F::Encrypt(error) => tr!(
            "settings-phone-push-failure-encrypt",
            error = error.as_str()
        ),
        F::GaveUp { last, tries } => tr!(
            "settings-phone-push-failure-gave-up",
            last = push_failure_words(last),
            tries = *tries
        ),
    }
}

fn refusal_list(
    ui: &mut egui::Ui,
    heading: &str,
    entries: &[vults_engine::messages::AuditEntry],
    shown: usize,
    color: Color32,
) {
    if entries.is_empty() {
        return;
    }
    ui.add_space(8.0);
    ui.strong(heading);
    for r in entries.iter().rev().take(shown) {
        ui.label(
            RichText::new(format!(
                "{} — {}",
                r.by,
                r.detail
                    .clone()
                    .unwrap_or_else(|| tr!("settings-phone-refused"))
            ))
            .small()
            .color(color),
        );
    }
}

/// Draws QR modules: dark squares on a light field with a 4-module quiet zone.
fn qr(ui: &mut egui::Ui, modules: &[Vec<bool>]) {
    let n = modules.len();
    if n == 0 {
        return;
    }
    let cell = 4.0_f32;
    let side = (n as f32 + 8.0) * cell;
    let (rect, _) = ui.allocate_exact_size(egui::vec2(side, side), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, Color32::WHITE);
    for (y, row) in modules.iter().enumerate() {
        for (x, dark) in row.iter().enumerate() {
            if *dark {
                let min = rect.min + egui::vec2((x as f32 + 4.0) * cell, (y as f32 + 4.0) * cell);
                painter.rect_filled(
                    egui::Rect::from_min_size(min, egui::vec2(cell, cell)),
                    0.0,
                    Color32::BLACK,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable;
    use vults_phone::{Device, PairingOffer};

    struct State {
        view: PhoneView,
        status: PhoneStatus,
        action: Option<PhoneAction>,
    }

    fn harness(status: PhoneStatus) -> Harness<'static, State> {
        Harness::builder()
            .with_size(egui::vec2(640.0, 720.0))
            .build_ui_state(
                |ui, s: &mut State| {
                    if let Some(a) = s.view.ui(ui, &s.status) {
                        s.action = Some(a);
                    }
                },
                State {
                    view: PhoneView::default(),
                    status,
                    action: None,
                },
            )
    }

    fn device(id: &str, name: &str, revoked: bool) -> Device {
        Device {
            id: id.into(),
            name: name.into(),
            sign_key: String::new(),
            box_key: String::new(),
            paired_at: 0,
            revoked_at: revoked.then_some(1),
            push: None,
        }
    }

    fn refused(time: u64, by: &str, detail: &str) -> vults_engine::messages::AuditEntry {
        vults_engine::messages::AuditEntry::new(
            time,
            vults_engine::messages::Outcome::Refused,
            by.into(),
            Some(detail.into()),
        )
    }

    #[test]
    fn a_flood_of_unauthenticated_refusals_does_not_hide_a_paired_phones() {
        let flood: Vec<_> = (0..10)
            .map(|i| {
                refused(
                    100 + i,
                    "phone:unknown",
                    &format!("unknown device (claimed id \"x{i}\", from 192.0.2.9)"),
                )
            })
            .collect();
        let h = harness(PhoneStatus {
            refusals: vec![refused(
                1,
                "phone:Ana (dev1)",
                "bad signature (device dev1), card 3",
            )],
            unauthenticated: flood,
            ..PhoneStatus::default()
        });
        h.get_by_label("phone:Ana (dev1) — bad signature (device dev1), card 3");
        h.get_by_label("Refused requests that could not be authenticated");
        // The newest few of the flood only.
        h.get_by_label("phone:unknown — unknown device (claimed id \"x9\", from 192.0.2.9)");
        assert!(
            h.query_by_label("phone:unknown — unknown device (claimed id \"x0\", from 192.0.2.9)")
                .is_none()
        );
    }

    #[test]
    fn off_it_offers_to_turn_on_at_the_shown_port() {
        let mut h = harness(PhoneStatus {
            key_stored: Some(vults_phone::Stored {
                secret: vults_phone::Secret::LinkKeys,
                storage: vults_phone::KeyStorage::Keyring,
            }),
            ..PhoneStatus::default()
        });
        h.get_by_label("Off");
        h.get_by_label("Turn on").click();
        h.run();
        assert_eq!(
            h.state().action,
            Some(PhoneAction::Enable { port: DEFAULT_PORT })
        );
    }

    #[test]
    fn on_it_shows_the_code_and_revokes_a_device() {
        let offer = PairingOffer {
            url: "https://192.0.2.10:47610/#v=1&t=tok&k=k&x=x".into(),
            token: "tok".into(),
            expires_at: u64::MAX,
            app_sign_key: "k".into(),
            app_box_key: "x".into(),
            broker: None,
            phone_login: None,
        };
        let qr = vults_phone::qr_modules(&offer);
        let mut h = harness(PhoneStatus {
            address: Some("0.0.0.0:47610".parse().unwrap()),
            offer: Some(offer),
            qr,
            devices: vec![
                device("dev1", "Ana's phone", false),
                device("dev2", "Old", true),
            ],
            tls_fingerprint: Some("AB:CD".into()),
            key_stored: Some(vults_phone::Stored {
                secret: vults_phone::Secret::LinkKeys,
                storage: vults_phone::KeyStorage::File {
                    path: "/home/u/.config/vults/phone-link.key".into(),
                    reason: "org.freedesktop.secrets was not provided".into(),
                },
            }),
            key_in_file: true,
            ..PhoneStatus::default()
        });
        h.get_by_label("On — listening on port 47610");
        h.get_by_label("https://192.0.2.10:47610/#v=1&t=tok&k=k&x=x");
        h.get_by_label("revoked");
        h.get_by_label(
            "No system keyring: no keyring service (GNOME Keyring, KWallet) is running. The phone \
             link keys are in /home/u/.config/vults/phone-link.key instead (readable only by you).",
        );
        // Only the device that is not revoked has a Revoke button.
        h.get_by_label("Revoke").click();
        h.run();
        assert_eq!(h.state().action, Some(PhoneAction::Revoke("dev1".into())));
    }

    #[test]
    fn each_phone_says_whether_it_is_pushed_to_and_sends_a_test() {
        let mut on = device("dev1", "Ana's phone", false);
        on.push = Some(vults_phone::devices::Subscription {
            endpoint: "https://push.example/1".into(),
            p256dh: String::new(),
            auth: String::new(),
        });
        let gone = device("dev2", "Bo", false);
        let mut push = std::collections::BTreeMap::new();
        push.insert(
            "dev1".to_string(),
            vults_phone::PushState {
                last_delivered: Some(1_796_000_000_000),
                delivered: 3,
                last_error: None,
            },
        );
        push.insert(
            "dev2".to_string(),
            vults_phone::PushState {
                last_error: Some(vults_phone::PushFailure::Gone(410)),
                ..Default::default()
            },
        );
        let mut h = harness(PhoneStatus {
            devices: vec![on, gone],
            push,
            push_stored: Some(vults_phone::Stored {
                secret: vults_phone::Secret::PushKey,
                storage: vults_phone::KeyStorage::Keyring,
            }),
            ..PhoneStatus::default()
        });
        h.get_by_label("Push: on — last delivered 2026-11-30 00:53:20 UTC");
        h.get_by_label_contains("Push: off — turn it on in the phone's page");
        h.get_by_label_contains("subscription is gone (410)");
        h.get_by_label("The push key is in the system keyring.");
        h.get_by_label("Send a test").click();
        h.run();
        assert_eq!(h.state().action, Some(PhoneAction::TestPush("dev1".into())));
    }

    #[test]
    fn a_code_with_the_phones_login_hides_its_password_and_says_it_is_secret() {
        let url = format!(
            "https://broker.test/#v=1&t=tok&k=k&x=x&b=wss%3A%2F%2Fbroker.test%2F&p={}&u=vults-phone&w=s3cret%20pw",
            "0".repeat(32)
        );
        let offer = PairingOffer {
            url: url.clone(),
            token: "tok".into(),
            expires_at: u64::MAX,
            app_sign_key: "k".into(),
            app_box_key: "x".into(),
            broker: Some(("wss://broker.test/".into(), "0".repeat(32))),
            phone_login: Some(("vults-phone".into(), "s3cret pw".into())),
        };
        let qr = vults_phone::qr_modules(&offer);
        let h = harness(PhoneStatus {
            offer: Some(offer),
            qr,
            broker: vults_phone::BrokerStatus {
                state: Some(vults_phone::BrokerState::Connected),
                ..Default::default()
            },
            ..PhoneStatus::default()
        });
        h.get_by_label(&url.replace("&w=s3cret%20pw", "&w=(hidden)"));
        assert!(
            h.query_by_label(&url).is_none(),
            "the password is not printed"
        );
        h.get_by_label("This code carries the phone's broker login: show it only to the phone.");
    }

    #[test]
    fn the_broker_is_set_up_here_and_its_state_shown() {
        let mut h = harness(PhoneStatus::default());
        h.get_by_label("Broker: off");
        for (field, text) in [
            ("Broker URL", "wss://broker.example:8884/"),
            ("Username", "vults-app"),
            ("Password", "pw"),
            ("Phone's username", "vults-phone"),
            ("Phone's password", "phone-pw"),
        ] {
            h.run();
            h.get_by_label(field).focus();
            h.run();
            h.get_by_label(field).type_text(text);
            h.run();
        }
        h.get_by_label("Connect").click();
        h.run();
        let Some(PhoneAction::Broker(settings)) = h.state().action.clone() else {
            panic!("expected a broker action, got {:?}", h.state().action);
        };
        assert_eq!(settings.config.url, "wss://broker.example:8884/");
        assert_eq!(settings.config.username.as_deref(), Some("vults-app"));
        assert_eq!(settings.password.as_deref(), Some("pw"));
        assert_eq!(
            settings.config.phone_username.as_deref(),
            Some("vults-phone")
        );
        assert_eq!(settings.phone_password.as_deref(), Some("phone-pw"));
        assert_eq!(settings.config.ca_file, None);

        let h = harness(PhoneStatus {
            broker: vults_phone::BrokerStatus {
                config: Some(BrokerConfig {
                    url: "wss://broker.example/".into(),
                    ..BrokerConfig::default()
                }),
                state: Some(vults_phone::BrokerState::Reconnecting {
                    error: "connection refused".into(),
                    retry_in_s: 4,
                }),
                password_set: true,
                phone_password_set: true,
                ..Default::default()
            },
            ..PhoneStatus::default()
        });
        h.get_by_label("Broker: Reconnecting in 4 s — connection refused");
        h.get_by_label("Disconnect");
        h.get_by_label("Forget password");
        h.get_by_label("Forget phone's password");
    }
}
