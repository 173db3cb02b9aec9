'use strict';
// GET /healthz (CONTRACTS.md): 200 {"status":"ok","components":{...}} or 503 with
// the failing part named. Aggregates MySQL, memcached, MongoDB and the engine
// (ENGINE_URL/healthz), cached for 1.5 s per worker. GET /healthz?scope=self
// checks only what this webapp cannot serve a page without (MySQL; memcached is
// reported there too, as degraded only):
// it is the right target for HAProxy's check of the webapp backend, so a busy
// engine or a stopped MongoDB never takes the webapp out of rotation.
const express = require('express');
const { MongoClient } = require('mongodb');

const CACHE_MS = 1500;

function withTimeout(p, ms, what) {
  let t;
  return Promise.race([p, new Promise((_, rej) => { t = setTimeout(() => rej(new Error(`${what} did not answer within ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(t));
}

module.exports = function healthRoutes({ db, mc, cfg }) {
  const r = express.Router();
  let mongo = null;
  const cache = new Map();

  async function check(name, fn) {
    const t0 = Date.now();
    try {
      const detail = await withTimeout(fn(), 2000, name);
      return [name, { status: 'ok', ms: Date.now() - t0, ...(detail && typeof detail === 'object' ? detail : {}) }];
    } catch (err) {
      return [name, { status: 'fail', ms: Date.now() - t0, error: String(err.message || err) }];
    }
  }

  const checks = {
    mysql: () => db.ping().then(() => null),
    memcached: () => mc.version().then(() => null),
    mongodb: async () => {
      if (!mongo) mongo = new MongoClient(cfg.mongoUrl, { serverSelectionTimeoutMS: 1500, connectTimeoutMS: 1500, maxPoolSize: 1 });
      try {
        await mongo.db().command({ ping: 1 });
      } catch (err) {
        // a client whose topology closed (MongoDB restarted) never recovers: start afresh next time
        const old = mongo;
        mongo = null;
        old.close().catch(() => {});
        throw err;
      }
      return null;
    },
    engine: async () => {
      const res = await fetch(`${cfg.engineUrl}/healthz`, { signal: AbortSignal.timeout(1500), headers: { accept: 'application/json' } });
      if (res.status !== 200) throw new Error(`engine answered ${res.status}`);
      const body = await res.json().catch(() => ({}));
      return body && body.components ? { components: body.components } : null;
    },
  };

  // memcached is reported but never fails the answer: sessions are read from MariaDB
  // while it is away (shared/session.js), so its restart takes no server out of rotation.
  const DEGRADED_ONLY = new Set(['memcached']);

  async function run(scope) {
    const names = scope === 'self' ? ['mysql', 'memcached'] : Object.keys(checks);
    const hit = cache.get(scope);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.value;
    const results = Object.fromEntries(await Promise.all(names.map((n) => check(n, checks[n]))));
    const failing = names.filter((n) => results[n].status !== 'ok' && !DEGRADED_ONLY.has(n));
    const value = {
      code: failing.length ? 503 : 200,
      body: { status: failing.length ? 'fail' : 'ok', ...(failing.length ? { failing } : {}), components: results, worker: process.pid },
    };
    cache.set(scope, { at: Date.now(), value });
    return value;
  }

  r.get('/', async (req, res) => {
    const v = await run(req.query.scope === 'self' ? 'self' : 'all');
    res.status(v.code).set('Cache-Control', 'no-store').json(v.body);
  });
  return r;
};
