'use strict';
// Accommodations agreed ahead (issue 30): per student, +N% of each event's
// scheduled time and/or +N minutes, applied to every event unless the event opts
// out (events.accommodations_apply). The time itself is the window rule's (rdb
// migration 034, view assignment_window); this service keeps the table, imports it
// from CSV (username,extra_percent,extra_minutes,note), logs each change with who
// made it, and bumps the timing version of every event the students are sitting so
// that open editors follow.
const csv = require('../lib/csv');
const { Form } = require('../lib/form');
const { badRequest, notFound } = require('../shared/errors');

const MAX_PERCENT = 300;
const MAX_MINUTES = 24 * 60;
const MAX_ROWS = 5000;

function createAccommodationsService({ db }) {
  async function list() {
    return db.query(`SELECT u.username, u.name, s.code AS section, ac.extra_percent, ac.extra_minutes, ac.note, ac.updated_at, b.username AS updated_by
      FROM accommodations ac JOIN users u ON u.id = ac.user_id LEFT JOIN sections s ON s.id = u.section_id
      LEFT JOIN users b ON b.id = ac.updated_by ORDER BY u.username`);
  }

  // Reads every record first; nothing is stored unless every line is right.
  async function importCsv(actorId, body) {
    const text = new Form(body).str('csv', { label: 'CSV', required: true, max: 1000000, trim: false });
    if (!text) throw badRequest('Paste the CSV rows (username,extra_percent,extra_minutes,note).');
    const records = csv.parse(text);
    if (records.length && /^username$/i.test((records[0].fields[0] || '').trim())) records.shift();
    if (!records.length) throw badRequest('The CSV has no rows.');
    if (records.length > MAX_ROWS) throw badRequest(`At most ${MAX_ROWS} rows at a time.`);
    const errors = [];
    const rows = [];
    const num = (v, max, what, line) => {
      const s = String(v || '').trim().replace(/%$/, '');
      if (s === '') return 0;
      if (!/^\d{1,4}$/.test(s) || Number(s) > max) { errors.push(`Line ${line}: ${what} must be a whole number from 0 to ${max}.`); return 0; }
      return Number(s);
    };
    for (const r of records) {
      if (r.error) { errors.push(`Line ${r.line}: ${r.error}.`); continue; }
      const [username = '', percent, minutes, note = ''] = r.fields;
      const u = username.trim();
      if (!u) { errors.push(`Line ${r.line}: the username is empty.`); continue; }
      rows.push({ line: r.line, username: u, percent: num(percent, MAX_PERCENT, 'extra_percent', r.line), minutes: num(minutes, MAX_MINUTES, 'extra_minutes', r.line), note: note.trim().slice(0, 200) });
    }
    const known = new Map();
    for (let i = 0; i < rows.length; i += 500) {
      const names = rows.slice(i, i + 500).map((r) => r.username);
      const [found] = await db.pool.query("SELECT id, username FROM users WHERE username IN (?) AND role = 'student'", [names]);
      for (const f of found) known.set(f.username, f.id);
    }
    for (const r of rows) if (!known.has(r.username)) errors.push(`Line ${r.line}: there is no student "${r.username}".`);
    if (errors.length) throw badRequest(`Nothing was imported. ${errors.slice(0, 20).join(' ')}${errors.length > 20 ? ` (${errors.length - 20} more)` : ''}`);
    return db.tx(async (tx) => {
      for (const r of rows) {
        const uid = known.get(r.username);
        if (!r.percent && !r.minutes) await tx.query('DELETE FROM accommodations WHERE user_id = ?', [uid]);
        else {
          await tx.query(`INSERT INTO accommodations (user_id, extra_percent, extra_minutes, note, updated_by) VALUES (?, ?, ?, ?, ?)
            ON DUPLICATE KEY UPDATE extra_percent = VALUES(extra_percent), extra_minutes = VALUES(extra_minutes), note = VALUES(note), updated_by = VALUES(updated_by)`,
          [uid, r.percent, r.minutes, r.note, actorId]);
        }
        await tx.query(`INSERT INTO event_timing_log (event_id, actor_id, user_id, action, target, detail) VALUES (NULL, ?, ?, 'accommodation', ?, ?)`,
          [actorId, uid, `student ${r.username}`.slice(0, 255), r.percent || r.minutes ? `extra ${r.percent}% and ${r.minutes} min` : 'removed']);
      }
      // the events these students sit now (or later) learn of their new end times
      const events = await tx.text(`SELECT DISTINCT w.event_id FROM assignment_window w
        WHERE w.user_id IN (?) AND w.deadline > UTC_TIMESTAMP(3) - INTERVAL 1 DAY`, [rows.map((r) => known.get(r.username))]);
      for (const e of events) await tx.query('CALL event_timing_bump(?)', [e.event_id]);
      return { imported: rows.length };
    });
  }

  async function setApply(eventId, actorId, body) {
    const apply = new Form(body).bool('accommodations_apply');
    const r = await db.query('UPDATE events SET accommodations_apply = ? WHERE id = ?', [apply ? 1 : 0, eventId]);
    if (!r.affectedRows) throw notFound('No such event.');
    await db.query('CALL event_timing_bump(?)', [eventId]);
    await db.query(`INSERT INTO event_timing_log (event_id, actor_id, action, target, detail) VALUES (?, ?, 'accommodations', 'every student', ?)`,
      [eventId, actorId, apply ? 'applied' : 'not applied (the event opts out)']);
    return { apply };
  }

  return { list, importCsv, setApply };
}

module.exports = { createAccommodationsService };
