'use strict';
// Accounts through HAProxy: login, session format, fixation, logout, CSRF,
// rate limits, change of password, anonymous access.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { Client } = require('../helpers/http');
const env = require('../helpers/env');
const mcHelper = require('../helpers/memcached');
const dbh = require('../helpers/db');

const mc = mcHelper.connect();
// failures for unknown names from HAProxy's address (every test's) slow its sign-ins down
const addrKey = `rl:addr:${crypto.createHash('sha256').update('127.0.0.1').digest('base64url')}`;

test.before(async () => { await mc.del(addrKey); });
test.after(async () => { await mc.del(addrKey); mc.close(); await dbh.close(); });

test('health check answers JSON naming its components', async () => {
  const r = await new Client().get('/healthz');
  assert.ok([200, 503].includes(r.status));
  for (const k of ['mysql', 'memcached', 'mongodb', 'engine']) assert.ok(r.json.components[k], k);
  assert.equal(r.json.components.mysql.status, 'ok');
  assert.equal(r.json.components.memcached.status, 'ok');
});

test('pages without a session redirect to the login page; API calls get 401 JSON', async () => {
  const c = new Client();
  for (const p of ['/home', '/codebook', '/editor/1', '/scratchpad', '/practice', '/accounts/password']) {
    const r = await c.get(p);
    assert.equal(r.status, 302, p);
    assert.match(r.headers.get('location'), /^\/accounts\/login/, p);
  }
  const api = await c.post('/editor/save', { json: { assignment_id: 1, code: 'x' }, headers: { accept: 'application/json' } });
  assert.equal(api.status, 401);
  assert.match(api.json.error, /sign in/i);
  const page = await c.get('/accounts/login');
  assert.equal(page.status, 200);
  assert.match(page.text, /<form[^>]+action="\/accounts\/login"/);
});

test('a wrong password gets exactly the answer of an unknown user', async () => {
  const c = new Client();
  const wrong = await c.post('/accounts/login', { form: { username: 'student02', password: 'not-the-password' } });
  const unknown = await c.post('/accounts/login', { form: { username: 'no-such-user-x', password: 'not-the-password' } });
  assert.equal(wrong.status, 401);
  assert.equal(unknown.status, 401);
  const msg = (t) => /id="login-error">([^<]*)</.exec(t)[1];
  assert.equal(msg(wrong.text), 'Wrong username or password.');
  assert.equal(msg(wrong.text), msg(unknown.text));
  assert.equal(c.cookies.size, 0, 'no session cookie on failure');
  const wj = await c.post('/accounts/login', { json: { username: 'student02', password: 'nope-nope' }, headers: { accept: 'application/json' } });
  const uj = await c.post('/accounts/login', { json: { username: 'nobody-at-all', password: 'nope-nope' }, headers: { accept: 'application/json' } });
  assert.equal(wj.status, uj.status);
  assert.deepEqual(wj.json, uj.json);
  const empty = await c.post('/accounts/login', { form: { username: '', password: '' } });
  assert.equal(empty.status, 400);
});

