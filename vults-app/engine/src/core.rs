//! The card state machine: the one task that owns every pending card, session, rule, policy and
//! audit line. It puts each request through `vults_core::decision::decide`, shows a card when a
//! person must answer, answers the hook when the answer comes (only [`EngineCommand::Answer`]
//! answers a card: nothing arriving on a socket can), and withdraws cards the agent stopped
//! waiting for. It never waits on a socket: the runtime's connection tasks do the I/O.
//!
//! Bounds (a week without a restart, BENCHMARKS.md "Soak"): `cards` holds the requests waiting
//! now, each gone when answered or withdrawn (its connection closed, its agent moved on, quit);
//! `sessions` is bounded as `sessions.rs` says; `dirty` and `outbox` are emptied by every
//! [`Core::flush`]; an ended session's timer task ends [`ENDED_LINGER`] later. The audit
//! lines go to the writer thread and are not kept (`audit.rs`). After each burst of inputs
//! the allocator's free pages go back to the system (`memory.rs`).

use crate::arrival::Arrival;
use crate::audit::TAIL_LINES;
use crate::bus::Bus;
use crate::clock::{now_ms, unix_ms};
use crate::in_app::{ConnId, InAppReply, InAppRequest};
use crate::inputs::{Input, Outgoing};
use crate::messages::{
    AnsweredBy, AuditEntry, CardAnswer, CardId, EngineCommand, EngineEvent, NamedTool, Notice,
    Outcome, PendingCard, PolicyStatus, Reason, SessionKey,
};
use crate::options::{ENDED_LINGER, EngineOptions, POLICY_POLL, SILENT_SESSION};
use crate::stats::Stats;
use crate::{audit, context, memory, sessions};
use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::mpsc;
use vults_core::agents::{self, Lifecycle};
use vults_core::decision::{self, Silence, Verdict, Why};
use vults_core::paths::Paths;
use vults_core::policy::PolicySet;
use vults_core::protocol::{Decision, Event, Identity, Message};
use vults_core::rules::{AlwaysRule, RuleSet};

/// A card and the connection waiting on it.
struct Waiting {
    card: PendingCard,
    conn: ConnId,
    event_id: String,
    reply: mpsc::UnboundedSender<Outgoing>,
    /// The agent's id for the tool call, when the request carried one.
    tool_use_id: Option<String>,
    /// Claude Code's subagent id (`agent_id`): a subagent's events say nothing of the main
    /// agent's dialog, though they share its session.
    agent_id: Option<String>,
}

/// Calls an agent runs side by side arrive within moments of each other: Claude Code runs its
/// read-only tools in parallel, so two Reads outside the project send PreToolUse, PreToolUse,
/// PermissionRequest, PermissionRequest (seen with the pinned CLI). A person takes longer than
/// this to answer a dialog in the terminal, so another call's event withdraws only a card older
/// than this: a sibling never takes its neighbour's card away.
const SIBLING_WINDOW: Duration = Duration::from_millis(1500);

/// What a later event of a card's session says about that card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sign {
    /// The call itself ran (`PostToolUse`) — allowed in the terminal.
    Ran,
    /// The call itself failed or was refused after the dialog (`PostToolUseFailure`,
    /// `PermissionDenied`).
    Ended,
    /// The agent started another call (`PreToolUse`, `PermissionRequest` of another call), more
    /// than [`SIBLING_WINDOW`] after the card came up.
    NextCall,
    /// The agent is past the dialog altogether (a new prompt, a stop, the session's end,
    /// OpenCode's `permission.replied`).
    MovedOn,
}

/// How an event can end the wait of a card in its session, by what it means.
fn sign_of(lifecycle: Lifecycle) -> Option<Sign> {
    Some(match lifecycle {
        Lifecycle::AfterCall => Sign::Ran,
        Lifecycle::CallFailed | Lifecycle::PermissionDenied => Sign::Ended,
        Lifecycle::BeforeCall | Lifecycle::Permission => Sign::NextCall,
        Lifecycle::Prompt
        | Lifecycle::Stop
        | Lifecycle::StopFailure
        | Lifecycle::End
        | Lifecycle::PermissionReplied => Sign::MovedOn,
        Lifecycle::SessionStart
        | Lifecycle::Notification
        | Lifecycle::Error
        | Lifecycle::SubagentStart
        | Lifecycle::SubagentStop
        | Lifecycle::Compact
        | Lifecycle::StatusLine
        | Lifecycle::Other => return None,
    })
}

