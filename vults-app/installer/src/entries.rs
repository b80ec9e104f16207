//! Vults' own entries inside an agent's `hooks` object, and nothing else.
//!
//! Two shapes exist: Claude-style groups (`{"matcher":…,"hooks":[{"type":"command",…}]}`:
//! Claude Code, Codex, Qwen Code, Factory Droid, Gemini CLI) and flat entries (`{"bash":…}` or
//! `{"command":…}`: Copilot CLI, Cursor). An entry is Vults' when its command runs
//! `vults-hook` (or the installed copy's path). Vults' entries of an event are replaced where
//! the first of them stood, so other tools' hooks keep their places and a second run finds
//! nothing to change; an entry another tool's group shares with Vults loses only Vults' handler.

use serde_json::{Map, Value};

/// How a JSON file's `hooks` object holds entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Each event maps to groups `{matcher?, hooks: [handler]}` (Claude Code and most agents).
    Grouped,
    /// Each event maps straight to handlers (Copilot CLI, Cursor).
    Flat,
}

/// The keys a handler keeps its command line under.
const COMMAND_KEYS: [&str; 3] = ["command", "bash", "powershell"];

/// Whether a single handler (or flat entry) runs Vults' hook.
pub fn is_ours_handler(handler: &Value, hook_path: &str) -> bool {
    COMMAND_KEYS.iter().any(|k| {
        handler.get(*k).and_then(Value::as_str).is_some_and(|c| {
            c.contains("vults-hook") || (!hook_path.is_empty() && c.contains(hook_path))
        })
    })
}

/// Whether any Vults entry is in this `hooks` object.
pub fn contains_ours(events: &Value, shape: Shape, hook_path: &str) -> bool {
    let Some(events) = events.as_object() else {
        return false;
    };
    events
        .values()
        .filter_map(Value::as_array)
        .flatten()
        .any(|e| match shape {
            Shape::Flat => is_ours_handler(e, hook_path),
            Shape::Grouped => e
                .get("hooks")
                .and_then(Value::as_array)
                .is_some_and(|hs| hs.iter().any(|h| is_ours_handler(h, hook_path))),
        })
}

/// What one pass over a `hooks` object did.
#[derive(Debug, Default)]
pub struct Edit {
    /// Key paths Vults created (`hooks`, `hooks/<Event>`).
    pub created: Vec<String>,
    /// Some entry of Vults' was taken out.
    pub removed_any: bool,
}

/// Why an agent's hooks could not be edited: its settings hold something else where the hooks go.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntriesError {
    /// The hooks' key holds something other than an object.
    #[error("\"{0}\" is not an object")]
    NotAnObject(String),
    /// An event's entries are not a list.
    #[error("\"{key}\".\"{event}\" is not a list")]
    NotAList {
        /// The hooks' key.
        key: String,
        /// The event.
        event: String,
    },
}

/// Puts exactly `wanted` (event → entries, in order) as Vults' entries into `root[key]`, and
/// takes Vults' entries out of every other event. `wanted` empty = uninstall.
///
/// `created`: what an earlier install recorded as Vults-made in this file; a container Vults
/// emptied is removed when it is listed there, or when nothing was recorded at all.
pub fn apply(
    root: &mut Map<String, Value>,
    key: &str,
    wanted: &[(String, Vec<Value>)],
    shape: Shape,
    hook_path: &str,
    created: Option<&[String]>,
) -> Result<Edit, EntriesError> {
    let mut edit = Edit::default();
    let may_remove = |k: &str| created.is_none_or(|c| c.iter().any(|x| x == k));
    if !root.contains_key(key) {
        if wanted.is_empty() {
            return Ok(edit);
        }
        root.insert(key.to_string(), Value::Object(Map::new()));
        edit.created.push(key.to_string());
    }
    let Some(events) = root.get_mut(key).and_then(Value::as_object_mut) else {
        return Err(EntriesError::NotAnObject(key.to_string()));
    };
    for (event, list) in events.iter() {
        if !list.is_array() && wanted.iter().any(|(e, _)| e == event) {
            return Err(EntriesError::NotAList {
                key: key.to_string(),
                event: event.clone(),
            });
        }
    }
    let existing: Vec<String> = events.keys().cloned().collect();
    for event in existing {
        if wanted.iter().any(|(e, _)| *e == event) {
            continue;
        }
        let Some(list) = events.get_mut(&event).and_then(Value::as_array_mut) else {
            continue;
        };
        if place(list, &[], shape, hook_path) {
            edit.removed_any = true;
            if list.is_empty() && may_remove(&format!("{key}/{event}")) {
                events.remove(&event);
            }
        }
    }
    for (event, entries) in wanted {
        if !events.contains_key(event) {
            events.insert(event.clone(), Value::Array(Vec::new()));
            edit.created.push(format!("{key}/{event}"));
        }
        if let Some(list) = events.get_mut(event).and_then(Value::as_array_mut) {
            place(list, entries, shape, hook_path);
        }
    }
    if wanted.is_empty() && events.is_empty() && edit.removed_any && may_remove(key) {
        root.remove(key);
    }
    Ok(edit)
}

