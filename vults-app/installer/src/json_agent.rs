//! Installing into an agent kept in a JSON file: Vults' entries in its `hooks` object, Cursor's
//! `"version"`, and Claude Code's status line (the user's own kept to be chained and given back).

use super::agents::{Target, wanted_entries};
use super::entries::{self, Shape};
use super::jsonfile;
use super::report::{Action, AgentState};
use super::run::{Op, Run};
use super::state::InstallState;
use serde_json::{Map, Value, json};
use std::fs;
use std::path::Path;

impl Run<'_> {
    pub(super) fn json_agent(
        &mut self,
        t: &Target,
        shape: Shape,
        version: bool,
        op: Op,
    ) -> Result<(AgentState, Action), AgentState> {
        let loaded = jsonfile::load(&t.file).map_err(|e| load_error(&t.file, e))?;
        let current = loaded.value.clone();
        let has_ours = entries::contains_ours(
            current.get("hooks").unwrap_or(&Value::Null),
            shape,
            &self.hook_path,
        ) || (t.agent.keeps_status_line() && self.statusline_is_ours(&current));
        let created = self.created_for(&t.file);
        let want = if op == Op::Uninstall || t.agent.retired() {
            Vec::new()
        } else {
            wanted_entries(t.agent, t.format, &self.hook_word, &self.hook_path)
        };
        let mut next = current.clone();
        let mut scratch_state = self.state.clone();
        let mut made = Vec::new();
        {
            let root = next
                .as_object_mut()
                .ok_or_else(|| AgentState::Failed("not a JSON object".into()))?;
            // Cursor's file starts with `"version": 1`; put it first in a file Vults starts.
            if version
                && !want.is_empty()
                && !root.contains_key("version")
                && !root.contains_key("hooks")
            {
                root.insert("version".into(), json!(1));
                made.push("version".into());
            }
            let edit = entries::apply(
                root,
                "hooks",
                &want,
                shape,
                &self.hook_path,
                created.as_deref(),
            )
            .map_err(|e| {
                AgentState::Failed(format!("{}: {e}; left untouched", t.file.display()))
            })?;
            made.extend(edit.created);
            if version
                && want.is_empty()
                && !root.contains_key("hooks")
                && created
                    .as_ref()
                    .is_some_and(|c| c.iter().any(|x| x == "version"))
            {
                root.remove("version");
            }
            if t.agent.keeps_status_line() {
                let cmd = statusline_command(&self.hook_word);
                if want.is_empty() {
                    statusline_uninstall(root, &mut scratch_state, &self.hook_path);
                } else {
                    statusline_install(root, &mut scratch_state, &cmd, &self.hook_path);
                }
            }
        }
        if t.agent.retired() && op == Op::Check {
            let state = if has_ours {
                AgentState::Leftover
            } else {
                AgentState::NotFound
            };
            return Ok((state, Action::Nothing));
        }
        if op == Op::Check {
            return Ok((self.state_of(next == current, has_ours), Action::Nothing));
        }
        if op == Op::Uninstall {
            let made = created.unwrap_or_default();
            let back_to_nothing = next.as_object().is_some_and(Map::is_empty) && has_ours;
            let result = if back_to_nothing && made.iter().any(|c| c == "file") {
                fs::remove_file(&t.file)
            } else if back_to_nothing && made.iter().any(|c| c == "empty") {
                jsonfile::write_verified(&t.file, None, b"", None)
            } else if next != current {
                // When the result is exactly what the .bak holds, its own bytes come back
                // (the user's formatting too); otherwise the file is written in its style.
                let bytes = match jsonfile::backup_matching(&t.file, &next) {
                    Some(original) => Ok(original),
                    None => jsonfile::render_keeping(loaded.bytes.as_deref(), &next, &loaded.style),
                };
                bytes.and_then(|bytes| {
                    jsonfile::write_verified(&t.file, loaded.bytes.as_deref(), &bytes, Some(&next))
                })
            } else {
                Ok(())
            };
            result.map_err(|e| write_failed(&t.file, &e))?;
            self.state = scratch_state;
            self.forget_created(&t.file);
            let action = if has_ours {
                Action::Removed
            } else {
                Action::Nothing
            };
            return Ok((AgentState::Missing, action));
        }
        if next == current {
            self.state = scratch_state;
            return Ok((self.state_of(true, has_ours), Action::Nothing));
        }
        // Every key Vults does not change keeps its bytes (jsonfile::render_keeping).
        let bytes = jsonfile::render_keeping(loaded.bytes.as_deref(), &next, &loaded.style)
            .map_err(|e| AgentState::Failed(e.to_string()))?;
        if !loaded.existed() {
            made.push("file".into());
        } else if loaded.was_empty() {
            made.push("empty".into());
        }
        // Write-ahead: what uninstall needs (the user's status line, what Vults creates) is
        // saved before the settings file changes, so a crash in between loses nothing.
        self.state = scratch_state;
        self.record_created(&t.file, made);
        self.state
            .save(self.paths)
            .map_err(|e| AgentState::Failed(format!("cannot save install state: {e}")))?;
        // A file that was empty or absent has no user content to back up.
        let original = loaded.bytes.as_deref().filter(|_| !loaded.was_empty());
        jsonfile::write_verified(&t.file, original, &bytes, Some(&next))
            .map_err(|e| write_failed(&t.file, &e))?;
        Ok(self.written(has_ours))
    }

    fn statusline_is_ours(&self, doc: &Value) -> bool {
        doc.get("statusLine")
            .is_some_and(|s| entries::is_ours_handler(s, &self.hook_path))
    }
}

