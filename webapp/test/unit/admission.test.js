'use strict';
// Sign-in admission (src/admission/signin.js): at most `concurrency` compares at
// once in FIFO order, refusal at the door by estimated wait or queue length, a 503
// (code busy, Retry-After) after a real wait.
const test = require('node:test');
const assert = require('node:assert');
const { EventEmitter } = require('node:events');
const { createSigninGate } = require('../../src/admission/signin');

// compare() that finishes only when the test says so
function manualCompare() {
  const pending = [];
  const compare = (password) => new Promise((resolve) => pending.push({ password, resolve }));
  return { compare, pending };
}

function door(gate) {
  const res = new EventEmitter();
  res.headers = {};
  res.set = (k, v) => { res.headers[k.toLowerCase()] = v; return res; };
  let passed = false;
  gate.middleware({}, res, () => { passed = true; });
  return { passed, res };
}

const tick = () => new Promise((r) => setImmediate(r));

test('runs at most `concurrency` compares at once, the rest in arrival order', async () => {
  const m = manualCompare();
  const gate = createSigninGate({ concurrency: 2, maxWaitMs: 60000, compare: m.compare });
  const answers = [];
  const done = ['a', 'b', 'c', 'd'].map((p) => gate.verifyPassword(p, 'hash').then((ok) => answers.push([p, ok])));
  await tick();
  assert.deepStrictEqual(m.pending.map((x) => x.password), ['a', 'b']);
  assert.strictEqual(gate.state().waiting, 2);
  m.pending[1].resolve(true);
  await tick(); await tick();
  assert.deepStrictEqual(m.pending.map((x) => x.password), ['a', 'b', 'c']);
  m.pending[0].resolve(false);
  m.pending[2].resolve(true);
  await tick(); await tick();
  m.pending[3].resolve(true);
  await Promise.all(done);
  assert.deepStrictEqual(answers, [['b', true], ['a', false], ['c', true], ['d', true]]);
  assert.strictEqual(gate.state().active, 0);
});

test('the door lets sign-ins in while the estimated wait is short, refuses with Retry-After beyond', async () => {
  const m = manualCompare();
  const refused = [];
  const gate = createSigninGate({ concurrency: 1, maxWaitMs: 1000, initialCostMs: 400, compare: m.compare, refuse: (req, res, s) => refused.push(s) });
  assert.strictEqual(door(gate).passed, true); // idle
  gate.verifyPassword('a', 'h');
  gate.verifyPassword('b', 'h');
  await tick();
  // one running, one waiting: a newcomer waits ~2 x 400 ms
  assert.strictEqual(door(gate).passed, true);
  gate.verifyPassword('c', 'h');
  // one running, two waiting: ~3 x 400 ms > 1000 ms
  const { passed, res } = door(gate);
  assert.strictEqual(passed, false);
  assert.strictEqual(res.headers['retry-after'], '2');
  assert.deepStrictEqual(refused, [2]);
  assert.strictEqual(gate.state().refused, 1);
  m.pending.forEach((x) => x.resolve(true));
});

test('refuses at the door when SIGNIN_MAX_QUEUE are waiting', async () => {
  const m = manualCompare();
  const gate = createSigninGate({ concurrency: 1, maxWaitMs: 60000, maxQueue: 1, initialCostMs: 1, compare: m.compare, refuse: () => {} });
  gate.verifyPassword('a', 'h');
  gate.verifyPassword('b', 'h');
  await tick();
  assert.strictEqual(door(gate).passed, false);
  m.pending[0].resolve(true);
  await tick(); await tick();
  m.pending[1].resolve(true);
});

test('a compare that waited the longest wait anyway is refused with a 503 busy', async () => {
  const m = manualCompare();
  const gate = createSigninGate({ concurrency: 1, maxWaitMs: 50, initialCostMs: 1, compare: m.compare });
  const first = gate.verifyPassword('a', 'h');
  const second = gate.verifyPassword('b', 'h');
  const keepAlive = setTimeout(() => {}, 1000); // the gate's timer is unref'd, as a server's would not need
  await assert.rejects(second, (err) => err.status === 503 && err.code === 'busy' && err.retryAfter >= 2);
  assert.strictEqual(gate.state().waiting, 0);
  m.pending[0].resolve(true);
  assert.strictEqual(await first, true);
  await tick();
  assert.strictEqual(gate.state().active, 0);
  assert.deepStrictEqual(m.pending.map((x) => x.password), ['a']);
  clearTimeout(keepAlive);
});

test('a failing compare frees its slot', async () => {
  const gate = createSigninGate({ concurrency: 1, compare: async () => { throw new Error('boom'); } });
  await assert.rejects(gate.verifyPassword('a', 'h'), /boom/);
  await tick();
  assert.strictEqual(gate.state().active, 0);
});
