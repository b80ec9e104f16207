//! The window's side of notifications, quiet hours and global keys: the keys' gate and the
//! plan's limits after the engine's events (what each session waits on is the notifier's own
//! to follow: [`crate::attention::follow`]), and what a notification's action or a
//! global key asks of the window — the same typed answer a click sends, checked the same way
//! (the card must still wait), with who answered said truthfully.

use std::time::{Duration, Instant};

use vults_engine::messages::{AnsweredBy, CardAnswer, CardId};
use vults_notify::NoticeAction;
use vults_notify::keys::{GateCard, Ignored, Intent, Outcome};

use super::{Layout, Tab, VultsWindow, card_id};
use crate::attention::Heard;

/// The island names the plan's nearest limit from this much of a window used.
const LIMIT_SHOWN_FROM: f64 = 50.0;

/// How long a card brought up is asked to take the focus, at most.
const FOCUS_FOR: Duration = Duration::from_secs(5);
/// How often it is asked again meanwhile.
const FOCUS_AGAIN: Duration = Duration::from_millis(250);

impl VultsWindow {
    /// After a batch of engine events: the newest card for the keys' gate, the plan's limits.
    pub(super) fn attention_update(&mut self) {
        let newest = self.model.cards.last().map(|c| GateCard {
            card: c.id,
            // A question is answered on its card: the Allow key passes it by as it does a
            // destructive call.
            destructive: c.destructive.is_some() || c.question,
        });
        self.gate.set_newest(newest);
        // What each session waits on is the notifier's own to follow (attention::follow).
        let Some(side) = self.attention.as_mut() else {
            return;
        };
        // The plan's usage windows: a warning at each threshold, once per window; the island
        // says how close the nearest is.
        let settings = side.status().settings.limits;
        let mut readings = Vec::new();
        let mut said = Vec::new();
        for s in self.model.sessions.values() {
            for w in self.limits.observe_session(s, &settings) {
                let (title, body) = w.words_local();
                said.push((w.notice().0.0, w.agent.clone(), title, body));
            }
            use vults_notify::limits::Window;
            readings.extend(s.five_hour.map(|r| (Window::FiveHour, r.used_percentage)));
            readings.extend(s.seven_day.map(|r| (Window::SevenDay, r.used_percentage)));
        }
        self.model.limit_nearest = vults_notify::limits::nearest(&readings, LIMIT_SHOWN_FROM);
        for (id, agent, title, body) in said {
            self.model.notice(format!("{title}. {body}"));
            self.warn(&id, &agent, title, body);
        }
    }

    /// Vults' own warning (a hook removed, a usage limit near): one desktop notification per
    /// `id` (replaced by the next), and the same words pushed to the paired phones.
    pub(super) fn warn(&mut self, id: &str, agent: &str, title: String, body: String) {
        if let Some(phone) = self.phone.as_mut() {
            phone.apply(vults_phone::PhoneAction::Warn {
                tag: id.to_string(),
                title: title.clone(),
                body: body.clone(),
            });
        }
        if let Some(side) = self.attention.as_mut() {
            side.alert(
                id,
                vults_notify::Notice {
                    agent: agent.to_string(),
                    folder: String::new(),
                    what: vults_notify::What::Warning { title, body },
                },
            );
        }
    }

    /// Carries out what the desktop said since the last frame.
    pub(super) fn attention_poll(&mut self, ctx: &egui::Context) {
        let Some(side) = self.attention.as_mut() else {
            return;
        };
        let heard = side.poll();
        let status = side.status();
        if self.quiet_switch != Some(status.settings.quiet.on) {
            self.quiet_switch = Some(status.settings.quiet.on);
            self.desktop.set_quiet(status.settings.quiet.on);
        }
        let quiet = status.quiet.quiet;
        // Quiet hours hush the paired phones too: nothing is pushed while quiet.
        if quiet != self.quiet
            && let Some(phone) = self.phone.as_mut()
        {
            phone.apply(vults_phone::PhoneAction::Quiet(quiet));
        }
        self.quiet = quiet;
        for h in heard {
            match h {
                Heard::Notification { session, action } => {
                    self.notification_action(ctx, &session, action)
                }
                Heard::Key(key) => {
                    let now = Instant::now();
                    match self.gate.press(key, now) {
                        Outcome::Intent(Intent::ShowNewest(card)) => {
                            self.bring_up(ctx, Some(card));
                            self.gate.shown(card, now);
                            tracing::info!("global key: brought up card {card}");
                        }
                        Outcome::Intent(Intent::Allow(card)) => {
                            tracing::info!("global key: allowed card {card}");
                            self.answer_by(card, CardAnswer::Allow, AnsweredBy::GlobalKey);
                        }
                        Outcome::Intent(Intent::Deny(card)) => {
                            tracing::info!("global key: denied card {card}");
                            self.answer_by(card, CardAnswer::Deny, AnsweredBy::GlobalKey);
                        }
                        Outcome::Ignored(why) => tracing::info!(
                            "global key {key:?} ignored: {}",
                            match why {
                                Ignored::NoCard => "no card waits".to_string(),
                                Ignored::Destructive(c) => format!(
                                    "card {c} is answered on its card (destructive, or a \
                                     question)"
                                ),
                                Ignored::TooSoon(c) => {
                                    format!("card {c} came up a moment ago; press again")
                                }
                            }
                        ),
                    }
                }
            }
        }
    }

