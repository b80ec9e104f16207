//! What deserves a desktop notification, and how one is worded — pure, no I/O.
//!
//! A [`Notice`] is one thing an agent waits on, in one session: a permission card, a question,
//! a finished turn, or an agent asking in its own terminal. [`compose`] turns it into the
//! [`Outgoing`] notification a backend sends: the summary and body (the agent, the folder and the
//! whole target, made visible by the card's own rule, [`vults_core::text::reveal`]: a control,
//! format or bidi character is written `‹U+202E›` as on the card, so a payload cannot hide or
//! reorder text), the actions the server may show, and the sound.
//!
//! "Allow" and "Deny" are offered only when the server shows actions and the card's
//! presentation (`vults_engine::present`, the one model of what a person is shown) offers them
//! from a notification: the call is not destructive, nothing the card shows has a hidden
//! character by that same rule, and the whole target fits the body unchanged ([`fits`]): a
//! person answering from a notification must have seen all of what they answer.
//!
//! The words are in the active language ([`vults_i18n`], `assets/i18n/<tag>/notify.ftl`); what
//! is shown and offered is the same in every language.

pub use crate::settings::NoticeKind;
use crate::settings::NotifySettings;
use vults_core::text::{any_hidden, xml_escape};
pub use vults_engine::present::{FIT_CHARS, FIT_LINES, fits};
use vults_i18n::tr;

/// A pending card's id, unique for the app's run: what a notification's actions and the global
/// keys answer.
pub use vults_engine::messages::CardId;

/// The session a notice belongs to: one notification per session, replaced when it changes.
/// Opaque to this crate; the app passes its own session key as text.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(pub String);

impl From<&str> for SessionId {
    fn from(s: &str) -> SessionId {
        SessionId(s.to_string())
    }
}

impl From<String> for SessionId {
    fn from(s: String) -> SessionId {
        SessionId(s)
    }
}

/// One thing an agent waits on, where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The agent's display name ("Claude Code", "Codex", a named tool's own name).
    pub agent: String,
    /// The session's folder, as the agent reported it.
    pub folder: String,
    /// What it waits on.
    pub what: What,
}

/// What an agent waits on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum What {
    /// A permission card: the tool and its whole target.
    Card {
        /// The card it is about; an Allow or Deny from the notification names it.
        card: CardId,
        /// The tool's name as the agent sent it (`Bash`, `Edit`, a named tool's own).
        tool: String,
        /// The whole target: the command, the file, the URL.
        target: String,
        /// Set when the call is destructive: what made it so (`rm -r`). Such a card is answered
        /// on the card only.
        destructive: Option<String>,
        /// The card's presentation offers Allow from a notification
        /// ([`vults_engine::present::Presentation::offers`]): without it only "Show" is.
        allow: bool,
    },
    /// A file change (an edit, a write, a patch): said as the card says it, the file and its
    /// `+N −M`, and answered on its card, where its diff is.
    FileChange {
        /// The card it is about.
        card: CardId,
        /// The tool's name as the agent sent it (`Edit`, `MultiEdit`, `edit`).
        tool: String,
        /// The file (or "3 files") and the lines it adds and removes: `src/lib.rs · +3 −1`.
        change: String,
    },
    /// The agent asks the person to approve its plan (Claude Code leaving plan mode): answered
    /// on its card, where the plan is.
    Plan {
        /// The card it is about.
        card: CardId,
        /// The plan's first heading, when it has one.
        heading: Option<String>,
    },
    /// A question the agent asks the person (AskUserQuestion): answered on its card.
    Question {
        /// The question card.
        card: CardId,
        /// The question's text.
        text: String,
    },
    /// The agent ended its turn and waits for the person: "done — waiting for you".
    TurnDone,
    /// The agent asks in its own terminal (its own permission or idle prompt).
    AsksInTerminal {
        /// What it says, when it said something.
        text: Option<String>,
    },
    /// Vults warns about something it watches: its hook removed from an agent's settings
    /// (`vults_installer::watch`), a plan's usage limit near ([`crate::limits`]).
    Warning {
        /// The title line, whole.
        title: String,
        /// What happened and what Vults did.
        body: String,
    },
}

