'use strict';
// Issue 12, in headless Chromium through HAProxy with the real engine and the
// automatic grader: the server's deadline reaches an open editor (an extension,
// then a closure); code saved without a Submit is submitted and graded at the
// deadline; the automatic score is the evaluation of exactly the submitted code
// (not of the last Evaluate click) on the grading page, the live monitor, the
// results CSV and, once released, the student's marks.
const test = require('node:test');
const assert = require('node:assert/strict');
const { chromium } = require('playwright-core');
const { chromiumPath, ARGS } = require('../helpers/browser');
const env = require('../helpers/env');
const dbh = require('../helpers/db');
const ex = require('../helpers/exam');
const { as, postForm } = require('../helpers/staff');

const BASE = env.BASE;

const { openEditor, setCode } = ex;

// each person in a cookie jar of their own
async function signIn(browser, username, errors) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  context.on('page', (p) => p.on('pageerror', (e) => errors.push(String(e))));
  const page = await ex.signInPage(context, username);
  page.on('close', () => context.close().catch(() => {}));
  return page;
}

// seconds on the editor's countdown (hh:mm:ss)
async function secondsLeft(page) {
  const t = await page.locator('#countdown strong').innerText();
  const m = /^(\d+):(\d+):(\d+)$/.exec(t.trim());
  return m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) : null;
}

