//! Always rules: exact (identity, folder, tool, target) → allow. Made when the user answers
//! "Always allow" on a card; stored as JSON in the config folder ([`crate::paths::Paths::rules_file`]),
//! written atomically.
//!
//! This module owns the rule type, its id, the file format and the lookups. It does not decide
//! anything: [`crate::decision::decide`] does, and it never lets a rule answer a destructive
//! call or a question.
//!
//! The file is `{"version":1,"rules":[…]}`. Each stored rule says whether its identity is a
//! built-in agent or a named tool (`"named": true`), so a named tool whose name later becomes a
//! built-in agent is recognised at load and its rules are dropped (docs/hook-protocol.md §7): they
//! are never carried over to an agent that reads another reply.

use crate::agents::ToolCall;
use crate::protocol::{AgentKind, AgentName, Identity};
use serde::{Deserialize, Serialize};
use std::io;
use std::path::Path;

/// The file format version this build reads and writes.
pub const RULES_VERSION: u32 = 1;

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
    /// ([`crate::agents::Target::rule_key`]).
    pub target: String,
    /// Unix seconds.
    pub created: u64,
}

impl AlwaysRule {
    /// The rule "Always allow" on this call's card creates.
    pub fn for_call(
        identity: &Identity,
        folder: &str,
        call: &ToolCall,
        now_unix: u64,
    ) -> AlwaysRule {
        let target = call.target.rule_key();
        AlwaysRule {
            id: rule_id(identity, folder, &call.tool, &target),
            identity: identity.clone(),
            folder: folder.to_string(),
            tool: call.tool.clone(),
            target,
            created: now_unix,
        }
    }

    /// The rule an "Always allow" on this call's card may offer: none when the call names no
    /// tool or its target is blank (a Codex approval without a command once came as an empty
    /// command), since such a rule would allow every call that also names nothing.
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

    /// Whether this rule is for exactly this (identity, folder, tool, target).
    pub fn is_for(&self, identity: &Identity, folder: &str, tool: &str, target: &str) -> bool {
        &self.identity == identity
            && self.folder == folder
            && self.tool == tool
            && self.target == target
    }
}

/// `r-` and 12 hex digits of a hash of the whole tuple: the same tuple always gets the same id,
/// across runs and builds (FNV-1a, not std's hasher, whose output may change between releases).
pub fn rule_id(identity: &Identity, folder: &str, tool: &str, target: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let kind = match identity {
        Identity::Builtin(_) => "agent",
        Identity::Named(_) => "named",
    };
    for part in [kind, identity.key(), folder, tool, target] {
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
    #[serde(default)]
    created: u64,
}

#[derive(Serialize, Deserialize)]
struct StoredFile {
    version: u32,
    #[serde(default)]
    rules: Vec<StoredRule>,
}

impl RuleSet {
    /// Reads the rules file. A missing file is an empty set. `Err` means the file exists but
    /// cannot be read or understood: the caller must keep it as it is (never overwrite it) and
    /// show the message. The `Vec<String>` holds warnings for the log, one per rule dropped.
    pub fn load(path: &Path) -> Result<(RuleSet, Vec<String>), String> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok((RuleSet::default(), Vec::new()));
            }
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        RuleSet::from_json(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parses the file's bytes (see [`RuleSet::load`]).
    pub fn from_json(bytes: &[u8]) -> Result<(RuleSet, Vec<String>), String> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok((RuleSet::default(), Vec::new()));
        }
        let file: StoredFile = serde_json::from_slice(bytes).map_err(|e| {
            format!("not a Vults rules file ({e}); it was left as it is, fix or remove it")
        })?;
        if file.version != RULES_VERSION {
            return Err(format!(
                "rules file version {} is not {RULES_VERSION} (written by another Vults?); \
                 it was left as it is",
                file.version
            ));
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

    /// The rule for exactly this tuple. A rule with no tool or an empty target never matches,
    /// however it got into the set.
    pub fn find(
        &self,
        identity: &Identity,
        folder: &str,
        tool: &str,
        target: &str,
    ) -> Option<&AlwaysRule> {
        self.rules
            .iter()
            .find(|r| r.is_whole() && r.is_for(identity, folder, tool, target))
    }

    /// Adds a rule; `false` (and nothing changes) when one for the same tuple exists, or when
    /// it names no tool or an empty target ([`AlwaysRule::is_whole`]).
    pub fn add(&mut self, rule: AlwaysRule) -> bool {
        if !rule.is_whole()
            || self
                .find(&rule.identity, &rule.folder, &rule.tool, &rule.target)
                .is_some()
        {
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
    fn find_is_exact_on_all_four_and_add_refuses_duplicates() {
        let mut set = RuleSet::default();
        let tool_a = named("tool-a");
        let rule = AlwaysRule::for_call(&tool_a, "/p", &bash("make"), 1);
        assert!(set.add(rule.clone()));
        assert!(!set.add(rule.clone()));
        assert_eq!(set.rules.len(), 1);
        assert!(set.find(&tool_a, "/p", "Bash", "make").is_some());
        assert!(set.find(&named("tool-b"), "/p", "Bash", "make").is_none());
        assert!(
            set.find(&Identity::Builtin(AgentKind::Claude), "/p", "Bash", "make")
                .is_none()
        );
        assert!(set.find(&tool_a, "/p/sub", "Bash", "make").is_none());
        assert!(set.find(&tool_a, "/p", "bash", "make").is_none());
        assert!(set.find(&tool_a, "/p", "Bash", "make ").is_none());
        assert_eq!(set.for_identity(&tool_a).count(), 1);
        assert_eq!(set.for_identity(&named("tool-b")).count(), 0);
        assert_eq!(set.remove(&rule.id), Some(rule));
        assert!(set.remove("r-000000000000").is_none());
        assert!(set.rules.is_empty());
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
        assert!(err.contains("rules.json"), "{err}");
        std::fs::write(&path, "{\"version\":2,\"rules\":[]}").expect("write");
        let err = RuleSet::load(&path).expect_err("newer version");
        assert!(err.contains("version 2"), "{err}");
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
        assert!(set.find(&claude, "/p", "Bash", "").is_none());
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
