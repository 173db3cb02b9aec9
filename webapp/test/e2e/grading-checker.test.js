'use strict';
// Issue 29 in headless Chromium through HAProxy: an instructor sets a checker program
// (Python, Kattis convention) on a problem and a tolerance on one of its test cases in
// the staff forms, checks the reference solution and reads the checker's message; a
// student sitting the exam evaluates and sees the checker's message and partial credit
// on a visible case, and nothing of it on the hidden ones.
const test = require('node:test');
const assert = require('node:assert/strict');
const { chromium } = require('playwright-core');
const { chromiumPath, ARGS } = require('../helpers/browser');
const env = require('../helpers/env');
const dbh = require('../helpers/db');
const ex = require('../helpers/exam');

const BASE = env.BASE;
// the right sum is accepted; a - b (the buggy program) earns half, and is told so
const CHECKER = [
  'import sys',
  'a, b = map(int, open(sys.argv[1]).read().split())',
  'out = sys.stdin.read().split()',
  'v = int(out[0]) if len(out) == 1 and out[0].lstrip("-").isdigit() else None',
  'msg = open(sys.argv[3] + "/judgemessage.txt", "w")',
  'if v == a + b:',
  '    msg.write(f"right: {a} + {b} = {v}")',
  '    sys.exit(42)',
  'if v == a - b:',
  '    open(sys.argv[3] + "/score.txt", "w").write("0.5")',
  '    msg.write(f"half marks: {v} is {a} - {b}, not {a} + {b}")',
  'sys.exit(43)',
  '',
].join('\n');

async function signIn(browser, username, errors) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.on('page', (p) => { p.on('pageerror', (e) => errors.push(String(e))); p.on('dialog', (d) => d.accept()); });
  return ex.signInPage(context, username, env.password);
}

test('an instructor sets a checker and a tolerance; a student sees the checker\'s feedback', { skip: !chromiumPath() && 'chromium is not installed', timeout: 180000 }, async (t) => {
  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ARGS });
  t.after(async () => { await browser.close(); await dbh.close(); });
  const errors = [];
  const problemId = await ex.makeProblem();
  const { sectionId, users } = await ex.makeSection(1);
  const exam = await ex.makeExam({ title: 'Checker', sectionId, problemId, stopSec: 3600 });
  const staff = await signIn(browser, 'instructor', errors);

  await t.test('the instructor sets a Python checker on the problem and a tolerance on a case', async () => {
    await staff.goto(`${BASE}/problems/${problemId}`);
    const form = staff.locator('#problem-form');
    await form.locator('select[name=compare_mode]').selectOption('checker');
    await form.locator('details.checkerbox summary').click();
    await form.locator('select[name=checker_env]').selectOption('python3');
    await form.locator('select[name=checker_interface]').selectOption('kattis');
    await form.locator('textarea[name=checker_code]').fill(CHECKER);
    await Promise.all([staff.waitForURL(/done=/), form.locator('button[type=submit]').click()]);
    const p = (await dbh.q('SELECT compare_mode, checker_env, checker_interface, checker_code FROM problems WHERE id = ?', [problemId]))[0];
    assert.deepEqual([p.compare_mode, p.checker_env, p.checker_interface, p.checker_code], ['checker', 'python3', 'kattis', CHECKER]);

    // the second case (visible) compares numbers within 0.5 instead
    const tc = (await dbh.q('SELECT id FROM test_cases WHERE problem_id = ? AND position = 2', [problemId]))[0].id;
    await staff.goto(`${BASE}/problems/${problemId}?edit=${tc}#tc-${tc}`);
    const edit = staff.locator(`form[action="/problems/${problemId}/tests/${tc}"]`);
    await edit.locator('select[name=compare_mode]').selectOption('numbers');
    await edit.locator('input[name=abs_tolerance]').fill('0.5');
    await Promise.all([staff.waitForURL(/done=/), edit.locator('button[type=submit]').click()]);
    const c = (await dbh.q('SELECT compare_mode, abs_tolerance FROM test_cases WHERE id = ?', [tc]))[0];
    assert.deepEqual([c.compare_mode, c.abs_tolerance], ['numbers', 0.5]);
    assert.match(await staff.locator(`#tc-${tc} .case-compare`).innerText(), /numbers, abs 0.5/);

    // the reference solution passes, and the checker says so
    await Promise.all([staff.waitForLoadState('load'), staff.click('#check-solution')]);
    await staff.locator('#check-verdict').waitFor({ timeout: 90000 });
    assert.equal(await staff.locator('#check-verdict').innerText(), 'all tests pass');
    assert.equal(await staff.locator('#check-cases .checker-feedback').first().innerText(), 'right: 1 + 2 = 3');
  });

  await t.test('a student evaluates a buggy program: the checker\'s message and half credit on the visible case', async () => {
    const page = await signIn(browser, users[0], errors);
    await ex.openEditor(page, await ex.assignment(exam.eventId, users[0]));
    await ex.setCode(page, ex.BUGGY);
    await page.click('#btn-evaluate');
    await page.locator('#eval-verdict').waitFor({ timeout: 90000 });
    const rows = page.locator('#panel-eval table.cases tbody tr');
    assert.equal(await rows.count(), 4);
    // case 1 (visible): 1 - 2 = -1, half marks from the checker, with its message
    assert.equal(await rows.nth(0).locator('.checker-feedback').innerText(), 'half marks: -1 is 1 - 2, not 1 + 2');
    assert.match(await rows.nth(0).innerText(), /Partly right[\s\S]*checker \(50%\)/i);
    // case 2 (visible): 5 - 0 = 5 compared as numbers: right, no checker message
    assert.equal(await rows.nth(1).locator('.checker-feedback').count(), 0);
    assert.match(await rows.nth(1).innerText(), /Accepted|Passed/);
    // hidden cases: nothing of the checker
    for (const i of [2, 3]) {
      assert.equal(await rows.nth(i).locator('.checker-feedback').count(), 0);
      assert.match(await rows.nth(i).innerText(), /details hidden/);
    }
    // weights 1 each: 0.5 + 1 + 1 (10 - 0) + 0.5 (7 - 3 = 4 = a - b) of 4, on a 10-mark question
    assert.match(await page.locator('#eval-verdict').innerText(), /2 of 4 tests passed · score 7.5 \/ 10/);
  });
  assert.deepEqual(errors, []);
});
