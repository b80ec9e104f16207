#!/usr/bin/env node
// A mock model server for the real-agent end-to-end tests. Node only, no npm dependencies.
//
//   node mock-model.mjs --command '<shell command>' [--port 0] [--log <file>] [--plan <markdown>]
//
// Binds 127.0.0.1 (port 0 = any free port) and prints one line `PORT <n>` on stdout once listening.
// Speaks, on any path, whichever API the request looks like:
//   - Anthropic Messages (Claude Code)        POST …/messages          tool `Bash`
//   - OpenAI Responses (Codex CLI)            POST …/responses         tool `exec_command` (escalated)
//   - chat completions (Qwen, OpenCode, Copilot) POST …/chat/completions tool `run_shell_command` / `bash`
// Script: if the request offers the agent's shell tool and its history holds no tool result, answer with
// exactly one call of that tool running --command; otherwise answer with the text `done`. Codex's
// auto-review request (text.format codex_output_schema) gets a JSON verdict `deny`, and its TUI's
// thread-title request (the same schema name, a `title` property) the title `Write the file`.
//
// --plan <markdown>: a plan review first, in each agent's own way:
//   - Claude Code: ExitPlanMode takes no plan (2.1.332), the model writes it to the plan file the
//     plan-mode prompt names. So: Write that file, `ToolSearch {"query":"select:ExitPlanMode"}`
//     when ExitPlanMode is only a deferred tool (interactive sessions; `-p` without
//     --permission-prompt-tool stdio does not offer it at all), then `ExitPlanMode {}`
//     (`{plan}` if no plan file is named). Its result: approved (not `is_error`) → the usual
//     Bash call, then `done`; refused (`is_error`: a hook's deny message) → `plan kept`.
//   - Qwen Code `exit_plan_mode {plan}`, Copilot CLI `exit_plan_mode {summary}` (chat
//     completions have no error flag: approved when the result's text says "approved", else
//     `plan kept`).
//   - Codex CLI in Plan mode (the TUI's /plan): the answer is the plan in a `<proposed_plan>`
//     block; out of Plan mode again ("Implement the plan."), the usual script.
//
// Every request is appended to --log as one JSON line {t, method, url, body, results}: `results`
// lists the tool results the request carries, oldest first, as {tool, id, is_error, text} (`tool`:
// the name of the call it answers, from the same history), so a test can read what the agent told
// the model (a deny message, a plan's feedback) without walking each API's history itself.
import http from "node:http";
import fs from "node:fs";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const COMMAND = opt("command", "echo vults > marker.txt");
const PORT = Number(opt("port", "0"));
const LOG = opt("log", null);
const PLAN = opt("plan", null);
const DESCRIPTION = "write a file";

function log(entry) {
  if (!LOG) return;
  try {
    fs.appendFileSync(LOG, JSON.stringify(entry) + "\n");
  } catch {}
}

let seq = 0;
const nextId = (p) => `${p}_${Date.now().toString(36)}${(++seq).toString(36)}`;

// ---------- Anthropic Messages ----------
// The tool calls (id → name) and tool results ({tool, id, is_error, text}) in a request's history.
function anthropicHistory(body) {
  const calls = new Map();
  const results = [];
  for (const m of body.messages || []) {
    if (!Array.isArray(m.content)) continue;
    for (const c of m.content) {
      if (!c) continue;
      if (c.type === "tool_use") calls.set(c.id, c.name);
      if (c.type === "tool_result") {
        results.push({ tool: calls.get(c.tool_use_id) || null, id: c.tool_use_id, is_error: c.is_error === true,
          text: resultText(c.content) });
      }
    }
  }
  return results;
}

function resultText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((p) => (p && typeof p.text === "string" ? p.text : p && p.type === "tool_reference" ? `tool_reference:${p.tool_name}` : ""))
      .join("");
  }
  return "";
}

// The plan file Claude Code's plan-mode prompt tells the model to write ("…create your plan at
// <path> using the Write tool", "A plan file already exists at <path>"), if the request names one.
function planFile(body) {
  const texts = [];
  const add = (c) => {
    if (typeof c === "string") texts.push(c);
    else if (Array.isArray(c)) for (const p of c) if (p && typeof p.text === "string") texts.push(p.text);
  };
  add(body.system);
  for (const m of body.messages || []) add(m && m.content);
  for (const t of texts) {
    const i = t.indexOf("Plan File Info");
    if (i < 0) continue;
    const m = /(\/\S+?\/plans\/\S+?\.md)\b/.exec(t.slice(i));
    if (m) return m[1];
  }
  return null;
}

