//! The engine over a real socket, with the real `vults-hook` where an agent would run it.
//! One test binary (modules below) to save link time.
//!
//! Unix only: it checks socket files, their modes and peer uids. The Windows named pipe has
//! its own suite, `tests/windows/pipe.rs`, run under Wine by `.ci/cross.sh`.
#![cfg(unix)]

mod cards;
mod common;
mod crash;
mod hosts;
mod load;
mod named_tools;
mod requests;
mod socket;
mod truth;
