'use strict';
// Similarity reports (issue 16) through HAProxy on the real stack: the seeded set's
// copied pair (renamed variables, reordered functions) ranks first, the CSV says the
// same, the job ran in its own niced process, and only instructors/admins may ask.
const test = require('node:test');
const assert = require('node:assert/strict');
const { as, postForm, TAG } = require('../helpers/staff');
const { Client } = require('../helpers/http');
const dbh = require('../helpers/db');
const { seedExam, saveCode, dropExam, until } = require('../helpers/tools');
const set = require('../fixtures/similarity-set');

let exam;
let staff;

test.before(async () => {
  const programs = set.programs();
  exam = await seedExam({ tag: `sim${TAG}`, students: programs.length, template: set.template, solution: set.solution });
  for (const [i, code] of programs.entries()) {
    await saveCode(exam.users[i].assignmentId, set.template, { trigger: 'auto', secondsAgo: 600 });
    await saveCode(exam.users[i].assignmentId, code, { trigger: i % 2 ? 'submit' : 'manual', secondsAgo: 60 });
  }
  staff = await as('instructor');
});
test.after(async () => { await dropExam(exam); await dbh.close(); });

async function finished(jobId) {
  return until(async () => {
    const r = await staff.getJson(`/tools/events/${exam.eventId}/similarity/${jobId}`);
    assert.equal(r.status, 200, r.text);
    return r.json.state === 'done' || r.json.state === 'failed' ? r.json : null;
  }, { timeoutMs: 90000, what: 'the similarity job' });
}

test('the copied pair ranks first, in the page, the JSON and the CSV', async () => {
  const r = await postForm(staff, `/tools/events/${exam.eventId}/similarity`, { question_id: exam.questionId });
  assert.equal(r.status, 303, r.text.slice(0, 300));
  const jobId = Number(/similarity\/(\d+)$/.exec(r.headers.get('location'))[1]);
  const out = await finished(jobId);
  assert.equal(out.state, 'done');
  assert.equal(out.submissions, 8);
  const first = out.pairs[0];
  assert.deepEqual([first.left_user, first.right_user].sort(), [exam.users[0].username, exam.users[1].username].sort());
  assert.ok(first.similarity >= 0.6, `copied pair similarity ${first.similarity}`);
  assert.ok(out.pairs[1].similarity < first.similarity / 2, `next pair ${out.pairs[1].similarity} is not clearly below ${first.similarity}`);

  const page = await staff.get(`/tools/events/${exam.eventId}/similarity/${jobId}/pairs/1`);
  assert.equal(page.status, 200);
  assert.match(page.text, /id="code-a"/);
  assert.ok((page.text.match(/data-fragment="/g) || []).length >= 10, 'matching fragments are marked on both sides');
  assert.match(page.text, /num_ok/); // the copy's own names are shown, escaped
  assert.doesNotMatch(page.text, /#include <stdio.h>/, 'code is HTML-escaped');

  const csv = await staff.get(`/tools/events/${exam.eventId}/similarity/${jobId}.csv`);
  assert.equal(csv.status, 200);
  assert.match(csv.headers.get('content-type'), /text\/csv/);
  const lines = csv.text.replace(/^\uFEFF/, '').trim().split(/\r\n/);
  assert.equal(lines[0].split(',')[0], 'rank');
  const [rank, a, b] = lines[1].split(',');
  assert.equal(rank, '1');
  assert.deepEqual([a, b].sort(), [exam.users[0].username, exam.users[1].username].sort());
  assert.equal(lines.length - 1, out.pairs.length);

  const job = (await dbh.q('SELECT status, run_ms, max_rss_mb FROM similarity_jobs WHERE id = ?', [jobId]))[0];
  assert.equal(job.status, 'done');
  assert.ok(job.max_rss_mb > 0);
});

test('the template and the reference solution alone match nobody', async () => {
  // a student who handed in the reference solution verbatim and one who kept the template
  const extra = await seedExam({ tag: `sim2${TAG}`, students: 3, template: set.template, solution: set.solution });
  try {
    await saveCode(extra.users[0].assignmentId, set.solution);
    await saveCode(extra.users[1].assignmentId, set.solution);
    await saveCode(extra.users[2].assignmentId, set.template);
    const r = await postForm(staff, `/tools/events/${extra.eventId}/similarity`, { question_id: extra.questionId });
    assert.equal(r.status, 303);
    const jobId = Number(/similarity\/(\d+)$/.exec(r.headers.get('location'))[1]);
    const out = await until(async () => {
      const x = await staff.getJson(`/tools/events/${extra.eventId}/similarity/${jobId}`);
      return x.json.state === 'done' || x.json.state === 'failed' ? x.json : null;
    }, { timeoutMs: 60000, what: 'the job' });
    assert.equal(out.state, 'done');
    assert.equal(out.pairs.length, 0, JSON.stringify(out.pairs));
  } finally { await dropExam(extra); }
});

test('a second job while one runs is refused with 409; bad input is a 4xx', async () => {
  const r1 = await postForm(staff, `/tools/events/${exam.eventId}/similarity`, { question_id: exam.questionId });
  assert.equal(r1.status, 303);
  const r2 = await postForm(staff, `/tools/events/${exam.eventId}/similarity`, { question_id: exam.questionId });
  assert.equal(r2.status, 409);
  await finished(Number(/similarity\/(\d+)$/.exec(r1.headers.get('location'))[1]));
  assert.equal((await postForm(staff, `/tools/events/${exam.eventId}/similarity`, { question_id: 'x' })).status, 400);
  assert.equal((await postForm(staff, `/tools/events/${exam.eventId}/similarity`, { question_id: 999999999 })).status, 404);
  assert.equal((await staff.get(`/tools/events/${exam.eventId}/similarity/999999999`)).status, 404);
});

test('students, TAs and anonymous callers cannot see or start reports', async () => {
  const student = await as(exam.users[0].username);
  assert.equal((await student.get(`/tools/events/${exam.eventId}`)).status, 403);
  assert.equal((await postForm(student, `/tools/events/${exam.eventId}/similarity`, { question_id: exam.questionId })).status, 403);
  const ta = await as('ta');
  assert.equal((await ta.get(`/tools/events/${exam.eventId}`)).status, 403);
  const anon = new Client();
  assert.equal((await anon.get(`/tools/events/${exam.eventId}`)).status, 302);
  assert.equal((await anon.post(`/tools/events/${exam.eventId}/similarity`, { form: { question_id: exam.questionId } })).status, 401);
  const forged = await staff.post(`/tools/events/${exam.eventId}/similarity`, { form: { question_id: exam.questionId } });
  assert.equal(forged.status, 403, 'no CSRF token');
});
