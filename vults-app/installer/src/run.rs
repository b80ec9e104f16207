//! One call of the installer: the paths, the install record and the hook copy it works with
//! ([`Run`]), what it does to each agent ([`Op`]), and the states the per-format modules
//! (`json_agent`, `tomlfile`, `opencode`) report from them.

use super::agents::shell_path;
use super::report::{Action, AgentState};
use super::state::{self, HookCopy, InstallState};
use std::path::Path;
use vults_core::paths::Paths;

/// What the installer works with during one call.
pub(super) struct Run<'a> {
    pub(super) paths: &'a Paths,
    pub(super) state: InstallState,
    /// The installed hook's path, as written into configs.
    pub(super) hook_word: String,
    /// The installed hook's path, to recognise Vults' entries.
    pub(super) hook_path: String,
    pub(super) copy: HookCopy,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    Install,
    Uninstall,
    Check,
}

impl<'a> Run<'a> {
    pub(super) fn new(paths: &'a Paths, state: InstallState) -> Run<'a> {
        let installed = paths.installed_hook();
        let copy = state::check_hook_copy(paths, &state);
        Run {
            paths,
            hook_word: shell_path(&installed),
            hook_path: installed.to_string_lossy().into_owned(),
            state,
            copy,
        }
    }

    /// The state of an agent whose config is as Vults wants it (`current_is_wanted`) or holds
    /// some Vults entries (`has_ours`), given the hook copy.
    pub(super) fn state_of(&self, current_is_wanted: bool, has_ours: bool) -> AgentState {
        match (current_is_wanted, has_ours, self.copy) {
            (_, true, HookCopy::Tampered) | (true, _, HookCopy::Tampered) => AgentState::Tampered,
            (_, _, HookCopy::Missing) => AgentState::Missing,
            (true, _, HookCopy::Verified) => AgentState::Installed,
            (false, true, _) => AgentState::Outdated,
            (false, false, _) => AgentState::Missing,
        }
    }

    /// What an install that has just written (and verified) a settings file reports: updated
    /// when Vults' entries were there before, installed when they are new.
    pub(super) fn written(&self, had_ours: bool) -> (AgentState, Action) {
        let action = if had_ours {
            Action::Updated
        } else {
            Action::Installed
        };
        (self.state_of(true, true), action)
    }

    pub(super) fn created_for(&self, file: &Path) -> Option<Vec<String>> {
        self.state.created_in(file).cloned()
    }

    pub(super) fn record_created(&mut self, file: &Path, new: Vec<String>) {
        let key = file.to_string_lossy().into_owned();
        let list = self.state.created.entry(key.clone()).or_default();
        for item in new {
            if !list.contains(&item) {
                list.push(item);
            }
        }
        if list.is_empty() {
            self.state.created.remove(&key);
        }
    }

    pub(super) fn forget_created(&mut self, file: &Path) {
        self.state
            .created
            .remove(&file.to_string_lossy().into_owned());
    }
}
