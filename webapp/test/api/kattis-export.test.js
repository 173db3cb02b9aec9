'use strict';
// Issue 29: a problem exported as a Kattis problem package is checked by a tool no one
// here wrote, Kattis' problemtools (`verifyproblem`, installed by install.sh
// --with-test-tools): configuration, test data, the input and output validators, and the
// reference solution run against the data must pass. The statement part is left out: it
// renders through LaTeX (lualatex), a large install this suite does without. What the
// format cannot hold is refused with a sentence.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFile } = require('node:child_process');
const { unzipSync } = require('fflate');
const { TAG, as, postJson } = require('../helpers/staff');
const dbh = require('../helpers/db');

const VERIFY = process.env.VERIFYPROBLEM || path.join(process.env.PRUTOR_VAR || path.resolve(__dirname, '../../../var'), 'problemtools/bin/verifyproblem');
const SUM = '#include <stdio.h>\nint main(void){long a,b;if(scanf("%ld %ld",&a,&b)!=2)return 1;printf("%ld\\n",a+b);return 0;}\n';
const AVG = '#include <stdio.h>\nint main(void){double a,b;if(scanf("%lf %lf",&a,&b)!=2)return 1;printf("%.6f\\n",(a+b)/3.0);return 0;}\n';
// Kattis convention, in C: any two integers x y with x + y equal to the input's sum
const CHECKER = `#include <stdio.h>
int main(int argc, char **argv) {
    long a, b, x, y; FILE *in = fopen(argv[1], "r");
    if (!in || fscanf(in, "%ld %ld", &a, &b) != 2) return 1;
    if (scanf("%ld %ld", &x, &y) != 2) return 43;
    return x + y == a + b ? 42 : 43;
}
`;
const PAIR = '#include <stdio.h>\nint main(void){long a,b;if(scanf("%ld %ld",&a,&b)!=2)return 1;printf("%ld 0\\n",a+b);return 0;}\n';

let instr;
const made = [];
test.before(async () => { instr = await as('instructor'); });
test.after(async () => {
  for (const id of made) await dbh.q('DELETE FROM problems WHERE id = ?', [id]);
  await dbh.close();
});

async function problem(fields, cases) {
  const p = await postJson(instr, '/problems', { title: `Export ${made.length} ${TAG}`, category: 'test', statement_md: 'Read *a* and *b*.', env: 'c',
    template_code: '', time_limit_ms: '1000', memory_limit_mb: '256', ...fields });
  assert.equal(p.status, 201, p.text);
  made.push(p.json.id);
  for (const [input, out, vis, extra] of cases) {
    const r = await postJson(instr, `/problems/${p.json.id}/tests`, { input, expected_output: out, visibility: vis, weight: '1', ...(extra || {}) });
    assert.equal(r.status, 201, r.text);
  }
  return p.json.id;
}

