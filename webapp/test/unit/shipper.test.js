'use strict';
// Two webapp replicas reading one engine spool (compose on one host) store each line once.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createShipper } = require('../../src/telemetry/shipper');

// A collection with MongoDB's unique _id and insertMany(ordered: false) semantics.
function fakeCollection() {
  const docs = new Map();
  return {
    docs,
    async insertMany(batch) {
      const writeErrors = [];
      batch.forEach((d, index) => {
        if (d._id !== undefined && docs.has(String(d._id))) writeErrors.push({ index, code: 11000 });
        else docs.set(String(d._id ?? `auto${docs.size}`), d);
      });
      if (writeErrors.length) throw Object.assign(new Error('E11000 duplicate key'), { code: 11000, writeErrors });
    },
  };
}

test('two shippers of one spool store every engine event once', async () => {
  const varDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shipper-'));
  fs.mkdirSync(path.join(varDir, 'telemetry'));
  const spool = path.join(varDir, 'telemetry', 'engine.jsonl');
  const line = (i) => JSON.stringify({ ts: '2026-11-23T10:00:00Z', kind: 'compile', user: 7, n: i % 2 }) + '\n';
  fs.writeFileSync(spool, line(0) + line(1) + line(2) + line(3));  // lines 0 and 2 are identical
  const coll = fakeCollection();
  const quiet = { warn() {}, error() {} };
  const a = createShipper({ mongoUrl: 'mongodb://unused', varDir, openCollection: async () => coll, log: quiet });
  const b = createShipper({ mongoUrl: 'mongodb://unused', varDir, openCollection: async () => coll, log: quiet });
  await Promise.all([a.flush(), b.flush()]);
  await b.flush();
  assert.equal(coll.docs.size, 4, 'four spool lines, four events (identical lines at different places are two)');
  assert.equal(a.stats().failures + b.stats().failures, 0, 'duplicates are not failures');
  fs.appendFileSync(spool, line(4));
  await a.flush();
  await b.flush();
  assert.equal(coll.docs.size, 5);
  fs.rmSync(varDir, { recursive: true, force: true });
});
