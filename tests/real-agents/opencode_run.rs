//! OpenCode's headless `opencode run`, with and without `--auto`.
//!
//! `opencode run` answers every `permission.asked` itself as soon as it sees it: `reject`, or
//! `once` with `--auto`. Vults' plugin waits for the hook synchronously there, so Vults' answer
//! reaches OpenCode first, and the audit tells what happened to the command:
//!
//! - (c) card: answered by a click after a person's pause — Allow under `run` (the command runs
//!   although the run would reject), Deny under `run --auto` (it does not, although the run would
//!   allow); the audit says `click` with that decision;
//! - (a) rule: the card's Always rule in `rules.json` → no card, the command runs, the audit says
//!   `allow` by `rule:<id>`;
//! - (b) policy: a deny policy → no card, no command, the audit says `deny` by `policy:<name>`.
//!
//! Each run's audit has exactly one line, and its decision is what the marker file shows.

use std::time::Duration;

use crate::harness::*;
use vults_core::rules::RuleSet;
use vults_engine::messages::{AuditEntry, CardAnswer};

/// How long the test "thinks" before it clicks: longer than `opencode run` takes to answer on
/// its own, so only a plugin that holds OpenCode for Vults' answer passes.
const CLICK_AFTER: Duration = Duration::from_millis(1500);

#[test]
fn opencode_run_obeys_vults() {
    headless_run("run", CardAnswer::Allow);
}

#[test]
fn opencode_run_auto_obeys_vults() {
    headless_run("run-auto", CardAnswer::Deny);
}

/// The lines `audit.jsonl` got after its first `before` lines.
fn audited_since(ctx: &Ctx, before: usize) -> Vec<AuditEntry> {
    audit_lines(&ctx.paths())
        .iter()
        .skip(before)
        .map(|l| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("audit line {l:?} does not parse: {e}"))
        })
        .collect()
}

/// One run with a fresh in-process engine; returns it with the audit lines written meanwhile.
fn run_once(
    ctx: &mut Ctx,
    label: &str,
    answer: Option<CardAnswer>,
) -> (RunResult, String, Vec<AuditEntry>) {
    let before = audit_lines(&ctx.paths()).len();
    let mut engine = Engine::start(ctx.paths());
    let r = ctx.run(&mut engine, label, answer);
    let log = engine.stop();
    let lines = audited_since(ctx, before);
    (r, log, lines)
}

/// Exactly one audit line, `decision` by `by` (a prefix), and the marker agrees with it.
fn check_audit(
    ctx: &Ctx,
    what: &str,
    (r, log, lines): &(RunResult, String, Vec<AuditEntry>),
    decision: &str,
    by: &str,
) {
    let line = match lines.as_slice() {
        [one] => one,
        _ => panic!(
            "{what}: expected exactly one audit line, got {}: {lines:?}{}",
            lines.len(),
            ctx.explain(r, log)
        ),
    };
    assert!(
        line.decision == decision && line.by.label().starts_with(by),
        "{what}: the audit must say {decision} by {by}, it says {} by {}{}",
        line.decision,
        line.by,
        ctx.explain(r, log)
    );
    assert_eq!(
        r.marker,
        decision == "allow",
        "{what}: the audit says {decision} by {}, but the command {} (marker file){}",
        line.by,
        if r.marker { "ran" } else { "did not run" },
        ctx.explain(r, log)
    );
}

fn headless_run(via: &'static str, click: CardAnswer) {
    if !wanted("opencode") {
        return;
    }
    let _serial = AGENT_SLOTS.take();
    let mut ctx = Ctx::named("opencode", &format!("opencode-{via}"));
    ctx.run_env.push(("OPENCODE_VIA", via.to_string()));
    ctx.setup_agent();
    ctx.install_vults();

    // (c) a card, clicked after a pause.
    ctx.answer_after = CLICK_AFTER;
    let run = run_once(&mut ctx, "card", Some(click.clone()));
    let (r, log, _) = &run;
    ctx.answer_after = Duration::ZERO;
    let what = format!("opencode {via} (c) card → {click:?}");
    assert!(
        r.cards.len() == 1 && r.session_seen("opencode", &ctx.project),
        "{what}: expected exactly one card and the session; got cards {}, session {}{}",
        r.cards.len(),
        r.session_seen("opencode", &ctx.project),
        ctx.explain(r, log)
    );
    let decision = if click == CardAnswer::Allow {
        "allow"
    } else {
        "deny"
    };
    check_audit(&ctx, &what, &run, decision, "click");
    let card = r.cards[0].clone();
    assert_eq!(
        card.call.target.command(),
        Some(ctx.command.as_str()),
        "{what}: the card must show the whole command{}",
        ctx.explain(r, log)
    );
    let rule = card.always_rule.clone().unwrap_or_else(|| {
        panic!(
            "{what}: the card offers no Always rule{}",
            ctx.explain(r, log)
        )
    });

    // (a) the Always rule answers alone.
    let mut rules = RuleSet::default();
    rules.add(rule.clone());
    rules
        .save(&ctx.paths().rules_file())
        .expect("write rules.json");
    let run = run_once(&mut ctx, "rule", None);
    let (r, log, _) = &run;
    let what = format!("opencode {via} (a) Always rule {}", rule.id);
    assert!(
        r.cards.is_empty(),
        "{what}: expected no card, got {}{}",
        r.cards.len(),
        ctx.explain(r, log)
    );
    check_audit(&ctx, &what, &run, "allow", &format!("rule:{}", rule.id));
    std::fs::remove_file(ctx.paths().rules_file()).expect("remove rules.json");

    // (b) a policy deny.
    let policy = format!(
        "[[policy]]\nname = \"{POLICY_NAME}\"\nagents = [\"opencode\"]\nkind = \"shell\"\ntarget = \"echo vults-e2e *\"\naction = \"deny\"\n"
    );
    std::fs::write(ctx.paths().policies_file(), policy).expect("write policies.toml");
    let run = run_once(&mut ctx, "policy", None);
    let (r, log, _) = &run;
    let what = format!("opencode {via} (b) policy deny");
    assert!(
        r.cards.is_empty(),
        "{what}: expected no card, got {}{}",
        r.cards.len(),
        ctx.explain(r, log)
    );
    check_audit(&ctx, &what, &run, "deny", &format!("policy:{POLICY_NAME}"));

    ctx.work.keep = false;
    eprintln!("real-agents: opencode {via} passed\n{}", ctx.report);
}
