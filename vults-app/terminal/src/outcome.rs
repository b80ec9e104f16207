//! What "Show terminal" answers: [`Shown`] (what came forward), or a [`Failure`] of a
//! [`FailureKind`], each one line for the person.

/// What "Show terminal" brought forward.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// One line: what came forward ("tmux pane %3 (window @1, session work) in xterm").
    pub what: String,
    /// One line when only part could be done (a tab that could not be chosen and how to let
    /// Vults choose it, an agent on an SSH host whose pane there is not chosen).
    pub caveat: Option<String>,
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
    pub message: String,
}

impl Failure {
    pub(crate) fn new(kind: FailureKind, message: impl Into<String>) -> Failure {
        let message: String = message.into();
        Failure {
            kind,
            message: one_line(&message),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
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
        let f = Failure::new(FailureKind::Failed, "\n  tmux: no server\nsecond line\n");
        assert_eq!(f.to_string(), "tmux: no server");
        assert_eq!(one_line(&"x".repeat(400)).chars().count(), 300);
        let shown = Shown {
            what: "xterm (pid 3)".into(),
            caveat: Some("its tab is not chosen".into()),
        };
        assert_eq!(
            shown.to_string(),
            "Showed xterm (pid 3); its tab is not chosen"
        );
    }
}
