'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { sign, verify, newId, cookieValue, readCookie, storeKey, sealer } = require('../../src/shared/session');

const SECRET = 'unit-test-secret-0123456789';

test('ids are 32 random bytes in base64url (43 chars)', () => {
  const a = newId();
  assert.match(a, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(Buffer.from(a, 'base64url').length, 32);
  assert.notEqual(a, newId());
});

test('signature is base64url(HMAC-SHA256(secret, sid)) without padding (CONTRACTS.md)', () => {
  const sid = newId();
  const want = crypto.createHmac('sha256', SECRET).update(sid).digest('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  assert.equal(sign(sid, SECRET), want);
  assert.equal(cookieValue(sid, SECRET), `${sid}.${want}`);
});

test('verify accepts a good cookie and rejects tampering', () => {
  const sid = newId();
  const v = cookieValue(sid, SECRET);
  assert.equal(verify(v, SECRET), sid);
  assert.equal(verify(v, 'another-secret-0123456789'), null);
  assert.equal(verify(`${newId()}.${v.split('.')[1]}`, SECRET), null);
  assert.equal(verify(`${sid}.${'A'.repeat(43)}`, SECRET), null);
  assert.equal(verify(sid, SECRET), null);
  assert.equal(verify(`${sid}.`, SECRET), null);
  assert.equal(verify(`${sid}.${v.split('.')[1]}x`, SECRET), null);
  assert.equal(verify('', SECRET), null);
  assert.equal(verify(undefined, SECRET), null);
  assert.equal(verify(`../etc.${v.split('.')[1]}`, SECRET), null);
});

test('a fixed vector, so the PHP engine can check the same one', () => {
  const sid = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
  assert.equal(sign(sid, 'secret-for-the-vector'), crypto.createHmac('sha256', 'secret-for-the-vector').update(sid).digest('base64url'));
});

test('readCookie finds the cookie among others', () => {
  assert.equal(readCookie('a=1; prutor.sid=abc.def; b=2', 'prutor.sid'), 'abc.def');
  assert.equal(readCookie('a=1', 'prutor.sid'), null);
  assert.equal(readCookie(undefined, 'prutor.sid'), null);
});

test('the durable copy is keyed by SHA-256 of the sid (the engine computes the same) and holds it only sealed', () => {
  // the same vector as engine/tests/unit/SessionTest.php
  assert.equal(storeKey('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ'), 'RqIZl4LIgn8KxW9QO-nTnv7pf0CnNrksx9fF-CXP2FE');
  const sid = newId();
  const s = sealer(SECRET);
  const sealed = s.seal(sid);
  assert.ok(!sealed.includes(sid));
  assert.notEqual(s.seal(sid), sealed, 'a fresh nonce each time');
  assert.equal(s.open(sealed), sid);
  assert.equal(sealer('another-secret-0123456789').open(sealed), null, 'another secret opens nothing');
  assert.equal(s.open(`${sealed.slice(0, -2)}AA`), null, 'tampering is detected');
});

test('attack: two sign-ins of one user at once under "one session per student": exactly one session survives', async () => {
  const { createSessions } = require('../../src/shared/session');
  const { createFakeMemcached } = require('../helpers/fake-memcached');
  const fake = createFakeMemcached();
  const cb = (fn) => new Promise((resolve) => fn((err, v) => resolve(v)));
  const mc = {
    get: (k) => cb((done) => fake.client.get(k, done)),
    set: (k, v, t) => cb((done) => fake.client.set(k, v, t, done)),
    del: (k) => cb((done) => fake.client.del(k, done)),
    add: (k, v, t) => cb((done) => fake.client.add(k, v, t, done)).then((ok) => ok === true),
  };
  const rows = new Map(); // the sessions table: id -> { user_id, sid_sealed }
  const pause = () => new Promise((r) => { setTimeout(r, Math.random() * 4); });
  const db = {
    async query(sql, params) {
      await pause(); // a round trip to MariaDB: other requests run meanwhile
      if (/^INSERT INTO sessions/.test(sql)) { rows.set(params[0], { user_id: params[1], sid_sealed: params[2] }); return {}; }
      if (/^SELECT id, sid_sealed FROM sessions WHERE user_id/.test(sql)) return [...rows].filter(([, r]) => r.user_id === params[0]).map(([id, r]) => ({ id, ...r }));
      if (/^DELETE FROM sessions WHERE user_id/.test(sql)) { for (const id of params.slice(1)) rows.delete(id); return {}; }
      if (/^DELETE FROM sessions WHERE id/.test(sql)) { rows.delete(params[0]); return {}; }
      throw new Error(`unexpected query ${sql}`);
    },
  };
  const sessions = createSessions({ mc, db, secret: SECRET, ttl: 3600, log: { error() {} } });
  // what the lab lock-down's hook does with one session per student: end the others first
  sessions.onCreate('before', (req, user) => sessions.revokeUser(user.id));
  const signIn = () => sessions.create({ sessionId: null }, { append() {} }, { id: 42, username: 's', name: 'S', role: 'student', section_id: 1 });
  for (let round = 0; round < 20; round++) {
    await Promise.all([signIn(), signIn()]);
    const live = [...rows.values()].filter((r) => r.user_id === 42).length;
    assert.equal(live, 1, `round ${round}: ${live} sessions of the student live`);
  }
});
