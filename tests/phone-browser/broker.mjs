// The phone page over an MQTT broker in a real browser: Debian's chromium, driven headless by
// playwright-core, loads the page from the broker's own web server (Mosquitto's `http_dir` on
// its TLS WebSocket listener), pairs over the broker with the app (LAN link off), and answers
// a real `vults-hook` call with Allow, another with Deny, and a question card; the hook prints
// each. Then the test publishes again every frame the broker carried to the phone (a line
// `REPLAY-TO-PHONE`, then one on stdin), and the page must be unmoved. Then it asks the test
// to restart the broker (a line `RESTART-BROKER` on stdout, and
// waits for a line on stdin), and answers one more call through the reconnected app and page.
//
// Started by vults-app/tests/phone_broker.rs, which runs the broker, the app
// (phone_broker_e2e) and a subscriber on `#`.
// Usage: node broker.mjs <pairing URL> <vults-hook binary> <VULTS_HOME> <run tag>
// Prints "N passed, N failed" and exits non-zero on any failure.
import { chromium } from 'playwright-core';
import { BROWSER_ARGS, CHROMIUM, VIEWPORT, behaviorOf, hookEnv, hookRunner, tally } from './harness.mjs';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [pairUrl, hookBin, home, tag] = process.argv.slice(2);
if (!pairUrl || !hookBin || !home || !tag) {
  console.error('usage: node broker.mjs <pairing URL> <vults-hook binary> <VULTS_HOME> <run tag>');
  process.exit(2);
}
const env = hookEnv(home, 90);
const PHONE = `Broker phone ${tag}`;
const BROKER_NAME = new URL(pairUrl).hostname;
const { check, finish } = tally();

const stdinLines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

const runHook = hookRunner(hookBin, env);

function askThroughHook(command) {
  return runHook(['--agent', 'claude', 'PermissionRequest'], {
    session_id: 'phone-broker-e2e', cwd: home, hook_event_name: 'PermissionRequest', permission_mode: 'default',
    tool_name: 'Bash', tool_input: { command, description: `broker e2e ${tag}` },
  });
}

async function answerOnPhone(page, command, button, timeout = 30000) {
  const card = page.locator('article.card', { hasText: command });
  await card.waitFor({ timeout });
  await card.getByRole('button', { name: button, exact: true }).click();
  await card.waitFor({ state: 'detached', timeout });
}

const connected = () => document.getElementById('status').textContent.startsWith('Connected');

