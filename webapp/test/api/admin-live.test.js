'use strict';
// The admin page's live figures (/admin/live, the "Live figures" panel): the engine's and
// the webapp's own metrics, for admins only.
const test = require('node:test');
const assert = require('node:assert');
const { Client } = require('../helpers/http');

test('an admin sees the engine\'s slots and the webapp\'s requests, live', async () => {
  const admin = new Client();
  await admin.login('admin');
  const page = await admin.get('/admin');
  assert.strictEqual(page.status, 200);
  assert.match(page.text, /id="live" data-live-url="\/admin\/live"/);
  assert.match(page.text, /id="live-slots"[^>]*>\d+ \/ \d+</, 'slots busy out of slots');
  assert.doesNotMatch(page.text, /id="live-missing"/);
  const before = (await admin.getJson('/admin/live')).json;
  assert.ok(before.engine.slots >= 1 && before.engine.slotsBusy <= before.engine.slots);
  assert.strictEqual(typeof before.engine.waiting, 'number');
  assert.strictEqual(typeof before.webapp.signinWaiting, 'number');
  for (let i = 0; i < 3; i++) await admin.get('/home');
  const after = (await admin.getJson('/admin/live')).json;
  assert.ok(after.webapp.requests >= before.webapp.requests + 3, 'the page counts what was served meanwhile');
});

test('attack: students, staff below admin and strangers get no figures', async () => {
  for (const who of ['student01', 'instructor', 'ta']) {
    const c = new Client();
    await c.login(who);
    const r = await c.getJson('/admin/live');
    assert.strictEqual(r.status, 403, `${who}: ${r.status}`);
    assert.ok(!/slotsBusy|prutor_/.test(r.text));
  }
  const anon = await new Client().getJson('/admin/live');
  assert.ok([302, 401, 403].includes(anon.status), `anonymous: ${anon.status}`);
  assert.ok(!/slotsBusy|prutor_/.test(anon.text));
});
