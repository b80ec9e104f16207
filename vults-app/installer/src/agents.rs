//! The agents the installer knows, and what it writes for each: where an agent's configuration
//! lives ([`target`]), how it is kept ([`Kind`]), and Vults' hook entries, event by event
//! ([`wants`], [`wanted_entries`]).

use super::entries::Shape;
use super::{opencode, tomlfile, windows};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use vults_core::agents::AgentSpec;
use vults_core::paths::Paths;
use vults_core::protocol::timeouts::{ASK_ENTRY_S, OTHER_ENTRY_S, PERMISSION_ENTRY_S};

/// Every agent the installer knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AgentId {
    Claude,
    Codex,
    Copilot,
    Qwen,
    Opencode,
    Cursor,
    Droid,
    Kimi,
    /// Only leftovers: Gemini CLI hooks are no longer installed (the hook sends nothing).
    Gemini,
}

impl AgentId {
    pub const ALL: [AgentId; 9] = [
        AgentId::Claude,
        AgentId::Codex,
        AgentId::Copilot,
        AgentId::Qwen,
        AgentId::Opencode,
        AgentId::Cursor,
        AgentId::Droid,
        AgentId::Kimi,
        AgentId::Gemini,
    ];

    /// The name `--agent` takes, and the key in `settings.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentId::Claude => "claude",
            AgentId::Codex => "codex",
            AgentId::Copilot => "copilot",
            AgentId::Qwen => "qwen",
            AgentId::Opencode => "opencode",
            AgentId::Cursor => "cursor",
            AgentId::Droid => "droid",
            AgentId::Kimi => "kimi",
            AgentId::Gemini => "gemini",
        }
    }

    pub fn parse(s: &str) -> Option<AgentId> {
        AgentId::ALL.into_iter().find(|a| a.as_str() == s)
    }

    /// Its row in the agent table ([`vults_core::agents::AGENTS`]).
    pub fn spec(self) -> &'static AgentSpec {
        // Every installer agent has a row (the_installer_agents_are_rows_of_the_agent_table).
        vults_core::agents::spec(self.as_str()).unwrap_or(&vults_core::agents::AGENTS[0])
    }

    /// The name people know it by.
    pub fn display_name(self) -> &'static str {
        self.spec().display_name
    }

    /// Whether Vults answers this agent's permission requests (the others only show sessions).
    pub fn answers_permissions(self) -> bool {
        self.spec().reply.is_some()
    }
}

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

/// Where an agent is looked for and what Vults writes there.
#[derive(Debug, Clone)]
pub(super) struct Target {
    pub(super) agent: AgentId,
    /// Its config home: when this does not exist, the agent is not on this machine.
    pub(super) home: PathBuf,
    pub(super) file: PathBuf,
    pub(super) kind: Kind,
}

/// A directory an agent lets the user move with an environment variable (`COPILOT_HOME` …).
/// When the agents' home is not the user's own (`VULTS_HOME`, `VULTS_AGENT_HOME`, a test), a
/// variable pointing outside it is ignored, so a test never touches a real home.
fn env_dir(paths: &Paths, var: &str) -> Option<PathBuf> {
    let dir = std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)?;
    let own_home = std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .is_some_and(|h| Path::new(&h) == paths.agent_home);
    (own_home || dir.starts_with(&paths.agent_home)).then_some(dir)
}

/// An agent's config home, as its row in the agent table says: under the agents' home, unless
/// the agent's own variable moves it ([`env_dir`]).
fn config_home(paths: &Paths, agent: AgentId) -> PathBuf {
    let Some(home) = agent.spec().config_home else {
        // Every installer agent has one (the_installer_agents_are_rows_of_the_agent_table).
        return paths.agent_home.join(agent.as_str());
    };
    if let Some((var, sub)) = home.env
        && let Some(dir) = env_dir(paths, var)
    {
        return if sub.is_empty() { dir } else { dir.join(sub) };
    }
    home.dir
        .iter()
        .fold(paths.agent_home.clone(), |path, part| path.join(part))
}