// What to answer: a tool call {name, input}, or text.
function anthropicTurn(body) {
  const tools = (body.tools || []).map((t) => t.name);
  const results = anthropicHistory(body);
  if (PLAN !== null) {
    const plan = results.filter((r) => r.tool === "ExitPlanMode").pop();
    if (!plan) {
      // Claude Code reads the plan from the plan file its plan-mode prompt names; ExitPlanMode
      // takes no plan (2.1.332: `{"allowedPrompts"?}`, deprecated). Write the file first.
      const file = planFile(body);
      if (file && tools.includes("Write") && !results.some((r) => r.tool === "Write")) {
        return { tool: "Write", input: { file_path: file, content: PLAN } };
      }
      const input = file ? {} : { plan: PLAN };
      if (tools.includes("ExitPlanMode")) return { tool: "ExitPlanMode", input };
      const searched = results.some((r) => r.tool === "ToolSearch");
      if (tools.includes("ToolSearch") && !searched) {
        return { tool: "ToolSearch", input: { query: "select:ExitPlanMode", max_results: 1 } };
      }
      // Fetched (or never offered, as in `-p`): ask anyway; Claude Code says what it makes of it.
      return { tool: "ExitPlanMode", input };
    }
    if (plan.is_error) return { text: "plan kept" };
    const ranShell = results.some((r) => r.tool === "Bash");
    if (tools.includes("Bash") && !ranShell) return { tool: "Bash", input: { command: COMMAND, description: DESCRIPTION } };
    return { text: "done" };
  }
  if (tools.includes("Bash") && results.length === 0) {
    return { tool: "Bash", input: { command: COMMAND, description: DESCRIPTION } };
  }
  return { text: "done" };
}

function anthropic(body, res) {
  const model = body.model || "mock-model";
  const turn = anthropicTurn(body);
  const tool = Boolean(turn.tool);
  const id = nextId("msg");
  const block = tool
    ? { type: "tool_use", id: nextId("toolu"), name: turn.tool, input: {} }
    : { type: "text", text: "" };
  const input = turn.input;
  if (!body.stream) {
    const content = tool ? [{ ...block, input }] : [{ type: "text", text: turn.text }];
    return json(res, {
      id, type: "message", role: "assistant", model, content,
      stop_reason: tool ? "tool_use" : "end_turn", stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5 },
    });
  }
  const ev = sse(res);
  ev("message_start", {
    type: "message_start",
    message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null,
      stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } },
  });
  ev("content_block_start", { type: "content_block_start", index: 0, content_block: block });
  ev("content_block_delta", {
    type: "content_block_delta", index: 0,
    delta: tool
      ? { type: "input_json_delta", partial_json: JSON.stringify(input) }
      : { type: "text_delta", text: turn.text },
  });
  ev("content_block_stop", { type: "content_block_stop", index: 0 });
  ev("message_delta", {
    type: "message_delta",
    delta: { stop_reason: tool ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  ev("message_stop", { type: "message_stop" });
  res.end();
}

// ---------- OpenAI Responses (Codex) ----------
// Tool results in a Responses request ({tool, id, is_error: null, text}; the API has no error flag).
function responsesHistory(body) {
  const input = Array.isArray(body.input) ? body.input : [];
  const calls = new Map();
  const results = [];
  for (const i of input) {
    if (i && i.type === "function_call") calls.set(i.call_id, i.name);
    if (i && i.type === "function_call_output") {
      results.push({ tool: calls.get(i.call_id) || null, id: i.call_id, is_error: null, text: resultText(i.output) });
    }
  }
  return results;
}

function responses(body, res) {
  const fmt = body.text && body.text.format;
  const isReview = fmt && fmt.type === "json_schema" && fmt.name === "codex_output_schema";
  const tools = (body.tools || []).map((t) => t && t.name).filter(Boolean);
  const input = Array.isArray(body.input) ? body.input : [];
  const hasResult = input.some((i) => i && i.type === "function_call_output");
  let item;
  const props = (isReview && fmt.schema && fmt.schema.properties) || {};
  if (isReview && props.title && !props.outcome) {
    // The Codex TUI's thread title request (same schema name, a `title` property).
    item = textItem(JSON.stringify({ title: "Write the file" }));
  } else if (isReview) {
    item = textItem(JSON.stringify({ risk_level: "high", user_authorization: "unknown", outcome: "deny", rationale: "mock" }));
  } else if (PLAN !== null && codexPlanMode(input) && !codexProposed(input)) {
    // Codex's Plan mode (the TUI's /plan): the plan is a <proposed_plan> block in the answer.
    item = textItem(`<proposed_plan>\n${PLAN}\n</proposed_plan>`);
  } else if (PLAN !== null && codexPlanMode(input)) {
    item = textItem("plan kept");
  } else if (tools.includes("exec_command") && !hasResult) {
    item = {
      type: "function_call", id: nextId("fc"), call_id: nextId("call"), name: "exec_command", status: "completed",
      arguments: JSON.stringify({ cmd: COMMAND, justification: DESCRIPTION, sandbox_permissions: "require_escalated" }),
    };
  } else {
    item = textItem("done");
  }
  const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
  const rid = nextId("resp");
  const base = { id: rid, object: "response", created_at: Math.floor(Date.now() / 1000), model: body.model || "mock-model" };
  if (!body.stream) return json(res, { ...base, status: "completed", output: [item], usage });
  const ev = sse(res);
  let n = 0;
  const send = (type, data) => ev(type, { type, sequence_number: n++, ...data });
  send("response.created", { response: { ...base, status: "in_progress", output: [] } });
  send("response.in_progress", { response: { ...base, status: "in_progress", output: [] } });
  if (item.type === "function_call") {
    send("response.output_item.added", { output_index: 0, item: { ...item, arguments: "", status: "in_progress" } });
    send("response.function_call_arguments.delta", { output_index: 0, item_id: item.id, delta: item.arguments });
    send("response.function_call_arguments.done", { output_index: 0, item_id: item.id, arguments: item.arguments });
  } else {
    const text = item.content[0].text;
    send("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", content: [] } });
    send("response.content_part.added", { output_index: 0, item_id: item.id, content_index: 0,
      part: { type: "output_text", text: "", annotations: [] } });
    send("response.output_text.delta", { output_index: 0, item_id: item.id, content_index: 0, delta: text });
    send("response.output_text.done", { output_index: 0, item_id: item.id, content_index: 0, text });
    send("response.content_part.done", { output_index: 0, item_id: item.id, content_index: 0,
      part: { type: "output_text", text, annotations: [] } });
  }
  send("response.output_item.done", { output_index: 0, item });
  send("response.completed", { response: { ...base, status: "completed", output: [item], usage } });
  res.end();
}

