//! What the core task is handed ([`Input`]) and what it hands a connection's writer
//! ([`Outgoing`]): the vocabulary between the runtime's tasks and the card state machine.

use crate::in_app::{ConnId, InAppRequest};
use crate::messages::{AuditEntry, EngineCommand, SessionKey};
use tokio::sync::mpsc;
use vults_core::protocol::{Event, Message};

/// What a connection's writer is asked to do.
pub(crate) enum Outgoing {
    /// Boxed: a [`Message`] can hold a whole event, and most of these are `Close`-sized.
    Line(Box<Message>),
    /// The answer to the request (a decision or answers) and the audit line that says so. The
    /// writer hands the line back as [`Input::Delivered`] once it knows whether the hook got
    /// the answer: only then is it audited as given.
    Answer(Box<Message>, Box<AuditEntry>),
    /// Close the connection (the hook prints nothing).
    Close,
}

/// Everything the core task reacts to.
pub(crate) enum Input {
    Event {
        conn: ConnId,
        event: Box<Event>,
        reply: mpsc::UnboundedSender<Outgoing>,
    },
    Closed(ConnId),
    /// An [`Outgoing::Answer`]'s audit line: `delivered` when the write succeeded to a hook that
    /// had not gone away.
    Delivered {
        entry: Box<AuditEntry>,
        delivered: bool,
    },
    Command(EngineCommand),
    Notice(crate::messages::Notice),
    /// An ended session's linger is over.
    Expire(SessionKey),
    /// A request from inside the app (the chat).
    InApp(InAppRequest),
}
