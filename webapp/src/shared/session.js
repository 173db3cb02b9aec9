'use strict';
// Sessions in the exact format shared with the PHP engine (CONTRACTS.md "Session"):
// cookie prutor.sid = <sid>.<sig>, sid = 32 random bytes base64url (43 chars),
// sig = base64url(HMAC-SHA256(SESSION_SECRET, sid)) without padding.
//
// Two stores. memcached `sess:<sid>` (a JSON string, flags 0, TTL SESSION_TTL_S) is
// the fast path: one get per request. MariaDB `sessions` is the durable copy, so a
// memcached restart or eviction signs nobody out: it is written at sign-in and at
// the rare session changes, read only when memcached misses (or is down), and the
// row read is put back into memcached. The row is keyed by base64url(SHA-256(sid))
// and holds the sid only sealed (AES-256-GCM under a key derived from the secret):
// a copy of the database alone opens no session, yet revocation can still find the
// memcached entries to delete. Revoking (sign-out, change of role, password or
// activation) removes both copies. A memcached copy whose delete fails (memcached
// unreachable for a moment) would outlive the revocation, since a memcached hit is
// trusted: it is recorded in MariaDB `session_revocations` (migration 033), and until
// a retried delete succeeds every worker and the engine refuse that hit.
//
// The API other domains use: create(req, res, user), destroy(req, res),
// update(req, patch), revokeUser(uid, {keep}), listUser(uid), middleware.
const crypto = require('node:crypto');
const { unavailable } = require('./errors');
const { outsideRequest } = require('./context');

const COOKIE = 'prutor.sid';
const SID_RE = /^[A-Za-z0-9_-]{43}$/;
// A revoked session read from MariaDB just before its row went can be written back
// into memcached by a request in flight; a second delete this long after ends it.
const REVOKE_SECOND_PASS_MS = 2000;
// Sign-ins of one user run one at a time (see create); one waits for another this long
// at most, and a lock its holder never released (a crash) lapses after LOCK_TTL_S.
const LOCK_WAIT_MS = 5000;
const LOCK_TTL_S = 10;
const LOCK_RETRY_S = 2;
// How often each worker re-reads session_revocations and retries its deletes: the
// longest another worker may still accept a copy whose delete just failed (the engine
// refreshes its copy of the table as often: engine/src/Session.php).
const REVOCATIONS_REFRESH_MS = 2000;
// A recorded revocation is kept for the session TTL plus this margin (clock skew
// between the webapp and MariaDB): by then its memcached copy has expired anyway.
const REVOCATION_MARGIN_S = 60;

function b64url(buf) { return Buffer.from(buf).toString('base64url'); }
function newId() { return b64url(crypto.randomBytes(32)); }
function sign(sid, secret) { return b64url(crypto.createHmac('sha256', secret).update(sid).digest()); }
function storeKey(sid) { return b64url(crypto.createHash('sha256').update(sid).digest()); }

function cookieValue(sid, secret) { return `${sid}.${sign(sid, secret)}`; }

// Returns the sid when the cookie value is well-formed and correctly signed, else null.
function verify(value, secret) {
  if (typeof value !== 'string') return null;
  const dot = value.indexOf('.');
  if (dot !== 43) return null;
  const sid = value.slice(0, 43);
  const sig = value.slice(44);
  if (!SID_RE.test(sid) || !SID_RE.test(sig)) return null;
  const want = Buffer.from(sign(sid, secret));
  const got = Buffer.from(sig);
  if (want.length !== got.length || !crypto.timingSafeEqual(want, got)) return null;
  return sid;
}

