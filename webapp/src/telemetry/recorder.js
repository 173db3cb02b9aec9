'use strict';
// Worker side of telemetry: record() never waits and never throws. In a cluster
// worker the events go to the primary over the IPC channel (the primary batches
// them into MongoDB with the engine's spool), several per message: one IPC write
// per save cost about as much CPU as the save's own SQL statement (issue 17's
// profile), so a worker sends what it recorded every FLUSH_MS or every BATCH
// events. In a single process they go straight to an in-process shipper.
const cluster = require('node:cluster');

const FLUSH_MS = 250;
const BATCH = 100;

function createRecorder({ enabled, localShipper = null }) {
  let dropped = 0;
  let pending = [];
  let timer = null;

  function flush() {
    clearTimeout(timer);
    timer = null;
    if (!pending.length) return;
    const events = pending;
    pending = [];
    try {
      if (!process.connected) { dropped += events.length; return; }
      process.send({ type: 'telemetry', events }, undefined, {}, (err) => { if (err) dropped += events.length; });
    } catch {
      dropped += events.length;
    }
  }

  function record(doc) {
    if (!enabled) return;
    const event = { ts: new Date().toISOString(), source: 'webapp', ...doc };
    if (cluster.isWorker) {
      pending.push(event);
      if (pending.length >= BATCH) flush();
      else if (!timer) timer = setTimeout(flush, FLUSH_MS).unref();
    } else if (localShipper) {
      try { localShipper.push(event); } catch { dropped++; }
    }
  }
  return { record, flush, stats: () => ({ dropped }) };
}

module.exports = { createRecorder };
