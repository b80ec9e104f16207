//! OpenCode has no command hooks: Vults installs a plugin file (`assets/opencode/vults.js`, the
//! hook's absolute path filled in) into the global plugin folder the real CLI loads.

use super::agents::Target;
use super::report::{Action, AgentState};
use super::run::{Op, Run};
use std::fs;
use std::path::{Path, PathBuf};
use vults_core::atomic;

const TEMPLATE: &str = include_str!("../../../assets/opencode/vults.js");
const PLACEHOLDER: &str = "\"__VULTS_HOOK__\"";
/// How Vults recognises its own plugin file.
const MARKER: &str = "Vults for OpenCode";

/// `<opencode config>/plugin/vults.js` — the folder OpenCode 1.18 was seen to load; `plugins/`
/// when only that one exists.
/// `name` in OpenCode's plugin folder: `plugin/`, or `plugins/` where only that one exists.
pub fn plugin_file(opencode_home: &Path, name: &str) -> PathBuf {
    let singular = opencode_home.join("plugin");
    let plural = opencode_home.join("plugins");
    let dir = if !singular.exists() && plural.is_dir() {
        plural
    } else {
        singular
    };
    dir.join(name)
}

/// The plugin's text for a given hook path.
pub fn render(hook_path: &str) -> String {
    let literal = serde_json::to_string(hook_path).unwrap_or_else(|_| "\"vults-hook\"".into());
    TEMPLATE.replace(PLACEHOLDER, &literal)
}

pub(super) fn apply(run: &mut Run, t: &Target, op: Op) -> Result<(AgentState, Action), AgentState> {
    let want = render(&run.hook_path);
    let current = match fs::read(&t.file) {
        Ok(b) => Some(String::from_utf8_lossy(&b).into_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(AgentState::Failed(format!(
                "cannot read {}: {e}",
                t.file.display()
            )));
        }
    };
    if let Some(text) = &current
        && !text.contains(MARKER)
    {
        return Err(AgentState::Failed(format!(
            "{} is not Vults' plugin; left untouched",
            t.file.display()
        )));
    }
    let ours = current.is_some();
    let dir = t.file.parent().map(Path::to_path_buf).unwrap_or_default();
    match op {
        Op::Check => Ok((
            run.state_of(current.as_deref() == Some(&want), ours),
            Action::Nothing,
        )),
        Op::Uninstall => {
            if !ours {
                return Ok((AgentState::Missing, Action::Nothing));
            }
            fs::remove_file(&t.file).map_err(|e| AgentState::Failed(e.to_string()))?;
            let made_dir = run
                .created_for(&t.file)
                .is_some_and(|c| c.iter().any(|x| x == "dir"));
            if made_dir {
                // Only when empty: the user may have put plugins of their own there since.
                let _ = fs::remove_dir(&dir);
            }
            run.forget_created(&t.file);
            Ok((AgentState::Missing, Action::Removed))
        }
        Op::Install => {
            if current.as_deref() == Some(&want) {
                return Ok((run.state_of(true, true), Action::Nothing));
            }
            let mut made = Vec::new();
            if !dir.exists() {
                made.push("dir".to_string());
            }
            atomic::write(&t.file, want.as_bytes(), Some(0o644))
                .map_err(|e| AgentState::Failed(e.to_string()))?;
            if fs::read(&t.file).ok().as_deref() != Some(want.as_bytes()) {
                return Err(AgentState::Failed(format!(
                    "{} did not read back as written",
                    t.file.display()
                )));
            }
            run.record_created(&t.file, made);
            let action = if ours {
                Action::Updated
            } else {
                Action::Installed
            };
            Ok((run.state_of(true, true), action))
        }
    }
}
