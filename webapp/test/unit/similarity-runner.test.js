'use strict';
// The similarity detector process (no services): it runs niced, ranks the seeded
// copy first, ignores the template, and reports a failure instead of hanging.
const test = require('node:test');
const assert = require('node:assert/strict');
const { runDetector } = require('../../src/similarity/runner');
const set = require('../fixtures/similarity-set');

test('the detector runs at the lowest priority and ranks the renamed, reordered copy first', async () => {
  const files = set.programs().map((code, i) => ({ id: 100 + i, code }));
  const out = await runDetector({ language: 'c', template: set.template, files }, { niceness: 19 });
  assert.equal(out.niceness, 19);
  // SCHED_IDLE where the host allows it (chrt --idle); this host does
  assert.equal(out.sched_idle, true);
  assert.equal(out.files, 8);
  assert.deepEqual([out.pairs[0].left, out.pairs[0].right].sort(), [100, 101]);
  for (const f of out.pairs[0].fragments) {
    assert.equal(f.left.length, 4);
    assert.ok(f.left[2] >= f.left[0] && f.right[2] >= f.right[0]);
  }
});

test('a template-only pair has no similarity', async () => {
  const out = await runDetector({ template: set.original, files: [{ id: 1, code: set.original }, { id: 2, code: set.original }] });
  assert.equal(out.pairs.length, 0);
});

test('a broken input is a clear error', async () => {
  await assert.rejects(runDetector({ language: 'klingon', files: [{ id: 1, code: 'x' }, { id: 2, code: 'y' }] }), /the detector failed/);
});

test('a job over its time limit is killed and says so', async () => {
  const files = Array.from({ length: 50 }, (_, i) => ({ id: i + 1, code: set.original }));
  await assert.rejects(runDetector({ files }, { timeoutS: 0.05 }), /stopped after 0\.05 s/);
});
