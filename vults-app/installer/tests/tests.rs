//! The installer as a user meets it: a corpus of real-world agent settings files (install keeps
//! everything else in order, a second install changes no byte, uninstall gives the original
//! back, a file that does not parse is never touched), its promises one at a time (symlinks,
//! tampering, outdated entries, Settings → Agents switches, the first-run message, the CLI),
//! and `kill -9` in the middle of writing.

mod common;
mod corpus;
mod doctor;
mod kill;
mod promises;
mod truth;
mod watch;
