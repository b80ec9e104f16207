// phone.js — the Vults phone page. No build step, no dependencies: WebCrypto, IndexedDB, and
// (for a phone paired over a broker) the small MQTT client beside it, mqtt.js.
//
// Pairing: the QR code's URL carries, in its fragment (never sent to a server), a one-time
// token and the app's Ed25519 (k) and X25519 (x) public keys. This page makes its own Ed25519
// and X25519 key pairs (private halves non-extractable), proves it holds the signing key,
// and checks the app's signed receipt against k. Afterwards every request is signed with the
// phone's Ed25519 key over a line-based message (see vults-app/src/phone/crypto.rs) and sealed
// with AES-256-GCM under a key from X25519 + HKDF-SHA256; every reply is sealed the same way.
//
// Two transports for the same sealed bytes: HTTPS to the app on the LAN (POST /pair, /api),
// or — when the QR code names a broker (b) and a pairing topic (p) — MQTT over WSS through
// the broker the user picked. On the broker every message is a frame with nothing in clear:
// [1] ‖ (phone X25519 key, pairing only) ‖ nonce ‖ ciphertext, on vults/<id>/a (to the app)
// and vults/<id>/p (to the phone), where <id> is random per QR code for pairing and, after
// it, derived from the same X25519 secret as the seal key. A broker that wants every client
// to log in gets the phone's own login, from the QR code too (u, w), kept with the pairing.
'use strict';

const DOMAIN = 'vults-phone-v1';
const PAIR_DOMAIN = 'vults-phone-pair-v1';
const PAIRED_DOMAIN = 'vults-phone-paired-v1';
const HKDF_SALT = 'vults-phone-v1 hkdf salt';
const HKDF_INFO = 'vults-phone-v1 aes-256-gcm';
const TOPIC_INFO = 'vults-phone-v1 mqtt topic';
const POLL_MS = 1500;
const BROKER_REPLY_MS = 10000;

const enc = new TextEncoder();
const dec = new TextDecoder();
const $ = (id) => document.getElementById(id);

// ---- words ---------------------------------------------------------------------------------
// The page's words in every language Vults speaks are in words.js (WORDS, made from
// assets/i18n/<tag>/phone.ftl; docs/translating.md). The page speaks the app's language, which
// each list reply names (`lang`); before the first reply, and for a language words.js lacks,
// the browser's (navigator.languages); else English, message by message.
const LANGS = typeof WORDS === 'undefined' ? {} : WORDS;
let lang = pickLang(typeof navigator !== 'undefined' ? navigator.languages : []);
// The exact tag, else the same language in another region (pt-PT reads pt-BR), else English.
function pickLang(wanted) {
  const tags = Object.keys(LANGS);
  for (const w of wanted || []) {
    const exact = tags.find((t) => t.toLowerCase() === String(w).toLowerCase());
    if (exact) return exact;
    const base = String(w).split('-')[0].toLowerCase();
    const near = tags.find((t) => t.split('-')[0].toLowerCase() === base);
    if (near) return near;
  }
  return 'en';
}
// A message formatted with its arguments: text, { $name }, and a choice on an argument (the
// exact key, else the number's plural category, else the default).
function t(id, args = {}) {
  const parts = (LANGS[lang] && LANGS[lang][id]) || (LANGS.en && LANGS.en[id]);
  return parts ? format(parts, args) : id;
}
function format(parts, args) {
  return parts.map((p) => {
    if (typeof p === 'string') return p;
    if ('v' in p) return args[p.v] == null ? '' : String(args[p.v]);
    const x = args[p.s];
    let chosen = p.k.find(([key]) => key === String(x));
    if (!chosen && typeof x === 'number') {
      const category = new Intl.PluralRules(lang).select(x);
      chosen = p.k.find(([key]) => key === category);
    }
    return format((chosen || p.k[p.d])[1], args);
  }).join('');
}
// The page's own static words (data-t, data-t-placeholder), and its language for the browser.
function applyWords() {
  if (typeof document === 'undefined') return;
  document.documentElement.lang = lang;
  // Without words.js (a static host that lacks it) the page's own English stays.
  if (!LANGS.en) return;
  for (const e of document.querySelectorAll('[data-t]')) e.textContent = t(e.dataset.t);
  for (const e of document.querySelectorAll('[data-t-value]')) {
    if (!e.dataset.typed) e.value = t(e.dataset.tValue);
  }
}
// The app named its language: the page speaks it from now on (its words redrawn) when it has
// its words.
function useLang(tag) {
  if (typeof tag !== 'string' || !LANGS[tag] || tag === lang) return false;
  lang = tag;
  applyWords();
  return true;
}

