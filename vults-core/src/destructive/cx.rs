//! What every family is told about the command it judges ([`Cx`]: where it runs, and how to
//! read a command found inside it), and the answers any of them may give.

use crate::shell::Word;

/// What [`super::classify`] says when it cannot take a command apart.
pub const UNPARSABLE: &str = "unparsable command";
/// A program whose name is only known when the command runs (`$CMD args`, `"$(which rm)" …`).
pub const RUNTIME_PROGRAM: &str = "program chosen at run time";

/// What the classifier knows about where a command runs, and how it reads a command found
/// inside one (`bash -c '…'`, `find -exec rm`, a git alias): a family hands that back through
/// [`Cx::command`] or [`Cx::words`], one level deeper, and so imports no walk of its own.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cx<'a> {
    /// The project folder (the agent's working directory), when the call says.
    pub(super) project: Option<&'a str>,
    /// A `cd` in the same script goes outside the project: relative paths may be anywhere.
    pub(super) away: bool,
    /// The command runs once per item something else found (`find -exec`, `xargs`): a plain
    /// `rm` then deletes in bulk. Says which.
    pub(super) fed: Option<&'static str>,
    /// Why a command line is destructive, at a depth.
    pub(super) command: fn(&str, usize, Cx) -> Option<String>,
    /// Why one simple command's words (and what it reads on stdin) are destructive, at a depth.
    pub(super) words: fn(&[Word], &[Word], usize, Cx) -> Option<String>,
}
