//! The installer with Windows paths (run under Wine in CI, see `.ci/cross.sh`): a profile
//! folder with a space and non-ASCII letters reached through `USERPROFILE` / `APPDATA` /
//! `LOCALAPPDATA`, backslashes throughout, a settings file held open by another program, the
//! atomic replace, the `.bak`, uninstall — and the hook command each agent was given, run the
//! way that agent runs it on Windows, against a real named pipe.
//!
//! Not run here, and why: Copilot CLI runs its `powershell` entry with PowerShell, which Wine
//! does not have (its `powershell.exe` is a stub that runs nothing); that entry's form is
//! checked, and the same hook path and arguments are run directly.
#![cfg(windows)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use vults_core::paths::Paths;
use vults_core::protocol::Decision;
use vults_installer::{Action, Agent, AgentReport, AgentState, InstallOptions};
use vults_tests::{HookRun, Script, Stdin, TestServer, fixture, run_hook};

/// A Windows profile of its own, with a space and non-ASCII letters in its name.
struct Profile {
    /// Removed when the profile is dropped.
    _temp: vults_tests::TempHome,
    root: PathBuf,
    user: String,
}

impl Profile {
    fn new(name: &str) -> Profile {
        let temp = vults_tests::TempHome::empty(&format!("w-{name}"));
        let root = temp.dir.clone();
        std::fs::create_dir_all(root.join("Zoë Ünal")).unwrap();
        Profile {
            _temp: temp,
            root,
            user: format!("vtest{}{name}", std::process::id()),
        }
    }
    fn profile(&self) -> PathBuf {
        self.root.join("Zoë Ünal")
    }
    fn paths(&self) -> Paths {
        let (profile, user) = (self.profile(), self.user.clone());
        Paths::resolve(move |k| windows_env(&profile, &user, k))
    }
}

/// What Windows sets for this profile, and nothing of the real user's.
fn windows_env(profile: &Path, user: &str, key: &str) -> Option<PathBuf> {
    match key {
        "USERPROFILE" => Some(profile.to_path_buf()),
        "APPDATA" => Some(profile.join(r"AppData\Roaming")),
        "LOCALAPPDATA" => Some(profile.join(r"AppData\Local")),
        "USERNAME" => Some(PathBuf::from(user)),
        _ => None,
    }
}

