//! Desktop notifications that say what and where, in a task of their own.
//!
//! [`Notifier::start`] spawns the notifier's task on the app's one runtime
//! (`vults_engine::rt`) and returns at once; every method of [`Notifier`] is a channel send or a
//! read of shared state, so the window may call them every frame. The task owns the platform
//! backend:
//!
//! - Linux: `org.freedesktop.Notifications` over zbus — `replaces_id` for one notification per
//!   session, `CloseNotification` to withdraw, actions where `GetCapabilities` says `actions`
//!   (`ActionInvoked` comes back as [`NotifierEvent::Action`]), the `sound-name` hint.
//! - Windows: toasts with the session as tag (a new one replaces it, history removal withdraws
//!   it) and buttons.
//! - macOS: NSUserNotification, as notify-rust does it: text and sound only.
//!
//! The same task works out quiet hours ([`crate::quiet`]) each time something happens and at
//! each schedule change, and reads the desktop's own do-not-disturb where it can
//! ([`Capabilities::desktop_dnd`]). While quiet nothing is raised; [`Notifier::quiet`] is the
//! island's flag.

mod center;

#[cfg(target_os = "linux")]
mod freedesktop;
#[cfg(target_os = "linux")]
pub(crate) use freedesktop::connect_bus;
#[cfg(target_os = "macos")]
mod macos;
#[cfg(not(any(target_os = "linux", windows, target_os = "macos")))]
mod none;
#[cfg(windows)]
mod windows;

#[cfg(target_os = "linux")]
use freedesktop as platform;
#[cfg(target_os = "macos")]
use macos as platform;
#[cfg(not(any(target_os = "linux", windows, target_os = "macos")))]
use none as platform;
#[cfg(windows)]
use windows as platform;

pub use center::NoticeAction;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;

use crate::notice::{Notice, ServerCaps, SessionId};
use crate::quiet::{QuietNow, quiet_now};
use crate::settings::AttentionSettings;
use center::{Center, Op};

/// Which D-Bus session bus (Linux; ignored elsewhere).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bus {
    /// The session's own (`DBUS_SESSION_BUS_ADDRESS`).
    Session,
    /// A bus at this address (tests run a private one).
    Address(String),
}

/// How the notifier starts.
#[derive(Clone)]
pub struct NotifierConfig {
    /// The application name servers show (`Vults`).
    pub app_name: String,
    /// The `desktop-entry` hint: the app's `.desktop` file name without `.desktop` (`vults`).
    pub desktop_entry: Option<String>,
    /// The icon name or `file://` path; empty: none.
    pub icon: String,
    /// Which bus (Linux).
    pub bus: Bus,
    /// The settings to start with; later ones through [`Notifier::set_settings`].
    pub settings: AttentionSettings,
    /// Called from the notifier's thread after each event is queued, so an idle window notices
    /// (the window passes `ctx.request_repaint`).
    pub wake: Option<Arc<dyn Fn() + Send + Sync>>,
    /// The time zone quiet hours are read in; `None`: the system's (re-read as it changes).
    pub time_zone: Option<jiff::tz::TimeZone>,
    /// Windows: the AppUserModelID toasts are sent as; `None`: PowerShell's, which any
    /// unpackaged program may use (the toast then names PowerShell as its sender).
    pub windows_app_id: Option<String>,
    /// Whether to read the desktop's own do-not-disturb at all (tests turn it off to stay
    /// hermetic from the machine's desktop).
    pub read_desktop_dnd: bool,
}

impl NotifierConfig {
    /// The defaults for an app called `app_name`: the session bus, default settings.
    pub fn new(app_name: &str) -> NotifierConfig {
        NotifierConfig {
            app_name: app_name.to_string(),
            desktop_entry: None,
            icon: String::new(),
            bus: Bus::Session,
            settings: AttentionSettings::default(),
            wake: None,
            time_zone: None,
            windows_app_id: None,
            read_desktop_dnd: true,
        }
    }
}

impl std::fmt::Debug for NotifierConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NotifierConfig")
            .field("app_name", &self.app_name)
            .field("bus", &self.bus)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// Whether something is available here, and from what — or why not, in words for Settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    /// Available: from what ("GNOME Shell 46.0", "KDE Plasma's Inhibited property").
    Available(String),
    /// Not available, and why.
    Unavailable(String),
}

impl Support {
    /// Whether it is available.
    pub fn is_available(&self) -> bool {
        matches!(self, Support::Available(_))
    }
}

