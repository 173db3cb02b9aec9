'use strict';
// The primary's liveness answer (src/health/primary.js): 200 while a worker beats and
// the dependencies answer; 503 naming "workers" when none has beaten within the
// stall time, naming the dependency when it fails.
const test = require('node:test');
const assert = require('node:assert');
const { EventEmitter } = require('node:events');
const { createLivenessServer } = require('../../src/health/primary');

function fakeWorker(id) {
  const w = new EventEmitter();
  w.id = id;
  w.dead = false;
  w.isDead = () => w.dead;
  return w;
}

async function get(port) {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`);
  return { status: res.status, body: await res.json() };
}

test('a beating worker is alive, a silent one is not, a failing dependency is named', async () => {
  const workers = { 1: fakeWorker(1), 2: fakeWorker(2) };
  let mysqlUp = true;
  const live = createLivenessServer({
    cfg: { host: '127.0.0.1', healthPort: 0 },
    cluster: { workers },
    stallMs: 300,
    cacheMs: 0,
    dependencies: {
      checks: { mysql: async () => { if (!mysqlUp) throw new Error('down'); }, memcached: async () => null },
      close: async () => {},
    },
  });
  Object.values(workers).forEach((w) => live.watch(w));
  const port = await live.listen();
  const wait = (ms) => new Promise((r) => setTimeout(r, ms));
  try {
    let r = await get(port);
    assert.strictEqual(r.status, 503);
    assert.deepStrictEqual(r.body.failing, ['workers']);

    workers[1].emit('message', { type: 'heartbeat' });
    r = await get(port);
    assert.strictEqual(r.status, 200);
    assert.deepStrictEqual(r.body.workers, { alive: 1, total: 2 });

    mysqlUp = false;
    workers[1].emit('message', { type: 'heartbeat' });
    r = await get(port);
    assert.strictEqual(r.status, 503);
    assert.deepStrictEqual(r.body.failing, ['mysql']);
    assert.strictEqual(r.body.components.mysql.status, 'fail');

    mysqlUp = true;
    workers[2].dead = true; // gone: no longer counted
    await wait(400); // no beat for > 300 ms: stalled
    r = await get(port);
    assert.strictEqual(r.status, 503);
    assert.deepStrictEqual(r.body.failing, ['workers']);
    assert.deepStrictEqual(r.body.workers, { alive: 0, total: 1 });
    assert.strictEqual((await fetch(`http://127.0.0.1:${port}/other`)).status, 404);
  } finally {
    await live.close();
  }
});
