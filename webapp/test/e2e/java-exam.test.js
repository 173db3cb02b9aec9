'use strict';
// End to end in headless Chromium through HAProxy: a student sits a Java exam question.
// The fixture (a section of one student, a Java problem with a visible and a hidden case
// and the Java template, an exam open now) is written to MariaDB and removed after. The
// student signs in, opens the question, starts from the template, sees Java highlighting,
// compiles (javac's error on its line), fixes it, runs with input, evaluates and submits;
// the automatic grader gives it full marks. Then staff: on a new problem the template follows
// the chosen language (client/app.js) until staff write their own. Needs the whole stack and a
// JDK (engine/java).
const test = require('node:test');
const assert = require('node:assert/strict');
const { launch, chromiumPath } = require('../helpers/browser');
const { q, close } = require('../helpers/db');
const { replaceCode, runWithInput, submit } = require('../helpers/editor');
const { until } = require('../helpers/exam');

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8080';
const RUN = Date.now().toString(36);
const USER = `e2ejava${RUN}`;
const TITLE = `Java exam ${RUN}`;

const TEMPLATE = 'import java.util.Scanner;\n\npublic class Main {\n    public static void main(String[] args) {\n        Scanner in = new Scanner(System.in);\n    }\n}\n';
const BROKEN = `import java.util.Scanner;

public class Product {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in)
        System.out.println(in.nextLong() * in.nextLong());
    }
}
`;
const FIXED = `import java.util.Scanner;

public class Product {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        Object n = in.nextLong() * in.nextLong();
        if (n instanceof Long) System.out.println(n);
    }
}
`;

async function fixture() {
  const [demo] = await q("SELECT password_hash FROM users WHERE username = 'student05'");
  const section = await q('INSERT INTO sections (code, name) VALUES (?, ?)', [USER, 'java e2e']);
  const user = await q("INSERT INTO users (username, password_hash, name, role, section_id) VALUES (?, ?, 'Java Student', 'student', ?)",
    [USER, demo.password_hash, section.insertId]);
  const problem = await q(`INSERT INTO problems (title, statement_md, env, template_code, solution_code, time_limit_ms, memory_limit_kb)
    VALUES (?, 'Read two integers and print their product.', 'java', ?, ?, 4000, 262144)`, [`Product ${RUN}`, TEMPLATE, FIXED]);
  for (const [pos, input, output, vis] of [[1, '6 7\n', '42\n', 'visible'], [2, '-3 5\n', '-15\n', 'hidden']]) {
    await q('INSERT INTO test_cases (problem_id, position, input, expected_output, visibility, weight) VALUES (?, ?, ?, ?, ?, 1)',
      [problem.insertId, pos, input, output, vis]);
  }
  const ev = await q("INSERT INTO events (title, type, description, published_at) VALUES (?, 'exam', 'java e2e', UTC_TIMESTAMP(3))", [TITLE]);
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

test('a student sits a Java exam question in the browser', { skip: !chromiumPath() && 'chromium is not installed', timeout: 180000 }, async (t) => {
  const f = await fixture();
  t.after(async () => { await removeFixture(f).catch((e) => console.error('cleanup:', e.message)); await close(); });
  const browser = await launch();
  t.after(() => browser.close());
  const page = await browser.context.newPage();
  const consoleErrors = [];
  page.on('pageerror', (e) => consoleErrors.push(String(e)));

  await t.test('sign in and open the exam question: the Java template, a Compile button', async () => {
    await page.goto(`${BASE}/accounts/login`);
    await page.fill('#username', USER);
    await page.fill('#password', 'prutor-demo');
    await Promise.all([page.waitForURL(/\/home$/), page.click('button[type=submit]')]);
    await page.locator('section[aria-labelledby=h-ongoing]').getByText(TITLE).waitFor();
    await Promise.all([page.waitForURL(/\/editor\/\d+$/), page.getByRole('link', { name: `Product ${RUN}` }).click()]);
    await page.waitForSelector('html[data-editor-ready="1"]');
    assert.equal((await page.locator('#btn-compile').innerText()).trim(), 'Compile');
    await page.locator('.cm-line', { hasText: 'public class Main {' }).waitFor();
  });

  await t.test("a compile shows javac's error on its line", async () => {
    await replaceCode(page, BROKEN);
    await page.click('#btn-compile');
    await page.locator('#compile-verdict').waitFor({ timeout: 60000 });
    assert.match(await page.locator('#compile-verdict').innerText(), /Compilation failed/);
    const ref = page.locator('#panel-messages .msg.sev-error .lineref').first();
    assert.equal(await ref.getAttribute('data-line'), '5');
    await page.locator('.cm-lint-marker-error').first().waitFor();
  });

  await t.test('the editor highlights Java (instanceof is a keyword, not a name as in C)', async () => {
    await replaceCode(page, FIXED);
    const kw = page.locator('.cm-line span', { hasText: /^instanceof$/ });
    await kw.waitFor();
    assert.equal(await kw.evaluate((e) => getComputedStyle(e).color), 'rgb(106, 27, 154)');
  });

  await t.test('fix it, compile again, run with input', async () => {
    await page.click('#btn-compile');
    await page.locator('#compile-verdict', { hasText: 'Compiled successfully' }).waitFor({ timeout: 60000 });
    assert.equal(await runWithInput(page, '40 2\n'), '80');
  });

  await t.test('evaluate and submit', async () => {
    await page.click('#btn-evaluate');
    await page.locator('#eval-verdict').waitFor({ timeout: 90000 });
    const text = await page.locator('#eval-verdict').innerText();
    assert.match(text, /Accepted/, text);
    assert.match(text, /2 of 2 tests passed/, text);
    await submit(page);
    // the automatic grader evaluates the submitted Java code through the engine
    const graded = await until(async () => (await q(`SELECT a.score FROM assignments a JOIN auto_grades ag ON ag.assignment_id = a.id
      WHERE a.id = ? AND ag.source = 'submission'`, [f.assignmentId]))[0], { timeoutMs: 60000, what: 'the grade of the submission' });
    assert.equal(Number(graded.score), 10, 'full marks');
    const [sub] = await q("SELECT code FROM code WHERE assignment_id = ? AND save_trigger = 'submit' ORDER BY id DESC LIMIT 1", [f.assignmentId]);
    assert.match(sub.code, /instanceof Long/);
  });

  await t.test('staff: on a new problem the template follows the language until staff write their own', async () => {
    // the same browser profile, after the student's part: the student's cookie goes first
    await browser.context.clearCookies();
    const sp = await browser.context.newPage();
    await sp.goto(`${BASE}/accounts/login`);
    await sp.fill('#username', 'instructor');
    await sp.fill('#password', 'prutor-demo');
    await Promise.all([sp.waitForURL(/\/home$/), sp.click('button[type=submit]')]);
    await sp.goto(`${BASE}/problems/new`);
    assert.match(await sp.inputValue('#f-template_code'), /int main\(void\)/);
    await sp.selectOption('#f-env', 'java');
    assert.match(await sp.inputValue('#f-template_code'), /public class Main/);
    await sp.selectOption('#f-env', 'python3');
    assert.match(await sp.inputValue('#f-template_code'), /def main\(\):/);
    await sp.fill('#f-template_code', '# my own start\n');
    await sp.selectOption('#f-env', 'java');
    assert.equal(await sp.inputValue('#f-template_code'), '# my own start\n', "staff's own template is kept");
    await sp.close();
  });

  assert.deepEqual(consoleErrors, []);
});
