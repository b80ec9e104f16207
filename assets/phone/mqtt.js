// mqtt.js — a small MQTT 3.1.1 client over the browser's WebSocket, for the Vults phone page.
// No build step, no dependencies; written for this page (vults-app/src/phone/mqtt.rs is the
// app's side). What it does, and nothing else:
// - CONNECT with a clean session, a random client id, a 30 s keep-alive (PINGREQ) and, when
//   given one, the phone's broker login (username and password flags);
// - SUBSCRIBE and PUBLISH at QoS 0 (the app refuses replays and a lost answer leaves the card
//   waiting, so the broker's delivery guarantees buy nothing here);
// - reads CONNACK, SUBACK, PUBLISH and PINGRESP, in whatever WebSocket messages they arrive;
//   a CONNACK that refuses the login (code 4 or 5) is said plainly, and `ready()` rejects with
//   that until a later try is let in;
// - reconnects after any failure, 1 s doubling to 30 s, and subscribes again.
// Payloads are bytes in and out (Uint8Array); topics are UTF-8 strings.
'use strict';

class VultsMqtt {
  constructor(url, { onMessage, onState, username, password } = {}) {
    this.url = url;
    this.username = username || '';
    this.password = password || '';
    this.refusal = null; // the last CONNACK refusal's message, until a connection is accepted
    this.onMessage = onMessage || (() => {});
    this.onState = onState || (() => {});
    this.topics = new Set();
    this.connected = false;
    this.stopped = true;
    this.backoff = 1000;
    this.buffer = new Uint8Array(0);
    this.nextId = 1;
    this.ws = null;
    this.timer = null;
    this.waiters = [];
  }

  start() {
    this.stopped = false;
    this.open();
  }

  stop() {
    this.stopped = true;
    clearInterval(this.timer);
    if (this.ws) {
      try { this.send(new Uint8Array([0xe0, 0x00])); } catch { /* closing anyway */ }
      this.ws.close();
    }
  }