/// The modification stamp of the policy file (`None`: missing).
type Stamp = Option<(SystemTime, u64)>;

fn stamp(path: &std::path::Path) -> Stamp {
    std::fs::metadata(path)
        .ok()
        .map(|m| (m.modified().unwrap_or(UNIX_EPOCH), m.len()))
}

/// All state, owned by the core task.
pub(crate) struct Core {
    paths: Paths,
    options: EngineOptions,
    /// The first subscriber, kept as it always was ([`crate::EngineHandle::events`]): every
    /// event, unbounded, until its receiver is dropped (then `None`).
    ui: Option<std::sync::mpsc::Sender<EngineEvent>>,
    /// Where every other subscriber reads (`bus.rs`).
    pub(crate) bus: Arc<Bus>,
    notify: Arc<dyn Fn() + Send + Sync>,
    stats: Arc<Stats>,
    pub(crate) inputs: mpsc::UnboundedSender<Input>,
    rules: RuleSet,
    /// `false` when the rules file could not be read at start: it is never overwritten then.
    rules_writable: bool,
    policies: PolicySet,
    policy_status: PolicyStatus,
    policy_stamp: Stamp,
    sessions: sessions::Sessions,
    dirty: BTreeSet<SessionKey>,
    cards: BTreeMap<CardId, Waiting>,
    next_card: CardId,
    paused: bool,
    audit: audit::AuditWriter,
    outbox: Vec<EngineEvent>,
}

impl Core {
    pub(crate) fn load(
        paths: Paths,
        options: EngineOptions,
        ui: std::sync::mpsc::Sender<EngineEvent>,
        notify: Arc<dyn Fn() + Send + Sync>,
        stats: Arc<Stats>,
        inputs: mpsc::UnboundedSender<Input>,
    ) -> io::Result<Core> {
        // Every folder and file of Vults' own is private; say what had to be tightened.
        let tightened = paths.make_private();
        let audit_path = paths.audit_log();
        if let Err(e) = audit::repair(&audit_path) {
            tracing::warn!("cannot check the audit log {}: {e}", audit_path.display());
        }
        let history = audit::tail(&audit_path, TAIL_LINES);
        let audit = audit::AuditWriter::spawn(audit_path, options.audit_rotate_bytes)?;
        let mut core = Core {
            policy_status: PolicyStatus {
                path: paths.policies_file(),
                error: None,
                count: 0,
                warnings: Vec::new(),
            },
            paths,
            options,
            ui: Some(ui),
            bus: Bus::new(),
            notify,
            stats,
            inputs,
            rules: RuleSet::default(),
            rules_writable: true,
            policies: PolicySet::default(),
            policy_stamp: None,
            sessions: sessions::Sessions::default(),
            dirty: BTreeSet::new(),
            cards: BTreeMap::new(),
            next_card: 0,
            paused: false,
            audit,
            outbox: Vec::new(),
        };
        match RuleSet::load(&core.paths.rules_file()) {
            Ok((rules, dropped)) => {
                for why in dropped {
                    core.notice(Notice::RuleDropped {
                        why: why.to_string(),
                    });
                }
                core.rules = rules;
            }
            Err(why) => {
                core.rules_writable = false;
                core.notice(Notice::RulesNotLoaded {
                    why: why.to_string(),
                });
            }
        }
        core.outbox
            .push(EngineEvent::Rules(core.rules.rules.clone()));
        for n in tightened {
            core.notice(Notice::Private(n));
        }
        core.reload_policies(true);
        core.outbox.push(EngineEvent::Audited(history));
        Ok(core)
    }