// The texts of a Responses request's messages with `role`.
function responsesTexts(input, role) {
  return input
    .filter((i) => i && i.type === "message" && i.role === role)
    .flatMap((i) => (Array.isArray(i.content) ? i.content : []).map((c) => (c && c.text) || ""));
}

// Whether Codex is in its Plan mode: the newest collaboration-mode instruction says so.
function codexPlanMode(input) {
  const modes = responsesTexts(input, "developer").filter((t) => t.includes("<collaboration_mode>"));
  return modes.length > 0 && /<collaboration_mode>\s*# Plan Mode/.test(modes[modes.length - 1]);
}

function codexProposed(input) {
  return responsesTexts(input, "assistant").some((t) => t.includes("<proposed_plan>"));
}

function textItem(text) {
  return { type: "message", id: nextId("msg"), role: "assistant", status: "completed",
    content: [{ type: "output_text", text, annotations: [] }] };
}

// ---------- chat completions (Qwen, OpenCode, Copilot) ----------
// Tool results in a chat-completions request ({tool, id, is_error: null, text}).
function chatHistory(body) {
  const calls = new Map();
  const results = [];
  for (const m of body.messages || []) {
    if (!m) continue;
    for (const c of m.tool_calls || []) if (c && c.function) calls.set(c.id, c.function.name);
    if (m.role === "tool") {
      results.push({ tool: calls.get(m.tool_call_id) || null, id: m.tool_call_id || null, is_error: null,
        text: resultText(m.content) });
    }
  }
  return results;
}

