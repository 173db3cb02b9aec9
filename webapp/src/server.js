'use strict';
// Starts the webapp: a cluster primary forks WEB_WORKERS workers sharing one
// port (WEB_WORKERS=0 runs a single process, handy for debugging). A worker that
// dies is replaced; SIGTERM/SIGINT drains (stop accepting, finish requests in
// flight, close pools) and exits. The primary also ships telemetry to MongoDB.
const cluster = require('node:cluster');
const http = require('node:http');
const { loadConfig } = require('./config');

const EXIT_CANNOT_LISTEN = 98;

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

function runPrimary() {
  const shipper = startShipper();
  let stopping = false;
  const restarts = [];
  console.log(`[webapp] primary ${process.pid}: ${cfg.workers} workers on ${cfg.host}:${cfg.port}`);

  const fork = () => {
    const w = cluster.fork();
    w.on('message', (m) => { if (m && m.type === 'telemetry' && m.event) shipper.push(m.event); });
    return w;
  };
  for (let i = 0; i < cfg.workers; i++) fork();

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
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
    await shipper.stop().catch(() => {});
    console.log('[webapp] stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

async function runWorker(localShipper) {
  const { createDb } = require('./shared/db');
  const { createMemcache } = require('./shared/memcache');
  const { createRecorder } = require('./telemetry/recorder');
  const { createApp } = require('./app');

  const db = createDb(cfg.db);
  const mc = createMemcache(cfg.memcached);
  const telemetry = createRecorder({ enabled: cfg.telemetry.enabled, localShipper });
  const app = createApp({ cfg, db, mc, telemetry });
  await mc.warm();

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
      await Promise.allSettled([db.close(), Promise.resolve(mc.close())]);
      if (localShipper) await localShipper.stop().catch(() => {});
      process.exit(0);
    });
    server.closeIdleConnections();
    // keep-alive sockets that are busy close after their current response
    server.on('request', (req, res) => res.setHeader('Connection', 'close'));
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  if (cluster.isWorker) process.on('disconnect', shutdown);
}

process.on('unhandledRejection', (err) => {
  console.error(`[webapp] ${process.pid} unhandled rejection:`, err);
});

if (cluster.isPrimary && cfg.workers > 0) {
  runPrimary();
} else {
  const local = cluster.isPrimary ? startShipper() : null;
  runWorker(local).catch((err) => {
    console.error(`[webapp] ${process.pid} failed to start: ${err.stack || err}`);
    process.exit(1);
  });
}
