//! What the window's public functions say when they fail: [`Error`], whose `Display` is the one
//! line a person reads.

/// Why the window could not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// eframe could not open the window (no display, no GL).
    #[error("the window cannot open ({0}); `vults-app --headless` serves agents without one")]
    WindowCannotOpen(eframe::Error),
    /// "Show terminal" for a session whose events have not said where its agent runs: "Cannot
    /// show Claude Code's terminal: its events have not said where it runs" (its `Display` in
    /// English, for the log; the window draws `line` in the person's language).
    #[error("{line}")]
    NoPlace {
        /// The line, worded in the person's language when drawn (its `Display` is English).
        line: vults_i18n::Message,
    },
}
