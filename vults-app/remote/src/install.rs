//! `vults-app remote add` and `remove`: the installer's own code and rules, on a host.
//!
//! The host's agent config files (and Vults' install record there) are copied into a private
//! local folder laid out as the host's home (a `Stage`); the installer runs on that copy exactly
//! as it does locally (merge, `.bak` before the first change, idempotent, a file that does not
//! parse is never rewritten, uninstall removes exactly what was added), with the agents'
//! commands naming the hook where it lives on the host ([`InstallOptions::hook_at`]). Then each
//! file that changed is written back on the host atomically (a temp file beside it, renamed over
//! it; an existing file keeps its mode), and each file the installer removed is removed there.
//!
//! The hook is uploaded first and its SHA-256 checked on the host before any config names it.

use super::host::{HOST_VULTS_HOME, Host, HostList, check_home, hook_for, shell_quote, work_dir};
use crate::error::Error;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use vults_core::paths::Paths;
use vults_installer::state::{InstallState, sha256_hex};
use vults_installer::{AgentReport, AgentState, HookAt, InstallOptions, default_hook_source};

/// What `remote add` did.
#[derive(Debug)]
pub struct Added {
    /// The host as saved in `hosts.json`.
    pub host: Host,
    /// What was done for each agent on the host.
    pub reports: Vec<AgentReport>,
    /// The local hook that was placed (or was there already).
    pub hook_source: PathBuf,
    /// Whether the hook was uploaded (it was missing or another version).
    pub uploaded: bool,
    /// Files written back on the host (relative to its home).
    pub written: Vec<String>,
}

/// What `remote remove` did.
#[derive(Debug)]
pub struct Removed {
    /// What was done for each agent on the host.
    pub reports: Vec<AgentReport>,
    /// Files written back on the host (relative to its home).
    pub written: Vec<String>,
}

/// Adds (or repairs) `host`: places the hook, registers it in the agents found there, and
/// keeps the host in the list. `hook`: the local `vults-hook` (default: beside this program).
pub fn add(paths: &Paths, mut host: Host, hook: Option<&Path>) -> Result<Added, Error> {
    let mut list = HostList::load(paths)?;
    let stage = Stage::fetch(paths, &mut host)?;
    let local_hook = hook.map(Path::to_path_buf).or_else(default_hook_source);
    let source = hook_for(&host.system, local_hook.as_deref())?;
    let opts = InstallOptions {
        only: Vec::new(),
        hook_at: Some(HookAt {
            word: host.hook_word(),
            path: host.hook_path(),
        }),
    };
    let reports = vults_installer::install_all(&stage.paths, &source, &opts);
    // The record names the hook where the host's files (and people) find it.
    let mut state = InstallState::load(&stage.paths);
    let staged_hook = stage.paths.installed_hook();
    let bytes = std::fs::read(&staged_hook).map_err(Error::HookNotPlaced)?;
    let sha = sha256_hex(&bytes);
    if let Some(rec) = &mut state.hook {
        rec.path = host.hook_path();
    }
    state.save(&stage.paths).map_err(|source| Error::Local {
        doing: "write the host's install record".into(),
        source,
    })?;

    // Vults' folders on the host, from $HOME down, checked (and its own made private, the
    // socket's too) before anything is written there; then the hook, checked on the host.
    prepare(&host, true)?;
    let uploaded = stage.host_hook_sha.as_deref() != Some(sha.as_str());
    if uploaded {
        write_own(&host, &stage.rel_hook, &bytes, 0o755)?;
    }
    let there = remote_sha(&host, &stage.rel_hook)?;
    if there != sha {
        return Err(Error::HookDiffers {
            host: host.name.clone(),
            there,
            sent: sha,
        });
    }
    let written = stage.write_back(&host)?;
    host.hook_sha256 = sha;
    list.put(host.clone());
    list.save(paths).map_err(|source| Error::Save {
        path: HostList::file(paths),
        source,
    })?;
    let reports = for_host(reports, &stage, &host);
    drop(stage);
    Ok(Added {
        host,
        reports,
        hook_source: source,
        uploaded,
        written,
    })
}

