'use strict';
// Lab lock-down (issue 16) through HAProxy on the real stack: a student outside the
// allowed ranges cannot sign in, nor use a session from there (webapp and engine),
// and a forged X-Forwarded-For changes nothing; a second sign-in ends the first
// session and the first browser is told why; staff read it all in the audit log.
const test = require('node:test');
const assert = require('node:assert/strict');
const { as, postForm, postJson, TAG } = require('../helpers/staff');
const { Client } = require('../helpers/http');
const env = require('../helpers/env');
const dbh = require('../helpers/db');
const { seedExam, dropExam, until, untilSteady } = require('../helpers/tools');

const SPOOF = { 'x-forwarded-for': '10.1.2.3' };
let exam;
let staff;

async function setLock(ranges, single = true) {
  const r = await postJson(staff, `/tools/events/${exam.eventId}/lockdown`, { enabled: '1', allowed_ranges: ranges, single_session: single ? '1' : '' });
  assert.equal(r.status, 200, r.text);
  return r.json.settings;
}
function signIn(client, username, headers = {}) {
  return client.request('POST', '/accounts/login', { form: { username, password: env.password }, headers: { accept: 'application/json', ...headers } });
}
async function auditKinds() {
  const r = await staff.getJson(`/tools/events/${exam.eventId}/lockdown/audit`);
  assert.equal(r.status, 200);
  return r.json.entries;
}

test.before(async () => {
  exam = await seedExam({ tag: `lk${TAG}`, students: 2 });
  staff = await as('instructor');
});
test.after(async () => { await dropExam(exam); await dbh.close(); });

