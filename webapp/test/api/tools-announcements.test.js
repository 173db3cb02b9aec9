'use strict';
// Announcements and students' questions (issue 16) through HAProxy: an announcement
// reaches the event's students' feed within seconds and nobody else's; questions
// only when the event takes them; an answer only to the one who asked.
const test = require('node:test');
const assert = require('node:assert/strict');
const { as, postJson, TAG } = require('../helpers/staff');
const { Client } = require('../helpers/http');
const dbh = require('../helpers/db');
const { seedExam, dropExam, until } = require('../helpers/tools');

let exam;
let staff;
let alice;
let bob;

test.before(async () => {
  exam = await seedExam({ tag: `an${TAG}`, students: 2 });
  staff = await as('instructor');
  alice = await as(exam.users[0].username);
  bob = await as(exam.users[1].username);
  await everyWorkerRefreshed();
});
test.after(async () => { await dropExam(exam); await dbh.close(); });

const feedOf = async (c) => { const r = await c.getJson('/announcements/feed'); assert.equal(r.status, 200, r.text); return r.json; };
const eventIn = (feed) => feed.events.find((e) => e.id === exam.eventId);
// The event as the worker that answered sees it; undefined when that worker has not
// picked the event up (yet).
const eventOf = async (c) => eventIn(await feedOf(c));
// A change refreshes the worker that made it at once and every other worker on its
// timer (ANNOUNCE_REFRESH_MS): after one period, whichever worker answers knows it.
const REFRESH_MS = Number(process.env.ANNOUNCE_REFRESH_MS || 1000);
const everyWorkerRefreshed = () => new Promise((resolve) => setTimeout(resolve, REFRESH_MS + 500));

test('an announcement reaches every student of the event within seconds, and only them', async () => {
  const msg = `Question 2: read input until EOF <b>${TAG}</b>`;
  const r = await postJson(staff, `/tools/events/${exam.eventId}/announcements`, { message: msg });
  assert.equal(r.status, 200, r.text);
  const t0 = Date.now();
  for (const c of [alice, bob]) {
    await until(async () => ((await eventOf(c)) || { announcements: [] }).announcements.some((a) => a.message === msg), { timeoutMs: 5000, what: 'the announcement' });
  }
  assert.ok(Date.now() - t0 < 5000);
  const other = await as('student01');
  assert.equal(eventIn(await feedOf(other)), undefined, 'another section does not see it');
  assert.ok((await feedOf(alice)).poll_ms >= 1000);
  const page = await staff.get(`/tools/events/${exam.eventId}`);
  assert.match(page.text, /&lt;b&gt;/);
});

test('questions: refused until allowed, then the answer reaches only the student who asked', async () => {
  const ask = (c, q) => postJson(c, '/announcements/questions', { event_id: exam.eventId, question: q });
  assert.equal((await ask(alice, 'May I use math.h?')).status, 403);
  assert.equal((await postJson(staff, `/tools/events/${exam.eventId}/announcements/questions`, { enabled: '1' })).status, 200);
  await until(async () => ((await eventOf(alice)) || {}).questions, { timeoutMs: 5000, what: 'questions allowed' });
  const r = await ask(alice, 'May I use math.h?');
  assert.equal(r.status, 201, r.text);
  assert.equal((await ask(alice, '   ')).status, 400);
  assert.equal((await ask(alice, 'x'.repeat(1001))).status, 400);
  assert.equal((await postJson(await as('student01'), '/announcements/questions', { event_id: exam.eventId, question: 'hi' })).status, 404);
  const ans = await postJson(staff, `/tools/events/${exam.eventId}/announcements/questions/${r.json.id}/answer`, { answer: 'Yes, and link with -lm.' });
  assert.equal(ans.status, 200);
  await until(async () => ((await eventOf(alice)) || { answers: [] }).answers.some((a) => a.answer === 'Yes, and link with -lm.'), { timeoutMs: 5000, what: 'the answer' });
  await everyWorkerRefreshed();
  for (let i = 0; i < 4; i++) {
    const ev = await eventOf(bob);
    assert.ok(ev, 'bob still sees the event');
    assert.deepEqual(ev.answers, [], 'the answer reaches only the student who asked');
  }
});

test('bad input, other roles and anonymous callers', async () => {
  assert.equal((await postJson(staff, `/tools/events/${exam.eventId}/announcements`, { message: '' })).status, 400);
  assert.equal((await postJson(staff, '/tools/events/999999999/announcements', { message: 'x' })).status, 404);
  assert.equal((await postJson(alice, `/tools/events/${exam.eventId}/announcements`, { message: 'fake' })).status, 403);
  assert.equal((await new Client().getJson('/announcements/feed')).status, 401);
  assert.equal((await postJson(staff, `/tools/events/${exam.eventId}/announcements/questions/999999999/answer`, { answer: 'x' })).status, 404);
});