impl What {
    /// The kind, for the per-kind switches in [`NotifySettings`].
    pub fn kind(&self) -> NoticeKind {
        match self {
            What::Card { .. } | What::FileChange { .. } | What::Plan { .. } => NoticeKind::Card,
            What::Question { .. } => NoticeKind::Question,
            What::TurnDone => NoticeKind::TurnDone,
            What::AsksInTerminal { .. } => NoticeKind::AsksInTerminal,
            What::Warning { .. } => NoticeKind::Warning,
        }
    }

    /// The card a notice is about, if any.
    pub fn card(&self) -> Option<CardId> {
        match self {
            What::Card { card, .. }
            | What::FileChange { card, .. }
            | What::Plan { card, .. }
            | What::Question { card, .. } => Some(*card),
            _ => None,
        }
    }
}

/// An action a notification offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// Bring up Vults on this session (also the notification's default action, a click on it).
    Show,
    /// Allow the card. Only for a non-destructive card whose whole target is in the body.
    Allow(CardId),
    /// Deny the card. Offered with [`Offer::Allow`] only.
    Deny(CardId),
    /// Bring up the terminal the agent runs in ("Show terminal"): offered where the agent waits
    /// at its own prompt (a finished turn, a question asked in its terminal).
    Terminal,
}

impl Offer {
    /// The button's label, in the active language.
    pub fn label(self) -> String {
        match self {
            Offer::Show => tr!("notify-action-show"),
            Offer::Allow(_) => tr!("notify-action-allow"),
            Offer::Deny(_) => tr!("notify-action-deny"),
            Offer::Terminal => tr!("notify-action-terminal"),
        }
    }
}

/// What the notification server (or the platform) can show, from `GetCapabilities`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ServerCaps {
    /// `actions`: buttons, and `ActionInvoked` when one is pressed.
    pub actions: bool,
    /// `body-markup`: the body is read as markup, so `<`, `>` and `&` must be escaped.
    pub body_markup: bool,
    /// `sound`: the server plays the `sound-name` hint.
    pub sound: bool,
}

impl ServerCaps {
    /// From the capability strings `GetCapabilities` returns.
    pub fn from_strings<S: AsRef<str>>(caps: &[S]) -> ServerCaps {
        let has = |name: &str| caps.iter().any(|c| c.as_ref() == name);
        ServerCaps {
            actions: has("actions"),
            body_markup: has("body-markup"),
            sound: has("sound"),
        }
    }
}

/// A longer target is cut to this many characters in the body (it then does not fit, so the
/// notification offers only "Show").
pub const BODY_TARGET_CHARS: usize = 300;

/// A notification ready for a backend: what it says, what it offers, whether it sounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    /// The title line: who asks, what.
    pub summary: String,
    /// The body: the target and the folder, escaped for the server.
    pub body: String,
    /// The actions, in order; empty when the server shows none.
    pub offers: Vec<Offer>,
    /// The `sound-name` hint; `None` is silent (with `suppress-sound` set).
    pub sound: Option<&'static str>,
    /// Whether it stays until withdrawn (`expire_timeout` 0): a card or a question does.
    pub resident: bool,
    /// The kind, for the backend's category hint.
    pub kind: NoticeKind,
}