/// What this desktop supports, for Settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capabilities {
    /// Desktop notifications: the server's name and version, or why there are none.
    pub notifications: Support,
    /// Buttons on notifications ("Show", and "Allow"/"Deny" where allowed).
    pub actions: bool,
    /// The notification's own sound.
    pub sound: bool,
    /// A changed notice replaces its notification instead of adding one.
    pub replace: bool,
    /// A notification is withdrawn when its card is answered.
    pub withdraw: bool,
    /// The desktop's own do-not-disturb: where it is read from, or why it cannot be.
    pub desktop_dnd: Support,
}

impl Capabilities {
    fn starting() -> Capabilities {
        Capabilities {
            notifications: Support::Unavailable(vults_i18n::tr!("notifications-why-starting")),
            actions: false,
            sound: false,
            replace: false,
            withdraw: false,
            desktop_dnd: Support::Unavailable(vults_i18n::tr!("notifications-why-starting")),
        }
    }
}

/// What the notifier tells the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotifierEvent {
    /// The person used a notification's action.
    Action {
        /// The session it was for.
        session: SessionId,
        /// What it asked for.
        action: NoticeAction,
    },
    /// The person dismissed a notification that was still current (its notice still waits).
    Dismissed {
        /// The session it was for.
        session: SessionId,
    },
    /// Quiet started or ended.
    Quiet(QuietNow),
    /// What this desktop supports changed (known after start, or the server came or went).
    Capabilities(Capabilities),
}

/// From a platform backend to the loop.
#[derive(Debug)]
#[cfg_attr(
    not(any(target_os = "linux", windows)),
    allow(dead_code, reason = "macOS notifications send no events back")
)]
pub(crate) enum PlatformEvent {
    /// `ActionInvoked(id, key)`.
    Action { id: u32, key: String },
    /// `NotificationClosed(id, reason)`: 1 expired, 2 dismissed by the person, 3 closed by a
    /// call, 4 other.
    Closed { id: u32, reason: u32 },
    /// The desktop's do-not-disturb as read now (`None`: unreadable).
    DesktopQuiet(Option<bool>),
}

/// What a backend reports once connected.
pub(crate) struct BackendInfo {
    pub server: String,
    pub caps: ServerCaps,
    pub replace: bool,
    pub withdraw: bool,
}

enum Cmd {
    Show(SessionId, Box<Notice>, &'static str),
    Withdraw(SessionId),
    WithdrawAll,
    Settings(Box<AttentionSettings>),
    Sync(std::sync::mpsc::Sender<()>),
}

struct Shared {
    quiet: QuietNow,
    caps: Capabilities,
}

/// The handle of the notifier's thread. Cheap to call from the window: nothing here blocks
/// (but [`Notifier::sync`], for tests). Dropping it withdraws every notification and ends the
/// thread.
pub struct Notifier {
    tx: mpsc::UnboundedSender<Cmd>,
    /// The last notice sent per session and the language it was worded in, so the same one
    /// repeated (each frame) sends nothing, and another language chosen words it again.
    sent: Mutex<std::collections::HashMap<SessionId, (Notice, &'static str)>>,
    shared: Arc<Mutex<Shared>>,
    /// In a mutex so the notifier can be shared (`Sync`) with a task that tells it.
    done: Mutex<Option<std::sync::mpsc::Receiver<()>>>,
}

impl Notifier {
    /// Starts the notifier's task on the app's runtime; returns at once. Events arrive on the receiver (and
    /// `config.wake` is called). When the platform has no notifications the notifier still
    /// runs (quiet hours still count) and [`Notifier::capabilities`] says why.
    pub fn start(config: NotifierConfig) -> (Notifier, std::sync::mpsc::Receiver<NotifierEvent>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let (events_tx, events) = std::sync::mpsc::channel();
        let (done_tx, done) = std::sync::mpsc::channel();
        let shared = Arc::new(Mutex::new(Shared {
            quiet: QuietNow::AWAKE,
            caps: Capabilities::starting(),
        }));
        let thread_shared = shared.clone();
        // A task on the app's one runtime (`vults_engine::rt`), not a thread of its own.
        vults_engine::rt::handle().spawn(async move {
            run(config, rx, events_tx, thread_shared).await;
            let _ = done_tx.send(());
        });
        (
            Notifier {
                tx,
                sent: Mutex::new(Default::default()),
                shared,
                done: Mutex::new(Some(done)),
            },
            events,
        )
    }

