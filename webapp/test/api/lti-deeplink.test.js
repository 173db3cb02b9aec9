'use strict';
// Deep Linking through the real stack, the test playing the LMS: an instructor's
// "add activity" launch lands on the picker; the pick comes back as a JWT signed
// with our key (verified against our JWKS) carrying a resource link with a line
// item; the LMS's launch of that link opens the event. Students cannot deep-link;
// the answer is made once per request; bad picks get a sentence.
const test = require('node:test');
const assert = require('node:assert/strict');
const jose = require('jose');
const { Client } = require('../helpers/http');
const { as, postForm } = require('../helpers/staff');
const dbh = require('../helpers/db');
const env = require('../helpers/env');
const { startLms, initiate, post, launch, C } = require('../helpers/lti-lms');

const TAG = `d${Date.now().toString(36)}${process.pid.toString(36)}`;
const DL = 'https://purl.imsglobal.org/spec/lti-dl/claim/';
let A; let eventId;

test.before(async () => {
  A = await startLms({ tag: TAG, name: 'D' });
  const admin = await as('admin');
  assert.equal((await postForm(admin, '/lti/admin', A.form())).status, 303);
  const ev = await dbh.q("INSERT INTO events (title, type, description) VALUES (?, 'exam', 'lti deep link test')", [`lti dl ${TAG}`]);
  eventId = ev.insertId;
  await dbh.q('INSERT INTO event_questions (event_id, position, problem_id, max_marks) VALUES (?, 1, 1, 10), (?, 2, 1, 5)', [eventId, eventId]);
});

test.after(async () => {
  const ids = (await dbh.q('SELECT user_id FROM lti_users WHERE issuer = ?', [A.issuer])).map((u) => u.user_id);
  const secs = await dbh.q('SELECT DISTINCT c.section_id FROM lti_contexts c JOIN lti_platforms p ON p.id = c.platform_id WHERE p.issuer = ?', [A.issuer]);
  await dbh.q('DELETE FROM lti_platforms WHERE issuer = ?', [A.issuer]);
  await dbh.q('DELETE FROM events WHERE id = ?', [eventId]);
  if (ids.length) {
    await dbh.q('DELETE FROM sessions WHERE user_id IN (?)', [ids]);
    await dbh.q('DELETE FROM users WHERE id IN (?)', [ids]);
  }
  for (const s of secs) await dbh.q('DELETE FROM sections WHERE id = ?', [s.section_id]).catch(() => {});
  await A.close();
  await dbh.close();
});

function dlClaims(sub, nonce, role = 'instructor', settings = {}) {
  return A.claims({
    sub, role, nonce, target: `${env.BASE}/lti/launch`,
    over: {
      [`${C}message_type`]: 'LtiDeepLinkingRequest', [`${C}resource_link`]: undefined,
      [`${DL}deep_linking_settings`]: { deep_link_return_url: `${A.base}/dl-return`, accept_types: ['ltiResourceLink'], accept_presentation_document_targets: ['window'], accept_multiple: false, data: `opaque-${TAG}`, ...settings },
    },
  });
}

test('an instructor adds an event as an activity; the LMS gets a signed resource link with a line item', async () => {
  const c = new Client();
  const i = await initiate(c, A, { target: `${env.BASE}/lti/launch` });
  const r = await post(c, await A.sign(dlClaims('teacher', i.nonce)), i.state);
  assert.equal(r.status, 303, r.text);
  assert.equal(r.landing, '/lti/deeplink');
  const page = await c.get('/lti/deeplink');
  assert.equal(page.status, 200);
  assert.ok(page.text.includes(`value="event:${eventId}"`));
  assert.match(page.text, /type="radio"/);
  c.csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(page.text)[1];

  const none = await postForm(c, '/lti/deeplink', {});
  assert.equal(none.status, 400);
  assert.match(none.text, /Choose an event or a problem/);
  const two = await postForm(c, '/lti/deeplink', { item: [`event:${eventId}`, 'problem:1'] });
  assert.equal(two.status, 400);
  assert.match(two.text, /one activity at a time/);
  const forged = await c.post('/lti/deeplink', { form: { item: `event:${eventId}` } });
  assert.equal(forged.status, 403, 'no CSRF token');

  const ok = await postForm(c, '/lti/deeplink', { item: `event:${eventId}` });
  assert.equal(ok.status, 200, ok.text.slice(0, 300));
  assert.match(ok.headers.get('content-security-policy'), new RegExp(`form-action ${A.base.replace(/[.]/g, '\\.')}`));
  assert.ok(ok.text.includes(`action="${A.base}/dl-return"`));
  const jwt = /name="JWT" value="([^"]+)"/.exec(ok.text)[1];
  // the LMS checks it against our published keys
  const { payload } = await jose.jwtVerify(jwt, jose.createRemoteJWKSet(new URL(`${env.BASE}/lti/jwks`)), { issuer: A.clientId, audience: A.issuer, algorithms: ['RS256'] });
  assert.equal(payload[`${C}message_type`], 'LtiDeepLinkingResponse');
  assert.equal(payload[`${C}version`], '1.3.0');
  assert.equal(payload[`${C}deployment_id`], A.deploymentId);
  assert.equal(payload[`${DL}data`], `opaque-${TAG}`);
  const items = payload[`${DL}content_items`];
  assert.equal(items.length, 1);
  assert.equal(items[0].type, 'ltiResourceLink');
  assert.equal(items[0].url, `${env.BASE}/lti/event/${eventId}`);
  assert.deepEqual(items[0].lineItem, { scoreMaximum: 15, label: `lti dl ${TAG}`, resourceId: `event-${eventId}` });

  // once per request
  const again = await postForm(c, '/lti/deeplink', { item: `event:${eventId}` });
  assert.equal(again.status, 400);
  assert.match(again.text, /There is no &quot;add activity&quot; request from an LMS/);

  // the LMS's launch of the new link opens the event
  const l = await launch(new Client(), A, { sub: 'teacher', role: 'instructor', target: items[0].url, link: `new-${TAG}`, lineitem: A.lineitem(`dl-${TAG}`) });
  assert.equal(l.landing, `/events/${eventId}`);
  const row = await dbh.q('SELECT event_id, lineitem_url FROM lti_links WHERE resource_link_id = ?', [`new-${TAG}`]);
  assert.equal(row[0].event_id, eventId);
  assert.equal(row[0].lineitem_url, A.lineitem(`dl-${TAG}`));
});

test('deep linking is refused to learners and without a return URL; the picker needs the request', async () => {
  for (const [name, claims, re] of [
    ['learner', (n) => dlClaims('stud', n, 'learner'), /only an instructor/],
    ['no return URL', (n) => dlClaims('teacher', n, 'instructor', { deep_link_return_url: undefined }), /no return URL/],
    ['no resource links', (n) => dlClaims('teacher', n, 'instructor', { accept_types: ['file'] }), /does not accept resource links/],
  ]) {
    const c = new Client();
    const i = await initiate(c, A, { target: `${env.BASE}/lti/launch` });
    const r = await post(c, await A.sign(claims(i.nonce)), i.state);
    assert.equal(r.status, 403, name);
    assert.match(r.text, re, name);
  }
  const instructor = await as('instructor');
  const r = await instructor.get('/lti/deeplink');
  assert.equal(r.status, 400);
  assert.equal((await (await as('student01')).get('/lti/deeplink')).status, 403);
});
