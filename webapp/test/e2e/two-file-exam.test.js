'use strict';
// End to end in headless Chromium through HAProxy: a student sits a C exam question of two
// files (issue 28): the problem gives a header and the instructor's main (harness.c), and a
// data file it reads; the student writes only the function. The fixture is written to
// MariaDB and removed after. The student signs in, reads the given files beside the
// statement (the hidden data file is not shown), compiles without the function (the link
// names it), writes it, runs with input, evaluates and submits; the automatic grader gives
// full marks. Needs the whole stack.
const test = require('node:test');
const assert = require('node:assert/strict');
const { launch, chromiumPath } = require('../helpers/browser');
const { q, close } = require('../helpers/db');
const { replaceCode, runWithInput, submit } = require('../helpers/editor');
const { until } = require('../helpers/exam');

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8080';
const RUN = Date.now().toString(36);
const USER = `e2etwo${RUN}`;
const TITLE = `Two-file exam ${RUN}`;

const TEMPLATE = '#include "scale.h"\n\n';
const HEADER = '#ifndef SCALE_H\n#define SCALE_H\n/* returns x times the factor */\nlong scale(long x, long factor);\n#endif\n';
const HARNESS = '#include <stdio.h>\n#include "scale.h"\nint main(void)\n{\n    long f = 0, x;\n    FILE *d = fopen("factor.txt", "r");\n    if (!d || fscanf(d, "%ld", &f) != 1) return 1;\n    while (scanf("%ld", &x) == 1) printf("%ld\\n", scale(x, f));\n    return 0;\n}\n';
const FIXED = `#include "scale.h"

long scale(long x, long factor)
{
    return x * factor;
}
`;

async function fixture() {
  const [demo] = await q("SELECT password_hash FROM users WHERE username = 'student05'");
  const section = await q('INSERT INTO sections (code, name) VALUES (?, ?)', [USER, 'two-file e2e']);
  const user = await q("INSERT INTO users (username, password_hash, name, role, section_id) VALUES (?, ?, 'Two File Student', 'student', ?)",
    [USER, demo.password_hash, section.insertId]);
  const problem = await q(`INSERT INTO problems (title, statement_md, env, template_code, solution_code, time_limit_ms, memory_limit_kb)
    VALUES (?, 'Write scale() as scale.h says; harness.c calls it.', 'c', ?, ?, 2000, 65536)`, [`Scale ${RUN}`, TEMPLATE, FIXED]);
  for (const [name, contents, shown] of [['scale.h', HEADER, 1], ['harness.c', HARNESS, 1], ['factor.txt', '3\n', 0]]) {
    await q('INSERT INTO problem_files (problem_id, name, contents, shown_to_students) VALUES (?, ?, ?, ?)', [problem.insertId, name, contents, shown]);
  }
  for (const [pos, input, output, vis] of [[1, '14\n', '42\n', 'visible'], [2, '-5 1\n', '-15\n3\n', 'hidden']]) {
    await q('INSERT INTO test_cases (problem_id, position, input, expected_output, visibility, weight) VALUES (?, ?, ?, ?, ?, 1)',
      [problem.insertId, pos, input, output, vis]);
  }
  const ev = await q("INSERT INTO events (title, type, description, published_at) VALUES (?, 'exam', 'two-file e2e', UTC_TIMESTAMP(3))", [TITLE]);
  const qn = await q('INSERT INTO event_questions (event_id, position, problem_id, max_marks) VALUES (?, 1, ?, 10)', [ev.insertId, problem.insertId]);
  const sc = await q('INSERT INTO schedules (event_id, start_time, stop_time) VALUES (?, UTC_TIMESTAMP(3) - INTERVAL 5 MINUTE, UTC_TIMESTAMP(3) + INTERVAL 60 MINUTE)', [ev.insertId]);
  await q('INSERT INTO slots (schedule_id, event_id, section_id) VALUES (?, ?, ?)', [sc.insertId, ev.insertId, section.insertId]);
  const a = await q("INSERT INTO assignments (kind, user_id, event_id, question_id, problem_id) VALUES ('event', ?, ?, ?, ?)",
    [user.insertId, ev.insertId, qn.insertId, problem.insertId]);
  return { userId: user.insertId, sectionId: section.insertId, problemId: problem.insertId, eventId: ev.insertId, assignmentId: a.insertId };
}