/// Where Vults writes for `agent`: the file in its config home, and how that file is kept.
pub(super) fn target(paths: &Paths, agent: AgentId) -> Target {
    let home = config_home(paths, agent);
    let grouped = Kind::Json {
        shape: Shape::Grouped,
        version: false,
    };
    let (file, kind) = match agent {
        AgentId::Claude | AgentId::Qwen | AgentId::Gemini => (home.join("settings.json"), grouped),
        AgentId::Codex => {
            let json = home.join("hooks.json");
            let toml = home.join("config.toml");
            // The user keeps hooks in config.toml when it has a [hooks] event list and no
            // hooks.json exists; otherwise hooks.json (what Codex documents first).
            if !json.exists() && tomlfile::codex_has_hooks(&toml) {
                (toml, Kind::CodexToml)
            } else {
                (json, grouped)
            }
        }
        AgentId::Copilot => (
            home.join("settings.json"),
            Kind::Json {
                shape: Shape::Flat,
                version: false,
            },
        ),
        AgentId::Opencode => (opencode::plugin_file(&home), Kind::OpencodePlugin),
        AgentId::Cursor => (
            home.join("hooks.json"),
            Kind::Json {
                shape: Shape::Flat,
                version: true,
            },
        ),
        AgentId::Droid => {
            // Droid reads settings.json's hooks only while hooks.json is absent: creating
            // hooks.json would silence the user's own hooks, so it is used only if it exists.
            let json = home.join("hooks.json");
            let file = if json.exists() {
                json
            } else {
                home.join("settings.json")
            };
            (file, grouped)
        }
        AgentId::Kimi => (home.join("config.toml"), Kind::KimiToml),
    };
    Target {
        agent,
        home,
        file,
        kind,
    }
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

/// One hook entry Vults wants: its event, optional matcher, flags and timeout.
pub(super) struct Want {
    pub(super) event: &'static str,
    pub(super) matcher: Option<&'static str>,
    pub(super) flags: &'static str,
    pub(super) timeout: u64,
}

const fn want(event: &'static str, matcher: Option<&'static str>, timeout: u64) -> Want {
    Want {
        event,
        matcher,
        flags: "",
        timeout,
    }
}

const T: u64 = OTHER_ENTRY_S;
const P: u64 = PERMISSION_ENTRY_S;
const ALL_TOOLS: Option<&str> = Some("*");

pub(super) fn wants(agent: AgentId) -> Vec<Want> {
    match agent {
        AgentId::Claude => vec![
            want("SessionStart", None, T),
            want("UserPromptSubmit", None, T),
            want("PreToolUse", ALL_TOOLS, T),
            Want {
                event: "PreToolUse",
                matcher: Some("AskUserQuestion"),
                flags: " --ask",
                timeout: ASK_ENTRY_S,
            },
            want("PermissionRequest", ALL_TOOLS, P),
            want("PostToolUse", ALL_TOOLS, T),
            // A call that ran and failed after the user allowed it in Claude Code's own dialog:
            // its card is withdrawn as answered in the terminal.
            want("PostToolUseFailure", ALL_TOOLS, T),
            want("Notification", None, T),
            want("Stop", None, T),
            want("SubagentStop", None, T),
            want("PreCompact", None, T),
            want("SessionEnd", None, T),
        ],
        // The events Codex 0.169 was seen to run. It clamps SessionEnd to 3 s (with a warning
        // otherwise); no matcher keeps the trust hash the user reviews in /hooks simple.
        AgentId::Codex => vec![
            want("SessionStart", None, T),
            want("UserPromptSubmit", None, T),
            want("PreToolUse", None, T),
            want("PermissionRequest", None, P),
            want("PostToolUse", None, T),
            want("Stop", None, T),
            want("SessionEnd", None, 3),
        ],
        AgentId::Copilot => vec![
            want("sessionStart", None, T),
            want("userPromptSubmitted", None, T),
            want("preToolUse", None, T),
            want("permissionRequest", None, P),
            want("postToolUse", None, T),
            want("notification", None, T),
            want("errorOccurred", None, T),
            want("agentStop", None, T),
            want("subagentStop", None, T),
            want("sessionEnd", None, T),
        ],
        // Seconds below 1000 (Qwen reads larger values as legacy milliseconds).
        AgentId::Qwen => vec![
            want("SessionStart", None, T),
            want("UserPromptSubmit", None, T),
            want("PreToolUse", ALL_TOOLS, T),
            want("PermissionRequest", ALL_TOOLS, P),
            want("PostToolUse", ALL_TOOLS, T),
            want("PostToolUseFailure", ALL_TOOLS, T),
            want("Notification", None, T),
            want("Stop", None, T),
            want("SubagentStop", None, T),
            want("PreCompact", None, T),
            want("SessionEnd", None, T),
        ],
        AgentId::Cursor => vec![
            want("sessionStart", None, T),
            want("beforeSubmitPrompt", None, T),
            want("preToolUse", None, T),
            want("postToolUse", None, T),
            want("subagentStop", None, T),
            want("preCompact", None, T),
            want("stop", None, T),
            want("sessionEnd", None, T),
        ],
        AgentId::Droid | AgentId::Kimi => vec![
            want("SessionStart", None, T),
            want("UserPromptSubmit", None, T),
            want("PreToolUse", ALL_TOOLS, T),
            want("PostToolUse", ALL_TOOLS, T),
            want("Notification", None, T),
            want("Stop", None, T),
            want("SubagentStop", None, T),
            want("PreCompact", None, T),
            want("SessionEnd", None, T),
        ],
        AgentId::Opencode | AgentId::Gemini => Vec::new(),
    }
}

pub(super) fn command(hook: &str, agent: AgentId, w: &Want) -> String {
    format!("{hook} --agent {}{} {}", agent.as_str(), w.flags, w.event)
}

/// The hook's arguments for one entry (`--agent <id> [--ask] <event>`).
fn hook_args(agent: AgentId, w: &Want) -> Vec<String> {
    ["--agent", agent.as_str()]
        .into_iter()
        .chain(w.flags.split_whitespace())
        .chain([w.event])
        .map(String::from)
        .collect()
}

/// Vults' entries for a JSON-kept agent, event by event in order. `hook_word`: what a command
/// starts with (the installed hook's path as a shell word, or for an SSH host, the same with its
/// `VULTS_HOME=…` before it); `hook_path`: the installed hook's path (on Windows in the form
/// each agent's runner needs, see [`windows`]).
pub(super) fn wanted_entries(
    agent: AgentId,
    shape: Shape,
    hook_word: &str,
    hook_path: &str,
) -> Vec<(String, Vec<Value>)> {
    let hook = hook_word;
    let mut out: Vec<(String, Vec<Value>)> = Vec::new();
    for w in wants(agent) {
        let cmd = command(hook, agent, &w);
        let on_windows = if cfg!(windows) {
            windows::handler(
                agent,
                Path::new(hook_path),
                &hook_args(agent, &w),
                w.timeout,
            )
        } else {
            None
        };
        let entry = match (shape, agent) {
            (Shape::Grouped, _) => {
                let mut group = Map::new();
                if let Some(m) = w.matcher {
                    group.insert("matcher".into(), json!(m));
                }
                let handler = on_windows.unwrap_or_else(
                    || json!({"type": "command", "command": cmd, "timeout": w.timeout}),
                );
                group.insert("hooks".into(), json!([handler]));
                Value::Object(group)
            }
            // What the real CLI ran: the command under the shell's own key, timeoutSec (on
            // Windows, `powershell`).
            (Shape::Flat, AgentId::Copilot) => on_windows.unwrap_or_else(
                || json!({"type": "command", "bash": cmd, "timeoutSec": w.timeout}),
            ),
            (Shape::Flat, _) => json!({"command": cmd, "timeout": w.timeout}),
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
    fn the_installer_agents_are_rows_of_the_agent_table() {
        for agent in AgentId::ALL {
            let row = vults_core::agents::spec(agent.as_str()).expect("a row");
            assert!(row.config_home.is_some(), "{}", row.name);
        }
        let answered: Vec<_> = AgentId::ALL
            .into_iter()
            .filter(|a| a.answers_permissions())
            .collect();
        assert_eq!(
            answered,
            [
                AgentId::Claude,
                AgentId::Codex,
                AgentId::Copilot,
                AgentId::Qwen,
                AgentId::Opencode
            ]
        );
        assert_eq!(AgentId::Droid.display_name(), "Factory Droid");
    }

    #[test]
    fn config_homes_come_from_the_table() {
        // An agents' home that is not the user's own: the agents' variables are ignored.
        let h = PathBuf::from("/nonexistent-vults-agent-home");
        let paths = Paths::resolve(|k| match k {
            "VULTS_HOME" => Some(PathBuf::from("/nonexistent-vults-home")),
            "VULTS_AGENT_HOME" => Some(h.clone()),
            _ => None,
        });
        let homes: Vec<_> = AgentId::ALL
            .into_iter()
            .map(|a| target(&paths, a).home)
            .collect();
        let want: Vec<PathBuf> = [
            h.join(".claude"),
            h.join(".codex"),
            h.join(".copilot"),
            h.join(".qwen"),
            h.join(".config").join("opencode"),
            h.join(".cursor"),
            h.join(".factory"),
            h.join(".kimi-code"),
            h.join(".gemini"),
        ]
        .into();
        assert_eq!(homes, want);
        assert_eq!(
            target(&paths, AgentId::Claude).file,
            h.join(".claude").join("settings.json")
        );
    }
}
