'use strict';
// Codebook: 1 query on the codebook_view materialized table, served by the
// (user_id, latest_save_time) index (events joined by primary key for the release of marks).
const { marksReleased } = require('../exam/release');

function createCodebookService({ db }) {
  async function forUser(userId) {
    return db.query(
      `SELECT cv.assignment_id, cv.kind, cv.event_id, cv.event_title, cv.problem_id, cv.title, cv.latest_code,
              cv.latest_save_time, cv.submitted_at,
              IF(hide.id IS NULL, cv.score, NULL) AS score, IF(hide.id IS NULL, cv.marks, NULL) AS marks,
              IF(hide.id IS NULL, cv.feedback, NULL) AS feedback
         FROM codebook_view cv
         -- an event's scores, marks and feedback show once its marks are released
         LEFT JOIN events hide ON hide.id = cv.event_id AND NOT (${marksReleased('hide')})
        WHERE cv.user_id = ?
        ORDER BY cv.latest_save_time DESC
        LIMIT 500`,
      [userId],
    );
  }
  return { forUser };
}
module.exports = { createCodebookService };
