'use strict';
// Overload in the browser (issue 17): a sign-in or a save answered 503 with
// Retry-After is not a silent failure. The first POST of each is answered by the
// test with 503 {"code":"busy"} and Retry-After: 1 (as the sign-in admission or
// HAProxy would under overload); the page must say so and send it again by itself
// after that second, which then reaches the real stack through HAProxy (BASE_URL).
const test = require('node:test');
const assert = require('node:assert/strict');
const { launch, chromiumPath } = require('../helpers/browser');

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8080';
const USER = process.env.E2E_BUSY_USER || 'student07';
const PASS = process.env.E2E_PASSWORD || 'prutor-demo';

// Answers the first POST to `path` with a 503 and Retry-After: 1, lets the rest through.
async function busyOnce(page, path, error) {
  const seen = { refused: 0, passed: 0 };
  await page.route((url) => url.pathname === path, async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    if (seen.refused === 0) {
      seen.refused++;
      return route.fulfill({ status: 503, headers: { 'Retry-After': '1', 'Content-Type': 'application/json' }, body: JSON.stringify({ error, code: 'busy' }) });
    }
    seen.passed++;
    return route.continue();
  });
  return seen;
}

test('a busy answer is retried after Retry-After, with a message', { skip: !chromiumPath() && 'chromium is not installed', timeout: 120000 }, async (t) => {
  const browser = await launch();
  t.after(() => browser.close());
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));

  await t.test('the login page waits Retry-After and signs in by itself', async () => {
    const seen = await busyOnce(page, '/accounts/login', 'Many students are signing in at once.');
    await page.goto(`${BASE}/accounts/login`);
    await page.fill('#username', USER);
    await page.fill('#password', PASS);
    await page.click('button[type=submit]');
    await page.locator('#login-error', { hasText: /signing in at once.*Trying again in 1 s/ }).waitFor({ timeout: 5000 });
    await page.waitForURL(/\/home$/, { timeout: 15000 });
    assert.deepEqual(seen, { refused: 1, passed: 1 });
    await page.unroute((url) => url.pathname === '/accounts/login');
  });

  await t.test('a save answered busy is sent again after Retry-After', async () => {
    await Promise.all([page.waitForURL(/\/editor\/\d+$/), page.locator('a[href^="/editor/"]').first().click()]);
    await page.waitForSelector('html[data-editor-ready="1"]');
    const seen = await busyOnce(page, '/editor/save', 'The service is busy or restarting; please retry in a few seconds.');
    await page.click('.cm-content');
    await page.keyboard.press('Control+End');
    await page.keyboard.type(`\n// busy-retry ${Date.now().toString(36)}`);
    await page.click('#btn-save');
    // the save client (save-client.mjs) says why and when it sends the save again
    await page.locator('#save-state', { hasText: /busy.*Retrying in 1 s/ }).waitFor({ timeout: 5000 });
    await page.locator('#save-state', { hasText: /^Saved/ }).waitFor({ timeout: 15000 });
    assert.deepEqual(seen, { refused: 1, passed: 1 });
  });

  assert.deepEqual(errors, []);
});
