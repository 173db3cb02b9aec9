'use strict';
// People: CSV import with a per-row report (a malformed row is reported and the
// others imported; existing accounts skipped), temporary passwords that work,
// form validation that keeps what was typed, password reset, deactivation.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Client } = require('../helpers/http');
const { TAG, as, postForm, postJson } = require('../helpers/staff');
const dbh = require('../helpers/db');
const env = require('../helpers/env');

let instr;
test.before(async () => { instr = await as('instructor'); });
test.after(() => dbh.close());

const sec = `P${TAG}`.slice(0, 20);
const u = (i) => `p${TAG}s${i}`;

test('a CSV import reports each row: created, skipped, wrong; the good rows are imported', async () => {
  const csvText = [
    'username,name,email,section,role',
    `${u(1)},Asha Rao,asha@example.edu,${sec},student`,
    `${u(2)},"Rao, Bina",,${sec},`,
    `${u(3)},"Chen ""CJ"" Jun",cj@example.edu,${sec},ta`,
    'bad row with no commas',
    `${u(4)},Dev Patel,not-an-email,${sec},student`,
    `${u(5)},Eve,eve@example.edu,${sec},wizard`,
    `${u(1)},Asha Again,,${sec},student`,
    'student01,Already There,,A,student',
    `${u(6)},Fay,fay@example.edu,,student`,
    `${u(7)},"Gil",gil@example.edu,${sec},student,extra`,
    `${u(8)},Hal,hal@example.edu,${sec},student`,
  ].join('\r\n');
  const r = await postJson(instr, '/people/import', { csv: csvText, password_mode: 'generate', create_sections: '1' });
  assert.equal(r.status, 200, r.text);
  const byLine = Object.fromEntries(r.json.report.map((x) => [x.line, x]));
  assert.deepEqual(r.json.counts, { created: 4, skipped: 1, wrong: 6 });
  assert.equal(byLine[2].status, 'created');
  assert.equal(byLine[3].status, 'created');
  assert.equal(byLine[4].status, 'created');
  assert.equal(byLine[5].status, 'wrong'); assert.match(byLine[5].message, /Expected 5 columns/);
  assert.equal(byLine[6].status, 'wrong'); assert.match(byLine[6].message, /email/);
  assert.equal(byLine[7].status, 'wrong'); assert.match(byLine[7].message, /role "wizard"/);
  assert.equal(byLine[8].status, 'wrong'); assert.match(byLine[8].message, /appears again \(first on line 2\)/);
  assert.equal(byLine[9].status, 'skipped');
  assert.equal(byLine[10].status, 'wrong'); assert.match(byLine[10].message, /needs a section/);
  assert.equal(byLine[11].status, 'wrong');
  assert.equal(byLine[12].status, 'created');
  assert.deepEqual(r.json.sectionsCreated, [sec]);
  const rows = await dbh.q('SELECT u.username, u.name, u.role, s.code FROM users u JOIN sections s ON s.id = u.section_id WHERE u.username LIKE ? ORDER BY u.username', [`p${TAG}s%`]);
  assert.deepEqual(rows.map((x) => [x.username, x.name, x.role, x.code]), [
    [u(1), 'Asha Rao', 'student', sec], [u(2), 'Rao, Bina', 'student', sec], [u(3), 'Chen "CJ" Jun', 'ta', sec], [u(8), 'Hal', 'student', sec],
  ]);
  // the temporary password shown once signs the student in
  const c = new Client();
  const login = await c.post('/accounts/login', { form: { username: u(1), password: byLine[2].password } });
  assert.equal(login.status, 302);
  assert.equal((await dbh.q('SELECT username FROM users WHERE username = ?', ['student01'])).length, 1);
});

test('the import page shows the report as a table, and a wrong CSV keeps what was typed', async () => {
  const r = await postForm(instr, '/people/import', { csv: `${u(20)},Ivy,ivy@example.edu,${sec},student\nrubbish`, password_mode: 'shared', shared_password: 'initial-pass-1', create_sections: '1' });
  assert.equal(r.status, 200);
  assert.match(r.text, /id="import-report"/);
  assert.match(r.text, /1 created, 0 skipped, 1 wrong/);
  assert.doesNotMatch(r.text, /Temporary password/);
  const c = new Client();
  assert.equal((await c.post('/accounts/login', { form: { username: u(20), password: 'initial-pass-1' } })).status, 302);

  const bad = await postForm(instr, '/people/import', { csv: 'username,name,colour\nx,y,z', password_mode: 'generate' });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /Unknown column\(s\) in the header: colour/);
  assert.match(bad.text, /username,name,colour\nx,y,z<\/textarea>/);
  const noPw = await postForm(instr, '/people/import', { csv: `${u(21)},J,,${sec},student`, password_mode: 'shared', shared_password: 'short' });
  assert.equal(noPw.status, 400);
  assert.match(noPw.text, /Initial password needs at least 8 characters/);
  assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM users WHERE username = ?', [u(21)]))[0].n, 0, 'nothing created on a form error');
});

