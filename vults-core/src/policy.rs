//! Policies: a TOML file of the user's (`policies.toml` in the config folder, see
//! [`crate::paths::Paths::policies_file`] and `docs/policies.md`) saying deny / ask / allow for
//! agents, tools, targets and folders.
//!
//! This module owns the file format, its errors (with line and column) and what a policy
//! matches. What a match *does* is [`crate::decision::decide`]'s: a deny beats an ask beats an
//! allow, and an allow only ever reaches Claude Code (docs/policies.md).
//!
//! ```toml
//! [[policy]]
//! name = "no force push"
//! agents = ["codex", "my-tool"]
//! kind = "shell"
//! target = "git push*--force*"
//! action = "deny"
//! ```

use crate::agents::{ToolCall, ToolKind};
use crate::protocol::{AgentKind, AgentName, Identity};
use serde::{Deserialize, Serialize};
use std::path::Path;
use toml::Spanned;

/// What a matching policy does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Refuse the call.
    Deny,
    /// Send it to a person (a card).
    Ask,
    /// Let it run (Claude Code only, and never a destructive call).
    Allow,
}

impl Action {
    /// The action as the policy file spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Deny => "deny",
            Action::Ask => "ask",
            Action::Allow => "allow",
        }
    }
}

/// The policies in force.
#[derive(Debug, Clone, Default)]
pub struct PolicySet {
    /// In file order.
    pub policies: Vec<Policy>,
}

/// One policy. Every condition left out matches anything; all given conditions must hold.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Its name, shown as who answered (`policy:<name>`).
    pub name: String,
    /// What it does when it matches.
    pub action: Action,
    /// Whom it reaches.
    pub agents: Agents,
    /// The tool as the agent names it (`Bash`, `run_shell_command`, `mcp__github__*`): exact,
    /// or a glob when it has `*`, `?` or `[`.
    pub tool: Option<Glob>,
    /// The kind of tool across agents (`shell`, `edit`, `write`, `read`, `fetch`, `patch`,
    /// `question`, `mcp`, `other`).
    pub kind: Option<ToolKind>,
    /// The whole command, file path or URL ([`crate::agents::Target::rule_key`]).
    pub target: Option<TargetPattern>,
    /// The folder the agent works in, or any folder above it.
    pub folder: Option<Glob>,
    /// Where the policy starts in the file (1-based), for messages.
    pub line: usize,
}

/// Whom a policy reaches. `every_builtin` comes from `"*"` or an omitted `agents`: it covers
/// every built-in agent and never a named tool — a named tool is reached only by its own name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Agents {
    /// Every built-in agent (`"*"` or no `agents`); never a named tool.
    pub every_builtin: bool,
    /// Identities named one by one.
    pub listed: Vec<Identity>,
}

impl Agents {
    /// Whether a policy with these agents reaches `identity`.
    pub fn reaches(&self, identity: &Identity) -> bool {
        self.listed.contains(identity)
            || (self.every_builtin && matches!(identity, Identity::Builtin(_)))
    }
}

/// A target condition: a glob over the whole target, or a regex found anywhere in it.
#[derive(Debug, Clone)]
pub enum TargetPattern {
    /// `target = "…"`: a glob over the whole target.
    Glob(Glob),
    /// `target_regex = "…"`: found anywhere in the target.
    Regex(regex_lite::Regex),
}

impl TargetPattern {
    /// Whether `target` meets the condition.
    pub fn matches(&self, target: &str) -> bool {
        match self {
            TargetPattern::Glob(g) => g.matches(target),
            TargetPattern::Regex(r) => r.is_match(target),
        }
    }
}

/// Why a policy file was not taken: where, and what. Lines and columns are 1-based; 0 when
/// the file could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError {
    /// 1-based line; 0 when the file could not be read.
    pub line: usize,
    /// 1-based column; 0 when unknown.
    pub column: usize,
    /// What is wrong, in words.
    pub message: String,
}

impl std::fmt::Display for PolicyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            f.write_str(&self.message)
        } else {
            write!(
                f,
                "line {}, column {}: {}",
                self.line, self.column, self.message
            )
        }
    }
}

