'use strict';
// Draws the screenshots of the webapp README (docs/*.png) from the running stack
// (BASE_URL; the demo course). Dev only: `node test/helpers/readme-shots.js`.
const fs = require('node:fs');
const path = require('node:path');
const { chromium } = require('playwright-core');
const { chromiumPath, ARGS } = require('./browser');
const env = require('./env');

const OUT = path.resolve(__dirname, '../../docs');
const CODE = '#include <stdio.h>\n\nint main(void)\n{\n    long a, b;\n    if (scanf("%ld %ld", &a, &b) != 2) {\n        return 1;\n    }\n    printf("%ld\\n", a + b);\n    return 0;\n}\n';

async function signIn(browser, username, viewport) {
  const ctx = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  const page = await ctx.newPage();
  await page.goto(`${env.BASE}/accounts/login`);
  await page.fill('#username', username);
  await page.fill('#password', env.password);
  await Promise.all([page.waitForURL(/\/home$/), page.click('button[type=submit]')]);
  return page;
}

(async () => {
  fs.mkdirSync(OUT, { recursive: true });
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ARGS });
  const page = await signIn(browser, 'student03', { width: 1280, height: 720 });
  await page.goto(`${env.BASE}/exam/1`);
  await page.screenshot({ path: path.join(OUT, 'exam-start.png') });
  await page.click('#exam-start');
  await page.waitForSelector('html[data-editor-ready="1"]');
  await page.evaluate((c) => { const v = window.prutorEditor.view; v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: c } }); }, CODE);
  await page.click('#btn-evaluate');
  await page.locator('#eval-verdict').waitFor({ timeout: 90000 });
  await page.screenshot({ path: path.join(OUT, 'editor-light.png') });
  await page.click('#theme-toggle');
  await page.waitForTimeout(200);
  await page.screenshot({ path: path.join(OUT, 'editor-dark.png') });
  await page.click('#theme-toggle');
  const phone = await signIn(browser, 'student04', { width: 390, height: 760 });
  await phone.screenshot({ path: path.join(OUT, 'phone-home.png') });
  const admin = await signIn(browser, 'admin', { width: 1280, height: 1040 });
  await admin.goto(`${env.BASE}/admin/readiness?students=150`);
  await admin.screenshot({ path: path.join(OUT, 'admin-readiness.png') });
  await browser.close();
  for (const f of fs.readdirSync(OUT)) console.log(f, Math.round(fs.statSync(path.join(OUT, f)).size / 1024), 'KiB');
})().catch((e) => { console.error(e); process.exit(1); });
