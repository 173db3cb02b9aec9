'use strict';
// Linking an LMS identity to a student's own password account, only with its
// owner's consent (the password, through the sign-in's limits), from the LMS
// activity /lti/link-account. Afterwards the LMS signs into that account; the
// LMS-made one is closed. Refused: a wrong password, a staff account, an account
// already linked, an LMS account that already saved work, a forged form.
const test = require('node:test');
const assert = require('node:assert/strict');
const bcrypt = require('bcrypt');
const { Client } = require('../helpers/http');
const { as, postForm } = require('../helpers/staff');
const dbh = require('../helpers/db');
const env = require('../helpers/env');
const { startLms, launch } = require('../helpers/lti-lms');

const TAG = `ln${Date.now().toString(36)}${process.pid.toString(36)}`;
const PW = `pw-${TAG}-secret`;
let A; let localId; let otherId;
const target = () => `${env.BASE}/lti/link-account`;

async function ltiUserId(sub) {
  const r = await dbh.q('SELECT user_id FROM lti_users WHERE issuer = ? AND sub = ?', [A.issuer, sub]);
  return r[0] ? r[0].user_id : null;
}
async function signedIn(c) {
  const p = await c.get('/lti/link');
  c.csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(p.text)[1];
  return p;
}

test.before(async () => {
  A = await startLms({ tag: TAG, name: 'L' });
  const admin = await as('admin');
  assert.equal((await postForm(admin, '/lti/admin', A.form())).status, 303);
  const hash = await bcrypt.hash(PW, env.bcryptCost);
  localId = (await dbh.q("INSERT INTO users (username, password_hash, name, role) VALUES (?, ?, 'Local Student', 'student')", [`local-${TAG}`, hash])).insertId;
  otherId = (await dbh.q("INSERT INTO users (username, password_hash, name, role) VALUES (?, ?, 'Other Student', 'student')", [`other-${TAG}`, hash])).insertId;
});

test.after(async () => {
  const secs = (await dbh.q('SELECT DISTINCT c.section_id FROM lti_contexts c JOIN lti_platforms p ON p.id = c.platform_id WHERE p.issuer = ?', [A.issuer])).map((x) => x.section_id);
  const ids = (await dbh.q('SELECT id FROM users WHERE id IN (?) OR id IN (SELECT user_id FROM lti_users WHERE issuer = ?) OR (section_id IN (?) AND password_hash = ?)',
    [[localId, otherId], A.issuer, secs.concat(0), '!'.repeat(60)])).map((u) => u.id);
  await dbh.q('DELETE FROM lti_platforms WHERE issuer = ?', [A.issuer]);
  await dbh.q('DELETE FROM assignments WHERE user_id IN (?)', [ids]);
  await dbh.q('DELETE FROM sessions WHERE user_id IN (?)', [ids]);
  await dbh.q('DELETE FROM users WHERE id IN (?)', [ids]);
  for (const s of secs) await dbh.q('DELETE FROM sections WHERE id = ?', [s]).catch(() => {});
  await A.close();
  await dbh.close();
});

test('a student links the LMS identity to their password account, with its password', async () => {
  const c = new Client();
  const r = await launch(c, A, { sub: 'linker', role: 'learner', target: target() });
  assert.equal(r.landing, '/lti/link', r.text);
  const page = await signedIn(c);
  assert.match(page.text, /id="link-form"/);
  const made = await ltiUserId('linker');
  assert.notEqual(made, localId);

  const wrong = await postForm(c, '/lti/link', { username: `local-${TAG}`, password: 'not-it' });
  assert.equal(wrong.status, 401);
  assert.match(wrong.text, /Wrong username or password/);
  const staff = await postForm(c, '/lti/link', { username: 'instructor', password: env.password });
  assert.equal(staff.status, 403);
  assert.match(staff.text, /Only a student account/);
  const forged = await c.post('/lti/link', { form: { username: `local-${TAG}`, password: PW } });
  assert.equal(forged.status, 403, 'no CSRF token');
  assert.equal(await ltiUserId('linker'), made, 'nothing changed');

  const ok = await postForm(c, '/lti/link', { username: `local-${TAG}`, password: PW });
  assert.equal(ok.status, 303, ok.text.slice(0, 300));
  assert.equal(ok.headers.get('location'), '/home');
  assert.equal(await ltiUserId('linker'), localId);
  const [m] = await dbh.q('SELECT active FROM users WHERE id = ?', [made]);
  assert.equal(m.active, 0, 'the LMS-made account is closed');
  const [sec] = await dbh.q('SELECT c.section_id FROM lti_contexts c JOIN lti_platforms p ON p.id = c.platform_id WHERE p.issuer = ?', [A.issuer]);
  assert.equal((await dbh.q('SELECT section_id FROM users WHERE id = ?', [localId]))[0].section_id, sec.section_id);
  const home = await c.get('/home');
  assert.ok(home.text.includes(`local-${TAG}`), 'this browser is now the local account');
  assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?', [made]))[0].n, 0);

  // the next launch signs into the local account
  const again = await launch(new Client(), A, { sub: 'linker', role: 'learner', target: `${env.BASE}/lti/launch` });
  assert.equal(again.landing, '/home');
  assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?', [localId]))[0].n >= 2, true);
});

test('an account already linked, an LMS account with saved work, and a password account are refused', async () => {
  const c = new Client();
  await launch(c, A, { sub: 'second', role: 'learner', target: target() });
  await signedIn(c);
  const taken = await postForm(c, '/lti/link', { username: `local-${TAG}`, password: PW });
  assert.equal(taken.status, 409);
  assert.match(taken.text, /already linked/);

  // work saved under the LMS-made account: no more linking
  const made = await ltiUserId('second');
  const asg = await dbh.q("INSERT INTO assignments (kind, user_id, title) VALUES ('scratch', ?, 'x')", [made]);
  await dbh.q("INSERT INTO code (assignment_id, save_trigger, code, save_time) VALUES (?, 'manual', 'int main(){}', UTC_TIMESTAMP(3))", [asg.insertId]);
  const saved = await postForm(c, '/lti/link', { username: `other-${TAG}`, password: PW });
  assert.equal(saved.status, 400);
  assert.match(saved.text, /Work is already saved/);
  assert.equal(await ltiUserId('second'), made);

  const pw = await as('student01');
  const none = await pw.get('/lti/link');
  assert.match(none.text, /not made by an LMS launch/);
});
