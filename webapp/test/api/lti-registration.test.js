'use strict';
// LTI Dynamic Registration through the real stack, the test playing the LMS: an
// admin's one-time link, opened by the LMS with its OpenID configuration and
// registration token, registers the tool there (our login, launch and JWKS URLs)
// and the LMS here (its client id and deployment id), after which its launches
// work. The link works once; a configuration whose issuer is on another host is
// refused; only admins make links.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Client } = require('../helpers/http');
const { as, postForm } = require('../helpers/staff');
const dbh = require('../helpers/db');
const env = require('../helpers/env');
const { startLms, launch } = require('../helpers/lti-lms');

const TAG = `reg${Date.now().toString(36)}${process.pid.toString(36)}`;
let A; let admin;

test.before(async () => {
  A = await startLms({ tag: TAG, name: 'Reg', issuerIsBase: true });
  admin = await as('admin');
});

test.after(async () => {
  const ids = (await dbh.q('SELECT user_id FROM lti_users WHERE issuer = ?', [A.issuer])).map((u) => u.user_id);
  const secs = await dbh.q('SELECT DISTINCT c.section_id FROM lti_contexts c JOIN lti_platforms p ON p.id = c.platform_id WHERE p.issuer = ?', [A.issuer]);
  await dbh.q('DELETE FROM lti_platforms WHERE issuer = ?', [A.issuer]);
  if (ids.length) {
    await dbh.q('DELETE FROM sessions WHERE user_id IN (?)', [ids]);
    await dbh.q('DELETE FROM users WHERE id IN (?)', [ids]);
  }
  for (const s of secs) await dbh.q('DELETE FROM sections WHERE id = ?', [s.section_id]).catch(() => {});
  await A.close();
  await dbh.close();
});

async function newLink() {
  const r = await postForm(admin, '/lti/admin/registration-links', {});
  assert.equal(r.status, 200);
  return /id="registration-url">([^<]+)</.exec(r.text)[1].replace(env.BASE, '');
}
const open = (link, config = '/.well-known/openid-configuration') => new Client().get(`${link}?${new URLSearchParams({ openid_configuration: `${A.base}${config}`, registration_token: `rt-${TAG}` })}`);

test('a one-time link registers the tool at the LMS and the LMS here; its launches then work', async () => {
  const forged = await admin.post('/lti/admin/registration-links', { form: {} });
  assert.equal(forged.status, 403, 'CSRF');
  const link = await newLink();
  const r = await open(link);
  assert.equal(r.status, 200, r.text.slice(0, 400));
  assert.match(r.text, /id="registration-done"/);
  assert.ok(r.text.includes('<script src="/lti/register-close.js" defer></script>'));
  assert.equal(r.headers.get('x-frame-options'), null, 'the LMS may frame it');
  assert.match(r.headers.get('content-security-policy'), new RegExp(`frame-ancestors ${A.base.replace(/\./g, '\\.')}$`));
  const reg = A.registrations[0];
  assert.equal(reg.authorization, `Bearer rt-${TAG}`);
  assert.equal(reg.body.jwks_uri, `${env.BASE}/lti/jwks`);
  assert.equal(reg.body.initiate_login_uri, `${env.BASE}/lti/login`);
  assert.deepEqual(reg.body.redirect_uris, [`${env.BASE}/lti/launch`]);
  assert.equal(reg.body.token_endpoint_auth_method, 'private_key_jwt');
  assert.match(reg.body.scope, /lti-ags\/scope\/score/);
  assert.match(reg.body.scope, /contextmembership\.readonly/);
  const [p] = await dbh.q('SELECT id, name, client_id, auth_login_url, token_url, jwks_url FROM lti_platforms WHERE issuer = ?', [A.issuer]);
  assert.deepEqual([p.client_id, p.auth_login_url, p.token_url, p.jwks_url], [A.clientId, A.authUrl, A.tokenUrl, A.jwksUrl]);
  assert.match(p.name, /^testlms/);
  assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM lti_deployments WHERE platform_id = ? AND deployment_id = ?', [p.id, A.deploymentId]))[0].n, 1);

  const again = await open(link);
  assert.equal(again.status, 403);
  assert.match(again.text, /expired or was already used/);
  assert.equal(A.registrations.length, 1, 'a used link reaches no LMS');

  const l = await launch(new Client(), A, { sub: 'after-registration', role: 'learner', target: `${env.BASE}/lti/launch` });
  assert.equal(l.landing, '/home');
});

test('a configuration whose issuer is on another host, a made-up link, and a student are refused', async () => {
  const link = await newLink();
  const bad = await open(link, '/bad-configuration');
  assert.equal(bad.status, 400);
  assert.match(bad.text, /is not on the host its configuration came from/);
  assert.equal((await open(`/lti/register/${'x'.repeat(43)}`)).status, 403);
  const student = await as('student01');
  assert.equal((await postForm(student, '/lti/admin/registration-links', {})).status, 403);
});
