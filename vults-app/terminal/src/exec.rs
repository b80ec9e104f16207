//! Running a plan: its choosers in order (a fatal one's failure ends it; the others' become the
//! caveat), then each way to raise the window until one works.

use crate::outcome::{Failure, FailureKind, Shown, and, tool_said};
use crate::plan::{Cmd, Plan, Raise};
use vults_i18n::Message;

/// What running a plan does to the world (a test records it instead).
pub(crate) trait Act {
    fn run(&self, cmd: &Cmd) -> Result<String, Message>;
    /// `Ok` with a note when the window came forward but was a guess.
    fn raise(&self, how: &Raise) -> Result<Option<Message>, Failure>;
}

impl Plan {
    /// Shows the place: chooses its pane or tab, then raises its window. Blocking.
    pub fn run(&self) -> Result<Shown, Failure> {
        self.run_with(&LiveAct)
    }

    pub(crate) fn run_with(&self, act: &dyn Act) -> Result<Shown, Failure> {
        let mut caveats = self.caveats.clone();
        let mut chose = false;
        for c in &self.choose {
            match act.run(&c.cmd) {
                Ok(_) => chose = true,
                Err(e) if c.fatal => {
                    return Err(Failure::new(
                        FailureKind::Failed,
                        Message::new("terminal-failure-not-chosen")
                            .arg("what", c.what.clone())
                            .arg("error", e),
                    ));
                }
                Err(e) => caveats.push(match &c.hint {
                    Some(hint) if e.english().to_ascii_lowercase().contains("remote control") => {
                        hint.clone()
                    }
                    Some(hint) => Message::new("terminal-caveat-not-chosen-hint")
                        .arg("what", c.what.clone())
                        .arg("error", e)
                        .arg("hint", hint.clone()),
                    None => Message::new("terminal-caveat-not-chosen")
                        .arg("what", c.what.clone())
                        .arg("error", e),
                }),
            }
        }
        // The most telling failure: a refusal or an error beats "no such window here" (a
        // native Wayland window the X11 way could not see).
        let mut last: Option<Failure> = None;
        for how in &self.raise {
            match act.raise(how) {
                Ok(note) => {
                    caveats.extend(note);
                    return Ok(Shown {
                        what: self.found(),
                        caveat: caveats.into_iter().reduce(and),
                    });
                }
                Err(f) => {
                    if last
                        .as_ref()
                        .is_none_or(|l| l.kind == FailureKind::NotFound)
                    {
                        last = Some(f);
                    }
                }
            }
        }
        let mut failure = match (&self.cannot_raise, last) {
            // The desktop's own reason beats "no such X11 window" (a native Wayland window).
            (Some(reason), Some(l)) if l.kind == FailureKind::NotFound => reason.clone(),
            (_, Some(l)) => l,
            (Some(reason), None) => reason.clone(),
            (None, None) => Failure::new(
                FailureKind::NotFound,
                Message::new("terminal-failure-no-way").arg("found", self.found()),
            ),
        };
        if chose {
            let chosen = self
                .choose
                .last()
                .map(|c| c.what.clone())
                .unwrap_or_else(|| Message::new("terminal-pane-its"));
            failure.message = Message::new("terminal-failure-chosen")
                .arg("failure", failure.message)
                .arg("chosen", chosen);
        }
        let kitty_hint = crate::plan::kitty_hint();
        if let Some(hint) = caveats.iter().find(|c| **c == kitty_hint) {
            failure.message = and(failure.message, hint.clone());
        }
        Err(failure)
    }
}

/// The real world.
pub(crate) struct LiveAct;

impl Act for LiveAct {
    fn run(&self, cmd: &Cmd) -> Result<String, Message> {
        crate::run::output(cmd)
    }

    fn raise(&self, how: &Raise) -> Result<Option<Message>, Failure> {
        match how {
            Raise::Editor { cli, folder, label } => {
                // Not `-r`: with a folder no window has open, `-r` would replace the last
                // window's workspace (and end the agent's own terminal in it).
                let mut cmd = Cmd::new(cli, &[]);
                cmd.args.push(folder.clone());
                crate::run::output(&cmd)
                    .map(|_| None)
                    .map_err(|e| Failure::new(FailureKind::Failed, tool_said(label, e)))
            }
            Raise::MacTerminal { tty } => {
                crate::macos::run_script("Terminal", &crate::macos::terminal_cmd(tty), Some(tty))
                    .map(|_| None)
            }
            Raise::MacIterm { session, tty } => crate::macos::run_script(
                "iTerm2",
                &crate::macos::iterm_cmd(session.as_deref(), tty.as_deref()),
                session.as_deref().or(tty.as_deref()),
            )
            .map(|_| None),
            Raise::MacApp { app } => crate::macos::open_app(app).map(|_| None),
            other => raise_native(other),
        }
    }
}