// ---- encodings ----------------------------------------------------------------------------
function b64(bytes) {
  let s = '';
  for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
function unb64(s) {
  const t = s.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(t + '='.repeat((4 - (t.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}
function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let i = 0;
  for (const p of parts) { out.set(p, i); i += p.length; }
  return out;
}
const random = (n) => crypto.getRandomValues(new Uint8Array(n));

// ---- storage: one record, CryptoKeys stored as they are (non-extractable) --------------------
function db() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open('vults-phone', 1);
    req.onupgradeneeded = () => req.result.createObjectStore('link');
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}
async function load() {
  const d = await db();
  return new Promise((resolve, reject) => {
    const req = d.transaction('link').objectStore('link').get('self');
    req.onsuccess = () => resolve(req.result || null);
    req.onerror = () => reject(req.error);
  });
}
async function save(record) {
  const d = await db();
  return new Promise((resolve, reject) => {
    const tx = d.transaction('link', 'readwrite');
    if (record) tx.objectStore('link').put(record, 'self');
    else tx.objectStore('link').delete('self');
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
  });
}

// ---- crypto --------------------------------------------------------------------------------
async function sealKey(boxPrivate, appBoxRaw, phoneBoxRaw) {
  return (await agree(boxPrivate, appBoxRaw, phoneBoxRaw)).seal;
}
// The seal key and the broker topic id, both from the one X25519 secret (vults-app's
// crypto.rs, SealKey::agree and SealKey::topic).
async function agree(boxPrivate, appBoxRaw, phoneBoxRaw) {
  const appBox = await crypto.subtle.importKey('raw', appBoxRaw, { name: 'X25519' }, false, []);
  const shared = await crypto.subtle.deriveBits({ name: 'X25519', public: appBox }, boxPrivate, 256);
  const hk = await crypto.subtle.importKey('raw', shared, 'HKDF', false, ['deriveKey', 'deriveBits']);
  const salt = enc.encode(HKDF_SALT);
  const seal = await crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt, info: concat(enc.encode(HKDF_INFO), appBoxRaw, phoneBoxRaw) },
    hk, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
  const topic = new Uint8Array(await crypto.subtle.deriveBits(
    { name: 'HKDF', hash: 'SHA-256', salt, info: concat(enc.encode(TOPIC_INFO), appBoxRaw, phoneBoxRaw) },
    hk, 128));
  return { seal, topic: hex(topic) };
}
function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
function aad(direction, device) {
  return enc.encode(`${DOMAIN} ${direction} ${device}`);
}
async function sealBytes(key, device, plain) {
  const iv = random(12);
  const ct = new Uint8Array(await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: aad('to-app', device) }, key, enc.encode(plain)));
  return { iv, ct };
}
async function openBytes(key, device, iv, ct) {
  const plain = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv, additionalData: aad('to-phone', device) }, key, ct);
  return JSON.parse(dec.decode(plain));
}
async function seal(link, plain) {
  const { iv, ct } = await sealBytes(link.seal, link.device, plain);
  return { d: link.device, n: b64(iv), c: b64(ct) };
}
async function open(link, body) {
  return openBytes(link.seal, link.device, unb64(body.n), unb64(body.c));
}
// A push's content, sealed by the app for this phone's service worker (the "push" direction;
// vults-app/phone/src/push). Throws when it was not sealed with this phone's key.
async function openPush(link, body) {
  const plain = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: unb64(body.n), additionalData: aad('push', link.device) }, link.seal, unb64(body.c));
  return JSON.parse(dec.decode(plain));
}

// ---- the broker: one connection, replies matched to requests ---------------------------------
const FRAME_VERSION = 1;
function frame(...parts) { return concat(new Uint8Array([FRAME_VERSION]), ...parts); }
// (prefix, nonce, ciphertext) of a frame, or null.
function unframe(bytes, prefixLen) {
  if (bytes[0] !== FRAME_VERSION || bytes.length < 1 + prefixLen + 12 + 16) return null;
  return { iv: bytes.slice(1 + prefixLen, 13 + prefixLen), ct: bytes.slice(13 + prefixLen) };
}
let broker = null;
const inbox = new Map(); // topic → the handlers of frames arriving on it (one per request waiting)

