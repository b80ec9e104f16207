//! The window as a whole: drains the engine's events into the [`Model`] (in `logic`), and
//! draws the island, the flock and settings, and one card per pending request (in `ui`).
//!
//! Two layouts ([`Layout`]):
//! - **Floating** (X11, macOS, Windows; on Linux Wayland sessions the app runs through
//!   XWayland, see `ui/native.rs`): the root window *is* the island — a transparent, undecorated,
//!   always-on-top pill that never takes focus — and the flock/settings window and each card
//!   are viewports of their own. Cards are always on top, placed at the top-right, oldest
//!   first, never over each other (the rest wait in a stack: [`place_cards`]), and do not take
//!   focus either (a key typed into the terminal never answers one).
//! - **Embedded** (a Wayland session with no XWayland, and the UI tests): one ordinary
//!   window; the island is a strip at its top, the cards float inside it.

mod attend;
mod places;

pub(crate) use places::card_title;
pub use places::{Place, Places, card_id, place_cards};

use super::attention::AttentionSide;
use super::card::CardView;
use super::flock::FlockView;
use super::island::{self, IslandView};
use super::ports::{ChatSide, EngineSide, HostsSide, InstallerSide, PhoneSide};
use super::settings::SettingsAction;
use super::settings::agents::AgentsView;
use super::settings::history::HistoryView;
use super::settings::policies::PoliciesView;
use super::settings::rules::RulesView;
use super::state::{Change, Model};
use super::theme;
use egui::{Color32, RichText, ViewportBuilder, ViewportCommand, ViewportId};
use std::collections::HashMap;
use std::time::{Duration, SystemTime};
use vults_desktop::tray::{DesktopSide, TrayAction};
use vults_engine::messages::{AnsweredBy, CardId, EngineCommand, PendingCard};
use vults_installer::AgentState;

/// How the window lays itself out on the desktop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// The island floats at the top of the screen, each card is a window of its own, and the
    /// flock and settings open in a main window of their own (X11, Windows, macOS).
    Floating,
    /// One ordinary window: the island is a strip at its top and the cards float inside it
    /// (Wayland without XWayland, `VULTS_LAYOUT=embedded`, the UI tests).
    Embedded,
}

/// The panes of the main window, in the order of its tab bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// Every session as a bird, and the cards that had no room on screen.
    Flock,
    /// Zeca, the app's own chat.
    Chat,
    /// The agents Vults is installed in, and the named tools that have asked.
    Agents,
    /// The Always rules, with a Remove for each.
    Rules,
    /// The policy file: what is in force, and what did not parse.
    Policies,
    /// Every answer, from the audit log.
    History,
    /// Only with hosts' links ([`VultsWindow::with_hosts`]).
    Hosts,
    /// Only with a phone link ([`VultsWindow::with_phone`]).
    Phone,
    /// Notifications, quiet hours and global keys (only with [`VultsWindow::with_attention`]).
    Notifications,
    /// Start at login, the log file, the welcome again.
    General,
}

impl Tab {
    /// Every tab, in the row's order.
    pub const ALL: [Tab; 10] = [
        Tab::Flock,
        Tab::Chat,
        Tab::Agents,
        Tab::Rules,
        Tab::Policies,
        Tab::History,
        Tab::Hosts,
        Tab::Phone,
        Tab::Notifications,
        Tab::General,
    ];
    /// The tab's name on its button, in the person's language.
    pub fn title(self) -> String {
        vults_i18n::text(match self {
            Tab::Flock => "tab-flock",
            Tab::Chat => "tab-chat",
            Tab::Agents => "tab-agents",
            Tab::Rules => "tab-rules",
            Tab::Policies => "tab-policies",
            Tab::History => "tab-history",
            Tab::Hosts => "tab-hosts",
            Tab::Phone => "tab-phone",
            Tab::Notifications => "tab-notifications",
            Tab::General => "tab-general",
        })
    }
}

/// How long the island pulses after a card arrives; then it stays lit without repainting.
const PULSE_FOR: f64 = 6.0;
const PULSE_PERIOD: f64 = 1.2;
const MAIN_SIZE: [f32; 2] = [760.0, 560.0];

