'use strict';
// End to end in headless Chromium through HAProxy (BASE_URL): a student signs in,
// sees the ongoing event, opens a question, types code, saves, compiles (sees the
// error on its line), fixes it, runs with input, evaluates, submits, sees the
// submission on home and in the codebook, and signs out. Needs the whole stack,
// the engine included. SCREENSHOT_DIR=... keeps a picture of each step.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const fs = require('node:fs');
const { launch, chromiumPath } = require('../helpers/browser');
const { replaceCode, runWithInput, submit } = require('../helpers/editor');

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8080';
const USER = process.env.E2E_USER || 'student05';
const PASS = process.env.E2E_PASSWORD || 'prutor-demo';
const SHOTS = process.env.SCREENSHOT_DIR || '';
const RUN = Date.now().toString(36);

const BROKEN = `#include <stdio.h>

int main(void)
{
    long a, b;
    if (scanf("%ld %ld", &a, &b) != 2) return 1;
    printf("%ld\\n", a + c);
    return 0;
}
`;
const FIXED = BROKEN.replace('a + c', 'a + b');

test('a student sits the lab in the browser', { skip: !chromiumPath() && 'chromium is not installed', timeout: 180000 }, async (t) => {
  const browser = await launch();
  t.after(() => browser.close());
  const page = await browser.context.newPage();
  const consoleErrors = [];
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  const shot = async (name) => {
    if (!SHOTS) return;
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  };

  await t.test('sign in and see the ongoing event', async () => {
    await page.goto(`${BASE}/home`);
    assert.match(page.url(), /\/accounts\/login/);
    await shot('01-login');
    await page.fill('#username', USER);
    await page.fill('#password', PASS);
    await Promise.all([page.waitForURL(/\/home$/), page.click('button[type=submit]')]);
    const ongoing = page.locator('section[aria-labelledby=h-ongoing]');
    await ongoing.getByText('Lab 1: Input and output').waitFor();
    await shot('02-home');
  });

  await t.test('open the first question in the editor', async () => {
    await Promise.all([page.waitForURL(/\/editor\/\d+$/), page.getByRole('link', { name: 'Sum of two integers' }).click()]);
    await page.waitForSelector('html[data-editor-ready="1"]');
    await page.locator('.cm-content').waitFor();
    assert.match(await page.locator('.ed-problem').innerText(), /Read two integers/);
    assert.match(await page.locator('#countdown strong').innerText(), /\d/);
  });

  await t.test('type code and save it', async () => {
    await replaceCode(page, BROKEN);
    await page.keyboard.press('Control+End');
    await page.keyboard.type(`// e2e ${RUN}`);
    assert.match(await page.locator('#save-state').innerText(), /Unsaved/);
    await page.click('#btn-save');
    await page.locator('#save-state', { hasText: /^Saved/ }).waitFor();
  });

  await t.test('compile shows the error on its line', async () => {
    await page.click('#btn-compile');
    await page.locator('#compile-verdict').waitFor({ timeout: 60000 });
    assert.match(await page.locator('#compile-verdict').innerText(), /Compilation failed/);
    const ref = page.locator('#panel-messages .msg.sev-error .lineref').first();
    assert.equal(await ref.getAttribute('data-line'), '7');
    await page.locator('.cm-lint-marker-error').first().waitFor();
    await shot('03-compile-error');
    await ref.click();
    const line = await page.evaluate(() => {
      const v = window.prutorEditor.view;
      return v.state.doc.lineAt(v.state.selection.main.head).number;
    });
    assert.equal(line, 7);
  });

  await t.test('fix it, compile, run with input', async () => {
    await replaceCode(page, `${FIXED}// e2e ${RUN}\n`);
    await page.click('#btn-compile');
    await page.locator('#compile-verdict', { hasText: 'Compiled successfully' }).waitFor({ timeout: 60000 });
    assert.equal(await runWithInput(page, '40 2\n'), '42');
    await shot('04-run');
  });

  await t.test('evaluate on every test case', async () => {
    await page.click('#btn-evaluate');
    await page.locator('#eval-verdict').waitFor({ timeout: 90000 });
    const text = await page.locator('#eval-verdict').innerText();
    assert.match(text, /Accepted/, text);
    assert.match(text, /4 of 4 tests passed/, text);
    await shot('05-evaluate');
  });

  await t.test('submit', async () => {
    await submit(page);
    assert.match(await page.locator('#submit-state').innerText(), /^Submitted/);
    await shot('06-submitted');
  });

  await t.test('the submission shows on home and in the codebook', async () => {
    await page.goto(`${BASE}/home`);
    const row = page.locator('tr', { has: page.getByRole('link', { name: 'Sum of two integers' }) });
    assert.match(await row.innerText(), /Submitted/);
    await shot('07-home-submitted');
    await page.goto(`${BASE}/codebook`);
    const entry = page.locator('details.entry', { hasText: 'Sum of two integers' });
    assert.match(await entry.locator('summary').innerText(), /Submitted/);
    await entry.locator('summary').click();
    assert.match(await entry.locator('pre.code').innerText(), new RegExp(`e2e ${RUN}`));
    await shot('08-codebook');
  });

  await t.test('sign out', async () => {
    await Promise.all([page.waitForURL(/\/accounts\/login/), page.click('#logout')]);
    assert.match(await page.locator('body').innerText(), /signed out/);
    await page.goto(`${BASE}/home`);
    assert.match(page.url(), /\/accounts\/login/);
  });

  assert.deepEqual(consoleErrors, []);
});
