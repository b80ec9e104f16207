//! An event as it arrived, read once ([`Arrival::read`]): the call its payload names, the folder
//! it is about and the agent's ids for the call. The core's every step (the flock, answered in
//! the terminal, too large for a card, the request itself) takes this, so none reads the
//! payload again.

use vults_core::agents::{self, Lifecycle, ToolCall};
use vults_core::protocol::Event;

/// One event, read once.
pub(crate) struct Arrival {
    /// The event as the hook sent it.
    pub event: Event,
    /// What the event means, resolved from its name once, by its agent's row
    /// ([`Event::lifecycle`]): every step after matches this, never the name.
    pub lifecycle: Lifecycle,
    /// The tool call its payload names, as the agent's adapter reads it (an empty call when it
    /// names none).
    pub call: ToolCall,
    /// Whether the payload names a tool at all.
    pub names_a_tool: bool,
    /// The folder it is about (`host:/path` for an SSH host's).
    pub folder: String,
    /// The agent's id for the call (`tool_use_id`), when it sent one.
    pub tool_use_id: Option<String>,
    /// Claude Code's subagent id (`agent_id`): a subagent's events say nothing of the main
    /// agent's dialog, though they share its session.
    pub agent_id: Option<String>,
}

impl Arrival {
    /// Reads `event`'s payload, once.
    pub fn read(event: Event) -> Arrival {
        let payload_str = |key: &str| {
            event
                .payload
                .get(key)
                .and_then(serde_json::Value::as_str)
                .map(str::to_string)
        };
        Arrival {
            lifecycle: event.lifecycle(),
            call: agents::read_tool_call(&event.payload),
            names_a_tool: agents::tool_name(&event.payload).is_some(),
            folder: folder_of(&event),
            tool_use_id: payload_str("tool_use_id"),
            agent_id: payload_str("agent_id"),
            event,
        }
    }
}

/// The folder an event's agent works in: the hook's resolved cwd, else the payload's.
pub(crate) fn folder_of(event: &Event) -> String {
    event
        .terminal
        .cwd
        .clone()
        .or_else(|| {
            event
                .payload
                .get("cwd")
                .and_then(serde_json::Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_default()
}
