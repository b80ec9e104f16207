//! The messages on the wire ([`Event`], [`Message`]), their limits, the identities they carry,
//! and how one line is read ([`read_line`]).

use crate::agents;
use crate::agents::{AgentKind, Lifecycle};
use crate::answer::{AnswerItem, Decision};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Version 9 = version 8 + the open reply for named tools (`--reply vults`; the version
/// history is docs/hook-protocol.md §8).
pub const VERSION: u32 = 9;
/// No line on the wire may be longer than this, newline included; the app drops a longer one
/// without reading it.
pub const MAX_LINE: usize = 1024 * 1024;
/// Every string of a payload is cut to this many bytes, on a UTF-8 boundary.
pub const MAX_STRING: usize = 2000;
/// A Codex `apply_patch` PostToolUse keeps its patch (`tool_input.command`) up to this size.
pub const MAX_APPLY_PATCH: usize = 64 * 1024;
/// A plan review's plan (Claude Code's ExitPlanMode `tool_input.plan`, [`agents::plan_review`])
/// keeps this much, so that a plan longer than [`MAX_STRING`] still gets its card: the card
/// shows the whole plan, and Approve echoes it back. 64 KiB is some 1,500 lines of markdown,
/// far more than any plan a person reviews, and small beside [`MAX_LINE`]. A longer plan is cut
/// like any string, and its request then waits for no reply (the agent asks in its terminal).
pub const MAX_PLAN: usize = 64 * 1024;
/// Claude Code's PostToolUse `structuredPatch` keeps this many lines.
pub const MAX_PATCH_LINES: usize = 400;
/// The second shaping step, for an event still over [`MAX_LINE`]: strings this short.
pub const SHORT_STRING: usize = 200;
/// A hook that hears neither `waiting` nor the answer within this long gives up.
pub const WAITING_WITHIN_MS: u64 = 2000;

/// Timeouts the installer writes into agents' hook entries, in seconds, and how long the hook
/// waits after `waiting` for each: a little less, so the hook gives up before the agent kills it.
pub mod timeouts {
    /// A permission request's entry (Claude Code, Codex, Qwen Code, Copilot CLI).
    pub const PERMISSION_ENTRY_S: u64 = 600;
    /// The AskUserQuestion entry (`--ask`): 120 s (docs/hook-protocol.md §4, "The 2 s rule and
    /// the deadlines").
    pub const ASK_ENTRY_S: u64 = 120;
    /// Every other event: the hook never waits there.
    pub const OTHER_ENTRY_S: u64 = 10;
    /// The status line (`--statusline`) runs the user's own command, bounded by this.
    pub const STATUSLINE_COMMAND_S: u64 = 5;
    /// Margin between the hook's own deadline and the agent's timeout.
    pub const MARGIN_S: u64 = 10;
    /// The hook's deadline after `waiting` for a permission request.
    pub const PERMISSION_WAIT_S: u64 = PERMISSION_ENTRY_S - MARGIN_S;
    /// The hook's deadline after `waiting` for a question.
    pub const ASK_WAIT_S: u64 = ASK_ENTRY_S - MARGIN_S;
}

impl agents::EntryTimeout {
    /// In seconds, as the entry says it ([`timeouts`]).
    pub fn seconds(self) -> u64 {
        use timeouts::{ASK_ENTRY_S, OTHER_ENTRY_S, PERMISSION_ENTRY_S};
        match self {
            agents::EntryTimeout::Permission => PERMISSION_ENTRY_S,
            agents::EntryTimeout::Ask => ASK_ENTRY_S,
            agents::EntryTimeout::Other => OTHER_ENTRY_S,
            agents::EntryTimeout::Seconds(s) => s,
        }
    }
}

/// A valid `agent_name`: 1–24 characters of `a-z 0-9 -`, not reserved.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct AgentName(String);

impl AgentName {
    /// A checked name: 1–24 characters of `a-z 0-9 -`, not reserved
    /// ([`agents::is_reserved_name`]).
    pub fn new(name: &str) -> Result<AgentName, NameError> {
        if name.is_empty() || name.len() > 24 {
            return Err(NameError::Length);
        }
        if !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return Err(NameError::Characters);
        }
        if agents::is_reserved_name(name) {
            return Err(NameError::Reserved);
        }
        Ok(AgentName(name.to_string()))
    }

    /// The name as it is.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// A native agent the wire carries as `other` (antigravity, cursor, droid, kimi).
    pub fn is_registered_other(&self) -> bool {
        agents::is_registered_other(&self.0)
    }
}

impl TryFrom<String> for AgentName {
    type Error = NameError;
    fn try_from(s: String) -> Result<Self, NameError> {
        AgentName::new(&s)
    }
}

impl From<AgentName> for String {
    fn from(n: AgentName) -> String {
        n.0
    }
}

impl std::fmt::Display for AgentName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why a name was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameError {
    /// Empty, or longer than 24 characters.
    Length,
    /// Something other than `a-z 0-9 -`.
    Characters,
    /// A built-in agent's name ([`agents::is_reserved_name`]).
    Reserved,
}

impl std::fmt::Display for NameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NameError::Length => "a tool's name has 1 to 24 characters",
            NameError::Characters => "a tool's name uses only a-z, 0-9 and -",
            NameError::Reserved => "that name is reserved for a built-in agent",
        })
    }
}

impl std::error::Error for NameError {}

/// Who an event comes from: a built-in kind, or `other` with its name. Rules and policies are
/// keyed by this, so a rule made for one named tool never answers another nor a built-in agent.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Identity {
    /// A built-in agent.
    Builtin(AgentKind),
    /// `other` with its own name.
    Named(AgentName),
}

impl Identity {
    /// The kind's or the name's plain string (rules' and policies' key).
    pub fn key(&self) -> &str {
        match self {
            Identity::Builtin(k) => k.as_str(),
            Identity::Named(n) => n.as_str(),
        }
    }

    /// The name people know it by (`Claude Code`, or the tool's own name).
    pub fn display_name(&self) -> String {
        match self {
            Identity::Builtin(k) => k.display_name().to_string(),
            Identity::Named(n) => n.to_string(),
        }
    }
}

impl From<Identity> for String {
    fn from(i: Identity) -> String {
        i.key().to_string()
    }
}

impl TryFrom<String> for Identity {
    type Error = NameError;
    fn try_from(s: String) -> Result<Identity, NameError> {
        match AgentKind::parse(&s) {
            Some(AgentKind::Other) => Err(NameError::Reserved),
            Some(k) => Ok(Identity::Builtin(k)),
            None => AgentName::new(&s).map(Identity::Named),
        }
    }
}

impl std::fmt::Display for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.key())
    }
}

/// Where the agent runs. Every field is optional on the wire.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Terminal {
    /// The agent's working folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The agent's process id (the hook's parent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// The variables of [`TERMINAL_ENV`] that were set.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub env: Map<String, Value>,
}