    pub(crate) async fn run(&mut self, mut inputs: mpsc::UnboundedReceiver<Input>) {
        let mut tick = tokio::time::interval(POLICY_POLL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut running = true;
        let mut trimmer = memory::Trimmer::new(std::time::Instant::now());
        while running {
            tokio::select! {
                input = inputs.recv() => {
                    let Some(input) = input else { break };
                    running = self.handle(input);
                    // Take what else is queued, so the window hears of it in one batch.
                    let mut n = 0;
                    while running && n < 4096 {
                        match inputs.try_recv() {
                            Ok(input) => running = self.handle(input),
                            Err(_) => break,
                        }
                        n += 1;
                    }
                    trimmer.handled(n as u64 + 1);
                }
                _ = tick.tick() => {
                    self.reload_policies(false);
                    self.forget_silent_sessions();
                    if trimmer.tick(std::time::Instant::now()) {
                        // A walk of malloc's arenas: off the core's thread.
                        tokio::task::spawn_blocking(memory::give_back);
                    }
                }
            }
            self.flush();
        }
        let ids: Vec<CardId> = self.cards.keys().copied().collect();
        for id in ids {
            self.withdraw(id, "Vults quit");
        }
        // Answers written just before quitting: their lines still go to the audit.
        while let Ok(input) = inputs.try_recv() {
            if let Input::Delivered { entry, delivered } = input {
                self.delivered(*entry, delivered);
            }
        }
        self.flush();
        // Every subscriber reads what is left, then hears the end.
        self.bus.close();
    }

    /// `false` on Shutdown.
    fn handle(&mut self, input: Input) -> bool {
        match input {
            Input::Event { conn, event, reply } => self.on_event(conn, *event, reply),
            Input::Closed(conn) => {
                let ids: Vec<CardId> = self
                    .cards
                    .iter()
                    .filter(|(_, w)| w.conn == conn)
                    .map(|(id, _)| *id)
                    .collect();
                for id in ids {
                    self.withdraw(id, "the agent stopped waiting");
                }
            }
            Input::Delivered { entry, delivered } => self.delivered(*entry, delivered),
            Input::Command(EngineCommand::Shutdown) => return false,
            Input::Command(cmd) => self.on_command(cmd),
            Input::Notice(text) => self.notice(text),
            Input::InApp(request) => self.on_in_app(request),
            Input::Expire(key) => {
                if self.sessions.remove_if_ended(&key) {
                    self.dirty.remove(&key);
                    self.outbox.push(EngineEvent::SessionGone(key));
                }
            }
        }
        true
    }

    fn notice(&mut self, notice: Notice) {
        tracing::info!("{notice}");
        self.outbox.push(EngineEvent::Notice(notice));
    }

    /// Sends what accumulated to the window, and wakes it.
    pub(crate) fn flush(&mut self) {
        // Counters first: whoever hears of a change reads them up to date.
        self.stats
            .sessions
            .store(self.sessions.len() as u64, Ordering::Relaxed);
        self.stats
            .cards
            .store(self.cards.len() as u64, Ordering::Relaxed);
        let dirty = std::mem::take(&mut self.dirty);
        let sessions = dirty.iter().filter_map(|key| self.sessions.get(key));
        let batch: Vec<Arc<EngineEvent>> = sessions
            .map(|s| Arc::new(EngineEvent::SessionChanged(s.clone())))
            .chain(self.outbox.drain(..).map(Arc::new))
            .collect();
        if batch.is_empty() {
            return;
        }
        if let Some(ui) = &self.ui
            && batch
                .iter()
                .any(|ev| ui.send(EngineEvent::clone(ev)).is_err())
        {
            // Its receiver is gone (the app reads subscriptions instead): no more copies.
            self.ui = None;
        }
        self.bus.publish(batch);
        (self.notify)();
    }

    fn on_event(&mut self, conn: ConnId, event: Event, reply: mpsc::UnboundedSender<Outgoing>) {
        self.stats.events.fetch_add(1, Ordering::Relaxed);
        // The chat's own agents: never a session, never a card (and never a reply).
        if event.zeca {
            self.stats.zeca.fetch_add(1, Ordering::Relaxed);
            if event.wants_reply {
                // Never sent by the hook (seed 001); a hand-made client is not left waiting.
                let _ = reply.send(Outgoing::Close);
            }
            return;
        }
        let now = SystemTime::now();
        let arrival = Arrival::read(event);
        let event = &arrival.event;
        let Some(key) = self.sessions.apply(&arrival, now) else {
            tracing::info!(
                "an empty {} event from {} names no session: ignored",
                event.event,
                event.agent.as_str()
            );
            return;
        };
        self.dirty.insert(key.clone());
        if self
            .sessions
            .get(&key)
            .is_some_and(|s| s.state == crate::messages::SessionState::Ended)
        {
            let inputs = self.inputs.clone();
            let key = key.clone();
            tokio::spawn(async move {
                tokio::time::sleep(ENDED_LINGER).await;
                let _ = inputs.send(Input::Expire(key));
            });
        }
        self.answered_in_terminal(&arrival, &key, now);
        if let Some(cut) = event.too_large
            && !event.wants_reply
        {
            self.too_large(&arrival, &key, cut.bytes, now);
        }
        if event.wants_reply {
            self.on_request(conn, arrival, reply, key, now, false);
        }
    }

    /// A request the hook cut to fit the wire, so it waits for no reply: no card could show
    /// all an Allow would authorise, and the agent asks in its own terminal (correct, and
    /// unchanged). The person is told where: the bird says "asks in its terminal: Write of
    /// 2.7 KB is too large to show", History gets a line, and the window hears of it.
    fn too_large(&mut self, arrival: &Arrival, session: &SessionKey, bytes: u64, now: SystemTime) {
        let Some(identity) = arrival.event.identity() else {
            return; // an `other` without a name never wanted a reply
        };
        let (call, folder) = (&arrival.call, &arrival.folder);
        let too_large = crate::messages::TooLarge {
            session: session.clone(),
            identity: identity.clone(),
            folder: folder.clone(),
            tool: call.tool.clone(),
            bytes,
            at: now,
        };
        let what = too_large.text();
        tracing::info!("{} asks in its terminal: {what}", identity.display_name());
        if self.sessions.set_in_terminal(session, what.clone()) {
            self.dirty.insert(session.clone());
        }
        let line = AuditEntry::new(
            unix_ms(now),
            Outcome::TooLarge,
            AnsweredBy::Terminal,
            Some(format!("{what}; the agent asks in its terminal")),
        )
        .about(&identity, session, folder, call);
        self.audit(line);
        self.outbox.push(EngineEvent::TooLarge(too_large));
    }

    /// Withdraws the cards of `session` that this event shows were answered in the agent's own
    /// terminal: the waiting hook ends silently (it prints nothing: the agent has its answer)
    /// and the audit says `by: terminal`, never a click. An event for the very call a card is
    /// about (Claude Code's PreToolUse comes before its PermissionRequest, and their hooks
    /// race) is no sign unless it says the call ran or ended. A call is matched by the agent's
    /// `tool_use_id` when both sides carry one, else by tool and whole target.
    fn answered_in_terminal(&mut self, arrival: &Arrival, session: &SessionKey, now: SystemTime) {
        let event = &arrival.event;
        let Some(sign) = sign_of(arrival.lifecycle) else {
            return;
        };
        if !self.cards.values().any(|w| &w.card.session == session) {
            return;
        }
        let (call, tool_use_id, agent_id) =
            (&arrival.call, &arrival.tool_use_id, &arrival.agent_id);
        let same_call = |w: &Waiting| match (&w.tool_use_id, &tool_use_id) {
            (Some(a), Some(b)) => a == b,
            _ => {
                w.card.call.tool == call.tool
                    && w.card.call.target.rule_key() == call.target.rule_key()
            }
        };
        let ids: Vec<CardId> = self
            .cards
            .iter()
            .filter(|(_, w)| &w.card.session == session)
            .filter(|(_, w)| match sign {
                Sign::Ran | Sign::Ended => same_call(w),
                // An agent whose calls cannot be told apart (OpenCode's plugin relays a call's
                // PreToolUse without its call id and in other words than its permission): only
                // the signs of the session moving on count (its row's `tells_calls_apart`).
                Sign::NextCall => {
                    w.card
                        .agent
                        .agent()
                        .is_none_or(|a| a.spec().tells_calls_apart)
                        && &w.agent_id == agent_id
                        && !same_call(w)
                        && now
                            .duration_since(w.card.arrived)
                            .is_ok_and(|up| up >= SIBLING_WINDOW)
                }
                Sign::MovedOn => true,
            })
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            let (decision, detail) = match sign {
                Sign::Ran => (Outcome::Allow, format!("{}: the call ran", event.event)),
                Sign::Ended => (
                    Outcome::Answered,
                    format!("{}: the call ended", event.event),
                ),
                Sign::NextCall => (
                    Outcome::Answered,
                    format!("{} of another call: the agent moved on", event.event),
                ),
                Sign::MovedOn => (
                    Outcome::Answered,
                    format!("{}: the agent moved on", event.event),
                ),
            };
            let Some(w) = self.cards.remove(&id) else {
                continue;
            };
            // Closing ends the hook's wait: it prints nothing.
            let _ = w.reply.send(Outgoing::Close);
            let by = AnsweredBy::Terminal;
            self.outbox
                .push(EngineEvent::CardRemoved { id, by: by.clone() });
            self.finish_card(&w, decision, &by, Some(detail), None);
        }
    }