/// A settings file that could not be replaced: which one, why, and that it is unchanged (the
/// write is atomic). On Windows "access denied" or a sharing violation mostly means another
/// program (an editor) holds the file open without letting others replace it.
fn write_failed(path: &Path, e: &std::io::Error) -> AgentState {
    let held = if cfg!(windows) && matches!(e.raw_os_error(), Some(5 | 32 | 33)) {
        "; another program may hold it open: close it, then Repair"
    } else {
        ""
    };
    AgentState::Failed(format!(
        "cannot write {}: {e}{held}; the file is unchanged",
        path.display()
    ))
}

fn statusline_command(hook: &str) -> String {
    format!("{hook} --agent claude --statusline")
}

/// Claude Code's `statusLine` becomes Vults' (the user's own is saved, and chained by the hook).
fn statusline_install(
    root: &mut Map<String, Value>,
    state: &mut InstallState,
    cmd: &str,
    hook: &str,
) {
    let current = root.get("statusLine").cloned();
    let mut ours = match &current {
        Some(Value::Object(o)) => Value::Object(o.clone()),
        _ => json!({}),
    };
    if let Some(user) = current.filter(|s| !entries::is_ours_handler(s, hook)) {
        state.claude.insert("statusLine".into(), user);
    }
    ours["type"] = json!("command");
    ours["command"] = json!(cmd);
    match root.get_mut("statusLine") {
        Some(slot) => *slot = ours,
        None => {
            root.insert("statusLine".into(), ours);
        }
    }
}

fn statusline_uninstall(root: &mut Map<String, Value>, state: &mut InstallState, hook: &str) {
    let ours = root
        .get("statusLine")
        .is_some_and(|s| entries::is_ours_handler(s, hook));
    if !ours {
        return;
    }
    match state.claude.remove("statusLine") {
        Some(user) => {
            if let Some(slot) = root.get_mut("statusLine") {
                *slot = user;
            }
        }
        None => {
            root.remove("statusLine");
        }
    }
}

fn load_error(path: &Path, e: jsonfile::LoadError) -> AgentState {
    match e {
        jsonfile::LoadError::Unparsable {
            line,
            column,
            message,
        } => AgentState::Unparsable {
            path: path.to_path_buf(),
            line,
            column,
            message,
        },
        jsonfile::LoadError::Unexpected(why) => {
            AgentState::Failed(format!("{}: {why}; left untouched", path.display()))
        }
        jsonfile::LoadError::Io(why) => AgentState::Failed(why),
    }
}