impl std::error::Error for PolicyError {}

// ---------------------------------------------------------------------------------------------
// The file
// ---------------------------------------------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    policy: Vec<Spanned<RawPolicy>>,
}

/// `agents = "*"` or `agents = ["claude", "my-tool"]`. Written by hand rather than as an
/// untagged enum: serde buffers untagged content, which loses the spans of the entries.
enum RawAgents {
    One(String),
    Many(Vec<Spanned<String>>),
}

impl<'de> Deserialize<'de> for RawAgents {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = RawAgents;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("\"*\" or a list of agents and tool names")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RawAgents, E> {
                Ok(RawAgents::One(v.to_string()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<RawAgents, A::Error> {
                let mut out = Vec::new();
                while let Some(item) = seq.next_element::<Spanned<String>>()? {
                    out.push(item);
                }
                Ok(RawAgents::Many(out))
            }
        }
        d.deserialize_any(Visitor)
    }
}

// Unknown keys are errors: a misspelt condition (`folders = …`) would otherwise widen a policy
// to everything.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    name: Spanned<String>,
    action: Spanned<Action>,
    #[serde(default)]
    agents: Option<Spanned<RawAgents>>,
    #[serde(default)]
    tool: Option<Spanned<String>>,
    #[serde(default)]
    kind: Option<Spanned<ToolKind>>,
    #[serde(default)]
    target: Option<Spanned<String>>,
    #[serde(default)]
    target_regex: Option<Spanned<String>>,
    #[serde(default)]
    folder: Option<Spanned<String>>,
}

impl PolicySet {
    /// Parses a policies file. `~` at the start of a folder is the user's home.
    pub fn parse(text: &str) -> Result<PolicySet, PolicyError> {
        PolicySet::parse_with_home(text, home_dir().as_deref())
    }

    /// [`PolicySet::parse`] with the home folder given (tests; `None` leaves `~` as is).
    pub fn parse_with_home(text: &str, home: Option<&str>) -> Result<PolicySet, PolicyError> {
        let raw: RawFile = toml::from_str(text).map_err(|e| {
            let at = e.span().map(|s| s.start).unwrap_or(0);
            let mut message = e.message().trim_end().to_string();
            if message.starts_with("invalid type: map, expected a sequence") {
                message.push_str(" (write each policy as [[policy]], with two brackets)");
            }
            error_at(text, at, &message)
        })?;
        let mut set = PolicySet::default();
        for spanned in raw.policy {
            let start = spanned.span().start;
            let policy = build(text, spanned.into_inner(), home, line_col(text, start).0)?;
            if let Some(dup) = set.policies.iter().find(|p| p.name == policy.name) {
                return Err(error_at(
                    text,
                    start,
                    &format!(
                        "two policies are named '{}' (the other at line {}); names tell them apart in the history",
                        policy.name, dup.line
                    ),
                ));
            }
            set.policies.push(policy);
        }
        Ok(set)
    }

    /// Reads the policies file; a missing file is an empty set.
    pub fn load(path: &Path) -> Result<PolicySet, PolicyError> {
        match std::fs::read_to_string(path) {
            Ok(text) => PolicySet::parse(&text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(PolicySet::default()),
            Err(e) => Err(PolicyError {
                line: 0,
                column: 0,
                message: format!("cannot read {}: {e}", path.display()),
            }),
        }
    }

    /// Things in the file that parse but will not do what they seem to: an `allow` that names
    /// agents other than Claude Code (policy allow reaches Claude Code only).
    pub fn warnings(&self) -> Vec<String> {
        // The agents whose row says a policy may allow them (`policy_allows`).
        let allowed = |i: &Identity| match i {
            Identity::Builtin(kind) => kind.agent().is_some_and(|a| a.spec().policy_allows),
            Identity::Named(_) => false,
        };
        self.policies
            .iter()
            .filter(|p| p.action == Action::Allow)
            .filter(|p| p.agents.every_builtin || !p.agents.listed.iter().all(allowed))
            .map(|p| {
                format!(
                    "policy '{}' (line {}): allow applies to Claude Code only; other agents and named tools still ask",
                    p.name, p.line
                )
            })
            .collect()
    }

    /// The policies reaching this call, in file order.
    pub fn matching<'a>(
        &'a self,
        identity: &'a Identity,
        folder: &'a str,
        call: &'a ToolCall,
    ) -> impl Iterator<Item = &'a Policy> + 'a {
        self.policies
            .iter()
            .filter(move |p| p.matches(identity, folder, call))
    }
}

