//! The first run's welcome: what Vults is, which agents it found and what it wrote where (with
//! the `.bak` of each file), how to undo it, Codex's one-time `/hooks` trust step and phone
//! pairing. Shown once — `settings.json` gets `{"welcome": {"shown": true}}` when it is — and
//! again only when asked from Settings → General.

use crate::jsonfile;
use crate::report::{AgentReport, AgentState, FirstRun, first_run, first_run_message};
use serde_json::Value;
use std::io;
use std::path::PathBuf;
use vults_core::paths::Paths;

/// What the welcome says; built on the installer's thread, drawn by the window.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Welcome {
    /// The agents found and installed, and what is still to do (several lines, in English).
    pub summary: String,
    /// The same in parts, for the window to word in the person's language (`None`: only the
    /// English `summary` is known).
    pub first_run: Option<FirstRun>,
    /// Each file Vults changed, with the backup of the user's original.
    pub written: Vec<Written>,
    /// The Vults-owned hook copy every agent's entry points at.
    pub hook_copy: PathBuf,
    /// Codex's hook was installed: it runs only after `/hooks` → trust.
    pub codex_trust: bool,
}

/// One file Vults wrote on the first run.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// The agent's name people know.
    pub agent: String,
    /// The file.
    pub path: PathBuf,
    /// `<file>.bak`, when the file existed before Vults changed it.
    pub backup: Option<PathBuf>,
}

/// Builds the welcome from the app-start install's reports.
pub fn build(paths: &Paths, reports: &[AgentReport]) -> Welcome {
    let written = reports
        .iter()
        .filter(|r| matches!(r.state, AgentState::Installed | AgentState::Outdated))
        .filter_map(|r| {
            let path = r.path.clone()?;
            let backup = Some(jsonfile::backup_path(&path)).filter(|b| b.exists());
            Some(Written {
                agent: r.agent.display_name().to_string(),
                path,
                backup,
            })
        })
        .collect();
    Welcome {
        summary: first_run_message(reports),
        first_run: Some(first_run(reports)),
        written,
        hook_copy: paths.installed_hook(),
        codex_trust: reports
            .iter()
            .any(|r| r.agent.needs_trust() && r.state == AgentState::Installed),
    }
}

/// Whether the welcome was shown already.
pub fn seen(paths: &Paths) -> bool {
    std::fs::read(paths.settings_file())
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .and_then(|v| v.pointer("/welcome/shown")?.as_bool())
        .unwrap_or(false)
}

/// Records that the welcome was shown, keeping every other setting. A `settings.json` that
/// does not parse is left alone (the welcome then shows again next time).
pub fn mark_seen(paths: &Paths) -> io::Result<()> {
    crate::state::edit_settings(paths, |root| {
        let welcome = crate::state::object_at(root, "welcome");
        welcome.insert("shown".into(), Value::Bool(true));
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marker_keeps_other_settings_and_never_rewrites_a_broken_file() {
        let home = std::env::temp_dir().join(format!("vults-welcome-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&home);
        let paths = Paths::resolve(|k| (k == "VULTS_HOME").then(|| home.clone()));
        assert!(!seen(&paths));
        std::fs::create_dir_all(&paths.config_dir).unwrap();
        std::fs::write(
            paths.settings_file(),
            r#"{"agents":{"codex":{"enabled":false}}}"#,
        )
        .unwrap();
        mark_seen(&paths).unwrap();
        assert!(seen(&paths));
        let v: Value =
            serde_json::from_slice(&std::fs::read(paths.settings_file()).unwrap()).unwrap();
        assert_eq!(v["agents"]["codex"]["enabled"], false);
        std::fs::write(paths.settings_file(), "{ not json").unwrap();
        assert!(mark_seen(&paths).is_err());
        assert_eq!(
            std::fs::read_to_string(paths.settings_file()).unwrap(),
            "{ not json"
        );
        let _ = std::fs::remove_dir_all(&home);
    }
}
