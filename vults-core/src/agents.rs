//! One adapter per agent: read its native payload into a [`ToolCall`] (session, folder, tool and
//! the whole target: command, file path or URL), and render an answer in the shape it reads.
//!
//! | agent | reads back |
//! |---|---|
//! | Claude Code, Codex CLI, Qwen Code | `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}` |
//! | Copilot CLI | `{"behavior":"allow"}` |
//! | OpenCode (our plugin relays) | `{"reply":"once"}` / `{"reply":"reject"}`, `{"answers":[["Blue"],["S","M"]]}` |
//! | Claude Code AskUserQuestion (`--ask`) | PreToolUse `allow` + `updatedInput` with answers keyed by question |
//! | a named tool (`--reply vults`) | `{"decision":"allow"}` / `{"decision":"deny","reason":"Denied from Vults"}` |
//!
//! The adapters are pure; the hook calls [`render_decision`] and [`render_answers`] with the
//! payload it read itself (not the shaped copy the app saw), so answers land on the questions
//! the agent really asked.

use crate::answer::{AnswerItem, DENY_MESSAGE, Decision};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

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

/// One hook entry Vults writes for an agent: `vults-hook --agent <name> [--ask] <event>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookEntry {
    /// The event, in the agent's own spelling.
    pub event: &'static str,
    /// The tool matcher, where the format has one (`*`, `AskUserQuestion`).
    pub matcher: Option<&'static str>,
    /// `--ask`: the AskUserQuestion entry, whose PreToolUse wants a reply.
    pub ask: bool,
    /// Its timeout.
    pub timeout: EntryTimeout,
}

