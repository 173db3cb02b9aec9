'use strict';
// Admission control for sign-ins (issue 17). A sign-in costs a bcrypt compare
// (~53 ms of a core at cost 10 on a quiet host); a page load or a save about a
// millisecond. At an exam's start (the thesis: 21 sign-ins/s) unbounded sign-ins
// would take every core and slow everything, so the bcrypt compares of a worker
// run at most SIGNIN_CONCURRENCY at once and the others wait in a FIFO queue,
// while page loads, saves and the rest of each sign-in (one query, the session)
// go on. Only the compare is gated: a sign-in waiting for the event loop must not
// keep the hashing slot idle.
//
// The queue is bounded by the wait it would mean: a sign-in arriving when the
// estimated wait (compares ahead x the recent time per compare / concurrency) is
// over SIGNIN_MAX_WAIT_S, or when SIGNIN_MAX_QUEUE are waiting, is refused at the
// door with 503 and Retry-After, before any query or hash (the login page retries
// by itself after that); one that has waited SIGNIN_MAX_WAIT_S in the
// queue anyway (the estimate was wrong) gets the same 503.
//
// Hooks (app.js): `app.post('/accounts/login', gate.middleware)` in front of the
// accounts router, and the accounts service compares with `gate.verifyPassword`.
const bcrypt = require('bcrypt');
const { wantsJson, unavailable } = require('../shared/errors');
const { safeLocalPath } = require('../shared/auth');
const { loginPage } = require('../accounts/views');

const EWMA_WEIGHT = 0.2;
const MIN_RETRY_AFTER_S = 2;
const MAX_RETRY_AFTER_S = 60;
const BUSY = 'Many students are signing in at once.';

function createSigninGate({ concurrency = 1, maxWaitMs = 30000, maxQueue = 500, initialCostMs = 60, compare = bcrypt.compare, refuse = answerBusy } = {}) {
  let active = 0;
  let costMs = initialCostMs; // moving average of one compare, start to end
  const queue = [];           // waiting: { start, timer }
  const stats = { compared: 0, queued: 0, refused: 0, timedOut: 0, maxQueued: 0 };

  const estimateWaitMs = (ahead) => Math.ceil(ahead / concurrency) * costMs;
  const retryAfterS = (waitMs) => Math.min(MAX_RETRY_AFTER_S, Math.max(MIN_RETRY_AFTER_S, Math.ceil(waitMs / 1000)));

  // At the door: refuse at once what would wait too long.
  function middleware(req, res, next) {
    const ahead = queue.length + (active >= concurrency ? 1 : 0);
    const waitMs = estimateWaitMs(ahead);
    if (ahead === 0 || (queue.length < maxQueue && waitMs <= maxWaitMs)) return next();
    stats.refused++;
    const s = retryAfterS(waitMs);
    res.set('Retry-After', String(s));
    return refuse(req, res, s);
  }

  function release() {
    active--;
    const nextUp = queue.shift();
    if (nextUp) { clearTimeout(nextUp.timer); nextUp.start(); }
  }

  // One compare through the gate: resolves with bcrypt's answer, or rejects with a
  // 503 (code busy, retryAfter) after waiting maxWaitMs for a slot.
  function verifyPassword(password, hash) {
    return new Promise((resolve, reject) => {
      const start = () => {
        active++;
        stats.compared++;
        const t0 = process.hrtime.bigint();
        Promise.resolve().then(() => compare(password, hash)).then(resolve, reject).finally(() => {
          costMs += EWMA_WEIGHT * (Number(process.hrtime.bigint() - t0) / 1e6 - costMs);
          release();
        });
      };
      if (active < concurrency && queue.length === 0) return start();
      const entry = {
        start,
        timer: setTimeout(() => {
          const i = queue.indexOf(entry);
          if (i < 0) return;
          queue.splice(i, 1);
          stats.timedOut++;
          reject(unavailable(`${BUSY} Please sign in again in a few seconds.`, {
            code: 'busy', retryAfter: retryAfterS(estimateWaitMs(queue.length)),
          }));
        }, maxWaitMs).unref(), // a draining worker finishes its queue; the timer alone never holds it
      };
      queue.push(entry);
      stats.queued++;
      stats.maxQueued = Math.max(stats.maxQueued, queue.length);
    });
  }

  return {
    middleware,
    verifyPassword,
    state: () => ({ active, waiting: queue.length, costMs: Math.round(costMs), ...stats }),
  };
}

// The refusal at the door: JSON for the login page's script (which waits
// Retry-After seconds and signs in again by itself), the login page with a
// sentence for a plain form post.
function answerBusy(req, res, retryAfter) {
  res.status(503).set('Cache-Control', 'no-store');
  if (wantsJson(req)) {
    return res.json({ error: `${BUSY} Trying again in ${retryAfter} seconds.`, code: 'busy', retry_after: retryAfter });
  }
  const body = req.body || {};
  const username = typeof body.username === 'string' ? body.username.slice(0, 64) : '';
  return res.type('html').send(String(loginPage(req, {
    error: `${BUSY} Please press Sign in again in ${retryAfter} seconds.`, username, next: safeLocalPath(body.next) || '',
  })));
}

module.exports = { createSigninGate, answerBusy };
