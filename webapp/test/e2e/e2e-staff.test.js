'use strict';
// The staff side end to end in headless Chromium through HAProxy (BASE_URL): an
// instructor imports a CSV of 30 students into two sections, creates a problem
// with visible and hidden test cases, checks it against the reference solution,
// creates an exam with two questions scheduled for one section from now for 30
// minutes and publishes it; a student of that section sees it on home, one of the
// other section does not; the student submits; a TA grades it with feedback and
// the student sees the marks; the instructor watches the live page and exports
// the results as CSV. Unique names per run. SCREENSHOT_DIR=... keeps pictures.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { chromium } = require('playwright-core');
const { chromiumPath } = require('../helpers/browser');

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8080';
const SHOTS = process.env.SCREENSHOT_DIR || '';
const RUN = Date.now().toString(36);
const SA = `X${RUN}`;
const SB = `Y${RUN}`;
const PASS = `exam-${RUN}-pw`;
const EXAM = `Midterm ${RUN}`;
const PROBLEM = `Sum ${RUN}`;
const PROBLEM2 = `Max ${RUN}`;
const TA = `ta${RUN}`;
const st = (s, i) => `${s === 'a' ? 'x' : 'y'}${RUN}s${String(i).padStart(2, '0')}`;
const SUM = '#include <stdio.h>\n\nint main(void)\n{\n    long a, b;\n    if (scanf("%ld %ld", &a, &b) != 2) return 1;\n    printf("%ld\\n", a + b);\n    return 0;\n}\n';
const MAX = '#include <stdio.h>\n\nint main(void)\n{\n    long a, b;\n    if (scanf("%ld %ld", &a, &b) != 2) return 1;\n    printf("%ld\\n", a > b ? a : b);\n    return 0;\n}\n';

