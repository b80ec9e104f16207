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

use crate::answer::{AnswerItem, DENY_MESSAGE, Decision};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The agent kinds the wire has a type for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentKind {
    /// Claude Code (`claude`).
    Claude,
    /// Codex CLI (`codex`).
    Codex,
    /// OpenCode, through Vults' plugin (`opencode`).
    Opencode,
    /// Qwen Code (`qwen`).
    Qwen,
    /// GitHub Copilot CLI (`copilot`).
    Copilot,
    /// Any other tool or agent; with an `agent_name` it is a named tool or a registered native agent.
    Other,
}

impl AgentKind {
    /// Every kind, in the wire's order.
    pub const ALL: [AgentKind; 6] = [
        AgentKind::Claude,
        AgentKind::Codex,
        AgentKind::Opencode,
        AgentKind::Qwen,
        AgentKind::Copilot,
        AgentKind::Other,
    ];

    /// The kind's name on the wire and in `--agent`.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentKind::Claude => "claude",
            AgentKind::Codex => "codex",
            AgentKind::Opencode => "opencode",
            AgentKind::Qwen => "qwen",
            AgentKind::Copilot => "copilot",
            AgentKind::Other => "other",
        }
    }

    /// The kind a wire name stands for; `None` for any other string.
    pub fn parse(s: &str) -> Option<AgentKind> {
        AgentKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// The name people know the agent by (its row in [`AGENTS`]; `Other` for `other`).
    pub fn display_name(self) -> &'static str {
        AGENTS
            .iter()
            .find(|a| a.wire == Wire::Kind(self))
            .map_or("Other", |a| a.display_name)
    }
}

// ---------------------------------------------------------------------------------------------
// The agent table
// ---------------------------------------------------------------------------------------------

/// How an agent's events travel on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// As its own [`AgentKind`].
    Kind(AgentKind),
    /// As `other` with its own name as `agent_name`: a native agent the wire has no type for.
    /// It never gets a card, and cannot take `--reply vults`.
    Other,
    /// Not at all: old hooks of an agent Vults no longer serves send nothing.
    Silent,
}

/// Where the installer finds an agent's configuration: its config home, a folder under the
/// agents' home (the user's home), unless the agent's own environment variable moves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfigHome {
    /// The folder under the agents' home, one path component at a time (`[".claude"]`).
    pub dir: &'static [&'static str],
    /// The variable that moves it, and the folder under that variable's value (`""`: the value
    /// itself), e.g. `("CODEX_HOME", "")`, `("XDG_CONFIG_HOME", "opencode")`.
    pub env: Option<(&'static str, &'static str)>,
}

/// One agent Vults knows: what differs from one agent to the next, in one row. The file format
/// and the entries the installer writes are in `vults-app/src/installer/agents.rs`; payload field
/// names every adapter shares are read by [`read_tool_call`] and [`resolve_cwd`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentSpec {
    /// The name `--agent` takes (and the key in the app's settings).
    pub name: &'static str,
    /// The name people know it by.
    pub display_name: &'static str,
    /// How its events travel.
    pub wire: Wire,
    /// How it reads an answer back; `None`: its permission requests are never answered (it
    /// only shows its sessions and asks in its own window).
    pub reply: Option<ReplyShape>,
    /// Whether its AskUserQuestion, sent by the `--ask` entry as PreToolUse, wants a reply.
    pub asks: bool,
    /// Whether `VULTS_ZECA=1` marks its events (never a session, a bird or a card).
    pub zeca: bool,
    /// Where the installer looks for it; `None`: the installer does not install into it.
    pub config_home: Option<ConfigHome>,
}

const fn home(
    dir: &'static [&'static str],
    env: Option<(&'static str, &'static str)>,
) -> Option<ConfigHome> {
    Some(ConfigHome { dir, env })
}

