//! The notifier's bookkeeping, pure: one notification per session, what is on screen, what
//! an action key means. The runtime loop ([`super`]) feeds it commands and server events and
//! carries out the [`Op`]s it returns, in order.

use std::collections::{BTreeMap, HashMap};

use crate::notice::{CardId, Notice, Offer, Outgoing, ServerCaps, SessionId, compose};
use crate::settings::NotifySettings;

/// What the backend is to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Op {
    /// Raise `out` for `session`, replacing `replaces` (0: a new notification). `actions` are the
    /// (key, label) pairs to send; the backend returns the server's id, given back to
    /// [`Center::notified`].
    Notify {
        session: SessionId,
        replaces: u32,
        out: Outgoing,
        actions: Vec<(String, String)>,
        token: String,
    },
    /// Withdraw the notification `id`.
    Close { id: u32 },
}

/// What an action on a notification asked for, resolved against what it showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeAction {
    /// Bring up Vults on the session (a click on the notification, or its Show button); the
    /// card it was about, if any.
    Show {
        /// The card the notification was about.
        card: Option<CardId>,
    },
    /// Allow this card: its notification offered Allow for it. Answer it as a click on the
    /// card's Allow — after checking it is still pending.
    Allow(CardId),
    /// Deny this card.
    Deny(CardId),
    /// Bring up the terminal the session's agent runs in: its notification offered
    /// [`Offer::Terminal`].
    ShowTerminal,
}

struct Shown {
    id: u32,
    out: Outgoing,
    token: String,
}

struct Entry {
    notice: Notice,
    shown: Option<Shown>,
    /// The language it is worded in: the one active where it was shown
    /// ([`vults_i18n::active`] on the caller's thread, not the notifier's).
    lang: &'static str,
}

/// One notification per session.
pub(crate) struct Center {
    settings: NotifySettings,
    caps: ServerCaps,
    quiet: bool,
    sessions: BTreeMap<SessionId, Entry>,
    by_id: HashMap<u32, SessionId>,
    token: Box<dyn FnMut() -> String + Send>,
}

/// The same words and buttons (the sound is not what makes a notification differ).
fn same(a: &Outgoing, b: &Outgoing) -> bool {
    a.summary == b.summary && a.body == b.body && a.offers == b.offers && a.resident == b.resident
}

impl Center {
    pub(crate) fn new(
        settings: NotifySettings,
        caps: ServerCaps,
        token: Box<dyn FnMut() -> String + Send>,
    ) -> Center {
        Center {
            settings,
            caps,
            quiet: false,
            sessions: BTreeMap::new(),
            by_id: HashMap::new(),
            token,
        }
    }

    /// `session` now waits on `notice` (new, changed or the same again).
    #[cfg(test)]
    pub(crate) fn show(&mut self, session: SessionId, notice: Notice) -> Vec<Op> {
        self.show_in(session, notice, vults_i18n::active())
    }

    /// `session` now waits on `notice`, worded in the language `lang`.
    pub(crate) fn show_in(
        &mut self,
        session: SessionId,
        notice: Notice,
        lang: &'static str,
    ) -> Vec<Op> {
        let entry = self.sessions.entry(session.clone()).or_insert(Entry {
            notice: notice.clone(),
            shown: None,
            lang,
        });
        entry.notice = notice;
        entry.lang = lang;
        self.refresh(&session, false)
    }

    /// Nothing waits in `session` any more (answered anywhere, the session ended).
    pub(crate) fn withdraw(&mut self, session: &SessionId) -> Vec<Op> {
        let Some(entry) = self.sessions.remove(session) else {
            return Vec::new();
        };
        self.close_shown(entry.shown)
    }

    /// Withdraws every notification (the app quits).
    pub(crate) fn withdraw_all(&mut self) -> Vec<Op> {
        let sessions: Vec<SessionId> = self.sessions.keys().cloned().collect();
        sessions.iter().flat_map(|s| self.withdraw(s)).collect()
    }

    /// The backend raised `token`'s notification for `session` as `id` (0: it failed; the
    /// same notice is then not tried again, a changed one is).
    pub(crate) fn notified(&mut self, session: &SessionId, id: u32, out: Outgoing, token: String) {
        let Some(entry) = self.sessions.get_mut(session) else {
            // Withdrawn while the call was on its way: the caller closes `id`.
            return;
        };
        if let Some(old) = entry.shown.take()
            && old.id != id
        {
            self.by_id.remove(&old.id);
        }
        entry.shown = Some(Shown { id, out, token });
        if id != 0 {
            self.by_id.insert(id, session.clone());
        }
    }

    /// Whether `session` still wants a notification (it was not withdrawn meanwhile).
    pub(crate) fn wants(&self, session: &SessionId) -> bool {
        self.sessions.contains_key(session)
    }

