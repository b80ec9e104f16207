//! Hooks kept in TOML: Codex's `[hooks]` in `config.toml` (`[[hooks.PreToolUse]]` groups, the
//! same shape as its hooks.json) and Kimi Code's `[[hooks]]` list. Edited with `toml_edit`, so
//! comments, order and formatting of everything Vults does not own stay as they were; only an
//! event list whose Vults entries change is rewritten. Codex's trust records
//! (`[hooks.state."…"]`) are never written or touched.

use super::agents::{Target, command, wanted_entries, wants};
use super::entries::{self, Shape};
use super::jsonfile;
use super::report::{Action, AgentState};
use super::run::{Op, Run};
use serde_json::{Map, Value, json};
use std::fs;
use std::path::Path;
use toml_edit::{ArrayOfTables, DocumentMut, Item, Table};
use vults_core::agents::Format;

/// Whether `config.toml` keeps hook event lists under `[hooks]`. A file that does not parse
/// counts as keeping them: Codex cannot start with it either, and its error is then reported.
pub fn codex_has_hooks(path: &Path) -> bool {
    let Ok(text) = fs::read_to_string(path) else {
        return false;
    };
    let Ok(doc) = text.parse::<DocumentMut>() else {
        return true;
    };
    doc.get("hooks")
        .and_then(Item::as_table_like)
        .is_some_and(|t| t.iter().any(|(k, v)| k != "state" && is_list(v)))
}

fn is_list(item: &Item) -> bool {
    item.is_array_of_tables() || item.as_array().is_some()
}

struct LoadedToml {
    text: Option<String>,
    doc: DocumentMut,
}

fn load(path: &Path) -> Result<LoadedToml, AgentState> {
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(LoadedToml {
                text: None,
                doc: DocumentMut::new(),
            });
        }
        Err(e) => {
            return Err(AgentState::Failed(format!(
                "cannot read {}: {e}",
                path.display()
            )));
        }
    };
    match text.parse::<DocumentMut>() {
        Ok(doc) => Ok(LoadedToml {
            text: Some(text),
            doc,
        }),
        Err(e) => {
            let (line, column) = e
                .span()
                .map(|s| line_column(&text, s.start))
                .unwrap_or((1, 1));
            Err(AgentState::Unparsable {
                path: path.to_path_buf(),
                line,
                column,
                message: e.message().trim().to_string(),
            })
        }
    }
}

fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

fn item_to_json(item: &Item) -> Value {
    match item {
        Item::None => Value::Null,
        Item::Value(v) => value_to_json(v),
        Item::Table(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_string(), item_to_json(v)))
                .collect(),
        ),
        Item::ArrayOfTables(a) => Value::Array(
            a.iter()
                .map(|t| {
                    Value::Object(
                        t.iter()
                            .map(|(k, v)| (k.to_string(), item_to_json(v)))
                            .collect(),
                    )
                })
                .collect(),
        ),
    }
}

fn value_to_json(v: &toml_edit::Value) -> Value {
    use toml_edit::Value as V;
    match v {
        V::String(s) => json!(s.value()),
        V::Integer(i) => json!(i.value()),
        V::Float(f) => json!(f.value()),
        V::Boolean(b) => json!(b.value()),
        V::Datetime(d) => json!(d.value().to_string()),
        V::Array(a) => Value::Array(a.iter().map(value_to_json).collect()),
        V::InlineTable(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_string(), value_to_json(v)))
                .collect(),
        ),
    }
}

fn json_to_value(v: &Value) -> toml_edit::Value {
    match v {
        Value::String(s) => s.as_str().into(),
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.into(),
            None => n.as_f64().unwrap_or_default().into(),
        },
        Value::Array(a) => toml_edit::Value::Array(a.iter().map(json_to_value).collect()),
        Value::Object(o) => {
            let mut t = toml_edit::InlineTable::new();
            for (k, v) in o {
                t.insert(k, json_to_value(v));
            }
            toml_edit::Value::InlineTable(t)
        }
        // TOML has no null; nothing Vults writes holds one.
        Value::Null => "".into(),
    }
}

/// A JSON object as a TOML table whose lists of objects become `[[…]]` sub-tables.
fn json_to_table(o: &Map<String, Value>) -> Table {
    let mut t = Table::new();
    for (k, v) in o {
        match v {
            Value::Array(a) if !a.is_empty() && a.iter().all(Value::is_object) => {
                t.insert(k, Item::ArrayOfTables(json_to_aot(a)));
            }
            _ => {
                t.insert(k, Item::Value(json_to_value(v)));
            }
        }
    }
    t
}

