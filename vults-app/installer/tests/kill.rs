//! `kill -9` of the installer in the middle of writing: every settings file is always the old
//! content or the new, never torn, and a later run finishes the job.

use crate::common::{TempHome, corpus_dir, location, ordered, read_doc};
use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A small xorshift: the kill moments only need to spread, not to be good randomness.
struct Moments(u64);

impl Moments {
    fn next_micros(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % below
    }
}

fn contents(files: &[PathBuf]) -> BTreeMap<PathBuf, String> {
    files
        .iter()
        .map(|f| {
            let doc = read_doc(f).unwrap_or_else(|e| panic!("{} is torn: {e}", f.display()));
            (f.clone(), ordered(&doc))
        })
        .collect()
}

#[test]
fn kill_9_while_writing_leaves_every_file_old_or_new() {
    let home = TempHome::new("kill");
    let mut files = Vec::new();
    for (kind, name) in [
        ("claude", "statusline-ccusage.json"),
        ("codex", "hooks-with-other.json"),
        ("copilot", "settings-other-hooks.json"),
        ("qwen", "settings-real.json"),
        ("cursor", "hooks-other.json"),
        ("droid", "settings.json"),
        ("kimi", "config.toml"),
    ] {
        let to = home.home().join(location(kind));
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(corpus_dir().join(kind).join(name), &to).unwrap();
        files.push(to);
    }
    let hook = home.hook_source("1");
    let hook = hook.to_str().unwrap();
    let original = contents(&files);
    assert!(home.cli(&["install", "--hook", hook]).status.success());
    let installed = contents(&files);
    assert!(home.cli(&["--uninstall"]).status.success());
    assert_eq!(contents(&files), original);

    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let mut moments = Moments(seed | 1);
    let mut torn_checks = 0;
    let mut killed = 0;
    for round in 0..50 {
        let args: &[&str] = if round % 2 == 0 {
            &["install", "--hook", hook]
        } else {
            &["--uninstall"]
        };
        // A whole install takes about 150 ms here (an fsync per file), an uninstall about 40.
        let span = if round % 2 == 0 { 160_000 } else { 50_000 };
        // Under Wine a start can fail now and then ("Internal error", 1359) after the many
        // kills before it: that start is tried again, never counted as a kill.
        let mut tries = 0;
        let mut child = loop {
            match home
                .cli_command(args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
            {
                Ok(child) => break child,
                Err(e) if tries < 10 => {
                    eprintln!("round {round}: the installer did not start ({e}); again");
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(200));
                }
                Err(e) => panic!("round {round}: the installer does not start: {e}"),
            }
        };
        std::thread::sleep(Duration::from_micros(moments.next_micros(span)));
        let _ = child.kill(); // SIGKILL on Unix
        if child.wait().is_ok_and(|s| !s.success()) {
            killed += 1;
        }
        for (file, now) in contents(&files) {
            assert!(
                now == original[&file] || now == installed[&file],
                "round {round} (seed {seed}): {} is neither the old nor the new content:\n{now}",
                file.display()
            );
            torn_checks += 1;
        }
    }
    assert_eq!(torn_checks, 50 * files.len());
    eprintln!("kill -9 landed before the end in {killed} of 50 rounds (seed {seed})");

    // Whatever moment the last kill hit, a full run finishes the job both ways.
    assert!(home.cli(&["install", "--hook", hook]).status.success());
    assert_eq!(contents(&files), installed);
    assert!(home.cli(&["--uninstall"]).status.success());
    assert_eq!(contents(&files), original);
    // …and leaves no temp file of a killed run behind in the agents' folders.
    let leftovers: Vec<_> = crate::common::snapshot(&home.root)
        .into_keys()
        .filter(|p| p.to_string_lossy().contains("vults-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
