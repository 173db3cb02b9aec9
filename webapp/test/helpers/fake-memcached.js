'use strict';
// An in-process stand-in for the `memcached` client's callback API (get, set, add,
// incr, decr, del with lifetimes in seconds), answering on a later turn of the event
// loop as the real one does, so that concurrent callers interleave. For unit tests of
// code that keeps counters in memcached (accounts/ratelimit.js through
// rate-limiter-flexible); the API tests use the real server.
function createFakeMemcached() {
  const items = new Map(); // key -> { value, until }
  const live = (key) => {
    const it = items.get(key);
    if (it && it.until && it.until <= Date.now()) items.delete(key);
    return items.get(key);
  };
  const later = (cb, ...args) => setImmediate(() => cb(...args));
  const store = (key, value, lifetime) => items.set(key, { value, until: lifetime > 0 ? Date.now() + lifetime * 1000 : 0 });
  const client = {
    get(key, cb) { const it = live(key); later(cb, null, it ? it.value : undefined); },
    set(key, value, lifetime, cb) { store(key, value, lifetime); later(cb, null, true); },
    add(key, value, lifetime, cb) {
      if (live(key)) { const err = new Error('Item is not stored'); err.notStored = true; return later(cb, err, false); }
      store(key, value, lifetime);
      return later(cb, null, true);
    },
    incr(key, by, cb) {
      const it = live(key);
      if (!it) return later(cb, null, false);
      if (by < 0) return later(cb, new Error('invalid numeric delta argument'), false); // as memcached answers
      it.value = Number(it.value) + by;
      return later(cb, null, it.value);
    },
    decr(key, by, cb) {
      const it = live(key);
      if (!it) return later(cb, null, false);
      it.value = Math.max(0, Number(it.value) - by);
      return later(cb, null, it.value);
    },
    del(key, cb) { const had = items.delete(key); later(cb, null, had); },
  };
  return { client, items };
}

module.exports = { createFakeMemcached };
