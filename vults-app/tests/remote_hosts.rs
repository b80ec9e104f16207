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
    /// The workspace's one temp-folder helper (kept when a test fails).
    _home: vults_tests::TempHome,
    root: PathBuf,
}

impl World {
    fn new(name: &str) -> World {
        let home = vults_tests::TempHome::empty(&format!("rh-{name}"));
        let root = home.dir.clone();
        fs::create_dir_all(root.join("host")).unwrap();
        fs::create_dir_all(root.join("local")).unwrap();
        fs::create_dir_all(root.join("fakebin")).unwrap();
        let w = World { _home: home, root };
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

/// A compromised host, as a stand-in ssh plays it: the probe and the file copy answer what
/// the attacker wants (`answer`: the probe's lines; `archive`: the tar stream), everything
/// else runs on the stand-in host as usual.
fn hostile(w: &World, probe: Option<&str>, archive: Option<&Path>) {
    let mut cases = String::new();
    if let Some(p) = probe {
        cases.push_str(&format!("  *'uname -sm'*) printf '{p}'; exit 0;;\n"));
    }
    if let Some(a) = archive {
        cases.push_str(&format!(
            "  *'tar -chf'*) cat '{}'; exit 0;;\n",
            a.display()
        ));
    }
    w.script(
        "ssh",
        &format!(
            "#!/bin/sh\nwhile [ $# -gt 0 ]; do case \"$1\" in --) shift; break;; *) shift;; esac; done\n\
             shift\ncase \"$*\" in\n{cases}esac\n\
             cd {host} && HOME={host} exec sh -c \"$*\"\n",
            host = w.host().display(),
        ),
    );
}

/// GNU tar's archive of `names` under `dir`, as a hostile host would send it (links kept as
/// links, `-P`: names as given, absolute and `..` ones too).
fn tar_of(dir: &Path, names: &[&str], out: &Path) {
    let status = Command::new("tar")
        .arg("-cPf")
        .arg(out)
        .arg("-C")
        .arg(dir)
        .args(names)
        .status()
        .unwrap();
    assert!(status.success());
}

/// What a compromised host sends is data, never paths, links or commands: a settings file or
/// an install record that is a symlink to a local file (an agent's credentials, the local
/// `install.json`), members with `..` or absolute names, a hard link, a `D /abs` probe line,
/// and a status line of its own. Every `remote add` fails clearly; nothing outside the staging
/// folder changes here (and the stage is gone), no local folder is made, nothing the host sent
/// runs here, and nothing is written on the host.
#[test]
fn a_compromised_host_cannot_reach_back_during_remote_add() {
    let w = World::new("hostile");
    let host = w.host();
    fs::create_dir_all(host.join(".claude")).unwrap();
    fs::write(host.join(".claude/settings.json"), "{}\n").unwrap();
    // This machine's files the attacker aims at.
    let victim = w.root.join("victim");
    fs::create_dir_all(&victim).unwrap();
    let credentials = victim.join("credentials.json");
    fs::write(&credentials, "{\"token\": \"secret\"}\n").unwrap();
    let local_record = w.root.join("local/config/install.json");
    fs::create_dir_all(local_record.parent().unwrap()).unwrap();
    fs::write(&local_record, "{}\n").unwrap();
    let ran = w.root.join("ran-here");
    let evil = w.root.join("evil");
    let record = ".local/share/vults/host/config/install.json";
    let mk = |rel: &str| {
        let p = evil.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        let _ = fs::remove_file(&p);
        p
    };
    let local_snapshot = || {
        let mut all = snapshot(&w.root.join("local"));
        all.extend(snapshot(&victim));
        all
    };
    let before_here = local_snapshot();
    let before_there = snapshot(&host);
    let archive = w.root.join("evil.tar");
    let check = |what: &str, want: &str| {
        let (code, said) = w.add();
        assert_eq!(code, 1, "{what}: remote add must fail:\n{said}");
        assert!(said.contains(want), "{what}: {want:?} not in:\n{said}");
        assert_eq!(
            local_snapshot(),
            before_here,
            "{what}: a local file changed"
        );
        assert_eq!(
            snapshot(&host),
            before_there,
            "{what}: the host was written"
        );
        assert!(!ran.exists(), "{what}: the host's command ran here");
        assert!(
            !w.root.join("local/data/hosts/devbox.stage").exists(),
            "{what}: the stage was left behind"
        );
        let list = String::from_utf8_lossy(&w.cli(&["remote", "list"]).stdout).into_owned();
        assert!(list.starts_with("No hosts"), "{what}: {list}");
    };

    // 1. settings.json as a symlink to a local file (it was rewritten and uploaded).
    std::os::unix::fs::symlink(&credentials, mk(".claude/settings.json")).unwrap();
    tar_of(&evil, &[".claude/settings.json"], &archive);
    hostile(&w, None, Some(&archive));
    check("a symlinked settings.json", "as a symlink");

    // 2. The install record as a symlink to a local file (it was overwritten, no backup).
    let _ = fs::remove_dir_all(&evil);
    std::os::unix::fs::symlink(&credentials, mk(record)).unwrap();
    tar_of(&evil, &[record], &archive);
    check("a symlinked install record", "as a symlink");

    // 3. The record as a symlink to the local install.json, and a status line of the host's:
    //    it became the local user's status line, run by the local hook.
    let _ = fs::remove_dir_all(&evil);
    std::os::unix::fs::symlink(&local_record, mk(record)).unwrap();
    fs::write(
        mk(".claude/settings.json"),
        format!(
            "{{\"statusLine\": {{\"type\": \"command\", \"command\": \"touch {}\"}}}}\n",
            ran.display()
        ),
    )
    .unwrap();
    tar_of(&evil, &[".claude/settings.json", record], &archive);
    check("a symlinked record and a statusLine", "as a symlink");
    assert!(!ran.exists());

    // 4. Members with '..' and absolute names.
    let _ = fs::remove_dir_all(&evil);
    fs::write(mk("x.json"), "{}\n").unwrap();
    fs::create_dir_all(evil.join(".claude")).unwrap();
    tar_of(&evil.join(".claude"), &["../x.json"], &archive);
    check("a '..' member", "'..'");
    tar_of(&evil, &[&credentials.to_string_lossy()], &archive);
    check("an absolute member", "absolute");

    // 5. A hard link to another member.
    let _ = fs::remove_dir_all(&evil);
    fs::write(mk(".claude/settings.json"), "{}\n").unwrap();
    fs::hard_link(
        evil.join(".claude/settings.json"),
        mk(".qwen/settings.json"),
    )
    .unwrap();
    tar_of(
        &evil,
        &[".claude/settings.json", ".qwen/settings.json"],
        &archive,
    );
    check("a hard link", "hard link");

    // 6. A probe line naming a local folder (it was made).
    let made = w.root.join("made-here");
    hostile(
        &w,
        Some(&format!(
            "Linux x86_64\\n{}\\nD {}\\n",
            host.display(),
            made.display()
        )),
        None,
    );
    check("a D /abs line", "did not ask about");
    assert!(!made.exists(), "a local folder was made");

    // 7. Without any trick, the host's status line stays the host's: the local record and the
    //    local hook never see it.
    hostile(&w, None, None);
    fs::write(
        host.join(".claude/settings.json"),
        format!(
            "{{\"statusLine\": {{\"type\": \"command\", \"command\": \"touch {}\"}}}}\n",
            ran.display()
        ),
    )
    .unwrap();
    let (code, said) = w.add();
    assert_eq!(code, 0, "{said}");
    assert_eq!(fs::read_to_string(&local_record).unwrap(), "{}\n");
    // The real hook, as Claude Code runs this machine's status line.
    let hook = Command::new(vults_tests::built_hook_bin())
        .args(["--agent", "claude", "--statusline", "StatusLine"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("VULTS_HOME", w.root.join("local"))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(hook.status.success());
    assert!(!ran.exists(), "the host's status line ran here");
    assert_eq!(
        fs::read(&credentials).unwrap(),
        b"{\"token\": \"secret\"}\n"
    );

    // 8. `remote remove` reads the host the same way: a symlinked settings.json is refused,
    //    nothing here changes, and the host stays in the list.
    let _ = fs::remove_dir_all(&evil);
    std::os::unix::fs::symlink(&credentials, mk(".claude/settings.json")).unwrap();
    tar_of(&evil, &[".claude/settings.json"], &archive);
    hostile(&w, None, Some(&archive));
    let here = local_snapshot();
    let out = w.cli(&["remote", "remove", "devbox"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("as a symlink"), "{}", text(&out));
    assert_eq!(local_snapshot(), here, "remove changed a local file");
    let list = String::from_utf8_lossy(&w.cli(&["remote", "list"]).stdout).into_owned();
    assert!(list.starts_with("devbox"), "{list}");
}

/// On the host, the upload never follows a link and never trusts a loose folder: a symlink
/// planted at the hook's place (to `~/.bashrc`) is replaced, not written through; Vults' own
/// folders left 0777 are made 0700; a folder on the way owned by another host user (root
/// only: it needs a second user) or `$HOME` writable by others is refused, with nothing written.
#[test]
fn the_hooks_place_and_vults_folders_on_the_host_are_checked() {
    let w = World::new("hostdirs");
    let host = w.host();
    fs::create_dir_all(host.join(".claude")).unwrap();
    fs::write(host.join(".claude/settings.json"), "{}\n").unwrap();
    let bashrc = host.join(".bashrc");
    fs::write(&bashrc, "export PS1='$ '\n").unwrap();
    let vh = host.join(".local/share/vults/host");
    let bin = vh.join("data/bin");
    fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(&bashrc, bin.join("vults-hook")).unwrap();
    let mode = |p: &Path| fs::symlink_metadata(p).unwrap().permissions().mode() & 0o777;
    for d in [&vh, &vh.join("data"), &bin] {
        fs::set_permissions(d, fs::Permissions::from_mode(0o777)).unwrap();
    }

    let (code, said) = w.add();
    assert_eq!(code, 0, "{said}");
    assert_eq!(
        fs::read_to_string(&bashrc).unwrap(),
        "export PS1='$ '\n",
        "the link's target is unchanged"
    );
    let hook = bin.join("vults-hook");
    assert!(fs::symlink_metadata(&hook).unwrap().file_type().is_file());
    assert_eq!(sha256(&hook), sha256(&w.root.join("hook")));
    for d in [
        &vh,
        &vh.join("data"),
        &bin,
        &vh.join("run"),
        &vh.join("config"),
    ] {
        assert_eq!(mode(d), 0o700, "{} is made private", d.display());
    }
    let record = vh.join("config/install.json");
    assert!(fs::symlink_metadata(&record).unwrap().file_type().is_file());

    // The install record as a link to another file of the host user's: replaced, not followed.
    let elsewhere = host.join("notes.json");
    fs::write(&elsewhere, "{\"mine\": true}\n").unwrap();
    fs::remove_file(&record).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &record).unwrap();
    fs::write(&hook, "#!/bin/sh\necho tampered\n").unwrap();
    let (code, said) = w.add();
    assert_eq!(code, 0, "{said}");
    assert_eq!(
        fs::read_to_string(&elsewhere).unwrap(),
        "{\"mine\": true}\n"
    );

    // $HOME writable by others: refused before anything is written.
    fs::set_permissions(&host, fs::Permissions::from_mode(0o777)).unwrap();
    fs::write(&hook, "#!/bin/sh\necho tampered again\n").unwrap();
    let before = snapshot(&host);
    let (code, said) = w.add();
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("can be written by others"), "{said}");
    assert_eq!(snapshot(&host), before, "nothing is written on the host");
    fs::set_permissions(&host, fs::Permissions::from_mode(0o755)).unwrap();

    // A folder on the way owned by another user: refused, whatever its mode.
    let other = Command::new("id").args(["-u", "vults-other"]).output().ok();
    let other = other
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok()?.trim().parse::<u32>().ok());
    match other {
        Some(uid) if vults_core::paths::current_uid() == 0 => {
            std::os::unix::fs::chown(vh.join("data"), Some(uid), None).unwrap();
            let before = snapshot(&host);
            let (code, said) = w.add();
            assert_eq!(code, 1, "{said}");
            assert!(
                said.contains(&format!("data belongs to uid {uid}")),
                "{said}"
            );
            assert_eq!(snapshot(&host), before, "nothing is written on the host");
        }
        _ => eprintln!("not root or no vults-other user: the other owner's case is skipped"),
    }
}
