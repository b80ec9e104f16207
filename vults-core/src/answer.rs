//! What a request is answered with, in every direction: a [`Decision`] on a permission, an
//! [`AnswerItem`] per question, and the words a deny carries ([`DENY_MESSAGE`]). The wire
//! ([`crate::protocol`]) carries them and the adapters ([`crate::agents`]) render them; this
//! module depends on neither.

use serde::{Deserialize, Serialize};

/// The answer is sent as `"message"`/`"reason"` of a deny.
pub const DENY_MESSAGE: &str = "Denied from Vults";

/// The most a deny's feedback may be, in bytes: a line a person types ("Keep planning: …"),
/// not a document. Longer text is cut on a character boundary ([`clean_feedback`]).
pub const MAX_FEEDBACK: usize = 2000;

/// The person's feedback on a deny, made safe to hand to an agent: every hidden character
/// ([`crate::text::is_hidden`]), newline and tab becomes a space, runs of spaces stay as typed,
/// the ends are trimmed, and the text is cut to [`MAX_FEEDBACK`] bytes on a character boundary.
/// `None` when nothing is left (the agent is told [`DENY_MESSAGE`] then). The app cleans what a
/// window or a phone sends, and the hook cleans what the app sends again: every side checks.
pub fn clean_feedback(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len().min(MAX_FEEDBACK));
    for c in text.chars() {
        let c = if crate::text::is_hidden(c) || c == '\n' || c == '\t' {
            ' '
        } else {
            c
        };
        if out.len() + c.len_utf8() > MAX_FEEDBACK {
            break;
        }
        out.push(c);
    }
    let trimmed = out.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feedback_is_one_clean_bounded_line() {
        assert_eq!(
            clean_feedback("  also test it\n"),
            Some("also test it".into())
        );
        assert_eq!(
            clean_feedback("a\u{202e}b\u{1b}[2Jc\td"),
            Some("a b [2Jc d".into())
        );
        assert_eq!(clean_feedback(" \n\u{200b} "), None);
        assert_eq!(clean_feedback(""), None);
        let long = "é".repeat(MAX_FEEDBACK);
        let cut = clean_feedback(&long).unwrap();
        assert!(
            cut.len() <= MAX_FEEDBACK && cut.len() > MAX_FEEDBACK - 2,
            "{}",
            cut.len()
        );
        assert!(cut.chars().all(|c| c == 'é'));
    }
}
