'use strict';
// Ships telemetry to MongoDB (collection `telemetry`) in batches with insertMany,
// off every request's path: events of the webapp's workers arrive over IPC into a
// bounded buffer; the engine's events are read from the spool file
// $PRUTOR_VAR/telemetry/engine.jsonl, whose shipped offset is remembered in
// engine.jsonl.offset (advanced only after MongoDB accepted the batch).
// Several webapp replicas may read one spool (compose on one host: a shared volume):
// each spooled event's _id is derived from its place and bytes in the spool, so a line
// two shippers both send is stored once (the second insert is a duplicate key, ignored).
const crypto = require('node:crypto');
const fs = require('node:fs');
const fsp = require('node:fs/promises');
const path = require('node:path');
const { MongoClient } = require('mongodb');

const CHUNK = 1 << 20; // read at most 1 MiB of spool per flush

function toDoc(e) {
  const doc = { ...e };
  const t = new Date(doc.ts);
  doc.ts = Number.isNaN(t.getTime()) ? new Date() : t;
  return doc;
}

// The spool line at byte `offset`: the same _id whichever shipper reads it.
function spoolId(offset, raw) {
  return 'engine:' + crypto.createHash('sha1').update(`${offset}:`).update(raw).digest('base64url');
}

// insertMany(ordered: false) stores every new document and reports the duplicates.
function onlyDuplicates(err) {
  const errs = err && (Array.isArray(err.writeErrors) ? err.writeErrors : err.writeErrors ? [err.writeErrors] : []);
  return Boolean(errs && errs.length) && errs.every((e) => e.code === 11000);
}

function createShipper({ mongoUrl, varDir, batchSize = 500, flushMs = 2000, maxBuffered = 50000, log = console, openCollection = null }) {
  const spoolDir = path.join(varDir, 'telemetry');
  const spool = path.join(spoolDir, 'engine.jsonl');
  const offsetFile = `${spool}.offset`;
  const buffer = [];
  let client = null;
  let coll = null;
  let timer = null;
  let flushing = null;
  let stopped = false;
  const stats = { shipped: 0, dropped: 0, failures: 0, lastError: null, lastShipAt: null, engineOffset: 0 };

  function push(event) {
    if (buffer.length >= maxBuffered) { buffer.shift(); stats.dropped++; }
    buffer.push(event);
    if (buffer.length >= batchSize && !flushing) flush();
  }

  async function collection() {
    if (coll) return coll;
    if (openCollection) return (coll = await openCollection());
    client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 2000, connectTimeoutMS: 2000, maxPoolSize: 2 });
    await client.connect();
    coll = client.db().collection('telemetry');
    return coll;
  }

  async function readOffset() {
    try { return Number((await fsp.readFile(offsetFile, 'utf8')).trim()) || 0; } catch { return 0; }
  }

  // Complete lines of the engine's spool after the shipped offset.
  async function readSpool(offset, room) {
    let fh;
    try { fh = await fsp.open(spool, 'r'); } catch { return { docs: [], next: offset }; }
    try {
      const { size } = await fh.stat();
      if (size < offset) offset = 0; // truncated or rotated: start again
      if (size === offset || room <= 0) return { docs: [], next: offset };
      const len = Math.min(CHUNK, size - offset);
      const buf = Buffer.alloc(len);
      await fh.read(buf, 0, len, offset);
      const docs = [];
      let pos = 0;
      for (;;) {
        const nl = buf.indexOf(10, pos);
        if (nl < 0 || docs.length >= room) break;
        const raw = buf.subarray(pos, nl);
        const at = offset + pos;
        pos = nl + 1;
        const line = raw.toString('utf8').trim();
        if (!line) continue;
        try { docs.push(toDoc({ source: 'engine', ...JSON.parse(line), _id: spoolId(at, raw) })); } catch { /* skip a corrupt line */ }
      }
      return { docs, next: offset + pos };
    } finally { await fh.close(); }
  }

  async function flushOnce() {
    const mine = buffer.splice(0, batchSize);
    const offset = await readOffset();
    let spooled = { docs: [], next: offset };
    try {
      spooled = await readSpool(offset, batchSize - mine.length);
      const docs = mine.map(toDoc).concat(spooled.docs);
      if (docs.length) {
        const c = await collection();
        try {
          await c.insertMany(docs, { ordered: false });
        } catch (err) {
          if (!onlyDuplicates(err)) throw err; // another replica shipped those lines first
        }
        stats.shipped += docs.length;
        stats.lastShipAt = new Date().toISOString();
      }
      if (spooled.next !== offset) {
        await fsp.mkdir(spoolDir, { recursive: true });
        await fsp.writeFile(offsetFile, String(spooled.next));
      }
      stats.engineOffset = spooled.next;
      stats.lastError = null;
      return docs.length;
    } catch (err) {
      // MongoDB unavailable: keep our events (bounded) and the spool offset; retry later.
      buffer.unshift(...mine);
      while (buffer.length > maxBuffered) { buffer.shift(); stats.dropped++; }
      stats.failures++;
      if (stats.lastError !== err.message) log.warn(`[telemetry] shipping failed, will retry: ${err.message}`);
      stats.lastError = err.message;
      if (client) { coll = null; client.close().catch(() => {}); client = null; }
      return 0;
    }
  }

  function flush() {
    if (flushing) return flushing;
    flushing = (async () => {
      try {
        // drain while full batches are waiting
        for (let n = await flushOnce(); n >= batchSize && !stopped; n = await flushOnce());
      } finally { flushing = null; }
    })();
    return flushing;
  }

  function start() {
    fs.mkdirSync(spoolDir, { recursive: true });
    timer = setInterval(() => { if (!flushing) flush(); }, flushMs);
    timer.unref();
  }

  async function stop() {
    stopped = true;
    if (timer) clearInterval(timer);
    if (flushing) await flushing;
    stopped = false;
    if (buffer.length) await flushOnce();
    if (client) await client.close().catch(() => {});
  }

  return { push, start, stop, flush, stats: () => ({ ...stats, buffered: buffer.length }) };
}

module.exports = { createShipper };
