//! docs/adding-an-agent.md, followed: its example agent, Quokka, is added to a copy of
//! `vults-core` and the installer as the walk-through says (its code blocks pasted where it says,
//! the two installer lists it names extended) and their unit tests and the conformance suite run
//! in that copy. Adding an agent per the page leaves the tests green.
//!
//! The command line's table (`vults-app/src/cli/table.rs`) is built there too, alone, and its
//! `install --help` offers Quokka: the agents `--agent` takes come from the row, with no other
//! edit.
//!
//! The copy is a workspace of its own under the target folder (`target/doc-agent/`), built into
//! its own target folder there with `cargo --offline`, so it never touches the files or the
//! build of the workspace that runs this test.

use std::path::{Path, PathBuf};

/// The page's Rust code blocks, in order.
fn rust_blocks(page: &str) -> Vec<String> {
    page.split("```rust\n")
        .skip(1)
        .map(|rest| rest.split("```").next().unwrap_or_default().to_string())
        .collect()
}

/// `text` with `from`, which must stand in it once, replaced by `to`.
fn replace_once(text: &str, from: &str, to: &str, what: &str) -> String {
    assert_eq!(
        text.matches(from).count(),
        1,
        "{what}: `{from}` should stand once; the page and this test must follow the code"
    );
    text.replacen(from, to, 1)
}

/// Writes `text` to `path` unless it holds it already (so the copy's build is not redone).
fn write(path: &Path, text: &[u8]) {
    if std::fs::read(path).is_ok_and(|old| old == text) {
        return;
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let dest = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &dest);
        } else {
            write(&dest, &std::fs::read(&path).unwrap());
        }
    }
}

