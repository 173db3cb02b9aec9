'use strict';
// Every staff route checks the role on the server: anonymous users are sent to
// the sign-in page (GET 302) or refused (POST 401), students get 403, and each
// staff role only reaches its own areas. The route list is read from the
// routers themselves, so a new route is covered without editing this test.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Client } = require('../helpers/http');
const { as, staffRoutes } = require('../helpers/staff');
const dbh = require('../helpers/db');

const ROUTES = staffRoutes();
const NOID = '2147483000'; // no such row: a broken role check could not touch real data
const url = (p) => p.replace(/:[a-z]+/g, NOID).replace(/\/$/, '') || '/';

function allowed(path) {
  if (path.startsWith('/grading/mine')) return ['student'];
  if (path.startsWith('/admin')) return ['admin'];
  if (path.startsWith('/live') || path.startsWith('/grading')) return ['ta', 'instructor', 'admin'];
  return ['instructor', 'admin'];
}

let clients;
test.before(async () => {
  clients = { student: await as('student01'), ta: await as('ta'), instructor: await as('instructor'), admin: await as('admin') };
});
test.after(() => dbh.close());

test('the route table covers every staff domain', () => {
  assert.ok(ROUTES.length >= 40, `only ${ROUTES.length} routes found`);
  for (const p of ['/people', '/problems', '/events', '/live', '/grading', '/admin']) assert.ok(ROUTES.some(([, r]) => r.startsWith(p)), p);
});

test('anonymous: every staff page redirects to sign-in, every staff POST is refused', async () => {
  const anon = new Client();
  for (const [m, p] of ROUTES) {
    const r = await anon.request(m, url(p), m === 'POST' ? { form: { x: '1' } } : {});
    if (m === 'GET') {
      assert.equal(r.status, 302, `${m} ${p}`);
      assert.match(r.headers.get('location'), /^\/accounts\/login/, `${m} ${p}`);
    } else {
      assert.equal(r.status, 401, `${m} ${p}: ${r.status}`);
    }
  }
});

for (const role of ['student', 'ta', 'instructor', 'admin']) {
  test(`${role}: 403 on every staff route outside the role`, async () => {
    const c = clients[role];
    let refused = 0;
    for (const [m, p] of ROUTES) {
      if (allowed(p).includes(role)) continue;
      const r = m === 'POST'
        ? await c.request('POST', url(p), { form: { _csrf: c.csrf, x: '1' } })
        : await c.get(url(p));
      assert.equal(r.status, 403, `${role} ${m} ${p}: ${r.status}`);
      if (m === 'GET') assert.match(r.text, /not available to your account/);
      refused++;
    }
    if (role !== 'admin') assert.ok(refused > 0);
  });
}

test('each role reaches its own pages, and its navigation shows only them', async () => {
  const pages = { student: ['/grading/mine'], ta: ['/grading', '/grading/regrades'], instructor: ['/people', '/people/import', '/problems', '/events', '/grading'], admin: ['/admin', '/people', '/events'] };
  for (const [role, list] of Object.entries(pages)) {
    for (const p of list) {
      const r = await clients[role].get(p);
      assert.equal(r.status, 200, `${role} ${p}: ${r.status}`);
    }
  }
  const home = await clients.student.get('/home');
  assert.doesNotMatch(home.text, /href="\/people"|href="\/events"|href="\/admin"/);
  assert.match(home.text, /href="\/grading\/mine"/);
  const ih = await clients.instructor.get('/people');
  assert.match(ih.text, /href="\/events"/);
  assert.doesNotMatch(ih.text, /href="\/admin"/);
});

test('a staff POST without the CSRF token is refused', async () => {
  const r = await clients.instructor.request('POST', '/events', { form: { title: 'x', type: 'lab' } });
  assert.equal(r.status, 403);
  assert.match(r.text, /security token/);
});

test('the admin page serves the latest tuning report, to admins only', async () => {
  const fs = require('node:fs');
  const path = require('node:path');
  const dir = path.join(process.env.PRUTOR_VAR || path.resolve(__dirname, '../../../var'), 'tuning', 'report');
  const file = path.join(dir, 'report.html');
  const existing = fs.existsSync(file) ? fs.readFileSync(file) : null;
  const marker = `tuning report ${Date.now()}`;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, `<!doctype html><title>t</title><p>${marker}</p>`);
  try {
    const r = await clients.admin.get('/admin/tuning-report');
    assert.equal(r.status, 200);
    assert.match(r.text, new RegExp(marker));
    assert.match(r.headers.get('content-security-policy') || '', /sandbox/);
    assert.equal((await clients.instructor.get('/admin/tuning-report')).status, 403);
  } finally {
    if (existing) fs.writeFileSync(file, existing); else fs.rmSync(file);
  }
});
