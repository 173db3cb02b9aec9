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
