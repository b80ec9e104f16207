//! Building an event, the hook's side of the wire: the hook's command line ([`HookArgs`]), the
//! event made from an agent's stdin ([`build_event`]: agent names, `zeca`, terminal,
//! `wants_reply`), and its payload shaped to fit a line ([`shape`]).

use super::wire::{
    AgentName, Event, MAX_APPLY_PATCH, MAX_LINE, MAX_PATCH_LINES, MAX_PLAN, MAX_STRING, NameError,
    SHORT_STRING, TERMINAL_ENV, Terminal, TooLarge, VERSION, lifecycle_of,
};
use crate::agents::{self, AgentKind, Lifecycle, resolve_cwd};
use serde_json::{Map, Value};

/// The hook's command line, parsed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookArgs {
    /// `--agent`: a built-in kind or a tool's own name.
    pub agent: String,
    /// The agent's event name (`PermissionRequest` …).
    pub event: String,
    /// `--reply vults`: a named tool takes the open reply.
    pub reply_vults: bool,
    /// `--ask`: the AskUserQuestion entry.
    pub ask: bool,
    /// `--statusline`: Claude Code's status line.
    pub statusline: bool,
}

/// Why the hook's command line (or its `--agent`) was refused; `Display` is the line a person
/// reads in the agent's log.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    /// `--agent` at the end, with no name after it.
    #[error("--agent needs a name")]
    AgentNeedsName,
    /// `--reply` with something other than `vults` (or nothing).
    #[error("--reply takes only \"vults\", not {0:?}")]
    ReplyNotVults(Option<String>),
    /// A flag the hook does not know.
    #[error("unknown flag {0}")]
    UnknownFlag(String),
    /// A second event name.
    #[error("unexpected argument {0:?}")]
    Unexpected(String),
    /// No `--agent` at all.
    #[error("--agent <name> is required")]
    NoAgent,
    /// No event name (and no `--statusline`).
    #[error("the event name is required")]
    NoEvent,
    /// `--agent other`: a tool gives its own name.
    #[error("--agent other needs the tool's own name: --agent <name>")]
    OtherNeedsName,
    /// A tool's name that is not one.
    #[error("--agent {name:?}: {why}")]
    BadName {
        /// The name as given.
        name: String,
        /// Why it is refused.
        why: NameError,
    },
}

impl HookArgs {
    /// `--agent <name> [--reply vults] [--ask] [--statusline] <Event>`; `--agent=x` works too.
    pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Result<HookArgs, ArgsError> {
        let mut out = HookArgs::default();
        let mut it = args.into_iter();
        let mut agent = None;
        let mut event = None;
        while let Some(arg) = it.next() {
            match arg.as_str() {
                "--agent" => agent = Some(it.next().ok_or(ArgsError::AgentNeedsName)?),
                "--reply" => match it.next() {
                    Some(v) if v == "vults" => out.reply_vults = true,
                    other => return Err(ArgsError::ReplyNotVults(other)),
                },
                "--ask" => out.ask = true,
                "--statusline" => out.statusline = true,
                a if a.starts_with("--agent=") => agent = Some(a["--agent=".len()..].to_string()),
                "--reply=vults" => out.reply_vults = true,
                a if a.starts_with("--") => return Err(ArgsError::UnknownFlag(arg)),
                _ if event.is_none() => event = Some(arg),
                _ => return Err(ArgsError::Unexpected(arg)),
            }
        }
        out.agent = agent.ok_or(ArgsError::NoAgent)?;
        out.event = match (event, out.statusline) {
            (Some(e), _) => e,
            (None, true) => agents::STATUS_LINE_EVENT.to_string(),
            (None, false) => return Err(ArgsError::NoEvent),
        };
        Ok(out)
    }
}

/// What the hook should do with its input.
// An event is one per line and moved, never copied in bulk; boxing it would only add noise
// to every match on the wire's messages.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, PartialEq)]
pub enum Built {
    /// Send this event (and wait for a reply when it wants one).
    Send(Event),
    /// Send nothing, print nothing (gemini's leftover hooks, a status line with nothing to say).
    Nothing,
    /// Send nothing, print nothing, and say why on stderr (bad flags, bad name, bad payload).
    Refused(String),
}

/// Everything the hook knows about where it runs.
pub struct HookContext<'a> {
    /// The id the event gets.
    pub id: String,
    /// The agent's process id (the hook's parent).
    pub pid: u32,
    /// The hook's own working folder (the fallback `cwd`).
    pub own_cwd: String,
    /// The environment, by name.
    pub env: &'a dyn Fn(&str) -> Option<String>,
}

