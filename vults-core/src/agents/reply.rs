//! Answers in the shape each agent reads back ([`ReplyShape`]): a decision
//! ([`render_decision`]), a plan review's approval ([`plan_review`]) and the answers to
//! questions ([`render_answers`]).

use super::call::{tool_input, tool_name};
use super::table::{AgentKind, ReplyShape, spec_of};
use crate::answer::{AnswerItem, DENY_MESSAGE, Decision};
use serde_json::{Map, Value, json};

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
/// plan mode ([`super::AgentSpec::plan_tool`]: Claude Code's ExitPlanMode) with the plan, a string,
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