// `conn`: { url, login: { username, password } or null (anonymous) }.
function brokerFor(conn) {
  const login = conn.login || { username: '', password: '' };
  if (broker && broker.url === conn.url && broker.username === login.username
    && broker.password === login.password) return broker;
  if (broker) broker.stop();
  broker = new VultsMqtt(conn.url, {
    username: login.username,
    password: login.password,
    onMessage: (topic, bytes) => { for (const h of inbox.get(topic) || []) h(bytes); },
    onState: (state, why, wait) => {
      if (state === 'reconnecting') status(t('phone-reconnecting', { seconds: Math.round(wait / 1000), why }), true);
      else if (state === 'refused') status(why, true);
    },
  });
  broker.start();
  return broker;
}

// Publishes `bytes` to vults/<id>/a and resolves with the first frame on vults/<id>/p that
// `accept` turns into a value (others — a replay, another request's reply — are ignored).
async function overBroker(conn, id, bytes, accept) {
  const b = brokerFor(conn);
  const replies = `vults/${id}/p`;
  let handler;
  const reply = new Promise((resolve, reject) => {
    // (Not `t`: that is the page's words, which the timeout's error is worded with.)
    const timer = setTimeout(() => reject(new Error(t('phone-broker-no-reply'))), BROKER_REPLY_MS);
    handler = async (frameBytes) => {
      const v = await accept(frameBytes).catch(() => null);
      if (v != null) { clearTimeout(timer); resolve(v); }
    };
  });
  reply.catch(() => {}); // awaited below, unless sending failed first
  if (!inbox.has(replies)) inbox.set(replies, new Set());
  inbox.get(replies).add(handler);
  try {
    b.subscribe(replies);
    await b.ready(6000);
    if (!b.publish(`vults/${id}/a`, bytes)) throw new Error(t('phone-broker-not-connected'));
    return await reply;
  } finally {
    inbox.get(replies).delete(handler);
  }
}
async function sign(privateKey, text) {
  return b64(await crypto.subtle.sign({ name: 'Ed25519' }, privateKey, enc.encode(text)));
}

// ---- pairing -------------------------------------------------------------------------------
function offerFromHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  if (p.get('v') !== '1' || !p.get('t') || !p.get('k') || !p.get('x')) return null;
  const offer = { token: p.get('t'), appSign: p.get('k'), appBox: p.get('x') };
  const b = p.get('b');
  const topic = p.get('p');
  if (b && topic) {
    if (!b.startsWith('wss://') || !/^[0-9a-f]{32}$/.test(topic)) return null;
    offer.broker = b;
    offer.topic = topic;
    // The phone's own broker login, when the broker wants one (else anonymous).
    const user = p.get('u');
    offer.login = user ? { username: user, password: p.get('w') || '' } : null;
  }
  return offer;
}

// The pairing request over the broker: sealed to the app's X25519 key (the key from the QR
// code) under the key this phone will share with it, bound to the code's topic; the reply
// sealed back the same way.
async function pairOverBroker(offer, body, boxPrivate, boxPubRaw) {
  const appBoxRaw = unb64(offer.appBox);
  const key = await sealKey(boxPrivate, appBoxRaw, boxPubRaw);
  const device = `pair-${offer.topic}`;
  const { iv, ct } = await sealBytes(key, device, JSON.stringify(body));
  return overBroker({ url: offer.broker, login: offer.login }, offer.topic, frame(boxPubRaw, iv, ct), async (bytes) => {
    const f = unframe(bytes, 0);
    if (!f) return null;
    const r = await openBytes(key, device, f.iv, f.ct);
    return { ok: r.status === 200, status: r.status, body: r.body || {} };
  });
}

