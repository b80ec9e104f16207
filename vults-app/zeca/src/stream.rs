//! Claude Code's stream-json, both ways: what one stdout line of
//! `claude -p --input-format stream-json --output-format stream-json --verbose
//! --permission-prompt-tool stdio --include-partial-messages` says ([`read_line`]), and the
//! lines the chat writes to its stdin ([`user_line`], [`allow_line`], [`deny_line`]).
//! The exact shapes are in `docs/zeca.md` (verified with the pinned CLI).

use crate::error::LineError;
use serde_json::{Value, json};

/// What one stdout line says, as far as the chat cares.
#[derive(Debug, Clone, PartialEq)]
pub enum Out {
    /// `system`/`init`: the CLI's session id (the one `--resume` takes).
    Init {
        /// The session id.
        session_id: String,
    },
    /// A new assistant message began streaming (`stream_event` `message_start`).
    MessageStart,
    /// A text block began streaming.
    TextStart,
    /// More text of the block being streamed (`text_delta`).
    TextDelta(String),
    /// A whole assistant message: its text blocks and tool calls, in order.
    Assistant(Vec<Block>),
    /// Tool results the CLI fed back to the model (`user` line with `tool_result` blocks).
    ToolResults(Vec<ToolResult>),
    /// `control_request` `can_use_tool`: the CLI waits for a `control_response` on stdin.
    CanUseTool(CanUseTool),
    /// `result`: the turn is over.
    Result {
        /// The turn failed (an API error, a refused resume …).
        is_error: bool,
        /// The CLI's last words about the turn.
        text: Option<String>,
        /// The session the turn ran in.
        session_id: Option<String>,
    },
    /// A line the chat does not use (other `system` lines, `control_response`, hook progress …).
    Other,
}

/// One block of an assistant message.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// Text the model wrote.
    Text(String),
    /// A tool call the model made.
    ToolUse {
        /// The call's id, which its result and its permission question name.
        id: String,
        /// The tool's name.
        name: String,
        /// The tool's input, as the model wrote it.
        input: Value,
    },
}

/// What a tool said back.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The call it answers ([`Block::ToolUse`]'s `id`).
    pub tool_use_id: String,
    /// Its output (text blocks joined).
    pub text: String,
    /// The tool failed, or was refused.
    pub is_error: bool,
}

/// The permission question of `--permission-prompt-tool stdio`.
#[derive(Debug, Clone, PartialEq)]
pub struct CanUseTool {
    /// The id its `control_response` must name.
    pub request_id: String,
    /// The tool as Claude Code names it.
    pub tool_name: String,
    /// The tool's input.
    pub input: Value,
    /// The call's id ([`Block::ToolUse`]'s `id`), when the CLI says it.
    pub tool_use_id: Option<String>,
    /// What the CLI says of the call, when it says something.
    pub description: Option<String>,
}

