'use strict';
// Real traffic for monitoring/test.sh, through HAProxy's public front door, as students
// make it: its own section of students, problem and open exam (the webapp's test
// fixtures), then
//   node monitoring/traffic.js work           sign-ins, pages, saves, compile, execute, evaluate
//   node monitoring/traffic.js hold SECONDS   every student runs a program that sleeps until
//                                             its wall limit, again and again: the engine's
//                                             slots stay busy (and its queue full) for SECONDS
// Prints one JSON line of what it did. The fixtures are removed at the end.
const path = require('node:path');
const helpers = path.join(__dirname, '..', 'webapp', 'test', 'helpers');
const dbh = require(path.join(helpers, 'db'));
const exam = require(path.join(helpers, 'exam'));
const { Client } = require(path.join(helpers, 'http'));

const SLEEPER = '#include <unistd.h>\nint main(void) { sleep(60); return 0; }\n';
// new text each run, so a compile is a real one (not the engine's cache)
const HELLO = `/* ${process.pid}-${Date.now()} */\n#include <stdio.h>\nint main(void) { long a, b; if (scanf("%ld %ld", &a, &b) == 2) printf("%ld\\n", a + b); return 0; }\n`;

async function main() {
  const [mode = 'work', secondsArg = '30'] = process.argv.slice(2);
  const students = Number(process.env.TRAFFIC_STUDENTS || 4);
  const { sectionId, users } = await exam.makeSection(students);
  const problemId = await exam.makeProblem();
  // a sleeping run holds its slot until the wall limit (2 x CPU limit + 1 s): 13 s here
  await dbh.q('UPDATE problems SET time_limit_ms = 6000 WHERE id = ?', [problemId]);
  const { eventId } = await exam.makeExam({ title: 'Monitoring', sectionId, problemId, stopSec: 3600 });
  const counts = {};
  const count = (k) => { counts[k] = (counts[k] || 0) + 1; };
  try {
    const clients = await Promise.all(users.map(async (u) => {
      const c = new Client();
      await c.login(u);
      return { c, aid: await exam.assignment(eventId, u) };
    }));
    if (mode === 'work') {
      for (const { c, aid } of clients) {
        for (const url of ['/home', '/codebook', `/editor/${aid}`]) count(`GET ${(await c.get(url)).status}`);
        count(`save ${(await c.post('/editor/save', { form: { assignment_id: aid, trigger: 'manual', code: HELLO }, csrf: true })).status}`);
        count(`compile ${(await c.post('/compile', { json: { assignment_id: aid, code: HELLO }, csrf: true })).status}`);
        count(`execute ${(await c.post('/execute', { json: { assignment_id: aid, code: HELLO, input: '1 2\n' }, csrf: true })).status}`);
        count(`evaluate ${(await c.post('/evaluate', { json: { assignment_id: aid, code: HELLO }, csrf: true })).status}`);
      }
    } else if (mode === 'hold') {
      const until = Date.now() + Number(secondsArg) * 1000;
      await Promise.all(clients.map(async ({ c, aid }) => {
        while (Date.now() < until) {
          const r = await c.post('/execute', { json: { assignment_id: aid, code: SLEEPER }, csrf: true });
          count(`execute ${r.status}`);
          if (r.status !== 200) await new Promise((res) => setTimeout(res, 200)); // busy: at once again, as the editor does
        }
      }));
    } else {
      throw new Error(`unknown mode ${mode} (work | hold SECONDS)`);
    }
  } finally {
    await dbh.dropEvent(eventId).catch(() => {});
    await dbh.close();
  }
  console.log(JSON.stringify({ mode, students, counts }));
}

main().catch((err) => { console.error(err.stack || String(err)); process.exit(1); });