/// Replaces Vults' entries of one event list by `wanted`, at the first one's place (at the end
/// when there was none). Returns whether any Vults entry or handler was there.
pub fn place(list: &mut Vec<Value>, wanted: &[Value], shape: Shape, hook_path: &str) -> bool {
    let mut found = false;
    let mut at = None;
    let mut kept = Vec::with_capacity(list.len() + wanted.len());
    for mut entry in std::mem::take(list) {
        let pure = match shape {
            Shape::Flat => is_ours_handler(&entry, hook_path),
            Shape::Grouped => match entry.get_mut("hooks").and_then(Value::as_array_mut) {
                Some(hs) if hs.iter().any(|h| is_ours_handler(h, hook_path)) => {
                    found = true;
                    if hs.iter().all(|h| is_ours_handler(h, hook_path)) {
                        true
                    } else {
                        // Someone else's group holding a Vults handler: take only ours out.
                        hs.retain(|h| !is_ours_handler(h, hook_path));
                        false
                    }
                }
                _ => false,
            },
        };
        if pure {
            found = true;
            at.get_or_insert(kept.len());
        } else {
            kept.push(entry);
        }
    }
    let at = at.unwrap_or(kept.len());
    kept.splice(at..at, wanted.iter().cloned());
    *list = kept;
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const HOOK: &str = "/v/bin/vults-hook";

    fn ours(event: &str) -> Value {
        json!({"hooks":[{"type":"command","command":format!("{HOOK} --agent claude {event}"),"timeout":10}]})
    }

    #[test]
    fn replaces_in_place_and_keeps_others() {
        let mut root = json!({"hooks":{"Stop":[
            {"hooks":[{"type":"command","command":"rtk stop"}]},
            {"hooks":[{"type":"command","command":"/old/vults-hook --agent claude Stop"}]},
            {"hooks":[{"type":"command","command":"prettier"}]}
        ]}});
        let wanted = vec![("Stop".to_string(), vec![ours("Stop")])];
        let map = root.as_object_mut().unwrap();
        apply(map, "hooks", &wanted, Shape::Grouped, HOOK, None).unwrap();
        let stop = &root["hooks"]["Stop"];
        assert_eq!(stop[0]["hooks"][0]["command"], "rtk stop");
        assert_eq!(stop[1], ours("Stop"));
        assert_eq!(stop[2]["hooks"][0]["command"], "prettier");
    }

    #[test]
    fn uninstall_takes_only_our_handler_out_of_a_shared_group() {
        let mut root = json!({"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[
            {"type":"command","command":"rtk rewrite"},
            {"type":"command","command":"vults-hook --agent claude PreToolUse"}]}]}});
        apply(
            root.as_object_mut().unwrap(),
            "hooks",
            &[],
            Shape::Grouped,
            HOOK,
            None,
        )
        .unwrap();
        assert_eq!(
            root,
            json!({"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"rtk rewrite"}]}]}})
        );
    }

    #[test]
    fn containers_the_user_made_stay_when_recorded_otherwise() {
        let mut root = json!({"hooks":{"Stop":[]}});
        let wanted = vec![("Stop".to_string(), vec![ours("Stop")])];
        let edit = apply(
            root.as_object_mut().unwrap(),
            "hooks",
            &wanted,
            Shape::Grouped,
            HOOK,
            None,
        )
        .unwrap();
        assert!(edit.created.is_empty());
        apply(
            root.as_object_mut().unwrap(),
            "hooks",
            &[],
            Shape::Grouped,
            HOOK,
            Some(&edit.created),
        )
        .unwrap();
        assert_eq!(root, json!({"hooks":{"Stop":[]}}));
    }
}