const fn entry(
    event: &'static str,
    matcher: Option<&'static str>,
    timeout: EntryTimeout,
) -> HookEntry {
    HookEntry {
        event,
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
/// is a row here plus its own adapter (where its payload or reply differs: [`read_tool_call`],
/// [`render_decision`]) and format files (where it keeps hooks in a format the installer does
/// not speak yet): docs/adding-an-agent.md.
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

const O: EntryTimeout = EntryTimeout::Other;
const P: EntryTimeout = EntryTimeout::Permission;
const ALL_TOOLS: Option<&str> = Some("*");

/// Claude Code's entries.
const CLAUDE_ENTRIES: &[HookEntry] = &[
    entry("SessionStart", None, O),
    entry("UserPromptSubmit", None, O),
    entry("PreToolUse", ALL_TOOLS, O),
    HookEntry {
        event: "PreToolUse",
        matcher: Some("AskUserQuestion"),
        ask: true,
        timeout: EntryTimeout::Ask,
    },
    entry("PermissionRequest", ALL_TOOLS, P),
    entry("PostToolUse", ALL_TOOLS, O),
    // A call that ran and failed after the user allowed it in Claude Code's own dialog: its card
    // is withdrawn as answered in the terminal.
    entry("PostToolUseFailure", ALL_TOOLS, O),
    entry("Notification", None, O),
    entry("Stop", None, O),
    // A turn that ended on an API error ends with this instead of Stop (interactive): the
    // session is done and waits for the person all the same.
    entry("StopFailure", None, O),
    entry("SubagentStop", None, O),
    entry("PreCompact", None, O),
    entry("SessionEnd", None, O),
];

/// The events Codex 0.169 was seen to run. It clamps SessionEnd to 3 s (with a warning
/// otherwise); no matcher keeps the trust hash the user reviews in /hooks simple.
const CODEX_ENTRIES: &[HookEntry] = &[
    entry("SessionStart", None, O),
    entry("UserPromptSubmit", None, O),
    entry("PreToolUse", None, O),
    entry("PermissionRequest", None, P),
    entry("PostToolUse", None, O),
    entry("Stop", None, O),
    entry("SessionEnd", None, EntryTimeout::Seconds(3)),
];

const COPILOT_ENTRIES: &[HookEntry] = &[
    entry("sessionStart", None, O),
    entry("userPromptSubmitted", None, O),
    entry("preToolUse", None, O),
    entry("permissionRequest", None, P),
    entry("postToolUse", None, O),
    entry("notification", None, O),
    entry("errorOccurred", None, O),
    entry("agentStop", None, O),
    entry("subagentStop", None, O),
    entry("sessionEnd", None, O),
];

/// Seconds below 1000 (Qwen reads larger values as legacy milliseconds).
const QWEN_ENTRIES: &[HookEntry] = &[
    entry("SessionStart", None, O),
    entry("UserPromptSubmit", None, O),
    entry("PreToolUse", ALL_TOOLS, O),
    entry("PermissionRequest", ALL_TOOLS, P),
    entry("PostToolUse", ALL_TOOLS, O),
    entry("PostToolUseFailure", ALL_TOOLS, O),
    entry("Notification", None, O),
    entry("Stop", None, O),
    entry("SubagentStop", None, O),
    entry("PreCompact", None, O),
    entry("SessionEnd", None, O),
];

const CURSOR_ENTRIES: &[HookEntry] = &[
    entry("sessionStart", None, O),
    entry("beforeSubmitPrompt", None, O),
    entry("preToolUse", None, O),
    entry("postToolUse", None, O),
    entry("subagentStop", None, O),
    entry("preCompact", None, O),
    entry("stop", None, O),
    entry("sessionEnd", None, O),
];

/// Droid's and Kimi Code's entries (Claude Code's events, no permission request).
const SESSION_ENTRIES: &[HookEntry] = &[
    entry("SessionStart", None, O),
    entry("UserPromptSubmit", None, O),
    entry("PreToolUse", ALL_TOOLS, O),
    entry("PostToolUse", ALL_TOOLS, O),
    entry("Notification", None, O),
    entry("Stop", None, O),
    entry("SubagentStop", None, O),
    entry("PreCompact", None, O),
    entry("SessionEnd", None, O),
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

/// A decision in the agent's own shape, as the one line the hook prints (no newline).
/// `question` says the request was an AskUserQuestion PreToolUse (a deny then reads as
/// PreToolUse's deny). `None` when the agent has no reply shape.
pub fn render_decision(shape: ReplyShape, question: bool, decision: Decision) -> String {
    render_decision_with(shape, question, decision, DecisionExtras::default())
}

/// What a decision may carry beyond allow or deny ([`render_decision_with`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DecisionExtras<'a> {
    /// A deny's words for the agent (the person's feedback, from the app's `message`): cleaned
    /// and bounded again here ([`crate::answer::clean_feedback`]); [`DENY_MESSAGE`] when none is
    /// left. Read by the shapes whose deny carries words (hook-specific and flat); a named
    /// tool's `--reply vults` deny stays the fixed `reason`, and OpenCode's reject has none.
    pub feedback: Option<&'a str>,
    /// A plan review's tool input ([`plan_review`]), as the agent sent it (the hook's own,
    /// unshaped copy): an allow echoes it as `updatedInput`, which is what approves the plan
    /// (Claude Code ignores a bare allow of ExitPlanMode). Echoed exactly: a different `plan`
    /// would replace the plan the person approved.
    pub plan_input: Option<&'a Value>,
}

/// [`render_decision`] with the feedback of a deny and the input a plan's approval echoes.
pub fn render_decision_with(
    shape: ReplyShape,
    question: bool,
    decision: Decision,
    extras: DecisionExtras<'_>,
) -> String {
    let feedback = extras.feedback.and_then(crate::answer::clean_feedback);
    let said = feedback.as_deref().unwrap_or(DENY_MESSAGE);
    let v = match (shape, decision) {
        (ReplyShape::HookSpecific, d) if question => {
            let mut out = json!({"hookEventName": "PreToolUse", "permissionDecision": d.as_str()});
            if d == Decision::Deny {
                out["permissionDecisionReason"] = json!(said);
            }
            json!({ "hookSpecificOutput": out })
        }
        (ReplyShape::HookSpecific, Decision::Allow) => {
            let mut decision = json!({"behavior":"allow"});
            if let Some(input) = extras.plan_input {
                decision["updatedInput"] = input.clone();
            }
            json!({"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":decision}})
        }
        (ReplyShape::HookSpecific, Decision::Deny) => json!({"hookSpecificOutput":{
            "hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":said}}}),
        (ReplyShape::Flat, Decision::Allow) => json!({"behavior":"allow"}),
        (ReplyShape::Flat, Decision::Deny) => json!({"behavior":"deny","message":said}),
        (ReplyShape::OpencodeRelay, Decision::Allow) => json!({"reply":"once"}),
        (ReplyShape::OpencodeRelay, Decision::Deny) => json!({"reply":"reject"}),
        (ReplyShape::Vults, Decision::Allow) => json!({"decision":"allow"}),
        (ReplyShape::Vults, Decision::Deny) => json!({"decision":"deny","reason":DENY_MESSAGE}),
    };
    v.to_string()
}