/// An event's `[[…]]` list with Vults' tables replaced by `wanted` where the first of them
/// stood: every other table is kept as it was written (its comments, quoting and layout),
/// and a table another tool shares with a Vults handler loses only that handler. Mirrors
/// [`entries::place`], which computes the same list as JSON.
fn rebuild(old: Option<&Item>, wanted: &[Value], shape: Shape, hook_path: &str) -> ArrayOfTables {
    let tables: Vec<Table> = match old {
        Some(Item::ArrayOfTables(a)) => a.iter().cloned().collect(),
        Some(other) => item_to_json(other)
            .as_array()
            .map(|l| {
                l.iter()
                    .filter_map(Value::as_object)
                    .map(json_to_table)
                    .collect()
            })
            .unwrap_or_default(),
        None => Vec::new(),
    };
    let mut out = ArrayOfTables::new();
    let mut placed = false;
    for table in tables {
        let mut json = item_to_json(&Item::Table(table.clone()));
        let (pure, mixed) = match shape {
            Shape::Flat => (entries::is_ours_handler(&json, hook_path), false),
            Shape::Grouped => {
                let handlers = json.get("hooks").and_then(Value::as_array);
                let ours = handlers.map_or(0, |hs| {
                    hs.iter()
                        .filter(|h| entries::is_ours_handler(h, hook_path))
                        .count()
                });
                let all = handlers.map_or(0, Vec::len);
                (ours > 0 && ours == all, ours > 0 && ours < all)
            }
        };
        if pure {
            if !placed {
                wanted
                    .iter()
                    .filter_map(Value::as_object)
                    .for_each(|w| out.push(json_to_table(w)));
                placed = true;
            }
        } else if mixed {
            if let Some(hs) = json.get_mut("hooks").and_then(Value::as_array_mut) {
                hs.retain(|h| !entries::is_ours_handler(h, hook_path));
            }
            if let Some(o) = json.as_object() {
                out.push(json_to_table(o));
            }
        } else {
            out.push(table);
        }
    }
    if !placed {
        wanted
            .iter()
            .filter_map(Value::as_object)
            .for_each(|w| out.push(json_to_table(w)));
    }
    out
}

fn json_to_aot(list: &[Value]) -> ArrayOfTables {
    let mut aot = ArrayOfTables::new();
    for v in list {
        if let Some(o) = v.as_object() {
            aot.push(json_to_table(o));
        }
    }
    aot
}

/// Writes the edited document. On uninstall, a file Vults created and left with nothing in it
/// is deleted instead; on a first install, `file` is recorded when Vults created it.
fn write(
    run: &mut Run,
    path: &Path,
    loaded: &LoadedToml,
    doc: &DocumentMut,
    op: Op,
) -> Result<(), AgentState> {
    let text = doc.to_string();
    let made_file = run
        .created_for(path)
        .is_some_and(|c| c.iter().any(|x| x == "file"));
    if op != Op::Uninstall && loaded.text.is_none() {
        // Write-ahead, as for JSON files: the record exists before the file does.
        run.record_created(path, vec!["file".into()]);
        run.state
            .save(run.paths)
            .map_err(|e| AgentState::Failed(format!("cannot save install state: {e}")))?;
    }
    let result = if op == Op::Uninstall && made_file && text.trim().is_empty() {
        fs::remove_file(path)
    } else {
        jsonfile::write_verified(
            path,
            loaded.text.as_deref().map(str::as_bytes),
            text.as_bytes(),
            None,
        )
    };
    result.map_err(|e| AgentState::Failed(e.to_string()))?;
    if op == Op::Uninstall {
        run.forget_created(path);
    }
    Ok(())
}