/// Builds the event the hook sends, from its arguments and the agent's stdin.
pub fn build_event(args: &HookArgs, stdin: &[u8], ctx: &HookContext) -> Built {
    let refuse_reply = || {
        Built::Refused(format!(
            "--reply vults is for tools of your own; \"{}\" is a built-in agent with its own reply",
            args.agent
        ))
    };
    let (agent, agent_name) = match resolve_agent(&args.agent) {
        Ok(Some(pair)) => pair,
        // gemini is a built-in name too: say why rather than stay silent.
        Ok(None) if args.reply_vults => return refuse_reply(),
        Ok(None) => return Built::Nothing,
        Err(e) => return Built::Refused(e.to_string()),
    };
    if args.reply_vults
        && agent_name
            .as_ref()
            .is_none_or(AgentName::is_registered_other)
    {
        return refuse_reply();
    }
    let stdin = crate::text::strip_bom(stdin);
    let payload: Value = if stdin.iter().all(u8::is_ascii_whitespace) {
        Value::Object(Map::new())
    } else {
        match serde_json::from_slice(stdin) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => return Built::Refused("the agent's input is not a JSON object".into()),
            Err(e) => return Built::Refused(format!("the agent's input is not JSON: {e}")),
        }
    };
    let zeca = (ctx.env)("VULTS_ZECA").as_deref() == Some("1")
        && agents::spec_of(agent).is_some_and(|a| a.zeca);

    let payload = if args.statusline {
        match statusline_payload(&payload) {
            Some(p) => p,
            None => return Built::Nothing,
        }
    } else {
        payload
    };

    let tool = agents::tool_name(&payload).unwrap_or_default().to_string();
    // What the event means, resolved once by the agent's row.
    let lifecycle = lifecycle_of(agent, agent_name.as_ref(), &args.event);
    let is_permission = lifecycle == Lifecycle::Permission;
    let wants_reply = !zeca
        && !args.statusline
        && match agent {
            AgentKind::Other => args.reply_vults && is_permission,
            kind if args.ask && agents::spec_of(kind).is_some_and(|a| a.asks) => {
                lifecycle == Lifecycle::BeforeCall && is_ask_user_question(&tool)
            }
            _ => is_permission,
        };

    let terminal = Terminal {
        cwd: Some(resolve_cwd(&payload, &ctx.own_cwd)),
        pid: Some(ctx.pid),
        env: TERMINAL_ENV
            .iter()
            .filter_map(|k| (ctx.env)(k).map(|v| (k.to_string(), Value::String(v))))
            .collect(),
    };

    let mut event = Event {
        v: VERSION,
        id: ctx.id.clone(),
        agent,
        agent_name,
        event: args.event.clone(),
        wants_reply,
        reply: args.reply_vults.then(|| "vults".to_string()),
        zeca,
        too_large: None,
        terminal,
        payload,
    };
    shape(&mut event);
    Built::Send(event)
}

/// `--agent` → the wire's kind and name. `Ok(None)`: send nothing (gemini).
pub fn resolve_agent(name: &str) -> Result<Option<(AgentKind, Option<AgentName>)>, ArgsError> {
    if agents::spec(name).is_some_and(|a| a.wire == agents::Wire::Silent) {
        return Ok(None);
    }
    match AgentKind::parse(name) {
        Some(AgentKind::Other) => Err(ArgsError::OtherNeedsName),
        Some(kind) => Ok(Some((kind, None))),
        None => AgentName::new(name)
            .map(|n| Some((AgentKind::Other, Some(n))))
            .map_err(|why| ArgsError::BadName {
                name: name.to_string(),
                why,
            }),
    }
}

fn is_ask_user_question(tool: &str) -> bool {
    // OpenCode's plugin relays its `question` tool in Claude Code's words.
    tool == "AskUserQuestion"
}

/// The status line's payload: only `rate_limits`, `cost.total_cost_usd` and `session_id`;
/// `None` when there is neither cost nor rate limits.
pub fn statusline_payload(input: &Value) -> Option<Value> {
    let rate_limits = input.get("rate_limits").filter(|v| v.is_object());
    let cost = input
        .get("cost")
        .and_then(|c| c.get("total_cost_usd"))
        .filter(|v| v.is_number());
    if rate_limits.is_none() && cost.is_none() {
        return None;
    }
    let mut out = Map::new();
    if let Some(s) = input.get("session_id").filter(|v| v.is_string()) {
        out.insert("session_id".into(), s.clone());
    }
    if let Some(r) = rate_limits {
        out.insert("rate_limits".into(), r.clone());
    }
    if let Some(c) = cost {
        out.insert("cost".into(), serde_json::json!({ "total_cost_usd": c }));
    }
    Some(Value::Object(out))
}

