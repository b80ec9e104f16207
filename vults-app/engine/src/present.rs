//! What a person is shown of a waiting card, decided once ([`Presentation`]), beside
//! [`PendingCard`]: the title's parts (the agent, the tool, what kind of card), the target's lines
//! and the folder as `vults_core::text`'s one rule shows them (each hidden character written
//! `‹U+202E›`), the marks (destructive, hidden characters, too long for a notification, too
//! large for the phone's link) and which answers each surface may offer ([`Presentation::offers`]).
//!
//! The desktop notification and the phone's push (`vults-notify`'s notice), and the phone
//! page's JSON (`vults-phone`) are rendered from it. No words here: each surface words the title
//! in the person's language from its parts, so a translation changes words, never what is shown
//! or offered.

use crate::messages::{CardId, PendingCard};
use vults_core::agents::{Target, ToolKind};
use vults_core::text::{any_hidden, reveal};

/// The most characters a target may have to be answered from a notification: all of it fits
/// the body unchanged.
pub const FIT_CHARS: usize = 120;
/// The most lines a target may have to be answered from a notification.
pub const FIT_LINES: usize = 2;

/// What a person is shown of one card, everywhere it is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Presentation {
    /// The card.
    pub card: CardId,
    /// Who asks for what: each surface words it in the person's language.
    pub title: Title,
    /// The whole target, line by line, as shown: each hidden character written `‹U+202E›`
    /// ([`vults_core::text::reveal`]), a Windows line end as a plain one.
    pub target: Vec<String>,
    /// The folder the agent works in, as shown (the same rule).
    pub folder: String,
    /// What a person must be told before answering.
    pub marks: Marks,
    /// The answers the card itself offers (the desktop card and the phone page, until a mark
    /// takes some away: [`Presentation::offers`]).
    answers: Vec<Answer>,
}

/// A card's title, in parts: the agent, the tool, and what kind of card it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Title {
    /// The agent as it names itself, shown by the one rule and on one line.
    pub agent: String,
    /// The tool's name as the agent sent it, shown by the one rule.
    pub tool: String,
    /// The tool's kind (a shell command, an edit …).
    pub tool_kind: ToolKind,
    /// What the card asks.
    pub kind: CardKind,
}

/// What a card asks of a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardKind {
    /// May the agent make this call?
    Permission,
    /// May the agent change these files (an edit, a write, a patch)? Answered where its diff is.
    FileChange,
    /// Does the person approve the agent's plan? Answered where the plan is.
    Plan,
    /// The agent's question (AskUserQuestion). Answered on its card.
    Question,
}

impl CardKind {
    /// The kind as the phone's JSON names it.
    pub fn as_str(self) -> &'static str {
        match self {
            CardKind::Permission => "permission",
            CardKind::FileChange => "file-change",
            CardKind::Plan => "plan",
            CardKind::Question => "question",
        }
    }
}

/// What a person must be told before answering a card.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marks {
    /// The call is destructive: what made it so (`rm -r`). It always asks a person, on its card.
    pub destructive: Option<String>,
    /// Something the card shows has a hidden character ([`PendingCard::has_hidden_characters`],
    /// and the agent's name): each is shown as its escape, and no notification answers it.
    pub hidden: bool,
    /// The target does not fit a notification whole and unchanged ([`fits`]): a notification
    /// shows its start and answers nothing.
    pub too_long: bool,
    /// The card was too large for the phone's link and was sent cut (its size in bytes): the
    /// phone offers only Deny.
    pub too_large: Option<usize>,
}

/// An answer a surface may offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Allow (a plan's Approve).
    Allow,
    /// Deny (a plan's Keep planning).
    Deny,
    /// Always allow: the card's narrowest rule.
    Always,
    /// A question's answers.
    Answers,
}

impl Answer {
    /// The answer as the phone's JSON and the push name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Answer::Allow => "allow",
            Answer::Deny => "deny",
            Answer::Always => "always",
            Answer::Answers => "answers",
        }
    }
}

/// Where a card is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// The desktop card.
    Card,
    /// A desktop notification.
    Notification,
    /// A push on a paired phone (a notification there).
    Push,
    /// The phone page.
    Phone,
}

