'use strict';
// Events end to end through the HTTP API: publish creates one assignment per
// student and question of the scheduled sections (variants per section), twice
// creates nothing more; extend a student and a section (a shared schedule is
// split); unpublish before the start and refused after; a submission; grading,
// regrade, results CSV, practice. After each step both materialized views equal
// their defining views (EXCEPT both ways).
const test = require('node:test');
const assert = require('node:assert/strict');
const { TAG, as, postForm, postJson, viewDiff, CONSISTENT } = require('../helpers/staff');
const { Client } = require('../helpers/http');
const dbh = require('../helpers/db');

const SA = `EA${TAG}`.slice(0, 24);
const SB = `EB${TAG}`.slice(0, 24);
const name = (s, i) => `e${TAG}${s}${i}`;
const SUM = '#include <stdio.h>\nint main(void){long a,b;if(scanf("%ld %ld",&a,&b)!=2)return 1;printf("%ld\\n",a+b);return 0;}\n';

let instr; let ev; let p1; let p2; let p3; let secA; let secB; let ta;
const passwords = {};

async function consistent(step) {
  assert.deepEqual(await viewDiff(ev), CONSISTENT, `views differ from their definitions after ${step}`);
}
const count = async (sql, params) => (await dbh.q(sql, params))[0].n;

test.before(async () => {
  instr = await as('instructor');
  const rows = ['username,name,email,section,role'];
  for (let i = 1; i <= 3; i++) rows.push(`${name('a', i)},A ${i},,${SA},student`, `${name('b', i)},B ${i},,${SB},student`);
  rows.push(`${name('t', 1)},TA One,,,ta`);
  const imp = await postJson(instr, '/people/import', { csv: rows.join('\n'), password_mode: 'generate', create_sections: '1' });
  assert.equal(imp.json.counts.created, 7, imp.text);
  for (const r of imp.json.report) passwords[r.username] = r.password;
  [secA, secB] = [(await dbh.q('SELECT id FROM sections WHERE code = ?', [SA]))[0].id, (await dbh.q('SELECT id FROM sections WHERE code = ?', [SB]))[0].id];
  ta = await dbh.userId(name('t', 1));
  const mk = async (title) => (await postJson(instr, '/problems', {
    title, category: 'test', statement_md: 'Add **two** numbers.', env: 'c', template_code: '', solution_code: SUM,
    time_limit_ms: '1000', memory_limit_mb: '64', compare_mode: 'trim',
  })).json.id;
  p1 = await mk(`Sum ${TAG}`); p2 = await mk(`Q2 all ${TAG}`); p3 = await mk(`Q2 variant B ${TAG}`);
  for (const [input, out, vis] of [['1 2', '3', 'visible'], ['10 20', '30', 'hidden']]) {
    const t = await postJson(instr, `/problems/${p1}/tests`, { input, expected_output: out, visibility: vis, weight: '1' });
    assert.equal(t.status, 201, t.text);
  }
});
test.after(() => dbh.close());

test('problem: validation keeps the input; test cases bump updated_at', async () => {
  const bad = await postForm(instr, '/problems', { title: '', statement_md: 'x', solution_code: '', time_limit_ms: '5', memory_limit_mb: 'lots' });
  assert.equal(bad.status, 400);
  for (const m of [/Title is required/, /Reference solution is required/, /Time limit \(ms\) must be between 100 and 60000/, /Memory limit \(MB\) must be a whole number/]) assert.match(bad.text, m);
  assert.match(bad.text, /value="lots"/);
  const before = (await dbh.q('SELECT updated_at FROM problems WHERE id = ?', [p1]))[0].updated_at;
  await new Promise((r) => setTimeout(r, 5));
  const t = await postJson(instr, `/problems/${p1}/tests`, { input: '0 0', expected_output: '0', visibility: 'hidden', weight: '2' });
  const after = (await dbh.q('SELECT updated_at FROM problems WHERE id = ?', [p1]))[0].updated_at;
  assert.ok(after > before, 'the engine\'s test-case cache key moves');
  assert.equal((await postJson(instr, `/problems/${p1}/tests/${t.json.id}/delete`)).status, 200);
  const page = await instr.get(`/problems/${p1}`);
  assert.match(page.text, /1 visible, 1 hidden/);
  assert.match(page.text, /Add <strong>two<\/strong> numbers\./);
});

