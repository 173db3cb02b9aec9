'use strict';
// Starts the webapp: a cluster primary forks WEB_WORKERS workers sharing one
// port (WEB_WORKERS=0 runs a single process, handy for debugging). A worker that
// dies is replaced; SIGTERM/SIGINT drains (stop accepting, finish requests in
// flight, close pools) and exits. The primary also ships telemetry to MongoDB.
const cluster = require('node:cluster');
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const { loadConfig } = require('./config');

const EXIT_CANNOT_LISTEN = 98;
const RETIRE_DRAIN_MS = 6000; // > HAProxy's pool-purge-delay (5 s): idle server connections get closed by HAProxy

let cfg;
try {
  cfg = loadConfig();
} catch (err) {
  console.error(`[webapp] ${err.message}`);
  process.exit(78); // EX_CONFIG: supervisord should not restart-loop on it
}

function startShipper() {
  const { createShipper } = require('./telemetry/shipper');
  const shipper = createShipper({ mongoUrl: cfg.mongoUrl, varDir: cfg.varDir, ...cfg.telemetry });
  if (cfg.telemetry.enabled) shipper.start();
  return shipper;
}

// HAProxy's health check target (health/primary.js): answered here, never behind a worker's queue.
function startLiveness(clusterRef) {
  const { createLivenessServer } = require('./health/primary');
  const liveness = createLivenessServer({ cfg, cluster: clusterRef });
  liveness.listen().catch((err) => {
    console.error(`[webapp] cannot listen for health checks on ${cfg.host}:${cfg.healthPort}: ${err.message}`);
    process.exit(1);
  });
  return liveness;
}

function startGrader() {
  const grader = require('./exam/grader').createGrader({ cfg });
  grader.start();
  return grader;
}

