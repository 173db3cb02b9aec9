'use strict';
// Sign-in limits an attacker cannot turn against a student (accounts/ratelimit.js).
// Through HAProxy: addresses are told apart by X-Forwarded-For, which the webapp
// believes from loopback only (TRUST_PROXY), as HAProxy here runs on loopback.
// The bounds themselves (per address, per account) are checked on the limiter with
// small numbers against the real memcached.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { Client } = require('../helpers/http');
const mcHelper = require('../helpers/memcached');
const env = require('../helpers/env');
const { createLoginLimiter } = require('../../src/accounts/ratelimit');
const { createMemcache } = require('../../src/shared/memcache');

const mc = mcHelper.connect();
const n = env.loginMaxFailsPerAccountAddress;
const addr = () => `198.51.${crypto.randomInt(1, 254)}.${crypto.randomInt(1, 254)}`;
const attempt = (c, user, password, ip) => c.post('/accounts/login', {
  form: { username: user, password }, headers: { 'x-forwarded-for': ip, accept: 'application/json' },
});

test.after(async () => { await mc.flushAll(); mc.close(); });

test('attack: wrong passwords from one address do not lock the student out from another', async () => {
  const attacker = new Client();
  const there = addr();
  for (let i = 0; i < n; i++) assert.equal((await attempt(attacker, 'student07', 'guess-' + i, there)).status, 401);
  const stopped = await attempt(attacker, 'student07', 'guess-x', there);
  assert.equal(stopped.status, 429, 'the guesser is stopped where he sits');
  assert.match(stopped.json.error, /for this account from this computer/);
  assert.ok(Number(stopped.headers.get('retry-after')) > 0);
  assert.equal((await attempt(attacker, 'student07', env.password, there)).status, 429, 'even with the right password, from there');
  const student = new Client();
  const ok = await attempt(student, 'student07', env.password, addr());
  assert.equal(ok.status, 200, 'the student signs in from another computer');
});

test('attack: a classmate behind the same NAT address cannot lock out a student who signed in there before', async () => {
  const hall = addr();
  const student = new Client();
  const first = await attempt(student, 'student08', env.password, hall);
  assert.equal(first.status, 200);
  assert.ok(student.cookies.get('prutor.device'), 'the browser is remembered as a device of the account');
  assert.equal((await student.post('/accounts/logout', { form: { _csrf: first.json.csrf } })).status, 302);

  const classmate = new Client();
  for (let i = 0; i <= n; i++) await attempt(classmate, 'student08', 'guess-' + i, hall);
  assert.equal((await attempt(classmate, 'student08', 'guess-y', hall)).status, 429);
  assert.equal((await attempt(new Client(), 'student08', env.password, hall)).status, 429,
    'a browser the account never used, at that address, waits (the residual risk the README states)');
  assert.equal((await attempt(student, 'student08', env.password, hall)).status, 200, 'the student\'s own browser signs in');

  // a device cookie is bound to its account: it does not lift another account's limit
  const forged = new Client();
  forged.cookies.set('prutor.device', student.cookies.get('prutor.device'));
  for (let i = 0; i <= n; i++) await attempt(forged, 'student09', 'guess-' + i, hall);
  assert.equal((await attempt(forged, 'student09', 'guess-z', hall)).status, 429);
});

test('the bounds per address (exam hall) and per account (many addresses) hold; a known device passes both', async () => {
  const client = createMemcache({ ...env.memcached, poolSize: 2, timeoutMs: 1000 });
  const lim = createLoginLimiter({
    mc: client, secret: 'test-secret-0123456789', maxFailsPerAccountAddress: 3, maxFailsPerAccount: 5, maxFailsPerAddress: 8, windowS: 60, accountWindowS: 60,
  });
  const tag = crypto.randomBytes(4).toString('hex');
  const known = (user) => { let v = null; lim.issueDevice({ append: (k, c) => { v = c.split(';')[0].split('=')[1]; } }, user); return v; };
  const limited = async (user, ip, device) => {
    try { await lim.check(user, ip, device); return null; } catch (e) { assert.equal(e.status, 429); return e.limit; }
  };
  try {
    // per address: 8 failures over 8 accounts from one hall address
    const hall = `hall-${tag}`;
    const device = known(`u0-${tag}`);
    for (let i = 0; i < 8; i++) await lim.fail(await lim.check(`u${i}-${tag}`, hall));
    assert.equal(await limited(`fresh-${tag}`, hall), 'address');
    assert.equal(await limited(`u0-${tag}`, hall, device), null, 'a known device of the account is not held by the hall bound');

    // per account: failures spread over many addresses
    const victim = `victim-${tag}`;
    const mine = known(victim);
    for (let i = 0; i < 5; i++) await lim.fail(await lim.check(victim, `spread-${i}-${tag}`));
    assert.equal(await limited(victim, `elsewhere-${tag}`), 'account');
    assert.equal(await limited(victim, `elsewhere-${tag}`, mine), null);
    assert.equal(await limited(victim, `elsewhere-${tag}`, known(`someone-else-${tag}`)), 'account', 'another account\'s device cookie does not count');

    // per (account, address) and its reset by a correct password
    const who = `pair-${tag}`;
    for (let i = 0; i < 2; i++) await lim.fail(await lim.check(who, `a-${tag}`));
    await lim.succeed(await lim.check(who, `a-${tag}`));
    for (let i = 0; i < 2; i++) await lim.fail(await lim.check(who, `a-${tag}`));
    assert.equal(await limited(who, `a-${tag}`), null, 'the count restarted after the success');
    await lim.fail(await lim.check(who, `a-${tag}`));
    assert.equal(await limited(who, `a-${tag}`), 'account-address');
  } finally {
    client.close();
  }
});
