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
const { seedExam, saveCode, dropExam } = require('../helpers/tools');
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
  await Promise.all([page.waitForLoadState('load'), page.click('button[type=submit]')]);
  if (expectHome) assert.match(page.url(), /\/home$/, `signed in as ${username}`);
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
