//! Policies: a TOML file of the user's (docs/policies.md) saying deny / ask / allow for agents,
//! tools, targets and folders. (API fixed; bodies being written.)

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Deny,
    Ask,
    Allow,
}

/// The policies in force.
#[derive(Debug, Clone, Default)]
pub struct PolicySet {
    pub policies: Vec<Policy>,
}

/// One policy.
#[derive(Debug, Clone)]
pub struct Policy {
    pub name: String,
    pub action: Action,
}

/// Why a policy file was not taken: where, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}