    /// A request that wants a reply: decide, answer at once, or put up a card. `while_paused`:
    /// asked even while cards are paused (an in-app request from the window the person types in).
    fn on_request(
        &mut self,
        conn: ConnId,
        arrival: Arrival,
        reply: mpsc::UnboundedSender<Outgoing>,
        session: SessionKey,
        now: SystemTime,
        while_paused: bool,
    ) {
        let Arrival {
            event,
            lifecycle,
            call,
            folder,
            tool_use_id,
            agent_id,
            ..
        } = arrival;
        // An `other` without a name has no identity to decide for (the hook never waits then,
        // but a hand-made client might).
        let Some(identity) = event.identity() else {
            let _ = reply.send(Outgoing::Close);
            return;
        };
        let question = event.is_question_as(lifecycle);
        let open_reply = event.reply.as_deref() == Some("vults");
        let asking = if !self.options.interactive {
            decision::Asking::NobodyHere
        } else if self.paused && !while_paused {
            decision::Asking::Paused
        } else {
            decision::Asking::Yes
        };
        // Every gate is decide()'s, in its written order.
        let verdict = decision::decide(
            &decision::Request {
                identity: &identity,
                folder: &folder,
                call: &call,
                question,
                open_reply,
                shape: agents::ReplyShape::of(event.agent, open_reply),
                asking,
            },
            &self.rules,
            &self.policies,
        );
        if let Identity::Named(name) = &identity
            && verdict != Verdict::Silent(Silence::NoOpenReply)
        {
            self.outbox.push(EngineEvent::NamedToolSeen(NamedTool {
                name: name.to_string(),
                last_asked: now,
            }));
        }
        let entry = |decision: Outcome, by: &AnsweredBy, detail: Option<String>| {
            AuditEntry::new(unix_ms(now), decision, by.clone(), detail)
                .about(&identity, &session, &folder, &call)
        };
        // Answered by a rule or a policy: who answered.
        let by_of = |why: &Why| match why {
            Why::Rule(id) => AnsweredBy::Rule(id.clone()),
            Why::Policy(name) => AnsweredBy::Policy(name.clone()),
            // decide() never allows or denies for these; say so if it ever does.
            Why::Destructive(_) | Why::NoMatch => AnsweredBy::Policy("(none)".into()),
        };
        let decided = match &verdict {
            Verdict::Allow(_) => Some(Decision::Allow),
            Verdict::Deny(_) => Some(Decision::Deny),
            _ => None,
        };
        let why = match verdict {
            Verdict::Allow(why) | Verdict::Deny(why) => {
                // The decision goes out at once, with no `waiting`.
                let d = decided.unwrap_or(Decision::Deny);
                let line = entry(d.into(), &by_of(&why), None);
                self.answer(&reply, Message::decision(&event.id, d), line);
                return;
            }
            Verdict::Silent(Silence::Unreadable { decision: d, why }) => {
                // This agent reads only answers back for a question (OpenCode's plugin): the
                // hook prints nothing, the agent asks in its own prompt, and the audit says the
                // policy's deny was not delivered.
                let _ = reply.send(Outgoing::Close);
                let line = entry(
                    Outcome::Undelivered,
                    &by_of(&why),
                    Some(format!(
                        "{} for a question {} cannot read; it asks in its own prompt",
                        d.as_str(),
                        event.agent.display_name()
                    )),
                );
                self.audit(line);
                return;
            }
            Verdict::Silent(Silence::Paused(_)) => {
                // Cards are paused: the agent asks in its own terminal, at once. The person is
                // told where: its bird says so and History has the line, so a request is never
                // left to a terminal unseen.
                let _ = reply.send(Outgoing::Close);
                tracing::info!(
                    "{} asks in its terminal: cards are paused",
                    identity.display_name()
                );
                let what = format!(
                    "{} (cards are paused)",
                    vults_core::text::reveal(&call.tool).text
                );
                if self.sessions.set_in_terminal(&session, what) {
                    self.dirty.insert(session.clone());
                }
                let line = entry(
                    Outcome::Paused,
                    &AnsweredBy::Terminal,
                    Some("cards are paused; the agent asks in its terminal".into()),
                );
                self.audit(line);
                return;
            }
            Verdict::Silent(_) => {
                // Nobody to ask, or a tool that reads no answer: close at once so the hook
                // prints nothing and the agent asks in its own terminal (rather than after the
                // hook's 2 s wait for `waiting`).
                let _ = reply.send(Outgoing::Close);
                return;
            }
            Verdict::Ask(why) => why,
        };
        let reason = Reason::new(&why, question);
        let destructive = match &why {
            Why::Destructive(what) => Some(what.clone()),
            _ => None,
        };
        // The narrowest rule is the one Always makes; an edit or a write also offers its file.
        // No Always for a call whose target is empty: such a rule would allow every call that
        // names nothing (vults_core::rules::AlwaysRule::offer).
        // A plan review is approved or kept once: a rule keyed on one plan's text would never
        // match again, and allowing plans unseen is not what Always is for.
        let plan = (lifecycle == Lifecycle::Permission)
            .then(|| agents::plan_review(event.agent, &event.payload))
            .flatten()
            .map(str::to_string);
        let (always_rule, file_rule) = if destructive.is_none() && !question && plan.is_none() {
            let created = unix_ms(now) / 1000;
            let target = AlwaysRule::offer(&identity, &folder, &call, created);
            let exact = AlwaysRule::exact_for_call(&identity, &folder, &call, created)
                .filter(AlwaysRule::is_whole);
            match exact {
                Some(exact) => (Some(exact), target.map(Box::new)),
                None => (target, None),
            }
        } else {
            (None, None)
        };
        if reply
            .send(Outgoing::Line(Box::new(Message::waiting(&event.id))))
            .is_err()
        {
            return; // the hook is already gone
        }
        self.next_card += 1;
        let id = self.next_card;
        // Read only for a card: the agent's words, and the files it changes as they are now.
        // A host's files are not on this machine: its cards show the call without them.
        let local = decision::host_of(&folder)
            .is_none()
            .then_some(folder.as_str());
        let mut context = context::read(&event.payload, &call, local);
        context.plan = plan;
        let card = PendingCard {
            id,
            agent: event.agent,
            identity,
            session: session.clone(),
            folder,
            call,
            destructive,
            reason,
            always_rule,
            file_rule,
            question,
            arrived: now,
            context: Box::new(context),
        };
        if self.sessions.set_waiting(&session, true) {
            self.dirty.insert(session);
        }
        self.outbox.push(EngineEvent::CardAdded(card.clone()));
        self.cards.insert(
            id,
            Waiting {
                card,
                conn,
                tool_use_id,
                agent_id,
                event_id: event.id,
                reply,
            },
        );
    }