/// Forgets `name` without touching anything on it (a host you cannot reach any more): its
/// agents keep running the hook, which stays silent without a link.
pub fn forget(paths: &Paths, name: &str) -> Result<(), Error> {
    let mut list = HostList::load(paths)?;
    if list.remove(name).is_none() {
        return Err(Error::NoSuchHost(name.to_string()));
    }
    list.save(paths).map_err(|source| Error::Save {
        path: HostList::file(paths),
        source,
    })
}

/// Takes Vults out of `name`'s agents (their files as they were), removes the hook and Vults'
/// folder there, and forgets the host. A file Vults could not edit keeps the hook and the host
/// (the error says which).
pub fn remove(paths: &Paths, name: &str) -> Result<Removed, Error> {
    let mut list = HostList::load(paths)?;
    let mut host = list
        .get(name)
        .cloned()
        .ok_or_else(|| Error::NoSuchHost(name.to_string()))?;
    let stage = Stage::fetch(paths, &mut host).map_err(|e| Error::Unreachable {
        name: name.to_string(),
        source: Box::new(e),
    })?;
    let reports = vults_installer::uninstall_all(&stage.paths);
    prepare(&host, false)?;
    let written = stage.write_back(&host)?;
    let reports = for_host(reports, &stage, &host);
    let stuck: Vec<String> = reports
        .iter()
        .filter(|r| {
            matches!(
                r.state,
                AgentState::Unparsable { .. } | AgentState::Failed(_)
            )
        })
        .map(|r| r.agent.display_name().to_string())
        .collect();
    if !stuck.is_empty() {
        return Err(Error::Stuck {
            host: host.name.clone(),
            agents: stuck,
            reports: vults_installer::format_reports(&reports),
        });
    }
    let vh = shell_quote(HOST_VULTS_HOME);
    host.run(
        &format!(
            "cd \"$HOME\" || exit 1; rm -f {vh}/data/bin/vults-hook {vh}/run/vults.sock; \
             rmdir {vh}/data/bin {vh}/data {vh}/run {vh}/config {vh} .local/share/vults 2>/dev/null; \
             exit 0"
        ),
        None,
    )?;
    list.remove(name);
    list.save(paths).map_err(|source| Error::Save {
        path: HostList::file(paths),
        source,
    })?;
    drop(stage);
    Ok(Removed { reports, written })
}

/// A local copy of a host's agent config files, laid out as its home.
struct Stage {
    root: PathBuf,
    /// Paths as the installer sees the host: its home is `root/home`.
    paths: Paths,
    /// Every file the installer may write, relative to the home.
    rels: Vec<String>,
    /// What each of them held on the host (absent: not there).
    before: BTreeMap<String, Vec<u8>>,
    /// The hook, relative to the home.
    rel_hook: String,
    /// SHA-256 of the hook already on the host.
    host_hook_sha: Option<String>,
}

impl Stage {
    /// Asks the host what it is and copies its files. Fills `host.system` and `host.home`. On
    /// failure nothing of the stage is left.
    fn fetch(paths: &Paths, host: &mut Host) -> Result<Stage, Error> {
        let root = work_dir(paths).join(format!("{}.stage", host.name));
        let _ = std::fs::remove_dir_all(&root);
        let stage = Stage::fetch_into(&root, host);
        if stage.is_err() {
            let _ = std::fs::remove_dir_all(&root);
        }
        stage
    }

