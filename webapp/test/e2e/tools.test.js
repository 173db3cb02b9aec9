'use strict';
// Exam tools (issue 16) in headless Chromium through HAProxy, on fixtures seeded in
// the database (a section of fresh students per run): the similarity report of the
// seeded set, the playback of a seeded timeline, a student refused from an address
// outside the lab's range and a second sign-in ending the first, an announcement
// reaching an open editor. SCREENSHOT_DIR=... keeps a picture of each step.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { chromium } = require('playwright-core');
const { chromiumPath } = require('../helpers/browser');
const env = require('../helpers/env');
const dbh = require('../helpers/db');
const { seedExam, saveCode, dropExam, seedTimeline, untilSteady } = require('../helpers/tools');
const { Client } = require('../helpers/http');
const set = require('../fixtures/similarity-set');

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const BASE = env.BASE;
const SHOTS = process.env.SCREENSHOT_DIR || '';
const RUN = `e${Date.now().toString(36)}`;
const skip = !chromiumPath() && 'chromium is not installed';

let browser;
const exams = [];
const errors = [];

test.before(async () => {
  if (skip) return;
  browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ARGS });
});
test.after(async () => {
  if (browser) await browser.close();
  for (const e of exams) await dropExam(e);
  await dbh.close();
});

// Submits a staff form (a POST answered with a redirect back to the event page) and
// waits for the page it leads to: waitForLoadState alone would return at once, on
// the page that is still shown.
async function submitAndReload(page, selector) {
  await Promise.all([
    page.waitForResponse((r) => r.request().isNavigationRequest() && r.request().method() === 'GET' && r.status() === 200),
    page.click(selector),
  ]);
  await page.waitForLoadState('load');
}

async function shot(page, name) {
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `tools-${name}.png`), fullPage: true });
}

// A person in their own cookie jar, signed in; returns { context, page }.
async function signIn(username, { expectHome = true } = {}) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('dialog', (d) => d.accept());
  await page.goto(`${BASE}/accounts/login`);
  await page.fill('#username', username);
  await page.fill('#password', env.password);
  // the login page signs in with fetch, then goes to /home (or shows why not)
  await page.click('button[type=submit]');
  if (expectHome) {
    await page.waitForURL(/\/home$/, { timeout: 20000 }).catch(() => {});
    assert.match(page.url(), /\/home$/, `signed in as ${username}`);
  } else {
    await page.waitForLoadState('networkidle');
  }
  return { context, page };
}

test('similarity: the seeded copy ranks first, side by side with its fragments', { skip, timeout: 120000 }, async () => {
  const programs = set.programs();
  const exam = await seedExam({ tag: `${RUN}sim`, students: programs.length, template: set.template, solution: set.solution });
  exams.push(exam);
  for (const [i, code] of programs.entries()) await saveCode(exam.users[i].assignmentId, code, { trigger: 'submit' });

  const { context, page } = await signIn('instructor');
  await page.goto(`${BASE}/events/${exam.eventId}`);
  await page.click('#tools-link');
  await page.click(`#similarity-run-${exam.questionId}`);
  await page.waitForSelector('#similarity-pairs', { timeout: 60000 });
  await shot(page, 'similarity-report');
  const first = page.locator('#similarity-pairs tbody tr').first();
  const pair = [await first.locator('.user-a').innerText(), await first.locator('.user-b').innerText()].sort();
  assert.deepEqual(pair, [exam.users[0].username, exam.users[1].username].sort());
  await first.locator('a').click();
  await page.waitForSelector('#code-a');
  await shot(page, 'similarity-pair');
  const marked = await page.locator('#code-a .frag').count();
  const markedB = await page.locator('#code-b .frag').count();
  assert.ok(marked >= 20 && markedB >= 20, `fragments marked on both sides (${marked}, ${markedB})`);
  // the same fragment number is marked on the copy's reordered function
  assert.ok(await page.locator('#code-b .frag', { hasText: 'num_ok' }).count() >= 1);
  await context.close();
  assert.deepEqual(errors, []);
});

