#![warn(missing_docs)]
//! The installer: puts `vults-hook` into each agent's own configuration, keeps it there, and
//! takes it out again — without losing a byte of anything else.
//!
//! Start from [`install_all`] (run on every app start, and by `vults-app install`),
//! [`uninstall_all`] (`vults-app --uninstall`), [`doctor`] (read-only, `vults-app doctor`) and
//! [`first_run_message`]. Each returns one [`AgentReport`] per agent.
//!
//! The promises:
//! - agents' configs run an absolute path to a Vults-owned copy of the hook whose SHA-256 is
//!   recorded ([`state`]); a copy whose hash changed is reported tampered and replaced;
//! - a file that does not parse is never rewritten: its state says where (line, column);
//! - a `.bak` before the first change, atomic writes that keep permissions and follow symlinks,
//!   a re-read to verify ([`jsonfile`]);
//! - only Vults' own entries are added, updated or removed; other tools' hooks, unknown keys
//!   and key order stay ([`entries`]); a second run changes no byte;
//! - uninstall removes exactly what was added, and gives Claude Code its own status line back.
//!
//! Where the parts live: the agent table and the entries wanted (`agents`), where each agent's
//! file is (`locate`), one call's shared state (`run`), installing into
//! JSON-kept agents (`json_agent`), TOML-kept ones (`tomlfile`), OpenCode's plugin
//! (`opencode`), and the report texts ([`format_reports`], [`first_run_message`]).
//!
//! Not here: what the hook does at run time (`vults-hook`), or the window's Settings → Agents
//! view, which shows these reports.

mod agents;
pub mod autostart;
pub mod doctor;
pub mod entries;
mod json_agent;
pub mod jsonfile;
mod locate;
mod opencode;
mod report;
mod run;
pub mod state;
mod tomlfile;
pub mod watch;
pub mod welcome;
pub mod window_prefs;
pub mod windows;

pub use agents::{agent_named, installed_agents, on_hosts, shell_path};
pub use report::{
    Action, AgentReport, AgentState, FirstRun, ToDo, first_run, first_run_message, format_reports,
};
pub use vults_core::agents::Agent;

mod install;
pub use install::{
    HookAt, InstallOptions, StartReport, config_files, default_hook_source, doctor, doctor_against,
    install_all, on_app_start, remove_leftovers, repair, uninstall_all,
};
