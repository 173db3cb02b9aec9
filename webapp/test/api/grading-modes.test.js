'use strict';
// Issue 29: an instructor sets how output is compared, per problem and per test case
// (modes, Kattis-style tolerances, a checker program in C or Python with its
// convention), through the staff forms; the real engine grades with them. Bad
// settings are refused with a sentence; a TA or student cannot set them.
const test = require('node:test');
const assert = require('node:assert/strict');
const { TAG, as, postJson, postForm } = require('../helpers/staff');
const dbh = require('../helpers/db');

const PI = '#include <stdio.h>\nint main(void){ printf("%.4f\\n", 3.14159265); return 0; }\n';
// Kattis convention: accepts any line that reads "yes" in any case, and says so
const CHECKER = 'import sys, os\nout = sys.stdin.read().strip()\nwith open(os.path.join(sys.argv[3], "judgemessage.txt"), "w") as m:\n'
  + '    m.write("you wrote " + out)\nsys.exit(42 if out.lower() == "yes" else 43)\n';

let instr;
const made = [];
test.before(async () => { instr = await as('instructor'); });
test.after(async () => {
  for (const id of made) await dbh.q('DELETE FROM problems WHERE id = ?', [id]);
  await dbh.close();
});

async function problem(fields) {
  const p = await postJson(instr, '/problems', {
    title: `Grading ${TAG} ${made.length}`, category: 'test', statement_md: 'Print pi.', env: 'c', template_code: '',
    solution_code: PI, time_limit_ms: '1000', memory_limit_mb: '64', ...fields,
  });
  assert.equal(p.status, 201, p.text);
  made.push(p.json.id);
  return p.json.id;
}

test('the problem form offers every comparison mode, the tolerances and a checker with its language and convention', async () => {
  const page = await instr.get('/problems/new');
  assert.equal(page.status, 200);
  for (const m of ['trim', 'exact', 'whitespace', 'case', 'tokens', 'numbers', 'checker']) assert.match(page.text, new RegExp(`<option value="${m}"`));
  for (const name of ['abs_tolerance', 'rel_tolerance', 'checker_env', 'checker_interface', 'checker_code']) assert.match(page.text, new RegExp(`name="${name}"`));
  assert.match(page.text, /<option value="testlib"/);
});

test('a tolerance set on the problem grades numbers; a case overrides it with its own mode', async () => {
  const id = await problem({ compare_mode: 'numbers', abs_tolerance: '1e-3' });
  const row = (await dbh.q('SELECT compare_mode, abs_tolerance, rel_tolerance FROM problems WHERE id = ?', [id]))[0];
  assert.deepEqual({ ...row }, { compare_mode: 'numbers', abs_tolerance: 0.001, rel_tolerance: null });
  assert.equal((await postJson(instr, `/problems/${id}/tests`, { input: '', expected_output: '3.14159', visibility: 'visible', weight: '1' })).status, 201);
  assert.equal((await postJson(instr, `/problems/${id}/tests`, { input: '', expected_output: '3.14159', visibility: 'visible', weight: '1', compare_mode: 'exact' })).status, 201);
  const r = await postJson(instr, `/problems/${id}/check`, {});
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json.cases.map((c) => c.passed), [true, false]);
  // the page shows the case's own comparison
  const page = await instr.get(`/problems/${id}`);
  assert.match(page.text, /class="pill info case-compare">exact</);
});

test('a checker in Python decides, and its message comes back with the case', async () => {
  const id = await problem({ solution_code: '#include <stdio.h>\nint main(void){ puts("YES"); return 0; }\n', compare_mode: 'checker',
    checker_env: 'python3', checker_interface: 'kattis', checker_code: CHECKER });
  assert.equal((await postJson(instr, `/problems/${id}/tests`, { input: '', expected_output: 'yes', visibility: 'visible', weight: '1' })).status, 201);
  const r = await postJson(instr, `/problems/${id}/check`, {});
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.verdict, 'accepted', r.text);
  assert.equal(r.json.cases[0].feedback, 'you wrote YES');
  // the HTML page shows it too
  const page = await postForm(instr, `/problems/${id}/check`);
  assert.match(page.text, /class="io checker-feedback">you wrote YES</);
});

test('bad settings are refused with a sentence and nothing is stored', async () => {
  const before = (await dbh.q('SELECT COUNT(*) AS n FROM problems'))[0].n;
  for (const [fields, field, msg] of [
    [{ compare_mode: 'numbers', abs_tolerance: 'lots' }, 'abs_tolerance', /must be a number/],
    [{ compare_mode: 'numbers', rel_tolerance: '-1' }, 'rel_tolerance', /must be a number of 0 or more/],
    [{ compare_mode: 'checker' }, 'checker_code', /checker program is required/],
    [{ compare_mode: 'regex' }, 'compare_mode', /valid output comparison/],
    [{ compare_mode: 'checker', checker_code: 'x', checker_env: 'fortran' }, 'checker_env', /valid checker language/],
    [{ compare_mode: 'checker', checker_code: 'x', checker_interface: 'domjudge' }, 'checker_interface', /valid checker convention/],
  ]) {
    const r = await postJson(instr, '/problems', { title: `Bad ${TAG}`, statement_md: 'x', env: 'c', solution_code: 'x', time_limit_ms: '1000', memory_limit_mb: '64', ...fields });
    assert.equal(r.status, 400, `${JSON.stringify(fields)}: ${r.text}`);
    assert.match(JSON.stringify(r.json), msg, field);
  }
  assert.equal((await dbh.q('SELECT COUNT(*) AS n FROM problems'))[0].n, before);
});

test('a TA and a student cannot set a problem\'s checker', async () => {
  const id = await problem({ compare_mode: 'trim' });
  for (const role of ['ta', 'student01']) {
    const who = await as(role);
    const r = await postJson(who, `/problems/${id}`, { title: 'x', statement_md: 'x', env: 'c', solution_code: 'x', time_limit_ms: '1000',
      memory_limit_mb: '64', compare_mode: 'checker', checker_code: 'int main(void){return 42;}' });
    assert.ok([302, 403, 404].includes(r.status), `${role}: ${r.status}`);
  }
  assert.equal((await dbh.q('SELECT compare_mode, checker_code FROM problems WHERE id = ?', [id]))[0].checker_code, null);
});
