//! The engine over a real socket, with the real `vults-hook` where an agent would run it.
//! One test binary (modules below) to save link time.
//!
//! Portable (run under Wine by `.ci/cross.sh`, over the real named pipe): cards, requests
//! (rules, policies, audit, questions, named tools, too large), load. The rest are Unix only,
//! each for its reason below. The Windows pipe's own promises (its owner, its ACL, 64 hooks at
//! once) are `tests/windows/pipe.rs`.

mod cards;
mod common;
/// Unix only: it kills the app with SIGKILL / SIGTERM mid-write and checks what survived.
#[cfg(unix)]
mod crash;
/// Unix only: an SSH host's socket is a Unix socket forwarded by ssh (hosts are Unix machines).
#[cfg(unix)]
mod hosts;
mod load;
/// Unix only: the named-tool examples are `sh` and `node` scripts run as a Unix user would.
#[cfg(unix)]
mod named_tools;
mod requests;
/// Unix only: socket files, their modes and peer uids (the pipe's are `tests/windows/pipe.rs`).
#[cfg(unix)]
mod socket;
/// Portable: any number of subscribers, one stalled 30 s, one panicking, one made late.
mod subscribers;
/// Unix only: it freezes the app with SIGSTOP and checks file modes and the umask.
#[cfg(unix)]
mod truth;
