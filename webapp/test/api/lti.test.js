'use strict';
// LTI 1.3 through HAProxy against the real stack, the test playing the LMS
// (helpers/lti-lms.js): an admin registers two platforms in the UI; launches sign
// students and instructors in without a password; every forged, replayed, expired,
// misdirected or misrouted launch is refused with a sentence and creates nothing.
const test = require('node:test');
const assert = require('node:assert/strict');
const jose = require('jose');
const { Client } = require('../helpers/http');
const { as, postForm } = require('../helpers/staff');
const dbh = require('../helpers/db');
const env = require('../helpers/env');
const { startLms, initiate, post, launch, C } = require('../helpers/lti-lms');

const TAG = `${Date.now().toString(36)}${process.pid.toString(36)}`;
let A; let B; let admin; let eventId; let sectionId;
const target = (id) => `${env.BASE}/lti/event/${id}`;

async function ltiUser(lms, sub) {
  return (await dbh.q(`SELECT u.id, u.username, u.role, u.section_id, u.password_hash FROM lti_users l JOIN users u ON u.id = l.user_id
    WHERE l.issuer = ? AND l.sub = ?`, [lms.issuer, sub]))[0];
}

test.before(async () => {
  [A, B] = await Promise.all([startLms({ tag: TAG, name: 'A' }), startLms({ tag: TAG, name: 'B' })]);
  admin = await as('admin');
  const ev = await dbh.q("INSERT INTO events (title, type, description) VALUES (?, 'exam', 'lti test')", [`lti ${TAG}`]);
  eventId = ev.insertId;
  await dbh.q('INSERT INTO event_questions (event_id, position, problem_id, max_marks) VALUES (?, 1, 1, 10)', [eventId]);
});

test.after(async () => {
  const users = await dbh.q('SELECT user_id FROM lti_users WHERE issuer IN (?, ?)', [A.issuer, B.issuer]);
  const ids = users.map((u) => u.user_id);
  await dbh.q('DELETE FROM assignments WHERE event_id = ?', [eventId]);
  await dbh.q('DELETE FROM events WHERE id = ?', [eventId]);
  if (ids.length) {
    await dbh.q('DELETE FROM sessions WHERE user_id IN (?)', [ids]);
    await dbh.q('DELETE FROM users WHERE id IN (?)', [ids]);
  }
  const secs = await dbh.q('SELECT DISTINCT c.section_id FROM lti_contexts c JOIN lti_platforms p ON p.id = c.platform_id WHERE p.issuer IN (?, ?)', [A.issuer, B.issuer]);
  await dbh.q('DELETE FROM lti_platforms WHERE issuer IN (?, ?)', [A.issuer, B.issuer]);
  for (const s of secs) await dbh.q('DELETE FROM sections WHERE id = ? AND NOT EXISTS (SELECT 1 FROM users WHERE section_id = sections.id)', [s.section_id]).catch(() => {});
  await Promise.all([A.close(), B.close()]);
  await dbh.close();
});

test('registration: students and strangers cannot reach it, the form needs its CSRF token, bad URLs get a sentence', async () => {
  const student = await as('student01');
  assert.equal((await student.get('/lti/admin')).status, 403);
  assert.equal((await student.get('/lti/admin/new')).status, 403);
  const s = await postForm(student, '/lti/admin', A.form());
  assert.equal(s.status, 403);
  const anon = new Client();
  const r = await anon.get('/lti/admin');
  assert.equal(r.status, 302);
  assert.match(r.headers.get('location'), /^\/accounts\/login/);
  // an admin's browser driven by another site's form: no token, refused, nothing stored
  const forged = await admin.post('/lti/admin', { form: A.form() });
  assert.equal(forged.status, 403);
  assert.match(forged.text, /security token/);
  assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM lti_platforms WHERE issuer = ?', [A.issuer]))[0].n, 0);
  const bad = await postForm(admin, '/lti/admin', { ...A.form(), jwks_url: 'http://lms.example.edu/jwks', deployments: '' });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /must start with https:\/\//);
  assert.match(bad.text, /Deployment ids is required/);
});