#[cfg(all(unix, not(target_os = "macos")))]
fn raise_native(how: &Raise) -> Result<Option<Message>, Failure> {
    match how {
        Raise::X11 {
            display,
            window,
            pid,
            title,
        } => crate::x11::raise(display, *window, *pid, title.as_deref()),
        Raise::Sway { socket, pid } => crate::wayland::sway(socket, *pid).map(|_| None),
        Raise::Hyprland { sockets, pid } => crate::wayland::hyprland(sockets, *pid).map(|_| None),
        Raise::Kwin { pid } => crate::wayland::kwin(*pid).map(|_| None),
        _ => Err(not_here()),
    }
}

#[cfg(windows)]
fn raise_native(how: &Raise) -> Result<Option<Message>, Failure> {
    match how {
        Raise::WinConsole { pid } => crate::windows::raise_console(*pid).map(|_| None),
        Raise::WinWindowOf { pid } => crate::windows::raise_window_of(*pid).map(|_| None),
        _ => Err(not_here()),
    }
}

#[cfg(not(any(all(unix, not(target_os = "macos")), windows)))]
fn raise_native(_how: &Raise) -> Result<Option<Message>, Failure> {
    Err(not_here())
}

fn not_here() -> Failure {
    Failure::new(
        FailureKind::Forbidden,
        Message::new("terminal-failure-not-here"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::said;
    use crate::plan::Choose;
    use std::cell::RefCell;

    /// Records what a plan does; answers from a script.
    struct Recorder {
        done: RefCell<Vec<String>>,
        fail_cmd: Option<(&'static str, &'static str)>,
        raise: Vec<Result<Option<Message>, Failure>>,
    }

    impl Act for Recorder {
        fn run(&self, cmd: &Cmd) -> Result<String, Message> {
            let line = cmd.args.join(" ");
            self.done.borrow_mut().push(line.clone());
            match self.fail_cmd {
                Some((contains, why)) if line.contains(contains) => Err(said(why)),
                _ => Ok(String::new()),
            }
        }
        fn raise(&self, how: &Raise) -> Result<Option<Message>, Failure> {
            let n = self
                .done
                .borrow()
                .iter()
                .filter(|d| d.starts_with("raise"))
                .count();
            self.done.borrow_mut().push(format!("raise {how:?}"));
            self.raise.get(n).cloned().unwrap_or(Ok(None))
        }
    }

    fn plan(choose: Vec<Choose>, raise: Vec<Raise>) -> Plan {
        Plan {
            layers: vec![said("tmux pane %3"), said("xterm (pid 300)")],
            choose,
            raise,
            cannot_raise: None,
            caveats: Vec::new(),
        }
    }

    fn choose(what: &str, fatal: bool, hint: Option<Message>) -> Choose {
        Choose {
            cmd: Cmd::new("x", &[what]),
            what: said(what),
            fatal,
            hint,
        }
    }

    fn x11(pid: u32) -> Raise {
        Raise::X11 {
            display: ":0".into(),
            window: None,
            pid,
            title: None,
        }
    }

    #[test]
    fn choosers_run_in_order_then_the_first_raise_that_works() {
        let rec = Recorder {
            done: RefCell::default(),
            fail_cmd: None,
            raise: vec![
                Err(Failure::said(FailureKind::NotFound, "no such window")),
                Ok(None),
            ],
        };
        let p = plan(
            vec![choose("tmux", true, None)],
            vec![x11(1), x11(2), x11(3)],
        );
        let shown = p.run_with(&rec).expect("shown");
        assert_eq!(shown.what.to_string(), "tmux pane %3 in xterm (pid 300)");
        assert_eq!(shown.caveat, None);
        let done = rec.done.borrow();
        assert_eq!(done.len(), 3, "{done:?}");
        assert_eq!(done[0], "tmux");
        assert!(done[2].contains("pid: 2"), "{done:?}");
    }

    #[test]
    fn a_fatal_chooser_that_fails_ends_the_show_before_any_window_moves() {
        let rec = Recorder {
            done: RefCell::default(),
            fail_cmd: Some(("tmux", "can't find pane: %3")),
            raise: vec![],
        };
        let p = plan(vec![choose("tmux", true, None)], vec![x11(1)]);
        let f = p.run_with(&rec).expect_err("fails");
        assert_eq!(f.kind, FailureKind::Failed);
        assert_eq!(
            f.message.to_string(),
            "tmux could not be chosen: can't find pane: %3"
        );
        assert_eq!(rec.done.borrow().len(), 1);
    }

    #[test]
    fn kitty_with_remote_control_refused_still_raises_and_says_how_to_turn_it_on() {
        let rec = Recorder {
            done: RefCell::default(),
            fail_cmd: Some(("kitty", "Error: Remote control is disabled")),
            raise: vec![Ok(None)],
        };
        let hint = crate::plan::kitty_hint().to_string();
        let p = plan(
            vec![choose("kitty", false, Some(crate::plan::kitty_hint()))],
            vec![x11(1)],
        );
        let shown = p.run_with(&rec).expect("the window still comes forward");
        assert_eq!(
            shown.caveat.as_ref().map(ToString::to_string).as_deref(),
            Some(hint.as_str())
        );
        // Another failure keeps its own words, and the hint.
        let rec = Recorder {
            done: RefCell::default(),
            fail_cmd: Some(("kitty", "Error: no matching windows")),
            raise: vec![Ok(None)],
        };
        let shown = p.run_with(&rec).expect("shown");
        assert!(
            shown
                .caveat
                .as_ref()
                .map(ToString::to_string)
                .as_deref()
                .is_some_and(|c| c.starts_with("kitty was not chosen (Error: no matching windows)")),
            "{shown:?}"
        );
    }

    #[test]
    fn when_no_raise_works_the_desktops_reason_is_said_and_what_was_chosen() {
        let rec = Recorder {
            done: RefCell::default(),
            fail_cmd: None,
            raise: vec![Err(Failure::said(FailureKind::NotFound, "no X11 window"))],
        };
        let mut p = plan(vec![choose("tmux pane %3", true, None)], vec![x11(1)]);
        p.cannot_raise = Some(Failure::said(
            FailureKind::Forbidden,
            "cannot raise windows on this desktop: GNOME on Wayland …",
        ));
        let f = p.run_with(&rec).expect_err("fails");
        assert_eq!(f.kind, FailureKind::Forbidden);
        assert_eq!(
            f.message.to_string(),
            "cannot raise windows on this desktop: GNOME on Wayland … (tmux pane %3 was chosen)"
        );
        // A refusal from the window manager itself is said as it is.
        let rec = Recorder {
            done: RefCell::default(),
            fail_cmd: None,
            raise: vec![Err(Failure::said(
                FailureKind::Forbidden,
                "the window manager did not",
            ))],
        };
        let f = p.run_with(&rec).expect_err("fails");
        assert!(
            f.message
                .to_string()
                .starts_with("the window manager did not"),
            "{f}"
        );
        // A compositor's error is kept over the X11 way's "no such window" after it.
        let rec = Recorder {
            done: RefCell::default(),
            fail_cmd: None,
            raise: vec![
                Err(Failure::said(
                    FailureKind::Failed,
                    "sway: connection refused",
                )),
                Err(Failure::said(FailureKind::NotFound, "no X11 window")),
            ],
        };
        let f = plan(vec![], vec![x11(1), x11(1)])
            .run_with(&rec)
            .expect_err("fails");
        assert_eq!(f.message.to_string(), "sway: connection refused");
        // No way at all.
        let rec = Recorder {
            done: RefCell::default(),
            fail_cmd: None,
            raise: vec![],
        };
        let f = plan(vec![], vec![]).run_with(&rec).expect_err("fails");
        assert_eq!(f.kind, FailureKind::NotFound);
    }

    #[test]
    fn a_guessed_window_is_said() {
        let rec = Recorder {
            done: RefCell::default(),
            fail_cmd: None,
            raise: vec![Ok(Some(said("it has 2 windows")))],
        };
        let shown = plan(vec![], vec![x11(1)]).run_with(&rec).expect("shown");
        assert_eq!(
            shown.caveat.as_ref().map(ToString::to_string).as_deref(),
            Some("it has 2 windows")
        );
    }
}
