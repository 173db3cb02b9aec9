'use strict';
// Worker side of telemetry: record() never waits and never throws. In a cluster
// worker the event goes to the primary over the IPC channel (the primary batches
// it into MongoDB with the engine's spool); in a single process it goes straight
// to an in-process shipper.
const cluster = require('node:cluster');

function createRecorder({ enabled, localShipper = null }) {
  let dropped = 0;
  function record(doc) {
    if (!enabled) return;
    const event = { ts: new Date().toISOString(), source: 'webapp', ...doc };
    try {
      if (cluster.isWorker && process.connected) {
        process.send({ type: 'telemetry', event }, undefined, {}, (err) => { if (err) dropped++; });
      } else if (localShipper) {
        localShipper.push(event);
      }
    } catch {
      dropped++;
    }
  }
  return { record, stats: () => ({ dropped }) };
}

module.exports = { createRecorder };
