'use strict';
// Regrading a whole event's automatic marks after its problems' checkers, comparisons
// or weights changed (issue 29). Two steps, so nobody's marks move unseen:
//   preview: the graded code of every assignment (the graded_code view's choice, the
//            grader's rule: a submission, or after the deadline the last code before
//            it) is evaluated again by the engine and the new marks are kept in
//            regrade_marks beside the current ones;
//   apply:   an instructor confirms, and the new marks become the automatic grades
//            (auto_grades, assignments.score) in one transaction; an assignment whose
//            graded code changed since the preview keeps its mark (the grader has it).
// The engine is called as the instructor (their session), one assignment at a time,
// at most MAX_ASSIGNMENTS per run, so a preview of a large event takes minutes: the
// engine's own admission control keeps students' requests first.
const { autoGrade } = require('../exam/grader');
const { notFound, conflict, unavailable, HttpError } = require('../shared/errors');
const { readCookie, COOKIE } = require('../shared/session');
const { createEngineClient } = require('../lib/engine');

const MAX_ASSIGNMENTS = 5000;
const BUSY_RETRIES = 5;

// What the grader grades (exam/grader.js): a submission any time, else only once the deadline passed.
const TARGETS_SQL = `SELECT g.assignment_id, g.code_id, g.source, g.deadline <= UTC_TIMESTAMP(3) AS final,
       a.problem_id, a.score AS old_score, q.max_marks, c.code
  FROM graded_code g
  JOIN assignments a     ON a.id = g.assignment_id
  JOIN event_questions q ON q.id = a.question_id
  JOIN code c            ON c.id = g.code_id
 WHERE g.event_id = ? AND (g.source = 'submission' OR g.deadline <= UTC_TIMESTAMP(3))
 ORDER BY a.question_id, a.user_id LIMIT ${MAX_ASSIGNMENTS}`;

