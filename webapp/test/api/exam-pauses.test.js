'use strict';
// Pause and resume (issue 30), through HAProxy against the real webapp, engine and
// MariaDB: a paused student's window stands still (the view assignment_window moves
// their deadline by the pause), the engine refuses their runs with a sentence, saves
// stay harmless, every change is logged with who made it; students cannot pause.
const test = require('node:test');
const assert = require('node:assert/strict');
const dbh = require('../helpers/db');
const ex = require('../helpers/exam');
const csv = require('../../src/lib/csv');
const { as, postJson } = require('../helpers/staff');

const PROG = 'int main(void){return 0;}\n';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const deadlineOf = async (aid) => (await dbh.q('SELECT deadline, paused_since FROM assignment_window WHERE assignment_id = ?', [aid]))[0];

test('pause and resume: one student, then the whole event', async (t) => {
  t.after(() => dbh.close());
  const { sectionId, users } = await ex.makeSection(3);
  const problemId = await ex.makeProblem();
  const exam = await ex.makeExam({ title: 'Pause', sectionId, problemId, startSec: -60, stopSec: 1800 });
  const [u1, u2, u3] = users;
  const a1 = await ex.assignment(exam.eventId, u1);
  const a2 = await ex.assignment(exam.eventId, u2);
  const instr = await as('instructor');
  const s1 = await as(u1);
  const s2 = await as(u2);

  // a student can neither pause nor resume (staff routes), not even with a valid CSRF token
  for (const path of ['pause', 'resume']) {
    const r = await postJson(s1, `/events/${exam.eventId}/${path}`, { scope: 'student', username: u2, pause_id: 1 });
    assert.equal(r.status, 403, `a student's ${path}`);
  }
  assert.equal((await deadlineOf(a2)).paused_since, null);

  // bad input: a sentence, never a 500
  const bad = await postJson(instr, `/events/${exam.eventId}/pause`, { scope: 'room', ranges: 'not-an-address' });
  assert.equal(bad.status, 400);
  assert.match(bad.json.error || JSON.stringify(bad.json), /not an address/);
  const nobody = await postJson(instr, `/events/${exam.eventId}/pause`, { scope: 'student', username: 'student01' });
  assert.equal(nobody.status, 409, 'a student not in the event');

  const before = await deadlineOf(a1);
  const other = await deadlineOf(a2);
  const p = await postJson(instr, `/events/${exam.eventId}/pause`, { scope: 'student', username: u1, reason: 'unwell' });
  assert.equal(p.status, 200, p.text);
  assert.equal(p.json.students, 1);

  // the editor's status says paused; the other student is not
  const st1 = (await s1.getJson(`/editor/${a1}/status`)).json;
  assert.equal(st1.paused, true);
  assert.equal(st1.state, 'open');
  assert.equal((await s2.getJson(`/editor/${a2}/status`)).json.paused, false);

  // the engine (called directly, through HAProxy) refuses the paused student's runs
  for (const path of ['/compile', '/execute', '/evaluate']) {
    const r = await s1.request('POST', path, { json: { assignment_id: a1, code: PROG, input: '' }, csrf: true });
    assert.equal(r.status, 409, `${path} while paused: ${r.text.slice(0, 200)}`);
    assert.match(r.text, /paused/);
  }
  // ...and not the others'
  const ok = await s2.request('POST', '/compile', { json: { assignment_id: a2, code: PROG }, csrf: true });
  assert.equal(ok.status, 200, ok.text.slice(0, 200));

  // a save while paused is harmless: accepted (nothing is lost), no working time gained
  const save = await s1.request('POST', '/editor/save', { json: { assignment_id: a1, code: PROG, trigger: 'auto' }, csrf: true });
  assert.equal(save.status, 200, save.text);

  // the clock stands still: the deadline runs on with the pause
  await sleep(1500);
  const during = await deadlineOf(a1);
  assert.ok(during.deadline > before.deadline, 'the deadline moves while paused');

  const r = await postJson(instr, `/events/${exam.eventId}/resume`, { username: u1 });
  assert.equal(r.status, 200, r.text);
  const [hold] = await dbh.q('SELECT TIMESTAMPDIFF(MICROSECOND, started_at, ended_at) AS us FROM pause_holds WHERE pause_id = ?', [p.json.id]);
  const after = await deadlineOf(a1);
  assert.equal(after.paused_since, null);
  assert.equal(after.deadline - before.deadline, Math.round(Number(hold.us) / 1000), 'the end time moved by exactly the pause');
  assert.ok(Number(hold.us) >= 1500000);
  assert.equal((await s1.getJson(`/editor/${a1}/status`)).json.deadline, after.deadline.toISOString());
  const again = await s1.request('POST', '/compile', { json: { assignment_id: a1, code: PROG }, csrf: true });
  assert.equal(again.status, 200, `runs again after the resume: ${again.text.slice(0, 200)}`);
  // the other student's time did not move
  assert.equal((await deadlineOf(a2)).deadline.getTime(), other.deadline.getTime());

  // the whole event: every student sitting it is held, then released by the pause's id
  const all = await postJson(instr, `/events/${exam.eventId}/pause`, { scope: 'event' });
  assert.equal(all.status, 200, all.text);
  assert.equal(all.json.students, 3);
  const page = await instr.get(`/events/${exam.eventId}`);
  assert.match(page.text, /whole event/);
  assert.match(page.text, new RegExp(`resume-${all.json.id}`));
  assert.equal((await s2.getJson(`/editor/${a2}/status`)).json.paused, true);
  // pausing again holds nobody new (already paused): refused, never counted twice
  assert.equal((await postJson(instr, `/events/${exam.eventId}/pause`, { scope: 'event' })).status, 409);
  assert.equal((await postJson(instr, `/events/${exam.eventId}/resume`, { pause_id: all.json.id })).status, 200);
  assert.equal((await s2.getJson(`/editor/${a2}/status`)).json.paused, false);
  assert.equal((await deadlineOf(await ex.assignment(exam.eventId, u3))).paused_since, null);

  // the timing log names who did what, and exports as CSV
  const log = await instr.get(`/events/${exam.eventId}/timing-log.csv`);
  assert.equal(log.status, 200);
  assert.match(log.headers.get('content-type'), /text\/csv/);
  const rows = csv.parse(log.text).map((x) => x.fields);
  assert.deepEqual(rows[0], ['time_utc', 'who', 'action', 'target', 'detail']);
  const actions = rows.slice(1).map((x) => `${x[1]} ${x[2]} ${x[3]}`);
  assert.deepEqual(actions, [`instructor pause student ${u1}`, `instructor resume student ${u1}`, 'instructor pause whole event', 'instructor resume whole event']);
  assert.match(rows[1][4], /unwell/);
  // a student cannot read it
  assert.equal((await s1.get(`/events/${exam.eventId}/timing-log.csv`)).status, 403);
});

