//! A plan card (Claude Code asking to leave plan mode): the plan drawn from its markdown —
//! headings, a list, a code block — scrollable, with "Approve" and "Keep planning" and a line
//! of feedback that Keep planning sends; no Always. A snapshot, and read back through AccessKit.

use crate::fixtures::{self, Snap, card_harness as harness};
use egui_kittest::kittest::Queryable;
use vults_core::agents::Target;
use vults_engine::messages::{CardAnswer, PendingCard};

pub const PLAN: &str = "# Plan: add the marker check

Write the marker file, then prove it is there.

## Steps

1. Write `marker.txt` with the date
2. Check it:
   - it exists
   - it is not empty

```sh
test -s marker.txt && echo ok
```

## Risks

- none: the file is new
";

/// The card the engine makes for Claude Code's ExitPlanMode with this plan.
pub fn plan_card(id: u64, plan: &str) -> PendingCard {
    let input =
        serde_json::json!({"plan": plan, "planFilePath": "/home/ada/.claude/plans/marker.md"});
    let mut card = fixtures::card(
        id,
        fixtures::call(
            "ExitPlanMode",
            Target::Input {
                json: input.to_string(),
            },
        ),
        None,
    );
    card.always_rule = None;
    card.file_rule = None;
    card.context.plan = Some(plan.to_string());
    card
}

#[test]
fn a_plan_card_draws_the_plan_and_sends_approve_or_the_feedback() {
    let mut h = harness(plan_card(40, PLAN));
    h.run();
    // The markdown is drawn, not shown as source: the headings and items without their marks.
    h.get_by_label("Plan: add the marker check");
    h.get_by_label("Steps");
    h.get_by_label_contains("test -s marker.txt && echo ok");
    assert!(
        h.query_by_label_contains("# Plan").is_none(),
        "the heading mark is drawn"
    );
    assert!(h.query_by_label_contains("Always allow").is_none());
    h.get_by_label("No Always for a plan: each plan is yours to approve.");
    h.snap("card_plan");

    h.get_by_label("Feedback").click();
    h.run();
    h.get_by_label("Feedback")
        .type_text("Also say how the marker is checked");
    h.run();
    h.get_by_label("Keep planning").click();
    h.run();
    assert_eq!(
        h.state().answer,
        Some(CardAnswer::DenyWith(
            "Also say how the marker is checked".into()
        ))
    );

    // Without feedback, Keep planning is a plain deny; Approve is an allow.
    let mut h = harness(plan_card(41, PLAN));
    h.run();
    h.get_by_label("Keep planning").click();
    h.run();
    assert_eq!(h.state().answer, Some(CardAnswer::Deny));
    let mut h = harness(plan_card(42, PLAN));
    h.run();
    h.get_by_label("Approve").click();
    h.run();
    assert_eq!(h.state().answer, Some(CardAnswer::Allow));
}

#[test]
fn a_long_plan_scrolls_and_says_more_is_below() {
    let long: String = PLAN.to_string()
        + &(1..=60)
            .map(|i| format!("{i}. step {i}\n"))
            .collect::<String>();
    let mut h = harness(plan_card(43, &long));
    h.run();
    h.get_by_label("more of the plan ↓");
    // The buttons stay in reach under the scrolling plan.
    h.get_by_label("Approve");
    h.get_by_label("Keep planning");
}
