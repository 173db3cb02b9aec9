'use strict';
// The admin readiness page's answer comes from tuning/'s own rule (tuning recommend
// --json) on the recorded runs: here tuning/'s fixture runs (no services needed).
const test = require('node:test');
const assert = require('node:assert/strict');
const os = require('node:os');
const fs = require('node:fs');
const path = require('node:path');
const { createReadiness } = require('../../src/admin/readiness');
const { readinessPage } = require('../../src/admin/views');

const FIXTURES = path.resolve(__dirname, '../../../tuning/tests/fixtures/runs');
const req = { session: { uid: 1, role: 'admin', name: 'A', username: 'admin', csrf: 'x' }, headers: {} };

test('readiness: yes, no, or not measured (with the command)', { skip: !fs.existsSync(FIXTURES) && 'tuning/ fixtures missing' }, async () => {
  const varDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prutor-ready-'));
  const r = createReadiness({ varDir, env: { ...process.env, TUNING_RUNS_DIR: FIXTURES } });
  const yes = await r.ready(150);
  assert.equal(yes.chosen.label, 'node_workers=2');
  let page = String(readinessPage(req, { r: yes }));
  assert.match(page, /Yes: ready for 150 students/);
  assert.match(page, /tuning\/tuning apply var\/tuning\/recommended-webapp-150.env/);
  const no = await r.ready(300);
  assert.equal(no.chosen, null);
  page = String(readinessPage(req, { r: no }));
  assert.match(page, /No: this host held at most \d+ students/);
  const none = await createReadiness({ varDir, env: { ...process.env, TUNING_RUNS_DIR: path.join(varDir, 'empty') } }).ready(3000);
  page = String(readinessPage(req, { r: none }));
  assert.match(page, /Not measured/);
  assert.match(page, /tuning\/tuning sweep --plan webapp --users 1500,3000/);
  assert.equal(r.plotFile('../../etc/passwd'), null);
  fs.rmSync(varDir, { recursive: true, force: true });
});