test('problem: the reference solution passes every test case through the engine', async () => {
  const r = await postJson(instr, `/problems/${p1}/check`, {});
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.verdict, 'accepted');
  assert.equal(r.json.passed, 2);
  assert.equal(r.json.cases.length, 2);
  assert.ok(r.json.cases.every((c) => c.passed));
});

test('event: questions with a per-section variant, schedule, publish twice', async () => {
  ev = (await postJson(instr, '/events', { title: `Exam ${TAG}`, type: 'exam', description: 'test' })).json.id;
  assert.equal((await postJson(instr, `/events/${ev}/publish`)).status, 409, 'nothing to publish yet');
  assert.equal((await postJson(instr, `/events/${ev}/questions`, { problem_id: String(p1), max_marks: '10' })).status, 200);
  assert.equal((await postJson(instr, `/events/${ev}/questions`, { problem_id: String(p2), max_marks: '5' })).status, 200);
  const v = await postJson(instr, `/events/${ev}/questions`, { problem_id: String(p3), position: '2', section_id: String(secB), max_marks: '5' });
  assert.equal(v.status, 200, v.text);
  const dup = await postForm(instr, `/events/${ev}/questions`, { problem_id: String(p3), position: '2', section_id: String(secB), max_marks: '5' });
  assert.equal(dup.status, 400);
  assert.match(dup.text, /already has a variant for this section/);
  const noPub = await postForm(instr, `/events/${ev}/publish`);
  assert.equal(noPub.status, 409);
  assert.match(noPub.text, /Schedule at least one section/);

  // section A from in an hour, for 30 minutes
  const start = new Date(Date.now() + 3600e3).toISOString().slice(0, 16);
  const s = await postJson(instr, `/events/${ev}/schedules`, { section_ids: [String(secA)], start, tz_offset: '0', duration: '30' });
  assert.equal(s.status, 200, s.text);
  const again = await postForm(instr, `/events/${ev}/schedules`, { section_ids: [String(secA)], start, tz_offset: '0', duration: '30' });
  assert.equal(again.status, 400);
  assert.match(again.text, /Already scheduled/);

  const pub = await postJson(instr, `/events/${ev}/publish`);
  assert.equal(pub.status, 200, pub.text);
  assert.equal(pub.json.created, 6, '3 students of section A x 2 questions');
  await consistent('publish');
  const pub2 = await postJson(instr, `/events/${ev}/publish`);
  assert.equal(pub2.json.created, 0);
  assert.equal(await count('SELECT COUNT(*) AS n FROM assignments WHERE event_id = ?', [ev]), 6);
  assert.equal(await count('SELECT COUNT(*) AS n FROM (SELECT user_id, question_id FROM assignments WHERE event_id = ? GROUP BY user_id, question_id HAVING COUNT(*) > 1) d', [ev]), 0);
  assert.equal(await count('SELECT COUNT(*) AS n FROM home_view WHERE event_id = ?', [ev]), 6);
  assert.equal(await count('SELECT COUNT(*) AS n FROM assignments a JOIN users u ON u.id = a.user_id WHERE a.event_id = ? AND u.section_id = ?', [ev, secB]), 0);
  await consistent('publish again');
});