    /// `session` waits on `notice` now: raises its notification, or replaces it when it says
    /// something else; the same notice again changes nothing. Call it whenever what the session
    /// waits on may have changed (the newest card of the session, else its turn or prompt).
    pub fn show(&self, session: SessionId, notice: Notice) {
        // Worded in the language of the thread that shows it (the app's choice, or a test's
        // scoped one), on the notifier's own thread.
        let lang = vults_i18n::active();
        if let Ok(mut sent) = self.sent.lock() {
            if sent
                .get(&session)
                .is_some_and(|(n, l)| *n == notice && *l == lang)
            {
                return;
            }
            sent.insert(session.clone(), (notice.clone(), lang));
        }
        let _ = self.tx.send(Cmd::Show(session, Box::new(notice), lang));
    }

    /// Nothing waits in `session` any more (its card answered anywhere — a click, the phone, a
    /// rule, the terminal — or the session ended): its notification is withdrawn.
    pub fn withdraw(&self, session: SessionId) {
        if let Ok(mut sent) = self.sent.lock() {
            sent.remove(&session);
        }
        let _ = self.tx.send(Cmd::Withdraw(session));
    }

    /// Withdraws every notification (pause, quit).
    pub fn withdraw_all(&self) {
        if let Ok(mut sent) = self.sent.lock() {
            sent.clear();
        }
        let _ = self.tx.send(Cmd::WithdrawAll);
    }

    /// New settings: notifications and quiet hours (the keys' part is read by
    /// [`crate::keys::GlobalKeys`]).
    pub fn set_settings(&self, settings: AttentionSettings) {
        let _ = self.tx.send(Cmd::Settings(Box::new(settings)));
    }

    /// Whether it is quiet now, and why: the island stays still while it is. No I/O.
    pub fn quiet(&self) -> QuietNow {
        self.shared
            .lock()
            .map(|s| s.quiet.clone())
            .unwrap_or(QuietNow::AWAKE)
    }

    /// What this desktop supports, as last learnt. No I/O.
    pub fn capabilities(&self) -> Capabilities {
        self.shared
            .lock()
            .map(|s| s.caps.clone())
            .unwrap_or_else(|_| Capabilities::starting())
    }

