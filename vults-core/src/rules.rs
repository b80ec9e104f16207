//! Always rules: exact (identity, folder, tool, target) → allow. Made when the user answers
//! "Always allow" on a card; stored as JSON in the config folder, written atomically.
//!
//! (API fixed; bodies being written — see decision.rs.)

use crate::protocol::Identity;
use serde::{Deserialize, Serialize};

/// One Always rule. `identity` is the built-in kind or the named tool's name; a rule never
/// answers another identity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AlwaysRule {
    /// Stable id (`r-<hex>`), shown in the audit as who answered.
    pub id: String,
    pub identity: Identity,
    pub folder: String,
    pub tool: String,
    /// The whole command, file path or URL; otherwise the canonical JSON of the tool input
    /// ([`crate::agents::Target::rule_key`]).
    pub target: String,
    /// Unix seconds.
    pub created: u64,
}

/// All Always rules.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleSet {
    pub rules: Vec<AlwaysRule>,
}
