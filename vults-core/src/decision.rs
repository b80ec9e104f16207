//! The one decision point: [`decide`]. (API fixed; body being written.)

use crate::agents::ToolCall;
use crate::policy::PolicySet;
use crate::protocol::Identity;
use crate::rules::RuleSet;

/// What is being asked.
pub struct Request<'a> {
    pub identity: &'a Identity,
    /// The folder the agent works in (the event's terminal cwd).
    pub folder: &'a str,
    pub call: &'a ToolCall,
}

/// Why a verdict was reached; shown on cards and written to the audit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// A destructive call; the text says what made it so ("rm -r", "git push --force" …).
    Destructive(String),
    /// The policy of this name.
    Policy(String),
    /// The Always rule of this id.
    Rule(String),
    /// Nothing answered it: a person must.
    NoMatch,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Allow(Why),
    Deny(Why),
    Ask(Why),
}

/// Decides a request that wants a reply. Order: destructive → ask; policy deny → deny; policy
/// ask → ask; exact Always rule → allow; policy allow (Claude Code only) → allow; else ask.
pub fn decide(_req: &Request, _rules: &RuleSet, _policies: &PolicySet) -> Verdict {
    Verdict::Ask(Why::NoMatch)
}
