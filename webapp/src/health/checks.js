'use strict';
// One dependency check = a function that resolves (ok) or throws (fail); each runs
// under a timeout and reports its time. Shared by the workers' /healthz and the
// primary's liveness answer (primary.js).

function withTimeout(p, ms, what) {
  let t;
  return Promise.race([p, new Promise((_, rej) => { t = setTimeout(() => rej(new Error(`${what} did not answer within ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(t));
}

async function check(name, fn, timeoutMs) {
  const t0 = Date.now();
  try {
    const detail = await withTimeout(fn(), timeoutMs, name);
    return [name, { status: 'ok', ms: Date.now() - t0, ...(detail && typeof detail === 'object' ? detail : {}) }];
  } catch (err) {
    return [name, { status: 'fail', ms: Date.now() - t0, error: String(err.message || err) }];
  }
}

// checkAll({name: fn, ...}, timeoutMs) -> {name: {status, ms, error?}, ...}, all in parallel
async function checkAll(checks, timeoutMs) {
  return Object.fromEntries(await Promise.all(Object.entries(checks).map(([n, fn]) => check(n, fn, timeoutMs))));
}

// memcached is reported but never fails an answer: sessions are read from MariaDB
// while it is away (shared/session.js), so its restart takes no server out of rotation.
const DEGRADED_ONLY = new Set(['memcached']);

module.exports = { checkAll, DEGRADED_ONLY };
