'use strict';
// Issue 30 in headless Chromium through HAProxy with the real engine and grader:
// a student with +25% sees their own end time and works (and is submitted
// automatically) until it, after a classmate's editor has closed; a paused
// student's clock, editor and runs stop, and resume with the end time moved by
// the pause; a waiting page opens the exam at the invigilator's start; an announcement
// is acknowledged by one student, the staff page names the other, who was offline
// and gets it when back. Exams last seconds, not minutes; no tight time bounds.
const test = require('node:test');
const assert = require('node:assert/strict');
const { chromium } = require('playwright-core');
const { chromiumPath, ARGS } = require('../helpers/browser');
const dbh = require('../helpers/db');
const ex = require('../helpers/exam');
const { as, postForm, postJson } = require('../helpers/staff');

async function signIn(browser, username, errors) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  context.on('page', (p) => p.on('pageerror', (e) => errors.push(String(e))));
  const page = await ex.signInPage(context, username);
  page.on('close', () => context.close().catch(() => {}));
  return page;
}

async function secondsLeft(page) {
  const m = /^(\d+):(\d+):(\d+)$/.exec((await page.locator('#countdown strong').innerText()).trim());
  return m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) : null;
}
const endTime = async (page) => new Date(await page.locator('#end-time time').getAttribute('datetime')).getTime();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// the engine, called from the page as a script would (the session's CSRF token)
const compileFromPage = (page, aid) => page.evaluate(async (id) => {
  const r = await fetch('/compile', {
    method: 'POST', credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-CSRF-Token': document.querySelector('meta[name="csrf-token"]').content },
    body: JSON.stringify({ assignment_id: id, code: 'int main(void){return 0;}\n' }),
  });
  return { status: r.status, body: await r.text() };
}, aid);

