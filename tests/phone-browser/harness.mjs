// What every browser test of the phone page shares: the browser (Debian's chromium, headless,
// driven by playwright-core, at a phone's size), the tally of checks, and the real `vults-hook`
// run with a test's private home.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

// Chromium's switches for a test: no sandbox (CI runs as root), nothing fetched in the
// background, no QUIC. A test adds its own (a host name, a certificate rule).
export const BROWSER_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// A phone's screen.
export const VIEWPORT = { width: 390, height: 760 };

// The checks of one script: `check(name, ok, detail)` prints a TAP-like line; `finish()`
// prints "N passed, N failed" and exits non-zero on any failure.
export function tally() {
  let passed = 0;
  let failed = 0;
  return {
    check(name, ok, detail) {
      if (ok) { passed++; console.log(`ok - ${name}`); }
      else { failed++; console.log(`not ok - ${name}${detail ? `: ${detail}` : ''}`); }
    },
    finish() {
      console.log(`${passed} passed, ${failed} failed`);
      process.exit(failed ? 1 : 0);
    },
  };
}

// The environment the app and the hook share: everything under `home`, nothing of the real
// user's; the hook waits `waitS` seconds for an answer.
export function hookEnv(home, waitS = 60) {
  return {
    PATH: process.env.PATH,
    HOME: join(home, 'home'),
    VULTS_HOME: home,
    VULTS_SOCKET: join(home, 'vults.sock'),
    VULTS_HOOK_WAIT_S: String(waitS),
  };
}

// `runHook(args, payload)`: the real hook with `args`, the payload on its stdin; resolves to
// what it printed and its exit code.
export function hookRunner(hookBin, env) {
  return (args, payload) => new Promise((resolve) => {
    const hook = spawn(hookBin, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    hook.stdout.on('data', (d) => { out += d; });
    hook.stderr.on('data', (d) => { err += d; });
    hook.on('exit', (code) => resolve({ out, err, code }));
    hook.stdin.end(JSON.stringify(payload));
  });
}

// The behavior of a Claude Code PermissionRequest reply ("allow", "deny"), or null.
export function behaviorOf(out) {
  try { return JSON.parse(out.trim()).hookSpecificOutput.decision.behavior; } catch { return null; }
}