/// The plan of a plan review: `payload` of `agent` calls the tool its row names for leaving
/// plan mode ([`AgentSpec::plan_tool`]: Claude Code's ExitPlanMode) with the plan, a string,
/// in `tool_input.plan` (Claude Code fills it in from the plan file). `None` for anything
/// else, an ExitPlanMode without a plan (`tool_input: {}`: no plan file was written) included.
pub fn plan_review(agent: AgentKind, payload: &Value) -> Option<&str> {
    let tool = spec_of(agent)?.plan_tool?;
    if tool_name(payload)? != tool {
        return None;
    }
    payload.get("tool_input")?.get("plan")?.as_str()
}

/// Answers to an AskUserQuestion in the agent's shape, matched by position to the questions in
/// `payload` (the hook's own, unshaped copy). `None` when the counts differ or the agent cannot
/// take answers: the hook then prints nothing and the agent asks in its terminal.
pub fn render_answers(
    shape: ReplyShape,
    payload: &Value,
    answers: &[AnswerItem],
) -> Option<String> {
    let input = tool_input(payload)?;
    let questions = input.get("questions")?.as_array()?;
    if questions.is_empty() || questions.len() != answers.len() {
        return None;
    }
    match shape {
        ReplyShape::HookSpecific => {
            let mut by_text = Map::new();
            for (q, a) in questions.iter().zip(answers) {
                let text = q.get("question")?.as_str()?;
                let value = match a {
                    AnswerItem::One(s) => json!(s),
                    AnswerItem::Many(v) => json!(v),
                };
                by_text.insert(text.to_string(), value);
            }
            let mut updated = input.as_object()?.clone();
            updated.insert("answers".into(), Value::Object(by_text));
            Some(
                json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow",
                    "updatedInput": updated}})
                .to_string(),
            )
        }
        ReplyShape::OpencodeRelay => {
            let lists: Vec<Vec<String>> = answers.iter().map(AnswerItem::labels).collect();
            Some(json!({ "answers": lists }).to_string())
        }
        ReplyShape::Flat | ReplyShape::Vults => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Reading payloads
// ---------------------------------------------------------------------------------------------

/// The tool name in any agent's payload (`tool_name`, Copilot's `toolName`, OpenCode's
/// `permission`).
pub fn tool_name(payload: &Value) -> Option<&str> {
    ["tool_name", "toolName", "permission"]
        .iter()
        .find_map(|k| payload.get(*k).and_then(Value::as_str))
}

/// The tool's input in any agent's payload. Copilot's `toolArgs` may arrive as a JSON string.
pub fn tool_input(payload: &Value) -> Option<Value> {
    for key in ["tool_input", "toolInput", "toolArgs"] {
        match payload.get(key) {
            Some(Value::String(s)) => {
                return Some(serde_json::from_str(s).unwrap_or_else(|_| json!({ "command": s })));
            }
            Some(v @ Value::Object(_)) => return Some(v.clone()),
            _ => {}
        }
    }
    // OpenCode's permission.asked, relayed as it came.
    if let Some(meta) = payload.get("metadata").filter(|m| m.is_object()) {
        let mut m = meta.clone();
        if m.get("command").is_none()
            && let Some(p) = payload.get("patterns").and_then(Value::as_array)
        {
            let joined: Vec<&str> = p.iter().filter_map(Value::as_str).collect();
            m["command"] = json!(joined.join("\n"));
        }
        return Some(m);
    }
    // Cursor's beforeShellExecution carries the command at the top.
    payload
        .get("command")
        .and_then(Value::as_str)
        .map(|c| json!({ "command": c }))
}

