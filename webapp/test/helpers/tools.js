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

// Like until, but fn must hold `times` times in a row: with several webapp workers,
// each rereading its cache on its own timer, one answer says nothing about the next.
async function untilSteady(fn, { times = 4, ...opts } = {}) {
  let streak = 0;
  let last;
  await until(async () => {
    last = await fn();
    streak = last ? streak + 1 : 0;
    return streak >= times;
  }, opts);
  return last;
}

module.exports = { seedExam, saveCode, dropExam, until, untilSteady };

// A recorded exam for playback: `minutes` of autosaves every `everyS` seconds
// ending now, the code growing by one line per save; every 10th version compiled
// (every 30th fails with gcc's message), every 20th run and every 40th evaluated.
// Returns { codeIds, counts: { save, compile, run, evaluate } }.
async function seedTimeline({ assignmentId, problemId, minutes = 180, everyS = 12 }) {
  const tc = await dbh.q("INSERT INTO test_cases (problem_id, position, input, expected_output, visibility) VALUES (?, 1, '1 2', '3', 'visible')", [problemId]);
  const n = Math.floor((minutes * 60) / everyS);
  const lines = ['#include <stdio.h>', '', 'int main(void) {'];
  const rows = [];
  for (let k = 0; k < n; k++) {
    lines.push(`    int v${k} = ${k}; (void) v${k};`);
    rows.push([assignmentId, k % 25 === 24 ? 'manual' : 'auto', [...lines, '    return 0;', '}', ''].join('\n'), (n - k) * everyS]);
  }
  const codeIds = [];
  for (let i = 0; i < rows.length; i += 200) {
    const chunk = rows.slice(i, i + 200);
    const r = await dbh.q(`INSERT INTO code (assignment_id, save_trigger, code, save_time) VALUES ${chunk.map(() => '(?, ?, ?, UTC_TIMESTAMP(3) - INTERVAL ? SECOND)').join(', ')}`, chunk.flat());
    for (let j = 0; j < chunk.length; j++) codeIds.push(r.insertId + j);
  }
  const counts = { save: n, compile: 0, run: 0, evaluate: 0 };
  for (let k = 9; k < n; k += 10) {
    const fail = k % 30 === 29;
    await dbh.q('INSERT INTO compilations (code_id, assignment_id, success, messages, created_at) SELECT id, assignment_id, ?, ?, save_time + INTERVAL 0.2 SECOND FROM code WHERE id = ?',
      [fail ? 0 : 1, fail ? `main.c:${k + 4}:5: error: expected ';' before 'return'` : '', codeIds[k]]);
    counts.compile++;
    if (k % 20 === 19) {
      await dbh.q("INSERT INTO executions (code_id, assignment_id, input, stdout, stderr, exit_code, time_ms, verdict, created_at) SELECT id, assignment_id, '1 2', '3', '', 0, 3, 'OK', save_time + INTERVAL 0.5 SECOND FROM code WHERE id = ?", [codeIds[k]]);
      counts.run++;
    }
    if (k % 40 === 39) {
      await dbh.q(`INSERT INTO evaluations (run_id, code_id, assignment_id, test_case_id, verdict, passed, actual_output, created_at)
        SELECT ?, id, assignment_id, ?, 'WRONG_ANSWER', 0, '4', save_time + INTERVAL 0.7 SECOND FROM code WHERE id = ?`, [`R${String(k).padStart(25, '0')}`, tc.insertId, codeIds[k]]);
      counts.evaluate++;
    }
  }
  return { codeIds, counts };
}

module.exports.seedTimeline = seedTimeline;