async function pair(offer, name) {
  const signPair = await crypto.subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify']);
  const boxPair = await crypto.subtle.generateKey({ name: 'X25519' }, false, ['deriveBits']);
  const signPub = b64(await crypto.subtle.exportKey('raw', signPair.publicKey));
  const boxPubRaw = new Uint8Array(await crypto.subtle.exportKey('raw', boxPair.publicKey));
  const boxPub = b64(boxPubRaw);
  const proof = `${PAIR_DOMAIN}\ntoken=${offer.token}\nname=${name}\nsign=${signPub}\nbox=${boxPub}`;
  const request = { token: offer.token, name, sign: signPub, box: boxPub,
    sig: await sign(signPair.privateKey, proof) };
  let res;
  const overLan = async () => {
    const r = await fetch('/pair', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(request),
    });
    return { ok: r.ok, status: r.status, body: await r.json().catch(() => ({})) };
  };
  if (offer.broker) {
    try {
      res = await pairOverBroker(offer, request, boxPair.privateKey, boxPubRaw);
    } catch (e) {
      // The broker cannot be reached: on the app's own page (the LAN), pair there instead.
      res = await overLan().catch(() => null);
      if (!res || !res.body || (res.status !== 200 && !res.body.error)) throw e;
    }
  } else {
    res = await overLan();
  }
  const body = res.body;
  if (!res.ok) throw new Error(body.error || `pairing failed (${res.status})`);
  // The receipt must be signed by the app whose key was in the QR code.
  const appKey = await crypto.subtle.importKey('raw', unb64(offer.appSign), { name: 'Ed25519' }, false, ['verify']);
  const receipt = `${PAIRED_DOMAIN}\ndevice=${body.device}\nsign=${signPub}\nbox=${boxPub}`;
  const good = await crypto.subtle.verify({ name: 'Ed25519' }, appKey, unb64(body.sig), enc.encode(receipt));
  if (!good) throw new Error('the app\'s receipt does not verify: this is not the app from the QR code');
  // The app may have suffixed the name (another device has it already): show the one it keeps.
  const agreed = await agree(boxPair.privateKey, unb64(offer.appBox), boxPubRaw);
  const link = {
    device: body.device, name: typeof body.name === 'string' ? body.name : name, appSign: offer.appSign, appBox: offer.appBox,
    signKey: signPair.privateKey,
    seal: agreed.seal,
    // Paired over a broker: every later request goes through it, on this device's topic.
    // Its login (if the code carried one) is kept here as the keys are.
    broker: offer.broker ? { url: offer.broker, topic: agreed.topic, login: offer.login || null } : null,
    offset: 0,
  };
  await save(link);
  return link;
}

// ---- signed requests -----------------------------------------------------------------------
let clockOffset = 0;

// A phone paired over a broker uses it; when the broker cannot be reached and this page is
// the app's own (on the LAN), the same request goes to the app directly, with a fresh nonce.
async function call(link, op, extra) {
  if (!link.broker) return attempt(link, op, extra, false);
  try {
    return await attempt(link, op, extra, true);
  } catch (e) {
    try { return await attempt(link, op, extra, false); } catch { throw e; }
  }
}

async function attempt(link, op, extra, viaBroker) {
  const nonce = b64(random(16));
  let m = `${DOMAIN}\nop=${op}\ndevice=${link.device}\ntime=${Date.now() + clockOffset}\nnonce=${nonce}`;
  if (extra) m += extra;
  const inner = JSON.stringify({ m, s: await sign(link.signKey, m) });
  if (viaBroker) return callOverBroker(link, nonce, inner);
  const env = await seal(link, inner);
  const res = await fetch('/api', {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(env),
  });
  // Not the app (a static host's answer): no JSON.
  const body = link.broker ? await res.json() : await res.json().catch(() => ({}));
  if (!body.c) {
    if (body.error === 'revoked device') throw new Error(t('phone-revoked'));
    if (body.error === 'unknown device' || body.error === 'seal does not open') {
      throw new Error(t('phone-unknown'));
    }
    throw new Error(body.error || `the app refused (${res.status})`);
  }
  const reply = await open(link, body);
  if (reply.re !== nonce) throw new Error('a reply to another request');
  if (typeof reply.now === 'number') clockOffset = reply.now - Date.now();
  return reply;
}

// A request over the broker. A refusal before the app could authenticate it (a revoked
// phone, one it does not know) gets no reply there: the broker is not told why.
async function callOverBroker(link, nonce, inner) {
  const { iv, ct } = await sealBytes(link.seal, link.device, inner);
  const reply = await overBroker(link.broker, link.broker.topic, frame(iv, ct), async (bytes) => {
    const f = unframe(bytes, 0);
    if (!f) return null;
    const r = await openBytes(link.seal, link.device, f.iv, f.ct);
    return r.re === nonce ? r : null;
  });
  if (typeof reply.now === 'number') clockOffset = reply.now - Date.now();
  return reply;
}

