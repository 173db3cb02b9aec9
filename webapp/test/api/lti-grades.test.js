'use strict';
// LTI Assignment and Grade Services through the real stack: students launched from
// an LMS activity with a line item; the instructor releases marks; each total goes
// to the LMS (access token by a client assertion the LMS verifies against our
// JWKS), a refusal is sent again and stored once, a regrade is re-sent; the staff
// page shows it per student. The test plays the LMS (helpers/lti-lms.js).
const test = require('node:test');
const assert = require('node:assert/strict');
const { Client } = require('../helpers/http');
const { as, postForm } = require('../helpers/staff');
const dbh = require('../helpers/db');
const env = require('../helpers/env');
const { startLms, launch } = require('../helpers/lti-lms');

const TAG = `g${Date.now().toString(36)}${process.pid.toString(36)}`;
let A; let admin; let instructor; let eventId;
const target = () => `${env.BASE}/lti/event/${eventId}`;
const sleep = (ms) => new Promise((r) => { setTimeout(r, ms); });

test.before(async () => {
  A = await startLms({ tag: TAG, name: 'G' });
  admin = await as('admin');
  instructor = await as('instructor');
  const r = await postForm(admin, '/lti/admin', A.form());
  assert.equal(r.status, 303);
  const ev = await dbh.q("INSERT INTO events (title, type, description) VALUES (?, 'exam', 'lti grades test')", [`lti grades ${TAG}`]);
  eventId = ev.insertId;
  await dbh.q('INSERT INTO event_questions (event_id, position, problem_id, max_marks) VALUES (?, 1, 1, 10)', [eventId]);
});

test.after(async () => {
  const ids = (await dbh.q('SELECT user_id FROM lti_users WHERE issuer = ?', [A.issuer])).map((u) => u.user_id);
  const secs = await dbh.q('SELECT DISTINCT c.section_id FROM lti_contexts c JOIN lti_platforms p ON p.id = c.platform_id WHERE p.issuer = ?', [A.issuer]);
  await dbh.q('DELETE FROM lti_platforms WHERE issuer = ?', [A.issuer]);
  await dbh.q('DELETE FROM assignments WHERE event_id = ?', [eventId]);
  await dbh.q('DELETE FROM events WHERE id = ?', [eventId]);
  if (ids.length) {
    await dbh.q('DELETE FROM sessions WHERE user_id IN (?)', [ids]);
    await dbh.q('DELETE FROM users WHERE id IN (?)', [ids]);
  }
  for (const s of secs) await dbh.q('DELETE FROM sections WHERE id = ?', [s.section_id]).catch(() => {});
  await A.close();
  await dbh.close();
});

// "Send now" until nothing is pending (the workers' own sweeps may take some rows first).
async function sendUntilSettled() {
  for (let i = 0; i < 40; i++) {
    const r = await postForm(instructor, `/lti/grades/${eventId}/send`, {});
    assert.equal(r.status, 303);
    const left = await dbh.q(`SELECT COUNT(*) AS n FROM lti_scores s JOIN lti_links l ON l.id = s.link_id
      WHERE l.event_id = ? AND s.status <> 'sent'`, [eventId]);
    if (!left[0].n) return;
    await sleep(250);
  }
  assert.fail('scores still pending after 40 sends');
}

