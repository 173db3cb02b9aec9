'use strict';
// health/primary.js's heartbeat in a real node:cluster (test/fixtures/heartbeat-drain-cluster.js):
// a worker disconnected by a rolling restart finishes what it was doing and exits cleanly;
// its next beat on the closed channel must not crash it (it did: ERR_IPC_CHANNEL_CLOSED).
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

test('a disconnected worker keeps beating harmlessly and finishes its work', () => {
  const done = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prutor-beat-')), 'done');
  const out = execFileSync(process.execPath, [path.join(__dirname, '..', 'fixtures', 'heartbeat-drain-cluster.js')],
    { env: { ...process.env, DONE_FILE: done }, timeout: 20000, stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim();
  const r = JSON.parse(out.split('\n').pop());
  assert.equal(r.finished, true, 'the work in flight was finished');
  assert.equal(r.code, 0, `the worker exited with ${r.code} (${r.signal})`);
});
