//! An app that is killed (SIGKILL, a crash) leaves no link behind: the `ssh` that holds a
//! host's forward ends with it. Before, a killed app's `ssh -N -R …` lived on, orphaned, holding
//! the host's socket; every restart added one more.
#![cfg(target_os = "linux")]

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use vults_core::paths::Paths;
use vults_remote::{Host, HostList};

/// A stand-in `ssh` (VULTS_SSH): says where it is, then holds on like `ssh -N` does.
const SSH: &str = "#!/bin/sh\necho $$ > \"$PIDFILE\"\nexec sleep 300\n";

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only asks whether the process exists.
    let exists = unsafe { libc::kill(pid, 0) } == 0;
    let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .unwrap_or_default()
        .contains(") Z ");
    exists && !zombie
}

#[test]
fn a_killed_app_leaves_no_ssh_link_behind() {
    let temp = vults_tests::TempHome::empty("link-orphan");
    let dir = temp.dir.clone();
    let ssh = dir.join("ssh");
    std::fs::write(&ssh, SSH).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&ssh, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let home = dir.join("vults");
    let resolved = home.clone();
    let paths = Paths::resolve(move |k| (k == "VULTS_HOME").then(|| resolved.clone()));
    let mut host = Host::parse("me@devbox").unwrap();
    host.home = "/home/me".into();
    let mut list = HostList::default();
    list.put(host);
    list.save(&paths).unwrap();
    let pidfile: PathBuf = dir.join("ssh.pid");
    let mut app = Command::new(env!("CARGO_BIN_EXE_vults-app"))
        .arg("--headless")
        .env("VULTS_HOME", &home)
        .env("HOME", &dir)
        .env("XDG_RUNTIME_DIR", &dir)
        .env("VULTS_SSH", &ssh)
        .env("PIDFILE", &pidfile)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("vults-app --headless starts");
    let start = Instant::now();
    let pid = loop {
        if let Some(p) = std::fs::read_to_string(&pidfile)
            .ok()
            .and_then(|t| t.trim().parse::<i32>().ok())
        {
            break p;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = app.kill();
            panic!("the app never started its link");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(alive(pid), "the link's ssh runs");
    app.kill().unwrap(); // SIGKILL: no shutdown code runs
    let _ = app.wait();
    let start = Instant::now();
    while alive(pid) && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let orphan = alive(pid);
    if orphan {
        // SAFETY: the stand-in this test started.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    assert!(!orphan, "the link's ssh outlived the killed app");
}
