'use strict';
// Names and Role Provisioning Services through the real stack: the LMS course's
// roster (paged, with an access token from our client assertion) becomes its
// section's students on demand; those who left leave the section; staff are never
// demoted by it; a failing LMS gets a sentence; students cannot trigger it.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Client } = require('../helpers/http');
const { as, postForm } = require('../helpers/staff');
const dbh = require('../helpers/db');
const env = require('../helpers/env');
const { startLms, launch, ROLE } = require('../helpers/lti-lms');

const TAG = `r${Date.now().toString(36)}${process.pid.toString(36)}`;
let A; let instructor; let eventId; let pid; let sectionId;
const ctx = `course-${TAG}`;

async function userOf(sub) {
  return (await dbh.q(`SELECT u.id, u.role, u.section_id, u.active, u.name FROM lti_users l JOIN users u ON u.id = l.user_id
    WHERE l.issuer = ? AND l.sub = ?`, [A.issuer, sub]))[0];
}

test.before(async () => {
  A = await startLms({ tag: TAG, name: 'R' });
  const admin = await as('admin');
  instructor = await as('instructor');
  const r = await postForm(admin, '/lti/admin', A.form());
  assert.equal(r.status, 303);
  pid = Number(/\/lti\/admin\/(\d+)/.exec(r.headers.get('location'))[1]);
  const ev = await dbh.q("INSERT INTO events (title, type, description) VALUES (?, 'exam', 'lti roster test')", [`lti roster ${TAG}`]);
  eventId = ev.insertId;
  await dbh.q('INSERT INTO event_questions (event_id, position, problem_id, max_marks) VALUES (?, 1, 1, 10)', [eventId]);
});

test.after(async () => {
  const ids = (await dbh.q('SELECT user_id FROM lti_users WHERE issuer = ?', [A.issuer])).map((u) => u.user_id);
  await dbh.q('DELETE FROM lti_platforms WHERE issuer = ?', [A.issuer]);
  await dbh.q('DELETE FROM assignments WHERE event_id = ?', [eventId]);
  await dbh.q('DELETE FROM events WHERE id = ?', [eventId]);
  if (ids.length) {
    await dbh.q('DELETE FROM sessions WHERE user_id IN (?)', [ids]);
    await dbh.q('DELETE FROM users WHERE id IN (?)', [ids]);
  }
  if (sectionId) await dbh.q('DELETE FROM sections WHERE id = ?', [sectionId]).catch(() => {});
  await A.close();
  await dbh.close();
});

test('a roster sync adds, updates and removes the section\'s students and never demotes staff', async () => {
  const target = `${env.BASE}/lti/event/${eventId}`;
  assert.equal((await launch(new Client(), A, { sub: 'teacher', role: 'instructor', target, context: ctx })).status, 303);
  assert.equal((await launch(new Client(), A, { sub: 'leaver', role: 'learner', target, context: ctx })).status, 303);
  sectionId = (await dbh.q('SELECT section_id FROM lti_contexts WHERE platform_id = ? AND context_id = ?', [pid, ctx]))[0].section_id;
  assert.equal((await userOf('leaver')).section_id, sectionId);
  const sc = await dbh.q('INSERT INTO schedules (event_id, start_time, stop_time) VALUES (?, UTC_TIMESTAMP(3) + INTERVAL 1 DAY, UTC_TIMESTAMP(3) + INTERVAL 2 DAY)', [eventId]);
  await dbh.q('INSERT INTO slots (schedule_id, event_id, section_id) VALUES (?, ?, ?)', [sc.insertId, eventId, sectionId]);
  await dbh.q('UPDATE events SET published_at = UTC_TIMESTAMP(3) WHERE id = ?', [eventId]);

  A.members[ctx] = [
    { user_id: 'teacher', status: 'Active', name: 'T', roles: [ROLE.learner] }, // listed as a learner too: stays instructor
    { user_id: 'new-1', status: 'Active', name: 'New One', email: 'n1@example.edu', roles: [ROLE.learner] },
    { user_id: 'new-2', status: 'Inactive', name: 'New Two', roles: [ROLE.learner] },
    { user_id: 'gone', status: 'Deleted', name: 'Gone', roles: [ROLE.learner] },
    { user_id: 'ta-x', status: 'Active', name: 'A TA', roles: [ROLE.ta] },
  ];
  const r = await postForm(instructor, '/lti/courses/sync', { platform_id: pid, context_id: ctx });
  assert.equal(r.status, 303, r.text.slice(0, 300));
  assert.match(decodeURIComponent(r.headers.get('location')), /2 added, 0 updated \(1 inactive\), 1 removed/);
  const one = await userOf('new-1');
  assert.deepEqual([one.role, one.section_id, one.active, one.name], ['student', sectionId, 1, 'New One']);
  assert.equal((await userOf('new-2')).active, 0);
  assert.equal(await userOf('gone'), undefined);
  assert.equal(await userOf('ta-x'), undefined, 'staff of the roster are not made here');
  assert.equal((await userOf('leaver')).section_id, null);
  assert.equal((await userOf('teacher')).role, 'instructor');
  // the new student has the section's published event
  assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM assignments WHERE event_id = ? AND user_id = ?', [eventId, one.id]))[0].n, 1);

  // again, with a name changed: updated, nothing added
  A.members[ctx][1].name = 'New One Renamed';
  const r2 = await postForm(instructor, '/lti/courses/sync', { platform_id: pid, context_id: ctx });
  assert.match(decodeURIComponent(r2.headers.get('location')), /0 added, 2 updated/);
  assert.equal((await userOf('new-1')).name, 'New One Renamed');
  const page = await instructor.get('/lti/courses');
  assert.equal(page.status, 200);
  assert.match(page.text, /0 added, 2 updated/);
});

