//! Every corpus file, installed, installed again, checked, and uninstalled.

use crate::common::{
    TempHome, corpus, is_vults, kept_in_order, location, ordered, read_doc, runs_installed_hook,
    snapshot,
};
use serde_json::Value;
use std::fs;
use std::path::Path;
use vults_installer::{Action, Agent, AgentReport, AgentState, InstallOptions, jsonfile};

fn agent_of(kind: &str) -> Agent {
    match kind {
        "codex-toml" => Agent::Codex,
        "droid" => Agent::Droid,
        other => vults_installer::agent_named(other).unwrap(),
    }
}

fn report(reports: &[AgentReport], agent: Agent) -> Result<&AgentReport, String> {
    reports
        .iter()
        .find(|r| r.agent == agent)
        .ok_or(format!("no report for {agent:?}: {reports:?}"))
}

/// The Vults entry of `event` in a settings document, whichever shape it has.
fn vults_entry<'a>(doc: &'a Value, event: &str) -> Option<&'a Value> {
    let hooks = doc.get("hooks")?;
    if let Some(list) = hooks.as_array() {
        return list.iter().find(|e| e["event"] == event && is_vults(e));
    }
    hooks.get(event)?.as_array()?.iter().find(|e| is_vults(e))
}

/// The timeout of Vults' handler for `event` (any of the shapes).
fn vults_timeout(doc: &Value, event: &str) -> Option<u64> {
    let e = vults_entry(doc, event)?;
    e.get("timeoutSec")
        .or_else(|| e.get("timeout"))
        .or_else(|| e.pointer("/hooks/0/timeout"))
        .and_then(Value::as_u64)
}

