//! What a card shows besides the tool call, read once when the card is made: the agent's own
//! words about the call, every edit of a MultiEdit, and the files the call changes as they are
//! now (so the card can show a numbered diff). The window never does I/O; this is the one read.

use crate::messages::{CardContext, EditPair, MAX_BEFORE};
use serde_json::Value;
use std::io::Read;
use std::path::Path;
use vults_core::agents::{self, ToolCall, ToolKind};

/// The most files of one patch read for line numbers.
const MAX_FILES: usize = 16;

/// The context of a request: `folder` resolves relative paths (Codex patches name files
/// relative to its working folder). `None`: the call was made on an SSH host, whose files are
/// not on this machine, so none is read (the card shows the call and the agent's words).
pub fn read(payload: &Value, call: &ToolCall, folder: Option<&str>) -> CardContext {
    let input = agents::tool_input(payload).unwrap_or(Value::Null);
    let said = ["description", "justification"]
        .iter()
        .filter(|_| call.kind != ToolKind::Question)
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    let edits = if call.kind == ToolKind::Edit {
        edits_of(&input)
    } else {
        Vec::new()
    };
    let (mut before, mut missing) = (Vec::new(), Vec::new());
    if let Some(folder) = folder {
        for p in crate::diff::paths_to_read(call).into_iter().take(MAX_FILES) {
            let path = Path::new(call.cwd.as_deref().unwrap_or(folder)).join(&p);
            match read_bounded(&path) {
                Some(text) => before.push((p, text)),
                // Only "not there" makes a write a new file; any other failure is unknown.
                None if std::fs::symlink_metadata(&path)
                    .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) =>
                {
                    missing.push(p)
                }
                None => {}
            }
        }
    }
    CardContext {
        said,
        edits,
        before,
        missing,
        // Which agent asks is the core's to say (Core::on_request).
        plan: None,
    }
}

/// An Edit's one replacement, or a MultiEdit's `edits`, in any agent's field names.
fn edits_of(input: &Value) -> Vec<EditPair> {
    let pair = |v: &Value| {
        let s = |keys: &[&str]| keys.iter().find_map(|k| v.get(*k).and_then(Value::as_str));
        Some(EditPair {
            old: s(&["old_string", "oldString", "old_str"])?.to_string(),
            new: s(&["new_string", "newString", "new_str"])?.to_string(),
            replace_all: ["replace_all", "replaceAll"]
                .iter()
                .any(|k| v.get(*k).and_then(Value::as_bool) == Some(true)),
        })
    };
    match input.get("edits").and_then(Value::as_array) {
        Some(edits) => edits.iter().map(pair).collect::<Option<Vec<_>>>(),
        None => pair(input).map(|p| vec![p]),
    }
    .unwrap_or_default()
}

/// A regular file's text when it is UTF-8 and at most [`MAX_BEFORE`] bytes; anything else
/// (missing, a FIFO or device, too big, binary) is `None` and the card shows no line numbers.
fn read_bounded(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_BEFORE {
        return None;
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_BEFORE + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    if bytes.len() as u64 > MAX_BEFORE {
        return None;
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn context_of(payload: Value, folder: &str) -> CardContext {
        let call = agents::read_tool_call(&payload);
        read(&payload, &call, Some(folder))
    }

    #[test]
    fn the_agents_own_words_come_from_description_or_justification() {
        let c = context_of(
            json!({"tool_name":"Bash","tool_input":{"command":"make && make push","description":"Run tests then push"}}),
            "/p",
        );
        assert_eq!(c.said.as_deref(), Some("Run tests then push"));
        let c = context_of(
            json!({"tool_name":"exec_command","tool_input":{"cmd":"ls","justification":"look around"}}),
            "/p",
        );
        assert_eq!(c.said.as_deref(), Some("look around"));
        let c = context_of(
            json!({"tool_name":"Bash","tool_input":{"command":"ls","description":"  "}}),
            "/p",
        );
        assert_eq!(c.said, None);
    }

    #[test]
    fn edits_and_the_file_now_are_read_for_each_agents_field_names() {
        let dir = std::env::temp_dir().join(format!("vults-ctx-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.rs");
        std::fs::write(&file, "fn a() {}\n").unwrap();
        let path = file.to_string_lossy().to_string();
        for input in [
            json!({"file_path": path, "old_string": "a", "new_string": "b", "replace_all": true}),
            json!({"filePath": path, "oldString": "a", "newString": "b", "replaceAll": true}),
            json!({"path": path, "old_str": "a", "new_str": "b", "replace_all": true}),
        ] {
            let c = context_of(json!({"tool_name":"edit","tool_input": input}), "/p");
            assert_eq!(
                c.edits,
                vec![EditPair {
                    old: "a".into(),
                    new: "b".into(),
                    replace_all: true
                }],
                "{input}"
            );
            assert_eq!(c.before(&path), Some("fn a() {}\n"));
        }
        let c = context_of(
            json!({"tool_name":"MultiEdit","tool_input":{"file_path": path, "edits":[
                {"old_string":"a","new_string":"b"},{"old_string":"{}","new_string":"{ }"}]}}),
            "/p",
        );
        assert_eq!(c.edits.len(), 2);
        // A patch names files relative to the agent's folder.
        let patch = "*** Begin Patch\n*** Update File: a.rs\n-fn a() {}\n+fn b() {}\n*** End Patch";
        let c = context_of(
            json!({"tool_name":"apply_patch","tool_input":{"command": patch}}),
            &dir.to_string_lossy(),
        );
        assert_eq!(c.before("a.rs"), Some("fn a() {}\n"));
        // A write of a file that is not there is a new file; of one that is, not.
        let new_file = dir.join("new.md").to_string_lossy().to_string();
        let c = context_of(
            json!({"tool_name":"Write","tool_input":{"file_path": new_file, "content": "x"}}),
            "/p",
        );
        assert!(c.is_missing(&new_file) && c.before.is_empty());
        // Too big, not a file, or not UTF-8: not read, and not missing either.
        std::fs::write(&file, vec![b'x'; MAX_BEFORE as usize + 1]).unwrap();
        let c = context_of(
            json!({"tool_name":"Write","tool_input":{"file_path": path, "content": "x"}}),
            "/p",
        );
        assert!(!c.is_missing(&path) && c.before.is_empty());
        assert_eq!(read_bounded(&file), None);
        std::fs::write(&file, [0xff, 0xfe]).unwrap();
        assert_eq!(read_bounded(&file), None);
        assert_eq!(read_bounded(&dir), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
