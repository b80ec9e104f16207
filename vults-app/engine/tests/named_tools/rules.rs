//! Always rules and policies keyed by a named tool's name (docs/hook-protocol.md §7): a rule made
//! on `tool-a`'s card answers only `tool-a`; a policy reaches `tool-a` only when it names it,
//! and then only to deny or ask; every answer is audited under the tool's name.

use super::support::*;
use vults_engine::messages::{AuditEntry, CardAnswer, EngineCommand, EngineEvent};

const ASK_A: &[&str] = &["--agent", "tool-a", "--reply", "vults", "PermissionRequest"];
const ASK_B: &[&str] = &["--agent", "tool-b", "--reply", "vults", "PermissionRequest"];
const ASK_CLAUDE: &[&str] = &["--agent", "claude", "PermissionRequest"];

#[test]
fn rules_and_policies_are_keyed_by_the_named_tools_name() {
    let home = Home::new("rules");
    let engine = start_engine(&home);
    let mut w = Watch::new(&engine);
    let folder = home.project.clone();
    let same = |session: &str| bash_request(session, &folder, "cargo test --workspace");
    let mut audits: Vec<AuditEntry> = Vec::new();

    // 1. tool-a asks; Always allow on its card makes a rule for tool-a.
    let p = hook(&home, ASK_A, &same("a1"));
    let card = w.card("tool-a");
    let rule = card
        .always_rule
        .clone()
        .expect("a plain command's card offers Always");
    assert_eq!(rule.identity.key(), "tool-a");
    w.answer(&card, CardAnswer::AlwaysAllow);
    assert_eq!(hook_done(p).out(), ALLOW_VULTS);
    w.until(
        "the new rule",
        |e| matches!(e, EngineEvent::Rules(r) if r.iter().any(|r| r.id == rule.id)),
    );
    audits.push(w.audited());

    // 2. The identical request from tool-a: answered by the rule, no card.
    let p = hook(&home, ASK_A, &same("a2"));
    let a = w.audited();
    assert_eq!(a.by, format!("rule:{}", rule.id));
    audits.push(a);
    assert_eq!(hook_done(p).out(), ALLOW_VULTS);

    // 3. tool-b, same folder, tool and command: the rule is not its; a card.
    let p = hook(&home, ASK_B, &same("b1"));
    let card = w.card("tool-b");
    assert_eq!(card.call.target.rule_key(), "cargo test --workspace");
    assert_eq!(card.folder, rule.folder);
    w.answer(&card, CardAnswer::Deny);
    assert_eq!(hook_done(p).out(), DENY_VULTS);
    audits.push(w.audited());

    // 4. Claude Code, same folder, tool and command: not its rule either; a card.
    let p = hook(&home, ASK_CLAUDE, &same("c1"));
    let card = w.card("claude");
    assert_eq!(card.call.target.rule_key(), "cargo test --workspace");
    w.answer(&card, CardAnswer::Allow);
    assert_eq!(hook_done(p).out(), ALLOW_CLAUDE);
    audits.push(w.audited());

    // tool-a itself, the same command in another folder: the rule is exact; a card.
    let elsewhere = home.dir.join("elsewhere");
    let p = hook(
        &home,
        ASK_A,
        &bash_request("a-else", &elsewhere, "cargo test --workspace"),
    );
    let card = w.card("tool-a");
    assert_eq!(card.folder, elsewhere.display().to_string());
    w.answer(&card, CardAnswer::Deny);
    assert_eq!(hook_done(p).out(), DENY_VULTS);
    audits.push(w.audited());

    // A destructive call from tool-a always asks, and its card offers no Always.
    let p = hook(
        &home,
        ASK_A,
        &bash_request("a-rm", &folder, "rm -rf target"),
    );
    let card = w.card("tool-a");
    assert!(card.destructive.is_some(), "{card:#?}");
    assert_eq!(card.always_rule, None);
    w.answer(&card, CardAnswer::Deny);
    assert_eq!(hook_done(p).out(), DENY_VULTS);
    audits.push(w.audited());

    // 5. Policies: `allow` naming tool-a does not allow it; `deny` naming tool-a denies it;
    //    a `deny` for every agent ("*") never reaches a named tool.
    home.write_policies(
        r#"
[[policy]]
name = "tool-a may build"
agents = ["tool-a"]
target = "cargo build"
action = "allow"

[[policy]]
name = "tool-a never pushes"
agents = ["tool-a"]
target = "git push*"
action = "deny"

[[policy]]
name = "agents never publish"
agents = "*"
target = "cargo publish"
action = "deny"
"#,
    );
    w.reload_policies(3);

    let p = hook(&home, ASK_A, &bash_request("a3", &folder, "cargo build"));
    let card = w.card("tool-a");
    w.answer(&card, CardAnswer::Deny);
    assert_eq!(hook_done(p).out(), DENY_VULTS);
    audits.push(w.audited());

    let p = hook(
        &home,
        ASK_A,
        &bash_request("a4", &folder, "git push origin main"),
    );
    let a = w.audited();
    assert_eq!(
        (a.decision.as_str(), a.by.label().as_str()),
        ("deny", "policy:tool-a never pushes")
    );
    audits.push(a);
    assert_eq!(hook_done(p).out(), DENY_VULTS);

    let p = hook(
        &home,
        ASK_B,
        &bash_request("b2", &folder, "git push origin main"),
    );
    let card = w.card("tool-b");
    w.answer(&card, CardAnswer::Allow);
    assert_eq!(hook_done(p).out(), ALLOW_VULTS);
    audits.push(w.audited());

    let p = hook(&home, ASK_A, &bash_request("a5", &folder, "cargo publish"));
    let card = w.card("tool-a");
    w.answer(&card, CardAnswer::Deny);
    assert_eq!(hook_done(p).out(), DENY_VULTS);
    audits.push(w.audited());

    // 6. Removing tool-a's rule: the identical request shows a card again.
    assert!(engine.send(EngineCommand::RemoveRule(rule.id.clone())));
    w.until(
        "the rule to go",
        |e| matches!(e, EngineEvent::Rules(r) if !r.iter().any(|r| r.id == rule.id)),
    );
    let p = hook(&home, ASK_A, &same("a6"));
    let card = w.card("tool-a");
    assert_eq!(card.call.target.rule_key(), "cargo test --workspace");
    w.answer(&card, CardAnswer::Allow);
    assert_eq!(hook_done(p).out(), ALLOW_VULTS);
    audits.push(w.audited());

    // Every answer was audited under the name of who asked.
    let who: Vec<(&str, &str)> = audits
        .iter()
        .map(|a| (a.identity.as_str(), a.decision.as_str()))
        .collect();
    assert_eq!(
        who,
        [
            ("tool-a", "allow"),
            ("tool-a", "allow"),
            ("tool-b", "deny"),
            ("claude", "allow"),
            ("tool-a", "deny"),
            ("tool-a", "deny"),
            ("tool-a", "deny"),
            ("tool-a", "deny"),
            ("tool-b", "allow"),
            ("tool-a", "deny"),
            ("tool-a", "allow"),
        ]
    );
    // The window heard of both named tools, and of no built-in agent as one.
    let named: Vec<&str> = w
        .seen
        .iter()
        .filter_map(|e| match e {
            EngineEvent::NamedToolSeen(t) => Some(t.name.as_str()),
            _ => None,
        })
        .collect();
    assert!(named.contains(&"tool-a"), "{named:?}");
    assert!(named.contains(&"tool-b"), "{named:?}");
    assert!(!named.contains(&"claude"), "{named:?}");

    // And the audit log on disk says the same, once the engine has written it out.
    let mut engine = engine;
    engine.stop();
    let log = std::fs::read_to_string(home.paths().audit_log()).expect("the audit log");
    let on_disk: Vec<AuditEntry> = log
        .lines()
        .map(|l| serde_json::from_str(l).expect("an audit line"))
        .collect();
    assert_eq!(on_disk, audits);
}