impl Presentation {
    /// What a person is shown of `card`.
    pub fn of(card: &PendingCard) -> Presentation {
        let kind = if card.question {
            CardKind::Question
        } else if card.plan().is_some() {
            CardKind::Plan
        } else if matches!(
            card.call.target,
            Target::Edit { .. } | Target::Write { .. } | Target::Patch { .. }
        ) || (matches!(card.call.target, Target::Input { .. })
            && crate::diff::card_diff(&card.call, &card.context).is_some_and(|d| !d.is_empty()))
        {
            CardKind::FileChange
        } else {
            CardKind::Permission
        };
        let agent = card.identity.display_name();
        let text = target_text(&card.call.target);
        let (target, _) = shown(&text);
        let answers = match kind {
            CardKind::Question => vec![Answer::Answers, Answer::Deny],
            CardKind::Plan => vec![Answer::Allow, Answer::Deny],
            _ if card.always_rule.is_some() && card.destructive.is_none() => {
                vec![Answer::Allow, Answer::Always, Answer::Deny]
            }
            _ => vec![Answer::Allow, Answer::Deny],
        };
        Presentation {
            card: card.id,
            title: Title {
                agent: one_line(&shown(&agent).0),
                tool: shown(&card.call.tool).0,
                tool_kind: card.call.kind,
                kind,
            },
            target: target.lines().map(str::to_string).collect(),
            folder: shown(&card.folder).0,
            marks: Marks {
                destructive: card.destructive.clone(),
                hidden: card.has_hidden_characters() || any_hidden([agent.as_str()]),
                too_long: !fits(&text),
                too_large: None,
            },
            answers,
        }
    }

    /// The same card sent cut to the phone, `bytes` long whole: only Deny is offered.
    pub fn cut(mut self, bytes: usize) -> Presentation {
        self.marks.too_large = Some(bytes);
        self
    }

    /// The answers `surface` may offer. The card offers its own ([`CardKind`]: a permission
    /// Allow and Deny, and Always where the card has a rule and is not destructive); the phone
    /// page the same, but only Deny for a card sent cut (an Allow must see all it authorizes).
    /// A notification and a push offer Allow and Deny only for a permission that is not
    /// destructive, shows no hidden character and fits whole; otherwise nothing (the person
    /// answers on the card).
    pub fn offers(&self, surface: Surface) -> Vec<Answer> {
        match surface {
            Surface::Card => self.answers.clone(),
            Surface::Phone if self.marks.too_large.is_some() => vec![Answer::Deny],
            Surface::Phone => self.answers.clone(),
            Surface::Notification | Surface::Push => {
                let whole = self.title.kind == CardKind::Permission
                    && self.marks.destructive.is_none()
                    && !self.marks.hidden
                    && !self.marks.too_long
                    && self.marks.too_large.is_none();
                if whole {
                    vec![Answer::Allow, Answer::Deny]
                } else {
                    Vec::new()
                }
            }
        }
    }

    /// Whether `surface` may offer `answer`.
    pub fn may(&self, surface: Surface, answer: Answer) -> bool {
        self.offers(surface).contains(&answer)
    }
}

/// The target as text, whole: the command, the path, the URL, an MCP tool's server, name and
/// input, a tool's whole input; a file change's path (its change is on its card, as a diff).
pub fn target_text(target: &Target) -> String {
    match target {
        Target::Command { command } => command.clone(),
        Target::Path { path } | Target::Edit { path, .. } | Target::Write { path, .. } => {
            path.clone()
        }
        Target::Url { url } => url.clone(),
        Target::Mcp {
            server,
            tool,
            input,
        } => format!("{server}/{tool} {input}"),
        Target::Input { json } => json.clone(),
        Target::Patch { patch } => patch.clone(),
        Target::Questions { .. } => target.summary(),
    }
}

/// Whether `target` fits a notification whole and unchanged: nothing in it is hidden (the one
/// rule), at most [`FIT_LINES`] lines and [`FIT_CHARS`] characters, not blank.
pub fn fits(target: &str) -> bool {
    let (text, changed) = shown(target);
    !changed
        && !target.trim().is_empty()
        && text.chars().count() <= FIT_CHARS
        && text.lines().count() <= FIT_LINES
}

