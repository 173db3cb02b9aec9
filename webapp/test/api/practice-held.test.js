'use strict';
// A practice problem that is also a question of an exam not over is held back: a student
// must not read tomorrow's exam question on the practice page, open it in the editor, or
// run it against its tests through the engine. Once the exam is over it is practice again.
const test = require('node:test');
const assert = require('node:assert/strict');
const dbh = require('../helpers/db');
const { Client } = require('../helpers/http');
const { makeSection, makeProblem, makeExam } = require('../helpers/exam');

const practiceJson = { headers: { accept: 'application/json' }, csrf: true };

test.after(() => dbh.close());

test('a practice problem used by an exam not over is held back until the exam ends', async () => {
  const { sectionId, users: [student] } = await makeSection(1);
  const problemId = await makeProblem();
  await dbh.q('UPDATE problems SET is_practice = 1 WHERE id = ?', [problemId]);
  const title = (await dbh.q('SELECT title FROM problems WHERE id = ?', [problemId]))[0].title;
  const c = new Client();
  await c.login(student);

  // before anything uses it: listed and opens, an attempt is made
  let page = await c.get('/practice');
  assert.ok(page.text.includes(title), 'listed while no exam uses it');
  const first = await c.post(`/practice/${problemId}/open`, practiceJson);
  assert.equal(first.status, 200);
  const attemptId = first.json.assignment_id;

  // an exam of another section uses it tomorrow: held everywhere for this student too
  const other = await makeSection(1);
  const { eventId } = await makeExam({ title: 'Held', sectionId: other.sectionId, problemId, startSec: 86400, stopSec: 90000 });
  page = await c.get('/practice');
  assert.equal(page.status, 200);
  assert.ok(!page.text.includes(title), 'not listed while the exam is to come');
  const opened = await c.post(`/practice/${problemId}/open`, practiceJson);
  assert.equal(opened.status, 404);
  assert.match(opened.json.error, /exam not over/);
  const editor = await c.get(`/editor/${attemptId}`);
  assert.equal(editor.status, 404, 'the earlier attempt does not show the statement either');
  assert.ok(!editor.text.includes('sum'), 'no statement in the refusal');
  const run = await c.post('/compile', { json: { assignment_id: attemptId, code: '#include <stdio.h>\nint main(void){return 0;}\n' }, csrf: true });
  assert.equal(run.status, 404, `the engine refuses its runs too (${run.status} ${run.text.slice(0, 120)})`);

  // the exam is over (for every student of it): practice again
  await dbh.q(`UPDATE schedules SET start_time = UTC_TIMESTAMP(3) - INTERVAL 2 HOUR,
                 stop_time = UTC_TIMESTAMP(3) - INTERVAL 1 HOUR WHERE event_id = ?`, [eventId]);
  page = await c.get('/practice');
  assert.ok(page.text.includes(title), 'listed again after the exam');
  const again = await c.post(`/practice/${problemId}/open`, practiceJson);
  assert.equal(again.status, 200);
  assert.equal(again.json.assignment_id, attemptId, 'the same attempt, nothing lost');
  assert.equal((await c.get(`/editor/${attemptId}`)).status, 200);
  assert.ok(sectionId);
});
