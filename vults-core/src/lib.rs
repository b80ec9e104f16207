//! Vults' logic, with no GUI and no async runtime.
//!
//! What lives here is shared by the tiny `vults-hook` binary and the app:
//!
//! - [`protocol`]: the wire, version 9 — every message, the limits, and how the hook
//!   builds and shapes an event ([`protocol::build_event`]).
//! - [`agents`]: one adapter per agent — read its native payload into a [`agents::ToolCall`]
//!   (session, folder, tool, the whole target) and render an answer in the shape it reads.
//! - [`answer`]: what a request is answered with ([`answer::Decision`], [`answer::AnswerItem`]).
//!
//! The modules import in one direction only: `answer` ← `agents` ← `protocol` ← the decision
//! modules (`tests/layering.rs` checks there is no cycle).
//! - [`paths`]: where every file and the socket live; `VULTS_HOME` / `VULTS_SOCKET` move them.
//! - `peer` (Unix): the user on the other end of a local socket, for the hook and the app.
//! - [`destructive`], [`rules`], [`policy`] and [`decision`]: the one decision point,
//!   [`decision::decide`], and what it reads.
//! - `shell` (crate-private): the shell parser [`destructive`] reads commands with.
//! - [`atomic`]: crash-safe file replacement used for rules, settings and agent configs.
//! - [`text`]: what is done to outside bytes before they are parsed (the BOM strip).
//!
//! Not here: sockets, threads, windows — those belong to `vults-hook` and `vults-app`.

#![warn(missing_docs)]

pub mod agents;
pub mod answer;
pub mod atomic;
pub mod decision;
pub mod destructive;
pub mod paths;
#[cfg(unix)]
pub mod peer;
pub mod policy;
pub mod protocol;
pub mod rules;
pub(crate) mod shell;
#[cfg(test)]
mod testing;
pub mod text;
