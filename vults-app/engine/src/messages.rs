//! What the engine tells the window, and what the window asks of the engine.
//!
//! The engine (socket server, decisions, rules, audit) runs as tasks on the app's runtime; the
//! window never does I/O. They talk only through these types: the engine publishes
//! [`EngineEvent`]s to every subscriber ([`crate::Subscription`], shared as `Arc`s) and wakes
//! the ones that asked; the window drains its subscription once per frame (in `logic`) into its
//! model (`vults_ui::state::Model`) and sends [`EngineCommand`]s back. The phone link and the
//! notifier read subscriptions of their own, and the phone feeds answers through the same
//! commands.

use std::time::SystemTime;
use vults_core::agents::ToolCall;
use vults_core::decision::Why;
use vults_core::protocol::{AgentKind, AnswerItem, Identity};
use vults_core::rules::AlwaysRule;

/// A pending card's id, unique for the app's run.
pub type CardId = u64;

/// A session is keyed by identity + the agent's session id (or `pid:<pid>@<cwd>` as stand-in).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionKey {
    /// Which agent it is: [`Identity::key`] (`claude`, `codex`, a named tool's own name; `other`
    /// for a tool that gave no name).
    pub identity: String,
    /// The agent's own session id, or `pid:<pid>@<cwd>` when the agent sends none.
    pub session: String,
}

/// What a session is doing, from its agent's own events (docs/other-agents.md, "When an agent
/// waits for the person"). Three of them wait for the person ([`SessionState::waits_for_you`]):
/// the window sorts those birds first and the island counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionState {
    /// The agent is at work: it ran a tool or took a prompt since it last stopped.
    Working,
    /// A card is up for it.
    WaitingForYou,
    /// Its turn ended (`Stop`, Copilot's `agentStop`, Claude Code's `StopFailure`, an
    /// `idle_prompt` notice): done, waiting for the person at its prompt — "done — waiting for
    /// you". Until its next turn starts.
    Done,
    /// It asks in its own terminal, with no card here: a `Notification` `permission_prompt`
    /// (Claude Code, Copilot CLI, Qwen Code) while no card is up, or a call too large for a card
    /// ([`Session::in_terminal`]) — "asks in its terminal". Until its next event.
    AsksInTerminal,
    /// Known, but no turn of it seen yet (only a status line, say).
    Idle,
    /// The agent said its session ended; the bird leaves the flock soon after.
    Ended,
}

impl SessionState {
    /// Whether the session waits for the person: a card is up, its turn is done, or it asks in
    /// its own terminal.
    pub fn waits_for_you(self) -> bool {
        matches!(
            self,
            SessionState::WaitingForYou | SessionState::Done | SessionState::AsksInTerminal
        )
    }
}

/// One window of the plan's rate limits, from Claude Code's status line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateWindow {
    /// How much of the window is used, 0 to 100.
    pub used_percentage: f64,
    /// Unix seconds.
    pub resets_at: Option<u64>,
}

/// A bird of the flock.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// Which session this is: the key every event of it carries.
    pub key: SessionKey,
    /// The agent the rules know it as; `None` for an `other` tool that gave no name.
    pub identity: Option<Identity>,
    /// The agent's kind (`Other` for a named tool).
    pub agent: AgentKind,
    /// The tool's name for `other` agents (named tools, cursor …).
    pub agent_name: Option<String>,
    /// The folder the agent works in (`host:/path` for one on an SSH host).
    pub folder: String,
    /// What the agent is doing now.
    pub state: SessionState,
    /// The last tool it called.
    pub last_tool: Option<String>,
    /// A short summary of the last tool's target (the command, the file).
    pub last_target: Option<String>,
    /// What the session has cost so far, in US dollars, from Claude Code's status line.
    pub cost_usd: Option<f64>,
    /// The five-hour rate-limit window, from Claude Code's status line.
    pub five_hour: Option<RateWindow>,
    /// The seven-day rate-limit window, from Claude Code's status line.
    pub seven_day: Option<RateWindow>,
    /// `VULTS_TASK` of the terminal that started it.
    pub task: Option<String>,
    /// The agent asks its own terminal about a call too large for a card ("Write of 2.7 KB is
    /// too large to show", [`TooLarge::text`]), until the session's next event.
    pub in_terminal: Option<String>,
    /// Where its agent runs, as its latest event said: what "Show terminal" starts from.
    /// `None` until an event with a `terminal` block arrives.
    pub terminal: Option<SessionTerminal>,
    /// When the engine first heard of the session.
    pub started: SystemTime,
    /// When the session's last event arrived: a session silent too long is forgotten.
    pub last_event: SystemTime,
}

/// Where a session's agent runs, from its latest event: the `terminal` block the hook sent
/// (the agent's pid, its folder and the variables that name a terminal and multiplexer pane),
/// the SSH host the event came over, and when it arrived. The window builds
/// `vults_terminal::Place` from it; nothing here is run or looked up.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionTerminal {
    /// The event's `terminal` block as the hook sent it (an SSH host's cwd is `host:/path`).
    pub block: vults_core::protocol::Terminal,
    /// The SSH host whose link the event came over (as Vults names it, the `host` of
    /// `host:/path`); `None` for this computer.
    pub host: Option<String>,
    /// When that event arrived: a process with the agent's pid that started later is not it.
    pub seen: SystemTime,
}