    fn on_command(&mut self, cmd: EngineCommand) {
        match cmd {
            EngineCommand::Answer { card, answer, by } => self.on_answer(card, answer, by),
            EngineCommand::RemoveRule(id) => match self.rules.remove(&id) {
                Some(_) => {
                    self.save_rules();
                    self.outbox
                        .push(EngineEvent::Rules(self.rules.rules.clone()));
                }
                None => self.notice(Notice::NoSuchRule { rule: id }),
            },
            EngineCommand::ReloadPolicies => self.reload_policies(true),
            EngineCommand::SetPaused(p) => self.paused = p,
            EngineCommand::SetInteractive(on) => self.options.interactive = on,
            EngineCommand::Record(entry) => self.audit(entry),
            EngineCommand::ReadHistory(of) => {
                // A page's bytes at most (audit::page), read while other tasks move on.
                let path = self.paths.audit_log();
                let page = tokio::task::block_in_place(|| {
                    audit::page(&path, of, crate::audit::PAGE_LINES)
                });
                self.outbox.push(EngineEvent::HistoryPage(page));
            }
            // Handled by the loop.
            EngineCommand::Shutdown => {}
        }
    }

    fn on_answer(&mut self, id: CardId, answer: CardAnswer, by: AnsweredBy) {
        let Some(w) = self.cards.get(&id) else {
            self.notice(Notice::CardGone { card: id });
            return;
        };
        let (message, word, detail) = match (&answer, w.card.question) {
            (CardAnswer::Answers(items), true) => (
                Message::answer(&w.event_id, items.clone()),
                Outcome::Answer,
                serde_json::to_string(items).ok(),
            ),
            (CardAnswer::Answers(_), false) => {
                self.notice(Notice::NotAQuestion { card: id });
                return;
            }
            (CardAnswer::Allow, _) => (
                Message::decision(&w.event_id, Decision::Allow),
                Outcome::Allow,
                None,
            ),
            (CardAnswer::Deny, _) => (
                Message::decision(&w.event_id, Decision::Deny),
                Outcome::Deny,
                None,
            ),
            (CardAnswer::DenyWith(words), _) => {
                let message = Message::deny_with(&w.event_id, words);
                let detail = match &message {
                    Message::Decision {
                        message: Some(said),
                        ..
                    } => Some(format!("told the agent: {said}")),
                    _ => None,
                };
                (message, Outcome::Deny, detail)
            }
            (CardAnswer::AlwaysAllow | CardAnswer::AlwaysAllowFile, _) => {
                let offered = match answer {
                    CardAnswer::AlwaysAllowFile => w.card.file_rule.as_deref().cloned(),
                    _ => w.card.always_rule.clone(),
                };
                let Some(rule) = offered else {
                    self.notice(Notice::NoAlways { card: id });
                    return;
                };
                let detail = format!("always rule {}", rule.id);
                let message = Message::decision(&w.event_id, Decision::Allow);
                if self.rules.add(rule) {
                    self.save_rules();
                    self.outbox
                        .push(EngineEvent::Rules(self.rules.rules.clone()));
                }
                (message, Outcome::Allow, Some(detail))
            }
        };
        let Some(w) = self.cards.remove(&id) else {
            return;
        };
        self.outbox
            .push(EngineEvent::CardRemoved { id, by: by.clone() });
        self.finish_card(&w, word, &by, detail, Some(message));
    }

