#!/usr/bin/env node
// A recording stand-in for vults-hook: what an agent CLI really sends on each hook event, and
// what it makes of a scripted reply. Node only, no npm dependencies.
//
//   node capture-hook.mjs <dir> <agent> <Event>        (the agent runs it with the event on stdin)
//
// Appends one JSON line {t, agent, event, payload, replied} to <dir>/events.jsonl (`payload`: the
// event as the agent wrote it, `{"raw": …}` if it was not JSON; `replied`: what was printed, or
// null). Prints the first reply file that exists, or nothing:
//   <dir>/reply-<Event>-<tool_name>.json, then <dir>/reply-<Event>.json
// In a reply file the string "$TOOL_INPUT" (quotes included) stands for the event's own tool_input,
// so `{"hookSpecificOutput":{…"updatedInput":"$TOOL_INPUT"}}` echoes it back. Always exits 0.
// Used by claude_plan.rs; by hand, it re-captures the samples in samples/ after a CLI bump.
import fs from "node:fs";
import path from "node:path";

const [dir, agent, event] = process.argv.slice(2);
let raw = "";
try {
  raw = fs.readFileSync(0, "utf8");
} catch {}
let payload;
try {
  payload = JSON.parse(raw);
} catch {
  payload = { raw };
}
const tool = payload && (payload.tool_name || payload.toolName);
let replied = null;
for (const name of [tool ? `reply-${event}-${tool}.json` : null, `reply-${event}.json`]) {
  if (!name) continue;
  try {
    const text = fs.readFileSync(path.join(dir, name), "utf8").trim();
    const input = JSON.stringify((payload && (payload.tool_input || payload.toolInput)) ?? {});
    replied = text.split('"$TOOL_INPUT"').join(input);
    break;
  } catch {}
}
try {
  fs.appendFileSync(
    path.join(dir, "events.jsonl"),
    JSON.stringify({ t: Date.now(), agent, event, payload, replied }) + "\n",
  );
} catch {}
if (replied !== null) process.stdout.write(replied + "\n");
process.exit(0);
