//! "Show terminal" in the window: the button on each bird, card, Zeca task and the island's
//! menu, and the key `T` on a card, all end in [`crate::app::VultsWindow::show_terminal`],
//! which builds the session's [`Place`] from what its latest event said
//! ([`vults_engine::messages::SessionTerminal`]) and hands it to a [`TerminalSide`]. The show
//! itself blocks (the process table, `tmux`, `kitty @`, the X server), so it runs on
//! [`BackgroundTerminal`]'s thread, never on the window's; its one line comes back as a
//! [`Shown`] and is drawn as a toast, on the bird and on the card.
//!
//! Settings → General lists [`vults_terminal::survey`], asked for once, on the same thread.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::SystemTime;
use vults_engine::messages::{Session, SessionKey};
use vults_engine::worker::Worker;
use vults_i18n::Message;
use vults_terminal::{FailureKind, Place, Support};

/// Show one session's terminal: what the window asks of its [`TerminalSide`].
#[derive(Debug, Clone, PartialEq)]
pub struct ShowRequest {
    /// The session whose terminal is shown.
    pub session: SessionKey,
    /// Where its agent runs, from its latest event.
    pub place: Place,
    /// The agent as the window names it ("Claude Code"), for the line that comes back.
    pub who: String,
}

/// What a show did, in one line for the person.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    /// The session it was for.
    pub session: SessionKey,
    /// "Showed tmux pane %3 (window @1, session work) in xterm (pid 300)", or why not:
    /// "Cannot show Claude Code's terminal: the agent's process (pid 4242) has ended". Worded
    /// when drawn ([`Message::text`]), so a language chosen meanwhile applies; its `Display` is
    /// the log's English.
    pub line: Message,
    /// It came forward (perhaps with a caveat in the line).
    pub ok: bool,
    /// When the window got the line (the toast fades a few seconds after).
    pub at: SystemTime,
}

/// What the terminal side sends back.
#[derive(Debug, Clone, PartialEq)]
pub enum TerminalNews {
    /// A show finished.
    Shown(Shown),
    /// What each terminal found on this machine supports (Settings → General).
    Survey(Vec<Support>),
}

/// How the window reaches "Show terminal", which runs off the window's thread.
pub trait TerminalSide {
    /// Starts showing a session's terminal; its [`TerminalNews::Shown`] comes later.
    fn show(&mut self, request: ShowRequest);
    /// Starts the survey for Settings → General; its [`TerminalNews::Survey`] comes later.
    fn survey(&mut self);
    /// What finished since the last call.
    fn poll(&mut self) -> Option<TerminalNews>;
}

enum Job {
    Show(ShowRequest),
    Survey,
    Stop,
}

/// The real one: the one worker shape (`vults_engine::worker`) runs each request in turn (two
/// clicks never race for the focus) and wakes the window when one is done, so an idle window
/// draws the line. The results wait in its status, oldest first, until the window polls.
pub struct BackgroundTerminal {
    worker: Worker<Job, VecDeque<TerminalNews>>,
}

impl BackgroundTerminal {
    /// Starts the worker. `wake` is called after each result (the window passes
    /// `ctx.request_repaint`).
    pub fn start(wake: Arc<dyn Fn() + Send + Sync>) -> BackgroundTerminal {
        let worker = Worker::spawn("Show terminal", VecDeque::new(), Job::Stop, wake, |side| {
            while let Some(job) = side.recv() {
                let out = match job {
                    Job::Show(request) => TerminalNews::Shown(run(&request)),
                    Job::Survey => TerminalNews::Survey(vults_terminal::survey()),
                    Job::Stop => return,
                };
                side.update(|news| news.push_back(out));
            }
        });
        BackgroundTerminal { worker }
    }
}

