//! The window's ports: how it reaches each subsystem it drives (the engine, the chat, the
//! installer, the SSH hosts, the phone), each a trait the window holds as a `Box<dyn …>`.
//!
//! One naming rule: a port is named after what it reaches, plus `Side` ([`EngineSide`],
//! [`ChatSide`], [`InstallerSide`], [`HostsSide`], [`PhoneSide`]; beside their real sides,
//! [`crate::attention::AttentionSide`], [`crate::show_terminal::TerminalSide`] and
//! [`vults_desktop::tray::DesktopSide`]). Every call returns at once: the subsystem runs on a thread or
//! runtime of its own. Its real side is the subsystem's own handle (implemented here) or a
//! `Background…` that runs it off the window's thread; a test plays a subsystem with a
//! `<Subsystem>Channel` ([`EngineChannel`], [`ChatChannel`]): a pair of plain channels.

use vults_core::agents::Agent;
use vults_engine::messages::{EngineCommand, EngineEvent};

/// How the window reaches the engine.
pub trait EngineSide {
    /// The next event from the engine, if one came since the last call; never waits.
    fn try_recv(&mut self) -> Option<EngineEvent>;
    /// Sends a command to the engine; never waits.
    fn send(&mut self, command: EngineCommand);
}

impl EngineSide for vults_engine::EngineHandle {
    fn try_recv(&mut self) -> Option<EngineEvent> {
        self.events.try_recv().ok()
    }
    fn send(&mut self, command: EngineCommand) {
        if !vults_engine::EngineHandle::send(self, command) {
            tracing::warn!("the engine has stopped; the answer was not delivered");
        }
    }
}

/// The window's side of a running engine, as the app composes it: commands through the
/// engine's commander, events from a subscription of the window's own (which wakes it after
/// each batch; one that fell behind while the window was hidden catches up from the engine's
/// snapshot of what waits, so no card is missed).
pub struct EngineLink {
    /// Sends the window's commands.
    pub commander: vults_engine::EngineCommander,
    /// The window's own subscription to the engine's events.
    pub events: vults_engine::Subscription,
}

impl EngineSide for EngineLink {
    fn try_recv(&mut self) -> Option<EngineEvent> {
        self.events
            .try_recv()
            .ok()
            .map(std::sync::Arc::unwrap_or_clone)
    }
    fn send(&mut self, command: EngineCommand) {
        if !self.commander.send(command) {
            tracing::warn!("the engine has stopped; the answer was not delivered");
        }
    }
}

/// A pair of plain channels, for tests that play the engine.
pub struct EngineChannel {
    /// The window reads the engine's events here; the test holds the sending end.
    pub events: std::sync::mpsc::Receiver<EngineEvent>,
    /// The window sends its commands here; the test reads them at the other end.
    pub commands: std::sync::mpsc::Sender<EngineCommand>,
}

impl EngineSide for EngineChannel {
    fn try_recv(&mut self) -> Option<EngineEvent> {
        self.events.try_recv().ok()
    }
    fn send(&mut self, command: EngineCommand) {
        let _ = self.commands.send(command);
    }
}

/// How the window reaches the chat (Zeca), which runs on a thread of its own.
pub trait ChatSide {
    /// The next event from the chat, if one came since the last call; never waits.
    fn try_recv(&mut self) -> Option<vults_zeca::ChatEvent>;
    /// Sends a command to the chat; never waits.
    fn send(&mut self, command: vults_zeca::ChatCommand);
}

impl ChatSide for vults_zeca::ZecaHandle {
    fn try_recv(&mut self) -> Option<vults_zeca::ChatEvent> {
        self.events.try_recv().ok()
    }
    fn send(&mut self, command: vults_zeca::ChatCommand) {
        if !vults_zeca::ZecaHandle::send(self, command) {
            tracing::warn!("the chat has stopped; the command was not delivered");
        }
    }
}

/// A pair of plain channels, for tests that play the chat.
pub struct ChatChannel {
    /// The window reads the chat's events here; the test holds the sending end.
    pub events: std::sync::mpsc::Receiver<vults_zeca::ChatEvent>,
    /// The window sends its chat commands here; the test reads them at the other end.
    pub commands: std::sync::mpsc::Sender<vults_zeca::ChatCommand>,
}

