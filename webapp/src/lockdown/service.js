'use strict';
// Lab lock-down per event: the address ranges its students may use while it runs,
// one session per student, and an audit log for staff. "In force" is the SQL view
// active_lab_lockdowns (the engine reads the same view); each worker keeps the
// rows in memory, refreshed every LOCKDOWN_REFRESH_MS on a timer (never on a
// request), so a request of a student outside any lock-down costs nothing extra.
// A save reloads every worker of this node before it answers (shared/siblings.js);
// the timer catches an event's window opening or closing, and other replicas.
// Sessions: the sign-in hooks of shared/session.js call beforeSignIn (refuse an
// address outside the range; end the student's other sessions) and afterSignIn
// (record the session); ended sessions leave a notice in memcached
// (labend:<sha256(sid)>) so the old tab can say why it was signed out.
const crypto = require('node:crypto');
const { parseRanges, allows } = require('./ranges');
const { forbidden, badRequest } = require('../shared/errors');
const { periodic } = require('../lib/periodic');
const siblings = require('../shared/siblings');

const RELOAD_TOPIC = 'lockdown:reload';

function sidHash(sid) { return crypto.createHash('sha256').update(sid).digest('base64url'); }
function plainAddress(ip) { return String(ip || '').replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1'); }

function createLockdownService({ db, mc, sessions, ttl, log = console, refreshMs = 2000 }) {
  let bySection = new Map(); // section_id -> [{ eventId, title, list, single }]

  async function load() {
    const rows = await db.query(`SELECT v.event_id, v.section_id, v.allowed_ranges, v.single_session, e.title
      FROM active_lab_lockdowns v JOIN events e ON e.id = v.event_id`);
    const next = new Map();
    for (const r of rows) {
      const entry = { eventId: r.event_id, title: r.title, list: parseRanges(r.allowed_ranges).list, single: !!r.single_session };
      if (!next.has(r.section_id)) next.set(r.section_id, []);
      next.get(r.section_id).push(entry);
    }
    bySection = next;
  }
  const timer = periodic('lockdown', refreshMs, load, log);
  const { refresh } = timer;
  let off = null;
  function start() {
    if (!off) off = siblings.on(RELOAD_TOPIC, refresh);
    timer.start();
  }
  function stop() {
    if (off) off();
    off = null;
    timer.stop();
  }

  function locksFor(session) {
    if (!session || session.role !== 'student' || session.section_id == null) return [];
    return bySection.get(session.section_id) || [];
  }

  async function audit(eventId, userId, kind, address, detail = '') {
    await db.query('INSERT INTO lab_audit (event_id, user_id, kind, address, detail) VALUES (?, ?, ?, ?, ?)',
      [eventId, userId, kind, plainAddress(address).slice(0, 45), String(detail).slice(0, 255)]);
  }

  function refusal(lock, address) {
    return `"${lock.title}" can be taken only from the lab's computers, and this computer's address (${plainAddress(address)}) is not one of them. Ask the invigilator.`;
  }

  // Sign-in hook, before the new session exists.
  async function beforeSignIn(req, user) {
    const locks = locksFor({ role: user.role, section_id: user.section_id });
    if (!locks.length) return;
    for (const lock of locks) {
      if (!allows(lock.list, req.ip)) {
        await audit(lock.eventId, user.id, 'sign_in_refused', req.ip, 'address outside the allowed ranges');
        throw forbidden(refusal(lock, req.ip), { code: 'address_refused' });
      }
    }
    const single = locks.find((l) => l.single);
    if (!single) return;
    const open = await db.query('SELECT sid_hash, event_id, address FROM lab_sessions WHERE user_id = ? AND ended_at IS NULL', [user.id]);
    // every other session ends, also one begun before the lock-down took force (not in lab_sessions)
    await sessions.revokeUser(user.id);
    if (!open.length) return;
    await db.query("UPDATE lab_sessions SET ended_at = UTC_TIMESTAMP(3), end_reason = 'replaced' WHERE user_id = ? AND ended_at IS NULL", [user.id]);
    const at = new Date().toISOString();
    for (const s of open) {
      await mc.set(`labend:${s.sid_hash}`, JSON.stringify({ at, address: plainAddress(req.ip), event: single.title }), ttl);
      await audit(s.event_id, user.id, 'session_end', s.address, `ended by a new sign-in from ${plainAddress(req.ip)}`);
    }
  }

  // Sign-in hook, with the new session's id.
  async function afterSignIn(req, user, sid) {
    const locks = locksFor({ role: user.role, section_id: user.section_id });
    if (!locks.length) return;
    await db.query('INSERT INTO lab_sessions (sid_hash, user_id, event_id, address) VALUES (?, ?, ?, ?)',
      [sidHash(sid), user.id, locks[0].eventId, plainAddress(req.ip)]);
    await mc.set(`labip:${sidHash(sid)}`, plainAddress(req.ip), ttl);
    for (const lock of locks) await audit(lock.eventId, user.id, 'sign_in', req.ip, '');
  }

  // Every request of a signed-in student under a lock-down: address in range, and
  // a change of address (the same session from another computer) logged once.
  const refusedLogged = new Map(); // sid -> time of the last logged refusal
  async function checkRequest(req) {
    const locks = locksFor(req.session);
    if (!locks.length) return;
    for (const lock of locks) {
      if (!allows(lock.list, req.ip)) {
        const last = refusedLogged.get(req.sessionId) || 0;
        if (Date.now() - last > 60000) {
          refusedLogged.set(req.sessionId, Date.now());
          if (refusedLogged.size > 10000) refusedLogged.clear();
          await audit(lock.eventId, req.session.uid, 'request_refused', req.ip, `${req.method} ${req.path}`.slice(0, 255));
        }
        throw forbidden(refusal(lock, req.ip), { code: 'address_refused' });
      }
    }
    const key = `labip:${sidHash(req.sessionId)}`;
    const here = plainAddress(req.ip);
    const before = await mc.get(key);
    if (before === here) return;
    await mc.set(key, here, ttl);
    if (typeof before === 'string' && before) {
      for (const lock of locks) await audit(lock.eventId, req.session.uid, 'address_change', here, `from ${before}`);
    }
  }

  // The notice left for a session another sign-in ended (or null).
  async function endedNotice(sid) {
    const raw = await mc.get(`labend:${sidHash(sid)}`);
    if (typeof raw !== 'string') return null;
    try { return JSON.parse(raw); } catch { return null; }
  }

  async function settings(eventId) {
    const rows = await db.query('SELECT allowed_ranges, single_session, updated_at FROM lab_lockdowns WHERE event_id = ?', [eventId]);
    const active = await db.query('SELECT COUNT(*) AS n FROM active_lab_lockdowns WHERE event_id = ?', [eventId]);
    return { enabled: !!rows[0], allowed_ranges: rows[0] ? rows[0].allowed_ranges : '', single_session: rows[0] ? !!rows[0].single_session : true,
      in_force: active[0].n > 0, updated_at: rows[0] ? rows[0].updated_at : null };
  }

  async function save(eventId, { enabled, ranges, single }, userId) {
    if (!enabled) {
      await db.query('DELETE FROM lab_lockdowns WHERE event_id = ?', [eventId]);
    } else {
      const parsed = parseRanges(ranges);
      if (parsed.errors.length) throw badRequest(parsed.errors.join(' '), { field: 'allowed_ranges' });
      if (parsed.ranges.length > 2000) throw badRequest('The list of ranges is too long (2000 characters at most).');
      await db.query(`INSERT INTO lab_lockdowns (event_id, allowed_ranges, single_session, updated_by) VALUES (?, ?, ?, ?)
        ON DUPLICATE KEY UPDATE allowed_ranges = VALUES(allowed_ranges), single_session = VALUES(single_session), updated_by = VALUES(updated_by)`,
      [eventId, parsed.ranges, single ? 1 : 0, userId]);
    }
    await siblings.announce(RELOAD_TOPIC);
  }

  async function auditLog(eventId, { limit = 500 } = {}) {
    return db.query(`SELECT l.id, l.kind, l.address, l.detail, l.created_at, u.username
      FROM lab_audit l LEFT JOIN users u ON u.id = l.user_id WHERE l.event_id = ? ORDER BY l.id DESC LIMIT ${Math.min(Number(limit) || 500, 5000)}`, [eventId]);
  }

  return { start, stop, refresh, beforeSignIn, afterSignIn, checkRequest, endedNotice, settings, save, auditLog, sidHash };
}

module.exports = { createLockdownService, sidHash };
