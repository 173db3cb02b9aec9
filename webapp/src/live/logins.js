'use strict';
// users.last_login_at: the sign-in path does not write it (one query per login,
// thesis lesson 3), so successful sign-ins are collected here and written in one
// batched UPDATE per second per worker. Installed in front of the accounts
// router; it only watches the answer of POST /accounts/login.
function createLoginTracker({ db, flushMs = 1000, log = console }) {
  let pending = new Set();
  let timer = null;
  let flushing = null;

  async function flush() {
    if (!pending.size) return;
    const ids = [...pending];
    pending = new Set();
    for (let i = 0; i < ids.length; i += 1000) {
      const part = ids.slice(i, i + 1000);
      try {
        await db.text('UPDATE users SET last_login_at = UTC_TIMESTAMP(3) WHERE id IN (?)', [part]);
      } catch (e) {
        log.error(`[webapp ${process.pid}] last_login_at update failed (${part.length} users): ${e.message}`);
      }
    }
  }

  function schedule() {
    if (timer) return;
    timer = setTimeout(() => { timer = null; flushing = flush().finally(() => { flushing = null; }); }, flushMs);
    timer.unref();
  }

  function middleware(req, res, next) {
    if (req.method === 'POST' && req.path === '/login') {
      res.on('finish', () => {
        const ok = res.statusCode === 302 || res.statusCode === 200;
        if (ok && req.session && req.session.uid) { pending.add(req.session.uid); schedule(); }
      });
    }
    next();
  }

  async function close() {
    if (timer) { clearTimeout(timer); timer = null; }
    if (flushing) await flushing;
    await flush();
  }

  return { middleware, flush, close, pendingCount: () => pending.size };
}

module.exports = { createLoginTracker };