test('exams as they really run, in the browser', { skip: !chromiumPath() && 'chromium is not installed', timeout: 300000 }, async (t) => {
  const { sectionId, users } = await ex.makeSection(3);
  const problemId = await ex.makeProblem();
  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ARGS });
  const staff = await as('instructor');
  t.after(async () => { await browser.close(); await dbh.close(); });
  const errors = [];

  await t.test('a +25% student sees their own end time and is submitted automatically at it', async () => {
    const [extra, plain] = users;
    assert.equal((await postJson(staff, '/events/accommodations', { csv: `${extra},25,0,e2e` })).status, 200);
    // 40 s scheduled from 10 s ago: +25% is 10 s more for one student
    const exam = await ex.makeExam({ title: 'Plus25', sectionId, problemId, startSec: -10, stopSec: 30 });
    const a1 = await ex.assignment(exam.eventId, extra);
    const a2 = await ex.assignment(exam.eventId, plain);
    const p1 = await signIn(browser, extra, errors);
    const p2 = await signIn(browser, plain, errors);
    await ex.openEditor(p1, a1);
    await ex.openEditor(p2, a2);
    assert.equal(await endTime(p1) - await endTime(p2), 10000, 'the end times shown differ by 25% of 40 s');
    assert.match(await p1.locator('#end-time').innerText(), /extra time \+10 s/);
    await ex.setCode(p2, ex.BUGGY);
    await ex.setCode(p1, ex.BUGGY);
    // the classmate's editor closes at the scheduled end; the accommodated one stays open
    await p2.locator('#countdown.over').waitFor({ timeout: 60000 });
    assert.equal(await p1.evaluate(() => window.prutorEditor.view.state.readOnly), false);
    await ex.setCode(p1, ex.FIXED);
    await p1.click('.cm-content');
    await p1.keyboard.press('Control+S');
    await p1.locator('#save-state', { hasText: /^Saved/ }).waitFor();
    const [saved] = await dbh.q("SELECT c.id, c.save_time, w.deadline FROM code c JOIN assignment_window w ON w.assignment_id = c.assignment_id WHERE c.assignment_id = ? AND c.save_trigger = 'manual' ORDER BY c.id DESC LIMIT 1", [a1]);
    const [sched] = await dbh.q('SELECT s.stop_time FROM schedules s JOIN slots sl ON sl.schedule_id = s.id WHERE sl.event_id = ?', [exam.eventId]);
    assert.ok(saved.save_time >= sched.stop_time, 'saved after the scheduled end');
    assert.ok(saved.save_time < saved.deadline, 'and before their own');
    await p1.locator('#countdown.over').waitFor({ timeout: 60000 });
    const sub = await ex.until(async () => (await dbh.q('SELECT automatic, code_id FROM submissions WHERE assignment_id = ?', [a1]))[0],
      { timeoutMs: 90000, what: 'the automatic submission of the accommodated student' });
    assert.equal(sub.automatic, 1);
    assert.equal(Number(sub.code_id), Number(saved.id), 'the code saved in the extra time is what was submitted');
    // the results CSV says so, with the student's own end time
    const csvText = (await staff.get(`/events/${exam.eventId}/results.csv`)).text.replace(/^\uFEFF/, '');
    const [header, ...rows] = csvText.trim().split(/\r?\n/).map((l) => l.split(','));
    const row = rows.find((r) => r[0] === extra);
    assert.equal(row[header.indexOf('q1_auto_submitted')], '1');
    assert.equal(row[header.indexOf('end_time')], new Date(saved.deadline).toISOString());
    await p1.close();
    await p2.close();
    assert.equal((await postJson(staff, '/events/accommodations', { csv: `${extra},0,0,` })).status, 200);
  });

  await t.test('a paused student\'s clock, editor and runs stop, and resume with the end time moved', async () => {
    const who = users[2];
    const exam = await ex.makeExam({ title: 'Paused', sectionId, problemId, startSec: -30, stopSec: 600 });
    const aid = await ex.assignment(exam.eventId, who);
    const page = await signIn(browser, who, errors);
    await ex.openEditor(page, aid);
    await ex.setCode(page, ex.BUGGY);
    const end0 = await endTime(page);
    assert.equal((await postForm(staff, `/events/${exam.eventId}/pause`, { scope: 'student', username: who, reason: 'fire alarm' })).status, 303);
    // the open editor learns of it from the timing version it polls
    await page.locator('html[data-paused="1"]').waitFor({ timeout: 30000 });
    assert.match(await page.locator('#closed-banner').innerText(), /paused by the invigilator/);
    assert.equal(await page.evaluate(() => window.prutorEditor.view.state.readOnly), true);
    assert.equal(await page.locator('#btn-compile').isDisabled(), true);
    assert.equal(await ex.getCode(page), ex.BUGGY, 'the code is kept');
    const frozen = await secondsLeft(page);
    await sleep(2500);
    assert.equal(await secondsLeft(page), frozen, 'the clock stands still');
    const refused = await compileFromPage(page, aid);
    assert.equal(refused.status, 409);
    assert.match(refused.body, /paused/);
    assert.equal((await postForm(staff, `/events/${exam.eventId}/resume`, { username: who })).status, 303);
    await page.waitForFunction(() => !document.documentElement.dataset.paused, null, { timeout: 30000 });
    assert.match(await page.locator('#closed-banner').innerText(), /resumed/);
    assert.equal(await page.evaluate(() => window.prutorEditor.view.state.readOnly), false);
    const [hold] = await dbh.q('SELECT TIMESTAMPDIFF(MICROSECOND, h.started_at, h.ended_at) AS us FROM pause_holds h WHERE h.event_id = ? ORDER BY h.started_at DESC LIMIT 1', [exam.eventId]);
    assert.equal(await endTime(page) - end0, Math.round(Number(hold.us) / 1000), 'the end time moved by the pause');
    // the clock runs again, from where it stood
    const left = await secondsLeft(page);
    assert.ok(left <= frozen && left >= frozen - 30, `${left} after ${frozen}`);
    assert.equal((await compileFromPage(page, aid)).status, 200);
    await page.close();
  });

  await t.test('a waiting page opens the first question by itself when the invigilator starts', async () => {
    const who = users[0];
    const exam = await ex.makeExam({ title: 'Waiting', sectionId, problemId, startSec: 3600, stopSec: 5400, description: 'Bring **nothing**.' });
    const aid = await ex.assignment(exam.eventId, who);
    assert.equal((await postJson(staff, `/events/${exam.eventId}/start-mode`, { common_start: '1' })).status, 200);
    const page = await signIn(browser, who, errors);
    await page.goto(`${require('../helpers/env').BASE}/exam/${exam.eventId}`);
    await page.locator('#exam-waiting').waitFor();
    assert.equal(await page.locator('#exam-rules strong').innerText(), 'nothing');
    const c0 = await page.locator('[data-clock]').innerText();
    await ex.until(async () => (await page.locator('[data-clock]').innerText()) !== c0, { timeoutMs: 5000, what: 'the clock to tick' });
    assert.equal((await postForm(staff, `/events/${exam.eventId}/start`, {})).status, 303);
    await page.waitForURL(new RegExp(`/editor/${aid}$`), { timeout: 20000 });
    await page.waitForSelector('html[data-editor-ready="1"]');
    assert.ok((await secondsLeft(page)) > 25 * 60, 'the full 30 minutes from the start');
    await page.close();
  });

  await t.test('an announcement: some acknowledge, the staff page lists the others; an offline student sees it when back', async () => {
    const [reader, away] = users;
    const exam = await ex.makeExam({ title: 'Notice', sectionId, problemId, startSec: -30, stopSec: 900 });
    const pr = await signIn(browser, reader, errors);
    const pa = await signIn(browser, away, errors);
    await ex.openEditor(pr, await ex.assignment(exam.eventId, reader));
    await ex.openEditor(pa, await ex.assignment(exam.eventId, away));
    await pa.context().setOffline(true);
    const message = `Q1: print a newline at the end (${ex.TAG})`;
    assert.equal((await postForm(staff, `/tools/events/${exam.eventId}/announcements`, { message })).status, 303);
    const fresh = pr.locator('#announcements li.announcement.new', { hasText: message });
    await fresh.waitFor({ timeout: 30000 });
    await fresh.locator('button.ack').click();
    await pr.locator('#announcements details.earlier li.announcement', { hasText: message }).waitFor({ state: 'attached' });
    assert.equal(await pr.locator('#announcements li.announcement.new').count(), 0);
    // the staff page, in a browser: one read, the other named as not yet
    const sp = await signIn(browser, 'instructor', errors);
    await sp.goto(`${require('../helpers/env').BASE}/tools/events/${exam.eventId}`);
    const li = sp.locator('#announcement-list li', { hasText: message });
    assert.match(await li.innerText(), /1 read · \d+ not yet/);
    assert.match(await li.locator('.unseen').innerText(), new RegExp(away));
    assert.doesNotMatch(await li.locator('.unseen').innerText(), new RegExp(reader));
    // back online: what was missed arrives, still to acknowledge
    await pa.context().setOffline(false);
    await pa.locator('#announcements li.announcement.new', { hasText: message }).waitFor({ timeout: 40000 });
    for (const p of [pr, pa, sp]) await p.close();
  });

  await t.test('walk-through fixes: Markdown on home, keys anywhere, a deadline change stays said, 24-hour notices, "out of"', async () => {
    const who = users[1];
    const exam = await ex.makeExam({ title: 'Walk', sectionId, problemId, startSec: -60, stopSec: 200, description: 'Closed book: **no** phones.' });
    const aid = await ex.assignment(exam.eventId, who);
    const page = await signIn(browser, who, errors);
    // the home page renders the description as Markdown (escaped), not raw
    const card = page.locator(`article[data-event-id="${exam.eventId}"] .event-desc`);
    assert.equal(await card.locator('strong').innerText(), 'no');
    assert.doesNotMatch(await card.innerText(), /\*\*/);
    await ex.openEditor(page, aid);
    // Ctrl+S with the focus in the input box, not in the code
    await ex.setCode(page, ex.FIXED);
    await page.click('#tab-run');
    await page.click('#stdin');
    await page.keyboard.press('Control+S');
    await page.locator('#save-state', { hasText: /^Saved/ }).waitFor({ timeout: 15000 });
    await ex.until(async () => (await dbh.q("SELECT 1 FROM code WHERE assignment_id = ? AND save_trigger = 'manual'", [aid]))[0],
      { timeoutMs: 10000, what: 'a manual save (Ctrl+S), not an autosave' });
    // under five minutes left: an extension's banner is not replaced by "5 minutes left"
    assert.equal((await postForm(staff, `/events/${exam.eventId}/extend-student`, { username: who, minutes: 1 })).status, 303);
    await page.locator('#closed-banner', { hasText: /closes at/ }).waitFor({ timeout: 30000 });
    await sleep(2500);
    assert.match(await page.locator('#closed-banner').innerText(), /closes at/);
    // an announcement's time is on the 24-hour clock, as the rest of the page
    assert.equal((await postForm(staff, `/tools/events/${exam.eventId}/announcements`, { message: 'clock check' })).status, 303);
    const stamp = await page.locator('#announcements li.announcement', { hasText: 'clock check' }).locator('strong').innerText({ timeout: 30000 });
    assert.match(stamp, /^New · ([01]\d|2[0-3]):[0-5]\d $/);
    // the exam page says the marks a question is out of, not a mark
    await page.goto(`${require('../helpers/env').BASE}/exam/${exam.eventId}`);
    assert.equal(await page.locator('#exam-questions thead th').nth(2).textContent(), 'Out of');
    await page.close();
  });

  await t.test('walk-through fixes: A+ on the statement, focus after Compile and Evaluate, a long save state, the clock on a phone', async () => {
    const who = users[2];
    const exam = await ex.makeExam({ title: 'Layout', sectionId, problemId, startSec: -60, stopSec: 1800 });
    const aid = await ex.assignment(exam.eventId, who);
    const page = await signIn(browser, who, errors);
    await ex.openEditor(page, aid);
    await ex.setCode(page, ex.FIXED);
    for (const id of ['btn-compile', 'btn-evaluate']) {
      await page.focus(`#${id}`);
      await page.keyboard.press('Enter');
      await page.waitForFunction((b) => !document.getElementById(b).classList.contains('busy') && !document.getElementById(b).disabled, id, { timeout: 60000 });
      assert.equal(await page.evaluate(() => document.activeElement && document.activeElement.id), id, `focus back on ${id}`);
    }
    // A+ makes the statement's text larger too (it stayed at 15 px)
    const px = () => page.evaluate(() => parseFloat(getComputedStyle(document.querySelector('.statement p')).fontSize));
    const before = await px();
    await page.click('#font-up');
    assert.ok(await px() > before, `statement text ${before} px before A+`);
    await page.click('#font-down');
    // a long save message is cut short: the countdown stays in the header, on the screen
    await page.evaluate(() => { document.getElementById('save-state').textContent = 'Not saved: '.concat('the server answered with a very long explanation '.repeat(8)); });
    const head = await page.locator('.ed-head').boundingBox();
    const clock = await page.locator('#countdown').boundingBox();
    assert.ok(clock.x + clock.width <= 1280 && clock.y >= head.y && clock.y + clock.height <= head.y + head.height, JSON.stringify({ head, clock }));
    await page.close();
    // on a phone the clock and the save state stay in sight while the page scrolls
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    const pp = await ex.signInPage(phone, who);
    await ex.openEditor(pp, aid);
    await pp.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await pp.waitForTimeout(300);
    assert.ok(await pp.evaluate(() => window.scrollY) > 200, 'the page did scroll');
    const c = await pp.locator('#countdown').boundingBox();
    assert.ok(c && c.y >= 0 && c.y + c.height <= 844, `countdown at ${JSON.stringify(c)}`);
    await phone.close();
  });

  assert.deepEqual(errors, []);
});
