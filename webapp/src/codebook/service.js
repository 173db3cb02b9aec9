'use strict';
// Codebook: 1 query on the codebook_view materialized table, served by the
// (user_id, latest_save_time) index.
function createCodebookService({ db }) {
  async function forUser(userId) {
    return db.query(
      `SELECT assignment_id, kind, event_id, event_title, problem_id, title, latest_code,
              latest_save_time, submitted_at, score, marks, feedback
         FROM codebook_view
        WHERE user_id = ?
        ORDER BY latest_save_time DESC
        LIMIT 500`,
      [userId],
    );
  }
  return { forUser };
}
module.exports = { createCodebookService };
