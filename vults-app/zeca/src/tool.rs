//! What a tool row of the chat says happened, in words: the chat learns it from three places —
//! its own permission question (a card waits: "asks"), the engine's answer with its audit line
//! (`by`: "allowed — running", "denied by you", "denied by policy `<name>`"), and the CLI's tool
//! result ("ran", "failed" with Claude Code's own error words, without their
//! `<tool_use_error>` tags) — and from Stop ("stopped", not "refused · Exit code 137").

pub use super::conversation::Asked;
use super::conversation::Entry;
use vults_engine::messages::AnsweredBy;

/// How a row's mark reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// Nothing to worry about, or nothing more will happen.
    Quiet,
    /// Waits for the person.
    Waiting,
    /// It ran, or is running after an allow.
    Good,
    /// Denied, or it failed.
    Bad,
}

/// What a tool row's mark says happened, for a window that words it in the person's language
/// ([`Status::mark`] is its English).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mark {
    /// Ended by Stop.
    Stopped,
    /// Denied, by whom.
    Denied(AnsweredBy),
    /// Its card was withdrawn before an answer.
    Withdrawn,
    /// It ran and failed.
    Failed,
    /// A question answered.
    Answered,
    /// It ran, allowed by someone other than a click on its card.
    RanAllowedBy(AnsweredBy),
    /// It ran.
    Ran,
    /// The turn is over and no result came.
    NoResult,
    /// A card waits.
    Asks,
    /// Allowed (by a click on its card: `None`), running.
    AllowedRunning(Option<AnsweredBy>),
    /// Running, nothing asked.
    Running,
}

/// A tool row's words: its mark and the line under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// "ran", "asks", "allowed — running", "denied by you", "stopped", "failed" …
    pub mark: String,
    /// What the mark says, for the window to word ([`Mark`]).
    pub kind: Mark,
    /// How the mark reads.
    pub tone: Tone,
    /// The first line of what the tool said (its output, its error's own words), when worth
    /// showing.
    pub detail: Option<String>,
}

/// A tool result as a person reads it: Claude Code wraps its own errors (a file not read
/// first, a bad parameter) in `<tool_use_error>` tags; the words inside are what it says.
pub fn result_words(text: &str) -> String {
    const OPEN: &str = "<tool_use_error>";
    const CLOSE: &str = "</tool_use_error>";
    let t = text.trim();
    match t.strip_prefix(OPEN) {
        Some(inner) => inner
            .strip_suffix(CLOSE)
            .unwrap_or(inner)
            .trim()
            .to_string(),
        None => text.to_string(),
    }
}

fn first_line(text: &str) -> Option<String> {
    let words = result_words(text);
    let line: String = words
        .lines()
        .find(|l| !l.trim().is_empty())?
        .trim()
        .chars()
        .take(100)
        .collect();
    Some(line)
}

