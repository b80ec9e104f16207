//! `vults-app --headless`: the engine without a window, for SSH hosts, servers and tests.
//!
//! It serves the socket until SIGINT/SIGTERM and logs what happens to stderr. It runs what the
//! window app runs but the window: the paired phone's link (the broker saved in
//! `phone-broker.json` from the start, the LAN page once `vults-app phone pair` asks for it,
//! Web Push), the phone commands' channel (`crate::control`) and the SSH hosts' links. A request
//! no Always rule, policy or phone answers is left to the agent: the hook prints nothing and the
//! agent asks in its own terminal.
//!
//! `--cards` makes the console the one who clicks: each card is printed to stderr and answered
//! by a line on stdin —
//!
//! | line | does |
//! |---|---|
//! | `allow [card]`, `deny [card]` | answers the card (the oldest waiting one without a number) |
//! | `always [card]` | allows and makes the card's Always rule |
//! | `answer <card> <text>` | answers a one-question card with `text` |
//! | `remove <rule-id>` | removes an Always rule |
//! | `pause`, `resume` | while paused, requests are left to the agents' own prompts |
//! | `quit` | stops |
//!
//! When stdin closes, the console stops answering and the engine keeps serving.
//!
//! The console and the phone answer the same cards: the first answer wins (the engine takes one
//! answer per card), the card is withdrawn from the other (the phone's list and its push), and
//! the audit's `by` says who (`click` for the console, `phone:<name> (<id>)` for the phone).
//!
//! It also keeps Vults' hook in place (`vults_installer::watch`, a task on the one runtime)
//! and warns before a plan's usage limit bites (`vults_notify::limits`): each warning is a
//! `vults: …` line on stderr, a log line, and one desktop notification where a notification
//! server answers on the session bus (the notifier starts with the first warning).

use std::io::BufRead;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use vults_core::paths::Paths;
use vults_core::protocol::AnswerItem;
use vults_engine::messages::{
    AnsweredBy, CardAnswer, CardId, EngineCommand, EngineEvent, PendingCard,
};
use vults_engine::{EngineCommander, EngineHandle, EngineOptions};

use crate::control::PhonePort;