test('extend: a student, then a section', async () => {
  const uid = await dbh.userId(name('a', 1));
  const before = (await dbh.q('SELECT stop_time FROM home_view WHERE event_id = ? AND user_id = ? LIMIT 1', [ev, uid]))[0].stop_time;
  const r = await postJson(instr, `/events/${ev}/extend-student`, { username: name('a', 1), minutes: '15' });
  assert.equal(r.status, 200, r.text);
  const after = (await dbh.q('SELECT stop_time FROM home_view WHERE event_id = ? AND user_id = ? LIMIT 1', [ev, uid]))[0].stop_time;
  assert.equal(after - before, 15 * 60000);
  await consistent('extend student');
  const bad = await postForm(instr, `/events/${ev}/extend-student`, { username: name('b', 1), minutes: '15' });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /has no assignment in this event/);
  assert.equal((await postJson(instr, `/events/${ev}/extend-section`, { section_id: String(secA), minutes: '20' })).status, 200);
  const after2 = (await dbh.q('SELECT stop_time FROM home_view WHERE event_id = ? AND user_id = ? LIMIT 1', [ev, uid]))[0].stop_time;
  assert.equal(after2 - before, 35 * 60000);
  await consistent('extend section');
});

test('unpublish before the start deletes the assignments; the views follow', async () => {
  const r = await postJson(instr, `/events/${ev}/unpublish`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.deleted, 6);
  assert.equal(await count('SELECT COUNT(*) AS n FROM assignments WHERE event_id = ?', [ev]), 0);
  assert.equal(await count('SELECT COUNT(*) AS n FROM home_view WHERE event_id = ?', [ev]), 0);
  assert.equal(await count('SELECT COUNT(*) AS n FROM codebook_view WHERE event_id = ?', [ev]), 0);
  assert.equal((await dbh.q('SELECT published_at FROM events WHERE id = ?', [ev]))[0].published_at, null);
  await consistent('unpublish');
});

let subAid;
test('both sections in one schedule from now; extending one splits the schedule; a submit', async () => {
  const sched = (await dbh.q('SELECT id FROM schedules WHERE event_id = ?', [ev]))[0].id;
  assert.equal((await postJson(instr, `/events/${ev}/schedules/${sched}/delete`)).status, 200);
  const s = await postJson(instr, `/events/${ev}/schedules`, { section_ids: [String(secA), String(secB)], start_now: '1', duration: '30' });
  assert.equal(s.status, 200, s.text);
  const pub = await postJson(instr, `/events/${ev}/publish`);
  assert.equal(pub.json.created, 12);
  // section B gets its own variant of question 2
  const q2 = await dbh.q(`SELECT u.section_id, a.problem_id FROM assignments a JOIN users u ON u.id = a.user_id JOIN event_questions q ON q.id = a.question_id
    WHERE a.event_id = ? AND q.position = 2 GROUP BY u.section_id, a.problem_id`, [ev]);
  assert.deepEqual(q2.map((x) => [x.section_id, x.problem_id]).sort(), [[secA, p2], [secB, p3]].sort());
  await consistent('publish with variants');

  const r = await postJson(instr, `/events/${ev}/extend-section`, { section_id: String(secA), minutes: '10' });
  assert.equal(r.status, 200);
  const sc = await dbh.q('SELECT sl.section_id, s.stop_time FROM slots sl JOIN schedules s ON s.id = sl.schedule_id WHERE sl.event_id = ? ORDER BY sl.section_id', [ev]);
  assert.equal(sc.length, 2);
  assert.equal(Math.round((sc.find((x) => x.section_id === secA).stop_time - sc.find((x) => x.section_id === secB).stop_time) / 60000), 10);
  await consistent('extend a section of a shared schedule');

  // the student of section B submits question 1
  const st = new Client();
  const login = await st.post('/accounts/login', { form: { username: name('b', 1), password: passwords[name('b', 1)] } });
  assert.equal(login.status, 302);
  const home = await st.get('/home');
  assert.match(home.text, new RegExp(`Exam ${TAG}`));
  st.csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(home.text)[1];
  subAid = await dbh.assignmentOf(name('b', 1), `Exam ${TAG}`, 1);
  const save = await st.post('/editor/save', { json: { assignment_id: subAid, branch_id: 0, trigger: 'submit', code: SUM }, csrf: true, headers: { accept: 'application/json' } });
  assert.equal(save.status, 200, save.text);
  assert.equal(await count('SELECT COUNT(*) AS n FROM submissions WHERE assignment_id = ?', [subAid]), 1);
  await consistent('submit');

  const un = await postForm(instr, `/events/${ev}/unpublish`);
  assert.equal(un.status, 409);
  assert.match(un.text, /already started/);
  assert.equal(await count('SELECT COUNT(*) AS n FROM assignments WHERE event_id = ?', [ev]), 12, 'nothing deleted');
});

