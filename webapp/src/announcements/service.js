'use strict';
// Announcements to a running event, and (when the event allows it) questions from
// its students to staff. Students poll GET /announcements/feed; each worker answers
// from memory, refreshed every ANNOUNCE_REFRESH_MS on a timer (never per request):
// the events running now per section, their announcements, whether they take
// questions, and the answers given. So 3,000 students polling every 10 s cost
// memcached session reads and no MySQL statement.
const { badRequest, forbidden, notFound, conflict } = require('../shared/errors');
const { periodic } = require('../tools/periodic');

// "Running" for announcements: from 15 minutes before a section's start until an
// hour after its stop (students may still read them after the end).
const RUNNING_SQL = `SELECT sl.event_id, sl.section_id, e.title, COALESCE(q.enabled, 0) AS questions
  FROM slots sl JOIN schedules s ON s.id = sl.schedule_id JOIN events e ON e.id = sl.event_id
  LEFT JOIN student_question_settings q ON q.event_id = sl.event_id
  WHERE UTC_TIMESTAMP(3) >= s.start_time - INTERVAL 15 MINUTE AND UTC_TIMESTAMP(3) < s.stop_time + INTERVAL 60 MINUTE`;
const MAX_TEXT = 1000;

function text(v, what) {
  if (typeof v !== 'string' || !v.trim()) throw badRequest(`Write the ${what} first.`);
  const t = v.trim();
  if (t.length > MAX_TEXT) throw badRequest(`The ${what} is too long (${MAX_TEXT} characters at most).`);
  return t;
}

function createAnnouncementsService({ db, log = console, refreshMs = 1000, pollMs = 10000 }) {
  let bySection = new Map();        // section_id -> [{ id, title, questions }]
  let byEvent = new Map();          // event_id -> [{ id, message, at }]
  let answers = new Map();          // user_id -> [{ id, event_id, question, answer, at }]

  async function load() {
    const running = await db.query(RUNNING_SQL);
    const sections = new Map();
    const events = new Set();
    for (const r of running) {
      if (!sections.has(r.section_id)) sections.set(r.section_id, []);
      sections.get(r.section_id).push({ id: r.event_id, title: r.title, questions: !!r.questions });
      events.add(r.event_id);
    }
    const ev = new Map();
    const ans = new Map();
    if (events.size) {
      const ids = [...events];
      const marks = ids.map(() => '?').join(',');
      for (const a of await db.query(`SELECT id, event_id, message, created_at FROM announcements WHERE event_id IN (${marks}) ORDER BY id`, ids)) {
        if (!ev.has(a.event_id)) ev.set(a.event_id, []);
        ev.get(a.event_id).push({ id: a.id, message: a.message, at: a.created_at.toISOString() });
      }
      for (const q of await db.query(`SELECT id, event_id, user_id, question, answer, answered_at FROM student_questions
          WHERE event_id IN (${marks}) AND answered_at IS NOT NULL ORDER BY id`, ids)) {
        if (!ans.has(q.user_id)) ans.set(q.user_id, []);
        ans.get(q.user_id).push({ id: q.id, event_id: q.event_id, question: q.question, answer: q.answer, at: q.answered_at.toISOString() });
      }
    }
    bySection = sections;
    byEvent = ev;
    answers = ans;
  }
  const { start, stop, refresh } = periodic('announcements', refreshMs, load, log);

  // What a student's open exam page shows: no database access.
  function feed(session) {
    const events = session.role === 'student' ? (bySection.get(session.section_id) || []) : [];
    const mine = answers.get(session.uid) || [];
    return {
      poll_ms: pollMs,
      events: events.map((e) => ({
        id: e.id, title: e.title, questions: e.questions,
        announcements: byEvent.get(e.id) || [],
        answers: mine.filter((a) => a.event_id === e.id),
      })),
    };
  }

  async function announce(eventId, message, userId) {
    const r = await db.query('INSERT INTO announcements (event_id, author_id, message) VALUES (?, ?, ?)', [eventId, userId, text(message, 'announcement')]);
    await refresh();
    return r.insertId;
  }

  async function ask(session, eventId, question) {
    const running = () => (session.role === 'student' ? (bySection.get(session.section_id) || []) : []).find((x) => x.id === eventId);
    // this worker's copy may be up to refreshMs behind an event that just started: look again once
    if (!running() && session.role === 'student') await refresh();
    if (!running()) throw notFound('This event is not running for you.');
    // the setting itself, not the cache: staff may have just switched it
    const allowed = await db.query('SELECT enabled FROM student_question_settings WHERE event_id = ?', [eventId]);
    if (!allowed[0] || !allowed[0].enabled) throw forbidden('This event does not take questions; raise your hand.');
    const t = text(question, 'question');
    const open = await db.query('SELECT COUNT(*) AS n FROM student_questions WHERE event_id = ? AND user_id = ? AND answered_at IS NULL', [eventId, session.uid]);
    if (open[0].n >= 3) throw conflict('You have three unanswered questions already; wait for an answer.');
    const r = await db.query('INSERT INTO student_questions (event_id, user_id, question) VALUES (?, ?, ?)', [eventId, session.uid, t]);
    return r.insertId;
  }

  async function answer(eventId, questionId, reply, userId) {
    const r = await db.query('UPDATE student_questions SET answer = ?, answered_by = ?, answered_at = UTC_TIMESTAMP(3) WHERE id = ? AND event_id = ?',
      [text(reply, 'answer'), userId, questionId, eventId]);
    if (r.affectedRows !== 1) throw notFound('There is no such question in this event.');
    await refresh();
  }

  async function setQuestions(eventId, enabled) {
    await db.query('INSERT INTO student_question_settings (event_id, enabled) VALUES (?, ?) ON DUPLICATE KEY UPDATE enabled = VALUES(enabled)', [eventId, enabled ? 1 : 0]);
    await refresh();
  }

  async function forStaff(eventId) {
    const [list, questions, settings] = await Promise.all([
      db.query(`SELECT a.id, a.message, a.created_at, u.username AS author FROM announcements a LEFT JOIN users u ON u.id = a.author_id
        WHERE a.event_id = ? ORDER BY a.id DESC`, [eventId]),
      db.query(`SELECT q.id, q.question, q.answer, q.created_at, q.answered_at, u.username FROM student_questions q JOIN users u ON u.id = q.user_id
        WHERE q.event_id = ? ORDER BY q.answered_at IS NULL DESC, q.id DESC LIMIT 500`, [eventId]),
      db.query('SELECT enabled FROM student_question_settings WHERE event_id = ?', [eventId]),
    ]);
    return { list, questions, questionsEnabled: !!(settings[0] && settings[0].enabled) };
  }

  return { start, stop, refresh, feed, announce, ask, answer, setQuestions, forStaff };
}

module.exports = { createAnnouncementsService };
