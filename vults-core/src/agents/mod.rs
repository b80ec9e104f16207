//! One adapter per agent: read its native payload into a [`ToolCall`] (session, folder, tool and
//! the whole target: command, file path or URL), and render an answer in the shape it reads.
//!
//! | agent | reads back |
//! |---|---|
//! | Claude Code, Codex CLI, Qwen Code | `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}` |
//! | Copilot CLI | `{"behavior":"allow"}` |
//! | OpenCode (our plugin relays) | `{"reply":"once"}` / `{"reply":"reject"}`, `{"answers":[["Blue"],["S","M"]]}` |
//! | Claude Code AskUserQuestion (`--ask`) | PreToolUse `allow` + `updatedInput` with answers keyed by question |
//! | a named tool (`--reply vults`) | `{"decision":"allow"}` / `{"decision":"deny","reason":"Denied from Vults"}` |
//!
//! The adapters are pure; the hook calls [`render_decision`] and [`render_answers`] with the
//! payload it read itself (not the shaped copy the app saw), so answers land on the questions
//! the agent really asked.
//!
//! Where: the agent table ([`AGENTS`], one row per [`Agent`]) and the wire's [`AgentKind`] in
//! `table.rs`; reading a payload into a [`ToolCall`] in `call.rs`; rendering a reply in
//! `reply.rs`. This file only names them.

mod call;
mod reply;
mod table;

pub use call::{
    Question, QuestionOption, Target, ToolCall, ToolKind, canonical_json, input_path,
    read_tool_call, resolve_cwd, session_id, tool_input, tool_name,
};
pub use reply::{
    DecisionExtras, plan_review, render_answers, render_decision, render_decision_with,
};

pub use table::{
    AGENTS, Agent, AgentKind, AgentSpec, ChatEngine, ConfigFile, ConfigHome, EntryTimeout, Format,
    HookEntry, Install, Lifecycle, Look, OTHER_EVENTS, Prefer, ReplyShape, STATUS_LINE_EVENT,
    WindowsRunner, Wire, is_registered_other, is_reserved_name, lifecycle, spec, spec_of,
};
