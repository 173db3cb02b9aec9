'use strict';
// The one engine client (lib/engine.js) and the one way to mint a session
// (shared/session.js), as the automatic grader uses them.
const test = require('node:test');
const assert = require('node:assert/strict');
const { createEngineClient } = require('../../src/lib/engine');
const { mintBackgroundSession, verify, COOKIE } = require('../../src/shared/session');

const SECRET = 'unit-test-secret-0123456789';

test('the grader mints a background session in memcached only, in the sign-in shape', async () => {
  const stored = new Map();
  const mc = { set: async (k, v, ttl) => { stored.set(k, { v, ttl }); } };
  const user = { id: 7, username: 'grader', name: 'Automatic grader', role: 'instructor' };
  const { cookie, csrf } = await mintBackgroundSession({ mc, secret: SECRET, ttl: 3600 }, user);
  const sid = verify(cookie, SECRET);
  assert.ok(sid, 'the cookie value is signed with the session secret');
  const entry = stored.get(`sess:${sid}`);
  assert.equal(entry.ttl, 3600);
  const data = JSON.parse(entry.v);
  assert.deepEqual(Object.keys(data), ['uid', 'username', 'name', 'role', 'section_id', 'csrf', 'created', 'background']);
  assert.equal(data.uid, 7);
  assert.equal(data.section_id, null);
  assert.equal(data.csrf, csrf);
  assert.equal(data.background, true);
});

test('the engine client posts {problem_id, code} as the given session and reports status, body and Retry-After', async () => {
  const calls = [];
  const fetchImpl = async (url, init) => {
    calls.push({ url, init });
    return new Response(JSON.stringify({ error: 'busy' }), { status: 503, headers: { 'retry-after': '9' } });
  };
  const engine = createEngineClient({ engineUrl: 'http://engine.test', fetchImpl });
  const r = await engine.evaluate({ cookie: 'abc.def', csrf: 'tok', problemId: 12, code: 'int main(){}' });
  assert.deepEqual(r, { ok: false, status: 503, body: { error: 'busy' }, retryAfterS: 9 });
  assert.equal(calls[0].url, 'http://engine.test/evaluate');
  assert.equal(calls[0].init.method, 'POST');
  assert.equal(calls[0].init.headers.cookie, `${COOKIE}=abc.def`);
  assert.equal(calls[0].init.headers['x-csrf-token'], 'tok');
  assert.deepEqual(JSON.parse(calls[0].init.body), { problem_id: 12, code: 'int main(){}' });
});

test('an engine answer that is not JSON is a null body, not a throw', async () => {
  const engine = createEngineClient({ engineUrl: 'http://engine.test', fetchImpl: async () => new Response('<html>', { status: 502 }) });
  const r = await engine.evaluate({ cookie: 'a.b', csrf: 't', problemId: 1, code: '' });
  assert.equal(r.body, null);
  assert.equal(r.retryAfterS, 0);
});
