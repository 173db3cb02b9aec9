'use strict';
// The one rule of what is graded (rdb view graded_code, CONTRACTS.md), on stored
// versions with chosen times: the last submission before the deadline, else the
// last version before it; basis last_save: the last version before the deadline;
// versions at or after the deadline are late and never graded. And: an event
// assignment's score moves only with graded_at (a student's Evaluate cannot set it).
const test = require('node:test');
const assert = require('node:assert/strict');
const dbh = require('../helpers/db');
const ex = require('../helpers/exam');
const { as, postJson } = require('../helpers/staff');

test('graded_code: submission, deadline save, late versions, per-event basis', async (t) => {
  t.after(() => dbh.close());
  const { sectionId, users } = await ex.makeSection(1);
  const problemId = await ex.makeProblem();
  const exam = await ex.makeExam({ title: 'Rule', sectionId, problemId, startSec: -3600, stopSec: -60 });
  const aid = await ex.assignment(exam.eventId, users[0]);
  const graded = async () => (await dbh.q('SELECT code_id, source, late_versions FROM graded_code WHERE assignment_id = ?', [aid]))[0];
  const put = async (trigger, secondsAgo) => (await dbh.q(
    'INSERT INTO code (assignment_id, save_trigger, code, save_time) VALUES (?, ?, ?, UTC_TIMESTAMP(3) - INTERVAL ? SECOND)',
    [aid, trigger, `// ${trigger} ${secondsAgo}`, secondsAgo])).insertId;

  assert.deepEqual({ ...(await graded()) }, { code_id: null, source: 'nothing', late_versions: 0 });
  const saved = await put('manual', 600);
  let g = await graded();
  assert.equal(Number(g.code_id), saved);
  assert.equal(g.source, 'deadline');
  const submitted = await put('submit', 300);
  const after = await put('compile', 200); // before the deadline, after the submission
  await put('manual', 10); // late: after the deadline (60 s ago)
  g = await graded();
  assert.equal(Number(g.code_id), submitted, 'the last submission');
  assert.equal(g.source, 'submission');
  assert.equal(Number(g.late_versions), 1);
  await dbh.q("UPDATE events SET graded_basis = 'last_save' WHERE id = ?", [exam.eventId]);
  g = await graded();
  assert.equal(Number(g.code_id), after, 'the last version before the deadline');
  assert.equal(g.source, 'deadline');
  // extra time moves the deadline: the late version now counts
  await dbh.q('UPDATE assignments SET extra_minutes = 5 WHERE id = ?', [aid]);
  g = await graded();
  assert.equal(Number(g.late_versions), 0);
  assert.match((await dbh.q('SELECT code FROM code WHERE id = ?', [g.code_id]))[0].code, /manual 10/);

  // the score of an event assignment moves only with graded_at (the grader's write)
  const before = (await dbh.q('SELECT score FROM assignments WHERE id = ?', [aid]))[0].score; // the grader may have been here
  await dbh.q('UPDATE assignments SET score = 3 WHERE id = ?', [aid]);
  assert.equal((await dbh.q('SELECT score FROM assignments WHERE id = ?', [aid]))[0].score, before);
  await dbh.q('UPDATE assignments SET score = 7, graded_at = UTC_TIMESTAMP(3) WHERE id = ?', [aid]);
  assert.equal(Number((await dbh.q('SELECT score FROM assignments WHERE id = ?', [aid]))[0].score), 7);
});

test('a save arriving just after the deadline is stored as late work, never graded; a late submit is refused', async (t) => {
  t.after(() => dbh.close());
  const { sectionId, users } = await ex.makeSection(1);
  const problemId = await ex.makeProblem();
  const exam = await ex.makeExam({ title: 'Late', sectionId, problemId, startSec: -3600, stopSec: -30 });
  const aid = await ex.assignment(exam.eventId, users[0]);
  const st = await as(users[0]);
  const late = await postJson(st, '/editor/save', { assignment_id: aid, trigger: 'auto', code: '// the last autosave, 30 s late' });
  assert.equal(late.status, 200, late.text);
  const sub = await postJson(st, '/editor/save', { assignment_id: aid, trigger: 'submit', code: '// a late submit' });
  assert.equal(sub.status, 409);
  assert.equal(sub.json.code, 'event_closed');
  const g = (await dbh.q('SELECT code_id, late_versions FROM graded_code WHERE assignment_id = ?', [aid]))[0];
  assert.equal(g.code_id, null, 'nothing before the deadline: nothing graded');
  assert.equal(Number(g.late_versions), 1);
  const instr = await as('instructor');
  const page = await instr.get(`/grading/a/${aid}`);
  assert.match(page.text, /id="late-work"[\s\S]*the last autosave, 30 s late/);
});

test('an untouched template stored by Evaluate is graded but never submitted in the student\'s name', { timeout: 120000 }, async (t) => {
  t.after(() => dbh.close());
  const { sectionId, users } = await ex.makeSection(2);
  const problemId = await ex.makeProblem();
  const exam = await ex.makeExam({ title: 'Untouched', sectionId, problemId, startSec: -600, stopSec: 4 });
  const [untouched, worked] = await Promise.all(users.map((u) => ex.assignment(exam.eventId, u)));
  // what an Evaluate on a never-edited question stores (the template, CRLF and all), and real work
  await dbh.q("INSERT INTO code (assignment_id, save_trigger, code) VALUES (?, 'evaluate', ?)", [untouched, ex.TEMPLATE.replace(/\n/g, '\r\n')]);
  await dbh.q("INSERT INTO code (assignment_id, save_trigger, code) VALUES (?, 'manual', ?)", [worked, ex.BUGGY]);
  // the grader sweeps the schedule at its stop and finalises both
  await ex.until(async () => (await dbh.q('SELECT COUNT(*) AS n FROM auto_grades WHERE assignment_id IN (?, ?) AND final = 1', [untouched, worked]))[0].n === 2,
    { timeoutMs: 90000, what: 'both graded at the deadline' });
  const subs = await dbh.q('SELECT assignment_id, automatic FROM submissions WHERE assignment_id IN (?, ?)', [untouched, worked]);
  assert.deepEqual(subs.map((s) => [s.assignment_id, s.automatic]), [[worked, 1]], 'only the real work is submitted automatically');
  assert.equal(Number((await dbh.q('SELECT score FROM assignments WHERE id = ?', [untouched]))[0].score), 0);
});
