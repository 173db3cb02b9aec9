'use strict';
// Exam rules staff set per event: what is graded (the last submission, or the
// last save at the deadline) and the release of marks to students. Students see
// automatic scores, marks and feedback of an event only once it is released.
const { Form } = require('../lib/form');
const { marksReleased } = require('./release');
const { notFound } = require('../shared/errors');

const BASES = ['submission', 'last_save'];

function createExamService({ db }) {
  async function setBasis(eventId, body) {
    const f = new Form(body);
    const basis = f.oneOf('graded_basis', BASES, { label: 'What is graded' });
    f.check();
    const r = await db.query('UPDATE events SET graded_basis = ? WHERE id = ?', [basis, eventId]);
    if (!r.affectedRows) throw notFound('No such event.');
    // everything graded so far is looked at again under the new rule
    await db.query(`INSERT INTO grading_queue (assignment_id, due_at)
      SELECT assignment_id, UTC_TIMESTAMP(3) FROM auto_grades ag JOIN assignments a ON a.id = ag.assignment_id WHERE a.event_id = ?
      ON DUPLICATE KEY UPDATE due_at = VALUES(due_at), version = grading_queue.version + 1, attempts = 0`, [eventId]);
    return { basis };
  }

  async function release(eventId, released) {
    const r = await db.query(`UPDATE events SET grades_released_at = ${released ? 'COALESCE(grades_released_at, UTC_TIMESTAMP(3))' : 'NULL'} WHERE id = ?`, [eventId]);
    if (!r.affectedRows) throw notFound('No such event.');
    return { released };
  }

  // The grading card of the event page: rule, release, grader progress.
  async function gradingState(eventId) {
    const [row] = await db.query(`SELECT e.graded_basis, e.grades_released_at,
        (SELECT COUNT(*) FROM assignments a WHERE a.event_id = e.id) AS assignments,
        (SELECT COUNT(*) FROM auto_grades ag JOIN assignments a ON a.id = ag.assignment_id WHERE a.event_id = e.id) AS auto_graded,
        (SELECT COUNT(*) FROM auto_grades ag JOIN assignments a ON a.id = ag.assignment_id WHERE a.event_id = e.id AND ag.final = 1) AS final,
        (SELECT COUNT(*) FROM grading_queue gq JOIN assignments a ON a.id = gq.assignment_id WHERE a.event_id = e.id AND gq.due_at <= UTC_TIMESTAMP(3)) AS waiting
      FROM events e WHERE e.id = ?`, [eventId]);
    if (!row) throw notFound('No such event.');
    return row;
  }

  // The student's view of one event: its rules, their window, their questions.
  async function forStudent(userId, eventId) {
    const rows = await db.query(`SELECT e.id AS event_id, e.title, e.type, e.description, e.graded_basis, e.grades_released_at,
        w.start_time, w.deadline, w.waiting, w.scheduled_start, w.scheduled_stop, a.id AS assignment_id, q.position, q.max_marks, p.title AS problem_title,
        sub.submitted_at, sub.automatic, cv.latest_save_time,
        IF(${marksReleased('e')}, a.score, NULL) AS score, UTC_TIMESTAMP(3) AS now_utc
      FROM assignment_window w
      JOIN events e ON e.id = w.event_id AND e.published_at IS NOT NULL
      JOIN assignments a ON a.id = w.assignment_id
      JOIN event_questions q ON q.id = a.question_id
      JOIN problems p ON p.id = a.problem_id
      LEFT JOIN submissions sub ON sub.assignment_id = a.id
      LEFT JOIN codebook_view cv ON cv.assignment_id = a.id
      WHERE w.event_id = ? AND w.user_id = ? ORDER BY q.position`, [eventId, userId]);
    if (!rows.length) throw notFound('No such event of yours.');
    const f = rows[0];
    const now = new Date(f.now_utc);
    const waiting = !!Number(f.waiting);
    // a common start not given yet: the planned times, and the page waits for the start
    const stop = waiting ? f.scheduled_stop : rows.reduce((m, r) => (r.deadline > m ? r.deadline : m), f.deadline);
    const start = waiting ? f.scheduled_start : f.start_time;
    const timing = (await db.query('SELECT version FROM event_timing WHERE event_id = ?', [eventId]))[0];
    return {
      event: { id: f.event_id, title: f.title, type: f.type, description: f.description, basis: f.graded_basis, released: f.grades_released_at },
      start, stop, now, timingVersion: timing ? Number(timing.version) : 0,
      state: waiting ? 'waiting' : (now < start ? 'upcoming' : (now < stop ? 'open' : 'closed')),
      questions: rows.map((r) => ({
        id: r.assignment_id, position: r.position, title: r.problem_title, maxMarks: r.max_marks,
        submittedAt: r.submitted_at, automatic: !!r.automatic, savedAt: r.latest_save_time, score: r.score,
      })),
    };
  }

  return { setBasis, release, gradingState, forStudent, BASES };
}

module.exports = { createExamService, BASES };