test('a course run by its staff in the browser', { skip: !chromiumPath() && 'chromium is not installed', timeout: 300000 }, async (t) => {
  // one browser, a separate context (cookie jar) per person
  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ARGS });
  t.after(() => browser.close());
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
  const errors = [];
  const newPage = async () => {
    const p = await ctx.newPage();
    p.on('pageerror', (e) => errors.push(String(e)));
    p.on('dialog', (d) => d.accept());
    return p;
  };
  const shot = async (page, name) => {
    if (!SHOTS) return;
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  };
  // each role in its own cookie jar: a fresh incognito-like context per person
  const people = [];
  async function signIn(username, password) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    people.push(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('dialog', (d) => d.accept());
    await page.goto(`${BASE}/accounts/login`);
    await page.fill('#username', username);
    await page.fill('#password', password);
    await Promise.all([page.waitForURL(/\/home$/), page.click('button[type=submit]')]);
    return page;
  }
  t.after(async () => { for (const c of people) await c.close().catch(() => {}); });

  const page = await newPage();
  let eventUrl;
  let studentPage;

  await t.test('the instructor signs in and imports 30 students in two sections (and a TA)', async () => {
    await page.goto(`${BASE}/accounts/login`);
    await page.fill('#username', 'instructor');
    await page.fill('#password', process.env.E2E_STAFF_PASSWORD || 'prutor-demo');
    await Promise.all([page.waitForURL(/\/home$/), page.click('button[type=submit]')]);
    await page.getByRole('link', { name: 'People' }).click();
    await page.getByRole('link', { name: 'Import CSV' }).click();
    const lines = ['username,name,email,section,role'];
    for (let i = 1; i <= 15; i++) lines.push(`${st('a', i)},Student A${i},${st('a', i)}@example.edu,${SA},student`);
    for (let i = 1; i <= 15; i++) lines.push(`${st('b', i)},Student B${i},,${SB},student`);
    lines.push(`${TA},Teaching Assistant ${RUN},,,ta`);
    await page.setInputFiles('#csv-file', { name: 'students.csv', mimeType: 'text/csv', buffer: Buffer.from(lines.join('\n')) });
    await page.waitForFunction(() => document.querySelector('#f-csv').value.includes('username,name'));
    await page.selectOption('#f-password_mode', 'shared');
    await page.fill('#f-shared_password', PASS);
    await shot(page, 'staff-01-import');
    await Promise.all([page.waitForURL(/\/people\/import$/), page.click('#import-submit')]);
    assert.equal(await page.locator('#count-created').innerText(), '31');
    assert.equal(await page.locator('#count-wrong').innerText(), '0');
    assert.equal(await page.locator('#import-report tbody tr.row-created').count(), 31);
    await shot(page, 'staff-02-import-report');
  });

  await t.test('the instructor creates a problem with visible and hidden tests and checks the reference solution', async () => {
    await page.goto(`${BASE}/problems/new`);
    await page.fill('#f-title', PROBLEM);
    await page.fill('#f-category', 'basics');
    await page.fill('#f-statement_md', 'Read two integers `a` and `b`; print **a + b**.\n\n    Input:  2 3\n    Output: 5');
    await page.fill('#f-solution_code', SUM);
    await page.fill('#f-time_limit_ms', '1000');
    await Promise.all([page.waitForURL(/\/problems\/\d+\?done=created/), page.click('#create-problem')]);
    const add = async (input, out, vis) => {
      const box = page.locator('#add-test');
      if (!(await box.getAttribute('open') !== null)) await box.locator('summary').click();
      await box.locator('textarea[name=input]').fill(input);
      await box.locator('textarea[name=expected_output]').fill(out);
      await box.locator('select[name=visibility]').selectOption(vis);
      await Promise.all([page.waitForURL(/done=test_added/), box.locator('#add-test-submit').click()]);
    };
    await add('2 3\n', '5\n', 'visible');
    await add('-7 7\n', '0\n', 'hidden');
    await add('1000000000 1000000000\n', '2000000000\n', 'hidden');
    assert.equal(await page.locator('#tests tbody tr[data-visibility=visible]').count(), 1);
    assert.equal(await page.locator('#tests tbody tr[data-visibility=hidden]').count(), 2);
    await page.click('#check-solution');
    await page.locator('#check-verdict').waitFor({ timeout: 90000 });
    assert.equal(await page.locator('#check-verdict').innerText(), 'all tests pass');
    assert.equal(await page.locator('#check-cases tbody tr.pass').count(), 3);
    await shot(page, 'staff-03-problem-checked');
    // a second problem for question 2
    await page.goto(`${BASE}/problems/new`);
    await page.fill('#f-title', PROBLEM2);
    await page.fill('#f-statement_md', 'Print the larger of two integers.');
    await page.fill('#f-solution_code', MAX);
    await Promise.all([page.waitForURL(/\/problems\/\d+\?done=created/), page.click('#create-problem')]);
    await page.locator('#add-test textarea[name=input]').fill('3 9');
    await page.locator('#add-test textarea[name=expected_output]').fill('9');
    await Promise.all([page.waitForURL(/done=test_added/), page.click('#add-test-submit')]);
  });

  await t.test('the instructor creates an exam with two questions for one section, from now for 30 minutes, and publishes it', async () => {
    await page.goto(`${BASE}/events/new`);
    await page.fill('#f-title', EXAM);
    await page.selectOption('#f-type', 'exam');
    await page.fill('#f-description', 'Two questions, 30 minutes.');
    await Promise.all([page.waitForURL(/\/events\/\d+\?msg=/), page.click('#create-event')]);
    eventUrl = page.url().replace(/\?.*$/, '');
    for (const title of [PROBLEM, PROBLEM2]) {
      const q = page.locator('#questions');
      if ((await q.locator('details').getAttribute('open')) === null) await q.locator('summary').click();
      await q.locator('select[name=problem_id]').selectOption({ label: title + (title === PROBLEM ? ' (basics)' : '') });
      await q.locator('input[name=max_marks]').fill('10');
      await Promise.all([page.waitForURL(/msg=Question/), q.locator('#add-question').click()]);
    }
    assert.equal(await page.locator('#questions tbody tr').count(), 2);
    const s = page.locator('#schedules');
    await s.locator('label.checklabel', { hasText: SA }).locator('input').check();
    await s.locator('input[name=start_now]').check();
    await s.locator('input[name=duration]').fill('30');
    await Promise.all([page.waitForURL(/msg=Schedule/), s.locator('#add-schedule').click()]);
    assert.match(await page.locator('#schedules tbody').innerText(), new RegExp(`${SA}[\\s\\S]*30m[\\s\\S]*ongoing`));
    await Promise.all([page.waitForURL(/msg=Published/), page.click('#publish')]);
    assert.match(await page.locator('.flash.ok').innerText(), /Published: 30 assignments created/);
    await shot(page, 'staff-04-event-published');
    await Promise.all([page.waitForURL(/msg=Published/), page.click('#publish')]);
    assert.match(await page.locator('.flash.ok').innerText(), /0 new assignments \(30 in all\)/);
  });

  await t.test('a student of the section sees the exam on home; one of the other section does not', async () => {
    const other = await signIn(st('b', 1), PASS);
    assert.doesNotMatch(await other.locator('main').innerText(), new RegExp(EXAM));
    studentPage = await signIn(st('a', 1), PASS);
    await studentPage.getByText(EXAM).first().waitFor();
    await shot(studentPage, 'staff-05-student-home');
  });

  await t.test('the student writes, evaluates and submits question 1', async () => {
    const sp = studentPage;
    await Promise.all([sp.waitForURL(/\/editor\/\d+$/), sp.getByRole('link', { name: PROBLEM }).click()]);
    await sp.waitForSelector('html[data-editor-ready="1"]');
    await sp.click('.cm-content');
    await sp.keyboard.press('Control+A');
    await sp.keyboard.press('Delete');
    await sp.keyboard.insertText(SUM);
    await sp.click('#btn-save');
    await sp.locator('#save-state', { hasText: /^Saved/ }).waitFor();
    await sp.click('#btn-evaluate');
    await sp.locator('#eval-verdict').waitFor({ timeout: 90000 });
    await sp.click('#btn-submit');
    await sp.click('#submit-confirm');
    await sp.locator('#submit-state', { hasText: 'Submitted' }).waitFor();
  });

  await t.test('the live page shows the submission without reloading', async () => {
    await page.goto(eventUrl);
    await Promise.all([page.waitForURL(/\/live\/\d+$/), page.click('#live-link')]);
    const row = page.locator(`tr[data-username="${st('a', 1)}"]`);
    await row.locator('[data-f=submitted]', { hasText: '1' }).waitFor({ timeout: 15000 });
    await page.locator('#live-stamp', { hasText: 'updated' }).waitFor({ timeout: 15000 });
    assert.equal(await page.locator('#tot-students').innerText(), '15');
    await shot(page, 'staff-06-live');
  });

  await t.test('the instructor gives the submission to the TA; the TA grades it with feedback', async () => {
    await page.goto(eventUrl.replace('/events/', '/grading/events/'));
    const boxes = page.locator('#distribute input[name=ta_ids]');
    for (let i = 0; i < await boxes.count(); i++) await boxes.nth(i).uncheck();
    await page.locator('#distribute label.checklabel', { hasText: TA }).locator('input').check();
    await Promise.all([page.waitForURL(/msg=/), page.click('#distribute-submit')]);
    assert.match(await page.locator('.flash.ok').innerText(), /1 submission\(s\) distributed among 1 TA/);
    const ta = await signIn(TA, PASS);
    await ta.goto(`${BASE}/grading`);
    await Promise.all([ta.waitForURL(/\/grading\/a\/\d+$/), ta.locator('#my-queue').getByRole('link', { name: 'Grade' }).first().click()]);
    assert.match(await ta.locator('#graded-code').innerText(), /a \+ b/);
    await ta.fill('#f-marks', '8.5');
    await ta.fill('#f-feedback', `Correct. Check the return value of scanf (${RUN}).`);
    await shot(ta, 'staff-07-grade');
    await Promise.all([ta.waitForURL(/\/grading(\?done=1|\/a\/\d+\?saved=1)$/), ta.click('#save-next')]);
  });

  await t.test('the instructor releases the marks; the student sees them and the feedback', async () => {
    await page.goto(eventUrl);
    await Promise.all([page.waitForURL(/msg=/), page.click('#release-grades')]);
    assert.match(await page.locator('#release-state').innerText(), /released/);
    await studentPage.goto(`${BASE}/codebook`);
    const entry = studentPage.locator('details.entry', { hasText: PROBLEM });
    assert.match(await entry.locator('summary').innerText(), /Marks 8\.5/);
    await studentPage.goto(`${BASE}/grading/mine`);
    const text = await studentPage.locator('main').innerText();
    assert.match(text, /Marks 8\.5 \/ 10/);
    assert.match(text, new RegExp(`Check the return value of scanf \\(${RUN}\\)`));
    await shot(studentPage, 'staff-08-student-marks');
  });

  await t.test('the instructor exports the results as CSV', async () => {
    // the automatic score comes from the grader, which paces itself while the host is busy
    // (one batch every 10 s, webapp/README.md): export again until it is in (at most ~45 s)
    const exportRows = async () => {
      await page.goto(eventUrl);
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-results')]);
      return fs.readFileSync(await download.path(), 'utf8').replace(/^\uFEFF/, '').trim().split('\r\n');
    };
    const graded = (rows) => (rows.find((l) => l.startsWith(`${st('a', 1)},`)) || '').split(',')[4] !== '';
    let lines = await exportRows();
    for (let i = 0; i < 15 && !graded(lines); i++) {
      await new Promise((r) => setTimeout(r, 3000));
      lines = await exportRows();
    }
    assert.match(lines[0], /^username,name,section,q1_submitted_at,q1_auto_score,q1_marks/);
    assert.equal(lines.length, 16, 'a header and 15 students');
    const row = lines.find((l) => l.startsWith(`${st('a', 1)},`));
    assert.match(row, new RegExp(`^${st('a', 1)},Student A1,${SA},\\d{4}-\\d\\d-\\d\\dT[^,]+,10,8\\.5,10,Correct\\.`));
    await shot(page, 'staff-09-event');
  });

  assert.deepEqual(errors, [], 'no script errors in the pages');
});