// ---- rendering (textContent only: card content is never parsed as HTML) ---------------------
// Characters that show as nothing, or as what they are not — the app's one rule,
// vults_core::text::HIDDEN, written out (a test in vults-app/phone/tests/page.rs compares this
// table with it over every code point, and prints the line to paste when they differ): control characters (but newline and tab), format characters
// (bidi controls that reorder "/tmp/\u202etxt.exe", zero-width spaces and joiners, the BOM,
// tag characters), line/paragraph separators, variation selectors, Hangul fillers. Each is
// written out as ‹U+202E› wherever a card's text is shown; "\r\n" is a line end.
const HIDDEN = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u034F\u0600-\u0605\u061C\u06DD\u070F\u0890-\u0891\u08E2\u115F-\u1160\u17B4-\u17B5\u180B-\u180F\u200B-\u200F\u2028-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFFB\u{110BD}\u{110CD}\u{13430}-\u{1343F}\u{1BCA0}-\u{1BCA3}\u{1D173}-\u{1D17A}\u{E0000}-\u{E0FFF}]/gu;
function reveal(text) {
  return String(text).replace(HIDDEN, (c, at, all) => (c === '\r' && all[at + 1] === '\n'
    ? c : `‹U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}›`));
}
function el(tag, props, ...children) {
  const e = document.createElement(tag);
  const p = { ...(props || {}) };
  if (p.textContent != null) p.textContent = reveal(p.textContent);
  Object.assign(e, p);
  for (const c of children) if (c != null) e.append(typeof c === 'string' ? reveal(c) : c);
  return e;
}
function pre(text) { return el('pre', { textContent: text }); }

// `target`, not `t`: `t` is the page's words.
function targetView(target) {
  switch (target.type) {
    case 'command': return [pre(target.command)];
    case 'edit': return [el('div', { textContent: target.path }),
      target.old != null ? el('div', { className: 'meta', textContent: t('phone-edit-replace') }) : null,
      target.old != null ? pre(target.old) : null,
      target.new != null ? el('div', { className: 'meta', textContent: t('phone-edit-with') }) : null,
      target.new != null ? pre(target.new) : null];
    case 'write': return [el('div', { textContent: target.path }), target.content != null ? pre(target.content) : null];
    case 'path': return [pre(target.path)];
    case 'url': return [pre(target.url)];
    case 'patch': return [pre(target.patch)];
    case 'mcp': return [el('div', { textContent: `${target.server} / ${target.tool}` }), pre(target.input)];
    case 'input': return [pre(target.json)];
    default: return [pre(JSON.stringify(target))];
  }
}

// A unified diff, as the desktop card shows it: per file (named for a patch), hunks with `⋯`
// between them, each line with its numbers in the old and new file where the app could read
// the file, its mark and text.
// The exact text the agent sent is one tap away ("Whole text").
function diffView(card) {
  const out = [];
  // An edit or write names its file above the diff; a patch (or OpenCode's diff) per file.
  const patch = card.target.type !== 'edit' && card.target.type !== 'write';
  if (!patch) out.push(el('div', { textContent: card.target.path }));
  for (const f of card.diff) {
    const box = el('div', { className: 'diff' });
    if (patch) {
      const to = f.move_to ? ` → ${f.move_to}` : '';
      box.append(el('div', { className: `file ${f.op}`, textContent: `${f.op} ${f.path}${to}` }));
    }
    // Two number columns, old and new (a removed line has only the old, an added one only the
    // new), each shown where the file has numbers in it.
    const hasOld = f.hunks.some((h) => h.lines.some((l) => l[1] != null));
    const hasNew = f.hunks.some((h) => h.lines.some((l) => l[2] != null));
    const num = (n) => el('span', { className: 'num', textContent: n == null ? '' : String(n) });
    f.hunks.forEach((h, i) => {
      if (i > 0 || h.header) box.append(el('div', { className: 'gap', textContent: h.header ? `⋯ ${h.header}` : '⋯' }));
      for (const [mark, oldLine, newLine, text] of h.lines) {
        const kind = mark === '+' ? 'add' : mark === '-' ? 'del' : 'ctx';
        box.append(el('div', { className: `line ${kind}` },
          hasOld ? num(oldLine) : null,
          hasNew ? num(newLine) : null,
          el('span', { className: 'mark', textContent: mark }),
          el('span', { className: 'code', textContent: text })));
      }
    });
    out.push(box);
  }
  out.push(el('details', { className: 'whole' }, el('summary', { textContent: t('phone-whole-text') }),
    ...targetView(card.target).filter(Boolean)));
  return out;
}

