//! What the installer remembers between runs (`install.json`) and the per-agent on/off switch
//! (`settings.json`), plus the Vults-owned copy of `vults-hook` and its SHA-256.
//!
//! `install.json` holds: the installed hook's path and hash; the user's own Claude Code
//! `statusLine` object under `claude.statusLine` (the hook reads `claude.statusLine.command`
//! from here to chain it, and uninstall puts it back); and, per settings file, which
//! containers Vults created there, so uninstall removes exactly those.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::Path;
use vults_core::atomic;
use vults_core::paths::Paths;

/// The recorded copy of the hook.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HookRecord {
    /// Where the copy is.
    pub path: String,
    /// Its SHA-256, lowercase hex.
    pub sha256: String,
}

/// The contents of `install.json`. Unknown keys are kept.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InstallState {
    /// The hook copy the agents run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook: Option<HookRecord>,
    /// `{"statusLine": {…the user's own object…}}`, only while Vults' status line replaces it.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub claude: Map<String, Value>,
    /// Settings file → what Vults created in it: `file` (the file itself), `empty` (it was an
    /// empty file), or a key path such as `hooks` or `hooks/PreToolUse`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub created: BTreeMap<String, Vec<String>>,
    /// Keys this version does not know, kept as they were.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl InstallState {
    /// Reads `install.json`; a missing or unreadable one counts as empty (nothing recorded).
    pub fn load(paths: &Paths) -> InstallState {
        fs::read(paths.install_state_file())
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    /// Writes it when it differs from what is on disk (a second run changes no byte).
    pub fn save(&self, paths: &Paths) -> io::Result<()> {
        let file = paths.install_state_file();
        let mut bytes = serde_json::to_vec_pretty(self).map_err(io::Error::other)?;
        bytes.push(b'\n');
        if fs::read(&file).ok().as_deref() == Some(&bytes[..]) {
            return Ok(());
        }
        atomic::write(&file, &bytes, Some(0o600))
    }

    /// What Vults created in `file`, if anything.
    pub fn created_in(&self, file: &Path) -> Option<&Vec<String>> {
        self.created.get(&file.to_string_lossy().into_owned())
    }
}

/// Hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The installed hook copy, compared with what was recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookCopy {
    /// Present and its hash is the recorded one.
    Verified,
    /// Present, but its hash differs from the recorded one (or nothing was recorded).
    Tampered,
    /// Not there.
    Missing,
}

/// Whether the hook copy is there and is the one recorded.
pub fn check_hook_copy(paths: &Paths, state: &InstallState) -> HookCopy {
    match fs::read(paths.installed_hook()) {
        Err(_) => HookCopy::Missing,
        Ok(bytes) => match &state.hook {
            Some(rec) if rec.sha256 == sha256_hex(&bytes) => HookCopy::Verified,
            _ => HookCopy::Tampered,
        },
    }
}

/// What placing the hook copy did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyOutcome {
    /// The copy was already the right one.
    Unchanged,
    /// First copy.
    Placed,
    /// A new version of the hook replaced the old one.
    Updated,
    /// The copy did not match its recorded hash; it was replaced.
    Repaired,
}

/// Copies `source` to [`Paths::installed_hook`] (0755, in a private 0700 folder) when it
/// differs, and records its hash.
pub fn place_hook(
    paths: &Paths,
    source: &Path,
    state: &mut InstallState,
) -> io::Result<CopyOutcome> {
    let bytes = fs::read(source).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot read the hook binary {}: {e}", source.display()),
        )
    })?;
    let hash = sha256_hex(&bytes);
    let target = paths.installed_hook();
    let before = check_hook_copy(paths, state);
    let current = fs::read(&target).ok().map(|b| sha256_hex(&b));
    let outcome = match (before, current.as_deref() == Some(hash.as_str())) {
        (HookCopy::Verified, true) => CopyOutcome::Unchanged,
        (HookCopy::Missing, _) => CopyOutcome::Placed,
        (HookCopy::Tampered, _) if state.hook.is_some() => CopyOutcome::Repaired,
        // A copy with no record (an older install, or a lost install.json) is adopted.
        (HookCopy::Tampered, true) => CopyOutcome::Unchanged,
        _ => CopyOutcome::Updated,
    };
    // The folders are Vults' own: private (0700), whatever the umask; a looser one is tightened.
    vults_core::paths::private_dir(&paths.data_dir)?;
    vults_core::paths::private_dir(&paths.hook_dir())?;
    if current.as_deref() != Some(hash.as_str()) {
        atomic::write(&target, &bytes, Some(0o755))?;
    }
    set_executable(&target)?;
    state.hook = Some(HookRecord {
        path: target.to_string_lossy().into_owned(),
        sha256: hash,
    });
    Ok(outcome)
}

#[cfg(unix)]
fn set_executable(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = fs::metadata(path)?.permissions().mode() & 0o777;
    if mode != 0o755 {
        fs::set_permissions(path, fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn set_executable(_path: &Path) -> io::Result<()> {
    Ok(())
}

/// Whether the user left an agent on in Settings → Agents (`settings.json`:
/// `{"agents": {"codex": {"enabled": false}}}`; absent means on).
pub fn is_enabled(paths: &Paths, agent: &str) -> bool {
    fs::read(paths.settings_file())
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .and_then(|v| v.pointer(&format!("/agents/{agent}/enabled"))?.as_bool())
        .unwrap_or(true)
}

/// Turns an agent on or off in `settings.json`, keeping every other setting.
pub fn set_enabled(paths: &Paths, agent: &str, enabled: bool) -> io::Result<()> {
    edit_settings(paths, |root| {
        let entry = object_at(object_at(root, "agents"), agent);
        entry.insert("enabled".into(), Value::Bool(enabled));
    })
}

/// Changes `settings.json` through `edit`, keeping every other setting. A file that does not
/// parse, or is not a JSON object, is left as it is and reported; a missing or blank one starts
/// empty. Written atomically, private (`0600`).
pub fn edit_settings(paths: &Paths, edit: impl FnOnce(&mut Map<String, Value>)) -> io::Result<()> {
    let file = paths.settings_file();
    let mut root = match fs::read(&file) {
        Ok(b) if !b.iter().all(u8::is_ascii_whitespace) => serde_json::from_slice::<Value>(&b)
            .map_err(|e| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{} does not parse: {e}", file.display()),
                )
            })?,
        _ => Value::Object(Map::new()),
    };
    let Some(obj) = root.as_object_mut() else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not a JSON object", file.display()),
        ));
    };
    edit(obj);
    let mut bytes = serde_json::to_vec_pretty(&root).map_err(io::Error::other)?;
    bytes.push(b'\n');
    atomic::write(&file, &bytes, Some(0o600))
}

/// The object under `key`, made (or made an object again) when it is missing or not one.
pub fn object_at<'a>(obj: &'a mut Map<String, Value>, key: &str) -> &'a mut Map<String, Value> {
    let slot = obj.entry(key).or_insert_with(|| Value::Object(Map::new()));
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    slot.as_object_mut().expect("made an object just above")
}
