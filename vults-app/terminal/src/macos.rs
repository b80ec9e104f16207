//! macOS: Terminal's tab by its tty and iTerm2's session by its unique id, by AppleScript
//! (`osascript`, the values passed as arguments, never spliced into the script), and any other
//! app brought forward with `open -a`. The scripts are plain text, tested on every host; they
//! run only on a Mac.

use crate::outcome::{Failure, FailureKind};
use crate::plan::Cmd;
use std::path::Path;
use vults_i18n::Message;

/// Selects the Terminal tab whose tty is `item 1 of argv`, brings its window to the front.
pub(crate) const TERMINAL_SCRIPT: &str = r#"on run argv
	set wanted to item 1 of argv
	tell application "Terminal"
		repeat with w in windows
			repeat with t in tabs of w
				if tty of t is wanted then
					set selected of t to true
					set index of w to 1
					activate
					return "shown"
				end if
			end repeat
		end repeat
	end tell
	return "missing"
end run"#;

/// Selects the iTerm2 session whose unique id is `item 1 of argv` (or, when that is empty,
/// whose tty is `item 2 of argv`), its tab and window, and brings iTerm2 forward.
pub(crate) const ITERM_SCRIPT: &str = r#"on run argv
	set wantedId to item 1 of argv
	set wantedTty to item 2 of argv
	tell application "iTerm2"
		repeat with w in windows
			repeat with t in tabs of w
				repeat with s in sessions of t
					if (wantedId is not "" and unique id of s is wantedId) or (wantedId is "" and tty of s is wantedTty) then
						select w
						select t
						select s
						activate
						return "shown"
					end if
				end repeat
			end repeat
		end repeat
	end tell
	return "missing"
end run"#;

pub(crate) fn terminal_cmd(tty: &str) -> Cmd {
    Cmd::new("/usr/bin/osascript", &["-e", TERMINAL_SCRIPT, tty])
}

pub(crate) fn iterm_cmd(session: Option<&str>, tty: Option<&str>) -> Cmd {
    Cmd::new(
        "/usr/bin/osascript",
        &["-e", ITERM_SCRIPT, session.unwrap_or(""), tty.unwrap_or("")],
    )
}

pub(crate) fn open_cmd(app: &Path) -> Cmd {
    let mut cmd = Cmd::new("/usr/bin/open", &["-a"]);
    cmd.args.push(app.display().to_string());
    cmd
}

/// What osascript's failure means for the person.
pub(crate) fn osascript_failure(app: &str, err: Message) -> Failure {
    let said = err.english();
    if said.contains("-1743") || said.contains("Not authorized") {
        Failure::new(
            FailureKind::Forbidden,
            Message::new("terminal-failure-mac-automation").arg("app", app),
        )
    } else {
        Failure::tool(FailureKind::Failed, app, err)
    }
}

/// Runs an AppleScript that answers `shown` or `missing`.
pub(crate) fn run_script(app: &str, cmd: &Cmd, what: Option<&str>) -> Result<(), Failure> {
    if !cfg!(target_os = "macos") {
        return Err(Failure::new(
            FailureKind::Failed,
            Message::new("terminal-failure-mac-only").arg("app", app),
        ));
    }
    match crate::run::output(cmd) {
        Ok(out) if out.trim() == "shown" => Ok(()),
        Ok(_) => Err(Failure::new(
            FailureKind::NotFound,
            match what {
                Some(what) => Message::new("terminal-failure-mac-no-tab")
                    .arg("app", app)
                    .arg("what", what),
                None => Message::new("terminal-failure-mac-no-tab-for-it").arg("app", app),
            },
        )),
        Err(e) => Err(osascript_failure(app, e)),
    }
}

pub(crate) fn open_app(app: &Path) -> Result<(), Failure> {
    if !cfg!(target_os = "macos") {
        return Err(Failure::new(
            FailureKind::Failed,
            Message::new("terminal-failure-mac-open-only").arg("command", "open -a"),
        ));
    }
    crate::run::output(&open_cmd(app))
        .map(|_| ())
        .map_err(|e| Failure::tool(FailureKind::Failed, "open -a", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scripts_take_their_values_as_arguments() {
        let cmd = terminal_cmd("/dev/ttys003");
        assert_eq!(cmd.args, ["-e", TERMINAL_SCRIPT, "/dev/ttys003"]);
        assert!(!TERMINAL_SCRIPT.contains("ttys"));
        let cmd = iterm_cmd(Some("6B29F4B4-1A2B-4C3D-9E8F-0123456789AB"), None);
        assert_eq!(cmd.args[2..], ["6B29F4B4-1A2B-4C3D-9E8F-0123456789AB", ""]);
        for script in [TERMINAL_SCRIPT, ITERM_SCRIPT] {
            assert!(script.starts_with("on run argv") && script.ends_with("end run"));
            // Show only: nothing is typed into the terminal.
            for typing in ["write text", "do script", "keystroke", "System Events"] {
                assert!(!script.contains(typing), "{typing}");
            }
        }
        assert_eq!(
            open_cmd(Path::new("/Applications/kitty.app")).args,
            ["-a", "/Applications/kitty.app"]
        );
    }

    #[test]
    fn a_refused_automation_permission_says_where_to_allow_it() {
        let f = osascript_failure(
            "Terminal",
            crate::outcome::said(
                "execution error: Not authorized to send Apple events to Terminal. (-1743)",
            ),
        );
        assert_eq!(f.kind, FailureKind::Forbidden);
        assert!(
            f.message
                .to_string()
                .contains("Privacy & Security > Automation")
        );
        assert_eq!(
            osascript_failure("iTerm2", crate::outcome::said("boom")).kind,
            FailureKind::Failed
        );
    }
}