/// A permission request the hook had to cut to fit the wire (docs/hook-protocol.md §3): no
/// card could show all an Allow would authorise, so the agent asks in its own terminal. The
/// engine tells the window ([`EngineEvent::TooLarge`]): the bird says so, History has a line,
/// and a notification can say it too.
#[derive(Debug, Clone, PartialEq)]
pub struct TooLarge {
    /// The session whose call it was.
    pub session: SessionKey,
    /// The agent that made the call.
    pub identity: Identity,
    /// The folder the agent works in.
    pub folder: String,
    /// The tool as the agent names it.
    pub tool: String,
    /// How much of the tool's input the hook cut (`too_large.bytes` on the wire).
    pub bytes: u64,
    /// When the hook handed it over.
    pub at: SystemTime,
}

impl TooLarge {
    /// "Write of 2.7 KB is too large to show".
    pub fn text(&self) -> String {
        format!(
            "{} of {} is too large to show",
            vults_core::text::reveal(&self.tool).text,
            size_text(self.bytes)
        )
    }
}

/// A size as people read it: "950 bytes", "2.7 KB", "10 KB", "3.1 MB" (decimal units).
pub fn size_text(bytes: u64) -> String {
    let kb = bytes as f64 / 1000.0;
    let one = |v: f64, unit: &str| {
        if v < 9.95 {
            format!("{v:.1} {unit}")
        } else {
            format!("{v:.0} {unit}")
        }
    };
    match bytes {
        0..1000 => format!("{bytes} bytes"),
        1000..1_000_000 => one(kb, "KB"),
        _ => one(kb / 1000.0, "MB"),
    }
}

/// A request waiting for a person.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingCard {
    /// Unique for the app's run: the window and the phone answer it by this id.
    pub id: CardId,
    /// The agent's kind (`Other` for a named tool).
    pub agent: AgentKind,
    /// The agent as it named itself: what the card's header says.
    pub identity: Identity,
    /// The session that asks: its bird shows it waiting.
    pub session: SessionKey,
    /// The folder the agent works in (`host:/path` for one on an SSH host).
    pub folder: String,
    /// The tool and its whole target, as the agent sent it.
    pub call: ToolCall,
    /// Set when the call is destructive: what made it so. Such a card has no Always.
    pub destructive: Option<String>,
    /// Why a person is asked.
    pub reason: Reason,
    /// The rule "Always allow" (its key Shift+A, the phone's Always) creates — the narrowest
    /// offered: for an edit or a write of a file, this exact change ([`Scope::Exact`]);
    /// otherwise the call's whole target. `None` for destructive calls and questions. The card
    /// says what it answers in its own words ([`AlwaysRule::words`]).
    ///
    /// [`Scope::Exact`]: vults_core::rules::Scope::Exact
    pub always_rule: Option<AlwaysRule>,
    /// For an edit or a write of a file, the broader rule also offered: the file, any change
    /// to it ([`vults_core::rules::Scope::Target`]). `None` for every other card. Boxed: most
    /// cards have none, and the event that carries a card stays small.
    pub file_rule: Option<Box<AlwaysRule>>,
    /// An AskUserQuestion: answered with [`CardAnswer::Answers`].
    pub question: bool,
    /// When the request reached the engine.
    pub arrived: SystemTime,
    /// What the engine read for the card beyond the tool call (the agent's own words, the file
    /// as it is now); the window never does I/O. Boxed: most cards carry little of it.
    pub context: Box<CardContext>,
}

/// Cards for tests across the crates (the `test-support` feature).
#[cfg(any(test, feature = "test-support"))]
impl PendingCard {
    /// A Claude Code Bash card asking for `target` in session `session` of `folder`, with no
    /// rule offered.
    pub fn sample(
        id: CardId,
        session: &str,
        folder: &str,
        target: vults_core::agents::Target,
        destructive: Option<&str>,
    ) -> PendingCard {
        PendingCard {
            id,
            agent: AgentKind::Claude,
            identity: Identity::Builtin(AgentKind::Claude),
            session: SessionKey {
                identity: "claude".into(),
                session: session.into(),
            },
            folder: folder.into(),
            call: ToolCall {
                tool: "Bash".into(),
                target,
                ..vults_core::agents::read_tool_call(&serde_json::json!({"tool_name": "Bash"}))
            },
            destructive: destructive.map(Into::into),
            reason: Reason::NoRule,
            always_rule: None,
            file_rule: None,
            question: false,
            arrived: SystemTime::UNIX_EPOCH,
            context: Default::default(),
        }
    }
}

impl PendingCard {
    /// The plan, when the card is a plan review ([`CardContext::plan`]).
    pub fn plan(&self) -> Option<&str> {
        self.context.plan.as_deref()
    }

    /// Whether any text the card shows — the folder, the tool, the whole target, the agent's words,
    /// each edit — has a hidden character.
    pub fn has_hidden_characters(&self) -> bool {
        fn strings(v: &serde_json::Value, found: &mut bool) {
            match v {
                serde_json::Value::String(s) => {
                    *found |= vults_core::text::any_hidden([s.as_str()])
                }
                serde_json::Value::Array(a) => a.iter().for_each(|v| strings(v, found)),
                serde_json::Value::Object(m) => m.values().for_each(|v| strings(v, found)),
                _ => {}
            }
        }
        let mut found = vults_core::text::any_hidden(
            [self.folder.as_str(), self.call.tool.as_str()]
                .into_iter()
                .chain(self.context.said.as_deref())
                .chain(
                    self.context
                        .edits
                        .iter()
                        .flat_map(|e| [e.old.as_str(), e.new.as_str()]),
                ),
        );
        if let Ok(target) = serde_json::to_value(&self.call.target) {
            strings(&target, &mut found);
        }
        if let vults_core::agents::Target::Input { json }
        | vults_core::agents::Target::Mcp { input: json, .. } = &self.call.target
            && let Ok(input) = serde_json::from_str::<serde_json::Value>(json)
        {
            strings(&input, &mut found);
        }
        found
    }
}