/// Every agent Vults knows. Adding one: a row here (and its [`AgentKind`] if the wire gets a
/// type for it), its fixtures in `tests/fixtures/golden/`, and the installer's entries.
pub const AGENTS: &[AgentSpec] = &[
    AgentSpec {
        name: "claude",
        display_name: "Claude Code",
        wire: Wire::Kind(AgentKind::Claude),
        reply: Some(ReplyShape::HookSpecific),
        asks: true,
        zeca: true,
        config_home: home(&[".claude"], None),
    },
    AgentSpec {
        name: "codex",
        display_name: "Codex CLI",
        wire: Wire::Kind(AgentKind::Codex),
        reply: Some(ReplyShape::HookSpecific),
        asks: false,
        zeca: true,
        config_home: home(&[".codex"], Some(("CODEX_HOME", ""))),
    },
    AgentSpec {
        name: "copilot",
        display_name: "Copilot CLI",
        wire: Wire::Kind(AgentKind::Copilot),
        reply: Some(ReplyShape::Flat),
        asks: false,
        zeca: false,
        config_home: home(&[".copilot"], Some(("COPILOT_HOME", ""))),
    },
    AgentSpec {
        name: "qwen",
        display_name: "Qwen Code",
        wire: Wire::Kind(AgentKind::Qwen),
        reply: Some(ReplyShape::HookSpecific),
        asks: false,
        zeca: false,
        config_home: home(&[".qwen"], None),
    },
    AgentSpec {
        name: "opencode",
        display_name: "OpenCode",
        wire: Wire::Kind(AgentKind::Opencode),
        reply: Some(ReplyShape::OpencodeRelay),
        asks: true,
        zeca: false,
        config_home: home(
            &[".config", "opencode"],
            Some(("XDG_CONFIG_HOME", "opencode")),
        ),
    },
    AgentSpec {
        name: "cursor",
        display_name: "Cursor",
        wire: Wire::Other,
        reply: None,
        asks: false,
        zeca: false,
        config_home: home(&[".cursor"], None),
    },
    AgentSpec {
        name: "droid",
        display_name: "Factory Droid",
        wire: Wire::Other,
        reply: None,
        asks: false,
        zeca: false,
        config_home: home(&[".factory"], None),
    },
    AgentSpec {
        name: "kimi",
        display_name: "Kimi Code",
        wire: Wire::Other,
        reply: None,
        asks: false,
        zeca: false,
        config_home: home(&[".kimi-code"], Some(("KIMI_CODE_HOME", ""))),
    },
    AgentSpec {
        name: "antigravity",
        display_name: "Antigravity",
        wire: Wire::Other,
        reply: None,
        asks: false,
        zeca: false,
        config_home: None,
    },
    AgentSpec {
        name: "gemini",
        display_name: "Gemini CLI",
        wire: Wire::Silent,
        reply: None,
        asks: false,
        zeca: false,
        config_home: home(&[".gemini"], None),
    },
];

/// The row of the agent `--agent` calls `name`.
pub fn spec(name: &str) -> Option<&'static AgentSpec> {
    AGENTS.iter().find(|a| a.name == name)
}

/// The row of a wire kind; `None` for `other`.
pub fn spec_of(kind: AgentKind) -> Option<&'static AgentSpec> {
    AGENTS.iter().find(|a| a.wire == Wire::Kind(kind))
}

/// Whether `name` is a native agent that travels as `other` with its name (antigravity, cursor,
/// droid, kimi): never a card, and no `--reply vults`.
pub fn is_registered_other(name: &str) -> bool {
    spec(name).is_some_and(|a| a.wire == Wire::Other)
}

/// Whether an `agent_name` may not be `name`: a wire kind's name (`other` too), or an agent
/// whose old hooks send nothing (`gemini`). Registered native agents' names are not reserved:
/// they are the `agent_name` those agents travel with.
pub fn is_reserved_name(name: &str) -> bool {
    AgentKind::parse(name).is_some() || spec(name).is_some_and(|a| a.wire == Wire::Silent)
}

/// How an agent reads an answer back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyShape {
    /// Claude Code, Codex, Qwen Code: `hookSpecificOutput.decision.behavior`.
    HookSpecific,
    /// Copilot CLI: a bare `behavior`.
    Flat,
    /// OpenCode's plugin: `reply` once/reject, or `answers`.
    OpencodeRelay,
    /// A named tool with `--reply vults`: `decision`.
    Vults,
}

impl ReplyShape {
    /// The shape for an agent kind (`reply_vults`: a named tool asked for the open reply).
    pub fn of(agent: AgentKind, reply_vults: bool) -> Option<ReplyShape> {
        match agent {
            AgentKind::Other if reply_vults => Some(ReplyShape::Vults),
            kind => spec_of(kind).and_then(|a| a.reply),
        }
    }

