// The phone page in a real browser: Debian's chromium, driven headless by playwright-core,
// over HTTPS (the link's self-signed certificate, as on the LAN), pairs with the phone link of a running engine (vults-app's `phone_e2e` example), sees the
// card a real `vults-hook` call made, taps Allow — and the hook prints Claude Code's allow.
// Then the page is reloaded (its keys come back from IndexedDB), a second call is made, and
// Deny is tapped: the hook prints the deny. Then an AskUserQuestion (`--ask`) is answered on
// the phone (an option, a multi-select and free text), and an Edit card shows its unified diff.
// The audit must name the phone for all.
//
// Usage: node e2e.mjs <phone_e2e binary> <vults-hook binary>
// Prints "N passed, N failed" and exits non-zero on any failure.
import { chromium } from 'playwright-core';
import { BROWSER_ARGS, CHROMIUM, VIEWPORT, behaviorOf, hookEnv, hookRunner, tally } from './harness.mjs';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [appBin, hookBin] = process.argv.slice(2);
if (!appBin || !hookBin) {
  console.error('usage: node e2e.mjs <phone_e2e binary> <vults-hook binary>');
  process.exit(2);
}
const home = mkdtempSync(join(tmpdir(), 'vults-phone-e2e-'));
const env = hookEnv(home);
const PHONE = 'E2E phone';
const LAN_NAME = 'vults-phone.test';
const { check, finish } = tally();

