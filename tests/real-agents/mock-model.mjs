#!/usr/bin/env node
// A mock model server for the real-agent end-to-end tests. Node only, no npm dependencies.
//
//   node mock-model.mjs --command '<shell command>' [--port 0] [--log <file>]
//
// Binds 127.0.0.1 (port 0 = any free port) and prints one line `PORT <n>` on stdout once listening.
// Speaks, on any path, whichever API the request looks like:
//   - Anthropic Messages (Claude Code)        POST …/messages          tool `Bash`
//   - OpenAI Responses (Codex CLI)            POST …/responses         tool `exec_command` (escalated)
//   - chat completions (Qwen, OpenCode, Copilot) POST …/chat/completions tool `run_shell_command` / `bash`
// Script: if the request offers the agent's shell tool and its history holds no tool result, answer with
// exactly one call of that tool running --command; otherwise answer with the text `done`. Codex's
// auto-review request (text.format codex_output_schema) gets a JSON verdict `deny`.
// Every request is appended to --log as one JSON line {t, method, url, body}.
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
function anthropicWantsTool(body) {
  const tools = (body.tools || []).map((t) => t.name);
  if (!tools.includes("Bash")) return false;
  for (const m of body.messages || []) {
    if (Array.isArray(m.content) && m.content.some((c) => c && c.type === "tool_result")) return false;
  }
  return true;
}

function anthropic(body, res) {
  const model = body.model || "mock-model";
  const tool = anthropicWantsTool(body);
  const id = nextId("msg");
  const block = tool
    ? { type: "tool_use", id: nextId("toolu"), name: "Bash", input: {} }
    : { type: "text", text: "" };
  const input = { command: COMMAND, description: DESCRIPTION };
  if (!body.stream) {
    const content = tool ? [{ ...block, input }] : [{ type: "text", text: "done" }];
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
      : { type: "text_delta", text: "done" },
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
function responses(body, res) {
  const fmt = body.text && body.text.format;
  const isReview = fmt && fmt.type === "json_schema" && fmt.name === "codex_output_schema";
  const tools = (body.tools || []).map((t) => t && t.name).filter(Boolean);
  const input = Array.isArray(body.input) ? body.input : [];
  const hasResult = input.some((i) => i && i.type === "function_call_output");
  let item;
  if (isReview) {
    item = textItem(JSON.stringify({ risk_level: "high", user_authorization: "unknown", outcome: "deny", rationale: "mock" }));
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

function textItem(text) {
  return { type: "message", id: nextId("msg"), role: "assistant", status: "completed",
    content: [{ type: "output_text", text, annotations: [] }] };
}

// ---------- chat completions (Qwen, OpenCode, Copilot) ----------
function chat(body, res) {
  const tools = (body.tools || []).map((t) => t && t.function && t.function.name).filter(Boolean);
  const shell = ["run_shell_command", "bash", "Bash", "shell"].find((n) => tools.includes(n));
  const hasResult = (body.messages || []).some((m) => m && m.role === "tool");
  const tool = shell && !hasResult;
  const args = shell === "run_shell_command"
    ? { command: COMMAND, description: DESCRIPTION, is_background: false }
    : { command: COMMAND, description: DESCRIPTION };
  const id = nextId("chatcmpl");
  const model = body.model || "mock-model";
  const env = (choices, extra = {}) => ({ id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model, choices, ...extra });
  const callId = nextId("call");
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  if (!body.stream) {
    const message = tool
      ? { role: "assistant", content: null, tool_calls: [{ id: callId, type: "function", function: { name: shell, arguments: JSON.stringify(args) } }] }
      : { role: "assistant", content: "done" };
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
    ev(null, env([{ index: 0, delta: { content: "done" }, finish_reason: null }]));
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
    log({ t: Date.now(), method: req.method, url: req.url, body });
    const path = (req.url || "").split("?")[0];
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
