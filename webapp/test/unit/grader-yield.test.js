'use strict';
// The grader's yield to a saturated host (src/exam/grader.js createPacer): everything
// due while the host is not busy; one batch every busyEveryMs while it is.
const test = require('node:test');
const assert = require('node:assert');
const { createPacer } = require('../../src/exam/grader');

const quiet = { info() {} };

test('grader pacing: all that is due on a quiet host, one batch now and then on a saturated one', () => {
  let load = 0.4;
  let t = 0;
  const allowance = createPacer({ yieldLoad: 1, busyEveryMs: 10000, loadPerCore: () => load, now: () => t, log: quiet });
  assert.strictEqual(allowance(), 'all', 'a quiet host');
  load = 1.6;
  assert.strictEqual(allowance(), 'batch', 'saturated: one batch at once');
  t = 2000;
  assert.strictEqual(allowance(), 'none', 'then nothing until busyEveryMs has passed');
  t = 9999;
  assert.strictEqual(allowance(), 'none');
  t = 10000;
  assert.strictEqual(allowance(), 'batch', 'a host that stays busy still gets its grades, slowly');
  load = 0.99;
  assert.strictEqual(allowance(), 'all', 'below the threshold again: everything due at once');
});

test('grader pacing: GRADER_YIELD_LOAD=0 never yields', () => {
  const allowance = createPacer({ yieldLoad: 0, busyEveryMs: 10000, loadPerCore: () => 50, log: quiet });
  assert.strictEqual(allowance(), 'all');
  assert.strictEqual(allowance(), 'all');
});
