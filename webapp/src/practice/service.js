'use strict';
// Practice: problems marked is_practice, one attempt (assignment of kind
// 'practice') per student and problem, created on first open.
const { notFound } = require('../shared/errors');
const { positiveId } = require('../editor/service');

function createPracticeService({ db }) {
  async function list(userId) {
    return db.query(
      `SELECT p.id, p.title, p.category, a.id AS assignment_id, cv.latest_save_time, cv.score
         FROM problems p
         LEFT JOIN assignments a    ON a.user_id = ? AND a.practice_problem_id = p.id
         LEFT JOIN codebook_view cv ON cv.assignment_id = a.id
        WHERE p.is_practice = 1
        ORDER BY p.category, p.title`,
      [userId],
    );
  }

  // One statement: creates the attempt or, when it exists, returns its id
  // (LAST_INSERT_ID(id) on the duplicate key).
  async function open(userId, problemId) {
    const pid = positiveId(problemId, 'problem id');
    const r = await db.query(
      `INSERT INTO assignments (kind, user_id, problem_id, title)
       SELECT 'practice', ?, p.id, p.title FROM problems p WHERE p.id = ? AND p.is_practice = 1
       ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id)`,
      [userId, pid],
    );
    if (!r.insertId) throw notFound('No such practice problem.');
    return r.insertId;
  }

  return { list, open };
}
module.exports = { createPracticeService };
