'use strict';
// Issue 12, the student's screens in headless Chromium through HAProxy: the exam
// start page and question switcher; two tabs on one question (conflict, never a
// silent overwrite); "changed since submit"; Evaluate on a never-saved question;
// a compile error never labelled "Wrong answer"; Ctrl+Enter runs and indentation
// is 4 spaces; the skip link lands in the code; dark mode and text size
// remembered; a session that ends while editing (sign in again in place, the code
// saved); 390 px wide pages without horizontal scrolling; and an axe-core scan
// with no serious or critical violation on login, home, editor and marks.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { chromium } = require('playwright-core');
const { chromiumPath, ARGS } = require('../helpers/browser');
const env = require('../helpers/env');
const dbh = require('../helpers/db');
const ex = require('../helpers/exam');

const BASE = env.BASE;
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

const { signInPage: signIn, openEditor, setCode, getCode } = ex;

test('exam screens', { skip: !chromiumPath() && 'chromium is not installed', timeout: 240000 }, async (t) => {
  const { sectionId, users } = await ex.makeSection(4);
  const problemId = await ex.makeProblem();
  const exam = await ex.makeExam({
    title: 'Screens', sectionId, problemId, stopSec: 3600,
    description: 'Closed book. **No** phones.\n\n| allowed | not allowed |\n|---|---|\n| notes on paper | the internet |',
  });
  // a second question, so that the switcher has somewhere to go
  const q2 = await dbh.q('INSERT INTO event_questions (event_id, position, problem_id, max_marks) VALUES (?, 2, ?, 5)', [exam.eventId, problemId]);
  await dbh.q(`INSERT INTO assignments (kind, user_id, event_id, question_id, problem_id)
    SELECT 'event', u.id, ?, ?, ? FROM users u WHERE u.section_id = ?`, [exam.eventId, q2.insertId, problemId, sectionId]);
  const aid = (username) => ex.assignment(exam.eventId, username);

  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ARGS });
  t.after(async () => { await browser.close(); await dbh.close(); });
  const errors = [];
  const context = async (opts = {}) => {
    const c = await browser.newContext({ viewport: { width: 1280, height: 860 }, ...opts });
    c.on('page', (p) => p.on('pageerror', (e) => errors.push(String(e))));
    return c;
  };

  await t.test('start page with the rules, then the question switcher', async () => {
    const c = await context();
    const page = await signIn(c, users[0]);
    await page.locator(`a[href="/exam/${exam.eventId}"]`).first().click();
    await page.waitForURL(new RegExp(`/exam/${exam.eventId}$`));
    const rules = page.locator('#exam-rules');
    assert.match(await rules.innerText(), /Closed book/);
    assert.equal(await rules.locator('table td').first().innerText(), 'notes on paper');
    assert.equal(await page.locator('#exam-questions tbody tr').count(), 2);
    await Promise.all([page.waitForURL(/\/editor\/\d+$/), page.click('#exam-start')]);
    await page.waitForSelector('html[data-editor-ready="1"]');
    const sw = page.locator('nav.qswitch');
    assert.equal(await sw.locator('[aria-current=page]').innerText(), 'Q1');
    await Promise.all([page.waitForURL(/\/editor\/\d+$/), sw.getByText('Q2').click()]);
    assert.equal(await page.locator('nav.qswitch [aria-current=page]').innerText(), 'Q2');
    await c.close();
  });

  await t.test('Evaluate on a never-saved question works; a compile error is not "Wrong answer"', async () => {
    const c = await context();
    const page = await signIn(c, users[1]);
    await openEditor(page, await aid(users[1]));
    await page.click('#btn-evaluate');
    await page.locator('#eval-verdict').waitFor({ timeout: 90000 });
    assert.match(await page.locator('#eval-verdict').innerText(), /0 of 4 tests passed/); // the template prints nothing
    await setCode(page, ex.FIXED.replace('a + b', 'a + ;'));
    await page.click('#btn-evaluate');
    await page.locator('#eval-verdict', { hasText: /Compil/ }).waitFor({ timeout: 90000 });
    const labels = await page.locator('#panel-eval table.cases tbody tr td:nth-child(3)').allInnerTexts();
    assert.equal(labels.length, 4);
    for (const l of labels) assert.equal(l.trim(), 'Not run: compilation error');
    await c.close();
  });

  await t.test('two tabs: the second save gets a clear conflict, nothing is overwritten silently', async () => {
    const c = await context();
    const a = await signIn(c, users[2]);
    const id = await aid(users[2]);
    await openEditor(a, id);
    const b = await c.newPage();
    await openEditor(b, id);
    await setCode(a, `${ex.FIXED}// from tab A\n`);
    await a.click('#btn-save');
    await a.locator('#save-state', { hasText: /^Saved/ }).waitFor();
    await setCode(b, `${ex.FIXED}// from tab B\n`);
    await b.click('#btn-save');
    const dlg = b.locator('#conflict-dialog');
    await dlg.waitFor();
    assert.match(await dlg.innerText(), /another tab or window/);
    let latest = await dbh.q('SELECT code FROM code WHERE assignment_id = ? ORDER BY id DESC LIMIT 1', [id]);
    assert.match(latest[0].code, /from tab A/, 'tab B did not overwrite');
    await b.click('#conflict-keep');
    await b.locator('#save-state', { hasText: /^Saved/ }).waitFor();
    latest = await dbh.q('SELECT code FROM code WHERE assignment_id = ? ORDER BY id DESC LIMIT 1', [id]);
    assert.match(latest[0].code, /from tab B/, 'kept on purpose');
    // and now tab A is the stale one
    await setCode(a, `${ex.FIXED}// A again\n`);
    await a.click('#btn-save');
    await a.locator('#conflict-dialog').waitFor();
    await c.close();
  });

  await t.test('Ctrl+Enter runs, indentation is 4 spaces, "changed since submit", skip link', async () => {
    const c = await context();
    const page = await signIn(c, users[3]);
    await openEditor(page, await aid(users[3]));
    await page.keyboard.press('Tab'); // the first stop of the page is the skip link
    assert.equal(await page.evaluate(() => document.activeElement.id), 'skip-link');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement.classList.contains('cm-content')), true);
    assert.equal(await page.locator('.cm-content').getAttribute('aria-label'), 'Code editor');
    await setCode(page, 'int main(void)\n{');
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('return 0;');
    assert.match(await getCode(page), /\{\n {4}return 0;/);
    await setCode(page, ex.FIXED);
    await page.click('#tab-run');
    await page.fill('#stdin', '40 2\n');
    await page.click('.cm-content');
    const before = await getCode(page);
    await page.keyboard.press('Control+Enter');
    await page.locator('#run-verdict').waitFor({ timeout: 60000 });
    assert.equal((await page.locator('#run-stdout').innerText()).trim(), '42');
    assert.equal(await getCode(page), before, 'Ctrl+Enter inserted nothing');
    await page.click('#btn-submit');
    await page.click('#submit-confirm');
    await page.locator('#submit-state', { hasText: /^Submitted/ }).waitFor();
    assert.equal(await page.locator('#changed-since-submit').isVisible(), false);
    await page.click('.cm-content');
    await page.keyboard.press('Control+End');
    await page.keyboard.type('// more');
    assert.equal(await page.locator('#changed-since-submit').isVisible(), true);
    await page.click('#btn-save');
    await page.locator('#save-state', { hasText: /^Saved/ }).waitFor();
    await page.reload();
    await page.waitForSelector('html[data-editor-ready="1"]');
    assert.equal(await page.locator('#changed-since-submit').isVisible(), true, 'known after a reload too');
    await c.close();
  });

  await t.test('dark mode and text size are remembered', async () => {
    const c = await context();
    const page = await signIn(c, users[0]);
    await page.click('#theme-toggle');
    await page.click('#font-up');
    assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
    await openEditor(page, await aid(users[0]));
    assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
    assert.equal(await page.getAttribute('html', 'data-font'), '2');
    const bg = await page.evaluate(() => getComputedStyle(document.querySelector('.cm-editor')).backgroundColor);
    assert.equal(bg, 'rgb(15, 23, 42)');
    await c.close();
  });

  await t.test('the session ends while editing: sign in again in place, the code is saved', async () => {
    const c = await context();
    const page = await signIn(c, users[1]);
    const id = await aid(users[1]);
    await openEditor(page, id);
    const mine = `${ex.FIXED}// written while the session ended\n`;
    await setCode(page, mine);
    // the session ends (signed out from another tab of this browser)
    const other = await c.newPage();
    await other.goto(`${BASE}/home`);
    await Promise.all([other.waitForURL(/\/accounts\/login/), other.click('#logout')]);
    await other.close();
    // the notices' poll says the session ended (issue 30: and keeps polling)
    await page.locator('#session-ended').waitFor({ timeout: 30000 });
    await page.click('#btn-save');
    const dlg = page.locator('#signin-dialog');
    await dlg.waitFor();
    assert.equal(await getCode(page), mine, 'the code is still in the editor');
    assert.equal(await page.inputValue('#signin-username'), users[1]);
    await page.fill('#signin-password', env.password);
    await page.click('#signin-submit');
    await page.locator('#save-state', { hasText: /^Saved/ }).waitFor({ timeout: 15000 });
    const latest = await dbh.q('SELECT code FROM code WHERE assignment_id = ? ORDER BY id DESC LIMIT 1', [id]);
    assert.equal(latest[0].code, mine);
    // signed in again: no red banner stays, and the notices come back without a reload
    assert.equal(await page.locator('#closed-banner').isHidden(), true);
    await page.locator('#session-ended').waitFor({ state: 'hidden', timeout: 30000 });
    await c.close();
  });

  await t.test('390 px wide: login, home, codebook, marks and the editor without horizontal scrolling', async () => {
    const c = await context({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await c.newPage();
    const noScroll = async (what) => {
      const [sw, iw] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      assert.ok(sw <= iw, `${what}: page is ${sw} px wide in a ${iw} px window`);
    };
    await page.goto(`${BASE}/accounts/login`);
    await noScroll('login');
    await page.fill('#username', users[2]);
    await page.fill('#password', env.password);
    await Promise.all([page.waitForURL(/\/home$/), page.click('button[type=submit]')]);
    await noScroll('home');
    assert.equal(await page.locator('nav.mainnav').isVisible(), false, 'the menu is folded');
    await page.click('#nav-toggle');
    assert.equal(await page.locator('nav.mainnav').isVisible(), true);
    await page.goto(`${BASE}/codebook`);
    await noScroll('codebook');
    await page.goto(`${BASE}/grading/mine`);
    await noScroll('marks');
    await openEditor(page, await aid(users[2]));
    await noScroll('editor');
    for (const b of ['#btn-save', '#btn-compile', '#btn-run', '#btn-evaluate', '#btn-submit']) {
      const box = await page.locator(b).boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `${b} is on the screen`);
    }
    // a 1280 x 900 screen at 200% zoom: the output panel stays on the page
    await page.setViewportSize({ width: 640, height: 450 });
    await page.click('#tab-run');
    await noScroll('editor at 200%');
    const out = await page.locator('#run-output').boundingBox();
    assert.ok(out && out.x >= 0 && out.x + out.width <= 640, 'the output panel is within the page');
    await c.close();
  });

  await t.test('axe-core: no serious or critical violation on login, home, editor, marks (light and dark)', async () => {
    const c = await context({ bypassCSP: true }); // to inject axe
    const page = await c.newPage();
    const scan = async (what) => {
      await page.evaluate(AXE);
      const r = await page.evaluate(async () => window.axe.run(document, { resultTypes: ['violations'] }));
      const bad = r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
      assert.deepEqual(bad, [], `${what}: ${bad.join('; ')}`);
    };
    await page.goto(`${BASE}/accounts/login`);
    await scan('login');
    await page.fill('#username', users[3]);
    await page.fill('#password', env.password);
    await Promise.all([page.waitForURL(/\/home$/), page.click('button[type=submit]')]);
    for (const theme of ['light', 'dark']) {
      if (theme === 'dark') await page.click('#theme-toggle');
      await page.goto(`${BASE}/home`);
      await scan(`home (${theme})`);
      await openEditor(page, await aid(users[3]));
      await scan(`editor (${theme})`);
      await page.goto(`${BASE}/grading/mine`);
      await scan(`marks (${theme})`);
    }
    await c.close();
  });

  assert.deepEqual(errors, []);
});
