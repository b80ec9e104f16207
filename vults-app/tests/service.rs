//! The systemd user unit the .deb ships (`packaging/linux/vults.service`, docs/server.md):
//! `systemd-analyze verify` finds nothing to say about it, and its ExecStart, run as the unit
//! runs it, is the headless app serving the hook socket and the phone commands until SIGTERM,
//! when it exits 0 (what `systemctl --user stop` sends). The installed unit itself is verified
//! and started again by the .deb's test (`tests/packaging/deb.sh`).

use super::support::app_bin;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn unit() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../packaging/linux/vults.service");
    std::fs::read_to_string(path).expect("packaging/linux/vults.service")
}

/// ExecStart's words, as the unit says them.
fn exec_start() -> Vec<String> {
    let unit = unit();
    let line = unit
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .expect("an ExecStart");
    line.split_whitespace().map(str::to_string).collect()
}

#[test]
fn the_unit_verifies_with_systemd_analyze() {
    let required = std::env::var("VULTS_DESKTOP_TESTS").as_deref() == Ok("1");
    if Command::new("systemd-analyze")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_err()
    {
        assert!(
            !required,
            "systemd-analyze is missing (apt-get install systemd)"
        );
        eprintln!("skipped: no systemd-analyze (apt-get install systemd)");
        return;
    }
    assert_eq!(exec_start(), ["/usr/bin/vults-app", "--headless"]);
    // The unit as installed, but for the binary's path: verify checks it can be run.
    let home = vults_tests::TempHome::new("unit");
    let file = home.dir.join("vults.service");
    let unit = unit().replace("/usr/bin/vults-app", &app_bin().display().to_string());
    std::fs::write(&file, &unit).unwrap();
    let out = Command::new("systemd-analyze")
        .arg("verify")
        .arg(&file)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && said.trim().is_empty(),
        "systemd-analyze verify: {said}"
    );
    // And it does catch a mistake: a misspelt key is a warning.
    std::fs::write(&file, unit.replace("Restart=", "Restrat=")).unwrap();
    let out = Command::new("systemd-analyze")
        .arg("verify")
        .arg(&file)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("Restrat"));
    for want in [
        "WantedBy=default.target",
        "UMask=0077",
        "Restart=on-failure",
    ] {
        assert!(unit.contains(want), "the unit has {want}");
    }
}

#[cfg(unix)]
#[test]
fn the_units_exec_start_is_the_headless_app_until_sigterm() {
    use super::support::wait_until;
    let home = vults_tests::TempHome::new("unitrun");
    let words = exec_start();
    let mut child = home
        .command(app_bin())
        .args(&words[1..])
        .stderr(Stdio::null())
        .spawn()
        .expect("vults-app starts as the unit starts it");
    let channel = home.dir.join("run/vults.phone.sock");
    let up = wait_until(60, || channel.exists() && home.socket().exists());
    if !up {
        let _ = child.kill();
    }
    assert!(
        up,
        "the headless app serves the hook socket and the phone commands"
    );
    // SAFETY: a signal to the child this test started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "exit 0 on SIGTERM");
    assert!(!channel.exists(), "the channel's socket goes with the app");
}
