'use strict';
// Fixtures for the exam-tools tests (issue 16): a section of its own with fresh
// students (so a lock-down or a second sign-in never touches the demo accounts
// other suites use), a problem with a template and a reference solution, and a
// published event with one question and an assignment per student.
const dbh = require('./db');

async function seedExam({ tag, students, template = '', solution = '', startMin = -30, stopMin = 150 }) {
  const sec = await dbh.q('INSERT INTO sections (code, name) VALUES (?, ?)', [`T${tag}`.slice(0, 32), `tools test ${tag}`]);
  const sectionId = sec.insertId;
  const hash = (await dbh.q("SELECT password_hash FROM users WHERE username = 'student01'"))[0].password_hash;
  const users = [];
  for (let i = 1; i <= students; i++) {
    const username = `t${tag}s${String(i).padStart(2, '0')}`.slice(0, 64);
    const u = await dbh.q("INSERT INTO users (username, password_hash, name, role, section_id) VALUES (?, ?, ?, 'student', ?)",
      [username, hash, `Tools student ${i}`, sectionId]);
    users.push({ id: u.insertId, username });
  }
  const p = await dbh.q("INSERT INTO problems (title, statement_md, template_code, solution_code) VALUES (?, 'Statistics of marks.', ?, ?)",
    [`Marks ${tag}`, template, solution]);
  const ev = await dbh.q("INSERT INTO events (title, type, description, published_at) VALUES (?, 'exam', 'tools fixture', UTC_TIMESTAMP(3))", [`tools ${tag}`]);
  const eventId = ev.insertId;
  const qn = await dbh.q('INSERT INTO event_questions (event_id, position, problem_id, max_marks) VALUES (?, 1, ?, 10)', [eventId, p.insertId]);
  const sc = await dbh.q('INSERT INTO schedules (event_id, start_time, stop_time) VALUES (?, UTC_TIMESTAMP(3) + INTERVAL ? MINUTE, UTC_TIMESTAMP(3) + INTERVAL ? MINUTE)',
    [eventId, startMin, stopMin]);
  await dbh.q('INSERT INTO slots (schedule_id, event_id, section_id) VALUES (?, ?, ?)', [sc.insertId, eventId, sectionId]);
  for (const u of users) {
    const a = await dbh.q("INSERT INTO assignments (kind, user_id, event_id, question_id, problem_id) VALUES ('event', ?, ?, ?, ?)",
      [u.id, eventId, qn.insertId, p.insertId]);
    u.assignmentId = a.insertId;
  }
  return { eventId, questionId: qn.insertId, problemId: p.insertId, sectionId, users };
}

// One saved version of an assignment at `secondsAgo` before now; returns the code id.
async function saveCode(assignmentId, code, { trigger = 'manual', secondsAgo = 0 } = {}) {
  const r = await dbh.q('INSERT INTO code (assignment_id, save_trigger, code, save_time) VALUES (?, ?, ?, UTC_TIMESTAMP(3) - INTERVAL ? SECOND)',
    [assignmentId, trigger, code, secondsAgo]);
  return r.insertId;
}

async function dropExam(exam) {
  if (!exam) return;
  await dbh.q('DELETE FROM assignments WHERE event_id = ?', [exam.eventId]);
  await dbh.q('DELETE FROM events WHERE id = ?', [exam.eventId]);
  await dbh.q('DELETE FROM problems WHERE id = ?', [exam.problemId]);
  await dbh.q('DELETE FROM users WHERE section_id = ?', [exam.sectionId]);
  await dbh.q('DELETE FROM sections WHERE id = ?', [exam.sectionId]);
}

// Polls fn until it returns a truthy value (or throws after timeoutMs).
async function until(fn, { timeoutMs = 60000, everyMs = 300, what = 'condition' } = {}) {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

module.exports = { seedExam, saveCode, dropExam, until };
