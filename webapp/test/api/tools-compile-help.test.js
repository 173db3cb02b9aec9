'use strict';
// Compile-error help (issue 16) through HAProxy and the real engine: gcc's messages
// come back with the rule-based helper's plainer explanation next to them.
const test = require('node:test');
const assert = require('node:assert/strict');
const { as, TAG } = require('../helpers/staff');
const dbh = require('../helpers/db');
const { seedExam, dropExam } = require('../helpers/tools');

let exam;
test.before(async () => { exam = await seedExam({ tag: `ch${TAG}`, students: 1 }); });
test.after(async () => { await dropExam(exam); await dbh.close(); });

test('a compile error comes back with its plain explanation; a clean compile has none', async () => {
  const c = await as(exam.users[0].username);
  const compile = (code) => c.request('POST', '/compile', { json: { assignment_id: exam.users[0].assignmentId, code }, csrf: true });
  const bad = await compile('#include <stdio.h>\nint main(void) {\n    int n;\n    scanf("%d", n);\n    printf("%d\\n", n)\n    return 0;\n}\n');
  assert.equal(bad.status, 200, bad.text);
  assert.equal(bad.json.compiled, false);
  const semi = bad.json.messages.find((m) => /before .return/.test(m.text));
  assert.ok(semi, JSON.stringify(bad.json.messages));
  assert.match(semi.help, /semicolon is missing/);
  const amp = bad.json.messages.find((m) => /expects argument of type .int \*./.test(m.text));
  assert.match(amp.help, /write `&` before it/);
  const ok = await compile('#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n');
  assert.equal(ok.json.compiled, true);
  assert.deepEqual(ok.json.messages, []);
});