/// The variables that identify a terminal (plus `VULTS_TASK`); no other variable leaves the hook.
pub const TERMINAL_ENV: &[&str] = &[
    "TERM_PROGRAM",
    "TERM_PROGRAM_VERSION",
    "TERM_SESSION_ID",
    "ITERM_SESSION_ID",
    "KITTY_WINDOW_ID",
    "KITTY_PID",
    "WEZTERM_PANE",
    "ALACRITTY_WINDOW_ID",
    "GHOSTTY_RESOURCES_DIR",
    "TMUX",
    "TMUX_PANE",
    "STY",
    "ZELLIJ_SESSION_NAME",
    "ZELLIJ_PANE_ID",
    "WT_SESSION",
    "WT_PROFILE_ID",
    "KONSOLE_DBUS_SESSION",
    "GNOME_TERMINAL_SCREEN",
    "TERMINAL_EMULATOR",
    "VSCODE_PID",
    "WINDOWID",
    "VULTS_TASK",
];

/// Hook → app.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// The protocol version ([`VERSION`]).
    pub v: u32,
    /// A fresh id; the reply carries it back.
    pub id: String,
    /// The agent's kind.
    pub agent: AgentKind,
    /// The name of an `other` (a named tool or a registered native agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_name: Option<AgentName>,
    /// The agent's event name (`PermissionRequest`, `PreToolUse`, …).
    pub event: String,
    /// Whether the hook waits for a reply (docs/hook-protocol.md §4).
    #[serde(deserialize_with = "read_wants_reply")]
    pub wants_reply: bool,
    /// `"vults"` when a named tool asked for the open reply (docs/hook-protocol.md §7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
    /// The hook saw `VULTS_ZECA=1` (Claude Code and Codex only): never a session, a bird or a
    /// card, and never `wants_reply`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub zeca: bool,
    /// Set by the hook when the event would have wanted a reply but had to be cut to fit the
    /// wire ([`super::shape`]): it then waits for none, the agent asks in its own terminal, and the app
    /// says so on the bird and in History (docs/hook-protocol.md §3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub too_large: Option<TooLarge>,
    /// Where the agent runs.
    #[serde(default)]
    pub terminal: Terminal,
    /// The agent's payload, shaped to fit ([`super::shape`]). [`read_line`] reads an event
    /// that waits for no reply without the payload's `tool_response`: nothing in the app reads
    /// it (a PostToolUse's patch of up to 400 lines), and building it was most of the work of
    /// reading a burst of them.
    #[serde(default, deserialize_with = "read_payload")]
    pub payload: Value,
}

/// What [`read_payload`] does with a payload's `tool_response`.
#[derive(Clone, Copy, PartialEq)]
enum Response {
    /// Builds it (every read but [`read_line`]'s).
    Keep,
    /// Skips it unbuilt: [`read_line`] reads an event that waits for no reply.
    Skip,
    /// Not known yet: [`read_wants_reply`] turns it into `Keep` or `Skip`, so a payload after
    /// `wants_reply` is read as it says; one before it is built (and dropped afterwards by
    /// [`read_line`] if the event waits for no reply).
    ByWantsReply,
}

thread_local! {
    /// Set by [`read_line`] while it builds an event ([`read_payload`]).
    static RESPONSE: std::cell::Cell<Response> = const { std::cell::Cell::new(Response::Keep) };
}

/// `wants_reply`, which settles [`RESPONSE`] for the payload when [`read_line`] reads an event
/// in one pass.
fn read_wants_reply<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    let wants_reply = bool::deserialize(d)?;
    if RESPONSE.get() == Response::ByWantsReply {
        RESPONSE.set(if wants_reply {
            Response::Keep
        } else {
            Response::Skip
        });
    }
    Ok(wants_reply)
}

/// An event's payload as it is, or, while [`read_line`] reads an event that waits for no reply,
/// without its `tool_response` (skipped unbuilt).
fn read_payload<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
    use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
    if RESPONSE.get() != Response::Skip {
        return Value::deserialize(d);
    }
    struct Lean;
    impl<'de> Visitor<'de> for Lean {
        type Value = Value;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
            let mut map = Map::new();
            while let Some(key) = a.next_key::<String>()? {
                if key == "tool_response" {
                    a.next_value::<IgnoredAny>()?;
                } else {
                    map.insert(key, a.next_value()?);
                }
            }
            Ok(Value::Object(map))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
            let mut items = Vec::new();
            while let Some(item) = a.next_element()? {
                items.push(item);
            }
            Ok(Value::Array(items))
        }
        fn visit_str<E>(self, s: &str) -> Result<Value, E> {
            Ok(Value::String(s.to_string()))
        }
        fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
            Ok(n.into())
        }
        fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
            Ok(n.into())
        }
        fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
            Ok(serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number))
        }
        fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
            Ok(Value::Bool(b))
        }
        fn visit_unit<E>(self) -> Result<Value, E> {
            Ok(Value::Null)
        }
    }
    d.deserialize_any(Lean)
}

/// What the hook cut from a request too large for a card ([`Event::too_large`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TooLarge {
    /// The whole length, in bytes, of every string of the tool's input that the hook cut (or
    /// dropped): how much the agent sent that no card could show.
    pub bytes: u64,
}

impl Event {
    /// The identity rules and policies are keyed by; `None` for an `other` without a name.
    pub fn identity(&self) -> Option<Identity> {
        match (&self.agent, &self.agent_name) {
            (AgentKind::Other, Some(name)) => Some(Identity::Named(name.clone())),
            (AgentKind::Other, None) => None,
            (kind, _) => Some(Identity::Builtin(*kind)),
        }
    }

    /// Drops the payload's `tool_response` from an event that waits for no reply: nothing in
    /// the app reads it (a PostToolUse's patch of up to 400 lines). The payload's other keys
    /// keep their order.
    pub fn drop_unread_response(&mut self) {
        if !self.wants_reply
            && let Some(payload) = self.payload.as_object_mut()
        {
            payload.shift_remove("tool_response");
        }
    }

    /// What the event means ([`agents::lifecycle`], by its sender's row): resolved from its
    /// name here, and matched as a [`Lifecycle`] everywhere after.
    pub fn lifecycle(&self) -> Lifecycle {
        lifecycle_of(self.agent, self.agent_name.as_ref(), &self.event)
    }

    /// Whether this event is an AskUserQuestion (answered with `answer`, not `decision`).
    pub fn is_question(&self) -> bool {
        agents::tool_name(&self.payload) == Some("AskUserQuestion")
            && self.lifecycle() == Lifecycle::BeforeCall
    }

    /// [`Event::is_question`], for an event whose [`Event::lifecycle`] was already resolved.
    pub fn is_question_as(&self, lifecycle: Lifecycle) -> bool {
        lifecycle == Lifecycle::BeforeCall
            && agents::tool_name(&self.payload) == Some("AskUserQuestion")
    }
}

/// What `event` means, sent by `agent` (with its name, for one that travels as `other`): by its
/// row when it has one ([`agents::lifecycle`]).
pub(crate) fn lifecycle_of(agent: AgentKind, name: Option<&AgentName>, event: &str) -> Lifecycle {
    let spec = match (agent, name) {
        (AgentKind::Other, Some(name)) => agents::spec(name.as_str()),
        (kind, _) => agents::spec_of(kind),
    };
    agents::lifecycle(spec, event)
}