    /// Whether this agent can have its questions answered.
    pub fn answers_questions(self) -> bool {
        matches!(self, ReplyShape::HookSpecific | ReplyShape::OpencodeRelay)
    }

    /// Whether this agent reads a decision (a policy's deny) back for a question. OpenCode's
    /// plugin reads only answers for one: a deny printed to it would be dropped, and OpenCode
    /// would ask in its own prompt.
    pub fn reads_question_decision(self) -> bool {
        !matches!(self, ReplyShape::OpencodeRelay)
    }
}

/// A decision in the agent's own shape, as the one line the hook prints (no newline).
/// `question` says the request was an AskUserQuestion PreToolUse (a deny then reads as
/// PreToolUse's deny). `None` when the agent has no reply shape.
pub fn render_decision(shape: ReplyShape, question: bool, decision: Decision) -> String {
    let v = match (shape, decision) {
        (ReplyShape::HookSpecific, d) if question => {
            let mut out = json!({"hookEventName": "PreToolUse", "permissionDecision": d.as_str()});
            if d == Decision::Deny {
                out["permissionDecisionReason"] = json!(DENY_MESSAGE);
            }
            json!({ "hookSpecificOutput": out })
        }
        (ReplyShape::HookSpecific, Decision::Allow) => {
            json!({"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}})
        }
        (ReplyShape::HookSpecific, Decision::Deny) => json!({"hookSpecificOutput":{
            "hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":DENY_MESSAGE}}}),
        (ReplyShape::Flat, Decision::Allow) => json!({"behavior":"allow"}),
        (ReplyShape::Flat, Decision::Deny) => json!({"behavior":"deny","message":DENY_MESSAGE}),
        (ReplyShape::OpencodeRelay, Decision::Allow) => json!({"reply":"once"}),
        (ReplyShape::OpencodeRelay, Decision::Deny) => json!({"reply":"reject"}),
        (ReplyShape::Vults, Decision::Allow) => json!({"decision":"allow"}),
        (ReplyShape::Vults, Decision::Deny) => json!({"decision":"deny","reason":DENY_MESSAGE}),
    };
    v.to_string()
}

/// Answers to an AskUserQuestion in the agent's shape, matched by position to the questions in
/// `payload` (the hook's own, unshaped copy). `None` when the counts differ or the agent cannot
/// take answers: the hook then prints nothing and the agent asks in its terminal.
pub fn render_answers(
    shape: ReplyShape,
    payload: &Value,
    answers: &[AnswerItem],
) -> Option<String> {
    let input = tool_input(payload)?;
    let questions = input.get("questions")?.as_array()?;
    if questions.is_empty() || questions.len() != answers.len() {
        return None;
    }
    match shape {
        ReplyShape::HookSpecific => {
            let mut by_text = Map::new();
            for (q, a) in questions.iter().zip(answers) {
                let text = q.get("question")?.as_str()?;
                let value = match a {
                    AnswerItem::One(s) => json!(s),
                    AnswerItem::Many(v) => json!(v),
                };
                by_text.insert(text.to_string(), value);
            }
            let mut updated = input.as_object()?.clone();
            updated.insert("answers".into(), Value::Object(by_text));
            Some(
                json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow",
                    "updatedInput": updated}})
                .to_string(),
            )
        }
        ReplyShape::OpencodeRelay => {
            let lists: Vec<Vec<String>> = answers.iter().map(AnswerItem::labels).collect();
            Some(json!({ "answers": lists }).to_string())
        }
        ReplyShape::Flat | ReplyShape::Vults => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Reading payloads
// ---------------------------------------------------------------------------------------------

/// The tool name in any agent's payload (`tool_name`, Copilot's `toolName`, OpenCode's
/// `permission`).
pub fn tool_name(payload: &Value) -> Option<&str> {
    ["tool_name", "toolName", "permission"]
        .iter()
        .find_map(|k| payload.get(*k).and_then(Value::as_str))
}