/// The whole app as egui draws it: the island, each card, the main window and its tabs.
/// It reads the engine's events into its [`Model`] once per frame and sends the person's
/// answers back; it does no I/O of its own.
pub struct VultsWindow {
    /// The window's picture of the engine (and of the installer and the chat).
    pub model: Model,
    /// How it lays itself out ([`Layout`]).
    pub layout: Layout,
    /// The tab the main window shows.
    pub tab: Tab,
    /// The flock/settings window is shown (always, in the embedded layout).
    pub main_open: bool,
    link: Box<dyn EngineSide>,
    chat_side: Option<Box<dyn ChatSide>>,
    desktop: Box<dyn DesktopSide>,
    installer: Option<Box<dyn InstallerSide>>,
    phone: Option<Box<dyn PhoneSide>>,
    phone_view: super::settings::phone::PhoneView,
    hosts: Option<Box<dyn HostsSide>>,
    hosts_view: super::settings::hosts::HostsView,
    clock: Box<dyn Fn() -> SystemTime>,
    island: IslandView,
    flock: FlockView,
    chat: super::chat::ChatView,
    agents: AgentsView,
    rules: RulesView,
    policies: PoliciesView,
    history: HistoryView,
    general: super::settings::general::GeneralView,
    /// A second start of the app asks for the window here (crate::instance).
    show_requests: Option<std::sync::mpsc::Receiver<()>>,
    cards: HashMap<CardId, CardView>,
    /// The symbols font ([`theme::install_fonts`]) is in the context.
    fonts_installed: bool,
    /// `ctx` time when the newest card arrived: the island pulses for [`PULSE_FOR`] after it.
    pulse_from: Option<f64>,
    /// Where the island was last put (floating), so it moves only when its place changes.
    island_at: Option<egui::Pos2>,
    /// The area the cards on screen were placed in: kept while any is up, so a card never moves
    /// under the pointer because the pointer went to another monitor.
    card_screen: Option<egui::Rect>,
    /// The titles of the card windows drawn this frame (floating).
    open_cards: Vec<String>,
    /// The one window asked the compositor for attention (a card came while it was unfocused);
    /// withdrawn once it is focused or nothing waits.
    pub attention_asked: bool,
    /// Frames drawn since the last card arrived (0 = the card was drawn in the first frame).
    pub frames_to_card: Option<u32>,
    /// Log [`Self::frames_to_card`] to stderr for each card (`VULTS_UI_STATS=1`, benchmarks).
    pub log_card_frames: bool,
    card_pending_draw: Option<u32>,
    /// Each card window's height as last drawn, so the window fits its card.
    card_heights: HashMap<CardId, f32>,
    /// Where each card on screen is, kept while it is up: a card never moves ([`places::Places`]).
    places: places::Places,
    /// Cards with no room on screen, oldest first: the island says "+N more", the flock lists
    /// them ([`place_cards`]).
    stacked: Vec<CardId>,
    /// (on screen, in the stack), as last logged.
    logged_counts: (usize, usize),
    /// The card that takes the keys in one window ([`VultsWindow::keys_card`]).
    keys_card: Option<CardId>,
    /// "Show terminal": its side, its toast and the island's menu.
    terminal: super::show_terminal_toast::WindowTerminal,
    /// Notifications, quiet hours and global keys ([`VultsWindow::with_attention`]).
    attention: Option<Box<dyn AttentionSide>>,
    attention_view: super::settings::notifications::NotificationsView,
    /// The plan's usage windows: which thresholds each has crossed (vults_notify::limits).
    limits: vults_notify::limits::LimitWatch,
    /// The global keys' safety: a card comes up before a key answers it.
    gate: vults_notify::keys::Gate,
    /// A card brought up that has not taken the focus yet, since when it is asked for, and how
    /// many times it has been asked again.
    focus_wanted: Option<(CardId, std::time::Instant, u32)>,
    /// Quiet now (no notification, no sound, the island still).
    quiet: bool,
    /// The do-not-disturb switch as the tray last showed it.
    quiet_switch: Option<bool>,
}

impl VultsWindow {
    /// A window on the engine behind `link`: `desktop` notifies and shows the tray, `clock`
    /// tells the time (tests set it). The chat, the installer, the phone and the hosts are added
    /// with the `with_*` calls.
    pub fn new(
        link: Box<dyn EngineSide>,
        desktop: Box<dyn DesktopSide>,
        layout: Layout,
        clock: Box<dyn Fn() -> SystemTime>,
    ) -> VultsWindow {
        VultsWindow {
            model: Model::default(),
            layout,
            tab: Tab::Flock,
            fonts_installed: false,
            main_open: layout == Layout::Embedded,
            link,
            chat_side: None,
            desktop,
            installer: None,
            phone: None,
            phone_view: Default::default(),
            hosts: None,
            hosts_view: Default::default(),
            clock,
            island: IslandView::default(),
            flock: FlockView,
            chat: Default::default(),
            agents: AgentsView,
            rules: RulesView,
            policies: PoliciesView,
            history: HistoryView::default(),
            general: Default::default(),
            show_requests: None,
            cards: HashMap::new(),
            pulse_from: None,
            island_at: None,
            card_screen: None,
            open_cards: Vec::new(),
            attention_asked: false,
            frames_to_card: None,
            log_card_frames: false,
            card_pending_draw: None,
            card_heights: HashMap::new(),
            places: Default::default(),
            stacked: Vec::new(),
            logged_counts: (0, 0),
            keys_card: None,
            terminal: Default::default(),
            attention: None,
            attention_view: Default::default(),
            limits: Default::default(),
            gate: Default::default(),
            focus_wanted: None,
            quiet: false,
            quiet_switch: None,
        }
    }

