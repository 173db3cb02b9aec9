'use strict';
// One memcached client per worker with a fixed pool of persistent connections
// (thesis lesson 1: never a TCP connection per get/set). The pool is opened at
// start-up and idle connections are never closed, so the number of connections
// stays flat after warm-up.
const Memcached = require('memcached');

function createMemcache(cfg) {
  const client = new Memcached(`${cfg.host}:${cfg.port}`, {
    poolSize: cfg.poolSize,
    idle: 0,               // never drop idle connections
    timeout: cfg.timeoutMs,
    retries: 2,
    retry: 500,
    minTimeout: 50,
    maxTimeout: 500,
    failures: 3,
    failuresTimeout: 5000,
    reconnect: 1000,       // retry a dead server every second
    remove: false,
    maxValue: 1048576,
  });

  const p = (fn) => new Promise((resolve, reject) => {
    fn((err, data) => {
      if (err) {
        const e = err instanceof Error ? err : new Error(String(err));
        e.unavailable = true;
        e.message = 'The session store is not reachable right now. Please retry in a moment.';
        e.cause = err;
        reject(e);
      } else resolve(data);
    });
  });

  const mc = {
    client,
    get: (key) => p((cb) => client.get(key, cb)),
    getMulti: (keys) => p((cb) => client.getMulti(keys, cb)),
    set: (key, value, ttl) => p((cb) => client.set(key, value, ttl, cb)),
    add: (key, value, ttl) => new Promise((resolve, reject) => {
      client.add(key, value, ttl, (err) => {
        if (!err) return resolve(true);
        if (/not stored/i.test(String(err.message || err))) return resolve(false);
        const e = new Error('The session store is not reachable right now. Please retry in a moment.');
        e.unavailable = true;
        reject(e);
      });
    }),
    del: (key) => p((cb) => client.del(key, cb)),
    delMulti: (keys) => Promise.all(keys.map((key) => p((cb) => client.del(key, cb)))),
    incr: (key, by = 1) => p((cb) => client.incr(key, by, cb)),
    version: () => p((cb) => client.version(cb)),
    // Open the whole pool now: poolSize requests in parallel each take a connection.
    async warm() {
      await Promise.all(Array.from({ length: cfg.poolSize }, () => mc.get('warmup:ping').catch(() => null)));
    },
    close: () => client.end(),
  };
  return mc;
}

module.exports = { createMemcache };
