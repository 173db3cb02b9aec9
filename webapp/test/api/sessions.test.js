'use strict';
// Sessions that survive memcached (its restart is a flush_all here), their durable
// copy in MariaDB read by the webapp and the engine alike, revocation of both copies
// (sign-out, change of role, password, activation), and saves stored exactly once
// through a client-made id. Through HAProxy, real MariaDB, memcached and engine.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { Client } = require('../helpers/http');
const { as, postJson } = require('../helpers/staff');
const mcHelper = require('../helpers/memcached');
const dbh = require('../helpers/db');
const env = require('../helpers/env');

const LAB = 'Lab 1: Input and output';
const TAG = `${Date.now().toString(36)}${process.pid.toString(36)}`;
const mc = mcHelper.connect();
const storeKey = (sid) => crypto.createHash('sha256').update(sid).digest('base64url');
const json = { headers: { accept: 'application/json' } };
// The engine checks the session before the fields: 400 means "signed in", 401 "not".
const engineSees = async (c) => (await c.post('/compile', { json: {}, csrf: true, ...json })).status;
const save = (c, fields) => c.post('/editor/save', { json: fields, csrf: true, ...json });

test.after(async () => {
  await dbh.q('DELETE FROM users WHERE username LIKE ?', [`sess-${TAG}%`]);
  mc.close();
  await dbh.close();
});

test('a memcached restart signs nobody out: webapp and engine read the durable copy and put it back', async () => {
  const c = new Client();
  await c.login('student05');
  const sid = c.sid();
  const row = (await dbh.q('SELECT id, sid_sealed, data FROM sessions WHERE id = ?', [storeKey(sid)]))[0];
  assert.ok(row, 'sign-in writes the durable copy');
  assert.ok(!row.id.includes(sid) && !row.sid_sealed.includes(sid) && !row.data.includes(sid), 'the sid is never stored in clear');

  await mc.flushAll();
  assert.equal((await c.get('/home')).status, 200, 'webapp: still signed in');
  assert.ok(await mc.get(`sess:${sid}`), 'the session is back in memcached');
  await mc.flushAll();
  assert.equal(await engineSees(c), 400, 'engine: still signed in');
  assert.ok(await mc.get(`sess:${sid}`), 'the engine put it back too');
  const a = await dbh.assignmentOf('student05', LAB, 1);
  await mc.flushAll();
  const r = await save(c, { assignment_id: a, trigger: 'manual', code: `/* after flush ${TAG} */` });
  assert.equal(r.status, 200, 'a save right after the restart is stored (CSRF token from the durable copy)');
});

test('sign-out removes both copies: the old cookie stays dead after memcached restarts', async () => {
  const c = new Client();
  await c.login('student05');
  const cookie = c.cookies.get('prutor.sid');
  const sid = c.sid();
  assert.equal((await c.post('/accounts/logout', { form: { _csrf: c.csrf } })).status, 302);
  assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM sessions WHERE id = ?', [storeKey(sid)]))[0].n, 0);
  await mc.flushAll();
  const old = new Client();
  old.cookies.set('prutor.sid', cookie);
  assert.equal((await old.get('/home')).status, 302);
  assert.equal(await engineSees(old), 401);
});

test('attack: a change of role leaves no old session alive (webapp, engine, after a memcached restart)', async () => {
  const admin = await as('admin');
  const name = `sess-${TAG}-ta`;
  const created = await postJson(admin, '/people', { username: name, name: 'Temp TA', role: 'ta', password_mode: 'set', password: 'temp-pass-123' });
  assert.equal(created.status, 200, created.text);
  const ta = new Client();
  await ta.login(name, 'temp-pass-123');
  const second = new Client();
  await second.login(name, 'temp-pass-123');
  assert.equal(await engineSees(ta), 400);
  const section = (await dbh.q('SELECT id FROM sections ORDER BY id LIMIT 1'))[0].id;
  const demoted = await postJson(admin, `/people/${created.json.id}`, { name: 'Temp TA', email: '', role: 'student', section_id: String(section) });
  assert.ok(demoted.status < 400, `role change answered ${demoted.status}: ${demoted.text.slice(0, 200)}`);
  assert.equal((await dbh.q('SELECT role FROM users WHERE id = ?', [created.json.id]))[0].role, 'student');
  for (const c of [ta, second]) {
    assert.equal((await c.get('/home')).status, 302, 'the webapp session with the old role ended');
    assert.equal(await engineSees(c), 401, 'the engine no longer accepts it');
  }
  assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?', [created.json.id]))[0].n, 0, 'no durable copy left');
  await mc.flushAll();
  assert.equal((await ta.get('/home')).status, 302, 'nor does it come back from MariaDB');
  // a fresh sign-in gets the new role
  const again = new Client();
  await again.login(name, 'temp-pass-123');
  assert.equal(JSON.parse((await mc.get(`sess:${again.sid()}`)).value).role, 'student');
});