// ---------------------------------------------------------------------------------------------
// Shaping
// ---------------------------------------------------------------------------------------------

/// Fields that never leave the hook: transcript paths of every agent.
const DROPPED_KEYS: &[&str] = &[
    "transcript_path",
    "transcriptPath",
    "artifactDirectoryPath",
    "agent_transcript_path",
];

/// The fields that say what happened: all that is left of an event too big for the wire.
const ESSENTIAL_KEYS: &[&str] = &[
    "hook_event_name",
    "hookName",
    "session_id",
    "sessionId",
    "conversation_id",
    "cwd",
    "tool_name",
    "toolName",
    "tool_use_id",
    "permission_mode",
    "notification_type",
    "source",
    "reason",
];

/// Makes an event fit the wire (docs/hook-protocol.md §3, "Limits and shaping"): drops `tool_response` but its `error` (and
/// Claude Code's `structuredPatch` on PostToolUse, cut to 400 lines), drops transcript paths,
/// cuts strings to 2000 bytes (a Codex `apply_patch` PostToolUse keeps 64 KiB of patch); an event
/// still over 1 MiB gets 200-byte strings, then only the fields that say what happened, and then
/// never waits for a reply. A permission request whose tool input had to be cut never waits
/// either: its card could not show everything an Allow would authorise. An event that wanted a
/// reply and no longer does says how much it lost ([`Event::too_large`]).
pub fn shape(event: &mut Event) {
    let asked = event.wants_reply;
    // Measured before anything is cut: the strings each step would cut, and all of them.
    let sizes = event
        .payload
        .get("tool_input")
        .filter(|_| asked)
        .map(|input| {
            [
                string_bytes(input, MAX_STRING),
                string_bytes(input, SHORT_STRING),
                string_bytes(input, 0),
            ]
        });
    let step = shape_steps(event);
    if asked && !event.wants_reply {
        let [cut, short, all] = sizes.unwrap_or_default();
        event.too_large = Some(TooLarge {
            bytes: match step {
                Shaped::Cut => cut,
                Shaped::Short => short,
                Shaped::Essentials => all,
            },
        });
    }
}

/// How far [`shape_steps`] had to go.
enum Shaped {
    /// Strings cut to [`MAX_STRING`] (the patch exemption aside).
    Cut,
    /// Every string cut to [`SHORT_STRING`].
    Short,
    /// Only the essential fields kept.
    Essentials,
}

/// The whole length of every string in `value` longer than `over` bytes.
fn string_bytes(value: &Value, over: usize) -> u64 {
    match value {
        Value::String(s) if s.len() > over => s.len() as u64,
        Value::Array(items) => items.iter().map(|v| string_bytes(v, over)).sum(),
        Value::Object(map) => map.values().map(|v| string_bytes(v, over)).sum(),
        _ => 0,
    }
}