function runPrimary() {
  const siblings = require('./shared/siblings');
  const shipper = startShipper();
  const liveness = startLiveness(cluster);
  const grader = startGrader();
  let stopping = false;
  const restarts = [];
  console.log(`[webapp] primary ${process.pid}: ${cfg.workers} workers on ${cfg.host}:${cfg.port}`);

  const fork = () => {
    const w = cluster.fork();
    liveness.watch(w);
    siblings.relay(cluster, w);
    w.on('message', (m) => {
      if (!m || m.type !== 'telemetry') return;
      for (const event of Array.isArray(m.events) ? m.events : [m.event]) if (event) shipper.push(event);
    });
    return w;
  };
  for (let i = 0; i < cfg.workers; i++) fork();

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    if (retiring.delete(worker.id)) return; // retired on purpose by a tuning reload (below)
    if (code === EXIT_CANNOT_LISTEN) {
      // the port is taken or not allowed: restarting workers cannot help
      console.error(`[webapp] cannot listen on ${cfg.host}:${cfg.port}; stopping`);
      stopping = true;
      for (const w of Object.values(cluster.workers)) w.process.kill('SIGTERM');
      shipper.stop().finally(() => process.exit(1));
      return;
    }
    console.error(`[webapp] worker ${worker.process.pid} died (${signal || code}); starting a new one`);
    const now = Date.now();
    restarts.push(now);
    while (restarts.length && now - restarts[0] > 60000) restarts.shift();
    // a crash loop (e.g. the port is taken) is slowed down, not hammered
    setTimeout(fork, restarts.length > 10 ? 5000 : 100);
  });

  // tuning/ (issue 7): SIGHUP re-reads WEB_WORKERS, DB_POOL_SIZE and MEMCACHED_POOL_SIZE from the
  // active tuning profile (tuning/profile.env, or TUNING_PROFILE_ENV) and rolls the workers: the new
  // ones start first; once they all listen, the old ones are disconnected (they stop accepting and
  // finish the requests in flight), so no request is dropped. State: $PRUTOR_VAR/run/webapp-tuning.<port>.json.
  const retiring = new Set();
  let rolling = false;
  let rollAgain = false;
  const tuningState = (state) => {
    try {
      fs.writeFileSync(path.join(cfg.varDir, 'run', `webapp-tuning.${cfg.port}.json`), JSON.stringify({
        state, pid: process.pid, WEB_WORKERS: cfg.workers, DB_POOL_SIZE: cfg.db.poolSize,
        MEMCACHED_POOL_SIZE: cfg.memcached.poolSize, at: new Date().toISOString() }));
    } catch { /* best effort: the runtime folder may be absent in tests */ }
  };
  const readProfile = () => {
    const file = process.env.TUNING_PROFILE_ENV || path.join(__dirname, '..', '..', 'tuning', 'profile.env');
    const next = { ...process.env };
    const re = /^\s*(?:export\s+)?(WEB_WORKERS|DB_POOL_SIZE|MEMCACHED_POOL_SIZE)=["']?(\d+)["']?\s*(?:#.*)?$/;
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      const m = re.exec(line);
      if (m) next[m[1]] = m[2];
    }
    return next;
  };
  const roll = async () => {
    if (rolling) { rollAgain = true; return; }
    rolling = true;
    try {
      const env = readProfile();
      const nextCfg = loadConfig(env);
      if (nextCfg.workers < 1) throw new Error('WEB_WORKERS must be at least 1 in cluster mode');
      for (const k of ['WEB_WORKERS', 'DB_POOL_SIZE', 'MEMCACHED_POOL_SIZE']) if (env[k] !== undefined) process.env[k] = env[k];
      cfg = nextCfg;
    } catch (err) {
      console.error(`[webapp] SIGHUP: profile not applied: ${err.message}`);
      rolling = false;
      return;
    }
    tuningState('rolling');
    console.log(`[webapp] SIGHUP: rolling to ${cfg.workers} workers (db pool ${cfg.db.poolSize})`);
    const old = Object.values(cluster.workers).filter((w) => !retiring.has(w.id));
    const fresh = Array.from({ length: cfg.workers }, () => fork());
    await Promise.all(fresh.map((w) => new Promise((resolve) => {
      w.once('listening', resolve);
      w.once('exit', resolve);
      setTimeout(resolve, 30000).unref();
    })));
    for (const w of old) {
      retiring.add(w.id);
      w.disconnect();
      setTimeout(() => { if (!w.isDead()) w.process.kill('SIGTERM'); }, RETIRE_DRAIN_MS + cfg.shutdownGraceMs + 5000).unref();
    }
    await new Promise((resolve) => {
      const check = () => (old.every((w) => w.isDead()) ? resolve() : setTimeout(check, 100));
      check();
    });
    rolling = false;
    tuningState('ready');
    console.log(`[webapp] SIGHUP: ${cfg.workers} workers ready`);
    if (rollAgain) { rollAgain = false; roll(); }
  };
  process.on('SIGHUP', () => { if (!stopping) roll(); });
  tuningState('ready');

  const shutdown = async (sig) => {
    if (stopping) return;
    stopping = true;
    console.log(`[webapp] ${sig}: draining workers`);
    for (const w of Object.values(cluster.workers)) w.process.kill('SIGTERM');
    const deadline = setTimeout(() => {
      for (const w of Object.values(cluster.workers)) w.process.kill('SIGKILL');
    }, cfg.shutdownGraceMs + 2000);
    deadline.unref();
    await new Promise((resolve) => {
      const check = () => (Object.keys(cluster.workers).length === 0 ? resolve() : setTimeout(check, 50));
      check();
    });
    await Promise.allSettled([shipper.stop(), grader.stop(), liveness.close()]);
    console.log('[webapp] stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

const SESSION_PURGE_MS = 10 * 60 * 1000;

async function runWorker(localShipper, liveness) {
  const { createDb } = require('./shared/db');
  const { createMemcache } = require('./shared/memcache');
  const { createRecorder } = require('./telemetry/recorder');
  const { createApp } = require('./app');

  const db = createDb(cfg.db);
  const mc = createMemcache(cfg.memcached);
  const telemetry = createRecorder({ enabled: cfg.telemetry.enabled, localShipper });
  const app = createApp({ cfg, db, mc, telemetry });
  await mc.warm();
  // The durable session copies expire by time; a worker now and then deletes the old rows.
  const purge = setInterval(() => { app.locals.deps.sessions.purgeExpired().catch(() => {}); }, SESSION_PURGE_MS + Math.random() * 60000);
  purge.unref();

  const server = http.createServer(app);
  server.keepAliveTimeout = 65000;  // longer than HAProxy's http-keep-alive
  server.headersTimeout = 66000;
  server.requestTimeout = 120000;
  server.listen(cfg.port, cfg.host, () => {
    if (!cluster.isWorker) console.log(`[webapp] ${process.pid} listening on ${cfg.host}:${cfg.port}`);
  });
  server.on('error', (err) => {
    console.error(`[webapp] worker ${process.pid}: cannot listen on ${cfg.host}:${cfg.port}: ${err.message}`);
    process.exit(EXIT_CANNOT_LISTEN);
  });

  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => process.exit(0), cfg.shutdownGraceMs);
    force.unref();
    server.close(async () => {
      telemetry.flush(); // what the last requests recorded, before the IPC channel closes
      await Promise.allSettled([db.close(), Promise.resolve(mc.close()), liveness && liveness.close()]);
      if (localShipper) await localShipper.stop().catch(() => {});
      process.exit(0);
    });
    server.closeIdleConnections();
    // keep-alive sockets that are busy close after their current response
    server.on('request', (req, res) => res.setHeader('Connection', 'close'));
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  if (cluster.isWorker) {
    require('./health/primary').startHeartbeat();
    process.on('disconnect', () => {
      // Retired by a tuning reload (or the primary is gone): the listening handle is already closed.
      // Keep answering on the open keep-alive connections, each answer with Connection: close, for
      // RETIRE_DRAIN_MS before the normal shutdown: closing an idle connection at once races HAProxy
      // sending the next request on it (the client sees the connection dropped).
      if (stopping) return;
      server.on('request', (req, res) => res.setHeader('Connection', 'close'));
      setTimeout(shutdown, RETIRE_DRAIN_MS);
    });
  }
}

process.on('unhandledRejection', (err) => {
  console.error(`[webapp] ${process.pid} unhandled rejection:`, err);
});

if (cluster.isPrimary && cfg.workers > 0) {
  runPrimary();
} else {
  // WEB_WORKERS=0: one process serves pages and answers the health check itself
  const local = cluster.isPrimary ? startShipper() : null;
  runWorker(local, cluster.isPrimary ? startLiveness(null) : null).catch((err) => {
    console.error(`[webapp] ${process.pid} failed to start: ${err.stack || err}`);
    process.exit(1);
  });
}