test('registration: an admin registers two platforms; the configuration page and JWKS are there to copy', async () => {
  for (const lms of [A, B]) {
    const r = await postForm(admin, '/lti/admin', lms.form());
    assert.equal(r.status, 303, r.text.slice(0, 500));
    lms.pid = Number(/\/lti\/admin\/(\d+)/.exec(r.headers.get('location'))[1]);
  }
  const dup = await postForm(admin, '/lti/admin', A.form());
  assert.equal(dup.status, 400);
  assert.match(dup.text, /registered already/);
  const page = await admin.get(`/lti/admin/${A.pid}`);
  assert.equal(page.status, 200);
  assert.ok(page.text.includes(A.issuer) && page.text.includes(A.deploymentId));
  assert.match(page.text, /id="cfg-login">http:\/\/[^<]+\/lti\/login</);
  assert.match(page.text, /id="cfg-jwks">http:\/\/[^<]+\/lti\/jwks</);
  const list = await admin.get('/lti/admin');
  assert.ok(list.text.includes(`LMS B ${TAG}`));
  const keys = await (await fetch(`${env.BASE}/lti/jwks`)).json();
  assert.ok(keys.keys.length >= 1);
  for (const k of keys.keys) {
    assert.equal(k.kty, 'RSA');
    assert.equal(k.alg, 'RS256');
    assert.ok(k.kid);
    assert.equal(k.d, undefined, 'no private part is published');
  }
  const admins = await admin.get('/admin');
  assert.match(admins.text, /href="\/lti\/admin"/);
});

test('launch: an instructor lands on the event\'s staff page, a student in its exam, signed in without a password', async () => {
  const ci = new Client();
  const ri = await launch(ci, A, { sub: 'teacher-1', role: 'instructor', target: target(eventId) });
  assert.equal(ri.status, 303, ri.text);
  assert.equal(ri.landing, `/events/${eventId}`);
  assert.equal((await ci.get(`/events/${eventId}`)).status, 200);
  const teacher = await ltiUser(A, 'teacher-1');
  assert.equal(teacher.role, 'instructor');
  // the course became a section; the instructor schedules and publishes the event for it
  sectionId = (await dbh.q('SELECT section_id FROM lti_contexts WHERE platform_id = ? AND context_id = ?', [A.pid, `course-${TAG}`]))[0].section_id;
  const sc = await dbh.q('INSERT INTO schedules (event_id, start_time, stop_time) VALUES (?, UTC_TIMESTAMP(3) - INTERVAL 5 MINUTE, UTC_TIMESTAMP(3) + INTERVAL 60 MINUTE)', [eventId]);
  await dbh.q('INSERT INTO slots (schedule_id, event_id, section_id) VALUES (?, ?, ?)', [sc.insertId, eventId, sectionId]);
  await dbh.q('UPDATE events SET published_at = UTC_TIMESTAMP(3) WHERE id = ?', [eventId]);

  const cs = new Client();
  const rs = await launch(cs, A, { sub: 'student-1', role: 'learner', target: target(eventId) });
  assert.equal(rs.status, 303, rs.text);
  assert.equal(rs.landing, `/exam/${eventId}`);
  const u = await ltiUser(A, 'student-1');
  assert.equal(u.role, 'student');
  assert.equal(u.section_id, sectionId);
  // a session exactly as the password sign-in makes: its row, and the student's pages
  assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?', [u.id]))[0].n, 1);
  const exam = await cs.get(`/exam/${eventId}`);
  assert.equal(exam.status, 200);
  assert.ok(exam.text.includes(u.username));
  assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM assignments WHERE event_id = ? AND user_id = ?', [eventId, u.id]))[0].n, 1);
  assert.equal((await cs.get(`/events/${eventId}`)).status, 403);
  // no password opens the account
  const pw = await new Client().post('/accounts/login', { form: { username: u.username, password: '!'.repeat(60) } });
  assert.equal(pw.status, 401);
  // the next launch finds the same account by (issuer, sub)
  const again = await launch(new Client(), A, { sub: 'student-1', role: 'learner', target: target(eventId) });
  assert.equal(again.landing, `/exam/${eventId}`);
  assert.equal((await ltiUser(A, 'student-1')).id, u.id);
  assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM lti_users WHERE issuer = ? AND sub = ?', [A.issuer, 'student-1']))[0].n, 1);
});

test('the same sub at platform B is another person; B\'s token cannot open A\'s launch', async () => {
  const c = new Client();
  const r = await launch(c, B, { sub: 'student-1', role: 'learner', target: target(eventId) });
  assert.equal(r.status, 303, r.text);
  const a = await ltiUser(A, 'student-1');
  const b = await ltiUser(B, 'student-1');
  assert.notEqual(a.id, b.id);
  // a launch begun for A, answered with a token B signed (as B or claiming to be A)
  for (const iss of [B.issuer, A.issuer]) {
    const c2 = new Client();
    const i = await initiate(c2, A, { target: target(eventId) });
    const tok = await B.sign({ ...B.claims({ sub: 'student-1', target: target(eventId), nonce: i.nonce }), iss, aud: A.clientId });
    const p = await post(c2, tok, i.state);
    assert.equal(p.status, 403, `${iss}: ${p.text.slice(0, 200)}`);
    assert.match(p.text, /The launch was refused/);
    assert.equal(c2.cookies.get('prutor.sid'), undefined);
  }
});