/// Why a card asks a person: the decision point's [`Why`] as a card says it. Its text (shown in
/// the headless log and sent to the phone as `reason`) is `destructive: <what>`,
/// `policy <name>`, `rule <id>`, `no rule` or `a question for you`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// A destructive call: what made it so ("rm -r", "git push --force" …).
    Destructive(String),
    /// The policy of this name sent it to a card.
    Policy(String),
    /// The Always rule of this id (decide() never asks for a rule; kept so every [`Why`] maps).
    Rule(String),
    /// Nothing answered a permission: a person must.
    NoRule,
    /// A question nothing answered: only a person answers one.
    Question,
}

impl Reason {
    /// The reason for a card that `decide()` asked about for `why`; `question` says the card is
    /// an AskUserQuestion.
    pub fn new(why: &Why, question: bool) -> Reason {
        match why {
            Why::Destructive(what) => Reason::Destructive(what.clone()),
            Why::Policy(name) => Reason::Policy(name.clone()),
            Why::Rule(id) => Reason::Rule(id.clone()),
            Why::NoMatch if question => Reason::Question,
            Why::NoMatch => Reason::NoRule,
        }
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reason::Destructive(what) => write!(f, "destructive: {what}"),
            Reason::Policy(name) => write!(f, "policy {name}"),
            Reason::Rule(id) => write!(f, "rule {id}"),
            Reason::NoRule => f.write_str("no rule"),
            Reason::Question => f.write_str("a question for you"),
        }
    }
}

/// What a card shows besides the exact target: read by the engine when the card is made.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CardContext {
    /// The agent's own words about the call (Claude Code's Bash `description`, Codex's
    /// `justification`): shown above the exact target, never instead of it.
    pub said: Option<String>,
    /// Every edit of an Edit or MultiEdit, in order, as the agent sent it.
    pub edits: Vec<EditPair>,
    /// The files the call edits, writes over or patches, as they are now: path as the agent
    /// wrote it → text. Only regular, readable UTF-8 files up to [`MAX_BEFORE`] bytes.
    pub before: Vec<(String, String)>,
    /// The files the call writes that do not exist yet (path as the agent wrote it): a Write
    /// of one is a new file. A file that exists but could not be read is in neither list.
    pub missing: Vec<String>,
    /// A plan review ([`vults_core::agents::plan_review`]: Claude Code asks to leave plan mode):
    /// the plan, markdown, as the agent sent it. Such a card is a plan card: the plan drawn,
    /// "Approve" ([`CardAnswer::Allow`]) and "Keep planning" ([`CardAnswer::DenyWith`] the
    /// person's feedback, or [`CardAnswer::Deny`]); it offers no Always.
    pub plan: Option<String>,
}

/// The most of a file the engine reads to show a diff against it.
pub const MAX_BEFORE: u64 = 512 * 1024;

/// One replacement of an Edit or MultiEdit.
#[derive(Debug, Clone, PartialEq)]
pub struct EditPair {
    /// The text the edit replaces.
    pub old: String,
    /// The text it puts in its place.
    pub new: String,
    /// Every occurrence is replaced, not only the first.
    pub replace_all: bool,
}

impl CardContext {
    /// Whether the engine found that `path` does not exist yet.
    pub fn is_missing(&self, path: &str) -> bool {
        self.missing.iter().any(|p| p == path)
    }

    /// The text of `path` as it is now, when the engine could read it.
    pub fn before(&self, path: &str) -> Option<&str> {
        self.before
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, t)| t.as_str())
    }
}

/// An answer to a card.
#[derive(Debug, Clone, PartialEq)]
pub enum CardAnswer {
    /// Let the call run, this once.
    Allow,
    /// Refuse the call, this once: the agent is told "Denied from Vults".
    Deny,
    /// Deny, telling the agent these words instead of "Denied from Vults": a plan's "Keep
    /// planning" feedback, which the model reads and revises its plan by. Cleaned and bounded
    /// before it leaves ([`vults_core::answer::clean_feedback`]); nothing left is a plain deny.
    DenyWith(String),
    /// Allow, and create the card's [`PendingCard::always_rule`].
    AlwaysAllow,
    /// Allow, and create the card's [`PendingCard::file_rule`]: any change to the file.
    AlwaysAllowFile,
    /// One entry per question, in order.
    Answers(Vec<AnswerItem>),
}

/// Who answered — written to the audit as its `by` text ([`AnsweredBy::label`]), and read
/// back from it with [`AnsweredBy::parse`]: every text round-trips exactly.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(into = "String", from = "String")]
pub enum AnsweredBy {
    /// A click in the window.
    Click,
    /// A paired phone: `<device name> (<device id>)` (see `phone::Device::label`).
    Phone(String),
    /// A request that claims to come from a phone but is not from a paired device (`phone:unknown`):
    /// only ever the `by` of a refusal.
    UnknownPhone,
    /// An Always rule answered: its id.
    Rule(String),
    /// A policy answered: its name.
    Policy(String),
    /// The hook went away: the agent asked in its terminal, or gave up.
    Withdrawn,
    /// The person answered in the agent's own terminal dialog: the same session's next event
    /// (the call ran, or the agent moved on) showed it, and the card was withdrawn.
    Terminal,
    /// The person pressed Allow or Deny on the card's desktop notification (offered only for a
    /// call that is not destructive and whose whole target the notification showed).
    Notification,
    /// The person answered with a card's own key (A, D, Shift+A, Enter on a question or a plan)
    /// on the card that takes the keys, in Vults' window.
    Key,
    /// The person answered with a global key (Settings → Notifications & keys), from wherever
    /// the keyboard was, after a first press had brought the card up (never a destructive
    /// card's Allow). Audited apart from [`AnsweredBy::Key`] (`key:global`): the window need
    /// not have had the keyboard.
    GlobalKey,
    /// A `by` this version does not write (an older app's line in the audit file), kept as it
    /// was written.
    Other(String),
}

