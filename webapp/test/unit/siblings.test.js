'use strict';
// shared/siblings.js in a real node:cluster (test/fixtures/siblings-cluster.js): an
// announcement returns only after every worker reloaded, and a worker that never
// finishes cannot hang the announcer beyond its wait.
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'siblings-cluster.js');
const run = (env = {}) => JSON.parse(execFileSync(process.execPath, [FIXTURE], { env: { ...process.env, ...env }, timeout: 20000 }).toString().trim());

test('an announcement returns after every worker has reloaded', () => {
  const r = run();
  assert.equal(r.reloaded.length, 3);
  for (const at of r.reloaded) assert.ok(at <= r.announced, 'a worker reloaded after the announcer was answered');
  assert.ok(r.elapsed < 1500, `took ${r.elapsed} ms`);
});

test('a worker that never finishes reloading delays the announcer only up to its wait', () => {
  const r = run({ STUCK: '1' });
  assert.equal(r.reloaded.length, 2);
  assert.ok(r.elapsed >= 1400 && r.elapsed < 5000, `took ${r.elapsed} ms`);
});
