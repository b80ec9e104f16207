//! Codex CLI's app server (`codex app-server`, JSON-RPC 2.0, one message per line on
//! stdin/stdout), read into the same [`Out`] the Claude Code stream gives, so one chat drives
//! both. Verified with the pinned Codex CLI 0.169.0 (docs/zeca.md): `initialize`, `initialized`,
//! `thread/start` (or `thread/resume` with the saved thread id), `turn/start`; the server asks
//! `item/commandExecution/requestApproval` / `item/fileChange/requestApproval` and waits for
//! `{"decision":"accept"|"decline"}`.

use super::stream::{Block, CanUseTool, Out, ToolResult};
use crate::error::LineError;
use serde_json::{Value, json};

/// The request id of `thread/start` / `thread/resume`: its answer carries the thread id.
pub const THREAD_REQUEST: u64 = 2;

/// The lines that open a conversation: `initialize`, `initialized`, then the thread.
pub fn opening(cwd: &str, thread: Option<&str>) -> Vec<String> {
    let thread = match thread {
        Some(id) => json!({"jsonrpc":"2.0","id":THREAD_REQUEST,"method":"thread/resume",
            "params":{"threadId":id,"cwd":cwd,"approvalPolicy":"on-request"}}),
        None => json!({"jsonrpc":"2.0","id":THREAD_REQUEST,"method":"thread/start",
            "params":{"cwd":cwd,"approvalPolicy":"on-request"}}),
    };
    vec![
        json!({"jsonrpc":"2.0","id":1,"method":"initialize",
            "params":{"clientInfo":{"name":"vults","version":env!("CARGO_PKG_VERSION")}}})
        .to_string(),
        json!({"jsonrpc":"2.0","method":"initialized"}).to_string(),
        thread.to_string(),
    ]
}

/// A user turn.
pub fn turn_line(id: u64, thread: &str, text: &str) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"turn/start",
        "params":{"threadId":thread,"input":[{"type":"text","text":text}]}})
    .to_string()
}

/// The answer to an approval request; `request_id` is the request's JSON id as text.
pub fn decision_line(request_id: &str, accept: bool) -> String {
    let id: Value = serde_json::from_str(request_id).unwrap_or(json!(request_id));
    json!({"jsonrpc":"2.0","id":id,"result":{"decision": if accept {"accept"} else {"decline"}}})
        .to_string()
}

/// What a command approval (or a command item) asks to run, as a Bash tool's input: its
/// `command` when it is a string or an argv list that says something; otherwise the whole
/// request, so the card shows everything the Allow authorizes (never an empty command, which
/// would also have made an Always rule with an empty target).
fn approval_input(p: &Value) -> Value {
    let says_something = match p.get("command") {
        Some(Value::String(c)) => !c.trim().is_empty(),
        Some(Value::Array(argv)) => !argv.is_empty() && argv.iter().all(Value::is_string),
        _ => false,
    };
    if says_something {
        json!({"command": p["command"]})
    } else {
        p.clone()
    }
}

