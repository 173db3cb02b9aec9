'use strict';
// Similarity reports per event question: a job row, the submissions it compares
// (each assignment's submitted code, else its latest saved code), the detector run
// in a separate low-priority process (runner.js), and the ranked pairs it stored.
// The problem's template and reference solution are given to Dolos as the ignored
// file: code every student was handed, or that matches the instructor's own
// solution, does not make two students similar.
const { runDetector } = require('./runner');
const { notFound, conflict } = require('../shared/errors');
const csv = require('../lib/csv');

// A job left "running" this long was orphaned by a webapp restart.
const STALE_MINUTES = 60;
// Dolos's parser for each environment (Pascal has none: compared as C tokens)
const DOLOS_LANGUAGE = { c: 'c', cpp: 'cpp', python3: 'python', java: 'java', nodejs: 'javascript', php: 'php' };

function createSimilarityService({ db, log = console, niceness = 19, timeoutS = 1800, maxPairs = 200, detector = runDetector }) {
  async function question(eventId, questionId) {
    const rows = await db.query(`SELECT q.id, q.position, q.event_id, e.title AS event_title, p.title AS problem_title, p.env,
        p.template_code, p.solution_code, sec.code AS section_code
      FROM event_questions q JOIN events e ON e.id = q.event_id JOIN problems p ON p.id = q.problem_id
      LEFT JOIN sections sec ON sec.id = q.section_id WHERE q.id = ? AND q.event_id = ?`, [questionId, eventId]);
    if (!rows[0]) throw notFound('There is no such question in this event.');
    return rows[0];
  }

  async function questions(eventId) {
    return db.query(`SELECT q.id, q.position, p.title AS problem_title, sec.code AS section_code,
        (SELECT j.id FROM similarity_jobs j WHERE j.question_id = q.id ORDER BY j.id DESC LIMIT 1) AS last_job
      FROM event_questions q JOIN problems p ON p.id = q.problem_id LEFT JOIN sections sec ON sec.id = q.section_id
      WHERE q.event_id = ? ORDER BY q.position, q.id`, [eventId]);
  }

  // Each student's code for the question: the submission, else the latest save.
  async function submissions(questionId) {
    return db.query(`SELECT a.id AS assignment_id, u.username, c.id AS code_id, c.code
      FROM assignments a JOIN users u ON u.id = a.user_id
      JOIN code c ON c.id = COALESCE(
        (SELECT s.code_id FROM submissions s WHERE s.assignment_id = a.id),
        (SELECT c2.id FROM code c2 WHERE c2.assignment_id = a.id ORDER BY c2.save_time DESC, c2.id DESC LIMIT 1))
      WHERE a.question_id = ? ORDER BY a.id`, [questionId]);
  }

  // Queues a job and starts it in the background; one job at a time per deployment.
  async function request({ eventId, questionId, userId }) {
    await question(eventId, questionId);
    const busy = await db.query(`SELECT id FROM similarity_jobs WHERE status IN ('queued','running')
      AND created_at > UTC_TIMESTAMP(3) - INTERVAL ${STALE_MINUTES} MINUTE LIMIT 1`);
    if (busy[0]) throw conflict('A similarity job is already running; this one can start when it has finished.');
    const r = await db.query('INSERT INTO similarity_jobs (event_id, question_id, requested_by) VALUES (?, ?, ?)', [eventId, questionId, userId]);
    const jobId = r.insertId;
    run(jobId).catch((err) => log.error(`similarity job ${jobId}: ${err.stack || err}`));
    return jobId;
  }

  async function run(jobId) {
    const claimed = await db.query("UPDATE similarity_jobs SET status = 'running', started_at = UTC_TIMESTAMP(3) WHERE id = ? AND status = 'queued'", [jobId]);
    if (claimed.affectedRows !== 1) return;
    try {
      const job = (await db.query('SELECT event_id, question_id FROM similarity_jobs WHERE id = ?', [jobId]))[0];
      const q = await question(job.event_id, job.question_id);
      const subs = await submissions(job.question_id);
      const ignored = [q.template_code, q.solution_code].filter((s) => s && s.trim()).join('\n');
      const result = await detector({
        language: DOLOS_LANGUAGE[q.env] || 'c',
        template: ignored,
        max_pairs: maxPairs,
        files: subs.map((s) => ({ id: s.code_id, code: s.code })),
      }, { niceness, timeoutS });
      let rank = 0;
      for (const p of result.pairs) {
        rank += 1;
        await db.query(`INSERT INTO similarity_pairs (job_id, rank_no, left_code_id, right_code_id, similarity, longest, overlap, fragments)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [jobId, rank, p.left, p.right, p.similarity, p.longest, p.overlap, JSON.stringify(p.fragments)]);
      }
      await db.query(`UPDATE similarity_jobs SET status = 'done', finished_at = UTC_TIMESTAMP(3), submissions = ?, run_ms = ?, max_rss_mb = ?
        WHERE id = ?`, [subs.length, result.ms, result.max_rss_mb, jobId]);
    } catch (err) {
      await db.query("UPDATE similarity_jobs SET status = 'failed', finished_at = UTC_TIMESTAMP(3), error = ? WHERE id = ?",
        [String(err.message || err).slice(0, 500), jobId]);
      throw err;
    }
  }

  async function job(eventId, jobId) {
    const rows = await db.query(`SELECT j.*, IF(j.status IN ('queued','running') AND j.created_at < UTC_TIMESTAMP(3) - INTERVAL ${STALE_MINUTES} MINUTE,
        'failed', j.status) AS state FROM similarity_jobs j WHERE j.id = ? AND j.event_id = ?`, [jobId, eventId]);
    if (!rows[0]) throw notFound('There is no such similarity report for this event.');
    return rows[0];
  }

  // The ranked pairs with both students and, when asked, both codes.
  async function pairs(jobId, { withCode = false, rankNo = null } = {}) {
    return db.query(`SELECT sp.rank_no, sp.similarity, sp.longest, sp.overlap, sp.fragments,
        sp.left_code_id, sp.right_code_id, lu.username AS left_user, ru.username AS right_user,
        la.id AS left_assignment, ra.id AS right_assignment${withCode ? ', lc.code AS left_code, rc.code AS right_code' : ''}
      FROM similarity_pairs sp
      JOIN code lc ON lc.id = sp.left_code_id JOIN assignments la ON la.id = lc.assignment_id JOIN users lu ON lu.id = la.user_id
      JOIN code rc ON rc.id = sp.right_code_id JOIN assignments ra ON ra.id = rc.assignment_id JOIN users ru ON ru.id = ra.user_id
      WHERE sp.job_id = ?${rankNo ? ' AND sp.rank_no = ?' : ''} ORDER BY sp.rank_no`, rankNo ? [jobId, rankNo] : [jobId]);
  }

  async function pairCsv(eventId, jobId) {
    const j = await job(eventId, jobId);
    const rows = await pairs(jobId);
    const body = csv.stringify([
      ['rank', 'student_a', 'student_b', 'similarity', 'longest_fragment_kgrams', 'overlap_kgrams', 'fragments', 'code_id_a', 'code_id_b'],
      ...rows.map((p) => [p.rank_no, p.left_user, p.right_user, p.similarity.toFixed(4), p.longest, p.overlap,
        JSON.parse(p.fragments).length, p.left_code_id, p.right_code_id]),
    ]);
    return { filename: `similarity-event${eventId}-question${j.question_id}-job${jobId}.csv`, body };
  }

  return { questions, question, submissions, request, run, job, pairs, pairCsv };
}

module.exports = { createSimilarityService };