    /// Waits until everything sent before has been carried out (the server answered), up to
    /// `timeout`. For tests and for quitting; never on the window's thread.
    pub fn sync(&self, timeout: Duration) -> bool {
        let (tx, rx) = std::sync::mpsc::channel();
        self.tx.send(Cmd::Sync(tx)).is_ok() && rx.recv_timeout(timeout).is_ok()
    }
}

impl Drop for Notifier {
    fn drop(&mut self) {
        let _ = self.tx.send(Cmd::WithdrawAll);
        let (tx, _) = mpsc::unbounded_channel();
        drop(std::mem::replace(&mut self.tx, tx));
        // The thread withdraws what is on screen, then ends; a stuck bus is not waited for.
        if let Some(done) = self.done.get_mut().ok().and_then(Option::take) {
            let _ = done.recv_timeout(Duration::from_secs(2));
        }
    }
}

/// The most the loop sleeps between two looks at the clock (a changed time zone, a clock set
/// by hand, the desktop's DND read by polling).
const TICK: Duration = Duration::from_secs(30);

fn random_token() -> String {
    let mut b = [0u8; 16];
    if getrandom::fill(&mut b).is_err() {
        // No randomness: a token nobody else knows is still better than none.
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        b.copy_from_slice(&t.to_le_bytes());
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}

async fn run(
    config: NotifierConfig,
    mut cmds: mpsc::UnboundedReceiver<Cmd>,
    events: std::sync::mpsc::Sender<NotifierEvent>,
    shared: Arc<Mutex<Shared>>,
) {
    let emit = |e: NotifierEvent| {
        let _ = events.send(e);
        if let Some(wake) = &config.wake {
            wake();
        }
    };
    let (pev_tx, mut pev) = mpsc::unbounded_channel();
    let mut settings = config.settings.clone();
    let mut backend = match platform::Backend::connect(&config, pev_tx.clone()).await {
        Ok(b) => Some(b),
        Err(e) => {
            tracing::warn!("no desktop notifications ({e}); cards still show");
            set_caps(&shared, &emit, |c| {
                c.notifications = Support::Unavailable(e.clone());
            });
            None
        }
    };
    let mut center = Center::new(
        settings.notifications.clone(),
        ServerCaps::default(),
        Box::new(random_token),
    );
    if let Some(b) = &backend {
        let info = b.info();
        let _ = center.set_caps(info.caps.clone());
        set_caps(&shared, &emit, |c| {
            c.notifications = Support::Available(info.server.clone());
            c.actions = info.caps.actions;
            c.sound = info.caps.sound;
            c.replace = info.replace;
            c.withdraw = info.withdraw;
        });
    }
    let dnd = if config.read_desktop_dnd {
        platform::read_desktop_dnd(backend.as_ref(), pev_tx.clone()).await
    } else {
        Err(vults_i18n::tr!("notifications-why-dnd-not-read"))
    };
    let mut desktop_quiet = None;
    match dnd {
        Ok((source, quiet)) => {
            desktop_quiet = quiet;
            set_caps(&shared, &emit, |c| {
                c.desktop_dnd = Support::Available(source.clone())
            });
        }
        Err(why) => set_caps(&shared, &emit, |c| {
            c.desktop_dnd = Support::Unavailable(why.clone())
        }),
    }
    let mut warned = false;
    let mut last_quiet = QuietNow::AWAKE;
    loop {
        let now = match &config.time_zone {
            Some(tz) => jiff::Timestamp::now().to_zoned_datetime(tz.clone()),
            None => jiff::ZonedDateTime::now(),
        };
        let q = quiet_now(&settings.quiet, &now, desktop_quiet);
        let mut ops = Vec::new();
        if q != last_quiet {
            if let Ok(mut s) = shared.lock() {
                s.quiet = q.clone();
            }
            ops.extend(center.set_quiet(q.quiet));
            emit(NotifierEvent::Quiet(q.clone()));
            last_quiet = q;
        }
        // Run the quiet change's ops before waiting again.
        if !ops.is_empty() {
            execute(&mut backend, &mut center, ops, &mut warned).await;
            continue;
        }
        let sleep = settings
            .quiet
            .schedule
            .next_change(&now)
            .and_then(|next| {
                let secs = next.timestamp().as_millisecond() - now.timestamp().as_millisecond();
                u64::try_from(secs).ok().map(Duration::from_millis)
            })
            .map_or(TICK, |d| d.min(TICK));
        tokio::select! {
            cmd = cmds.recv() => match cmd {
                None => {
                    let ops = center.withdraw_all();
                    execute(&mut backend, &mut center, ops, &mut warned).await;
                    break;
                }
                Some(Cmd::Show(session, notice, lang)) => {
                    ops = center.show_in(session, *notice, lang)
                }
                Some(Cmd::Withdraw(session)) => ops = center.withdraw(&session),
                Some(Cmd::WithdrawAll) => ops = center.withdraw_all(),
                Some(Cmd::Settings(s)) => {
                    ops = center.set_settings(s.notifications.clone());
                    settings = *s;
                }
                Some(Cmd::Sync(reply)) => {
                    let _ = reply.send(());
                }
            },
            ev = pev.recv() => match ev {
                Some(PlatformEvent::Action { id, key }) => match center.action(id, &key) {
                    Some((session, action)) => emit(NotifierEvent::Action { session, action }),
                    None => tracing::info!("notification action {key:?} on {id}: not one it offered; ignored"),
                },
                Some(PlatformEvent::Closed { id, reason }) => {
                    if let Some(session) = center.closed(id)
                        && reason == 2
                    {
                        emit(NotifierEvent::Dismissed { session });
                    }
                }
                Some(PlatformEvent::DesktopQuiet(q)) => desktop_quiet = q,
                None => {}
            },
            _ = tokio::time::sleep(sleep) => {}
        }
        execute(&mut backend, &mut center, ops, &mut warned).await;
    }
}

fn set_caps(
    shared: &Arc<Mutex<Shared>>,
    emit: &impl Fn(NotifierEvent),
    change: impl FnOnce(&mut Capabilities),
) {
    let caps = match shared.lock() {
        Ok(mut s) => {
            change(&mut s.caps);
            s.caps.clone()
        }
        Err(_) => return,
    };
    emit(NotifierEvent::Capabilities(caps));
}

async fn execute(
    backend: &mut Option<platform::Backend>,
    center: &mut Center,
    ops: Vec<Op>,
    warned: &mut bool,
) {
    let Some(b) = backend else {
        return;
    };
    for op in ops {
        let result = match op {
            Op::Notify {
                session,
                replaces,
                out,
                actions,
                token,
            } => match b.notify(replaces, &out, &actions).await {
                Ok(id) if center.wants(&session) => {
                    center.notified(&session, id, out, token);
                    Ok(())
                }
                // Withdrawn while the call was on its way.
                Ok(id) => b.close(id).await,
                Err(e) => {
                    // Not retried for the same notice (a broken server is not called each
                    // time the app repeats itself); a changed notice tries again.
                    center.notified(&session, 0, out, token);
                    Err(e)
                }
            },
            Op::Close { id } => b.close(id).await,
        };
        if let Err(e) = result {
            if !*warned {
                tracing::warn!("desktop notification failed ({e}); cards still show");
            }
            *warned = true;
        }
    }
}