/// The tool's input in any agent's payload. Copilot's `toolArgs` may arrive as a JSON string.
pub fn tool_input(payload: &Value) -> Option<Value> {
    for key in ["tool_input", "toolInput", "toolArgs"] {
        match payload.get(key) {
            Some(Value::String(s)) => {
                return Some(serde_json::from_str(s).unwrap_or_else(|_| json!({ "command": s })));
            }
            Some(v @ Value::Object(_)) => return Some(v.clone()),
            _ => {}
        }
    }
    // OpenCode's permission.asked, relayed as it came.
    if let Some(meta) = payload.get("metadata").filter(|m| m.is_object()) {
        let mut m = meta.clone();
        if m.get("command").is_none()
            && let Some(p) = payload.get("patterns").and_then(Value::as_array)
        {
            let joined: Vec<&str> = p.iter().filter_map(Value::as_str).collect();
            m["command"] = json!(joined.join("\n"));
        }
        return Some(m);
    }
    // Cursor's beforeShellExecution carries the command at the top.
    payload
        .get("command")
        .and_then(Value::as_str)
        .map(|c| json!({ "command": c }))
}

/// `cwd` of the payload, else the first of `workspacePaths` (Antigravity) or
/// `workspace_roots` (Cursor), else the hook's own folder.
pub fn resolve_cwd(payload: &Value, own_cwd: &str) -> String {
    let first = |key: &str| {
        payload
            .get(key)?
            .as_array()?
            .first()?
            .as_str()
            .map(str::to_string)
    };
    payload
        .get("cwd")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .or_else(|| first("workspacePaths"))
        .or_else(|| first("workspace_roots"))
        .unwrap_or_else(|| own_cwd.to_string())
}

/// The agent's session id: `session_id`, Copilot's `sessionId`, OpenCode's `sessionID`,
/// Cursor's `conversation_id`.
pub fn session_id(payload: &Value) -> Option<&str> {
    ["session_id", "sessionId", "sessionID", "conversation_id"]
        .iter()
        .find_map(|k| payload.get(*k).and_then(Value::as_str))
        .filter(|s| !s.is_empty())
}

/// What kind of tool, across the agents' own names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolKind {
    /// A shell command (`Bash`, `run_shell_command`, `shell` …).
    Shell,
    /// A file edited in place.
    Edit,
    /// A file written whole.
    Write,
    /// A file or folder read, listed or searched.
    Read,
    /// A URL fetched, or a web search.
    Fetch,
    /// A patch applied (Codex `apply_patch`).
    Patch,
    /// A question to the user (AskUserQuestion).
    Question,
    /// An MCP server's tool (`mcp__<server>__<tool>`).
    Mcp,
    /// Anything else.
    Other,
}

impl ToolKind {
    /// The kind of a tool as the agent names it; `Other` when it is not known.
    pub fn of(tool: &str) -> ToolKind {
        if tool.starts_with("mcp__") {
            return ToolKind::Mcp;
        }
        match tool {
            "Bash" | "bash" | "Shell" | "shell" | "run_shell_command" | "Execute"
            | "run_command" | "powershell" | "PowerShell" | "exec_command" | "local_shell" => {
                ToolKind::Shell
            }
            "Edit"
            | "MultiEdit"
            | "edit"
            | "replace"
            | "str_replace"
            | "replace_file_content"
            | "NotebookEdit" => ToolKind::Edit,
            "Write" | "write" | "write_file" | "create" | "write_to_file" | "Create" => {
                ToolKind::Write
            }
            "Read" | "read" | "read_file" | "view" | "view_file" | "Glob" | "Grep" | "glob"
            | "grep" | "LS" | "list" => ToolKind::Read,
            "WebFetch" | "web_fetch" | "webfetch" | "fetch" | "WebSearch" | "web_search" => {
                ToolKind::Fetch
            }
            "apply_patch" => ToolKind::Patch,
            "AskUserQuestion" | "ask_user" | "question" => ToolKind::Question,
            _ => ToolKind::Other,
        }
    }
}

/// One question of an AskUserQuestion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    /// The question as asked.
    pub question: String,
    /// A short label for the question (Claude Code's chip).
    #[serde(default)]
    pub header: String,
    /// The options offered; empty when only free text is asked for.
    #[serde(default)]
    pub options: Vec<QuestionOption>,
    /// Whether several options may be picked.
    #[serde(default, rename = "multiSelect")]
    pub multi_select: bool,
}

/// One option of a [`Question`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionOption {
    /// What the option says, and what an answer names.
    pub label: String,
    /// A longer explanation of the option.
    #[serde(default)]
    pub description: String,
}

