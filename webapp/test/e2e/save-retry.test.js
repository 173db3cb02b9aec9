'use strict';
// The editor's saves across a failing path, in headless Chromium through HAProxy:
// the answer to a save that the server stored is lost on the way back, then the next
// attempt meets a 503 with Retry-After; the editor says it is retrying, honours the
// wait, and the save ends acknowledged and stored exactly once (one row for its
// client id). A refusal a retry cannot change (409) is not retried.
const test = require('node:test');
const assert = require('node:assert/strict');
const { launch, chromiumPath } = require('../helpers/browser');
const dbh = require('../helpers/db');

const BASE = process.env.BASE_URL || 'http://127.0.0.1:8080';
const USER = 'student12';
const PASS = process.env.E2E_PASSWORD || 'prutor-demo';
const RUN = Date.now().toString(36);

test('an unacknowledged save is retried with the same id and stored once', { skip: !chromiumPath() && 'chromium is not installed', timeout: 120000 }, async (t) => {
  const browser = await launch();
  t.after(async () => { await browser.close(); await dbh.close(); });
  const page = await browser.context.newPage();
  await page.goto(`${BASE}/accounts/login`);
  await page.fill('#username', USER);
  await page.fill('#password', PASS);
  await Promise.all([page.waitForURL(/\/home$/), page.click('button[type=submit]')]);
  const assignment = await dbh.assignmentOf(USER, 'Lab 1: Input and output', 1);
  await page.goto(`${BASE}/editor/${assignment}`);
  await page.waitForSelector('html[data-editor-ready="1"]');

  const seen = [];       // [client_save_id, what happened]
  let step = 0;
  await page.route('**/editor/save', async (route) => {
    const id = JSON.parse(route.request().postData()).client_save_id;
    step++;
    if (step === 1) {       // the server stores it, the answer never arrives
      await route.fetch();
      seen.push([id, 'stored, answer dropped']);
      return route.abort('connectionreset');
    }
    if (step === 2) {       // a restarting server
      seen.push([id, '503']);
      return route.fulfill({ status: 503, headers: { 'Retry-After': '2', 'Content-Type': 'application/json' }, body: '{"error":"The database is not reachable right now."}' });
    }
    seen.push([id, 'passed']);
    return route.continue();
  });

  const marker = `/* retried save ${RUN} */`;
  await page.evaluate((m) => { const v = window.prutorEditor.view; v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: `${m}\nint main(void) { return 0; }\n` } }); }, marker);
  const t0 = Date.now();
  await page.click('#btn-save');
  await page.waitForFunction(() => /Not saved yet: .* Retrying in \d+ s/.test(document.querySelector('#save-state').textContent));
  await page.waitForFunction(() => /Not saved yet: the server is restarting or busy\. Retrying in 2 s/.test(document.querySelector('#save-state').textContent));
  await page.waitForFunction(() => /^Saved \d\d:\d\d:\d\d$/.test(document.querySelector('#save-state').textContent), null, { timeout: 30000 });
  assert.ok(Date.now() - t0 >= 2000, 'the Retry-After of 2 s was honoured');

  assert.equal(seen.length, 3);
  assert.equal(new Set(seen.map(([id]) => id)).size, 1, 'every attempt carried the same client id');
  assert.match(seen[0][0], /^[A-Za-z0-9_-]{16,64}$/);
  const rows = await dbh.q('SELECT id FROM code WHERE assignment_id = ? AND code LIKE ?', [assignment, `${marker}%`]);
  assert.equal(rows.length, 1, 'stored exactly once');
  const byId = await dbh.q('SELECT COUNT(*) AS n FROM code WHERE assignment_id = ? AND client_save_id = ?', [assignment, seen[0][0]]);
  assert.equal(byId[0].n, 1);

  // a refusal is final: one attempt, said plainly
  await page.unroute('**/editor/save');
  let refusals = 0;
  await page.route('**/editor/save', (route) => { refusals++; return route.fulfill({ status: 409, headers: { 'Content-Type': 'application/json' }, body: '{"error":"The event closed.","code":"event_closed"}' }); });
  await page.evaluate(() => { const v = window.prutorEditor.view; v.dispatch({ changes: { from: 0, insert: '// more\n' } }); });
  await page.click('#btn-save');
  await page.waitForFunction(() => /Not saved/.test(document.querySelector('#save-state').textContent));
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(refusals, 1, 'a 409 is not retried');
});