    /// The server closed `id` (the person dismissed it, it expired, or we closed it). The
    /// notice stays; it is raised again only when it changes. Returns the session when it was
    /// one still waiting.
    pub(crate) fn closed(&mut self, id: u32) -> Option<SessionId> {
        let session = self.by_id.remove(&id)?;
        let entry = self.sessions.get_mut(&session)?;
        if let Some(shown) = &mut entry.shown
            && shown.id == id
        {
            // Kept (without an id) so the same notice is not raised again.
            shown.id = 0;
        }
        Some(session)
    }

    /// An action key invoked on `id`, resolved against what that notification offered.
    pub(crate) fn action(&self, id: u32, key: &str) -> Option<(SessionId, NoticeAction)> {
        let session = self.by_id.get(&id)?;
        let shown = self.sessions.get(session)?.shown.as_ref()?;
        if shown.id != id {
            return None;
        }
        let offered = |want: fn(&Offer) -> Option<CardId>| shown.out.offers.iter().find_map(want);
        let action = match key.split_once('.') {
            None if key == "default" => NoticeAction::Show {
                card: self.sessions.get(session)?.notice.what.card(),
            },
            None if key == "terminal" && shown.out.offers.contains(&Offer::Terminal) => {
                NoticeAction::ShowTerminal
            }
            Some(("allow", token)) if token == shown.token => NoticeAction::Allow(offered(|o| {
                if let Offer::Allow(c) = o {
                    Some(*c)
                } else {
                    None
                }
            })?),
            Some(("deny", token)) if token == shown.token => NoticeAction::Deny(offered(|o| {
                if let Offer::Deny(c) = o {
                    Some(*c)
                } else {
                    None
                }
            })?),
            _ => return None,
        };
        Some((session.clone(), action))
    }

    /// Quiet started or ended. While quiet nothing is raised, and a notification whose notice
    /// changed is withdrawn (it would show what no longer waits); when it ends, what still
    /// waits and is not on screen is raised, silently.
    pub(crate) fn set_quiet(&mut self, quiet: bool) -> Vec<Op> {
        if self.quiet == quiet {
            return Vec::new();
        }
        self.quiet = quiet;
        self.refresh_all(true)
    }

    pub(crate) fn set_settings(&mut self, settings: NotifySettings) -> Vec<Op> {
        if self.settings == settings {
            return Vec::new();
        }
        self.settings = settings;
        self.refresh_all(true)
    }

    pub(crate) fn set_caps(&mut self, caps: ServerCaps) -> Vec<Op> {
        if self.caps == caps {
            return Vec::new();
        }
        self.caps = caps;
        self.refresh_all(true)
    }

    fn refresh_all(&mut self, silent: bool) -> Vec<Op> {
        let sessions: Vec<SessionId> = self.sessions.keys().cloned().collect();
        sessions
            .iter()
            .flat_map(|s| self.refresh(s, silent))
            .collect()
    }

    fn refresh(&mut self, session: &SessionId, silent: bool) -> Vec<Op> {
        let Some(entry) = self.sessions.get(session) else {
            return Vec::new();
        };
        let _lang = vults_i18n::scoped(&vults_i18n::Choice::Language(entry.lang.into()));
        let out = compose(&entry.notice, &self.caps, &self.settings, silent);
        let current = entry.shown.as_ref();
        let out = match out {
            Some(out) if !self.quiet => out,
            other => {
                // Switched off, or quiet: nothing new is raised. What is on screen stays only
                // while it still says what waits.
                if other.is_some_and(|o| current.is_some_and(|s| same(&s.out, &o))) {
                    return Vec::new();
                }
                let shown = self.sessions.get_mut(session).and_then(|e| e.shown.take());
                return self.close_shown(shown);
            }
        };
        if current.is_some_and(|s| same(&s.out, &out)) {
            return Vec::new();
        }
        let replaces = current.map_or(0, |s| s.id);
        let token = (self.token)();
        let actions = out
            .offers
            .iter()
            .flat_map(|o| match o {
                // Once, as the default action (a click on the notification): a server that
                // draws every action as a button draws one Show, one that draws the default as
                // the click alone draws none.
                Offer::Show => vec![("default".to_string(), o.label())],
                Offer::Allow(_) => vec![(format!("allow.{token}"), o.label())],
                Offer::Deny(_) => vec![(format!("deny.{token}"), o.label())],
                Offer::Terminal => vec![("terminal".into(), o.label())],
            })
            .collect();
        vec![Op::Notify {
            session: session.clone(),
            replaces,
            out,
            actions,
            token,
        }]
    }

