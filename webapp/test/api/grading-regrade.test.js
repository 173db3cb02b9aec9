'use strict';
// Issue 29: partial credit from a checker summed with the test weights into a
// question's mark and the event's total, and regrading a whole event after its
// checker and weights changed: old and new marks shown first, nothing moves until an
// instructor applies them. Real engine, real grader, real database.
const test = require('node:test');
const assert = require('node:assert/strict');
const dbh = require('../helpers/db');
const { as, postJson, postForm } = require('../helpers/staff');
const { BUGGY, FIXED, makeSection, makeProblem, makeExam, assignment, until } = require('../helpers/exam');

// Kattis convention: the sum is right; the difference (the buggy program) earns half
const CHECKER = 'import sys\na, b = map(int, open(sys.argv[1]).read().split())\nout = sys.stdin.read().split()\n'
  + 'v = int(out[0]) if len(out) == 1 and out[0].lstrip("-").isdigit() else None\n'
  + 'if v == a + b: sys.exit(42)\n'
  + 'if v == a - b:\n    open(sys.argv[3] + "/score.txt", "w").write("0.5")\n    open(sys.argv[3] + "/judgemessage.txt", "w").write("that is a - b")\n'
  + 'sys.exit(43)\n';

let instr; let ex; let problemId; let users;
test.before(async () => {
  instr = await as('instructor');
  const sec = await makeSection(2);
  users = sec.users;
  problemId = await makeProblem();
  ex = await makeExam({ title: 'Regrade', sectionId: sec.sectionId, problemId, startSec: -300, stopSec: -60 });
  // each student's code, stored before the deadline: the grader grades it at its sweep
  for (const [u, code] of [[users[0], BUGGY], [users[1], FIXED]]) {
    const aid = await assignment(ex.eventId, u);
    await dbh.q("INSERT INTO code (assignment_id, save_trigger, code, save_time) VALUES (?, 'manual', ?, UTC_TIMESTAMP(3) - INTERVAL 120 SECOND)", [aid, code]);
  }
});
// the exam's rows stay, tagged, as the other exam tests leave theirs
test.after(() => dbh.close());

const scores = async () => (await dbh.q(`SELECT u.username, a.score FROM assignments a JOIN users u ON u.id = a.user_id
  WHERE a.event_id = ? ORDER BY u.username`, [ex.eventId])).map((r) => (r.score === null ? null : Number(r.score)));

test('a checker\'s partial credit and the weights make the marks; a regrade shows old and new before it applies them', async () => {
  // the grader's marks with the problem as it was: 2 of 4 equal cases, and all
  const old = await until(async () => { const s = await scores(); return s.every((x) => x !== null) && s; }, { timeoutMs: 90000, what: 'the grader' });
  assert.deepEqual(old, [5, 10]);

  // the instructor changes the comparison to a checker with partial credit, and a weight
  await dbh.q(`UPDATE problems SET compare_mode = 'checker', checker_env = 'python3', checker_interface = 'kattis', checker_code = ?,
    updated_at = CURRENT_TIMESTAMP(3) WHERE id = ?`, [CHECKER, problemId]);
  await dbh.q('UPDATE test_cases SET weight = 3 WHERE problem_id = ? AND position = 2', [problemId]);

  const ta = await as('ta');
  assert.equal((await postJson(ta, `/grading/events/${ex.eventId}/regrade`, {})).status, 403, 'a TA cannot regrade');

  const r = await postJson(instr, `/grading/events/${ex.eventId}/regrade`, {});
  assert.equal(r.status, 201, r.text);
  // weights 1, 3, 1, 1: the buggy program earns half of cases 1 and 4 and all of 2 and 3: 5 of 6
  const byUser = Object.fromEntries(r.json.rows.map((x) => [x.username, [Number(x.old_score), Number(x.new_score)]]));
  assert.deepEqual(byUser, { [users[0]]: [5, 8.33], [users[1]]: [10, 10] });
  assert.equal(r.json.changed, 1);
  assert.deepEqual(r.json.questions.map((q) => [q.old, q.new, q.max]), [[15, 18.33, 20]]);
  assert.deepEqual(r.json.students.map((s) => [s.key, s.old, s.new]), [[users[0], 5, 8.33], [users[1], 10, 10]]);

  // shown, not applied
  assert.deepEqual(await scores(), [5, 10]);
  const page = await instr.get(`/grading/events/${ex.eventId}/regrade/${r.json.run_id}`);
  assert.equal(page.status, 200);
  assert.match(page.text, /id="regrade-apply"/);
  assert.match(page.text, /Nothing has changed yet/);

  const applied = await postJson(instr, `/grading/events/${ex.eventId}/regrade/${r.json.run_id}/apply`, {});
  assert.equal(applied.status, 200, applied.text);
  assert.deepEqual({ ...applied.json }, { ok: true, applied: 2, skipped: 0 });
  assert.deepEqual(await scores(), [5 + 3.33, 10]);
  const ag = await dbh.q('SELECT cases FROM auto_grades WHERE assignment_id = ?', [await assignment(ex.eventId, users[0])]);
  assert.deepEqual(JSON.parse(ag[0].cases).map((c) => c.credit), [0.5, 1, 1, 0.5]);

  // once only
  assert.equal((await postJson(instr, `/grading/events/${ex.eventId}/regrade/${r.json.run_id}/apply`, {})).status, 409);
  const again = await postForm(instr, `/grading/events/${ex.eventId}/regrade/${r.json.run_id}/apply`);
  assert.equal(again.status, 409);
});

test('a regrade of an unknown event is a 404 with a sentence', async () => {
  const r = await postJson(instr, '/grading/events/999999999/regrade', {});
  assert.equal(r.status, 404);
  assert.match(r.json.error, /No such/);
});