// Downloads the package, unzips it into a fresh folder and returns that folder.
async function download(id) {
  // binary: straight through fetch with the instructor's session (the helper reads text)
  const r = await fetch(`${instr.base}/problems/${id}/kattis.zip`, { headers: { cookie: instr.cookieHeader() } });
  assert.equal(r.status, 200, await r.clone().text());
  assert.match(r.headers.get('content-type'), /application\/zip/);
  assert.match(r.headers.get('content-disposition'), /^attachment; filename="export\d+\w+\.zip"$/);
  const files = unzipSync(new Uint8Array(await r.arrayBuffer()));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prutor-kattis-'));
  for (const [name, data] of Object.entries(files)) {
    fs.mkdirSync(path.join(dir, path.dirname(name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), data);
  }
  const [root] = fs.readdirSync(dir);
  return path.join(dir, root);
}

function verify(dir) {
  return new Promise((resolve) => {
    execFile(VERIFY, [dir, '-p', 'config', 'data', 'validators', 'submissions'], { timeout: 120000 }, (err, stdout, stderr) => {
      resolve({ code: err ? err.code : 0, out: `${stdout}${stderr}` });
    });
  });
}

test('problemtools is installed for this suite', () => {
  assert.ok(fs.existsSync(VERIFY), `verifyproblem at ${VERIFY}: run webapp/install.sh --with-test-tools`);
});

test('a problem compared as numbers within a tolerance passes verifyproblem', async () => {
  const id = await problem({ solution_code: AVG, compare_mode: 'numbers', abs_tolerance: '1e-4', rel_tolerance: '1e-6' },
    [['1 2', '1.0', 'visible'], ['0 0\n', '0\n', 'visible'], ['10 20\n', '10.00001\n', 'hidden']]);
  const dir = await download(id);
  assert.equal(fs.readFileSync(path.join(dir, 'data/testdata.yaml'), 'utf8'), 'output_validator_flags: "case_sensitive float_absolute_tolerance 0.0001 float_relative_tolerance 0.000001"\n');
  assert.equal(fs.readFileSync(path.join(dir, 'data/sample/01.in'), 'utf8'), '1 2\n', 'a line of input ends in a newline');
  assert.ok(fs.existsSync(path.join(dir, 'data/secret/01.ans')));
  assert.match(fs.readFileSync(path.join(dir, 'problem.yaml'), 'utf8'), /time_limit: 1\n {2}memory: 256\n/);
  const r = await verify(dir);
  assert.match(r.out, /tested: 0 errors/, r.out);
});

test('a problem with an output validator (the instructor\'s C checker) passes verifyproblem', async () => {
  const id = await problem({ solution_code: PAIR, compare_mode: 'checker', checker_env: 'c', checker_interface: 'kattis', checker_code: CHECKER },
    [['1 2\n', '3 0\n', 'visible'], ['-5 5\n', '0 0\n', 'hidden'], ['7 8\n', '15 0\n', 'hidden']]);
  const dir = await download(id);
  assert.equal(fs.readFileSync(path.join(dir, 'output_validator/validator.c'), 'utf8'), CHECKER);
  assert.ok(!fs.existsSync(path.join(dir, 'data/testdata.yaml')));
  const r = await verify(dir);
  assert.match(r.out, /tested: 0 errors/, r.out);
});

test('verifyproblem is a real judge: a checker that rejects the reference solution fails it', async () => {
  const id = await problem({ solution_code: SUM, compare_mode: 'checker', checker_env: 'c', checker_interface: 'kattis',
    checker_code: 'int main(void) { return 43; }\n' }, [['1 2\n', '3\n', 'visible']]);
  const r = await verify(await download(id));
  assert.doesNotMatch(r.out, /tested: 0 errors/, r.out);
  assert.match(r.out, /WA|Wrong/i);
});

test('what a Kattis package cannot hold is refused with a sentence', async () => {
  const testlib = await problem({ solution_code: SUM, compare_mode: 'checker', checker_env: 'c', checker_interface: 'testlib', checker_code: 'int main(void){return 0;}\n' },
    [['1 2\n', '3\n', 'visible']]);
  let r = await instr.request('GET', `/problems/${testlib}/kattis.zip`, { headers: { accept: 'application/json' } });
  assert.equal(r.status, 409);
  assert.match(r.json.error, /testlib/);
  const own = await problem({ solution_code: SUM }, [['1 2\n', '3\n', 'visible'], ['1 2\n', '3\n', 'hidden', { compare_mode: 'exact' }]]);
  r = await instr.request('GET', `/problems/${own}/kattis.zip`, { headers: { accept: 'application/json' } });
  assert.equal(r.status, 409);
  assert.match(r.json.error, /test case 2 has a comparison of its own/);
  const ta = await as('ta');
  assert.notEqual((await ta.request('GET', `/problems/${own}/kattis.zip`)).status, 200, 'a TA cannot export');
});

// ---------------------------------------------------------------- import
const { zipSync, strToU8 } = require('fflate');

function zipOf(files, root = 'pkg') {
  const tree = {};
  for (const [n, t] of Object.entries(files)) tree[`${root}/${n}`] = strToU8(t);
  return Buffer.from(zipSync(tree));
}
const importPkg = (client, buf) => client.request('POST', '/problems/import', { body: buf, csrf: true, headers: { 'content-type': 'application/zip', accept: 'application/json' } });
const evaluate = (problemId, code) => instr.request('POST', '/evaluate', { json: { problem_id: problemId, code }, csrf: true, headers: { accept: 'application/json' } });

// A package in the legacy format written as Kattis' own examples are: a LaTeX statement,
// a float tolerance, a test group, accepted and wrong-answer submissions.
const HALVES = {
  'problem.yaml': 'name: Halves\nsource: Prutor tests\nlicense: cc by-sa\nvalidator_flags: float_tolerance 1e-6\n',
  'problem_statement/problem.en.tex': '\\problemname{Halves}\nPrint half of $n$.\n',
  'data/sample/1.in': '3\n', 'data/sample/1.ans': '1.5\n',
  'data/secret/group1/1.in': '10\n', 'data/secret/group1/1.ans': '5.0\n',
  'data/secret/group1/2.in': '-7\n', 'data/secret/group1/2.ans': '-3.5000001\n',
  'submissions/accepted/half.py': 'print(int(input()) / 2)\n',
  'submissions/accepted/half.c': '#include <stdio.h>\nint main(void){double n; scanf("%lf",&n); printf("%.9f\\n", n/2); return 0;}\n',
  'submissions/wrong_answer/floor.c': '#include <stdio.h>\nint main(void){long n; scanf("%ld",&n); printf("%ld\\n", n/2); return 0;}\n',
};

test('a legacy package imports, and grades its accepted and wrong-answer submissions as its folders say', async () => {
  const r = await importPkg(instr, zipOf(HALVES));
  assert.equal(r.status, 201, r.text);
  made.push(r.json.id);
  assert.equal(r.json.tests, 3);
  assert.ok(r.json.warnings.some((w) => /LaTeX/.test(w)), r.text);
  assert.ok(r.json.warnings.some((w) => /no time limit/.test(w)), r.text);
  const p = (await dbh.q('SELECT title, env, compare_mode, abs_tolerance, rel_tolerance, statement_md FROM problems WHERE id = ?', [r.json.id]))[0];
  assert.deepEqual([p.title, p.env, p.compare_mode, p.abs_tolerance, p.rel_tolerance], ['Halves', 'c', 'numbers', 1e-6, 1e-6]);
  assert.doesNotMatch(p.statement_md, /problemname/);
  const vis = await dbh.q('SELECT visibility, input FROM test_cases WHERE problem_id = ? ORDER BY position', [r.json.id]);
  assert.deepEqual(vis.map((t) => [t.visibility, t.input]), [['visible', '3\n'], ['hidden', '10\n'], ['hidden', '-7\n']]);
  for (const [file, verdict] of [['submissions/accepted/half.py', 'accepted'], ['submissions/accepted/half.c', 'accepted'], ['submissions/wrong_answer/floor.c', 'wrong_answer']]) {
    const env = file.endsWith('.py') ? 'python3' : 'c';
    await dbh.q('UPDATE problems SET env = ? WHERE id = ?', [env, r.json.id]);
    const e = await evaluate(r.json.id, HALVES[file]);
    assert.equal(e.status, 200, e.text);
    assert.equal(e.json.verdict === 'hidden_failed' ? 'wrong_answer' : e.json.verdict, verdict, `${file}: ${e.text}`);
  }
});

test('an exported package imports back as the same problem, its checker included', async () => {
  const id = await problem({ solution_code: PAIR, compare_mode: 'checker', checker_env: 'c', checker_interface: 'kattis', checker_code: CHECKER },
    [['1 2\n', '3 0\n', 'visible'], ['-5 5\n', '0 0\n', 'hidden']]);
  const r0 = await fetch(`${instr.base}/problems/${id}/kattis.zip`, { headers: { cookie: instr.cookieHeader() } });
  const r = await importPkg(instr, Buffer.from(await r0.arrayBuffer()));
  assert.equal(r.status, 201, r.text);
  made.push(r.json.id);
  assert.deepEqual(r.json.warnings, []);
  const cols = 'title, env, solution_code, time_limit_ms, memory_limit_kb, compare_mode, checker_env, checker_interface, checker_code, statement_md';
  const [a] = await dbh.q(`SELECT ${cols} FROM problems WHERE id = ?`, [id]);
  const [b] = await dbh.q(`SELECT ${cols} FROM problems WHERE id = ?`, [r.json.id]);
  assert.deepEqual({ ...b, statement_md: b.statement_md.trim() }, { ...a, statement_md: a.statement_md.trim() });
  const tc = async (pid) => (await dbh.q('SELECT input, expected_output, visibility FROM test_cases WHERE problem_id = ? ORDER BY position', [pid])).map((t) => ({ ...t }));
  assert.deepEqual(await tc(r.json.id), await tc(id));
  const check = await postJson(instr, `/problems/${r.json.id}/check`, {});
  assert.equal(check.json.verdict, 'accepted', check.text);
});

test('a bad package is refused with the file and line at fault', async () => {
  for (const [files, msg] of [
    [{ ...HALVES, 'problem.yaml': 'name: Halves\nlimits:\n  time_limit: [2\nvalidator_flags: x\n' }, /problem\.yaml line \d+: /],
    [{ ...HALVES, 'data/secret/group1/2.ans': undefined }, /data\/secret\/group1\/2\.in: has no answer file/],
    [{ ...HALVES, 'problem.yaml': undefined }, /problem\.yaml: is missing/],
    [{ ...HALVES, 'submissions/accepted/half.py': undefined, 'submissions/accepted/half.c': undefined }, /submissions\/accepted: holds no solution/],
    [{ ...HALVES, 'problem.yaml': 'name: Halves\nvalidation: custom\n', 'output_validators/v/v.c': 'int main(void){return 42;}\n', 'output_validators/v/w.c': '\n' }, /must be one C, C\+\+ or Python source/],
    [{ ...HALVES, 'problem.yaml': 'name: Guess\ntype: interactive\n' }, /problem\.yaml: is of type interactive/],
  ]) {
    const clean = Object.fromEntries(Object.entries(files).filter(([, v]) => v !== undefined));
    const r = await importPkg(instr, zipOf(clean));
    assert.equal(r.status, 400, r.text);
    assert.match(r.json.error, msg);
  }
  const junk = await importPkg(instr, Buffer.from('not a zip at all'));
  assert.equal(junk.status, 400);
  assert.match(junk.json.error, /not a zip file/);
  const ta = await as('ta');
  assert.notEqual((await importPkg(ta, zipOf(HALVES))).status, 201, 'a TA cannot import');
});

// Kattis' own example problems (problemtools' source distribution, unpacked by install.sh
// --with-test-tools): imported, each submission in C, C++ or Python 3 under accepted/ is
// accepted and each under wrong_answer/ is not. Python 2 and other languages are not
// offered here; "guess" is interactive and refused.
const EXAMPLES = path.join(path.dirname(path.dirname(VERIFY)), 'examples');
const ENV_OF = { c: 'c', cc: 'cpp', cpp: 'cpp', py: 'python3' };

function zipDir(dir) {
  const tree = {};
  const walk = (d, rel) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name), `${rel}${e.name}/`);
      else tree[`${rel}${e.name}`] = new Uint8Array(fs.readFileSync(path.join(d, e.name)));
    }
  };
  walk(dir, `${path.basename(dir)}/`);
  return Buffer.from(zipSync(tree));
}

