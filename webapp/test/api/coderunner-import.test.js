'use strict';
// Issue 29: Moodle question XML with CodeRunner questions (test/fixtures, written in the
// format CodeRunner's own export produces) imported as problems: C and Python programs
// with their tests' visibility and marks, the answer as the reference solution (which
// passes through the real engine); the questions that cannot be graded here are listed
// with the reason, never dropped silently; bad XML names its line.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { as, postJson } = require('../helpers/staff');
const dbh = require('../helpers/db');

const XML = fs.readFileSync(path.join(__dirname, '../fixtures/coderunner-questions.xml'), 'utf8');
const importXml = (client, xml) => client.request('POST', '/problems/import', { body: xml, csrf: true, headers: { 'content-type': 'application/xml', accept: 'application/json' } });

let instr;
const made = [];
test.before(async () => { instr = await as('instructor'); });
test.after(async () => {
  for (const id of made) await dbh.q('DELETE FROM problems WHERE id = ?', [id]);
  await dbh.close();
});

test('CodeRunner questions in C and Python import with their tests, and the rest are listed with the reason', async () => {
  const r = await importXml(instr, XML);
  assert.equal(r.status, 201, r.text);
  made.push(...r.json.problems.map((p) => p.id));
  assert.deepEqual(r.json.problems.map((p) => [p.title, p.tests]), [['Sum of two (C)', 3], ['Double it (Python)', 3]]);
  assert.deepEqual(r.json.skipped.map((s) => s.name), ['Square function (C)', 'Greeting (regex)', 'Custom template (Python)']);
  assert.match(r.json.skipped[0].reason, /c_function/);
  assert.match(r.json.skipped[1].reason, /RegexGrader/);
  assert.match(r.json.skipped[2].reason, /customised template/);
  assert.ok(r.json.problems[1].warnings.some((w) => /HIDE_IF_FAIL/.test(w)));

  const [c, py] = r.json.problems;
  const pc = (await dbh.q('SELECT env, compare_mode, time_limit_ms, memory_limit_kb, template_code, statement_md FROM problems WHERE id = ?', [c.id]))[0];
  assert.deepEqual([pc.env, pc.compare_mode, pc.time_limit_ms, pc.memory_limit_kb], ['c', 'trim', 1000, 65536]);
  assert.match(pc.template_code, /int main\(void\)/);
  assert.match(pc.statement_md, /print their \*\*sum\*\*/);
  assert.doesNotMatch(pc.statement_md, /<p>/);
  const tc = await dbh.q('SELECT input, expected_output, visibility, weight FROM test_cases WHERE problem_id = ? ORDER BY position', [c.id]);
  assert.deepEqual(tc.map((t) => [t.input, t.visibility, t.weight]), [['3 4', 'visible', 1], ['-5 5', 'visible', 2], ['1000000000 2000000000', 'hidden', 1]]);
  const tp = await dbh.q('SELECT visibility, weight FROM test_cases WHERE problem_id = ? ORDER BY position', [py.id]);
  assert.deepEqual(tp.map((t) => [t.visibility, t.weight]), [['visible', 100], ['hidden', 50], ['hidden', 50]]);
  assert.equal((await dbh.q('SELECT env, compare_mode FROM problems WHERE id = ?', [py.id]))[0].env, 'python3');

  // each answer passes its own tests through the engine, as it does in Moodle
  for (const p of r.json.problems) {
    const check = await postJson(instr, `/problems/${p.id}/check`, {});
    assert.equal(check.json.verdict, 'accepted', `${p.title}: ${check.text}`);
  }
});

test('bad question files are refused with a sentence, XML errors with their line', async () => {
  let r = await importXml(instr, '<?xml version="1.0"?>\n<quiz>\n<question type="coderunner">\n<name><text>x</name>\n</quiz>\n');
  assert.equal(r.status, 400);
  assert.match(r.json.error, /not valid XML: line 4/);
  r = await importXml(instr, '<?xml version="1.0"?>\n<nothing/>\n');
  assert.equal(r.status, 400);
  assert.match(r.json.error, /no <quiz>/);
  // only questions that cannot be imported: a 400 that still lists each one's reason
  const onlyRegex = XML.replace(/<question type="coderunner">[\s\S]*?<\/question>/, '').replace(/<question type="coderunner">\s*<name>\s*<text>Double it[\s\S]*?<\/question>/, '');
  r = await importXml(instr, onlyRegex);
  assert.equal(r.status, 400, r.text);
  assert.equal(r.json.skipped.length, 3);
  const ta = await as('ta');
  assert.notEqual((await importXml(ta, XML)).status, 201, 'a TA cannot import');
});