impl AnsweredBy {
    /// The audit's `by` text: `click`, `phone:<device>`, `phone:unknown`, `rule:<id>`,
    /// `policy:<name>`, `withdrawn`, `terminal`, `notification`, `key`, `key:global`.
    pub fn label(&self) -> String {
        match self {
            AnsweredBy::Click => "click".into(),
            AnsweredBy::Phone(d) => format!("phone:{d}"),
            AnsweredBy::UnknownPhone => "phone:unknown".into(),
            AnsweredBy::Rule(id) => format!("rule:{id}"),
            AnsweredBy::Policy(name) => format!("policy:{name}"),
            AnsweredBy::Withdrawn => "withdrawn".into(),
            AnsweredBy::Terminal => "terminal".into(),
            AnsweredBy::Notification => "notification".into(),
            AnsweredBy::Key => "key".into(),
            AnsweredBy::GlobalKey => "key:global".into(),
            AnsweredBy::Other(text) => text.clone(),
        }
    }

    /// Reads an audit `by` text back; any text comes back as the same text from [`Self::label`].
    pub fn parse(text: &str) -> AnsweredBy {
        match text {
            "click" => return AnsweredBy::Click,
            "phone:unknown" => return AnsweredBy::UnknownPhone,
            "withdrawn" => return AnsweredBy::Withdrawn,
            "terminal" => return AnsweredBy::Terminal,
            "notification" => return AnsweredBy::Notification,
            "key" => return AnsweredBy::Key,
            "key:global" => return AnsweredBy::GlobalKey,
            _ => {}
        }
        if let Some(device) = text.strip_prefix("phone:") {
            AnsweredBy::Phone(device.into())
        } else if let Some(id) = text.strip_prefix("rule:") {
            AnsweredBy::Rule(id.into())
        } else if let Some(name) = text.strip_prefix("policy:") {
            AnsweredBy::Policy(name.into())
        } else {
            AnsweredBy::Other(text.into())
        }
    }

    /// What History filters on: `click`, `phone`, `rule`, `policy`, `withdrawn`, `terminal`,
    /// `notification`, `key` (a card's key or a global one), or for an older line the part of
    /// its text before any `:`.
    pub fn kind(&self) -> &str {
        match self {
            AnsweredBy::Click => "click",
            AnsweredBy::Phone(_) | AnsweredBy::UnknownPhone => "phone",
            AnsweredBy::Rule(_) => "rule",
            AnsweredBy::Policy(_) => "policy",
            AnsweredBy::Withdrawn => "withdrawn",
            AnsweredBy::Terminal => "terminal",
            AnsweredBy::Notification => "notification",
            AnsweredBy::Key | AnsweredBy::GlobalKey => "key",
            AnsweredBy::Other(text) => text.split(':').next().unwrap_or_default(),
        }
    }

    /// Who answered in a person's words, after the verb ("allowed …", "denied …"): "by you",
    /// "by you, with a key on its card", "by you, with a global key", "on your phone (Ana)",
    /// "by an Always rule" (its id is a hash: History shows it on hover)… The one wording
    /// History and Zeca's chat show; what came from outside (a device's or a policy's name, an
    /// older line's text) is shown through the card's rule ([`vults_core::text::reveal`]).
    pub fn words(&self) -> String {
        let shown = |text: &str| vults_core::text::reveal(text).text.into_owned();
        match self {
            AnsweredBy::Click => "by you".into(),
            AnsweredBy::Key => "by you, with a key on its card".into(),
            AnsweredBy::GlobalKey => "by you, with a global key".into(),
            AnsweredBy::Notification => "by you, from its notification".into(),
            AnsweredBy::Phone(device) => format!("on your phone ({})", shown(device)),
            AnsweredBy::UnknownPhone => "by an unknown phone".into(),
            AnsweredBy::Rule(_) => "by an Always rule".into(),
            AnsweredBy::Policy(name) => format!("by policy {}", shown(name)),
            AnsweredBy::Withdrawn => "by nobody (the agent stopped waiting)".into(),
            AnsweredBy::Terminal => "in the agent's terminal".into(),
            AnsweredBy::Other(text) => format!("by {}", shown(text)),
        }
    }
}

impl std::fmt::Display for AnsweredBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label())
    }
}

impl From<AnsweredBy> for String {
    fn from(by: AnsweredBy) -> String {
        by.label()
    }
}

impl From<String> for AnsweredBy {
    fn from(text: String) -> AnsweredBy {
        AnsweredBy::parse(&text)
    }
}

impl From<&str> for AnsweredBy {
    fn from(text: &str) -> AnsweredBy {
        AnsweredBy::parse(text)
    }
}

/// Compares the audit text.
impl PartialEq<&str> for AnsweredBy {
    fn eq(&self, text: &&str) -> bool {
        self.label() == *text
    }
}

