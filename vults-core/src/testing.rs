//! Test-only builders shared by the unit tests of the decision point, rules and policies.

use crate::agents::{Target, ToolCall, ToolKind};
use crate::protocol::{AgentName, Identity};

/// A named tool's identity.
pub fn named(n: &str) -> Identity {
    Identity::Named(AgentName::new(n).expect("valid name"))
}

/// A call of `tool` on `target`, as an adapter would read it.
pub fn call(tool: &str, target: Target) -> ToolCall {
    ToolCall {
        session_id: None,
        cwd: None,
        tool: tool.into(),
        kind: ToolKind::of(tool),
        target,
        exact: None,
    }
}

/// A `Bash` call of the whole `command`.
pub fn bash(command: &str) -> ToolCall {
    call(
        "Bash",
        Target::Command {
            command: command.into(),
        },
    )
}