/// Everything on the wire, tagged by `kind`.
// An event is one per line and moved, never copied in bulk; boxing it would only add noise
// to every match on the wire's messages.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Message {
    /// Hook → app: one event.
    Event(Event),
    /// App → hook: a person is being asked; the hook waits for the answer.
    Waiting {
        /// The protocol version.
        v: u32,
        /// The event's id.
        id: String,
    },
    /// App → hook: the decision on a permission request.
    Decision {
        /// The protocol version.
        v: u32,
        /// The event's id.
        id: String,
        /// Allow or deny.
        decision: Decision,
        /// Only on a deny, and only when the person wrote one: the words the agent is told
        /// instead of [`crate::answer::DENY_MESSAGE`] (a plan review's "Keep planning" feedback), at most
        /// [`crate::answer::MAX_FEEDBACK`] bytes. Absent otherwise; a hook that does not know it ignores it,
        /// and the hook cleans it again before printing it ([`crate::answer::clean_feedback`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// App → hook: the answers to an AskUserQuestion, one per question in order.
    Answer {
        /// The protocol version.
        v: u32,
        /// The event's id.
        id: String,
        /// One per question.
        answers: Vec<AnswerItem>,
    },
    /// App → hook: the event's version is not this one; the hook prints nothing.
    Unsupported {
        /// The protocol version.
        v: u32,
        /// The event's id.
        id: String,
    },
}

impl Message {
    /// A `waiting` for the event `id`.
    pub fn waiting(id: &str) -> Message {
        Message::Waiting {
            v: VERSION,
            id: id.to_string(),
        }
    }
    /// A `decision` for the event `id`.
    pub fn decision(id: &str, decision: Decision) -> Message {
        Message::Decision {
            v: VERSION,
            id: id.to_string(),
            decision,
            message: None,
        }
    }
    /// A `deny` for the event `id` that tells the agent `feedback` (cleaned and bounded:
    /// [`crate::answer::clean_feedback`]); a plain deny when nothing is left of it.
    pub fn deny_with(id: &str, feedback: &str) -> Message {
        Message::Decision {
            v: VERSION,
            id: id.to_string(),
            decision: Decision::Deny,
            message: crate::answer::clean_feedback(feedback),
        }
    }
    /// An `answer` for the event `id`.
    pub fn answer(id: &str, answers: Vec<AnswerItem>) -> Message {
        Message::Answer {
            v: VERSION,
            id: id.to_string(),
            answers,
        }
    }
    /// An `unsupported` for the event `id`.
    pub fn unsupported(id: &str) -> Message {
        Message::Unsupported {
            v: VERSION,
            id: id.to_string(),
        }
    }

    /// The event id the message is about.
    pub fn id(&self) -> &str {
        match self {
            Message::Event(e) => &e.id,
            Message::Waiting { id, .. }
            | Message::Decision { id, .. }
            | Message::Answer { id, .. }
            | Message::Unsupported { id, .. } => id,
        }
    }

    /// One line, newline included.
    pub fn to_line(&self) -> String {
        let mut s = serde_json::to_string(self).expect("messages always serialize");
        s.push('\n');
        s
    }
}

/// What a line turned out to be when read.
// An event is one per line and moved, never copied in bulk; boxing it would only add noise
// to every match on the wire's messages.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, PartialEq)]
pub enum ReadLine {
    /// A message of this version.
    Message(Message),
    /// A well-formed envelope of another version (or of this version with a body this side
    /// cannot read); answer `unsupported` with this id.
    OtherVersion {
        /// The envelope's id.
        id: String,
        /// The envelope's version, when it had one.
        v: Option<u64>,
    },
    /// Not a JSON object with a `kind`.
    Malformed(String),
}

/// Reads one line (without its newline). Checks the version before anything else, so an old
/// hook's event gets `unsupported` rather than a parse error.
///
/// The body is built straight from the bytes; an event that waits for no reply without its
/// payload's `tool_response` ([`Event::payload`]). Reading it into a [`Value`] and from there
/// into the tagged [`Message`] built every string of a payload three times over (the `Value`,
/// serde's buffer for the tag, the event's own), and an app under a burst of 20 KB PostToolUse
/// lines spent its time there.
///
/// A line as the hook writes it (`{"kind":"event",` first, no other `"kind"` in it, no `\u`
/// escape that could spell one) is an event read in one pass over its bytes: the event's own
/// fields reject a second `v`, `id` or `wants_reply`, and the hook writes `wants_reply` before
/// the payload, so a `tool_response` nobody waits for is skipped as it is met. Any other line,
/// or one that pass cannot read as an event of this version, is read in two: a first pass reads
/// only `kind`, `v`, `id` and `wants_reply` (allocating nothing but the id, skipping every other
/// value unbuilt), then the body. Both read every line alike (a test compares them); the first
/// spares the engine a second walk over a 20 KB patch.
pub fn read_line(line: &[u8]) -> ReadLine {
    if let Some(event) = read_event_in_one_pass(line) {
        return ReadLine::Message(Message::Event(event));
    }
    read_line_in_two_passes(line)
}

/// How the hook begins an event's line: what [`read_event_in_one_pass`] takes.
const EVENT_START: &[u8] = br#"{"kind":"event","#;

/// `line` read as an event of this version in one pass, or `None` when it is not one the hook
/// would write or the pass fails: [`read_line_in_two_passes`] then reads it (and says why not).
fn read_event_in_one_pass(line: &[u8]) -> Option<Event> {
    use memchr::memmem;
    // The top-level `kind` is "event" and the only one: any other key "kind" would be these
    // six bytes, or spelled with a \u escape.
    let rest = line.strip_prefix(EVENT_START)?;
    if memmem::find(rest, b"\"kind\"").is_some() || memmem::find(line, b"\\u").is_some() {
        return None;
    }
    RESPONSE.set(Response::ByWantsReply);
    let event = serde_json::from_slice::<Event>(line);
    RESPONSE.set(Response::Keep);
    let mut event = event.ok().filter(|e| e.v == VERSION)?;
    // Built if `wants_reply` came after the payload.
    event.drop_unread_response();
    Some(event)
}

/// [`read_line`] of any line: `kind`, `v`, `id` and `wants_reply` first, then the body.
fn read_line_in_two_passes(line: &[u8]) -> ReadLine {
    let head = match serde_json::from_slice::<Head>(line) {
        Ok(head) => head,
        Err(e) => return ReadLine::Malformed(e.to_string()),
    };
    let Head::Object {
        kind,
        id,
        v,
        wants_reply,
    } = head
    else {
        return ReadLine::Malformed("not a JSON object".into());
    };
    let Some(kind) = kind else {
        return ReadLine::Malformed("no \"kind\"".into());
    };
    if v != Some(u64::from(VERSION)) {
        return ReadLine::OtherVersion {
            id: id.unwrap_or_default(),
            v,
        };
    }
    // An event is the struct itself (its `kind` is a field it ignores); the others are small.
    let body = if kind == HeadKind::Event {
        if wants_reply != Some(true) {
            RESPONSE.set(Response::Skip);
        }
        let event = serde_json::from_slice::<Event>(line);
        RESPONSE.set(Response::Keep);
        event.map(Message::Event)
    } else {
        serde_json::from_slice::<Message>(line)
    };
    match body {
        Ok(m) => ReadLine::Message(m),
        Err(e) => ReadLine::Malformed(e.to_string()),
    }
}

