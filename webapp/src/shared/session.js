'use strict';
// Sessions in memcached, in the exact format shared with the PHP engine
// (CONTRACTS.md "Session"): cookie prutor.sid = <sid>.<sig>, sid = 32 random bytes
// base64url (43 chars), sig = base64url(HMAC-SHA256(SESSION_SECRET, sid)) without
// padding; memcached key sess:<sid> holds a JSON string (flags 0); TTL SESSION_TTL_S.
// usess:<uid> lists a user's live sids (space-separated), so that deactivating an
// account or resetting its password can end its sessions at once; it is written at
// login only, never on the request path.
const crypto = require('node:crypto');

const COOKIE = 'prutor.sid';
const SID_RE = /^[A-Za-z0-9_-]{43}$/;

function b64url(buf) { return Buffer.from(buf).toString('base64url'); }
function newId() { return b64url(crypto.randomBytes(32)); }
function sign(sid, secret) { return b64url(crypto.createHmac('sha256', secret).update(sid).digest()); }

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

function createSessions({ mc, secret, ttl, secure = false }) {
  // Sign-in hooks (the lab lock-down, src/lockdown): `before` may refuse the
  // sign-in (throw) or end the user's other sessions; `after` sees the new sid.
  const hooks = { before: [], after: [] };
  function onCreate(when, fn) { hooks[when].push(fn); }
  const attrs = `Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;

  function setCookie(res, sid) {
    res.append('Set-Cookie', `${COOKIE}=${cookieValue(sid, secret)}; ${attrs}; Max-Age=${ttl}`);
  }
  function clearCookie(res) {
    res.append('Set-Cookie', `${COOKIE}=; ${attrs}; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT`);
  }

  // Loads req.session (or null). One memcached get per request with a valid cookie.
  async function middleware(req, res, next) {
    req.session = null;
    req.sessionId = null;
    const sid = verify(readCookie(req.headers.cookie, COOKIE), secret);
    if (!sid) return next();
    const raw = await mc.get(`sess:${sid}`);
    if (typeof raw === 'string' && raw) {
      try {
        const data = JSON.parse(raw);
        if (data && typeof data === 'object' && data.uid) {
          req.session = data;
          req.sessionId = sid;
        }
      } catch { /* corrupt entry: treated as no session */ }
    }
    next();
  }

  // A new sid on every login (no fixation); the old one, if any, is deleted.
  async function create(req, res, user) {
    for (const fn of hooks.before) await fn(req, user);
    if (req.sessionId) await mc.del(`sess:${req.sessionId}`).catch(() => {});
    const sid = newId();
    const data = {
      uid: user.id,
      username: user.username,
      name: user.name,
      role: user.role,
      section_id: user.section_id === undefined ? null : user.section_id,
      csrf: newId(),
      created: Math.floor(Date.now() / 1000),
    };
    await mc.set(`sess:${sid}`, JSON.stringify(data), ttl);
    await track(user.id, sid);
    setCookie(res, sid);
    req.session = data;
    req.sessionId = sid;
    for (const fn of hooks.after) await fn(req, user, sid);
    return data;
  }

  // Adds sid to the user's list, dropping the sids whose sessions have expired.
  async function track(uid, sid) {
    const key = `usess:${uid}`;
    const raw = await mc.get(key);
    const sids = typeof raw === 'string' ? raw.split(' ').filter((s) => SID_RE.test(s)) : [];
    const live = sids.length ? await mc.getMulti(sids.map((s) => `sess:${s}`)) : {};
    const keep = sids.filter((s) => live[`sess:${s}`] !== undefined);
    keep.push(sid);
    await mc.set(key, keep.join(' '), ttl);
  }

  // Ends every session of a user (deactivation, password reset by staff).
  async function revokeUser(uid) {
    const key = `usess:${uid}`;
    const raw = await mc.get(key);
    const sids = typeof raw === 'string' ? raw.split(' ').filter((s) => SID_RE.test(s)) : [];
    await mc.delMulti([...sids.map((s) => `sess:${s}`), key]);
    return sids.length;
  }

  async function destroy(req, res) {
    if (req.sessionId) await mc.del(`sess:${req.sessionId}`).catch(() => {});
    clearCookie(res);
    req.session = null;
    req.sessionId = null;
  }

  return { middleware, create, destroy, revokeUser, setCookie, clearCookie, onCreate };
}

module.exports = { createSessions, sign, verify, newId, cookieValue, readCookie, COOKIE };
