//! The adapter conformance suite: golden fixtures in both directions, built from real payloads.
//!
//! Each file in `fixtures/golden/` is one adapter's cases. A case names the hook's command line
//! and a native payload (`fixtures/samples/` are real agents' payloads; `fixtures/relay/` are
//! what our OpenCode plugin and named tools send, in Claude Code's words), then pins:
//! - **in**: the wire event [`build_event`] makes (agent, name, event, `wants_reply`, `reply`,
//!   `zeca`), what the adapter reads from it (session, cwd, tool, the whole target), and the
//!   fields that must not leave the hook;
//! - **out**: for each reply the app may send (a decision or answers), the exact line the hook
//!   prints, rendered the way the hook renders it — or `null` for "prints nothing".
//!
//! The suite is not allowed to pass vacuously: every agent that can be answered must have an
//! allow case and a deny case, and every one that can be asked questions (its `--ask` event
//! wants a reply and its shape takes answers) an answer case; every reply shape must be reached.
//! `the_coverage_check_notices_a_missing_case` proves that check bites.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use vults_core::agents::{self, ReplyShape};
use vults_core::protocol::{
    AgentKind, AnswerItem, Built, Decision, Event, HookArgs, HookContext, build_event,
};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// One golden case, loaded and built.
#[derive(Debug, Clone)]
struct Case {
    file: String,
    name: String,
    /// `None` when the hook builds nothing to send (refused, or nothing to say).
    event: Option<Event>,
    original: Value,
    replies: Vec<GoldenReply>,
}

#[derive(Debug, Clone)]
struct GoldenReply {
    reply: Reply,
    /// The exact line the hook prints, or `None` for nothing.
    stdout: Option<String>,
}

#[derive(Debug, Clone)]
enum Reply {
    Decision(Decision),
    Answers(Vec<AnswerItem>),
}

/// The hook's context, fixed so the goldens are stable.
fn build(args: &[String], input: &[u8], env: &BTreeMap<String, String>) -> Built {
    let args = HookArgs::parse(args.iter().cloned()).expect("golden args parse");
    let lookup = |k: &str| env.get(k).cloned();
    let ctx = HookContext {
        id: "golden-1".into(),
        pid: 4242,
        own_cwd: "/own".into(),
        env: &lookup,
    };
    build_event(&args, input, &ctx)
}

/// What the hook prints for a reply: the same calls, in the same way, as `vults-hook`.
fn render(event: &Event, original: &Value, reply: &Reply) -> Option<String> {
    let shape = ReplyShape::of(event.agent, event.reply.as_deref() == Some("vults"))?;
    match reply {
        Reply::Decision(d) => Some(agents::render_decision(shape, event.is_question(), *d)),
        Reply::Answers(a) => agents::render_answers(shape, original, a),
    }
}

fn load_all() -> Vec<Case> {
    let dir = fixtures().join("golden");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures/golden")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no golden files in {}", dir.display());
    let mut cases = Vec::new();
    for path in files {
        let file = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let doc: Value = serde_json::from_slice(&std::fs::read(&path).expect("read golden"))
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        for c in doc["cases"].as_array().expect("cases") {
            cases.push(load_case(&file, c));
        }
    }
    cases
}

fn load_case(file: &str, c: &Value) -> Case {
    let name = format!("{file}: {}", c["name"].as_str().unwrap_or("?"));
    let args: Vec<String> = serde_json::from_value(c["args"].clone()).expect("args");
    let input = std::fs::read(fixtures().join(c["input"].as_str().expect("input")))
        .unwrap_or_else(|e| panic!("{name}: input: {e}"));
    let env: BTreeMap<String, String> =
        serde_json::from_value(c.get("env").cloned().unwrap_or(json!({}))).expect("env");
    let original: Value = serde_json::from_slice(&input).unwrap_or(Value::Null);
    let built = build(&args, &input, &env);
    let event = match (c.get("built").and_then(Value::as_str), built) {
        (None, Built::Send(e)) => Some(e),
        (Some("refused"), Built::Refused(_)) | (Some("nothing"), Built::Nothing) => None,
        (want, got) => panic!("{name}: wanted {want:?}, built {got:?}"),
    };
    let replies = c
        .get("replies")
        .and_then(Value::as_array)
        .map(|rs| rs.iter().map(|r| load_reply(&name, r)).collect())
        .unwrap_or_default();
    let case = Case {
        file: file.to_string(),
        name,
        event,
        original,
        replies,
    };
    if let Some(event) = &case.event {
        check_wire(&case.name, event, c);
    }
    case
}