    /// Adds "Show terminal" (bird, card, island's menu, Zeca task): `side` runs each show off
    /// the window's thread. Settings → General's survey is asked for now, once.
    pub fn with_terminal(mut self, mut side: Box<dyn super::show_terminal::TerminalSide>) -> Self {
        side.survey();
        self.terminal.side = Some(side);
        self
    }

    /// Shows the terminal of `session`'s agent whenever `requests` delivers its key: for a
    /// part of the app outside the window (a notification's "Show terminal" action), from any
    /// thread. The result is drawn as a button's would be.
    pub fn with_show_terminal_requests(
        mut self,
        requests: std::sync::mpsc::Receiver<vults_engine::messages::SessionKey>,
    ) -> Self {
        self.terminal.requests = Some(requests);
        self
    }

    /// "Show terminal" for one session: what every button, the card's `T` and the island's
    /// menu call. It returns at once: the show runs on the terminal side's thread, and its
    /// line (or why it cannot be done) comes back as a toast and on the bird and the card.
    pub fn show_terminal(
        &mut self,
        ctx: &egui::Context,
        session: &vults_engine::messages::SessionKey,
    ) {
        // The person goes to the terminal: no card keeps the keyboard a click on it gave it.
        crate::viewport::release_keyboard(ctx);
        let now_t = ctx.input(|i| i.time);
        self.terminal.request(&mut self.model, session, now_t);
        ctx.request_repaint();
    }

    /// Adds notifications, quiet hours and global keys: their actions and the keys answer
    /// cards, and Settings → Notifications appears. The notifications themselves follow the
    /// engine on their own (`attention::follow`), not this window.
    pub fn with_attention(mut self, attention: Box<dyn AttentionSide>) -> VultsWindow {
        self.attention = Some(attention);
        self
    }

    /// Adds the chat (Zeca): the Chat tab then talks to it.
    pub fn with_chat(mut self, chat: Box<dyn ChatSide>) -> VultsWindow {
        self.chat_side = Some(chat);
        self
    }

    /// Adds the installer: Settings → Agents then shows its states and repairs.
    pub fn with_installer(mut self, installer: Box<dyn InstallerSide>) -> VultsWindow {
        self.installer = Some(installer);
        self
    }

    /// Brings the window forward whenever `requests` delivers (a second start of the app).
    pub fn with_show_requests(mut self, requests: std::sync::mpsc::Receiver<()>) -> VultsWindow {
        self.show_requests = Some(requests);
        self
    }

    /// Adds the paired-phone link: Settings → Phone appears, and the phone sees the cards.
    pub fn with_phone(mut self, phone: Box<dyn PhoneSide>) -> VultsWindow {
        self.phone = Some(phone);
        self
    }

    /// Adds the SSH hosts' links: Settings → Hosts appears.
    pub fn with_hosts(mut self, hosts: Box<dyn HostsSide>) -> VultsWindow {
        self.hosts = Some(hosts);
        self
    }