test('a pause never reopens a student whose time is over', async (t) => {
  t.after(() => dbh.close());
  const { sectionId, users } = await ex.makeSection(1);
  const problemId = await ex.makeProblem();
  const exam = await ex.makeExam({ title: 'Pause ended', sectionId, problemId, startSec: -600, stopSec: -5 });
  const instr = await as('instructor');
  const r = await postJson(instr, `/events/${exam.eventId}/pause`, { scope: 'event' });
  assert.equal(r.status, 409);
  assert.match(r.json.error, /No student is sitting/);
  const a = await ex.assignment(exam.eventId, users[0]);
  assert.ok((await deadlineOf(a)).deadline < new Date());
});

test('accommodations: CSV import, each student\'s own end time, the event may opt out; nobody else sees them', async (t) => {
  t.after(() => dbh.close());
  const { sectionId, users } = await ex.makeSection(2);
  const problemId = await ex.makeProblem();
  const exam = await ex.makeExam({ title: 'Accommodated', sectionId, problemId, startSec: -60, stopSec: 3540 }); // one hour
  const [u1, u2] = users;
  const a1 = await ex.assignment(exam.eventId, u1);
  const a2 = await ex.assignment(exam.eventId, u2);
  const instr = await as('instructor');
  const s1 = await as(u1);
  const s2 = await as(u2);
  const version = async () => Number(((await dbh.q('SELECT version FROM event_timing WHERE event_id = ?', [exam.eventId]))[0] || { version: 0 }).version);
  const v0 = await version();

  // a wrong row stores nothing and says which line
  const bad = await postJson(instr, '/events/accommodations', { csv: `username,extra_percent,extra_minutes,note\n${u1},25,0,ok\nnobody-${ex.TAG},10,0,\n${u2},abc,0,` });
  assert.equal(bad.status, 400);
  assert.match(bad.json.error, /Line 3: there is no student/);
  assert.match(bad.json.error, /Line 4: extra_percent must be a whole number/);
  assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM accommodations WHERE user_id IN (SELECT id FROM users WHERE username IN (?, ?))', [u1, u2]))[0].n, 0);

  const ok = await postJson(instr, '/events/accommodations', { csv: `username,extra_percent,extra_minutes,note\r\n${u1},25%,0,"reader, rest breaks"\r\n${u2},0,10,` });
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.json.imported, 2);
  const st1 = (await s1.getJson(`/editor/${a1}/status`)).json;
  const st2 = (await s2.getJson(`/editor/${a2}/status`)).json;
  const [sched] = await dbh.q('SELECT s.stop_time FROM schedules s JOIN slots sl ON sl.schedule_id = s.id WHERE sl.event_id = ?', [exam.eventId]);
  assert.equal(new Date(st1.deadline) - sched.stop_time, 15 * 60 * 1000, '+25% of one hour');
  assert.equal(st1.accommodation_s, 900);
  assert.equal(new Date(st2.deadline) - sched.stop_time, 10 * 60 * 1000, '+10 minutes');
  // open editors learn of it: the timing version moved
  assert.ok(await version() > v0);
  // and the event's timing log names the change (only its own students')
  const log = csv.parse((await instr.get(`/events/${exam.eventId}/timing-log.csv`)).text).map((x) => x.fields.slice(1, 5).join(' '));
  assert.deepEqual(log.slice(1), [`instructor accommodation student ${u1} extra 25% and 0 min`, `instructor accommodation student ${u2} extra 0% and 10 min`]);
  // the student's own end time on the editor page and on the live monitor
  const page = await s1.get(`/editor/${a1}`);
  assert.match(page.text, /id="end-time"[^>]*>ends <time datetime="([^"]+)"/);
  assert.equal(/id="end-time"[^>]*>ends <time datetime="([^"]+)"/.exec(page.text)[1], st1.deadline);
  assert.match(page.text, /extra time \+15 min/);
  const live = await instr.getJson(`/live/${exam.eventId}/data`);
  const row = live.json.students.find((s) => s.username === u1);
  assert.equal(new Date(row.ends).toISOString(), st1.deadline);

  // attack: a student sees neither the list nor another student's window, nor imports
  assert.equal((await s2.get('/events/accommodations')).status, 403);
  assert.equal((await postJson(s2, '/events/accommodations', { csv: `${u2},300,0,` })).status, 403);
  assert.equal((await s2.getJson(`/editor/${a1}/status`)).status, 404);
  assert.doesNotMatch((await s2.get(`/editor/${a2}`)).text, /\+15 min/);

  // the event opts out: the scheduled time for everyone
  assert.equal((await postJson(instr, `/events/${exam.eventId}/accommodations`, { accommodations_apply: '' })).status, 200);
  assert.equal((await s1.getJson(`/editor/${a1}/status`)).json.deadline, sched.stop_time.toISOString());
  assert.equal((await postJson(instr, `/events/${exam.eventId}/accommodations`, { accommodations_apply: '1' })).status, 200);
  assert.equal((await s1.getJson(`/editor/${a1}/status`)).json.deadline, st1.deadline);
  // past the scheduled stop, an accommodated student still has the event on their home page
  const late = await ex.makeExam({ title: 'Accommodated late', sectionId, problemId, startSec: -600, stopSec: -5 });
  const home1 = await s1.get('/home');
  assert.match(home1.text, new RegExp(`data-event-id="${late.eventId}"`), 'the +25% student still sits it');
  assert.match((await s2.get('/home')).text, new RegExp(`data-event-id="${late.eventId}"`), 'the +10 min student too');
  // both zero removes it
  assert.equal((await postJson(instr, '/events/accommodations', { csv: `${u1},0,0,` })).status, 200);
  assert.equal((await s1.getJson(`/editor/${a1}/status`)).json.deadline, sched.stop_time.toISOString());
  assert.doesNotMatch((await s1.get('/home')).text, new RegExp(`data-event-id="${late.eventId}"`), 'without it, the event is over');
});

