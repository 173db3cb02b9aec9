'use strict';
// Practice: problems marked is_practice, one attempt (assignment of kind
// 'practice') per student and problem, created on first open. A problem that is also a
// question of an event not over is held back (the view problems_held_for_exams): listed
// and opened again once that exam is over.
const HELD = 'EXISTS (SELECT 1 FROM problems_held_for_exams h WHERE h.problem_id = p.id)';
const { notFound } = require('../shared/errors');
const { positiveId } = require('../editor/service');

function createPracticeService({ db }) {
  async function list(userId) {
    return db.query(
      `SELECT p.id, p.title, p.category, a.id AS assignment_id, cv.latest_save_time, cv.score
         FROM problems p
         LEFT JOIN assignments a    ON a.user_id = ? AND a.practice_problem_id = p.id
         LEFT JOIN codebook_view cv ON cv.assignment_id = a.id
        WHERE p.is_practice = 1 AND p.archived_at IS NULL AND NOT ${HELD}
        ORDER BY p.category, p.title`,
      [userId],
    );
  }

  // The attempt of this student for this problem, created on first open.
  async function open(userId, problemId) {
    const pid = positiveId(problemId, 'problem id');
    const find = () => db.query(
      `SELECT a.id FROM assignments a JOIN problems p ON p.id = a.problem_id
        WHERE a.user_id = ? AND a.practice_problem_id = ? AND p.is_practice = 1 AND NOT ${HELD}`, [userId, pid]);
    let rows = await find();
    if (rows[0]) return rows[0].id;
    const r = await db.query(
      `INSERT IGNORE INTO assignments (kind, user_id, problem_id, title)
       SELECT 'practice', ?, p.id, p.title FROM problems p WHERE p.id = ? AND p.is_practice = 1 AND p.archived_at IS NULL AND NOT ${HELD}`,
      [userId, pid],
    );
    if (r.affectedRows === 1) return r.insertId;
    rows = await find(); // created meanwhile by a parallel request
    if (rows[0]) return rows[0].id;
    throw notFound('No such practice problem, or it is a question of an exam not over yet: it opens for practice after that exam.');
  }

  return { list, open };
}
module.exports = { createPracticeService };
