//! `vults-app remote add` and `remove`: the installer's own code and rules, on a host.
//!
//! The host's agent config files (and Vults' install record there) are copied into a private
//! local folder laid out as the host's home ([`Stage`]); the installer runs on that copy exactly
//! as it does locally (merge, `.bak` before the first change, idempotent, a file that does not
//! parse is never rewritten, uninstall removes exactly what was added), with the agents'
//! commands naming the hook where it lives on the host ([`InstallOptions::hook_at`]). Then each
//! file that changed is written back on the host atomically (a temp file beside it, renamed over
//! it; an existing file keeps its mode), and each file the installer removed is removed there.
//!
//! The hook is uploaded first and its SHA-256 checked on the host before any config names it.

use super::{HOST_VULTS_HOME, Host, HostList, hook_for, shell_quote, work_dir};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use vults_core::paths::Paths;
use vults_installer::state::{InstallState, sha256_hex};
use vults_installer::{AgentReport, AgentState, HookAt, InstallOptions, default_hook_source};

/// What `remote add` did.
#[derive(Debug)]
pub struct Added {
    pub host: Host,
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
    pub reports: Vec<AgentReport>,
    pub written: Vec<String>,
}

/// Adds (or repairs) `host`: places the hook, registers it in the agents found there, and
/// keeps the host in the list. `hook`: the local `vults-hook` (default: beside this program).
pub fn add(paths: &Paths, mut host: Host, hook: Option<&Path>) -> Result<Added, String> {
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
    let bytes = std::fs::read(&staged_hook)
        .map_err(|e| format!("the hook copy was not placed ({e}); see the reports"))?;
    let sha = sha256_hex(&bytes);
    if let Some(rec) = &mut state.hook {
        rec.path = host.hook_path();
    }
    state
        .save(&stage.paths)
        .map_err(|e| format!("cannot write the host's install record: {e}"))?;

    // The hook first, checked on the host, and the socket's private folder.
    let uploaded = stage.host_hook_sha.as_deref() != Some(sha.as_str());
    if uploaded {
        write_file(&host, &stage.rel_hook, &bytes, 0o755)?;
    }
    let there = remote_sha(&host, &stage.rel_hook)?;
    if there != sha {
        return Err(format!(
            "the hook on {} has SHA-256 {there}, not {sha} as uploaded; nothing registered",
            host.name
        ));
    }
    host.run(
        &format!(
            "umask 077; cd \"$HOME\" && mkdir -p {run} && chmod 700 {run}",
            run = shell_quote(&format!("{HOST_VULTS_HOME}/run"))
        ),
        None,
    )?;
    let written = stage.write_back(&host)?;
    host.hook_sha256 = sha;
    list.put(host.clone());
    list.save(paths)
        .map_err(|e| format!("cannot save {}: {e}", HostList::file(paths).display()))?;
    let reports = for_host(reports, &stage, &host);
    stage.clean();
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
pub fn forget(paths: &Paths, name: &str) -> Result<(), String> {
    let mut list = HostList::load(paths)?;
    if list.remove(name).is_none() {
        return Err(format!("no host named {name:?} (vults-app remote list)"));
    }
    list.save(paths)
        .map_err(|e| format!("cannot save the host list: {e}"))
}

/// Takes Vults out of `name`'s agents (their files as they were), removes the hook and Vults'
/// folder there, and forgets the host. A file Vults could not edit keeps the hook and the host
/// (the error says which).
pub fn remove(paths: &Paths, name: &str) -> Result<Removed, String> {
    let mut list = HostList::load(paths)?;
    let mut host = list
        .get(name)
        .cloned()
        .ok_or_else(|| format!("no host named {name:?} (vults-app remote list)"))?;
    let stage = Stage::fetch(paths, &mut host).map_err(|e| {
        format!(
            "{e}\n(to forget a host you cannot reach, touching nothing on it: \
             vults-app remote remove --forget {name})"
        )
    })?;
    let reports = vults_installer::uninstall_all(&stage.paths);
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
        return Err(format!(
            "{}: could not take Vults out of {} (see the reports); the hook stays on the host \
             and the host in the list\n{}",
            host.name,
            stuck.join(", "),
            vults_installer::format_reports(&reports)
        ));
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
    list.save(paths)
        .map_err(|e| format!("cannot save {}: {e}", HostList::file(paths).display()))?;
    stage.clean();
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
    /// Asks the host what it is and copies its files. Fills `host.system` and `host.home`.
    fn fetch(paths: &Paths, host: &mut Host) -> Result<Stage, String> {
        let root = work_dir(paths).join(format!("{}.stage", host.name));
        let _ = std::fs::remove_dir_all(&root);
        vults_core::paths::private_dir(&root)
            .map_err(|e| format!("cannot make {}: {e}", root.display()))?;
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
             h={hook}; if [ -f \"$h\" ]; then printf 'H '; \
             (sha256sum \"$h\" 2>/dev/null || shasum -a 256 \"$h\") | cut -d' ' -f1; fi; exit 0",
            dirs = words(&dirs),
            hook = shell_quote(&rel_hook),
        );
        let out = String::from_utf8_lossy(&host.run(&probe, None)?).into_owned();
        let mut lines = out.lines();
        host.system = lines.next().unwrap_or_default().trim().to_string();
        host.home = lines.next().unwrap_or_default().trim().to_string();
        if host.system.is_empty() || !host.home.starts_with('/') {
            return Err(format!(
                "{} did not answer as a Unix host (uname -sm / $HOME): {out:?}",
                host.name
            ));
        }
        let mut host_hook_sha = None;
        for line in lines {
            if let Some(d) = line.strip_prefix("D ") {
                std::fs::create_dir_all(home.join(d))
                    .map_err(|e| format!("cannot stage {d}: {e}"))?;
            } else if let Some(h) = line.strip_prefix("H ") {
                host_hook_sha = Some(h.trim().to_string());
            }
        }
        std::fs::create_dir_all(&home).map_err(|e| format!("cannot stage: {e}"))?;
        let tar = format!(
            "cd \"$HOME\" || exit 1; set --; for f in {files}; do \
             if [ -f \"$f\" ]; then set -- \"$@\" \"$f\"; fi; done; \
             if [ $# -gt 0 ]; then exec tar -chf - \"$@\"; fi",
            files = words(&rels),
        );
        let archive = host.run(&tar, None)?;
        if !archive.is_empty() {
            untar(&archive, &home)?;
        }
        let before = rels
            .iter()
            .filter_map(|r| Some((r.clone(), std::fs::read(home.join(r)).ok()?)))
            .collect();
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
    fn write_back(&self, host: &Host) -> Result<Vec<String>, String> {
        let home = &self.paths.agent_home;
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

    fn clean(&self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Renames the files named in the install record at `paths` from under `from` to under `to`
/// (the host's home and the local copy's), so the record on the host names the host's files.
fn rename_record(paths: &Paths, from: &str, to: &str) -> Result<(), String> {
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
    state
        .save(paths)
        .map_err(|e| format!("cannot write the install record: {e}"))
}

/// The reports as about the host: its files by their paths there, OpenCode left out.
fn for_host(mut reports: Vec<AgentReport>, stage: &Stage, host: &Host) -> Vec<AgentReport> {
    reports.retain(|r| r.agent != vults_installer::Agent::Opencode);
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
fn write_file(host: &Host, rel: &str, bytes: &[u8], mode: u32) -> Result<(), String> {
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
        .map_err(|e| format!("cannot write {rel} on {}: {e}", host.name))
}

/// SHA-256 of `$HOME/<rel>` on the host.
fn remote_sha(host: &Host, rel: &str) -> Result<String, String> {
    let out = host.run(
        &format!(
            "h=\"$HOME\"/{}; (sha256sum \"$h\" 2>/dev/null || shasum -a 256 \"$h\") | cut -d' ' -f1",
            shell_quote(rel)
        ),
        None,
    )?;
    Ok(String::from_utf8_lossy(&out).trim().to_string())
}

/// Unpacks a tar archive into `dir` with the system's `tar`.
fn untar(archive: &[u8], dir: &Path) -> Result<(), String> {
    let mut child = Command::new("tar")
        .arg("-xpf")
        .arg("-")
        .arg("-C")
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run tar: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        stdin.write_all(archive).map_err(|e| format!("tar: {e}"))?;
    }
    let out = child.wait_with_output().map_err(|e| format!("tar: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "cannot unpack the host's files: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}
