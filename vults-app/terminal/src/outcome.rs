//! What "Show terminal" answers: [`Shown`] (what came forward), or a [`Failure`] of a
//! [`FailureKind`], each one line for the person: a [`Message`] worded when the window draws
//! it (in the language chosen by then), its `Display` the English the log keeps.

use vults_i18n::{Message, MessageArg};

/// What "Show terminal" brought forward.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// One line: what came forward ("tmux pane %3 (window @1, session work) in xterm").
    pub what: Message,
    /// One line when only part could be done (a tab that could not be chosen and how to let
    /// Vults choose it, an agent on an SSH host whose pane there is not chosen).
    pub caveat: Option<Message>,
}

impl std::fmt::Display for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Showed {}", self.what)?;
        if let Some(c) = &self.caveat {
            write!(f, "; {c}")?;
        }
        Ok(())
    }
}

/// Why "Show terminal" could not show the agent's terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FailureKind {
    /// The agent's process is gone (or its pid now belongs to another program).
    Ended,
    /// No terminal window was found for it.
    NotFound,
    /// Its multiplexer session has no client attached: no window shows it.
    Detached,
    /// It runs where this computer has no window for it: an SSH host no local terminal runs
    /// `ssh` to, or an SSH login into this computer.
    Elsewhere,
    /// It has no terminal: Vults started it headless (a Zeca task; its output is the task's
    /// log).
    NoTerminal,
    /// The desktop cannot or will not raise the window (Wayland without an interface for it,
    /// focus refused, an app permission missing).
    Forbidden,
    /// There is no display: Vults runs without X11 or Wayland.
    NoDisplay,
    /// A terminal's or multiplexer's own command failed (its message is in the line).
    Failed,
}

/// Why "Show terminal" did nothing, in one line for the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What kind of reason it is.
    pub kind: FailureKind,
    /// One line, e.g. "the agent's process (pid 4242) has ended".
    pub message: Message,
}

impl Failure {
    pub(crate) fn new(kind: FailureKind, message: Message) -> Failure {
        Failure { kind, message }
    }

    /// A program's own line, as it came (its first line).
    pub(crate) fn said(kind: FailureKind, text: impl std::fmt::Display) -> Failure {
        Failure::new(kind, said(text))
    }

    /// `tool`'s own error, after its name: "tmux: no server running".
    pub(crate) fn tool(kind: FailureKind, tool: &str, error: impl Into<MessageArg>) -> Failure {
        Failure::new(kind, tool_said(tool, error))
    }
}

/// A program's own line, as it came (its first line): an argument, never translated.
pub(crate) fn said(text: impl std::fmt::Display) -> Message {
    Message::new("terminal-said").arg("text", one_line(&text.to_string()))
}

/// `tool`'s own error after its name ("tmux: no server running"): its text as it came (one
/// line), or what Vults found running it.
pub(crate) fn tool_said(tool: &str, error: impl Into<MessageArg>) -> Message {
    let error = match error.into() {
        MessageArg::Text(t) => MessageArg::Text(one_line(&t)),
        other => other,
    };
    Message::new("terminal-tool-said")
        .arg("tool", tool)
        .arg("error", error)
}

/// Two lines said as one, the second after a semicolon.
pub(crate) fn and(first: Message, then: Message) -> Message {
    Message::new("terminal-and")
        .arg("first", first)
        .arg("then", then)
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for Failure {}

/// The first non-empty line, at most 300 characters: every reason is one line.
pub(crate) fn one_line(s: &str) -> String {
    let line = s
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if line.chars().count() > 300 {
        let cut: String = line.chars().take(299).collect();
        format!("{cut}…")
    } else {
        line.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_one_line() {
        let f = Failure::said(FailureKind::Failed, "\n  tmux: no server\nsecond line\n");
        assert_eq!(f.to_string(), "tmux: no server");
        assert_eq!(one_line(&"x".repeat(400)).chars().count(), 300);
        let shown = Shown {
            what: said("xterm (pid 3)"),
            caveat: Some(said("its tab is not chosen")),
        };
        assert_eq!(
            shown.to_string(),
            "Showed xterm (pid 3); its tab is not chosen"
        );
    }
}
