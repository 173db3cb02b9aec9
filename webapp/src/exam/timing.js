'use strict';
// GET /exam/timing/:eventId -> {"v": <version>}: the event's timing version
// (event_timing, bumped by triggers when a schedule, slot, extra time or the
// publication changes). Open editors poll it and fetch their own deadline only
// when it moves. Built to be cheap at 5,000 students polling: mounted before the
// session middleware (no memcached get; the number is not a secret), and each
// worker asks MySQL at most once per CACHE_MS per event, sharing one query among
// concurrent callers.
// A change made on this node (a pause, a resume, a common start) clears every
// worker's cache at once (shared/siblings.js), so its students learn of it on their
// next poll; other replicas within CACHE_MS.
const express = require('express');
const siblings = require('../shared/siblings');

const CACHE_MS = 2000;
const CHANGED_TOPIC = 'timing:changed';

function createTimingCache({ db, cacheMs = CACHE_MS }) {
  const cache = new Map(); // eventId -> { at, value: Promise<number> }
  function version(eventId) {
    const hit = cache.get(eventId);
    const now = Date.now();
    if (hit && now - hit.at < cacheMs) return hit.value;
    const value = db.query('SELECT version FROM event_timing WHERE event_id = ?', [eventId])
      .then((rows) => (rows[0] ? Number(rows[0].version) : 0));
    value.catch(() => cache.delete(eventId));
    cache.set(eventId, { at: now, value });
    if (cache.size > 10000) cache.delete(cache.keys().next().value);
    return value;
  }
  return { version, clear: () => cache.clear() };
}

function timingRoutes({ db }) {
  const timing = createTimingCache({ db });
  siblings.on(CHANGED_TOPIC, async () => timing.clear());
  const r = express.Router();
  r.get('/:eventId', async (req, res) => {
    const id = String(req.params.eventId);
    if (!/^[1-9]\d{0,9}$/.test(id)) return res.status(404).json({ error: 'No such event.' });
    res.set('Cache-Control', 'no-store').json({ v: await timing.version(Number(id)) });
  });
  return r;
}

module.exports = { timingRoutes, createTimingCache, CHANGED_TOPIC };
