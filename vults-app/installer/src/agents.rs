//! What the installer writes for each agent, from its row in the agent table
//! ([`vults_core::agents::AGENTS`]): the file it keeps ([`Target`], found by `locate`), how that
//! file is kept ([`Kind`], from the row's [`Format`]), and Vults' hook entries, event by event
//! ([`wanted_entries`]). Nothing here names an agent: a new agent in a format the installer
//! speaks is its row alone (docs/adding-an-agent.md).

use super::entries::Shape;
use super::windows;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use vults_core::agents::{Agent, Format, HookEntry, Install};

/// How the agent's configuration is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Kind {
    /// A JSON file with a `hooks` object.
    Json {
        shape: Shape,
        version: bool,
    },
    /// Codex's `config.toml` `[hooks]`.
    CodexToml,
    /// Kimi Code's `config.toml` `[[hooks]]`.
    KimiToml,
    OpencodePlugin,
}

impl Kind {
    pub(super) fn of(format: Format) -> Kind {
        match format {
            Format::JsonGrouped => Kind::Json {
                shape: Shape::Grouped,
                version: false,
            },
            Format::JsonFlat { version, .. } => Kind::Json {
                shape: Shape::Flat,
                version,
            },
            Format::CodexToml => Kind::CodexToml,
            Format::KimiToml => Kind::KimiToml,
            Format::OpencodePlugin => Kind::OpencodePlugin,
        }
    }
}

/// Where an agent is looked for and what Vults writes there.
#[derive(Debug, Clone)]
pub(super) struct Target {
    pub(super) agent: Agent,
    /// Its config home: when this does not exist, the agent is not on this machine.
    pub(super) home: PathBuf,
    pub(super) file: PathBuf,
    pub(super) kind: Kind,
    /// How that file is kept, as the row says.
    pub(super) format: Format,
}

/// The agents the installer knows: those whose row says where their configuration lives.
pub fn installed_agents() -> impl Iterator<Item = Agent> {
    Agent::ALL
        .into_iter()
        .filter(|a| a.spec().install.is_some())
}

/// The agent the installer knows by its `--agent` name (not one it does not install into).
pub fn agent_named(name: &str) -> Option<Agent> {
    Agent::parse(name).filter(|a| a.spec().install.is_some())
}

/// Whether Vults installs into `agent` on an SSH host (`vults-remote`): every agent it installs
/// into but OpenCode, whose plugin runs the hook without a shell, so it cannot be told where a
/// host's Vults folder is (docs/hosts.md). Decided by the row's format, not its name.
pub fn on_hosts(agent: Agent) -> bool {
    agent.spec().install.is_some_and(|i| {
        !matches!(
            i.file,
            vults_core::agents::ConfigFile::One(_, Format::OpencodePlugin)
        )
    })
}

/// The row's install facts; every agent the installer is handed has them ([`installed_agents`]).
pub(super) fn install_of(agent: Agent) -> Install {
    agent
        .spec()
        .install
        .unwrap_or_else(|| panic!("{} has no install facts in the agent table", agent.name()))
}

/// The hook's path as a shell word: quoted when it holds anything but plain path characters.
pub fn shell_path(path: &Path) -> String {
    let s = path.to_string_lossy();
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%=\\".contains(c));
    if plain {
        s.into_owned()
    } else if cfg!(windows) {
        format!("\"{s}\"")
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Vults' entries for `agent`, in order.
pub(super) fn wants(agent: Agent) -> &'static [HookEntry] {
    install_of(agent).entries
}

/// ` --ask` for the AskUserQuestion entry, else nothing.
fn flags(w: &HookEntry) -> &'static str {
    if w.ask { " --ask" } else { "" }
}

pub(super) fn command(hook: &str, agent: Agent, w: &HookEntry) -> String {
    format!("{hook} --agent {}{} {}", agent.name(), flags(w), w.event)
}

/// The hook's arguments for one entry (`--agent <id> [--ask] <event>`).
fn hook_args(agent: Agent, w: &HookEntry) -> Vec<String> {
    ["--agent", agent.name()]
        .into_iter()
        .chain(flags(w).split_whitespace())
        .chain([w.event])
        .map(String::from)
        .collect()
}

/// Vults' entries for an agent whose file is kept in `format` (a TOML file's `[hooks]` tables
/// are grouped as [`Format::JsonGrouped`] is), event by event in order. `hook_word`: what a command
/// starts with (the installed hook's path as a shell word, or for an SSH host, the same with its
/// `VULTS_HOME=…` before it); `hook_path`: the installed hook's path (on Windows in the form
/// each agent's runner needs, see [`windows`]).
pub(super) fn wanted_entries(
    agent: Agent,
    format: Format,
    hook_word: &str,
    hook_path: &str,
) -> Vec<(String, Vec<Value>)> {
    let hook = hook_word;
    let install = install_of(agent);
    let mut out: Vec<(String, Vec<Value>)> = Vec::new();
    for w in wants(agent) {
        let cmd = command(hook, agent, w);
        let timeout = w.timeout.seconds();
        let on_windows = if cfg!(windows) {
            windows::handler(
                install.windows,
                Path::new(hook_path),
                &hook_args(agent, w),
                timeout,
            )
        } else {
            None
        };
        let entry = match format {
            Format::JsonFlat {
                command_key,
                timeout_key,
                typed,
                ..
            } => on_windows.unwrap_or_else(|| {
                let mut handler = Map::new();
                if typed {
                    handler.insert("type".into(), json!("command"));
                }
                handler.insert(command_key.into(), json!(cmd));
                handler.insert(timeout_key.into(), json!(timeout));
                Value::Object(handler)
            }),
            _ => {
                let mut group = Map::new();
                if let Some(m) = w.matcher {
                    group.insert("matcher".into(), json!(m));
                }
                let handler = on_windows.unwrap_or_else(
                    || json!({"type": "command", "command": cmd, "timeout": timeout}),
                );
                group.insert("hooks".into(), json!([handler]));
                Value::Object(group)
            }
        };
        match out.iter_mut().find(|(e, _)| e == w.event) {
            Some((_, list)) => list.push(entry),
            None => out.push((w.event.to_string(), vec![entry])),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_installer_knows_every_row_with_install_facts() {
        let known: Vec<Agent> = installed_agents().collect();
        assert_eq!(
            known,
            [
                Agent::Claude,
                Agent::Codex,
                Agent::Copilot,
                Agent::Qwen,
                Agent::Opencode,
                Agent::Cursor,
                Agent::Droid,
                Agent::Kimi,
                Agent::Gemini
            ]
        );
    }
}