function createRegradeService({ db, engineUrl, fetchImpl = fetch, timeoutMs = 120000, sleep = (ms) => new Promise((r) => setTimeout(r, ms)) }) {
  const engine = createEngineClient({ engineUrl, fetchImpl, timeoutMs });
  async function evaluate(req, problemId, code) {
    const cookie = readCookie(req.headers.cookie, COOKIE);
    for (let attempt = 0; ; attempt++) {
      let res;
      try {
        res = await engine.evaluate({ cookie, csrf: req.session.csrf, problemId, code });
      } catch {
        throw unavailable('The code engine could not be reached: nothing was regraded. Try again in a moment.');
      }
      if ((res.status === 429 || res.status === 503) && attempt < BUSY_RETRIES) {
        await sleep(Math.min(10, Math.max(1, res.retryAfterS || 2)) * 1000);
        continue;
      }
      if (!res.ok || !res.body) throw new HttpError(502, `The code engine refused a regrade: ${res.body && res.body.error ? res.body.error : `HTTP ${res.status}`}. Nothing was applied.`);
      return res.body;
    }
  }

  // Computes the new marks of every graded assignment of the event; returns the run id.
  async function preview(req, eventId) {
    const ev = await db.query('SELECT id FROM events WHERE id = ? AND published_at IS NOT NULL', [eventId]);
    if (!ev[0]) throw notFound('No such published event.');
    const targets = await db.query(TARGETS_SQL, [eventId]);
    const marks = [];
    const failures = [];
    for (const t of targets) {
      const r = await evaluate(req, t.problem_id, t.code);
      const max = Number(t.max_marks);
      try {
        const { score, cases } = autoGrade(r, max);
        marks.push([t.assignment_id, t.code_id, t.source, t.final ? 1 : 0, t.old_score, score, max, Number(r.passed) || 0,
          Number(r.total) || cases.length, String(r.verdict || ''), r.compiled === false ? 0 : 1, JSON.stringify(cases)]);
      } catch (err) {
        failures.push(`assignment ${t.assignment_id}: ${err.message}`);
      }
    }
    if (failures.length) {
      // a checker that fails grades nobody: the instructor fixes it first
      throw conflict(`The regrade stopped: ${failures.length} assignment(s) could not be graded, e.g. ${failures[0]}. Nothing was applied.`);
    }
    return db.tx(async (tx) => {
      const run = await tx.query('INSERT INTO regrade_runs (event_id, created_by) VALUES (?, ?)', [eventId, req.session.uid]);
      for (let i = 0; i < marks.length; i += 200) {
        const chunk = marks.slice(i, i + 200);
        await tx.query(`INSERT INTO regrade_marks (run_id, assignment_id, code_id, source, final, old_score, new_score, max_score, passed, total, verdict, compiled, cases)
          VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`, chunk.flatMap((m) => [run.insertId, ...m]));
      }
      return run.insertId;
    });
  }

  // The run with old and new marks per assignment, and the totals per question and per student.
  async function get(eventId, runId) {
    const run = (await db.query(`SELECT r.id, r.event_id, r.created_at, r.applied_at, e.title AS event_title, u.username AS created_by
      FROM regrade_runs r JOIN events e ON e.id = r.event_id JOIN users u ON u.id = r.created_by WHERE r.id = ? AND r.event_id = ?`, [runId, eventId]))[0];
    if (!run) throw notFound('No such regrade of this event.');
    const rows = await db.query(`SELECT m.assignment_id, m.old_score, m.new_score, m.max_score, m.passed, m.total, m.verdict,
        u.username, q.position, p.title AS problem_title
      FROM regrade_marks m JOIN assignments a ON a.id = m.assignment_id JOIN users u ON u.id = a.user_id
      JOIN event_questions q ON q.id = a.question_id JOIN problems p ON p.id = a.problem_id
      WHERE m.run_id = ? ORDER BY (m.old_score <=> m.new_score), u.username, q.position`, [runId]);
    const sum = (list, k) => Math.round(list.reduce((s, r) => s + (Number(r[k]) || 0), 0) * 100) / 100;
    const group = (key) => {
      const m = new Map();
      for (const r of rows) { const k = key(r); if (!m.has(k)) m.set(k, []); m.get(k).push(r); }
      return [...m].map(([k, list]) => ({ key: k, old: sum(list, 'old_score'), new: sum(list, 'new_score'), max: sum(list, 'max_score'), n: list.length }));
    };
    return {
      run,
      rows,
      changed: rows.filter((r) => r.old_score === null || Number(r.old_score) !== Number(r.new_score)).length,
      questions: group((r) => `Q${r.position} ${r.problem_title}`).sort((a, b) => a.key.localeCompare(b.key)),
      students: group((r) => r.username).sort((a, b) => a.key.localeCompare(b.key)),
    };
  }

  // Writes the run's marks as the automatic grades; returns how many were applied and skipped.
  async function apply(eventId, runId) {
    return db.tx(async (tx) => {
      const run = (await tx.query('SELECT id, applied_at FROM regrade_runs WHERE id = ? AND event_id = ? FOR UPDATE', [runId, eventId]))[0];
      if (!run) throw notFound('No such regrade of this event.');
      if (run.applied_at) throw conflict('This regrade was applied already.');
      // only where the graded code is still the one regraded
      const fresh = await tx.query(`SELECT m.* FROM regrade_marks m JOIN graded_code g ON g.assignment_id = m.assignment_id AND g.code_id = m.code_id
        WHERE m.run_id = ?`, [runId]);
      for (const m of fresh) {
        await tx.query(`INSERT INTO auto_grades (assignment_id, code_id, source, final, score, max_score, passed, total, verdict, compiled, cases, graded_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(3))
          ON DUPLICATE KEY UPDATE code_id = VALUES(code_id), source = VALUES(source), final = VALUES(final), score = VALUES(score),
            max_score = VALUES(max_score), passed = VALUES(passed), total = VALUES(total), verdict = VALUES(verdict),
            compiled = VALUES(compiled), cases = VALUES(cases), graded_at = VALUES(graded_at)`,
        [m.assignment_id, m.code_id, m.source, m.final, m.new_score, m.max_score, m.passed, m.total, m.verdict, m.compiled, m.cases]);
        await tx.query('UPDATE assignments SET score = ?, graded_at = UTC_TIMESTAMP(3) WHERE id = ?', [m.new_score, m.assignment_id]);
      }
      await tx.query('UPDATE regrade_runs SET applied_at = UTC_TIMESTAMP(3) WHERE id = ?', [runId]);
      const total = (await tx.query('SELECT COUNT(*) AS n FROM regrade_marks WHERE run_id = ?', [runId]))[0].n;
      return { applied: fresh.length, skipped: Number(total) - fresh.length };
    });
  }

  return { preview, get, apply };
}

module.exports = { createRegradeService };