test('released marks go to the LMS line item; a refusal is sent again and stored once; a regrade is re-sent', async () => {
  const lineitem = A.lineitem(`li-${TAG}`);
  // the instructor's launch makes the course's section; the event is scheduled for it (over) and published
  const t = await launch(new Client(), A, { sub: 'teacher', role: 'instructor', target: target(), lineitem });
  assert.equal(t.status, 303, t.text);
  const [{ section_id: sectionId }] = await dbh.q('SELECT section_id FROM lti_contexts c JOIN lti_platforms p ON p.id = c.platform_id WHERE p.issuer = ?', [A.issuer]);
  const sc = await dbh.q('INSERT INTO schedules (event_id, start_time, stop_time) VALUES (?, UTC_TIMESTAMP(3) - INTERVAL 90 MINUTE, UTC_TIMESTAMP(3) + INTERVAL 90 MINUTE)', [eventId]);
  await dbh.q('INSERT INTO slots (schedule_id, event_id, section_id) VALUES (?, ?, ?)', [sc.insertId, eventId, sectionId]);
  await dbh.q('UPDATE events SET published_at = UTC_TIMESTAMP(3) WHERE id = ?', [eventId]);
  const subs = ['s-one', 's-two'];
  for (const sub of subs) {
    const r = await launch(new Client(), A, { sub, role: 'learner', target: target(), lineitem });
    assert.equal(r.landing, `/exam/${eventId}`);
  }
  const asg = await dbh.q(`SELECT a.id, lu.sub FROM assignments a JOIN lti_users lu ON lu.user_id = a.user_id WHERE a.event_id = ? AND lu.issuer = ? ORDER BY lu.sub`, [eventId, A.issuer]);
  assert.equal(asg.length, 2);
  const adminId = await dbh.userId('admin');
  const marks = { 's-one': 7.5, 's-two': 4 };
  for (const a of asg) await dbh.q("INSERT INTO grades (assignment_id, marks, feedback, grader_id) VALUES (?, ?, 'ok', ?)", [a.id, marks[a.sub], adminId]);

  // not released: nothing goes out
  await postForm(instructor, `/lti/grades/${eventId}/send`, {});
  assert.equal(A.scores.length, 0);
  const before = await instructor.get(`/lti/grades/${eventId}`);
  assert.match(before.text, /Marks are not released/);

  // released (the events page's button); the LMS refuses the first score once
  A.refuseNext = 1;
  const rel = await postForm(instructor, `/events/${eventId}/release`, {});
  assert.equal(rel.status, 303);
  await sendUntilSettled();
  assert.equal(A.refuseNext, 0, 'the LMS refused one');
  for (const sub of subs) {
    const got = A.scores.filter((s) => s.userId === sub);
    assert.equal(got.length, 1, `${sub}: stored once`);
    assert.equal(got[0].scoreGiven, marks[sub]);
    assert.equal(got[0].scoreMaximum, 10);
    assert.equal(got[0].activityProgress, 'Completed');
    assert.equal(got[0].gradingProgress, 'FullyGraded');
    assert.equal(got[0].lineitem, `li-${TAG}`);
  }
  // one row took two attempts; once sent, the LMS's earlier answer is cleared
  const retried = await dbh.q(`SELECT s.attempts, s.last_error FROM lti_scores s JOIN lti_links l ON l.id = s.link_id WHERE l.event_id = ? AND s.attempts > 0`, [eventId]);
  assert.equal(retried.length, 1);
  assert.equal(retried[0].last_error, '');
  assert.ok(A.tokens.length >= 1, 'a token was obtained with our client assertion');

  // idempotent: more sweeps send nothing new
  await postForm(instructor, `/lti/grades/${eventId}/send`, {});
  assert.equal(A.scores.length, 2);

  // the staff page, per student, linked from the event's page
  assert.ok((await instructor.get(`/events/${eventId}`)).text.includes(`href="/lti/grades/${eventId}"`));
  const page = await instructor.get(`/lti/grades/${eventId}`);
  assert.equal(page.status, 200);
  assert.equal((page.text.match(/<span class="pill ok">sent<\/span>/g) || []).length, 2);
  assert.match(page.text, /7\.5 \/ 10/);

  // a regrade after release is sent again
  const one = asg.find((a) => a.sub === 's-one');
  await dbh.q('UPDATE grades SET marks = 9 WHERE assignment_id = ?', [one.id]);
  await sendUntilSettled();
  const latest = A.scores.filter((s) => s.userId === 's-one');
  assert.equal(latest.length, 2);
  assert.equal(latest[1].scoreGiven, 9);
  assert.equal(A.scores.filter((s) => s.userId === 's-two').length, 1);
});

test('a refusal that lasts is shown with the LMS\'s answer, and students cannot see the page', async () => {
  A.refuseNext = 1000;
  A.refusal = { status: 422, body: 'scoreGiven exceeds the maximum' };
  const one = (await dbh.q(`SELECT a.id FROM assignments a JOIN lti_users lu ON lu.user_id = a.user_id WHERE a.event_id = ? AND lu.sub = 's-two' AND lu.issuer = ?`, [eventId, A.issuer]))[0];
  await dbh.q('UPDATE grades SET marks = 5 WHERE assignment_id = ?', [one.id]);
  // the attempts run out quickly when the delays are skipped (as "send now" does)
  for (let i = 0; i < 12; i++) {
    await dbh.q(`UPDATE lti_scores s JOIN lti_links l ON l.id = s.link_id SET s.next_try_at = UTC_TIMESTAMP(3) WHERE l.event_id = ? AND s.status = 'pending'`, [eventId]);
    await postForm(instructor, `/lti/grades/${eventId}/send`, {}).catch(() => {});
    const st = await dbh.q(`SELECT s.status FROM lti_scores s JOIN lti_links l ON l.id = s.link_id JOIN lti_users lu ON lu.user_id = s.user_id WHERE l.event_id = ? AND lu.sub = 's-two'`, [eventId]);
    if (st[0].status === 'refused') break;
  }
  const page = await instructor.get(`/lti/grades/${eventId}`);
  assert.match(page.text, /<span class="pill bad">refused<\/span>/);
  assert.match(page.text, /the LMS answered 422: scoreGiven exceeds the maximum/);
  A.refuseNext = 0;
  const student = await as('student01');
  assert.equal((await student.get(`/lti/grades/${eventId}`)).status, 403);
  assert.equal((await postForm(student, `/lti/grades/${eventId}/send`, {})).status, 403);
});