/// The notification for `notice`, or `None` when its kind is switched off.
/// `silent` drops the sound (a notice shown again after quiet hours ended).
pub fn compose(
    notice: &Notice,
    caps: &ServerCaps,
    settings: &NotifySettings,
    silent: bool,
) -> Option<Outgoing> {
    let kind = notice.what.kind();
    if !settings.enabled || !settings.notify.get(kind) {
        return None;
    }
    let folder = visible(&notice.folder).0;
    let agent = one_line(&visible(&notice.agent).0, 60);
    let place = tr!("notify-in", folder = shorten_left(&folder, 80));
    let (summary, lines, offers) = match &notice.what {
        What::Card {
            card,
            tool,
            target,
            destructive,
            allow,
        } => {
            let (shown, fit) = body_target(target);
            // The card's presentation says whether a notification may answer; and what this
            // notification shows must itself be whole and hide nothing, by the same rule.
            let fit = *allow && fit && !any_hidden([notice.agent.as_str(), &notice.folder, tool]);
            let tool = one_line(&visible(tool).0, 40);
            let mut lines = vec![shown, place];
            let mut offers = vec![Offer::Show];
            match destructive {
                Some(why) => lines.push(tr!(
                    "notify-destructive",
                    why = one_line(&visible(why).0, 60)
                )),
                None if fit => offers.extend([Offer::Allow(*card), Offer::Deny(*card)]),
                None => {}
            }
            (
                tr!("notify-asks", agent = &agent, tool = tool),
                lines,
                offers,
            )
        }
        What::FileChange { tool, change, .. } => (
            tr!(
                "notify-asks",
                agent = &agent,
                tool = one_line(&visible(tool).0, 40)
            ),
            vec![
                one_line(&visible(change).0, 120),
                place,
                tr!("notify-answer-where-diff"),
            ],
            vec![Offer::Show],
        ),
        What::Plan { heading, .. } => {
            let mut lines = Vec::new();
            if let Some(h) = heading.as_deref().filter(|h| !h.trim().is_empty()) {
                lines.push(one_line(&visible(h).0, 120));
            }
            lines.push(place);
            (tr!("notify-plan", agent = &agent), lines, vec![Offer::Show])
        }
        What::Question { text, .. } => (
            tr!("notify-question", agent = &agent),
            vec![body_target(text).0, place],
            vec![Offer::Show],
        ),
        What::TurnDone => (
            tr!("notify-turn-done", agent = &agent),
            vec![place],
            vec![Offer::Show, Offer::Terminal],
        ),
        What::AsksInTerminal { text } => {
            let mut lines = Vec::new();
            if let Some(t) = text.as_deref().filter(|t| !t.trim().is_empty()) {
                lines.push(body_target(t).0);
            }
            lines.push(place);
            (
                tr!("notify-asks-in-terminal", agent = &agent),
                lines,
                vec![Offer::Show, Offer::Terminal],
            )
        }
        What::Warning { title, body } => (
            one_line(&visible(title).0, 120),
            vec![body_target(body).0],
            vec![Offer::Show],
        ),
    };
    let body = lines.join("\n");
    Some(Outgoing {
        summary,
        body: if caps.body_markup {
            xml_escape(&body)
        } else {
            body
        },
        offers: if caps.actions { offers } else { Vec::new() },
        sound: (!silent && settings.sound.get(kind)).then(|| kind.sound_name()),
        resident: matches!(kind, NoticeKind::Card | NoticeKind::Question),
        kind,
    })
}

/// The target as the body shows it, and whether that is the whole target unchanged.
fn body_target(target: &str) -> (String, bool) {
    let (shown, _) = visible(target);
    let fit = fits(target);
    if shown.chars().count() > BODY_TARGET_CHARS {
        let cut: String = shown.chars().take(BODY_TARGET_CHARS - 1).collect();
        (format!("{cut}…"), false)
    } else {
        (shown, fit)
    }
}

/// `text` as the card shows it ([`vults_core::text::reveal`]: each hidden character written
/// `‹U+202E›`), a Windows line end as a plain one; and whether anything was hidden.
pub fn visible(text: &str) -> (String, bool) {
    vults_engine::present::shown(text)
}

/// The first line, cut to `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() > max || text.lines().nth(1).is_some() {
        let cut: String = line.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    } else {
        line.to_string()
    }
}

