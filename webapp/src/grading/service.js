'use strict';
// Grading: the TA queue (grading_tasks, round-robin or by hand), marks and
// feedback per assignment (grades; codebook_view follows by trigger), students'
// regrade requests and their resolution.
const { Form, fieldError } = require('../lib/form');
const { notFound, conflict, forbidden } = require('../shared/errors');
const { marksReleased } = require('../exam/release');

const isManager = (role) => role === 'instructor' || role === 'admin';

// The one rule of what a staff member may grade, and so open of a student's work
// (grading here, playback in playback/service.js): an assignment of an event, never a
// practice or scratchpad file (a student's, or staff's own drafts); instructors and
// admins any, a TA one in their queue or in nobody's.
const GRADABLE = "a.kind = 'event'";
function mayGrade(actor, a) {
  if (isManager(actor.role)) return true;
  return actor.role === 'ta' && (!a.ta_id || a.ta_id === actor.uid);
}
async function mayOpen(db, actor, aid) {
  const rows = await db.query(`SELECT gt.ta_id FROM assignments a LEFT JOIN grading_tasks gt ON gt.assignment_id = a.id
    WHERE a.id = ? AND ${GRADABLE}`, [aid]);
  return rows.length === 1 && mayGrade(actor, rows[0]);
}

function createGradingService({ db }) {
  async function tas() {
    return db.query("SELECT id, username, name FROM users WHERE role = 'ta' AND active = 1 ORDER BY username");
  }

  // Events with something to grade, with progress.
  async function eventsOverview() {
    return db.query(`SELECT e.id, e.title, e.type,
        COUNT(sb.assignment_id) AS submitted, COUNT(g.assignment_id) AS graded, COUNT(gt.assignment_id) AS assigned,
        (SELECT COUNT(*) FROM regrade_requests r JOIN assignments a2 ON a2.id = r.assignment_id WHERE a2.event_id = e.id AND r.status = 'open') AS regrades
      FROM events e JOIN assignments a ON a.event_id = e.id
      LEFT JOIN submissions sb ON sb.assignment_id = a.id
      LEFT JOIN grades g ON g.assignment_id = a.id
      LEFT JOIN grading_tasks gt ON gt.assignment_id = a.id
      WHERE e.published_at IS NOT NULL
      GROUP BY e.id, e.title, e.type ORDER BY e.id DESC LIMIT 200`);
  }

  async function myQueue(taId) {
    return db.query(`SELECT a.id AS assignment_id, e.id AS event_id, e.title AS event_title, q.position, p.title AS problem_title,
        u.username, sb.submitted_at, a.score, g.marks, q.max_marks, gt.assigned_at
      FROM grading_tasks gt JOIN assignments a ON a.id = gt.assignment_id JOIN events e ON e.id = a.event_id
      JOIN event_questions q ON q.id = a.question_id JOIN problems p ON p.id = a.problem_id JOIN users u ON u.id = a.user_id
      LEFT JOIN submissions sb ON sb.assignment_id = a.id LEFT JOIN grades g ON g.assignment_id = a.id
      WHERE gt.ta_id = ? ORDER BY g.assignment_id IS NOT NULL, e.id, q.position, u.username LIMIT 2000`, [taId]);
  }

  async function eventSubmissions(eventId) {
    const ev = await db.query('SELECT id, title, type, published_at FROM events WHERE id = ?', [eventId]);
    if (!ev[0]) throw notFound('No such event.');
    const rows = await db.query(`SELECT a.id AS assignment_id, u.username, u.name, sec.code AS section, q.position, p.title AS problem_title,
        sb.submitted_at, sb.automatic AS submitted_automatically, a.score, q.max_marks, g.marks, gt.ta_id, ta.username AS ta_username,
        (SELECT COUNT(*) FROM regrade_requests r WHERE r.assignment_id = a.id AND r.status = 'open') AS open_regrades,
        (SELECT COUNT(*) FROM code c JOIN assignment_window w ON w.assignment_id = c.assignment_id
          WHERE c.assignment_id = a.id AND c.save_time >= w.deadline) AS late_versions
      FROM assignments a JOIN users u ON u.id = a.user_id LEFT JOIN sections sec ON sec.id = u.section_id
      JOIN event_questions q ON q.id = a.question_id JOIN problems p ON p.id = a.problem_id
      LEFT JOIN submissions sb ON sb.assignment_id = a.id LEFT JOIN grades g ON g.assignment_id = a.id
      LEFT JOIN grading_tasks gt ON gt.assignment_id = a.id LEFT JOIN users ta ON ta.id = gt.ta_id
      WHERE a.event_id = ? ORDER BY sb.submitted_at IS NULL, sec.code, u.username, q.position LIMIT 5000`, [eventId]);
    return { event: ev[0], rows };
  }

  // Round-robin over the chosen TAs: every submitted, ungraded, unassigned
  // assignment of the event gets one, in one transaction.
  async function distribute(eventId, body) {
    const f = new Form(body);
    const taIds = f.ids('ta_ids', { label: 'TA', required: true });
    f.check();
    return db.tx(async (tx) => {
      const valid = await tx.text("SELECT id FROM users WHERE id IN (?) AND role = 'ta' AND active = 1 ORDER BY id", [taIds]);
      if (valid.length !== taIds.length) throw fieldError('ta_ids', 'Choose active TAs from the list.', f.values);
      const todo = await tx.query(`SELECT a.id FROM assignments a JOIN submissions sb ON sb.assignment_id = a.id
        LEFT JOIN grades g ON g.assignment_id = a.id LEFT JOIN grading_tasks gt ON gt.assignment_id = a.id
        WHERE a.event_id = ? AND g.assignment_id IS NULL AND gt.assignment_id IS NULL ORDER BY a.question_id, a.user_id FOR UPDATE`, [eventId]);
      if (!todo.length) return { assigned: 0, tas: taIds.length };
      // continue the rotation where the TAs' current loads leave it: least loaded first
      const loads = await tx.text('SELECT ta_id, COUNT(*) AS n FROM grading_tasks WHERE ta_id IN (?) GROUP BY ta_id', [taIds]);
      const load = new Map(taIds.map((id) => [id, 0]));
      for (const l of loads) load.set(l.ta_id, Number(l.n));
      const order = [...taIds].sort((a, b) => load.get(a) - load.get(b) || a - b);
      const rows = todo.map((t, i) => [t.id, order[i % order.length]]);
      for (let i = 0; i < rows.length; i += 500) await tx.text('INSERT IGNORE INTO grading_tasks (assignment_id, ta_id) VALUES ?', [rows.slice(i, i + 500)]);
      return { assigned: rows.length, tas: taIds.length };
    });
  }

  async function assign(body) {
    const f = new Form(body);
    const aid = f.int('assignment_id', { label: 'Assignment', required: true, min: 1 });
    const taRaw = f.str('ta_id', { label: 'TA', max: 12 });
    f.check();
    const a = await db.query('SELECT id, event_id FROM assignments WHERE id = ?', [aid]);
    if (!a[0]) throw notFound('No such assignment.');
    if (!taRaw) { await db.query('DELETE FROM grading_tasks WHERE assignment_id = ?', [aid]); return { eventId: a[0].event_id, ta: null }; }
    const ta = await db.query("SELECT id, username FROM users WHERE id = ? AND role = 'ta' AND active = 1", [Number(taRaw) || 0]);
    if (!ta[0]) throw fieldError('ta_id', 'Choose an active TA.', f.values);
    await db.query('INSERT INTO grading_tasks (assignment_id, ta_id) VALUES (?, ?) ON DUPLICATE KEY UPDATE ta_id = VALUES(ta_id), assigned_at = CURRENT_TIMESTAMP(3)', [aid, ta[0].id]);
    return { eventId: a[0].event_id, ta: ta[0].username };
  }

  // Everything the grading page shows, one assignment.
  async function assignment(aid) {
    const rows = await db.query(`SELECT a.id AS assignment_id, a.user_id, a.score, a.extra_minutes, u.username, u.name, sec.code AS section,
        e.id AS event_id, e.title AS event_title, q.position, q.max_marks, p.id AS problem_id, p.title AS problem_title, p.statement_md,
        sb.submitted_at, sb.automatic AS submitted_automatically, g.marks, g.feedback, g.graded_at, gr.username AS grader, gt.ta_id, ta.username AS ta_username,
        gcv.code_id AS graded_code_id, gcv.source AS graded_source, gcv.deadline, gcv.late_versions, gc.code AS graded_code, gc.save_time AS graded_save_time,
        ag.code_id AS auto_code_id, ag.final AS auto_final, ag.verdict AS auto_verdict, ag.passed AS auto_passed, ag.total AS auto_total,
        ag.compiled AS auto_compiled, ag.cases AS auto_cases, ag.graded_at AS auto_graded_at
      FROM assignments a JOIN users u ON u.id = a.user_id LEFT JOIN sections sec ON sec.id = u.section_id
      LEFT JOIN graded_code gcv ON gcv.assignment_id = a.id LEFT JOIN code gc ON gc.id = gcv.code_id
      LEFT JOIN auto_grades ag ON ag.assignment_id = a.id
      JOIN events e ON e.id = a.event_id JOIN event_questions q ON q.id = a.question_id JOIN problems p ON p.id = a.problem_id
      LEFT JOIN submissions sb ON sb.assignment_id = a.id
      LEFT JOIN grades g ON g.assignment_id = a.id LEFT JOIN users gr ON gr.id = g.grader_id
      LEFT JOIN grading_tasks gt ON gt.assignment_id = a.id LEFT JOIN users ta ON ta.id = gt.ta_id
      WHERE a.id = ? AND ${GRADABLE}`, [aid]);
    if (!rows[0]) throw notFound('No such assignment.');
    const a = rows[0];
    let cases = [];
    try { cases = a.auto_cases ? JSON.parse(a.auto_cases) : []; } catch { /* stored by the grader: always JSON */ }
    const [late, regrades] = await Promise.all([
      // versions stored at or after the deadline: kept, shown as late, never graded
      db.query(`SELECT c.id, c.save_trigger, c.save_time, c.code FROM code c JOIN assignment_window w ON w.assignment_id = c.assignment_id
        WHERE c.assignment_id = ? AND c.save_time >= w.deadline ORDER BY c.save_time DESC, c.id DESC LIMIT 20`, [aid]),
      db.query(`SELECT r.id, r.reason, r.status, r.response, r.created_at, r.resolved_at, ru.username AS resolved_by
        FROM regrade_requests r LEFT JOIN users ru ON ru.id = r.resolved_by WHERE r.assignment_id = ? ORDER BY r.id DESC`, [aid]),
    ]);
    return { ...a, cases, late, regrades };
  }

  async function saveGrade(actor, aid, body) {
    const a = await assignment(aid);
    if (!mayGrade(actor, a)) throw forbidden(`This submission is in ${a.ta_username}'s queue.`);
    const f = new Form(body);
    const m = f.num('marks', { label: 'Marks', required: true, min: 0, max: Number(a.max_marks) });
    const feedback = f.str('feedback', { label: 'Feedback', max: 5000, trim: true });
    f.check();
    await db.tx(async (tx) => {
      // a TA grading an unassigned submission takes it into their queue
      if (actor.role === 'ta') await tx.query('INSERT IGNORE INTO grading_tasks (assignment_id, ta_id) VALUES (?, ?)', [aid, actor.uid]);
      await tx.query(`INSERT INTO grades (assignment_id, marks, feedback, grader_id) VALUES (?, ?, ?, ?)
        ON DUPLICATE KEY UPDATE marks = VALUES(marks), feedback = VALUES(feedback), grader_id = VALUES(grader_id), graded_at = CURRENT_TIMESTAMP(3)`,
      [aid, m, feedback || '', actor.uid]);
    });
    return a;
  }

  // The next ungraded submission for this grader, after grading one.
  async function next(actor, eventId) {
    const rows = actor.role === 'ta'
      ? await db.query(`SELECT gt.assignment_id FROM grading_tasks gt JOIN submissions sb ON sb.assignment_id = gt.assignment_id
          LEFT JOIN grades g ON g.assignment_id = gt.assignment_id WHERE gt.ta_id = ? AND g.assignment_id IS NULL ORDER BY gt.assignment_id LIMIT 1`, [actor.uid])
      : await db.query(`SELECT a.id AS assignment_id FROM assignments a JOIN submissions sb ON sb.assignment_id = a.id
          LEFT JOIN grades g ON g.assignment_id = a.id WHERE a.event_id = ? AND g.assignment_id IS NULL ORDER BY a.id LIMIT 1`, [eventId]);
    return rows[0] ? rows[0].assignment_id : null;
  }

  // ---- regrades ---------------------------------------------------------------
  async function myMarks(userId) {
    // scores, marks and feedback only once the event's marks are released
    return db.query(`SELECT cv.assignment_id, cv.title, cv.event_title, cv.event_id, cv.submitted_at, e.grades_released_at,
        IF(${marksReleased('e')}, cv.score, NULL) AS score, IF(${marksReleased('e')}, cv.marks, NULL) AS marks,
        IF(${marksReleased('e')}, cv.feedback, NULL) AS feedback, q.max_marks, q.position, sb.automatic AS submitted_automatically,
        (SELECT r.status FROM regrade_requests r WHERE r.assignment_id = cv.assignment_id ORDER BY r.id DESC LIMIT 1) AS regrade_status,
        (SELECT r.response FROM regrade_requests r WHERE r.assignment_id = cv.assignment_id ORDER BY r.id DESC LIMIT 1) AS regrade_response
      FROM codebook_view cv JOIN assignments a ON a.id = cv.assignment_id LEFT JOIN event_questions q ON q.id = a.question_id
      JOIN events e ON e.id = cv.event_id LEFT JOIN submissions sb ON sb.assignment_id = cv.assignment_id
      WHERE cv.user_id = ? AND cv.kind = 'event' AND (cv.marks IS NOT NULL OR cv.submitted_at IS NOT NULL)
      ORDER BY cv.event_id DESC, q.position LIMIT 500`, [userId]);
  }

  async function requestRegrade(userId, aid, body) {
    const f = new Form(body);
    const reason = f.str('reason', { label: 'Reason', required: true, min: 10, max: 2000 });
    f.check();
    // authorise and write in one statement: own, graded, no open request
    const r = await db.query(`INSERT INTO regrade_requests (assignment_id, reason, response)
      SELECT a.id, ?, '' FROM assignments a JOIN grades g ON g.assignment_id = a.id
      JOIN events e ON e.id = a.event_id AND ${marksReleased('e')}
       WHERE a.id = ? AND a.user_id = ? AND a.kind = 'event'
         AND NOT EXISTS (SELECT 1 FROM regrade_requests r WHERE r.assignment_id = a.id AND r.status = 'open')`, [reason, aid, userId]);
    if (r.affectedRows) return r.insertId;
    const own = await db.query(`SELECT a.id, g.assignment_id AS graded, e.grades_released_at AS released FROM assignments a
      LEFT JOIN grades g ON g.assignment_id = a.id LEFT JOIN events e ON e.id = a.event_id WHERE a.id = ? AND a.user_id = ?`, [aid, userId]);
    if (!own[0]) throw notFound('No such assignment of yours.');
    if (!own[0].graded || !own[0].released) throw conflict('This question has not been graded yet: a regrade can be asked once it has marks.');
    throw conflict('You already have an open regrade request for this question.');
  }

  async function regrades({ status = 'open', actor }) {
    const params = [];
    let where = status === 'all' ? '1=1' : "r.status = 'open'";
    if (actor.role === 'ta') { where += ' AND gt.ta_id = ?'; params.push(actor.uid); }
    return db.text(`SELECT r.id, r.assignment_id, r.reason, r.status, r.response, r.created_at, r.resolved_at, u.username, e.title AS event_title,
        q.position, q.max_marks, g.marks, ta.username AS ta_username, ru.username AS resolved_by
      FROM regrade_requests r JOIN assignments a ON a.id = r.assignment_id JOIN users u ON u.id = a.user_id
      JOIN events e ON e.id = a.event_id JOIN event_questions q ON q.id = a.question_id
      LEFT JOIN grades g ON g.assignment_id = a.id LEFT JOIN grading_tasks gt ON gt.assignment_id = a.id LEFT JOIN users ta ON ta.id = gt.ta_id
      LEFT JOIN users ru ON ru.id = r.resolved_by
      WHERE ${where} ORDER BY r.status = 'open' DESC, r.created_at DESC LIMIT 500`, params);
  }

  async function resolve(actor, requestId, body) {
    const f = new Form(body);
    const decision = f.oneOf('decision', ['accepted', 'rejected'], { label: 'Decision' });
    const response = f.str('response', { label: 'Response to the student', required: true, max: 2000 });
    const newMarks = decision === 'accepted' ? f.num('marks', { label: 'New marks', required: true, min: 0, max: 9999 }) : null;
    f.check();
    return db.tx(async (tx) => {
      const rows = await tx.query(`SELECT r.id, r.status, r.assignment_id, q.max_marks, gt.ta_id FROM regrade_requests r
        JOIN assignments a ON a.id = r.assignment_id JOIN event_questions q ON q.id = a.question_id
        LEFT JOIN grading_tasks gt ON gt.assignment_id = a.id WHERE r.id = ? FOR UPDATE`, [requestId]);
      const r = rows[0];
      if (!r) throw notFound('No such regrade request.');
      if (!isManager(actor.role) && r.ta_id !== actor.uid) throw forbidden('This request is about a submission in another TA\'s queue.');
      if (r.status !== 'open') throw conflict('This request has been resolved already.');
      if (decision === 'accepted') {
        if (newMarks > Number(r.max_marks)) throw fieldError('marks', `New marks must be between 0 and ${Number(r.max_marks)}.`, f.values);
        await tx.query('UPDATE grades SET marks = ?, grader_id = ?, graded_at = CURRENT_TIMESTAMP(3) WHERE assignment_id = ?', [newMarks, actor.uid, r.assignment_id]);
      }
      await tx.query('UPDATE regrade_requests SET status = ?, response = ?, resolved_by = ?, resolved_at = UTC_TIMESTAMP(3) WHERE id = ?',
        [decision, response, actor.uid, requestId]);
      return { assignmentId: r.assignment_id, decision };
    });
  }

  return { tas, eventsOverview, myQueue, eventSubmissions, distribute, assign, assignment, mayGrade, saveGrade, next, myMarks, requestRegrade, regrades, resolve, isManager };
}

module.exports = { createGradingService, mayOpen };
