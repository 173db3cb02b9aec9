'use strict';
// An instructor writes problems in each language the engine offers (C, C++, Python 3, Java,
// JavaScript, PHP, Pascal): the problem form offers them with a template each, the reference
// solution of each passes its test cases through the real engine, and a language the engine
// does not offer is refused.
const test = require('node:test');
const assert = require('node:assert/strict');
const { TAG, as, postJson } = require('../helpers/staff');
const dbh = require('../helpers/db');

const SOLUTIONS = {
  c: '#include <stdio.h>\nint main(void){long a,b;if(scanf("%ld %ld",&a,&b)!=2)return 1;printf("%ld\\n",a*b);return 0;}\n',
  cpp: '#include <iostream>\nint main(){long a,b;std::cin>>a>>b;std::cout<<a*b<<"\\n";}\n',
  python3: 'a, b = map(int, input().split())\nprint(a * b)\n',
  java: 'import java.util.Scanner;\npublic class Product {\n  public static void main(String[] args) {\n    Scanner in = new Scanner(System.in);\n    System.out.println(in.nextLong() * in.nextLong());\n  }\n}\n',
  nodejs: "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(a * b);\n",
  php: '<?php\n[$a, $b] = array_map(\'intval\', preg_split(\'/\\s+/\', trim(stream_get_contents(STDIN))));\necho $a * $b, "\\n";\n',
  pascal: 'program Product;\nvar a, b: int64;\nbegin\n  readln(a, b);\n  writeln(a * b);\nend.\n',
};
const NAMES = { c: 'C (gcc)', cpp: 'C++ (g++)', python3: 'Python 3', java: 'Java 17 (OpenJDK)', nodejs: 'JavaScript (Node.js)', php: 'PHP 8.2 (CLI)', pascal: 'Pascal (Free Pascal)' };

let instr;
const made = [];
test.before(async () => { instr = await as('instructor'); });
test.after(async () => {
  for (const id of made) {
    await dbh.q('DELETE FROM test_cases WHERE problem_id = ?', [id]);
    await dbh.q('DELETE FROM problems WHERE id = ?', [id]);
  }
  await dbh.close();
});

test('the problem form offers every language, each with its template', async () => {
  const page = await instr.get('/problems/new');
  assert.equal(page.status, 200);
  for (const [slug, label] of Object.entries(NAMES)) {
    assert.match(page.text, new RegExp(`<option value="${slug}"[^>]*>${label.replace(/[()+.]/g, '\\$&')}</option>`));
  }
  // the templates the form switches between (client/app.js), as data, never as script
  const json = /<script type="application\/json" id="env-templates">([^<]*)<\/script>/.exec(page.text);
  assert.ok(json, 'the form carries the templates');
  const templates = JSON.parse(json[1]);
  assert.match(templates.java, /public class Main/);
  assert.match(templates.python3, /def main/);
  assert.match(templates.php, /^<\?php/);
  assert.match(page.text, /<select id="f-env" name="env"[^>]*data-templates="env-templates"/);
  // a new problem starts as C with C's template
  assert.match(page.text, /<option value="c" selected>/);
});

for (const env of Object.keys(SOLUTIONS)) {
  test(`a ${env} problem: its reference solution passes through the engine`, async () => {
    const p = await postJson(instr, '/problems', {
      title: `Product ${env} ${TAG}`, category: 'test', statement_md: 'Multiply.', env, template_code: '',
      solution_code: SOLUTIONS[env], time_limit_ms: '2000', memory_limit_mb: '256', compare_mode: 'trim',
    });
    assert.equal(p.status, 201, p.text);
    made.push(p.json.id);
    assert.equal((await dbh.q('SELECT env FROM problems WHERE id = ?', [p.json.id]))[0].env, env);
    for (const [input, out, vis] of [['6 7', '42', 'visible'], ['-3 5', '-15', 'hidden']]) {
      assert.equal((await postJson(instr, `/problems/${p.json.id}/tests`, { input, expected_output: out, visibility: vis, weight: '1' })).status, 201);
    }
    const r = await postJson(instr, `/problems/${p.json.id}/check`, {});
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.verdict, 'accepted', r.text);
    assert.equal(r.json.passed, 2);
  });
}

test('a language the engine does not offer is refused', async () => {
  const r = await postJson(instr, '/problems', {
    title: `Cobol ${TAG}`, statement_md: 'x', env: 'cobol', solution_code: 'x', time_limit_ms: '1000', memory_limit_mb: '64',
  });
  assert.equal(r.status, 400, r.text);
});

test('programs of several files: staff give a C problem its main and a header, the reference solution is only the function', async () => {
  const p = await postJson(instr, '/problems', {
    title: `Two files ${TAG}`, category: 'test', statement_md: 'Write twice().', env: 'c', template_code: '',
    solution_code: '#include "twice.h"\nlong twice(long x) { return 2 * x; }\n', time_limit_ms: '2000', memory_limit_mb: '64', compare_mode: 'trim',
  });
  assert.equal(p.status, 201, p.text);
  made.push(p.json.id);
  const files = `/problems/${p.json.id}/files`;
  const put = (body) => postJson(instr, files, body);
  assert.equal((await put({ name: 'twice.h', contents: 'long twice(long x);\n', shown_to_students: '1' })).status, 201);
  assert.equal((await put({ name: 'harness.c', contents: '#include <stdio.h>\n#include "twice.h"\nint main(void){long x; while (scanf("%ld",&x)==1) printf("%ld\\n", twice(x)); return 0;}\n' })).status, 201);
  // refused, each with its sentence: the student's own file, the program, a path, too many bytes
  for (const [body, why] of [[{ name: 'main.c', contents: 'x' }, /student's own file/], [{ name: 'prog', contents: 'x' }, /compiled program/],
    [{ name: '../etc/passwd', contents: 'x' }, /file name/], [{ name: 'big.txt', contents: 'x'.repeat(64 * 1024 + 1) }, /at most 64 KiB/]]) {
    const r = await put(body);
    assert.equal(r.status, 400, r.text);
    assert.match(r.text, why);
  }
  assert.equal((await postJson(instr, `/problems/${p.json.id}/tests`, { input: '21', expected_output: '42', visibility: 'visible', weight: '1' })).status, 201);
  const r = await postJson(instr, `/problems/${p.json.id}/check`, {});
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.verdict, 'accepted', r.text);
  const page = await instr.get(files);
  assert.equal(page.status, 200);
  assert.match(page.text, /<code>harness\.c<\/code>/);
  // deleting the harness leaves the function without a main: the check now fails to link
  const [{ id }] = await dbh.q("SELECT id FROM problem_files WHERE problem_id = ? AND name = 'harness.c'", [p.json.id]);
  assert.equal((await postJson(instr, `${files}/${id}/delete`, {})).status, 200);
  const after = await postJson(instr, `/problems/${p.json.id}/check`, {});
  assert.equal(after.json.verdict, 'compilation_error', after.text);
});

test('a student cannot reach the support files pages', async () => {
  const student = await as('student01');
  const [p] = await dbh.q('SELECT id FROM problems ORDER BY id LIMIT 1');
  assert.equal((await student.get(`/problems/${p.id}/files`)).status, 403);
  assert.equal((await postJson(student, `/problems/${p.id}/files`, { name: 'x.txt', contents: 'x' })).status, 403);
});
