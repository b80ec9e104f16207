//! What a request is answered with, in every direction: a [`Decision`] on a permission, an
//! [`AnswerItem`] per question, and the words a deny carries ([`DENY_MESSAGE`]). The wire
//! ([`crate::protocol`]) carries them and the adapters ([`crate::agents`]) render them; this
//! module depends on neither.

use serde::{Deserialize, Serialize};

/// The answer is sent as `"message"`/`"reason"` of a deny.
pub const DENY_MESSAGE: &str = "Denied from Vults";

/// A decision on a permission.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// Let the call run.
    Allow,
    /// Stop the call (the agent is told [`DENY_MESSAGE`]).
    Deny,
}

/// One question's answer: an option's label (or the user's own words), or several labels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AnswerItem {
    /// One label, or the user's own words.
    One(String),
    /// Several labels (a multi-select question).
    Many(Vec<String>),
}

impl AnswerItem {
    /// The labels, one or several.
    pub fn labels(&self) -> Vec<String> {
        match self {
            AnswerItem::One(s) => vec![s.clone()],
            AnswerItem::Many(v) => v.clone(),
        }
    }
}