/// Reads one line. `changes` holds the file changes of items seen so far (an approval names
/// only the item), keyed by item id.
pub fn read_line(line: &str, changes: &mut Vec<(String, Value)>) -> Result<Out, LineError> {
    let v: Value = serde_json::from_str(line)?;
    let s = |v: &Value, p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_string);
    if v.get("id").and_then(Value::as_u64) == Some(THREAD_REQUEST) && v.get("method").is_none() {
        return Ok(match s(&v, "/result/thread/id") {
            Some(session_id) => Out::Init { session_id },
            None => Out::Result {
                is_error: true,
                text: Some(
                    s(&v, "/error/message").unwrap_or_else(|| "the thread did not start".into()),
                ),
                session_id: None,
            },
        });
    }
    let method = v.get("method").and_then(Value::as_str).unwrap_or("");
    let p = v.get("params").unwrap_or(&Value::Null);
    let item = p.get("item").unwrap_or(&Value::Null);
    let item_type = item.get("type").and_then(Value::as_str).unwrap_or("");
    let item_id = s(item, "/id").unwrap_or_default();
    Ok(match (method, item_type) {
        ("item/started", "agentMessage") => Out::MessageStart,
        ("item/agentMessage/delta", _) => Out::TextDelta(s(p, "/delta").unwrap_or_default()),
        ("item/completed", "agentMessage") => {
            Out::Assistant(vec![Block::Text(s(item, "/text").unwrap_or_default())])
        }
        ("item/started", "commandExecution") => Out::Assistant(vec![Block::ToolUse {
            id: item_id,
            name: "Bash".into(),
            input: approval_input(item),
        }]),
        ("item/started", "fileChange") => {
            let c = item.get("changes").cloned().unwrap_or(Value::Null);
            changes.push((item_id.clone(), c.clone()));
            Out::Assistant(vec![Block::ToolUse {
                id: item_id,
                name: "FileChange".into(),
                input: json!({"changes": c}),
            }])
        }
        ("item/completed", "commandExecution" | "fileChange") => {
            let status = s(item, "/status").unwrap_or_default();
            let failed = status != "completed"
                || item
                    .get("exitCode")
                    .and_then(Value::as_i64)
                    .is_some_and(|c| c != 0);
            let text = s(item, "/aggregatedOutput").unwrap_or_else(|| status.clone());
            Out::ToolResults(vec![ToolResult {
                tool_use_id: item_id,
                text,
                is_error: failed,
            }])
        }
        ("item/commandExecution/requestApproval", _) => Out::CanUseTool(CanUseTool {
            request_id: v.get("id").map(Value::to_string).unwrap_or_default(),
            tool_name: "Bash".into(),
            input: approval_input(p),
            tool_use_id: s(p, "/itemId"),
            description: s(p, "/reason"),
        }),
        ("item/fileChange/requestApproval", _) => {
            let item_id = s(p, "/itemId").unwrap_or_default();
            let c = changes
                .iter()
                .find(|(id, _)| *id == item_id)
                .map(|(_, c)| c.clone())
                .unwrap_or(Value::Null);
            Out::CanUseTool(CanUseTool {
                request_id: v.get("id").map(Value::to_string).unwrap_or_default(),
                tool_name: "FileChange".into(),
                input: json!({"changes": c, "grantRoot": p.get("grantRoot")}),
                tool_use_id: Some(item_id),
                description: s(p, "/reason"),
            })
        }
        ("turn/completed", _) => {
            let status = s(p, "/turn/status").unwrap_or_default();
            Out::Result {
                is_error: status == "failed",
                text: s(p, "/turn/error/message"),
                session_id: None,
            }
        }
        _ => Out::Other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Lines as the pinned Codex CLI 0.169.0 wrote them (shortened; docs/zeca.md).
    const THREAD: &str = r#"{"id":2,"result":{"thread":{"id":"01a2-77","sessionId":"01a2-77"}}}"#;
    const STARTED: &str = r#"{"method":"item/started","params":{"item":{"type":"commandExecution","id":"call_1","command":"/bin/bash -lc 'echo codex > /p/m.txt'","cwd":"/p","status":"inProgress"},"threadId":"01a2-77","turnId":"t1"}}"#;
    const APPROVAL: &str = r#"{"method":"item/commandExecution/requestApproval","id":0,"params":{"kind":"command","threadId":"01a2-77","turnId":"t1","itemId":"call_1","startedAtMs":1,"environmentId":"local","reason":"write a file","command":"/bin/bash -lc 'echo codex > /p/m.txt'","cwd":"/p"}}"#;
    const DONE: &str = r#"{"method":"item/completed","params":{"item":{"type":"commandExecution","id":"call_1","status":"completed","aggregatedOutput":null,"exitCode":0}}}"#;
    const DELTA: &str = r#"{"method":"item/agentMessage/delta","params":{"threadId":"01a2-77","turnId":"t1","itemId":"msg_1","delta":"done"}}"#;
    const TURN: &str = r#"{"method":"turn/completed","params":{"threadId":"01a2-77","turn":{"id":"t1","status":"completed","error":null}}}"#;

    #[test]
    fn reads_a_codex_turn_as_the_chat_reads_claude() {
        let mut ch = Vec::new();
        assert_eq!(
            read_line(THREAD, &mut ch).unwrap(),
            Out::Init {
                session_id: "01a2-77".into()
            }
        );
        assert!(matches!(
            read_line(STARTED, &mut ch).unwrap(),
            Out::Assistant(b) if matches!(&b[0], Block::ToolUse { name, .. } if name == "Bash")
        ));
        let Out::CanUseTool(ask) = read_line(APPROVAL, &mut ch).unwrap() else {
            panic!("approval")
        };
        assert_eq!(ask.request_id, "0");
        assert_eq!(
            ask.input["command"],
            "/bin/bash -lc 'echo codex > /p/m.txt'"
        );
        assert_eq!(ask.tool_use_id.as_deref(), Some("call_1"));
        assert!(matches!(
            read_line(DONE, &mut ch).unwrap(),
            Out::ToolResults(r) if !r[0].is_error
        ));
        assert_eq!(
            read_line(DELTA, &mut ch).unwrap(),
            Out::TextDelta("done".into())
        );
        assert!(matches!(
            read_line(TURN, &mut ch).unwrap(),
            Out::Result {
                is_error: false,
                ..
            }
        ));
    }

    /// An approval without a string `command` (none, null, or a list of another shape) is not
    /// an empty Bash command: the card shows the whole request, and offers no Always.
    #[test]
    fn an_approval_without_a_command_shows_the_whole_request() {
        use vults_core::agents::{Target, read_tool_call};
        let mut ch = Vec::new();
        for params in [
            json!({"itemId":"c1","reason":"network","networkApprovalContext":{"host":"evil.test"}}),
            json!({"itemId":"c1","command":null,"cwd":"/p"}),
            json!({"itemId":"c1","command":"   ","cwd":"/p"}),
            json!({"itemId":"c1","command":[1,2],"cwd":"/p"}),
        ] {
            let line = json!({"method":"item/commandExecution/requestApproval","id":3,
                "params":params})
            .to_string();
            let Out::CanUseTool(ask) = read_line(&line, &mut ch).unwrap() else {
                panic!("approval")
            };
            let call =
                read_tool_call(&json!({"tool_name": ask.tool_name, "tool_input": ask.input}));
            match &call.target {
                Target::Input { json } => {
                    assert!(json.contains("\"itemId\":\"c1\""), "{json}")
                }
                other => panic!("{params}: the card would show {other:?}"),
            }
            let codex =
                vults_core::protocol::Identity::Builtin(vults_core::protocol::AgentKind::Codex);
            let rule = vults_core::rules::AlwaysRule::offer(&codex, "/p", &call, 1).unwrap();
            assert!(!rule.target.is_empty());
        }
        // An argv list is the command, quoted as a shell would read it.
        let line = json!({"method":"item/commandExecution/requestApproval","id":4,
            "params":{"itemId":"c2","command":["rm","-rf","a b"]}})
        .to_string();
        let Out::CanUseTool(ask) = read_line(&line, &mut ch).unwrap() else {
            panic!("approval")
        };
        let call = read_tool_call(&json!({"tool_name": "Bash", "tool_input": ask.input}));
        assert_eq!(call.target.command(), Some("rm -rf 'a b'"));
    }

    #[test]
    fn writes_the_lines_the_app_server_reads() {
        let v: Value = serde_json::from_str(&decision_line("0", true)).unwrap();
        assert_eq!(
            v,
            json!({"jsonrpc":"2.0","id":0,"result":{"decision":"accept"}})
        );
        let v: Value = serde_json::from_str(&decision_line("\"a\"", false)).unwrap();
        assert_eq!(v["id"], "a");
        assert_eq!(v["result"]["decision"], "decline");
        let open = opening("/p", Some("th-1"));
        assert_eq!(open.len(), 3);
        assert!(open[2].contains("thread/resume") && open[2].contains("th-1"));
        let v: Value = serde_json::from_str(&turn_line(7, "th-1", "hi")).unwrap();
        assert_eq!(v["params"]["input"][0]["text"], "hi");
    }
}
