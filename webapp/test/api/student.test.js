'use strict';
// The student routes through HAProxy: home, codebook, editor, save/submit,
// scratchpad, practice; ownership (404), event window (refused, nothing
// stored), CSRF (403), sizes (413), bad fields (400), 200 concurrent saves.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Client } = require('../helpers/http');
const dbh = require('../helpers/db');

const LAB = 'Lab 1: Input and output';
const TAG = `${process.pid}-${Date.now().toString(36)}`;
const fixtures = [];
let s3; // student03's client
let s3Lab1;

test.before(async () => {
  s3 = new Client();
  await s3.login('student03');
  s3Lab1 = await dbh.assignmentOf('student03', LAB, 1);
});
test.after(async () => {
  for (const id of fixtures) await dbh.dropEvent(id);
  await dbh.q("DELETE FROM assignments WHERE kind = 'scratch' AND title LIKE ?", [`test ${TAG}%`]);
  await dbh.close();
});

const save = (c, fields, opts = {}) => c.post('/editor/save', { json: fields, csrf: opts.csrf ?? true, headers: { accept: 'application/json' } });

test('home lists the ongoing event with its questions, from the student\'s section', async () => {
  const r = await s3.get('/home');
  assert.equal(r.status, 200);
  assert.match(r.text, /<meta name="csrf-token" content="[A-Za-z0-9_-]{43}">/);
  assert.match(r.text, /Lab 1: Input and output/);
  assert.match(r.text, new RegExp(`href="/editor/${s3Lab1}"`));
  assert.match(r.text, /Sum of two integers/);
  assert.match(r.text, /Reverse a word/);
  assert.doesNotMatch(r.text, /Quiz 0/, 'a finished event is not on home');
  assert.match(r.text, /Welcome to the demo course/);
});

test('codebook lists past work with its latest code and result', async () => {
  const c = new Client();
  await c.login('student01');
  const r = await c.get('/codebook');
  assert.equal(r.status, 200);
  assert.match(r.text, /Factorial/);
  assert.match(r.text, /Quiz 0: Warm-up/);
  assert.match(r.text, /Correct and clearly written\./);
  assert.match(r.text, /unsigned long long f = 1;/);
});

test('editor opens the own assignment; another student\'s is 404', async () => {
  const r = await s3.get(`/editor/${s3Lab1}`);
  assert.equal(r.status, 200);
  assert.match(r.text, /Read two integers/);
  assert.match(r.text, /<script src="\/static\/editor\.[A-Za-z0-9]+\.js" defer>/);
  assert.match(r.text, /id="editor-data"/);
  assert.match(r.text, /data-deadline="\d{4}-\d\d-\d\dT/);
  const other = await dbh.assignmentOf('student04', LAB, 1);
  const o = await s3.get(`/editor/${other}`);
  assert.equal(o.status, 404);
  assert.doesNotMatch(o.text, /Read two integers/);
  assert.equal((await s3.getJson(`/editor/${other}`)).json.error, 'No such assignment.');
  assert.equal((await s3.get('/editor/99999999')).status, 404);
  assert.equal((await s3.get('/editor/abc')).status, 404);
  assert.equal((await s3.get('/editor/-1')).status, 404);
});

test('a save is stored as a new version; the answer comes after the commit', async () => {
  const before = await dbh.codeCount(s3Lab1);
  const code = `/* save ${TAG} */\nint main(void) { return 0; }\n`;
  const r = await save(s3, { assignment_id: s3Lab1, branch_id: 0, trigger: 'manual', code });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.ok, true);
  const row = (await dbh.q('SELECT assignment_id, save_trigger, code FROM code WHERE id = ?', [r.json.code_id]))[0];
  assert.deepEqual({ ...row }, { assignment_id: s3Lab1, save_trigger: 'manual', code });
  assert.equal(await dbh.codeCount(s3Lab1), before + 1);
  // the codebook view follows the latest save
  const cv = (await dbh.q('SELECT latest_code FROM codebook_view WHERE assignment_id = ?', [s3Lab1]))[0];
  assert.equal(cv.latest_code, code);
  // form-encoded, as the JMeter plans send it, with the token in _csrf
  const f = await s3.post('/editor/save', { form: { assignment_id: s3Lab1, branch_id: 0, trigger: 'auto', code: 'int main(){}', _csrf: s3.csrf } });
  assert.equal(f.status, 200, f.text);
  assert.equal(await dbh.codeCount(s3Lab1), before + 2);
});

