'use strict';
// Pauses of a running event (issue 30): the whole event, a room (address ranges,
// written as the lab lock-down writes them), or one student. What a pause does is
// the database's rule (rdb migration 034, view assignment_window): while a student
// is held their remaining time stands still (their deadline moves with the pause),
// the engine refuses their runs, and the editor says so. This service only decides
// whom a pause holds and records who did what (event_timing_log); it bumps the
// event's timing version so that open editors learn of it within seconds.
//
// A pause holds the students whose window is open and who are not paused already,
// at the moment it starts: a student who has finished is never reopened, and two
// overlapping pauses never count twice. A room is matched against the address of
// each student's open lab session of the event (recorded when the event has a lab
// lock-down): without one, the room's students are unknown and the pause is refused.
const { Form, fieldError } = require('../lib/form');
const { notFound, conflict } = require('../shared/errors');
const { parseRanges, allows } = require('../lockdown/ranges');
const csv = require('../lib/csv');
const siblings = require('../shared/siblings');
const { CHANGED_TOPIC } = require('./timing');

const SCOPES = ['event', 'room', 'student'];

// The students of the event who could be held now (window open, not paused).
const OPEN_UNPAUSED_SQL = `SELECT DISTINCT w.user_id FROM assignment_window w
  JOIN events e ON e.id = w.event_id AND e.published_at IS NOT NULL
 WHERE w.event_id = ? AND UTC_TIMESTAMP(3) >= w.start_time AND UTC_TIMESTAMP(3) < w.deadline AND w.paused_since IS NULL`;

