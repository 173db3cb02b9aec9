'use strict';
// One memcached client per worker with a fixed pool of persistent connections
// (thesis lesson 1: never a TCP connection per get/set). The pool is opened at
// start-up and idle connections are never closed, so the number of connections
// stays flat after warm-up.
//
// Several nodes (cfg.servers, from MEMCACHED_SERVERS): the client's default key
// distribution is libketama's (MD5, 160 points per node, a node on port 11211 named
// without its port), the one the engine's php-memcached uses with
// OPT_LIBKETAMA_COMPATIBLE, so both find a key on the same node
// (memcached/test.sh checks it on two real nodes). A node that is down is never
// removed from the ring (remove: false): its keys miss, none move to another node.
const Memcached = require('memcached');

function createMemcache(cfg) {
  const servers = cfg.servers && cfg.servers.length ? cfg.servers : [`${cfg.host}:${cfg.port}`];
  const client = new Memcached(servers, {
    poolSize: cfg.poolSize,
    idle: 0,               // never drop idle connections
    timeout: cfg.timeoutMs,
    retries: 2,
    retry: 500,            // after a connection issue, fail fast for 500 ms, then try the server again
    minTimeout: 50,
    maxTimeout: 500,
    // Never let the client declare the server dead: its "reconnect" path spawns
    // `ping` (missing in minimal images, refused to non-root users; the spawn error
    // crashed the worker on a memcached restart). With failures never used up it
    // stays on the retry path above, forever.
    failures: 1e9,
    failuresTimeout: 5000,
    reconnect: 1000,
    remove: false,
    maxValue: 1048576,
    algorithm: 'md5',
    compatibility: 'ketama',
  });

  const unavailable = (cause) => {
    const e = new Error('The session store is not reachable right now. Please retry in a moment.');
    e.unavailable = true;
    e.cause = cause;
    return e;
  };
  // The client can lose the callback of a request in flight when memcached restarts
  // under it (seen: requests hanging until HAProxy's 60 s timeout). Every operation
  // therefore ends by this deadline at the latest, as "unavailable".
  const deadlineMs = cfg.timeoutMs * 2 + 100;
  const p = (fn) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(unavailable(new Error(`no answer within ${deadlineMs} ms`))), deadlineMs);
    fn((err, data) => {
      clearTimeout(timer);
      if (err) reject(unavailable(err instanceof Error ? err : new Error(String(err))));
      else resolve(data);
    });
  });

  const mc = {
    client,
    get: (key) => p((cb) => client.get(key, cb)),
    set: (key, value, ttl) => p((cb) => client.set(key, value, ttl, cb)),
    del: (key) => p((cb) => client.del(key, cb)),
    // true when stored, false when the key exists already (memcached's NOT_STORED)
    add: (key, value, ttl) => p((cb) => client.add(key, value, ttl, (err, ok) => (err && err.notStored ? cb(null, false) : cb(err, ok)))),
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
