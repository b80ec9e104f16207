// Unit tests for the page's MQTT client (assets/phone/mqtt.js), in Node without a browser:
// the CONNECT packet with and without the phone's broker login, byte for byte, and what a
// CONNACK refusing the login does (the message, `ready()` rejecting, no subscription sent).
// The file is the page's own script, run in a VM context with the few globals it uses.
// Usage: node mqtt.test.mjs   (run by vults-app/tests/phone_login.rs; exits non-zero on failure)
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import vm from 'node:vm';

const here = dirname(fileURLToPath(import.meta.url));
const src = readFileSync(join(here, '../../assets/phone/mqtt.js'), 'utf8');
const context = vm.createContext({
  TextEncoder, TextDecoder, crypto: globalThis.crypto, setTimeout, clearTimeout, setInterval, clearInterval,
});
const VultsMqtt = vm.runInContext(`${src}\nVultsMqtt`, context);

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) { passed++; console.log(`ok - ${name}`); } else { failed++; console.log(`not ok - ${name}${detail ? `: ${detail}` : ''}`); }
}
const bytes = (...parts) => parts.flatMap((p) => (typeof p === 'string' ? [...Buffer.from(p, 'utf8')] : Array.isArray(p) ? p : [p]));
const lp = (s) => { const b = Buffer.from(s, 'utf8'); return [b.length >> 8, b.length & 0xff, ...b]; };
const same = (a, b) => Buffer.from(a).equals(Buffer.from(b));
const hex = (a) => Buffer.from(a).toString('hex');

// The variable header every CONNECT starts with: "MQTT", level 4, flags, keep-alive 30 s.
const header = (flags) => bytes(0x00, 0x04, 'MQTT', 0x04, flags, 0x00, 30);

{
  const got = VultsMqtt.connect('vults-phone-0a0b0c', '', '');
  const body = [...header(0x02), ...lp('vults-phone-0a0b0c')];
  check('anonymous CONNECT: clean session only, the client id alone', same(got, [0x10, body.length, ...body]), hex(got));
}
{
  const got = VultsMqtt.connect('vults-phone-0a0b0c', 'vults-phone', 's3cret');
  const body = [...header(0xc2), ...lp('vults-phone-0a0b0c'), ...lp('vults-phone'), ...lp('s3cret')];
  check('CONNECT with a login: username and password flags, then id, username, password',
    same(got, [0x10, body.length, ...body]), hex(got));
}
{
  const got = VultsMqtt.connect('id', 'only-a-user', '');
  const body = [...header(0x82), ...lp('id'), ...lp('only-a-user')];
  check('a username without a password: only the username flag', same(got, [0x10, body.length, ...body]), hex(got));
}
{
  const got = VultsMqtt.connect('id', '', 'pw');
  const body = [...header(0x02), ...lp('id')];
  check('a password without a username is not sent (3.1.1 forbids it)', same(got, [0x10, body.length, ...body]), hex(got));
}
{
  // UTF-8 lengths in bytes, and a remaining length past 127 in two bytes.
  const password = 'pässwörd-€-'.repeat(12);
  const got = VultsMqtt.connect('id', 'ü', password);
  const body = [...header(0xc2), ...lp('id'), ...lp('ü'), ...lp(password)];
  const len = body.length;
  check('a long UTF-8 password: byte lengths and a two-byte remaining length',
    len > 127 && same(got, [0x10, (len % 128) | 0x80, len >> 7, ...body]), `${len} ${hex(got.slice(0, 4))}`);
}

// A CONNACK that refuses: the message names the login, ready() rejects with it at once, the
// next try keeps saying it; an accepted CONNACK clears it.
for (const [code, withLogin, expect] of [
  [4, true, 'wrong username or password'],
  [5, true, 'refused this phone\'s login'],
  [5, false, 'it needs a login'],
]) {
  const states = [];
  const sent = [];
  const m = new VultsMqtt('wss://broker.test/', {
    username: withLogin ? 'vults-phone' : '', password: withLogin ? 'wrong' : '',
    onState: (state, why) => states.push([state, why]),
  });
  let closed = false;
  m.ws = { send: (b) => sent.push(b), close: () => { closed = true; } };
  m.subscribe('vults/00/p');
  const waiting = m.ready(5000).then(() => 'resolved', (e) => e.message);
  m.receive(new Uint8Array([0x20, 0x02, 0x00, code]));
  const said = await waiting;
  check(`CONNACK ${code}${withLogin ? ' (with a login)' : ' (anonymous)'}: a clear refusal`,
    states.length === 1 && states[0][0] === 'refused' && states[0][1].includes(expect) && said === states[0][1] && closed,
    JSON.stringify({ states, said, closed }));
  check(`CONNACK ${code}: not connected, nothing subscribed`, !m.connected && sent.length === 0, `${sent.length} sent`);
  const again = await m.ready(5000).then(() => 'resolved', (e) => e.message);
  check(`CONNACK ${code}: ready() rejects at once while refused`, again === states[0][1], again);
  m.stopped = false;
  m.open = () => {}; // no real reconnect in this test
  m.retry('the connection closed');
  check(`CONNACK ${code}: the retry keeps saying why`, states[1] && states[1][0] === 'refused' && states[1][1] === states[0][1],
    JSON.stringify(states[1]));
  m.receive(new Uint8Array([0x20, 0x02, 0x00, 0x00]));
  check(`CONNACK ${code} then 0: connected, subscribes, the refusal forgotten`,
    m.connected && m.refusal === null && sent.length === 1 && sent[0][0] === 0x82 && states.at(-1)[0] === 'connected',
    JSON.stringify(states));
  clearInterval(m.timer);
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