test('first launches of one new user from one new course, at once, make one account and one section', async () => {
  const ctx = `course-burst-${TAG}`;
  const rs = await Promise.all(Array.from({ length: 6 }, () => launch(new Client(), A, { sub: 'burst', role: 'learner', target: `${env.BASE}/lti/launch`, context: ctx })));
  for (const r of rs) assert.equal(r.landing, '/home', r.text && r.text.slice(0, 200));
  assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM lti_users WHERE issuer = ? AND sub = ?', [A.issuer, 'burst']))[0].n, 1);
  assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM lti_contexts WHERE platform_id = ? AND context_id = ?', [A.pid, ctx]))[0].n, 1);
  assert.equal((await ltiUser(A, 'burst')).section_id,
    (await dbh.q('SELECT section_id FROM lti_contexts WHERE platform_id = ? AND context_id = ?', [A.pid, ctx]))[0].section_id);
});

// Each forged launch: refused with a sentence, no session, no account for its sub.
async function refused(name, build, { status = 403, text = /The launch was refused/ } = {}) {
  const c = new Client();
  const sub = `attacker-${name}`;
  const i = await initiate(c, A, { target: target(eventId) });
  assert.equal(i.status, 302);
  const token = await build({ sub, nonce: i.nonce, state: i.state });
  const p = await post(c, token, i.state);
  assert.equal(p.status, status, `${name}: ${p.status} ${p.text.slice(0, 300)}`);
  assert.match(p.text, text, name);
  assert.doesNotMatch(p.text, /at .*\.js:\d+/, 'no stack trace');
  assert.equal(c.cookies.get('prutor.sid'), undefined, name);
  assert.equal(await ltiUser(A, sub), undefined, `${name}: no account`);
  // the state is burnt: even a good token cannot use it now
  const good = await A.sign(A.claims({ sub, target: target(eventId), nonce: i.nonce }));
  assert.equal((await post(c, good, i.state)).status, 400, `${name}: state reused`);
}