/// The whole of what a tool call would touch — what a card shows and an Always rule keys on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Target {
    /// A shell command, whole.
    Command {
        /// The command.
        command: String,
    },
    /// A file edit: the path, and the old/new text when the tool says it.
    Edit {
        /// The file edited.
        path: String,
        /// The text replaced, when the tool says.
        old: Option<String>,
        /// The text put in its place, when the tool says.
        new: Option<String>,
    },
    /// A file written whole.
    Write {
        /// The file written.
        path: String,
        /// Its whole new content, when the tool says.
        content: Option<String>,
    },
    /// A file or folder read or searched.
    Path {
        /// The file or folder.
        path: String,
    },
    /// A URL fetched (or a search query).
    Url {
        /// The URL, or the search query.
        url: String,
    },
    /// A patch (Codex `apply_patch`).
    Patch {
        /// The whole patch.
        patch: String,
    },
    /// AskUserQuestion's questions.
    Questions {
        /// In the order asked.
        questions: Vec<Question>,
    },
    /// An MCP tool: server, tool and its JSON input.
    Mcp {
        /// The MCP server's name.
        server: String,
        /// The tool's name on that server.
        tool: String,
        /// Its input as canonical JSON.
        input: String,
    },
    /// Anything else: the tool input as canonical JSON.
    Input {
        /// The canonical JSON.
        json: String,
    },
}

impl Target {
    /// The exact string an Always rule of [`crate::rules::Scope::Target`] keys on: the whole
    /// command, URL or patch; the file of an edit, a write or a read (any change to it);
    /// otherwise the canonical JSON of the tool input.
    pub fn rule_key(&self) -> String {
        match self {
            Target::Command { command } => command.clone(),
            Target::Edit { path, .. } | Target::Write { path, .. } | Target::Path { path } => {
                path.clone()
            }
            Target::Url { url } => url.clone(),
            Target::Patch { patch } => patch.clone(),
            Target::Questions { questions } => canonical_json(&json!(questions)),
            Target::Mcp { input, .. } => input.clone(),
            Target::Input { json } => json.clone(),
        }
    }

    /// A one-line summary for lists (the flock, history); cards show the whole target.
    pub fn summary(&self) -> String {
        let s = match self {
            Target::Questions { questions } => questions
                .first()
                .map(|q| q.question.clone())
                .unwrap_or_default(),
            Target::Mcp { server, tool, .. } => format!("{server}/{tool}"),
            // OpenCode asks for an edit with its whole input (the diff it made): the file.
            Target::Input { json } => input_path(json).unwrap_or_else(|| json.clone()),
            other => other.rule_key(),
        };
        let line = s.lines().next().unwrap_or_default();
        let mut out: String = line.chars().take(120).collect();
        if out.len() < s.len() {
            out.push('…');
        }
        out
    }

    /// The shell command, for a [`Target::Command`].
    pub fn command(&self) -> Option<&str> {
        match self {
            Target::Command { command } => Some(command),
            _ => None,
        }
    }
}

/// The file a tool input in JSON names (`filepath`, `filePath`, `file_path`, `path`): how a list
/// shows an OpenCode edit, whose target is its whole input. `None` when it names none.
pub fn input_path(json: &str) -> Option<String> {
    let input: Value = serde_json::from_str(json).ok()?;
    ["filepath", "filePath", "file_path", "path"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .map(str::to_string)
}

/// A tool call as every agent's adapter reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The agent's session id, when the payload has one.
    pub session_id: Option<String>,
    /// The folder the agent works in, as the payload says (`cwd`).
    pub cwd: Option<String>,
    /// The tool as the agent names it (`Bash`, `run_shell_command`, `mcp__github__create_issue`…).
    pub tool: String,
    /// The kind of tool, across agents' names.
    pub kind: ToolKind,
    /// The whole of what the call would touch.
    pub target: Target,
    /// The canonical JSON of the whole tool input, for an edit or a write of a file: its
    /// [`Target::rule_key`] is the file (any change to it), this is the one change (old and new
    /// text, `replace_all`, the content). What a [`crate::rules::Scope::Exact`] rule keys on;
    /// `None` for every other target, whose key already is the whole call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<String>,
}