    /// Once per frame, also while hidden: apply the engine's events and the tray's clicks.
    pub fn logic(&mut self, ctx: &egui::Context) {
        if !self.fonts_installed {
            theme::install_fonts(ctx);
            self.fonts_installed = true;
        }
        // A card that arrived earlier and is still not drawn: one more frame went by.
        if let Some(frames) = self.card_pending_draw.as_mut() {
            *frames += 1;
        }
        // Every news in order: the watcher's each raise a notice and a notification.
        while let Some(news) = self.installer.as_mut().and_then(|i| i.poll()) {
            if let Some(e) = &news.watched {
                self.model.watched(e);
                let (title, body) = crate::attention::hook_warning(e);
                self.warn(
                    &format!("vults-hooks-{}", e.agent().name()),
                    e.agent().display_name(),
                    title,
                    body,
                );
            }
            if let Some(s) = news.watch_settings {
                self.model.watch_settings = s;
            }
            if news.installs.is_empty() && news.watched.is_some() {
                continue;
            }
            for i in news
                .installs
                .iter()
                .filter(|i| i.state == AgentState::Installed)
            {
                self.model.hooks_out.remove(&i.agent);
                self.model.offered.remove(&i.agent);
            }
            self.model.installs = news.installs;
            if let Some(message) = news.message {
                self.model.notice(message);
            }
            if news.start_at_login.is_some() {
                self.model.start_at_login = news.start_at_login;
            }
            if let Some(welcome) = news.welcome {
                tracing::info!("the welcome is shown");
                self.model.welcome = Some(welcome);
                self.model.welcome_open = true;
                self.show_main(ctx);
            }
        }
        let shows = self
            .show_requests
            .as_ref()
            .map_or(0, |rx| rx.try_iter().count());
        if shows > 0 {
            tracing::info!("brought the window forward for a second start");
            self.show_main(ctx);
        }
        let mut heard_engine = false;
        while let Some(event) = self.link.try_recv() {
            heard_engine = true;
            match self.model.apply(event) {
                Change::CardArrived(id) => self.card_arrived(ctx, id),
                Change::CardGone(id) => {
                    self.cards.remove(&id);
                }
                Change::Other => {}
            }
        }
        if heard_engine {
            self.attention_update();
        }
        self.attention_poll(ctx);
        while let Some(event) = self.chat_side.as_mut().and_then(|c| c.try_recv()) {
            self.model.apply_chat(event);
        }
        let now_t = ctx.input(|i| i.time);
        for session in self.terminal.poll(&mut self.model, now_t) {
            self.show_terminal(ctx, &session);
        }
        for action in self.desktop.poll() {
            match action {
                TrayAction::Show => self.show_main(ctx),
                TrayAction::TogglePause => self.set_paused(!self.model.paused),
                TrayAction::ToggleQuiet => self.toggle_quiet(),
                TrayAction::Quit => {
                    // The phone link stops first: its last words (the summary of refusals its
                    // flood budgets dropped) reach the engine ahead of the Shutdown.
                    self.phone = None;
                    self.link.send(EngineCommand::Shutdown);
                    ctx.send_viewport_cmd_to(ViewportId::ROOT, ViewportCommand::Close);
                }
            }
        }
        if self.attention_asked
            && (ctx.input(|i| i.viewport().focused) == Some(true) || self.model.cards.is_empty())
        {
            ctx.send_viewport_cmd_to(
                ViewportId::ROOT,
                ViewportCommand::RequestUserAttention(egui::UserAttentionType::Reset),
            );
            self.attention_asked = false;
        }
        if self.model.tray_note.is_none() {
            self.model.tray_note = self.desktop.tray_note();
        }
        if self.layout == Layout::Floating
            && let Some(screens) = crate::viewport::screens(ctx)
        {
            let names = screens.monitors.iter().map(|m| m.name.clone());
            let names: Vec<String> = names.filter(|n| !n.is_empty()).collect();
            if names != self.model.monitor_names {
                self.model.monitor_names = names;
            }
        }
        if self.layout == Layout::Floating
            && let Some(area) = self.screen_area(ctx)
        {
            // The top centre of the chosen monitor, below its panels; again whenever that
            // changes (a monitor added or gone, a panel moved).
            let at = egui::pos2(
                (area.center().x - island::SIZE.x / 2.0)
                    .max(area.left())
                    .round(),
                area.top() + 6.0,
            );
            if self.island_at != Some(at) {
                ctx.send_viewport_cmd_to(ViewportId::ROOT, ViewportCommand::OuterPosition(at));
                self.island_at = Some(at);
            }
        }
    }

    fn card_arrived(&mut self, ctx: &egui::Context, id: CardId) {
        let Some(card) = self.model.card(id) else {
            return;
        };
        self.cards.insert(id, CardView::new(card));
        self.pulse_from = Some(ctx.input(|i| i.time));
        // One window (Wayland without XWayland): when it is not the focused window (on another
        // workspace, behind others), the compositor is asked to mark it (xdg-activation:
        // urgent on sway, "demands attention" on GNOME and KDE), besides the notification.
        // It never takes the keyboard: no activation is asked for.
        if self.layout == Layout::Embedded && ctx.input(|i| i.viewport().focused) != Some(true) {
            ctx.send_viewport_cmd_to(
                ViewportId::ROOT,
                ViewportCommand::RequestUserAttention(egui::UserAttentionType::Critical),
            );
            self.attention_asked = true;
        }
        self.card_pending_draw = Some(0);
        // The desktop notification is attention's, one per session: `attention_update`
        // (app/attend.rs) tells it after the model changes.
    }