fn check_file(kind: &str, source: &Path) -> Result<(), String> {
    let home = TempHome::new("corpus");
    let paths = home.paths();
    let agent = agent_of(kind);
    let file = home.home().join(location(kind));
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::copy(source, &file).unwrap();
    let original_bytes = fs::read(&file).unwrap();
    let hook = home.hook_source("1");
    let opts = InstallOptions::default();
    let name = source.file_name().unwrap().to_string_lossy();

    if name.starts_with("bad-") {
        for reports in [
            vults_installer::install_all(&paths, &hook, &opts),
            vults_installer::doctor(&paths),
            vults_installer::uninstall_all(&paths),
        ] {
            let r = report(&reports, agent)?;
            match &r.state {
                AgentState::Unparsable {
                    path,
                    line,
                    column,
                    message,
                } => {
                    if path != &file || *line == 0 || *column == 0 || message.is_empty() {
                        return Err(format!("poor parse error: {:?}", r.state));
                    }
                }
                other => return Err(format!("expected unparsable, got {other:?}")),
            }
            if fs::read(&file).unwrap() != original_bytes {
                return Err("an unparsable file was rewritten".into());
            }
        }
        if jsonfile::backup_path(&file).exists() {
            return Err("a backup was made of a file that was never changed".into());
        }
        return Ok(());
    }

    let original = read_doc(&file)?;
    let reports = vults_installer::install_all(&paths, &hook, &opts);
    let r = report(&reports, agent)?;
    if r.state != AgentState::Installed || r.action != Action::Installed {
        return Err(format!("first install: {r:?}"));
    }
    let installed = read_doc(&file).map_err(|e| format!("installed file does not parse: {e}"))?;
    kept_in_order(&original, &installed, "")?;
    // The user's indentation, line ends and final newline, where the file had a style.
    let indented = original_bytes
        .windows(2)
        .any(|w| w[0] == b'\n' && (w[1] == b' ' || w[1] == b'\t'));
    if indented && file.extension().is_some_and(|e| e == "json") {
        let (was, now) = (
            jsonfile::detect_style(&original_bytes),
            jsonfile::detect_style(&fs::read(&file).unwrap()),
        );
        if was != now {
            return Err(format!("style {was:?} became {now:?}"));
        }
    }

    // What the agent needs: the permission entry with its long timeout, the others short.
    let permission = match agent {
        Agent::Copilot => Some("permissionRequest"),
        Agent::Claude | Agent::Codex | Agent::Qwen => Some("PermissionRequest"),
        _ => None,
    };
    if let Some(ev) = permission
        && vults_timeout(&installed, ev) != Some(600)
    {
        return Err(format!("{ev} entry missing or without 600 s: {installed}"));
    }
    let start = if matches!(agent, Agent::Copilot | Agent::Cursor) {
        "sessionStart"
    } else {
        "SessionStart"
    };
    if vults_timeout(&installed, start) != Some(10) {
        return Err(format!("{start} entry missing or without 10 s"));
    }
    let hook_path = paths.installed_hook().to_string_lossy().into_owned();
    if !runs_installed_hook(&installed, &paths.installed_hook(), agent.name()) {
        return Err("commands do not run the installed hook by its absolute path".into());
    }
    if agent == Agent::Claude {
        let ask = installed["hooks"]["PreToolUse"]
            .as_array()
            .and_then(|l| l.iter().find(|g| g["matcher"] == "AskUserQuestion"))
            .ok_or("no AskUserQuestion entry")?;
        // The command line as the runner sees it: `command`, then the exec form's `args`.
        let handler = &ask["hooks"][0];
        let line = std::iter::once(handler["command"].as_str().unwrap_or(""))
            .chain(
                handler["args"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str),
            )
            .collect::<Vec<_>>()
            .join(" ");
        if handler["timeout"] != 120 || !line.contains("--ask PreToolUse") {
            return Err(format!("AskUserQuestion entry wrong: {ask}"));
        }
        let sl = installed["statusLine"]["command"].as_str().unwrap_or("");
        if sl != format!("{hook_path} --agent claude --statusline") {
            return Err(format!("statusLine not Vults': {sl}"));
        }
        let state: Value =
            serde_json::from_slice(&fs::read(paths.install_state_file()).unwrap()).unwrap();
        let saved = state.pointer("/claude/statusLine");
        if saved.map(ordered) != original.get("statusLine").map(ordered) {
            return Err(format!("user's statusLine not saved: {saved:?}"));
        }
    }
    let bak = jsonfile::backup_path(&file);
    if original_bytes.iter().all(u8::is_ascii_whitespace) {
        if bak.exists() {
            return Err("a backup of an empty file".into());
        }
    } else if fs::read(&bak).ok() != Some(original_bytes.clone()) {
        return Err("no .bak with the original bytes".into());
    }

    let before = snapshot(&home.root);
    let again = vults_installer::install_all(&paths, &hook, &opts);
    if snapshot(&home.root) != before {
        return Err("a second install changed bytes".into());
    }
    if report(&again, agent)?.action != Action::Nothing {
        return Err("a second install reported a change".into());
    }
    let doc = vults_installer::doctor(&paths);
    if report(&doc, agent)?.state != AgentState::Installed {
        return Err(format!(
            "doctor after install: {:?}",
            report(&doc, agent)?.state
        ));
    }

    let gone = vults_installer::uninstall_all(&paths);
    if report(&gone, agent)?.action != Action::Removed {
        return Err(format!("uninstall: {:?}", report(&gone, agent)?));
    }
    let back = read_doc(&file)?;
    if ordered(&back) != ordered(&original) {
        return Err(format!(
            "uninstall did not give the original back:\n{}\n{}",
            ordered(&original),
            ordered(&back)
        ));
    }
    // Nothing else changed since: the user's own bytes come back, formatting and all.
    if fs::read(&file).unwrap() != original_bytes {
        return Err("uninstall did not give the file back byte for byte".into());
    }
    // …and the folder is as Vults found it: the backup it made went with it.
    if bak.exists() {
        return Err(format!("{} left behind", bak.display()));
    }
    if original_bytes.is_empty() && !fs::read(&file).unwrap().is_empty() {
        return Err("an empty file was not left empty".into());
    }
    Ok(())
}

#[test]
fn the_corpus_has_at_least_twenty_files_of_every_kind() {
    let files = corpus();
    assert!(files.len() >= 20, "{} corpus files", files.len());
    for kind in [
        "claude",
        "codex",
        "codex-toml",
        "copilot",
        "qwen",
        "cursor",
        "droid",
        "kimi",
    ] {
        assert!(files.iter().any(|(k, _)| k == kind), "no {kind} file");
    }
    assert!(
        files
            .iter()
            .filter(|(_, f)| {
                f.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("bad-"))
            })
            .count()
            >= 3
    );
}

#[test]
fn every_corpus_file_survives_install_reinstall_and_uninstall() {
    let mut failures = Vec::new();
    for (kind, file) in corpus() {
        if let Err(e) = check_file(&kind, &file) {
            failures.push(format!("{}: {e}", file.display()));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
