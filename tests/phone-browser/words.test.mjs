// The phone page's words alone, in Node: phone.js's own formatter (from `const LANGS` to its
// static-words helper) with the real words.js, and with a table that exercises what the
// bundles' messages may hold — arguments, a plural choice, a message a language lacks.
// Prints "N passed, N failed"; run by vults-app/phone/tests/page.rs whenever `node` runs.
import { readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
function check(name, got, want) {
  if (got === want) { passed++; console.log(`ok - ${name}`); }
  else { failed++; console.log(`not ok - ${name}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`); }
}

const page = readFileSync(new URL('../../assets/phone/phone.js', import.meta.url), 'utf8');
const from = page.indexOf('const LANGS');
const to = page.indexOf('// The page\'s own static words');
if (from < 0 || to < from) throw new Error('phone.js: the words part moved');
const words = readFileSync(new URL('../../assets/phone/words.js', import.meta.url), 'utf8');
// The formatter, with WORDS and navigator.languages given, and a way to pick the app's language.
function formatter(WORDS, languages) {
  const code = `${page.slice(from, to)}\nreturn { t, lang: () => lang, use: (l) => { lang = l; } };`;
  return new Function('WORDS', 'navigator', code)(WORDS, { languages });
}
const WORDS = new Function(`${words}\nreturn WORDS;`)();

const br = formatter(WORDS, ['pt-BR', 'en']);
check('a Brazilian browser reads pt-BR', br.lang(), 'pt-BR');
check('a message in pt-BR', br.t('phone-allow'), 'Permitir');
check('an argument', br.t('phone-destructive', { why: 'rm -r' }), 'Destrutivo: rm -r');
check('pt-PT reads the same language in another region', formatter(WORDS, ['pt-PT']).lang(), 'pt-BR');
check('an unknown language reads English', formatter(WORDS, ['tlh', 'de']).lang(), 'en');
const en = formatter(WORDS, []);
check('no language at all reads English', en.t('phone-deny'), 'Deny');
check('an unknown id reads as itself', en.t('phone-none-such'), 'phone-none-such');

const plural = { s: 'count', k: [['one', ['1 card']], ['other', [{ v: 'count' }, ' cards']]], d: 1 };
const made = formatter({
  en: { w: ['You have ', plural, '.'], only: ['English only'] },
  'pt-BR': { w: [{ s: 'count', k: [['one', ['1 cartão']], ['other', [{ v: 'count' }, ' cartões']]], d: 1 }] },
}, ['pt-BR']);
check('a plural choice, one', made.t('w', { count: 1 }), '1 cartão');
check('a plural choice, other', made.t('w', { count: 3 }), '3 cartões');
check('a message the language lacks falls back to English', made.t('only'), 'English only');
made.use('en');
check('English plural', made.t('w', { count: 1 }), 'You have 1 card.');
check('the default variant for a word no key names', made.t('w', { count: 'many' }), 'You have many cards.');

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
