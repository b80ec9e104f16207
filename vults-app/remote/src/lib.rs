//! Agents on SSH hosts (docs/hosts.md), answered from this app.
//!
//! - [`HostList`]: the hosts, kept in `hosts.json` in the data folder (atomic writes; a file that
//!   does not parse is reported and never rewritten); with [`Host`], ssh's words and the hook
//!   for a host's platform, in `host.rs`.
//! - [`install`]: `vults-app remote add` / `remove` — places a `vults-hook` for the host's OS and
//!   architecture in the host's data folder (SHA-256 recorded and checked after the upload) and
//!   registers it in the agents found there with the installer's own code and rules, run on a
//!   local copy of the host's files that is written back file by file, atomically.
//! - [`link`]: while the app runs, one `ssh -N -R <host socket>:<local socket>` per host,
//!   reconnected with backoff; each host has its own local socket, so the engine knows which
//!   host a hook call came from (its folder becomes `host:/path`).
//! - `vults-app remote add|remove|list` (the app's `cli/remote.rs`) drives [`install`].
//!
//! Everything goes through the user's own `ssh` client, so `~/.ssh/config`, agents, jump hosts
//! and keys work as usual. The host needs `sh`, `tar`, `uname` and `sha256sum` (or `shasum`);
//! no Rust toolchain and no GUI library.

#![warn(missing_docs)]

pub mod archive;
pub mod background;
mod error;
mod host;
pub mod install;
pub mod link;

pub use archive::ArchiveError;
pub use error::Error;
pub use host::{
    HOST_VULTS_HOME, Host, HostList, check_home, hook_for, local_platform, platform_of,
    prebuilt_hook_dirs, shell_quote, split_options, ssh_program, work_dir,
};