    /// An in-app request ([`InAppRequest`]): decided as any hook's request
    /// ([`Core::on_request`]), as a card of its own session (never a bird: no session is made
    /// for it). What its "connection" is sent goes to its `reply`.
    fn on_in_app(&mut self, request: InAppRequest) {
        let InAppRequest {
            conn,
            event,
            session,
            while_paused,
            reply,
        } = request;
        let (tx, mut rx) = mpsc::unbounded_channel::<Outgoing>();
        tokio::spawn(async move {
            while let Some(out) = rx.recv().await {
                match out {
                    Outgoing::Line(_) => continue, // `waiting`: the card is up
                    Outgoing::Answer(message, entry) => reply(InAppReply::Answered {
                        reply: message,
                        entry,
                    }),
                    Outgoing::Close => reply(InAppReply::Withdrawn),
                }
                return;
            }
            // Dropped without a word (the engine stopped): nobody can answer it now.
            reply(InAppReply::Withdrawn);
        });
        self.on_request(
            conn,
            Arrival::read(event),
            tx,
            session,
            SystemTime::now(),
            while_paused,
        );
    }

    /// Takes a card down because its hook went away (or the app quits). Whatever the reason,
    /// the hook's wait ends now: its connection is told to close (the hook prints nothing), so
    /// no hook is ever left waiting for a card that is gone.
    fn withdraw(&mut self, id: CardId, why: &str) {
        let Some(w) = self.cards.remove(&id) else {
            return;
        };
        let _ = w.reply.send(Outgoing::Close);
        let by = AnsweredBy::Withdrawn;
        self.outbox
            .push(EngineEvent::CardRemoved { id, by: by.clone() });
        self.finish_card(&w, Outcome::Withdrawn, &by, Some(why.to_string()), None);
    }

