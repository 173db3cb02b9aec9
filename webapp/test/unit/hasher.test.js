'use strict';
// admission/hasher.js with its real child process: a compare answers as bcrypt does, in
// a process of lower priority; a hasher that dies mid-compare gives the sign-in a 503
// with Retry-After (the login page waits it out), never a 500, and the next compare
// starts a new hasher.
const test = require('node:test');
const assert = require('node:assert/strict');
const os = require('node:os');
const bcrypt = require('bcrypt');
const { createHasher } = require('../../src/admission/hasher');

test('compares as bcrypt does, at the configured niceness', async () => {
  const h = createHasher({ nice: 10 });
  const hash = await bcrypt.hash('right', 4);
  assert.equal(await h.compare('right', hash), true);
  assert.equal(await h.compare('wrong', hash), false);
  assert.equal(os.getPriority(h.pid()), 10);
  h.close();
});

test('a hasher that dies mid-compare: 503 with Retry-After, then a new one answers', async () => {
  const h = createHasher({ nice: 10 });
  const hash = await bcrypt.hash('right', 12); // slow enough to be killed mid-compare
  const pending = h.compare('right', hash);
  process.kill(h.pid(), 'SIGKILL');
  await assert.rejects(pending, (err) => err.status === 503 && err.retryAfter > 0 && /Trying again/.test(err.message));
  assert.equal(await h.compare('right', await bcrypt.hash('right', 4)), true);
  h.close();
});