test('login sets a signed session in the shared format; a new id on every login', async () => {
  const c = new Client();
  const r = await c.post('/accounts/login', { form: { username: 'student01', password: env.password } });
  assert.equal(r.status, 302);
  assert.equal(r.headers.get('location'), '/home');
  const sc = r.headers.getSetCookie().find((s) => s.startsWith('prutor.sid='));
  assert.match(sc, /^prutor\.sid=[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43};/);
  assert.match(sc, /HttpOnly/i);
  assert.match(sc, /SameSite=Lax/i);
  assert.match(sc, /Path=\//);
  const [sid, sig] = c.cookies.get('prutor.sid').split('.');
  if (env.sessionSecret) {
    assert.equal(sig, crypto.createHmac('sha256', env.sessionSecret).update(sid).digest('base64url'));
  }
  const stored = await mc.get(`sess:${sid}`);
  assert.ok(stored, 'session is in memcached');
  assert.equal(stored.flags, 0);
  const s = JSON.parse(stored.value);
  assert.equal(s.username, 'student01');
  assert.equal(s.role, 'student');
  assert.equal(typeof s.uid, 'number');
  assert.equal(s.section_id, 1);
  assert.match(s.csrf, /^[A-Za-z0-9_-]{43}$/);
  assert.ok(Math.abs(s.created - Date.now() / 1000) < 120);

  // logging in again (same browser) gives a new id and removes the old one
  await c.post('/accounts/login', { form: { username: 'student01', password: env.password } });
  const sid2 = c.sid();
  assert.notEqual(sid2, sid);
  assert.equal(await mc.get(`sess:${sid}`), null);

  // a tampered signature is no session
  const t = new Client();
  t.cookies.set('prutor.sid', `${sid2}.${'A'.repeat(43)}`);
  assert.equal((await t.get('/home')).status, 302);
});

test('logout needs the CSRF token, then ends the session', async () => {
  const c = new Client();
  await c.login('student01');
  const cookie = c.cookies.get('prutor.sid');
  const noToken = await c.post('/accounts/logout', { form: {} });
  assert.equal(noToken.status, 403);
  assert.equal((await c.get('/home')).status, 200);
  const r = await c.post('/accounts/logout', { form: { _csrf: c.csrf } });
  assert.equal(r.status, 302);
  assert.match(r.headers.get('location'), /^\/accounts\/login/);
  const again = new Client();
  again.cookies.set('prutor.sid', cookie);
  assert.equal((await again.get('/home')).status, 302, 'the old cookie is dead');
});

test('failed logins are limited per account with a clear message', async () => {
  const c = new Client();
  const user = `ghost-${Date.now().toString(36)}`;
  for (let i = 0; i < env.loginMaxFailsPerAccount; i++) {
    const r = await c.post('/accounts/login', { form: { username: user, password: 'wrong-password' } });
    assert.equal(r.status, 401, `attempt ${i + 1}`);
  }
  const r = await c.post('/accounts/login', { form: { username: user, password: 'wrong-password' }, headers: { accept: 'application/json' } });
  assert.equal(r.status, 429);
  assert.match(r.json.error, /Too many failed sign-in attempts for this account/);
  assert.ok(Number(r.headers.get('retry-after')) > 0);
  // another account from the same address is not blocked
  const ok = await new Client().post('/accounts/login', { form: { username: 'student01', password: env.password } });
  assert.equal(ok.status, 302);
});

test('change password: checks the current one, then the new one works', async () => {
  const c = new Client();
  await c.login('student19');
  const bad = await c.post('/accounts/password', { form: { _csrf: c.csrf, current: 'wrong', next: 'another-pass-1', confirm: 'another-pass-1' } });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /current password is not correct/);
  const short = await c.post('/accounts/password', { form: { _csrf: c.csrf, current: env.password, next: 'short', confirm: 'short' } });
  assert.equal(short.status, 400);
  const noCsrf = await c.post('/accounts/password', { form: { current: env.password, next: 'another-pass-1', confirm: 'another-pass-1' } });
  assert.equal(noCsrf.status, 403);
  const other = new Client();
  await other.login('student19');
  const ok = await c.post('/accounts/password', { form: { _csrf: c.csrf, current: env.password, next: 'another-pass-1', confirm: 'another-pass-1' } });
  assert.equal(ok.status, 303);
  assert.equal((await other.get('/home')).status, 302, 'a change of password ends the other sessions of the user');
  const oldCsrf = c.csrf;
  const page = await c.get('/home');
  assert.equal(page.status, 200, 'the browser that changed the password keeps a (new) session');
  c.csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(page.text)[1];
  assert.notEqual(c.csrf, oldCsrf);
  try {
    const d = new Client();
    assert.equal((await d.post('/accounts/login', { form: { username: 'student19', password: 'another-pass-1' } })).status, 302);
    assert.equal((await new Client().post('/accounts/login', { form: { username: 'student19', password: env.password } })).status, 401);
  } finally {
    const back = await c.post('/accounts/password', { form: { _csrf: c.csrf, current: 'another-pass-1', next: env.password, confirm: env.password }, headers: { accept: 'application/json' } });
    assert.equal(back.status, 200);
    await mc.del(`rl:acct:u${await dbh.userId('student19')}`); // the wrong password above counted for the account
  }
});

test('attack: a sign-in posted by another site\'s page is refused; this site\'s own page signs in', async () => {
  const evil = new Client();
  const r = await evil.post('/accounts/login', {
    form: { username: 'student03', password: env.password }, headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
  });
  assert.equal(r.status, 403);
  assert.match(r.text, /sent from another site(?:'|&#39;|&#x27;)s page, so it was refused/);
  assert.equal(evil.cookies.get('prutor.sid'), undefined, 'no session was made');
  const nul = await new Client().post('/accounts/login', { form: { username: 'student03', password: env.password }, headers: { origin: 'null', accept: 'application/json' } });
  assert.equal(nul.status, 403);
  assert.equal(nul.json.code, 'cross_site');
  const own = await new Client().post('/accounts/login', {
    form: { username: 'student03', password: env.password }, headers: { origin: env.BASE, 'sec-fetch-site': 'same-origin' },
  });
  assert.equal(own.status, 302);
});
