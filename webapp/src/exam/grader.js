'use strict';
// The automatic grader, run by the webapp's cluster primary (one per deployment:
// a MySQL named lock elects it). What is graded is decided by the database view
// `graded_code` (rdb/migrations/020): this loop only asks it, has the engine
// evaluate exactly that code against every test case, and stores the result as
// the assignment's automatic score (auto_grades, assignments.score), the one
// every page shows.
//
// Work arrives in `grading_queue`: a submission queues its assignment at once (a
// trigger); a schedule whose stop time has passed queues all its assignments,
// each due at its own deadline (the sweep below); a change of a student's extra
// time queues it again. Before the deadline a submission is graded provisionally;
// at the deadline the grade becomes final, and a student who never submitted gets
// the last code stored before the deadline submitted automatically. Late versions
// are never graded. GRADER_CONCURRENCY engine calls at a time (default 2, about the
// sandbox slots; the engine's admission control bounds staff, so the grader cannot
// take more than its share of slots from students); 0 turns it off. Its session is
// marked background, so the engine never gives it the last free sandbox slot; 429/503
// answers (busy) are retried a few seconds later without counting as a failed attempt.
//
// Grading is background work: nobody waits for it during the exam (a provisional
// score), and a final grade depends only on what was stored before the deadline,
// not on when it is computed. So while the host's CPUs are saturated the grader
// leaves them to sign-ins, pages and saves: it grades one batch (GRADER_CONCURRENCY
// assignments) every GRADER_BUSY_EVERY_S instead of everything due, and catches up
// once the pressure is below four fifths of the threshold. Saturated: Linux's CPU
// pressure (PSI, "some avg10": the share of the last 10 s in which runnable work
// waited for a core) at or above GRADER_YIELD_PRESSURE percent; without PSI, the
// 1-minute load average per core at or above GRADER_YIELD_PRESSURE / 50. Measured
// here: 10-26% during one browser test file, mostly 44-56% through `make test`, up
// to 77% in its overload suite's burst. It is this host's pressure: with the engine
// on other hosts it says less (GRADER_YIELD_PRESSURE=0 turns this off).
const fs = require('node:fs');
const os = require('node:os');
const { createDb } = require('../shared/db');
const { createMemcache } = require('../shared/memcache');
const { newId, mintBackgroundSession } = require('../shared/session');
const { createEngineClient } = require('../lib/engine');

const GRADER_USERNAME = 'prutor-grader';
const SESSION_TTL_S = 3600;
const MAX_ATTEMPTS = 10;

const SWEEP_SQL = `SELECT s.id, s.stop_time FROM schedules s
  JOIN events e ON e.id = s.event_id AND e.published_at IS NOT NULL
  LEFT JOIN deadline_sweeps d ON d.schedule_id = s.id
 WHERE s.stop_time <= UTC_TIMESTAMP(3) AND (d.schedule_id IS NULL OR d.stop_time <> s.stop_time)`;

// each due at its own deadline (the view's rule: extra time, accommodations, pauses)
const QUEUE_SCHEDULE_SQL = `INSERT INTO grading_queue (assignment_id, due_at)
SELECT w.assignment_id, w.deadline
  FROM schedules s JOIN slots sl ON sl.schedule_id = s.id
  JOIN users u ON u.section_id = sl.section_id
  JOIN assignment_window w ON w.event_id = sl.event_id AND w.user_id = u.id
 WHERE s.id = ?
ON DUPLICATE KEY UPDATE due_at = LEAST(grading_queue.due_at, VALUES(due_at)), version = grading_queue.version + 1, attempts = 0`;

const TARGET_SQL = `SELECT g.assignment_id, g.code_id, g.source, g.deadline, a.problem_id, q.max_marks, p.template_code,
       p.updated_at AS problem_updated_at, c.code, c.save_time,
       ag.code_id AS graded_code_id, ag.final AS graded_final, ag.graded_at,
       sub.assignment_id AS has_submission, UTC_TIMESTAMP(3) AS now_utc
  FROM graded_code g
  JOIN assignments a        ON a.id = g.assignment_id
  JOIN event_questions q    ON q.id = a.question_id
  JOIN problems p           ON p.id = a.problem_id
  LEFT JOIN code c          ON c.id = g.code_id
  LEFT JOIN auto_grades ag  ON ag.assignment_id = g.assignment_id
  LEFT JOIN submissions sub ON sub.assignment_id = g.assignment_id
 WHERE g.assignment_id = ?`;