/// What [`read_line`] reads of a line before its body: `kind` (when a string), `v` (when an
/// unsigned integer), `id` (when a string) and `wants_reply` (when a boolean), the last of each
/// when one is repeated.
enum Head {
    Object {
        kind: Option<HeadKind>,
        id: Option<String>,
        v: Option<u64>,
        wants_reply: Option<bool>,
    },
    /// Valid JSON, but not an object.
    Other,
}

#[derive(PartialEq)]
enum HeadKind {
    Event,
    Other,
}

impl<'de> Deserialize<'de> for Head {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Head, D::Error> {
        use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
        use std::fmt;

        /// A field of the head, or any other (skipped unbuilt).
        enum Field {
            Kind,
            Id,
            V,
            WantsReply,
            Other,
        }
        impl<'de> Deserialize<'de> for Field {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Field, D::Error> {
                struct Names;
                impl Visitor<'_> for Names {
                    type Value = Field;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("a field name")
                    }
                    fn visit_str<E>(self, name: &str) -> Result<Field, E> {
                        Ok(match name {
                            "kind" => Field::Kind,
                            "id" => Field::Id,
                            "v" => Field::V,
                            "wants_reply" => Field::WantsReply,
                            _ => Field::Other,
                        })
                    }
                }
                d.deserialize_identifier(Names)
            }
        }

        /// A head field's value: a string, an unsigned integer, a boolean, or anything else
        /// (skipped).
        enum Loose {
            Text(String),
            Unsigned(u64),
            Flag(bool),
            Other,
        }
        impl<'de> Deserialize<'de> for Loose {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Loose, D::Error> {
                struct Any;
                impl<'de> Visitor<'de> for Any {
                    type Value = Loose;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("any JSON value")
                    }
                    fn visit_str<E>(self, s: &str) -> Result<Loose, E> {
                        Ok(Loose::Text(s.to_string()))
                    }
                    fn visit_u64<E>(self, n: u64) -> Result<Loose, E> {
                        Ok(Loose::Unsigned(n))
                    }
                    fn visit_i64<E>(self, _: i64) -> Result<Loose, E> {
                        Ok(Loose::Other)
                    }
                    fn visit_f64<E>(self, _: f64) -> Result<Loose, E> {
                        Ok(Loose::Other)
                    }
                    fn visit_bool<E>(self, b: bool) -> Result<Loose, E> {
                        Ok(Loose::Flag(b))
                    }
                    fn visit_unit<E>(self) -> Result<Loose, E> {
                        Ok(Loose::Other)
                    }
                    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Loose, A::Error> {
                        while a.next_element::<IgnoredAny>()?.is_some() {}
                        Ok(Loose::Other)
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Loose, A::Error> {
                        while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                        Ok(Loose::Other)
                    }
                }
                d.deserialize_any(Any)
            }
        }

        struct Top;
        impl<'de> Visitor<'de> for Top {
            type Value = Head;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Head, A::Error> {
                let (mut kind, mut id, mut v, mut wants_reply) = (None, None, None, None);
                while let Some(field) = a.next_key::<Field>()? {
                    match field {
                        Field::Other => {
                            a.next_value::<IgnoredAny>()?;
                        }
                        Field::Kind => {
                            kind = match a.next_value::<Loose>()? {
                                Loose::Text(k) if k == "event" => Some(HeadKind::Event),
                                Loose::Text(_) => Some(HeadKind::Other),
                                _ => None,
                            }
                        }
                        Field::Id => {
                            id = match a.next_value::<Loose>()? {
                                Loose::Text(s) => Some(s),
                                _ => None,
                            }
                        }
                        Field::V => {
                            v = match a.next_value::<Loose>()? {
                                Loose::Unsigned(n) => Some(n),
                                _ => None,
                            }
                        }
                        Field::WantsReply => {
                            wants_reply = match a.next_value::<Loose>()? {
                                Loose::Flag(b) => Some(b),
                                _ => None,
                            }
                        }
                    }
                }
                Ok(Head::Object {
                    kind,
                    id,
                    v,
                    wants_reply,
                })
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Head, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Head::Other)
            }
            fn visit_str<E>(self, _: &str) -> Result<Head, E> {
                Ok(Head::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Head, E> {
                Ok(Head::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Head, E> {
                Ok(Head::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Head, E> {
                Ok(Head::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Head, E> {
                Ok(Head::Other)
            }
            fn visit_unit<E>(self) -> Result<Head, E> {
                Ok(Head::Other)
            }
        }
        d.deserialize_any(Top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::*;
    use serde_json::json;

    fn ctx_env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    fn build_with(
        args: &[&str],
        stdin: &str,
        env: &'static [(&'static str, &'static str)],
    ) -> Built {
        let args = HookArgs::parse(args.iter().map(|s| s.to_string())).unwrap();
        let env = ctx_env(env);
        let ctx = HookContext {
            id: "id-1".into(),
            pid: 42,
            own_cwd: "/own".into(),
            env: &env,
        };
        build_event(&args, stdin.as_bytes(), &ctx)
    }

    fn build(args: &[&str], stdin: &str) -> Event {
        match build_with(args, stdin, &[]) {
            Built::Send(e) => e,
            other => panic!("expected an event, got {other:?}"),
        }
    }

    const BASH: &str = r#"{"session_id":"s","cwd":"/p","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"}}"#;

    #[test]
    fn builtin_agents_go_by_kind_without_a_name() {
        for a in ["claude", "codex", "opencode", "qwen", "copilot"] {
            let e = build(&["--agent", a, "PermissionRequest"], BASH);
            assert_eq!(e.agent.as_str(), a);
            assert_eq!(e.agent_name, None);
            assert!(e.wants_reply, "{a} PermissionRequest wants a reply");
        }
    }

    #[test]
    fn registered_others_travel_as_other_with_their_name_and_never_wait() {
        for a in ["antigravity", "cursor", "droid", "kimi"] {
            let e = build(&["--agent", a, "PermissionRequest"], BASH);
            assert_eq!(e.agent, AgentKind::Other);
            assert_eq!(e.agent_name.as_ref().unwrap().as_str(), a);
            assert!(!e.wants_reply);
        }
    }

    #[test]
    fn agent_name_rules() {
        assert!(AgentName::new("my-tool-2").is_ok());
        assert!(AgentName::new(&"a".repeat(24)).is_ok());
        assert_eq!(AgentName::new(""), Err(NameError::Length));
        assert_eq!(AgentName::new(&"a".repeat(25)), Err(NameError::Length));
        assert_eq!(AgentName::new("My-Tool"), Err(NameError::Characters));
        assert_eq!(AgentName::new("my_tool"), Err(NameError::Characters));
        assert_eq!(AgentName::new("tool ☃"), Err(NameError::Characters));
        for r in [
            "claude", "codex", "copilot", "opencode", "qwen", "other", "gemini",
        ] {
            assert_eq!(AgentName::new(r), Err(NameError::Reserved), "{r}");
        }
        // On the wire too: an event naming a reserved agent_name does not parse.
        let line = format!(
            r#"{{"kind":"event","v":{VERSION},"id":"x","agent":"other","agent_name":"claude","event":"Stop","wants_reply":false}}"#
        );
        assert!(matches!(read_line(line.as_bytes()), ReadLine::Malformed(_)));
    }

    #[test]
    fn gemini_sends_nothing_and_bad_names_are_refused() {
        assert_eq!(
            build_with(&["--agent", "gemini", "BeforeTool"], BASH, &[]),
            Built::Nothing
        );
        assert!(matches!(
            build_with(&["--agent", "Bad Name", "Stop"], "{}", &[]),
            Built::Refused(_)
        ));
        assert!(matches!(
            build_with(&["--agent", "other", "Stop"], "{}", &[]),
            Built::Refused(_)
        ));
    }

    #[test]
    fn zeca_only_for_claude_and_codex_and_never_waits() {
        const Z: &[(&str, &str)] = &[("VULTS_ZECA", "1")];
        for a in ["claude", "codex"] {
            let Built::Send(e) = build_with(&["--agent", a, "PermissionRequest"], BASH, Z) else {
                panic!()
            };
            assert!(e.zeca);
            assert!(!e.wants_reply);
        }
        for a in ["qwen", "copilot", "opencode", "my-tool"] {
            let Built::Send(e) = build_with(&["--agent", a, "PermissionRequest"], BASH, Z) else {
                panic!()
            };
            assert!(!e.zeca, "{a}");
        }
        const NOT_ONE: &[(&str, &str)] = &[("VULTS_ZECA", "true")];
        let Built::Send(e) = build_with(&["--agent", "claude", "Stop"], "{}", NOT_ONE) else {
            panic!()
        };
        assert!(!e.zeca);
        let line = serde_json::to_string(&e).unwrap();
        assert!(!line.contains("zeca"), "zeca is absent, not false: {line}");
    }

    #[test]
    fn terminal_env_holds_only_terminal_variables_and_vults_task() {
        const ENV: &[(&str, &str)] = &[
            ("TERM_PROGRAM", "kitty"),
            ("TMUX_PANE", "%3"),
            ("VULTS_TASK", "task-7"),
            ("HOME", "/home/me"),
            ("AWS_SECRET_ACCESS_KEY", "no"),
            ("PATH", "/bin"),
        ];
        let Built::Send(e) = build_with(&["--agent", "claude", "Stop"], "{}", ENV) else {
            panic!()
        };
        let keys: Vec<&str> = e.terminal.env.keys().map(String::as_str).collect();
        assert_eq!(keys, ["TERM_PROGRAM", "TMUX_PANE", "VULTS_TASK"]);
        assert_eq!(e.terminal.pid, Some(42));
    }

    #[test]
    fn cwd_resolution_order() {
        assert_eq!(
            resolve_cwd(&json!({"cwd":"/a","workspace_roots":["/b"]}), "/own"),
            "/a"
        );
        assert_eq!(
            resolve_cwd(
                &json!({"workspacePaths":["/w1","/w2"],"workspace_roots":["/b"]}),
                "/own"
            ),
            "/w1"
        );
        assert_eq!(
            resolve_cwd(&json!({"workspace_roots":["/b"]}), "/own"),
            "/b"
        );
        assert_eq!(resolve_cwd(&json!({}), "/own"), "/own");
        let e = build(
            &["--agent", "cursor", "beforeShellExecution"],
            r#"{"workspace_roots":["/proj"]}"#,
        );
        assert_eq!(e.terminal.cwd.as_deref(), Some("/proj"));
    }

    #[test]
    fn tool_response_keeps_only_error_and_transcripts_are_dropped() {
        let e = build(
            &["--agent", "claude", "PostToolUse"],
            r#"{"transcript_path":"/t","tool_name":"Bash","tool_input":{"command":"x"},"tool_response":{"stdout":"big","stderr":"","error":"boom"}}"#,
        );
        assert_eq!(e.payload["tool_response"], json!({"error":"boom"}));
        assert!(e.payload.get("transcript_path").is_none());
        let e = build(
            &["--agent", "antigravity", "PostToolUse"],
            r#"{"transcriptPath":"/t","artifactDirectoryPath":"/a","tool_response":{"stdout":"x"}}"#,
        );
        assert_eq!(e.payload, json!({}));
    }

    #[test]
    fn structured_patch_is_cut_to_400_lines_with_cut_flag() {
        let lines: Vec<String> = (0..300).map(|i| format!("+line {i}")).collect();
        let payload = json!({
            "tool_name": "Edit",
            "tool_response": {"filePath": "/f", "structuredPatch": [
                {"oldStart": 1, "lines": lines}, {"oldStart": 900, "lines": lines}, {"oldStart": 2000, "lines": ["+x"]}
            ]}
        });
        let e = build(&["--agent", "claude", "PostToolUse"], &payload.to_string());
        let patch = e.payload["tool_response"]["structuredPatch"]
            .as_array()
            .unwrap();
        let total: usize = patch
            .iter()
            .map(|h| h["lines"].as_array().unwrap().len())
            .sum();
        assert_eq!(total, 400);
        assert_eq!(patch.len(), 2);
        assert_eq!(e.payload["tool_response"]["cut"], json!(true));
        assert!(e.payload["tool_response"].get("filePath").is_none());

        let small = json!({"tool_response": {"structuredPatch": [{"lines": ["+a", "-b"]}]}});
        let e = build(&["--agent", "claude", "PostToolUse"], &small.to_string());
        assert!(e.payload["tool_response"].get("cut").is_none());
        // Only Claude Code's PostToolUse keeps it.
        let e = build(&["--agent", "qwen", "PostToolUse"], &small.to_string());
        assert!(e.payload.get("tool_response").is_none());
    }

    #[test]
    fn strings_are_cut_to_2000_bytes_on_a_char_boundary() {
        let long = "é".repeat(1500); // 3000 bytes
        let e = build(
            &["--agent", "claude", "UserPromptSubmit"],
            &json!({"prompt": long}).to_string(),
        );
        let p = e.payload["prompt"].as_str().unwrap();
        assert_eq!(p.len(), 2000);
        assert!(p.chars().all(|c| c == 'é'));
        let mut s = "aé".to_string();
        assert!(truncate_utf8(&mut s, 2));
        assert_eq!(s, "a");
    }

    #[test]
    fn a_2000_byte_command_is_whole_and_still_waits() {
        let cmd = "x".repeat(2000);
        let e = build(
            &["--agent", "claude", "PermissionRequest"],
            &json!({"tool_name":"Bash","tool_input":{"command": cmd}}).to_string(),
        );
        assert_eq!(
            e.payload["tool_input"]["command"].as_str().unwrap().len(),
            2000
        );
        assert!(e.wants_reply);
    }

    #[test]
    fn a_cut_command_never_waits() {
        let cmd = "x".repeat(2001);
        let e = build(
            &["--agent", "claude", "PermissionRequest"],
            &json!({"tool_name":"Bash","tool_input":{"command": cmd}}).to_string(),
        );
        assert!(!e.wants_reply);
        assert_eq!(e.too_large, Some(TooLarge { bytes: 2001 }));
    }

    /// A plan longer than a string may be (a 3,288-byte plan lost its card before: cut to 2000
    /// bytes, sent as wants_reply false) keeps up to MAX_PLAN and still waits; its other
    /// strings are cut as always; a plan over MAX_PLAN is cut and waits for nothing.
    #[test]
    fn a_plan_review_keeps_its_plan_up_to_64_kib_and_still_waits() {
        let plan = "# Plan\n\n".to_string() + &"1. step é\n".repeat(400);
        assert!(plan.len() > MAX_STRING && plan.len() < MAX_PLAN);
        let asks = |plan: &str, agent: &str, tool: &str| {
            build(
                &["--agent", agent, "PermissionRequest"],
                &json!({"tool_name": tool, "permission_mode": "plan",
                    "tool_input": {"plan": plan, "planFilePath": "/h/.claude/plans/p.md"},
                    "other": "z".repeat(3000)})
                .to_string(),
            )
        };
        let e = asks(&plan, "claude", "ExitPlanMode");
        assert!(e.wants_reply && e.too_large.is_none());
        assert_eq!(e.payload["tool_input"]["plan"], plan);
        assert_eq!(e.payload["other"].as_str().unwrap().len(), MAX_STRING);
        // Another tool, or another agent's plan tool, has no exemption.
        let e = asks(&plan, "claude", "Frob");
        assert!(!e.wants_reply);
        let e = asks(&plan, "qwen", "exit_plan_mode");
        assert!(!e.wants_reply);
        assert_eq!(
            e.payload["tool_input"]["plan"].as_str().unwrap().len(),
            MAX_STRING
        );
        // Over the bound: cut, and the agent asks in its terminal.
        let huge = "y".repeat(MAX_PLAN + 1);
        let e = asks(&huge, "claude", "ExitPlanMode");
        assert!(!e.wants_reply);
        assert_eq!(
            e.payload["tool_input"]["plan"].as_str().unwrap().len(),
            MAX_PLAN
        );
        assert_eq!(e.too_large.map(|t| t.bytes), Some(MAX_PLAN as u64 + 1));
    }

    /// A deny may carry the person's words; an old reply without them still reads, and a
    /// decision without them is written as before.
    #[test]
    fn a_decision_may_carry_feedback_and_old_lines_still_read() {
        let plain = Message::decision("a", Decision::Deny).to_line();
        assert_eq!(
            plain,
            format!(
                "{{\"kind\":\"decision\",\"v\":{VERSION},\"id\":\"a\",\"decision\":\"deny\"}}\n"
            )
        );
        let with = Message::deny_with("a", "  also test it\u{1b}\n");
        assert_eq!(
            with.to_line(),
            format!(
                "{{\"kind\":\"decision\",\"v\":{VERSION},\"id\":\"a\",\"decision\":\"deny\",\"message\":\"also test it\"}}\n"
            )
        );
        assert_eq!(
            read_line(with.to_line().trim_end().as_bytes()),
            ReadLine::Message(with.clone())
        );
        assert_eq!(
            Message::deny_with("a", " \n "),
            Message::decision("a", Decision::Deny)
        );
        assert!(
            !matches!(
                read_line(format!(r#"{{"kind":"decision","v":{VERSION},"id":"a","decision":"deny","message":7}}"#).as_bytes()),
                ReadLine::Message(_)
            ),
            "a message that is not a string was read"
        );
    }

    /// The app learns what the hook cut, to say so on the bird and in History: a 100-line Write
    /// of 2,741 bytes and a 10,000-character command. An event that never wanted a reply, or
    /// that fits, carries nothing.
    #[test]
    fn a_request_cut_to_fit_says_how_much_it_lost() {
        let content: String = (1..=100)
            .map(|i| format!("line {i:03} of the new file\n"))
            .collect::<String>()
            + &"x".repeat(241);
        assert_eq!(content.len(), 2741);
        let write = json!({"tool_name":"Write","tool_input":{"file_path":"/p/notes.md","content": content}});
        let e = build(
            &["--agent", "claude", "PermissionRequest"],
            &write.to_string(),
        );
        assert!(!e.wants_reply);
        assert_eq!(e.too_large, Some(TooLarge { bytes: 2741 }));
        let line = Message::Event(e).to_line();
        assert!(line.contains(r#""too_large":{"bytes":2741}"#), "{line}");

        let bash = json!({"tool_name":"Bash","tool_input":{"command": "y".repeat(10_000)}});
        let e = build(
            &["--agent", "codex", "PermissionRequest"],
            &bash.to_string(),
        );
        assert_eq!(e.too_large, Some(TooLarge { bytes: 10_000 }));

        let small = json!({"tool_name":"Bash","tool_input":{"command": "ls"}});
        let e = build(
            &["--agent", "claude", "PermissionRequest"],
            &small.to_string(),
        );
        assert!(e.wants_reply && e.too_large.is_none());
        assert!(!Message::Event(e).to_line().contains("too_large"));
        // Not asked for a reply (a PreToolUse, a named tool without --reply vults): no card
        // was ever coming, nothing to say.
        let e = build(&["--agent", "claude", "PreToolUse"], &bash.to_string());
        assert!(e.too_large.is_none());
        let e = build(
            &["--agent", "my-tool", "PermissionRequest"],
            &bash.to_string(),
        );
        assert!(e.too_large.is_none());
        // An old hook's event (no field) reads as nothing cut.
        let old = &format!(
            r#"{{"kind":"event","v":{VERSION},"id":"x","agent":"claude","event":"PermissionRequest","wants_reply":false}}"#
        );
        let Ok(Message::Event(e)) = serde_json::from_str::<Message>(old) else {
            panic!("parses")
        };
        assert_eq!(e.too_large, None);
    }

    #[test]
    fn codex_apply_patch_post_tool_use_keeps_64_kib() {
        let patch = "+".repeat(100 * 1024);
        let input = json!({"tool_name":"apply_patch","tool_input":{"command": patch, "other": "y".repeat(3000)}});
        let e = build(&["--agent", "codex", "PostToolUse"], &input.to_string());
        assert_eq!(
            e.payload["tool_input"]["command"].as_str().unwrap().len(),
            MAX_APPLY_PATCH
        );
        assert_eq!(
            e.payload["tool_input"]["other"].as_str().unwrap().len(),
            MAX_STRING
        );
        // Not for Claude, not for PreToolUse.
        let e = build(&["--agent", "claude", "PostToolUse"], &input.to_string());
        assert_eq!(
            e.payload["tool_input"]["command"].as_str().unwrap().len(),
            MAX_STRING
        );
        let e = build(&["--agent", "codex", "PreToolUse"], &input.to_string());
        assert_eq!(
            e.payload["tool_input"]["command"].as_str().unwrap().len(),
            MAX_STRING
        );
    }

    #[test]
    fn an_event_over_1_mib_shrinks_and_never_waits() {
        // 3 MiB of many short strings: cutting to 2000 bytes is not enough.
        let many: Vec<String> = (0..1500)
            .map(|i| format!("{i}:{}", "z".repeat(2000)))
            .collect();
        let input = json!({"session_id":"s1","cwd":"/p","tool_name":"Bash","tool_input":{"command":"ls","many":many}});
        assert!(input.to_string().len() > 3 * 1024 * 1024 - 200_000);
        let e = build(
            &["--agent", "claude", "PermissionRequest"],
            &input.to_string(),
        );
        assert!(!e.wants_reply);
        assert!(Message::Event(e.clone()).to_line().len() <= MAX_LINE);
        // Step 1 sufficed: the strings got shorter but the fields are still there.
        assert_eq!(
            e.payload["tool_input"]["many"][0].as_str().unwrap().len(),
            SHORT_STRING
        );

        // Too many fields for even 200-byte strings: only the essentials stay.
        let many: Vec<String> = (0..8000)
            .map(|i| format!("{i}:{}", "z".repeat(300)))
            .collect();
        let input =
            json!({"session_id":"s1","cwd":"/p","tool_name":"Bash","tool_input":{"many":many}});
        let e = build(
            &["--agent", "claude", "PermissionRequest"],
            &input.to_string(),
        );
        assert!(!e.wants_reply);
        assert_eq!(
            e.payload,
            json!({"session_id":"s1","cwd":"/p","tool_name":"Bash"})
        );
    }

    #[test]
    fn wants_reply_rules() {
        let ask = r#"{"tool_name":"AskUserQuestion","tool_input":{"questions":[]}}"#;
        assert!(build(&["--agent", "claude", "--ask", "PreToolUse"], ask).wants_reply);
        assert!(build(&["--agent", "opencode", "--ask", "PreToolUse"], ask).wants_reply);
        assert!(
            !build(&["--agent", "claude", "PreToolUse"], ask).wants_reply,
            "without --ask"
        );
        assert!(
            !build(&["--agent", "codex", "--ask", "PreToolUse"], ask).wants_reply,
            "codex has no ask"
        );
        assert!(
            !build(&["--agent", "claude", "--ask", "PreToolUse"], BASH).wants_reply,
            "only AskUserQuestion"
        );
        assert!(build(&["--agent", "copilot", "permissionRequest"], BASH).wants_reply);
        assert!(!build(&["--agent", "claude", "PreToolUse"], BASH).wants_reply);
        assert!(!build(&["--agent", "my-tool", "PermissionRequest"], BASH).wants_reply);
        let named = build(
            &[
                "--agent",
                "my-tool",
                "--reply",
                "vults",
                "PermissionRequest",
            ],
            BASH,
        );
        assert!(named.wants_reply);
        assert_eq!(named.reply.as_deref(), Some("vults"));
        assert!(!build(&["--agent", "my-tool", "--reply", "vults", "Stop"], "{}").wants_reply);
    }

    #[test]
    fn reply_vults_is_refused_for_builtin_names() {
        for a in [
            "claude",
            "codex",
            "copilot",
            "gemini",
            "opencode",
            "qwen",
            "other",
            "antigravity",
            "cursor",
            "droid",
            "kimi",
        ] {
            let b = build_with(
                &["--agent", a, "--reply", "vults", "PermissionRequest"],
                BASH,
                &[],
            );
            assert!(matches!(b, Built::Refused(_)), "{a}: {b:?}");
        }
        assert!(
            HookArgs::parse(["--agent", "x", "--reply", "json", "E"].map(String::from)).is_err()
        );
    }

    #[test]
    fn statusline_sends_only_cost_limits_and_session() {
        let input = json!({
            "session_id": "s", "cwd": "/secret/path", "model": {"id": "m"}, "transcript_path": "/t",
            "cost": {"total_cost_usd": 1.5, "total_duration_ms": 9},
            "rate_limits": {"five_hour": {"used_percentage": 23.5, "resets_at": 1738425600}}
        });
        let e = build(&["--agent", "claude", "--statusline"], &input.to_string());
        assert_eq!(e.event, "StatusLine");
        assert!(!e.wants_reply);
        assert_eq!(
            e.payload,
            json!({"session_id":"s","rate_limits":{"five_hour":{"used_percentage":23.5,"resets_at":1738425600}},"cost":{"total_cost_usd":1.5}})
        );
        assert_eq!(
            build_with(
                &["--agent", "claude", "--statusline"],
                r#"{"session_id":"s","cwd":"/x"}"#,
                &[]
            ),
            Built::Nothing
        );
    }

    #[test]
    fn bom_and_empty_stdin() {
        let e = build(
            &["--agent", "claude", "Stop"],
            "\u{feff}{\"session_id\":\"b\"}",
        );
        assert_eq!(e.payload["session_id"], "b");
        let e = build(&["--agent", "claude", "Stop"], "");
        assert_eq!(e.payload, json!({}));
        assert!(matches!(
            build_with(&["--agent", "claude", "Stop"], "[1]", &[]),
            Built::Refused(_)
        ));
        assert!(matches!(
            build_with(&["--agent", "claude", "Stop"], "{nope", &[]),
            Built::Refused(_)
        ));
    }

    #[test]
    fn messages_round_trip_as_one_line() {
        let msgs = [
            Message::waiting("a"),
            Message::decision("a", Decision::Allow),
            Message::decision("a", Decision::Deny),
            Message::answer(
                "a",
                vec![
                    AnswerItem::One("Blue".into()),
                    AnswerItem::Many(vec!["S".into(), "M".into()]),
                ],
            ),
            Message::unsupported("a"),
        ];
        for m in msgs {
            let line = m.to_line();
            assert!(line.ends_with('\n') && line.matches('\n').count() == 1);
            assert_eq!(read_line(line.trim_end().as_bytes()), ReadLine::Message(m));
        }
        assert_eq!(
            Message::answer(
                "a",
                vec![
                    AnswerItem::One("Blue".into()),
                    AnswerItem::Many(vec!["S".into(), "M".into()])
                ]
            )
            .to_line(),
            format!(
                "{{\"kind\":\"answer\",\"v\":{VERSION},\"id\":\"a\",\"answers\":[\"Blue\",[\"S\",\"M\"]]}}\n"
            )
        );
    }

    #[test]
    fn a_line_reads_as_it_did_through_a_value() {
        // read_line builds the event straight from the bytes: it must read every line as
        // reading it into a Value and from there into the tagged Message did.
        let lines = [
            format!(
                r#"{{"kind":"event","v":{VERSION},"id":"e1","agent":"claude","event":"PostToolUse","wants_reply":false,"terminal":{{"cwd":"/p","pid":7,"env":{{"TMUX":"/t,1,0"}}}},"payload":{{"session_id":"s","n":1.5,"big":18446744073709551615,"neg":-3,"tool_response":{{"structuredPatch":[{{"lines":["+a"b\u00e9"]}}]}}}}}}"#
            ),
            format!(
                r#"{{"payload":{{"tool_name":"Bash"}},"wants_reply":true,"event":"PermissionRequest","agent":"other","agent_name":"my-tool","reply":"vults","too_large":{{"bytes":9}},"id":"e2","v":{VERSION},"kind":"event"}}"#
            ),
            format!(r#"{{"kind":"waiting","v":{VERSION},"id":"w"}}"#),
            format!(r#"{{"kind":"nope","v":{VERSION},"id":"x"}}"#),
            format!(r#"{{"kind":"event","v":{VERSION},"id":"e3","agent":"claude"}}"#),
            format!(
                r#"{{"kind":"event","v":{VERSION},"id":"e4","agent":"claude","agent_name":"Bad Name","event":"X","wants_reply":false}}"#
            ),
        ];
        for line in &lines {
            let through_value = match serde_json::from_slice::<Value>(line.as_bytes())
                .map(serde_json::from_value::<Message>)
            {
                Ok(Ok(Message::Event(mut e))) => {
                    if !e.wants_reply
                        && let Some(p) = e.payload.as_object_mut()
                    {
                        p.remove("tool_response");
                    }
                    Some(Message::Event(e))
                }
                Ok(Ok(m)) => Some(m),
                _ => None,
            };
            match (read_line(line.as_bytes()), through_value) {
                (ReadLine::Message(m), Some(v)) => assert_eq!(m, v, "{line}"),
                (ReadLine::Malformed(_), None) => {}
                (got, v) => panic!("{line}: read {got:?}, through a Value {v:?}"),
            }
        }
        // The tool's response is left out of an event that waits for no reply, and only there.
        let response = |wants_reply: bool| {
            let line = format!(
                r#"{{"kind":"event","v":{VERSION},"id":"r","agent":"other","agent_name":"t","event":"Ask","wants_reply":{wants_reply},"payload":{{"a":1,"tool_response":{{"error":"boom"}}}}}}"#
            );
            match read_line(line.as_bytes()) {
                ReadLine::Message(Message::Event(e)) => e.payload,
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(response(false), serde_json::json!({"a": 1}));
        assert_eq!(
            response(true),
            serde_json::json!({"a": 1, "tool_response": {"error": "boom"}})
        );
    }

    #[test]
    fn an_event_read_in_one_pass_reads_as_in_two() {
        // Lines the one pass takes, and lines that look like it but must not be taken (another
        // `kind`, one spelled with an escape, a second `v`, another version, a payload before
        // `wants_reply`): read_line reads each as the two passes do.
        let event = |rest: &str| format!(r#"{{"kind":"event","v":{VERSION},{rest}}}"#);
        let lines = [
            event(
                r#""id":"a","agent":"claude","event":"PostToolUse","wants_reply":false,"payload":{"x":1,"tool_response":{"structuredPatch":[{"lines":["+a"]}]},"y":2}"#,
            ),
            event(
                r#""id":"b","agent":"claude","event":"PermissionRequest","wants_reply":true,"payload":{"tool_response":{"error":"e"},"tool_name":"Bash"}"#,
            ),
            event(
                r#""id":"c","agent":"claude","event":"Stop","payload":{"a":1,"tool_response":{"s":"t"},"z":3},"wants_reply":false"#,
            ),
            event(
                r#""id":"d","agent":"claude","event":"Stop","payload":{"tool_response":1},"wants_reply":true"#,
            ),
            event(
                r#""id":"e","agent":"claude","event":"Stop","wants_reply":false,"kind":"answer","answers":[]"#,
            ),
            event(
                r#""id":"f","agent":"claude","event":"Stop","wants_reply":false,"\u006bind":"waiting""#,
            ),
            event(r#""id":"g","agent":"claude","event":"Stop","wants_reply":false,"v":8"#),
            event(
                r#""id":"h","agent":"claude","event":"Stop","wants_reply":true,"wants_reply":false"#,
            ),
            event(r#""id":"i","agent":"claude","event":"Stop","wants_reply":"yes""#),
            event(r#""id":"j","agent":"claude","event":"Stop""#),
            event(
                r#""id":"k","agent":"claude","event":"Stop","wants_reply":false,"payload":{"s":"\u00e9 \"kind\""}"#,
            ),
            event(r#""id":"l","agent":"claude","event":"Stop","wants_reply":false} trailing"#),
            r#"{"kind":"event","v":8,"id":"m","agent":"claude","event":"Stop","wants_reply":false}"#
                .to_string(),
            format!(
                r#"{{"kind":"event","v":{VERSION},"v":{VERSION},"id":"n","agent":"claude","event":"Stop","wants_reply":false}}"#
            ),
            format!(r#"{{"kind":"waiting","v":{VERSION},"id":"w"}}"#),
        ];
        let one_pass = lines
            .iter()
            .filter(|l| read_event_in_one_pass(l.as_bytes()).is_some())
            .count();
        assert_eq!(one_pass, 4, "the first four are the hook's own lines");
        for line in &lines {
            assert_eq!(
                read_line(line.as_bytes()),
                read_line_in_two_passes(line.as_bytes()),
                "{line}"
            );
        }
        // What the one pass read: the response only where a reply is waited for, and the
        // payload's other keys in their order.
        let ReadLine::Message(Message::Event(c)) = read_line(lines[2].as_bytes()) else {
            panic!()
        };
        assert_eq!(
            serde_json::to_string(&c.payload).unwrap(),
            r#"{"a":1,"z":3}"#
        );
        let ReadLine::Message(Message::Event(b)) = read_line(lines[1].as_bytes()) else {
            panic!()
        };
        assert_eq!(
            b.payload["tool_response"],
            serde_json::json!({"error": "e"})
        );
        // The read leaves nothing behind for the next one.
        let kept: Event = serde_json::from_str(&format!(
            r#"{{"v":{VERSION},"id":"x","agent":"claude","event":"Stop","wants_reply":false,"payload":{{"tool_response":1}}}}"#
        ))
        .unwrap();
        assert_eq!(kept.payload["tool_response"], 1);
    }

    #[test]
    fn the_head_is_read_whatever_its_place_and_type() {
        // `id` and `v` anywhere in the object, the body not read for another version.
        assert_eq!(
            read_line(br#"{"payload":{"v":9,"id":"inner"},"id":"late","kind":"event","v":8}"#),
            ReadLine::OtherVersion {
                id: "late".into(),
                v: Some(8)
            }
        );
        // A version that is not an unsigned integer is none; an id that is not a string is "".
        assert_eq!(
            read_line(br#"{"kind":"event","v":"9","id":7}"#),
            ReadLine::OtherVersion {
                id: String::new(),
                v: None
            }
        );
        assert_eq!(
            read_line(br#"{"kind":"event","v":9.0,"id":"f"}"#),
            ReadLine::OtherVersion {
                id: "f".into(),
                v: None
            }
        );
        for bad in [
            &br#"[1,2]"#[..],
            br#""event""#,
            br#"{"kind":7,"v":9,"id":"a"}"#,
            br#"{"kind":"event","v":9,"id":"a"} trailing"#,
            br#"{"kind":"event","v":9,"id":"a""#,
        ] {
            assert!(
                matches!(read_line(bad), ReadLine::Malformed(_)),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn another_version_is_recognised_before_parsing_the_body() {
        let v8 = r#"{"kind":"event","v":8,"id":"old-1","agent":"gemini","event":"X"}"#;
        assert_eq!(
            read_line(v8.as_bytes()),
            ReadLine::OtherVersion {
                id: "old-1".into(),
                v: Some(8)
            }
        );
        assert!(matches!(read_line(b"not json"), ReadLine::Malformed(_)));
        assert!(matches!(
            read_line(format!("{{\"v\":{VERSION}}}").as_bytes()),
            ReadLine::Malformed(_)
        ));
    }
}
