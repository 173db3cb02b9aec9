'use strict';
// Sign-in admission (src/admission/signin.js): concurrency, FIFO queue, refusal by
// estimated wait, refusal after a real wait, a client leaving the queue.
const test = require('node:test');
const assert = require('node:assert');
const { EventEmitter } = require('node:events');
const { createSigninAdmission } = require('../../src/admission/signin');

function fakeRes() {
  const res = new EventEmitter();
  res.headers = {};
  res.set = (k, v) => { res.headers[k.toLowerCase()] = v; return res; };
  res.answer = (code) => { res.code = code; res.emit('finish'); res.emit('close'); };
  return res;
}

function harness(opts) {
  const refused = [];
  const adm = createSigninAdmission({ refuse: (req, res, s) => { refused.push(s); res.answer(503); }, ...opts });
  const admitted = [];
  const arrive = () => {
    const res = fakeRes();
    adm.middleware({}, res, () => admitted.push(res));
    return res;
  };
  return { adm, admitted, refused, arrive };
}

test('runs at most `concurrency` at once and admits the queue in order', () => {
  const h = harness({ concurrency: 2, maxWaitMs: 60000, initialCostMs: 10 });
  const rs = [h.arrive(), h.arrive(), h.arrive(), h.arrive()];
  assert.deepStrictEqual(h.admitted, rs.slice(0, 2));
  assert.strictEqual(h.adm.state().waiting, 2);
  rs[1].answer(200);
  assert.deepStrictEqual(h.admitted, rs.slice(0, 3));
  rs[0].answer(200);
  rs[2].answer(200);
  assert.deepStrictEqual(h.admitted, rs);
  rs[3].answer(200);
  assert.deepStrictEqual(h.adm.state().active, 0);
  assert.deepStrictEqual(h.refused, []);
});

test('refuses at once, with a Retry-After, when the estimated wait is too long', () => {
  const h = harness({ concurrency: 1, maxWaitMs: 1000, initialCostMs: 400 });
  const rs = [h.arrive(), h.arrive(), h.arrive(), h.arrive()];
  // 1 running; waiting 1 -> 400 ms, 2 -> 800 ms, 3 -> 1200 ms > 1000: refused
  assert.strictEqual(h.admitted.length, 1);
  assert.strictEqual(h.adm.state().waiting, 2);
  assert.strictEqual(rs[3].code, 503);
  assert.strictEqual(rs[3].headers['retry-after'], '2');
  assert.deepStrictEqual(h.refused, [2]);
});

test('refuses when SIGNIN_MAX_QUEUE are waiting', () => {
  const h = harness({ concurrency: 1, maxWaitMs: 60000, maxQueue: 1, initialCostMs: 1 });
  const rs = [h.arrive(), h.arrive(), h.arrive()];
  assert.strictEqual(rs[2].code, 503);
  assert.strictEqual(h.adm.state().waiting, 1);
});

test('a sign-in that waited the longest wait anyway is refused, and leaves the queue', async () => {
  const h = harness({ concurrency: 1, maxWaitMs: 50, initialCostMs: 1 });
  const first = h.arrive();
  const second = h.arrive();
  await new Promise((r) => setTimeout(r, 120));
  assert.strictEqual(second.code, 503);
  assert.ok(Number(second.headers['retry-after']) >= 2);
  first.answer(200);
  assert.strictEqual(h.admitted.length, 1);
  assert.strictEqual(h.adm.state().active, 0);
});

test('a client that disconnects while queued leaves the queue', () => {
  const h = harness({ concurrency: 1, maxWaitMs: 60000, initialCostMs: 1 });
  const first = h.arrive();
  const gone = h.arrive();
  const third = h.arrive();
  gone.emit('close');
  assert.strictEqual(h.adm.state().waiting, 1);
  first.answer(200);
  assert.deepStrictEqual(h.admitted, [first, third]);
});