    fn fetch_into(root: &Path, host: &mut Host) -> Result<Stage, Error> {
        let root = root.to_path_buf();
        vults_core::paths::private_dir(&root).map_err(|source| Error::Local {
            doing: format!("make {}", root.display()),
            source,
        })?;
        let home = root.join("home");
        let vults = home.join(HOST_VULTS_HOME);
        let stage_paths = Paths {
            config_dir: vults.join("config"),
            data_dir: vults.join("data"),
            runtime_dir: root.join("run"),
            log_dir: root.join("log"),
            socket: root.join("run").join("vults.sock"),
            agent_home: home.clone(),
        };
        let rel = |p: &Path| {
            p.strip_prefix(&home)
                .ok()
                .map(|r| r.to_string_lossy().into_owned())
        };
        let files = vults_installer::config_files(&stage_paths);
        let dirs: Vec<String> = files.iter().filter_map(|(_, d, _)| rel(d)).collect();
        let mut rels: Vec<String> = files
            .iter()
            .flat_map(|(_, _, fs)| fs.iter().filter_map(|f| rel(f)))
            .collect();
        rels.push(rel(&stage_paths.install_state_file()).unwrap_or_default());
        let rel_hook = rel(&stage_paths.installed_hook()).unwrap_or_default();

        let words = |list: &[String]| {
            list.iter()
                .map(|s| shell_quote(s))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let probe = format!(
            "uname -sm; printf '%s\\n' \"$HOME\"; cd \"$HOME\" || exit 1; \
             for d in {dirs}; do if [ -d \"$d\" ]; then printf 'D %s\\n' \"$d\"; fi; done; \
             h={hook}; if [ -f \"$h\" ] && [ ! -L \"$h\" ]; then printf 'H '; \
             (sha256sum \"$h\" 2>/dev/null || shasum -a 256 \"$h\") | cut -d' ' -f1; fi; exit 0",
            dirs = words(&dirs),
            hook = shell_quote(&rel_hook),
        );
        let out = String::from_utf8_lossy(&host.run(&probe, None)?).into_owned();
        let mut lines = out.lines();
        host.system = lines.next().unwrap_or_default().trim().to_string();
        host.home = lines.next().unwrap_or_default().trim().to_string();
        if host.system.is_empty() || !host.home.starts_with('/') {
            return Err(Error::NotUnix {
                host: host.name.clone(),
                said: out,
            });
        }
        check_home(&host.home).map_err(|e| Error::OnHost {
            host: host.name.clone(),
            source: Box::new(e),
        })?;
        std::fs::create_dir_all(&home).map_err(|source| Error::Local {
            doing: "stage".into(),
            source,
        })?;
        // What the host answers is data: a folder line names one of the folders asked about, or
        // it is refused (a `D /abs/path` once made that local folder).
        let mut host_hook_sha = None;
        for line in lines {
            if let Some(d) = line.strip_prefix("D ") {
                if !dirs.iter().any(|asked| asked == d) {
                    return Err(Error::UnaskedFolder {
                        host: host.name.clone(),
                        folder: d.to_string(),
                    });
                }
                make_staged_dir(&home, d)?;
            } else if let Some(h) = line.strip_prefix("H ") {
                let h = h.trim();
                if h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()) {
                    host_hook_sha = Some(h.to_ascii_lowercase());
                }
            }
        }
        // COPYFILE_DISABLE: macOS's tar adds no `._` AppleDouble members.
        let tar = format!(
            "cd \"$HOME\" || exit 1; set --; for f in {files}; do \
             if [ -f \"$f\" ]; then set -- \"$@\" \"$f\"; fi; done; \
             if [ $# -gt 0 ]; then COPYFILE_DISABLE=1 exec tar -chf - \"$@\"; fi",
            files = words(&rels),
        );
        let archive = host.run(&tar, None)?;
        // Each member as bytes, checked against the names asked for; nothing is extracted.
        let expected: BTreeSet<String> = rels.iter().cloned().collect();
        let members = if archive.is_empty() {
            BTreeMap::new()
        } else {
            super::archive::files(&archive, &expected).map_err(|source| Error::Archive {
                host: host.name.clone(),
                source,
            })?
        };
        for (rel, bytes) in &members {
            write_staged(&home, rel, bytes)?;
        }
        no_links_under(&root)?;
        let before = members;
        // The record names files by their paths on the host; the installer works on the copy.
        rename_record(&stage_paths, &host.home, &home.to_string_lossy())?;
        Ok(Stage {
            root,
            paths: stage_paths,
            rels,
            before,
            rel_hook,
            host_hook_sha,
        })
    }