test('one account: validation keeps the input; reset password; deactivate blocks sign-in', async () => {
  const bad = await postForm(instr, '/people', { username: 'x', name: '', email: 'nope', role: 'student', section_id: '' });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /Username: 2 to 64/);
  assert.match(bad.text, /Full name is required/);
  assert.match(bad.text, /Email is not a valid address/);
  assert.match(bad.text, /A student needs a section/);
  assert.match(bad.text, /value="nope"/);
  const admin = await postForm(instr, '/people', { username: u(30), name: 'Boss', role: 'admin' });
  assert.equal(admin.status, 400, 'an instructor cannot create admins');
  assert.match(admin.text, /Only an admin can give the admin role/);

  const secId = (await dbh.q('SELECT id FROM sections WHERE code = ?', [sec]))[0].id;
  const ok = await postJson(instr, '/people', { username: u(31), name: 'Kim', email: 'kim@example.edu', role: 'student', section_id: String(secId), password_mode: 'generate' });
  assert.equal(ok.status, 200, ok.text);
  const id = ok.json.id;
  const dup = await postForm(instr, '/people', { username: u(31), name: 'Kim', role: 'student', section_id: String(secId) });
  assert.equal(dup.status, 400);
  assert.match(dup.text, /is taken/);

  const before = new Client();
  assert.equal((await before.post('/accounts/login', { form: { username: u(31), password: ok.json.password } })).status, 302);
  assert.equal((await before.get('/home')).status, 200);
  const reset = await postJson(instr, `/people/${id}/password`, { password_mode: 'generate' });
  assert.equal(reset.status, 200);
  assert.equal((await before.get('/home')).status, 302, 'a password reset ends the sessions already open');
  const c = new Client();
  assert.equal((await c.post('/accounts/login', { form: { username: u(31), password: ok.json.password } })).status, 401, 'the old password no longer works');
  assert.equal((await c.post('/accounts/login', { form: { username: u(31), password: reset.json.password } })).status, 302);

  assert.equal((await c.get('/home')).status, 200);
  assert.equal((await postForm(instr, `/people/${id}/deactivate`)).status, 303);
  const home = await c.get('/home');
  assert.equal(home.status, 302, 'deactivation ends the sessions already open');
  assert.match(home.headers.get('location') || '', /\/accounts\/login/);
  const d = new Client();
  const refused = await d.post('/accounts/login', { form: { username: u(31), password: reset.json.password } });
  assert.equal(refused.status, 403);
  assert.match(refused.text, /disabled/);
  assert.equal((await postForm(instr, `/people/${id}/activate`)).status, 303);
  assert.equal((await d.post('/accounts/login', { form: { username: u(31), password: reset.json.password } })).status, 302);
});

test('sections: created with validation, listed with their students', async () => {
  const code = `S${TAG}`.slice(0, 30);
  assert.equal((await postForm(instr, '/people/sections', { code, name: 'Test section' })).status, 303);
  const dup = await postForm(instr, '/people/sections', { code, name: 'Again' });
  assert.equal(dup.status, 400);
  assert.match(dup.text, /already exists/);
  const page = await instr.get('/people/sections');
  assert.match(page.text, new RegExp(code));
});

test('a big import hashes with bounded concurrency and reports every row', async () => {
  const n = 120;
  const lines = Array.from({ length: n }, (_, i) => `${u(`b${i}`)},Bulk ${i},,${sec},student`);
  const t0 = Date.now();
  const r = await postJson(instr, '/people/import', { csv: lines.join('\n'), password_mode: 'generate' });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.counts.created, n);
  assert.equal(new Set(r.json.report.map((x) => x.password)).size, n, 'one distinct temporary password each');
  // a cheaper hash than the dummy compared for unknown names told these accounts apart by timing
  const costs = await dbh.q(`SELECT DISTINCT SUBSTRING(password_hash, 5, 2) AS cost FROM users WHERE username IN (${lines.map(() => '?').join(',')})`,
    lines.map((l) => l.split(',')[0]));
  assert.deepEqual(costs.map((c) => Number(c.cost)), [env.bcryptCost], 'generated passwords are hashed at the one cost (BCRYPT_COST)');
  assert.ok(Date.now() - t0 < 60000);
  const again = await postJson(instr, '/people/import', { csv: lines.join('\n'), password_mode: 'generate' });
  assert.equal(again.json.counts.skipped, n, 'a second import skips them all');
});