let context;
try {
  const userDataDir = mkdtempSync(join(tmpdir(), 'vults-broker-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: VIEWPORT,
    // The test broker's certificate comes from a CA made by the test; a real phone trusts the
    // broker's real certificate.
    ignoreHTTPSErrors: true,
    args: [...BROWSER_ARGS, '--ignore-certificate-errors',
      // Mosquitto 2.0's libwebsockets offers HTTP/2 but answers nothing to a file request
      // over it (docs/phone.md); HTTP/1.1 it serves.
      '--disable-http2',
      `--host-resolver-rules=MAP ${BROKER_NAME} 127.0.0.1`],
  });
  const page = context.pages()[0] || await context.newPage();
  page.on('console', (m) => process.stderr.write(`[page] ${m.text()}\n`));

  // Pair, over the broker, on the page the broker itself serves.
  await page.goto(pairUrl);
  check('the page comes from the broker\'s web server and is a secure context',
    page.url().startsWith(`https://${BROKER_NAME}:`) && await page.evaluate(() => window.isSecureContext && !!crypto.subtle),
    page.url());
  await page.fill('#name', PHONE);
  await page.click('#pair');
  await page.waitForFunction(connected, null, { timeout: 30000 });
  check('pairs over the broker and connects', true);
  check('the token left the address bar', !page.url().includes('t='), page.url());

  // Allow.
  const allowCmd = `echo vults-broker-e2e-allow-${tag}`;
  const allowRun = askThroughHook(allowCmd);
  await answerOnPhone(page, allowCmd, 'Allow');
  const allowed = await allowRun;
  check('Allow over the broker: the hook prints the agent\'s allow', behaviorOf(allowed.out) === 'allow', JSON.stringify(allowed));

  // Deny, after a reload (the keys and the broker come back from IndexedDB).
  await page.reload();
  await page.waitForFunction(connected, null, { timeout: 30000 });
  const denyCmd = `echo vults-broker-e2e-deny-${tag}`;
  const denyRun = askThroughHook(denyCmd);
  await answerOnPhone(page, denyCmd, 'Deny');
  const denied = await denyRun;
  check('Deny over the broker: the hook prints the agent\'s deny', behaviorOf(denied.out) === 'deny', JSON.stringify(denied));

  // A question card.
  const question = `Which colour for broker run ${tag}?`;
  const askRun = runHook(['--agent', 'claude', '--ask', 'PreToolUse'], {
    session_id: 'phone-broker-e2e', cwd: home, hook_event_name: 'PreToolUse', tool_name: 'AskUserQuestion',
    tool_input: { questions: [
      { question, header: 'Colour', multiSelect: false, options: [{ label: 'Blue' }, { label: 'Red' }] },
    ] },
  });
  const qcard = page.locator('article.card', { hasText: question });
  await qcard.waitFor({ timeout: 30000 });
  await qcard.getByLabel('Blue').check();
  await qcard.getByRole('button', { name: 'Send answers' }).click();
  await qcard.waitFor({ state: 'detached', timeout: 30000 });
  const asked = await askRun;
  let answers = null;
  try { answers = JSON.parse(asked.out.trim()).hookSpecificOutput.updatedInput.answers; } catch { /* checked below */ }
  check('a question answered over the broker reaches the agent', answers && answers[question] === 'Blue', JSON.stringify(asked));

  // Every frame the broker carried to the phone so far, published again by the test: the
  // page takes none of them for a reply (each names a request it is not waiting for, or
  // none), and stays connected with nothing waiting.
  console.log('REPLAY-TO-PHONE');
  await stdinLines.next();
  await new Promise((r) => setTimeout(r, 3000));
  await page.waitForFunction(connected, null, { timeout: 10000 });
  check('replayed replies change nothing on the page',
    await page.evaluate(() => document.getElementById('status').className !== 'error'
      && document.getElementById('cards').textContent === 'Nothing is waiting for you.'),
    await page.textContent('body'));

  // The broker restarts mid-session: the app and the page reconnect, and the next answer works.
  console.log('RESTART-BROKER');
  await stdinLines.next();
  const afterCmd = `echo vults-broker-e2e-after-restart-${tag}`;
  const afterRun = askThroughHook(afterCmd);
  await answerOnPhone(page, afterCmd, 'Allow', 60000);
  const after = await afterRun;
  check('after the broker restarted, Allow still reaches the hook', behaviorOf(after.out) === 'allow', JSON.stringify(after));

  // The audit names the phone and its device id for each answer.
  await new Promise((r) => setTimeout(r, 300));
  const device = ((await page.textContent('#who')) || '').split(' · ')[1];
  const by = `phone:${PHONE} (${device})`;
  const audit = readFileSync(join(home, 'data', 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const byPhone = audit.filter((e) => e.by === by).map((e) => `${e.decision}:${e.target}`);
  check('the audit names the phone and its device id for every answer',
    !!device && byPhone.includes(`allow:${allowCmd}`) && byPhone.includes(`deny:${denyCmd}`)
      && byPhone.includes(`allow:${afterCmd}`) && audit.some((e) => e.by === by && e.decision === 'answer'),
    JSON.stringify(audit));
  console.log(`DEVICE ${device}`);
} catch (e) {
  check('browser run', false, e.stack || String(e));
} finally {
  if (context) await context.close().catch(() => {});
}
finish();
