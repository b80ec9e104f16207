//! Every command's `--help`, as the command table (src/cli/table.rs) words it, against the
//! snapshots in `tests/help/`: a changed word, option or agent shows here as a diff to read.
//! `VULTS_UPDATE_HELP=1` writes the snapshots anew from the binary (then read the diff).

use super::support::{app_bin, run, stdout};
use std::path::PathBuf;

/// Every command path with a help of its own.
/// Every command the table has, found by walking the help itself from `vults-app --help` down
/// (each help's "Commands:" list), so a command added to the table gets its snapshot, and a
/// test that fails until it has one, with no list here to keep.
fn commands() -> Vec<Vec<String>> {
    let mut found = vec![Vec::new()];
    let mut i = 0;
    while i < found.len() {
        let path = found[i].clone();
        let text = help(&path.iter().map(String::as_str).collect::<Vec<_>>());
        let listed = text
            .lines()
            .skip_while(|l| l.trim() != "Commands:")
            .skip(1)
            .take_while(|l| !l.trim().is_empty());
        for line in listed {
            // A command's line starts two spaces in; its description's next lines, further.
            if let Some(name) = line.strip_prefix("  ").filter(|l| !l.starts_with(' '))
                && let Some(name) = name.split_whitespace().next()
                && name != "help"
            {
                let mut sub = path.clone();
                sub.push(name.to_string());
                found.push(sub);
            }
        }
        i += 1;
    }
    found
}

fn snapshot(path: &[&str]) -> PathBuf {
    let name = if path.is_empty() {
        "vults-app".to_string()
    } else {
        path.join("-")
    };
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/help")
        .join(format!("{name}.txt"))
}

fn help(path: &[&str]) -> String {
    let mut args = path.to_vec();
    args.push("--help");
    let out = run(&app_bin(), &args, &[]);
    assert!(
        out.status.success(),
        "vults-app {} --help failed",
        path.join(" ")
    );
    stdout(&out)
}

#[test]
fn every_commands_help_is_its_snapshot() {
    let update = std::env::var("VULTS_UPDATE_HELP").as_deref() == Ok("1");
    let mut differ = Vec::new();
    let commands = commands();
    assert!(commands.len() >= 14, "{commands:?}");
    for path in &commands {
        let path: Vec<&str> = path.iter().map(String::as_str).collect();
        let got = help(&path);
        let file = snapshot(&path);
        if update {
            std::fs::write(&file, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&file).unwrap_or_default();
        if got != want {
            differ.push(format!(
                "vults-app {} --help is not {}:\n{got}",
                path.join(" "),
                file.display()
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "{}\n(VULTS_UPDATE_HELP=1 writes the snapshots anew)",
        differ.join("\n")
    );
    // No snapshot is left of a command the table no longer has.
    let dir = snapshot(&[]).parent().unwrap().to_path_buf();
    let known: Vec<PathBuf> = commands
        .iter()
        .map(|p| snapshot(&p.iter().map(String::as_str).collect::<Vec<_>>()))
        .collect();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let file = entry.unwrap().path();
        assert!(
            known.contains(&file),
            "{} is no command's help",
            file.display()
        );
    }
}

/// The agents `install --agent` offers are the agent table's rows with install facts, in its
/// order, retired ones only taken; `-h` (the short help) lists them by name.
#[test]
fn install_offers_the_agent_tables_rows() {
    let short = stdout(&run(&app_bin(), &["install", "-h"], &[]));
    let offered: Vec<&str> = vults_core::agents::AGENTS
        .iter()
        .filter(|row| row.install.is_some() && !row.agent.retired())
        .map(|row| row.name)
        .collect();
    assert!(offered.len() >= 8, "{offered:?}");
    let list = format!("[possible values: {}]", offered.join(", "));
    // Read as one line: the help wraps at 100 columns.
    let flat = short.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains(&list), "{list} in:\n{short}");
    // A retired agent's leftovers can still be named, as before the table.
    for row in vults_core::agents::AGENTS
        .iter()
        .filter(|row| row.install.is_some() && row.agent.retired())
    {
        assert!(!short.contains(row.name), "{} is not offered", row.name);
        let home = vults_tests::TempHome::new("retired");
        let out = run(
            &app_bin(),
            &[
                "install",
                "--agent",
                row.name,
                "--hook",
                "/nonexistent/vults-hook",
            ],
            &[("VULTS_HOME", &home.dir)],
        );
        // Taken by the parser: refused only for the hook that is not there.
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("/nonexistent/vults-hook does not exist"),
            "{err}"
        );
    }
    let out = run(&app_bin(), &["install", "--agent", "nosuchagent"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nosuchagent"));
}

/// The pairing page's port the help names is the link's own.
#[test]
fn phone_pairs_help_names_the_links_port() {
    let help = help(&["phone", "pair"]);
    assert!(
        help.contains(&format!("default {}", vults_phone::DEFAULT_PORT)),
        "{help}"
    );
}

/// Usage errors exit 2 on stderr; help and the version exit 0 on stdout.
#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    for args in [
        &["--cards"][..],
        &["--bogus"],
        &["remote"],
        &["remote", "add"],
        &["remote", "remove"],
        &["autostart", "maybe"],
        &["phone"],
        &["phone", "revoke"],
        &["phone", "pair", "--broker", "--port", "1"],
        &["--uninstall", "--headless"],
        &["install", "--hook"],
    ] {
        let out = run(&app_bin(), args, &[]);
        assert_eq!(out.status.code(), Some(2), "vults-app {args:?}");
        assert!(
            out.stdout.is_empty(),
            "vults-app {args:?} printed on stdout"
        );
        assert!(!out.stderr.is_empty(), "vults-app {args:?} says why");
    }
    for args in [&["-h"][..], &["phone", "-h"], &["-V"]] {
        let out = run(&app_bin(), args, &[]);
        assert_eq!(out.status.code(), Some(0), "vults-app {args:?}");
        assert!(!out.stdout.is_empty());
    }
}