/// `text` as shown: each hidden character written `‹U+202E›` ([`vults_core::text::reveal`]), a
/// Windows line end as a plain one; and whether anything was hidden.
pub fn shown(text: &str) -> (String, bool) {
    let revealed = reveal(text);
    let hidden = revealed.hidden;
    let text = if revealed.text.contains("\r\n") {
        revealed.text.replace("\r\n", "\n")
    } else {
        revealed.text.into_owned()
    };
    (text, hidden)
}

fn one_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(target: Target, destructive: Option<&str>) -> PendingCard {
        PendingCard::sample(9, "s", "/home/ana/src", target, destructive)
    }

    fn cmd(c: &str) -> Target {
        Target::Command { command: c.into() }
    }

    #[test]
    fn a_hidden_character_is_shown_as_its_escape_and_no_notification_offers_allow() {
        let p = Presentation::of(&card(cmd("cat /tmp/notes\u{1D173}.txt"), None));
        assert_eq!(p.target, ["cat /tmp/notes‹U+1D173›.txt"]);
        assert!(p.marks.hidden && p.marks.too_long);
        assert_eq!(p.title.kind, CardKind::Permission);
        assert!(p.offers(Surface::Notification).is_empty());
        assert!(p.offers(Surface::Push).is_empty());
        assert_eq!(p.offers(Surface::Card), [Answer::Allow, Answer::Deny]);
        // Every range of the one rule, at both ends.
        for c in vults_core::text::HIDDEN
            .iter()
            .flat_map(|r| [*r.start(), *r.end()])
        {
            let c = char::from_u32(c).unwrap();
            let p = Presentation::of(&card(cmd(&format!("ls {c}")), None));
            assert!(
                !p.may(Surface::Notification, Answer::Allow),
                "U+{:04X}",
                c as u32
            );
            assert_eq!(p.target, [format!("ls ‹U+{:04X}›", c as u32)]);
        }
    }

    #[test]
    fn a_notification_answers_only_a_whole_plain_permission() {
        let plain = Presentation::of(&card(cmd("cargo test"), None));
        assert_eq!(
            plain.offers(Surface::Notification),
            [Answer::Allow, Answer::Deny]
        );
        assert_eq!(plain.marks, Marks::default());
        let rm = Presentation::of(&card(cmd("rm -rf build"), Some("rm -r")));
        assert!(rm.offers(Surface::Push).is_empty());
        assert_eq!(rm.marks.destructive.as_deref(), Some("rm -r"));
        let long = Presentation::of(&card(cmd(&"x".repeat(FIT_CHARS + 1)), None));
        assert!(long.marks.too_long && long.offers(Surface::Notification).is_empty());
        let mut folder = card(cmd("ls"), None);
        folder.folder = "/home/\u{202e}crs".into();
        let folder = Presentation::of(&folder);
        assert_eq!(folder.folder, "/home/‹U+202E›crs");
        assert!(folder.marks.hidden && folder.offers(Surface::Notification).is_empty());
        let edit = Presentation::of(&card(
            Target::Edit {
                path: "a.txt".into(),
                old: Some("a".into()),
                new: Some("b".into()),
            },
            None,
        ));
        assert_eq!(edit.title.kind, CardKind::FileChange);
        assert!(edit.offers(Surface::Notification).is_empty());
        assert_eq!(edit.offers(Surface::Phone), [Answer::Allow, Answer::Deny]);
    }

    #[test]
    fn a_card_sent_cut_to_the_phone_offers_only_deny_there() {
        let p = Presentation::of(&card(cmd("ls"), None)).cut(70_000);
        assert_eq!(p.marks.too_large, Some(70_000));
        assert_eq!(p.offers(Surface::Phone), [Answer::Deny]);
        assert_eq!(p.offers(Surface::Card), [Answer::Allow, Answer::Deny]);
    }

    #[test]
    fn questions_and_plans_are_answered_on_their_cards() {
        let mut q = card(cmd("x"), None);
        q.question = true;
        let q = Presentation::of(&q);
        assert_eq!(q.title.kind, CardKind::Question);
        assert_eq!(q.offers(Surface::Card), [Answer::Answers, Answer::Deny]);
        assert!(q.offers(Surface::Notification).is_empty());
        let mut plan = card(cmd("x"), None);
        plan.context.plan = Some("# Plan".into());
        let plan = Presentation::of(&plan);
        assert_eq!(plan.title.kind, CardKind::Plan);
        assert!(plan.offers(Surface::Push).is_empty());
    }
}
