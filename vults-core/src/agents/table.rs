//! The agent table: one row per agent ([`AGENTS`], keyed by [`Agent`]), what each row says
//! ([`AgentSpec`]), and the kinds the wire has a type for ([`AgentKind`]).

use serde::{Deserialize, Serialize};

/// The agent kinds the wire has a type for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentKind {
    /// Claude Code (`claude`).
    Claude,
    /// Codex CLI (`codex`).
    Codex,
    /// OpenCode, through Vults' plugin (`opencode`).
    Opencode,
    /// Qwen Code (`qwen`).
    Qwen,
    /// GitHub Copilot CLI (`copilot`).
    Copilot,
    /// Any other tool or agent; with an `agent_name` it is a named tool or a registered native agent.
    Other,
}

impl AgentKind {
    /// Every kind, in the wire's order.
    pub const ALL: [AgentKind; 6] = [
        AgentKind::Claude,
        AgentKind::Codex,
        AgentKind::Opencode,
        AgentKind::Qwen,
        AgentKind::Copilot,
        AgentKind::Other,
    ];

    /// The kind's name on the wire and in `--agent`.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentKind::Claude => "claude",
            AgentKind::Codex => "codex",
            AgentKind::Opencode => "opencode",
            AgentKind::Qwen => "qwen",
            AgentKind::Copilot => "copilot",
            AgentKind::Other => "other",
        }
    }

    /// The kind a wire name stands for; `None` for any other string.
    pub fn parse(s: &str) -> Option<AgentKind> {
        AgentKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// The name people know the agent by (its row in [`AGENTS`]; `Other` for `other`).
    pub fn display_name(self) -> &'static str {
        Agent::of_kind(self).map_or("Other", Agent::display_name)
    }

    /// The agent this kind stands for; `None` for `other`.
    pub fn agent(self) -> Option<Agent> {
        Agent::of_kind(self)
    }
}

// ---------------------------------------------------------------------------------------------
// The agent table
// ---------------------------------------------------------------------------------------------

/// Every agent Vults knows by name: the one identity every per-agent fact is keyed by. Each has
/// its row in [`AGENTS`] ([`Agent::spec`]): its names, how its events travel, how it reads an
/// answer, where and how the installer writes its hook entries, how the window draws it and
/// which chat engine drives it. A tool people build themselves is not here: it is a named tool
/// ([`crate::protocol::Identity::Named`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Agent {
    /// Claude Code.
    Claude,
    /// Codex CLI.
    Codex,
    /// GitHub Copilot CLI.
    Copilot,
    /// Qwen Code.
    Qwen,
    /// OpenCode, through Vults' plugin.
    Opencode,
    /// Cursor.
    Cursor,
    /// Factory Droid.
    Droid,
    /// Kimi Code.
    Kimi,
    /// Antigravity.
    Antigravity,
    /// Gemini CLI: only its old hooks' leftovers (they send nothing).
    Gemini,
}

impl Agent {
    /// Every agent, in the table's order.
    pub const ALL: [Agent; 10] = [
        Agent::Claude,
        Agent::Codex,
        Agent::Copilot,
        Agent::Qwen,
        Agent::Opencode,
        Agent::Cursor,
        Agent::Droid,
        Agent::Kimi,
        Agent::Antigravity,
        Agent::Gemini,
    ];

    /// Its row in [`AGENTS`].
    pub fn spec(self) -> &'static AgentSpec {
        // One row per agent, in the same order (every_agent_has_its_row).
        &AGENTS[self as usize]
    }

    /// The name `--agent` takes, and its key in the app's settings.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The name people know it by.
    pub fn display_name(self) -> &'static str {
        self.spec().display_name
    }

    /// The agent `--agent` calls `name`; `None` for any other name (a named tool, or nothing).
    pub fn parse(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The agent a wire kind stands for; `None` for `other`.
    pub fn of_kind(kind: AgentKind) -> Option<Agent> {
        Agent::ALL
            .into_iter()
            .find(|a| a.spec().wire == Wire::Kind(kind))
    }

    /// The wire kind its events travel as, when the wire has one for it.
    pub fn kind(self) -> Option<AgentKind> {
        match self.spec().wire {
            Wire::Kind(k) => Some(k),
            Wire::Other | Wire::Silent => None,
        }
    }

    /// Whether Vults answers its permission requests (the others only show their sessions).
    pub fn answers_permissions(self) -> bool {
        self.spec().reply.is_some()
    }

    /// Whether Vults no longer serves it (its old hooks send nothing): the installer only offers
    /// to take those hooks out, and shows the agent only while some are left.
    pub fn retired(self) -> bool {
        self.spec().wire == Wire::Silent
    }

    /// Whether the installer keeps the person's own status line and chains it (Claude Code).
    pub fn keeps_status_line(self) -> bool {
        self.spec().install.is_some_and(|i| i.status_line)
    }

    /// Whether it runs a new or changed hook only after the person trusts it (Codex's `/hooks`).
    pub fn needs_trust(self) -> bool {
        self.spec().install.is_some_and(|i| i.needs_trust)
    }
}

/// How an agent's events travel on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// As its own [`AgentKind`].
    Kind(AgentKind),
    /// As `other` with its own name as `agent_name`: a native agent the wire has no type for.
    /// It never gets a card, and cannot take `--reply vults`.
    Other,
    /// Not at all: old hooks of an agent Vults no longer serves send nothing.
    Silent,
}

/// Where the installer finds an agent's configuration: its config home, a folder under the
/// agents' home (the user's home), unless the agent's own environment variable moves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfigHome {
    /// The folder under the agents' home, one path component at a time (`[".claude"]`).
    pub dir: &'static [&'static str],
    /// The variable that moves it, and the folder under that variable's value (`""`: the value
    /// itself), e.g. `("CODEX_HOME", "")`, `("XDG_CONFIG_HOME", "opencode")`.
    pub env: Option<(&'static str, &'static str)>,
}

/// How an agent keeps its hooks: the file formats the installer speaks (its format files,
/// `vults-app/installer/src/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A JSON file whose `hooks` object maps each event to groups `{matcher?, hooks: [handler]}`,
    /// a handler being `{"type":"command","command":…,"timeout":…}` (Claude Code, Qwen Code,
    /// Codex's `hooks.json`, Droid).
    JsonGrouped,
    /// A JSON file whose `hooks` object maps each event straight to handlers, the command under
    /// `command_key` and the timeout under `timeout_key`; `typed` handlers also say
    /// `"type":"command"`; `version` files carry `"version": 1` (Cursor).
    JsonFlat {
        /// The key of the command (`command`; Copilot CLI: `bash`).
        command_key: &'static str,
        /// The key of the timeout in seconds (`timeout`; Copilot CLI: `timeoutSec`).
        timeout_key: &'static str,
        /// Handlers carry `"type": "command"`.
        typed: bool,
        /// The file has a top-level `"version": 1`.
        version: bool,
    },
    /// Codex CLI's `config.toml` `[hooks]` tables.
    CodexToml,
    /// Kimi Code's `config.toml` `[[hooks]]` array.
    KimiToml,
    /// OpenCode: Vults' plugin file in its `plugin/` folder (the plugin relays to the hook).
    OpencodePlugin,
}