/// The copy: the root manifest with two members, the lock file, `vults-core`, the installer
/// (and the asset it includes, and vults-i18n with the bundles it words its notes from), and
/// the test support library it tests with, without its own end-to-end tests.
fn copy_workspace(root: &Path, ws: &Path) {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let start = manifest
        .find("members = [")
        .expect("the workspace's members");
    let end = start + manifest[start..].find(']').unwrap() + 1;
    let manifest = format!(
        "{}members = [\"vults-core\", \"vults-app/installer\", \"cli-help\"]{}",
        &manifest[..start],
        &manifest[end..]
    );
    write(&ws.join("Cargo.toml"), manifest.as_bytes());
    write(
        &ws.join("Cargo.lock"),
        &std::fs::read(root.join("Cargo.lock")).unwrap(),
    );
    for dir in [
        "vults-core/src",
        "vults-core/tests",
        "vults-app/installer/src",
        // The installer's notes are messages the window words (vults-i18n, with its bundles).
        "vults-app/i18n",
        "assets/i18n",
    ] {
        copy_dir(&root.join(dir), &ws.join(dir));
    }
    for file in [
        "vults-core/Cargo.toml",
        "vults-app/installer/Cargo.toml",
        "assets/opencode/vults.js",
        "tests/lib.rs",
        "tests/desktop.rs",
        "tests/compositors.rs",
    ] {
        write(&ws.join(file), &std::fs::read(root.join(file)).unwrap());
    }
    // The command table, alone in a crate that prints `install --help`, with the app's clap.
    let app = std::fs::read_to_string(root.join("vults-app/Cargo.toml")).unwrap();
    let clap = app
        .lines()
        .find(|l| l.starts_with("clap = "))
        .expect("vults-app's clap");
    write(
        &ws.join("vults-app/src/cli/table.rs"),
        &std::fs::read(root.join("vults-app/src/cli/table.rs")).unwrap(),
    );
    write(
        &ws.join("cli-help/Cargo.toml"),
        format!(
            "[package]\nname = \"cli-help\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
             publish = false\n\n[dependencies]\nvults-core = {{ path = \"../vults-core\" }}\n{clap}\n"
        )
        .as_bytes(),
    );
    write(
        &ws.join("cli-help/src/main.rs"),
        b"#[allow(dead_code)]\n#[path = \"../../vults-app/src/cli/table.rs\"]\nmod table;\n\n\
          fn main() {\n    use std::io::Write as _;\n    let mut app = table::command();\n    \
          let help = app.find_subcommand_mut(\"install\").unwrap().render_long_help();\n    \
          std::io::stdout().write_all(help.to_string().as_bytes()).unwrap();\n}\n",
    );
    // The support library only: its own tests' targets and dev-dependencies are not copied.
    let support = std::fs::read_to_string(root.join("tests/Cargo.toml")).unwrap();
    let mut kept = String::new();
    for section in support.split("\n[") {
        let head = section.lines().next().unwrap_or_default();
        if !head.contains("dev-dependencies]") && !head.starts_with("[test]]") {
            if !kept.is_empty() {
                kept.push_str("\n[");
            }
            kept.push_str(section);
        }
    }
    write(&ws.join("tests/Cargo.toml"), kept.as_bytes());
}

/// The page's walk-through, applied to the copy.
fn add_quokka(page: &str, ws: &Path) {
    let blocks = rust_blocks(page);
    assert!(blocks.len() >= 2, "the page's code: the variant, the row");
    // 1. The variant, after the last one; `Agent::ALL` gets it at the same place.
    let variant = blocks[0]
        .split("Gemini,\n")
        .nth(1)
        .and_then(|rest| rest.split("\n}").next())
        .expect("the variant after Gemini's")
        .to_string();
    let agents = ws.join("vults-core/src/agents/table.rs");
    let mut code = std::fs::read_to_string(&agents).unwrap();
    let enum_end = code.find("pub enum Agent {").expect("the Agent enum")
        + code[code.find("pub enum Agent {").unwrap()..]
            .find("\n}\n")
            .unwrap();
    code.insert_str(enum_end, &format!("\n{variant}"));
    let all = code.find("pub const ALL: [Agent; ").expect("Agent::ALL");
    let count_end = all + code[all..].find(']').unwrap();
    let count: usize = code[all + "pub const ALL: [Agent; ".len()..count_end]
        .parse()
        .unwrap();
    let said = format!("({} agents)", count + 1);
    assert!(
        blocks[0].contains(&said),
        "the page says how many agents there are with Quokka: {said}"
    );
    code.replace_range(
        all + "pub const ALL: [Agent; ".len()..count_end,
        &(count + 1).to_string(),
    );
    let list_end = all + code[all..].find("];").unwrap();
    code.insert_str(list_end, "Agent::Quokka,\n    ");
    // 2. Its entries and its row, at the same place in AGENTS (the last).
    let (entries, row) = blocks[1]
        .split_once("\n\nAgentSpec {")
        .expect("the entries, then the row");
    let anchor = "/// Every agent Vults knows, one row each";
    code = replace_once(
        &code,
        anchor,
        &format!("{entries}\n\n{anchor}"),
        "the entries",
    );
    let table = code
        .find("pub const AGENTS: &[AgentSpec] = &[")
        .expect("AGENTS");
    let table_end = table + code[table..].find("\n];\n").unwrap();
    code.insert_str(table_end, &format!("\n    AgentSpec {{{row}"));
    write(&agents, code.as_bytes());
    // 3. The three lists the page names, with Quokka at its row's place.
    for (file, test, from, to, added) in [
        (
            "vults-app/installer/src/agents.rs",
            "fn the_installer_knows_every_row_with_install_facts()",
            "Agent::Gemini",
            "Agent::Gemini, Agent::Quokka",
            "Agent::Quokka",
        ),
        (
            "vults-app/installer/src/locate.rs",
            "fn config_homes_come_from_the_table()",
            "h.join(\".gemini\")",
            "h.join(\".gemini\"), h.join(\".quokka\")",
            "h.join(\".quokka\")",
        ),
        (
            "vults-core/src/agents/table.rs",
            "fn names_read_from_the_table_are_the_documented_ones()",
            "\"antigravity\"]",
            "\"antigravity\", \"quokka\"]",
            "\"quokka\"",
        ),
    ] {
        let name = &test["fn ".len()..test.len() - 2];
        assert!(page.contains(name), "the page names {name}");
        assert!(
            page.contains(added),
            "the page says what {name} gets: {added}"
        );
        let path = ws.join(file);
        let code = std::fs::read_to_string(&path).unwrap();
        let start = code
            .find(test)
            .unwrap_or_else(|| panic!("{test} in {file}"));
        let end = start + code[start..].find("\n    }\n").expect("its end");
        let body = replace_once(&code[start..end], from, to, name);
        let code = format!("{}{body}{}", &code[..start], &code[end..]);
        write(&path, code.as_bytes());
    }
}

/// `cargo <args> --offline` in the copy; its stdout.
fn cargo(ws: &Path, target: &Path, args: &[&str]) -> String {
    let mut cmd = vults_tests::cargo();
    cmd.current_dir(ws)
        .env("CARGO_TARGET_DIR", target)
        .args(&args[..1])
        .arg("--offline")
        .args(&args[1..]);
    let out = cmd.output().expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo {} in the copy with Quokka added:\n{}\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_walk_through_leaves_the_tests_green() {
    let root = vults_tests::workspace_root();
    let page = std::fs::read_to_string(root.join("docs/adding-an-agent.md")).unwrap();
    // target/<profile>/deps/<this test> → target/doc-agent
    let exe = std::env::current_exe().unwrap();
    let target: PathBuf = exe
        .ancestors()
        .nth(3)
        .expect("the target folder")
        .join("doc-agent");
    let ws = target.join("workspace");
    copy_workspace(&root, &ws);
    add_quokka(&page, &ws);
    let built = target.join("build");
    cargo(
        &ws,
        &built,
        &["test", "-p", "vults-core", "--lib", "--test", "conformance"],
    );
    cargo(&ws, &built, &["test", "-p", "vults-installer", "--lib"]);
    // `vults-app install --help` offers it, from its row alone.
    let help = cargo(&ws, &built, &["run", "--quiet", "-p", "cli-help"]);
    assert!(
        help.contains("- quokka:") && help.contains("Quokka"),
        "install --help offers Quokka:\n{help}"
    );
    // The copy did get Quokka: its table knows it.
    let table = std::fs::read_to_string(ws.join("vults-core/src/agents/table.rs")).unwrap();
    assert!(table.contains("agent: Agent::Quokka,") && table.contains("Agent::Quokka,\n    ];"));
}