impl TerminalSide for BackgroundTerminal {
    fn show(&mut self, request: ShowRequest) {
        self.worker.send(Job::Show(request));
    }
    fn survey(&mut self) {
        self.worker.send(Job::Survey);
    }
    fn poll(&mut self) -> Option<TerminalNews> {
        self.worker.status().pop_front()
    }
}

/// Runs one show (blocking) and says what it did in one line.
pub fn run(request: &ShowRequest) -> Shown {
    let (line, ok) = match vults_terminal::show(&request.place) {
        Ok(shown) => (shown_line(&shown), true),
        Err(f) => (failure_line(&request.who, f.kind, f.message), false),
    };
    tracing::info!("show terminal of {}: {line}", request.session.session);
    Shown {
        session: request.session.clone(),
        line,
        ok,
        at: SystemTime::now(),
    }
}

/// The line for a show that came forward: what came forward and any caveat, as the crate
/// found them (worded in the person's language when drawn).
pub fn shown_line(shown: &vults_terminal::Shown) -> Message {
    match &shown.caveat {
        Some(caveat) => Message::new("terminal-showed-caveat")
            .arg("what", shown.what.clone())
            .arg("caveat", caveat.clone()),
        None => Message::new("terminal-showed").arg("what", shown.what.clone()),
    }
}

/// The line for a show that failed: whose terminal, and the reason the crate found.
pub fn failure_line(who: &str, kind: FailureKind, reason: Message) -> Message {
    let id = match kind {
        FailureKind::NoTerminal => "terminal-no-terminal",
        _ => "terminal-cannot-show",
    };
    Message::new(id).arg("who", who).arg("reason", reason)
}

/// Where a session's agent runs, as "Show terminal" needs it; `Err` (its `Display` is the line
/// to show) when its events have not said.
pub fn place_of(session: &Session) -> Result<Place, crate::Error> {
    let Some(t) = &session.terminal else {
        return Err(crate::Error::NoPlace {
            line: failure_line(
                &who(session),
                FailureKind::NotFound,
                Message::new("terminal-not-said"),
            ),
        });
    };
    let place = match &t.host {
        Some(host) => Place::on_host(&t.block, host),
        None => Place::local(&t.block),
    };
    Ok(place.seen_at(t.seen))
}

/// The agent of a session as the window names it ("Claude Code", a named tool's name).
pub fn who(session: &Session) -> String {
    match &session.identity {
        Some(identity) => identity.display_name(),
        None => crate::theme::agent_label(session.agent, session.agent_name.as_deref()),
    }
}

/// Draws a show's line where it belongs (under a bird's or a card's buttons): green when it
/// came forward, amber when not.
pub fn line_ui(ui: &mut egui::Ui, shown: &Shown) {
    let color = if shown.ok {
        crate::theme::GREEN
    } else {
        crate::theme::AMBER
    };
    ui.add(egui::Label::new(egui::RichText::new(shown.line.text()).small().color(color)).wrap());
}

/// The "Show terminal" button, the same everywhere; `showing` while one is under way. `name`
/// is what a screen reader says where the button alone would not say whose terminal it is,
/// before and while it runs (a bird's: "Show terminal of Claude Code in /src/api", "Showing
/// terminal of …").
pub fn button(ui: &mut egui::Ui, showing: bool, hint: &str, name: Option<(&str, &str)>) -> bool {
    let label = if showing {
        vults_i18n::tr!("show-terminal-showing")
    } else {
        vults_i18n::tr!("show-terminal")
    };
    let response = ui.add_enabled(!showing, egui::Button::new(label));
    if let Some((idle, running)) = name {
        let name = if showing { running } else { idle };
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, !showing, name));
    }
    // The tooltip is a window of egui's own, laid out with the context's spacing, not the
    // caller's: the width the caller asks (a card's, narrower than its window) is passed in.
    let width = ui.spacing().tooltip_width;
    response
        .on_hover_ui(|ui| {
            ui.set_max_width(width);
            ui.label(hint);
        })
        .clicked()
}
