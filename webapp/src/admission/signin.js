'use strict';
// Admission control for sign-ins (issue 17). A sign-in costs a bcrypt compare
// (~53 ms of a core at cost 10); a page load or a save costs about a millisecond.
// At an exam's start (the thesis: 21 sign-ins/s) unbounded sign-ins would take
// every core and slow everything. So each worker runs at most SIGNIN_CONCURRENCY
// sign-ins at once; the others wait in a FIFO queue while page loads and saves go
// on. The queue is bounded by the wait it would mean: when the estimated wait
// (sign-ins ahead x the recent time per sign-in / concurrency) is over
// SIGNIN_MAX_WAIT_S, or SIGNIN_MAX_QUEUE are waiting, the sign-in is refused at
// once with 503 and Retry-After (the login page retries by itself then); one that
// has waited SIGNIN_MAX_WAIT_S anyway (the estimate was wrong) is refused too.
// A client that gives up while queued leaves the queue.
//
// Hook (app.js): app.post('/accounts/login', admission.middleware) before the
// accounts router.

const { wantsJson } = require('../shared/errors');
const { safeLocalPath } = require('../shared/auth');
const { loginPage } = require('../accounts/views');

const EWMA_WEIGHT = 0.2;
const MIN_RETRY_AFTER_S = 2;
const MAX_RETRY_AFTER_S = 60;

function createSigninAdmission({ concurrency = 1, maxWaitMs = 20000, maxQueue = 500, initialCostMs = 80, refuse = answerBusy }) {
  let active = 0;
  let costMs = initialCostMs; // moving average of one admitted sign-in, start to answer
  const queue = [];           // waiting: { admit, timer }
  const stats = { admitted: 0, queued: 0, refused: 0, maxQueued: 0 };

  const estimateWaitMs = (ahead) => Math.ceil(ahead / concurrency) * costMs;
  const retryAfterS = (waitMs) => Math.min(MAX_RETRY_AFTER_S, Math.max(MIN_RETRY_AFTER_S, Math.ceil(waitMs / 1000)));

  function release() {
    active--;
    const nextUp = queue.shift();
    if (nextUp) nextUp.admit();
  }

  function run(req, res, next) {
    active++;
    stats.admitted++;
    const t0 = process.hrtime.bigint();
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      costMs += EWMA_WEIGHT * (Number(process.hrtime.bigint() - t0) / 1e6 - costMs);
      release();
    };
    res.once('finish', finish);
    res.once('close', finish);
    next();
  }

  function turnAway(req, res, waitMs) {
    stats.refused++;
    res.set('Retry-After', String(retryAfterS(waitMs)));
    refuse(req, res, retryAfterS(waitMs));
  }

  function middleware(req, res, next) {
    if (active < concurrency && queue.length === 0) return run(req, res, next);
    const waitMs = estimateWaitMs(queue.length + 1);
    if (queue.length >= maxQueue || waitMs > maxWaitMs) return turnAway(req, res, waitMs);
    const entry = {
      admit: () => {
        clearTimeout(entry.timer);
        res.off('close', entry.gone);
        run(req, res, next);
      },
      gone: () => { // the client went away before its turn
        const i = queue.indexOf(entry);
        if (i >= 0) { queue.splice(i, 1); clearTimeout(entry.timer); }
      },
      timer: setTimeout(() => {
        const i = queue.indexOf(entry);
        if (i < 0) return;
        queue.splice(i, 1);
        res.off('close', entry.gone);
        turnAway(req, res, estimateWaitMs(queue.length));
      }, maxWaitMs).unref(), // a draining worker finishes its queue; the timer alone never holds it
    };
    // the response closes before it is written only when the client disconnects
    res.once('close', entry.gone);
    queue.push(entry);
    stats.queued++;
    stats.maxQueued = Math.max(stats.maxQueued, queue.length);
  }

  return {
    middleware,
    state: () => ({ active, waiting: queue.length, costMs: Math.round(costMs), ...stats }),
  };
}

// The refusal: JSON for the login page's script (which waits Retry-After seconds
// and signs in again by itself), the login page with a sentence for a plain form post.
function answerBusy(req, res, retryAfter) {
  res.status(503).set('Cache-Control', 'no-store');
  if (wantsJson(req)) {
    return res.json({ error: `Many students are signing in at once; trying again in ${retryAfter} seconds.`, code: 'busy', retry_after: retryAfter });
  }
  const body = req.body || {};
  const username = typeof body.username === 'string' ? body.username.slice(0, 64) : '';
  const next = safeLocalPath(body.next) || '';
  return res.type('html').send(String(loginPage(req, {
    error: `Many students are signing in at once. Please press Sign in again in ${retryAfter} seconds.`, username, next,
  })));
}

module.exports = { createSigninAdmission, answerBusy };
