'use strict';
// Editor: open an assignment (2 queries) and save code (1 statement; a second
// one only to explain a refusal).
const crypto = require('node:crypto');
const { badRequest, notFound, conflict, tooLarge } = require('../shared/errors');
const { utcText } = require('../shared/format');

const TRIGGERS = new Set(['manual', 'auto', 'submit']);

function positiveId(v, what) {
  const s = typeof v === 'number' ? String(v) : v;
  if (typeof s !== 'string' || !/^[1-9]\d{0,9}$/.test(s) || Number(s) > 4294967295) throw badRequest(`${what} must be a positive whole number.`);
  return Number(s);
}

// Assignment, problem, window, submission and latest code (via the
// (assignment_id, save_time) index, no sort) in one statement.
const OPEN_SQL = `
SELECT a.id, a.kind, a.title AS a_title, a.event_id, a.problem_id, a.extra_minutes,
       e.title AS event_title, e.type AS event_type, e.published_at,
       p.title AS problem_title, p.statement_md, p.template_code, p.env, p.time_limit_ms,
       q.position, q.max_marks,
       w.start_time, w.deadline AS stop_time, w.paused_since, w.accommodation_s, w.waiting,
       sub.submitted_at, sub.automatic AS submitted_automatically, e.graded_basis,
       c.id AS latest_code_id, c.code AS latest_code, c.save_time AS latest_save_time,
       et.version AS timing_version,
       (SELECT sc.code FROM code sc WHERE sc.id = sub.code_id) <> c.code AS changed_since_submit,
       -- the question switcher: the student's questions of this event, "id:position:submitted" each
       (SELECT GROUP_CONCAT(CONCAT(a2.id, ':', q2.position, ':', sub2.assignment_id IS NOT NULL) ORDER BY q2.position SEPARATOR ',')
          FROM assignments a2 JOIN event_questions q2 ON q2.id = a2.question_id
          LEFT JOIN submissions sub2 ON sub2.assignment_id = a2.id
         WHERE a2.event_id = a.event_id AND a2.user_id = a.user_id) AS questions,
       a.kind = 'practice' AND EXISTS (SELECT 1 FROM problems_held_for_exams h WHERE h.problem_id = a.problem_id) AS held_for_exam,
       UTC_TIMESTAMP(3) AS now_utc
  FROM assignments a
  JOIN users u                ON u.id = a.user_id
  LEFT JOIN events e          ON e.id = a.event_id
  LEFT JOIN event_questions q ON q.id = a.question_id
  LEFT JOIN problems p        ON p.id = a.problem_id
  LEFT JOIN assignment_window w ON w.assignment_id = a.id
  LEFT JOIN submissions sub   ON sub.assignment_id = a.id
  LEFT JOIN event_timing et   ON et.event_id = a.event_id
  LEFT JOIN code c            ON c.id = (SELECT c2.id FROM code c2 WHERE c2.assignment_id = a.id
                                          ORDER BY c2.save_time DESC, c2.id DESC LIMIT 1)
 WHERE a.id = ? AND a.user_id = ?`;

// The save: authorise (own assignment, event window open: the rule of the view
// assignment_window, extra time, accommodations and pauses included) and write in
// one statement. A paused student's saves are stored (their editor is read-only, so
// a save only keeps what they had; the pause gives no working time). Triggers on `code`
// keep codebook_view and, for a submit, submissions/home_view current. A save
// (never a submit) arriving up to lateGraceS after the deadline (the last autosave,
// a retry) is stored as late work: kept and shown to staff, never graded (rdb view
// graded_code).
//
// Exactly once: a save may carry client_save_id, made by its client and reused by
// every retry of it (the editor's, HAProxy's resend); the unique key
// (assignment_id, client_save_id) turns a repeat into ER_DUP_ENTRY, answered with
// the row stored the first time. autocommit: the answer follows the commit.
const SAVE_SQL = `
INSERT INTO code (assignment_id, branch_id, save_trigger, code, client_save_id, save_time)
SELECT a.id, ?, ?, ?, ?, UTC_TIMESTAMP(3)
  FROM assignments a
  LEFT JOIN assignment_window w ON w.assignment_id = a.id
 WHERE a.id = ? AND a.user_id = ?
   AND (a.kind <> 'event' OR (UTC_TIMESTAMP(3) >= w.start_time
                              AND UTC_TIMESTAMP(3) < w.deadline + INTERVAL ? SECOND))`;