/// `cwd` of the payload, else the first of `workspacePaths` (Antigravity) or
/// `workspace_roots` (Cursor), else the hook's own folder.
pub fn resolve_cwd(payload: &Value, own_cwd: &str) -> String {
    let first = |key: &str| {
        payload
            .get(key)?
            .as_array()?
            .first()?
            .as_str()
            .map(str::to_string)
    };
    payload
        .get("cwd")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .or_else(|| first("workspacePaths"))
        .or_else(|| first("workspace_roots"))
        .unwrap_or_else(|| own_cwd.to_string())
}

/// The agent's session id: `session_id`, Copilot's `sessionId`, OpenCode's `sessionID`,
/// Cursor's `conversation_id`.
pub fn session_id(payload: &Value) -> Option<&str> {
    ["session_id", "sessionId", "sessionID", "conversation_id"]
        .iter()
        .find_map(|k| payload.get(*k).and_then(Value::as_str))
        .filter(|s| !s.is_empty())
}

/// What kind of tool, across the agents' own names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolKind {
    /// A shell command (`Bash`, `run_shell_command`, `shell` …).
    Shell,
    /// A file edited in place.
    Edit,
    /// A file written whole.
    Write,
    /// A file or folder read, listed or searched.
    Read,
    /// A URL fetched, or a web search.
    Fetch,
    /// A patch applied (Codex `apply_patch`).
    Patch,
    /// A question to the user (AskUserQuestion).
    Question,
    /// An MCP server's tool (`mcp__<server>__<tool>`).
    Mcp,
    /// Anything else.
    Other,
}

impl ToolKind {
    /// The kind of a tool as the agent names it; `Other` when it is not known.
    pub fn of(tool: &str) -> ToolKind {
        if tool.starts_with("mcp__") {
            return ToolKind::Mcp;
        }
        match tool {
            "Bash" | "bash" | "Shell" | "shell" | "run_shell_command" | "Execute"
            | "run_command" | "powershell" | "PowerShell" | "exec_command" | "local_shell" => {
                ToolKind::Shell
            }
            "Edit"
            | "MultiEdit"
            | "edit"
            | "replace"
            | "str_replace"
            | "replace_file_content"
            | "NotebookEdit" => ToolKind::Edit,
            "Write" | "write" | "write_file" | "create" | "write_to_file" | "Create" => {
                ToolKind::Write
            }
            "Read" | "read" | "read_file" | "view" | "view_file" | "Glob" | "Grep" | "glob"
            | "grep" | "LS" | "list" => ToolKind::Read,
            "WebFetch" | "web_fetch" | "webfetch" | "fetch" | "WebSearch" | "web_search" => {
                ToolKind::Fetch
            }
            "apply_patch" => ToolKind::Patch,
            "AskUserQuestion" | "ask_user" | "question" => ToolKind::Question,
            _ => ToolKind::Other,
        }
    }
}

/// One question of an AskUserQuestion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    /// The question as asked.
    pub question: String,
    /// A short label for the question (Claude Code's chip).
    #[serde(default)]
    pub header: String,
    /// The options offered; empty when only free text is asked for.
    #[serde(default)]
    pub options: Vec<QuestionOption>,
    /// Whether several options may be picked.
    #[serde(default, rename = "multiSelect")]
    pub multi_select: bool,
}

/// One option of a [`Question`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionOption {
    /// What the option says, and what an answer names.
    pub label: String,
    /// A longer explanation of the option.
    #[serde(default)]
    pub description: String,
}