/// Compares the audit text.
impl PartialEq<String> for AnsweredBy {
    fn eq(&self, text: &String) -> bool {
        self.label() == *text
    }
}

/// What became of a request, as an audit line's `decision` says it ([`Outcome::as_str`]), and
/// read back from it ([`Outcome::parse`]): every word round-trips exactly.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(into = "String", from = "String")]
pub enum Outcome {
    /// `allow`: allowed (by a click, a phone, a rule, a policy, or the call ran after the
    /// person allowed it in the agent's own terminal).
    Allow,
    /// `deny`: denied.
    Deny,
    /// `answer`: a question answered; `detail` holds the answers.
    Answer,
    /// `withdrawn`: the card came down because its hook went away, or the app quit.
    Withdrawn,
    /// `answered`: answered in the agent's own terminal, the answer not known (the call ended,
    /// or the agent moved on).
    Answered,
    /// `refused`: a phone answer (or pairing) that failed a check; it answered nothing.
    Refused,
    /// `undelivered`: an answer the hook was no longer there to read; `detail` says which.
    Undelivered,
    /// `too-large`: a request too large to show on a card (the hook cut it to fit the wire, so
    /// it waited for no reply); the agent asks in its own terminal.
    TooLarge,
    /// `paused`: cards were paused, so no card came up and the agent asked in its own terminal.
    Paused,
    /// A word this version does not write (an older app's line), kept as it was written.
    Other(String),
}

impl Outcome {
    /// The audit's `decision` word.
    pub fn as_str(&self) -> &str {
        match self {
            Outcome::Allow => "allow",
            Outcome::Deny => "deny",
            Outcome::Answer => "answer",
            Outcome::Withdrawn => "withdrawn",
            Outcome::Answered => "answered",
            Outcome::Refused => "refused",
            Outcome::Undelivered => "undelivered",
            Outcome::TooLarge => "too-large",
            Outcome::Paused => "paused",
            Outcome::Other(word) => word,
        }
    }

    /// Reads a `decision` word back; any word comes back as the same word from [`Self::as_str`].
    pub fn parse(word: &str) -> Outcome {
        match word {
            "allow" => Outcome::Allow,
            "deny" => Outcome::Deny,
            "answer" => Outcome::Answer,
            "withdrawn" => Outcome::Withdrawn,
            "answered" => Outcome::Answered,
            "refused" => Outcome::Refused,
            "undelivered" => Outcome::Undelivered,
            "too-large" => Outcome::TooLarge,
            "paused" => Outcome::Paused,
            other => Outcome::Other(other.to_string()),
        }
    }
}

impl From<vults_core::protocol::Decision> for Outcome {
    fn from(d: vults_core::protocol::Decision) -> Outcome {
        match d {
            vults_core::protocol::Decision::Allow => Outcome::Allow,
            vults_core::protocol::Decision::Deny => Outcome::Deny,
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<Outcome> for String {
    fn from(o: Outcome) -> String {
        o.as_str().to_string()
    }
}

impl From<String> for Outcome {
    fn from(word: String) -> Outcome {
        Outcome::parse(&word)
    }
}

/// Compares the audit word.
impl PartialEq<&str> for Outcome {
    fn eq(&self, word: &&str) -> bool {
        self.as_str() == *word
    }
}

/// Compares the audit word.
impl PartialEq<str> for Outcome {
    fn eq(&self, word: &str) -> bool {
        self.as_str() == word
    }
}

/// One line of the audit log (`audit.jsonl`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AuditEntry {
    /// Unix milliseconds.
    pub time: u64,
    /// The agent as [`Identity::key`] says it.
    pub identity: String,
    /// The agent's session id (see [`SessionKey::session`]).
    pub session: String,
    /// The folder the agent works in (`host:/path` for one on an SSH host).
    pub folder: String,
    /// The SSH host the call was made on (docs/hosts.md); absent for this machine. `folder`
    /// carries it too, as `host:/path`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The tool as the agent names it.
    pub tool: String,
    /// The call's whole target as rules match it ([`vults_core::agents::Target::rule_key`]).
    pub target: String,
    /// What became of the request ([`Outcome`]).
    pub decision: Outcome,
    /// Written as `click`, `phone:<name> (<device id>)` (or `phone:unknown`), `rule:<id>`,
    /// `policy:<name>`, `withdrawn`, `terminal`, `notification`, `key`, `key:global`.
    pub by: AnsweredBy,
    /// More about the answer when there is more to say: the rule an Always created, why a
    /// phone's answer was refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl AuditEntry {
    /// The one way a line is made: when, what was decided and by whom, about no call yet (a
    /// refusal of a request that names no card stays so); [`AuditEntry::about`] adds the call.
    pub fn new(time: u64, decision: Outcome, by: AnsweredBy, detail: Option<String>) -> AuditEntry {
        AuditEntry {
            time,
            identity: String::new(),
            session: String::new(),
            folder: String::new(),
            host: None,
            tool: String::new(),
            target: String::new(),
            decision,
            by,
            detail,
        }
    }

    /// The line about `call` of `identity`'s `session`, made in `folder`.
    pub fn about(
        mut self,
        identity: &Identity,
        session: &SessionKey,
        folder: &str,
        call: &ToolCall,
    ) -> AuditEntry {
        self.identity = identity.key().to_string();
        self.session = session.session.clone();
        self.folder = folder.to_string();
        self.host = vults_core::decision::host_of(folder).map(str::to_string);
        self.tool = call.tool.clone();
        self.target = call.target.rule_key();
        self
    }

    /// The line about `card`'s call.
    pub fn about_card(self, card: &PendingCard) -> AuditEntry {
        self.about(&card.identity, &card.session, &card.folder, &card.call)
    }
}

/// The policy file's state.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PolicyStatus {
    /// Where the policy file is (`policies.toml` in the Vults home).
    pub path: std::path::PathBuf,
    /// `line:column: message` of the last parse failure; the last good policies stay in force.
    pub error: Option<String>,
    /// How many policies are in force.
    pub count: usize,
    /// What [`vults_core::policy::PolicySet::warnings`] says of the policies in force: parts
    /// that parse but will not do what they seem to.
    pub warnings: Vec<String>,
}

/// A named tool that has asked for a card.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedTool {
    /// The name it gave on the hook's command line (`--name`).
    pub name: String,
    /// When it last asked.
    pub last_asked: SystemTime,
}

