//! Named tools (docs/hook-protocol.md §7): tools of one's own ask with `vults-hook --agent <name>
//! --reply vults PermissionRequest` and get a card, answered `{"decision":"allow"}` or
//! `{"decision":"deny",…}`; anything else means "ask the user yourself".
//!
//! A real engine in-process on a real socket in a temporary `VULTS_HOME`, the real
//! `vults-hook` binary, and the real `examples/` scripts as subprocesses (each killed at a
//! bound, so nothing hangs). Clicks are `EngineCommand::Answer`s, as the window sends them.
#![cfg(unix)]

mod examples;
mod rules;
mod support;
mod wire;