fn shape_steps(event: &mut Event) -> Shaped {
    let lifecycle = event.lifecycle();
    let plan_exempt = lifecycle == Lifecycle::Permission
        && agents::plan_review(event.agent, &event.payload).is_some();
    let Value::Object(payload) = &mut event.payload else {
        return Shaped::Cut;
    };
    for key in DROPPED_KEYS {
        payload.remove(*key);
    }
    let spec = agents::spec_of(event.agent);
    let post = lifecycle == Lifecycle::AfterCall;
    let patch_in_result = post && spec.is_some_and(|a| a.patch_in_result);
    if let Some(response) = payload.remove("tool_response") {
        let mut kept = Map::new();
        if let Some(err) = response.get("error") {
            kept.insert("error".into(), err.clone());
        }
        if patch_in_result && let Some(patch) = response.get("structuredPatch") {
            let (patch, cut) = cut_structured_patch(patch);
            kept.insert("structuredPatch".into(), patch);
            if cut {
                kept.insert("cut".into(), Value::Bool(true));
            }
        }
        if !kept.is_empty() {
            payload.insert("tool_response".into(), Value::Object(kept));
        }
    }
    // Copilot CLI's camelCase name for the same thing.
    if let Some(result) = payload.remove("toolResult")
        && let Some(kind) = result.get("resultType")
    {
        payload.insert(
            "toolResult".into(),
            serde_json::json!({ "resultType": kind }),
        );
    }

    let patch_exempt = post
        && spec.and_then(|a| a.patch_tool).is_some()
        && payload.get("tool_name").and_then(Value::as_str) == spec.and_then(|a| a.patch_tool);
    let mut exempt_patch = None;
    if patch_exempt
        && let Some(Value::String(cmd)) = payload
            .get_mut("tool_input")
            .and_then(|t| t.get_mut("command"))
    {
        let mut s = std::mem::take(cmd);
        truncate_utf8(&mut s, MAX_APPLY_PATCH);
        exempt_patch = Some(s);
    }
    // A plan review keeps its plan up to MAX_PLAN: its card shows it whole. Cut any further,
    // it counts as a cut input, and the request waits for no reply.
    let mut exempt_plan = None;
    let mut plan_cut = false;
    if plan_exempt
        && let Some(Value::String(plan)) = payload
            .get_mut("tool_input")
            .and_then(|t| t.get_mut("plan"))
    {
        let mut s = std::mem::take(plan);
        plan_cut = s.len() > MAX_PLAN;
        truncate_utf8(&mut s, MAX_PLAN);
        exempt_plan = Some(s);
    }
    let input_cut = payload
        .get_mut("tool_input")
        .is_some_and(|t| cut_strings(t, MAX_STRING))
        || plan_cut;
    let other_cut = cut_strings(&mut event.payload, MAX_STRING);
    if let Some(s) = exempt_patch {
        event.payload["tool_input"]["command"] = Value::String(s);
    }
    if let Some(s) = exempt_plan {
        event.payload["tool_input"]["plan"] = Value::String(s);
    }
    let _ = other_cut;
    if input_cut && event.wants_reply && !event.is_question() {
        event.wants_reply = false;
    }

    if encoded_len(event) < MAX_LINE {
        return Shaped::Cut;
    }
    // Step 1: shorter strings everywhere (the patch too), terminal included.
    event.wants_reply = false;
    cut_strings(&mut event.payload, SHORT_STRING);
    for v in event.terminal.env.values_mut() {
        cut_strings(v, SHORT_STRING);
    }
    if let Some(cwd) = &mut event.terminal.cwd {
        truncate_utf8(cwd, MAX_STRING);
    }
    if encoded_len(event) < MAX_LINE {
        return Shaped::Short;
    }
    // Step 2: only what says what happened.
    if let Value::Object(payload) = &mut event.payload {
        payload
            .retain(|k, v| ESSENTIAL_KEYS.contains(&k.as_str()) && !v.is_object() && !v.is_array());
    }
    event.terminal.env.clear();
    Shaped::Essentials
}

fn encoded_len(event: &Event) -> usize {
    serde_json::to_vec(event)
        .map(|v| v.len() + 1)
        .unwrap_or(usize::MAX)
}

/// Keeps the first [`MAX_PATCH_LINES`] lines of a `structuredPatch` (a list of hunks, each with
/// a `lines` list). Returns the kept patch and whether lines were left out.
fn cut_structured_patch(patch: &Value) -> (Value, bool) {
    let Some(hunks) = patch.as_array() else {
        return (patch.clone(), false);
    };
    let mut left = MAX_PATCH_LINES;
    let mut cut = false;
    let mut out = Vec::new();
    for hunk in hunks {
        if left == 0 {
            cut = true;
            break;
        }
        let mut hunk = hunk.clone();
        if let Some(lines) = hunk.get_mut("lines").and_then(Value::as_array_mut) {
            if lines.len() > left {
                lines.truncate(left);
                cut = true;
            }
            left -= lines.len();
        }
        out.push(hunk);
    }
    (Value::Array(out), cut)
}

/// Cuts every string in `value` to `max` bytes; returns whether any was cut.
pub fn cut_strings(value: &mut Value, max: usize) -> bool {
    match value {
        Value::String(s) => truncate_utf8(s, max),
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |cut, v| cut_strings(v, max) | cut),
        Value::Object(map) => map
            .values_mut()
            .fold(false, |cut, v| cut_strings(v, max) | cut),
        _ => false,
    }
}

/// Cuts `s` to at most `max` bytes without splitting a character; returns whether it cut.
pub fn truncate_utf8(s: &mut String, max: usize) -> bool {
    if s.len() <= max {
        return false;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.truncate(end);
    true
}