fn build(
    text: &str,
    raw: RawPolicy,
    home: Option<&str>,
    line: usize,
) -> Result<Policy, PolicyError> {
    let err = |span: std::ops::Range<usize>, msg: String| error_at(text, span.start, &msg);
    let name = raw.name.get_ref().trim().to_string();
    if name.is_empty() {
        return Err(err(
            raw.name.span(),
            "a policy's name cannot be empty".into(),
        ));
    }
    let agents = match raw.agents {
        None => Agents {
            every_builtin: true,
            listed: Vec::new(),
        },
        Some(spanned) => {
            let span = spanned.span();
            let entries = match spanned.into_inner() {
                RawAgents::One(s) => vec![Spanned::new(span.clone(), s)],
                RawAgents::Many(v) => v,
            };
            if entries.is_empty() {
                return Err(err(
                    span,
                    "agents is empty; leave it out or write \"*\" for every built-in agent".into(),
                ));
            }
            let mut agents = Agents::default();
            for entry in entries {
                let s = entry.get_ref().as_str();
                if s == "*" {
                    agents.every_builtin = true;
                    continue;
                }
                let identity = match AgentKind::parse(s) {
                    Some(AgentKind::Other) => {
                        return Err(err(
                            entry.span(),
                            "'other' is not an agent: name the tool itself (agents = [\"my-tool\"])"
                                .into(),
                        ));
                    }
                    Some(kind) => Identity::Builtin(kind),
                    None => match AgentName::new(s) {
                        Ok(n) => Identity::Named(n),
                        Err(e) => {
                            return Err(err(
                                entry.span(),
                                format!(
                                    "'{s}' is neither a built-in agent (claude, codex, copilot, opencode, qwen) nor a tool name: {e}"
                                ),
                            ));
                        }
                    },
                };
                if !agents.listed.contains(&identity) {
                    agents.listed.push(identity);
                }
            }
            agents
        }
    };
    let glob = |s: &Spanned<String>, home: Option<&str>| {
        let mut p = s.get_ref().clone();
        if let Some(h) = home
            && (p == "~" || p.starts_with("~/"))
        {
            p = format!("{}{}", h.trim_end_matches('/'), &p[1..]);
        }
        Glob::new(&p).map_err(|m| err(s.span(), m.to_string()))
    };
    let tool = raw.tool.as_ref().map(|t| glob(t, None)).transpose()?;
    let folder = match raw.folder.as_ref() {
        Some(f) => {
            let mut g = glob(f, home)?;
            g.trim_trailing_slash();
            Some(g)
        }
        None => None,
    };
    let target = match (&raw.target, &raw.target_regex) {
        (Some(_), Some(r)) => {
            return Err(err(
                r.span(),
                "give either target (a glob) or target_regex, not both".into(),
            ));
        }
        (Some(t), None) => Some(TargetPattern::Glob(glob(t, None)?)),
        (None, Some(r)) => Some(TargetPattern::Regex(
            regex_lite::Regex::new(r.get_ref())
                .map_err(|e| err(r.span(), format!("target_regex is not a valid regex: {e}")))?,
        )),
        (None, None) => None,
    };
    Ok(Policy {
        name,
        action: *raw.action.get_ref(),
        agents,
        tool,
        kind: raw.kind.map(Spanned::into_inner),
        target,
        folder,
        line,
    })
}

