//! The notice of a pending card: what a waiting card says in a notification, in the card's own
//! words — the desktop's (`ui`) and the phone's push alike, so the two never differ. A plan says
//! the agent asks to approve its plan, with the plan's first heading; a file change says the file
//! and `+N −M` as the card does; a question says the question; any other card its tool and whole
//! target.

use crate::notice::{Notice, What};
use vults_core::agents::Target;
use vults_engine::messages::PendingCard;
use vults_engine::present::{Answer, CardKind, Presentation, Surface};
use vults_i18n::tr;

/// The notice of a card, rendered from its [`Presentation`] (what kind of card, its marks,
/// whether a notification may answer it): the tool and what an Allow would authorise, whole. A
/// file change (an edit, a write, a patch) is said as its path and its change, and answered on
/// its card, where its diff is. Words in the active language ([`vults_i18n`]).
pub fn card_notice(card: &PendingCard) -> Notice {
    let shown = Presentation::of(card);
    let what = match shown.title.kind {
        CardKind::Question => What::Question {
            card: card.id,
            text: card.call.target.summary(),
        },
        CardKind::Plan => What::Plan {
            card: card.id,
            heading: card.plan().and_then(first_heading),
        },
        CardKind::FileChange => What::FileChange {
            card: card.id,
            tool: card.call.tool.clone(),
            change: file_change(card).unwrap_or_else(|| shown.target.join("\n")),
        },
        CardKind::Permission => What::Card {
            card: card.id,
            tool: card.call.tool.clone(),
            target: vults_engine::present::target_text(&card.call.target),
            destructive: card.destructive.clone(),
            allow: shown.may(Surface::Notification, Answer::Allow),
        },
    };
    Notice {
        agent: card.identity.display_name(),
        folder: card.folder.clone(),
        what,
    }
}

/// A plan's first markdown heading (`# Plan: list the project` says "Plan: list the
/// project"), else its first line that says something.
fn first_heading(plan: &str) -> Option<String> {
    let lines = || plan.lines().map(str::trim).filter(|l| !l.is_empty());
    lines()
        .find(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim())
        .filter(|h| !h.is_empty())
        .or_else(|| lines().next())
        .map(str::to_string)
}

/// A file change as its card says it: the file (or "3 files") and `+N −M`, from the same diff
/// the card draws; `None` for a call that changes no file, or whose diff cannot be made.
fn file_change(card: &PendingCard) -> Option<String> {
    let changes_files = matches!(
        card.call.target,
        Target::Edit { .. } | Target::Write { .. } | Target::Patch { .. } | Target::Input { .. }
    );
    if !changes_files {
        return None;
    }
    let files = vults_engine::diff::card_diff(&card.call, &card.context).filter(|d| !d.is_empty());
    let path = |p: &str| p.to_string();
    match (&card.call.target, files) {
        (_, Some(files)) => {
            let what = match files.as_slice() {
                [one] if !one.path.is_empty() => path(&one.path),
                many => tr!("notify-files", count = many.len()),
            };
            Some(format!("{what} · {}", vults_engine::diff::changes(&files)))
        }
        (
            Target::Write {
                path: p,
                content: Some(content),
            },
            None,
        ) => Some({
            let n = content.lines().count();
            if card.context.is_missing(p) {
                format!("{p} · {} · +{n}", tr!("notify-new-file"))
            } else {
                format!("{p} · {}", tr!("notify-lines", count = n))
            }
        }),
        (Target::Edit { path: p, .. } | Target::Write { path: p, .. }, None) => Some(path(p)),
        (Target::Patch { .. }, None) => Some(tr!("notify-a-patch")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(id: u64, session: &str, target: Target, destructive: Option<&str>) -> PendingCard {
        PendingCard::sample(id, session, "/w", target, destructive)
    }

    fn cmd(c: &str) -> Target {
        Target::Command { command: c.into() }
    }

    #[test]
    fn a_file_change_never_fits_a_notification_but_a_short_command_does() {
        let edit = card_notice(&card(
            1,
            "a",
            Target::Edit {
                path: "a.txt".into(),
                old: Some("x".into()),
                new: Some("y".into()),
            },
            None,
        ));
        let write = card_notice(&card(
            2,
            "a",
            Target::Write {
                path: "a.txt".into(),
                content: Some("hello".into()),
            },
            None,
        ));
        // Said as the card says it (the file, +N −M), never as the raw input, and answered on
        // its card: a file change is no `What::Card`, whose Allow a notification may offer.
        assert_eq!(
            edit.what,
            What::FileChange {
                card: 1,
                tool: "Bash".into(),
                change: "a.txt · +1 −1".into()
            }
        );
        assert_eq!(
            write.what,
            What::FileChange {
                card: 2,
                tool: "Bash".into(),
                change: "a.txt · 1 line".into()
            }
        );
        // A MultiEdit (its edits as JSON) and OpenCode's edit (its own diff) alike.
        let mut multi = card(
            4,
            "a",
            Target::Edit {
                path: "src/lib.rs".into(),
                old: None,
                new: Some(r#"[{"old_string":"a","new_string":"b"}]"#.into()),
            },
            None,
        );
        multi.call.tool = "MultiEdit".into();
        multi.context.edits = vec![vults_engine::messages::EditPair {
            old: "a".into(),
            new: "b\nc".into(),
            replace_all: false,
        }];
        assert_eq!(
            card_notice(&multi).what,
            What::FileChange {
                card: 4,
                tool: "MultiEdit".into(),
                change: "src/lib.rs · +2 −1".into()
            }
        );
        let mut opencode = card(
            5,
            "a",
            Target::Input {
                json: serde_json::json!({
                    "filepath": "/w/x.rs",
                    "diff": "--- a/x.rs\n+++ b/x.rs\n@@ -1,1 +1,1 @@\n-old\n+new\n"
                })
                .to_string(),
            },
            None,
        );
        opencode.call.tool = "edit".into();
        assert_eq!(
            card_notice(&opencode).what,
            What::FileChange {
                card: 5,
                tool: "edit".into(),
                change: "/w/x.rs · +1 −1".into()
            }
        );
        // A plan: its first heading, never the raw input.
        let plan = first_heading("\n# Plan: list the project\n\nCheck the files.\n## Steps");
        assert_eq!(plan.as_deref(), Some("Plan: list the project"));
        assert_eq!(
            first_heading("Just do it.\nThen stop.").as_deref(),
            Some("Just do it.")
        );
        let ls = card_notice(&card(3, "a", cmd("ls -la"), None));
        let What::Card { target, .. } = &ls.what else {
            panic!()
        };
        assert!(crate::notice::fits(target));
    }
}
