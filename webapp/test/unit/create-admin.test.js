'use strict';
// admin/create-admin.js's retry: a database out of reach for a moment is waited for; any
// other error, or one that outlasts the deadline, is the job's failure.
const test = require('node:test');
const assert = require('node:assert/strict');
const { untilReachable } = require('../../src/admin/create-admin');

const unreachable = () => Object.assign(new Error('The database is not reachable right now.'), { code: 'EAI_AGAIN', unavailable: true });

test('an unreachable database is retried until it answers', async () => {
  let calls = 0;
  const result = await untilReachable(async () => {
    calls++;
    if (calls < 3) throw unreachable();
    return { affectedRows: 1 };
  }, { deadlineMs: 1000, pauseMs: 10 });
  assert.deepEqual(result, { affectedRows: 1 });
  assert.equal(calls, 3);
});

test('any other error stops at once', async () => {
  let calls = 0;
  await assert.rejects(untilReachable(async () => {
    calls++;
    throw Object.assign(new Error('Access denied'), { code: 'ER_ACCESS_DENIED_ERROR' });
  }, { deadlineMs: 1000, pauseMs: 10 }), /Access denied/);
  assert.equal(calls, 1);
});

test('a database unreachable past the deadline fails the job', async () => {
  let calls = 0;
  const t0 = Date.now();
  await assert.rejects(untilReachable(async () => { calls++; throw unreachable(); }, { deadlineMs: 200, pauseMs: 50 }), /not reachable/);
  assert.ok(calls >= 3 && calls <= 5, `${calls} attempts`);
  assert.ok(Date.now() - t0 < 1000);
});
