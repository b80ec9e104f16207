#!/usr/bin/env node
// Drives one OpenCode turn the way its TUI does: `opencode serve` plus the HTTP API, so a
// permission request waits for an answer (the plugin's), where the headless `opencode run`
// answers it itself at once (agent.sh OPENCODE_VIA=run covers that one).
//
//   node opencode-serve.mjs <opencode binary> <prompt>      (cwd = the project folder)
// Prints the assistant's reply as JSON on stdout, the server's output on stderr. Exit 0 when
// the turn completed, 1 otherwise.
//
// OPENCODE_ANSWER_AFTER_MS=<ms>: answer every permission request `once` that long after it was
// asked, through OpenCode's own API, as a person in OpenCode's prompt would (logged on stderr as
// `opencode-serve: answered <id> once`).
import { spawn } from "node:child_process";
import net from "node:net";

const [bin, prompt] = process.argv.slice(2);
const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const port = await freePort();
const server = spawn(bin, ["serve", "--hostname", "127.0.0.1", "--port", String(port), "--print-logs", "--log-level", "INFO"], {
  stdio: ["ignore", "pipe", "pipe"],
});
let exited = false;
server.on("exit", () => (exited = true));
const stop = () => {
  if (exited) return;
  server.kill("SIGTERM");
  setTimeout(() => { if (!exited) server.kill("SIGKILL"); }, 3000).unref();
};
process.on("SIGTERM", () => { stop(); process.exit(1); });
process.on("SIGINT", () => { stop(); process.exit(1); });

const listening = new Promise((resolve) => {
  const watch = (chunk) => {
    process.stderr.write(chunk);
    if (String(chunk).includes("listening on")) resolve(true);
  };
  server.stdout.on("data", watch);
  server.stderr.on("data", watch);
  server.on("exit", () => resolve(false));
});

const base = `http://127.0.0.1:${port}`;
const post = async (path, body) => {
  const res = await fetch(base + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text);
};

// Reads OpenCode's event stream and answers each permission request after a pause.
async function answerAfter(ms) {
  const res = await fetch(base + "/event");
  const decoder = new TextDecoder();
  let buf = "";
  const seen = new Set();
  for await (const chunk of res.body) {
    buf += decoder.decode(chunk, { stream: true });
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line.startsWith("data:")) continue;
      let ev;
      try {
        ev = JSON.parse(line.slice(5));
      } catch {
        continue;
      }
      const p = ev && ev.properties;
      if (ev.type !== "permission.asked" || !p || seen.has(p.id)) continue;
      seen.add(p.id);
      setTimeout(() => {
        post(`/session/${p.sessionID}/permissions/${p.id}`, { response: "once" })
          .then(() => process.stderr.write(`opencode-serve: answered ${p.id} once\n`))
          .catch((e) => process.stderr.write(`opencode-serve: answering ${p.id}: ${e}\n`));
      }, ms);
    }
  }
}

let code = 1;
try {
  if (!(await listening)) throw new Error("opencode serve exited before listening");
  const answerMs = Number(process.env.OPENCODE_ANSWER_AFTER_MS || "");
  if (answerMs > 0) answerAfter(answerMs).catch(() => {});
  const session = await post("/session", {});
  const reply = await post(`/session/${session.id}/message`, { parts: [{ type: "text", text: prompt }] });
  process.stdout.write(JSON.stringify(reply) + "\n");
  code = 0;
} catch (e) {
  process.stderr.write(`opencode-serve: ${e && e.stack || e}\n`);
}
stop();
await new Promise((r) => (exited ? r() : server.on("exit", r)));
process.exit(code);