/// Reads any agent's payload. The shapes differ only in field names (see [`tool_name`],
/// [`tool_input`], [`session_id`]), so one reader serves every adapter.
pub fn read_tool_call(payload: &Value) -> ToolCall {
    let tool = tool_name(payload).unwrap_or_default().to_string();
    let input = tool_input(payload).unwrap_or(Value::Null);
    let kind = ToolKind::of(&tool);
    let target = target_of(&tool, kind, &input);
    let exact = matches!(target, Target::Edit { .. } | Target::Write { .. })
        .then(|| canonical_json(&input));
    ToolCall {
        session_id: session_id(payload).map(str::to_string),
        cwd: payload
            .get("cwd")
            .and_then(Value::as_str)
            .map(str::to_string),
        tool,
        kind,
        target,
        exact,
    }
}

fn str_field<'a>(input: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
}

fn target_of(tool: &str, kind: ToolKind, input: &Value) -> Target {
    let path = str_field(
        input,
        &[
            "file_path",
            "filePath",
            "path",
            "absolute_path",
            "notebook_path",
            "TargetFile",
        ],
    );
    let whole = || Target::Input {
        json: canonical_json(input),
    };
    match kind {
        ToolKind::Shell => command_of(input)
            .map(|command| Target::Command { command })
            .unwrap_or_else(whole),
        ToolKind::Patch => command_of(input)
            .or_else(|| str_field(input, &["patch", "input"]).map(str::to_string))
            .map(|patch| Target::Patch { patch })
            .unwrap_or_else(whole),
        ToolKind::Edit => match path {
            Some(p) => Target::Edit {
                path: p.to_string(),
                old: str_field(input, &["old_string", "oldString", "old_str", "old"])
                    .map(str::to_string),
                new: str_field(
                    input,
                    &["new_string", "newString", "new_str", "new", "new_source"],
                )
                .map(str::to_string)
                .or_else(|| {
                    input
                        .get("edits")
                        .map(|e| serde_json::to_string_pretty(e).unwrap_or_default())
                }),
            },
            None => whole(),
        },
        ToolKind::Write => match path {
            Some(p) => Target::Write {
                path: p.to_string(),
                content: str_field(input, &["content", "file_text", "CodeContent"])
                    .map(str::to_string),
            },
            None => whole(),
        },
        ToolKind::Read => match path.or_else(|| str_field(input, &["pattern"])) {
            Some(p) => Target::Path {
                path: p.to_string(),
            },
            None => whole(),
        },
        ToolKind::Fetch => match str_field(input, &["url", "query"]) {
            Some(u) => Target::Url { url: u.to_string() },
            None => whole(),
        },
        ToolKind::Question => match input.get("questions").cloned().map(serde_json::from_value) {
            Some(Ok(questions)) => Target::Questions { questions },
            _ => whole(),
        },
        ToolKind::Mcp => {
            let mut parts = tool.trim_start_matches("mcp__").splitn(2, "__");
            Target::Mcp {
                server: parts.next().unwrap_or_default().to_string(),
                tool: parts.next().unwrap_or_default().to_string(),
                input: canonical_json(input),
            }
        }
        ToolKind::Other => match command_of(input) {
            Some(command) => Target::Command { command },
            None => match str_field(input, &["url"]) {
                Some(u) => Target::Url { url: u.to_string() },
                None => whole(),
            },
        },
    }
}

/// A command as a string; an argv list (`["bash","-lc","…"]`) is joined with shell quoting.
fn command_of(input: &Value) -> Option<String> {
    match input.get("command").or_else(|| input.get("cmd")) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Array(argv)) => {
            let words: Option<Vec<&str>> = argv.iter().map(Value::as_str).collect();
            Some(
                words?
                    .iter()
                    .map(|w| shell_quote(w))
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        }
        _ => None,
    }
}

