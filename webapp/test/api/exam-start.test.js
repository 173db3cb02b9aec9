'use strict';
// A common start (issue 30), through HAProxy: students of an event that waits for
// the invigilator see the waiting page and cannot open or run anything; when staff
// press start, 30 waiting clients (polling as the waiting page does) all find their
// question open within 3 s, with one end time computed by the server.
const test = require('node:test');
const assert = require('node:assert/strict');
const dbh = require('../helpers/db');
const ex = require('../helpers/exam');
const { as, postJson } = require('../helpers/staff');

const N = 30;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test('30 waiting students open within 3 s of the start, with one end time', { timeout: 180000 }, async (t) => {
  t.after(() => dbh.close());
  const { sectionId, users } = await ex.makeSection(N);
  const problemId = await ex.makeProblem();
  // planned an hour from now, 30 minutes long
  const exam = await ex.makeExam({ title: 'Common start', sectionId, problemId, startSec: 3600, stopSec: 5400, description: 'Rules: **no phones**. <script>alert(1)</script>' });
  const instr = await as('instructor');
  const mode = await postJson(instr, `/events/${exam.eventId}/start-mode`, { common_start: '1' });
  assert.equal(mode.status, 200, mode.text);

  const clients = [];
  for (const u of users) clients.push({ c: await as(u), aid: await ex.assignment(exam.eventId, u) });
  const [first] = clients;

  // the waiting page: the rules as Markdown (escaped), a clock, nothing to open yet
  const page = await first.c.get(`/exam/${exam.eventId}`);
  assert.equal(page.status, 200);
  assert.match(page.text, /id="exam-waiting"/);
  assert.match(page.text, /<strong>no phones<\/strong>/);
  assert.doesNotMatch(page.text, /<script>alert/);
  assert.doesNotMatch(page.text, new RegExp(`href="/editor/${first.aid}"`));
  assert.equal((await first.c.getJson(`/editor/${first.aid}/status`)).json.state, 'waiting');
  const open = await first.c.get(`/editor/${first.aid}`, { headers: { accept: 'application/json' } });
  assert.equal(open.status, 409);
  assert.match(open.json.error, /invigilator/);
  const run = await first.c.request('POST', '/compile', { json: { assignment_id: first.aid, code: 'int main(void){return 0;}' }, csrf: true });
  assert.equal(run.status, 404, 'the engine runs nothing before the start');
  // attack: a student cannot start it, nor change how it starts
  assert.equal((await postJson(first.c, `/events/${exam.eventId}/start`, {})).status, 403);
  assert.equal((await postJson(first.c, `/events/${exam.eventId}/start-mode`, { common_start: '' })).status, 403);

  // every client polls the timing version as the waiting page does, then asks for its window
  let startedAt = null;
  const opened = clients.map(({ c, aid }) => (async () => {
    let v = (await c.getJson(`/exam/timing/${exam.eventId}`)).json.v;
    for (;;) {
      const now = (await c.getJson(`/exam/timing/${exam.eventId}`)).json.v;
      if (now !== v) {
        v = now;
        const st = (await c.getJson(`/editor/${aid}/status`)).json;
        if (st.state === 'open') return { at: Date.now(), deadline: st.deadline };
      }
      if (startedAt && Date.now() - startedAt > 20000) return { at: null };
      await sleep(300 + Math.random() * 200);
    }
  })());
  await sleep(1500);
  const st = await postJson(instr, `/events/${exam.eventId}/start`, {});
  startedAt = Date.now();
  assert.equal(st.status, 200, st.text);
  const results = await Promise.all(opened);
  const late = results.map((r) => (r.at === null ? Infinity : r.at - startedAt));
  assert.ok(late.every((ms) => ms <= 3000), `opened after (ms): ${late.join(', ')}`);
  const deadlines = new Set(results.map((r) => r.deadline));
  assert.equal(deadlines.size, 1, 'one end time');
  const [ev] = await dbh.q('SELECT started_at FROM events WHERE id = ?', [exam.eventId]);
  assert.equal(new Date([...deadlines][0]) - ev.started_at, 30 * 60 * 1000, 'the scheduled 30 minutes from the start');
  assert.equal((await first.c.get(`/editor/${first.aid}`)).status, 200);
  // started once; the log says who started it
  assert.equal((await postJson(instr, `/events/${exam.eventId}/start`, {})).status, 409);
  const log = await instr.get(`/events/${exam.eventId}/timing-log.csv`);
  assert.match(log.text, /instructor,start,every student/);
});