function readCookie(header, name) {
  if (!header) return null;
  const parts = header.split(';');
  for (const part of parts) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

function sealer(secret) {
  const key = crypto.createHmac('sha256', secret).update('prutor session seal v1').digest();
  return {
    seal(sid) {
      const iv = crypto.randomBytes(12);
      const c = crypto.createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([c.update(sid, 'utf8'), c.final()]);
      return b64url(Buffer.concat([iv, c.getAuthTag(), body]));
    },
    open(sealed) {
      try {
        const raw = Buffer.from(String(sealed), 'base64url');
        const d = crypto.createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
        d.setAuthTag(raw.subarray(12, 28));
        const sid = Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
        return SID_RE.test(sid) ? sid : null;
      } catch { return null; } // sealed under another secret: its memcached copy is unreadable anyway
    },
  };
}

function parseSession(raw) {
  if (typeof raw !== 'string' || !raw) return null;
  try {
    const data = JSON.parse(raw);
    return data && typeof data === 'object' && data.uid ? data : null;
  } catch { return null; } // corrupt entry: treated as no session
}

// What a session holds (CONTRACTS.md "Session"), for a sign-in and for the grader's.
function sessionData(user, extra = {}) {
  return {
    uid: user.id,
    username: user.username,
    name: user.name,
    role: user.role,
    section_id: user.section_id === undefined ? null : user.section_id,
    csrf: newId(),
    created: Math.floor(Date.now() / 1000),
    ...extra,
  };
}

// A session for a server-side caller of the engine (the automatic grader): in
// memcached only, with no browser and no durable copy (when it is evicted, the
// caller mints another). `background`: the engine never gives it the last free
// sandbox slot. Returns the cookie's value and the CSRF token.
async function mintBackgroundSession({ mc, secret, ttl }, user) {
  const sid = newId();
  const data = sessionData(user, { background: true });
  await mc.set(`sess:${sid}`, JSON.stringify(data), ttl);
  return { cookie: cookieValue(sid, secret), csrf: data.csrf };
}

function createSessions({ mc, db, secret, ttl, secure = false, log = console, revocationsRefreshMs = REVOCATIONS_REFRESH_MS }) {
  // Sign-in hooks (the lab lock-down, src/lockdown): `before` may refuse the
  // sign-in (throw) or end the user's other sessions; `after` sees the new sid.
  const hooks = { before: [], after: [] };
  function onCreate(when, fn) { hooks[when].push(fn); }
  const attrs = `Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  const seal = sealer(secret);

  function setCookie(res, sid) {
    res.append('Set-Cookie', `${COOKIE}=${cookieValue(sid, secret)}; ${attrs}; Max-Age=${ttl}`);
  }
  function clearCookie(res) {
    res.append('Set-Cookie', `${COOKIE}=; ${attrs}; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT`);
  }

  // memcached is the fast path, never the only copy: its failures are logged once a
  // second at most and otherwise ignored.
  let lastMcWarning = 0;
  function mcFailed(what, err) {
    if (Date.now() - lastMcWarning < 1000) return;
    lastMcWarning = Date.now();
    log.error(`[webapp ${process.pid}] memcached ${what} failed (${(err.cause && err.cause.message) || err.message}); sessions are read from MariaDB`);
  }
  const remaining = (data) => Math.max(1, (data.created || 0) + ttl - Math.floor(Date.now() / 1000));

  // The durable copy of one session; null when it is gone or expired. A database
  // error propagates (503): an unreachable store must never look like a sign-out.
  async function readDurable(sid) {
    const rows = await db.query(
      'SELECT data FROM sessions WHERE id = ? AND expires_at > UTC_TIMESTAMP(3)', [storeKey(sid)]);
    return rows[0] ? parseSession(rows[0].data) : null;
  }

  // Store keys of the revoked sessions whose memcached copy may still be there: the
  // rows of session_revocations as last read, plus this worker's own failed deletes,
  // counted at once and kept until its own retry of them succeeds (so neither a read
  // that misses a row being inserted nor a failed insert drops them).
  let revoked = new Set();
  const mine = new Map(); // id -> {id, sid}
  let refresher = null;
  let refreshing = false;
  let lastRefreshWarning = 0;

  // Re-reads the table and retries the deletes; a row goes once its delete succeeded.
  // Every worker polls (a range read of an almost always empty table every 2 s),
  // because a failure recorded by one worker must reach all of them. Started by the
  // first request or failure, so a sessions object used only for its API polls nothing.
  async function refreshRevocations() {
    if (refreshing) return;
    refreshing = true;
    try {
      const rows = await db.query(
        'SELECT id, sid_sealed FROM session_revocations WHERE expires_at > UTC_TIMESTAMP(3) LIMIT 10000');
      const pending = new Map(mine);
      // sealed under an old secret (sid null): its cookie no longer verifies, nothing to delete
      for (const r of rows) if (!pending.has(r.id)) pending.set(r.id, { id: r.id, sid: seal.open(r.sid_sealed) });
      revoked = new Set(pending.keys());
      const done = [];
      await Promise.all([...pending.values()].map(async (s) => {
        try {
          if (s.sid) await mc.del(`sess:${s.sid}`);
          done.push(s.id);
        } catch (err) { mcFailed('del', err); }
      }));
      if (!done.length) return;
      await db.query(`DELETE FROM session_revocations WHERE id IN (${done.map(() => '?').join(',')})`, done);
      for (const id of done) mine.delete(id);
    } catch (err) {
      // The last list read stays in force.
      if (Date.now() - lastRefreshWarning > 10000) {
        lastRefreshWarning = Date.now();
        log.error(`[webapp ${process.pid}] reading session_revocations failed (${err.message}); the last list read is kept`);
      }
    } finally {
      refreshing = false;
    }
  }
  function startRefresher() {
    if (refresher) return;
    outsideRequest(() => {
      refresher = setInterval(refreshRevocations, revocationsRefreshMs);
      refresher.unref();
      refreshRevocations();
    });
  }

  // Deletes the memcached copies of revoked sessions [{id, sid, sealed}]. Those whose
  // delete fails are refused by this worker at once and recorded for the others, the
  // engine and the retry; a failure to record propagates (the revocation is not done).
  async function deleteCopies(list) {
    const failed = [];
    await Promise.all(list.map((s) => mc.del(`sess:${s.sid}`).catch((err) => { mcFailed('del', err); failed.push(s); })));
    if (!failed.length) return;
    for (const s of failed) {
      revoked.add(s.id);
      mine.set(s.id, { id: s.id, sid: s.sid });
    }
    startRefresher();
    await db.query(
      `INSERT INTO session_revocations (id, sid_sealed, expires_at) VALUES
       ${failed.map(() => '(?, ?, UTC_TIMESTAMP(3) + INTERVAL ? SECOND)').join(', ')}
       ON DUPLICATE KEY UPDATE expires_at = VALUES(expires_at)`,
      failed.flatMap((s) => [s.id, s.sealed, ttl + REVOCATION_MARGIN_S]));
  }

  // Loads req.session (or null). One memcached get per request with a valid cookie;
  // a miss costs one primary-key read and puts the session back.
  async function middleware(req, res, next) {
    req.session = null;
    req.sessionId = null;
    if (!refresher) startRefresher();
    const sid = verify(readCookie(req.headers.cookie, COOKIE), secret);
    if (!sid) return next();
    let data = null;
    let mcUp = true;
    try {
      data = parseSession(await mc.get(`sess:${sid}`));
    } catch (err) { mcUp = false; mcFailed('get', err); }
    // A revoked session's copy that memcached still holds: no session (its row is gone).
    if (data && revoked.size && revoked.has(storeKey(sid))) return next();
    if (!data) {
      data = await readDurable(sid);
      if (data && mcUp) await mc.set(`sess:${sid}`, JSON.stringify(data), remaining(data)).catch((err) => mcFailed('set', err));
    }
    if (data) {
      req.session = data;
      req.sessionId = sid;
    }
    next();
  }

  async function end(sid) {
    const id = storeKey(sid);
    await db.query('DELETE FROM sessions WHERE id = ?', [id]);
    await deleteCopies([{ id, sid, sealed: seal.seal(sid) }]);
  }

  // One sign-in of a user at a time, across workers and replicas (memcached add is
  // atomic): the sign-in hooks end the user's other sessions before the new one exists
  // (one session per student under a lab lock-down), and two sign-ins at once would
  // each end the sessions before both, then both create theirs.
  // With memcached unreachable sign-ins go on unserialized (sessions live in MariaDB).
  async function lockUser(uid) {
    const key = `signin-lock:${uid}`;
    const giveUpAt = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      let got;
      try { got = await mc.add(key, '1', LOCK_TTL_S); } catch (err) { mcFailed('add', err); return () => {}; }
      if (got) return () => mc.del(key).catch((err) => mcFailed('del', err));
      if (Date.now() > giveUpAt) {
        throw unavailable(`Another sign-in to this account is in progress. Trying again in ${LOCK_RETRY_S} seconds.`, { code: 'busy', retryAfter: LOCK_RETRY_S });
      }
      await new Promise((r) => { setTimeout(r, 20 + Math.random() * 30); });
    }
  }

  // A new sid on every sign-in (no fixation); the old one, if any, ends. The durable
  // copy is written first: a session exists once MariaDB has it.
  async function create(req, res, user) {
    const unlock = await lockUser(user.id);
    try {
      return await createLocked(req, res, user);
    } finally {
      await unlock();
    }
  }

  async function createLocked(req, res, user) {
    for (const fn of hooks.before) await fn(req, user);
    if (req.sessionId) await end(req.sessionId);
    const sid = newId();
    const data = sessionData(user);
    const json = JSON.stringify(data);
    await db.query(
      'INSERT INTO sessions (id, user_id, sid_sealed, data, expires_at) VALUES (?, ?, ?, ?, UTC_TIMESTAMP(3) + INTERVAL ? SECOND)',
      [storeKey(sid), user.id, seal.seal(sid), json, ttl]);
    await mc.set(`sess:${sid}`, json, ttl).catch((err) => mcFailed('set', err));
    setCookie(res, sid);
    req.session = data;
    req.sessionId = sid;
    for (const fn of hooks.after) await fn(req, user, sid);
    return data;
  }

  // A rare change to the current session (both copies; the expiry stays).
  async function update(req, patch) {
    if (!req.sessionId) throw new Error('sessions.update: no session');
    const data = { ...req.session, ...patch, uid: req.session.uid, created: req.session.created };
    const json = JSON.stringify(data);
    await db.query('UPDATE sessions SET data = ? WHERE id = ?', [json, storeKey(req.sessionId)]);
    await mc.set(`sess:${req.sessionId}`, json, remaining(data)).catch((err) => mcFailed('set', err));
    req.session = data;
    return data;
  }

  // The user's live sessions, oldest first: [{sid, created, data}].
  async function listUser(uid) {
    const rows = await db.query(
      `SELECT sid_sealed, data, created_at FROM sessions
        WHERE user_id = ? AND expires_at > UTC_TIMESTAMP(3) ORDER BY created_at`, [uid]);
    return rows.map((r) => ({ sid: seal.open(r.sid_sealed), created: r.created_at, data: parseSession(r.data) }))
      .filter((s) => s.sid);
  }

  // Ends every session of a user (change of role, password or activation), both
  // copies; `keep` names one sid to spare (none by default). Returns how many ended.
  async function revokeUser(uid, { keep = null } = {}) {
    const rows = await db.query('SELECT id, sid_sealed FROM sessions WHERE user_id = ?', [uid]);
    const spared = keep ? storeKey(keep) : null;
    const gone = rows.filter((r) => r.id !== spared);
    if (!gone.length) return 0;
    await db.query(
      `DELETE FROM sessions WHERE user_id = ? AND id IN (${gone.map(() => '?').join(',')})`,
      [uid, ...gone.map((r) => r.id)]);
    const copies = gone.map((r) => ({ id: r.id, sid: seal.open(r.sid_sealed), sealed: r.sid_sealed })).filter((s) => s.sid);
    await deleteCopies(copies);
    setTimeout(() => deleteCopies(copies).catch((err) => {
      log.error(`[webapp ${process.pid}] recording revoked sessions of user ${uid} failed: ${err.message}`);
    }), REVOKE_SECOND_PASS_MS).unref();
    return gone.length;
  }

  async function destroy(req, res) {
    if (req.sessionId) await end(req.sessionId);
    clearCookie(res);
    req.session = null;
    req.sessionId = null;
  }

  // Expired rows are never read (every read filters by expires_at); this keeps the
  // table small. Called by each worker now and then.
  async function purgeExpired(limit = 5000) {
    const r = await db.query(`DELETE FROM sessions WHERE expires_at < UTC_TIMESTAMP(3) LIMIT ${Number(limit) | 0}`);
    await db.query(`DELETE FROM session_revocations WHERE expires_at < UTC_TIMESTAMP(3) LIMIT ${Number(limit) | 0}`);
    return r.affectedRows;
  }

  return { middleware, create, update, destroy, revokeUser, listUser, purgeExpired, setCookie, clearCookie, onCreate };
}

module.exports = { createSessions, mintBackgroundSession, sign, verify, newId, cookieValue, readCookie, storeKey, sealer, COOKIE };
