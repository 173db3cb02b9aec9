'use strict';
// Staff-side helpers without services: CSV parsing and writing, form validation,
// HAProxy stats parsing, bounded concurrency, the route table.
const test = require('node:test');
const assert = require('node:assert/strict');
const csv = require('../../src/lib/csv');
const { Form } = require('../../src/lib/form');
const { parseStatsCsv } = require('../../src/admin/service');
const { mapLimit, tempPassword, canManage } = require('../../src/people/service');

test('csv: quotes, escaped quotes, line breaks in quotes, CRLF, BOM, blank lines, malformed rows', () => {
  const rows = csv.parse('\uFEFFa,b\r\n"x, y","he said ""hi"""\n\n"multi\nline",z\nbad"q,1\n"open,2');
  assert.deepEqual(rows.map((r) => [r.line, r.fields, r.error]), [
    [1, ['a', 'b'], null], [2, ['x, y', 'he said "hi"'], null], [4, ['multi\nline', 'z'], null],
    [6, ['bad"q', '1'], 'a quote in the middle of a field'], [7, ['open,2'], 'a quoted field is not closed'],
  ]);
  assert.equal(csv.stringify([['a', '=1+2', '-3', 'x"y', 'l1\nl2', null, new Date(0)]]), 'a,\'=1+2,-3,"x""y","l1\nl2",,1970-01-01T00:00:00.000Z\r\n');
});

test('form: every problem reported with its field, values kept, passwords never echoed', () => {
  const f = new Form({ title: '  ', n: '12x', m: '5', kind: 'zz', password: 'secret', when: '2030-01-02T03:04', tz_offset: '-60' });
  f.str('title', { label: 'Title', required: true });
  f.int('n', { label: 'N' });
  assert.equal(f.int('m', { label: 'M', min: 1, max: 9 }), 5);
  f.oneOf('kind', ['a', 'b'], { label: 'Kind' });
  assert.equal(f.datetime('when', { label: 'When' }).toISOString(), '2030-01-02T02:04:00.000Z');
  assert.throws(() => f.check(), (e) => e.status === 400 && e.fields.title === 'Title is required.' && /whole number/.test(e.fields.n)
    && /valid kind/.test(e.fields.kind) && e.values.n === '12x' && e.values.password === undefined);
});

test('haproxy stats csv', () => {
  const rows = parseStatsCsv('# pxname,svname,scur,slim,qlimit\nwww,FRONTEND,3,6000,\nengine,engine1,0,2,64\n');
  assert.deepEqual(rows[1], { pxname: 'engine', svname: 'engine1', scur: '0', slim: '2', qlimit: '64' });
});

test('bounded concurrency, passwords, who manages whom', async () => {
  let running = 0; let peak = 0;
  const out = await mapLimit([...Array(20).keys()], 4, async (x) => { running++; peak = Math.max(peak, running); await new Promise((r) => setTimeout(r, 5)); running--; return x * 2; });
  assert.equal(peak, 4);
  assert.deepEqual(out, [...Array(20).keys()].map((x) => x * 2));
  assert.match(tempPassword(), /^[a-zA-Z2-9]{12}$/);
  assert.equal(canManage('instructor', 'admin'), false);
  assert.equal(canManage('instructor', 'student'), true);
  assert.equal(canManage('ta', 'student'), false);
});

test('the staff route table lists every domain', () => {
  const { staffRoutes } = require('../helpers/staff');
  const r = staffRoutes().map(([m, p]) => `${m} ${p}`);
  for (const x of ['POST /people/import', 'POST /events/:id/publish', 'POST /events/:id/unpublish', 'GET /live/:id/data', 'POST /grading/a/:aid', 'GET /admin/']) assert.ok(r.includes(x), x);
});
