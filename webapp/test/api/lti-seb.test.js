'use strict';
// Safe Exam Browser per event, through HAProxy: once an instructor requires it, the
// event's exam page, editor and saves answer 403 with a sentence unless the request
// carries SEB's hash of its own absolute URL and a configured key, computed as SEB
// documents it (hex SHA-256 of URL + Config Key / Browser Exam Key). Other events,
// staff, and a hash taken from another page are what they should be. The engine's
// /compile checks the same rule (engine/src/SafeExamBrowser.php).
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { as, postForm } = require('../helpers/staff');
const dbh = require('../helpers/db');
const env = require('../helpers/env');

const TAG = `seb${Date.now().toString(36)}${process.pid.toString(36)}`;
const CONFIG_KEY = crypto.randomBytes(32).toString('hex');
const BEK = crypto.randomBytes(32).toString('hex');
const sha = (s) => crypto.createHash('sha256').update(s).digest('hex');
const sleep = (ms) => new Promise((r) => { setTimeout(r, ms); });
let ev; let other; let student; let instructor;

const withSeb = (url, key = CONFIG_KEY, header = 'x-safeexambrowser-configkeyhash') => ({ [header]: sha(`${env.BASE}${url}` + key) });

test.before(async () => {
  ev = await dbh.makeEvent({ tag: TAG, username: 'student01', startMin: -5, stopMin: 120 });
  other = await dbh.makeEvent({ tag: `${TAG}-free`, username: 'student01', startMin: -5, stopMin: 120 });
  student = await as('student01');
  instructor = await as('instructor');
});

test.after(async () => {
  await dbh.dropEvent(ev.eventId);
  await dbh.dropEvent(other.eventId);
  await dbh.close();
});

test('an instructor requires SEB with a Config Key; bad keys get a sentence; the .seb file starts at the exam', async () => {
  const bad = await postForm(instructor, `/lti/seb/${ev.eventId}`, { required: '1', config_keys: 'not-a-key' });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /64 hexadecimal characters/);
  const none = await postForm(instructor, `/lti/seb/${ev.eventId}`, { required: '1' });
  assert.equal(none.status, 400);
  assert.match(none.text, /at least one Config Key/);
  assert.equal((await postForm(student, `/lti/seb/${ev.eventId}`, { required: '1', config_keys: CONFIG_KEY })).status, 403);
  const ok = await postForm(instructor, `/lti/seb/${ev.eventId}`, { required: '1', config_keys: CONFIG_KEY.toUpperCase(), browser_exam_keys: BEK, quit_url: 'https://example.edu/quit' });
  assert.equal(ok.status, 303);
  const page = await instructor.get(`/lti/seb/${ev.eventId}`);
  assert.match(page.text, /<span class="pill ok">required<\/span>/);
  const file = await instructor.get(`/lti/seb/${ev.eventId}/config.seb`);
  assert.equal(file.status, 200);
  assert.match(file.headers.get('content-disposition'), /attachment; filename="event-\d+\.seb"/);
  assert.ok(file.text.includes(`<key>startURL</key><string>${env.BASE}/exam/${ev.eventId}</string>`));
  assert.ok(file.text.includes('<key>quitURL</key><string>https://example.edu/quit</string>'));
});

test('without SEB\'s headers the exam page, editor and saves are refused with a sentence; with them they work', async () => {
  const exam = `/exam/${ev.eventId}`;
  // every worker learns of it within its refresh period (2 s by default)
  let r;
  for (let i = 0; i < 40; i++) {
    r = await student.get(exam);
    if (r.status === 403) break;
    await sleep(250);
  }
  assert.equal(r.status, 403);
  assert.match(r.text, /must be taken in Safe Exam Browser/);
  // the first refusal came from one worker; the others refresh within their period
  await sleep(2500);
  for (let i = 0; i < 6; i++) assert.equal((await student.get(exam)).status, 403, 'every worker refuses');

  assert.equal((await student.get(exam, { headers: withSeb(exam) })).status, 200);
  assert.equal((await student.get(exam, { headers: withSeb(exam, BEK, 'x-safeexambrowser-requesthash') })).status, 200);
  // the wrong key, a BEK offered as a Config Key, and a hash made for another page
  assert.equal((await student.get(exam, { headers: withSeb(exam, crypto.randomBytes(32).toString('hex')) })).status, 403);
  assert.equal((await student.get(exam, { headers: withSeb(exam, BEK) })).status, 403);
  assert.equal((await student.get(exam, { headers: withSeb(`/exam/${other.eventId}`) })).status, 403);

  const editor = `/editor/${ev.assignmentId}`;
  assert.equal((await student.get(editor)).status, 403);
  assert.equal((await student.get(editor, { headers: withSeb(editor) })).status, 200);
  const save = (headers) => student.post('/editor/save', { json: { assignment_id: ev.assignmentId, branch_id: 0, trigger: 'manual', code: `int main(){return 0;} // ${TAG}` }, csrf: true, headers: { accept: 'application/json', ...headers } });
  const refused = await save({});
  assert.equal(refused.status, 403);
  assert.equal(refused.json.code, 'seb_required');
  assert.match(refused.json.error, /Safe Exam Browser/);
  assert.equal(await dbh.codeCount(ev.assignmentId), 0, 'nothing saved');
  const saved = await save(withSeb('/editor/save'));
  assert.equal(saved.status, 200, saved.text);
  assert.equal(await dbh.codeCount(ev.assignmentId), 1);

  // the engine's /compile (through HAProxy too) checks the same hash of its own URL
  const compile = (headers) => student.post('/compile', { json: { assignment_id: ev.assignmentId, code: `int main(void){return 0;} // ${TAG}\n` }, csrf: true, headers: { accept: 'application/json', ...headers } });
  const outside = await compile({});
  assert.equal(outside.status, 403, outside.text);
  assert.match(outside.json.error, /Safe Exam Browser/);
  assert.equal((await compile(withSeb('/editor/save'))).status, 403, 'a hash of another URL');
  assert.equal(await dbh.codeCount(ev.assignmentId), 1, 'nothing stored by a refused compile');
  const inside = await compile(withSeb('/compile'));
  assert.equal(inside.status, 200, inside.text);
  assert.equal(inside.json.compiled, true);

  // an event without SEB, and staff, are untouched
  assert.equal((await student.get(`/exam/${other.eventId}`)).status, 200);
  assert.equal((await instructor.get(exam)).status !== 403, true);
});

test('turning it off lets any browser in again', async () => {
  assert.equal((await postForm(instructor, `/lti/seb/${ev.eventId}`, { config_keys: '' })).status, 303);
  let r;
  for (let i = 0; i < 40; i++) {
    r = await student.get(`/exam/${ev.eventId}`);
    if (r.status === 200) break;
    await sleep(250);
  }
  assert.equal(r.status, 200);
});