/// Something the engine tells the person in the window's bottom row (and the log): one variant
/// per case, with its data as arguments, so the window words it in its language. `Display` is
/// the English the log and `vults-app --headless`'s console print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// A line of the rules file was dropped when it was read.
    RuleDropped {
        /// The reader's word on that line.
        why: String,
    },
    /// The rules file could not be read at start.
    RulesNotLoaded {
        /// The reader's word.
        why: String,
    },
    /// What making Vults' own folders private did (tightened a file, or could not), as
    /// vults-core says it.
    Private(vults_core::paths::PrivateNote),
    /// [`EngineCommand::RemoveRule`] named a rule that is not there.
    NoSuchRule {
        /// The rule's id, as asked.
        rule: String,
    },
    /// An answer came for a card that no longer waits.
    CardGone {
        /// The card.
        card: CardId,
    },
    /// Answers came for a card that asks for a permission.
    NotAQuestion {
        /// The card.
        card: CardId,
    },
    /// An Always answer came for a card that offers none.
    NoAlways {
        /// The card.
        card: CardId,
    },
    /// A rule changed while the rules file is not overwritten (it could not be read at start).
    RulesKeptInMemory,
    /// The rules file could not be written.
    RulesNotSaved {
        /// The rules file.
        path: std::path::PathBuf,
        /// The system's word.
        error: String,
    },
    /// Something other than an event came on the hook socket.
    RefusedMessage {
        /// The message's type (`"answer"` …).
        kind: String,
    },
    /// A connection from another user's process.
    RefusedUser {
        /// The peer's user.
        uid: u32,
        /// The peer's process, when the system says.
        pid: Option<i32>,
        /// This app's user.
        me: u32,
    },
    /// A connection whose user the system does not say.
    RefusedUnknownUser,
    /// A connection whose credentials could not be read.
    RefusedUnreadable {
        /// The system's word.
        error: String,
    },
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Notice::RuleDropped { why } => write!(f, "a rule was dropped at load: {why}"),
            Notice::RulesNotLoaded { why } => write!(
                f,
                "Always rules not loaded: {why}. New rules will hold until Vults quits and the \
                 file will not be touched"
            ),
            Notice::Private(note) => write!(f, "{note}"),
            Notice::NoSuchRule { rule } => write!(f, "no Always rule {rule} to remove"),
            Notice::CardGone { card } => write!(
                f,
                "card {card} is no longer waiting (answered, or the agent went away)"
            ),
            Notice::NotAQuestion { card } => {
                write!(f, "card {card} asks for a permission, not for answers")
            }
            Notice::NoAlways { card } => write!(
                f,
                "card {card} has no Always (a destructive call or a question); answer it once"
            ),
            Notice::RulesKeptInMemory => f.write_str(
                "the rules file could not be read at start, so it is not overwritten; this \
                 change holds until Vults quits",
            ),
            Notice::RulesNotSaved { path, error } => write!(
                f,
                "cannot save the Always rules to {}: {error}",
                path.display()
            ),
            Notice::RefusedMessage { kind } => write!(
                f,
                "refused a \"{kind}\" message on the hook socket: only an event may come from \
                 there"
            ),
            Notice::RefusedUser { uid, pid, me } => write!(
                f,
                "refused a connection from uid {uid}{} (this app runs as uid {me})",
                pid.map(|p| format!(" (pid {p})")).unwrap_or_default()
            ),
            Notice::RefusedUnknownUser => {
                f.write_str("refused a connection whose user cannot be read")
            }
            Notice::RefusedUnreadable { error } => write!(
                f,
                "refused a connection whose credentials cannot be read: {error}"
            ),
        }
    }
}

/// Engine → window.
// A card is the event that matters, moved through the channel one at a time; boxing it would
// only add noise to every match on the window's, the phone's and the tests' side.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum EngineEvent {
    /// A request now waits for a person: draw its card.
    CardAdded(PendingCard),
    /// A card is no longer waiting: answered, or withdrawn when its hook went away.
    CardRemoved {
        /// The card that was answered.
        id: CardId,
        /// Who answered it.
        by: AnsweredBy,
    },
    /// A session is new or changed: redraw its bird.
    SessionChanged(Session),
    /// A session ended (or went silent too long): its bird leaves.
    SessionGone(SessionKey),
    /// The Always rules now in force, all of them (at start and after every change).
    Rules(Vec<AlwaysRule>),
    /// The policy file was read (at start, and on every reload).
    Policies(PolicyStatus),
    /// New audit lines (at start: the tail of the log, oldest first).
    Audited(Vec<AuditEntry>),
    /// A named tool asked for a card: Settings → Agents lists it.
    NamedToolSeen(NamedTool),
    /// A request too large for a card: its agent asks in its terminal (the bird and History
    /// say so already; this is the moment to tell the person).
    TooLarge(TooLarge),
    /// A line for the status bar / log (a refused connection, a failed write …).
    Notice(Notice),
    /// The page of History that [`EngineCommand::ReadHistory`] asked for.
    HistoryPage(AuditPage),
}

