// named-tool.ts — a tiny tool of your own that asks Vults before it runs a command.
//
//   node --experimental-strip-types examples/named-tool.ts <command> [args…]   (Node ≥ 22.6)
//   node examples/named-tool.mjs <command> [args…]                             (Node ≥ 20, same code)
//
// It sends Claude Code's hook JSON to `vults-hook --agent <name> --reply vults PermissionRequest`
// (docs/hook-protocol.md §7) and honours the one fixed reply: {"decision":"allow"} runs the
// command, {"decision":"deny",…} does not, and anything else (empty included) means: ask the
// user ourselves, on our own terminal. No packages.
//   VULTS_HOOK       the hook binary (default: vults-hook on PATH)
//   VULTS_TOOL_NAME  the name the card and rules are kept under (default: named-tool-ts)
import { spawnSync } from "node:child_process";
import { createInterface } from "node:readline";

type Reply = { decision: "allow" } | { decision: "deny"; reason: string };

const name: string = process.env.VULTS_TOOL_NAME ?? "named-tool-ts";
const hook: string = process.env.VULTS_HOOK ?? "vults-hook";
const command: string = process.argv.slice(2).join(" ");

function askVults(cmd: string): Reply | null {
  const payload = {
    session_id: process.env.VULTS_TOOL_SESSION ?? `${name}-${process.pid}`,
    cwd: process.cwd(),
    hook_event_name: "PermissionRequest",
    tool_name: "Bash",
    tool_input: { command: cmd },
  };
  const run = spawnSync(hook, ["--agent", name, "--reply", "vults", "PermissionRequest"], {
    input: JSON.stringify(payload),
    encoding: "utf8",
  });
  if (run.error || typeof run.stdout !== "string") return null;
  const line = run.stdout.trim();
  if (line === '{"decision":"allow"}') return { decision: "allow" };
  try {
    const parsed = JSON.parse(line);
    if (parsed && parsed.decision === "deny") return { decision: "deny", reason: String(parsed.reason ?? "") };
  } catch {
    // Not a reply: ask the user ourselves.
  }
  return null;
}

function askTerminal(cmd: string): Promise<boolean> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: false });
    process.stderr.write(`${name}: run \`${cmd}\`? [y/N] `);
    let answered = false;
    rl.once("line", (line: string) => {
      answered = true;
      rl.close();
      resolve(/^(y|yes)$/i.test(line.trim()));
    });
    rl.once("close", () => {
      if (!answered) resolve(false);
    });
  });
}

function runCommand(cmd: string): never {
  const run = spawnSync("sh", ["-c", cmd], { stdio: "inherit" });
  process.exit(run.status ?? 1);
}

async function main(): Promise<void> {
  if (!command) {
    process.stderr.write("usage: named-tool <command> [args…]\n");
    process.exit(2);
  }
  const reply = askVults(command);
  if (reply?.decision === "allow") runCommand(command);
  if (reply?.decision === "deny") {
    process.stderr.write(`${name}: denied from Vults: ${command}\n`);
    process.exit(1);
  }
  if (await askTerminal(command)) runCommand(command);
  process.stderr.write(`${name}: not run\n`);
  process.exit(1);
}

main();
