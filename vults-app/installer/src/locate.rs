//! Where an agent's configuration is on this machine: its config home, from its row in the
//! agent table or the agent's own variable ([`config_home`]), and the file Vults writes there
//! ([`target`]), the row's choice between two files made by what is on disk ([`has_hooks`]).

use super::agents::{Kind, Target, install_of};
use super::{opencode, tomlfile};
use std::path::{Path, PathBuf};
use vults_core::agents::{Agent, ConfigFile, Format, Prefer};
use vults_core::paths::Paths;

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
fn config_home(paths: &Paths, agent: Agent) -> PathBuf {
    let home = install_of(agent).home;
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
pub(super) fn target(paths: &Paths, agent: Agent) -> Target {
    let home = config_home(paths, agent);
    let (name, format) = match install_of(agent).file {
        ConfigFile::One(name, format) => (name, format),
        ConfigFile::Either {
            first,
            second,
            prefer,
        } => {
            let use_second = match prefer {
                Prefer::SecondWhenItExists => home.join(second.0).exists(),
                Prefer::SecondWhenFirstMissingAndItHasHooks => {
                    !home.join(first.0).exists() && has_hooks(&home.join(second.0), second.1)
                }
            };
            if use_second { second } else { first }
        }
    };
    let file = match format {
        // OpenCode reads its plugin folder as `plugin/` or `plugins/`.
        Format::OpencodePlugin => opencode::plugin_file(&home, name),
        _ => home.join(name),
    };
    Target {
        agent,
        home,
        file,
        kind: Kind::of(format),
        format,
    }
}

/// Whether `file`, kept in `format`, already holds hooks of the user's.
fn has_hooks(file: &Path, format: Format) -> bool {
    match format {
        Format::CodexToml => tomlfile::codex_has_hooks(file),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::agents::installed_agents;
    use super::*;

    #[test]
    fn config_homes_come_from_the_table() {
        // An agents' home that is not the user's own: the agents' variables are ignored.
        let h = PathBuf::from("/nonexistent-vults-agent-home");
        let paths = Paths::resolve(|k| match k {
            "VULTS_HOME" => Some(PathBuf::from("/nonexistent-vults-home")),
            "VULTS_AGENT_HOME" => Some(h.clone()),
            _ => None,
        });
        let homes: Vec<_> = installed_agents().map(|a| target(&paths, a).home).collect();
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
            target(&paths, Agent::Claude).file,
            h.join(".claude").join("settings.json")
        );
    }
}