// An engine evaluation (score out of 100) as an automatic grade out of the question's
// max marks, and its cases as auto_grades keeps them (credit: the share of each case's
// weight earned, partial with a checker). A checker that failed is no grade: it is an
// error, retried and logged for the instructor, never a student's zero.
function autoGrade(r, max) {
  if (r.verdict === 'internal_error') {
    const why = (Array.isArray(r.checker_errors) && r.checker_errors[0]) ? `case ${r.checker_errors[0].position}: ${r.checker_errors[0].error}` : 'the sandbox failed';
    throw new Error(`internal error while grading (${String(why).slice(0, 300)})`);
  }
  return {
    score: Math.round((Number(r.score) || 0) * max) / 100,
    cases: (Array.isArray(r.cases) ? r.cases : []).map((c) => ({
      position: c.position, visibility: c.visibility, passed: !!c.passed, verdict: c.verdict || (c.passed ? 'accepted' : null), time_ms: c.time_ms,
      ...(c.credit !== undefined ? { credit: c.credit } : {}),
    })),
  };
}

// The same program text, but for line endings and trailing white space.
function sameText(a, b) {
  const norm = (x) => String(x || '').replace(/\r\n?/g, '\n').replace(/[ \t]+$/gm, '').trimEnd();
  return norm(a) === norm(b);
}

// How busy the host's CPUs are, in percent: PSI when the kernel has it, else the load
// average per core scaled so that 1.0 per core reads as 50.
function hostCpuPressure() {
  try {
    const m = /^some avg10=([\d.]+)/m.exec(fs.readFileSync('/proc/pressure/cpu', 'utf8'));
    if (m) return Number(m[1]);
  } catch { /* no PSI here */ }
  const cores = Math.max(1, os.availableParallelism ? os.availableParallelism() : os.cpus().length);
  return (os.loadavg()[0] / cores) * 50;
}

// How much this tick may grade: 'all' that is due, one 'batch', or 'none'.
function createPacer({ yieldPressure, busyEveryMs, cpuPressure = hostCpuPressure, now = Date.now, log = console }) {
  let busy = false;
  let lastBatch = -Infinity;
  return function allowance() {
    const pressure = cpuPressure();
    // once busy, it stays so until the pressure is a fifth below the threshold (no flapping)
    if (!(yieldPressure > 0) || pressure < (busy ? yieldPressure * 0.8 : yieldPressure)) {
      if (busy) log.info(`[grader] host no longer busy (CPU pressure ${pressure.toFixed(0)}%): grading all that is due`);
      busy = false;
      return 'all';
    }
    if (!busy) log.info(`[grader] host busy (CPU pressure ${pressure.toFixed(0)}%): one batch every ${Math.round(busyEveryMs / 1000)} s`);
    busy = true;
    const t = now();
    if (t - lastBatch < busyEveryMs) return 'none';
    lastBatch = t;
    return 'batch';
  };
}