fn load_reply(name: &str, r: &Value) -> GoldenReply {
    let reply = if let Some(d) = r.get("decision") {
        Reply::Decision(serde_json::from_value(d.clone()).expect("decision"))
    } else if let Some(a) = r.get("answers") {
        Reply::Answers(serde_json::from_value(a.clone()).expect("answers"))
    } else {
        panic!("{name}: a reply is a decision or answers: {r}")
    };
    let stdout = match r.get("stdout") {
        Some(Value::Null) => None,
        // preserve_order: the golden's key order is the printed order.
        Some(v) => Some(v.to_string()),
        None => panic!("{name}: a reply says what the hook prints (null for nothing)"),
    };
    GoldenReply { reply, stdout }
}

/// Native payload in → wire event and what the adapter reads from it.
fn check_wire(name: &str, event: &Event, c: &Value) {
    let wire = serde_json::to_value(event).expect("event serializes");
    let call = agents::read_tool_call(&event.payload);
    for (key, want) in c["wire"].as_object().expect("wire") {
        let got = match key.as_str() {
            "agent" | "agent_name" | "event" | "wants_reply" | "reply" | "zeca" | "payload" => {
                wire.get(key).cloned().unwrap_or(Value::Null)
            }
            "session_id" => json!(call.session_id),
            "cwd" => json!(event.terminal.cwd),
            "tool" => json!(call.tool),
            "target" => serde_json::to_value(&call.target).expect("target"),
            other => panic!("{name}: unknown wire key {other:?}"),
        };
        assert_eq!(&got, want, "{name}: wire {key}");
    }
    for key in c
        .get("absent")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let key = key.as_str().expect("absent key");
        assert!(
            event.payload.get(key).is_none(),
            "{name}: {key} must not leave the hook"
        );
    }
}

#[test]
fn every_golden_case_holds_in_both_directions() {
    let cases = load_all();
    for case in &cases {
        let Some(event) = &case.event else {
            assert!(
                case.replies.is_empty(),
                "{}: nothing sent, nothing to reply to",
                case.name
            );
            continue;
        };
        assert!(
            event.wants_reply || case.replies.is_empty(),
            "{}: the hook never waits for this event, so no reply can reach it",
            case.name
        );
        for r in &case.replies {
            let got = render(event, &case.original, &r.reply);
            assert_eq!(got, r.stdout, "{}: {:?}", case.name, r.reply);
            if let Some(line) = &got {
                assert!(!line.contains('\n'), "{}: one line", case.name);
            }
        }
    }
}

/// Who an adapter is, for coverage: a built-in kind, or a named tool with `--reply vults`.
fn adapter_key(event: &Event) -> String {
    match (event.agent, event.reply.as_deref()) {
        (AgentKind::Other, Some("vults")) => "named tool (--reply vults)".into(),
        (kind, _) => kind.as_str().into(),
    }
}

/// Every adapter that can be answered, with its shape and whether it can be asked questions.
fn adapters_that_reply() -> Vec<(String, ReplyShape, bool)> {
    let question = br#"{"tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"Q?","options":[{"label":"A"}]}]}}"#;
    let mut out = Vec::new();
    for kind in AgentKind::ALL {
        let (name, reply_vults) = match kind {
            AgentKind::Other => ("my-tool", true),
            k => (k.as_str(), false),
        };
        let Some(shape) = ReplyShape::of(kind, reply_vults) else {
            continue;
        };
        let mut args: Vec<String> = vec!["--agent".into(), name.into()];
        if reply_vults {
            args.extend(["--reply".into(), "vults".into()]);
        }
        args.extend(["--ask".into(), "PreToolUse".into()]);
        let asks =
            matches!(build(&args, question, &BTreeMap::new()), Built::Send(e) if e.wants_reply);
        let key = match kind {
            AgentKind::Other => "named tool (--reply vults)".to_string(),
            k => k.as_str().to_string(),
        };
        out.push((key, shape, asks && shape.answers_questions()));
    }
    out
}

/// Every reply shape there is; the match makes a new variant a compile error here.
fn all_shapes() -> Vec<ReplyShape> {
    let all = [
        ReplyShape::HookSpecific,
        ReplyShape::Flat,
        ReplyShape::OpencodeRelay,
        ReplyShape::Vults,
    ];
    for s in all {
        match s {
            ReplyShape::HookSpecific
            | ReplyShape::Flat
            | ReplyShape::OpencodeRelay
            | ReplyShape::Vults => {}
        }
    }
    all.to_vec()
}