// A plan's markdown, as the desktop plan card draws it: headings, list items (nested by their
// indent), code fences, quotes, rules and paragraphs. Built with textContent only: nothing in
// the plan is parsed as HTML, no link is followed and no image loaded (the marks `**`, `` ` ``
// and links stay as written).
function planView(markdown) {
  const box = el('div', { className: 'plan' });
  let code = null;
  let para = [];
  const endPara = () => {
    if (para.length) box.append(el('p', { textContent: para.join(' ') }));
    para = [];
  };
  for (const line of String(markdown).split('\n')) {
    if (code) {
      if (/^\s*(```|~~~)/.test(line)) { box.append(pre(code.join('\n'))); code = null; } else code.push(line);
      continue;
    }
    let m;
    if (/^\s*(```|~~~)/.test(line)) { endPara(); code = []; }
    else if ((m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line))) {
      endPara();
      box.append(el(`h${Math.min(m[1].length + 2, 6)}`, { textContent: m[2] }));
    } else if ((m = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/.exec(line))) {
      endPara();
      const marker = /\d/.test(m[2]) ? m[2] : '•';
      const item = el('div', { className: 'item', textContent: `${marker} ${m[3]}` });
      item.style.marginLeft = `${Math.min(Math.floor(m[1].length / 2), 6)}em`;
      box.append(item);
    } else if ((m = /^\s*>\s?(.*)$/.exec(line))) { endPara(); box.append(el('blockquote', { textContent: m[1] })); }
    else if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) { endPara(); box.append(el('hr')); }
    else if (!line.trim()) endPara();
    else para.push(line.trim());
  }
  if (code) box.append(pre(code.join('\n')));
  endPara();
  return box;
}

function questionsView(card, questions) {
  const form = el('div');
  questions.forEach((q, i) => {
    const fs = el('fieldset', {}, el('legend', { textContent: q.header ? `${q.header}: ${q.question}` : q.question }));
    for (const o of q.options || []) {
      const input = el('input', { type: q.multiSelect ? 'checkbox' : 'radio', name: `q${card.id}-${i}`, value: o.label });
      fs.append(el('label', {}, input, ` ${o.label}`, o.description ? el('span', { className: 'meta', textContent: ` — ${o.description}` }) : null));
    }
    fs.append(el('label', {}, `${t('phone-other')} `, el('input', { type: 'text', name: `q${card.id}-${i}-other` })));
    form.append(fs);
  });
  form.collect = () => questions.map((q, i) => {
    const picked = [...form.querySelectorAll(`input[name="q${card.id}-${i}"]:checked`)].map((x) => x.value);
    const other = form.querySelector(`input[name="q${card.id}-${i}-other"]`).value.trim();
    if (other) picked.push(other);
    return q.multiSelect ? picked : (picked[0] || '');
  });
  return form;
}