test('exam deadlines and grading', { skip: !chromiumPath() && 'chromium is not installed', timeout: 240000 }, async (t) => {
  const { users } = await ex.makeSection(3);
  const problemId = await ex.makeProblem();
  const sectionId = (await dbh.q('SELECT section_id FROM users WHERE username = ?', [users[0]]))[0].section_id;
  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ARGS });
  const staff = await as('instructor');
  t.after(async () => { await browser.close(); await dbh.close(); });
  const errors = [];

  await t.test('an extension reaches the open editor, then a closure does', async () => {
    const exam = await ex.makeExam({ title: 'Extension', sectionId, problemId, stopSec: 170 });
    const aid = await ex.assignment(exam.eventId, users[0]);
    const page = await signIn(browser, users[0], errors);
    await openEditor(page, aid);
    const before = await secondsLeft(page);
    assert.ok(before > 100 && before <= 170, `countdown ${before}`);
    const r = await postForm(staff, `/events/${exam.eventId}/extend-section`, { section_id: sectionId, minutes: 1 });
    assert.equal(r.status, 303);
    // the page polls its event's timing version (every ~10 s this close to the end)
    await ex.until(async () => (await secondsLeft(page)) > before + 40, { timeoutMs: 20000, what: 'the countdown to follow the extension' });
    assert.match(await page.locator('#closed-banner').innerText(), /closes at/);
    assert.equal(await page.locator('#btn-save').isDisabled(), false);
    // the instructor ends the section's time now: the editor closes without a reload
    assert.equal((await postForm(staff, `/events/${exam.eventId}/end-section`, { section_id: sectionId })).status, 303);
    await page.locator('#countdown.over').waitFor({ timeout: 20000 });
    assert.equal(await page.locator('#btn-save').isDisabled(), true);
    assert.equal(await page.evaluate(() => window.prutorEditor.view.state.readOnly), true);
    await page.close();
  });

  await t.test('saved but never submitted: submitted and graded at the deadline', async () => {
    const exam = await ex.makeExam({ title: 'Autosubmit', sectionId, problemId, stopSec: 22 });
    const aid = await ex.assignment(exam.eventId, users[1]);
    const page = await signIn(browser, users[1], errors);
    await openEditor(page, aid);
    await setCode(page, ex.FIXED);
    await page.click('.cm-content');
    await page.keyboard.press('Control+S');
    await page.locator('#save-state', { hasText: /^Saved/ }).waitFor();
    assert.match(await page.locator('#submit-state').innerText(), /Not submitted/);
    await page.locator('#countdown.over').waitFor({ timeout: 40000 });
    const sub = await ex.until(async () => (await dbh.q('SELECT automatic, code_id FROM submissions WHERE assignment_id = ?', [aid]))[0],
      { timeoutMs: 60000, what: 'the automatic submission' });
    assert.equal(sub.automatic, 1);
    const graded = await ex.until(async () => (await dbh.q('SELECT a.score, ag.final, ag.code_id, ag.source FROM assignments a JOIN auto_grades ag ON ag.assignment_id = a.id WHERE a.id = ?', [aid]))[0],
      { timeoutMs: 60000, what: 'the automatic grade' });
    assert.equal(Number(graded.score), 10);
    assert.equal(graded.final, 1);
    assert.equal(graded.source, 'deadline');
    assert.equal(Number(graded.code_id), Number(sub.code_id));
    // a reload shows it as submitted automatically
    await openEditor(page, aid);
    assert.match(await page.locator('#submit-state').innerText(), /automatically/);
    await page.close();
  });

  await t.test('the automatic score is that of the submitted code, everywhere; students see it once released', async () => {
    const exam = await ex.makeExam({ title: 'Score', sectionId, problemId, stopSec: 1800 });
    const aid = await ex.assignment(exam.eventId, users[2]);
    const page = await signIn(browser, users[2], errors);
    await openEditor(page, aid);
    await setCode(page, ex.BUGGY);
    await page.click('#btn-evaluate');
    await page.locator('#eval-verdict').waitFor({ timeout: 90000 });
    assert.match(await page.locator('#eval-verdict').innerText(), /2 of 4 tests passed/);
    await setCode(page, ex.FIXED);
    await page.click('#btn-submit');
    await page.click('#submit-confirm');
    await page.locator('#submit-state', { hasText: /^Submitted/ }).waitFor({ timeout: 15000 });
    const graded = await ex.until(async () => (await dbh.q('SELECT a.score FROM assignments a JOIN auto_grades ag ON ag.assignment_id = a.id WHERE a.id = ? AND ag.source = \'submission\'', [aid]))[0],
      { timeoutMs: 60000, what: 'the grade of the submission' });
    assert.equal(Number(graded.score), 10);

    // grading page: the submitted code beside its own evaluation
    const gp = await staff.get(`/grading/a/${aid}`);
    assert.equal(gp.status, 200);
    assert.match(gp.text, /a \+ b/);
    assert.match(gp.text, /id="auto-score">10 \/ 10</);
    assert.match(gp.text, /4 of 4 tests passed/);
    // live monitor and results CSV
    const live = await staff.getJson(`/live/${exam.eventId}/data`);
    const row = live.json.students.find((s) => s.username === users[2]);
    assert.equal(row.score, 10);
    const csv = await staff.get(`/events/${exam.eventId}/results.csv`);
    const [header, ...lines] = csv.text.replace(/^\uFEFF/, '').trim().split(/\r?\n/);
    const line = lines.find((l) => l.startsWith(`${users[2]},`)).split(',');
    assert.equal(line[header.split(',').indexOf('q1_auto_score')], '10');

    // the student's marks: nothing before the release
    await page.goto(`${BASE}/grading/mine`);
    const card = page.locator(`#m-${aid}`);
    assert.match(await card.innerText(), /not released/);
    assert.doesNotMatch(await card.innerText(), /automatic score/);
    // the instructor releases the marks in the browser
    const ipage = await signIn(browser, 'instructor', errors);
    await ipage.goto(`${BASE}/events/${exam.eventId}`);
    ipage.once('dialog', (d) => d.accept());
    await Promise.all([ipage.waitForURL(/msg=/), ipage.click('#release-grades')]);
    assert.match(await ipage.locator('#release-state').innerText(), /released/);
    await page.reload();
    assert.match(await card.locator('.auto-score').innerText(), /^10$/);
    await ipage.close();
    await page.close();
  });

  assert.deepEqual(errors, []);
});