// What to answer a chat-completions request: a tool call {tool, args}, or text.
function chatTurn(body) {
  const tools = (body.tools || []).map((t) => t && t.function && t.function.name).filter(Boolean);
  const shell = ["run_shell_command", "bash", "Bash", "shell"].find((n) => tools.includes(n));
  const results = chatHistory(body);
  const args = shell === "run_shell_command"
    ? { command: COMMAND, description: DESCRIPTION, is_background: false }
    : { command: COMMAND, description: DESCRIPTION };
  // --plan, for Qwen Code's exit_plan_mode {plan} and Copilot CLI's exit_plan_mode {summary}
  // (whichever the tool's schema has). The API has no error flag: the plan counts as approved
  // when the result's text says so.
  if (PLAN !== null && tools.includes("exit_plan_mode")) {
    const plan = results.filter((r) => r.tool === "exit_plan_mode").pop();
    if (!plan) {
      const def = (body.tools || []).find((t) => t && t.function && t.function.name === "exit_plan_mode");
      const props = (def && def.function.parameters && def.function.parameters.properties) || {};
      return { tool: "exit_plan_mode", args: props.summary && !props.plan ? { summary: PLAN } : { plan: PLAN } };
    }
    if (!/approved/i.test(plan.text)) return { text: "plan kept" };
    if (shell && !results.some((r) => r.tool === shell)) return { tool: shell, args };
    return { text: "done" };
  }
  if (shell && results.length === 0) return { tool: shell, args };
  return { text: "done" };
}

function chat(body, res) {
  const turn = chatTurn(body);
  const tool = Boolean(turn.tool);
  const shell = turn.tool;
  const args = turn.args;
  const id = nextId("chatcmpl");
  const model = body.model || "mock-model";
  const env = (choices, extra = {}) => ({ id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model, choices, ...extra });
  const callId = nextId("call");
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  if (!body.stream) {
    const message = tool
      ? { role: "assistant", content: null, tool_calls: [{ id: callId, type: "function", function: { name: shell, arguments: JSON.stringify(args) } }] }
      : { role: "assistant", content: turn.text };
    return json(res, { id, object: "chat.completion", created: 0, model,
      choices: [{ index: 0, message, finish_reason: tool ? "tool_calls" : "stop" }], usage });
  }
  const ev = sse(res);
  if (tool) {
    ev(null, env([{ index: 0, delta: { role: "assistant", content: null,
      tool_calls: [{ index: 0, id: callId, type: "function", function: { name: shell, arguments: "" } }] }, finish_reason: null }]));
    ev(null, env([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: JSON.stringify(args) } }] }, finish_reason: null }]));
    ev(null, env([{ index: 0, delta: {}, finish_reason: "tool_calls" }]));
  } else {
    ev(null, env([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]));
    ev(null, env([{ index: 0, delta: { content: turn.text }, finish_reason: null }]));
    ev(null, env([{ index: 0, delta: {}, finish_reason: "stop" }]));
  }
  if (body.stream_options && body.stream_options.include_usage) ev(null, env([], { usage }));
  res.write("data: [DONE]\n\n");
  res.end();
}

// ---------- plumbing ----------
function sse(res) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "close" });
  return (event, data) => {
    res.write((event ? `event: ${event}\n` : "") + `data: ${JSON.stringify(data)}\n\n`);
  };
}

function json(res, obj, status = 200) {
  const s = JSON.stringify(obj);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(s), connection: "close" });
  res.end(s);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const raw = Buffer.concat(chunks).toString("utf8");
    let body = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      body = { unparsed: raw.slice(0, 2000) };
    }
    const path = (req.url || "").split("?")[0];
    let results = [];
    try {
      if (path.endsWith("/messages")) results = anthropicHistory(body);
      else if (path.endsWith("/responses")) results = responsesHistory(body);
      else if (path.endsWith("/chat/completions")) results = chatHistory(body);
    } catch {}
    log({ t: Date.now(), method: req.method, url: req.url, body, results });
    try {
      if (req.method === "POST" && path.endsWith("/messages")) return anthropic(body, res);
      if (req.method === "POST" && path.endsWith("/responses")) return responses(body, res);
      if (req.method === "POST" && path.endsWith("/chat/completions")) return chat(body, res);
      if (path.endsWith("/models")) return json(res, { object: "list", data: [{ id: "mock-model", object: "model", owned_by: "mock" }] });
      if (path.endsWith("/count_tokens")) return json(res, { input_tokens: 10 });
      return json(res, {});
    } catch (e) {
      log({ t: Date.now(), error: String(e && e.stack || e) });
      if (!res.headersSent) json(res, { error: { message: String(e) } }, 500);
      else res.end();
    }
  });
});
server.listen(PORT, "127.0.0.1", () => {
  process.stdout.write(`PORT ${server.address().port}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