/// What a tool row says; `None` for an entry that is not a tool call. `turn_running`: its
/// conversation's turn is still going (a call without a result may still get one).
pub fn status(entry: &Entry, turn_running: bool) -> Option<Status> {
    let Entry::Tool {
        result,
        error,
        asked,
        stopped,
        ..
    } = entry
    else {
        return None;
    };
    let s = |mark: String, kind: Mark, tone: Tone, detail: Option<String>| {
        Some(Status {
            mark,
            kind,
            tone,
            detail,
        })
    };
    let output = result.as_deref().and_then(first_line);
    if *stopped {
        // Ended by Stop: its "Exit code 137" is the stop, not a refusal (hover shows it).
        return s("stopped".into(), Mark::Stopped, Tone::Quiet, None);
    }
    match (asked, result) {
        // The CLI's result of a deny is the chat's own "Denied from Vults": no news.
        (Some(Asked::Denied { by }), _) => s(
            format!("denied {}", by.words()),
            Mark::Denied(by.clone()),
            Tone::Bad,
            None,
        ),
        (Some(Asked::Withdrawn), _) => s(
            "not answered (withdrawn)".into(),
            Mark::Withdrawn,
            Tone::Quiet,
            None,
        ),
        (_, Some(_)) if *error => s("failed".into(), Mark::Failed, Tone::Bad, output),
        (Some(Asked::Answered { .. }), Some(_)) => {
            s("answered".into(), Mark::Answered, Tone::Good, output)
        }
        (Some(Asked::Allowed { by }), Some(_)) if *by != AnsweredBy::Click => s(
            format!("ran · allowed {}", by.words()),
            Mark::RanAllowedBy(by.clone()),
            Tone::Good,
            output,
        ),
        (_, Some(_)) => s("ran".into(), Mark::Ran, Tone::Good, output),
        // The turn is over (stopped, the CLI ended) and no result came: it never will.
        (_, None) if !turn_running => s("no result".into(), Mark::NoResult, Tone::Quiet, None),
        (Some(Asked::Waiting), None) => s("asks".into(), Mark::Asks, Tone::Waiting, None),
        (
            Some(Asked::Allowed {
                by: AnsweredBy::Click,
            }),
            None,
        ) => s(
            "allowed — running".into(),
            Mark::AllowedRunning(None),
            Tone::Good,
            None,
        ),
        (Some(Asked::Allowed { by }), None) => s(
            format!("allowed {} — running", by.words()),
            Mark::AllowedRunning(Some(by.clone())),
            Tone::Good,
            None,
        ),
        (Some(Asked::Answered { .. }), None) => {
            s("answered".into(), Mark::Answered, Tone::Good, None)
        }
        (None, None) => s("running".into(), Mark::Running, Tone::Quiet, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(result: Option<&str>, error: bool, asked: Option<Asked>, stopped: bool) -> Entry {
        Entry::Tool {
            id: "toolu_1".into(),
            name: "Bash".into(),
            summary: "sleep 30".into(),
            result: result.map(str::to_string),
            error,
            asked,
            stopped,
        }
    }

    fn mark(e: &Entry, running: bool) -> String {
        status(e, running).unwrap().mark
    }

    #[test]
    fn a_row_says_what_happened_in_words() {
        let waiting = Some(Asked::Waiting);
        assert_eq!(
            mark(&row(None, false, waiting.clone(), false), true),
            "asks"
        );
        let by_you = Some(Asked::Allowed {
            by: AnsweredBy::Click,
        });
        assert_eq!(
            mark(&row(None, false, by_you.clone(), false), true),
            "allowed — running"
        );
        assert_eq!(mark(&row(Some("ok"), false, by_you, false), false), "ran");
        let by_rule = Some(Asked::Allowed {
            by: AnsweredBy::Rule("r-1".into()),
        });
        assert_eq!(
            mark(&row(Some("ok"), false, by_rule, false), false),
            "ran · allowed by an Always rule"
        );
        // A call that needed no question is running, not asking.
        assert_eq!(mark(&row(None, false, None, false), true), "running");
        // Stop ended it: not "refused · Exit code 137".
        let stopped = row(Some("Exit code 137"), true, None, true);
        assert_eq!(
            status(&stopped, false).unwrap(),
            Status {
                mark: "stopped".into(),
                kind: Mark::Stopped,
                tone: Tone::Quiet,
                detail: None
            }
        );
        // A policy's deny reads apart from a click's.
        let policy = Some(Asked::Denied {
            by: AnsweredBy::Policy("no pushes".into()),
        });
        assert_eq!(
            mark(
                &row(Some("Denied from Vults"), true, policy.clone(), false),
                false
            ),
            "denied by policy no pushes"
        );
        // The window words the same mark from its kind, in the person's language.
        assert_eq!(
            status(&row(Some("Denied from Vults"), true, policy, false), false)
                .unwrap()
                .kind,
            Mark::Denied(AnsweredBy::Policy("no pushes".into()))
        );
        let click = Some(Asked::Denied {
            by: AnsweredBy::Click,
        });
        let denied = status(&row(Some("Denied from Vults"), true, click, false), false).unwrap();
        assert_eq!(denied.mark, "denied by you");
        assert_eq!(
            denied.detail, None,
            "the chat's own deny message is no news"
        );
        // Claude Code's own error: its words, without the tags; a failure is not a refusal.
        let e = row(
            Some(
                "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>",
            ),
            true,
            None,
            false,
        );
        let st = status(&e, false).unwrap();
        assert_eq!(st.mark, "failed");
        assert_eq!(
            st.detail.as_deref(),
            Some("File has not been read yet. Read it first before writing to it.")
        );
        assert_eq!(mark(&row(None, false, waiting, false), false), "no result");
    }

    #[test]
    fn asked_round_trips_and_old_rows_read() {
        let e = row(
            None,
            false,
            Some(Asked::Denied {
                by: AnsweredBy::Policy("p".into()),
            }),
            false,
        );
        let text = serde_json::to_string(&e).unwrap();
        assert!(text.contains(r#""by":"policy:p""#), "{text}");
        assert_eq!(serde_json::from_str::<Entry>(&text).unwrap(), e);
        // A row saved before these fields existed.
        let old =
            r#"{"kind":"tool","id":"t","name":"Bash","summary":"ls","result":"x","error":false}"#;
        assert_eq!(
            serde_json::from_str::<Entry>(old).unwrap(),
            Entry::Tool {
                id: "t".into(),
                name: "Bash".into(),
                summary: "ls".into(),
                result: Some("x".into()),
                error: false,
                asked: None,
                stopped: false,
            }
        );
    }
}
