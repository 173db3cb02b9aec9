'use strict';
// Issue 12, the staff side in headless Chromium through HAProxy: a statement
// previewed as students will see it (markdown-it: tables, links); problems that
// no event uses archived, restored and deleted, and a used one refused with the
// reason; the admin's "ready for N students?" page and its live figures.
const test = require('node:test');
const assert = require('node:assert/strict');
const { chromium } = require('playwright-core');
const { chromiumPath, ARGS } = require('../helpers/browser');
const env = require('../helpers/env');
const dbh = require('../helpers/db');
const ex = require('../helpers/exam');

const BASE = env.BASE;

async function signIn(browser, username, errors) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.on('page', (p) => { p.on('pageerror', (e) => errors.push(String(e))); p.on('dialog', (d) => d.accept()); });
  return ex.signInPage(context, username, process.env.E2E_STAFF_PASSWORD || env.password);
}

test('staff screens of issue 12', { skip: !chromiumPath() && 'chromium is not installed', timeout: 120000 }, async (t) => {
  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ARGS });
  t.after(async () => { await browser.close(); await dbh.close(); });
  const errors = [];
  const unused = await ex.makeProblem();
  const used = await ex.makeProblem();
  const { sectionId } = await ex.makeSection(1);
  await ex.makeExam({ title: 'Uses a problem', sectionId, problemId: used, stopSec: 3600 });
  const page = await signIn(browser, 'instructor', errors);

  await t.test('a statement is previewed as students will see it', async () => {
    await page.goto(`${BASE}/problems/${unused}`);
    await page.fill('#f-statement_md', 'Sum **two** numbers.\n\n| input | output |\n|---|---|\n| 1 2 | 3 |\n\nSee [the notes](https://example.org/notes).\n\n<script>alert(1)</script>');
    await page.click('#preview-statement');
    const box = page.locator('#statement-preview');
    await box.locator('table').waitFor();
    assert.equal(await box.locator('td').first().innerText(), '1 2');
    assert.equal(await box.locator('a').getAttribute('href'), 'https://example.org/notes');
    assert.equal(await box.locator('script').count(), 0);
    assert.match(await box.innerText(), /<script>alert\(1\)<\/script>/);
  });

  await t.test('an unused problem is archived, restored and deleted; a used one is refused', async () => {
    await page.goto(`${BASE}/problems/${unused}`);
    await Promise.all([page.waitForURL(/done=archived/), page.click('#archive-problem')]);
    await page.locator('#archived').waitFor();
    await page.goto(`${BASE}/problems`);
    assert.equal(await page.locator(`#problems a[href="/problems/${unused}"]`).count(), 0);
    await page.click('#show-archived');
    assert.equal(await page.locator(`#problems a[href="/problems/${unused}"]`).count(), 1);
    await page.goto(`${BASE}/problems/${unused}`);
    await Promise.all([page.waitForURL(/done=unarchived/), page.click('#unarchive-problem')]);
    await Promise.all([page.waitForURL(/\/problems\?done=deleted$/), page.click('#delete-problem')]);
    assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM problems WHERE id = ?', [unused]))[0].n, 0);
    await page.goto(`${BASE}/problems/${used}`);
    await page.click('#delete-problem');
    await page.locator('.flash.error').waitFor();
    assert.match(await page.locator('.flash.error').innerText(), /used by Uses a problem/);
    assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM problems WHERE id = ?', [used]))[0].n, 1);
  });

  await t.test('the admin asks "ready for N students?"', async () => {
    const admin = await signIn(browser, 'admin', errors);
    await admin.goto(`${BASE}/admin`);
    // settings the services run with are shown even when not in the webapp's environment
    for (const k of ['DB_POOL_SIZE', 'MEMCACHED_POOL_SIZE', 'ENGINE_MAX_WORKERS']) {
      assert.match(await admin.locator(`dt:has(code:text-is("${k}")) + dd`).innerText(), /^\d+/, k);
    }
    await Promise.all([admin.waitForURL(/\/admin\/readiness$/), admin.click('#readiness-link')]);
    assert.match(await admin.locator('h1').innerText(), /Ready for 3000 students\?/);
    await admin.fill('#students', '120');
    await Promise.all([admin.waitForURL(/students=120/), admin.click('#readiness-form button')]);
    const answer = await admin.locator('#ready-answer').innerText();
    assert.match(answer, /^(Yes: ready for 120 students|No: this host held at most \d+ students|Not measured)/);
    if (/Not measured/.test(answer)) assert.match(await admin.locator('#sweep-command').innerText(), /tuning\/tuning sweep --plan webapp --users 60,120/);
    for (const img of await admin.locator('#plots img').all()) {
      assert.ok(await img.evaluate((i) => i.complete && i.naturalWidth > 0), 'plot loads');
    }
  });

  await t.test('the admin\'s live figures refresh by themselves', async () => {
    const admin = await signIn(browser, 'admin', errors);
    await admin.goto(`${BASE}/admin`);
    assert.match(await admin.locator('#live-slots').innerText(), /^\d+ \/ \d+$/);
    const first = await admin.locator('#live [data-live="at"]').innerText();
    await admin.waitForFunction((t) => document.querySelector('#live [data-live="at"]').textContent !== t, first, { timeout: 20000 });
    assert.match(await admin.locator('#live [data-live="runs"]').innerText(), /\w/);
  });

  assert.deepEqual(errors, []);
});
