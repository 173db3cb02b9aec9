'use strict';
// The exam clock starts at publication: a schedule already running when its event
// is first published starts then and keeps its duration; one that has ended stays.
const test = require('node:test');
const assert = require('node:assert/strict');
const dbh = require('../helpers/db');
const ex = require('../helpers/exam');
const { as, postJson } = require('../helpers/staff');

test('publishing late does not eat the students\' time', async (t) => {
  t.after(() => dbh.close());
  const { sectionId } = await ex.makeSection(1);
  const problemId = await ex.makeProblem();
  const ev = await dbh.q("INSERT INTO events (title, type, description) VALUES (?, 'exam', '')", [`Late publish ${ex.TAG}`]);
  await dbh.q('INSERT INTO event_questions (event_id, position, problem_id, max_marks) VALUES (?, 1, ?, 10)', [ev.insertId, problemId]);
  const running = await dbh.q(`INSERT INTO schedules (event_id, start_time, stop_time)
    VALUES (?, UTC_TIMESTAMP(3) - INTERVAL 10 MINUTE, UTC_TIMESTAMP(3) + INTERVAL 50 MINUTE)`, [ev.insertId]);
  await dbh.q('INSERT INTO slots (schedule_id, event_id, section_id) VALUES (?, ?, ?)', [running.insertId, ev.insertId, sectionId]);
  const instr = await as('instructor');
  assert.equal((await postJson(instr, `/events/${ev.insertId}/publish`, {})).status, 200);
  const [s] = await dbh.q(`SELECT TIMESTAMPDIFF(SECOND, start_time, stop_time) AS len, TIMESTAMPDIFF(SECOND, start_time, UTC_TIMESTAMP(3)) AS since
    FROM schedules WHERE id = ?`, [running.insertId]);
  assert.equal(Number(s.len), 3600, 'the full hour');
  assert.ok(Number(s.since) >= 0 && Number(s.since) < 30, `starts at publication (${s.since} s ago)`);
  // publishing again moves nothing
  assert.equal((await postJson(instr, `/events/${ev.insertId}/publish`, {})).status, 200);
  const [again] = await dbh.q('SELECT TIMESTAMPDIFF(SECOND, start_time, UTC_TIMESTAMP(3)) AS since FROM schedules WHERE id = ?', [running.insertId]);
  assert.ok(Number(again.since) >= Number(s.since));
});
