// The phone page in Brazilian Portuguese, in a real browser (Debian's chromium, headless, driven
// by playwright-core): the app (vults-phone's `phone_e2e` example with `--lang pt-BR`, as
// Settings → General chooses it) names its language in every list reply and the page speaks it,
// though the browser's own language is English; before pairing, the page speaks the browser's
// language (navigator.languages). A real `vults-hook` call whose command hides U+1D173 shows its
// escape, the hidden-characters mark and the answers in Portuguese; Negar denies it.
//
// Usage: node lang.mjs <phone_e2e binary> <vults-hook binary>
// Prints "N passed, N failed" and exits non-zero on any failure.
import { chromium } from 'playwright-core';
import { BROWSER_ARGS, CHROMIUM, VIEWPORT, behaviorOf, hookEnv, hookRunner, tally } from './harness.mjs';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [appBin, hookBin] = process.argv.slice(2);
if (!appBin || !hookBin) {
  console.error('usage: node lang.mjs <phone_e2e binary> <vults-hook binary>');
  process.exit(2);
}
const home = mkdtempSync(join(tmpdir(), 'vults-phone-lang-'));
const env = hookEnv(home);
const { check, finish } = tally();

function startApp() {
  return new Promise((resolve, reject) => {
    const app = spawn(appBin, ['0', '--lang', 'pt-BR'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
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

const runHook = hookRunner(hookBin, env);

let app;
const contexts = [];
async function browser(locale) {
  const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'vults-phone-chromium-')), {
    executablePath: CHROMIUM, headless: true, viewport: VIEWPORT, locale, args: BROWSER_ARGS,
  });
  contexts.push(context);
  const page = context.pages()[0] || await context.newPage();
  page.on('console', (m) => process.stderr.write(`[page ${locale}] ${m.text()}\n`));
  return page;
}

try {
  const started = await startApp();
  app = started.app;

  // A browser in Portuguese, not paired: the page speaks the browser's language.
  const br = await browser('pt-BR');
  await br.goto(started.url.replace(/#.*$/, ''));
  await br.waitForFunction(() => document.getElementById('status').textContent !== 'Carregando…'
    && document.documentElement.lang === 'pt-BR', null, { timeout: 20000 });
  const notPaired = await br.textContent('#status');
  check('unpaired, the page speaks the browser\'s language', notPaired.startsWith('Não pareado.'), notPaired);

  // A browser in English, paired with the app that speaks Brazilian Portuguese.
  const page = await browser('en-US');
  await page.goto(started.url);
  const pairLabel = await page.textContent('#pair');
  check('before the app says its language, the page speaks the browser\'s (English)', pairLabel === 'Pair', pairLabel);
  await page.click('#pair');
  await page.waitForFunction(() => document.getElementById('status').textContent.startsWith('Conectado'), null, { timeout: 20000 });
  check('after the list reply, the page speaks the app\'s language',
    await page.evaluate(() => document.documentElement.lang) === 'pt-BR'
      && (await page.textContent('#forget')) === 'Esquecer este pareamento'
      && (await page.textContent('#cards')).includes('Nada espera por você.'));

  // A real hook's card whose command hides U+1D173 (a musical beam that draws as nothing).
  const stamp = Date.now();
  const command = `cat /tmp/notes\u{1D173}.txt # ${stamp}`;
  const run = runHook(['--agent', 'claude', 'PermissionRequest'], {
    session_id: 'phone-lang', cwd: home, hook_event_name: 'PermissionRequest', permission_mode: 'default',
    tool_name: 'Bash', tool_input: { command, description: 'ler as notas' },
  });
  const card = page.locator('article.card', { hasText: String(stamp) });
  await card.waitFor({ timeout: 20000 });
  await page.screenshot({ path: join(home, 'card-pt-br.png') });
  const pres = await card.locator('pre').allInnerTexts();
  check('the target shows the escape, never the character',
    pres.includes(`cat /tmp/notes‹U+1D173›.txt # ${stamp}`) && !pres.some((t) => t.includes('\u{1D173}')), JSON.stringify(pres));
  const hidden = await card.locator('.hidden-chars').innerText();
  check('the hidden-characters mark is in Portuguese', hidden.startsWith('Contém caracteres ocultos'), hidden);
  const said = await card.locator('.said').innerText();
  check('the agent\'s words are labelled in Portuguese, and not translated', said === 'Claude Code diz: ler as notas', said);
  const buttons = await card.locator('.actions button').allInnerTexts();
  check('the answers are in Portuguese', JSON.stringify(buttons) === JSON.stringify(['Permitir', 'Sempre permitir', 'Negar']), JSON.stringify(buttons));
  const meta = await card.locator('.meta').allInnerTexts();
  check('why the card asks and what Always allows come in the app\'s language',
    meta.includes('nenhuma regra')
      && meta.includes('Sempre permitir: Claude Code pode executar exatamente este comando com Bash, nesta pasta.'),
    JSON.stringify(meta));
  await card.getByRole('button', { name: 'Negar', exact: true }).click();
  await card.waitFor({ state: 'detached', timeout: 20000 });
  const denied = await run;
  check('Negar on the phone: the hook prints the agent\'s deny', behaviorOf(denied.out) === 'deny', JSON.stringify(denied));
  const status = await page.textContent('#status');
  check('the page says it answered, in Portuguese', status === 'Respondido.' || status.startsWith('Conectado'), status);
} catch (e) {
  check('browser run', false, e.stack || String(e));
} finally {
  for (const c of contexts) await c.close().catch(() => {});
  if (app) app.kill('SIGTERM');
  if (!process.env.VULTS_KEEP) rmSync(home, { recursive: true, force: true });
  else console.error(`kept ${home}`);
}
finish();