for (const name of ['hello', 'different', 'oddecho']) {
  test(`Kattis' example "${name}" imports and grades its submissions as its folders say`, { timeout: 240000 }, async () => {
    assert.ok(fs.existsSync(path.join(EXAMPLES, name)), `${EXAMPLES}/${name}: run webapp/install.sh --with-test-tools`);
    const r = await importPkg(instr, zipDir(path.join(EXAMPLES, name)));
    assert.equal(r.status, 201, r.text);
    made.push(r.json.id);
    let ran = 0;
    for (const folder of ['accepted', 'wrong_answer']) {
      const dir = path.join(EXAMPLES, name, 'submissions', folder);
      for (const file of fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []) {
        const env = ENV_OF[file.split('.').pop()];
        if (!env || /py2/.test(file)) continue;
        await dbh.q('UPDATE problems SET env = ? WHERE id = ?', [env, r.json.id]);
        const e = await evaluate(r.json.id, fs.readFileSync(path.join(dir, file), 'utf8'));
        assert.equal(e.status, 200, `${folder}/${file}: ${e.text}`);
        if (folder === 'accepted') assert.equal(e.json.verdict, 'accepted', `${folder}/${file}: ${JSON.stringify(e.json.checker_errors || e.json.cases.find((c) => !c.passed))}`);
        else assert.notEqual(e.json.verdict, 'accepted', `${folder}/${file}`);
        ran++;
      }
    }
    assert.ok(ran >= 2, `${name}: ${ran} submissions graded`);
  });
}

test('Kattis\' interactive example "guess" is refused with the reason', async () => {
  const r = await importPkg(instr, zipDir(path.join(EXAMPLES, 'guess')));
  assert.equal(r.status, 400);
  assert.match(r.json.error, /problem\.yaml: is of type interactive/);
});
