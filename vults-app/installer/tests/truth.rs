//! What the installer reports is what it did.

use crate::common::*;
use std::fs;

#[test]
fn uninstall_says_it_removed_gemini_leftovers_not_that_gemini_is_missing() {
    let home = TempHome::new("gemini-uninstall");
    let file = home.home().join(".gemini/settings.json");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(
        &file,
        r#"{"hooks":{"BeforeTool":[{"matcher":"*","hooks":[{"type":"command","command":"/old/vults-hook --agent gemini BeforeTool"}]}]}}"#,
    )
    .unwrap();
    let out = home.cli(&["--uninstall"]);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let gemini: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Gemini CLI"))
        .take(2)
        .collect();
    assert!(!gemini.is_empty(), "Gemini CLI is reported:\n{text}");
    assert!(
        !gemini[0].contains("not found"),
        "its hooks were there a moment ago:\n{text}"
    );
    assert!(
        gemini[0].contains("old Vults hooks (removed now)"),
        "{text}"
    );
    assert!(
        gemini[1].contains("old Gemini CLI hooks were removed"),
        "{text}"
    );
    assert!(!fs::read_to_string(&file).unwrap().contains("vults-hook"));

    // Nothing of Vults left: Gemini CLI is not mentioned at all.
    let out = home.cli(&["--uninstall"]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("Gemini"));
}

#[cfg(unix)]
#[test]
fn the_install_is_private_but_the_agents_own_settings_keep_their_mode() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let home = TempHome::new("private");
    let settings = home.home().join(".claude/settings.json");
    fs::create_dir_all(settings.parent().unwrap()).unwrap();
    fs::write(&settings, "{\"model\":\"opus\"}\n").unwrap();
    fs::set_permissions(&settings, fs::Permissions::from_mode(0o644)).unwrap();
    let source = home.hook_source("1");
    let mut cmd = home.cli_command(&["install", "--hook", source.to_str().unwrap()]);
    // SAFETY: umask(2) is async-signal-safe and touches only the child after fork.
    unsafe {
        cmd.pre_exec(|| {
            libc::umask(0o022);
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let paths = home.paths();
    let mode = |p: &std::path::Path| {
        fs::metadata(p)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode(&paths.config_dir), 0o700, "config folder");
    assert_eq!(mode(&paths.install_state_file()), 0o600, "install.json");
    assert_eq!(mode(&paths.data_dir), 0o700, "data folder");
    assert_eq!(mode(&paths.hook_dir()), 0o700, "the hook copy's folder");
    assert_eq!(mode(&paths.installed_hook()), 0o755, "the hook runs");
    assert!(
        fs::read_to_string(&settings)
            .unwrap()
            .contains("vults-hook")
    );
    assert_eq!(
        mode(&settings),
        0o644,
        "the agent's own file keeps its mode"
    );
}
