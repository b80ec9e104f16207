//! The engine: the private socket server and everything behind it — the one decision point's
//! caller, pending cards, sessions, Always rules, policies and the audit — as tasks on the app's
//! one tokio runtime ([`rt`]), with or without a window.
//!
//! Start with [`Engine::start`] (the window) or [`Engine::start_with`]. The engine publishes:
//! each reader — the window, the phone link, the notifier, the headless console — takes a
//! [`Subscription`] of its own ([`EngineHandle::subscribe`], or [`EngineEvents::subscribe`] from
//! a handle it holds) and reads every [`EngineEvent`](messages::EngineEvent) from it; none relays
//! another's. The bound ([`BUS_BOUND`]) and what a reader that falls behind loses (never a card:
//! it catches up from a snapshot of what waits) are in `bus.rs`. [`EngineHandle::events`] is the
//! first reader's channel, kept as it was for tests and examples. Send
//! [`EngineCommand`](messages::EngineCommand)s with [`EngineHandle::send`]. A subsystem that asks
//! on behalf of a program it drives (the chat) sends [`InAppRequest`]s through an
//! [`EngineCommander`]; SSH hosts' links open their sockets through [`HostSockets`].
//!
//! Inside, three parts:
//! - the runtime (`runtime.rs`): the engine's tasks, the sockets and their accept loops, one
//!   task per connection that hands events to the core and writes back what the core sends it
//!   (so a slow client delays nobody), the signals that stop it, and the handles;
//! - the core (`core.rs`): the one task that owns every card, session, rule, policy and audit
//!   line — the card state machine. Only
//!   [`EngineCommand::Answer`](messages::EngineCommand::Answer) answers a card: nothing
//!   arriving on a socket can;
//! - the bus (`bus.rs`): what the core publishes after each batch, to every subscriber, and the
//!   snapshot a subscriber that fell behind catches up from.
//!
//! Not here: deciding (that is `vults_core::decision::decide`), drawing, installing hooks.

#![warn(missing_docs)]

mod arrival;
mod audit;
mod bus;
pub mod clock;
mod connection;
mod context;
mod core;
pub mod diff;
mod in_app;
mod inputs;
pub mod log;
pub mod memory;
pub mod messages;
mod options;
pub mod present;
pub mod rt;
mod runtime;
mod sessions;
mod socket;
mod stats;
pub mod worker;

pub use audit::{AuditCursor, AuditPage, PAGE_LINES, PageOf, ROTATE_BYTES, TAIL_LINES};
pub use bus::{AUDIT_TAIL, BUS_BOUND, NOTICE_TAIL, Subscription, TryRecvError};
pub use in_app::{ConnId, InAppReply, InAppRequest};
pub use options::{ENDED_LINGER, EngineOptions, POLICY_POLL, SILENT_SESSION};
pub use runtime::{
    Engine, EngineCommander, EngineEvents, EngineHandle, HostListener, HostSockets, new_conn_id,
};
pub use socket::connect;
/// The pipe security the hook's pipe is made with, for the app's other pipes (Windows).
#[cfg(windows)]
pub mod pipe_security {
    pub use crate::socket::{current_user_sid, owner_only, user_sid_of_process};
}
pub use stats::{Stats, StatsSnapshot};
