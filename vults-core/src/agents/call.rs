//! Reading an agent's payload: the tool it calls and the whole target ([`ToolCall`]: session,
//! folder, tool, command, file path or URL), whatever the agent calls its fields.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

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
            // OpenCode's change to several files, whose target is its whole input: the files.
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
/// shows an OpenCode change to several files (`filepath` joins their names), whose target is its
/// whole input. `None` when it names none.
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
            .or_else(|| str_field(input, &["patch", "input", "patchText"]).map(str::to_string))
            .map(|patch| Target::Patch { patch })
            .unwrap_or_else(whole),
        ToolKind::Edit => match path.or_else(|| opencode_file(input)) {
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

/// The one file an OpenCode file change names. OpenCode asks for every change its edit, write and
/// apply_patch tools make as one `edit` permission, whose metadata holds the file (`filepath`)
/// and the unified diff it made (`diff`); an apply_patch lists its files (`files`, each with its
/// absolute `filePath`; `filepath` then joins their relative names). `None` when it names no
/// file or several: a change to several files is no one file's.
fn opencode_file(input: &Value) -> Option<&str> {
    input.get("diff")?.as_str()?;
    match input
        .get("files")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        Some([one]) => one.get("filePath").and_then(Value::as_str),
        Some([_, _, ..]) => None,
        _ => str_field(input, &["filepath"]),
    }
}

/// A command as a string; an argv list (`["bash","-lc","…"]`) is joined with shell quoting.
/// The command a shell call runs, as one string: `command` (or `cmd`) as a string, or an argv
/// list shell-quoted. `None` when it is neither, or says nothing (blank, an empty list): the
/// card then shows the whole input, which is what an Allow authorizes.
fn command_of(input: &Value) -> Option<String> {
    match input.get("command").or_else(|| input.get("cmd")) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(Value::Array(argv)) if !argv.is_empty() => {
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
