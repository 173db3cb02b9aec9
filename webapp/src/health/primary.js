'use strict';
// The liveness answer HAProxy checks (issue 17): served by the cluster primary on
// WEBAPP_HEALTH_PORT, not by the workers. The primary serves no pages, so its answer
// does not wait behind a saturated worker's queue: a busy webapp stays UP, and only
// a dead one (no worker alive, or MySQL unreachable; memcached is reported, as
// degraded only, as in the workers' /healthz) is taken out.
//
// "Alive" means a worker's event loop turned within WORKER_STALL_MS: each worker
// sends a heartbeat over the cluster IPC channel every HEARTBEAT_MS. A loaded event
// loop lags by tens or hundreds of milliseconds; a stuck one (an endless loop, a
// deadlock) stops beating. MySQL and memcached are pinged over the primary's own
// single connections (never the workers' pools, which are busy under load), with a
// timeout sized for a saturated host.
//
// GET /healthz -> 200 {"status":"ok","workers":{"alive":2,"total":2},"components":{...}}
//              or 503 with the failing part named (CONTRACTS.md's /healthz shape).
// GET /metrics -> the workers' Prometheus metrics, aggregated (src/metrics).
const http = require('node:http');
const { checkAll, DEGRADED_ONLY } = require('./checks');

const HEARTBEAT_MS = 1000;
const WORKER_STALL_MS = 15000;
const DEPENDENCY_TIMEOUT_MS = 4000;
const CACHE_MS = 1000;

// In a worker: beat while the event loop turns (unref: never keeps a draining worker alive).
// A draining worker's channel closes before it exits (a rolling restart disconnects it):
// process.send without a callback reports that as an 'error' event, which would crash the
// worker while it still finishes its requests; with one, the beat is just not delivered.
function startHeartbeat(send = (m) => process.connected && process.send(m, undefined, {}, () => {})) {
  const beat = () => { try { send({ type: 'heartbeat' }); } catch { /* the primary is gone */ } };
  beat();
  return setInterval(beat, HEARTBEAT_MS).unref();
}

// In the primary (or the single process when WEB_WORKERS=0): track beats, answer checks.
// The primary's own single connections to what a page cannot be served without.
function dependencyChecks(cfg) {
  const { createDb } = require('../shared/db');
  const { createMemcache } = require('../shared/memcache');
  const db = createDb({ ...cfg.db, poolSize: 1 });
  const mc = createMemcache({ ...cfg.memcached, poolSize: 1, timeoutMs: DEPENDENCY_TIMEOUT_MS });
  return {
    checks: {
      mysql: () => db.ping().then(() => null),
      memcached: () => mc.version().then(() => null),
    },
    close: () => Promise.allSettled([db.close(), Promise.resolve(mc.close())]),
  };
}

function createLivenessServer({ cfg, cluster = null, stallMs = WORKER_STALL_MS, cacheMs = CACHE_MS, dependencies = dependencyChecks(cfg) }) {
  const lastBeat = new Map(); // worker id -> time of its last heartbeat
  const deps = dependencies.checks;

  function watch(worker) {
    worker.on('message', (m) => { if (m && m.type === 'heartbeat') lastBeat.set(worker.id, Date.now()); });
    worker.on('exit', () => lastBeat.delete(worker.id));
  }

  function workers() {
    if (!cluster) return { alive: 1, total: 1 }; // single process: answering at all proves it turns
    const now = Date.now();
    const live = Object.values(cluster.workers || {}).filter((w) => w && !w.isDead());
    const alive = live.filter((w) => now - (lastBeat.get(w.id) || 0) < stallMs).length;
    return { alive, total: live.length };
  }

  let cached = null;
  async function state() {
    if (cached && Date.now() - cached.at < cacheMs) return cached.value;
    const components = await checkAll(deps, DEPENDENCY_TIMEOUT_MS);
    const w = workers();
    const failing = Object.keys(components).filter((n) => components[n].status !== 'ok' && !DEGRADED_ONLY.has(n));
    if (w.alive === 0) failing.unshift('workers');
    const value = {
      code: failing.length ? 503 : 200,
      body: { status: failing.length ? 'fail' : 'ok', ...(failing.length ? { failing } : {}), workers: w, components },
    };
    cached = { at: Date.now(), value };
    return value;
  }

  // Prometheus' scrape (src/metrics): every worker's figures, aggregated here
  const metrics = require('../metrics').createClusterMetrics(cluster);
  function serveMetrics(res) {
    metrics.text().then((text) => {
      res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
      res.end(text);
    }, (err) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `the workers' metrics are not available: ${err.message || err}` }));
    });
  }

  const server = http.createServer((req, res) => {
    req.resume();
    const path = (req.url || '').split('?')[0];
    if (req.method === 'GET' && path === '/metrics') return serveMetrics(res);
    if (req.method !== 'GET' || path !== '/healthz') {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end('{"error":"Only GET /healthz and GET /metrics are served on this port."}');
    }
    state().then((v) => {
      res.writeHead(v.code, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(v.body));
    }, (err) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'fail', error: String(err.message || err) }));
    });
  });
  server.keepAliveTimeout = 1000;

  function listen() {
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(cfg.healthPort, cfg.host, () => { server.off('error', reject); resolve(server.address().port); });
    });
  }

  async function close() {
    await new Promise((resolve) => server.close(() => resolve()));
    await dependencies.close();
  }

  return { watch, listen, close, state, server };
}

module.exports = { startHeartbeat, createLivenessServer, HEARTBEAT_MS, WORKER_STALL_MS };