    fn close_shown(&mut self, shown: Option<Shown>) -> Vec<Op> {
        match shown {
            Some(s) if s.id != 0 => {
                self.by_id.remove(&s.id);
                vec![Op::Close { id: s.id }]
            }
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notice::What;

    fn center() -> Center {
        let mut n = 0;
        Center::new(
            NotifySettings::default(),
            ServerCaps {
                actions: true,
                body_markup: false,
                sound: true,
            },
            Box::new(move || {
                n += 1;
                format!("t{n}")
            }),
        )
    }

    fn card(id: CardId, target: &str) -> Notice {
        Notice {
            agent: "Claude Code".into(),
            folder: "/w".into(),
            what: What::Card {
                card: id,
                tool: "Bash".into(),
                target: target.into(),
                destructive: None,
                allow: true,
            },
        }
    }

    /// Carries out the ops as a server would, ids from 1.
    fn run(c: &mut Center, ops: Vec<Op>, next: &mut u32) -> Vec<String> {
        let mut log = Vec::new();
        for op in ops {
            match op {
                Op::Notify {
                    session,
                    replaces,
                    out,
                    token,
                    ..
                } => {
                    let id = if replaces != 0 {
                        replaces
                    } else {
                        *next += 1;
                        *next
                    };
                    log.push(format!("notify {id} replaces {replaces}: {}", out.body));
                    c.notified(&session, id, out, token);
                }
                Op::Close { id } => log.push(format!("close {id}")),
            }
        }
        log
    }

    #[test]
    fn one_notification_per_session_replaced_and_withdrawn() {
        let mut c = center();
        let mut next = 0;
        let a = SessionId::from("a");
        let ops = c.show(a.clone(), card(1, "ls"));
        assert_eq!(
            run(&mut c, ops, &mut next),
            ["notify 1 replaces 0: ls\nin /w"]
        );
        let ops = c.show(a.clone(), card(1, "ls"));
        assert!(ops.is_empty(), "the same notice again is not raised again");
        let ops = c.show(a.clone(), card(2, "pwd"));
        assert_eq!(
            run(&mut c, ops, &mut next),
            ["notify 1 replaces 1: pwd\nin /w"]
        );
        let b = SessionId::from("b");
        let ops = c.show(b.clone(), card(3, "id"));
        assert_eq!(
            run(&mut c, ops, &mut next),
            ["notify 2 replaces 0: id\nin /w"]
        );
        assert_eq!(
            {
                let ops = c.withdraw(&a);
                run(&mut c, ops, &mut next)
            },
            ["close 1"]
        );
        assert!(c.withdraw(&a).is_empty());
        assert_eq!(
            {
                let ops = c.withdraw_all();
                run(&mut c, ops, &mut next)
            },
            ["close 2"]
        );
    }

    #[test]
    fn show_terminal_is_offered_where_the_agent_waits_at_its_prompt_and_not_on_a_card() {
        let mut c = center();
        let mut next = 0;
        let a = SessionId::from("a");
        let ops = c.show(a.clone(), card(1, "ls"));
        run(&mut c, ops, &mut next);
        assert_eq!(c.action(1, "terminal"), None, "a card's notification");
        let done = Notice {
            agent: "Claude Code".into(),
            folder: "/w".into(),
            what: What::TurnDone,
        };
        let ops = c.show(a.clone(), done);
        run(&mut c, ops, &mut next);
        assert_eq!(
            c.action(1, "terminal"),
            Some((a.clone(), NoticeAction::ShowTerminal))
        );
    }

    #[test]
    fn actions_resolve_only_against_what_the_notification_offered() {
        let mut c = center();
        let mut next = 0;
        let a = SessionId::from("a");
        let ops = c.show(a.clone(), card(1, "ls"));
        run(&mut c, ops, &mut next);
        assert_eq!(
            c.action(1, "allow.t1"),
            Some((a.clone(), NoticeAction::Allow(1)))
        );
        assert_eq!(
            c.action(1, "deny.t1"),
            Some((a.clone(), NoticeAction::Deny(1)))
        );
        assert_eq!(
            c.action(1, "default"),
            Some((a.clone(), NoticeAction::Show { card: Some(1) }))
        );
        assert_eq!(
            c.action(1, "allow.t2"),
            None,
            "a token it was not sent with"
        );
        assert_eq!(c.action(1, "allow"), None);
        assert_eq!(c.action(9, "allow.t1"), None, "another notification");
        // Replaced by card 2: the old token no longer answers anything.
        let ops = c.show(a.clone(), card(2, "pwd"));
        run(&mut c, ops, &mut next);
        assert_eq!(c.action(1, "allow.t1"), None);
        assert_eq!(
            c.action(1, "allow.t2"),
            Some((a.clone(), NoticeAction::Allow(2)))
        );
        // A destructive card offers no Allow, so no key allows it.
        let mut rm = card(3, "rm -rf /tmp/x");
        if let What::Card { destructive, .. } = &mut rm.what {
            *destructive = Some("rm -r".into());
        }
        let ops = c.show(a.clone(), rm);
        run(&mut c, ops, &mut next);
        assert_eq!(c.action(1, "allow.t3"), None);
        assert_eq!(c.action(1, "deny.t3"), None);
        let ops = c.withdraw(&a);
        run(&mut c, ops, &mut next);
        assert_eq!(c.action(1, "default"), None, "withdrawn");
    }

    #[test]
    fn dismissed_by_the_person_it_is_not_raised_again_until_it_changes() {
        let mut c = center();
        let mut next = 0;
        let a = SessionId::from("a");
        let ops = c.show(a.clone(), card(1, "ls"));
        run(&mut c, ops, &mut next);
        assert_eq!(c.closed(1), Some(a.clone()));
        assert!(c.show(a.clone(), card(1, "ls")).is_empty());
        assert!(c.withdraw(&a).is_empty(), "nothing on screen to close");
        let ops = c.show(a.clone(), card(1, "ls"));
        assert_eq!(
            run(&mut c, ops, &mut next),
            ["notify 2 replaces 0: ls\nin /w"]
        );
        assert_eq!(c.closed(2), Some(a.clone()));
        let ops = c.show(a.clone(), card(2, "pwd"));
        assert_eq!(
            run(&mut c, ops, &mut next),
            ["notify 3 replaces 0: pwd\nin /w"]
        );
    }

    #[test]
    fn quiet_raises_nothing_and_what_waits_comes_silently_after() {
        let mut c = center();
        let mut next = 0;
        let a = SessionId::from("a");
        let b = SessionId::from("b");
        let ops = c.show(a.clone(), card(1, "ls"));
        run(&mut c, ops, &mut next);
        assert!(c.set_quiet(true).is_empty(), "what is on screen stays");
        assert!(c.show(a.clone(), card(1, "ls")).is_empty());
        assert!(c.show(b.clone(), card(2, "pwd")).is_empty());
        // a's notice changes while quiet: its notification is withdrawn, not updated.
        let ops = c.show(a.clone(), card(3, "id"));
        assert_eq!(run(&mut c, ops, &mut next), ["close 1"]);
        let s = NotifySettings {
            sound: crate::settings::PerKind::all(true),
            ..Default::default()
        };
        assert!(c.set_settings(s).is_empty());
        let ops = c.set_quiet(false);
        assert!(
            ops.iter()
                .all(|op| matches!(op, Op::Notify { out, .. } if out.sound.is_none()))
        );
        assert_eq!(
            run(&mut c, ops, &mut next),
            [
                "notify 2 replaces 0: id\nin /w",
                "notify 3 replaces 0: pwd\nin /w"
            ]
        );
    }

    #[test]
    fn a_kind_switched_off_withdraws_its_notification() {
        let mut c = center();
        let mut next = 0;
        let a = SessionId::from("a");
        let ops = c.show(a.clone(), card(1, "ls"));
        run(&mut c, ops, &mut next);
        let mut s = NotifySettings::default();
        s.notify.card = false;
        assert_eq!(
            {
                let ops = c.set_settings(s);
                run(&mut c, ops, &mut next)
            },
            ["close 1"]
        );
        assert!(c.show(a.clone(), card(1, "ls")).is_empty());
    }

    #[test]
    fn a_failed_notify_is_not_retried_for_the_same_notice() {
        let mut c = center();
        let a = SessionId::from("a");
        let ops = c.show(a.clone(), card(1, "ls"));
        let Op::Notify { out, token, .. } = ops[0].clone() else {
            panic!()
        };
        c.notified(&a, 0, out, token);
        assert!(c.show(a.clone(), card(1, "ls")).is_empty());
        assert!(c.withdraw(&a).is_empty(), "nothing on screen");
        let ops = c.show(a.clone(), card(2, "pwd"));
        assert!(matches!(&ops[..], [Op::Notify { replaces: 0, .. }]));
        assert_eq!(c.action(0, "default"), None);
    }

    #[test]
    fn a_withdrawal_during_the_notify_call_is_noticed() {
        let mut c = center();
        let a = SessionId::from("a");
        let ops = c.show(a.clone(), card(1, "ls"));
        assert!(c.withdraw(&a).is_empty());
        let Op::Notify { out, token, .. } = ops[0].clone() else {
            panic!()
        };
        assert!(!c.wants(&a), "the loop closes the id the server returns");
        c.notified(&a, 5, out, token);
        assert_eq!(c.action(5, "default"), None);
    }
}
