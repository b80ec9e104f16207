// sw.js — the Vults phone page's service worker: shows a push as a notification and answers
// from it (docs/phone.md, "Push").
//
// A push's content is sealed twice: Web Push's encryption (the browser opens it before this
// runs; the push service sees only ciphertext), and inside it the app's seal with this
// phone's own key, for the "push" direction. What does not open with this phone's key, or is
// not a push the app makes, shows nothing. Allow and Deny are offered only where the app put
// them (the desktop notification's rules); pressing one signs the answer with the phone's
// non-extractable Ed25519 key from IndexedDB and sends it sealed over the same API as the
// page (the LAN, or the broker the phone paired over), where the app checks it exactly as a
// tap on the page. A push older than PUSH_MAX_AGE_MS (a service that held or replayed it)
// shows nothing either.
'use strict';

// The page's own code: the same storage, sealing, signing and transports.
importScripts('mqtt.js', 'phone.js');

const PUSH_MAX_AGE_MS = 15 * 60 * 1000;
const KINDS = new Set(['card', 'summary', 'test', 'warning']);

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => event.waitUntil(onPush(event)));

async function onPush(event) {
  let sealed;
  try { sealed = event.data && event.data.json(); } catch { return; }
  if (!sealed || typeof sealed.n !== 'string' || typeof sealed.c !== 'string') return;
  const link = await load();
  if (!link) return;
  let p;
  try { p = await openPush(link, sealed); } catch { return; } // not sealed for this phone
  if (!p || p.v !== 1 || typeof p.tag !== 'string') return;
  if (p.t === 'withdraw') {
    for (const n of await self.registration.getNotifications({ tag: p.tag })) n.close();
    return;
  }
  if (!KINDS.has(p.t) || Math.abs(Date.now() - Number(p.time)) > PUSH_MAX_AGE_MS) return;
  const actions = p.t !== 'card' ? [] : (p.actions || [])
    .filter((a) => a === 'allow' || a === 'deny')
    // The buttons' words come with the push, in the app's language.
    .map((a) => ({ action: a, title: String((p.labels && p.labels[a]) || (a === 'allow' ? 'Allow' : 'Deny')) }));
  await self.registration.showNotification(String(p.title), {
    body: String(p.body),
    tag: p.tag,
    data: { t: p.t, card: Number.isSafeInteger(p.card) ? p.card : null, actions: actions.map((a) => a.action) },
    actions,
    requireInteraction: p.t === 'card',
    renotify: !p.silent,
    silent: !!p.silent,
  });
}

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(onClick(event.notification, event.action));
});

async function onClick(notification, action) {
  const data = notification.data || {};
  // Only an action the app offered on this notification, for its card.
  if (data.card !== null && (data.actions || []).includes(action)) {
    try {
      const link = await load();
      const r = await call(link, 'answer', `\ncard=${data.card}\nanswer=${action}`);
      if (r.ok) return;
    } catch { /* refused or unreachable: the page says why */ }
  }
  // A tap on the notification itself, a question, or an answer that did not go: the page, on
  // that card.
  const card = data.card;
  const open = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  if (open.length) {
    if (card !== null) open[0].postMessage({ card });
    return open[0].focus();
  }
  return self.clients.openWindow(card !== null ? `./#card=${card}` : './');
}
