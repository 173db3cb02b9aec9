'use strict';
// In Chromium through HAProxy: a student opens the lab exam from the LMS's course
// page (the test's LMS, served from "localhost" so it is another site than the
// stack's 127.0.0.1 and the launch is a real cross-site form post), and lands in
// the event's exam page signed in, without a password, then opens the editor. The
// instructor releases the marks on the event page; the LMS's gradebook shows them.
const test = require('node:test');
const assert = require('node:assert/strict');
const { launch: browserLaunch, chromiumPath } = require('../helpers/browser');
const { Client } = require('../helpers/http');
const { as, postForm } = require('../helpers/staff');
const dbh = require('../helpers/db');
const env = require('../helpers/env');
const { startLms, launch } = require('../helpers/lti-lms');

const TAG = `e${Date.now().toString(36)}${process.pid.toString(36)}`;

test('a student launched from the LMS lands in the exam signed in; released marks show in the LMS', { skip: !chromiumPath() && 'chromium is not installed', timeout: 120000 }, async (t) => {
  const A = await startLms({ tag: TAG, name: 'E' });
  const ev = await dbh.q("INSERT INTO events (title, type, description) VALUES (?, 'exam', 'lti browser test')", [`LTI exam ${TAG}`]);
  const eventId = ev.insertId;
  t.after(async () => {
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
  const admin = await as('admin');
  assert.equal((await postForm(admin, '/lti/admin', { ...A.form(), auth_login_url: A.authUrl.replace('127.0.0.1', 'localhost') })).status, 303);
  await dbh.q('INSERT INTO event_questions (event_id, position, problem_id, max_marks) VALUES (?, 1, 1, 10)', [eventId]);
  const target = `${env.BASE}/lti/event/${eventId}`;
  // the instructor's launch makes the course's section; the event runs for it now
  assert.equal((await launch(new Client(), A, { sub: 'teacher', role: 'instructor', target })).status, 303);
  const [{ section_id: sectionId }] = await dbh.q('SELECT section_id FROM lti_contexts c JOIN lti_platforms p ON p.id = c.platform_id WHERE p.issuer = ?', [A.issuer]);
  const sc = await dbh.q('INSERT INTO schedules (event_id, start_time, stop_time) VALUES (?, UTC_TIMESTAMP(3) - INTERVAL 5 MINUTE, UTC_TIMESTAMP(3) + INTERVAL 60 MINUTE)', [eventId]);
  await dbh.q('INSERT INTO slots (schedule_id, event_id, section_id) VALUES (?, ?, ?)', [sc.insertId, eventId, sectionId]);
  await dbh.q('UPDATE events SET published_at = UTC_TIMESTAMP(3) WHERE id = ?', [eventId]);

  A.browserUser = { sub: 'browser-student', role: 'learner', target, lineitem: A.lineitem(`e2e-${TAG}`) };
  const browser = await browserLaunch();
  t.after(() => browser.close());
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${A.base.replace('127.0.0.1', 'localhost')}/course`);
  await Promise.all([page.waitForURL(new RegExp(`/exam/${eventId}$`)), page.click('#activity')]);
  assert.match(await page.locator('.usermenu .who').innerText(), /Test browser-student/);
  assert.ok((await page.content()).includes(`LTI exam ${TAG}`));
  await Promise.all([page.waitForURL(/\/editor\/\d+$/), page.click('#exam-start')]);
  await page.waitForSelector('html[data-editor-ready="1"]');
  await page.locator('.cm-content').waitFor();
  const [u] = await dbh.q('SELECT u.role, u.section_id FROM lti_users l JOIN users u ON u.id = l.user_id WHERE l.issuer = ? AND l.sub = ?', [A.issuer, 'browser-student']);
  assert.deepEqual([u.role, u.section_id], ['student', sectionId]);
  assert.deepEqual(errors, []);

  // the instructor grades and releases on the event page (in the browser too); the score reaches the LMS
  const [a] = await dbh.q('SELECT a.id FROM assignments a JOIN lti_users l ON l.user_id = a.user_id WHERE a.event_id = ? AND l.issuer = ?', [eventId, A.issuer]);
  await dbh.q("INSERT INTO grades (assignment_id, marks, feedback, grader_id) VALUES (?, 6.5, 'ok', ?)", [a.id, await dbh.userId('admin')]);
  const teacher = await browserLaunch();
  t.after(() => teacher.close());
  const tp = await teacher.context.newPage();
  await tp.goto(`${env.BASE}/accounts/login`);
  await tp.fill('input[name=username]', 'instructor');
  await tp.fill('input[name=password]', env.password);
  await Promise.all([tp.waitForURL(/\/home$/), tp.click('button[type=submit]')]);
  await tp.goto(`${env.BASE}/events/${eventId}`);
  tp.on('dialog', (d) => d.accept());
  await Promise.all([tp.waitForURL(new RegExp(`/events/${eventId}\\?msg=`)), tp.click('#release-grades')]);
  await Promise.all([tp.waitForURL(/\/lti\/grades\/\d+$/), tp.click('#lti-grades-link')]);
  for (let i = 0; i < 40 && !A.scores.length; i++) {
    await Promise.all([tp.waitForURL(/sent=1$/), tp.click('#send-grades')]);
    if (!A.scores.length) await new Promise((r) => { setTimeout(r, 250); });
  }
  await tp.reload();
  assert.match(await tp.locator('#lti-grades').innerText(), /6\.5 \/ 10\s+sent/);
  await page.goto(`${A.base.replace('127.0.0.1', 'localhost')}/gradebook`);
  assert.match(await page.locator('#gradebook').innerText(), /browser-student\s+6\.5 \/ 10/);
});
