'use strict';
// Exam rules staff set per event: what is graded (the last submission, or the
// last save at the deadline) and the release of marks to students. Students see
// automatic scores, marks and feedback of an event only once it is released.
const { Form } = require('../staff/form');
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

  return { setBasis, release, gradingState, BASES };
}

module.exports = { createExamService, BASES };