/// Which of two files an agent reads its hooks from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefer {
    /// The second file when it exists (Droid reads `settings.json`'s hooks only while
    /// `hooks.json` is absent: creating `hooks.json` would silence the user's own hooks).
    SecondWhenItExists,
    /// The second file when the first does not exist and the second already holds hooks (the
    /// user keeps Codex's hooks in `config.toml`).
    SecondWhenFirstMissingAndItHasHooks,
}

/// The file, in the agent's config home, the installer writes its hook entries to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigFile {
    /// Always this file, kept in this format.
    One(&'static str, Format),
    /// One of two files, as [`Prefer`] says.
    Either {
        /// The file used unless `prefer` says otherwise.
        first: (&'static str, Format),
        /// The other one.
        second: (&'static str, Format),
        /// When `second` is used.
        prefer: Prefer,
    },
}

/// How long the agent lets one hook entry run before it gives up on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryTimeout {
    /// A permission request's entry ([`crate::protocol::timeouts::PERMISSION_ENTRY_S`]).
    Permission,
    /// The AskUserQuestion entry ([`crate::protocol::timeouts::ASK_ENTRY_S`]).
    Ask,
    /// Every other event ([`crate::protocol::timeouts::OTHER_ENTRY_S`]).
    Other,
    /// What this agent allows at most for this event (Codex clamps `SessionEnd` to 3 s).
    Seconds(u64),
}

/// What an event means in a session's life, whatever an agent calls it. Each hook entry of an
/// agent's row says it ([`HookEntry::lifecycle`]); an event that arrives is resolved to one,
/// once ([`lifecycle`]); everything after (the hook's reply, the flock, a card answered in the
/// agent's terminal) matches this, never the event's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lifecycle {
    /// A session starts, or resumes.
    SessionStart,
    /// The person sent a prompt: a turn starts.
    Prompt,
    /// A tool call is about to run (`PreToolUse`).
    BeforeCall,
    /// The agent asks leave for a call (`PermissionRequest`): what a card answers.
    Permission,
    /// A call ran (`PostToolUse`).
    AfterCall,
    /// A call ran and failed, or was refused after the agent's own dialog
    /// (`PostToolUseFailure`).
    CallFailed,
    /// The agent's own dialog refused a call (`PermissionDenied`).
    PermissionDenied,
    /// The agent's own dialog answered a call (`PermissionReplied`: OpenCode's
    /// `permission.replied`, as its plugin is to relay it).
    PermissionReplied,
    /// The agent says something to the person (idle, a permission prompt in its terminal): its
    /// payload says what.
    Notification,
    /// The turn ended: the agent waits for the person.
    Stop,
    /// The turn ended on an error (an API error): the agent waits all the same.
    StopFailure,
    /// The agent reports an error; the turn goes on (Copilot CLI's `errorOccurred`).
    Error,
    /// A subagent starts.
    SubagentStart,
    /// A subagent ended (the main agent's turn goes on).
    SubagentStop,
    /// The context is compacted (before or after).
    Compact,
    /// The session ends.
    End,
    /// Claude Code's status line (the hook's `--statusline`): cost and rate limits.
    StatusLine,
    /// A name no row and no word of [`OTHER_EVENTS`] knows.
    Other,
}

/// Event names no row installs but that arrive all the same, with what they mean: a named
/// tool's or OpenCode's plugin's (Claude Code's words), Cursor's older hooks, Gemini CLI's, the
/// hook's own status line. Compared as every name is when it is not its agent's own spelling:
/// without case and separators.
pub const OTHER_EVENTS: &[(&str, Lifecycle)] = &[
    ("SessionStart", Lifecycle::SessionStart),
    ("UserPromptSubmit", Lifecycle::Prompt),
    ("PreToolUse", Lifecycle::BeforeCall),
    ("PermissionRequest", Lifecycle::Permission),
    ("PostToolUse", Lifecycle::AfterCall),
    ("PostToolUseFailure", Lifecycle::CallFailed),
    ("PermissionDenied", Lifecycle::PermissionDenied),
    ("PermissionReplied", Lifecycle::PermissionReplied),
    ("Notification", Lifecycle::Notification),
    ("Stop", Lifecycle::Stop),
    ("StopFailure", Lifecycle::StopFailure),
    ("SubagentStart", Lifecycle::SubagentStart),
    ("SubagentStop", Lifecycle::SubagentStop),
    ("PreCompact", Lifecycle::Compact),
    ("PostCompact", Lifecycle::Compact),
    ("SessionEnd", Lifecycle::End),
    ("BeforeTool", Lifecycle::BeforeCall),
    ("AfterTool", Lifecycle::AfterCall),
    ("beforeShellExecution", Lifecycle::BeforeCall),
    ("beforeMCPExecution", Lifecycle::BeforeCall),
    ("afterFileEdit", Lifecycle::AfterCall),
    (STATUS_LINE_EVENT, Lifecycle::StatusLine),
];

/// The event name the hook's `--statusline` sends.
pub const STATUS_LINE_EVENT: &str = "StatusLine";

/// What `event` means, sent by the agent of row `spec` (`None`: a named tool): the row's own
/// entry of that spelling, else any row's entry or [`OTHER_EVENTS`]' word of that name compared
/// without case and separators (`postToolUse`, `post_tool_use`), else [`Lifecycle::Other`].
/// Allocates nothing: the hook calls it.
pub fn lifecycle(spec: Option<&AgentSpec>, event: &str) -> Lifecycle {
    let entries = |a: &'static AgentSpec| a.install.map_or(&[][..], |i| i.entries);
    let own = spec
        .and_then(|a| a.install)
        .and_then(|i| i.entries.iter().find(|e| e.event == event));
    if let Some(entry) = own {
        return entry.lifecycle;
    }
    AGENTS
        .iter()
        .flat_map(entries)
        .find(|e| same_folded(e.event, event))
        .map(|e| e.lifecycle)
        .or_else(|| {
            OTHER_EVENTS
                .iter()
                .find(|(name, _)| same_folded(name, event))
                .map(|(_, l)| *l)
        })
        .unwrap_or(Lifecycle::Other)
}

/// Whether `a` and `b` are one name without case and separators.
fn same_folded(a: &str, b: &str) -> bool {
    fn fold(s: &str) -> impl Iterator<Item = u8> + '_ {
        s.bytes()
            .filter(u8::is_ascii_alphanumeric)
            .map(|b| b.to_ascii_lowercase())
    }
    fold(a).eq(fold(b))
}