  // Resolves once connected; rejects after `ms`, or at once while the broker refuses the login.
  ready(ms = 10000) {
    if (this.connected) return Promise.resolve();
    if (this.refusal) return Promise.reject(new Error(this.refusal));
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('the broker does not answer')), ms);
      this.waiters.push({
        resolve: () => { clearTimeout(t); resolve(); },
        reject: (e) => { clearTimeout(t); reject(e); },
      });
    });
  }

  subscribe(topic) {
    if (this.topics.has(topic)) return;
    this.topics.add(topic);
    if (this.connected) this.sendSubscribe(topic);
  }

  // Sends at QoS 0; false when not connected (the caller says so and tries later).
  publish(topic, payload) {
    if (!this.connected) return false;
    const t = VultsMqtt.str(topic);
    this.send(VultsMqtt.packet(0x30, t, payload));
    return true;
  }

  // ---- the connection ----------------------------------------------------------------------
  open() {
    if (this.stopped) return;
    this.onState('connecting');
    let ws;
    try {
      ws = new WebSocket(this.url, ['mqtt']);
    } catch (e) {
      this.retry(e.message);
      return;
    }
    this.ws = ws;
    this.buffer = new Uint8Array(0);
    ws.binaryType = 'arraybuffer';
    ws.onopen = () => {
      const id = 'vults-phone-' + Array.from(crypto.getRandomValues(new Uint8Array(6)),
        (b) => b.toString(16).padStart(2, '0')).join('');
      this.send(VultsMqtt.connect(id, this.username, this.password));
    };
    ws.onmessage = (ev) => this.receive(new Uint8Array(ev.data));
    ws.onerror = () => {};
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.connected = false;
      clearInterval(this.timer);
      this.retry('the connection closed');
    };
  }

  retry(why) {
    if (this.stopped) return;
    // A refused login stays the news while the next tries are refused too.
    if (this.refusal) this.onState('refused', this.refusal, this.backoff);
    else this.onState('reconnecting', why, this.backoff);
    setTimeout(() => this.open(), this.backoff);
    this.backoff = Math.min(this.backoff * 2, 30000);
  }

  send(bytes) {
    this.ws.send(bytes);
  }

  sendSubscribe(topic) {
    const id = this.nextId++ & 0xffff || 1;
    this.send(VultsMqtt.packet(0x82, new Uint8Array([id >> 8, id & 0xff]), VultsMqtt.str(topic),
      new Uint8Array([0x00])));
  }

  receive(chunk) {
    const all = new Uint8Array(this.buffer.length + chunk.length);
    all.set(this.buffer);
    all.set(chunk, this.buffer.length);
    let at = 0;
    for (;;) {
      // Fixed header: type byte, then the remaining length (1 to 4 bytes, 7 bits each).
      if (all.length - at < 2) break;
      let len = 0;
      let mul = 1;
      let i = at + 1;
      let done = false;
      for (; i < all.length && i < at + 5; i++) {
        len += (all[i] & 0x7f) * mul;
        mul *= 128;
        if (!(all[i] & 0x80)) { done = true; i++; break; }
      }
      if (!done) {
        if (i >= at + 5) { this.ws.close(); return; } // malformed: start again
        break;
      }
      if (all.length - i < len) break;
      this.handle(all[at], all.subarray(i, i + len));
      at = i + len;
    }
    this.buffer = all.slice(at);
  }

  handle(type, body) {
    switch (type >> 4) {
      case 2: // CONNACK
        if (body[1] !== 0) {
          this.refusal = VultsMqtt.refusal(body[1], !!this.username);
          for (const w of this.waiters.splice(0)) w.reject(new Error(this.refusal));
          this.onState('refused', this.refusal);
          this.ws.close();
          return;
        }
        this.refusal = null;
        this.connected = true;
        this.backoff = 1000;
        for (const t of this.topics) this.sendSubscribe(t);
        clearInterval(this.timer);
        this.timer = setInterval(() => { if (this.connected) this.send(new Uint8Array([0xc0, 0x00])); }, 25000);
        this.onState('connected');
        for (const w of this.waiters.splice(0)) w.resolve();
        return;
      case 3: { // PUBLISH
        const qos = (type >> 1) & 3;
        const tlen = (body[0] << 8) | body[1];
        const topic = new TextDecoder().decode(body.subarray(2, 2 + tlen));
        let p = 2 + tlen;
        if (qos > 0) {
          // Subscribed at QoS 0, the broker should not send more; acknowledge if it does.
          const ack = qos === 1 ? 0x40 : 0x50;
          this.send(new Uint8Array([ack, 0x02, body[p], body[p + 1]]));
          p += 2;
        }
        this.onMessage(topic, body.slice(p));
        return;
      }
      default: // SUBACK, PINGRESP, anything else: nothing to do
    }
  }

  // ---- encoding ----------------------------------------------------------------------------
  // CONNECT: protocol "MQTT", level 4 (3.1.1), flags (clean session; username and password
  // when given), keep-alive 30 s; then the client id, username and password, in that order.
  // A password without a username is not allowed in 3.1.1: it is sent only with one.
  static connect(id, username, password) {
    const withUser = !!username;
    const withPassword = withUser && !!password;
    const flags = 0x02 | (withUser ? 0x80 : 0) | (withPassword ? 0x40 : 0);
    const head = new Uint8Array([0x00, 0x04, 0x4d, 0x51, 0x54, 0x54, 0x04, flags, 0x00, 30]);
    const parts = [head, VultsMqtt.str(id)];
    if (withUser) parts.push(VultsMqtt.str(username));
    if (withPassword) parts.push(VultsMqtt.str(password));
    return VultsMqtt.packet(0x10, ...parts);
  }

  // What the page says for a CONNACK return code other than 0.
  static refusal(code, withLogin) {
    const fix = 'In Vults, check the phone\'s broker login (Settings → Phone) and scan a new QR code.';
    if (code === 4) return `The broker refused this phone's login: wrong username or password. ${fix}`;
    if (code === 5) {
      return withLogin
        ? `The broker refused this phone's login (not authorized): wrong username or password, or the account may not connect. ${fix}`
        : `The broker refused this phone (not authorized): it needs a login. In Vults, give the phone a broker login (Settings → Phone) and scan a new QR code.`;
    }
    return `The broker refused the connection (code ${code}).`;
  }

  static str(s) {
    const b = new TextEncoder().encode(s);
    const out = new Uint8Array(b.length + 2);
    out[0] = b.length >> 8;
    out[1] = b.length & 0xff;
    out.set(b, 2);
    return out;
  }

  static packet(type, ...parts) {
    const len = parts.reduce((n, p) => n + p.length, 0);
    const head = [type];
    let x = len;
    do {
      let byte = x % 128;
      x = Math.floor(x / 128);
      if (x > 0) byte |= 0x80;
      head.push(byte);
    } while (x > 0);
    const out = new Uint8Array(head.length + len);
    out.set(head);
    let i = head.length;
    for (const p of parts) { out.set(p, i); i += p.length; }
    return out;
  }
}
