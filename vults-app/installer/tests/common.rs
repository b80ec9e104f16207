//! Temp homes, the corpus, and reading settings files as ordered JSON.

use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use vults_core::paths::Paths;

/// A `VULTS_HOME` of its own (config, data, and the agents' home under `home/`), removed on drop.
pub struct TempHome {
    /// The workspace's one temp-folder helper, which removes it when dropped.
    home: vults_tests::TempHome,
    pub root: PathBuf,
}

impl TempHome {
    pub fn new(name: &str) -> TempHome {
        let home = vults_tests::TempHome::new(&format!("inst-{name}"));
        let root = home.dir.clone();
        TempHome { home, root }
    }

    pub fn paths(&self) -> Paths {
        self.home.paths()
    }

    pub fn home(&self) -> PathBuf {
        self.home.home()
    }

    /// A stand-in for the `vults-hook` binary (the installer only copies and hashes it).
    pub fn hook_source(&self, version: &str) -> PathBuf {
        let p = self.root.join(format!("build-{version}/vults-hook"));
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, format!("#!/bin/sh\n# vults-hook {version}\nexit 0\n")).unwrap();
        p
    }

    /// Runs the real `vults-app` binary in this home, away from any real home.
    pub fn cli(&self, args: &[&str]) -> Output {
        self.cli_command(args).output().unwrap()
    }

    pub fn cli_command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(vults_tests::built_app_bin());
        c.args(args)
            .env("VULTS_HOME", &self.root)
            .env("HOME", self.home())
            .env("VULTS_SOCKET", self.root.join("no.sock"))
            .env_remove("VULTS_AGENT_HOME")
            .env_remove("COPILOT_HOME")
            .env_remove("CODEX_HOME")
            .env_remove("KIMI_CODE_HOME")
            .env_remove("XDG_CONFIG_HOME");
        c
    }
}

pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// Where a corpus folder's files go in an agent home.
pub fn location(kind: &str) -> &'static str {
    match kind {
        "claude" => ".claude/settings.json",
        "codex" => ".codex/hooks.json",
        "codex-toml" => ".codex/config.toml",
        "copilot" => ".copilot/settings.json",
        "qwen" => ".qwen/settings.json",
        "cursor" => ".cursor/hooks.json",
        "droid" => ".factory/settings.json",
        "kimi" => ".kimi-code/config.toml",
        other => panic!("corpus folder {other} has no agent"),
    }
}

/// Every corpus file: (agent folder, file).
pub fn corpus() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for dir in fs::read_dir(corpus_dir()).unwrap() {
        let dir = dir.unwrap().path();
        let kind = dir.file_name().unwrap().to_string_lossy().into_owned();
        for f in fs::read_dir(&dir).unwrap() {
            out.push((kind.clone(), f.unwrap().path()));
        }
    }
    out.sort();
    out
}

/// A settings file (JSON or TOML) as JSON with its key order; `{}` for an empty file.
pub fn read_doc(path: &Path) -> Result<Value, String> {
    let bytes = fs::read(path).map_err(|e| e.to_string())?;
    let text = String::from_utf8(bytes).map_err(|e| e.to_string())?;
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    if path.extension().is_some_and(|e| e == "toml") {
        let doc: toml_edit::DocumentMut = text.parse().map_err(|e| format!("{e}"))?;
        Ok(table_to_json(doc.as_table()))
    } else {
        serde_json::from_str(&text).map_err(|e| e.to_string())
    }
}

fn table_to_json(t: &toml_edit::Table) -> Value {
    Value::Object(
        t.iter()
            .map(|(k, v)| (k.to_string(), item_to_json(v)))
            .collect(),
    )
}

fn item_to_json(i: &toml_edit::Item) -> Value {
    match i {
        toml_edit::Item::None => Value::Null,
        toml_edit::Item::Value(v) => value_to_json(v),
        toml_edit::Item::Table(t) => table_to_json(t),
        toml_edit::Item::ArrayOfTables(a) => Value::Array(a.iter().map(table_to_json).collect()),
    }
}

fn value_to_json(v: &toml_edit::Value) -> Value {
    use toml_edit::Value as V;
    match v {
        V::String(s) => Value::from(s.value().as_str()),
        V::Integer(i) => Value::from(*i.value()),
        V::Float(f) => Value::from(*f.value()),
        V::Boolean(b) => Value::from(*b.value()),
        V::Datetime(d) => Value::from(d.value().to_string()),
        V::Array(a) => Value::Array(a.iter().map(value_to_json).collect()),
        V::InlineTable(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_string(), value_to_json(v)))
                .collect(),
        ),
    }
}