/// One hook entry Vults writes for an agent: `vults-hook --agent <name> [--ask] <event>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookEntry {
    /// The event, in the agent's own spelling.
    pub event: &'static str,
    /// What the event means.
    pub lifecycle: Lifecycle,
    /// The tool matcher, where the format has one (`*`, `AskUserQuestion`).
    pub matcher: Option<&'static str>,
    /// `--ask`: the AskUserQuestion entry, whose PreToolUse wants a reply.
    pub ask: bool,
    /// Its timeout.
    pub timeout: EntryTimeout,
}

const fn entry(
    event: &'static str,
    lifecycle: Lifecycle,
    matcher: Option<&'static str>,
    timeout: EntryTimeout,
) -> HookEntry {
    HookEntry {
        event,
        lifecycle,
        matcher,
        ask: false,
        timeout,
    }
}

/// How an agent runs a hook entry's command on Windows, which decides the form Vults writes
/// (docs/platforms.md has the sources).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowsRunner {
    /// `command` with `args`, run directly with no shell (Claude Code).
    Exec,
    /// `%COMSPEC% /C <command>`: a command with no quote in it (Codex CLI, Qwen Code).
    Cmd,
    /// The entry's `powershell` string, run by PowerShell (Copilot CLI).
    PowerShell,
    /// The same form as on Unix.
    Posix,
}

/// Where and how the installer puts the hook into an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Install {
    /// Its config home.
    pub home: ConfigHome,
    /// The file in it, and how that file is kept (for OpenCode's plugin: the file's name in
    /// OpenCode's plugin folder).
    pub file: ConfigFile,
    /// Vults' entries, event by event, in the order they are written (empty: the format holds
    /// no entries, as OpenCode's plugin, or Vults writes none any more, as for Gemini CLI).
    pub entries: &'static [HookEntry],
    /// How it runs the hook on Windows.
    pub windows: WindowsRunner,
    /// Vults keeps the user's own status line (Claude Code's `statusLine`) and chains it.
    pub status_line: bool,
    /// It runs a new or changed hook only after the person trusts it (Codex CLI's `/hooks`):
    /// the installer's report and the welcome say so.
    pub needs_trust: bool,
}

/// The chat engine Zeca drives an agent's CLI with (docs/zeca.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChatEngine {
    /// `-p --input-format stream-json --output-format stream-json --permission-prompt-tool
    /// stdio` (Claude Code).
    StreamJson,
    /// `app-server`, JSON-RPC over stdio (Codex CLI).
    AppServer,
}

impl ChatEngine {
    /// The argument that runs a task of this CLI family headless, its prompt after it
    /// (`claude -p`, `codex exec`).
    pub fn headless_arg(self) -> &'static str {
        match self {
            ChatEngine::StreamJson => "-p",
            ChatEngine::AppServer => "exec",
        }
    }
}

/// How the window draws an agent's bird and cards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Look {
    /// Its colour, as red, green, blue.
    pub rgb: [u8; 3],
    /// The letter on its bird.
    pub letter: char,
}

/// One agent Vults knows: what differs from one agent to the next, in one row. Adding an agent
/// is a row here plus its own adapter (where its payload or reply differs:
/// [`super::read_tool_call`], [`super::render_decision`]) and format files (where it keeps hooks
/// in a format the installer does not speak yet): docs/adding-an-agent.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentSpec {
    /// The agent this row is about.
    pub agent: Agent,
    /// The name `--agent` takes (and the key in the app's settings).
    pub name: &'static str,
    /// The name people know it by.
    pub display_name: &'static str,
    /// How its events travel.
    pub wire: Wire,
    /// How it reads an answer back; `None`: its permission requests are never answered (it
    /// only shows its sessions and asks in its own window).
    pub reply: Option<ReplyShape>,
    /// Whether its AskUserQuestion, sent by the `--ask` entry as PreToolUse, wants a reply.
    pub asks: bool,
    /// Whether `VULTS_ZECA=1` marks its events (never a session, a bird or a card).
    pub zeca: bool,
    /// Whether a policy's `allow` may answer it (docs/policies.md: Claude Code only).
    pub policy_allows: bool,
    /// Whether another call's `PreToolUse` or `PermissionRequest` can be told from this call's
    /// own, so that it shows the person answered this one in the agent's terminal. OpenCode's
    /// plugin relays a call's PreToolUse without its call id and in other words than its
    /// permission: for it only the signs of the session moving on count.
    pub tells_calls_apart: bool,
    /// The tool it asks with to leave plan mode, plan in `tool_input.plan`, whose
    /// `PermissionRequest` is a plan review: a plan card, approved with the tool input echoed as
    /// `updatedInput` (a bare allow is ignored) and kept with the person's feedback as the deny's
    /// message (docs/other-agents.md, "Plan review"). `None`: it has none Vults can approve.
    pub plan_tool: Option<&'static str>,
    /// Whether its `PostToolUse` carries the edit's `structuredPatch` in `tool_response` (Claude
    /// Code): the hook keeps it (cut to [`crate::protocol::MAX_PATCH_LINES`]) when it shapes the
    /// payload, so the session shows the change.
    pub patch_in_result: bool,
    /// The tool whose command is a whole patch (Codex CLI's `apply_patch`): its `PostToolUse`
    /// keeps up to [`crate::protocol::MAX_APPLY_PATCH`] of it when the payload is shaped.
    pub patch_tool: Option<&'static str>,
    /// Whether its `agent_idle` / `agent_completed` notifications are about its background
    /// agents, not the session (Copilot CLI; the session's own turn ends with `agentStop`).
    pub idle_is_background: bool,
    /// Where and how the installer puts the hook; `None`: it does not install into it.
    pub install: Option<Install>,
    /// The chat engine Zeca drives it with; `None`: Zeca does not chat with it.
    pub chat: Option<ChatEngine>,
    /// How the window draws it; `None`: as a named tool is drawn (a colour made from its name,
    /// its initial on the bird).
    pub look: Option<Look>,
}

const fn home(
    dir: &'static [&'static str],
    env: Option<(&'static str, &'static str)>,
) -> ConfigHome {
    ConfigHome { dir, env }
}

use Lifecycle as L;
const O: EntryTimeout = EntryTimeout::Other;
const P: EntryTimeout = EntryTimeout::Permission;
const ALL_TOOLS: Option<&str> = Some("*");

