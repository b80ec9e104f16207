// Vults for OpenCode: relays OpenCode's permission and question requests to vults-hook, answers
// them through OpenCode's own client, and forwards tool and session events so OpenCode sessions
// show in Vults' flock. Plain JavaScript, no build step, no dependencies.
//
// Vults installs this file with the hook's absolute path filled in below, replaces it when it
// changes, and removes it on uninstall. Edits made here are overwritten.
//
// Why an event listener: OpenCode's `permission.ask` plugin hook is declared but never fires
// (anomalyco/opencode#7006); the `permission.asked` bus event does, and a reply through the
// client resolves the request.
//
// Why the plugin holds OpenCode: OpenCode calls a plugin's event handler without awaiting it,
// and some of its modes answer a `permission.asked` themselves at once: the headless `opencode
// run` (`reject`, or `once` with `--auto`) and the TUI in auto-approve mode (`once`). Whatever
// Vults answers has to be sent before the handler's first await, while OpenCode can do nothing
// else. So:
// - in `opencode run` the plugin waits for the hook synchronously (spawnSync) until it answers;
// - elsewhere (the TUI, `opencode serve`, `opencode run --interactive`) a person can answer in
//   OpenCode too, so the plugin holds OpenCode only for the first HOLD_MS — the hook runs in a
//   worker thread — which is enough for a rule or a policy; a card, which waits for a person,
//   goes on in the background and OpenCode stays usable. If OpenCode answers while the card is
//   up, the card is withdrawn (see `permission.replied` below).
import { spawn, spawnSync } from "node:child_process";
import { Worker } from "node:worker_threads";

const HOOK = "__VULTS_HOOK__";
// A little more than the hook's own deadlines (protocol::timeouts): the hook gives up first.
const PERMISSION_TIMEOUT_MS = 600_000;
const ASK_TIMEOUT_MS = 120_000;
const EVENT_TIMEOUT_MS = 10_000;
// How long OpenCode is held for Vults' answer outside `opencode run` (see above).
const HOLD_MS = 1_000;

// Whether this process is the headless `opencode run` (not `--interactive`, not `--mini`), from
// OpenCode's own command line: [runtime, script, ...global options, command, ...its options].
// Global options before the command: --print-logs, --pure (flags) and --log-level <level>.
// (Not exported: OpenCode calls every export of a plugin file as a plugin.)
function isHeadlessRun(argv) {
  const args = Array.isArray(argv) ? argv.slice(2).map(String) : [];
  let i = 0;
  while (i < args.length && args[i].startsWith("-") && args[i] !== "--") {
    if (args[i] === "--log-level") i += 1;
    i += 1;
  }
  if (args[i] !== "run") return false;
  for (const a of args.slice(i + 1)) {
    if (a === "--") break;
    const [name, value] = a.split("=", 2);
    if ((name === "--interactive" || name === "--mini") && value !== "false") return false;
    // -i, alone or among other one-letter flags (-ci).
    if (/^-[A-Za-z]+$/.test(a) && a.includes("i")) return false;
  }
  return true;
}

const HEADLESS_RUN = isHeadlessRun(process.argv);

// Runs the hook and waits for it, blocking this whole process; returns what it printed ("" on
// any failure). For `opencode run` only (see above).
function runHookSync(args, payload, timeoutMs) {
  try {
    const r = spawnSync(HOOK, ["--agent", "opencode", ...args], {
      input: JSON.stringify(payload),
      stdio: ["pipe", "pipe", "ignore"],
      encoding: "utf8",
      timeout: timeoutMs,
      killSignal: "SIGKILL",
      maxBuffer: 1024 * 1024,
    });
    if (r.error || r.signal || typeof r.stdout !== "string") return "";
    return r.stdout;
  } catch {
    return "";
  }
}

// The worker that runs one hook for `holdHook`: it writes what the hook printed into the shared
// buffer ([state, length, pid] then the bytes), sets state to 1 and wakes the waiting thread.
const HOLD_WORKER = `
const { workerData: d } = require("node:worker_threads");
const { spawn } = require("node:child_process");
const head = new Int32Array(d.sab, 0, 3);
const bytes = new Uint8Array(d.sab, 12);
let out = Buffer.alloc(0);
let done = false;
const finish = () => {
  if (done) return;
  done = true;
  const n = Math.min(out.length, bytes.length);
  bytes.set(out.subarray(0, n));
  Atomics.store(head, 1, n);
  Atomics.store(head, 0, 1);
  Atomics.notify(head, 0);
};
(() => {
  let child;
  try {
    child = spawn(d.hook, d.args, { stdio: ["pipe", "pipe", "ignore"] });
  } catch {
    finish();
    return;
  }
  Atomics.store(head, 2, child.pid || 0);
  const timer = setTimeout(() => {
    try { child.kill("SIGKILL"); } catch {}
    out = Buffer.alloc(0);
    finish();
  }, d.timeoutMs);
  const end = () => { clearTimeout(timer); finish(); };
  child.on("error", end);
  child.on("close", end);
  child.stdout.on("data", (c) => { out = Buffer.concat([out, c]); });
  child.stdin.on("error", () => {});
  child.stdin.end(d.payload);
})();
`;

