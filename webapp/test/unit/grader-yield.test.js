'use strict';
// The grader's yield to a saturated host (src/exam/grader.js createPacer): everything
// due while the CPUs are not saturated; one batch every busyEveryMs while they are.
const test = require('node:test');
const assert = require('node:assert');
const { createPacer } = require('../../src/exam/grader');

const quiet = { info() {} };

test('grader pacing: all that is due on a quiet host, one batch now and then on a saturated one', () => {
  let pressure = 20;
  let t = 0;
  const allowance = createPacer({ yieldPressure: 50, busyEveryMs: 10000, cpuPressure: () => pressure, now: () => t, log: quiet });
  assert.strictEqual(allowance(), 'all', 'a quiet host');
  pressure = 93;
  assert.strictEqual(allowance(), 'batch', 'saturated: one batch at once');
  t = 2000;
  assert.strictEqual(allowance(), 'none', 'then nothing until busyEveryMs has passed');
  t = 9999;
  assert.strictEqual(allowance(), 'none');
  t = 10000;
  assert.strictEqual(allowance(), 'batch', 'a host that stays busy still gets its grades, slowly');
  pressure = 45;
  t = 12000;
  assert.strictEqual(allowance(), 'none', 'just below the threshold it stays busy (no flapping)');
  pressure = 39;
  assert.strictEqual(allowance(), 'all', 'a fifth below the threshold: everything due at once');
  pressure = 49;
  assert.strictEqual(allowance(), 'all', 'and not busy again until the threshold itself');
});

test('grader pacing: GRADER_YIELD_PRESSURE=0 never yields', () => {
  const allowance = createPacer({ yieldPressure: 0, busyEveryMs: 10000, cpuPressure: () => 100, log: quiet });
  assert.strictEqual(allowance(), 'all');
  assert.strictEqual(allowance(), 'all');
});