/// Claude Code's entries.
const CLAUDE_ENTRIES: &[HookEntry] = &[
    entry("SessionStart", L::SessionStart, None, O),
    entry("UserPromptSubmit", L::Prompt, None, O),
    entry("PreToolUse", L::BeforeCall, ALL_TOOLS, O),
    HookEntry {
        event: "PreToolUse",
        lifecycle: L::BeforeCall,
        matcher: Some("AskUserQuestion"),
        ask: true,
        timeout: EntryTimeout::Ask,
    },
    entry("PermissionRequest", L::Permission, ALL_TOOLS, P),
    entry("PostToolUse", L::AfterCall, ALL_TOOLS, O),
    // A call that ran and failed after the user allowed it in Claude Code's own dialog: its card
    // is withdrawn as answered in the terminal.
    entry("PostToolUseFailure", L::CallFailed, ALL_TOOLS, O),
    entry("Notification", L::Notification, None, O),
    entry("Stop", L::Stop, None, O),
    // A turn that ended on an API error ends with this instead of Stop (interactive): the
    // session is done and waits for the person all the same.
    entry("StopFailure", L::StopFailure, None, O),
    entry("SubagentStop", L::SubagentStop, None, O),
    entry("PreCompact", L::Compact, None, O),
    entry("SessionEnd", L::End, None, O),
];

/// The events Codex 0.169 was seen to run. It clamps SessionEnd to 3 s (with a warning
/// otherwise); no matcher keeps the trust hash the user reviews in /hooks simple.
const CODEX_ENTRIES: &[HookEntry] = &[
    entry("SessionStart", L::SessionStart, None, O),
    entry("UserPromptSubmit", L::Prompt, None, O),
    entry("PreToolUse", L::BeforeCall, None, O),
    entry("PermissionRequest", L::Permission, None, P),
    entry("PostToolUse", L::AfterCall, None, O),
    entry("Stop", L::Stop, None, O),
    entry("SessionEnd", L::End, None, EntryTimeout::Seconds(3)),
];

const COPILOT_ENTRIES: &[HookEntry] = &[
    entry("sessionStart", L::SessionStart, None, O),
    entry("userPromptSubmitted", L::Prompt, None, O),
    entry("preToolUse", L::BeforeCall, None, O),
    entry("permissionRequest", L::Permission, None, P),
    entry("postToolUse", L::AfterCall, None, O),
    entry("notification", L::Notification, None, O),
    entry("errorOccurred", L::Error, None, O),
    entry("agentStop", L::Stop, None, O),
    entry("subagentStop", L::SubagentStop, None, O),
    entry("sessionEnd", L::End, None, O),
];

/// Seconds below 1000 (Qwen reads larger values as legacy milliseconds).
const QWEN_ENTRIES: &[HookEntry] = &[
    entry("SessionStart", L::SessionStart, None, O),
    entry("UserPromptSubmit", L::Prompt, None, O),
    entry("PreToolUse", L::BeforeCall, ALL_TOOLS, O),
    entry("PermissionRequest", L::Permission, ALL_TOOLS, P),
    entry("PostToolUse", L::AfterCall, ALL_TOOLS, O),
    entry("PostToolUseFailure", L::CallFailed, ALL_TOOLS, O),
    entry("Notification", L::Notification, None, O),
    entry("Stop", L::Stop, None, O),
    entry("SubagentStop", L::SubagentStop, None, O),
    entry("PreCompact", L::Compact, None, O),
    entry("SessionEnd", L::End, None, O),
];

const CURSOR_ENTRIES: &[HookEntry] = &[
    entry("sessionStart", L::SessionStart, None, O),
    entry("beforeSubmitPrompt", L::Prompt, None, O),
    entry("preToolUse", L::BeforeCall, None, O),
    entry("postToolUse", L::AfterCall, None, O),
    entry("subagentStop", L::SubagentStop, None, O),
    entry("preCompact", L::Compact, None, O),
    entry("stop", L::Stop, None, O),
    entry("sessionEnd", L::End, None, O),
];

/// Droid's and Kimi Code's entries (Claude Code's events, no permission request).
const SESSION_ENTRIES: &[HookEntry] = &[
    entry("SessionStart", L::SessionStart, None, O),
    entry("UserPromptSubmit", L::Prompt, None, O),
    entry("PreToolUse", L::BeforeCall, ALL_TOOLS, O),
    entry("PostToolUse", L::AfterCall, ALL_TOOLS, O),
    entry("Notification", L::Notification, None, O),
    entry("Stop", L::Stop, None, O),
    entry("SubagentStop", L::SubagentStop, None, O),
    entry("PreCompact", L::Compact, None, O),
    entry("SessionEnd", L::End, None, O),
];