fn shell_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,@%+".contains(&b))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// JSON with object keys sorted, so equal inputs give equal strings.
pub fn canonical_json(v: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&m[k])))
                        .collect(),
                )
            }
            Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(v).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_agent_table_has_one_row_per_wire_kind_and_unique_names() {
        for kind in AgentKind::ALL {
            let rows: Vec<_> = AGENTS
                .iter()
                .filter(|a| a.wire == Wire::Kind(kind))
                .collect();
            match kind {
                AgentKind::Other => assert!(rows.is_empty()),
                _ => {
                    assert_eq!(rows.len(), 1, "{kind:?}");
                    assert_eq!(rows[0].name, kind.as_str());
                }
            }
        }
        let mut names: Vec<_> = AGENTS.iter().map(|a| a.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), AGENTS.len());
        for a in AGENTS {
            // Only a wire kind can be answered, and only an answerable agent asks questions.
            assert!(
                a.reply.is_none() || matches!(a.wire, Wire::Kind(_)),
                "{}",
                a.name
            );
            assert!(!a.asks || a.reply.is_some_and(ReplyShape::answers_questions));
        }
    }

    #[test]
    fn names_read_from_the_table_are_the_documented_ones() {
        // docs/hook-protocol.md §2 and docs/other-agents.md name these.
        let others: Vec<_> = AGENTS
            .iter()
            .map(|a| a.name)
            .filter(|n| is_registered_other(n))
            .collect();
        assert_eq!(others, ["cursor", "droid", "kimi", "antigravity"]);
        for n in [
            "claude", "codex", "copilot", "opencode", "qwen", "other", "gemini",
        ] {
            assert!(is_reserved_name(n), "{n}");
        }
        for n in ["cursor", "droid", "kimi", "antigravity", "my-tool"] {
            assert!(!is_reserved_name(n), "{n}");
        }
        let shapes: Vec<_> = AgentKind::ALL
            .into_iter()
            .map(|k| ReplyShape::of(k, false))
            .collect();
        assert_eq!(
            shapes,
            [
                Some(ReplyShape::HookSpecific),
                Some(ReplyShape::HookSpecific),
                Some(ReplyShape::OpencodeRelay),
                Some(ReplyShape::HookSpecific),
                Some(ReplyShape::Flat),
                None
            ]
        );
        assert_eq!(
            ReplyShape::of(AgentKind::Claude, true),
            Some(ReplyShape::HookSpecific)
        );
        assert_eq!(AgentKind::Copilot.display_name(), "Copilot CLI");
        assert_eq!(AgentKind::Other.display_name(), "Other");
    }

    #[test]
    fn claude_bash_reads_the_whole_command() {
        let p = json!({"session_id":"s","cwd":"/p","tool_name":"Bash","tool_input":{"command":"cargo test --all","description":"Run tests"}});
        let c = read_tool_call(&p);
        assert_eq!(c.session_id.as_deref(), Some("s"));
        assert_eq!(c.cwd.as_deref(), Some("/p"));
        assert_eq!(c.kind, ToolKind::Shell);
        assert_eq!(
            c.target,
            Target::Command {
                command: "cargo test --all".into()
            }
        );
        assert_eq!(c.target.rule_key(), "cargo test --all");
    }

    #[test]
    fn copilot_camel_case_and_string_args() {
        let p = json!({"sessionId":"c1","toolName":"bash","toolInput":{"command":"echo hi"}});
        let c = read_tool_call(&p);
        assert_eq!(c.session_id.as_deref(), Some("c1"));
        assert_eq!(c.target.command(), Some("echo hi"));
        let p = json!({"sessionId":"c1","toolName":"bash","toolArgs":"{\"command\":\"ls -la\"}"});
        assert_eq!(read_tool_call(&p).target.command(), Some("ls -la"));
    }

    #[test]
    fn opencode_permission_asked_as_it_came() {
        let p = json!({"sessionID":"ses_1","permission":"bash","patterns":["rm -rf build"],"metadata":{}});
        let c = read_tool_call(&p);
        assert_eq!(c.session_id.as_deref(), Some("ses_1"));
        assert_eq!(c.target.command(), Some("rm -rf build"));
    }

    #[test]
    fn edits_writes_urls_and_mcp() {
        let e = read_tool_call(
            &json!({"tool_name":"Edit","tool_input":{"file_path":"/a.rs","old_string":"x","new_string":"y"}}),
        );
        assert_eq!(
            e.target,
            Target::Edit {
                path: "/a.rs".into(),
                old: Some("x".into()),
                new: Some("y".into())
            }
        );
        let w = read_tool_call(
            &json!({"tool_name":"write_file","tool_input":{"file_path":"/b","content":"hi"}}),
        );
        assert_eq!(
            w.target,
            Target::Write {
                path: "/b".into(),
                content: Some("hi".into())
            }
        );
        let u = read_tool_call(
            &json!({"tool_name":"WebFetch","tool_input":{"url":"https://x.test/a?b=c","prompt":"summarise"}}),
        );
        assert_eq!(u.target.rule_key(), "https://x.test/a?b=c");
        let m = read_tool_call(
            &json!({"tool_name":"mcp__github__create_issue","tool_input":{"title":"t","body":"b"}}),
        );
        assert_eq!(
            m.target,
            Target::Mcp {
                server: "github".into(),
                tool: "create_issue".into(),
                input: r#"{"body":"b","title":"t"}"#.into()
            }
        );
        let argv = read_tool_call(
            &json!({"tool_name":"exec_command","tool_input":{"command":["bash","-lc","echo 'hi there'"]}}),
        );
        assert_eq!(
            argv.target.command(),
            Some(r#"bash -lc 'echo '\''hi there'\'''"#)
        );
    }

    #[test]
    fn unknown_tools_key_on_canonical_json() {
        let a = read_tool_call(&json!({"tool_name":"Frob","tool_input":{"b":1,"a":2}}));
        let b = read_tool_call(&json!({"tool_name":"Frob","tool_input":{"a":2,"b":1}}));
        assert_eq!(a.target.rule_key(), r#"{"a":2,"b":1}"#);
        assert_eq!(a.target.rule_key(), b.target.rule_key());
    }

    #[test]
    fn decisions_in_each_shape() {
        let cases = [
            (
                ReplyShape::HookSpecific,
                Decision::Allow,
                r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#,
            ),
            (
                ReplyShape::HookSpecific,
                Decision::Deny,
                r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Denied from Vults"}}}"#,
            ),
            (ReplyShape::Flat, Decision::Allow, r#"{"behavior":"allow"}"#),
            (
                ReplyShape::Flat,
                Decision::Deny,
                r#"{"behavior":"deny","message":"Denied from Vults"}"#,
            ),
            (
                ReplyShape::OpencodeRelay,
                Decision::Allow,
                r#"{"reply":"once"}"#,
            ),
            (
                ReplyShape::OpencodeRelay,
                Decision::Deny,
                r#"{"reply":"reject"}"#,
            ),
            (
                ReplyShape::Vults,
                Decision::Allow,
                r#"{"decision":"allow"}"#,
            ),
            (
                ReplyShape::Vults,
                Decision::Deny,
                r#"{"decision":"deny","reason":"Denied from Vults"}"#,
            ),
        ];
        for (shape, d, want) in cases {
            assert_eq!(render_decision(shape, false, d), want, "{shape:?} {d:?}");
        }
        assert_eq!(ReplyShape::of(AgentKind::Other, false), None);
    }

    #[test]
    fn answers_keyed_by_question_text_or_listed_in_order() {
        let p = json!({"tool_name":"AskUserQuestion","tool_input":{"questions":[
            {"question":"Which color?","header":"Color","options":[{"label":"Blue"},{"label":"Red"}],"multiSelect":false},
            {"question":"Which sizes?","header":"Sizes","options":[{"label":"S"},{"label":"M"}],"multiSelect":true}]}});
        let answers = [
            AnswerItem::One("Blue".into()),
            AnswerItem::Many(vec!["S".into(), "M".into()]),
        ];
        let out: Value =
            serde_json::from_str(&render_answers(ReplyShape::HookSpecific, &p, &answers).unwrap())
                .unwrap();
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "allow");
        assert_eq!(
            out["hookSpecificOutput"]["updatedInput"]["questions"],
            p["tool_input"]["questions"]
        );
        assert_eq!(
            out["hookSpecificOutput"]["updatedInput"]["answers"],
            json!({"Which color?":"Blue","Which sizes?":["S","M"]})
        );
        assert_eq!(
            render_answers(ReplyShape::OpencodeRelay, &p, &answers).unwrap(),
            r#"{"answers":[["Blue"],["S","M"]]}"#
        );
        assert_eq!(
            render_answers(ReplyShape::HookSpecific, &p, &answers[..1]),
            None,
            "count mismatch"
        );
        assert_eq!(render_answers(ReplyShape::Flat, &p, &answers), None);
    }
}