/// What the cases leave uncovered; empty when the suite is complete.
fn coverage_gaps(cases: &[Case]) -> Vec<String> {
    // (adapter, "allow" | "deny" | "answers") seen with a printed line.
    let mut seen: BTreeSet<(String, &str)> = BTreeSet::new();
    let mut shapes_seen: BTreeSet<String> = BTreeSet::new();
    // Per golden file too: both Copilot variants must each show allow and deny.
    let mut per_file: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for case in cases {
        let Some(event) = case.event.as_ref().filter(|e| e.wants_reply) else {
            continue;
        };
        let key = adapter_key(event);
        let file = per_file.entry(case.file.as_str()).or_default();
        for r in case.replies.iter().filter(|r| r.stdout.is_some()) {
            let what = match r.reply {
                Reply::Decision(Decision::Allow) => "allow",
                Reply::Decision(Decision::Deny) => "deny",
                Reply::Answers(_) => "answers",
            };
            seen.insert((key.clone(), what));
            file.insert(what);
            if let Some(shape) = ReplyShape::of(event.agent, event.reply.is_some()) {
                shapes_seen.insert(format!("{shape:?}"));
            }
        }
    }
    let mut gaps = Vec::new();
    for (key, _shape, asks) in adapters_that_reply() {
        let mut needed = vec!["allow", "deny"];
        if asks {
            needed.push("answers");
        }
        for what in needed {
            if !seen.contains(&(key.clone(), what)) {
                gaps.push(format!("{key}: no {what} case"));
            }
        }
    }
    for (file, what) in per_file {
        for need in ["allow", "deny"] {
            if !what.contains(need) {
                gaps.push(format!("{file}: waits for a reply but has no {need} case"));
            }
        }
    }
    for shape in all_shapes() {
        if !shapes_seen.contains(&format!("{shape:?}")) {
            gaps.push(format!("reply shape {shape:?}: never rendered"));
        }
    }
    gaps
}

#[test]
fn every_adapter_that_can_reply_has_allow_deny_and_answer_cases() {
    let gaps = coverage_gaps(&load_all());
    assert!(
        gaps.is_empty(),
        "the golden fixtures leave gaps:\n{}",
        gaps.join("\n")
    );
}

#[test]
fn the_coverage_check_notices_a_missing_case() {
    let cases = load_all();
    let drop_where = |pred: &dyn Fn(&Case, &GoldenReply) -> bool| -> Vec<Case> {
        cases
            .iter()
            .cloned()
            .map(|mut c| {
                let keep: Vec<GoldenReply> =
                    c.replies.iter().filter(|r| !pred(&c, r)).cloned().collect();
                c.replies = keep;
                c
            })
            .collect()
    };
    let is = |agent: AgentKind| move |c: &Case| c.event.as_ref().is_some_and(|e| e.agent == agent);

    let no_copilot_deny = drop_where(&|c, r| {
        is(AgentKind::Copilot)(c) && matches!(r.reply, Reply::Decision(Decision::Deny))
    });
    let gaps = coverage_gaps(&no_copilot_deny);
    assert!(
        gaps.iter().any(|g| g == "copilot: no deny case"),
        "{gaps:?}"
    );

    let no_codex_allow = drop_where(&|c, r| {
        is(AgentKind::Codex)(c) && matches!(r.reply, Reply::Decision(Decision::Allow))
    });
    assert!(coverage_gaps(&no_codex_allow).contains(&"codex: no allow case".to_string()));

    let no_claude_answers =
        drop_where(&|c, r| is(AgentKind::Claude)(c) && matches!(r.reply, Reply::Answers(_)));
    assert!(coverage_gaps(&no_claude_answers).contains(&"claude: no answers case".to_string()));

    let no_named = drop_where(&|c, _| c.event.as_ref().is_some_and(|e| e.reply.is_some()));
    let gaps = coverage_gaps(&no_named);
    assert!(
        gaps.iter().any(|g| g.contains("reply shape Vults")),
        "{gaps:?}"
    );
    assert!(gaps.iter().any(|g| g.starts_with("named tool")), "{gaps:?}");

    // Only one of the two Copilot files losing its deny is noticed too.
    let pascal_only = drop_where(&|c, r| {
        c.file == "copilot-PascalCase.json" && matches!(r.reply, Reply::Decision(Decision::Deny))
    });
    assert!(
        coverage_gaps(&pascal_only)
            .iter()
            .any(|g| g.starts_with("copilot-PascalCase.json")),
    );
}

#[test]
fn every_real_sample_is_covered_by_a_golden_case() {
    // A sample copied in but never pinned would be a fixture that tests nothing.
    let mut used = BTreeSet::new();
    for path in std::fs::read_dir(fixtures().join("golden"))
        .expect("golden")
        .flatten()
    {
        let doc: Value = serde_json::from_slice(&std::fs::read(path.path()).expect("read"))
            .expect("golden json");
        for c in doc["cases"].as_array().into_iter().flatten() {
            if let Some(i) = c["input"].as_str() {
                used.insert(i.to_string());
            }
        }
    }
    let mut missing = Vec::new();
    for agent in [
        "claude",
        "codex",
        "qwen",
        "copilot/camelCase",
        "copilot/PascalCase",
    ] {
        for f in std::fs::read_dir(fixtures().join("samples").join(agent))
            .expect("samples")
            .flatten()
        {
            let rel = format!("samples/{agent}/{}", f.file_name().to_string_lossy());
            if !used.contains(&rel) {
                missing.push(rel);
            }
        }
    }
    assert!(
        missing.is_empty(),
        "samples without a golden case: {missing:?}"
    );
}
