//! `examples/named-tool.sh` and `examples/named-tool.mjs` (`.ts` too where the local node can
//! strip types) as a user runs them: a card, an Allow that runs the command, a Deny that does
//! not, and with the app closed, their own y/N prompt answered on stdin.

use super::support::*;
use std::process::Command;
use vults_core::agents::Target;
use vults_engine::messages::CardAnswer;

/// One way to run the example tool.
#[derive(Debug, Clone)]
struct Example {
    label: &'static str,
    program: &'static str,
    args: Vec<String>,
}

fn shell_example() -> Example {
    Example {
        label: "named-tool.sh",
        program: "sh",
        args: vec![examples_dir().join("named-tool.sh").display().to_string()],
    }
}

/// Node is needed for the TypeScript example; `VULTS_NO_NODE=1` skips it where there is none.
fn node_examples() -> Vec<Example> {
    let works = |args: &[&str]| {
        Command::new("node")
            .args(args)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !works(&["--version"]) {
        if std::env::var_os("VULTS_NO_NODE").is_some_and(|v| v == "1") {
            eprintln!("skipped: no node on PATH (VULTS_NO_NODE=1)");
            return Vec::new();
        }
        panic!("the TypeScript example needs Node.js ≥ 20 on PATH (or set VULTS_NO_NODE=1)");
    }
    let mut out = vec![Example {
        label: "named-tool.mjs",
        program: "node",
        args: vec![examples_dir().join("named-tool.mjs").display().to_string()],
    }];
    // Node ≥ 22.6 runs the .ts itself; node 20 has no such flag.
    if works(&["--experimental-strip-types", "-e", ""]) {
        out.push(Example {
            label: "named-tool.ts",
            program: "node",
            args: vec![
                "--experimental-strip-types".into(),
                "--no-warnings".into(),
                examples_dir().join("named-tool.ts").display().to_string(),
            ],
        });
    } else {
        eprintln!("note: this node cannot strip types; named-tool.ts is checked through its .mjs");
    }
    out
}

/// Starts the example as `name`, asking to run `command`, with `stdin` for its own prompt.
fn run(home: &Home, ex: &Example, name: &str, command: &str, stdin: &str) -> Proc {
    let mut cmd = home.command(ex.program);
    cmd.args(&ex.args)
        .arg(command)
        .env("VULTS_HOOK", hook_bin())
        .env("VULTS_TOOL_NAME", name)
        .env("VULTS_TOOL_SESSION", format!("{name}-session"));
    spawn(&format!("{} ({name})", ex.label), cmd, stdin.as_bytes())
}

/// A command that leaves a marker in the project folder and says so; quotes of both kinds and
/// spaces, so the card shows whether the tool sent it whole.
fn marker_command(marker: &str, name: &str) -> String {
    format!(r#"touch '{marker}' && echo "ran: {name}""#)
}

/// A card for `name`, then Allow (the command runs), then Deny (it does not).
fn card_allow_and_deny(home: &Home, ex: &Example, name: &str) {
    let engine = start_engine(home);
    let mut w = Watch::new(&engine);

    // Allow. Its stdin says "n": had the tool ignored Vults and asked itself, nothing would run.
    let marker = home.project.join("allowed marker.txt");
    let command = marker_command("allowed marker.txt", name);
    let tool = run(home, ex, name, &command, "n\n");
    let card = w.card(name);
    assert_eq!(
        card.call.target,
        Target::Command {
            command: command.clone()
        },
        "{}: the card shows the whole command",
        ex.label
    );
    assert_eq!(card.call.tool, "Bash");
    assert_eq!(card.folder, home.project.display().to_string());
    assert!(!marker.exists(), "nothing runs before the answer");
    w.answer(&card, CardAnswer::Allow);
    let done = tool.finish();
    assert_eq!(done.code, Some(0), "{}: allowed: {done:#?}", ex.label);
    assert!(
        marker.exists(),
        "{}: allowed, the command ran: {done:#?}",
        ex.label
    );
    assert!(done.stdout.contains(&format!("ran: {name}")), "{done:#?}");
    assert!(
        !done.stderr.contains("[y/N]"),
        "Vults answered; no prompt: {done:#?}"
    );
    let audit = w.audited();
    assert_eq!(
        (
            audit.identity.as_str(),
            audit.decision.as_str(),
            audit.by.label().as_str()
        ),
        (name, "allow", "click")
    );
    assert_eq!(audit.target, command);

    // Deny. Its stdin says "y": had the tool asked itself, the command would have run.
    let marker = home.project.join("denied marker.txt");
    let command = marker_command("denied marker.txt", name);
    let tool = run(home, ex, name, &command, "y\n");
    let card = w.card(name);
    assert_eq!(card.call.target.rule_key(), command);
    w.answer(&card, CardAnswer::Deny);
    let done = tool.finish();
    assert_ne!(
        done.code,
        Some(0),
        "{}: denied exits non-zero: {done:#?}",
        ex.label
    );
    assert!(
        !marker.exists(),
        "{}: denied, nothing ran: {done:#?}",
        ex.label
    );
    assert!(done.stderr.contains("denied from Vults"), "{done:#?}");
    assert!(!done.stdout.contains("ran:"), "{done:#?}");
    let audit = w.audited();
    assert_eq!(
        (audit.identity.as_str(), audit.decision.as_str()),
        (name, "deny")
    );

    // Whatever a shell can hold reaches the card whole: backslashes, both quotes, a tab, a CR,
    // a newline, `$`, backticks, `%`, non-ASCII.
    let odd = "printf '%s\\n' \"back\\\\slash\" 'tab\there' 'two\nlines' 'cr\rrr' \
               '$HOME `id` 100%' 'ünï 🦅' > odd.txt";
    let tool = run(home, ex, name, odd, "n\n");
    let card = w.card(name);
    assert_eq!(
        card.call.target,
        Target::Command {
            command: odd.to_string()
        },
        "{}: the card shows the whole command",
        ex.label
    );
    w.answer(&card, CardAnswer::Deny);
    let done = tool.finish();
    assert_ne!(done.code, Some(0), "{done:#?}");
    assert!(!home.project.join("odd.txt").exists(), "{done:#?}");
    w.audited();
}

/// No app: the tool asks on its own terminal, and the answer on stdin decides.
fn app_closed_asks_itself(home: &Home, ex: &Example, name: &str) {
    // No engine was ever started on this home: no socket file at all.
    assert!(!home.paths().socket.exists());
    let marker = home.project.join("yes.txt");
    let done = run(home, ex, name, &marker_command("yes.txt", name), "y\n").finish();
    assert!(
        done.stderr.contains("[y/N]"),
        "{}: it asks: {done:#?}",
        ex.label
    );
    assert_eq!(done.code, Some(0), "{}: yes runs it: {done:#?}", ex.label);
    assert!(marker.exists(), "{}: yes runs it: {done:#?}", ex.label);

    // An app that quit and left its socket file behind: nobody listens on it.
    let socket = home.paths().socket;
    std::fs::create_dir_all(socket.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&socket);
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    assert!(socket.exists());
    let marker = home.project.join("no.txt");
    let done = run(home, ex, name, &marker_command("no.txt", name), "n\n").finish();
    assert!(
        done.stderr.contains("[y/N]"),
        "{}: it asks: {done:#?}",
        ex.label
    );
    assert_ne!(
        done.code,
        Some(0),
        "{}: no does not run it: {done:#?}",
        ex.label
    );
    assert!(
        !marker.exists(),
        "{}: no does not run it: {done:#?}",
        ex.label
    );

    // Nobody at the terminal either (stdin closed at once): not run, and no hang.
    let marker = home.project.join("eof.txt");
    let done = run(home, ex, name, &marker_command("eof.txt", name), "").finish();
    assert_ne!(
        done.code,
        Some(0),
        "{}: no answer is a no: {done:#?}",
        ex.label
    );
    assert!(
        !marker.exists(),
        "{}: no answer is a no: {done:#?}",
        ex.label
    );
}

#[test]
fn shell_example_gets_a_card_and_honours_allow_and_deny() {
    let home = Home::new("sh-card");
    card_allow_and_deny(&home, &shell_example(), "named-tool-sh");
}

#[test]
fn shell_example_with_the_app_closed_asks_on_its_own_terminal() {
    let home = Home::new("sh-closed");
    app_closed_asks_itself(&home, &shell_example(), "named-tool-sh");
}

#[test]
fn typescript_example_gets_a_card_and_honours_allow_and_deny() {
    for (i, ex) in node_examples().iter().enumerate() {
        let home = Home::new(&format!("ts-card{i}"));
        card_allow_and_deny(&home, ex, "named-tool-ts");
    }
}

#[test]
fn typescript_example_with_the_app_closed_asks_on_its_own_terminal() {
    for (i, ex) in node_examples().iter().enumerate() {
        let home = Home::new(&format!("ts-closed{i}"));
        app_closed_asks_itself(&home, ex, "named-tool-ts");
    }
}