// Two tabs: a save may name the version it replaces (base_code_id: the latest
// version its page knew). Then it is stored only if no newer save exists, so a
// second tab's save never silently overwrites the first. (Compile, run and
// evaluate store versions too; they do not count: a tab's own runs never conflict.)
const UNLESS_NEWER_SQL = `
   AND NOT EXISTS (SELECT 1 FROM code newer WHERE newer.assignment_id = a.id AND newer.id > ?
                      AND newer.save_trigger IN ('manual', 'auto', 'submit'))`;

const NEWER_SQL = `SELECT id, save_time FROM code WHERE assignment_id = ? AND id > ?
   AND save_trigger IN ('manual', 'auto', 'submit') ORDER BY id DESC LIMIT 1`;

// Why a save stored nothing; or, for a repeat arriving after the window closed, the
// row its first attempt stored.
const WHY_SQL = `
SELECT a.kind, w.start_time, w.deadline AS stop_time, UTC_TIMESTAMP(3) AS now_utc,
       c.id AS repeat_id, c.save_time AS repeat_time, c.save_trigger AS repeat_trigger
  FROM assignments a
  LEFT JOIN assignment_window w ON w.assignment_id = a.id
  LEFT JOIN code c      ON c.assignment_id = a.id AND c.client_save_id = ?
 WHERE a.id = ? AND a.user_id = ?`;

const REPEAT_SQL = `
SELECT c.id AS repeat_id, c.save_time AS repeat_time, c.save_trigger AS repeat_trigger
  FROM code c JOIN assignments a ON a.id = c.assignment_id
 WHERE c.assignment_id = ? AND c.client_save_id = ? AND a.user_id = ?`;

const CLIENT_SAVE_ID_RE = /^[A-Za-z0-9_-]{16,64}$/;

// What an open editor polls for when its event's timing version moves: the
// student's current window (extensions and closures), the submission, the
// latest stored version (another tab may have saved).
const STATUS_SQL = `
SELECT a.kind, w.start_time, w.deadline AS stop_time, w.paused_since, w.accommodation_s, w.waiting,
       sub.submitted_at, sub.automatic AS submitted_automatically, et.version AS timing_version,
       (SELECT c2.id FROM code c2 WHERE c2.assignment_id = a.id ORDER BY c2.save_time DESC, c2.id DESC LIMIT 1) AS latest_code_id,
       UTC_TIMESTAMP(3) AS now_utc
  FROM assignments a
  LEFT JOIN assignment_window w ON w.assignment_id = a.id
  LEFT JOIN submissions sub ON sub.assignment_id = a.id
  LEFT JOIN event_timing et ON et.event_id = a.event_id
 WHERE a.id = ? AND a.user_id = ?`;

const SCRATCH_TEMPLATE = '#include <stdio.h>\n\nint main(void)\n{\n    printf("Hello, world!\\n");\n    return 0;\n}\n';

