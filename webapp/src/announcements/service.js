'use strict';
// Announcements to a running event, and (when the event allows it) questions from
// its students to staff. Students poll GET /announcements/feed; each worker answers
// from memory, refreshed every ANNOUNCE_REFRESH_MS on a timer (never per request):
// the events running now per section, their announcements, whether they take
// questions, and the answers given. So 3,000 students polling every 10 s cost
// memcached session reads and no MySQL statement.
//
// Notices that arrive (issue 30): an announcement goes to the whole event, a room
// (address ranges: the students signed in from there when it is sent) or one
// student, and stays on each student's page until they acknowledge it; a student
// who was offline gets every unacknowledged one on their next poll. The workers
// keep the acknowledgements in memory too, reading only the new ones (id > last).
// Staff see who has not acknowledged each one.
const { badRequest, forbidden, notFound, conflict } = require('../shared/errors');
const { periodic } = require('../lib/periodic');
const { parseRanges } = require('../lockdown/ranges');
const { roomStudents, describe } = require('../exam/pauses');

const SCOPES = new Set(['event', 'room', 'student']);
// the staff page names at most this many students who have not acknowledged
const MAX_UNSEEN_NAMES = 300;

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
  let recipients = new Map();       // announcement id -> Set(user_id), for room and student notices
  const acks = new Set();           // "announcementId:userId" acknowledged
  let lastAckId = 0;

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
      const annIds = [];
      for (const a of await db.query(`SELECT id, event_id, message, scope, created_at FROM announcements WHERE event_id IN (${marks}) ORDER BY id`, ids)) {
        if (!ev.has(a.event_id)) ev.set(a.event_id, []);
        ev.get(a.event_id).push({ id: a.id, message: a.message, at: a.created_at.toISOString(), scoped: a.scope !== 'event' });
        annIds.push(a.id);
      }
      const rec = new Map();
      for (const r of await db.query(`SELECT r.announcement_id, r.user_id FROM announcement_recipients r
          JOIN announcements a ON a.id = r.announcement_id WHERE a.event_id IN (${marks})`, ids)) {
        if (!rec.has(r.announcement_id)) rec.set(r.announcement_id, new Set());
        rec.get(r.announcement_id).add(r.user_id);
      }
      recipients = rec;
      if (annIds.length) {
        const am = annIds.map(() => '?').join(',');
        for (const k of await db.query(`SELECT id, announcement_id, user_id FROM announcement_acks
            WHERE id > ? AND announcement_id IN (${am}) ORDER BY id`, [lastAckId, ...annIds])) {
          acks.add(`${k.announcement_id}:${k.user_id}`);
          if (k.id > lastAckId) lastAckId = k.id;
        }
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
        announcements: (byEvent.get(e.id) || []).filter((a) => !a.scoped || (recipients.get(a.id) || new Set()).has(session.uid))
          .map((a) => ({ id: a.id, message: a.message, at: a.at, acked: acks.has(`${a.id}:${session.uid}`) })),
        answers: mine.filter((a) => a.event_id === e.id),
      })),
    };
  }

  // body: message, and scope 'event' (default), 'room' (ranges) or 'student' (username).
  async function announce(eventId, body, userId) {
    const b = body || {};
    const message = text(b.message, 'announcement');
    const scope = b.scope === undefined || b.scope === '' ? 'event' : String(b.scope);
    if (!SCOPES.has(scope)) throw badRequest('Send the announcement to the event, a room or one student.');
    let target = '';
    let users = null;
    if (scope === 'room') {
      const p = parseRanges(b.ranges);
      if (p.errors.length) throw badRequest(p.errors[0]);
      if (!p.list) throw badRequest('Give the room\'s addresses, e.g. 10.1.2.0/24.');
      target = p.ranges;
      users = [...await roomStudents(db, eventId, p.list, 'send it to the event, or to students one by one')];
      if (!users.length) throw conflict(`No student of this event is signed in from ${target}: nothing was sent.`);
    } else if (scope === 'student') {
      target = String(b.username || '').trim().slice(0, 64);
      const u = await db.query('SELECT DISTINCT a.user_id FROM assignments a JOIN users u ON u.id = a.user_id WHERE a.event_id = ? AND u.username = ?', [eventId, target]);
      if (!u[0]) throw badRequest(`"${target}" is not a student of this event.`);
      users = [u[0].user_id];
    }
    const r = await db.query('INSERT INTO announcements (event_id, author_id, message, scope, target) VALUES (?, ?, ?, ?, ?)', [eventId, userId, message, scope, target]);
    if (users) {
      await db.pool.query('INSERT INTO announcement_recipients (announcement_id, user_id) VALUES ?', [users.map((u) => [r.insertId, u])]);
    }
    await db.query("INSERT INTO event_timing_log (event_id, actor_id, action, target, detail) VALUES (?, ?, 'notice', ?, ?)",
      [eventId, userId, describe(scope, target).slice(0, 255), message.slice(0, 500)]);
    await refresh();
    return r.insertId;
  }

  // "I have read it": only for an announcement on the student's own page.
  async function ack(session, announcementId) {
    const addressed = () => (session.role === 'student' ? (bySection.get(session.section_id) || []) : [])
      .some((e) => (byEvent.get(e.id) || []).some((a) => a.id === announcementId && (!a.scoped || (recipients.get(a.id) || new Set()).has(session.uid))));
    if (!addressed() && session.role === 'student') await refresh();
    if (!addressed()) throw notFound('There is no such announcement for you.');
    await db.query('INSERT IGNORE INTO announcement_acks (announcement_id, user_id) VALUES (?, ?)', [announcementId, session.uid]);
    acks.add(`${announcementId}:${session.uid}`);
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

  // An answer goes to the student who asked; toAll also announces the question (not
  // who asked it) and the answer to every student of the event.
  async function answer(eventId, questionId, reply, userId, toAll = false) {
    const t = text(reply, 'answer');
    const r = await db.query('UPDATE student_questions SET answer = ?, answered_by = ?, answered_at = UTC_TIMESTAMP(3) WHERE id = ? AND event_id = ?',
      [t, userId, questionId, eventId]);
    if (r.affectedRows !== 1) throw notFound('There is no such question in this event.');
    if (toAll) {
      const [q] = await db.query('SELECT question FROM student_questions WHERE id = ?', [questionId]);
      await announce(eventId, { message: `A question: “${q.question}” Answer: ${t}`.slice(0, MAX_TEXT) }, userId);
    }
    await refresh();
  }

  async function setQuestions(eventId, enabled) {
    await db.query('INSERT INTO student_question_settings (event_id, enabled) VALUES (?, ?) ON DUPLICATE KEY UPDATE enabled = VALUES(enabled)', [eventId, enabled ? 1 : 0]);
    await refresh();
  }

  async function forStaff(eventId) {
    const [list, questions, settings] = await Promise.all([
      db.query(`SELECT a.id, a.message, a.scope, a.target, a.created_at, u.username AS author,
          (SELECT COUNT(*) FROM announcement_acks k WHERE k.announcement_id = a.id) AS acked
        FROM announcements a LEFT JOIN users u ON u.id = a.author_id
        WHERE a.event_id = ? ORDER BY a.id DESC`, [eventId]),
      db.query(`SELECT q.id, q.question, q.answer, q.created_at, q.answered_at, u.username FROM student_questions q JOIN users u ON u.id = q.user_id
        WHERE q.event_id = ? ORDER BY q.answered_at IS NULL DESC, q.id DESC LIMIT 500`, [eventId]),
      db.query('SELECT enabled FROM student_question_settings WHERE event_id = ?', [eventId]),
    ]);
    // who has not acknowledged each: its recipients, or every student of the event
    const unseen = list.length ? await db.query(`SELECT a.id AS announcement_id, u.username
        FROM announcements a
        JOIN (SELECT DISTINCT user_id FROM assignments WHERE event_id = ?) st
        JOIN users u ON u.id = st.user_id
        LEFT JOIN announcement_recipients r ON r.announcement_id = a.id AND r.user_id = st.user_id
        LEFT JOIN announcement_acks k ON k.announcement_id = a.id AND k.user_id = st.user_id
       WHERE a.event_id = ? AND k.id IS NULL AND (a.scope = 'event' OR r.user_id IS NOT NULL)
       ORDER BY a.id, u.username`, [eventId, eventId]) : [];
    for (const a of list) {
      const names = unseen.filter((x) => x.announcement_id === a.id).map((x) => x.username);
      a.unseen = names.slice(0, MAX_UNSEEN_NAMES);
      a.unseenCount = names.length;
    }
    return { list, questions, questionsEnabled: !!(settings[0] && settings[0].enabled) };
  }

  return { start, stop, refresh, feed, announce, ack, ask, answer, setQuestions, forStaff };
}

module.exports = { createAnnouncementsService };