test('a room: the students signed in from its addresses are paused, and get its notices; the others not', async (t) => {
  t.after(() => dbh.close());
  const { sectionId, users } = await ex.makeSection(3);
  const problemId = await ex.makeProblem();
  const exam = await ex.makeExam({ title: 'Room', sectionId, problemId, startSec: -60, stopSec: 1800 });
  const instr = await as('instructor');
  // without lab sessions (no lock-down) nobody's address is known: refused with a sentence
  const unknown = await postJson(instr, `/events/${exam.eventId}/pause`, { scope: 'room', ranges: '10.1.2.0/24' });
  assert.equal(unknown.status, 409);
  assert.match(unknown.json.error, /lock-down/);
  // the lab sessions the lock-down records at sign-in: two in room 10.1.2.0/24, one elsewhere
  const ids = [];
  for (const [i, address] of ['10.1.2.5', '10.1.2.77', '10.9.9.9'].entries()) {
    const [u] = await dbh.q('SELECT id FROM users WHERE username = ?', [users[i]]);
    ids.push(u.id);
    await dbh.q('INSERT INTO lab_sessions (sid_hash, user_id, event_id, address) VALUES (?, ?, ?, ?)', [`${ex.TAG}${i}`.padEnd(43, 'x').slice(0, 43), u.id, exam.eventId, address]);
  }
  const p = await postJson(instr, `/events/${exam.eventId}/pause`, { scope: 'room', ranges: '10.1.2.0/24', reason: 'fire alarm in lab 2' });
  assert.equal(p.status, 200, p.text);
  assert.equal(p.json.students, 2);
  const held = (await dbh.q('SELECT user_id FROM pause_holds WHERE pause_id = ? ORDER BY user_id', [p.json.id])).map((r) => r.user_id);
  assert.deepEqual(held, ids.slice(0, 2).sort((a, b) => a - b));
  assert.equal((await postJson(instr, `/events/${exam.eventId}/resume`, { pause_id: p.json.id })).status, 200);
  assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM pause_holds WHERE pause_id = ? AND ended_at IS NULL', [p.json.id]))[0].n, 0);

  const n = await postJson(instr, `/tools/events/${exam.eventId}/announcements`, { message: 'Lab 2: move to lab 3.', scope: 'room', ranges: '10.1.2.0/24' });
  assert.equal(n.status, 200, n.text);
  const rec = (await dbh.q('SELECT user_id FROM announcement_recipients WHERE announcement_id = ? ORDER BY user_id', [n.json.id])).map((r) => r.user_id);
  assert.deepEqual(rec, ids.slice(0, 2).sort((a, b) => a - b));
  const outside = await as(users[2]);
  await sleep(1500); // every worker's copy of the notices
  const feed = (await outside.getJson('/announcements/feed')).json.events.find((e) => e.id === exam.eventId);
  assert.equal(feed.announcements.some((a) => a.id === n.json.id), false, 'not for a student outside the room');
});