function createEditorService({ db, telemetry, maxCodeBytes, lateGraceS = 0 }) {
  async function open({ userId, assignmentId }) {
    const id = Number.parseInt(assignmentId, 10);
    if (!/^[1-9]\d{0,9}$/.test(String(assignmentId)) || id > 4294967295) throw notFound('No such assignment.');
    const rows = await db.query(OPEN_SQL, [id, userId]);
    const a = rows[0];
    if (!a) throw notFound('No such assignment.');
    if (a.kind === 'event' && !a.published_at) throw notFound('No such assignment.');
    if (Number(a.held_for_exam)) throw notFound('This practice problem is a question of an exam not over yet: it opens for practice after that exam.');
    const now = new Date(a.now_utc);
    let state = 'open';
    if (a.kind === 'event') {
      if (Number(a.waiting)) {
        throw conflict('This exam starts when the invigilator starts it. Wait on the exam page: it opens your first question by itself.', { code: 'event_waiting' });
      }
      if (!a.start_time) throw conflict('This event is not scheduled for your section.');
      if (now < a.start_time) throw conflict(`This event has not started yet. It opens at ${utcText(a.start_time)}.`, { code: 'event_not_started' });
      if (now >= a.stop_time) state = 'closed';
    }
    // the visible tests and the support files students may read (rdb 036), in the one query
    const shown = a.problem_id
      ? await db.query(
        `SELECT 0 AS is_file, position, id, input, expected_output FROM test_cases
          WHERE problem_id = ? AND visibility = 'visible'
         UNION ALL
         SELECT 1, 0, id, name, contents FROM problem_files WHERE problem_id = ? AND shown_to_students = 1
         ORDER BY is_file, position, IF(is_file = 1, input, ''), id`, [a.problem_id, a.problem_id])
      : [];
    const tests = shown.filter((t) => !Number(t.is_file)).map(({ position, input, expected_output }) => ({ position, input, expected_output }));
    const supportFiles = shown.filter((t) => Number(t.is_file)).map((f) => ({ name: f.input, contents: f.expected_output }));
    return {
      id: a.id,
      kind: a.kind,
      title: a.problem_title || a.a_title || 'Untitled',
      eventId: a.event_id,
      eventTitle: a.event_title,
      eventType: a.event_type,
      position: a.position,
      maxMarks: a.max_marks,
      statementMd: a.statement_md || '',
      env: a.env || 'c',
      timeLimitMs: a.time_limit_ms,
      start: a.start_time,
      stop: a.kind === 'event' ? a.stop_time : null,
      pausedSince: a.kind === 'event' ? a.paused_since : null,
      accommodationS: Number(a.accommodation_s) || 0,
      submittedAt: a.submitted_at,
      submittedAutomatically: !!a.submitted_automatically,
      gradedBasis: a.graded_basis,
      timingVersion: a.timing_version === null || a.timing_version === undefined ? 0 : Number(a.timing_version),
      latestCodeId: a.latest_code_id === null || a.latest_code_id === undefined ? null : Number(a.latest_code_id),
      // the latest version's code differs from the submitted code
      changedSinceSubmit: !!a.changed_since_submit,
      questions: a.kind === 'event' && a.questions ? String(a.questions).split(',').map((x) => {
        const [qid, position, submitted] = x.split(':');
        return { id: Number(qid), position: Number(position), submitted: submitted === '1' };
      }) : [],
      code: a.latest_code !== null && a.latest_code !== undefined ? a.latest_code : (a.problem_id ? a.template_code : SCRATCH_TEMPLATE),
      savedAt: a.latest_save_time,
      now,
      state,
      tests,
      supportFiles,
    };
  }

  // The answer to a repeat: the row its first attempt stored, nothing new written.
  function repeated(row) {
    return {
      ok: true, code_id: row.repeat_id, trigger: row.repeat_trigger, saved_at: new Date(row.repeat_time).toISOString(),
      submitted: row.repeat_trigger === 'submit', repeat: true,
    };
  }

  async function save({ userId, ip, fields }) {
    const f = fields || {};
    const assignmentId = positiveId(f.assignment_id, 'assignment_id');
    let branchId = 0;
    if (f.branch_id !== undefined && f.branch_id !== '' && f.branch_id !== null) {
      if (!/^\d{1,9}$/.test(String(f.branch_id))) throw badRequest('branch_id must be a whole number.');
      branchId = Number(f.branch_id);
    }
    const trigger = f.trigger === undefined || f.trigger === '' ? 'manual' : f.trigger;
    if (typeof trigger !== 'string' || !TRIGGERS.has(trigger)) throw badRequest('trigger must be manual, auto or submit.');
    if (typeof f.code !== 'string') throw badRequest('code is missing.');
    let clientSaveId = null;
    if (f.client_save_id !== undefined && f.client_save_id !== '' && f.client_save_id !== null) {
      if (typeof f.client_save_id !== 'string' || !CLIENT_SAVE_ID_RE.test(f.client_save_id)) {
        throw badRequest('client_save_id must be 16 to 64 letters, digits, - or _.');
      }
      clientSaveId = f.client_save_id;
    }
    const bytes = Buffer.byteLength(f.code, 'utf8');
    if (bytes > maxCodeBytes) {
      throw tooLarge(`Your code is ${Math.ceil(bytes / 1024)} KiB, over the limit of ${Math.floor(maxCodeBytes / 1024)} KiB. It was not saved; shorten it and save again.`, { code: 'code_too_large' });
    }
    let baseCodeId = null;
    if (f.base_code_id !== undefined && f.base_code_id !== '' && f.base_code_id !== null) {
      if (!/^\d{1,19}$/.test(String(f.base_code_id))) throw badRequest('base_code_id must be a whole number (0 before the first save).');
      baseCodeId = String(f.base_code_id);
    }
    const t0 = process.hrtime.bigint();
    const grace = trigger === 'submit' ? 0 : lateGraceS;
    let result;
    try {
      result = baseCodeId === null
        ? await db.query(SAVE_SQL, [branchId, trigger, f.code, clientSaveId, assignmentId, userId, grace])
        : await db.query(SAVE_SQL + UNLESS_NEWER_SQL, [branchId, trigger, f.code, clientSaveId, assignmentId, userId, grace, baseCodeId]);
    } catch (err) {
      if (err.code !== 'ER_DUP_ENTRY' || !clientSaveId) throw err;
      const first = (await db.query(REPEAT_SQL, [assignmentId, clientSaveId, userId]))[0];
      if (!first) throw err;
      return repeated(first);
    }
    if (result.affectedRows === 1) {
      const savedAt = new Date();
      telemetry.record({
        kind: 'save', trigger, user_id: userId, assignment_id: assignmentId, branch_id: branchId, code_id: result.insertId,
        bytes, sha1: crypto.createHash('sha1').update(f.code).digest('hex'), ok: true,
        ms: Number(process.hrtime.bigint() - t0) / 1e6, ip,
      });
      return { ok: true, code_id: result.insertId, trigger, saved_at: savedAt.toISOString(), submitted: trigger === 'submit' };
    }
    const why = (await db.query(WHY_SQL, [clientSaveId, assignmentId, userId]))[0];
    if (why && why.repeat_id) return repeated(why);
    telemetry.record({ kind: 'save', trigger, user_id: userId, assignment_id: assignmentId, bytes, ok: false, reason: why ? 'window' : 'not_found', ip });
    if (!why) throw notFound('No such assignment.');
    const now = new Date(why.now_utc);
    if (baseCodeId !== null && (why.kind !== 'event' || (why.start_time && now >= why.start_time && now < why.stop_time))) {
      const newer = (await db.query(NEWER_SQL, [assignmentId, baseCodeId]))[0];
      if (newer) {
        throw conflict(`This question was saved from another tab or window at ${utcText(newer.save_time)}, after this page loaded its code. Nothing was saved here: choose which version to keep.`, { code: 'stale_version' });
      }
    }
    if (!why.start_time) throw conflict('This event is not scheduled for your section; nothing was saved.', { code: 'event_closed' });
    if (now < why.start_time) throw conflict(`This event has not started yet (it opens at ${utcText(why.start_time)}); nothing was saved.`, { code: 'event_not_started' });
    throw conflict(`The event closed at ${utcText(why.stop_time)}. This ${trigger === 'submit' ? 'submission' : 'save'} was not stored; your last saved version is kept.`, { code: 'event_closed' });
  }

  async function status({ userId, assignmentId }) {
    const id = Number.parseInt(assignmentId, 10);
    if (!/^[1-9]\d{0,9}$/.test(String(assignmentId)) || id > 4294967295) throw notFound('No such assignment.');
    const a = (await db.query(STATUS_SQL, [id, userId]))[0];
    if (!a) throw notFound('No such assignment.');
    const now = new Date(a.now_utc);
    const event = a.kind === 'event';
    let state = 'open';
    if (event && Number(a.waiting)) state = 'waiting';
    else if (event && (!a.start_time || now >= a.stop_time)) state = 'closed';
    else if (event && now < a.start_time) state = 'not_started';
    return {
      state,
      deadline: event && a.stop_time ? a.stop_time.toISOString() : null,
      // paused: the clock stands still and runs are refused until staff resume
      paused: !!(event && a.paused_since && state === 'open'),
      paused_since: event && a.paused_since ? a.paused_since.toISOString() : null,
      accommodation_s: Number(a.accommodation_s) || 0,
      server_now: now.toISOString(),
      submitted_at: a.submitted_at ? a.submitted_at.toISOString() : null,
      submitted_automatically: !!a.submitted_automatically,
      timing_version: a.timing_version === null ? 0 : Number(a.timing_version),
      latest_code_id: a.latest_code_id === null ? null : Number(a.latest_code_id),
    };
  }

  return { open, save, status };
}

module.exports = { createEditorService, positiveId };