/// Runs until a signal or `quit`. `cards`: answer cards from the console.
pub fn run(paths: Paths, cards: bool) -> ExitCode {
    let options = EngineOptions {
        interactive: cards,
        stop_on_signal: true,
        ..EngineOptions::default()
    };
    let phone_paths = paths.clone();
    // The language of what Vults says without a window (its warnings, the push, the phone
    // page): settings.json's "language" (Settings → General), else the system's.
    let choice =
        vults_i18n::Choice::from_setting(&vults_installer::window_prefs::read(&paths).language);
    let spoken = vults_i18n::choose(&choice);
    tracing::info!("language: {} ({spoken})", choice.setting());
    // The runtime, the engine and the hosts' links are composed in one place (compose.rs).
    let app = match crate::compose::Headless::start(paths, options) {
        Ok(app) => app,
        Err(e) => {
            tracing::error!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let engine = &app.engine;
    tracing::info!(
        "serving {}{}",
        engine.socket().display(),
        if cards {
            " (answer cards on stdin: allow | deny | always [card])"
        } else {
            " (rules, policies and a paired phone answer, agents ask the rest themselves)"
        }
    );
    let phone = start_phone(&phone_paths, engine);
    if !cards {
        answer_with_the_phone(&phone.port, engine.commander());
    }
    let warnings = Arc::new(Warnings::new(&phone_paths, phone.port.clone()));
    let _watch = {
        let warnings = warnings.clone();
        let sink: vults_installer::watch::Sink = Arc::new(move |e| warnings.hook(&e));
        vults_installer::watch::spawn(&vults_engine::rt::handle(), &phone_paths, sink)
            .map_err(|e| tracing::warn!("the hooks are not watched: {e}"))
            .ok()
    };
    let mut limits = vults_notify::limits::LimitWatch::new();
    let waiting: Arc<Mutex<Vec<CardId>>> = Arc::default();
    if cards {
        let commander = engine.commander();
        let waiting = waiting.clone();
        let phone = phone.port.clone();
        let spawned = std::thread::Builder::new()
            .name("vults-console".into())
            .spawn(move || console(&commander, &waiting, &|| phone.stop()));
        if let Err(e) = spawned {
            tracing::warn!("cannot read the console: {e}");
        }
    }
    // The console reads a subscription of its own.
    let mut events = engine.subscribe();
    while let Some(event) = events.blocking_recv() {
        log(&event);
        if let EngineEvent::SessionChanged(session) = &*event {
            for w in limits.observe_session(session, &warnings.settings.limits) {
                warnings.limit(&w);
            }
        }
        if let Ok(mut w) = waiting.lock() {
            match &*event {
                EngineEvent::CardAdded(c) => w.push(c.id),
                EngineEvent::CardRemoved { id, .. } => w.retain(|x| x != id),
                _ => {}
            }
        }
    }
    // The phone's last words first, then the engine and the rest (compose.rs's order).
    phone.port.stop();
    drop(phone);
    app.wait();
    tracing::info!("stopped");
    ExitCode::SUCCESS
}

/// Without `--cards`, requests get cards only while a paired phone can answer them: a phone
/// not revoked, and the LAN page or the broker link on. Otherwise the engine keeps leaving
/// them to the agents' own prompts at once, as before there was a phone.
fn answer_with_the_phone(port: &Arc<PhonePort>, commander: EngineCommander) {
    let mut was = false;
    port.watch(move |s| {
        let now = s.devices.iter().any(|d| d.revoked_at.is_none())
            && (s.address.is_some() || s.broker.state.is_some());
        if now != was {
            was = now;
            commander.send(EngineCommand::SetInteractive(now));
            tracing::info!(
                "{}",
                if now {
                    "a paired phone can answer: requests no rule or policy answers become cards"
                } else {
                    "no paired phone can answer: requests no rule or policy answers are left to \
                     the agents' own prompts"
                }
            );
        }
    });
}

/// The phone link, shared with the phone commands' channel, and the channel's socket file
/// (removed when the app stops).
struct Phone {
    port: Arc<PhonePort>,
    _served: Option<crate::control::Served>,
}

/// Starts the phone link on its own thread: its answers go to the engine as a click's do, it
/// stops before the engine does (its last summary of refusals audited), and `vults-app phone …`
/// reaches it through the control channel.
fn start_phone(paths: &Paths, engine: &EngineHandle) -> Phone {
    // Keys in the OS keyring where one runs; a server without D-Bus keeps them in a 0600 file
    // (`vults-app phone list` and the log say which).
    if let Err(e) = vults_phone::secrets::use_platform_store() {
        tracing::warn!("no keyring ({e}); the phone link keeps its keys in a private file (0600)");
    }
    let commander = engine.commander();
    let port = Arc::new(PhonePort::start(
        paths.clone(),
        Arc::new(move |command| {
            commander.send(command);
        }),
    ));
    // It reads the engine's events from a subscription of its own.
    port.follow(&engine.event_bus());
    let at_stop = port.clone();
    engine.before_stop(move || at_stop.stop());
    let served = match crate::control::serve(paths, port.clone()) {
        Ok(served) => {
            tracing::info!(
                "phone commands (vults-app phone pair|list|revoke|test) on {}",
                crate::control::socket_path(paths).display()
            );
            Some(served)
        }
        Err(e) => {
            tracing::warn!("no channel for the phone commands: {e}");
            None
        }
    };
    Phone {
        port,
        _served: served,
    }
}

/// Vults' own warnings (a hook removed, a limit near): a console line, a log line, one desktop
/// notification per agent or window (replaced by the next), held by quiet hours, and the same
/// words pushed to the paired phones, as the window does.
struct Warnings {
    settings: vults_notify::AttentionSettings,
    notifier: Mutex<Option<vults_notify::Notifier>>,
    phone: Arc<PhonePort>,
}

impl Warnings {
    fn new(paths: &Paths, phone: Arc<PhonePort>) -> Warnings {
        let (settings, why) = vults_ui::attention::load_settings(paths);
        if let Some(why) = why {
            tracing::warn!("notification settings: {why}; the defaults are used");
        }
        Warnings {
            settings,
            notifier: Mutex::new(None),
            phone,
        }
    }

    fn show(&self, id: String, notice: vults_notify::Notice) {
        if let vults_notify::What::Warning { title, body } = &notice.what {
            self.phone.warn(&id, title, body);
        }
        let Ok(mut n) = self.notifier.lock() else {
            return;
        };
        let notifier = n.get_or_insert_with(|| {
            let mut config = vults_notify::NotifierConfig::new("Vults");
            config.desktop_entry = Some("vults".into());
            config.settings = self.settings.clone();
            // Its events (actions, quiet) are not needed here: Show has no window to bring up.
            vults_notify::Notifier::start(config).0
        });
        notifier.show(vults_notify::SessionId(id), notice);
    }

    fn hook(&self, e: &vults_installer::watch::WatchEvent) {
        eprintln!("vults: {}", e.text());
        self.show(
            format!("vults-hooks-{}", e.agent().name()),
            vults_notify::Notice {
                agent: e.agent().display_name().to_string(),
                folder: String::new(),
                what: {
                    // The console line above stays English; the notification and the push
                    // are in the person's language.
                    let (title, body) = vults_ui::attention::hook_warning(e);
                    vults_notify::What::Warning { title, body }
                },
            },
        );
    }

    fn limit(&self, w: &vults_notify::limits::LimitWarning) {
        // The console and the log in English (support reads them); the notification and the
        // push in the person's language.
        let (title, body) = {
            let _en = vults_i18n::scoped(&vults_i18n::Choice::Language(vults_i18n::ENGLISH.into()));
            w.words_local()
        };
        eprintln!("vults: {title}. {body}");
        tracing::warn!("{title}. {body}");
        let (id, notice) = w.notice();
        self.show(id.0, notice);
    }
}

fn log(event: &EngineEvent) {
    match event {
        EngineEvent::CardAdded(c) => eprintln!("{}", describe(c)),
        EngineEvent::CardRemoved { id, by } => eprintln!("vults: card {id} done ({})", by.label()),
        EngineEvent::Audited(lines) if lines.len() == 1 => {
            let l = &lines[0];
            eprintln!(
                "vults: {} {} {} for {} ({})",
                l.decision, l.tool, l.target, l.identity, l.by
            );
        }
        EngineEvent::Audited(lines) => eprintln!("vults: {} audit lines in history", lines.len()),
        EngineEvent::Rules(rules) => eprintln!("vults: {} Always rules", rules.len()),
        EngineEvent::Policies(p) => {
            match &p.error {
                Some(e) => eprintln!("vults: policies: {} has an error at {e}", p.path.display()),
                None => eprintln!("vults: {} policies in force", p.count),
            }
            for w in &p.warnings {
                eprintln!("vults: policies: warning: {w}");
            }
        }
        EngineEvent::NamedToolSeen(t) => eprintln!("vults: named tool {} asked", t.name),
        EngineEvent::TooLarge(t) => eprintln!(
            "vults: {} asks in its terminal: {}",
            t.identity.display_name(),
            t.text()
        ),
        EngineEvent::Notice(text) => eprintln!("vults: {text}"),
        // Only a window asks for History's pages.
        EngineEvent::HistoryPage(_) => {}
        // The flock changes with every event; too chatty for a log.
        EngineEvent::SessionChanged(_) | EngineEvent::SessionGone(_) => {}
    }
}

fn describe(c: &PendingCard) -> String {
    let mut s = format!(
        "vults: card {} — {} wants {} in {} ({})\n",
        c.id,
        c.identity.display_name(),
        c.call.tool,
        c.folder,
        c.reason
    );
    for line in c.call.target.rule_key().lines() {
        s.push_str("    ");
        s.push_str(line);
        s.push('\n');
    }
    s.push_str(if c.question {
        "  answer <card> <text> | deny"
    } else if c.always_rule.is_some() {
        "  allow | deny | always"
    } else {
        "  allow | deny"
    });
    s
}

/// `stop_phone` runs before `quit` stops the engine (the phone's last words go first).
fn console(commander: &EngineCommander, waiting: &Mutex<Vec<CardId>>, stop_phone: &dyn Fn()) {
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let mut words = line.split_whitespace();
        let Some(verb) = words.next() else { continue };
        let arg = words.next();
        // Typed ahead of the card's arrival: give it a moment to come up.
        let oldest = || {
            for _ in 0..200 {
                if let Some(id) = waiting.lock().ok().and_then(|w| w.first().copied()) {
                    return Some(id);
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            None
        };
        let card = || match arg {
            Some(a) => a.parse::<CardId>().ok(),
            None => oldest(),
        };
        let answer = |a: CardAnswer| match card() {
            Some(card) => {
                commander.send(EngineCommand::Answer {
                    card,
                    answer: a,
                    by: AnsweredBy::Click,
                });
            }
            None => eprintln!("vults: no card waiting"),
        };
        match verb {
            "allow" => answer(CardAnswer::Allow),
            "deny" => answer(CardAnswer::Deny),
            "always" => answer(CardAnswer::AlwaysAllow),
            "answer" => {
                let text = line
                    .splitn(3, char::is_whitespace)
                    .nth(2)
                    .unwrap_or_default()
                    .trim();
                match arg.and_then(|a| a.parse::<CardId>().ok()) {
                    Some(card) if !text.is_empty() => {
                        commander.send(EngineCommand::Answer {
                            card,
                            answer: CardAnswer::Answers(vec![AnswerItem::One(text.into())]),
                            by: AnsweredBy::Click,
                        });
                    }
                    _ => eprintln!("vults: answer <card> <text>"),
                }
            }
            "remove" => match arg {
                Some(id) => {
                    commander.send(EngineCommand::RemoveRule(id.into()));
                }
                None => eprintln!("vults: remove <rule-id>"),
            },
            "pause" => {
                commander.send(EngineCommand::SetPaused(true));
            }
            "resume" => {
                commander.send(EngineCommand::SetPaused(false));
            }
            "quit" => {
                stop_phone();
                commander.send(EngineCommand::Shutdown);
                return;
            }
            other => eprintln!(
                "vults: unknown command {other:?} (allow, deny, always, answer, remove, pause, resume, quit)"
            ),
        }
    }
}