    fn show_main(&mut self, ctx: &egui::Context) {
        self.main_open = true;
        match self.layout {
            Layout::Floating => {
                ctx.send_viewport_cmd_to(main_id(), ViewportCommand::Visible(true));
                ctx.send_viewport_cmd_to(main_id(), ViewportCommand::Focus);
            }
            Layout::Embedded => {
                ctx.send_viewport_cmd_to(ViewportId::ROOT, ViewportCommand::Minimized(false));
                ctx.send_viewport_cmd_to(ViewportId::ROOT, ViewportCommand::Focus);
            }
        }
        ctx.request_repaint();
    }

    fn set_paused(&mut self, paused: bool) {
        self.model.paused = paused;
        self.desktop.set_paused(paused);
        self.link.send(EngineCommand::SetPaused(paused));
    }

    /// Do not disturb on or off (the tray's switch; Settings has it too).
    fn toggle_quiet(&mut self) {
        let Some(side) = self.attention.as_mut() else {
            return;
        };
        let mut settings = side.status().settings;
        settings.quiet.on = !settings.quiet.on;
        tracing::info!(
            "do not disturb {} (tray)",
            if settings.quiet.on { "on" } else { "off" }
        );
        side.set_settings(settings);
    }

    /// Answers a card from the window: `by: key` when the card's view took it from a key (A,
    /// D, Shift+A, Enter), else `by: click`.
    fn answer(&mut self, id: CardId, answer: vults_engine::messages::CardAnswer) {
        let by = self
            .cards
            .get(&id)
            .map_or(AnsweredBy::Click, CardView::answered_by);
        self.answer_by(id, answer, by);
    }

    /// Answers a card as a click does, saying who answered.
    fn answer_by(
        &mut self,
        id: CardId,
        answer: vults_engine::messages::CardAnswer,
        by: AnsweredBy,
    ) {
        self.link.send(EngineCommand::Answer {
            card: id,
            answer,
            by,
        });
        // Gone at once; the engine's CardRemoved that follows finds nothing left to remove.
        self.model.cards.retain(|c| c.id != id);
        self.cards.remove(&id);
    }

