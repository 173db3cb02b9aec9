'use strict';
// Scratchpad: free files (assignments of kind 'scratch', no problem).
const { badRequest, conflict } = require('../shared/errors');

const MAX_FILES = 200;

function createScratchpadService({ db }) {
  async function list(userId) {
    return db.query(
      `SELECT assignment_id, title, latest_save_time FROM codebook_view
        WHERE user_id = ? AND kind = 'scratch' ORDER BY latest_save_time DESC LIMIT ${MAX_FILES}`,
      [userId],
    );
  }

  // One statement: creates the file unless the student already has MAX_FILES.
  async function create(userId, title) {
    let t = typeof title === 'string' ? title.trim().replace(/\s+/g, ' ') : '';
    if (t.length > 200) throw badRequest('The name is too long (200 characters at most).');
    if (!t) t = `Untitled ${new Date().toISOString().slice(0, 16).replace('T', ' ')}`;
    const r = await db.query(
      `INSERT INTO assignments (kind, user_id, title)
       SELECT 'scratch', ?, ? FROM DUAL
        WHERE (SELECT COUNT(*) FROM assignments WHERE user_id = ? AND kind = 'scratch') < ${MAX_FILES}`,
      [userId, t, userId],
    );
    if (r.affectedRows !== 1) throw conflict(`You already have ${MAX_FILES} scratchpad files.`);
    return r.insertId;
  }

  return { list, create };
}
module.exports = { createScratchpadService };
