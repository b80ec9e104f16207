//! Settings, one pane per file: Agents, Rules, Policies, History, Hosts, Phone, Notifications,
//! General.

pub mod agents;
pub mod general;
pub mod history;
pub mod hosts;
pub mod notifications;
pub mod phone;
pub mod policies;
pub mod rules;

/// What a settings pane asks for; the app turns it into an engine command or a desktop call.
#[derive(Debug, Clone, PartialEq)]
pub enum SettingsAction {
    /// Delete the Always rule of this id.
    RemoveRule(String),
    /// Read the policy file again.
    ReloadPolicies,
    /// Open a file in the user's editor (the desktop integration does it, not the view).
    Open(std::path::PathBuf),
    /// Reinstall the hook for one agent.
    Repair(vults_core::agents::Agent),
    /// Turn Vults on or off for one agent: off takes exactly Vults' entries out of that agent's
    /// settings and keeps them out on every start; on puts them back.
    SetEnabled(vults_core::agents::Agent, bool),
    /// The hooks' watcher's switches ("Keep Vults' hook in place", "install in new agents").
    SetWatch(vults_installer::watch::WatchSettings),
    /// Take Vults' old hooks out of the settings of an agent it no longer serves (offered,
    /// never done on its own).
    RemoveLeftovers(vults_core::agents::Agent),
    /// Turn start at login on or off (Settings → General).
    SetStartAtLogin(bool),
    /// Show the first run's welcome again.
    ShowWelcome,
    /// Where the island and the cards go: the monitor, and whether cards cover a fullscreen
    /// window (saved in `settings.json`).
    SetWindow(crate::viewport::MonitorChoice, bool),
    /// The language Vults speaks from now on (saved in `settings.json`).
    SetLanguage(vults_i18n::Choice),
    /// Read a page of the audit log for History.
    ReadHistory(vults_engine::PageOf),
}
