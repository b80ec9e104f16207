//! OpenCode answering a permission request by itself under `opencode serve` (as the TUI does),
//! through its own API (`OPENCODE_ANSWER_AFTER_MS`), nobody clicking:
//!
//! - 2 s after it was asked, as a person in OpenCode's prompt (answered in the agent's own
//!   dialog, OpenCode's side): OpenCode's `permission.replied` reaches the plugin, which tells Vults and ends the
//!   hook's wait: the card goes before the agent is done, the command ran, and no audit line
//!   says Vults allowed or denied it;
//! - at once, as the TUI's auto-approve mode: the plugin holds OpenCode for
//!   Vults' first second, so a deny policy still stops the command and the audit says so.

use crate::harness::*;
use vults_engine::messages::{AnsweredBy, EngineEvent};

#[test]
fn opencode_answered_in_its_own_prompt_withdraws_the_card() {
    if !wanted("opencode") {
        return;
    }
    let _serial = AGENT_SLOTS.take();
    let mut ctx = Ctx::named("opencode", "opencode-prompt");
    ctx.run_env.push(("OPENCODE_VIA", "serve".into()));
    ctx.run_env
        .push(("OPENCODE_ANSWER_AFTER_MS", "2000".into()));
    ctx.setup_agent();
    ctx.install_vults();

    let before = audit_lines(&ctx.paths()).len();
    let mut engine = Engine::start(ctx.paths());
    let r = ctx.run(&mut engine, "prompt", None);
    let log = engine.stop();
    assert!(
        r.cards.len() == 1 && r.marker,
        "expected one card and the command run by OpenCode's own answer; got cards {}, marker {}{}",
        r.cards.len(),
        r.marker,
        ctx.explain(&r, &log)
    );
    let id = r.cards[0].id;
    let removed = r.events.iter().find_map(|e| match e {
        EngineEvent::CardRemoved { id: i, by } if *i == id => Some(by.clone()),
        _ => None,
    });
    assert!(
        matches!(&removed, Some(by) if *by != AnsweredBy::Click),
        "the card must go, not by a click, while the agent runs (removed: {removed:?}){}",
        ctx.explain(&r, &log)
    );
    let claims: Vec<String> = audit_lines(&ctx.paths())
        .into_iter()
        .skip(before)
        .filter(|l| {
            ["\"by\":\"click\"", "\"by\":\"rule:", "\"by\":\"policy:"]
                .iter()
                .any(|b| l.contains(b))
        })
        .collect();
    assert!(
        claims.is_empty(),
        "no audit line may say Vults answered: {claims:?}{}",
        ctx.explain(&r, &log)
    );

    ctx.work.keep = false;
    eprintln!("real-agents: opencode prompt passed\n{}", ctx.report);
}

/// OpenCode answering by itself at once, as its TUI does in auto-approve mode (`--auto`, or
/// switched on at run time): a deny policy still stops the command, and the audit says so.
#[test]
fn opencode_answering_at_once_does_not_beat_a_deny_policy() {
    if !wanted("opencode") {
        return;
    }
    let _serial = AGENT_SLOTS.take();
    let mut ctx = Ctx::named("opencode", "opencode-auto-tui");
    ctx.run_env.push(("OPENCODE_VIA", "serve".into()));
    ctx.run_env.push(("OPENCODE_ANSWER_AFTER_MS", "1".into()));
    ctx.setup_agent();
    ctx.install_vults();
    let policy = format!(
        "[[policy]]\nname = \"{POLICY_NAME}\"\nagents = [\"opencode\"]\nkind = \"shell\"\ntarget = \"echo vults-e2e *\"\naction = \"deny\"\n"
    );
    std::fs::write(ctx.paths().policies_file(), policy).expect("write policies.toml");
    let before = audit_lines(&ctx.paths()).len();
    let mut engine = Engine::start(ctx.paths());
    let r = ctx.run(&mut engine, "auto-policy", None);
    let log = engine.stop();
    let lines: Vec<String> = audit_lines(&ctx.paths()).into_iter().skip(before).collect();
    assert!(
        !r.marker && r.cards.is_empty(),
        "a deny policy must stop the command although OpenCode answers `once` at once; got marker {}, cards {}, audit {lines:?}{}",
        r.marker,
        r.cards.len(),
        ctx.explain(&r, &log)
    );
    assert!(
        lines.len() == 1
            && lines[0].contains("\"decision\":\"deny\"")
            && lines[0].contains(POLICY_NAME),
        "the audit must say deny by the policy, once: {lines:?}{}",
        ctx.explain(&r, &log)
    );
    ctx.work.keep = false;
}