    fn notification_action(
        &mut self,
        ctx: &egui::Context,
        session: &vults_notify::SessionId,
        action: NoticeAction,
    ) {
        match action {
            NoticeAction::Show { card } => self.bring_up(ctx, card),
            NoticeAction::ShowTerminal => {
                // The notifier's id of a session is opaque: find the session it names.
                let key = self
                    .model
                    .sessions
                    .keys()
                    .find(|k| crate::attention::session_id(k) == *session)
                    .cloned();
                match key {
                    Some(key) => self.show_terminal(ctx, &key),
                    None => tracing::info!("notification's Show terminal: the session has left"),
                }
            }
            NoticeAction::Allow(id) | NoticeAction::Deny(id) => {
                // The notifier offered it for this card; the card must still wait and still be
                // one a notification may allow (the engine's view of it wins).
                let Some(card) = self.model.card(id) else {
                    tracing::info!("notification answer for card {id}: it no longer waits");
                    return;
                };
                let allow = matches!(action, NoticeAction::Allow(_));
                if allow && (card.destructive.is_some() || card.question) {
                    tracing::warn!(
                        "notification Allow for card {id} refused: answered on its card"
                    );
                    return;
                }
                let answer = if allow {
                    CardAnswer::Allow
                } else {
                    CardAnswer::Deny
                };
                tracing::info!(
                    "notification: {} card {id}",
                    if allow { "allowed" } else { "denied" }
                );
                self.answer_by(id, answer, AnsweredBy::Notification);
            }
        }
    }

    /// Asks again, every [`FOCUS_AGAIN`], for the focus of a card brought up until it has it
    /// (for [`FOCUS_FOR`] at most). One request is not enough: winit drops it while the window
    /// manager has not yet shown the window, and a busy one can pass it by; the person pressed
    /// the key to read that card.
    pub(super) fn keep_asking_focus(&mut self, ctx: &egui::Context) {
        let Some((id, since, asked)) = self.focus_wanted else {
            return;
        };
        let focused = ctx.input_for(card_id(id), |i| i.viewport().focused) == Some(true);
        let waited = since.elapsed();
        if focused || waited > FOCUS_FOR || self.model.card(id).is_none() {
            if !focused && self.model.card(id).is_some() {
                tracing::info!("card {id} did not take the focus");
            }
            self.focus_wanted = None;
            return;
        }
        let due = (waited.as_millis() / FOCUS_AGAIN.as_millis()) as u32;
        if due > asked
            && let Some(card) = self.model.card(id)
        {
            crate::viewport::take_keyboard(ctx, card_id(id), &super::card_title(card));
        }
        self.focus_wanted = Some((id, since, due));
        ctx.request_repaint_after((FOCUS_AGAIN * (due + 1)).saturating_sub(waited));
    }

    /// Brings `card` (or, with none, the flock) in front of the person: a floating card's own
    /// window gets the focus; a card waiting in the stack, or the one window, shows the flock.
    fn bring_up(&mut self, ctx: &egui::Context, card: Option<CardId>) {
        let floating = card.filter(|id| {
            self.layout == Layout::Floating
                && self.model.card(*id).is_some()
                && !self.stacked.contains(id)
        });
        match floating {
            Some(id) => {
                ctx.send_viewport_cmd_to(card_id(id), egui::ViewportCommand::Visible(true));
                if let Some(card) = self.model.card(id) {
                    crate::viewport::take_keyboard(ctx, card_id(id), &super::card_title(card));
                }
                self.focus_wanted = Some((id, Instant::now(), 0));
                ctx.request_repaint();
            }
            None => {
                if card.is_some_and(|id| self.model.card(id).is_some()) {
                    self.tab = Tab::Flock;
                }
                self.show_main(ctx);
            }
        }
    }
}
