//! What went wrong with a host: [`Error`], whose `Display` is the one line (or, for a host
//! whose files Vults could not edit, the line and the reports) a person reads.

use crate::archive::ArchiveError;
use std::io;
use std::path::PathBuf;

/// Why a host could not be parsed, reached, added, removed or listed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `host:port` with something other than a port.
    #[error("{0:?} is not a port")]
    BadPort(String),
    /// A host part Vults cannot name its folders and sockets after.
    #[error(
        "{0:?} is not a host name Vults can use (2 to 64 letters, digits, '.', '-', '_'; an alias from ~/.ssh/config works)"
    )]
    BadHostName(String),
    /// Not `[user@]host` (an ssh flag, a space).
    #[error("{0:?} is not [user@]host")]
    BadTarget(String),
    /// ssh options with an open quote.
    #[error("a {quote} is not closed in {text:?}")]
    Unclosed {
        /// `'` or `"`.
        quote: char,
        /// The options as typed.
        text: String,
    },
    /// A `$HOME` the link's socket cannot live under.
    #[error(
        "its $HOME {0:?} is not one Vults can use (an absolute path without ':' or control characters, at most 60 bytes: the link's socket lives under it)"
    )]
    BadHome(String),
    /// `uname -sm` said something Vults does not know.
    #[error("cannot tell the host's system from `uname -sm`: {0:?}")]
    UnknownSystem(String),
    /// No `vults-hook` for the host's platform.
    #[error(
        "Vults has no vults-hook for {system} ({platform}): this app's own hook is for {local}. Build one for that host (cargo build -p vults-hook --release --target <its triple>) and put it at {} (or set VULTS_HOST_HOOKS to a folder holding {platform}/vults-hook).",
        looked.join(" or ")
    )]
    NoHook {
        /// The host's `uname -sm`.
        system: String,
        /// Its platform (`linux-aarch64`).
        platform: String,
        /// This machine's platform.
        local: String,
        /// Where a prebuilt hook was looked for.
        looked: Vec<String>,
    },
    /// `ssh` could not be started.
    #[error("cannot run ssh ({program}): {source}")]
    NoSsh {
        /// The ssh program.
        program: String,
        /// What the system said.
        source: io::Error,
    },
    /// ssh started but could not be waited for.
    #[error("ssh {target}: {source}")]
    SshLost {
        /// `[user@]host`.
        target: String,
        /// What the system said.
        source: io::Error,
    },
    /// ssh (or the script it ran) failed.
    #[error("ssh {target} failed ({status}): {said}{hint}")]
    SshFailed {
        /// `[user@]host`.
        target: String,
        /// How it exited.
        status: std::process::ExitStatus,
        /// Its stderr, trimmed.
        said: String,
        /// What a person can try (empty when nothing is known).
        hint: String,
    },
    /// `hosts.json` does not parse (it is never written over).
    #[error("{} does not parse: {source}; fix or remove it", path.display())]
    HostsUnparsable {
        /// The hosts file.
        path: PathBuf,
        /// The parser's words.
        source: serde_json::Error,
    },
    /// A file or folder that could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The hosts file could not be saved.
    #[error("cannot save {}: {source}", path.display())]
    Save {
        /// The hosts file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// No host of that name in the list.
    #[error("no host named {0:?} (vults-app remote list)")]
    NoSuchHost(String),
    /// Local work on the host's staged files failed.
    #[error("cannot {doing}: {source}")]
    Local {
        /// What Vults was doing ("stage .claude/settings.json").
        doing: String,
        /// What the system said.
        source: io::Error,
    },
    /// The installer did not place the hook copy in the staged files.
    #[error("the hook copy was not placed ({0}); see the reports")]
    HookNotPlaced(io::Error),
    /// A folder the host named cannot be staged.
    #[error("cannot stage {rel:?}: {why}")]
    CannotStage {
        /// The folder, relative to the host's home.
        rel: String,
        /// Why, in words.
        why: String,
    },
    /// A symlink appeared in the staging folder.
    #[error("{} is a symlink in Vults' staging folder: refused", .0.display())]
    StagedSymlink(PathBuf),
    /// The host did not answer the probe as a Unix host does.
    #[error("{host} did not answer as a Unix host (uname -sm / $HOME): {said:?}")]
    NotUnix {
        /// The host's name.
        host: String,
        /// What it answered.
        said: String,
    },
    /// The host named a folder Vults did not ask about.
    #[error(
        "{host} answered a folder Vults did not ask about ({folder:?}): refused; is the host compromised?"
    )]
    UnaskedFolder {
        /// The host's name.
        host: String,
        /// The folder.
        folder: String,
    },
    /// The host's archive of config files was refused.
    #[error("{host}: {source}; nothing was changed, here or there")]
    Archive {
        /// The host's name.
        host: String,
        /// Why.
        source: ArchiveError,
    },
    /// Something about one host.
    #[error("{host}: {source}")]
    OnHost {
        /// The host's name.
        host: String,
        /// What.
        source: Box<Error>,
    },
    /// A file could not be written on the host.
    #[error("cannot write {rel} on {host}: {source}")]
    Write {
        /// The file, relative to the host's home.
        rel: String,
        /// The host's name.
        host: String,
        /// Why.
        source: Box<Error>,
    },
    /// Vults' folders on the host are not safe to use.
    #[error(
        "{host}: {why}: refused. Vults' folders there must be the host user's and writable by no one else, or another user could replace the hook or answer its agents; fix that (or remove the folder) and add the host again"
    )]
    UnsafeFolder {
        /// The host's name.
        host: String,
        /// What the check found.
        why: String,
    },
    /// The folder check did not finish.
    #[error("{host}: could not check Vults' folders there: {said:?}")]
    FoldersUnchecked {
        /// The host's name.
        host: String,
        /// What the host answered.
        said: String,
    },
    /// The uploaded hook is not the one sent.
    #[error("the hook on {host} has SHA-256 {there}, not {sent} as uploaded; nothing registered")]
    HookDiffers {
        /// The host's name.
        host: String,
        /// Its SHA-256 there.
        there: String,
        /// The SHA-256 sent.
        sent: String,
    },
    /// Some agents' files could not be edited: the hook and the host stay.
    #[error(
        "{host}: could not take Vults out of {} (see the reports); the hook stays on the host and the host in the list\n{reports}",
        agents.join(", ")
    )]
    Stuck {
        /// The host's name.
        host: String,
        /// The agents, by the names people know.
        agents: Vec<String>,
        /// The installer's reports.
        reports: String,
    },
    /// The host could not be reached to remove Vults from it.
    #[error(
        "{source}\n(to forget a host you cannot reach, touching nothing on it: vults-app remote remove --forget {name})"
    )]
    Unreachable {
        /// The host's name.
        name: String,
        /// Why.
        source: Box<Error>,
    },
}