test('playback: a seeded 3-hour timeline, the slider and the diff of two points', { skip, timeout: 120000 }, async () => {
  const exam = await seedExam({ tag: `${RUN}pb`, students: 1, startMin: -200, stopMin: 10 });
  exams.push(exam);
  const aid = exam.users[0].assignmentId;
  await seedTimeline({ assignmentId: aid, problemId: exam.problemId, minutes: 180, everyS: 12 });

  const { context, page } = await signIn('instructor');
  await page.goto(`${BASE}/tools/events/${exam.eventId}`);
  await page.click(`#playback-${aid}`);
  // the first page of the timeline is shown, then the rest arrives
  await page.waitForSelector('#pb-diff .ln');
  await page.waitForFunction(() => document.getElementById('pb-count').textContent === '900', null, { timeout: 30000 });
  assert.equal(await page.locator('#pb-pos').innerText(), '1');
  // move the slider to version 30 (keyboard, as a person would)
  await page.focus('#pb-slider');
  for (let i = 0; i < 29; i++) await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => /version 30 /.test(document.getElementById('pb-diffhead').textContent));
  assert.equal(await page.locator('#pb-diff .add').count(), 1);
  assert.match(await page.locator('#pb-diff .add').innerText(), /int v29 = 29/);
  // the failed compile of version 30 shows gcc's error in the timeline
  assert.match(await page.locator('#pb-events li.pb-compile .pb-errors').first().innerText(), /error: expected ';'/);
  // pin A at version 30, go ten versions on: the diff spans both points
  await page.click('#pb-set-a');
  for (let i = 0; i < 10; i++) await page.click('#pb-next');
  await page.waitForFunction(() => /A: version 30 .*B: version 40 /.test(document.getElementById('pb-diffhead').textContent));
  assert.equal(await page.locator('#pb-diff .add').count(), 10);
  await shot(page, 'playback');
  await context.close();
  assert.deepEqual(errors, []);
});

