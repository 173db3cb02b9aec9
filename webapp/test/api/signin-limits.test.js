'use strict';
// Sign-in limits an attacker can neither outrun nor turn against a student
// (accounts/ratelimit.js), each attack of the live security review tried against the running stack on
// accounts of the test's own. Simultaneous guesses go through HAProxy; clients that
// need addresses of their own play HAProxy and talk to the webapp directly with
// X-Forwarded-For, which the webapp believes from loopback only (TRUST_PROXY; HAProxy
// replaces a client's own). The address bound is checked on the limiter with small
// numbers against the real memcached (1,000 real failures would cost ~1,000 compares).
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { Client } = require('../helpers/http');
const env = require('../helpers/env');
const dbh = require('../helpers/db');
const { TAG } = require('../helpers/staff');
const { createLoginLimiter, accountKey } = require('../../src/accounts/ratelimit');
const { createMemcache } = require('../../src/shared/memcache');

const DIRECT = `http://127.0.0.1:${env.get('WEBAPP_PORT', '3000')}`;
const n = env.loginMaxFailsPerAccount;
const addr = () => `198.51.${crypto.randomInt(1, 254)}.${crypto.randomInt(1, 254)}`;
const attempt = (c, user, password, ip) => c.post('/accounts/login', {
  form: { username: user, password }, headers: { ...(ip ? { 'x-forwarded-for': ip } : {}), accept: 'application/json' },
});
const made = [];
// A student of the test's own, with the demo password; names start with "se" so that
// look-alike spellings (ſ, ｓ, é) exist.
async function student(label) {
  const username = `se${label}${TAG}`.slice(0, 64);
  const hash = (await dbh.q("SELECT password_hash FROM users WHERE username = 'student01'"))[0].password_hash;
  const r = await dbh.q("INSERT INTO users (username, password_hash, name, role) VALUES (?, ?, ?, 'student')", [username, hash, `Limits ${label}`]);
  made.push(r.insertId);
  return username;
}
test.after(async () => {
  if (made.length) await dbh.q(`DELETE FROM users WHERE id IN (${made.map(() => '?').join(',')})`, made);
  await dbh.close();
});

test('attack (finding 2): 150 wrong passwords sent at the same moment through HAProxy: 10 checked, the rest 429 + Retry-After', async () => {
  const who = await student('burst');
  const out = await Promise.all(Array.from({ length: 150 }, (_, i) => attempt(new Client(), who, `guess-${i}`)));
  const by = (s) => out.filter((r) => r.status === s);
  assert.equal(by(401).length, n, `statuses: ${JSON.stringify(out.map((r) => r.status))}`);
  assert.equal(by(429).length, 150 - n);
  for (const r of by(429)) {
    assert.ok(Number(r.headers.get('retry-after')) > 0);
    assert.match(r.json.error, /Too many failed sign-in attempts for this account\. Wait \d+ (seconds|minutes)/);
  }
  assert.equal((await attempt(new Client(), who, env.password)).status, 429, 'the right password waits as well, from a browser the account never used');
});

test('attack (finding 3): after the limit, the name spelled with look-alike letters is the same account', async () => {
  const fresh = await student('alias');
  const s = fresh.slice(1); // "e..."
  assert.equal((await attempt(new Client(), `ſ${s}`, env.password)).status, 200, 'the collation finds the account under a look-alike spelling');
  const who = await student('fold');
  const w = who.slice(1);
  const there = addr();
  for (let i = 0; i < n; i++) assert.equal((await attempt(new Client(DIRECT), who, `guess-${i}`, there)).status, 401);
  for (const alias of [`ſ${w}`, `ｓ${w}`, `sé${w.slice(1)}`, who.toUpperCase()]) {
    const r = await attempt(new Client(DIRECT), alias, env.password, addr());
    assert.equal(r.status, 429, `${alias}: ${r.status}`);
  }
});

test('attack (finding 4): 10 wrong from each of 11 addresses: a short lock-out; the student\'s own browser still signs in', async () => {
  const who = await student('spread');
  const mine = new Client(DIRECT);
  const first = await attempt(mine, who, env.password, addr());
  assert.equal(first.status, 200);
  assert.ok(mine.cookies.get('prutor.device'), 'the browser is remembered as a device of the account');
  let last;
  for (let a = 0; a < 11; a++) {
    const ip = addr();
    for (let i = 0; i < n; i++) last = await attempt(new Client(DIRECT), who, `g${a}.${i}`, ip);
  }
  assert.equal(last.status, 429);
  assert.ok(Number(last.headers.get('retry-after')) <= env.loginLockBaseS, `a short first lock-out, not an hour: ${last.headers.get('retry-after')} s`);
  assert.equal((await attempt(mine, who, env.password, addr())).status, 200, 'the student\'s own browser signs in with the right password');
  // a device cookie is bound to its account: it does not lift another account's lock-out
  const other = await student('other');
  const forged = new Client(DIRECT);
  forged.cookies.set('prutor.device', mine.cookies.get('prutor.device'));
  for (let i = 0; i < n; i++) await attempt(forged, other, `guess-${i}`, addr());
  assert.equal((await attempt(forged, other, env.password, addr())).status, 429);
});

test('attack (finding 4): failures for made-up names from one address slow it down, never refuse the hall', async () => {
  const client = createMemcache({ ...env.memcached, poolSize: 2, timeoutMs: 1000 });
  const lim = createLoginLimiter({
    mc: client, secret: 'test-secret-0123456789', maxFailsPerAccount: 5, maxFailsPerDevice: 5, windowS: 60, lockBaseS: 2, lockMaxS: 8,
    maxUnknownFailsPerAddress: 8, addressDelayMs: 300,
  });
  const tag = crypto.randomBytes(4).toString('hex');
  const hall = `hall-${tag}`;
  try {
    for (let i = 0; i < 9; i++) await lim.fail(await lim.reserve({ account: `n${tag}${i}`, ip: hall }), { unknown: true });
    const t0 = Date.now();
    const a = await lim.reserve({ account: accountKey(`${tag}1`), ip: hall });
    assert.ok(Date.now() - t0 >= 300, 'slowed');
    await lim.succeed(a);
    let device = null;
    lim.issueDevice({ append: (k, c) => { device = c.split(';')[0].split('=')[1]; } }, accountKey(`${tag}2`));
    const t1 = Date.now();
    await lim.reserve({ account: accountKey(`${tag}2`), ip: hall, deviceCookie: device });
    assert.ok(Date.now() - t1 < 300, 'a browser that signed in to the account before is not slowed');
  } finally {
    client.close();
  }
});

test('attack (finding 8): an account hashed cheaper than the rest is rehashed at the one cost when it signs in', async () => {
  const bcrypt = require('bcrypt');
  const who = await student('cheap');
  await dbh.q('UPDATE users SET password_hash = ? WHERE username = ?', [await bcrypt.hash(env.password, 4), who]);
  assert.equal((await attempt(new Client(), who, env.password)).status, 200);
  let cost = 4;
  for (let i = 0; i < 50 && cost === 4; i++) {
    await new Promise((r) => { setTimeout(r, 100); });
    cost = bcrypt.getRounds((await dbh.q('SELECT password_hash FROM users WHERE username = ?', [who]))[0].password_hash);
  }
  assert.equal(cost, env.bcryptCost);
  assert.equal((await attempt(new Client(), who, env.password)).status, 200, 'and the password still works');
});
