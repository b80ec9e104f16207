//! The flock's model: which agent sessions are running and what each is doing, from the events
//! the hooks send. Pure bookkeeping (no I/O); the engine decides when to tell the window.
//!
//! A session is keyed by identity + the agent's own session id (`session_id`, Copilot's
//! `sessionId`, OpenCode's `sessionID`, Cursor's `conversation_id`), or `pid:<pid>@<cwd>` when
//! the agent gives none. `zeca` events never reach this module.
//!
//! Bounds: the map holds the sessions alive now. An ended one leaves [`crate::ENDED_LINGER`]
//! after its `SessionEnd` ([`Sessions::remove_if_ended`]), one never heard from again
//! [`crate::SILENT_SESSION`] after its last event ([`Sessions::remove_silent`]); `carded` holds
//! only the sessions a card is up for now (the card's end takes its session out). Nothing else
//! is kept per session, call or event: a session's row keeps its latest tool, target, folder
//! and terminal, never a history of them.

use crate::arrival::{Arrival, folder_of};
use crate::messages::{RateWindow, Session, SessionKey, SessionState, SessionTerminal};
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::SystemTime;
use vults_core::agents::{self, Lifecycle};
use vults_core::protocol::{AgentKind, Event};

/// How an event moves a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Effect {
    Working,
    /// The turn ended: done, waiting at its prompt.
    Done,
    /// It asks in its own terminal (a permission notice).
    AsksInTerminal,
    Ended,
    /// Status line: cost and rate limits only.
    Status,
    /// Seen, state unchanged.
    Touch,
}

fn effect_of(lifecycle: Lifecycle, event: &Event) -> Effect {
    match lifecycle {
        Lifecycle::SessionStart
        | Lifecycle::Prompt
        | Lifecycle::BeforeCall
        | Lifecycle::AfterCall
        | Lifecycle::CallFailed
        | Lifecycle::Permission
        | Lifecycle::SubagentStart
        | Lifecycle::Compact => Effect::Working,
        Lifecycle::Stop | Lifecycle::StopFailure => Effect::Done,
        Lifecycle::Notification if is_idle_notification(event) => Effect::Done,
        Lifecycle::Notification if notification_type(&event.payload) == "permission_prompt" => {
            Effect::AsksInTerminal
        }
        Lifecycle::End => Effect::Ended,
        Lifecycle::StatusLine => Effect::Status,
        Lifecycle::Notification
        | Lifecycle::PermissionDenied
        | Lifecycle::PermissionReplied
        | Lifecycle::Error
        | Lifecycle::SubagentStop
        | Lifecycle::Other => Effect::Touch,
    }
}

