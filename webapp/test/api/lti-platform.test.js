'use strict';
// Interoperability: the tool against an LTI 1.3 platform nobody here wrote, PyPI's
// lti1p3platform (test/lti-platform/platform.py wires it to HTTP), run as a real
// HTTP service on this host. Its OIDC login initiation and signed launches
// (resource link, AGS and NRPS claims, deep linking) sign students and
// instructors in; its token endpoint accepts our client assertion; scores and the
// roster flow; our deep linking answer passes its check. A tampered, an expired and
// a replayed launch are refused and create nothing.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const net = require('node:net');
const { spawn, execFileSync } = require('node:child_process');
const { Client } = require('../helpers/http');
const { as, postForm } = require('../helpers/staff');
const dbh = require('../helpers/db');
const env = require('../helpers/env');

const HERE = path.join(__dirname, '..', 'lti-platform');
const CACHE = env.get('PRUTOR_CACHE', path.join(process.env.XDG_CACHE_HOME || path.join(require('node:os').homedir(), '.cache'), 'prutor'));
const sleep = (ms) => new Promise((r) => { setTimeout(r, ms); });
let P; let proc; let pid; let eventId; let instructor;

async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

test.before(async () => {
  execFileSync(path.join(HERE, 'install.sh'), { stdio: 'inherit', env: { ...process.env, PRUTOR_CACHE: CACHE }, timeout: 600000 });
  const port = await freePort();
  proc = spawn(path.join(CACHE, 'lti-platform-venv', 'bin', 'python'), [path.join(HERE, 'platform.py'), String(port), env.BASE], { stdio: ['ignore', 'pipe', 'inherit'] });
  P = await new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => { out += d; const line = out.split('\n')[0]; if (out.includes('\n')) resolve(JSON.parse(line)); });
    proc.on('exit', (code) => reject(new Error(`the platform exited (${code})`)));
  });
  const admin = await as('admin');
  instructor = await as('instructor');
  const r = await postForm(admin, '/lti/admin', {
    name: `Independent ${port}`, issuer: P.issuer, client_id: P.client_id, auth_login_url: `${P.ready}/auth`,
    token_url: `${P.ready}/token`, jwks_url: `${P.ready}/jwks`, deployments: P.deployment_id,
  });
  assert.equal(r.status, 303, r.text.slice(0, 300));
  pid = Number(/\/lti\/admin\/(\d+)/.exec(r.headers.get('location'))[1]);
  const ev = await dbh.q("INSERT INTO events (title, type, description) VALUES (?, 'exam', 'independent platform test')", [`independent ${port}`]);
  eventId = ev.insertId;
  await dbh.q('INSERT INTO event_questions (event_id, position, problem_id, max_marks) VALUES (?, 1, 1, 10)', [eventId]);
});

test.after(async () => {
  if (proc) proc.kill();
  if (!P) return;
  const ids = (await dbh.q('SELECT user_id FROM lti_users WHERE issuer = ?', [P.issuer])).map((u) => u.user_id);
  const secs = await dbh.q('SELECT DISTINCT section_id FROM lti_contexts WHERE platform_id = ?', [pid]);
  await dbh.q('DELETE FROM lti_platforms WHERE id = ?', [pid]);
  await dbh.q('DELETE FROM assignments WHERE event_id = ?', [eventId]);
  await dbh.q('DELETE FROM events WHERE id = ?', [eventId]);
  if (ids.length) {
    await dbh.q('DELETE FROM sessions WHERE user_id IN (?)', [ids]);
    await dbh.q('DELETE FROM users WHERE id IN (?)', [ids]);
  }
  for (const s of secs) await dbh.q('DELETE FROM sections WHERE id = ?', [s.section_id]).catch(() => {});
  await dbh.close();
});

const platformState = async () => (await fetch(`${P.ready}/state`)).json();
const setPlatform = (o) => fetch(`${P.ready}/state`, { method: 'POST', body: JSON.stringify(o) });

// The browser's way through a launch: the LMS's start, our login, its authorization
// (the launch form, as JSON), then the form post. `tamper` may change the form.
async function launchVia(c, { user, role, target = `${env.BASE}/lti/event/${eventId}`, dl, exp, tamper }) {
  const q = new URLSearchParams({ user, role, target, link: `rl-${role}`, ...(dl ? { dl: '1' } : {}), ...(exp ? { exp: String(exp) } : {}) });
  const start = await c.get(`${P.ready}/start?${q}`);
  assert.equal(start.status, 302);
  const login = await c.get(start.headers.get('location'));
  assert.equal(login.status, 302, login.text.slice(0, 300));
  const auth = await c.get(login.headers.get('location'));
  assert.equal(auth.status, 200, auth.text);
  let form = auth.json;
  assert.equal(form.action, `${env.BASE}/lti/launch`);
  if (tamper) form = tamper(form);
  const r = await c.post(form.action, { form: { id_token: form.id_token, state: form.state } });
  if (r.status !== 303) return { status: r.status, text: r.text, form };
  const r2 = await c.get(`${env.BASE}${r.headers.get('location')}`);
  return { status: r2.status, landing: r2.headers.get('location'), text: r2.text, form };
}