/// JSON text that differs when the order of keys differs (Value's own `==` ignores order).
pub fn ordered(v: &Value) -> String {
    serde_json::to_string(v).unwrap()
}

/// Whether some handler in `doc` runs the installed hook by its absolute path with
/// `--agent <agent>`, in the form this platform's runner for that agent takes: `<hook> --agent …`
/// in a `command` (or Copilot's `bash`), and on Windows also the exec form (`command` = the hook,
/// `args` = `--agent …`) and PowerShell's `& '<hook>' --agent …` (docs/platforms.md).
pub fn runs_installed_hook(doc: &Value, hook: &Path, agent: &str) -> bool {
    let hook = hook.to_string_lossy();
    let forms = [
        format!("{hook} --agent {agent}"),
        format!("& '{}' --agent {agent}", hook.replace('\'', "''")),
    ];
    let handler = |m: &Map<String, Value>| {
        let args: Vec<&str> = m
            .get("args")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        ["command", "bash", "powershell"].iter().any(|k| {
            m.get(*k).and_then(Value::as_str).is_some_and(|c| {
                forms.iter().any(|f| c.contains(f.as_str()))
                    || (c == hook && args.starts_with(&["--agent", agent]))
            })
        })
    };
    fn walk(v: &Value, found: &dyn Fn(&Map<String, Value>) -> bool) -> bool {
        match v {
            Value::Object(m) => found(m) || m.values().any(|v| walk(v, found)),
            Value::Array(a) => a.iter().any(|v| walk(v, found)),
            _ => false,
        }
    }
    walk(doc, &handler)
}

/// Whether a hook entry, group or handler runs Vults' hook.
pub fn is_vults(v: &Value) -> bool {
    ordered(v).contains("vults-hook")
}

/// Every file under `dir`, by relative path, with its bytes (symlinks read through).
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(bytes) = fs::read(&p) {
                out.insert(p.strip_prefix(dir).unwrap().to_path_buf(), bytes);
            }
        }
    }
    out
}

/// Checks that `now` still holds everything of `orig`, in order: every key at its relative
/// place with its value, and in `hooks` every other tool's entry where it was.
pub fn kept_in_order(orig: &Value, now: &Value, at: &str) -> Result<(), String> {
    match (orig, now) {
        (Value::Object(o), Value::Object(n)) => {
            let order: Vec<&String> = n.keys().filter(|k| o.contains_key(*k)).collect();
            let want: Vec<&String> = o.keys().collect();
            if order != want {
                return Err(format!("{at}: key order {want:?} became {order:?}"));
            }
            for (k, v) in o {
                let path = format!("{at}/{k}");
                match (k.as_str(), v) {
                    // Vults' own status line replaces the user's (checked by the caller).
                    ("statusLine", _) if at.is_empty() => {}
                    ("hooks", _) if at.is_empty() => kept_in_order(v, &n[k], &path)?,
                    (_, Value::Array(list)) if at.starts_with("/hooks") => {
                        let others: Vec<Value> = n[k]
                            .as_array()
                            .ok_or(format!("{path} is no longer a list"))?
                            .iter()
                            .filter(|e| !is_vults(e))
                            .cloned()
                            .collect();
                        if ordered(&Value::Array(others.clone()))
                            != ordered(&Value::Array(list.clone()))
                        {
                            return Err(format!(
                                "{path}: other entries changed: {list:?} -> {others:?}"
                            ));
                        }
                    }
                    _ => {
                        if ordered(v) != ordered(&n[k]) {
                            return Err(format!("{path}: {v} became {}", n[k]));
                        }
                    }
                }
            }
            Ok(())
        }
        (Value::Array(list), Value::Array(now)) => {
            // Kimi's [[hooks]] list at the top.
            let others: Vec<&Value> = now.iter().filter(|e| !is_vults(e)).collect();
            let list: Vec<&Value> = list.iter().collect();
            if others != list {
                return Err(format!("{at}: other entries changed"));
            }
            Ok(())
        }
        _ => Err(format!("{at}: shape changed")),
    }
}