test('submit marks the assignment submitted (home, codebook)', async () => {
  const code = `/* submit ${TAG} */\n`;
  const r = await save(s3, { assignment_id: s3Lab1, trigger: 'submit', code });
  assert.equal(r.status, 200);
  assert.equal(r.json.submitted, true);
  const sub = (await dbh.q('SELECT code_id FROM submissions WHERE assignment_id = ?', [s3Lab1]))[0];
  assert.equal(sub.code_id, r.json.code_id);
  const home = await s3.get('/home');
  const row = new RegExp(`<tr data-assignment-id="${s3Lab1}">[\\s\\S]*?</tr>`).exec(home.text)[0];
  assert.match(row, /Submitted/);
  const cb = await s3.get('/codebook');
  assert.match(cb.text, new RegExp(`submit ${TAG}`));
});

test('missing or bad CSRF token: 403 and nothing stored', async () => {
  const before = await dbh.codeCount(s3Lab1);
  const none = await s3.post('/editor/save', { json: { assignment_id: s3Lab1, code: 'x' }, headers: { accept: 'application/json' } });
  assert.equal(none.status, 403);
  assert.match(none.json.error, /security token/);
  const bad = await save(s3, { assignment_id: s3Lab1, code: 'x' }, { csrf: 'A'.repeat(43) });
  assert.equal(bad.status, 403);
  const otherSession = new Client();
  await otherSession.login('student04');
  const foreign = await save(s3, { assignment_id: s3Lab1, code: 'x' }, { csrf: otherSession.csrf });
  assert.equal(foreign.status, 403, 'a token of another session is refused');
  assert.equal(await dbh.codeCount(s3Lab1), before);
});

test('saving another student\'s assignment is 404 and stores nothing', async () => {
  const other = await dbh.assignmentOf('student04', LAB, 1);
  const before = await dbh.codeCount(other);
  const r = await save(s3, { assignment_id: other, trigger: 'manual', code: 'stolen' });
  assert.equal(r.status, 404);
  assert.equal(await dbh.codeCount(other), before);
});

test('oversized code is 413 with a clear message; nothing stored', async () => {
  const before = await dbh.codeCount(s3Lab1);
  const r = await save(s3, { assignment_id: s3Lab1, trigger: 'manual', code: 'x'.repeat(65537) });
  assert.equal(r.status, 413);
  assert.match(r.json.error, /over the limit of 64 KiB/);
  const huge = await save(s3, { assignment_id: s3Lab1, trigger: 'manual', code: 'x'.repeat(1024 * 1024) });
  assert.equal(huge.status, 413);
  const ok = await save(s3, { assignment_id: s3Lab1, trigger: 'manual', code: 'é'.repeat(32768) }); // exactly 64 KiB in UTF-8
  assert.equal(ok.status, 200);
  assert.equal(await dbh.codeCount(s3Lab1), before + 1);
});

test('bad fields are 400, never 500', async () => {
  const cases = [
    { assignment_id: 'abc', code: 'x' },
    { assignment_id: -4, code: 'x' },
    { assignment_id: s3Lab1, trigger: 'bogus', code: 'x' },
    { assignment_id: s3Lab1, trigger: 'manual' },
    { assignment_id: s3Lab1, trigger: 'manual', code: 42 },
    { assignment_id: s3Lab1, branch_id: 'x', code: 'x' },
    { code: 'x' },
  ];
  for (const f of cases) {
    const r = await save(s3, f);
    assert.equal(r.status, 400, JSON.stringify(f));
    assert.ok(r.json.error);
  }
  const malformed = await s3.post('/editor/save', { body: '{"assignment_id":', headers: { 'content-type': 'application/json', accept: 'application/json' }, csrf: true });
  assert.equal(malformed.status, 400);
  assert.equal((await s3.post('/practice/abc/open', { form: { _csrf: s3.csrf } })).status, 400);
});

test('saves after the event closed are refused and store nothing; extra time is honoured', async () => {
  const closed = await dbh.makeEvent({ tag: `closed ${TAG}`, username: 'student03', startMin: -120, stopMin: -60 });
  fixtures.push(closed.eventId);
  for (const trigger of ['manual', 'auto', 'submit']) {
    const r = await save(s3, { assignment_id: closed.assignmentId, trigger, code: 'late' });
    assert.equal(r.status, 409, trigger);
    assert.equal(r.json.code, 'event_closed');
    assert.match(r.json.error, /closed at/);
  }
  assert.equal(await dbh.codeCount(closed.assignmentId), 0);
  assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM submissions WHERE assignment_id = ?', [closed.assignmentId]))[0].n, 0);
  const page = await s3.get(`/editor/${closed.assignmentId}`);
  assert.equal(page.status, 200, 'a closed event is readable');
  assert.match(page.text, /This event has closed/);

  const notYet = await dbh.makeEvent({ tag: `future ${TAG}`, username: 'student03', startMin: 60, stopMin: 120 });
  fixtures.push(notYet.eventId);
  const early = await save(s3, { assignment_id: notYet.assignmentId, trigger: 'manual', code: 'early' });
  assert.equal(early.status, 409);
  assert.equal(early.json.code, 'event_not_started');
  assert.equal(await dbh.codeCount(notYet.assignmentId), 0);
  const hidden = await s3.get(`/editor/${notYet.assignmentId}`);
  assert.equal(hidden.status, 409, 'the problem is not shown before the start');
  assert.doesNotMatch(hidden.text, /Read two integers/);
  const home = await s3.get('/home');
  assert.match(home.text, new RegExp(`test future ${TAG}`), 'upcoming event listed');

  const extra = await dbh.makeEvent({ tag: `extra ${TAG}`, username: 'student03', startMin: -120, stopMin: -60, extraMinutes: 120 });
  fixtures.push(extra.eventId);
  const late = await save(s3, { assignment_id: extra.assignmentId, trigger: 'submit', code: 'with extra time' });
  assert.equal(late.status, 200, 'extra minutes keep the window open for this student');
});

