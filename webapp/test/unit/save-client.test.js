'use strict';
// The editor's save transport (client/save-client.mjs) against a scripted fetch.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const load = () => import(pathToFileURL(path.join(__dirname, '..', '..', 'client', 'save-client.mjs')).href);

function scripted(answers) {
  const calls = [];
  const fetchImpl = async (url, init) => {
    calls.push(JSON.parse(init.body));
    const a = answers[calls.length - 1];
    if (a === 'network') throw new TypeError('fetch failed');
    return new Response(JSON.stringify(a.body), { status: a.status, headers: { 'content-type': 'application/json', ...(a.headers || {}) } });
  };
  return { calls, fetchImpl };
}

test('retries what was not acknowledged, with one id, honouring Retry-After', async () => {
  const { createSaveClient } = await load();
  const { calls, fetchImpl } = scripted(['network', { status: 503, body: { error: 'down' }, headers: { 'retry-after': '7' } },
    { status: 502, body: { error: 'bad gateway' } }, { status: 200, body: { ok: true, code_id: 5 } }]);
  const waits = [];
  const statuses = [];
  let token = 'first';
  const sent = [];
  const seen = async (url, init) => { sent.push(init.headers['X-CSRF-Token']); token = 'renewed'; return fetchImpl(url, init); };
  const client = createSaveClient({ csrf: () => token, fetchImpl: seen, sleep: async (ms) => { waits.push(ms); }, onStatus: (s, k) => statuses.push([k, s]) });
  const r = await client.save({ assignment_id: 1, code: 'x' });
  assert.deepEqual(sent, ['first', 'renewed', 'renewed', 'renewed'], 'the current token at every attempt');
  assert.equal(r.code_id, 5);
  assert.equal(r.attempts, 4);
  assert.equal(calls.length, 4);
  assert.equal(new Set(calls.map((c) => c.client_save_id)).size, 1);
  assert.match(calls[0].client_save_id, /^[A-Za-z0-9_-]{16,64}$/);
  assert.equal(waits[1], 7000, 'Retry-After in seconds');
  assert.ok(waits[0] >= 750 && waits[0] <= 1250 && waits[2] >= 3000 && waits[2] <= 5000, `backoff grows: ${waits}`);
  assert.match(statuses.find(([k]) => k === 'retry')[1], /Not saved yet: no connection to the server\. Retrying in 1 s \(attempt 2 of 8\)/);
});

test('a refusal is thrown at once; each save has its own id; a keepalive save is not retried', async () => {
  const { createSaveClient } = await load();
  for (const status of [400, 401, 403, 404, 409, 413]) {
    const { calls, fetchImpl } = scripted([{ status, body: { error: 'no', code: 'event_closed' } }]);
    const client = createSaveClient({ csrf: 't', fetchImpl, sleep: async () => {} });
    await assert.rejects(client.save({ code: 'x' }), (e) => e.status === status && e.attempts === 1);
    assert.equal(calls.length, 1);
  }
  const { calls, fetchImpl } = scripted([{ status: 200, body: { ok: true } }, { status: 200, body: { ok: true } }, 'network']);
  const client = createSaveClient({ csrf: 't', fetchImpl, sleep: async () => {} });
  await client.save({ code: 'a' });
  await client.save({ code: 'b' });
  assert.notEqual(calls[0].client_save_id, calls[1].client_save_id);
  await assert.rejects(client.save({ code: 'c' }, { keepalive: true }), (e) => e.network && e.attempts === 1);
});

test('gives up after maxAttempts; a 200 without our answer is no acknowledgement', async () => {
  const { createSaveClient, retryAfterMs } = await load();
  const { calls, fetchImpl } = scripted([{ status: 200, body: { hello: 1 } }, { status: 503, body: {} }, { status: 503, body: {} }]);
  const client = createSaveClient({ csrf: 't', fetchImpl, sleep: async () => {}, maxAttempts: 3 });
  await assert.rejects(client.save({ code: 'x' }), (e) => e.status === 503 && e.attempts === 3);
  assert.equal(calls.length, 3);
  assert.equal(retryAfterMs('3'), 3000);
  assert.equal(retryAfterMs(new Date(Date.now() + 5000).toUTCString()) > 3000, true);
  assert.equal(retryAfterMs('soon'), null);
});