// Runs the hook in a worker thread and blocks this thread for up to `holdMs` for it. Returns
// what it printed (a string) when it finished in time, else a promise of it; `onStop` gets a
// function that ends the hook early. Falls back to `runHook` where workers or Atomics.wait are
// not to be had. Never throws.
function holdHook(args, payload, timeoutMs, holdMs, onStop) {
  const sab = new SharedArrayBuffer(12 + 1024 * 1024);
  const head = new Int32Array(sab, 0, 3);
  const read = () => Buffer.from(new Uint8Array(sab, 12, Atomics.load(head, 1))).toString("utf8");
  let worker;
  try {
    worker = new Worker(HOLD_WORKER, {
      eval: true,
      workerData: {
        sab,
        hook: HOOK,
        args: ["--agent", "opencode", ...args],
        payload: JSON.stringify(payload),
        timeoutMs,
      },
    });
  } catch {
    return runHook(args, payload, timeoutMs, (child) => onStop(() => stop(child)));
  }
  const finished = new Promise((resolve) => {
    worker.on("exit", () => resolve(read()));
    worker.on("error", () => {});
  });
  try {
    if (Atomics.wait(head, 0, 0, holdMs) !== "timed-out") return read();
  } catch {}
  onStop(() => {
    const pid = Atomics.load(head, 2);
    if (pid > 0 && Atomics.load(head, 0) === 0) {
      try {
        process.kill(pid, "SIGTERM");
      } catch {}
    }
  });
  return finished;
}

// Runs the hook with `payload` on stdin; resolves to what it printed ("" on any failure).
// Never rejects: a broken hook must never break OpenCode. `onSpawn` gets the child process.
function runHook(args, payload, timeoutMs, onSpawn) {
  return new Promise((resolve) => {
    let out = "";
    let done = false;
    let timer;
    const finish = (text) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(text);
    };
    let child;
    try {
      child = spawn(HOOK, ["--agent", "opencode", ...args], {
        stdio: ["pipe", "pipe", "ignore"],
      });
    } catch {
      finish("");
      return;
    }
    if (onSpawn) onSpawn(child);
    timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch {}
      finish("");
    }, timeoutMs);
    child.on("error", () => finish(""));
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.on("close", () => finish(out));
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

function parseReply(text) {
  try {
    const v = JSON.parse(String(text).trim());
    return v && typeof v === "object" ? v : null;
  } catch {
    return null;
  }
}

// Events that never wait for an answer; nobody needs to await it (it never rejects).
function forward(event, payload) {
  return runHook([event], { hook_event_name: event, ...payload }, EVENT_TIMEOUT_MS);
}

function stop(child) {
  try {
    child.kill("SIGTERM");
  } catch {}
}

