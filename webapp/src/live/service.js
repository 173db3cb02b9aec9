'use strict';
// The live page of an event: per student of the scheduled sections, last sign-in,
// questions saved and submitted, last activity (latest saved code of any kind:
// save, compile, run, evaluate, submit) and the evaluation score so far. Read from
// codebook_view (index on event_id), one query for the students, one for the
// event's window.
const { notFound } = require('../shared/errors');

// "signed in" for the event: since three hours before its first start
const LOGIN_WINDOW_H = 3;

function createLiveService({ db }) {
  async function snapshot(eventId) {
    const [ev] = await db.query(`SELECT e.id, e.title, e.type, e.published_at, UTC_TIMESTAMP(3) AS now,
        (SELECT MIN(s.start_time) FROM schedules s JOIN slots sl ON sl.schedule_id = s.id WHERE s.event_id = e.id) AS first_start,
        (SELECT MAX(s.stop_time) FROM schedules s JOIN slots sl ON sl.schedule_id = s.id WHERE s.event_id = e.id) AS last_stop,
        (SELECT COUNT(DISTINCT position) FROM event_questions q WHERE q.event_id = e.id) AS questions
      FROM events e WHERE e.id = ?`, [eventId]);
    if (!ev) throw notFound('No such event.');
    const students = await db.query(`SELECT u.id AS user_id, u.username, u.name, sec.code AS section, u.last_login_at,
        COUNT(*) AS questions, SUM(cv.latest_save_time IS NOT NULL) AS saved, SUM(cv.submitted_at IS NOT NULL) AS submitted,
        MAX(cv.latest_save_time) AS last_activity, SUM(cv.score) AS score, MAX(a.extra_minutes) AS extra_minutes,
        MAX(w.deadline) AS ends, MAX(w.paused_since) AS paused_since, MAX(w.accommodation_s) AS accommodation_s
      FROM codebook_view cv JOIN assignments a ON a.id = cv.assignment_id
      LEFT JOIN assignment_window w ON w.assignment_id = a.id
      JOIN users u ON u.id = cv.user_id LEFT JOIN sections sec ON sec.id = u.section_id
      WHERE cv.event_id = ? AND cv.kind = 'event'
      GROUP BY u.id, u.username, u.name, sec.code, u.last_login_at
      ORDER BY sec.code, u.username`, [eventId]);
    const since = ev.first_start ? new Date(ev.first_start.getTime() - LOGIN_WINDOW_H * 3600000) : null;
    const totals = { students: students.length, logged_in: 0, saved: 0, submitted_all: 0, submitted_any: 0 };
    for (const s of students) {
      s.saved = Number(s.saved); s.submitted = Number(s.submitted); s.questions = Number(s.questions);
      s.score = s.score === null ? null : Math.round(Number(s.score) * 100) / 100;
      s.logged_in = !!(s.last_login_at && since && s.last_login_at >= since);
      if (s.logged_in) totals.logged_in++;
      if (s.saved) totals.saved++;
      if (s.submitted) totals.submitted_any++;
      if (s.submitted && s.submitted === s.questions) totals.submitted_all++;
    }
    return { event: ev, students, totals, now: ev.now };
  }
  return { snapshot, LOGIN_WINDOW_H };
}

module.exports = { createLiveService };
