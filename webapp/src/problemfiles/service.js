'use strict';
// A problem's support files (rdb 036 problem_files; issue 28, programs of several files):
// read-only data its program opens, a header, or the instructor's source around the
// student's function (a C main calling it), given to every compile and run of the problem.
// Each change bumps problems.updated_at in the same transaction: the engine caches a
// problem's files by (problem id, updated_at), as its test cases.
const fs = require('node:fs');
const path = require('node:path');
const { notFound, HttpError } = require('../shared/errors');

// as a student's code (MAX_CODE_BYTES): a request body holds it
const MAX_BYTES = 64 * 1024;
// the sandbox shows a run at most 32 files (sandbox/src/prutor-box.c MAX_RUN_FILES): the program and these
const MAX_FILES = 20;
// Jobe's rule for a file name in the run directory (engine/src/Jobe/Runs.php validFileName)
const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

// the student's own file name per environment: a support file may not take it (Java names the
// student's file after its class, so an instructor's Main.java beside a student's Solution is fine)
function loadSourceNames() {
  for (const p of [path.resolve(__dirname, '../../../nosql/environments.json'), path.resolve(__dirname, '../../../engine/config/environments.json')]) {
    try {
      return Object.fromEntries(JSON.parse(fs.readFileSync(p, 'utf8'))
        .map((e) => [String(e.slug), e.source_filename_from ? '' : String(e.source_filename || '')]));
    } catch { /* next */ }
  }
  return {};
}
const SOURCE_NAMES = loadSourceNames();

function bad(message, field, values) {
  const err = new HttpError(400, message);
  err.fields = { [field]: message };
  err.values = values;
  return err;
}

function createProblemFilesService({ db }) {
  async function list(problemId) {
    const [p] = await db.query('SELECT id, title, env FROM problems WHERE id = ?', [problemId]);
    if (!p) throw notFound('No such problem.');
    const files = await db.query(`SELECT id, name, contents, LENGTH(contents) AS bytes, shown_to_students
      FROM problem_files WHERE problem_id = ? ORDER BY name`, [problemId]);
    return { problem: p, files };
  }

  // adds a file, or replaces the one of that name
  async function put(problemId, body) {
    const values = { name: String(body.name || '').trim(), contents: String(body.contents ?? ''), shown_to_students: body.shown_to_students ? '1' : '' };
    if (!NAME.test(values.name)) throw bad('A file name is letters, digits, "_", "." and "-" (at most 128), and does not start with "." or "-".', 'name', values);
    if (values.name === 'prog') throw bad('"prog" is the name of the compiled program.', 'name', values);
    if (Buffer.byteLength(values.contents) > MAX_BYTES) throw bad(`A support file holds at most ${MAX_BYTES / 1024} KiB.`, 'contents', values);
    return db.tx(async (tx) => {
      const [p] = await tx.query('SELECT id, env FROM problems WHERE id = ? FOR UPDATE', [problemId]);
      if (!p) throw notFound('No such problem.');
      if (values.name === SOURCE_NAMES[p.env]) throw bad(`"${values.name}" is the student's own file in this environment: name the support file otherwise.`, 'name', values);
      const [{ n }] = await tx.query('SELECT COUNT(*) AS n FROM problem_files WHERE problem_id = ? AND name <> ?', [problemId, values.name]);
      if (n >= MAX_FILES) throw bad(`A problem has at most ${MAX_FILES} support files.`, 'name', values);
      await tx.query(`INSERT INTO problem_files (problem_id, name, contents, shown_to_students) VALUES (?, ?, ?, ?)
        ON DUPLICATE KEY UPDATE contents = VALUES(contents), shown_to_students = VALUES(shown_to_students)`,
      [problemId, values.name, values.contents, values.shown_to_students ? 1 : 0]);
      await tx.query('UPDATE problems SET updated_at = CURRENT_TIMESTAMP(3) WHERE id = ?', [problemId]);
    });
  }

  async function remove(problemId, fileId) {
    await db.tx(async (tx) => {
      const r = await tx.query('DELETE FROM problem_files WHERE id = ? AND problem_id = ?', [fileId, problemId]);
      if (!r.affectedRows) throw notFound('No such support file.');
      await tx.query('UPDATE problems SET updated_at = CURRENT_TIMESTAMP(3) WHERE id = ?', [problemId]);
    });
  }

  return { list, put, remove };
}

module.exports = { createProblemFilesService, MAX_BYTES, MAX_FILES };