test('lock-down: refused from outside the range, then a second sign-in ends the first', { skip, timeout: 120000 }, async () => {
  const exam = await seedExam({ tag: `${RUN}lk`, students: 1 });
  exams.push(exam);
  const who = exam.users[0].username;
  const { context: staffCtx, page: staffPage } = await signIn('instructor');
  const saveLock = async (ranges) => {
    await staffPage.goto(`${BASE}/tools/events/${exam.eventId}`);
    await staffPage.check('#lockdown input[name=enabled]');
    await staffPage.fill('#f-allowed_ranges', ranges);
    await staffPage.check('#lockdown input[name=single_session]');
    await submitAndReload(staffPage, '#lockdown-save');
    assert.equal(await staffPage.inputValue('#f-allowed_ranges'), ranges);
  };
  // a save answers once every worker of this node has reloaded; a few sign-ins in a row show it
  const signInStatus = async () => (await new Client().request('POST', '/accounts/login', { form: { username: who, password: env.password }, headers: { accept: 'application/json' } })).status;
  await saveLock('10.20.0.0/16');
  assert.match(await staffPage.locator('#lockdown-state').innerText(), /in force/);
  await untilSteady(async () => (await signInStatus()) === 403, { timeoutMs: 15000, what: 'the lock-down in every worker' });

  // the browser (127.0.0.1) is outside 10.20.0.0/16
  const { context: refusedCtx, page: refused } = await signIn(who, { expectHome: false });
  assert.match(await refused.locator('main').innerText(), /only from the lab's computers.*127\.0\.0\.1/s);
  await shot(refused, 'lockdown-refused');
  await refusedCtx.close();

  await saveLock('127.0.0.0/8');
  await untilSteady(async () => (await signInStatus()) === 200, { timeoutMs: 15000, what: 'the new range in every worker' });
  const { context: firstCtx, page: first } = await signIn(who);
  const { context: secondCtx, page: second } = await signIn(who);
  assert.match(second.url(), /\/home$/);
  await first.reload();
  assert.match(await first.locator('main').innerText(), /session was ended because you signed in again from 127\.0\.0\.1/);
  await shot(first, 'lockdown-replaced');

  await staffPage.reload();
  // newest first: the browser's session ended by the second browser's sign-in
  const ended = staffPage.locator('#lockdown-audit tr.audit-session_end', { hasText: who }).first();
  assert.match(await ended.innerText(), /new sign-in from 127\.0\.0\.1/);
  assert.match(await staffPage.locator('#lockdown-audit tbody tr').first().innerText(), /signed in/);
  assert.ok(await staffPage.locator('#lockdown-audit tr.audit-sign_in_refused', { hasText: who }).count() >= 1);
  await shot(staffPage, 'lockdown-audit');
  for (const c of [staffCtx, firstCtx, secondCtx]) await c.close();
  assert.deepEqual(errors, []);
});

test('announcements: one reaches an open editor within seconds and stays; a sign-in elsewhere is told there', { skip, timeout: 120000 }, async () => {
  const exam = await seedExam({ tag: `${RUN}an`, students: 2 });
  exams.push(exam);
  const [who, probe] = exam.users;
  const { context: staffCtx, page: staffPage } = await signIn('instructor');
  // one session per student, any address
  await staffPage.goto(`${BASE}/tools/events/${exam.eventId}`);
  await staffPage.check('#lockdown input[name=enabled]');
  await staffPage.check('#lockdown input[name=single_session]');
  await submitAndReload(staffPage, '#lockdown-save');
  // every webapp worker knows the rule once a second sign-in of another student ends the first, several times running
  const login = (c) => c.request('POST', '/accounts/login', { form: { username: probe.username, password: env.password }, headers: { accept: 'application/json' } });
  await untilSteady(async () => {
    const a = new Client();
    await login(a);
    await login(new Client());
    return (await a.getJson('/home')).status === 401;
  }, { timeoutMs: 20000, what: 'one session per student in every worker' });

  const { context: stCtx, page: editor } = await signIn(who.username);
  await editor.goto(`${BASE}/editor/${who.assignmentId}`);
  await editor.waitForSelector('#ed');
  const message = `Question 1: read input until EOF (${RUN})`;
  await staffPage.fill('#f-message', message);
  const sent = Date.now();
  await submitAndReload(staffPage, '#announce');
  await editor.waitForSelector('#announcements li.announcement.new', { timeout: 20000 });
  const took = Date.now() - sent;
  assert.match(await editor.locator('#announcements').innerText(), new RegExp(message.replace(/[()]/g, '\\$&')));
  assert.ok(took < 20000, `reached the editor in ${took} ms`);
  await shot(editor, 'announcement-editor');
  // kept on the exam page until acknowledged: a reload shows it again, still new
  await editor.reload();
  await editor.waitForSelector('#announcements li.announcement.new');
  await editor.click('#announcements li.announcement.new button.ack');
  await editor.waitForSelector('#announcements details.earlier li.announcement', { state: 'attached' });
  await editor.reload();
  await editor.waitForSelector('#announcements details.earlier li.announcement', { state: 'attached' });
  assert.equal(await editor.locator('#announcements li.announcement.new').count(), 0);

  // the same student signs in on another computer: the open editor says why it lost its session
  const { context: otherCtx } = await signIn(who.username);
  await editor.waitForSelector('#session-ended', { timeout: 20000 });
  assert.match(await editor.locator('#session-ended').innerText(), /signed in again from 127\.0\.0\.1/);
  await shot(editor, 'session-ended-editor');
  for (const c of [staffCtx, stCtx, otherCtx]) await c.close();
  assert.deepEqual(errors, []);
});
