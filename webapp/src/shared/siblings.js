'use strict';
// "Every worker of this webapp, now": a change that workers cache in memory (the
// lock-downs in force) is announced to all of them at once over the cluster IPC
// channel, and the worker that made the change waits until each has reloaded, so
// a staff member who saves a lock-down is answered only when it is in force in
// every worker of this node. Without it each worker would learn of it on its own
// refresh timer, and a sign-in sent to a worker that has not yet refreshed would
// see the old rule. Other replicas (other hosts) still learn of it on their timer.
//
// Worker:   announce(topic) -> Promise (resolves when every live worker reloaded,
//           or after waitMs: a stuck worker must not hang the staff request)
//           on(topic, async handler) -> off()
// Primary:  relay(cluster): forwards each announcement to every live worker and
//           answers the announcer when all have acknowledged.
// Single process (WEB_WORKERS=0): announce() runs the local handlers.
const cluster = require('node:cluster');
const crypto = require('node:crypto');

const ANNOUNCE = 'siblings:announce';
const RELOADED = 'siblings:reloaded';
const ALL_DONE = 'siblings:done';
const DEFAULT_WAIT_MS = 5000;

const handlers = new Map(); // topic -> [async fn]
const waiting = new Map(); // announcement id -> resolve

// A send to a worker or primary that is gone is not an error here (its reply is
// simply not counted); with a callback Node reports it there instead of throwing.
function send(target, message) {
  if (!target.isConnected || target.isConnected()) target.send(message, undefined, {}, () => {});
}

async function runHandlers(topic) {
  await Promise.allSettled((handlers.get(topic) || []).map((fn) => fn()));
}

if (cluster.isWorker) {
  process.on('message', (m) => {
    if (!m || typeof m.type !== 'string') return;
    if (m.type === ANNOUNCE) {
      runHandlers(m.topic).finally(() => {
        if (process.connected) send(process, { type: RELOADED, id: m.id });
      });
    } else if (m.type === ALL_DONE && waiting.has(m.id)) {
      waiting.get(m.id)();
      waiting.delete(m.id);
    }
  });
}

// Returns a function that removes the handler.
function on(topic, fn) {
  if (!handlers.has(topic)) handlers.set(topic, []);
  handlers.get(topic).push(fn);
  return () => handlers.set(topic, handlers.get(topic).filter((h) => h !== fn));
}

function announce(topic, { waitMs = DEFAULT_WAIT_MS } = {}) {
  if (!cluster.isWorker || !process.connected) return runHandlers(topic);
  const id = crypto.randomUUID();
  return new Promise((resolve) => {
    const timer = setTimeout(() => { waiting.delete(id); resolve(); }, waitMs);
    timer.unref();
    waiting.set(id, () => { clearTimeout(timer); resolve(); });
    send(process, { type: ANNOUNCE, topic, id });
  });
}

// In the primary: call once per forked worker.
function relay(clusterRef, worker) {
  worker.on('message', (m) => {
    if (!m || m.type !== ANNOUNCE) return;
    const targets = Object.values(clusterRef.workers || {}).filter((w) => w && !w.isDead() && w.isConnected());
    const pending = new Set(targets.map((w) => w.id));
    const done = () => send(worker, { type: ALL_DONE, id: m.id });
    if (!pending.size) return done();
    for (const w of targets) {
      const onReply = (r) => {
        if (!r || r.type !== RELOADED || r.id !== m.id) return;
        cleanup();
      };
      const onExit = () => cleanup();
      const cleanup = () => {
        w.off('message', onReply);
        w.off('exit', onExit);
        if (pending.delete(w.id) && !pending.size) done();
      };
      w.on('message', onReply);
      w.once('exit', onExit);
      send(w, { type: ANNOUNCE, topic: m.topic, id: m.id });
    }
  });
}

module.exports = { announce, on, relay };