/// Reads one stdout line; `Err` for a line that is not JSON (logged, never fatal).
pub fn read_line(line: &str) -> Result<Out, LineError> {
    let v: Value = serde_json::from_str(line)?;
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    Ok(match v.get("type").and_then(Value::as_str).unwrap_or("") {
        "system" if v.get("subtype").and_then(Value::as_str) == Some("init") => {
            match s(&v, "session_id") {
                Some(session_id) => Out::Init { session_id },
                None => Out::Other,
            }
        }
        "stream_event" => {
            let ev = v.get("event").unwrap_or(&Value::Null);
            match ev.get("type").and_then(Value::as_str).unwrap_or("") {
                "message_start" => Out::MessageStart,
                "content_block_start"
                    if ev.pointer("/content_block/type").and_then(Value::as_str)
                        == Some("text") =>
                {
                    Out::TextStart
                }
                "content_block_delta"
                    if ev.pointer("/delta/type").and_then(Value::as_str) == Some("text_delta") =>
                {
                    Out::TextDelta(
                        ev.pointer("/delta/text")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string(),
                    )
                }
                _ => Out::Other,
            }
        }
        "assistant" => {
            let blocks = content(&v)
                .iter()
                .filter_map(|b| match b.get("type").and_then(Value::as_str)? {
                    "text" => Some(Block::Text(s(b, "text").unwrap_or_default())),
                    "tool_use" => Some(Block::ToolUse {
                        id: s(b, "id").unwrap_or_default(),
                        name: s(b, "name").unwrap_or_default(),
                        input: b.get("input").cloned().unwrap_or(Value::Null),
                    }),
                    _ => None,
                })
                .collect();
            Out::Assistant(blocks)
        }
        "user" => {
            let results: Vec<ToolResult> = content(&v)
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                .map(|b| ToolResult {
                    tool_use_id: s(b, "tool_use_id").unwrap_or_default(),
                    text: result_text(b.get("content").unwrap_or(&Value::Null)),
                    is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false),
                })
                .collect();
            if results.is_empty() {
                Out::Other
            } else {
                Out::ToolResults(results)
            }
        }
        "control_request" => {
            let req = v.get("request").unwrap_or(&Value::Null);
            match (
                req.get("subtype").and_then(Value::as_str),
                s(&v, "request_id"),
            ) {
                (Some("can_use_tool"), Some(request_id)) => Out::CanUseTool(CanUseTool {
                    request_id,
                    tool_name: s(req, "tool_name").unwrap_or_default(),
                    input: req.get("input").cloned().unwrap_or(json!({})),
                    tool_use_id: s(req, "tool_use_id"),
                    description: s(req, "description"),
                }),
                _ => Out::Other,
            }
        }
        "result" => Out::Result {
            is_error: v.get("is_error").and_then(Value::as_bool).unwrap_or(false)
                || v.get("subtype")
                    .and_then(Value::as_str)
                    .is_some_and(|t| t != "success"),
            text: s(&v, "result"),
            session_id: s(&v, "session_id"),
        },
        _ => Out::Other,
    })
}

fn content(v: &Value) -> Vec<Value> {
    match v.pointer("/message/content") {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::String(t)) => vec![json!({"type":"text","text":t})],
        _ => Vec::new(),
    }
}