function createGrader({ cfg, log = console, fetchImpl = fetch, cpuPressure = hostCpuPressure }) {
  const concurrency = cfg.grader.concurrency;
  const allowance = createPacer({ yieldPressure: cfg.grader.yieldPressure, busyEveryMs: cfg.grader.busyEveryS * 1000, cpuPressure, log });
  const db = createDb({ ...cfg.db, poolSize: concurrency + 2 });
  const mc = createMemcache({ ...cfg.memcached, poolSize: 1 });
  let lockConn = null;
  let timer = null;
  let stopped = false;
  const engine = createEngineClient({ engineUrl: cfg.engineUrl, fetchImpl });
  let session = null; // { cookie, csrf, until }

  // The grader calls the engine as its own account: inactive, with a password hash
  // that no password matches (random, not even bcrypt's format), so nobody signs in
  // as it. Made here on first use rather than by a migration, so that it never takes
  // an id the demo seed uses.
  async function graderAccount() {
    const find = () => db.query('SELECT id, username, name, role FROM users WHERE username = ?', [GRADER_USERNAME]);
    let rows = await find();
    if (!rows[0]) {
      await db.query(`INSERT IGNORE INTO users (username, password_hash, name, role, active) VALUES (?, ?, 'Automatic grader', 'instructor', 0)`,
        [GRADER_USERNAME, `!${newId()}`]);
      rows = await find();
    }
    return rows[0];
  }

  async function engineSession() {
    if (session && session.until > Date.now()) return session;
    const u = await graderAccount();
    const { cookie, csrf } = await mintBackgroundSession({ mc, secret: cfg.sessionSecret, ttl: SESSION_TTL_S }, u);
    session = { cookie, csrf, until: Date.now() + (SESSION_TTL_S / 2) * 1000 };
    return session;
  }

  // The engine's staff evaluation (CONTRACTS "Staff calls to the engine"): every
  // test case of the problem, nothing stored by the engine; score out of 100.
  async function evaluate(problemId, code, signedInAgain = false) {
    const s = await engineSession();
    const res = await engine.evaluate({ cookie: s.cookie, csrf: s.csrf, problemId, code });
    if (res.status === 401 || res.status === 403) {
      // its session was evicted (a memcached restart or flush): a new one, and once more
      session = null;
      if (!signedInAgain) return evaluate(problemId, code, true);
    }
    if (res.status === 429 || res.status === 503) {
      // busy (no slot left for background work, or overload): not a failure of this assignment
      const err = new Error(`engine busy (${res.status})`);
      err.retryAfterS = Math.min(60, Math.max(2, res.retryAfterS || 5));
      throw err;
    }
    if (!res.ok || !res.body) throw new Error(`engine answered ${res.status}: ${res.body && res.body.error ? res.body.error : 'no JSON'}`);
    return res.body;
  }

  async function sweep() {
    for (const s of await db.query(SWEEP_SQL)) {
      await db.query(QUEUE_SCHEDULE_SQL, [s.id]);
      await db.query(`INSERT INTO deadline_sweeps (schedule_id, stop_time, swept_at) VALUES (?, ?, UTC_TIMESTAMP(3))
        ON DUPLICATE KEY UPDATE stop_time = VALUES(stop_time), swept_at = VALUES(swept_at)`, [s.id, s.stop_time]);
    }
  }

  async function settle(assignmentId, version, final, deadline) {
    if (final) await db.query('DELETE FROM grading_queue WHERE assignment_id = ? AND version = ?', [assignmentId, version]);
    else await db.query('UPDATE grading_queue SET due_at = ? WHERE assignment_id = ? AND version = ?', [deadline, assignmentId, version]);
  }

  async function gradeOne({ assignment_id: assignmentId, version, attempts }) {
    const t = (await db.query(TARGET_SQL, [assignmentId]))[0];
    if (!t) { await settle(assignmentId, version, true); return; } // no longer an event question with a window
    const now = new Date(t.now_utc);
    const final = now >= t.deadline;
    // before the deadline only a submission is graded (provisionally)
    if (!t.code_id || (!final && t.source !== 'submission')) { await settle(assignmentId, version, final, t.deadline); return; }
    const unchanged = Number(t.graded_code_id) === Number(t.code_id) && t.graded_at && t.problem_updated_at <= t.graded_at;
    try {
      let r = null;
      if (!unchanged) r = await evaluate(t.problem_id, t.code);
      const max = Number(t.max_marks);
      if (r) {
        const { score, cases } = autoGrade(r, max);
        // the grade and the assignment's score change together: no reader sees one without the other
        await db.tx(async (tx) => {
          await tx.query(`INSERT INTO auto_grades (assignment_id, code_id, source, final, score, max_score, passed, total, verdict, compiled, cases, graded_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(3))
          ON DUPLICATE KEY UPDATE code_id = VALUES(code_id), source = VALUES(source), final = VALUES(final), score = VALUES(score),
            max_score = VALUES(max_score), passed = VALUES(passed), total = VALUES(total), verdict = VALUES(verdict),
            compiled = VALUES(compiled), cases = VALUES(cases), graded_at = VALUES(graded_at)`,
        [assignmentId, t.code_id, t.source, final ? 1 : 0, score, max, Number(r.passed) || 0, Number(r.total) || cases.length,
          String(r.verdict || ''), r.compiled === false ? 0 : 1, JSON.stringify(cases)]);
          await tx.query('UPDATE assignments SET score = ?, graded_at = UTC_TIMESTAMP(3) WHERE id = ?', [score, assignmentId]);
        });
      } else if (final) {
        await db.query('UPDATE auto_grades SET final = 1, source = ? WHERE assignment_id = ?', [t.source, assignmentId]);
      }
      // the untouched template (stored by an Evaluate or Run on a question never edited) is
      // graded, but not submitted in the student's name: they handed nothing in
      if (final && t.source === 'deadline' && !t.has_submission && !sameText(t.code, t.template_code)) {
        await db.query('INSERT IGNORE INTO submissions (assignment_id, code_id, submitted_at, automatic) VALUES (?, ?, ?, 1)',
          [assignmentId, t.code_id, t.save_time]);
      }
      await settle(assignmentId, version, final, t.deadline);
    } catch (err) {
      if (err.retryAfterS) { // the engine is busy: later, without counting an attempt
        await db.query('UPDATE grading_queue SET due_at = UTC_TIMESTAMP(3) + INTERVAL ? SECOND WHERE assignment_id = ? AND version = ?',
          [err.retryAfterS, assignmentId, version]);
        return;
      }
      if (attempts + 1 >= MAX_ATTEMPTS) {
        log.error(`[grader] assignment ${assignmentId}: giving up after ${MAX_ATTEMPTS} attempts: ${err.message}`);
        await settle(assignmentId, version, true);
        return;
      }
      log.error(`[grader] assignment ${assignmentId}: ${err.message}; retrying later`);
      await db.query(`UPDATE grading_queue SET attempts = attempts + 1,
          due_at = UTC_TIMESTAMP(3) + INTERVAL LEAST(300, 2 * POW(2, attempts)) SECOND
        WHERE assignment_id = ? AND version = ?`, [assignmentId, version]);
    }
  }

  // Grades what is due: everything, or (oneBatch) at most one batch of `concurrency`.
  async function tick({ oneBatch = false } = {}) {
    await sweep();
    for (;;) {
      const due = await db.query(`SELECT assignment_id, version, attempts FROM grading_queue
        WHERE due_at <= UTC_TIMESTAMP(3) ORDER BY due_at LIMIT ${oneBatch ? concurrency : concurrency * 8}`);
      if (!due.length || stopped) return;
      for (let i = 0; i < due.length && !stopped; i += concurrency) {
        await Promise.all(due.slice(i, i + concurrency).map((row) => gradeOne(row).catch((err) => log.error(`[grader] ${err.message}`))));
      }
      if (oneBatch) return;
    }
  }

  // Only the holder of the named lock grades; the others keep asking for it.
  async function haveLock() {
    if (lockConn) return true;
    const conn = await db.pool.getConnection();
    const [rows] = await conn.query("SELECT GET_LOCK('prutor_grader', 0) AS got");
    if (rows[0].got === 1) {
      lockConn = conn;
      conn.connection.once('error', () => { lockConn = null; });
      return true;
    }
    conn.release();
    return false;
  }

  function schedule(ms) { if (!stopped) timer = setTimeout(loop, ms); }
  async function loop() {
    try {
      if (await haveLock()) {
        const allowed = allowance();
        if (allowed !== 'none') await tick({ oneBatch: allowed === 'batch' });
      }
    } catch (err) {
      if (lockConn && err.fatal) lockConn = null;
      log.error(`[grader] ${err.message}`);
    }
    schedule(cfg.grader.tickMs);
  }

  return {
    start() { if (concurrency > 0) schedule(0); },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      if (lockConn) { lockConn.release(); lockConn = null; }
      await Promise.allSettled([db.close(), Promise.resolve(mc.close())]);
    },
    tick,
  };
}

module.exports = { createGrader, createPacer, autoGrade, GRADER_USERNAME };