async function removeFixture(f) {
  for (const t of ['evaluations', 'executions', 'compilations']) await q(`DELETE FROM ${t} WHERE assignment_id = ?`, [f.assignmentId]);
  await q('DELETE FROM code WHERE assignment_id = ?', [f.assignmentId]);
  await q('DELETE FROM assignments WHERE event_id = ?', [f.eventId]);
  await q('DELETE FROM events WHERE id = ?', [f.eventId]);
  await q('DELETE FROM test_cases WHERE problem_id = ?', [f.problemId]);
  await q('DELETE FROM problems WHERE id = ?', [f.problemId]);
  await q('DELETE FROM users WHERE id = ?', [f.userId]);
  await q('DELETE FROM sections WHERE id = ?', [f.sectionId]);
}

test('a student sits a C question of two files in the browser', { skip: !chromiumPath() && 'chromium is not installed', timeout: 180000 }, async (t) => {
  const f = await fixture();
  t.after(async () => { await removeFixture(f).catch((e) => console.error('cleanup:', e.message)); await close(); });
  const browser = await launch();
  t.after(() => browser.close());
  const page = await browser.context.newPage();
  const consoleErrors = [];
  page.on('pageerror', (e) => consoleErrors.push(String(e)));

  await t.test('sign in, open the question: the given files beside the statement, not the hidden data', async () => {
    await page.goto(`${BASE}/accounts/login`);
    await page.fill('#username', USER);
    await page.fill('#password', 'prutor-demo');
    await Promise.all([page.waitForURL(/\/home$/), page.click('button[type=submit]')]);
    await page.locator('section[aria-labelledby=h-ongoing]').getByText(TITLE).waitFor();
    await Promise.all([page.waitForURL(/\/editor\/\d+$/), page.getByRole('link', { name: `Scale ${RUN}` }).click()]);
    await page.waitForSelector('html[data-editor-ready="1"]');
    const names = await page.locator('.support-file summary').allInnerTexts();
    assert.deepEqual(names.map((n) => n.trim()), ['harness.c', 'scale.h'], 'the shown files, not the hidden factor.txt');
    await page.locator('.support-file summary', { hasText: 'scale.h' }).click();
    assert.match(await page.locator('.support-file pre').nth(1).innerText(), /long scale\(long x, long factor\);/);
  });

  await t.test('without the function, the link names it', async () => {
    await page.click('#btn-compile');
    await page.locator('#compile-verdict').waitFor({ timeout: 60000 });
    assert.match(await page.locator('#compile-verdict').innerText(), /Compilation failed/);
    assert.match(await page.locator('#panel-messages').innerText(), /scale/);
  });

  await t.test('write the function, compile, run with input (the harness reads its data file)', async () => {
    await replaceCode(page, FIXED);
    await page.click('#btn-compile');
    await page.locator('#compile-verdict', { hasText: 'Compiled successfully' }).waitFor({ timeout: 60000 });
    assert.equal(await runWithInput(page, '7 -2\n'), '21\n-6');
  });

  await t.test('evaluate and submit', async () => {
    await page.click('#btn-evaluate');
    await page.locator('#eval-verdict').waitFor({ timeout: 90000 });
    const text = await page.locator('#eval-verdict').innerText();
    assert.match(text, /Accepted/, text);
    assert.match(text, /2 of 2 tests passed/, text);
    await submit(page);
    const graded = await until(async () => (await q(`SELECT a.score FROM assignments a JOIN auto_grades ag ON ag.assignment_id = a.id
      WHERE a.id = ? AND ag.source = 'submission'`, [f.assignmentId]))[0], { timeoutMs: 60000, what: 'the grade of the submission' });
    assert.equal(Number(graded.score), 10, 'full marks');
  });

  assert.deepEqual(consoleErrors, []);
});