impl ChatSide for ChatChannel {
    fn try_recv(&mut self) -> Option<vults_zeca::ChatEvent> {
        self.events.try_recv().ok()
    }
    fn send(&mut self, command: vults_zeca::ChatCommand) {
        let _ = self.commands.send(command);
    }
}

/// How the window reaches the installer, which runs off the window's thread (it writes files).
pub trait InstallerSide {
    /// The result of a finished run, if one finished since the last call.
    fn poll(&mut self) -> Option<InstallerNews>;
    /// Reinstalls the hook for one agent, then reports every agent.
    fn repair(&mut self, agent: Agent);
    /// Turns Vults on or off for one agent (saved; off takes its entries out), then reports.
    fn set_enabled(&mut self, agent: Agent, enabled: bool);
    /// Takes Vults' old hooks out of a retired agent's settings, then reports.
    fn remove_leftovers(&mut self, agent: Agent);
    /// Turns start at login on or off, then reports ([`InstallerNews::start_at_login`]).
    fn set_start_at_login(&mut self, _enabled: bool) {}
    /// Builds the welcome from what is installed now and sends it ([`InstallerNews::welcome`]).
    fn show_welcome(&mut self) {}
    /// Saves where the island and the cards go (`settings.json`, `window`).
    fn save_window_prefs(&mut self, _prefs: vults_installer::window_prefs::WindowPrefs) {}
    /// Saves the hooks' watcher's switches ("Keep Vults' hook in place", "install in new
    /// agents").
    fn set_watch(&mut self, _settings: vults_installer::watch::WatchSettings) {}
}

/// How the window reaches the SSH hosts' links (Settings → Hosts).
pub trait HostsSide {
    /// What Settings → Hosts shows now; read every frame, so it reads no file.
    fn status(&self) -> vults_remote::background::HostsStatus;
    /// Starts what Settings → Hosts asked for, off the window's thread.
    fn apply(&mut self, action: vults_remote::background::HostsAction);
}

impl HostsSide for vults_remote::background::BackgroundHosts {
    fn status(&self) -> vults_remote::background::HostsStatus {
        vults_remote::background::BackgroundHosts::status(self)
    }
    fn apply(&mut self, action: vults_remote::background::HostsAction) {
        vults_remote::background::BackgroundHosts::apply(self, action);
    }
}

/// How the window reaches the paired-phone link (Settings → Phone).
pub trait PhoneSide {
    /// Not called by the window: the phone link reads the engine's events from a subscription
    /// of its own (`BackgroundLink::follow`, wired in `vults-app/src/compose.rs`), so it sees
    /// every card while the window is hidden or absent. Kept so a side that is handed events
    /// by hand (a test's) still can be.
    fn on_engine_event(&mut self, _event: &EngineEvent) {}
    /// What Settings → Phone shows now; cheap enough to read every frame.
    fn status(&self) -> vults_phone::PhoneStatus;
    /// Starts what Settings → Phone asked for, on the link's own thread.
    fn apply(&mut self, action: vults_phone::PhoneAction);
}

/// The link runs on its own thread: these only send a command or read the snapshot.
impl PhoneSide for vults_phone::BackgroundLink {
    fn status(&self) -> vults_phone::PhoneStatus {
        vults_phone::BackgroundLink::status(self)
    }
    fn apply(&mut self, action: vults_phone::PhoneAction) {
        vults_phone::BackgroundLink::apply(self, action);
    }
}

/// What an installer run found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InstallerNews {
    /// Every agent's install state, in the installer's order.
    pub installs: Vec<crate::state::AgentInstall>,
    /// A line for the window: the first-run text, or what a repair could not do.
    pub message: Option<String>,
    /// The first run's welcome, to show now (only on the first run).
    pub welcome: Option<vults_installer::welcome::Welcome>,
    /// Whether Vults starts at login, when this run looked.
    pub start_at_login: Option<bool>,
    /// What the hooks' watcher saw (`vults_installer::watch`), when this news is from it.
    pub watched: Option<vults_installer::watch::WatchEvent>,
    /// The watcher's switches, as saved (Settings → Agents).
    pub watch_settings: Option<vults_installer::watch::WatchSettings>,
}
