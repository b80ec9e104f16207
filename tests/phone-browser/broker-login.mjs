// The phone page through a broker that lets no one in anonymously (Mosquitto with
// `allow_anonymous false`, a password file and an ACL), in a real browser: Debian's chromium,
// driven headless by playwright-core, loads the page from the broker's own web server.
//
// With a card waiting (a real `vults-hook` call), the QR code's URL is opened first with the
// phone's password changed (the page must say the broker refused its login, pair with nothing,
// and leave the card waiting), then without any login (the page must say the broker needs
// one), then as the app made it: the page pairs with the phone's own account (whose ACL
// reaches only vults/+/a write and vults/+/p read) and answers that card Allow; after a reload
// (the login comes back with the pairing from IndexedDB) another card Deny.
//
// Started by vults-app/tests/phone_login.rs, which runs the broker and the app
// (phone_broker_e2e with --user/--phone-user).
// Usage: node broker-login.mjs <pairing URL> <vults-hook binary> <VULTS_HOME> <run tag>
// Prints "N passed, N failed" and exits non-zero on any failure.
import { chromium } from 'playwright-core';
import { BROWSER_ARGS, CHROMIUM, VIEWPORT, behaviorOf, hookEnv, tally } from './harness.mjs';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [pairUrl, hookBin, home, tag] = process.argv.slice(2);
if (!pairUrl || !hookBin || !home || !tag) {
  console.error('usage: node broker-login.mjs <pairing URL> <vults-hook binary> <VULTS_HOME> <run tag>');
  process.exit(2);
}
const env = hookEnv(home, 120);
const PHONE = `Login phone ${tag}`;
const BROKER_NAME = new URL(pairUrl).hostname;
const { check, finish } = tally();

// The pairing URL with its fragment's fields changed (`null` removes one).
function withFragment(url, changes) {
  const [base, fragment] = url.split('#');
  const p = new URLSearchParams(fragment);
  for (const [k, v] of Object.entries(changes)) {
    if (v === null) p.delete(k); else p.set(k, v);
  }
  return `${base}#${p.toString()}`;
}

function askThroughHook(command) {
  return new Promise((resolve) => {
    const hook = spawn(hookBin, ['--agent', 'claude', 'PermissionRequest'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let exited = false;
    hook.stdout.on('data', (d) => { out += d; });
    hook.stderr.on('data', (d) => { err += d; });
    hook.on('exit', (code) => { exited = true; resolve({ out, err, code }); });
    hook.stdin.end(JSON.stringify({
      session_id: 'phone-login-e2e', cwd: home, hook_event_name: 'PermissionRequest', permission_mode: 'default',
      tool_name: 'Bash', tool_input: { command, description: `login e2e ${tag}` },
    }));
    askThroughHook.running = () => !exited;
  });
}

async function answerOnPhone(page, command, button, timeout = 30000) {
  const card = page.locator('article.card', { hasText: command });
  await card.waitFor({ timeout });
  await card.getByRole('button', { name: button, exact: true }).click();
  await card.waitFor({ state: 'detached', timeout });
}

const connected = () => document.getElementById('status').textContent.startsWith('Connected');
const statusOf = (page) => page.evaluate(() => {
  const s = document.getElementById('status');
  return { text: s.textContent, error: s.className === 'error' };
});
const devices = () => {
  try { return JSON.parse(readFileSync(join(home, 'config', 'devices.json'), 'utf8')).devices || []; } catch { return []; }
};

// Loads `url` as a new document (from the same page with only the fragment changed, a
// browser would just scroll).
async function fresh(page, url) {
  await page.goto('about:blank');
  await page.goto(url);
}

// Tries to pair from `url`; resolves with the status once it is an error (or times out).
async function pairRefused(page, url, expect) {
  await fresh(page, url);
  await page.fill('#name', PHONE);
  await page.click('#pair');
  await page.waitForFunction((want) => {
    const s = document.getElementById('status');
    return s.className === 'error' && s.textContent.includes(want);
  }, expect, { timeout: 30000 }).catch(() => {});
  return statusOf(page);
}

let context;
try {
  const userDataDir = mkdtempSync(join(tmpdir(), 'vults-login-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: VIEWPORT,
    ignoreHTTPSErrors: true,
    args: [...BROWSER_ARGS, '--ignore-certificate-errors', '--disable-http2',
      `--host-resolver-rules=MAP ${BROKER_NAME} 127.0.0.1`],
  });
  const page = context.pages()[0] || await context.newPage();
  page.on('console', (m) => process.stderr.write(`[page] ${m.text()}\n`));

  const fragment = new URLSearchParams(pairUrl.split('#')[1]);
  check('the QR code carries the phone\'s login beside the broker and the pairing topic',
    !!fragment.get('u') && !!fragment.get('w') && !!fragment.get('b') && !!fragment.get('p'), pairUrl.split('#')[0]);

  // A card is waiting while the wrong logins try.
  const allowCmd = `echo vults-login-e2e-allow-${tag}`;
  const allowRun = askThroughHook(allowCmd);
  const hookRunning = askThroughHook.running;

  const wrong = await pairRefused(page, withFragment(pairUrl, { w: `wrong-${tag}` }), 'refused this phone\'s login');
  check('a wrong phone password: the page says the broker refused its login',
    wrong.error && wrong.text.includes('refused this phone\'s login') && wrong.text.includes('Settings → Phone'), JSON.stringify(wrong));
  const anonymous = await pairRefused(page, withFragment(pairUrl, { u: null, w: null }), 'needs a login');
  check('no login at all: the page says the broker needs one',
    anonymous.error && anonymous.text.includes('needs a login'), JSON.stringify(anonymous));
  await fresh(page, pairUrl.split('#')[0]);
  await page.waitForFunction(() => document.getElementById('status').textContent !== 'Loading…', null, { timeout: 10000 });
  const after = await statusOf(page);
  check('nothing paired, nothing answered: the page is not paired, the app knows no device, the card still waits',
    after.text.startsWith('Not paired') && devices().length === 0 && hookRunning(),
    JSON.stringify({ after, devices: devices(), running: hookRunning() }));

  // The right login: pairs over the broker with the phone's own account and answers the card.
  await fresh(page, pairUrl);
  await page.fill('#name', PHONE);
  await page.click('#pair');
  await page.waitForFunction(connected, null, { timeout: 30000 });
  check('the phone\'s own login: pairs over the broker and connects', true);
  await answerOnPhone(page, allowCmd, 'Allow');
  const allowed = await allowRun;
  check('the card that waited through the refusals: Allow reaches the hook', behaviorOf(allowed.out) === 'allow', JSON.stringify(allowed));

  // After a reload the login comes from the stored pairing (the address has no fragment now).
  await page.reload();
  await page.waitForFunction(connected, null, { timeout: 30000 });
  const denyCmd = `echo vults-login-e2e-deny-${tag}`;
  const denyRun = askThroughHook(denyCmd);
  await answerOnPhone(page, denyCmd, 'Deny');
  const denied = await denyRun;
  check('after a reload, the stored login: Deny reaches the hook', behaviorOf(denied.out) === 'deny', JSON.stringify(denied));

  const device = ((await page.textContent('#who')) || '').split(' · ')[1];
  console.log(`DEVICE ${device}`);
} catch (e) {
  check('browser run', false, e.stack || String(e));
} finally {
  if (context) await context.close().catch(() => {});
}
finish();