/// A long path keeps its end: `…/project/src`.
fn shorten_left(path: &str, max: usize) -> String {
    let path = one_line(path, usize::MAX);
    let n = path.chars().count();
    if n <= max {
        return path;
    }
    let tail: String = path.chars().skip(n - (max - 1)).collect();
    format!("…{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(target: &str, destructive: Option<&str>) -> Notice {
        Notice {
            agent: "Claude Code".into(),
            folder: "/home/ana/src/vults".into(),
            what: What::Card {
                card: 7,
                tool: "Bash".into(),
                target: target.into(),
                destructive: destructive.map(Into::into),
                allow: true,
            },
        }
    }

    fn all_caps() -> ServerCaps {
        ServerCaps {
            actions: true,
            body_markup: false,
            sound: true,
        }
    }

    #[test]
    fn a_card_says_who_what_and_where_and_offers_allow_when_it_fits() {
        let out = compose(
            &card("cargo test", None),
            &all_caps(),
            &Default::default(),
            false,
        )
        .unwrap();
        assert_eq!(out.summary, "Claude Code asks: Bash");
        assert_eq!(out.body, "cargo test\nin /home/ana/src/vults");
        assert_eq!(out.offers, [Offer::Show, Offer::Allow(7), Offer::Deny(7)]);
        assert!(out.resident);
        assert_eq!(out.sound, None, "sound is off by default");
    }

    #[test]
    fn a_destructive_card_offers_only_show_and_says_why() {
        let out = compose(
            &card("rm -rf build", Some("rm -r")),
            &all_caps(),
            &Default::default(),
            false,
        )
        .unwrap();
        assert_eq!(out.offers, [Offer::Show]);
        assert!(
            out.body
                .ends_with("Destructive (rm -r): answer it on its card.")
        );
    }

    #[test]
    fn a_target_that_does_not_fit_whole_offers_only_show() {
        let long = "x".repeat(FIT_CHARS + 1);
        let three_lines = "a\nb\nc";
        let hidden = "echo hi\u{202e}";
        for target in [long.as_str(), three_lines, hidden, "  "] {
            let out = compose(&card(target, None), &all_caps(), &Default::default(), false);
            assert_eq!(out.unwrap().offers, [Offer::Show], "{target:?}");
        }
        let at_limit = "y".repeat(FIT_CHARS);
        let out = compose(
            &card(&at_limit, None),
            &all_caps(),
            &Default::default(),
            false,
        );
        assert_eq!(out.unwrap().offers.len(), 3);
        let very_long = "z".repeat(BODY_TARGET_CHARS + 50);
        let out = compose(
            &card(&very_long, None),
            &all_caps(),
            &Default::default(),
            false,
        );
        let first = out.unwrap().body.lines().next().unwrap().to_string();
        assert_eq!(first.chars().count(), BODY_TARGET_CHARS);
        assert!(first.ends_with('…'));
    }

    #[test]
    fn no_actions_when_the_server_has_none() {
        let caps = ServerCaps::default();
        let out = compose(&card("ls", None), &caps, &Default::default(), false).unwrap();
        assert!(out.offers.is_empty());
    }

    #[test]
    fn hidden_characters_are_shown_as_escapes_and_markup_is_escaped() {
        let caps = ServerCaps {
            body_markup: true,
            ..all_caps()
        };
        let out = compose(
            &card("cat <a> && b\u{7}\u{200b}", None),
            &caps,
            &Default::default(),
            false,
        )
        .unwrap();
        assert!(
            out.body
                .starts_with("cat &lt;a&gt; &amp;&amp; b‹U+0007›‹U+200B›\n"),
            "{}",
            out.body
        );
        assert_eq!(visible("a\tb\r\n"), ("a\tb\n".into(), false));
        assert_eq!(visible("a\rb"), ("a‹U+000D›b".into(), true));
        assert_eq!(visible("plain\ntext"), ("plain\ntext".into(), false));
    }

    #[test]
    fn a_target_the_card_reveals_is_revealed_alike_and_never_offers_allow() {
        // Every range of the one rule, the ones an older copy here lacked among them.
        for c in vults_core::text::HIDDEN
            .iter()
            .flat_map(|r| [*r.start(), *r.end()])
        {
            let c = char::from_u32(c).unwrap();
            let target = format!("cat /tmp/notes{c}.txt");
            let out = compose(
                &card(&target, None),
                &all_caps(),
                &Default::default(),
                false,
            )
            .unwrap();
            let shown = format!("cat /tmp/notes‹U+{:04X}›.txt", c as u32);
            assert_eq!(out.body.lines().next(), Some(shown.as_str()));
            assert_eq!(out.offers, [Offer::Show], "{shown}");
            assert!(!fits(&target), "{shown}");
        }
        let out = compose(
            &card("cat /tmp/notes\u{1D173}.txt", None),
            &all_caps(),
            &Default::default(),
            false,
        )
        .unwrap();
        assert_eq!(
            out.body,
            "cat /tmp/notes‹U+1D173›.txt\nin /home/ana/src/vults"
        );
        assert_eq!(out.offers, [Offer::Show]);
        // Something hidden in the tool's name or the folder withholds Allow as well.
        let mut tool = card("ls", None);
        if let What::Card { tool, .. } = &mut tool.what {
            *tool = "Ba\u{200b}sh".into();
        }
        let mut folder = card("ls", None);
        folder.folder = "/home/ana/\u{202e}crs".into();
        for n in [tool, folder] {
            let out = compose(&n, &all_caps(), &Default::default(), false).unwrap();
            assert_eq!(out.offers, [Offer::Show], "{n:?}");
        }
    }

    #[test]
    fn each_kind_has_its_words() {
        let s = NotifySettings::default();
        let caps = all_caps();
        let n = |what| Notice {
            agent: "Codex".into(),
            folder: "/w".into(),
            what,
        };
        let done = compose(&n(What::TurnDone), &caps, &s, false).unwrap();
        assert_eq!(done.summary, "Codex is done — waiting for you");
        assert_eq!(done.body, "in /w");
        assert!(!done.resident);
        let q = compose(
            &n(What::Question {
                card: 3,
                text: "Which one?".into(),
            }),
            &caps,
            &s,
            false,
        )
        .unwrap();
        assert_eq!(q.summary, "Codex asks you a question");
        assert_eq!(
            q.offers,
            [Offer::Show],
            "a question is answered on its card"
        );
        let t = compose(
            &n(What::AsksInTerminal {
                text: Some("Allow edit?".into()),
            }),
            &caps,
            &s,
            false,
        )
        .unwrap();
        assert_eq!(t.summary, "Codex asks in its terminal");
        assert_eq!(t.body, "Allow edit?\nin /w");
    }

    #[test]
    fn a_plan_and_a_file_change_say_what_their_card_says_and_offer_only_show() {
        let n = |what| Notice {
            agent: "Claude Code".into(),
            folder: "/w".into(),
            what,
        };
        let plan = compose(
            &n(What::Plan {
                card: 4,
                heading: Some("Plan: list the project".into()),
            }),
            &all_caps(),
            &Default::default(),
            false,
        )
        .unwrap();
        assert_eq!(plan.summary, "Claude Code asks you to approve its plan");
        assert_eq!(plan.body, "Plan: list the project\nin /w");
        assert_eq!(plan.offers, [Offer::Show]);
        assert!(plan.resident);
        let edit = compose(
            &n(What::FileChange {
                card: 5,
                tool: "MultiEdit".into(),
                change: "src/lib.rs · +3 −1".into(),
            }),
            &all_caps(),
            &Default::default(),
            false,
        )
        .unwrap();
        assert_eq!(edit.summary, "Claude Code asks: MultiEdit");
        assert_eq!(
            edit.body,
            "src/lib.rs · +3 −1\nin /w\nAnswer it on its card, where its diff is."
        );
        assert_eq!(edit.offers, [Offer::Show]);
        assert_eq!(edit.kind, NoticeKind::Card);
    }

    #[test]
    fn sound_and_kinds_follow_the_settings() {
        let mut s = NotifySettings::default();
        s.sound.card = true;
        let caps = all_caps();
        let out = compose(&card("ls", None), &caps, &s, false).unwrap();
        assert_eq!(out.sound, Some("message-new-instant"));
        assert_eq!(
            compose(&card("ls", None), &caps, &s, true).unwrap().sound,
            None
        );
        let done = Notice {
            what: What::TurnDone,
            ..card("ls", None)
        };
        assert_eq!(compose(&done, &caps, &s, false).unwrap().sound, None);
        s.notify.turn_done = false;
        assert_eq!(compose(&done, &caps, &s, false), None);
        s.enabled = false;
        assert_eq!(compose(&card("ls", None), &caps, &s, false), None);
    }

    #[test]
    fn long_folders_keep_their_end_and_names_stay_on_one_line() {
        let mut n = card("ls", None);
        n.folder = format!("/{}/project", "d".repeat(100));
        n.agent = "Evil\nAgent".into();
        let out = compose(&n, &all_caps(), &Default::default(), false).unwrap();
        assert_eq!(out.summary, "Evil… asks: Bash");
        let place = out.body.lines().nth(1).unwrap();
        assert!(
            place.starts_with("in …") && place.ends_with("/project"),
            "{place}"
        );
        assert_eq!(place.chars().count(), 3 + 80);
    }
}