test('deactivation and activation both end the sessions open', async () => {
  const admin = await as('admin');
  const name = `sess-${TAG}-st`;
  const section = (await dbh.q('SELECT id FROM sections ORDER BY id LIMIT 1'))[0].id;
  const created = await postJson(admin, '/people', { username: name, name: 'Temp', role: 'student', section_id: String(section), password_mode: 'set', password: 'temp-pass-123' });
  assert.equal(created.status, 200, created.text);
  const s = new Client();
  await s.login(name, 'temp-pass-123');
  await admin.request('POST', `/people/${created.json.id}/deactivate`, { form: { _csrf: admin.csrf } });
  await mc.flushAll();
  assert.equal((await s.get('/home')).status, 302);
  await admin.request('POST', `/people/${created.json.id}/activate`, { form: { _csrf: admin.csrf } });
  const t = new Client();
  await t.login(name, 'temp-pass-123');
  assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?', [created.json.id]))[0].n, 1);
});

test('a save with a client id is stored once however often it arrives', async () => {
  const c = new Client();
  await c.login('student06');
  const a = await dbh.assignmentOf('student06', LAB, 1);
  const id = crypto.randomBytes(18).toString('base64url');
  const fields = { assignment_id: a, branch_id: 0, trigger: 'manual', code: `/* once ${TAG} */`, client_save_id: id };
  const first = await save(c, fields);
  assert.equal(first.status, 200, first.text);
  const again = await save(c, fields);
  assert.equal(again.status, 200);
  assert.equal(again.json.code_id, first.json.code_id, 'the repeat is answered with the first row');
  assert.equal(again.json.repeat, true);
  // a burst of the same save (a retry racing its original, HAProxy's resend)
  const id2 = crypto.randomBytes(18).toString('base64url');
  const burst = await Promise.all(Array.from({ length: 12 }, () => save(c, { ...fields, client_save_id: id2, code: `/* burst ${TAG} */` })));
  assert.deepEqual([...new Set(burst.map((r) => r.status))], [200]);
  assert.equal(new Set(burst.map((r) => r.json.code_id)).size, 1);
  const rows = await dbh.q('SELECT client_save_id, COUNT(*) AS n FROM code WHERE assignment_id = ? AND client_save_id IN (?, ?) GROUP BY client_save_id', [a, id, id2]);
  assert.deepEqual(rows.map((r) => Number(r.n)), [1, 1]);
  // the id is the client's, per assignment: another student's save may reuse the value
  const other = new Client();
  await other.login('student07');
  const b = await dbh.assignmentOf('student07', LAB, 1);
  const theirs = await save(other, { ...fields, assignment_id: b });
  assert.equal(theirs.status, 200);
  assert.notEqual(theirs.json.code_id, first.json.code_id);
  assert.equal(theirs.json.repeat, undefined);
  const bad = await save(c, { ...fields, client_save_id: 'short' });
  assert.equal(bad.status, 400);
  assert.match(bad.json.error, /client_save_id/);
});

test('the change of one\'s own password ends the user\'s sessions in both stores', async () => {
  const c = new Client();
  await c.login('student18');
  const other = new Client();
  await other.login('student18');
  const uid = await dbh.userId('student18');
  const changed = await c.post('/accounts/password', { form: { current: env.password, next: 'changed-pass-1', confirm: 'changed-pass-1' }, csrf: true, headers: { accept: 'application/json' } });
  assert.equal(changed.status, 200, changed.text);
  c.csrf = changed.json.csrf;
  try {
    await mc.flushAll();
    assert.equal((await other.get('/home')).status, 302);
    assert.equal(await engineSees(other), 401);
    assert.equal((await c.get('/home')).status, 200);
    assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?', [uid]))[0].n, 1, 'only the new session of the changing browser');
  } finally {
    const back = await c.post('/accounts/password', { form: { current: 'changed-pass-1', next: env.password, confirm: env.password }, csrf: true, headers: { accept: 'application/json' } });
    assert.equal(back.status, 200);
  }
});

test('the session API for other domains: listUser, revokeUser keeping one, update of both copies', async () => {
  const { createSessions } = require('../../src/shared/session');
  const { createDb } = require('../../src/shared/db');
  const { createMemcache } = require('../../src/shared/memcache');
  const db = createDb({ ...env.db, poolSize: 2 });
  const mcc = createMemcache({ ...env.memcached, poolSize: 2, timeoutMs: 1000 });
  try {
    const sessions = createSessions({ mc: mcc, db, secret: env.sessionSecret, ttl: 600 });
    const a = new Client();
    await a.login('student17');
    const b = new Client();
    await b.login('student17');
    const uid = await dbh.userId('student17');
    const listed = (await sessions.listUser(uid)).map((s) => s.sid);
    assert.ok(listed.includes(a.sid()) && listed.includes(b.sid()), 'both sessions listed with their sids');
    assert.equal(await sessions.revokeUser(uid, { keep: a.sid() }), listed.length - 1);
    assert.equal((await a.get('/home')).status, 200, 'the one kept lives');
    assert.equal((await b.get('/home')).status, 302, 'the others ended');
    const req = { session: JSON.parse((await mc.get(`sess:${a.sid()}`)).value), sessionId: a.sid() };
    await sessions.update(req, { name: `Renamed ${TAG}` });
    assert.equal(JSON.parse((await mc.get(`sess:${a.sid()}`)).value).name, `Renamed ${TAG}`);
    assert.match((await dbh.q('SELECT data FROM sessions WHERE id = ?', [storeKey(a.sid())]))[0].data, new RegExp(`Renamed ${TAG}`));
    await sessions.revokeUser(uid);
  } finally {
    mcc.close();
    await db.close();
  }
});