test('attacks on the id_token are refused and create nothing', async (t) => {
  const other = await jose.generateKeyPair('RS256');
  const claims = (o) => A.claims({ sub: o.sub, target: target(eventId), nonce: o.nonce });
  const b64 = (x) => Buffer.from(JSON.stringify(x)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  await t.test('wrong audience', () => refused('aud', async (o) => A.sign({ ...claims(o), aud: 'some-other-tool' })));
  await t.test('azp of another client', () => refused('azp', async (o) => A.sign({ ...claims(o), aud: [A.clientId, 'x'], azp: 'x' })));
  await t.test('expired', () => refused('exp', async (o) => A.sign(claims(o), { iat: now - 3600, exp: now - 1800 }), { text: /expired/ }));
  await t.test('signed by another key under the platform\'s kid', () => refused('key', async (o) => A.sign(claims(o), { key: other.privateKey })));
  await t.test('signed by another key, unknown kid', () => refused('kid', async (o) => A.sign(claims(o), { key: other.privateKey, kidOf: 'nope' })));
  await t.test('alg none', () => refused('none', async (o) => `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims(o), iat: now, exp: now + 300 })}.`));
  await t.test('HS256 keyed with the platform\'s public key', () => refused('hs256', async (o) => {
    const pem = await jose.exportSPKI(A.publicKey);
    return new jose.SignJWT({ ...claims(o) }).setProtectedHeader({ alg: 'HS256', kid: A.kid }).setIssuedAt().setExpirationTime('5m').sign(Buffer.from(pem));
  }));
  await t.test('a learner\'s role claim escalated in a token signed by someone else', () => refused('role', async (o) => A.sign({ ...claims(o), [`${C}roles`]: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor'] }, { key: other.privateKey })));
  await t.test('missing deployment id', () => refused('nodep', async (o) => A.sign({ ...claims(o), [`${C}deployment_id`]: undefined }), { text: /no deployment id/ }));
  await t.test('unregistered deployment id', () => refused('baddep', async (o) => A.sign({ ...claims(o), [`${C}deployment_id`]: 'dep-nope' }), { text: /deployment/ }));
  await t.test('nonce of another launch', () => refused('nonce', async (o) => A.sign({ ...claims(o), nonce: 'x'.repeat(43) }), { text: /nonce/ }));
  await t.test('LTI version 1.1', () => refused('version', async (o) => A.sign({ ...claims(o), [`${C}version`]: '1.1' }), { text: /version/ }));
  await t.test('another message type', () => refused('type', async (o) => A.sign({ ...claims(o), [`${C}message_type`]: 'LtiSomethingElse' }), { text: /message type/ }));
  await t.test('a role we do not serve', () => refused('mentor', async (o) => A.sign({ ...claims(o), [`${C}roles`]: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor'] }), { text: /role/ }));
  await t.test('a target on another site', () => refused('target', async (o) => A.sign({ ...claims(o), [`${C}target_link_uri`]: 'https://evil.example/x' }), { text: /target/ }));
  await t.test('garbage', () => refused('garbage', async () => 'not.a.jwt'));
});

test('replays: the same id_token and state a second time, and the continue link a second time, are refused', async () => {
  const c = new Client();
  const i = await initiate(c, A, { target: target(eventId) });
  const tok = await A.sign(A.claims({ sub: 'student-2', target: target(eventId), nonce: i.nonce }));
  const first = await c.post('/lti/launch', { form: { id_token: tok, state: i.state } });
  assert.equal(first.status, 303);
  const again = await c.post('/lti/launch', { form: { id_token: tok, state: i.state } });
  assert.equal(again.status, 400);
  assert.match(again.text, /already used/);
  const cont = await c.get(first.headers.get('location'));
  assert.equal(cont.status, 303);
  const replay = await new Client().get(first.headers.get('location'));
  assert.equal(replay.status, 400);
  // a fresh login's state with the old token: the nonce is not this launch's
  const i2 = await initiate(c, A, { target: target(eventId) });
  const p = await post(c, tok, i2.state);
  assert.equal(p.status, 403);
  assert.match(p.text, /nonce/);
});

test('login CSRF: a launch begun in the attacker\'s browser cannot be finished in the victim\'s', async () => {
  const attacker = new Client();
  const i = await initiate(attacker, A, { target: target(eventId) });
  const tok = await A.sign(A.claims({ sub: 'attacker-csrf', target: target(eventId), nonce: i.nonce }));
  const r = await attacker.post('/lti/launch', { form: { id_token: tok, state: i.state } });
  assert.equal(r.status, 303);
  const victim = await as('student01');
  const before = victim.cookies.get('prutor.sid');
  const v = await victim.get(r.headers.get('location'));
  assert.equal(v.status, 403);
  assert.match(v.text, /did not end in the browser that began it/);
  assert.equal(victim.cookies.get('prutor.sid'), before, 'the victim keeps their own session');
  assert.equal(await ltiUser(A, 'attacker-csrf'), undefined);
});

// Every LTI route from the router itself: all but the LMS's own refuse anonymous users
// (302 to sign-in / 401), the staff and admin ones students (403), so a new route is covered too.
test('every staff and admin route of /lti checks the role on the server', async () => {
  const routes = [];
  const walk = (router, prefix) => {
    for (const l of router.stack) {
      if (l.route) for (const m of Object.keys(l.route.methods)) routes.push([m.toUpperCase(), prefix + (l.route.path instanceof RegExp ? '/x' : l.route.path)]);
      else if (l.handle && l.handle.stack) walk(l.handle, prefix + (l.rawPath && l.rawPath !== '/' ? l.rawPath : ''));
    }
  };
  walk(require('../../src/lti/routes')({ cfg: {} }), '/lti');
  const isPublic = (p) => /^\/lti\/(jwks|login|launch|continue|x|register\/:token|register-close\.js)$/.test(p);
  const guarded = routes.filter(([, p]) => !isPublic(p)).map(([m, p]) => [m, p.replace(/:[a-zA-Z]+/g, '2147483000')]);
  assert.ok(guarded.length >= 14, `only ${guarded.length} routes`);
  const anon = new Client();
  const student = await as('student01');
  for (const [m, p] of guarded) {
    const a = await anon.request(m, p, m === 'POST' ? { form: { x: '1' } } : {});
    assert.ok(m === 'GET' ? a.status === 302 : a.status === 401, `anonymous ${m} ${p}: ${a.status}`);
    if (p === '/lti/link') continue; // a signed-in student's own page (lti-link.test.js)
    const r = m === 'POST' ? await postForm(student, p, { x: '1' }) : await student.get(p);
    assert.equal(r.status, 403, `student ${m} ${p}`);
  }
});

test('bad login initiations get a sentence', async () => {
  const c = new Client();
  const r1 = await c.get('/lti/login');
  assert.equal(r1.status, 400);
  assert.match(r1.text, /iss, login_hint and target_link_uri are required/);
  const r2 = await c.get(`/lti/login?${new URLSearchParams({ iss: 'https://unknown.example', login_hint: 'x', target_link_uri: target(eventId) })}`);
  assert.equal(r2.status, 400);
  assert.match(r2.text, /not registered here/);
  const r3 = await c.get(`/lti/login?${new URLSearchParams({ iss: A.issuer, login_hint: 'x', target_link_uri: 'https://evil.example/lti/event/1' })}`);
  assert.equal(r3.status, 400);
  assert.match(r3.text, /not on this site/);
  const r4 = await c.post('/lti/launch', { form: { id_token: 'x', state: 'y' } });
  assert.equal(r4.status, 400);
});