    /// Writes back each file that changed, removes each that went; returns what was touched.
    fn write_back(&self, host: &Host) -> Result<Vec<String>, Error> {
        let home = &self.paths.agent_home;
        // Nothing under the stage may lead elsewhere: what is sent back is read from the stage.
        no_links_under(&self.root)?;
        rename_record(&self.paths, &home.to_string_lossy(), &host.home)?;
        let mut touched = Vec::new();
        // The install record last: it says what the configs hold.
        let mut order: Vec<&String> = self.rels.iter().collect();
        order.sort_by_key(|r| r.ends_with("install.json"));
        for rel in order {
            let now = std::fs::read(home.join(rel)).ok();
            if now.as_ref() == self.before.get(rel) {
                continue;
            }
            match now {
                // Vults' own files there (the install record) are replaced, never written
                // through a link; the agents' files are written through theirs.
                Some(bytes) if rel.starts_with(HOST_VULTS_HOME) => {
                    write_own(host, rel, &bytes, 0o600)?;
                }
                Some(bytes) => {
                    let mode = file_mode(&home.join(rel));
                    write_file(host, rel, &bytes, mode)?;
                }
                None => {
                    host.run(&format!("rm -f \"$HOME\"/{}", shell_quote(rel)), None)?;
                }
            }
            touched.push(rel.clone());
        }
        Ok(touched)
    }
}

/// The stage goes when it is done with, whatever happened (it holds copies of the host's
/// files, which may hold secrets).
impl Drop for Stage {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Renames the files named in the install record at `paths` from under `from` to under `to`
/// (the host's home and the local copy's), so the record on the host names the host's files.
fn rename_record(paths: &Paths, from: &str, to: &str) -> Result<(), Error> {
    let file = paths.install_state_file();
    if !file.exists() {
        return Ok(());
    }
    let mut state = InstallState::load(paths);
    let from = format!("{}/", from.trim_end_matches('/'));
    let to = format!("{}/", to.trim_end_matches('/'));
    state.created = std::mem::take(&mut state.created)
        .into_iter()
        .map(|(k, v)| match k.strip_prefix(&from) {
            Some(rest) => (format!("{to}{rest}"), v),
            None => (k, v),
        })
        .collect();
    state.save(paths).map_err(|source| Error::Local {
        doing: "write the install record".into(),
        source,
    })
}

/// The reports as about the host: its files by their paths there, OpenCode left out.
fn for_host(mut reports: Vec<AgentReport>, stage: &Stage, host: &Host) -> Vec<AgentReport> {
    reports.retain(|r| vults_installer::on_hosts(r.agent));
    for r in &mut reports {
        if let Some(p) = &r.path
            && let Ok(rest) = p.strip_prefix(&stage.paths.agent_home)
        {
            r.path = Some(PathBuf::from(format!(
                "{}:{}",
                host.name,
                Path::new(&host.home).join(rest).display()
            )));
        }
    }
    reports
}

#[cfg(unix)]
fn file_mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .map(|m| m.permissions().mode() & 0o777)
        .unwrap_or(0o600)
}

#[cfg(not(unix))]
fn file_mode(_path: &Path) -> u32 {
    0o600
}

