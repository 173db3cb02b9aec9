'use strict';
// Issue 29 in headless Chromium through HAProxy: an instructor imports Moodle question
// XML with CodeRunner questions (C and Python) on the import page and sees which
// questions came in and why the others did not; a student then sits the imported C
// question in an exam, starting from its answer preload, and is graded by its tests.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { chromium } = require('playwright-core');
const { chromiumPath, ARGS } = require('../helpers/browser');
const env = require('../helpers/env');
const dbh = require('../helpers/db');
const ex = require('../helpers/exam');

const BASE = env.BASE;
const XML = path.join(__dirname, '../fixtures/coderunner-questions.xml');
const SUM = '#include <stdio.h>\n\nint main(void)\n{\n    long a, b;\n    if (scanf("%ld %ld", &a, &b) != 2) return 1;\n    printf("%ld\\n", a + b);\n    return 0;\n}\n';

async function signIn(browser, username, errors) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.on('page', (p) => { p.on('pageerror', (e) => errors.push(String(e))); p.on('dialog', (d) => d.accept()); });
  return ex.signInPage(context, username, env.password);
}

test('CodeRunner questions imported in the staff UI, one sat by a student', { skip: !chromiumPath() && 'chromium is not installed', timeout: 180000 }, async (t) => {
  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ARGS });
  t.after(async () => { await browser.close(); await dbh.close(); });
  const errors = [];
  let sumId;

  await t.test('the instructor imports the XML and sees what came in and what did not', async () => {
    const staff = await signIn(browser, 'instructor', errors);
    await staff.goto(`${BASE}/problems`);
    await Promise.all([staff.waitForURL(/\/problems\/import$/), staff.click('#import-link')]);
    await staff.setInputFiles('#f-package', XML);
    await staff.click('#import-submit');
    await staff.locator('#imported-problems').waitFor({ timeout: 60000 });
    const imported = await staff.locator('#imported-problems li').allInnerTexts();
    assert.equal(imported.length, 2, imported.join('\n'));
    assert.match(imported[0], /^Sum of two \(C\) \(3 test cases\)/);
    assert.match(imported[1], /^Double it \(Python\)/);
    const skipped = await staff.locator('#skipped-questions li').allInnerTexts();
    assert.deepEqual(skipped.map((s) => s.split(':')[0]), ['Square function (C)', 'Greeting (regex)', 'Custom template (Python)']);
    const href = await staff.locator('#imported-problems li a').first().getAttribute('href');
    sumId = Number(href.split('/').pop());
    await staff.goto(`${BASE}${href}`);
    assert.match(await staff.locator('h1').innerText(), /Sum of two \(C\)/);
    assert.equal(await staff.locator('#tests tbody tr[data-visibility]').count(), 3);
  });

  await t.test('a student sits the imported C question and its tests grade it', async () => {
    const { sectionId, users } = await ex.makeSection(1);
    const exam = await ex.makeExam({ title: 'Imported from Moodle', sectionId, problemId: sumId, stopSec: 3600 });
    const page = await signIn(browser, users[0], errors);
    await ex.openEditor(page, await ex.assignment(exam.eventId, users[0]));
    // the answer preload is where the student starts
    assert.match(await ex.getCode(page), /int main\(void\)\n\{\n {4}return 0;\n\}/);
    await ex.setCode(page, SUM);
    await page.click('#btn-evaluate');
    await page.locator('#eval-verdict').waitFor({ timeout: 90000 });
    const verdict = await page.locator('#eval-verdict').innerText();
    assert.match(verdict, /Accepted/, verdict);
    assert.match(verdict, /3 of 3 tests passed/, verdict);
  });
  assert.deepEqual(errors, []);
});
