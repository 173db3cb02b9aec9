'use strict';
// Notices that arrive (issue 30), through HAProxy: an announcement to the event
// stays on each student's feed until they acknowledge it; the staff page lists who
// has not; one to one student reaches that student only; a student acknowledges
// only for themselves and only what was sent to them; a student who was away gets
// what they missed; every notice is in the event's log.
const test = require('node:test');
const assert = require('node:assert/strict');
const dbh = require('../helpers/db');
const ex = require('../helpers/exam');
const { as, postJson } = require('../helpers/staff');

const feedOf = async (c, eventId) => {
  const r = await c.getJson('/announcements/feed');
  assert.equal(r.status, 200);
  const ev = r.json.events.find((e) => e.id === eventId);
  return ev ? ev.announcements : [];
};

test('announcements are acknowledged per student; staff see who has not', { timeout: 120000 }, async (t) => {
  t.after(() => dbh.close());
  const { sectionId, users } = await ex.makeSection(4);
  const problemId = await ex.makeProblem();
  const exam = await ex.makeExam({ title: 'Notices', sectionId, problemId, startSec: -60, stopSec: 1800 });
  const instr = await as('instructor');
  const [c1, c2, c3] = [await as(users[0]), await as(users[1]), await as(users[2])];

  // a student cannot announce
  assert.equal((await postJson(c1, `/tools/events/${exam.eventId}/announcements`, { message: 'fake' })).status, 403);
  const bad = await postJson(instr, `/tools/events/${exam.eventId}/announcements`, { message: 'x', scope: 'student', username: 'student01' });
  assert.equal(bad.status, 400);
  assert.match(bad.json.error, /not a student of this event/);

  const message = `Q2: the input ends with a newline (${ex.TAG})`;
  const sent = await postJson(instr, `/tools/events/${exam.eventId}/announcements`, { message });
  assert.equal(sent.status, 200, sent.text);
  const id = sent.json.id;
  const mine = await ex.until(async () => (await feedOf(c1, exam.eventId)).find((a) => a.id === id), { timeoutMs: 10000, what: 'the announcement in the feed' });
  assert.equal(mine.acked, false);
  assert.equal(mine.message, message);

  // two of four acknowledge; a student's ack is their own, whatever the body says
  const u4id = (await dbh.q('SELECT id FROM users WHERE username = ?', [users[3]]))[0].id;
  assert.equal((await postJson(c1, '/announcements/ack', { id, user_id: u4id })).status, 200);
  assert.equal((await postJson(c2, '/announcements/ack', { id })).status, 200);
  assert.equal((await postJson(c2, '/announcements/ack', { id })).status, 200, 'twice is harmless');
  assert.equal((await postJson(c1, '/announcements/ack', { id: 'abc' })).status, 400);
  await ex.until(async () => (await feedOf(c1, exam.eventId)).find((a) => a.id === id).acked, { timeoutMs: 10000, what: 'the ack in the feed' });

  const page = await instr.get(`/tools/events/${exam.eventId}`);
  assert.equal(page.status, 200);
  const li = new RegExp(`data-announcement="${id}"[\\s\\S]*?</li>`).exec(page.text)[0];
  assert.match(li, /2 read · 2 not yet/);
  assert.match(li, new RegExp(`Not yet: ${users[2]}, ${users[3]}`));
  assert.doesNotMatch(li, new RegExp(`${users[0]}|${users[1]}`));

  // to one student: only they get it, only they can acknowledge it
  const private1 = await postJson(instr, `/tools/events/${exam.eventId}/announcements`, { message: 'Come to the front desk.', scope: 'student', username: users[2] });
  assert.equal(private1.status, 200, private1.text);
  await ex.until(async () => (await feedOf(c3, exam.eventId)).some((a) => a.id === private1.json.id), { timeoutMs: 10000, what: 'the private notice' });
  assert.equal((await feedOf(c1, exam.eventId)).some((a) => a.id === private1.json.id), false);
  assert.equal((await postJson(c1, '/announcements/ack', { id: private1.json.id })).status, 404);
  const page2 = await instr.get(`/tools/events/${exam.eventId}`);
  const li2 = new RegExp(`data-announcement="${private1.json.id}"[\\s\\S]*?</li>`).exec(page2.text)[0];
  assert.match(li2, /0 read · 1 not yet/);
  assert.match(li2, /to student/);

  // the fourth student was away the whole time: on their first poll, both event notices they missed
  const c4 = await as(users[3]);
  const missed = await feedOf(c4, exam.eventId);
  assert.deepEqual(missed.map((a) => [a.id, a.acked]), [[id, false]]);

  // a question answered to everyone: every student gets it as a notice, without who asked
  await postJson(instr, `/tools/events/${exam.eventId}/announcements/questions`, { enabled: '1' });
  const asked = await ex.until(async () => {
    const r = await postJson(c3, '/announcements/questions', { event_id: exam.eventId, question: 'May we use math.h?' });
    return r.status === 201 ? r : null;
  }, { timeoutMs: 10000, what: 'questions allowed in every worker' });
  const ans = await postJson(instr, `/tools/events/${exam.eventId}/announcements/questions/${asked.json.id}/answer`, { answer: 'Yes, link with -lm.', to_all: '1' });
  assert.equal(ans.status, 200, ans.text);
  const shared = await ex.until(async () => (await feedOf(c1, exam.eventId)).find((a) => /math\.h/.test(a.message)), { timeoutMs: 10000, what: 'the shared answer' });
  assert.match(shared.message, /Yes, link with -lm\./);
  assert.doesNotMatch(shared.message, new RegExp(users[2]));

  // the event's log has both notices
  const log = await instr.get(`/events/${exam.eventId}/timing-log.csv`);
  assert.match(log.text, /,notice,whole event,/);
  assert.match(log.text, new RegExp(`,notice,student ${users[2]},Come to the front desk.`));
});