test('live page data: sign-in (batched), saves, submissions', async () => {
  await new Promise((r) => setTimeout(r, 1600)); // the sign-in tracker writes once a second
  const live = await instr.getJson(`/live/${ev}/data`);
  assert.equal(live.status, 200);
  assert.equal(live.json.totals.students, 6);
  const b1 = live.json.students.find((s) => s.username === name('b', 1));
  assert.equal(b1.submitted, 1);
  assert.equal(b1.saved, 1);
  assert.ok(b1.last_login_at, 'last_login_at written by the batched tracker');
  assert.ok(b1.logged_in);
  assert.ok(live.json.totals.logged_in >= 1);
  const page = await instr.get(`/live/${ev}`);
  assert.match(page.text, new RegExp(`data-live-url="/live/${ev}/data"`));
});

test('grading: distribute to a TA, marks and feedback, regrade, results CSV', async () => {
  const d = await postJson(instr, `/grading/events/${ev}/distribute`, { ta_ids: [String(ta)] });
  assert.equal(d.status, 200, d.text);
  assert.equal(d.json.assigned, 1, 'one submission so far');
  const tac = new Client();
  assert.equal((await tac.post('/accounts/login', { form: { username: name('t', 1), password: passwords[name('t', 1)] } })).status, 302);
  tac.csrf = /<meta name="csrf-token" content="([^"]+)">/.exec((await tac.get('/grading')).text)[1];
  const q = await tac.get('/grading');
  assert.match(q.text, new RegExp(`href="/grading/a/${subAid}"`));
  const bad = await postForm(tac, `/grading/a/${subAid}`, { marks: '11', feedback: 'too many' });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /Marks must be between 0 and 10/);
  assert.match(bad.text, /too many<\/textarea>/);
  assert.equal((await postJson(tac, `/grading/a/${subAid}`, { marks: '7.5', feedback: 'Good; handle errors.' })).status, 200);
  await consistent('grade');
  const cv = (await dbh.q('SELECT marks, feedback FROM codebook_view WHERE assignment_id = ?', [subAid]))[0];
  assert.equal(Number(cv.marks), 7.5);
  assert.equal(cv.feedback, 'Good; handle errors.');

  const st = new Client();
  await st.post('/accounts/login', { form: { username: name('b', 1), password: passwords[name('b', 1)] } });
  // marks stay hidden from students until the instructor releases them
  const hidden = await st.get('/grading/mine');
  assert.doesNotMatch(hidden.text, /Marks 7\.5/);
  assert.doesNotMatch(hidden.text, /Good; handle errors\./);
  assert.match(hidden.text, /marks not released yet/);
  st.csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(hidden.text)[1];
  assert.equal((await postForm(st, `/grading/mine/${subAid}/regrade`, { reason: 'Not released yet, asking anyway.' })).status, 409);
  assert.equal((await postJson(instr, `/events/${ev}/release`, {})).status, 200);
  const mine = await st.get('/grading/mine');
  assert.match(mine.text, /Marks 7\.5 \/ 10/);
  assert.match(mine.text, /Good; handle errors\./);
  const short = await postForm(st, `/grading/mine/${subAid}/regrade`, { reason: 'why' });
  assert.equal(short.status, 400);
  assert.equal((await postForm(st, `/grading/mine/${subAid}/regrade`, { reason: 'The hidden test passes on my machine.' })).status, 303);
  const twice = await postForm(st, `/grading/mine/${subAid}/regrade`, { reason: 'The hidden test passes on my machine.' });
  assert.equal(twice.status, 409);
  const other = await dbh.assignmentOf(name('b', 2), `Exam ${TAG}`, 1);
  assert.equal((await postForm(st, `/grading/mine/${other}/regrade`, { reason: 'not mine but let me try' })).status, 404);

  const rid = (await dbh.q('SELECT id FROM regrade_requests WHERE assignment_id = ?', [subAid]))[0].id;
  const list = await instr.get('/grading/regrades');
  assert.match(list.text, new RegExp(`id="rg-${rid}"`));
  assert.equal((await postJson(instr, `/grading/regrades/${rid}`, { decision: 'accepted', marks: '9', response: 'Right, fixed.' })).status, 200);
  await consistent('regrade');
  assert.match((await st.get('/grading/mine')).text, /Marks 9 \/ 10[\s\S]*accepted[\s\S]*Right, fixed\./);

  // the automatic grader evaluates the submitted code (correct: full marks)
  for (let i = 0; i < 240 && !(await count('SELECT COUNT(*) AS n FROM assignments WHERE id = ? AND graded_at IS NOT NULL', [subAid])); i++) {
    await new Promise((r) => setTimeout(r, 250));
  }
  const csvRes = await instr.get(`/events/${ev}/results.csv`);
  assert.equal(csvRes.status, 200);
  assert.match(csvRes.headers.get('content-type'), /text\/csv/);
  const lines = csvRes.text.replace(/^\uFEFF/, '').trim().split('\r\n');
  assert.match(lines[0], /^username,name,section,q1_submitted_at,q1_auto_score,q1_marks,q1_max_marks,q1_feedback,q1_auto_submitted,q1_late_versions,q2_/);
  assert.match(lines[0], /,total_marks,total_auto_score,extra_minutes,end_time$/);
  assert.equal(lines.length, 7);
  const row = lines.find((l) => l.startsWith(`${name('b', 1)},`));
  assert.match(row, /,9,10,Good; handle errors\.,0,0,/, 'submitted by the student (not automatically), no late versions');
  assert.match(row, /,9,10,0,\d{4}-\d\d-\d\dT[^,]+Z$/, 'total marks 9, auto score 10 (of the submitted code), no extra minutes, the end time');
});