function cardView(link, card) {
  // What the app's presentation says is shown and offered (docs/phone.md, "A card"): the title's
  // parts and the folder as the one rule shows them, the marks, and the answers offered here.
  const title = card.title || { agent: card.agent, tool: card.tool };
  const marks = card.marks || { destructive: card.destructive, hidden: card.hidden };
  const offers = card.offers || ['allow', 'deny'];
  const box = el('article', { className: 'card' + (marks.destructive ? ' destructive' : '') });
  box.dataset.cardId = String(card.id);
  box.append(el('div', { className: 'meta', textContent: `${title.agent} · ${card.shown_folder || card.folder} · ${title.tool}` }));
  if (marks.destructive) box.append(el('div', { className: 'warn', textContent: t('phone-destructive', { why: marks.destructive }) }));
  if (marks.hidden) box.append(el('div', { className: 'warn hidden-chars', textContent: t('phone-hidden') }));
  // The agent's own words: labelled as the agent's, above the exact target, never instead of it.
  if (card.said) box.append(el('div', { className: 'said', textContent: t('phone-says', { agent: title.agent, said: card.said }) }));
  const actions = el('div', { className: 'actions' });
  const answer = (field) => async () => {
    for (const b of actions.querySelectorAll('button')) b.disabled = true;
    try {
      const r = await call(link, 'answer', `\ncard=${card.id}\nanswer=${field()}`);
      status(r.ok ? t('phone-answered') : t('phone-refused', { why: r.refused }), !r.ok);
      render(link, r.cards || []);
    } catch (e) {
      status(e.message, true);
      for (const b of actions.querySelectorAll('button')) b.disabled = false;
    }
  };
  if (card.too_large != null) {
    // Too large for this link (the broker's packet limit): what it is, and only Deny here — an
    // Allow must see everything it authorizes (the app refuses one from this phone anyway).
    box.append(el('div', { className: 'warn', textContent: t('phone-too-large', { kib: Math.ceil(card.too_large / 1024) }) }));
    if (card.target && card.target.summary) box.append(pre(card.target.summary));
  } else if (typeof card.plan === 'string') {
    // A plan review: Approve lets the agent carry the plan out; Keep planning sends the line of
    // feedback (signed with the answer: a broker cannot change it) for the model to revise by.
    box.append(el('div', { className: 'meta', textContent: t('phone-plan-asks') }), planView(card.plan));
    const feedback = el('input', { type: 'text', className: 'feedback', placeholder: t('phone-feedback-placeholder'), maxLength: 2000 });
    feedback.setAttribute('aria-label', t('phone-feedback'));
    box.append(feedback);
    actions.append(el('button', { className: 'allow', textContent: t('phone-approve'), onclick: answer(() => 'allow') }));
    actions.append(el('button', {
      className: 'deny', textContent: t('phone-keep-planning'),
      onclick: answer(() => (feedback.value.trim() ? `deny:${JSON.stringify(feedback.value.trim())}` : 'deny')),
    }));
    box.append(el('div', { className: 'meta', textContent: card.reason }), actions);
    return box;
  } else if (card.question && card.target.type === 'questions') {
    const form = questionsView(card, card.target.questions);
    box.append(form);
    actions.append(el('button', { className: 'allow', textContent: t('phone-send-answers'), onclick: answer(() => `answers:${JSON.stringify(form.collect())}`) }));
  } else {
    box.append(...(Array.isArray(card.diff) && card.diff.length ? diffView(card) : targetView(card.target).filter(Boolean)));
    if (offers.includes('allow')) actions.append(el('button', { className: 'allow', textContent: t('phone-allow'), onclick: answer(() => 'allow') }));
    if (offers.includes('always')) actions.append(el('button', { textContent: t('phone-always'), onclick: answer(() => 'always') }));
  }
  actions.append(el('button', { className: 'deny', textContent: t('phone-deny'), onclick: answer(() => 'deny') }));
  box.append(el('div', { className: 'meta', textContent: card.reason }), actions);
  // What Always answers from then on, in the words of the desktop card and Settings → Rules.
  if (offers.includes('always') && card.always_words) box.append(el('div', { className: 'meta', textContent: t('phone-always-words', { words: card.always_words }) }));
  return box;
}

// The card a notification was tapped for (#card=<id>, or a message from sw.js): scrolled to
// once it is on the page.
let focusCard = null;
function scrollToCard() {
  if (focusCard === null) return;
  const box = document.querySelector(`article.card[data-card-id="${focusCard}"]`);
  if (box) { box.scrollIntoView({ block: 'start' }); focusCard = null; }
}

let shown = '';
function render(link, cards) {
  const key = JSON.stringify([lang, cards.map((c) => c.id)]);
  if (key === shown) return; // keep what the user is typing in a question card
  shown = key;
  const list = $('cards');
  list.replaceChildren(...cards.map((c) => cardView(link, c)));
  if (!cards.length) list.append(el('p', { textContent: t('phone-nothing-waits') }));
}

function status(text, isError) {
  delete $('status').dataset.t; // said now: no longer the static "Loading…"
  $('status').textContent = text;
  $('status').className = isError ? 'error' : '';
}