async function post(serverUrl, path, body) {
  if (!serverUrl || typeof fetch !== "function") return false;
  try {
    const res = await fetch(new URL(path, serverUrl), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return res.ok;
  } catch {
    return false;
  }
}

async function replyPermission(client, serverUrl, request, reply) {
  // The v1 SDK OpenCode 1.18 hands to plugins, then the newer API, then plain HTTP.
  try {
    if (typeof client?.postSessionIdPermissionsPermissionId === "function") {
      await client.postSessionIdPermissionsPermissionId({
        path: { id: request.sessionID, permissionID: request.id },
        body: { response: reply },
      });
      return;
    }
    if (typeof client?.permission?.reply === "function") {
      await client.permission.reply({ requestID: request.id, reply });
      return;
    }
  } catch {}
  if (!(await post(serverUrl, `/permission/${request.id}/reply`, { reply }))) {
    await post(serverUrl, `/session/${request.sessionID}/permissions/${request.id}`, {
      response: reply,
    });
  }
}

async function replyQuestion(client, serverUrl, request, answers) {
  try {
    if (typeof client?.question?.reply === "function") {
      await client.question.reply({ requestID: request.id, answers });
      return;
    }
  } catch {}
  await post(serverUrl, `/question/${request.id}/reply`, { answers });
}

// OpenCode's question, in Claude Code's words (what `--ask PreToolUse` reads).
function askPayload(request, cwd) {
  const questions = (request.questions || []).map((q) => ({
    question: q.question,
    header: q.header,
    options: (q.options || []).map((o) => ({ label: o.label, description: o.description })),
    multiSelect: Boolean(q.multiple),
  }));
  return {
    session_id: request.sessionID,
    cwd,
    hook_event_name: "PreToolUse",
    tool_name: "AskUserQuestion",
    tool_input: { questions },
  };
}

export const VultsPlugin = async ({ client, directory, worktree, serverUrl }) => {
  const cwd = directory || worktree || process.cwd();
  const handled = new Set();
  // Hooks still waiting for Vults (a card is up), by OpenCode's request id; not in `opencode
  // run`, which waits synchronously. A request leaves before the plugin sends Vults' answer, so
  // a `permission.replied` for one still here was answered in OpenCode itself.
  const waitingPermissions = new Map();
  const waitingQuestions = new Map();

  return {
    event: async ({ event }) => {
      const p = (event && event.properties) || {};
      // Session events carry the id as sessionID, some (created, deleted) also in info.id. An
      // event without one is not forwarded: it would show as a stray bird keyed by process id.
      const sid = p.sessionID || (p.info && p.info.id);
      switch (event && event.type) {
        case "permission.asked": {
          if (!p.id || handled.has(p.id)) return;
          handled.add(p.id);
          const payload = {
            ...p,
            cwd,
            hook_event_name: "PermissionRequest",
            tool_use_id: p.tool && p.tool.callID,
          };
          // No await before the hold: an answer that came in time must be sent before OpenCode
          // can answer the same request itself.
          const held = HEADLESS_RUN
            ? runHookSync(["PermissionRequest"], payload, PERMISSION_TIMEOUT_MS)
            : holdHook(["PermissionRequest"], payload, PERMISSION_TIMEOUT_MS, HOLD_MS, (end) =>
                waitingPermissions.set(p.id, end),
              );
          const answer = parseReply(typeof held === "string" ? held : await held);
          waitingPermissions.delete(p.id);
          // Nothing printed: OpenCode's own prompt decides, as without Vults.
          if (answer && (answer.reply === "once" || answer.reply === "reject")) {
            await replyPermission(client, serverUrl, p, answer.reply);
          }
          return;
        }
        case "question.asked": {
          if (!p.id || handled.has(p.id)) return;
          handled.add(p.id);
          const answer = parseReply(
            await runHook(["--ask", "PreToolUse"], askPayload(p, cwd), ASK_TIMEOUT_MS, (child) =>
              waitingQuestions.set(p.id, child),
            ),
          );
          waitingQuestions.delete(p.id);
          if (answer && Array.isArray(answer.answers)) {
            await replyQuestion(client, serverUrl, p, answer.answers);
          }
          return;
        }
        case "permission.replied": {
          // Answered in OpenCode's own prompt (or by OpenCode itself) while the card was up:
          // Vults hears it, then the hook stops waiting, so the card goes and no click can
          // answer a request that is already settled.
          const end = p.requestID && waitingPermissions.get(p.requestID);
          if (!end) return;
          waitingPermissions.delete(p.requestID);
          await forward("PermissionReplied", {
            session_id: p.sessionID,
            cwd,
            request_id: p.requestID,
            reply: p.reply,
          });
          end();
          return;
        }
        case "question.replied":
        case "question.rejected": {
          const child = p.requestID && waitingQuestions.get(p.requestID);
          if (!child) return;
          waitingQuestions.delete(p.requestID);
          stop(child);
          return;
        }
        case "session.created":
          if (sid) forward("SessionStart", { session_id: sid, cwd });
          return;
        case "session.idle":
          if (sid) forward("Stop", { session_id: sid, cwd });
          return;
        case "session.deleted":
          if (sid) forward("SessionEnd", { session_id: sid, cwd });
          return;
        default:
          return;
      }
    },
    "tool.execute.before": async (input, output) => {
      if (!input || !input.sessionID) return;
      forward("PreToolUse", {
        session_id: input.sessionID,
        cwd,
        tool_name: input.tool,
        tool_input: output && output.args,
        tool_use_id: input.callID,
      });
    },
    "tool.execute.after": async (input) => {
      if (!input || !input.sessionID) return;
      forward("PostToolUse", {
        session_id: input.sessionID,
        cwd,
        tool_name: input.tool,
        tool_use_id: input.callID,
      });
    },
  };
};
