//! What the processes (the CLI's, a headless task's) and the engine's replies report to the
//! chat's thread ([`Note`]), and where they send it ([`Sink`]).

use super::conversation::ChatId;
use std::sync::Arc;
use vults_core::protocol::Message;
use vults_engine::messages::AuditEntry;

/// What the processes (and the engine's replies) report to the chat's thread.
#[derive(Debug)]
pub enum Note {
    /// One line the CLI wrote on stdout.
    Line {
        /// The conversation whose CLI wrote it.
        chat: ChatId,
        /// Which start of the CLI it came from ([`crate::process::Proc::run`]): a stopped one's late lines
        /// are dropped.
        run: u64,
        /// The line, without its newline.
        line: String,
    },
    /// The CLI's process ended.
    Exited {
        /// The conversation whose CLI ended.
        chat: ChatId,
        /// Which start of the CLI ended ([`crate::process::Proc::run`]).
        run: u64,
        /// Its exit status, with the last words it wrote on stderr.
        status: String,
    },
    /// The engine's answer to a question the CLI asked, and its audit line (written once delivered).
    Answered {
        /// The conversation that asked.
        chat: ChatId,
        /// The CLI's id of the question, which its `control_response` names.
        request_id: String,
        /// The engine's reply (a decision, or answers).
        reply: Box<Message>,
        /// The line for the audit log.
        entry: Box<AuditEntry>,
    },
    /// The card was withdrawn (nobody can answer now): the CLI is told no.
    Withdrawn {
        /// The conversation that asked.
        chat: ChatId,
        /// The CLI's id of the question.
        request_id: String,
    },
    /// A task started headless ended.
    TaskExited {
        /// The conversation that started it.
        chat: ChatId,
        /// The task's id.
        task: String,
        /// Its exit status, with the last line it wrote when it failed.
        status: String,
    },
}

/// Where the processes' notes go (the chat's thread).
pub type Sink = Arc<dyn Fn(Note) + Send + Sync>;