impl Policy {
    /// Whether this policy reaches this call (its action aside).
    pub fn matches(&self, identity: &Identity, folder: &str, call: &ToolCall) -> bool {
        self.agents.reaches(identity)
            && self.kind.is_none_or(|k| k == call.kind)
            && self.tool.as_ref().is_none_or(|g| g.matches(&call.tool))
            && self
                .folder
                .as_ref()
                .is_none_or(|g| folder_matches(g, folder))
            && self
                .target
                .as_ref()
                .is_none_or(|t| t.matches(&call.target.rule_key()))
    }
}

/// The folder itself or any folder above it matches, so `folder = "~/work"` covers everything
/// under it.
fn folder_matches(glob: &Glob, folder: &str) -> bool {
    let trimmed = if folder.len() > 1 {
        folder.trim_end_matches(['/', '\\'])
    } else {
        folder
    };
    Path::new(trimmed)
        .ancestors()
        .filter_map(Path::to_str)
        .filter(|a| !a.is_empty())
        .any(|a| glob.matches(a))
}

fn home_dir() -> Option<String> {
    let var = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
    std::env::var(var).ok().filter(|h| !h.is_empty())
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

fn error_at(text: &str, offset: usize, message: &str) -> PolicyError {
    let (line, column) = line_col(text, offset);
    PolicyError {
        line,
        column,
        message: message.to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// Globs
// ---------------------------------------------------------------------------------------------

/// Why a glob was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GlobError {
    /// A `[` without its `]`.
    #[error("'{0}': a [ without its ] (write \\[ for a literal one)")]
    Unclosed(String),
}

/// A wildcard pattern over a whole string: `*` any run of characters (`/` and spaces
/// included), `?` one character, `[abc]` / `[a-z]` / `[!abc]` one of a set, `\*` a literal
/// star. A pattern without wildcards is an exact match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    text: String,
    chars: Vec<char>,
}

impl Glob {
    /// A glob (`*`, `?`, `[…]`, `\` escapes); an error names an unclosed `[`.
    pub fn new(pattern: &str) -> Result<Glob, GlobError> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '\\' => i += 2,
                '[' => match class_end(&chars, i) {
                    Some(end) => i = end + 1,
                    None => {
                        return Err(GlobError::Unclosed(pattern.to_string()));
                    }
                },
                _ => i += 1,
            }
        }
        Ok(Glob {
            text: pattern.to_string(),
            chars,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    fn trim_trailing_slash(&mut self) {
        while self.chars.len() > 1 && matches!(self.chars.last(), Some('/')) {
            self.chars.pop();
        }
        self.text = self.chars.iter().collect();
    }

    /// Whether the whole of `s` matches.
    pub fn matches(&self, s: &str) -> bool {
        let s: Vec<char> = s.chars().collect();
        glob_match(&self.chars, &s)
    }
}

/// Index of the `]` closing the class opened at `open`.
fn class_end(p: &[char], open: usize) -> Option<usize> {
    let mut i = open + 1;
    if matches!(p.get(i), Some('!' | '^')) {
        i += 1;
    }
    // A `]` right after the opening (or its negation) is a member, not the end.
    if p.get(i) == Some(&']') {
        i += 1;
    }
    while i < p.len() {
        if p[i] == ']' {
            return Some(i);
        }
        i += 1;
    }
    None
}

fn class_matches(p: &[char], open: usize, end: usize, c: char) -> bool {
    let mut i = open + 1;
    let negate = matches!(p.get(i), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let mut found = false;
    let first = i;
    while i < end {
        if i + 2 < end && p[i + 1] == '-' {
            if p[i] <= c && c <= p[i + 2] {
                found = true;
            }
            i += 3;
        } else {
            if p[i] == c && (p[i] != ']' || i == first) {
                found = true;
            }
            i += 1;
        }
    }
    found != negate
}

fn glob_match(p: &[char], s: &[char]) -> bool {
    let (mut pi, mut si) = (0, 0);
    // Where the last `*` was, and how much of `s` it has eaten so far.
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        let step = match p.get(pi) {
            Some('*') => {
                while p.get(pi) == Some(&'*') {
                    pi += 1;
                }
                star = Some((pi, si));
                continue;
            }
            Some('?') => Some(pi + 1),
            Some('[') => class_end(p, pi)
                .filter(|&end| class_matches(p, pi, end, s[si]))
                .map(|end| end + 1),
            Some('\\') if pi + 1 < p.len() => (p[pi + 1] == s[si]).then_some(pi + 2),
            Some(&c) => (c == s[si]).then_some(pi + 1),
            None => None,
        };
        match (step, star) {
            (Some(next), _) => {
                pi = next;
                si += 1;
            }
            (None, Some((after_star, eaten))) => {
                pi = after_star;
                si = eaten + 1;
                star = Some((after_star, eaten + 1));
            }
            (None, None) => return false,
        }
    }
    while p.get(pi) == Some(&'*') {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::Target;
    use crate::testing::{bash, call, named};

    fn parse(text: &str) -> PolicySet {
        PolicySet::parse_with_home(text, Some("/home/u")).expect("parses")
    }

    fn parse_err(text: &str) -> PolicyError {
        PolicySet::parse_with_home(text, Some("/home/u")).expect_err("does not parse")
    }

    const CLAUDE: Identity = Identity::Builtin(AgentKind::Claude);

    #[test]
    fn globs() {
        let cases = [
            ("git push*", "git push --force origin main", true),
            ("git push*", "git pull", false),
            ("*.env", "/p/.env", true),
            ("*.env", "/p/.env.example", false),
            ("/home/u/*", "/home/u/a/b", true),
            ("file?.txt", "file1.txt", true),
            ("file?.txt", "file10.txt", false),
            ("[ab]c", "bc", true),
            ("[!ab]c", "bc", false),
            ("[a-c]x", "cx", true),
            ("a\\*b", "a*b", true),
            ("a\\*b", "axb", false),
            ("Bash", "Bash", true),
            ("Bash", "bash", false),
            ("", "", true),
            ("*", "", true),
            ("a*b*c", "abxbxc", true),
            ("a*b*c", "abxbx", false),
        ];
        for (p, s, want) in cases {
            assert_eq!(Glob::new(p).expect("glob").matches(s), want, "{p} vs {s}");
        }
        assert!(Glob::new("a[b").is_err());
    }

    #[test]
    fn a_full_policy_matches_on_every_condition() {
        let set = parse(
            r#"
[[policy]]
name = "no pushes in work"
agents = ["claude", "my-tool"]
tool = "Bash"
kind = "shell"
target = "git push*"
folder = "~/work"
action = "deny"
"#,
        );
        let p = &set.policies[0];
        assert_eq!(p.line, 2);
        assert_eq!(p.action, Action::Deny);
        assert!(p.matches(&CLAUDE, "/home/u/work/app", &bash("git push origin")));
        assert!(p.matches(&named("my-tool"), "/home/u/work", &bash("git push")));
        assert!(!p.matches(&named("tool-b"), "/home/u/work", &bash("git push")));
        assert!(!p.matches(
            &Identity::Builtin(AgentKind::Codex),
            "/home/u/work",
            &bash("git push")
        ));
        assert!(!p.matches(&CLAUDE, "/home/u/workshop", &bash("git push")));
        assert!(!p.matches(&CLAUDE, "/home/u/work", &bash("git status")));
        let other_tool = call(
            "run_shell_command",
            Target::Command {
                command: "git push".into(),
            },
        );
        assert!(!p.matches(&CLAUDE, "/home/u/work", &other_tool));
    }

    #[test]
    fn star_or_omitted_agents_reach_builtins_but_never_named_tools() {
        let set = parse(
            r#"
[[policy]]
name = "all"
agents = "*"
action = "ask"

[[policy]]
name = "omitted"
action = "ask"

[[policy]]
name = "star and a tool"
agents = ["*", "tool-a"]
action = "ask"
"#,
        );
        let c = bash("ls");
        for p in &set.policies {
            assert!(p.matches(&CLAUDE, "/p", &c), "{}", p.name);
            assert!(
                p.matches(&Identity::Builtin(AgentKind::Copilot), "/p", &c),
                "{}",
                p.name
            );
            assert!(!p.matches(&named("tool-b"), "/p", &c), "{}", p.name);
        }
        assert!(!set.policies[0].matches(&named("tool-a"), "/p", &c));
        assert!(set.policies[2].matches(&named("tool-a"), "/p", &c));
    }

    #[test]
    fn kind_and_regex_targets() {
        let set = parse(
            r#"
[[policy]]
name = "secrets"
kind = "read"
target_regex = '(^|/)\.env$'
action = "deny"
"#,
        );
        let p = &set.policies[0];
        let read = |path: &str| call("Read", Target::Path { path: path.into() });
        assert!(p.matches(&CLAUDE, "/p", &read("/p/.env")));
        assert!(!p.matches(&CLAUDE, "/p", &read("/p/.env.example")));
        assert!(!p.matches(&CLAUDE, "/p", &bash("cat .env")));
    }

    #[test]
    fn errors_have_line_and_column() {
        // TOML syntax: the unterminated string on line 3.
        let e = parse_err("[[policy]]\nname = \"a\"\naction = \"deny\nx = 1\n");
        assert_eq!((e.line, e.column), (3, 15), "{e}");
        // An action that does not exist.
        let e = parse_err("[[policy]]\nname = \"a\"\naction = \"block\"\n");
        assert_eq!(e.line, 3, "{e}");
        assert!(
            e.message.contains("block") || e.message.contains("variant"),
            "{e}"
        );
        // One bracket instead of two.
        let e = parse_err("[policy]\nname = \"a\"\naction = \"deny\"\n");
        assert!(e.message.contains("[[policy]]"), "{e}");
        // A misspelt key.
        let e = parse_err("[[policy]]\nname = \"a\"\naction = \"deny\"\nfolders = \"/x\"\n");
        assert_eq!(e.line, 4, "{e}");
        assert!(e.message.contains("folders"), "{e}");
        // A reserved agent name, pointed at in its list.
        let e = parse_err(
            "[[policy]]\nname = \"a\"\nagents = [\"claude\", \"gemini\"]\naction = \"deny\"\n",
        );
        assert_eq!((e.line, e.column), (3, 21), "{e}");
        assert!(e.message.contains("gemini"), "{e}");
        // 'other' is not an identity.
        let e = parse_err("[[policy]]\nname = \"a\"\nagents = [\"other\"]\naction = \"deny\"\n");
        assert_eq!((e.line, e.column), (3, 11), "{e}");
        // A bad regex.
        let e = parse_err("[[policy]]\nname = \"a\"\naction = \"ask\"\ntarget_regex = \"(\"\n");
        assert_eq!((e.line, e.column), (4, 16), "{e}");
        // Missing action.
        let e = parse_err("[[policy]]\nname = \"a\"\n");
        assert_eq!(e.line, 1, "{e}");
        assert!(e.message.contains("action"), "{e}");
        // Both target forms.
        let e = parse_err(
            "[[policy]]\nname = \"a\"\naction = \"ask\"\ntarget = \"x\"\ntarget_regex = \"x\"\n",
        );
        assert_eq!(e.line, 5, "{e}");
        // Two policies with one name.
        let e = parse_err(
            "[[policy]]\nname = \"a\"\naction = \"ask\"\n\n[[policy]]\nname = \"a\"\naction = \"deny\"\n",
        );
        assert_eq!(e.line, 5, "{e}");
        assert!(e.to_string().starts_with("line 5, column 1: "), "{e}");
    }

    #[test]
    fn load_missing_is_empty_and_warnings_flag_useless_allows() {
        let dir = std::env::temp_dir().join(format!("vults-policy-{}", std::process::id()));
        let set = PolicySet::load(&dir.join("none.toml")).expect("missing is empty");
        assert!(set.policies.is_empty());
        let set = parse(
            "[[policy]]\nname = \"ok\"\nagents = [\"claude\"]\naction = \"allow\"\n\
             [[policy]]\nname = \"useless\"\nagents = [\"tool-a\"]\naction = \"allow\"\n",
        );
        let w = set.warnings();
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("useless"));
        assert!(parse("").policies.is_empty());
    }
}
