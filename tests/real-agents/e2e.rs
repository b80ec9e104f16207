//! Real agents, end to end: Claude Code, Codex CLI, Qwen Code, OpenCode and Copilot CLI,
//! installed from npm at pinned versions (`tests/real-agents/install.sh`), each run headless in a
//! fake HOME against the mock model server (`mock-model.mjs`) that makes it run one shell command
//! writing a marker file. **Vults' own installer** (`vults-app install --hook …`) registers the hook
//! in that fake HOME; the engine runs in-process on a private `VULTS_HOME`, and answers:
//!
//! - (c) card: the engine shows a card, the test answers Allow through `EngineCommand::Answer`
//!   → the marker exists, the session showed up in the flock (`SessionChanged`);
//! - (a) rule: the Always rule that card offered is written to `rules.json` before the engine
//!   starts → no card, the marker exists, the audit says `rule:<id>`;
//! - (d) headless: the same rule, with the shipped binary `vults-app --headless` as the engine
//!   → the marker exists, the audit file says `rule:<id>`;
//! - (b) policy: `policies.toml` denies the command → no card, no marker, the audit says
//!   `policy:<name>`.
//!
//! OpenCode's headless `opencode run` and `opencode run --auto` have their own runs in
//! `opencode_run.rs`.
//!
//! `VULTS_REAL_AGENTS=0` skips; unset, agents that are not installed are skipped; `=1` (CI)
//! makes a missing agent a failure. `VULTS_REAL_AGENTS_ONLY=claude,codex` picks agents.
//! The binaries `vults-hook` and `vults-app` must be built (`cargo build`) in the same target
//! folder as this test.

/// Claude Code's plan review (ExitPlanMode) against the real CLI, with a recording stand-in hook.
mod claude_plan;
mod claude_terminal;
// SIGSTOP/SIGCONT: Unix only.
#[cfg(unix)]
mod frozen_app;
mod harness;
/// OpenCode answering by itself under `opencode serve`: in its prompt, or at once.
mod opencode_prompt;
/// OpenCode's headless `opencode run` and `opencode run --auto`.
mod opencode_run;
/// Claude Code on an SSH host (a local sshd, a second user), answered from the local app.
#[cfg(unix)]
mod ssh_host;

use harness::*;

#[test]
fn claude() {
    run_agent("claude");
}

#[test]
fn codex() {
    run_agent("codex");
}

#[test]
fn qwen() {
    run_agent("qwen");
}

#[test]
fn opencode() {
    run_agent("opencode");
}

#[test]
fn copilot() {
    run_agent("copilot");
}

/// Claude Code interactive under tmux: answered in its own dialog, the card is withdrawn.
#[test]
fn claude_terminal() {
    claude_terminal::claude_answered_in_its_own_dialog();
}

/// Plan review: an allow with `updatedInput` leaves plan mode.
#[test]
fn claude_plan_approved() {
    claude_plan::approved_with_updated_input_leaves_plan_mode();
}

/// Plan review: a deny's message reaches the model; Claude Code keeps planning, then idles.
#[test]
fn claude_plan_kept_with_feedback() {
    claude_plan::kept_planning_sends_the_feedback_to_the_model();
}

/// Plan review: a bare allow is not honoured; Claude Code's own dialog stays up.
#[test]
fn claude_plan_bare_allow() {
    claude_plan::a_bare_allow_leaves_the_plan_dialog_up();
}

/// Plan review with Vults: the plan card's Approve leaves plan mode.
#[test]
fn claude_plan_card_approved() {
    claude_plan::vults_approve_leaves_plan_mode();
}

/// Plan review with Vults: Keep planning's feedback reaches the model; the bird then says it
/// is done and waits for the person.
#[test]
fn claude_plan_card_kept_with_feedback() {
    claude_plan::vults_keep_planning_sends_the_feedback();
}

/// Claude Code against a frozen `vults-app --headless`: no audit line claims an answer it never got.
#[cfg(unix)]
#[test]
fn claude_frozen_app() {
    frozen_app::claude_with_a_frozen_app();
}

/// Claude Code on an SSH host: the card names the host, its rule stays there, link down = silence.
#[cfg(unix)]
#[test]
fn claude_on_an_ssh_host() {
    ssh_host::claude_on_an_ssh_host();
}