/// The whole of what a tool call would touch — what a card shows and an Always rule keys on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Target {
    /// A shell command, whole.
    Command {
        /// The command.
        command: String,
    },
    /// A file edit: the path, and the old/new text when the tool says it.
    Edit {
        /// The file edited.
        path: String,
        /// The text replaced, when the tool says.
        old: Option<String>,
        /// The text put in its place, when the tool says.
        new: Option<String>,
    },
    /// A file written whole.
    Write {
        /// The file written.
        path: String,
        /// Its whole new content, when the tool says.
        content: Option<String>,
    },
    /// A file or folder read or searched.
    Path {
        /// The file or folder.
        path: String,
    },
    /// A URL fetched (or a search query).
    Url {
        /// The URL, or the search query.
        url: String,
    },
    /// A patch (Codex `apply_patch`).
    Patch {
        /// The whole patch.
        patch: String,
    },
    /// AskUserQuestion's questions.
    Questions {
        /// In the order asked.
        questions: Vec<Question>,
    },
    /// An MCP tool: server, tool and its JSON input.
    Mcp {
        /// The MCP server's name.
        server: String,
        /// The tool's name on that server.
        tool: String,
        /// Its input as canonical JSON.
        input: String,
    },
    /// Anything else: the tool input as canonical JSON.
    Input {
        /// The canonical JSON.
        json: String,
    },
}

impl Target {
    /// The exact string an Always rule of [`crate::rules::Scope::Target`] keys on: the whole
    /// command, URL or patch; the file of an edit, a write or a read (any change to it);
    /// otherwise the canonical JSON of the tool input.
    pub fn rule_key(&self) -> String {
        match self {
            Target::Command { command } => command.clone(),
            Target::Edit { path, .. } | Target::Write { path, .. } | Target::Path { path } => {
                path.clone()
            }
            Target::Url { url } => url.clone(),
            Target::Patch { patch } => patch.clone(),
            Target::Questions { questions } => canonical_json(&json!(questions)),
            Target::Mcp { input, .. } => input.clone(),
            Target::Input { json } => json.clone(),
        }
    }

    /// A one-line summary for lists (the flock, history); cards show the whole target.
    pub fn summary(&self) -> String {
        let s = match self {
            Target::Questions { questions } => questions
                .first()
                .map(|q| q.question.clone())
                .unwrap_or_default(),
            Target::Mcp { server, tool, .. } => format!("{server}/{tool}"),
            // OpenCode asks for an edit with its whole input (the diff it made): the file.
            Target::Input { json } => input_path(json).unwrap_or_else(|| json.clone()),
            other => other.rule_key(),
        };
        let line = s.lines().next().unwrap_or_default();
        let mut out: String = line.chars().take(120).collect();
        if out.len() < s.len() {
            out.push('…');
        }
        out
    }

    /// The shell command, for a [`Target::Command`].
    pub fn command(&self) -> Option<&str> {
        match self {
            Target::Command { command } => Some(command),
            _ => None,
        }
    }
}

/// The file a tool input in JSON names (`filepath`, `filePath`, `file_path`, `path`): how a list
/// shows an OpenCode edit, whose target is its whole input. `None` when it names none.
pub fn input_path(json: &str) -> Option<String> {
    let input: Value = serde_json::from_str(json).ok()?;
    ["filepath", "filePath", "file_path", "path"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .map(str::to_string)
}

/// A tool call as every agent's adapter reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The agent's session id, when the payload has one.
    pub session_id: Option<String>,
    /// The folder the agent works in, as the payload says (`cwd`).
    pub cwd: Option<String>,
    /// The tool as the agent names it (`Bash`, `run_shell_command`, `mcp__github__create_issue`…).
    pub tool: String,
    /// The kind of tool, across agents' names.
    pub kind: ToolKind,
    /// The whole of what the call would touch.
    pub target: Target,
    /// The canonical JSON of the whole tool input, for an edit or a write of a file: its
    /// [`Target::rule_key`] is the file (any change to it), this is the one change (old and new
    /// text, `replace_all`, the content). What a [`crate::rules::Scope::Exact`] rule keys on;
    /// `None` for every other target, whose key already is the whole call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<String>,
}