function createPausesService({ db }) {
  async function logTiming(q, eventId, actorId, action, target, detail = '') {
    await q.query('INSERT INTO event_timing_log (event_id, actor_id, action, target, detail) VALUES (?, ?, ?, ?, ?)',
      [eventId, actorId || null, action, String(target).slice(0, 255), String(detail).slice(0, 500)]);
  }

  // every worker of this node forgets the cached timing version: open editors and
  // waiting pages see the change on their next poll
  async function changed(out) {
    await siblings.announce(CHANGED_TOPIC);
    return out;
  }

  async function pause(eventId, actorId, body) {
    const f = new Form(body);
    const scope = f.oneOf('scope', SCOPES, { label: 'What to pause' });
    const reason = f.str('reason', { label: 'Reason', max: 255 });
    let target = '';
    let ranges = null;
    if (scope === 'room') {
      target = f.str('ranges', { label: 'Room addresses', required: true, max: 2000 });
      if (target) {
        const p = parseRanges(target);
        if (p.errors.length) f.fail('ranges', p.errors[0]);
        else { ranges = p.list; target = p.ranges; }
      }
    } else if (scope === 'student') {
      target = f.str('username', { label: 'Username', required: true, max: 64 });
    }
    f.check();
    return changed(await db.tx(async (tx) => {
      const ev = (await tx.query('SELECT id FROM events WHERE id = ? FOR UPDATE', [eventId]))[0];
      if (!ev) throw notFound('No such event.');
      let users = (await tx.query(OPEN_UNPAUSED_SQL, [eventId])).map((r) => r.user_id);
      if (scope === 'student') {
        const u = (await tx.query('SELECT id FROM users WHERE username = ?', [target]))[0];
        if (!u) throw fieldError('username', `There is no account "${target}".`, f.values);
        if (!users.includes(u.id)) {
          throw conflict(`${target} is not sitting this event now (not started, finished, or already paused): nothing was paused.`);
        }
        users = [u.id];
      } else if (scope === 'room') {
        const inRoom = await roomStudents(tx, eventId, ranges, 'pause students one by one, or the whole event');
        users = users.filter((u) => inRoom.has(u));
        if (!users.length) throw conflict(`No student sitting this event now is signed in from ${target}: nothing was paused.`);
      } else if (!users.length) {
        throw conflict('No student is sitting this event now: nothing was paused.');
      }
      const p = await tx.query(`INSERT INTO pauses (event_id, scope, target, reason, started_by, started_at)
        VALUES (?, ?, ?, ?, ?, UTC_TIMESTAMP(3))`, [eventId, scope, target, reason, actorId]);
      // text protocol: the IN list varies in length (see db.text in shared/db.js)
      await tx.text(`INSERT INTO pause_holds (pause_id, event_id, user_id, started_at)
        SELECT p.id, p.event_id, u.id, p.started_at FROM pauses p JOIN users u ON u.id IN (?) WHERE p.id = ?`, [users, p.insertId]);
      await tx.query('CALL event_timing_bump(?)', [eventId]);
      await logTiming(tx, eventId, actorId, 'pause', describe(scope, target), `${users.length} student(s) held${reason ? `; ${reason}` : ''}`);
      return { id: p.insertId, scope, target, students: users.length };
    }));
  }

  // Ends a pause (every student it still holds), or one student's holds (username).
  async function resume(eventId, actorId, body) {
    const f = new Form(body);
    const pauseId = f.int('pause_id', { label: 'Pause', min: 1, max: 4294967295 });
    const username = f.str('username', { label: 'Username', max: 64 });
    if (!pauseId && !username) f.fail('username', 'Name the pause or the student to resume.');
    f.check();
    return changed(await db.tx(async (tx) => {
      if (pauseId) {
        const p = (await tx.query('SELECT id, scope, target FROM pauses WHERE id = ? AND event_id = ? FOR UPDATE', [pauseId, eventId]))[0];
        if (!p) throw notFound('No such pause of this event.');
        const r = await tx.query('UPDATE pause_holds SET ended_at = UTC_TIMESTAMP(3) WHERE pause_id = ? AND ended_at IS NULL', [pauseId]);
        await tx.query('UPDATE pauses SET ended_at = UTC_TIMESTAMP(3), ended_by = ? WHERE id = ? AND ended_at IS NULL', [actorId, pauseId]);
        await tx.query('CALL event_timing_bump(?)', [eventId]);
        await logTiming(tx, eventId, actorId, 'resume', describe(p.scope, p.target), `${r.affectedRows} student(s) resumed`);
        return { students: r.affectedRows, what: describe(p.scope, p.target) };
      }
      const u = (await tx.query('SELECT id FROM users WHERE username = ?', [username]))[0];
      if (!u) throw fieldError('username', `There is no account "${username}".`, f.values);
      const r = await tx.query('UPDATE pause_holds SET ended_at = UTC_TIMESTAMP(3) WHERE event_id = ? AND user_id = ? AND ended_at IS NULL', [eventId, u.id]);
      if (!r.affectedRows) throw conflict(`${username} is not paused in this event.`);
      // a one-student pause with nobody left held is over
      await tx.query(`UPDATE pauses p SET p.ended_at = UTC_TIMESTAMP(3), p.ended_by = ?
        WHERE p.event_id = ? AND p.ended_at IS NULL AND NOT EXISTS (SELECT 1 FROM pause_holds h WHERE h.pause_id = p.id AND h.ended_at IS NULL)`, [actorId, eventId]);
      await tx.query('CALL event_timing_bump(?)', [eventId]);
      await logTiming(tx, eventId, actorId, 'resume', describe('student', username));
      return { students: 1, what: describe('student', username) };
    }));
  }

  // A common start: students wait until staff press start (not once it has begun for a section).
  async function setStartMode(eventId, actorId, body) {
    const common = new Form(body).bool('common_start');
    return db.tx(async (tx) => {
      const ev = (await tx.query(`SELECT e.start_mode, e.started_at,
          (SELECT MIN(s.start_time) <= UTC_TIMESTAMP(3) FROM schedules s JOIN slots sl ON sl.schedule_id = s.id WHERE s.event_id = e.id) AS begun
        FROM events e WHERE e.id = ? FOR UPDATE`, [eventId]))[0];
      if (!ev) throw notFound('No such event.');
      if (ev.started_at) throw conflict('The invigilator has already started this event: its start cannot change any more.');
      if (common && ev.start_mode !== 'invigilator' && Number(ev.begun)) {
        throw conflict('The event has already begun for a section by its schedule: a common start can only be chosen before.');
      }
      await tx.query('UPDATE events SET start_mode = ? WHERE id = ?', [common ? 'invigilator' : 'scheduled', eventId]);
      await tx.query('CALL event_timing_bump(?)', [eventId]);
      await logTiming(tx, eventId, actorId, 'start_mode', 'every student', common ? 'students wait for the invigilator' : 'each section starts by its schedule');
      return { common };
    });
  }

  async function start(eventId, actorId) {
    return changed(await db.tx(async (tx) => {
      const ev = (await tx.query('SELECT start_mode, started_at, published_at FROM events WHERE id = ? FOR UPDATE', [eventId]))[0];
      if (!ev) throw notFound('No such event.');
      if (ev.start_mode !== 'invigilator') throw conflict('This event starts by its schedule: there is nothing to start.');
      if (!ev.published_at) throw conflict('Publish the event before starting it.');
      if (ev.started_at) throw conflict('This event has already been started.');
      await tx.query('UPDATE events SET started_at = UTC_TIMESTAMP(3), started_by = ? WHERE id = ?', [actorId, eventId]);
      await tx.query('CALL event_timing_bump(?)', [eventId]);
      const [row] = await tx.query('SELECT started_at FROM events WHERE id = ?', [eventId]);
      await logTiming(tx, eventId, actorId, 'start', 'every student', 'common start given');
      return { startedAt: row.started_at };
    }));
  }

  // The event page's card: ongoing pauses with how many they still hold.
  async function ongoing(eventId) {
    return db.query(`SELECT p.id, p.scope, p.target, p.reason, p.started_at, u.username AS started_by,
        (SELECT COUNT(*) FROM pause_holds h WHERE h.pause_id = p.id AND h.ended_at IS NULL) AS holding
      FROM pauses p LEFT JOIN users u ON u.id = p.started_by
      WHERE p.event_id = ? AND p.ended_at IS NULL ORDER BY p.id`, [eventId]);
  }

  async function timingLog(eventId, limit = 200) {
    return db.query(`SELECT l.id, l.event_id, l.action, l.target, l.detail, l.created_at, u.username AS actor
      FROM event_timing_log l LEFT JOIN users u ON u.id = l.actor_id
      WHERE l.event_id = ? OR (l.event_id IS NULL AND l.user_id IN (SELECT a.user_id FROM assignments a WHERE a.event_id = ?))
      ORDER BY l.id DESC LIMIT ${Number(limit) || 200}`, [eventId, eventId]);
  }

  async function timingLogCsv(eventId) {
    const ev = (await db.query('SELECT id FROM events WHERE id = ?', [eventId]))[0];
    if (!ev) throw notFound('No such event.');
    const rows = (await timingLog(eventId, 100000)).reverse();
    return csv.stringify([['time_utc', 'who', 'action', 'target', 'detail'],
      ...rows.map((r) => [r.created_at, r.actor || '', r.action, r.target, r.detail])]);
  }

  return { pause, resume, setStartMode, start, ongoing, timingLog, timingLogCsv, logTiming };
}

// The students of an event signed in from a room now: the address of each open lab
// session of the event (recorded while a lab lock-down is set) in the ranges.
async function roomStudents(q, eventId, ranges, otherwise) {
  const seen = await q.query(`SELECT ls.user_id, ls.address FROM lab_sessions ls
    WHERE ls.event_id = ? AND ls.ended_at IS NULL`, [eventId]);
  if (!seen.length) {
    throw conflict(`No student of this event has a lab session with a known address (they are recorded while a lab lock-down is set): ${otherwise}.`);
  }
  return new Set(seen.filter((x) => allows(ranges, x.address)).map((x) => x.user_id));
}

function describe(scope, target) {
  if (scope === 'event') return 'whole event';
  if (scope === 'room') return `room ${target}`;
  return `student ${target}`;
}

module.exports = { createPausesService, roomStudents, describe, SCOPES };
