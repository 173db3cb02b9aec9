'use strict';
// Direct MariaDB access for fixtures and for checking what was stored.
const mysql = require('mysql2/promise');
const env = require('./env');

let pool;
function db() {
  if (!pool) {
    pool = mysql.createPool({ ...env.db, connectionLimit: 4, timezone: 'Z', multipleStatements: false });
    pool.pool.on('connection', (c) => c.query("SET time_zone = '+00:00'"));
  }
  return pool;
}
async function q(sql, params = []) { const [rows] = await db().query(sql, params); return rows; }
async function close() { if (pool) { await pool.end(); pool = null; } }

async function userId(username) { return (await q('SELECT id FROM users WHERE username = ?', [username]))[0].id; }

// The student's assignment for question `position` of the event titled `title`.
async function assignmentOf(username, eventTitle, position = 1) {
  const rows = await q(`SELECT a.id FROM assignments a JOIN users u ON u.id = a.user_id JOIN events e ON e.id = a.event_id
    JOIN event_questions qn ON qn.id = a.question_id WHERE u.username = ? AND e.title = ? AND qn.position = ?`, [username, eventTitle, position]);
  if (!rows[0]) throw new Error(`no assignment for ${username} in "${eventTitle}" Q${position}`);
  return rows[0].id;
}

async function codeCount(assignmentId) { return (await q('SELECT COUNT(*) AS n FROM code WHERE assignment_id = ?', [assignmentId]))[0].n; }

// An event with one question (problem 1) for the user's section, its schedule
// relative to now (minutes), published, with the user's assignment.
async function makeEvent({ tag, username, startMin, stopMin, extraMinutes = 0 }) {
  const u = (await q('SELECT id, section_id FROM users WHERE username = ?', [username]))[0];
  const ev = await q("INSERT INTO events (title, type, description, published_at) VALUES (?, 'exam', 'test fixture', UTC_TIMESTAMP(3))", [`test ${tag}`]);
  const eventId = ev.insertId;
  const qn = await q('INSERT INTO event_questions (event_id, position, problem_id, max_marks) VALUES (?, 1, 1, 10)', [eventId]);
  const sc = await q('INSERT INTO schedules (event_id, start_time, stop_time) VALUES (?, UTC_TIMESTAMP(3) + INTERVAL ? MINUTE, UTC_TIMESTAMP(3) + INTERVAL ? MINUTE)', [eventId, startMin, stopMin]);
  await q('INSERT INTO slots (schedule_id, event_id, section_id) VALUES (?, ?, ?)', [sc.insertId, eventId, u.section_id]);
  const a = await q("INSERT INTO assignments (kind, user_id, event_id, question_id, problem_id, extra_minutes) VALUES ('event', ?, ?, ?, 1, ?)", [u.id, eventId, qn.insertId, extraMinutes]);
  return { eventId, assignmentId: a.insertId };
}

async function dropEvent(eventId) {
  await q('DELETE FROM assignments WHERE event_id = ?', [eventId]);
  await q('DELETE FROM events WHERE id = ?', [eventId]);
}

module.exports = { q, close, userId, assignmentOf, codeCount, makeEvent, dropEvent };