/// Writes `bytes` to `$HOME/<rel>` on the host atomically: a temp file beside the target (a
/// symlink's target), renamed over it. An existing file keeps its mode; a new one gets `mode`;
/// new folders are private.
fn write_file(host: &Host, rel: &str, bytes: &[u8], mode: u32) -> Result<(), Error> {
    let script = format!(
        "umask 077; f=\"$HOME\"/{rel}; t=$(readlink -f \"$f\" 2>/dev/null) || t=; \
         [ -n \"$t\" ] || t=\"$f\"; d=$(dirname \"$t\"); mkdir -p \"$d\" || exit 1; \
         tmp=\"$d/.$(basename \"$t\").vults-tmp-$$\"; \
         if [ -f \"$t\" ]; then cp -p \"$t\" \"$tmp\" && cat > \"$tmp\"; \
         else cat > \"$tmp\" && chmod {mode:o} \"$tmp\"; fi || {{ rm -f \"$tmp\"; exit 1; }}; \
         mv -f \"$tmp\" \"$t\" || {{ rm -f \"$tmp\"; exit 1; }}",
        rel = shell_quote(rel),
    );
    host.run(&script, Some(bytes))
        .map(|_| ())
        .map_err(|e| Error::Write {
            rel: rel.to_string(),
            host: host.name.clone(),
            source: Box::new(e),
        })
}

/// Vults' folders on the host, checked from `$HOME` down to the hook and the socket, before
/// anything of Vults' is written there: each must be a real folder (not a symlink), owned by
/// the host user, and writable by nobody else. Vults' own (`~/.local/share/vults` and all of
/// `host/`) are made private (0700) — missing ones made, with `make` — and `$HOME`,
/// `~/.local` and `~/.local/share` must already be so (they are not Vults' to change).
/// Anything else is refused with a clear error: another host user who can write a folder on
/// that path can replace the hook (run as the host user) or the socket (and answer its
/// agents).
fn prepare(host: &Host, make: bool) -> Result<(), Error> {
    let vh = HOST_VULTS_HOME;
    let own: Vec<String> = ["", "/data", "/data/bin", "/run", "/config"]
        .iter()
        .map(|sub| shell_quote(&format!("{vh}{sub}")))
        .collect();
    let script = format!(
        "umask 077; cd \"$HOME\" || exit 1; me=$(id -u); \
         no() {{ printf 'REFUSED %s\\n' \"$1\"; exit 0; }}; \
         look() {{ [ -L \"$1\" ] && no \"~/$1 is a symlink\"; \
           [ -e \"$1\" ] || return 1; [ -d \"$1\" ] || no \"~/$1 is not a folder\"; \
           set -- \"$1\" $(ls -ldn -- \"$1\"); \
           [ \"$4\" = \"$me\" ] || no \"~/$1 belongs to uid $4, not to you (uid $me)\"; \
           case \"$2\" in ?????w*|????????w*) return 2;; esac; return 0; }}; \
         theirs() {{ look \"$1\"; r=$?; \
           [ $r = 2 ] && no \"~/$1 can be written by others\"; \
           [ $r = 1 ] && {{ [ {make} = 1 ] && mkdir \"$1\" || return 0; }}; return 0; }}; \
         ours() {{ look \"$1\"; r=$?; \
           if [ $r = 1 ]; then [ {make} = 1 ] || return 0; mkdir \"$1\" || no \"cannot make ~/$1\"; fi; \
           chmod 700 \"$1\" || no \"cannot make ~/$1 private\"; }}; \
         look . ; [ $? = 2 ] && no 'your home folder can be written by others'; \
         theirs .local; theirs .local/share; ours .local/share/vults; {ours}; echo ok",
        make = u8::from(make),
        ours = own
            .iter()
            .map(|d| format!("ours {d}"))
            .collect::<Vec<_>>()
            .join("; "),
    );
    let out = String::from_utf8_lossy(&host.run(&script, None)?).into_owned();
    if let Some(why) = out.lines().find_map(|l| l.strip_prefix("REFUSED ")) {
        return Err(Error::UnsafeFolder {
            host: host.name.clone(),
            why: why.to_string(),
        });
    }
    if out.lines().last() != Some("ok") {
        return Err(Error::FoldersUnchecked {
            host: host.name.clone(),
            said: out,
        });
    }
    Ok(())
}