/// Codex `config.toml` `[hooks]`.
pub(super) fn codex(run: &mut Run, t: &Target, op: Op) -> Result<(AgentState, Action), AgentState> {
    let loaded = load(&t.file)?;
    let mut doc = loaded.doc.clone();
    // The event lists as JSON, in file order (`state` and other tables stay out of it).
    let mut events = Map::new();
    if let Some(hooks) = doc.get("hooks").and_then(Item::as_table_like) {
        for (k, v) in hooks.iter() {
            if k != "state" && is_list(v) {
                events.insert(k.to_string(), item_to_json(v));
            }
        }
    }
    let before = events.clone();
    let has_ours = entries::contains_ours(
        &Value::Object(before.clone()),
        Shape::Grouped,
        &run.hook_path,
    );
    let want = if op == Op::Uninstall {
        Vec::new()
    } else {
        wanted_entries(t.agent, Format::JsonGrouped, &run.hook_word, &run.hook_path)
    };
    let created = run.created_for(&t.file);
    let mut root = Map::new();
    root.insert("hooks".into(), Value::Object(events));
    let edit = entries::apply(
        &mut root,
        "hooks",
        &want,
        Shape::Grouped,
        &run.hook_path,
        created.as_deref(),
    )
    .map_err(|e| AgentState::Failed(format!("{}: {e}; left untouched", t.file.display())))?;
    let after = root
        .get("hooks")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    if op == Op::Check {
        return Ok((run.state_of(after == before, has_ours), Action::Nothing));
    }
    if after == before {
        if op == Op::Uninstall {
            run.forget_created(&t.file);
            return Ok((AgentState::Missing, Action::Nothing));
        }
        return Ok((run.state_of(true, has_ours), Action::Nothing));
    }
    if doc.get("hooks").is_none() {
        let mut table = Table::new();
        table.set_implicit(true);
        doc.insert("hooks", Item::Table(table));
    }
    let Some(hooks) = doc.get_mut("hooks").and_then(Item::as_table_like_mut) else {
        return Err(AgentState::Failed(format!(
            "{}: \"hooks\" is not a table; left untouched",
            t.file.display()
        )));
    };
    for (event, list) in &after {
        if before.get(event) != Some(list) {
            let mine = want
                .iter()
                .find(|(e, _)| e == event)
                .map(|(_, w)| w.as_slice())
                .unwrap_or_default();
            let rebuilt = rebuild(hooks.get(event), mine, Shape::Grouped, &run.hook_path);
            hooks.insert(event, Item::ArrayOfTables(rebuilt));
        }
    }
    for event in before.keys() {
        if !after.contains_key(event) {
            hooks.remove(event);
        }
    }
    if hooks.is_empty() && !root.contains_key("hooks") {
        doc.remove("hooks");
    }
    if op != Op::Uninstall {
        run.record_created(&t.file, edit.created);
    }
    write(run, &t.file, &loaded, &doc, op)?;
    if op == Op::Uninstall {
        return Ok((AgentState::Missing, Action::Removed));
    }
    Ok(run.written(has_ours))
}

/// Kimi Code `config.toml`: `[[hooks]]` with exactly `event`, `matcher`, `command`, `timeout`
/// (unknown keys break its config loading, so Vults writes no others).
pub(super) fn kimi(run: &mut Run, t: &Target, op: Op) -> Result<(AgentState, Action), AgentState> {
    let loaded = load(&t.file)?;
    let mut doc = loaded.doc.clone();
    let before: Vec<Value> = match doc.get("hooks") {
        None => Vec::new(),
        Some(item) if is_list(item) => item_to_json(item).as_array().cloned().unwrap_or_default(),
        Some(_) => {
            return Err(AgentState::Failed(format!(
                "{}: \"hooks\" is not a list; left untouched",
                t.file.display()
            )));
        }
    };
    let has_ours = before
        .iter()
        .any(|h| entries::is_ours_handler(h, &run.hook_path));
    let want: Vec<Value> = if op == Op::Uninstall {
        Vec::new()
    } else {
        wants(t.agent)
            .iter()
            .map(|w| {
                json!({"event": w.event, "command": command(&run.hook_word, t.agent, w), "timeout": w.timeout.seconds()})
            })
            .collect()
    };
    let mut after = before.clone();
    entries::place(&mut after, &want, Shape::Flat, &run.hook_path);
    if op == Op::Check {
        return Ok((run.state_of(after == before, has_ours), Action::Nothing));
    }
    if after == before {
        return Ok(if op == Op::Uninstall {
            (AgentState::Missing, Action::Nothing)
        } else {
            (run.state_of(true, has_ours), Action::Nothing)
        });
    }
    if after.is_empty() {
        doc.remove("hooks");
    } else {
        let rebuilt = rebuild(doc.get("hooks"), &want, Shape::Flat, &run.hook_path);
        doc.insert("hooks", Item::ArrayOfTables(rebuilt));
    }
    write(run, &t.file, &loaded, &doc, op)?;
    if op == Op::Uninstall {
        return Ok((AgentState::Missing, Action::Removed));
    }
    Ok(run.written(has_ours))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_errors_point_at_line_and_column() {
        assert_eq!(line_column("a = 1\nb = \n", 10), (2, 5));
    }
}
