'use strict';
// The per-worker caches' refresh (lib/periodic.js): a refresh asked for after a
// change must not be overwritten by an older run that read the rows before it.
const test = require('node:test');
const assert = require('node:assert/strict');
const { periodic } = require('../../src/lib/periodic');

const tick = () => new Promise((r) => setImmediate(r));

// A cache over a "table" whose reads finish when the test says so.
function fixture() {
  const table = { value: 'old' };
  const pending = [];
  let cached = null;
  let inFlight = 0;
  let maxInFlight = 0;
  const load = () => new Promise((resolve, reject) => {
    const read = table.value;  // the rows as they are when the run starts
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    pending.push({
      finish() { inFlight--; cached = read; resolve(); },
      fail(err) { inFlight--; reject(err); },
    });
  });
  return { table, pending, load, cached: () => cached, maxInFlight: () => maxInFlight };
}

test('a refresh after a change wins over a run that read before it', async () => {
  const f = fixture();
  const { refresh } = periodic('t', 60000, f.load, { error() {} });
  const timed = refresh();              // e.g. the timer: reads 'old'
  await tick();
  f.table.value = 'new';                 // staff saves
  const afterSave = refresh();           // the save's refresh
  await tick();
  assert.equal(f.pending.length, 1, 'the second run waits for the first');
  f.pending[0].finish();
  await timed;
  await tick();
  assert.equal(f.pending.length, 2, 'then runs again, reading the saved rows');
  f.pending[1].finish();
  await afterSave;
  assert.equal(f.cached(), 'new');
  assert.equal(f.maxInFlight(), 1);
});

test('calls made during one run share the next run', async () => {
  const f = fixture();
  const { refresh } = periodic('t', 60000, f.load, { error() {} });
  const first = refresh();
  await tick();
  const a = refresh();
  const b = refresh();
  assert.equal(a, b);
  f.pending[0].finish();
  await first;
  await tick();
  f.pending[1].finish();
  await Promise.all([a, b]);
  assert.equal(f.pending.length, 2);
});

test('a failed run is reported to its caller and does not stop the queued one', async () => {
  const f = fixture();
  const { refresh } = periodic('t', 60000, f.load, { error() {} });
  const first = refresh();
  await tick();
  f.table.value = 'new';
  const second = refresh();
  f.pending[0].fail(new Error('connection lost'));
  await assert.rejects(first, /connection lost/);
  await tick();
  f.pending[1].finish();
  await second;
  assert.equal(f.cached(), 'new');
});

test('the timer logs a failed run and goes on', async () => {
  const f = fixture();
  const errors = [];
  const p = periodic('announcements', 60000, f.load, { error: (m) => errors.push(m) });
  p.start();
  await tick();
  f.pending[0].fail(new Error('connection lost'));
  await tick();
  p.stop();
  assert.deepEqual(errors, ['announcements: refresh failed: connection lost']);
});