/// Writes one of Vults' own files on the host (the hook, the install record) as a new file
/// beside it, renamed over it: a symlink in its place is replaced, never followed (a link
/// planted at the hook's place once made `remote add` write the hook over `~/.bashrc`). Its
/// folder was checked by [`prepare`].
fn write_own(host: &Host, rel: &str, bytes: &[u8], mode: u32) -> Result<(), Error> {
    let script = format!(
        "umask 077; cd \"$HOME\" || exit 1; f={rel}; d=$(dirname \"$f\"); \
         if [ -L \"$d\" ] || [ ! -d \"$d\" ]; then echo \"$d is not a folder\" >&2; exit 1; fi; \
         tmp=\"$d/.vults-tmp-$$\"; rm -f \"$tmp\"; \
         (set -C; cat > \"$tmp\") && chmod {mode:o} \"$tmp\" || {{ rm -f \"$tmp\"; exit 1; }}; \
         if [ -L \"$f\" ]; then rm -f \"$f\"; fi; \
         if [ -d \"$f\" ]; then rm -f \"$tmp\"; echo \"$f is a folder\" >&2; exit 1; fi; \
         mv -f \"$tmp\" \"$f\" || {{ rm -f \"$tmp\"; exit 1; }}",
        rel = shell_quote(rel),
    );
    host.run(&script, Some(bytes))
        .map(|_| ())
        .map_err(|e| Error::Write {
            rel: rel.to_string(),
            host: host.name.clone(),
            source: Box::new(e),
        })
}

/// SHA-256 of `$HOME/<rel>` on the host.
fn remote_sha(host: &Host, rel: &str) -> Result<String, Error> {
    let out = host.run(
        &format!(
            "h=\"$HOME\"/{}; [ -L \"$h\" ] && exit 0; \
             (sha256sum \"$h\" 2>/dev/null || shasum -a 256 \"$h\") | cut -d' ' -f1",
            shell_quote(rel)
        ),
        None,
    )?;
    Ok(String::from_utf8_lossy(&out).trim().to_string())
}

/// Makes the folder `rel` (one the host was asked about) under the stage's `home`, one part at
/// a time, never through a link.
fn make_staged_dir(home: &Path, rel: &str) -> Result<(), Error> {
    let mut dir = home.to_path_buf();
    for part in Path::new(rel).components() {
        let std::path::Component::Normal(part) = part else {
            return Err(Error::CannotStage {
                rel: rel.to_string(),
                why: "not a plain relative folder".into(),
            });
        };
        dir.push(part);
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(Error::CannotStage {
                    rel: rel.to_string(),
                    why: format!("{} is not a folder", dir.display()),
                });
            }
            Err(_) => vults_core::paths::private_dir(&dir)
                .map(|_| ())
                .map_err(|e| Error::CannotStage {
                    rel: rel.to_string(),
                    why: e.to_string(),
                })?,
        }
    }
    Ok(())
}

/// Writes one of the host's files (`rel`, checked by [`super::archive::files`]) into the stage
/// as a new private file, never through a link.
fn write_staged(home: &Path, rel: &str, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write;
    if let Some(parent) = Path::new(rel)
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
    {
        make_staged_dir(home, &parent.to_string_lossy())?;
    }
    let path = home.join(rel);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    options
        .open(&path)
        .and_then(|mut f| f.write_all(bytes))
        .map_err(|source| Error::Local {
            doing: format!("stage {rel}"),
            source,
        })
}

/// Refuses a stage that holds a symlink anywhere (nothing Vults writes there is one).
fn no_links_under(root: &Path) -> Result<(), Error> {
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|source| Error::Read {
            path: dir.clone(),
            source,
        })?;
        for entry in entries.flatten() {
            let kind = entry.file_type().map_err(|source| Error::Read {
                path: entry.path(),
                source,
            })?;
            if kind.is_symlink() {
                return Err(Error::StagedSymlink(entry.path()));
            }
            if kind.is_dir() {
                stack.push(entry.path());
            }
        }
    }
    Ok(())
}