function startApp() {
  return new Promise((resolve, reject) => {
    const app = spawn(appBin, ['0', '--tls'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    const timer = setTimeout(() => reject(new Error(`no pairing URL from the app:\n${err}`)), 30000);
    app.stderr.on('data', (d) => {
      err += d;
      process.stderr.write(`[app] ${d}`);
      const m = err.match(/vults-phone-e2e: pair (\S+)/);
      if (m) { clearTimeout(timer); resolve({ app, url: m[1] }); }
    });
    app.on('exit', (code) => { clearTimeout(timer); reject(new Error(`app exited (${code}):\n${err}`)); });
  });
}

// A Claude Code PermissionRequest through the real hook; resolves with what it printed.
function askThroughHook(command) {
  return runHook(['--agent', 'claude', 'PermissionRequest'], {
    session_id: 'phone-e2e', cwd: home, hook_event_name: 'PermissionRequest', permission_mode: 'default',
    tool_name: 'Bash', tool_input: { command, description: 'phone e2e' },
  });
}

const runHook = hookRunner(hookBin, env);

async function answerOnPhone(page, command, button) {
  const card = page.locator('article.card', { hasText: command });
  await card.waitFor({ timeout: 20000 });
  await page.screenshot({ path: join(home, `card-${button.toLowerCase()}.png`) });
  await card.getByRole('button', { name: button, exact: true }).click();
  await card.waitFor({ state: 'detached', timeout: 20000 });
}

let app;
let context;
try {
  const started = await startApp();
  app = started.app;
  const userDataDir = mkdtempSync(join(tmpdir(), 'vults-phone-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: VIEWPORT,
    // The link's certificate is self-signed; a phone's user accepts it once, as this does.
    ignoreHTTPSErrors: true,
    args: [...BROWSER_ARGS,
      // A name that is not localhost, so the page is a secure context only thanks to HTTPS —
      // as for a phone on the LAN. It resolves to the loopback link and nowhere else.
      `--host-resolver-rules=MAP ${LAN_NAME} 127.0.0.1`],
  });
  const page = context.pages()[0] || await context.newPage();
  page.on('console', (m) => process.stderr.write(`[page] ${m.text()}\n`));

  // Pair.
  await page.goto(started.url.replace('://127.0.0.1:', `://${LAN_NAME}:`));
  check('the page is a secure context over HTTPS on a LAN-style name',
    await page.evaluate(() => window.isSecureContext && !!crypto.subtle));
  await page.fill('#name', PHONE);
  await page.click('#pair');
  await page.waitForFunction(() => document.getElementById('status').textContent.startsWith('Connected'), null, { timeout: 20000 });
  check('pairs and connects', true);
  check('the token left the address bar', !page.url().includes('t='), page.url());

  // Run 1: Allow.
  const allowCmd = `echo vults-phone-e2e-allow-${Date.now()}`;
  const allowRun = askThroughHook(allowCmd);
  const said = page.locator('article.card', { hasText: allowCmd }).locator('.said');
  await said.waitFor({ timeout: 20000 });
  check('the agent\'s own words are labelled as its words, above the command',
    (await said.innerText()) === 'Claude Code says: phone e2e', await said.innerText());
  await answerOnPhone(page, allowCmd, 'Allow');
  const allowed = await allowRun;
  check('Allow on the phone: the hook prints the agent\'s allow', behaviorOf(allowed.out) === 'allow', JSON.stringify(allowed));
  await page.screenshot({ path: join(home, 'after-allow.png') });

  // Run 2, after a reload (keys from IndexedDB): Deny.
  await page.reload();
  await page.waitForFunction(() => document.getElementById('status').textContent.startsWith('Connected'), null, { timeout: 20000 });
  const denyCmd = `echo vults-phone-e2e-deny-${Date.now()}`;
  const denyRun = askThroughHook(denyCmd);
  await answerOnPhone(page, denyCmd, 'Deny');
  const denied = await denyRun;
  check('Deny on the phone: the hook prints the agent\'s deny', behaviorOf(denied.out) === 'deny', JSON.stringify(denied));

  // Run 3: a question card — an option picked and a free-text answer typed on the phone.
  const question = `Which colour for run ${Date.now()}?`;
  const askRun = runHook(['--agent', 'claude', '--ask', 'PreToolUse'], {
    session_id: 'phone-e2e', cwd: home, hook_event_name: 'PreToolUse', tool_name: 'AskUserQuestion',
    tool_input: { questions: [
      { question, header: 'Colour', multiSelect: false, options: [{ label: 'Blue', description: 'calm' }, { label: 'Red' }] },
      { question: 'Which sizes?', header: 'Size', multiSelect: true, options: [{ label: 'S' }, { label: 'M' }, { label: 'L' }] },
    ] },
  });
  const qcard = page.locator('article.card', { hasText: question });
  await qcard.waitFor({ timeout: 20000 });
  await qcard.getByLabel('Blue').check();
  await qcard.getByLabel('S', { exact: true }).check();
  await qcard.locator('input[type=text]').nth(1).fill('XL');
  await page.screenshot({ path: join(home, 'card-question.png') });
  await qcard.getByRole('button', { name: 'Send answers' }).click();
  await qcard.waitFor({ state: 'detached', timeout: 20000 });
  const asked = await askRun;
  let answers = null;
  try { answers = JSON.parse(asked.out.trim()).hookSpecificOutput.updatedInput.answers; } catch { /* checked below */ }
  check('answers from the phone reach the agent, keyed by question',
    answers && answers[question] === 'Blue' && JSON.stringify(answers['Which sizes?']) === '["S","XL"]', JSON.stringify(asked));

  // Run 4: an Edit card shows the same unified diff as the desktop, numbered (the app read the
  // file), with the exact text one tap away; Deny leaves the file alone.
  const src = join(home, 'project', 'lib.rs');
  mkdirSync(join(home, 'project'), { recursive: true });
  const lines = Array.from({ length: 12 }, (_, i) => `fn f${i + 1}() {}`);
  writeFileSync(src, lines.join('\n') + '\n');
  const editRun = runHook(['--agent', 'claude', 'PermissionRequest'], {
    session_id: 'phone-e2e', cwd: home, hook_event_name: 'PermissionRequest', permission_mode: 'default',
    tool_name: 'Edit', tool_input: { file_path: src, old_string: 'fn f7() {}', new_string: 'fn seven() -> u8 { 7 }' },
  });
  const ecard = page.locator('article.card', { hasText: src });
  await ecard.waitFor({ timeout: 20000 });
  await page.screenshot({ path: join(home, 'card-edit.png') });
  const del = await ecard.locator('.diff .line.del').allInnerTexts();
  const add = await ecard.locator('.diff .line.add').allInnerTexts();
  const ctx = await ecard.locator('.diff .line.ctx').count();
  const flat = (xs) => xs.map((x) => x.replace(/\s+/g, ' ').trim());
  check('an Edit card shows the unified diff, numbered, with context and the whole text a tap away',
    JSON.stringify(flat(del)) === JSON.stringify(['7 - fn f7() {}'])
      && JSON.stringify(flat(add)) === JSON.stringify(['7 + fn seven() -> u8 { 7 }'])
      && ctx === 6 && await ecard.locator('details.whole pre').count() === 2,
    JSON.stringify({ del, add, ctx }));
  await ecard.getByRole('button', { name: 'Deny', exact: true }).click();
  await ecard.waitFor({ state: 'detached', timeout: 20000 });
  await editRun;

  // Run 5: text meant to fool a reader. A right-to-left override makes "/tmp/\u202etxt.exe" read
  // as "/tmp/exe.txt" and a zero-width space hides in a host name: the page writes each out as
  // ‹U+…›, as the desktop card does, and says the card has hidden characters. U+1D173 (a
  // musical beam that draws as nothing) too: the notification once lacked it.
  const stamp = Date.now();
  const trick = `cp payload /tmp/\u202etxt.exe && curl -s https://exa\u200bmple.com/${stamp} /tmp/notes\u{1D173}.txt`;
  const trickRun = askThroughHook(trick);
  const shownTrick = `cp payload /tmp/‹U+202E›txt.exe && curl -s https://exa‹U+200B›mple.com/${stamp} /tmp/notes‹U+1D173›.txt`;
  const tcard = page.locator('article.card', { hasText: String(stamp) });
  await tcard.waitFor({ timeout: 20000 });
  await page.screenshot({ path: join(home, 'card-hidden.png') });
  const pres = await tcard.locator('pre').allInnerTexts();
  check('hidden characters read as ‹U+…› and the card says it has some',
    pres.includes(shownTrick)
      && !pres.some((t) => t.includes('\u202e') || t.includes('\u200b') || t.includes('\u{1D173}'))
      && (await tcard.locator('.hidden-chars').count()) === 1,
    JSON.stringify(pres));
  await tcard.getByRole('button', { name: 'Deny', exact: true }).click();
  await tcard.waitFor({ state: 'detached', timeout: 20000 });
  await trickRun;

  // Run 6: a plan review (Claude Code's ExitPlanMode): the page draws the plan — a heading, the
  // steps, the code block — and Keep planning sends the feedback typed on the phone, which the
  // hook prints as the deny's message for the model.
  const planStamp = Date.now();
  const plan = `# Plan ${planStamp}\n\n## Steps\n\n1. Write the marker\n2. Check it\n\n\`\`\`sh\ntest -s marker.txt\n\`\`\`\n`;
  const planRun = runHook(['--agent', 'claude', 'PermissionRequest'], {
    session_id: 'phone-e2e', cwd: home, hook_event_name: 'PermissionRequest', permission_mode: 'plan',
    tool_name: 'ExitPlanMode', tool_input: { plan, planFilePath: join(home, 'plan.md') },
  });
  const pcard = page.locator('article.card', { hasText: `Plan ${planStamp}` });
  await pcard.waitFor({ timeout: 20000 });
  await page.screenshot({ path: join(home, 'card-plan.png') });
  const heading = await pcard.locator('.plan h3').first().innerText();
  const items = await pcard.locator('.plan .item').allInnerTexts();
  const code = await pcard.locator('.plan pre').allInnerTexts();
  check('a plan card draws the plan: heading, steps and code, not the markdown source',
    heading === `Plan ${planStamp}` && JSON.stringify(items) === JSON.stringify(['1. Write the marker', '2. Check it'])
      && JSON.stringify(code) === JSON.stringify(['test -s marker.txt'])
      && (await pcard.getByRole('button', { name: 'Always allow' }).count()) === 0,
    JSON.stringify({ heading, items, code }));
  await pcard.getByLabel('Feedback').fill('Also say how the marker is checked');
  await pcard.getByRole('button', { name: 'Keep planning', exact: true }).click();
  await pcard.waitFor({ state: 'detached', timeout: 20000 });
  const kept = await planRun;
  let message = null;
  try { message = JSON.parse(kept.out.trim()).hookSpecificOutput.decision; } catch { /* checked below */ }
  check('Keep planning on the phone: the hook prints the deny with the feedback as its message',
    message && message.behavior === 'deny' && message.message === 'Also say how the marker is checked', JSON.stringify(kept));

  // The audit names the phone, with its device id (the page shows "<name> · <device id>").
  await new Promise((r) => setTimeout(r, 300)); // the engine's audit writer is asynchronous
  const device = ((await page.textContent('#who')) || '').split(' · ')[1];
  const by = `phone:${PHONE} (${device})`;
  const audit = readFileSync(join(home, 'data', 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const byPhone = audit.filter((e) => e.by === by).map((e) => `${e.decision}:${e.target}`);
  check('the audit names the phone and its device id for every answer',
    !!device && byPhone.includes(`allow:${allowCmd}`) && byPhone.includes(`deny:${denyCmd}`)
      && audit.some((e) => e.by === by && e.decision === 'answer'), JSON.stringify(audit));
} catch (e) {
  check('browser run', false, e.stack || String(e));
} finally {
  if (context) await context.close().catch(() => {});
  if (app) app.kill('SIGTERM');
  if (!process.env.VULTS_KEEP) rmSync(home, { recursive: true, force: true });
  else console.error(`kept ${home}`);
}
finish();
