//! What Zeca's public functions say when they fail, each `Display` the one line a person (or
//! the log) reads: [`LineError`] (a chat CLI's line), [`StoreError`] (a chat or the settings not
//! saved) and [`TaskError`] (a task that did not start).

use std::path::PathBuf;

/// A line of a chat CLI's output that is not one of its messages.
#[derive(Debug, thiserror::Error)]
#[error("not JSON ({0})")]
pub struct LineError(#[from] pub serde_json::Error);

/// Why a chat or Zeca's settings were not saved.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A chat id that cannot name a file.
    #[error("chat {0:?} not saved: not a valid id")]
    InvalidId(String),
    /// It could not be written as JSON.
    #[error("{0}")]
    Encode(#[from] serde_json::Error),
    /// The chat's file could not be written.
    #[error("cannot save the chat to {}: {source}", path.display())]
    Chat {
        /// The chat's file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The settings file there did not parse: it is not written over.
    #[error(
        "{} did not parse, so it is not written over; these settings hold until Vults quits",
        .0.display()
    )]
    SettingsUnparsed(PathBuf),
    /// The settings file could not be written.
    #[error("cannot save {}: {source}", path.display())]
    Settings {
        /// The settings file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

/// Why a task did not start.
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    /// The task's folder is not there.
    #[error("the folder {0:?} does not exist")]
    NoFolder(String),
    /// The task's log could not be opened.
    #[error("{}: {source}", path.display())]
    Log {
        /// The log file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The agent's program did not start.
    #[error("{}: {source}", program.display())]
    Spawn {
        /// The program.
        program: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// No terminal emulator to open it in.
    #[error("no terminal emulator found; set one in the Chat's settings (e.g. `xterm -e`)")]
    NoTerminal,
    /// The terminal emulator did not start.
    #[error("cannot open the terminal: {0}")]
    Terminal(std::io::Error),
    /// Anything else the system refused (a folder, a thread, a script file).
    #[error("{0}")]
    Io(#[from] std::io::Error),
}