/// Every agent Vults knows, one row each, in [`Agent::ALL`]'s order.
pub const AGENTS: &[AgentSpec] = &[
    AgentSpec {
        agent: Agent::Claude,
        name: "claude",
        display_name: "Claude Code",
        wire: Wire::Kind(AgentKind::Claude),
        reply: Some(ReplyShape::HookSpecific),
        asks: true,
        zeca: true,
        policy_allows: true,
        tells_calls_apart: true,
        plan_tool: Some("ExitPlanMode"),
        patch_in_result: true,
        patch_tool: None,
        idle_is_background: false,
        install: Some(Install {
            home: home(&[".claude"], None),
            file: ConfigFile::One("settings.json", Format::JsonGrouped),
            entries: CLAUDE_ENTRIES,
            windows: WindowsRunner::Exec,
            status_line: true,
            needs_trust: false,
        }),
        chat: Some(ChatEngine::StreamJson),
        look: Some(Look {
            rgb: [0xD9, 0x77, 0x57],
            letter: 'C',
        }),
    },
    AgentSpec {
        agent: Agent::Codex,
        name: "codex",
        display_name: "Codex CLI",
        wire: Wire::Kind(AgentKind::Codex),
        reply: Some(ReplyShape::HookSpecific),
        asks: false,
        zeca: true,
        policy_allows: false,
        tells_calls_apart: true,
        plan_tool: None,
        patch_in_result: false,
        patch_tool: Some("apply_patch"),
        idle_is_background: false,
        install: Some(Install {
            home: home(&[".codex"], Some(("CODEX_HOME", ""))),
            file: ConfigFile::Either {
                first: ("hooks.json", Format::JsonGrouped),
                second: ("config.toml", Format::CodexToml),
                prefer: Prefer::SecondWhenFirstMissingAndItHasHooks,
            },
            entries: CODEX_ENTRIES,
            windows: WindowsRunner::Cmd,
            status_line: false,
            needs_trust: true,
        }),
        chat: Some(ChatEngine::AppServer),
        look: Some(Look {
            rgb: [0x10, 0xA3, 0x7F],
            letter: 'X',
        }),
    },
    AgentSpec {
        agent: Agent::Copilot,
        name: "copilot",
        display_name: "Copilot CLI",
        wire: Wire::Kind(AgentKind::Copilot),
        reply: Some(ReplyShape::Flat),
        asks: false,
        zeca: false,
        policy_allows: false,
        tells_calls_apart: true,
        plan_tool: None,
        patch_in_result: false,
        patch_tool: None,
        idle_is_background: true,
        install: Some(Install {
            home: home(&[".copilot"], Some(("COPILOT_HOME", ""))),
            // What the real CLI ran: the command under the shell's own key, timeoutSec.
            file: ConfigFile::One(
                "settings.json",
                Format::JsonFlat {
                    command_key: "bash",
                    timeout_key: "timeoutSec",
                    typed: true,
                    version: false,
                },
            ),
            entries: COPILOT_ENTRIES,
            windows: WindowsRunner::PowerShell,
            status_line: false,
            needs_trust: false,
        }),
        chat: None,
        look: Some(Look {
            rgb: [0x3B, 0x82, 0xF6],
            letter: 'P',
        }),
    },
    AgentSpec {
        agent: Agent::Qwen,
        name: "qwen",
        display_name: "Qwen Code",
        wire: Wire::Kind(AgentKind::Qwen),
        reply: Some(ReplyShape::HookSpecific),
        asks: false,
        zeca: false,
        policy_allows: false,
        tells_calls_apart: true,
        plan_tool: None,
        patch_in_result: false,
        patch_tool: None,
        idle_is_background: false,
        install: Some(Install {
            home: home(&[".qwen"], None),
            file: ConfigFile::One("settings.json", Format::JsonGrouped),
            entries: QWEN_ENTRIES,
            windows: WindowsRunner::Cmd,
            status_line: false,
            needs_trust: false,
        }),
        chat: None,
        look: Some(Look {
            rgb: [0x8B, 0x5C, 0xF6],
            letter: 'Q',
        }),
    },
    AgentSpec {
        agent: Agent::Opencode,
        name: "opencode",
        display_name: "OpenCode",
        wire: Wire::Kind(AgentKind::Opencode),
        reply: Some(ReplyShape::OpencodeRelay),
        asks: true,
        zeca: false,
        policy_allows: false,
        tells_calls_apart: false,
        plan_tool: None,
        patch_in_result: false,
        patch_tool: None,
        idle_is_background: false,
        install: Some(Install {
            home: home(
                &[".config", "opencode"],
                Some(("XDG_CONFIG_HOME", "opencode")),
            ),
            file: ConfigFile::One("vults.js", Format::OpencodePlugin),
            entries: &[],
            windows: WindowsRunner::Posix,
            status_line: false,
            needs_trust: false,
        }),
        chat: None,
        look: Some(Look {
            rgb: [0x8C, 0x9B, 0xB5],
            letter: 'O',
        }),
    },
    AgentSpec {
        agent: Agent::Cursor,
        name: "cursor",
        display_name: "Cursor",
        wire: Wire::Other,
        reply: None,
        asks: false,
        zeca: false,
        policy_allows: false,
        tells_calls_apart: true,
        plan_tool: None,
        patch_in_result: false,
        patch_tool: None,
        idle_is_background: false,
        install: Some(Install {
            home: home(&[".cursor"], None),
            file: ConfigFile::One(
                "hooks.json",
                Format::JsonFlat {
                    command_key: "command",
                    timeout_key: "timeout",
                    typed: false,
                    version: true,
                },
            ),
            entries: CURSOR_ENTRIES,
            windows: WindowsRunner::Posix,
            status_line: false,
            needs_trust: false,
        }),
        chat: None,
        look: None,
    },
    AgentSpec {
        agent: Agent::Droid,
        name: "droid",
        display_name: "Factory Droid",
        wire: Wire::Other,
        reply: None,
        asks: false,
        zeca: false,
        policy_allows: false,
        tells_calls_apart: true,
        plan_tool: None,
        patch_in_result: false,
        patch_tool: None,
        idle_is_background: false,
        install: Some(Install {
            home: home(&[".factory"], None),
            file: ConfigFile::Either {
                first: ("settings.json", Format::JsonGrouped),
                second: ("hooks.json", Format::JsonGrouped),
                prefer: Prefer::SecondWhenItExists,
            },
            entries: SESSION_ENTRIES,
            windows: WindowsRunner::Posix,
            status_line: false,
            needs_trust: false,
        }),
        chat: None,
        look: None,
    },
    AgentSpec {
        agent: Agent::Kimi,
        name: "kimi",
        display_name: "Kimi Code",
        wire: Wire::Other,
        reply: None,
        asks: false,
        zeca: false,
        policy_allows: false,
        tells_calls_apart: true,
        plan_tool: None,
        patch_in_result: false,
        patch_tool: None,
        idle_is_background: false,
        install: Some(Install {
            home: home(&[".kimi-code"], Some(("KIMI_CODE_HOME", ""))),
            file: ConfigFile::One("config.toml", Format::KimiToml),
            entries: SESSION_ENTRIES,
            windows: WindowsRunner::Posix,
            status_line: false,
            needs_trust: false,
        }),
        chat: None,
        look: None,
    },
    AgentSpec {
        agent: Agent::Antigravity,
        name: "antigravity",
        display_name: "Antigravity",
        wire: Wire::Other,
        reply: None,
        asks: false,
        zeca: false,
        policy_allows: false,
        tells_calls_apart: true,
        plan_tool: None,
        patch_in_result: false,
        patch_tool: None,
        idle_is_background: false,
        install: None,
        chat: None,
        look: None,
    },
    AgentSpec {
        agent: Agent::Gemini,
        name: "gemini",
        display_name: "Gemini CLI",
        wire: Wire::Silent,
        reply: None,
        asks: false,
        zeca: false,
        policy_allows: false,
        tells_calls_apart: true,
        plan_tool: None,
        patch_in_result: false,
        patch_tool: None,
        idle_is_background: false,
        // Only to take its old hooks out (they send nothing now).
        install: Some(Install {
            home: home(&[".gemini"], None),
            file: ConfigFile::One("settings.json", Format::JsonGrouped),
            entries: &[],
            windows: WindowsRunner::Posix,
            status_line: false,
            needs_trust: false,
        }),
        chat: None,
        look: None,
    },
];

/// The row of the agent `--agent` calls `name`.
pub fn spec(name: &str) -> Option<&'static AgentSpec> {
    Agent::parse(name).map(Agent::spec)
}

/// The row of a wire kind; `None` for `other`.
pub fn spec_of(kind: AgentKind) -> Option<&'static AgentSpec> {
    Agent::of_kind(kind).map(Agent::spec)
}

/// Whether `name` is a native agent that travels as `other` with its name (antigravity, cursor,
/// droid, kimi): never a card, and no `--reply vults`.
pub fn is_registered_other(name: &str) -> bool {
    spec(name).is_some_and(|a| a.wire == Wire::Other)
}

/// Whether an `agent_name` may not be `name`: a wire kind's name (`other` too), or an agent
/// whose old hooks send nothing (`gemini`). Registered native agents' names are not reserved:
/// they are the `agent_name` those agents travel with.
pub fn is_reserved_name(name: &str) -> bool {
    AgentKind::parse(name).is_some() || spec(name).is_some_and(|a| a.wire == Wire::Silent)
}