test('scratchpad: create a file, save, list', async () => {
  const r = await s3.post('/scratchpad', { form: { _csrf: s3.csrf, title: `test ${TAG} pointers.c` }, headers: { accept: 'application/json' } });
  assert.equal(r.status, 201);
  const id = r.json.assignment_id;
  const ed = await s3.get(`/editor/${id}`);
  assert.equal(ed.status, 200);
  assert.match(ed.text, /pointers\.c/);
  assert.doesNotMatch(ed.text, /id="btn-submit"/);
  assert.equal((await save(s3, { assignment_id: id, trigger: 'manual', code: 'int main(){return 0;}' })).status, 200);
  const list = await s3.get('/scratchpad');
  assert.match(list.text, new RegExp(`test ${TAG} pointers\\.c`));
  const form = await s3.post('/scratchpad', { form: { _csrf: s3.csrf, title: `test ${TAG} second` } });
  assert.equal(form.status, 303);
  assert.match(form.headers.get('location'), /^\/editor\/\d+$/);
  const long = await s3.post('/scratchpad', { form: { _csrf: s3.csrf, title: 'x'.repeat(201) }, headers: { accept: 'application/json' } });
  assert.equal(long.status, 400);
});

test('practice: open creates one attempt per problem; non-practice problems are 404', async () => {
  const list = await s3.get('/practice');
  assert.equal(list.status, 200);
  assert.match(list.text, /Factorial/);
  assert.doesNotMatch(list.text, /Sum of two integers/);
  const a = await s3.post('/practice/3/open', { form: { _csrf: s3.csrf }, headers: { accept: 'application/json' } });
  assert.equal(a.status, 200);
  const b = await s3.post('/practice/3/open', { form: { _csrf: s3.csrf }, headers: { accept: 'application/json' } });
  assert.equal(b.json.assignment_id, a.json.assignment_id);
  const ed = await s3.get(`/editor/${a.json.assignment_id}`);
  assert.equal(ed.status, 200);
  assert.match(ed.text, /id="btn-evaluate"/);
  assert.equal((await save(s3, { assignment_id: a.json.assignment_id, trigger: 'manual', code: 'int main(){}' })).status, 200);
  const no = await s3.post('/practice/1/open', { form: { _csrf: s3.csrf }, headers: { accept: 'application/json' } });
  assert.equal(no.status, 404);
});

test('200 concurrent saves are all stored', async () => {
  const c = new Client();
  await c.login('student04');
  const id = await dbh.assignmentOf('student04', LAB, 2);
  const marker = `/* burst ${TAG} `;
  const results = await Promise.all(Array.from({ length: 200 }, (_, i) => save(c, {
    assignment_id: id, branch_id: 0, trigger: i % 10 === 0 ? 'submit' : 'auto', code: `${marker}${i} */\n`,
  })));
  const statuses = results.map((r) => r.status);
  assert.deepEqual([...new Set(statuses)], [200], `statuses: ${JSON.stringify(statuses.filter((s) => s !== 200))}`);
  const n = (await dbh.q('SELECT COUNT(*) AS n FROM code WHERE assignment_id = ? AND code LIKE ?', [id, `${marker}%`]))[0].n;
  assert.equal(n, 200);
  const ids = new Set(results.map((r) => r.json.code_id));
  assert.equal(ids.size, 200);
});

test('unknown pages: HTML 404 page for browsers, JSON for API callers, no stack traces', async () => {
  const r = await s3.get('/no/such/page');
  assert.equal(r.status, 404);
  assert.match(r.headers.get('content-type'), /text\/html/);
  assert.match(r.text, /There is no page at this address/);
  const j = await s3.getJson('/no/such/page');
  assert.equal(j.status, 404);
  assert.deepEqual(Object.keys(j.json), ['error']);
  assert.doesNotMatch(r.text + j.text, /at .*\.js:\d+/);
});
