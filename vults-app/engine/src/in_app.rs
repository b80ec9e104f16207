//! Requests from inside the app: a subsystem that asks the person on behalf of a program it
//! drives (the chat's `can_use_tool`, `vults-zeca`) sends an [`InAppRequest`] through
//! [`EngineCommander::ask`](crate::EngineCommander::ask). The engine decides it exactly as a
//! hook's request (a policy deny answers without a card, a destructive call always asks, an
//! Always rule answers), as a card of the request's own session, and never makes a bird for it.
//! What a hook's connection would be sent goes to [`InAppRequest::reply`] instead.

use crate::messages::{AuditEntry, SessionKey};
use std::sync::Arc;
use vults_core::protocol::{Event, Message};

/// A connection's id, unique among every connection the engine serves: the hook socket's, each
/// SSH host's, and the in-app requests'.
pub type ConnId = u64;

/// A permission question from inside the app.
pub struct InAppRequest {
    /// Its own connection id, so it is withdrawn as a hook's is
    /// ([`EngineCommander::withdraw`](crate::EngineCommander::withdraw)).
    pub conn: ConnId,
    /// The request, as a hook would have sent it.
    pub event: Event,
    /// The session of its card (`zeca:<chat>`): no bird is made for it.
    pub session: SessionKey,
    /// Asked even while cards are paused: the person is typing in the window that asks.
    pub while_paused: bool,
    /// Where the engine's reply goes: called once, from the engine's thread.
    pub reply: Arc<dyn Fn(InAppReply) + Send + Sync>,
}

impl std::fmt::Debug for InAppRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InAppRequest")
            .field("conn", &self.conn)
            .field("event", &self.event.id)
            .field("session", &self.session)
            .field("while_paused", &self.while_paused)
            .finish_non_exhaustive()
    }
}

/// What the engine sends back for an [`InAppRequest`].
#[derive(Debug)]
pub enum InAppReply {
    /// The answer, and the audit line that says so: the asker hands the line back through
    /// [`EngineCommander::delivered`](crate::EngineCommander::delivered) once it knows
    /// whether its program got the answer (only then is it audited as given).
    Answered {
        /// A `decision` or an `answer`, as a hook would be sent.
        reply: Box<Message>,
        /// The audit line to hand back.
        entry: Box<AuditEntry>,
    },
    /// Nobody can answer it (no card could be shown, the app quits, it was withdrawn).
    Withdrawn,
}