/// How an agent reads an answer back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyShape {
    /// Claude Code, Codex, Qwen Code: `hookSpecificOutput.decision.behavior`.
    HookSpecific,
    /// Copilot CLI: a bare `behavior`.
    Flat,
    /// OpenCode's plugin: `reply` once/reject, or `answers`.
    OpencodeRelay,
    /// A named tool with `--reply vults`: `decision`.
    Vults,
}

impl ReplyShape {
    /// The shape for an agent kind (`reply_vults`: a named tool asked for the open reply).
    pub fn of(agent: AgentKind, reply_vults: bool) -> Option<ReplyShape> {
        match agent {
            AgentKind::Other if reply_vults => Some(ReplyShape::Vults),
            kind => spec_of(kind).and_then(|a| a.reply),
        }
    }

    /// Whether this agent can have its questions answered.
    pub fn answers_questions(self) -> bool {
        matches!(self, ReplyShape::HookSpecific | ReplyShape::OpencodeRelay)
    }

    /// Whether this agent reads a decision (a policy's deny) back for a question. OpenCode's
    /// plugin reads only answers for one: a deny printed to it would be dropped, and OpenCode
    /// would ask in its own prompt.
    pub fn reads_question_decision(self) -> bool {
        !matches!(self, ReplyShape::OpencodeRelay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::*;
    use crate::answer::{AnswerItem, Decision};
    use serde_json::{Value, json};

    #[test]
    fn every_event_name_means_one_thing_however_it_is_spelt() {
        // Every spelling a row installs or OTHER_EVENTS knows, folded: one meaning each.
        let mut seen: std::collections::BTreeMap<Vec<u8>, (&str, Lifecycle)> = Default::default();
        let rows = AGENTS
            .iter()
            .filter_map(|a| a.install)
            .flat_map(|i| i.entries)
            .map(|e| (e.event, e.lifecycle));
        for (name, meaning) in rows.chain(OTHER_EVENTS.iter().copied()) {
            let folded: Vec<u8> = name
                .bytes()
                .filter(u8::is_ascii_alphanumeric)
                .map(|b| b.to_ascii_lowercase())
                .collect();
            if let Some((other, was)) = seen.insert(folded, (name, meaning)) {
                assert_eq!(was, meaning, "{other} and {name}");
            }
        }
        let of = |agent: Agent, name: &str| lifecycle(Some(agent.spec()), name);
        assert_eq!(
            of(Agent::Claude, "PermissionRequest"),
            Lifecycle::Permission
        );
        assert_eq!(
            of(Agent::Copilot, "permissionRequest"),
            Lifecycle::Permission
        );
        assert_eq!(of(Agent::Copilot, "agentStop"), Lifecycle::Stop);
        assert_eq!(of(Agent::Copilot, "errorOccurred"), Lifecycle::Error);
        assert_eq!(of(Agent::Cursor, "beforeSubmitPrompt"), Lifecycle::Prompt);
        assert_eq!(of(Agent::Cursor, "stop"), Lifecycle::Stop);
        assert_eq!(of(Agent::Claude, "StopFailure"), Lifecycle::StopFailure);
        // Not its own spelling: compared without case and separators.
        assert_eq!(of(Agent::Claude, "post_tool_use"), Lifecycle::AfterCall);
        assert_eq!(of(Agent::Codex, "postToolUse"), Lifecycle::AfterCall);
        // A named tool speaks Claude Code's words; OpenCode's plugin relays its own.
        assert_eq!(lifecycle(None, "PreToolUse"), Lifecycle::BeforeCall);
        assert_eq!(
            lifecycle(None, "PermissionReplied"),
            Lifecycle::PermissionReplied
        );
        assert_eq!(lifecycle(None, STATUS_LINE_EVENT), Lifecycle::StatusLine);
        assert_eq!(lifecycle(None, "BeforeTool"), Lifecycle::BeforeCall);
        assert_eq!(lifecycle(None, "Teatime"), Lifecycle::Other);
        assert_eq!(lifecycle(None, ""), Lifecycle::Other);
    }

    #[test]
    fn every_agent_has_its_row_in_order() {
        assert_eq!(AGENTS.len(), Agent::ALL.len());
        for (i, agent) in Agent::ALL.into_iter().enumerate() {
            assert_eq!(AGENTS[i].agent, agent, "row {i}");
            assert_eq!(agent.spec().agent, agent);
            assert_eq!(Agent::parse(agent.name()), Some(agent));
        }
        for kind in AgentKind::ALL {
            match Agent::of_kind(kind) {
                Some(agent) => assert_eq!(agent.kind(), Some(kind)),
                None => assert_eq!(kind, AgentKind::Other),
            }
        }
        assert_eq!(Agent::parse("other"), None);
        assert_eq!(Agent::Droid.display_name(), "Factory Droid");
    }

    #[test]
    fn the_rows_say_what_differs_from_one_agent_to_the_next() {
        let which = |f: &dyn Fn(&AgentSpec) -> bool| {
            Agent::ALL
                .into_iter()
                .filter(|a| f(a.spec()))
                .collect::<Vec<_>>()
        };
        use Agent::*;
        assert_eq!(
            which(&|a| a.reply.is_some()),
            [Claude, Codex, Copilot, Qwen, Opencode]
        );
        assert_eq!(which(&|a| a.policy_allows), [Claude]);
        assert_eq!(which(&|a| !a.tells_calls_apart), [Opencode]);
        assert_eq!(which(&|a| a.chat.is_some()), [Claude, Codex]);
        assert_eq!(which(&|a| a.patch_in_result), [Claude]);
        assert_eq!(which(&|a| a.patch_tool.is_some()), [Codex]);
        assert_eq!(which(&|a| a.idle_is_background), [Copilot]);
        assert_eq!(which(&|a| a.install.is_none()), [Antigravity]);
        assert_eq!(
            which(&|a| a.install.is_some_and(|i| i.status_line)),
            [Claude]
        );
        assert_eq!(
            which(&|a| a.install.is_some_and(|i| i.needs_trust)),
            [Codex]
        );
        // One permission entry for each agent whose permissions Vults answers through entries.
        for agent in [Claude, Codex, Copilot, Qwen] {
            let entries = agent.spec().install.unwrap().entries;
            assert_eq!(
                entries
                    .iter()
                    .filter(|e| e.timeout == EntryTimeout::Permission)
                    .count(),
                1,
                "{agent:?}"
            );
        }
        // Only an agent that asks has an --ask entry.
        for agent in Agent::ALL {
            let asks = agent
                .spec()
                .install
                .is_some_and(|i| i.entries.iter().any(|e| e.ask));
            assert!(!asks || agent.spec().asks, "{agent:?}");
        }
        let looks: Vec<Look> = AGENTS.iter().filter_map(|a| a.look).collect();
        let letters: std::collections::BTreeSet<char> = looks.iter().map(|l| l.letter).collect();
        assert_eq!(letters.len(), looks.len(), "every bird has its own letter");
        assert_eq!(
            which(&|a| a.look.is_some()),
            [Claude, Codex, Copilot, Qwen, Opencode]
        );
    }

    #[test]
    fn the_agent_table_has_one_row_per_wire_kind_and_unique_names() {
        for kind in AgentKind::ALL {
            let rows: Vec<_> = AGENTS
                .iter()
                .filter(|a| a.wire == Wire::Kind(kind))
                .collect();
            match kind {
                AgentKind::Other => assert!(rows.is_empty()),
                _ => {
                    assert_eq!(rows.len(), 1, "{kind:?}");
                    assert_eq!(rows[0].name, kind.as_str());
                }
            }
        }
        let mut names: Vec<_> = AGENTS.iter().map(|a| a.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), AGENTS.len());
        for a in AGENTS {
            // Only a wire kind can be answered, and only an answerable agent asks questions.
            assert!(
                a.reply.is_none() || matches!(a.wire, Wire::Kind(_)),
                "{}",
                a.name
            );
            assert!(!a.asks || a.reply.is_some_and(ReplyShape::answers_questions));
        }
    }

    #[test]
    fn names_read_from_the_table_are_the_documented_ones() {
        // docs/hook-protocol.md §2 and docs/other-agents.md name these.
        let others: Vec<_> = AGENTS
            .iter()
            .map(|a| a.name)
            .filter(|n| is_registered_other(n))
            .collect();
        assert_eq!(others, ["cursor", "droid", "kimi", "antigravity"]);
        for n in [
            "claude", "codex", "copilot", "opencode", "qwen", "other", "gemini",
        ] {
            assert!(is_reserved_name(n), "{n}");
        }
        for n in ["cursor", "droid", "kimi", "antigravity", "my-tool"] {
            assert!(!is_reserved_name(n), "{n}");
        }
        let shapes: Vec<_> = AgentKind::ALL
            .into_iter()
            .map(|k| ReplyShape::of(k, false))
            .collect();
        assert_eq!(
            shapes,
            [
                Some(ReplyShape::HookSpecific),
                Some(ReplyShape::HookSpecific),
                Some(ReplyShape::OpencodeRelay),
                Some(ReplyShape::HookSpecific),
                Some(ReplyShape::Flat),
                None
            ]
        );
        assert_eq!(
            ReplyShape::of(AgentKind::Claude, true),
            Some(ReplyShape::HookSpecific)
        );
        assert_eq!(AgentKind::Copilot.display_name(), "Copilot CLI");
        assert_eq!(AgentKind::Other.display_name(), "Other");
    }

    #[test]
    fn claude_bash_reads_the_whole_command() {
        let p = json!({"session_id":"s","cwd":"/p","tool_name":"Bash","tool_input":{"command":"cargo test --all","description":"Run tests"}});
        let c = read_tool_call(&p);
        assert_eq!(c.session_id.as_deref(), Some("s"));
        assert_eq!(c.cwd.as_deref(), Some("/p"));
        assert_eq!(c.kind, ToolKind::Shell);
        assert_eq!(
            c.target,
            Target::Command {
                command: "cargo test --all".into()
            }
        );
        assert_eq!(c.target.rule_key(), "cargo test --all");
    }

    #[test]
    fn copilot_camel_case_and_string_args() {
        let p = json!({"sessionId":"c1","toolName":"bash","toolInput":{"command":"echo hi"}});
        let c = read_tool_call(&p);
        assert_eq!(c.session_id.as_deref(), Some("c1"));
        assert_eq!(c.target.command(), Some("echo hi"));
        let p = json!({"sessionId":"c1","toolName":"bash","toolArgs":"{\"command\":\"ls -la\"}"});
        assert_eq!(read_tool_call(&p).target.command(), Some("ls -la"));
    }

    #[test]
    fn opencode_permission_asked_as_it_came() {
        let p = json!({"sessionID":"ses_1","permission":"bash","patterns":["rm -rf build"],"metadata":{}});
        let c = read_tool_call(&p);
        assert_eq!(c.session_id.as_deref(), Some("ses_1"));
        assert_eq!(c.target.command(), Some("rm -rf build"));
    }

    #[test]
    fn edits_writes_urls_and_mcp() {
        let e = read_tool_call(
            &json!({"tool_name":"Edit","tool_input":{"file_path":"/a.rs","old_string":"x","new_string":"y"}}),
        );
        assert_eq!(
            e.target,
            Target::Edit {
                path: "/a.rs".into(),
                old: Some("x".into()),
                new: Some("y".into())
            }
        );
        let w = read_tool_call(
            &json!({"tool_name":"write_file","tool_input":{"file_path":"/b","content":"hi"}}),
        );
        assert_eq!(
            w.target,
            Target::Write {
                path: "/b".into(),
                content: Some("hi".into())
            }
        );
        let u = read_tool_call(
            &json!({"tool_name":"WebFetch","tool_input":{"url":"https://x.test/a?b=c","prompt":"summarise"}}),
        );
        assert_eq!(u.target.rule_key(), "https://x.test/a?b=c");
        let m = read_tool_call(
            &json!({"tool_name":"mcp__github__create_issue","tool_input":{"title":"t","body":"b"}}),
        );
        assert_eq!(
            m.target,
            Target::Mcp {
                server: "github".into(),
                tool: "create_issue".into(),
                input: r#"{"body":"b","title":"t"}"#.into()
            }
        );
        let argv = read_tool_call(
            &json!({"tool_name":"exec_command","tool_input":{"command":["bash","-lc","echo 'hi there'"]}}),
        );
        assert_eq!(
            argv.target.command(),
            Some(r#"bash -lc 'echo '\''hi there'\'''"#)
        );
    }

    #[test]
    fn unknown_tools_key_on_canonical_json() {
        let a = read_tool_call(&json!({"tool_name":"Frob","tool_input":{"b":1,"a":2}}));
        let b = read_tool_call(&json!({"tool_name":"Frob","tool_input":{"a":2,"b":1}}));
        assert_eq!(a.target.rule_key(), r#"{"a":2,"b":1}"#);
        assert_eq!(a.target.rule_key(), b.target.rule_key());
    }

    #[test]
    fn decisions_in_each_shape() {
        let cases = [
            (
                ReplyShape::HookSpecific,
                Decision::Allow,
                r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#,
            ),
            (
                ReplyShape::HookSpecific,
                Decision::Deny,
                r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Denied from Vults"}}}"#,
            ),
            (ReplyShape::Flat, Decision::Allow, r#"{"behavior":"allow"}"#),
            (
                ReplyShape::Flat,
                Decision::Deny,
                r#"{"behavior":"deny","message":"Denied from Vults"}"#,
            ),
            (
                ReplyShape::OpencodeRelay,
                Decision::Allow,
                r#"{"reply":"once"}"#,
            ),
            (
                ReplyShape::OpencodeRelay,
                Decision::Deny,
                r#"{"reply":"reject"}"#,
            ),
            (
                ReplyShape::Vults,
                Decision::Allow,
                r#"{"decision":"allow"}"#,
            ),
            (
                ReplyShape::Vults,
                Decision::Deny,
                r#"{"decision":"deny","reason":"Denied from Vults"}"#,
            ),
        ];
        for (shape, d, want) in cases {
            assert_eq!(render_decision(shape, false, d), want, "{shape:?} {d:?}");
        }
        assert_eq!(ReplyShape::of(AgentKind::Other, false), None);
    }

    /// The plan review's replies, checked against the pinned Claude Code 2.1.332
    /// (tests/real-agents/claude_plan.rs): Approve is an allow that echoes the tool input as
    /// `updatedInput` (a bare allow is ignored), Keep planning a deny whose message is the
    /// person's feedback exactly.
    #[test]
    fn a_plan_is_approved_with_its_input_and_kept_with_the_feedback() {
        let payload = json!({"hook_event_name":"PermissionRequest","tool_name":"ExitPlanMode",
            "permission_mode":"plan",
            "tool_input":{"plan":"# Plan\n\n1. Write the marker","planFilePath":"/h/.claude/plans/p.md"}});
        let input = plan_input_of(&payload);
        assert_eq!(
            plan_review(AgentKind::Claude, &payload),
            Some("# Plan\n\n1. Write the marker")
        );
        let approve = render_decision_with(
            ReplyShape::HookSpecific,
            false,
            Decision::Allow,
            DecisionExtras {
                feedback: None,
                plan_input: Some(&input),
            },
        );
        assert_eq!(
            approve,
            r##"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"plan":"# Plan\n\n1. Write the marker","planFilePath":"/h/.claude/plans/p.md"}}}}"##
        );
        let keep = render_decision_with(
            ReplyShape::HookSpecific,
            false,
            Decision::Deny,
            DecisionExtras {
                feedback: Some("Also say how the marker is checked"),
                plan_input: Some(&input),
            },
        );
        assert_eq!(
            keep,
            r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Also say how the marker is checked"}}}"#
        );
        // Hostile feedback from the app is cleaned again: no control characters, no newline,
        // bounded; nothing left of it is the usual deny.
        let dirty = render_decision_with(
            ReplyShape::HookSpecific,
            false,
            Decision::Deny,
            DecisionExtras {
                feedback: Some("a\u{1b}[2J\nb"),
                plan_input: None,
            },
        );
        let v: Value = serde_json::from_str(&dirty).unwrap();
        assert_eq!(v["hookSpecificOutput"]["decision"]["message"], "a [2J b");
        let long = "x".repeat(10 * crate::answer::MAX_FEEDBACK);
        let v: Value = serde_json::from_str(&render_decision_with(
            ReplyShape::Flat,
            false,
            Decision::Deny,
            DecisionExtras {
                feedback: Some(&long),
                plan_input: None,
            },
        ))
        .unwrap();
        assert_eq!(
            v["message"].as_str().unwrap().len(),
            crate::answer::MAX_FEEDBACK
        );
        assert_eq!(
            render_decision_with(
                ReplyShape::HookSpecific,
                false,
                Decision::Deny,
                DecisionExtras {
                    feedback: Some(" \u{200b}\n"),
                    plan_input: None,
                },
            ),
            render_decision(ReplyShape::HookSpecific, false, Decision::Deny)
        );
        // A named tool's deny stays the fixed contract; OpenCode's reject carries no words.
        for shape in [ReplyShape::Vults, ReplyShape::OpencodeRelay] {
            assert_eq!(
                render_decision_with(
                    shape,
                    false,
                    Decision::Deny,
                    DecisionExtras {
                        feedback: Some("words"),
                        plan_input: None,
                    },
                ),
                render_decision(shape, false, Decision::Deny),
                "{shape:?}"
            );
        }
    }

    fn plan_input_of(payload: &Value) -> Value {
        payload["tool_input"].clone()
    }

    #[test]
    fn only_claude_codes_exit_plan_mode_with_a_plan_is_a_plan_review() {
        let with = |tool: &str, input: Value| json!({"tool_name": tool, "tool_input": input});
        let plan = json!({"plan": "# P"});
        assert_eq!(
            plan_review(AgentKind::Claude, &with("ExitPlanMode", plan.clone())),
            Some("# P")
        );
        // No plan file written: nothing to review.
        assert_eq!(
            plan_review(AgentKind::Claude, &with("ExitPlanMode", json!({}))),
            None
        );
        assert_eq!(
            plan_review(AgentKind::Claude, &with("ExitPlanMode", json!({"plan": 7}))),
            None
        );
        assert_eq!(
            plan_review(AgentKind::Claude, &with("Bash", plan.clone())),
            None
        );
        // Qwen's and Copilot's plan tools are not approvable from a hook (docs/other-agents.md).
        assert_eq!(
            plan_review(AgentKind::Qwen, &with("exit_plan_mode", plan.clone())),
            None
        );
        assert_eq!(
            plan_review(AgentKind::Other, &with("ExitPlanMode", plan)),
            None
        );
    }

    #[test]
    fn answers_keyed_by_question_text_or_listed_in_order() {
        let p = json!({"tool_name":"AskUserQuestion","tool_input":{"questions":[
            {"question":"Which color?","header":"Color","options":[{"label":"Blue"},{"label":"Red"}],"multiSelect":false},
            {"question":"Which sizes?","header":"Sizes","options":[{"label":"S"},{"label":"M"}],"multiSelect":true}]}});
        let answers = [
            AnswerItem::One("Blue".into()),
            AnswerItem::Many(vec!["S".into(), "M".into()]),
        ];
        let out: Value =
            serde_json::from_str(&render_answers(ReplyShape::HookSpecific, &p, &answers).unwrap())
                .unwrap();
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "allow");
        assert_eq!(
            out["hookSpecificOutput"]["updatedInput"]["questions"],
            p["tool_input"]["questions"]
        );
        assert_eq!(
            out["hookSpecificOutput"]["updatedInput"]["answers"],
            json!({"Which color?":"Blue","Which sizes?":["S","M"]})
        );
        assert_eq!(
            render_answers(ReplyShape::OpencodeRelay, &p, &answers).unwrap(),
            r#"{"answers":[["Blue"],["S","M"]]}"#
        );
        assert_eq!(
            render_answers(ReplyShape::HookSpecific, &p, &answers[..1]),
            None,
            "count mismatch"
        );
        assert_eq!(render_answers(ReplyShape::Flat, &p, &answers), None);
    }
}
