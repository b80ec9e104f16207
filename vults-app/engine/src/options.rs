//! How the engine runs ([`EngineOptions`]) and the timings its core keeps: how long an ended
//! session lingers, when a silent one leaves, how often the policy file is looked at.

use crate::audit::ROTATE_BYTES;
use std::time::Duration;

/// How long an ended session stays in the flock before
/// [`EngineEvent::SessionGone`](messages::EngineEvent::SessionGone).
pub const ENDED_LINGER: Duration = Duration::from_secs(3);
/// A session not heard from for this long is taken out of the flock (its agent was killed
/// without saying `SessionEnd`); its next event brings it back.
pub const SILENT_SESSION: Duration = Duration::from_secs(6 * 3600);
/// How often the policy file's modification time is checked.
pub const POLICY_POLL: Duration = Duration::from_secs(1);

/// How the engine runs.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Someone can answer cards (a window, a console, a test driving the API). When `false`,
    /// a request no rule or policy answers gets no card: its connection is closed at once and
    /// the hook prints nothing, so the agent asks in its own terminal.
    pub interactive: bool,
    /// Stop on SIGINT / SIGTERM (Ctrl-C on Windows): for `--headless`.
    pub stop_on_signal: bool,
    /// The audit log moves to `audit.jsonl.1` past this size.
    pub audit_rotate_bytes: u64,
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions {
            interactive: true,
            stop_on_signal: false,
            audit_rotate_bytes: ROTATE_BYTES,
        }
    }
}