test('outside the range: sign-in refused, forged X-Forwarded-For or not; bad ranges are a 400', async () => {
  const bad = await postJson(staff, `/tools/events/${exam.eventId}/lockdown`, { enabled: '1', allowed_ranges: '10.0.0.0/8, lab-room' });
  assert.equal(bad.status, 400);
  assert.match(bad.json.error, /"lab-room" is not an address/);
  const s = await setLock('10.0.0.0/8');
  assert.equal(s.in_force, true);
  const who = exam.users[0].username;
  const refused = await untilSteady(async () => {
    const r = await signIn(new Client(), who, SPOOF);
    return r.status === 403 ? r : null;
  }, { timeoutMs: 15000, times: 8, what: 'the lock-down to be in force in every worker' });
  assert.match(refused.json.error, /only from the lab's computers.*\(127\.0\.0\.1\)/);
  // each worker learns of the lock-down within its refresh (about 2 s): steady means every one refuses
  const plain = await untilSteady(async () => {
    const r = await signIn(new Client(), who);
    return r.status === 403 ? r : null;
  }, { timeoutMs: 15000, times: 8, what: 'a sign-in without a forged header refused by every worker' });
  assert.equal(plain.status, 403);
  // another section's student is not concerned
  assert.equal((await signIn(new Client(), 'student01')).status, 200);
  const log = await auditKinds();
  assert.ok(log.some((l) => l.kind === 'sign_in_refused' && l.username === who && l.address === '127.0.0.1'));
});

test('a session from inside the range; when the range changes, webapp and engine refuse it', async () => {
  await setLock('127.0.0.0/8');
  const who = exam.users[0];
  const c = new Client();
  await untilSteady(async () => (await signIn(new Client(), who.username)).status === 200, { timeoutMs: 15000, what: 'sign-in allowed' });
  c.csrf = (await signIn(c, who.username)).json.csrf; // a second sign-in of the same client is allowed too
  const home = await c.get('/home');
  assert.equal(home.status, 200);
  const compile = () => c.request('POST', '/compile', { json: { assignment_id: who.assignmentId, code: 'int main(void){return 0;}' }, csrf: true, headers: SPOOF });
  assert.equal((await compile()).status, 200);

  await setLock('10.0.0.0/8');
  const w = await untilSteady(async () => { const r = await c.get('/home', { headers: SPOOF }); return r.status === 403 ? r : null; }, { timeoutMs: 15000, what: 'webapp refusal' });
  assert.match(w.text, /only from the lab/);
  const e = await until(async () => { const r = await compile(); return r.status === 403 ? r : null; }, { timeoutMs: 15000, what: 'engine refusal' });
  assert.match(e.json.error, /only from the lab's computers.*127\.0\.0\.1/);
  assert.ok((await auditKinds()).some((l) => l.kind === 'request_refused' && l.username === who.username));
  await setLock('127.0.0.0/8');
  await until(async () => (await compile()).status === 200, { timeoutMs: 15000, what: 'engine allows again' });
});

test('a second sign-in ends the first; the first browser is told why, staff see it', async () => {
  await setLock('127.0.0.0/8', true);
  const who = exam.users[1];
  const first = new Client();
  await untilSteady(async () => (await signIn(new Client(), exam.users[0].username)).status === 200, { timeoutMs: 15000, what: 'sign-in allowed' });
  assert.equal((await signIn(first, who.username)).status, 200);
  assert.equal((await first.get('/home')).status, 200);
  const second = new Client();
  assert.equal((await signIn(second, who.username)).status, 200);
  assert.equal((await second.get('/home')).status, 200);
  const told = await first.getJson('/home');
  assert.equal(told.status, 401);
  assert.equal(told.json.code, 'session_replaced');
  assert.match(told.json.error, /signed in again from 127\.0\.0\.1/);
  const page = await first.get('/home');
  assert.ok(page.status === 401 || page.status === 302);
  const log = await auditKinds();
  assert.ok(log.some((l) => l.kind === 'session_end' && l.username === who.username && /new sign-in from 127\.0\.0\.1/.test(l.detail)));
  assert.equal(log.filter((l) => l.kind === 'sign_in' && l.username === who.username).length, 2);
});

test('attack: two sign-ins of one student at the same moment: exactly one session survives', async () => {
  await setLock('127.0.0.0/8', true);
  const who = exam.users[1];
  for (let round = 0; round < 20; round++) {
    const [a, b] = [new Client(), new Client()];
    const signed = await Promise.all([signIn(a, who.username), signIn(b, who.username)]);
    assert.deepEqual(signed.map((r) => r.status), [200, 200]);
    const live = (await dbh.q('SELECT COUNT(*) AS n FROM sessions WHERE user_id = ? AND expires_at > UTC_TIMESTAMP(3)', [who.id]))[0].n;
    assert.equal(Number(live), 1, `round ${round}: ${live} sessions live`);
    const homes = await Promise.all([a.getJson('/home'), b.getJson('/home')]);
    assert.deepEqual(homes.map((r) => r.status).sort(), [200, 401], `round ${round}`);
  }
});

test('a session begun before the lock-down took force is ended by a sign-in under it', async () => {
  const who = exam.users[1].username;
  await postJson(staff, `/tools/events/${exam.eventId}/lockdown`, {});
  const before = new Client();
  await untilSteady(async () => (await signIn(new Client(), 'student01', SPOOF)).status === 200, { timeoutMs: 15000, what: 'no lock-down' });
  assert.equal((await signIn(before, who)).status, 200);
  await setLock('127.0.0.0/8', true);
  await untilSteady(async () => {
    const a = new Client();
    await signIn(a, exam.users[0].username);
    await signIn(new Client(), exam.users[0].username);
    return (await a.getJson('/home')).status === 401;
  }, { timeoutMs: 15000, what: 'one session per student in every worker' });
  assert.equal((await before.getJson('/home')).status, 200, 'still signed in before the second sign-in');
  assert.equal((await signIn(new Client(), who)).status, 200);
  assert.equal((await before.getJson('/home')).status, 401);
});

test('the same session from another address is logged as an address change', async () => {
  // straight to the webapp, which believes X-Forwarded-For from loopback (HAProxy's role)
  const direct = new Client(`http://127.0.0.1:${env.get('WEBAPP_PORT', '3000')}`);
  const who = exam.users[0].username;
  assert.equal((await signIn(direct, who, { 'x-forwarded-for': '127.0.0.5' })).status, 200);
  assert.equal((await direct.get('/home', { headers: { 'x-forwarded-for': '127.0.0.9' } })).status, 200);
  const log = await auditKinds();
  assert.ok(log.some((l) => l.kind === 'address_change' && l.username === who && l.address === '127.0.0.9' && l.detail === 'from 127.0.0.5'));
});

test('only instructors and admins set a lock-down; switching it off lets everyone in', async () => {
  const student = await as('student02');
  assert.equal((await postForm(student, `/tools/events/${exam.eventId}/lockdown`, { enabled: '1', allowed_ranges: '' })).status, 403);
  assert.equal((await postJson(staff, '/tools/events/999999999/lockdown', { enabled: '1' })).status, 404);
  const off = await postJson(staff, `/tools/events/${exam.eventId}/lockdown`, {});
  assert.equal(off.json.settings.enabled, false);
  await untilSteady(async () => (await signIn(new Client(), exam.users[0].username, SPOOF)).status === 200, { timeoutMs: 15000, what: 'no lock-down' });
});
