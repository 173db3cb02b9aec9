'use strict';
// Playback (issue 16) through HAProxy: a 3-hour exam with an autosave every 12 s
// (900 versions, 90 compiles, 45 runs, 22 evaluations) comes back in bounded pages
// without code text, every item exactly once and in time order; diffs of any two
// versions; roles and bad input.
const test = require('node:test');
const assert = require('node:assert/strict');
const { as, TAG } = require('../helpers/staff');
const { Client } = require('../helpers/http');
const dbh = require('../helpers/db');
const { seedExam, seedTimeline, dropExam } = require('../helpers/tools');

let exam;
let seeded;
let staff;

test.before(async () => {
  exam = await seedExam({ tag: `pb${TAG}`, students: 2, startMin: -200, stopMin: 10 });
  seeded = await seedTimeline({ assignmentId: exam.users[0].assignmentId, problemId: exam.problemId, minutes: 180, everyS: 12 });
  staff = await as('instructor');
});
test.after(async () => { await dropExam(exam); await dbh.close(); });

test('a 3-hour timeline comes in bounded pages, each item once, in time order', async () => {
  const aid = exam.users[0].assignmentId;
  const first = await staff.getJson(`/tools/playback/${aid}/timeline`);
  assert.equal(first.status, 200, first.text.slice(0, 200));
  assert.equal(first.json.items.length, 300);
  assert.ok(first.json.next);
  assert.ok(first.text.length < 120000, `first page is ${first.text.length} bytes`);
  assert.ok(first.json.items.every((x) => x.code === undefined), 'no code text in the timeline');

  const all = [...first.json.items];
  let next = first.json.next;
  let pages = 1;
  while (next) {
    const r = await staff.getJson(`/tools/playback/${aid}/timeline?after=${encodeURIComponent(next)}`);
    assert.equal(r.status, 200);
    all.push(...r.json.items);
    next = r.json.next;
    pages += 1;
    assert.ok(pages < 20, 'the pages end');
  }
  const byKind = (k) => all.filter((x) => x.kind === k).length;
  assert.deepEqual({ save: byKind('save'), compile: byKind('compile'), run: byKind('run'), evaluate: byKind('evaluate') }, seeded.counts);
  assert.equal(new Set(all.map((x) => `${x.kind}${x.id}`)).size, all.length, 'no item twice');
  for (let i = 1; i < all.length; i++) assert.ok(all[i - 1].t <= all[i].t, `time order at ${i}`);
  // a compile follows the version it compiled, and failed ones carry gcc's message
  const failed = all.find((x) => x.kind === 'compile' && !x.ok);
  assert.match(failed.messages, /error: expected ';'/);
  const idx = all.indexOf(failed);
  assert.ok(all.slice(0, idx).some((x) => x.kind === 'save' && x.code_id === failed.code_id));
  const ev = all.find((x) => x.kind === 'evaluate');
  assert.deepEqual([ev.passed, ev.total], [0, 1]);
});

test('the diff of any two versions, and one version\'s code', async () => {
  const aid = exam.users[0].assignmentId;
  const [v1, v2, v500] = [seeded.codeIds[0], seeded.codeIds[1], seeded.codeIds[499]];
  const d = await staff.getJson(`/tools/playback/${aid}/diff?from=${v1}&to=${v2}`);
  assert.equal(d.status, 200);
  assert.deepEqual([d.json.added, d.json.removed], [1, 0]);
  assert.deepEqual(d.json.lines.find((l) => l.op === '+'), { op: '+', text: '    int v1 = 1; (void) v1;' });
  const far = await staff.getJson(`/tools/playback/${aid}/diff?from=${v500}&to=${v1}`);
  assert.deepEqual([far.json.added, far.json.removed], [0, 499]);
  const c = await staff.getJson(`/tools/playback/${aid}/code/${v2}`);
  assert.match(c.json.code, /int v1 = 1/);
});