fn notification_type(payload: &Value) -> &str {
    payload
        .get("notification_type")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn is_idle_notification(event: &Event) -> bool {
    let payload = &event.payload;
    let kind = notification_type(payload);
    // Copilot CLI's agent_idle / agent_completed are about its background agents, not the
    // session (its session-events schema; its row says so); the turn ends with agentStop.
    let background = vults_core::agents::spec_of(event.agent).is_some_and(|a| a.idle_is_background);
    kind == "idle_prompt"
        || (!background && matches!(kind, "agent_idle" | "agent_completed"))
        || payload
            .get("message")
            .and_then(Value::as_str)
            .is_some_and(|m| m.contains("waiting for your input"))
}

/// The session key of an event.
pub fn key_of(event: &Event) -> SessionKey {
    let identity = match event.identity() {
        Some(i) => i.key().to_string(),
        None => event.agent.as_str().to_string(),
    };
    let session = match agents::session_id(&event.payload) {
        Some(s) => s.to_string(),
        None => format!(
            "pid:{}@{}",
            event
                .terminal
                .pid
                .map(|p| p.to_string())
                .unwrap_or_else(|| "?".into()),
            folder_of(event)
        ),
    };
    SessionKey { identity, session }
}

fn rate_window(v: Option<&Value>) -> Option<RateWindow> {
    let v = v?;
    Some(RateWindow {
        used_percentage: v.get("used_percentage")?.as_f64()?,
        resets_at: v.get("resets_at").and_then(Value::as_u64),
    })
}

/// Every known session.
#[derive(Debug, Default)]
pub struct Sessions {
    map: BTreeMap<SessionKey, Session>,
    /// The sessions a card is up for ([`Sessions::set_waiting`]).
    carded: std::collections::BTreeSet<SessionKey>,
}

impl Sessions {
    pub fn get(&self, key: &SessionKey) -> Option<&Session> {
        self.map.get(key)
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Applies an event; returns the session's key (the session changed), or `None` for an
    /// event that carries nothing (`{}`: an agent that exited before writing its hook's stdin,
    /// as OpenCode can right after a turn) and names no session already known: it cannot say
    /// which session it belongs to, so it moves none and makes no stray bird keyed by pid.
    pub fn apply(&mut self, arrival: &Arrival, now: SystemTime) -> Option<SessionKey> {
        let event = &arrival.event;
        let key = key_of(event);
        let says_nothing = event.payload.as_object().is_some_and(|m| m.is_empty());
        if says_nothing && !event.wants_reply && !self.map.contains_key(&key) {
            return None;
        }
        let effect = effect_of(arrival.lifecycle, event);
        let session = self.map.entry(key.clone()).or_insert_with(|| Session {
            key: key.clone(),
            identity: event.identity(),
            agent: event.agent,
            agent_name: match event.agent {
                AgentKind::Other => event.agent_name.as_ref().map(|n| n.to_string()),
                _ => None,
            },
            folder: String::new(),
            state: if effect == Effect::Status || effect == Effect::Touch {
                SessionState::Idle
            } else {
                SessionState::Working
            },
            last_tool: None,
            last_target: None,
            cost_usd: None,
            five_hour: None,
            seven_day: None,
            task: None,
            in_terminal: None,
            terminal: None,
            started: now,
            last_event: now,
        });
        session.last_event = now;
        let folder = arrival.folder.clone();
        // A status line carries no path (only cost and limits leave the hook), so its folder is
        // the hook's own: it names a bird that has none yet, but never moves one.
        if !folder.is_empty() && (effect != Effect::Status || session.folder.is_empty()) {
            session.folder = folder;
        }
        // Where the agent runs: the latest event that says (a status line's is its command's,
        // a shell Claude Code starts for it, so it never replaces one already known).
        let says_where = event.terminal.pid.is_some() || !event.terminal.env.is_empty();
        if says_where && (effect != Effect::Status || session.terminal.is_none()) {
            session.terminal = Some(SessionTerminal {
                block: event.terminal.clone(),
                host: vults_core::decision::host_of(&arrival.folder).map(str::to_string),
                seen: now,
            });
        }
        if let Some(task) = event.terminal.env.get("VULTS_TASK").and_then(Value::as_str)
            && !task.is_empty()
        {
            session.task = Some(task.to_string());
        }
        if arrival.names_a_tool {
            session.last_tool = Some(arrival.call.tool.clone());
            session.last_target = Some(arrival.call.target.summary());
        }
        // Its agent asked in its terminal about a call too large for a card: any later event
        // but a status line shows it has moved on.
        let carded = self.carded.contains(&key);
        if effect != Effect::Status && session.in_terminal.take().is_some() && !carded {
            session.state = SessionState::Working;
        }
        // A session a card is up for stays so until the card is answered or withdrawn, or its
        // terminal has been answered (a permission notice then says nothing new: the card is
        // the better signal).
        let waiting = session.state == SessionState::WaitingForYou && carded;
        match effect {
            Effect::Working if !waiting => session.state = SessionState::Working,
            Effect::Done if !waiting => session.state = SessionState::Done,
            Effect::AsksInTerminal if !waiting => {
                session.state = SessionState::AsksInTerminal;
                // What the agent says there ("Claude needs your permission to use Bash"): the
                // bird and the notification carry it, until the session's next event.
                session.in_terminal = event
                    .payload
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .filter(|m| !m.is_empty())
                    .map(str::to_string);
            }
            Effect::Ended => session.state = SessionState::Ended,
            Effect::Status => {
                let p = &event.payload;
                if let Some(c) = p.pointer("/cost/total_cost_usd").and_then(Value::as_f64) {
                    session.cost_usd = Some(c);
                }
                if let Some(w) = rate_window(p.pointer("/rate_limits/five_hour")) {
                    session.five_hour = Some(w);
                }
                if let Some(w) = rate_window(p.pointer("/rate_limits/seven_day")) {
                    session.seven_day = Some(w);
                }
                if session.state == SessionState::Ended {
                    session.state = SessionState::Idle;
                }
            }
            _ => {}
        }
        Some(key)
    }

    /// Marks a session as asking in its own terminal about a call too large for a card: it
    /// waits for the person (there) until its next event. `false` when it is not known.
    pub fn set_in_terminal(&mut self, key: &SessionKey, what: String) -> bool {
        let Some(s) = self.map.get_mut(key) else {
            return false;
        };
        s.in_terminal = Some(what);
        if s.state != SessionState::Ended && !self.carded.contains(key) {
            s.state = SessionState::AsksInTerminal;
        }
        true
    }

    /// Marks a session waiting for a person (a card is up) or back to working (no card left).
    pub fn set_waiting(&mut self, key: &SessionKey, waiting: bool) -> bool {
        if waiting {
            self.carded.insert(key.clone());
        } else {
            self.carded.remove(key);
        }
        let Some(s) = self.map.get_mut(key) else {
            return false;
        };
        // Its terminal still asks: it still waits for the person.
        if !waiting && s.in_terminal.is_some() {
            return false;
        }
        let next = match (waiting, s.state) {
            (true, SessionState::Ended) | (false, SessionState::Ended) => return false,
            (true, _) => SessionState::WaitingForYou,
            (false, SessionState::WaitingForYou) => SessionState::Working,
            (false, other) => other,
        };
        let changed = next != s.state;
        s.state = next;
        changed
    }

    /// Forgets sessions not heard from since `before` (an agent killed without `SessionEnd`),
    /// except those in `keep` (a card is up for them). Returns their keys.
    pub fn remove_silent(
        &mut self,
        before: SystemTime,
        keep: &dyn Fn(&SessionKey) -> bool,
    ) -> Vec<SessionKey> {
        let gone: Vec<SessionKey> = self
            .map
            .values()
            .filter(|s| s.last_event < before && !keep(&s.key))
            .map(|s| s.key.clone())
            .collect();
        for k in &gone {
            self.map.remove(k);
        }
        gone
    }

    /// Forgets a session that ended, unless it came back since.
    pub fn remove_if_ended(&mut self, key: &SessionKey) -> bool {
        if self
            .map
            .get(key)
            .is_some_and(|s| s.state == SessionState::Ended)
        {
            self.map.remove(key);
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Applies `event` as the core does: read once, then applied.
    fn apply(s: &mut Sessions, event: &Event, now: SystemTime) -> Option<SessionKey> {
        s.apply(&Arrival::read(event.clone()), now)
    }

    use serde_json::json;

    fn ev(agent: AgentKind, name: &str, payload: Value) -> Event {
        let line = json!({"kind":"event","v":vults_core::protocol::VERSION,"id":"1","agent":agent,"event":name,"wants_reply":false,
            "terminal":{"cwd":"/proj","pid":77,"env":{"VULTS_TASK":"t-1"}},"payload":payload});
        match vults_core::protocol::read_line(line.to_string().as_bytes()) {
            vults_core::protocol::ReadLine::Message(vults_core::protocol::Message::Event(e)) => e,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_empty_event_makes_no_bird_but_still_moves_a_known_one() {
        let mut s = Sessions::default();
        let t = SystemTime::now();
        // OpenCode exiting right after a turn: its forwarded Stop reaches the hook with no stdin.
        assert_eq!(
            apply(&mut s, &ev(AgentKind::Opencode, "Stop", json!({})), t),
            None
        );
        assert!(s.is_empty());
        // A session keyed by pid (an agent that gives no session id) that an empty event names.
        let k = apply(
            &mut s,
            &ev(AgentKind::Opencode, "PreToolUse", json!({"tool":"bash"})),
            t,
        )
        .unwrap();
        assert_eq!(k.session, "pid:77@/proj");
        assert_eq!(s.get(&k).unwrap().state, SessionState::Working);
        assert_eq!(
            apply(&mut s, &ev(AgentKind::Opencode, "Stop", json!({})), t),
            Some(k.clone())
        );
        assert_eq!(s.get(&k).unwrap().state, SessionState::Done);
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn a_status_line_never_moves_a_bird() {
        let mut s = Sessions::default();
        let mut start = ev(
            AgentKind::Claude,
            "SessionStart",
            json!({"session_id":"m","cwd":"/proj/a"}),
        );
        start.terminal.cwd = Some("/proj/a".into());
        let k = apply(&mut s, &start, SystemTime::now()).unwrap();
        let mut status = ev(
            AgentKind::Claude,
            "StatusLine",
            json!({"session_id":"m","cost":{"total_cost_usd":0.5}}),
        );
        status.terminal.cwd = Some("/somewhere/else".into());
        apply(&mut s, &status, SystemTime::now());
        assert_eq!(s.get(&k).unwrap().folder, "/proj/a");
        assert_eq!(s.get(&k).unwrap().cost_usd, Some(0.5));
    }

    #[test]
    fn lifecycle_states_follow_the_events() {
        let mut s = Sessions::default();
        let t = SystemTime::now();
        let k = apply(
            &mut s,
            &ev(AgentKind::Claude, "SessionStart", json!({"session_id":"a"})),
            t,
        )
        .unwrap();
        assert_eq!(k.session, "a");
        assert_eq!(s.get(&k).unwrap().state, SessionState::Working);
        assert_eq!(s.get(&k).unwrap().task.as_deref(), Some("t-1"));
        apply(
            &mut s,
            &ev(
                AgentKind::Claude,
                "PreToolUse",
                json!({"session_id":"a","tool_name":"Bash","tool_input":{"command":"cargo test"}}),
            ),
            t,
        );
        assert_eq!(
            s.get(&k).unwrap().last_target.as_deref(),
            Some("cargo test")
        );
        assert!(s.set_waiting(&k, true));
        apply(
            &mut s,
            &ev(AgentKind::Claude, "Stop", json!({"session_id":"a"})),
            t,
        );
        assert_eq!(s.get(&k).unwrap().state, SessionState::WaitingForYou);
        assert!(s.set_waiting(&k, false));
        apply(
            &mut s,
            &ev(AgentKind::Claude, "Stop", json!({"session_id":"a"})),
            t,
        );
        assert_eq!(s.get(&k).unwrap().state, SessionState::Done);
        apply(
            &mut s,
            &ev(
                AgentKind::Claude,
                "Notification",
                json!({"session_id":"a","notification_type":"permission_prompt",
                    "message":"Claude needs your permission to use Bash"}),
            ),
            t,
        );
        assert_eq!(s.get(&k).unwrap().state, SessionState::AsksInTerminal);
        // What it said there is kept for the bird and the notification.
        assert_eq!(
            s.get(&k).unwrap().in_terminal.as_deref(),
            Some("Claude needs your permission to use Bash")
        );
        apply(
            &mut s,
            &ev(AgentKind::Claude, "SessionEnd", json!({"session_id":"a"})),
            t,
        );
        assert_eq!(s.get(&k).unwrap().state, SessionState::Ended);
        assert!(s.remove_if_ended(&k));
        assert!(s.is_empty());
    }

    /// A payload the pinned CLI sent (tests/real-agents/samples, vults-core's fixtures).
    fn sample(path: &str) -> Value {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
        let text = std::fs::read_to_string(format!("{root}{path}"))
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        serde_json::from_str(&text).unwrap()
    }

    /// The state after `events` of one session (the first starts it).
    fn after(agent: AgentKind, events: &[(&str, Value)]) -> SessionState {
        let mut s = Sessions::default();
        let mut key = None;
        for (name, payload) in events {
            key = apply(&mut s, &ev(agent, name, payload.clone()), SystemTime::now()).or(key);
        }
        s.get(&key.expect("a session")).unwrap().state
    }

    /// Each agent's own "turn ended" and "asks in its terminal", from recorded payloads
    /// (docs/other-agents.md, "When an agent waits for the person").
    #[test]
    fn each_agents_turn_end_and_terminal_question_wait_for_the_person() {
        let sa = |p: &str| sample(&format!("tests/real-agents/samples/{p}"));
        let claude_prompt =
            sample("vults-core/tests/fixtures/samples/claude/UserPromptSubmit.json");
        let session = |p: &Value, key: &str| json!({key: p[key].clone()});
        use SessionState::*;
        // Claude Code: Stop, StopFailure (an API error), the idle notice: done; its permission
        // notice: asks in its terminal; a new prompt: working again.
        for (events, want) in [
            (vec![("Stop", sa("claude/Stop-interactive.json"))], Done),
            (
                vec![("StopFailure", sa("claude/StopFailure-interactive.json"))],
                Done,
            ),
            (
                vec![("Notification", sa("claude/Notification-idle_prompt.json"))],
                Done,
            ),
            (
                vec![(
                    "Notification",
                    sa("claude/Notification-permission_prompt.json"),
                )],
                AsksInTerminal,
            ),
            (
                vec![
                    ("Stop", sa("claude/Stop-interactive.json")),
                    ("UserPromptSubmit", claude_prompt.clone()),
                ],
                Working,
            ),
        ] {
            assert_eq!(after(AgentKind::Claude, &events), want, "{events:?}");
        }
        // Codex CLI: Stop (TUI and exec); it has no notice of its own.
        assert_eq!(
            after(AgentKind::Codex, &[("Stop", sa("codex/Stop-tui.json"))]),
            Done
        );
        assert_eq!(
            after(
                AgentKind::Codex,
                &[(
                    "Stop",
                    sample("vults-core/tests/fixtures/samples/codex/Stop.json")
                )]
            ),
            Done
        );
        // Copilot CLI: agentStop; its permission notice; a background agent's idle notice
        // is not the session's.
        let stop = sa("copilot/agentStop-interactive.json");
        assert_eq!(
            after(AgentKind::Copilot, &[("agentStop", stop.clone())]),
            Done
        );
        assert_eq!(
            after(
                AgentKind::Copilot,
                &[(
                    "notification",
                    sa("copilot/notification-permission_prompt-interactive.json")
                )]
            ),
            AsksInTerminal
        );
        let mut background = session(&stop, "sessionId");
        background["notification_type"] = json!("agent_idle");
        assert_eq!(
            after(
                AgentKind::Copilot,
                &[
                    ("userPromptSubmitted", session(&stop, "sessionId")),
                    ("notification", background)
                ]
            ),
            Working
        );
        // Qwen Code: Stop, its idle notice, its permission notice (shown once its dialog is).
        assert_eq!(
            after(AgentKind::Qwen, &[("Stop", sa("qwen/Stop-tui.json"))]),
            Done
        );
        assert_eq!(
            after(
                AgentKind::Qwen,
                &[("Notification", sa("qwen/Notification-idle_prompt.json"))]
            ),
            Done
        );
        assert_eq!(
            after(
                AgentKind::Qwen,
                &[(
                    "Notification",
                    sa("qwen/Notification-permission_prompt-tui.json")
                )]
            ),
            AsksInTerminal
        );
        // OpenCode: the plugin forwards session.idle as Stop.
        let idle = sa("opencode/event-session.idle.json");
        let id = idle
            .pointer("/properties/sessionID")
            .or_else(|| idle.get("sessionID"))
            .cloned()
            .unwrap_or(json!("ses_1"));
        assert_eq!(
            after(AgentKind::Opencode, &[("Stop", json!({"sessionID": id}))]),
            Done
        );
        for state in [WaitingForYou, Done, AsksInTerminal] {
            assert!(state.waits_for_you());
        }
        for state in [Working, Idle, Ended] {
            assert!(!state.waits_for_you());
        }
    }

    /// A card up is the better signal: Claude Code's permission notice ~6 s later changes
    /// nothing; answered, the session works again, and its Stop makes it done.
    #[test]
    fn a_permission_notice_while_a_card_is_up_keeps_the_card_state() {
        let mut s = Sessions::default();
        let t = SystemTime::now();
        let notice = sample("tests/real-agents/samples/claude/Notification-permission_prompt.json");
        let id = notice["session_id"].clone();
        let k = apply(
            &mut s,
            &ev(
                AgentKind::Claude,
                "PermissionRequest",
                json!({"session_id": id}),
            ),
            t,
        )
        .unwrap();
        assert!(s.set_waiting(&k, true));
        apply(
            &mut s,
            &ev(AgentKind::Claude, "Notification", notice.clone()),
            t,
        );
        assert_eq!(s.get(&k).unwrap().state, SessionState::WaitingForYou);
        assert_eq!(
            s.get(&k).unwrap().in_terminal,
            None,
            "a card is up: the card says what it asks"
        );
        assert!(s.set_waiting(&k, false));
        assert_eq!(s.get(&k).unwrap().state, SessionState::Working);
        // Too large for a card: it asks in its terminal until its next event.
        assert!(s.set_in_terminal(&k, "Write of 2.7 KB is too large to show".into()));
        assert_eq!(s.get(&k).unwrap().state, SessionState::AsksInTerminal);
        apply(
            &mut s,
            &ev(AgentKind::Claude, "Stop", json!({"session_id": id})),
            t,
        );
        assert_eq!(s.get(&k).unwrap().state, SessionState::Done);
        assert_eq!(s.get(&k).unwrap().in_terminal, None);
    }

    #[test]
    fn silent_sessions_are_forgotten_unless_a_card_is_up() {
        let mut s = Sessions::default();
        let old = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1000);
        let a = apply(
            &mut s,
            &ev(AgentKind::Codex, "SessionStart", json!({"session_id":"a"})),
            old,
        )
        .unwrap();
        let b = apply(
            &mut s,
            &ev(AgentKind::Codex, "SessionStart", json!({"session_id":"b"})),
            old,
        )
        .unwrap();
        let c = apply(
            &mut s,
            &ev(AgentKind::Codex, "SessionStart", json!({"session_id":"c"})),
            SystemTime::now(),
        )
        .unwrap();
        let gone = s.remove_silent(old + std::time::Duration::from_secs(1), &|k| *k == b);
        assert_eq!(gone, vec![a]);
        assert!(s.get(&b).is_some() && s.get(&c).is_some());
    }

    #[test]
    fn status_line_sets_cost_and_limits_and_fallback_key_uses_pid_and_folder() {
        let mut s = Sessions::default();
        let k = apply(
            &mut s,
            &ev(
                AgentKind::Claude,
                "StatusLine",
                json!({"session_id":"b","cost":{"total_cost_usd":1.25},
                "rate_limits":{"five_hour":{"used_percentage":23.5,"resets_at":1738425600},"seven_day":{"used_percentage":4.0}}}),
            ),
            SystemTime::now(),
        ).unwrap();
        let b = s.get(&k).unwrap();
        assert_eq!(b.cost_usd, Some(1.25));
        assert_eq!(
            b.five_hour,
            Some(RateWindow {
                used_percentage: 23.5,
                resets_at: Some(1738425600)
            })
        );
        assert_eq!(b.seven_day.unwrap().resets_at, None);
        let k = apply(
            &mut s,
            &ev(AgentKind::Copilot, "preToolUse", json!({"toolName":"bash"})),
            SystemTime::now(),
        )
        .unwrap();
        assert_eq!(
            k,
            SessionKey {
                identity: "copilot".into(),
                session: "pid:77@/proj".into()
            }
        );
    }

    #[test]
    fn a_session_keeps_where_its_agent_runs_from_its_latest_event() {
        let mut s = Sessions::default();
        let t0 = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1000);
        let t1 = t0 + std::time::Duration::from_secs(5);
        let mut start = ev(AgentKind::Claude, "SessionStart", json!({"session_id":"w"}));
        start.terminal.pid = Some(4242);
        start.terminal.env = serde_json::from_value(
            json!({"TMUX": "/tmp/tmux-1000/default,7,0", "TMUX_PANE": "%3"}),
        )
        .unwrap();
        let k = apply(&mut s, &start, t0).unwrap();
        let kept = s
            .get(&k)
            .unwrap()
            .terminal
            .clone()
            .expect("a terminal block");
        assert_eq!(kept.block.pid, Some(4242));
        assert_eq!(kept.block.env["TMUX_PANE"], "%3");
        assert_eq!(kept.block.cwd.as_deref(), Some("/proj"));
        assert_eq!(kept.host, None);
        assert_eq!(kept.seen, t0);
        // A status line is its command's shell: it never replaces the agent's block.
        let mut status = ev(AgentKind::Claude, "StatusLine", json!({"session_id":"w"}));
        status.terminal.pid = Some(9);
        apply(&mut s, &status, t1);
        assert_eq!(
            s.get(&k).unwrap().terminal.as_ref().unwrap().block.pid,
            Some(4242)
        );
        // The next event's block is the one kept, with when it came.
        let mut tool = ev(
            AgentKind::Claude,
            "PreToolUse",
            json!({"session_id":"w","tool_name":"Bash","tool_input":{"command":"ls"}}),
        );
        tool.terminal.pid = Some(4343);
        apply(&mut s, &tool, t1);
        let kept = s.get(&k).unwrap().terminal.clone().unwrap();
        assert_eq!((kept.block.pid, kept.seen), (Some(4343), t1));
        assert!(!kept.block.env.contains_key("TMUX_PANE"));

        // An SSH host's event (its folder tagged `host:/path` where it arrived) keeps the host.
        let mut remote = ev(AgentKind::Codex, "SessionStart", json!({"session_id":"r"}));
        crate::connection::tag_host(&mut remote, "devbox");
        let k = apply(&mut s, &remote, t1).unwrap();
        let kept = s.get(&k).unwrap().terminal.clone().unwrap();
        assert_eq!(kept.host.as_deref(), Some("devbox"));
        assert_eq!(kept.block.pid, Some(77));
    }
}
