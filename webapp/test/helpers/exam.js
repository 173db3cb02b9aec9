'use strict';
// Fixtures for the exam tests (issue 12): a section of fresh students (the demo
// password), a problem with visible and hidden tests, and published events whose
// window is set in seconds from now. Names are unique per run.
const dbh = require('./db');
const env = require('./env');

const TAG = `${Date.now().toString(36)}${process.pid.toString(36)}`;

const SUM = (op) => `#include <stdio.h>\n\nint main(void)\n{\n    long a, b;\n    if (scanf("%ld %ld", &a, &b) != 2) return 1;\n    printf("%ld\\n", a ${op} b);\n    return 0;\n}\n`;
// a - b passes the two cases whose b is 0: 2 of 4 tests, half the marks
const BUGGY = SUM('-');
const FIXED = SUM('+');
const TEMPLATE = '#include <stdio.h>\n\nint main(void)\n{\n    return 0;\n}\n';

let sections = 0;
async function makeSection(n) {
  const k = ++sections;
  const code = `E${TAG}${k}`.slice(0, 32);
  const sec = await dbh.q('INSERT INTO sections (code, name) VALUES (?, ?)', [code, `Exam tests ${TAG}`]);
  const users = [];
  for (let i = 1; i <= n; i++) {
    const username = `ex${TAG}${k}s${i}`;
    await dbh.q(`INSERT INTO users (username, password_hash, name, role, section_id)
      SELECT ?, password_hash, ?, 'student', ? FROM users WHERE username = 'student01'`, [username, `Exam Student ${i}`, sec.insertId]);
    users.push(username);
  }
  return { sectionId: sec.insertId, users };
}

async function makeProblem() {
  const p = await dbh.q(`INSERT INTO problems (title, statement_md, env, template_code, solution_code)
    VALUES (?, 'Read two integers and print their **sum**.', 'c', ?, ?)`, [`Exam sum ${TAG}`, TEMPLATE, FIXED]);
  const cases = [['1 2\n', '3\n', 'visible'], ['5 0\n', '5\n', 'visible'], ['10 0\n', '10\n', 'hidden'], ['7 3\n', '10\n', 'hidden']];
  for (const [i, [input, out, vis]] of cases.entries()) {
    await dbh.q('INSERT INTO test_cases (problem_id, position, input, expected_output, visibility) VALUES (?, ?, ?, ?, ?)', [p.insertId, i + 1, input, out, vis]);
  }
  return p.insertId;
}

// A published exam with one question (10 marks) for the section, open from
// startSec to stopSec (seconds from now), with an assignment per student.
async function makeExam({ title, sectionId, problemId, startSec = -60, stopSec, basis = 'submission', description = '' }) {
  const ev = await dbh.q(`INSERT INTO events (title, type, description, graded_basis, published_at)
    VALUES (?, 'exam', ?, ?, UTC_TIMESTAMP(3))`, [`${title} ${TAG}`, description, basis]);
  const eventId = ev.insertId;
  const qn = await dbh.q('INSERT INTO event_questions (event_id, position, problem_id, max_marks) VALUES (?, 1, ?, 10)', [eventId, problemId]);
  const sc = await dbh.q(`INSERT INTO schedules (event_id, start_time, stop_time)
    VALUES (?, UTC_TIMESTAMP(3) + INTERVAL ? SECOND, UTC_TIMESTAMP(3) + INTERVAL ? SECOND)`, [eventId, startSec, stopSec]);
  await dbh.q('INSERT INTO slots (schedule_id, event_id, section_id) VALUES (?, ?, ?)', [sc.insertId, eventId, sectionId]);
  await dbh.q(`INSERT INTO assignments (kind, user_id, event_id, question_id, problem_id)
    SELECT 'event', u.id, ?, ?, ? FROM users u WHERE u.section_id = ?`, [eventId, qn.insertId, problemId, sectionId]);
  return { eventId, title: `${title} ${TAG}` };
}

async function assignment(eventId, username) {
  return (await dbh.q('SELECT a.id FROM assignments a JOIN users u ON u.id = a.user_id WHERE a.event_id = ? AND u.username = ?', [eventId, username]))[0].id;
}

// Browser helpers: sign in on a new page of a context (a cookie jar), open the
// editor and wait until it is ready, replace or read its code.
async function signInPage(context, username, password = env.password) {
  const page = await context.newPage();
  await page.goto(`${env.BASE}/accounts/login`);
  await page.fill('#username', username);
  await page.fill('#password', password);
  await Promise.all([page.waitForURL(/\/home$/), page.click('button[type=submit]')]);
  return page;
}

async function openEditor(page, assignmentId) {
  await page.goto(`${env.BASE}/editor/${assignmentId}`);
  await page.waitForSelector('html[data-editor-ready="1"]');
}

const setCode = (page, code) => page.evaluate((c) => {
  const v = window.prutorEditor.view;
  v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: c } });
}, code);
const getCode = (page) => page.evaluate(() => window.prutorEditor.code());

// Polls fn until it returns a truthy value or the time is up.
async function until(fn, { timeoutMs = 30000, everyMs = 250, what = 'condition' } = {}) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

module.exports = { TAG, BUGGY, FIXED, TEMPLATE, makeSection, makeProblem, makeExam, assignment, until, signInPage, openEditor, setCode, getCode };
