// Push in a real browser: Debian's chromium, headless, driven by playwright-core. The page is
// served by the phone link of a running engine (vults-app's `phone_e2e --push`) on
// http://127.0.0.1, a trusted origin, so its service worker registers. Offline, Chromium cannot
// reach a push service of its own to subscribe, so the page is handed a subscription whose keys
// the app's stand-in push service made (its endpoint is that service); the page sends it to the
// app signed and sealed, as it sends its own. A real `vults-hook` call makes a card; the app
// pushes it to the stand-in, which checks and decrypts it; the test delivers that plaintext to
// the service worker through the DevTools protocol (ServiceWorker.deliverPushMessage), as the
// browser would after removing Web Push's encryption. Checked: the notification's title, body
// and actions, as the service worker hands them to showNotification (headless Chromium does not
// always keep a shown notification: see below); a push sealed with another key shows nothing;
// the notification's Allow (the service worker's own click handler) sends a signed answer that
// the app accepts and the hook prints allow; the app's withdraw push makes the service worker
// look the card's notification up and close it (none with its tag is left).
//
// Usage: node push.mjs <phone_e2e binary> <vults-hook binary>
// Prints "N passed, N failed" and exits non-zero on any failure.
import { chromium } from 'playwright-core';
import { BROWSER_ARGS, CHROMIUM, VIEWPORT, behaviorOf, hookEnv, hookRunner, tally } from './harness.mjs';
import { spawn } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [appBin, hookBin] = process.argv.slice(2);
if (!appBin || !hookBin) {
  console.error('usage: node push.mjs <phone_e2e binary> <vults-hook binary>');
  process.exit(2);
}
const home = mkdtempSync(join(tmpdir(), 'vults-phone-push-'));
const env = hookEnv(home);
const WAIT = 20000;
const { check, finish } = tally();

