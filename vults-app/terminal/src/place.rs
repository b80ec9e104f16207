//! Where an agent runs, as its latest event said: the `terminal` block its hook sent, and the
//! SSH host it came from.

use std::collections::BTreeMap;
use std::time::SystemTime;
use vults_core::protocol::Terminal;

/// Where an agent runs, as its event said: the `terminal` block, and the host it came from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Place {
    pub(crate) pid: Option<u32>,
    pub(crate) cwd: Option<String>,
    pub(crate) env: BTreeMap<String, String>,
    pub(crate) host: Option<String>,
    pub(crate) seen: Option<SystemTime>,
}

impl Place {
    /// An agent on this computer (its event came over the local hook socket).
    pub fn local(terminal: &Terminal) -> Place {
        Place {
            pid: terminal.pid,
            cwd: terminal.cwd.clone(),
            env: terminal
                .env
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect(),
            host: None,
            seen: None,
        }
    }

    /// An agent on an SSH host (its event came over that host's link; `host` as Vults names
    /// it, `[user@]host[:port]`). Its pid means nothing here: only the local terminal running
    /// `ssh` to that host can be shown.
    pub fn on_host(terminal: &Terminal, host: &str) -> Place {
        Place {
            host: Some(host.to_string()),
            ..Place::local(terminal)
        }
    }

    /// When an event from this place arrived: a process with the agent's pid that started
    /// later is not the agent (its pid was given to another program).
    pub fn seen_at(mut self, at: SystemTime) -> Place {
        self.seen = Some(at);
        self
    }

    /// The host the agent runs on, for an SSH host's place.
    pub fn host(&self) -> Option<&str> {
        self.host.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_place_keeps_the_string_variables_of_the_terminal_block() {
        let t: Terminal = serde_json::from_value(json!({
            "cwd": "/proj", "pid": 42,
            "env": {"TMUX": "/tmp/tmux-1000/default,7,0", "TMUX_PANE": "%3", "ODD": 5}
        }))
        .expect("terminal block");
        let p = Place::local(&t);
        assert_eq!(p.pid, Some(42));
        assert_eq!(p.cwd.as_deref(), Some("/proj"));
        assert_eq!(p.env.len(), 2);
        assert_eq!(p.env["TMUX_PANE"], "%3");
        assert_eq!(p.host(), None);
        assert_eq!(Place::on_host(&t, "me@devbox").host(), Some("me@devbox"));
    }
}