test('a course is synced on its own within the hour before its event opens, once', async () => {
  // the workers check every LTI_ROSTER_CHECK_S (5 min); the same function, called here
  const { createDb } = require('../../src/shared/db');
  const { createLtiService } = require('../../src/lti/service');
  const { createRoster } = require('../../src/lti/roster');
  const db = createDb({ ...env.db, poolSize: 2 });
  try {
    const { PUBLISH_SQL } = require('../../src/events/service');
    const roster = createRoster({ lti: createLtiService({ db, secret: env.sessionSecret, publishSql: PUBLISH_SQL, log: { info() {}, error() {} } }) });
    await dbh.q('UPDATE lti_contexts SET roster_synced_at = UTC_TIMESTAMP(3) - INTERVAL 2 HOUR WHERE platform_id = ? AND context_id = ?', [pid, ctx]);
    await dbh.q('UPDATE schedules SET start_time = UTC_TIMESTAMP(3) + INTERVAL 20 MINUTE WHERE event_id = ?', [eventId]);
    A.members[ctx].push({ user_id: 'late-joiner', status: 'Active', name: 'Late', roles: [ROLE.learner] });
    await roster.syncDue(3600);
    const late = await userOf('late-joiner');
    assert.equal(late.section_id, sectionId);
    assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM assignments WHERE event_id = ? AND user_id = ?', [eventId, late.id]))[0].n, 1);
    // synced within the window: not again
    A.members[ctx].push({ user_id: 'later-still', status: 'Active', name: 'Later', roles: [ROLE.learner] });
    await roster.syncDue(3600);
    assert.equal(await userOf('later-still'), undefined);
    // an event further away than the window: nothing
    await dbh.q('UPDATE lti_contexts SET roster_synced_at = NULL WHERE platform_id = ? AND context_id = ?', [pid, ctx]);
    await dbh.q('UPDATE schedules SET start_time = UTC_TIMESTAMP(3) + INTERVAL 1 DAY WHERE event_id = ?', [eventId]);
    await roster.syncDue(3600);
    assert.equal(await userOf('later-still'), undefined);
  } finally {
    await db.close();
  }
});

test('a failing LMS gets a sentence; students and forged forms cannot sync', async () => {
  A.rosterFails = true;
  const r = await postForm(instructor, '/lti/courses/sync', { platform_id: pid, context_id: ctx });
  assert.equal(r.status, 502);
  assert.match(r.text, /The LMS refused the roster \(503\): roster service down/);
  A.rosterFails = false;
  const student = await as('student01');
  assert.equal((await student.get('/lti/courses')).status, 403);
  assert.equal((await postForm(student, '/lti/courses/sync', { platform_id: pid, context_id: ctx })).status, 403);
  const forged = await instructor.post('/lti/courses/sync', { form: { platform_id: String(pid), context_id: ctx } });
  assert.equal(forged.status, 403);
  const none = await postForm(instructor, '/lti/courses/sync', { platform_id: pid, context_id: 'no-such-course' });
  assert.equal(none.status, 404);
});
