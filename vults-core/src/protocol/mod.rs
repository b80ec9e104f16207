//! The wire between `vults-hook` and the app, version 9: one JSON object per line.
//!
//! Hook → app: [`Event`]. App → hook, only when the event `wants_reply`: [`Message::Waiting`]
//! first (a person is being asked), then [`Message::Decision`] or [`Message::Answer`]; or
//! [`Message::Unsupported`] for an event of another version. `docs/hook-protocol.md` is the
//! spec; this module is its one implementation, and [`build_event`] is how the hook makes an
//! event from an agent's stdin (agent names, `zeca`, terminal, payload shaping, `wants_reply`).
//!
//! Where: the messages, their limits and how a line is read in `wire.rs`; the hook's event and
//! its shaping in `hook_event.rs`. This file only names them.

mod hook_event;
mod wire;

pub use hook_event::{
    ArgsError, Built, HookArgs, HookContext, build_event, cut_strings, resolve_agent, shape,
    statusline_payload, truncate_utf8,
};

pub use crate::agents::{AgentKind, resolve_cwd};
pub use crate::answer::{AnswerItem, DENY_MESSAGE, Decision, MAX_FEEDBACK};
pub use wire::{
    AgentName, Event, Identity, MAX_APPLY_PATCH, MAX_LINE, MAX_PATCH_LINES, MAX_PLAN, MAX_STRING,
    Message, NameError, ReadLine, SHORT_STRING, TERMINAL_ENV, Terminal, TooLarge, VERSION,
    WAITING_WITHIN_MS, read_line, timeouts,
};