test('turning a finished event into practice reveals its hidden tests', async () => {
  const past = (await postJson(instr, '/events', { title: `Old lab ${TAG}`, type: 'lab', description: '' })).json.id;
  const p = (await postJson(instr, '/problems', { title: `Old ${TAG}`, statement_md: 'x', solution_code: SUM, time_limit_ms: '1000', memory_limit_mb: '64' })).json.id;
  await postJson(instr, `/problems/${p}/tests`, { input: '1 1', expected_output: '2', visibility: 'hidden', weight: '1' });
  await postJson(instr, `/events/${past}/questions`, { problem_id: String(p), max_marks: '10' });
  const start = new Date(Date.now() - 3600e3).toISOString().slice(0, 16);
  await postJson(instr, `/events/${past}/schedules`, { section_ids: [String(secA)], start, tz_offset: '0', duration: '30' });
  const early = await postJson(instr, `/events/${ev}/practice`);
  assert.equal(early.status, 409, 'the running exam is not finished');
  const r = await postJson(instr, `/events/${past}/practice`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.revealed, 1);
  const row = (await dbh.q('SELECT is_practice, (SELECT COUNT(*) FROM test_cases WHERE problem_id = ? AND visibility = \'hidden\') AS hidden FROM problems WHERE id = ?', [p, p]))[0];
  assert.deepEqual({ ...row }, { is_practice: 1, hidden: 0 });
});
