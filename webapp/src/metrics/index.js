'use strict';
// The webapp's Prometheus metrics (prom-client). Each worker counts its own requests and
// reads its sign-in gate; the cluster primary answers GET /metrics on WEBAPP_HEALTH_PORT
// (127.0.0.1, never routed by HAProxy) with every worker's figures aggregated
// (prom-client's AggregatorRegistry: counters and histograms summed, the gauges below
// summed too). With WEB_WORKERS=0 the single process answers from its own registry.
//
//   prutor_webapp_http_requests_total{route,method,status}   requests answered
//   prutor_webapp_http_request_duration_seconds{route}       their latency (histogram)
//   prutor_webapp_signin_active / _waiting                   bcrypt compares running / queued now
//   prutor_webapp_signin_total{outcome}                      compared, queued, refused (503 at the
//                                                            door), timed_out (503 after waiting)
// plus prom-client's process and Node.js defaults (CPU, memory, event-loop lag) per worker.
// Fingerprinted static assets (served before the middleware) are not counted.
//
// The route label is the Express route that answered (its mount path and pattern, e.g.
// "/editor/:id"), never the raw URL, so the number of series stays bounded.
const client = require('prom-client');

const register = client.register;
let gate = null; // the sign-in gate whose state the gauges read (the last createApp's)
let made = null;

function make() {
  if (made) return made;
  // a worker answers the primary's requests for its figures (prom-client's cluster messages)
  if (require('node:cluster').isWorker) new client.AggregatorRegistry();
  client.collectDefaultMetrics({ register });
  const requests = new client.Counter({
    name: 'prutor_webapp_http_requests_total',
    help: 'HTTP requests answered, by route, method and status.',
    labelNames: ['route', 'method', 'status'],
  });
  const latency = new client.Histogram({
    name: 'prutor_webapp_http_request_duration_seconds',
    help: 'Time from a request\'s arrival to its answer\'s last byte, by route.',
    labelNames: ['route'],
    // pages and saves take ms; sign-ins wait for bcrypt (tens of ms each, queued)
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  });
  const state = () => (gate ? gate.state() : { active: 0, waiting: 0, compared: 0, queued: 0, refused: 0, timedOut: 0 });
  new client.Gauge({
    name: 'prutor_webapp_signin_active',
    help: 'Sign-in password compares (bcrypt) running now.',
    aggregator: 'sum',
    collect() { this.set(state().active); },
  });
  new client.Gauge({
    name: 'prutor_webapp_signin_waiting',
    help: 'Sign-ins waiting in the queue for a compare now.',
    aggregator: 'sum',
    collect() { this.set(state().waiting); },
  });
  // the gate keeps running totals; the counter advances by what changed since the last scrape
  const seen = { compared: 0, queued: 0, refused: 0, timedOut: 0 };
  new client.Counter({
    name: 'prutor_webapp_signin_total',
    help: 'Sign-ins by what the gate did: compared, queued, refused (503 at the door), timed_out (503 after waiting).',
    labelNames: ['outcome'],
    collect() {
      const s = state();
      for (const [k, label] of [['compared', 'compared'], ['queued', 'queued'], ['refused', 'refused'], ['timedOut', 'timed_out']]) {
        const now = s[k] || 0;
        this.inc({ outcome: label }, Math.max(0, now - seen[k]));
        seen[k] = Math.max(seen[k], now);
      }
    },
  });
  made = { requests, latency };
  return made;
}

function routeOf(req) {
  if (req.route) {
    const p = Array.isArray(req.route.path) ? req.route.path[0] : req.route.path;
    const tail = p instanceof RegExp ? '(pattern)' : String(p);
    // a router's own "/" is its mount path: "/home", not "/home/"
    return (req.baseUrl && tail === '/' ? req.baseUrl : `${req.baseUrl || ''}${tail}`) || '/';
  }
  // answered by middleware (static files, a router's error) or by nothing (404)
  return req.baseUrl || '(unmatched)';
}

// Express middleware: counts and times every request when its answer is done.
function requestMetrics() {
  const { requests, latency } = make();
  return (req, res, next) => {
    const t0 = process.hrtime.bigint();
    res.once('finish', () => {
      const route = routeOf(req);
      requests.inc({ route, method: req.method, status: String(res.statusCode) });
      latency.observe({ route }, Number(process.hrtime.bigint() - t0) / 1e9);
    });
    next();
  };
}

function watchSignin(signinGate) { make(); gate = signinGate; }

// In the primary: the cluster's workers' figures in one exposition. Without workers: our own.
function createClusterMetrics(cluster) {
  if (!cluster) {
    make();
    return { contentType: register.contentType, text: () => register.metrics() };
  }
  const aggregator = new client.AggregatorRegistry();
  return { contentType: aggregator.contentType, text: () => aggregator.clusterMetrics() };
}

module.exports = { requestMetrics, watchSignin, createClusterMetrics, routeOf };
