//! `--version` and `--help` of both binaries.

use super::support::{app_bin, run, stdout};

#[test]
fn both_binaries_print_the_same_version_and_the_protocol_version() {
    let app = run(&app_bin(), &["--version"], &[]);
    let hook = run(vults_tests::built_hook_bin(), &["--version"], &[]);
    assert!(app.status.success() && hook.status.success());
    let (app, hook) = (stdout(&app), stdout(&hook));
    let expected = format!(
        "{} (hook protocol {})\n",
        env!("CARGO_PKG_VERSION"),
        vults_core::protocol::VERSION
    );
    assert_eq!(app, format!("vults-app {expected}"));
    assert_eq!(hook, format!("vults-hook {expected}"));
    assert!(expected.contains("(hook protocol 9)"), "{expected}");
}

#[test]
fn help_lists_every_command() {
    let out = run(&app_bin(), &["--help"], &[]);
    assert!(out.status.success());
    let help = stdout(&out);
    for command in [
        "install",
        "doctor",
        "--uninstall",
        "--headless",
        "--cards",
        "--version",
        "--help",
        "VULTS_HOME",
        "VULTS_LOG",
    ] {
        assert!(
            help.contains(command),
            "--help does not mention {command}:\n{help}"
        );
    }
    let short = run(&app_bin(), &["-V"], &[]);
    assert_eq!(
        stdout(&short),
        format!("{}", stdout(&run(&app_bin(), &["--version"], &[])))
    );
}

#[test]
fn doctor_prints_where_the_log_file_is() {
    let home = vults_tests::TempHome::new("doctorlog");
    let out = run(&app_bin(), &["doctor"], &[("VULTS_HOME", &home.dir)]);
    let text = stdout(&out);
    let expected = format!(
        "Log file: {}\n",
        home.dir.join("log").join("vults.log").display()
    );
    assert!(text.contains(&expected), "{text}");
}

#[test]
fn headless_logs_to_the_file_and_to_its_stderr() {
    let home = vults_tests::TempHome::new("headlog");
    let mut app = std::process::Command::new(app_bin())
        .arg("--headless")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("VULTS_HOME", &home.dir)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("vults-app --headless starts");
    let logged = super::support::wait_until(30, || {
        super::support::log_text(&home.dir).contains("serving ")
    });
    let _ = app.kill();
    let out = app.wait_with_output().unwrap();
    let log = super::support::log_text(&home.dir);
    assert!(logged, "no 'serving' line in the log file:\n{log}");
    assert!(log.contains("(hook protocol 9) starting; log at "), "{log}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("serving "), "stderr: {stderr}");
}