test('its launches sign an instructor and a student in; tampered, expired and replayed ones are refused', async () => {
  const ci = new Client('');
  const li = await launchVia(ci, { user: 'prof', role: 'instructor' });
  assert.equal(li.landing, `/events/${eventId}`, li.text);
  const [{ section_id: sectionId }] = await dbh.q('SELECT section_id FROM lti_contexts WHERE platform_id = ?', [pid]);
  const sc = await dbh.q('INSERT INTO schedules (event_id, start_time, stop_time) VALUES (?, UTC_TIMESTAMP(3) - INTERVAL 5 MINUTE, UTC_TIMESTAMP(3) + INTERVAL 60 MINUTE)', [eventId]);
  await dbh.q('INSERT INTO slots (schedule_id, event_id, section_id) VALUES (?, ?, ?)', [sc.insertId, eventId, sectionId]);
  await dbh.q('UPDATE events SET published_at = UTC_TIMESTAMP(3) WHERE id = ?', [eventId]);

  const cs = new Client('');
  const ls = await launchVia(cs, { user: 'ada', role: 'learner' });
  assert.equal(ls.landing, `/exam/${eventId}`, ls.text);
  assert.equal((await cs.get(`${env.BASE}/exam/${eventId}`)).status, 200);
  const [u] = await dbh.q('SELECT u.name, u.role, u.section_id FROM lti_users l JOIN users u ON u.id = l.user_id WHERE l.issuer = ? AND l.sub = ?', [P.issuer, 'ada']);
  assert.deepEqual([u.name, u.role, u.section_id], ['Independent ada', 'student', sectionId]);
  const replay = await cs.post(`${env.BASE}/lti/launch`, { form: { id_token: ls.form.id_token, state: ls.form.state } });
  assert.equal(replay.status, 400);

  const flip = (f) => { const [h, b, s] = f.id_token.split('.'); const body = JSON.parse(Buffer.from(b, 'base64url')); body['https://purl.imsglobal.org/spec/lti/claim/roles'] = ['http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor']; return { ...f, id_token: `${h}.${Buffer.from(JSON.stringify(body)).toString('base64url')}.${s}` }; };
  for (const [name, opts, re] of [['tampered', { tamper: flip }, /not valid/], ['expired', { exp: -600 }, /expired/]]) {
    const c = new Client('');
    const r = await launchVia(c, { user: `mallory-${name}`, role: 'learner', ...opts });
    assert.equal(r.status, 403, name);
    assert.match(r.text, re, name);
    assert.equal(c.cookies.get('prutor.sid'), undefined);
    assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM lti_users WHERE issuer = ? AND sub = ?', [P.issuer, `mallory-${name}`]))[0].n, 0);
  }
});

test('scores reach it with its own access tokens, one refused once and stored once; its roster is read', async () => {
  const [a] = await dbh.q('SELECT a.id FROM assignments a JOIN lti_users l ON l.user_id = a.user_id WHERE a.event_id = ? AND l.issuer = ?', [eventId, P.issuer]);
  await dbh.q("INSERT INTO grades (assignment_id, marks, feedback, grader_id) VALUES (?, 8.5, 'good', ?)", [a.id, await dbh.userId('admin')]);
  await setPlatform({ refuse_next: 1 });
  assert.equal((await postForm(instructor, `/events/${eventId}/release`, {})).status, 303);
  let st;
  for (let i = 0; i < 40; i++) {
    await postForm(instructor, `/lti/grades/${eventId}/send`, {});
    st = await platformState();
    if (st.scores.length) break;
    await sleep(250);
  }
  assert.equal(st.refuse_next, 0, 'it refused one');
  assert.equal(st.scores.length, 1, 'stored once');
  assert.deepEqual([st.scores[0].userId, st.scores[0].scoreGiven, st.scores[0].scoreMaximum, st.scores[0].gradingProgress], ['ada', 8.5, 10, 'FullyGraded']);

  await setPlatform({ members: [
    { user_id: 'ada', status: 'Active', name: 'Ada L.', roles: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner'] },
    { user_id: 'bob', status: 'Active', name: 'Bob', roles: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner'] },
  ] });
  const r = await postForm(instructor, '/lti/courses/sync', { platform_id: pid, context_id: 'ctx-independent' });
  assert.equal(r.status, 303, (/class="flash error"[^>]*>([^<]*)/.exec(r.text) || [r.text])[1]);
  assert.match(decodeURIComponent(r.headers.get('location')), /1 added, 1 updated/);
});

test('deep linking: its request lands on our picker, and our signed answer passes its check', async () => {
  const c = new Client('');
  const r = await launchVia(c, { user: 'prof', role: 'instructor', target: `${env.BASE}/lti/launch`, dl: true });
  assert.equal(r.landing, '/lti/deeplink', r.text);
  const page = await c.get(`${env.BASE}/lti/deeplink`);
  c.csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(page.text)[1];
  assert.match(page.text, /type="checkbox"/, 'it accepts several');
  const pick = await c.post(`${env.BASE}/lti/deeplink`, { form: { _csrf: c.csrf, item: `event:${eventId}` } });
  assert.equal(pick.status, 200, pick.text.slice(0, 300));
  const jwt = /name="JWT" value="([^"]+)"/.exec(pick.text)[1];
  const back = await fetch(`${P.ready}/dl-return`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ JWT: jwt }) });
  const got = await back.json();
  assert.equal(back.status, 200, JSON.stringify(got));
  assert.equal(got.items[0].url, `${env.BASE}/lti/event/${eventId}`);
  assert.equal(got.items[0].lineItem.scoreMaximum, 10);
});