// The app: its pairing URL, the stand-in's subscription, and each push it decrypted (in order).
const pushes = [];
let appErr = '';
let pushWaiters = [];
function startApp() {
  return new Promise((resolve, reject) => {
    const app = spawn(appBin, ['0', '--push'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    let url = null;
    let subscription = null;
    let settled = false;
    const timer = setTimeout(() => reject(new Error(`no pairing URL or subscription from the app:\n${err}`)), 30000);
    let partial = '';
    app.stderr.on('data', (d) => {
      err += d;
      appErr += d;
      process.stderr.write(`[app] ${d}`);
      partial += d;
      const lines = partial.split('\n');
      partial = lines.pop();
      for (const line of lines) {
        let m = line.match(/^vults-phone-e2e: pair (\S+)/);
        if (m) url = m[1];
        m = line.match(/^vults-phone-e2e: subscription (.+)$/);
        if (m) subscription = JSON.parse(m[1]);
        m = line.match(/^vults-phone-e2e: push (\d+) (\S+)$/);
        if (m) {
          pushes.push({ status: Number(m[1]), plain: m[2] === '-' ? null : Buffer.from(m[2], 'base64url').toString() });
          const ready = pushWaiters;
          pushWaiters = [];
          for (const w of ready) w();
        }
      }
      if (!settled && url && subscription) {
        settled = true;
        clearTimeout(timer);
        resolve({ app, url, subscription });
      }
    });
    app.on('exit', (code) => { clearTimeout(timer); if (!settled) reject(new Error(`app exited (${code}):\n${err}`)); });
  });
}

// The n-th push the stand-in took (0-based), once it came.
async function push(n) {
  const deadline = Date.now() + WAIT;
  while (pushes.length <= n) {
    if (Date.now() > deadline) throw new Error(`push ${n} never came (${pushes.length} so far)`);
    await new Promise((resolve) => { pushWaiters.push(resolve); setTimeout(resolve, 1000); });
  }
  return pushes[n];
}

const runHook = hookRunner(hookBin, env);

function askThroughHook(command) {
  return runHook(['--agent', 'claude', 'PermissionRequest'], {
    session_id: 'phone-push', cwd: home, hook_event_name: 'PermissionRequest', permission_mode: 'default',
    tool_name: 'Bash', tool_input: { command, description: 'phone push' },
  });
}

// A push shaped like the app's, sealed with a key that is not this phone's.
function forgedPush() {
  const key = randomBytes(32);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const plain = JSON.stringify({ v: 1, t: 'card', tag: 'vults-card-999', card: 999, title: 'FORGED', body: 'rm -rf ~', actions: ['allow', 'deny'], time: Date.now() });
  const ct = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  return JSON.stringify({ n: iv.toString('base64url'), c: ct.toString('base64url') });
}

let app;
let context;
try {
  const started = await startApp();
  app = started.app;
  const origin = new URL(started.url).origin;
  const userDataDir = mkdtempSync(join(tmpdir(), 'vults-phone-push-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: VIEWPORT,
    args: BROWSER_ARGS,
  });
  await context.grantPermissions(['notifications'], { origin });
  const page = context.pages()[0] || await context.newPage();
  page.on('console', (m) => process.stderr.write(`[page] ${m.text()}\n`));
  const cdp = await context.newCDPSession(page);
  const registrations = new Map();
  cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations: rs }) => {
    for (const r of rs) if (!r.isDeleted) registrations.set(r.scopeURL, r.registrationId);
  });
  await cdp.send('ServiceWorker.enable');

  // Pair, on http://127.0.0.1 (a trusted origin: the service worker may run).
  await page.goto(started.url);
  await page.fill('#name', 'Push phone');
  await page.click('#pair');
  await page.waitForFunction(() => document.getElementById('status').textContent.startsWith('Connected'), null, { timeout: WAIT });
  check('pairs and connects', true);
  // The page offers notifications (the app's VAPID key came in the sealed list reply).
  await page.waitForFunction(() => !document.getElementById('push-on').hidden, null, { timeout: WAIT });
  check('the page offers to turn on notifications', true);

  // The service worker, registered by the page.
  const worker = context.serviceWorkers()[0] || await context.waitForEvent('serviceworker', { timeout: WAIT });
  await page.evaluate(() => navigator.serviceWorker.ready);
  const scope = `${origin}/`;
  const deadline = Date.now() + WAIT;
  while (!registrations.has(scope) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const registrationId = registrations.get(scope);
  check('the service worker registers on the trusted origin', !!registrationId && worker.url().endsWith('/sw.js'), worker.url());

  // The stand-in's subscription, sent by the page signed and sealed, as its own would be.
  const sent = await page.evaluate(async (s) => {
    const r = await sendSubscription(await load(), s);
    return { ok: r.ok, push: r.push };
  }, started.subscription);
  check('the app takes the subscription', sent.ok && sent.push === true, JSON.stringify(sent));
  await page.waitForFunction(() => document.getElementById('push-note').textContent.startsWith('Notifications are on'), null, { timeout: WAIT });
  check('the page says notifications are on', true);

  // What the service worker asks the browser to show, and which notifications it looks up to
  // close, recorded as it calls them (and passed on). Headless Chromium sometimes drops a
  // notification the moment it is shown (showNotification resolved, getNotifications() right
  // after it empty, in about one run in five here), so the checks read these, not the
  // browser's list.
  await worker.evaluate(() => {
    const reg = self.registration;
    self.vultsShown = [];
    self.vultsLookedUp = [];
    const show = reg.showNotification.bind(reg);
    reg.showNotification = (title, options) => {
      self.vultsShown.push({ title, body: options.body, tag: options.tag, data: options.data,
        actions: (options.actions || []).map((a) => a.action) });
      return show(title, options);
    };
    const get = reg.getNotifications.bind(reg);
    reg.getNotifications = (filter) => { self.vultsLookedUp.push(filter && filter.tag); return get(filter); };
  });
  const workerWhen = async (read, ok, what) => {
    const until = Date.now() + WAIT;
    for (;;) {
      const got = await worker.evaluate(read);
      if (ok(got)) return got;
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(got)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const deliver = (data) => cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data });

  // A card: the hook waits; the app pushes it.
  const command = `echo vults-push-${Date.now()}`;
  const run = askThroughHook(command);
  const cardPush = await push(0);
  check('the stand-in push service took the card push (VAPID, TTL, aes128gcm checked, decrypted)',
    cardPush.status === 201 && cardPush.plain !== null, JSON.stringify(cardPush));
  check('what the push service decrypted is still sealed (no command in it)',
    !cardPush.plain.includes('vults-push-'), cardPush.plain);

  // A push sealed with another key first, then the app's: only the app's shows.
  await deliver(forgedPush());
  await deliver(cardPush.plain);
  const shown = await workerWhen(() => self.vultsShown, (l) => l.length > 0, 'the card\'s notification');
  check('the card\'s notification: title, whole command and folder, Allow and Deny (what the service worker shows)',
    shown.length === 1 && shown[0].title === 'Claude Code asks: Bash'
      && shown[0].body === `${command}\nin ${home}`
      && JSON.stringify(shown[0].actions) === '["allow","deny"]'
      && /^vults-card-\d+$/.test(shown[0].tag),
    JSON.stringify(shown));
  check('a push that does not open with this phone\'s key shows nothing',
    !shown.some((n) => n.title === 'FORGED'), JSON.stringify(shown));

  // Allow on the notification: the service worker's click handler, as a tap on the action,
  // with the notification it showed (its data: the card and the actions offered).
  const answered = await worker.evaluate(async () => {
    const { data } = self.vultsShown[0];
    await onClick({ data, close() {} }, 'allow');
    return true;
  });
  const allowed = await run;
  check('Allow on the notification: the hook prints the agent\'s allow',
    answered && behaviorOf(allowed.out) === 'allow', JSON.stringify(allowed));

  // Answered: the app pushes a withdraw, which closes the notification.
  const withdraw = await push(1);
  check('the app pushes a withdraw once the card is answered', withdraw.status === 201 && withdraw.plain !== null, JSON.stringify(withdraw));
  await deliver(withdraw.plain);
  await workerWhen(() => self.vultsLookedUp, (l) => l.includes(shown[0].tag), 'the withdraw to look up the card\'s notification');
  const left = await page.evaluate(async (tag) => (await (await navigator.serviceWorker.ready).getNotifications({ tag })).length, shown[0].tag);
  check('the withdraw push closes the card\'s notification', left === 0, String(left));

  // The engine audits the answer as the phone's (the app prints each audit line).
  const auditDeadline = Date.now() + WAIT;
  while (!/audit allow by phone:Push phone \(/.test(appErr) && Date.now() < auditDeadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  check('the audit names the phone for the answer from the notification',
    /audit allow by phone:Push phone \(/.test(appErr), appErr.slice(-800));
} catch (e) {
  check('the push test ran to its end', false, e.stack || e);
} finally {
  if (context) await context.close().catch(() => {});
  if (app) app.kill('SIGTERM');
}
finish();