/// Reads any agent's payload. The shapes differ only in field names (see [`tool_name`],
/// [`tool_input`], [`session_id`]), so one reader serves every adapter.
pub fn read_tool_call(payload: &Value) -> ToolCall {
    let tool = tool_name(payload).unwrap_or_default().to_string();
    let input = tool_input(payload).unwrap_or(Value::Null);
    let kind = ToolKind::of(&tool);
    let target = target_of(&tool, kind, &input);
    let exact = matches!(target, Target::Edit { .. } | Target::Write { .. })
        .then(|| canonical_json(&input));
    ToolCall {
        session_id: session_id(payload).map(str::to_string),
        cwd: payload
            .get("cwd")
            .and_then(Value::as_str)
            .map(str::to_string),
        tool,
        kind,
        target,
        exact,
    }
}

fn str_field<'a>(input: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
}

fn target_of(tool: &str, kind: ToolKind, input: &Value) -> Target {
    let path = str_field(
        input,
        &[
            "file_path",
            "filePath",
            "path",
            "absolute_path",
            "notebook_path",
            "TargetFile",
        ],
    );
    let whole = || Target::Input {
        json: canonical_json(input),
    };
    match kind {
        ToolKind::Shell => command_of(input)
            .map(|command| Target::Command { command })
            .unwrap_or_else(whole),
        ToolKind::Patch => command_of(input)
            .or_else(|| str_field(input, &["patch", "input"]).map(str::to_string))
            .map(|patch| Target::Patch { patch })
            .unwrap_or_else(whole),
        ToolKind::Edit => match path {
            Some(p) => Target::Edit {
                path: p.to_string(),
                old: str_field(input, &["old_string", "oldString", "old_str", "old"])
                    .map(str::to_string),
                new: str_field(
                    input,
                    &["new_string", "newString", "new_str", "new", "new_source"],
                )
                .map(str::to_string)
                .or_else(|| {
                    input
                        .get("edits")
                        .map(|e| serde_json::to_string_pretty(e).unwrap_or_default())
                }),
            },
            None => whole(),
        },
        ToolKind::Write => match path {
            Some(p) => Target::Write {
                path: p.to_string(),
                content: str_field(input, &["content", "file_text", "CodeContent"])
                    .map(str::to_string),
            },
            None => whole(),
        },
        ToolKind::Read => match path.or_else(|| str_field(input, &["pattern"])) {
            Some(p) => Target::Path {
                path: p.to_string(),
            },
            None => whole(),
        },
        ToolKind::Fetch => match str_field(input, &["url", "query"]) {
            Some(u) => Target::Url { url: u.to_string() },
            None => whole(),
        },
        ToolKind::Question => match input.get("questions").cloned().map(serde_json::from_value) {
            Some(Ok(questions)) => Target::Questions { questions },
            _ => whole(),
        },
        ToolKind::Mcp => {
            let mut parts = tool.trim_start_matches("mcp__").splitn(2, "__");
            Target::Mcp {
                server: parts.next().unwrap_or_default().to_string(),
                tool: parts.next().unwrap_or_default().to_string(),
                input: canonical_json(input),
            }
        }
        ToolKind::Other => match command_of(input) {
            Some(command) => Target::Command { command },
            None => match str_field(input, &["url"]) {
                Some(u) => Target::Url { url: u.to_string() },
                None => whole(),
            },
        },
    }
}

/// A command as a string; an argv list (`["bash","-lc","…"]`) is joined with shell quoting.
/// The command a shell call runs, as one string: `command` (or `cmd`) as a string, or an argv
/// list shell-quoted. `None` when it is neither, or says nothing (blank, an empty list): the
/// card then shows the whole input, which is what an Allow authorizes.
fn command_of(input: &Value) -> Option<String> {
    match input.get("command").or_else(|| input.get("cmd")) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(Value::Array(argv)) if !argv.is_empty() => {
            let words: Option<Vec<&str>> = argv.iter().map(Value::as_str).collect();
            Some(
                words?
                    .iter()
                    .map(|w| shell_quote(w))
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        }
        _ => None,
    }
}

fn shell_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,@%+".contains(&b))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// JSON with object keys sorted, so equal inputs give equal strings.
pub fn canonical_json(v: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&m[k])))
                        .collect(),
                )
            }
            Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(v).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

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