/// Window (or phone) → engine.
#[derive(Debug, Clone, PartialEq)]
pub enum EngineCommand {
    /// Answer a waiting card.
    Answer {
        /// The card to answer.
        card: CardId,
        /// The answer.
        answer: CardAnswer,
        /// Who answered, as the audit will say it.
        by: AnsweredBy,
    },
    /// Delete the Always rule of this id.
    RemoveRule(String),
    /// Read the policy file again.
    ReloadPolicies,
    /// Pause cards: while paused, requests are left to the agent's own prompt.
    SetPaused(bool),
    /// Whether someone can answer cards from now on ([`crate::EngineOptions::interactive`]):
    /// the headless app turns it on while a paired phone can reach it.
    SetInteractive(bool),
    /// An audit line from another part of the app (a phone answer the phone link refused):
    /// the engine appends it with its own and shows it in History at once. It answers nothing.
    Record(AuditEntry),
    /// Read a page of the audit log for History (at most [`crate::PAGE_LINES`] lines); it
    /// comes back as [`EngineEvent::HistoryPage`].
    ReadHistory(PageOf),
    /// Stop the engine: cards still waiting are withdrawn (their hooks print nothing, so each
    /// agent asks in its terminal) and queued audit lines are written. See [`crate::EngineHandle::stop`].
    Shutdown,
}

/// Where a page of History begins or ends: a byte offset, at a line's start, in the live log or
/// in the rotated one. The log rotating between two pages shifts it: the next page may repeat
/// or skip lines once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditCursor {
    /// In `audit.jsonl.1`, not `audit.jsonl`.
    pub rotated: bool,
    /// Bytes from the file's start.
    pub offset: u64,
}

/// Which page of History to read
/// ([`EngineCommand::ReadHistory`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageOf {
    /// The newest lines.
    Newest,
    /// The lines before this edge.
    Older(AuditCursor),
    /// The lines after this edge.
    Newer(AuditCursor),
}