    /// Audits an answered card and lets its session go back to work. With a `message` (the
    /// answer), the line is audited once the hook got it ([`Core::answer`]).
    fn finish_card(
        &mut self,
        w: &Waiting,
        word: Outcome,
        by: &AnsweredBy,
        detail: Option<String>,
        message: Option<Message>,
    ) {
        let c = &w.card;
        let line = AuditEntry::new(now_ms(), word, by.clone(), detail).about_card(c);
        match message {
            Some(m) => self.answer(&w.reply, m, line),
            None => self.audit(line),
        }
        let still = self.cards.values().any(|o| o.card.session == c.session);
        if !still && self.sessions.set_waiting(&c.session, false) {
            self.dirty.insert(c.session.clone());
        }
    }

    /// Sends a request's answer; `line` is audited when the connection's writer reports the
    /// hook got it ([`Input::Delivered`]), right away as undelivered when the connection is gone.
    fn answer(
        &mut self,
        reply: &mpsc::UnboundedSender<Outgoing>,
        message: Message,
        line: AuditEntry,
    ) {
        if let Err(mpsc::error::SendError(Outgoing::Answer(_, line))) =
            reply.send(Outgoing::Answer(Box::new(message), Box::new(line)))
        {
            self.delivered(*line, false);
        }
    }

