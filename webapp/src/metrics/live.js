'use strict';
// The live figures of the admin page (/admin, "Live figures"): read from the same
// Prometheus expositions monitoring/ scrapes (the engine's /metrics, the webapp primary's
// /metrics on the health port, HAProxy's on the stats listener), so the page and Prometheus
// never disagree, and the page needs no Prometheus. Totals are since each service started.

// Prometheus text format 0.0.4 -> [{ name, labels, value }] (comments and bad lines skipped).
function parseExposition(text) {
  const out = [];
  for (const line of String(text).split('\n')) {
    if (!line || line[0] === '#') continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels = {};
    for (const l of (m[2] || '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2].replace(/\\(.)/g, '$1');
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

const sum = (samples, name, match = () => true) => samples.filter((s) => s.name === name && match(s.labels)).reduce((a, s) => a + s.value, 0);

// The upper bound of the bucket holding the q-quantile of a histogram's observations (ms), or null.
function quantileMs(samples, family, q, match = () => true) {
  const byLe = new Map();
  for (const s of samples) if (s.name === `${family}_bucket` && match(s.labels)) byLe.set(s.labels.le, (byLe.get(s.labels.le) || 0) + s.value);
  const buckets = [...byLe].map(([le, n]) => [le === '+Inf' ? Infinity : Number(le), n]).sort((a, b) => a[0] - b[0]);
  const total = buckets.length ? buckets[buckets.length - 1][1] : 0;
  if (!total) return null;
  const hit = buckets.find(([, n]) => n >= q * total);
  return hit && Number.isFinite(hit[0]) ? Math.round(hit[0] * 1000) : null;
}

function createLiveFigures({ cfg, env = process.env, fetchImpl = fetch }) {
  const loopback = (h) => (!h || h === '0.0.0.0' || h === '::' ? '127.0.0.1' : h);
  const urls = {
    engine: `${cfg.engineUrl}/metrics`,
    webapp: `http://${loopback(cfg.host)}:${cfg.healthPort}/metrics`,
    haproxy: `http://${loopback(env.HAPROXY_STATS_BIND)}:${env.HAPROXY_STATS_PORT || 8404}/metrics`,
  };
  async function read(url) {
    try {
      const res = await fetchImpl(url, { headers: { accept: 'text/plain' }, signal: AbortSignal.timeout(3000) });
      return res.ok ? parseExposition(await res.text()) : null;
    } catch { return null; }
  }

  async function figures() {
    const [e, w, h] = await Promise.all([read(urls.engine), read(urls.webapp), read(urls.haproxy)]);
    const slotsLane = (l) => l.lane === 'slots';
    const runs = {};
    if (e) for (const s of e) if (s.name === 'prutor_engine_runs_total' && s.labels.kind !== 'compile') runs[s.labels.verdict] = (runs[s.labels.verdict] || 0) + s.value;
    return {
      at: new Date().toISOString(),
      engine: e && {
        slots: sum(e, 'prutor_engine_slots', slotsLane),
        slotsBusy: sum(e, 'prutor_engine_slots_busy', slotsLane),
        waiting: sum(e, 'prutor_engine_queue_length'),
        refused: sum(e, 'prutor_engine_busy_total'),
        compiles: sum(e, 'prutor_engine_runs_total', (l) => l.kind === 'compile'),
        runs,
        compileP95Ms: quantileMs(e, 'prutor_engine_compile_seconds', 0.95, (l) => l.cache === 'miss'),
        runP95Ms: quantileMs(e, 'prutor_engine_run_seconds', 0.95),
        waitP95Ms: quantileMs(e, 'prutor_engine_slot_wait_seconds', 0.95),
      },
      haproxyQueue: h && sum(h, 'haproxy_backend_current_queue', (l) => l.proxy === 'engine' || l.proxy === 'jobe'),
      webapp: w && {
        requests: sum(w, 'prutor_webapp_http_requests_total'),
        errors5xx: sum(w, 'prutor_webapp_http_requests_total', (l) => /^5/.test(l.status)),
        signinActive: sum(w, 'prutor_webapp_signin_active'),
        signinWaiting: sum(w, 'prutor_webapp_signin_waiting'),
        signinRefused: sum(w, 'prutor_webapp_signin_total', (l) => l.outcome === 'refused' || l.outcome === 'timed_out'),
        loginLimited: sum(w, 'prutor_webapp_http_requests_total', (l) => l.route === '/accounts/login' && l.status === '429'),
        pageP99Ms: quantileMs(w, 'prutor_webapp_http_request_duration_seconds', 0.99, (l) => l.route !== '/accounts/login'),
      },
    };
  }
  return { figures, urls };
}

module.exports = { createLiveFigures, parseExposition, quantileMs };