// ---- push: the phone buzzes (sw.js shows the notification and answers from it) ---------------
// Service workers run only on a trusted HTTPS origin (or localhost): on the LAN page, with
// Vults' own certificate, registering fails and the page says where push works instead.
let swReady = null;
function registerWorker() {
  if (!swReady) {
    swReady = ('serviceWorker' in navigator && 'PushManager' in window)
      ? navigator.serviceWorker.register('sw.js').then(() => navigator.serviceWorker.ready).catch(() => null)
      : Promise.resolve(null);
  }
  return swReady;
}
// Sends a subscription (PushSubscription.toJSON()'s shape) to the app, signed and sealed.
async function sendSubscription(link, s) {
  const r = await call(link, 'subscribe', `\nendpoint=${s.endpoint}\np256dh=${s.keys.p256dh}\nauth=${s.keys.auth}`);
  if (!r.ok) throw new Error(t('phone-subscription-refused', { why: r.refused }));
  return r;
}
async function subscribePush(link, vapid) {
  if (await Notification.requestPermission() !== 'granted') {
    throw new Error(t('phone-notifications-blocked'));
  }
  const reg = await registerWorker();
  if (!reg) throw new Error(t('phone-no-worker'));
  const key = unb64(vapid);
  let sub = await reg.pushManager.getSubscription();
  const same = sub && sub.options.applicationServerKey
    && b64(sub.options.applicationServerKey) === b64(key);
  if (sub && !same) { await sub.unsubscribe(); sub = null; }
  if (!sub) sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  return sendSubscription(link, {
    endpoint: sub.endpoint,
    keys: { p256dh: b64(sub.getKey('p256dh')), auth: b64(sub.getKey('auth')) },
  });
}
let pushShown = '';
async function showPush(link, reply) {
  const reg = reply.vapid ? await registerWorker() : null;
  const state = !reply.vapid ? 'none' : !reg ? 'untrusted' : reply.push ? 'on' : 'off';
  if (`${lang} ${state}` === pushShown) return;
  pushShown = `${lang} ${state}`;
  const box = $('push');
  box.hidden = state === 'none';
  const button = $('push-on');
  button.hidden = state !== 'off';
  $('push-note').textContent = {
    none: '',
    untrusted: t('phone-push-untrusted'),
    on: t('phone-push-on'),
    off: t('phone-push-off'),
  }[state];
  button.onclick = async () => {
    button.disabled = true;
    try { await subscribePush(link, reply.vapid); pushShown = ''; } catch (e) { status(e.message, true); }
    button.disabled = false;
  };
}

// ---- main ----------------------------------------------------------------------------------
async function poll(link) {
  try {
    const r = await call(link, 'list');
    if (r.ok) {
      useLang(r.lang);
      status(t('phone-connected', { time: new Date().toLocaleTimeString(lang) }));
      render(link, r.cards);
      scrollToCard();
      showPush(link, r).catch(() => {});
    }
    else status(t('phone-refused', { why: r.refused }), true);
  } catch (e) {
    status(e.message, true);
  }
  setTimeout(() => poll(link), POLL_MS);
}

function showLinked(link) {
  $('pairing').hidden = true;
  $('forget').hidden = false;
  $('who').textContent = `${link.name} · ${link.device}`;
  poll(link);
}

async function main() {
  applyWords();
  if (!LANGS.en) {
    // Said in English: there are no words to say it in any other.
    status('This page lacks words.js: copy it beside phone.js from Vults\' assets/phone folder.', true);
    return;
  }
  $('name').addEventListener('input', () => { $('name').dataset.typed = '1'; });
  if (!window.isSecureContext || !crypto.subtle) {
    status(t('phone-not-secure'), true);
    return;
  }
  const tapped = Number(new URLSearchParams(location.hash.slice(1)).get('card'));
  if (Number.isSafeInteger(tapped) && tapped > 0) focusCard = tapped;
  if ('serviceWorker' in navigator) {
    navigator.serviceWorker.addEventListener('message', (e) => {
      if (e.data && Number.isSafeInteger(e.data.card)) { focusCard = e.data.card; scrollToCard(); }
    });
  }
  $('forget').onclick = async () => { await save(null); location.hash = ''; location.reload(); };
  const offer = offerFromHash();
  const link = await load();
  // A QR code scanned means "pair": even a phone paired before (revoked, or with another
  // Vults) pairs anew. Without one, the stored pairing is used.
  if (!offer) {
    if (link) showLinked(link);
    else status(t('phone-not-paired'), true);
    return;
  }
  if (link) { $('pair').dataset.t = 'phone-pair-again'; applyWords(); }
  $('pairing').hidden = false;
  status(t('phone-ready'));
  $('pair').onclick = async () => {
    $('pair').disabled = true;
    try {
      const name = $('name').value.trim() || t('phone-default-name');
      const linked = await pair(offer, name);
      history.replaceState(null, '', location.pathname); // the token is spent; keep it out of history
      status(t('phone-paired'));
      showLinked(linked);
    } catch (e) {
      status(e.message, true);
      $('pair').disabled = false;
    }
  };
}

// In the service worker (sw.js imports this file) there is no page to run.
if (typeof document !== 'undefined') main().catch((e) => status(e.message, true));