/// A tool result's content: a string, or text blocks.
fn result_text(c: &Value) -> String {
    match c {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|i| i.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A user turn.
pub fn user_line(text: &str) -> String {
    json!({"type":"user","message":{"role":"user","content":text}}).to_string()
}

/// Allows a `can_use_tool` request, with the input to run (unchanged, or with answers).
pub fn allow_line(request_id: &str, input: &Value) -> String {
    json!({"type":"control_response","response":{"subtype":"success","request_id":request_id,
        "response":{"behavior":"allow","updatedInput":input}}})
    .to_string()
}

/// Denies a `can_use_tool` request; the model reads `message`.
pub fn deny_line(request_id: &str, message: &str) -> String {
    json!({"type":"control_response","response":{"subtype":"success","request_id":request_id,
        "response":{"behavior":"deny","message":message}}})
    .to_string()
}

/// One line summary of a tool call for the chat's compact row: the command, file or URL.
pub fn summary(name: &str, input: &Value) -> String {
    let call = vults_core::agents::read_tool_call(&json!({"tool_name":name,"tool_input":input}));
    call.target.summary()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Lines as the pinned CLI writes them (docs/zeca.md, ../shared/reference/claude-stream-json.md).
    const INIT: &str = r#"{"type":"system","subtype":"init","cwd":"/p","session_id":"8d0c-11","tools":["Bash","Read"],"permissionMode":"default"}"#;
    const TOOL_USE: &str = r#"{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"echo zeca > /p/ran.txt","description":"write a file"}}]},"session_id":"8d0c-11"}"#;
    const CAN_USE: &str = r#"{"type":"control_request","request_id":"8150d7e4-aa","request":{"subtype":"can_use_tool","tool_name":"Bash","display_name":"Bash","input":{"command":"echo zeca > /p/ran.txt","description":"write a file"},"description":"write a file","permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"echo zeca *"}],"behavior":"allow","destination":"localSettings"}],"blocked_path":"/p/ran.txt","tool_use_id":"toolu_01"}}"#;
    const RESULT_DENIED: &str = r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","is_error":true,"content":"Denied from Vults"}]},"session_id":"8d0c-11"}"#;
    const TEXT: &str = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"done"}]},"session_id":"8d0c-11"}"#;
    const RESULT: &str = r#"{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"8d0c-11","total_cost_usd":0.001,"usage":{}}"#;

    #[test]
    fn reads_the_lines_of_one_tool_call_in_order() {
        assert_eq!(
            read_line(INIT).unwrap(),
            Out::Init {
                session_id: "8d0c-11".into()
            }
        );
        let Out::Assistant(blocks) = read_line(TOOL_USE).unwrap() else {
            panic!("assistant")
        };
        assert_eq!(
            blocks,
            vec![Block::ToolUse {
                id: "toolu_01".into(),
                name: "Bash".into(),
                input: json!({"command":"echo zeca > /p/ran.txt","description":"write a file"}),
            }]
        );
        let Out::CanUseTool(ask) = read_line(CAN_USE).unwrap() else {
            panic!("can_use_tool")
        };
        assert_eq!(ask.request_id, "8150d7e4-aa");
        assert_eq!(ask.tool_name, "Bash");
        assert_eq!(ask.input["command"], "echo zeca > /p/ran.txt");
        assert_eq!(ask.tool_use_id.as_deref(), Some("toolu_01"));
        assert_eq!(ask.description.as_deref(), Some("write a file"));
        assert_eq!(
            read_line(RESULT_DENIED).unwrap(),
            Out::ToolResults(vec![ToolResult {
                tool_use_id: "toolu_01".into(),
                text: "Denied from Vults".into(),
                is_error: true
            }])
        );
        assert_eq!(
            read_line(TEXT).unwrap(),
            Out::Assistant(vec![Block::Text("done".into())])
        );
        assert_eq!(
            read_line(RESULT).unwrap(),
            Out::Result {
                is_error: false,
                text: Some("done".into()),
                session_id: Some("8d0c-11".into())
            }
        );
    }

    #[test]
    fn reads_streamed_text_and_skips_what_it_does_not_use() {
        let start = r#"{"type":"stream_event","event":{"type":"message_start","message":{"id":"m"}},"session_id":"s"}"#;
        let block = r#"{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}},"session_id":"s"}"#;
        let delta = r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"do"}},"session_id":"s"}"#;
        let json_delta = r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{"}}}"#;
        assert_eq!(read_line(start).unwrap(), Out::MessageStart);
        assert_eq!(read_line(block).unwrap(), Out::TextStart);
        assert_eq!(read_line(delta).unwrap(), Out::TextDelta("do".into()));
        assert_eq!(read_line(json_delta).unwrap(), Out::Other);
        assert_eq!(
            read_line(r#"{"type":"system","subtype":"hook_response"}"#).unwrap(),
            Out::Other
        );
        assert_eq!(
            read_line(r#"{"type":"control_response","response":{}}"#).unwrap(),
            Out::Other
        );
        assert!(read_line("warning: not json").is_err());
        let failed = r#"{"type":"result","subtype":"error_during_execution","session_id":"s"}"#;
        assert!(matches!(
            read_line(failed).unwrap(),
            Out::Result { is_error: true, .. }
        ));
    }

    #[test]
    fn writes_the_lines_the_cli_reads() {
        let v: Value = serde_json::from_str(&user_line("write the file")).unwrap();
        assert_eq!(
            v,
            json!({"type":"user","message":{"role":"user","content":"write the file"}})
        );
        let input = json!({"command":"ls"});
        let v: Value = serde_json::from_str(&allow_line("r-1", &input)).unwrap();
        assert_eq!(
            v,
            json!({"type":"control_response","response":{"subtype":"success","request_id":"r-1",
                "response":{"behavior":"allow","updatedInput":{"command":"ls"}}}})
        );
        let v: Value = serde_json::from_str(&deny_line("r-1", "Denied from Vults")).unwrap();
        assert_eq!(v["response"]["response"]["behavior"], "deny");
        assert_eq!(v["response"]["response"]["message"], "Denied from Vults");
        assert!(!user_line("a\nb").contains('\n'), "one line per message");
    }

    #[test]
    fn a_tool_row_shows_the_whole_command() {
        assert_eq!(
            summary("Bash", &json!({"command":"echo zeca > /p/ran.txt"})),
            "echo zeca > /p/ran.txt"
        );
    }
}