/// A page of History: at most [`crate::audit::PAGE_LINES`] lines, oldest first, and where it begins and ends.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditPage {
    /// Oldest first.
    pub lines: Vec<AuditEntry>,
    /// Where the first line begins: [`PageOf::Older`] of it is the page before.
    pub first: AuditCursor,
    /// Where the last line ends: [`PageOf::Newer`] of it is the page after.
    pub last: AuditCursor,
    /// Lines older than this page exist.
    pub has_older: bool,
    /// Lines newer than this page existed when it was read.
    pub has_newer: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_say_them() {
        for (bytes, text) in [
            (0, "0 bytes"),
            (999, "999 bytes"),
            (1000, "1.0 KB"),
            (2741, "2.7 KB"),
            (10_000, "10 KB"),
            (999_499, "999 KB"),
            (3_145_728, "3.1 MB"),
        ] {
            assert_eq!(size_text(bytes), text, "{bytes}");
        }
    }

    #[test]
    fn a_reason_says_what_cards_said_before_it_was_typed() {
        let said = |why: Why, question: bool| Reason::new(&why, question).to_string();
        assert_eq!(
            said(Why::Destructive("rm -r".into()), false),
            "destructive: rm -r"
        );
        assert_eq!(said(Why::Policy("ask npm".into()), false), "policy ask npm");
        assert_eq!(said(Why::Policy("q".into()), true), "policy q");
        assert_eq!(said(Why::Rule("r-1".into()), false), "rule r-1");
        assert_eq!(said(Why::NoMatch, false), "no rule");
        assert_eq!(said(Why::NoMatch, true), "a question for you");
    }

    #[test]
    fn who_answered_writes_the_audit_texts_used_before_it_was_typed() {
        let cases = [
            (AnsweredBy::Click, "click"),
            (AnsweredBy::Phone("Ana (dev1)".into()), "phone:Ana (dev1)"),
            (AnsweredBy::UnknownPhone, "phone:unknown"),
            (AnsweredBy::Rule("r-1".into()), "rule:r-1"),
            (AnsweredBy::Policy("no curl".into()), "policy:no curl"),
            (AnsweredBy::Policy("(none)".into()), "policy:(none)"),
            (AnsweredBy::Withdrawn, "withdrawn"),
            (AnsweredBy::Terminal, "terminal"),
            (AnsweredBy::Notification, "notification"),
            (AnsweredBy::Key, "key"),
            (AnsweredBy::GlobalKey, "key:global"),
            (AnsweredBy::Other("timeout".into()), "timeout"),
        ];
        for (by, text) in cases {
            assert_eq!(by.label(), text);
            assert_eq!(AnsweredBy::parse(text), by, "{text}");
            assert_eq!(serde_json::to_value(&by).unwrap(), serde_json::json!(text));
        }
    }

    #[test]
    fn an_outcome_writes_the_audit_words_used_before_it_was_typed() {
        let cases = [
            (Outcome::Allow, "allow"),
            (Outcome::Deny, "deny"),
            (Outcome::Answer, "answer"),
            (Outcome::Withdrawn, "withdrawn"),
            (Outcome::Answered, "answered"),
            (Outcome::Refused, "refused"),
            (Outcome::Undelivered, "undelivered"),
            (Outcome::TooLarge, "too-large"),
            (Outcome::Paused, "paused"),
            (Outcome::Other("maybe".into()), "maybe"),
        ];
        for (outcome, word) in cases {
            assert_eq!(outcome.as_str(), word);
            assert_eq!(Outcome::parse(word), outcome, "{word}");
            assert_eq!(
                serde_json::to_value(&outcome).unwrap(),
                serde_json::json!(word)
            );
            assert_eq!(
                serde_json::from_value::<Outcome>(serde_json::json!(word)).unwrap(),
                outcome
            );
        }
        assert_eq!(
            Outcome::from(vults_core::protocol::Decision::Deny),
            Outcome::Deny
        );
    }

    #[test]
    fn any_audit_line_reads_back_and_writes_out_byte_for_byte() {
        for by in [
            "click",
            "phone:unknown",
            "phone:Pixel (2) (d-9)",
            "phone:",
            "rule:",
            "policy:a:b",
            "terminal",
            "timeout",
            "",
            "Click",
            "something:else",
        ] {
            let line = serde_json::json!({
                "time": 1, "identity": "claude", "session": "s", "folder": "/p", "tool": "Bash",
                "target": "ls", "decision": "allow", "by": by, "detail": "d"
            })
            .to_string();
            let entry: AuditEntry = serde_json::from_str(&line).unwrap();
            assert_eq!(entry.by.label(), by);
            assert_eq!(serde_json::to_string(&entry).unwrap(), line, "{by}");
        }
    }

    #[test]
    fn history_filters_on_the_kind_of_who_answered() {
        let kind = |text: &str| AnsweredBy::parse(text).kind().to_string();
        assert_eq!(kind("click"), "click");
        assert_eq!(kind("phone:Ana (dev1)"), "phone");
        assert_eq!(kind("phone:unknown"), "phone");
        assert_eq!(kind("rule:r-1"), "rule");
        assert_eq!(kind("policy:p"), "policy");
        assert_eq!(kind("withdrawn"), "withdrawn");
        assert_eq!(kind("terminal"), "terminal");
        assert_eq!(kind("notification"), "notification");
        assert_eq!(kind("key"), "key");
        assert_eq!(kind("key:global"), "key");
        assert_eq!(kind("timeout"), "timeout");
    }

    #[test]
    fn who_answered_is_worded_once_and_tells_the_keys_apart() {
        let words = |by: AnsweredBy| by.words();
        assert_eq!(words(AnsweredBy::Click), "by you");
        assert_eq!(words(AnsweredBy::Key), "by you, with a key on its card");
        assert_eq!(words(AnsweredBy::GlobalKey), "by you, with a global key");
        assert_eq!(
            words(AnsweredBy::Notification),
            "by you, from its notification"
        );
        assert_eq!(
            words(AnsweredBy::Phone("Ana (d1)".into())),
            "on your phone (Ana (d1))"
        );
        assert_eq!(words(AnsweredBy::Rule("r-1".into())), "by an Always rule");
        assert_eq!(
            words(AnsweredBy::Policy("no\u{202e}curl".into())),
            "by policy no‹U+202E›curl"
        );
        assert_eq!(words(AnsweredBy::Terminal), "in the agent's terminal");
        assert_eq!(words(AnsweredBy::Other("timeout".into())), "by timeout");
    }

    #[test]
    fn an_audit_line_about_a_call_names_it_as_before() {
        let call = vults_core::agents::read_tool_call(&serde_json::json!({
            "tool_name": "Bash", "tool_input": {"command": "ls -la"}
        }));
        let session = SessionKey {
            identity: "claude".into(),
            session: "s-1".into(),
        };
        let line = AuditEntry::new(7, Outcome::Allow, AnsweredBy::Click, None).about(
            &Identity::Builtin(AgentKind::Claude),
            &session,
            "/p",
            &call,
        );
        assert_eq!(
            serde_json::to_string(&line).unwrap(),
            r#"{"time":7,"identity":"claude","session":"s-1","folder":"/p","tool":"Bash","target":"ls -la","decision":"allow","by":"click"}"#
        );
        let refusal = AuditEntry::new(
            8,
            Outcome::Refused,
            AnsweredBy::UnknownPhone,
            Some("why".into()),
        );
        assert_eq!(
            serde_json::to_string(&refusal).unwrap(),
            r#"{"time":8,"identity":"","session":"","folder":"","tool":"","target":"","decision":"refused","by":"phone:unknown","detail":"why"}"#
        );
    }
}

#[cfg(test)]
mod notice_tests {
    use super::Notice;

    /// The log and `--headless`'s console print the same English as before notices were typed.
    #[test]
    fn display_is_the_english_of_before() {
        assert_eq!(
            Notice::CardGone { card: 7 }.to_string(),
            "card 7 is no longer waiting (answered, or the agent went away)"
        );
        assert_eq!(
            Notice::RefusedUser {
                uid: 1001,
                pid: Some(42),
                me: 1000
            }
            .to_string(),
            "refused a connection from uid 1001 (pid 42) (this app runs as uid 1000)"
        );
        assert_eq!(
            Notice::RefusedMessage {
                kind: "answer".into()
            }
            .to_string(),
            "refused a \"answer\" message on the hook socket: only an event may come from there"
        );
        assert_eq!(
            Notice::RulesKeptInMemory.to_string(),
            "the rules file could not be read at start, so it is not overwritten; this change \
             holds until Vults quits"
        );
    }
}
