//! Zeca, the app's own chat: drives the user's Claude Code headless with stream-json both ways
//! (`docs/zeca.md`), asks its own cards, and starts tasks.
//!
//! - [`stream`]: the stream-json lines, read and written.
//! - [`store`]: conversations under the data folder and the chat's settings, written atomically.
//! - [`process`]: one CLI process (its own process group), read and written by threads of its
//!   own, so neither the engine's core nor the window ever waits on it.
//! - [`task`]: tasks: an agent in the user's terminal emulator, or headless, with `VULTS_TASK`.
//! - `conversation`: a conversation's items ([`Entry`]), the chat's settings, what a task runs;
//!   `note`: what the processes report ([`Note`]); `driver`: the chat's thread, which owns the
//!   conversations and their CLIs ([`ZecaHandle`]). This file only names them.
//!
//! Start from [`ZecaHandle::start`]: the chat runs on a thread of its own. The window sends
//! [`ChatCommand`]s ([`ZecaHandle::send`]) and reads [`ChatEvent`]s ([`ZecaHandle::events`]);
//! the processes report [`Note`]s to that thread. A `can_use_tool` becomes an
//! [`vults_engine::InAppRequest`] sent through the engine's commander: the engine
//! puts it through the one decision point exactly like a hook's request (a policy deny answers
//! without a card, a destructive call always asks, Always rules answer), as a card of the
//! session `zeca:<chat>` that the window shows inline in the chat. The answer comes back as
//! [`Note::Answered`] and goes to the CLI's stdin as a `control_response`, never through the
//! hook socket. The engine knows nothing of chats: only of the requests this crate sends it.

#![warn(missing_docs)]

pub mod codex;
mod conversation;
mod driver;
mod error;
mod note;
pub mod process;
pub mod store;
pub mod stream;
pub mod task;
pub mod tool;

pub use conversation::{
    ChatId, Conversation, Entry, TaskSpec, ZecaSettings, chat_agent, chat_of_session, session_of,
};
pub use driver::{ChatCommand, ChatEvent, DENIED, IDLE_AFTER, ZecaHandle, ZecaOptions};
pub use error::{LineError, StoreError, TaskError};
pub use note::{Note, Sink};
