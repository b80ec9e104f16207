//! The paired phone: a small web page the app serves on the LAN while the user enables it (or
//! any static host serves, the phone then talking through an MQTT broker — see [`mqtt`]),
//! through which a paired phone sees the pending cards and answers them with signed requests.
//!
//! Start from [`PhoneLink`]: it loads the app's keys from the keyring — see [`secrets`] — and
//! the paired devices, is fed every [`EngineEvent`] ([`PhoneLink::on_engine_event`]; in the
//! app from a subscription of the link's own, [`BackgroundLink::follow`]), and starts or stops
//! the listener from Settings → Phone.
//! The window holds it only through [`BackgroundLink`], which runs it on a thread of its own
//! (commands in, a status snapshot out), so the window never waits for it. [`PhoneLink::offer`] makes the QR code's content; [`qr_modules`] its modules for the
//! window to draw. Accepted answers leave as
//! [`EngineCommand::Answer`](vults_engine::messages::EngineCommand::Answer) with
//! [`AnsweredBy::Phone`](vults_engine::messages::AnsweredBy::Phone) through the sink given at creation —
//! the same command a click sends; the engine stays unaware of the phone.
//!
//! What is checked, and in what order, is in [`gate`]; the wire format in [`crypto`]; the
//! threat model in `docs/phone.md`. Not here: any window code (Settings → Phone is a view in
//! `ui`), and no decision of its own — the phone only feeds answers into the engine.
//!
//! With the `test-support` feature (this crate's tests and examples turn it on): [`client`], a
//! phone written in Rust; `push::standin`, a Web Push service; and the seams tests hold
//! (`PhoneLink::set_push_roots`, `PhoneLink::set_write_hook`, `gate::card_json_calls`).

#![warn(missing_docs)]

pub mod background;
#[cfg(any(test, feature = "test-support"))]
pub mod client;
pub mod crypto;
pub mod devices;
mod error;
pub mod gate;
mod http;
mod link;
pub mod mqtt;
mod offer;
pub mod push;
pub mod secrets;
pub mod tls;

pub use background::BackgroundLink;
pub use devices::Device;
pub use error::{BrokerError, KeyringError, UrlError, VapidError};
pub use gate::CommandSink;
pub use link::{
    BrokerSettings, BrokerStatus, DEFAULT_PORT, LinkConfig, PhoneAction, PhoneLink, PhoneStatus,
    broker_file,
};
pub use mqtt::{BrokerConfig, BrokerState};
pub use offer::{PairingOffer, fragment_encode, qr_modules};
pub use push::{PushFailure, PushState};
pub use secrets::{KeyStorage, NoKeyring, Secret, Stored};