test('versions of another assignment, bad positions and other roles are refused', async () => {
  const aid = exam.users[0].assignmentId;
  const other = exam.users[1].assignmentId;
  assert.equal((await staff.getJson(`/tools/playback/${other}/code/${seeded.codeIds[0]}`)).status, 404);
  assert.equal((await staff.getJson(`/tools/playback/${other}/diff?from=${seeded.codeIds[0]}&to=${seeded.codeIds[1]}`)).status, 404);
  assert.equal((await staff.getJson(`/tools/playback/${aid}/timeline?after=yesterday`)).status, 400);
  assert.equal((await staff.getJson(`/tools/playback/${aid}/diff?from=1`)).status, 400);
  assert.equal((await staff.getJson('/tools/playback/999999999/timeline')).status, 404);
  assert.equal((await staff.get('/tools/playback/999999999')).status, 404);
  const ta = await as('ta');
  assert.equal((await ta.getJson(`/tools/playback/${aid}/timeline?limit=5`)).json.items.length, 5);
  const student = await as(exam.users[0].username);
  assert.equal((await student.getJson(`/tools/playback/${aid}/timeline`)).status, 403);
  assert.equal((await new Client().get(`/tools/playback/${aid}`)).status, 302);
});

test('attack: ids in sequence open only what the staff member may grade; scratchpad, practice and staff\'s own files are 404', async () => {
  const hash = (await dbh.q("SELECT password_hash FROM users WHERE username = 'student01'"))[0].password_hash;
  const people = [];
  const person = async (role) => {
    const r = await dbh.q('INSERT INTO users (username, password_hash, name, role) VALUES (?, ?, ?, ?)', [`pb${role}${people.length}${TAG}`, hash, `Playback ${role}`, role]);
    people.push({ id: r.insertId, username: `pb${role}${people.length}${TAG}` });
    return people[people.length - 1];
  };
  const own = [];
  const file = async (kind, userId, problemId = null) => {
    const a = await dbh.q('INSERT INTO assignments (kind, user_id, problem_id, title) VALUES (?, ?, ?, ?)', [kind, userId, problemId, `${kind} file`]);
    own.push(a.insertId);
    const c = await dbh.q("INSERT INTO code (assignment_id, save_trigger, code) VALUES (?, 'manual', ?)", [a.insertId, `/* ${kind}: secret */`]);
    return { aid: a.insertId, cid: c.insertId };
  };
  try {
    const [ta, otherTa, admin] = [await person('ta'), await person('ta'), await person('admin')];
    const student = exam.users[1];
    const closed = [await file('scratch', student.id), await file('practice', student.id, exam.problemId), await file('scratch', admin.id)];
    const taClient = await as(ta.username);
    for (const { aid, cid } of closed) {
      for (const url of [`/tools/playback/${aid}`, `/tools/playback/${aid}/timeline`, `/tools/playback/${aid}/code/${cid}`, `/tools/playback/${aid}/diff?from=${cid}&to=${cid}`]) {
        const r = await taClient.getJson(url);
        assert.equal(r.status, 404, `${url}: ${r.status}`);
        assert.doesNotMatch(r.text, /secret/);
      }
      assert.equal((await staff.getJson(`/tools/playback/${aid}/code/${cid}`)).status, 404, 'nor for an instructor');
      assert.equal((await staff.getJson(`/grading/a/${aid}`)).status, 404, 'the same ids /grading refuses');
    }
    // an exam submission: in nobody's queue or the TA's own, yes; in another TA's, no
    const aid = exam.users[1].assignmentId;
    assert.equal((await taClient.getJson(`/tools/playback/${aid}/timeline`)).status, 200);
    await dbh.q('INSERT INTO grading_tasks (assignment_id, ta_id) VALUES (?, ?)', [aid, otherTa.id]);
    assert.equal((await taClient.getJson(`/tools/playback/${aid}/timeline`)).status, 404);
    await dbh.q('UPDATE grading_tasks SET ta_id = ? WHERE assignment_id = ?', [ta.id, aid]);
    assert.equal((await taClient.getJson(`/tools/playback/${aid}/timeline`)).status, 200);
  } finally {
    if (own.length) await dbh.q(`DELETE FROM assignments WHERE id IN (${own.map(() => '?').join(',')})`, own);
    await dbh.q('DELETE FROM grading_tasks WHERE assignment_id = ?', [exam.users[1].assignmentId]);
    if (people.length) await dbh.q(`DELETE FROM users WHERE id IN (${people.map(() => '?').join(',')})`, people.map((p) => p.id));
  }
});