    /// Audits an answer as given, or — when the hook had stopped waiting — as undelivered: the
    /// agent never read it, so no line may say it was answered.
    fn delivered(&mut self, mut entry: AuditEntry, delivered: bool) {
        if !delivered {
            let was = std::mem::replace(&mut entry.decision, Outcome::Undelivered);
            entry.detail = Some(match entry.detail.take() {
                Some(d) => format!("{was} ({d}) not delivered: the hook had stopped waiting"),
                None => format!("{was} not delivered: the hook had stopped waiting"),
            });
        }
        self.audit(entry);
    }

    fn audit(&mut self, entry: AuditEntry) {
        self.audit.append(&entry);
        self.outbox.push(EngineEvent::Audited(vec![entry]));
    }

    fn save_rules(&mut self) {
        if !self.rules_writable {
            self.notice(Notice::RulesKeptInMemory);
            return;
        }
        let path = self.paths.rules_file();
        // An atomic write is a few fsyncs: let the runtime move other tasks off this thread.
        let result = tokio::task::block_in_place(|| self.rules.save(&path));
        if let Err(e) = result {
            self.notice(Notice::RulesNotSaved {
                path,
                error: e.to_string(),
            });
        }
    }

    fn forget_silent_sessions(&mut self) {
        let Some(before) = SystemTime::now().checked_sub(SILENT_SESSION) else {
            return;
        };
        let cards = &self.cards;
        let waiting = |k: &SessionKey| cards.values().any(|w| &w.card.session == k);
        for key in self.sessions.remove_silent(before, &waiting) {
            self.dirty.remove(&key);
            self.outbox.push(EngineEvent::SessionGone(key));
        }
    }

    /// Reloads the policy file when it changed (or always, when `force`).
    fn reload_policies(&mut self, force: bool) {
        let path = self.paths.policies_file();
        let now = stamp(&path);
        if !force && now == self.policy_stamp {
            return;
        }
        self.policy_stamp = now;
        if now.is_none() {
            self.policies = PolicySet::default();
            self.policy_status.error = None;
        } else {
            match PolicySet::load(&path) {
                Ok(set) => {
                    self.policies = set;
                    self.policy_status.error = None;
                }
                Err(e) => {
                    let text = format!("{}:{}: {}", e.line, e.column, e.message);
                    tracing::warn!(
                        "{} not taken ({text}); the last good policies stay in force",
                        path.display()
                    );
                    self.policy_status.error = Some(text);
                }
            }
        }
        self.policy_status.count = self.policies.policies.len();
        self.policy_status.warnings = self.policies.warnings();
        self.outbox
            .push(EngineEvent::Policies(self.policy_status.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::new_conn_id;
    use vults_core::protocol::ReadLine;

    fn core(name: &str) -> (Core, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("vults-core-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let d = dir.clone();
        let paths = Paths::resolve(move |k| (k == "VULTS_HOME").then(|| d.clone()));
        let (ui, _) = std::sync::mpsc::channel();
        let (inputs, _) = mpsc::unbounded_channel();
        let core = Core::load(
            paths,
            EngineOptions::default(),
            ui,
            Arc::new(|| {}),
            Arc::new(Stats::default()),
            inputs,
        )
        .expect("the core loads");
        (core, dir)
    }

    fn request(id: &str) -> Event {
        let line = serde_json::json!({"kind":"event","v":9,"id":id,"agent":"claude",
            "event":"PermissionRequest","wants_reply":true,"terminal":{"cwd":"/p"},
            "payload":{"session_id":"s","cwd":"/p","tool_name":"Bash",
                "tool_input":{"command":"make"}}})
        .to_string();
        match vults_core::protocol::read_line(line.as_bytes()) {
            ReadLine::Message(Message::Event(e)) => e,
            _ => panic!("an event line"),
        }
    }

    /// A card withdrawn for any reason ends its hook's wait at once: its connection is told to
    /// close, even while the connection (which holds its own handle) is still open. Before, only
    /// the card's handle was dropped, and a hook whose card was withdrawn by another socket's
    /// connection id waited with no card anywhere.
    #[tokio::test]
    async fn a_withdrawn_card_closes_its_hooks_connection() {
        let (mut core, dir) = core("withdraw");
        let (reply, mut out) = mpsc::unbounded_channel();
        core.on_event(new_conn_id(), request("e1"), reply.clone());
        assert!(matches!(out.try_recv(), Ok(Outgoing::Line(_))), "waiting");
        let id = *core.cards.keys().next().expect("a card");
        core.withdraw(id, "the agent stopped waiting");
        assert!(
            matches!(out.try_recv(), Ok(Outgoing::Close)),
            "the hook's connection is closed"
        );
        drop(reply);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
