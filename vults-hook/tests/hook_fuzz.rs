//! Property test: random stdin and random flags never make the hook fail the agent. Whatever it
//! gets, it exits 0, never hangs, and prints nothing or one valid reply line (a reply only when
//! an app answered an event that wanted one). Reproducible: the seed is fixed, and each failing
//! case prints its number, flags and input.
//!
//! Unix only: the input handling it fuzzes is the same code on Windows, and 200 hook processes
//! under Wine would add about a minute to CI; `hook_e2e` runs the hook on a named pipe there.
#![cfg(unix)]

use std::path::Path;
use std::time::Duration;

use vults_core::protocol::Decision;
use vults_tests::{Prng, Script, Stdin, TempHome, TestServer, fixture, reply_shape_of, run_hook};

const HOOK: &str = env!("CARGO_BIN_EXE_vults-hook");
const CASES: usize = 200;

const AGENTS: &[&str] = &[
    "claude",
    "codex",
    "qwen",
    "copilot",
    "opencode",
    "gemini",
    "other",
    "my-tool",
    "cursor",
    "kimi",
    "Bad Name",
    "",
    "a-name-that-is-far-too-long-for-the-wire",
];
const EVENTS: &[&str] = &[
    "PermissionRequest",
    "permissionRequest",
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "SessionStart",
    "StatusLine",
    "",
];
const SEEDS: &[&str] = &[
    "samples/claude/PermissionRequest.json",
    "samples/claude/PostToolUse.json",
    "samples/codex/PermissionRequest.json",
    "samples/qwen/PermissionRequest.json",
    "samples/copilot/camelCase/permissionRequest.json",
    "samples/copilot/PascalCase/PermissionRequest.json",
    "relay/opencode-PermissionRequest.json",
    "relay/opencode-AskUserQuestion.json",
    "relay/claude-AskUserQuestion.json",
    "relay/claude-StatusLine.json",
    "relay/named-PermissionRequest.json",
];

/// Command lines the installer really writes, so about half the cases reach the reply path.
const REAL: &[&[&str]] = &[
    &["--agent", "claude", "PermissionRequest"],
    &["--agent", "codex", "PermissionRequest"],
    &["--agent", "qwen", "PermissionRequest"],
    &["--agent", "copilot", "permissionRequest"],
    &["--agent", "opencode", "PermissionRequest"],
    &["--agent", "claude", "--ask", "PreToolUse"],
    &["--agent", "opencode", "--ask", "PreToolUse"],
    &[
        "--agent",
        "my-tool",
        "--reply",
        "vults",
        "PermissionRequest",
    ],
    &["--agent", "claude", "--statusline"],
];

fn random_args(rng: &mut Prng) -> Vec<String> {
    if rng.chance(50) {
        return rng.pick(REAL).iter().map(|s| s.to_string()).collect();
    }
    let mut args = Vec::new();
    if !rng.chance(5) {
        args.push("--agent".to_string());
        args.push(rng.pick(AGENTS).to_string());
    }
    if rng.chance(25) {
        args.push("--reply".into());
        args.push(if rng.chance(85) { "vults" } else { "json" }.into());
    }
    if rng.chance(30) {
        args.push("--ask".into());
    }
    if rng.chance(10) {
        args.push("--statusline".into());
    }
    if rng.chance(3) {
        args.push("--frobnicate".into());
    }
    if !rng.chance(5) {
        args.push(rng.pick(EVENTS).to_string());
    }
    if rng.chance(10) {
        // Flags in any order.
        let i = rng.below(args.len().max(1));
        let j = rng.below(args.len().max(1));
        if i < args.len() && j < args.len() {
            args.swap(i, j);
        }
    }
    args
}

fn random_stdin(rng: &mut Prng) -> Vec<u8> {
    match rng.below(9) {
        0 => Vec::new(),
        1 => {
            let n = rng.below(4096);
            rng.bytes(n)
        }
        2 => {
            // A real payload with a few bytes flipped.
            let mut b = fixture(rng.pick(SEEDS));
            for _ in 0..=rng.below(4) {
                let i = rng.below(b.len());
                b[i] = rng.next_u64() as u8;
            }
            b
        }
        3 => {
            // A real payload cut short.
            let b = fixture(rng.pick(SEEDS));
            let n = rng.below(b.len());
            b[..n].to_vec()
        }
        4 => {
            let mut b = b"\xEF\xBB\xBF".to_vec();
            b.extend(fixture(rng.pick(SEEDS)));
            b
        }
        _ => fixture(rng.pick(SEEDS)),
    }
}

#[test]
fn random_input_and_flags_exit_0_and_print_nothing_or_one_valid_reply() {
    let answering = TempHome::new("fuzz-app");
    let server = TestServer::start(&answering.socket(), Script::decide(Decision::Allow));
    let absent = TempHome::new("fuzz-none");
    let mut rng = Prng::new(0x5EED_7017);
    let mut replies = 0;
    for case in 0..CASES {
        let args = random_args(&mut rng);
        let stdin = random_stdin(&mut rng);
        let with_app = rng.chance(70);
        let home = if with_app { &answering } else { &absent };
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let before = server.received().len();
        let run = run_hook(
            Path::new(HOOK),
            &argv,
            Stdin::Bytes(&stdin),
            &home.env(),
            Duration::from_secs(15),
        );
        let about = format!(
            "case {case}: args {args:?}, app {with_app}, stdin {:?}: {run:?}",
            String::from_utf8_lossy(&stdin[..stdin.len().min(200)])
        );
        assert!(!run.killed, "hung: {about}");
        assert_eq!(run.code, Some(0), "{about}");
        assert!(
            run.stderr.lines().count() <= 1,
            "one stderr line at most: {about}"
        );
        if run.stdout.is_empty() {
            continue;
        }
        replies += 1;
        assert!(
            run.stdout.ends_with('\n') && run.stdout.lines().count() == 1,
            "one line: {about}"
        );
        assert!(
            reply_shape_of(run.stdout.trim_end()).is_some(),
            "a valid reply: {about}"
        );
        assert!(with_app, "a reply with no app: {about}");
        let sent = server.received();
        assert!(
            sent.len() > before
                && sent
                    .iter()
                    .skip(before)
                    .any(|r| r.event.as_ref().is_some_and(|e| e.wants_reply)),
            "a reply to an event that wanted one: {about}"
        );
    }
    // The generator must reach the answering path, or the property says little.
    assert!(replies >= 10, "only {replies} of {CASES} cases got a reply");
}