fn report(reports: &[AgentReport], agent: Agent) -> &AgentReport {
    reports
        .iter()
        .find(|r| r.agent == agent)
        .unwrap_or_else(|| panic!("no report for {agent:?}: {reports:?}"))
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The first Vults handler of `event` in a grouped `hooks` object.
fn grouped_handler(doc: &Value, event: &str) -> Value {
    doc["hooks"][event]
        .as_array()
        .and_then(|groups| {
            groups.iter().find_map(|g| {
                g["hooks"].as_array()?.iter().find(|h| {
                    ["command", "args"]
                        .iter()
                        .any(|k| h[*k].to_string().contains("vults-hook"))
                })
            })
        })
        .cloned()
        .unwrap_or_else(|| panic!("no Vults handler for {event} in {doc}"))
}

/// Runs a command line the way an agent's runner does, with this profile's user and the
/// agent's PermissionRequest on stdin; a scripted app on the user's pipe allows it.
fn run_as_agent(p: &Profile, program: &Path, args: &[String], input: &[u8]) -> (HookRun, usize) {
    let pipe = PathBuf::from(format!(r"\\.\pipe\vults-{}", p.user));
    let server = TestServer::start(&pipe, Script::decide(Decision::Allow));
    let mut env: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| !k.starts_with("VULTS_"))
        .collect();
    env.retain(|(k, _)| k != "USERNAME");
    env.push(("USERNAME".into(), p.user.clone()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = run_hook(
        program,
        &args,
        Stdin::Bytes(input),
        &env,
        Duration::from_secs(30),
    );
    let got = server.wait_for(1, Duration::from_secs(5)).len();
    (run, got)
}

fn comspec() -> PathBuf {
    std::env::var_os("COMSPEC")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("cmd.exe"))
}

const CLAUDE_ALLOW: &str = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#;

#[test]
fn install_in_a_profile_with_a_space_and_accents_then_each_agent_runs_its_command() {
    let p = Profile::new("inst");
    let paths = p.paths();
    let profile = p.profile();
    // Where Windows keeps things: roaming config, local data, the agents under the profile.
    assert_eq!(paths.config_dir, profile.join(r"AppData\Roaming\Vults"));
    assert_eq!(paths.data_dir, profile.join(r"AppData\Local\Vults"));
    assert_eq!(paths.agent_home, profile);
    assert_eq!(
        paths.socket,
        PathBuf::from(format!(r"\\.\pipe\vults-{}", p.user))
    );

    // The user's own Claude Code settings, as a Windows editor saves them (CRLF).
    let claude = profile.join(r".claude\settings.json");
    std::fs::create_dir_all(claude.parent().unwrap()).unwrap();
    let original = b"{\r\n  \"model\": \"opus\"\r\n}\r\n".to_vec();
    std::fs::write(&claude, &original).unwrap();
    for dir in [".codex", ".qwen", ".copilot"] {
        std::fs::create_dir_all(profile.join(dir)).unwrap();
    }

    let reports = vults_installer::install_all(
        &paths,
        vults_tests::built_hook_bin(),
        &InstallOptions::default(),
    );
    for agent in [Agent::Claude, Agent::Codex, Agent::Qwen, Agent::Copilot] {
        assert_eq!(
            report(&reports, agent).state,
            AgentState::Installed,
            "{reports:?}"
        );
    }
    let hook = paths.installed_hook();
    assert_eq!(
        hook,
        profile.join(r"AppData\Local\Vults\bin\vults-hook.exe")
    );
    assert!(hook.is_file());
    assert!(paths.install_state_file().is_file());
    // The user's file: a .bak of the original, their key kept, line ends kept.
    assert_eq!(
        std::fs::read(vults_installer::jsonfile::backup_path(&claude)).unwrap(),
        original
    );
    let written = std::fs::read(&claude).unwrap();
    assert!(written.windows(2).any(|w| w == b"\r\n"), "CRLF kept");
    let doc = read_json(&claude);
    assert_eq!(doc["model"], "opus");

    let input = fixture("samples/claude/PermissionRequest.json");

    // Claude Code: the exec form, the hook's own path with backslashes, no shell, no quoting.
    let h = grouped_handler(&doc, "PermissionRequest");
    assert_eq!(h["command"].as_str().unwrap(), hook.to_string_lossy());
    let args: Vec<String> = serde_json::from_value(h["args"].clone()).unwrap();
    assert_eq!(args, ["--agent", "claude", "PermissionRequest"]);
    let (run, got) = run_as_agent(&p, Path::new(h["command"].as_str().unwrap()), &args, &input);
    assert_eq!((run.stdout.trim(), got), (CLAUDE_ALLOW, 1), "{run:?}");

    // Codex: `%COMSPEC% /C <command>`, the string passed as Codex's Rust runner passes it.
    let codex = grouped_handler(
        &read_json(&profile.join(r".codex\hooks.json")),
        "PermissionRequest",
    );
    let line = codex["command"].as_str().unwrap().to_string();
    eprintln!("Codex runs: {line}");
    assert!(!line.contains('"'), "cmd gets no quote: {line}");
    assert!(
        !line.contains("Zoë Ünal"),
        "the folder by its short name: {line}"
    );
    assert!(
        line.ends_with("vults-hook.exe --agent codex PermissionRequest"),
        "{line}"
    );
    let (run, got) = run_as_agent(
        &p,
        &comspec(),
        &["/C".into(), line.clone()],
        &fixture("samples/codex/PermissionRequest.json"),
    );
    assert_eq!(
        (run.stdout.trim(), got),
        (CLAUDE_ALLOW, 1),
        "{line}: {run:?}"
    );

    // Qwen Code: `%ComSpec% /d /s /c <command>`.
    let qwen = grouped_handler(
        &read_json(&profile.join(r".qwen\settings.json")),
        "PermissionRequest",
    );
    let line = qwen["command"].as_str().unwrap().to_string();
    assert!(!line.contains('"'), "{line}");
    let (run, got) = run_as_agent(
        &p,
        &comspec(),
        &["/d".into(), "/s".into(), "/c".into(), line.clone()],
        &fixture("samples/qwen/PermissionRequest.json"),
    );
    assert_eq!(
        (run.stdout.trim(), got),
        (CLAUDE_ALLOW, 1),
        "{line}: {run:?}"
    );

    // Copilot CLI: PowerShell's call operator on the quoted path (not runnable under Wine).
    let copilot = read_json(&profile.join(r".copilot\settings.json"));
    let entry = copilot["hooks"]["permissionRequest"]
        .as_array()
        .and_then(|l| l.iter().find(|e| e.get("powershell").is_some()))
        .cloned()
        .unwrap_or_else(|| panic!("{copilot}"));
    assert_eq!(
        entry["powershell"].as_str().unwrap(),
        format!(
            "& '{}' --agent copilot permissionRequest",
            hook.to_string_lossy()
        )
    );
    assert!(entry.get("bash").is_none());
    let (run, got) = run_as_agent(
        &p,
        &hook,
        &[
            "--agent".into(),
            "copilot".into(),
            "permissionRequest".into(),
        ],
        &fixture("samples/copilot/camelCase/permissionRequest.json"),
    );
    assert_eq!((run.stdout.trim(), got), (r#"{"behavior":"allow"}"#, 1));

    // A second install changes nothing.
    let before = std::fs::read(&claude).unwrap();
    let again = vults_installer::install_all(
        &paths,
        vults_tests::built_hook_bin(),
        &InstallOptions::default(),
    );
    assert_eq!(report(&again, Agent::Claude).action, Action::Nothing);
    assert_eq!(std::fs::read(&claude).unwrap(), before);

    // Uninstall gives the user's bytes back.
    let gone = vults_installer::uninstall_all(&paths);
    assert_eq!(
        report(&gone, Agent::Claude).action,
        Action::Removed,
        "{gone:?}"
    );
    assert_eq!(std::fs::read(&claude).unwrap(), original);
}

#[test]
fn a_settings_file_held_open_by_another_program_is_left_whole_and_done_later() {
    use std::os::windows::fs::OpenOptionsExt;
    let p = Profile::new("held");
    let paths = p.paths();
    let claude = p.profile().join(r".claude\settings.json");
    std::fs::create_dir_all(claude.parent().unwrap()).unwrap();
    let original = b"{\n  \"theme\": \"dark\"\n}\n".to_vec();
    std::fs::write(&claude, &original).unwrap();

    // An editor holding the file the usual Windows way: others may read and write, not delete
    // or rename over it (FILE_SHARE_READ | FILE_SHARE_WRITE, no FILE_SHARE_DELETE).
    let held = std::fs::OpenOptions::new()
        .read(true)
        .share_mode(0x1 | 0x2)
        .open(&claude)
        .unwrap();
    let reports = vults_installer::install_all(
        &paths,
        vults_tests::built_hook_bin(),
        &InstallOptions::default(),
    );
    let r = report(&reports, Agent::Claude);
    let AgentState::Failed(why) = &r.state else {
        panic!("a held file cannot be replaced: {r:?}");
    };
    // Which file, why, and that nothing was lost.
    assert!(why.contains(&claude.display().to_string()), "{why}");
    assert!(why.contains("another program may hold it open"), "{why}");
    assert!(why.contains("unchanged"), "{why}");
    assert_eq!(std::fs::read(&claude).unwrap(), original, "left whole");
    let leftovers: Vec<String> = std::fs::read_dir(claude.parent().unwrap())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("vults-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "no temp file left: {leftovers:?}");

    // Once the other program lets go, the same install goes through.
    drop(held);
    let reports = vults_installer::install_all(
        &paths,
        vults_tests::built_hook_bin(),
        &InstallOptions::default(),
    );
    assert_eq!(report(&reports, Agent::Claude).state, AgentState::Installed);
    assert_eq!(read_json(&claude)["theme"], "dark");
    vults_installer::uninstall_all(&paths);
    assert_eq!(std::fs::read(&claude).unwrap(), original);
}
