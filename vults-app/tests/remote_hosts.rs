//! `vults-app remote add` / `remove` with the installer's rules, on a "host" reached through a
//! stand-in `ssh` (`VULTS_SSH`): a script that runs the remote command with `sh` in a folder
//! standing for the host's home. The real-ssh end-to-end run is
//! `tests/real-agents/ssh_host.rs`; this one runs everywhere Unix, fast.
//!
//! Checked: the hook placed with its SHA-256 and recorded, the agents' commands naming it with
//! the host's `VULTS_HOME`, the socket's 0700 folder, a `.bak`, a second add changing no byte, a
//! tampered hook replaced, a symlinked settings file written through, a file that does not parse
//! never touched (and blocking remove until fixed), a host of another system refused with a
//! clear word, and remove giving every file back byte for byte.
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct World {
    root: PathBuf,
}

impl World {
    fn new(name: &str) -> World {
        let root = std::env::temp_dir().join(format!("vults-remote-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("host")).unwrap();
        fs::create_dir_all(root.join("local")).unwrap();
        fs::create_dir_all(root.join("fakebin")).unwrap();
        let w = World { root };
        // The stand-in ssh: drops the options up to `--`, then the target, and runs the command
        // as a remote shell would, with HOME at the host's home (and `uname` from fakebin when
        // one is there).
        w.script(
            "ssh",
            &format!(
                "#!/bin/sh\nwhile [ $# -gt 0 ]; do case \"$1\" in --) shift; break;; *) shift;; esac; done\n\
                 shift\ncd {host} && HOME={host} PATH={bin}:$PATH exec sh -c \"$*\"\n",
                host = w.host().display(),
                bin = w.root.join("fakebin").display()
            ),
        );
        fs::write(
            w.root.join("hook"),
            "#!/bin/sh\n# a stand-in vults-hook\nexit 0\n",
        )
        .unwrap();
        w
    }

    fn script(&self, name: &str, text: &str) -> PathBuf {
        let dir = if name == "ssh" {
            self.root.clone()
        } else {
            self.root.join("fakebin")
        };
        let p = dir.join(name);
        fs::write(&p, text).unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    fn host(&self) -> PathBuf {
        self.root.join("host")
    }

    fn cli(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_vults-app"))
            .args(args)
            .env("VULTS_HOME", self.root.join("local"))
            .env("HOME", self.root.join("local-home"))
            .env("VULTS_SSH", self.root.join("ssh"))
            .env_remove("VULTS_AGENT_HOME")
            .env_remove("VULTS_SOCKET")
            .output()
            .unwrap()
    }

    fn add(&self) -> (i32, String) {
        let hook = self.root.join("hook");
        let out = self.cli(&[
            "remote",
            "add",
            "me@devbox",
            "--hook",
            hook.to_str().unwrap(),
            "--",
            "-o",
            "SomeOption=yes",
        ]);
        (out.status.code().unwrap_or(-1), text(&out))
    }
}

impl Drop for World {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = fs::remove_dir_all(&self.root);
        }
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn sha256(path: &Path) -> String {
    let out = Command::new("sha256sum").arg(path).output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

/// Every file under `dir` with its bytes (symlinks as their target's name).
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            let t = e.file_type().unwrap();
            if t.is_symlink() {
                out.push((
                    rel,
                    fs::read_link(&p)
                        .unwrap()
                        .to_string_lossy()
                        .as_bytes()
                        .to_vec(),
                ));
            } else if t.is_dir() {
                stack.push(p);
            } else {
                out.push((rel, fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

const CLAUDE: &str = r#"{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/audit.sh"}]}
    ]
  },
  "statusLine": {"type": "command", "command": "~/bin/status.sh"}
}
"#;

#[test]
fn remote_add_and_remove_keep_the_installers_promises_on_the_host() {
    let w = World::new("promises");
    let host = w.host();
    fs::create_dir_all(host.join(".claude")).unwrap();
    fs::create_dir_all(host.join(".qwen")).unwrap();
    fs::create_dir_all(host.join("dotfiles")).unwrap();
    // Claude Code's settings are a symlink into the user's dotfiles.
    fs::write(host.join("dotfiles/claude.json"), CLAUDE).unwrap();
    std::os::unix::fs::symlink(
        host.join("dotfiles/claude.json"),
        host.join(".claude/settings.json"),
    )
    .unwrap();
    let broken = "{ \"model\": \"x\", oops\n";
    fs::write(host.join(".qwen/settings.json"), broken).unwrap();
    let before = snapshot(&host);

    // add: the hook, its hash, Claude Code's hooks; Qwen's file does not parse and is left.
    let (code, said) = w.add();
    assert_eq!(code, 1, "an unparsable file is reported (exit 1):\n{said}");
    assert!(said.contains("Qwen Code"), "{said}");
    assert_eq!(
        fs::read_to_string(host.join(".qwen/settings.json")).unwrap(),
        broken,
        "a file that does not parse is never rewritten"
    );
    let vh = host.join(".local/share/vults/host");
    let hook = vh.join("data/bin/vults-hook");
    assert_eq!(sha256(&hook), sha256(&w.root.join("hook")));
    assert_eq!(
        fs::metadata(&hook).unwrap().permissions().mode() & 0o777,
        0o755
    );
    assert_eq!(
        fs::metadata(vh.join("run")).unwrap().permissions().mode() & 0o777,
        0o700,
        "the socket's folder is the host user's only"
    );
    assert!(
        fs::symlink_metadata(host.join(".claude/settings.json"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the symlink stays a symlink"
    );
    let claude = fs::read_to_string(host.join("dotfiles/claude.json")).unwrap();
    let word = format!(
        "VULTS_HOME='{}' '{}' --agent claude PermissionRequest",
        vh.display(),
        hook.display()
    );
    assert!(claude.contains(&word), "{word} not in:\n{claude}");
    assert!(
        claude.contains("~/bin/audit.sh"),
        "the user's own hook stays"
    );
    assert_eq!(
        fs::read_to_string(host.join(".claude/settings.json.bak")).unwrap(),
        CLAUDE,
        "a .bak of the original"
    );
    let record = fs::read_to_string(vh.join("config/install.json")).unwrap();
    assert!(record.contains(&sha256(&hook)), "{record}");
    assert!(
        record.contains("~/bin/status.sh"),
        "the user's status line kept"
    );
    assert!(
        !record.contains("/local/"),
        "the record names host paths:\n{record}"
    );
    let list = String::from_utf8_lossy(&w.cli(&["remote", "list"]).stdout).into_owned();
    assert!(list.starts_with("devbox  me@devbox"), "{list}");

    // A second add changes no byte.
    let once = snapshot(&host);
    let (_, said) = w.add();
    assert!(said.contains("0 file(s) written"), "{said}");
    assert_eq!(snapshot(&host), once, "a second add changes nothing");

    // A tampered hook is replaced, and checked again.
    fs::write(&hook, "#!/bin/sh\necho evil\n").unwrap();
    let (_, said) = w.add();
    assert!(said.contains("hook placed"), "{said}");
    assert_eq!(sha256(&hook), sha256(&w.root.join("hook")));

    // remove: refused while Qwen's file does not parse (the hook stays), then everything back.
    let out = w.cli(&["remote", "remove", "devbox"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(hook.is_file(), "a file Vults could not edit keeps the hook");
    let fixed = "{}\n";
    fs::write(host.join(".qwen/settings.json"), fixed).unwrap();
    let out = w.cli(&["remote", "remove", "devbox"]);
    assert!(out.status.success(), "{}", text(&out));
    let after: Vec<_> = snapshot(&host)
        .into_iter()
        .filter(|(p, _)| !p.ends_with(".bak"))
        .collect();
    let want: Vec<_> = before
        .into_iter()
        .map(|(p, b)| {
            if p == ".qwen/settings.json" {
                (p, fixed.as_bytes().to_vec())
            } else {
                (p, b)
            }
        })
        .collect();
    assert_eq!(
        after, want,
        "remove gives the host's files back byte for byte"
    );
    assert!(!vh.exists(), "Vults' folder on the host is gone");
    let list = String::from_utf8_lossy(&w.cli(&["remote", "list"]).stdout).into_owned();
    assert!(list.starts_with("No hosts"), "{list}");
}

#[test]
fn a_host_out_of_reach_is_named_and_can_be_forgotten_without_touching_it() {
    let w = World::new("reach");
    fs::create_dir_all(w.host().join(".claude")).unwrap();
    fs::write(w.host().join(".claude/settings.json"), "{}\n").unwrap();
    let (code, said) = w.add();
    assert_eq!(code, 0, "{said}");
    let installed = snapshot(&w.host());
    // The host goes away: every ssh fails as ssh does.
    fs::write(
        w.root.join("ssh"),
        "#!/bin/sh\necho 'ssh: connect to host devbox port 22: No route to host' >&2\nexit 255\n",
    )
    .unwrap();
    let out = w.cli(&["remote", "remove", "devbox"]);
    assert_eq!(out.status.code(), Some(1));
    let said = text(&out);
    assert!(
        said.contains("No route to host") && said.contains("remote remove --forget devbox"),
        "{said}"
    );
    let out = w.cli(&["remote", "remove", "--forget", "devbox"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        snapshot(&w.host()),
        installed,
        "--forget touches nothing on the host"
    );
    let list = String::from_utf8_lossy(&w.cli(&["remote", "list"]).stdout).into_owned();
    assert!(list.starts_with("No hosts"), "{list}");
}

#[test]
fn a_host_of_another_system_without_a_hook_for_it_is_refused_clearly() {
    let w = World::new("system");
    fs::create_dir_all(w.host().join(".claude")).unwrap();
    fs::write(w.host().join(".claude/settings.json"), "{}\n").unwrap();
    w.script("uname", "#!/bin/sh\necho 'SunOS sparc64'\n");
    let before = snapshot(&w.host());
    let (code, said) = w.add();
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("no vults-hook for SunOS sparc64")
            && said.contains("sunos-sparc64/vults-hook"),
        "{said}"
    );
    assert_eq!(
        snapshot(&w.host()),
        before,
        "nothing is written on the host"
    );
    let list = String::from_utf8_lossy(&w.cli(&["remote", "list"]).stdout).into_owned();
    assert!(list.starts_with("No hosts"), "{list}");
}