    /// Draws everything. The root `ui` is the island (floating) or the whole window (embedded).
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        let now_t = ctx.input(|i| i.time);
        // While quiet the island stays still: it still counts, it does not pulse.
        let pulse = self.pulse_phase(now_t).filter(|_| !self.quiet);
        if pulse.is_some() {
            ctx.request_repaint_after(Duration::from_millis(40));
        }
        let birds = self.model.sessions.len();
        // Cards, and sessions that wait for the person without one (done, or asking in their
        // terminal).
        let waiting = self.model.cards.len() + self.model.sessions_waiting();
        // Where the cards go this frame, before anything is drawn: the island and the flock say
        // how many wait in the stack, and the chat knows which card takes the keys.
        let placement = self.placement(&ctx);
        self.stacked = placement
            .iter()
            .filter(|(_, at, _)| at.is_none())
            .map(|(c, _, _)| c.id)
            .collect();
        // One window: one card takes the keys — the oldest on screen, inline or floating — so a
        // card that arrives a moment before a key press never takes the key meant for the card
        // being read. A floating card takes the keys of its own window.
        self.keys_card = self.keys_card(&placement);
        self.chat.keys_card = self.keys_card;
        let stacked = self.stacked.len();
        self.island.paused = self.model.paused;
        self.cards_terminal();
        self.island.quiet = self.quiet;
        self.island.alert = self.model.hooks_out_line();
        self.island.limit = self.model.limit_line();
        match self.layout {
            Layout::Floating => {
                egui::CentralPanel::default()
                    .frame(egui::Frame::NONE)
                    .show(ui, |ui| {
                        if self.island.ui(ui, birds, waiting, stacked, pulse) {
                            if self.main_open {
                                self.main_open = false;
                            } else {
                                self.tab = Tab::Flock;
                                self.show_main(&ctx);
                            }
                        }
                    });
                if self.main_open {
                    let builder = ViewportBuilder::default()
                        .with_title("Vults")
                        .with_app_id("vults")
                        .with_inner_size(MAIN_SIZE)
                        .with_min_inner_size([480.0, 320.0])
                        .with_position([16.0, 56.0]);
                    crate::viewport::immediate(&ctx, main_id(), builder, |ui, _| {
                        if ui.input(|i| i.viewport().close_requested()) {
                            self.main_open = false;
                        }
                        self.main_ui(ui);
                    });
                }
            }
            Layout::Embedded => {
                egui::Panel::top("island-strip").show(ui, |ui| {
                    ui.add_space(4.0);
                    ui.horizontal(|ui| {
                        if self.island.ui(ui, birds, waiting, stacked, pulse) {
                            self.tab = Tab::Flock;
                        }
                    });
                    ui.add_space(4.0);
                });
                self.main_ui(ui);
            }
        }
        self.cards_ui(&ctx, placement);
        self.keep_asking_focus(&ctx);
        if self.island.menu_asked {
            self.island.menu_asked = false;
            self.terminal.menu_open = !self.terminal.menu_open;
        }
        let floating = self.layout == Layout::Floating;
        let screen = if floating {
            self.screen_area(&ctx).or(Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                ctx.content_rect().size(),
            )))
        } else {
            None
        };
        // The window the person works in (after Show terminal, the one raised): the toast
        // keeps clear of it.
        let active = crate::viewport::screens(&ctx)
            .filter(|_| floating)
            .and_then(|s| s.active_window(ctx.pixels_per_point()));
        let mut show: Vec<vults_engine::messages::SessionKey> = self
            .terminal
            .overlays_ui(&ctx, &self.model, screen, active)
            .into_iter()
            .collect();
        if floating {
            // Kept above the other windows where the window manager does not (crate::viewport).
            let mut open = std::mem::take(&mut self.open_cards);
            open.push(ISLAND_TITLE.to_owned());
            open.extend(self.terminal.open_titles().map(str::to_owned));
            crate::viewport::open_windows(&ctx, open);
        }
        // A card's "Show terminal" (its button or `T`), wherever the card was drawn.
        for (id, view) in self.cards.iter_mut() {
            if view.take_show_terminal()
                && let Some(card) = self.model.card(*id)
            {
                show.push(card.session.clone());
            }
        }
        for session in show {
            self.show_terminal(&ctx, &session);
        }
        self.schedule_clock_repaint(&ctx);
    }

    /// Tells each card what "Show terminal" is doing for its session.
    fn cards_terminal(&mut self) {
        for (id, view) in self.cards.iter_mut() {
            if let Some(card) = self.model.card(*id) {
                let shown = self
                    .model
                    .shown
                    .as_ref()
                    .filter(|s| s.session == card.session);
                view.set_terminal(self.model.showing.contains(&card.session), shown);
            }
        }
    }

    fn pulse_phase(&mut self, now_t: f64) -> Option<f32> {
        let from = self.pulse_from?;
        if self.model.cards.is_empty() || now_t - from > PULSE_FOR {
            self.pulse_from = None;
            return None;
        }
        Some((((now_t - from) % PULSE_PERIOD) / PULSE_PERIOD) as f32)
    }

    /// The cards say how long they have waited: repaint when that text next changes, not
    /// every frame.
    fn schedule_clock_repaint(&self, ctx: &egui::Context) {
        let now = (self.clock)();
        let next = self
            .model
            .cards
            .iter()
            .map(|c| {
                theme::next_waited_change(
                    now.duration_since(c.arrived).unwrap_or_default().as_secs(),
                )
            })
            .min();
        if let Some(secs) = next {
            ctx.request_repaint_after(Duration::from_secs(secs));
        }
    }

    fn main_ui(&mut self, ui: &mut egui::Ui) {
        egui::Panel::top("tabs").show(ui, |ui| {
            ui.add_space(4.0);
            // The tabs wrap onto a second row in a narrow window; nothing else shares their row.
            ui.horizontal_wrapped(|ui| {
                for tab in Tab::ALL {
                    if tab == Tab::Phone && self.phone.is_none() {
                        continue;
                    }
                    if tab == Tab::Hosts && self.hosts.is_none() {
                        continue;
                    }
                    if tab == Tab::Notifications && self.attention.is_none() {
                        continue;
                    }
                    if ui.selectable_label(self.tab == tab, tab.title()).clicked() {
                        self.tab = tab;
                        // Choosing a tab is choosing to move on: the welcome steps aside
                        // (Settings → General shows it again).
                        self.model.welcome_open = false;
                    }
                }
            });
            ui.add_space(2.0);
        });
        // "Pause cards" has a row of its own, at the bottom with the last notice: never one
        // stray click on a tab away, at any width.
        egui::Panel::bottom("status").show(ui, |ui| {
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let mut paused = self.model.paused;
                if ui
                    .checkbox(&mut paused, vults_i18n::tr!("pause-cards"))
                    .on_hover_text(vults_i18n::tr!("pause-cards-hover"))
                    .changed()
                {
                    self.set_paused(paused);
                }
                if self.model.paused {
                    ui.label(
                        RichText::new(vults_i18n::tr!("cards-paused-line"))
                            .strong()
                            .color(theme::AMBER),
                    );
                } else if let Some(notice) = self.model.notices.back() {
                    ui.add(
                        egui::Label::new(
                            RichText::new(notice).small().color(Color32::from_gray(160)),
                        )
                        .truncate(),
                    );
                }
            });
        });
        let now = (self.clock)();
        let mut action = None;
        if self.model.welcome_open
            && let Some(welcome) = self.model.welcome.clone()
        {
            let phone = self.phone.is_some();
            let chosen = egui::CentralPanel::default()
                .show(ui, |ui| super::welcome::ui(ui, &welcome, phone))
                .inner;
            match chosen {
                Some(super::welcome::WelcomeAction::Close) => self.model.welcome_open = false,
                Some(super::welcome::WelcomeAction::PairPhone) => {
                    self.model.welcome_open = false;
                    self.tab = Tab::Phone;
                }
                None => {}
            }
            return;
        }
        let mut chat_action = None;
        let mut stack_answer = None;
        let mut bird_show = None;
        egui::CentralPanel::default().show(ui, |ui| match self.tab {
            Tab::Flock => {
                let stacked: Vec<&PendingCard> = self
                    .stacked
                    .iter()
                    .filter_map(|id| self.model.card(*id))
                    .collect();
                stack_answer = super::flock::stack_ui(ui, &stacked, &mut self.cards, now);
                bird_show = self.flock.draw(ui, &self.model, now);
            }
            Tab::Chat => {
                self.chat.one_window = self.layout == Layout::Embedded;
                chat_action = self.chat.ui(ui, &self.model, now);
            }
            Tab::Agents => action = self.agents.ui(ui, &self.model),
            Tab::Rules => action = self.rules.ui(ui, &self.model),
            Tab::Policies => action = self.policies.ui(ui, &self.model),
            Tab::History => {
                self.history.ui(ui, &self.model);
                action = self.history.asked();
            }
            Tab::General => {
                action = egui::ScrollArea::vertical()
                    .auto_shrink([false, false])
                    .show(ui, |ui| self.general.ui(ui, &self.model))
                    .inner
            }
            Tab::Notifications => {
                if let Some(side) = self.attention.as_mut() {
                    let status = side.status();
                    egui::ScrollArea::vertical()
                        .auto_shrink([false, false])
                        .show(ui, |ui| {
                            if let Some(s) = self.attention_view.ui(ui, &status) {
                                side.set_settings(s);
                            }
                        });
                }
            }
            Tab::Hosts => {
                if let Some(hosts) = self.hosts.as_mut() {
                    let status = hosts.status();
                    egui::ScrollArea::vertical()
                        .auto_shrink([false, false])
                        .show(ui, |ui| {
                            if let Some(a) = self.hosts_view.ui(ui, &status) {
                                hosts.apply(a);
                            }
                        });
                }
            }
            Tab::Phone => {
                if let Some(phone) = self.phone.as_mut() {
                    let status = phone.status();
                    egui::ScrollArea::vertical()
                        .auto_shrink([false, false])
                        .show(ui, |ui| {
                            if let Some(a) = self.phone_view.ui(ui, &status) {
                                phone.apply(a);
                            }
                        });
                }
            }
        });
        if let Some((id, answer)) = stack_answer {
            self.answer(id, answer);
        }
        if let Some(session) = bird_show {
            let ctx = ui.ctx().clone();
            self.show_terminal(&ctx, &session);
        }
        match chat_action {
            Some(super::chat::ChatAction::Command(cmd)) => match self.chat_side.as_mut() {
                Some(chat) => chat.send(cmd),
                None => self
                    .model
                    .notice(vults_i18n::tr!("notice-chat-not-running")),
            },
            Some(super::chat::ChatAction::Answer(id, answer, by)) => self.answer_by(id, answer, by),
            Some(super::chat::ChatAction::ShowTerminal(session)) => {
                let ctx = ui.ctx().clone();
                self.show_terminal(&ctx, &session);
            }
            None => {}
        }
        match action {
            Some(SettingsAction::RemoveRule(id)) => self.link.send(EngineCommand::RemoveRule(id)),
            Some(SettingsAction::ReloadPolicies) => self.link.send(EngineCommand::ReloadPolicies),
            Some(SettingsAction::ReadHistory(of)) => self.link.send(EngineCommand::ReadHistory(of)),
            Some(SettingsAction::Open(path)) => self.desktop.open(&path),
            Some(SettingsAction::Repair(agent)) => match self.installer.as_mut() {
                Some(installer) => installer.repair(agent),
                None => self.model.notice(vults_i18n::tr!(
                    "notice-cannot-repair",
                    agent = agent.display_name(),
                    command = "vults-app install"
                )),
            },
            Some(SettingsAction::SetEnabled(agent, enabled)) => match self.installer.as_mut() {
                Some(installer) => installer.set_enabled(agent, enabled),
                None => self.model.notice(vults_i18n::tr!(
                    "notice-cannot-change",
                    agent = agent.display_name()
                )),
            },
            Some(SettingsAction::SetWatch(s)) => {
                self.model.watch_settings = s;
                if let Some(installer) = self.installer.as_mut() {
                    installer.set_watch(s);
                }
            }
            Some(SettingsAction::RemoveLeftovers(agent)) => match self.installer.as_mut() {
                Some(installer) => installer.remove_leftovers(agent),
                None => self.model.notice(vults_i18n::tr!(
                    "notice-cannot-remove-old-hooks",
                    agent = agent.display_name(),
                    command = "vults-app --uninstall"
                )),
            },
            Some(SettingsAction::SetStartAtLogin(on)) => match self.installer.as_mut() {
                Some(installer) => installer.set_start_at_login(on),
                None => self.model.notice(vults_i18n::tr!(
                    "notice-cannot-change-start-at-login",
                    command = "vults-app autostart on|off"
                )),
            },
            Some(SettingsAction::SetWindow(choice, over)) => {
                self.model.monitor_choice = choice;
                self.model.cards_over_fullscreen = over;
                self.save_window_prefs();
            }
            Some(SettingsAction::SetLanguage(choice)) => {
                let spoken = vults_i18n::choose(&choice);
                tracing::info!("language: {} ({spoken})", choice.setting());
                self.model.language = choice;
                self.save_window_prefs();
            }
            Some(SettingsAction::ShowWelcome) => match self.installer.as_mut() {
                // Built afresh from what is installed now.
                Some(installer) => installer.show_welcome(),
                None => self.model.welcome_open = self.model.welcome.is_some(),
            },
            None => {}
        }
    }

    /// Saves Settings → General's choices (where the island and the cards go, the language).
    fn save_window_prefs(&mut self) {
        let prefs = vults_installer::window_prefs::WindowPrefs {
            monitor: self.model.monitor_choice.saved(),
            spare_fullscreen: !self.model.cards_over_fullscreen,
            language: self.model.language.setting().to_owned(),
        };
        if let Some(installer) = self.installer.as_mut() {
            installer.save_window_prefs(prefs);
        }
    }

    /// Sets where the island and the cards go and the language Vults speaks (from
    /// `settings.json`, read before the window opens) and what Settings → General says of the
    /// layout.
    pub fn set_window_prefs(
        &mut self,
        prefs: &vults_installer::window_prefs::WindowPrefs,
        layout_note: Option<String>,
    ) {
        self.model.monitor_choice = crate::viewport::MonitorChoice::from_saved(&prefs.monitor);
        self.model.cards_over_fullscreen = !prefs.spare_fullscreen;
        self.model.language = vults_i18n::Choice::from_setting(&prefs.language);
        vults_i18n::choose(&self.model.language);
        self.model.layout_note = layout_note;
    }

    /// Sets where the log file is, for Settings → General.
    pub fn set_log_file(&mut self, path: Option<std::path::PathBuf>) {
        self.model.log_file = path;
    }

    /// The part of the chosen monitor the island and the cards may use (floating): from the X
    /// server where there is one (monitors, panels), else the window's own monitor.
    pub(crate) fn screen_area(&self, ctx: &egui::Context) -> Option<egui::Rect> {
        crate::viewport::screens(ctx)
            .and_then(|s| s.usable(&self.model.monitor_choice, ctx.pixels_per_point()))
            .or_else(|| {
                ctx.input(|i| i.viewport().monitor_size)
                    .map(|size| egui::Rect::from_min_size(egui::Pos2::ZERO, size))
            })
    }
}

pub(crate) fn main_id() -> ViewportId {
    ViewportId::from_hash_of("vults-main")
}

/// The island's window title (the root window of the floating layout).
pub(crate) const ISLAND_TITLE: &str = "Vults island";
