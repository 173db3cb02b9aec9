// The failover drill (backup/test.sh runs it after `bin/prutor standby up`): students
// save through HAProxy while the standby receives every commit semi-synchronously; the
// primary is killed (SIGKILL) mid-run; `bin/prutor failover` fences it and promotes the
// standby in its place; the students' saves go on (retried, same client id). Then every
// acknowledged save is there exactly once, and the recovery time is printed (from the
// kill to the first save acknowledged again, as a student sees it).
// Env (backup/test.sh): ROOT, BASE_URL, USERS_CSV, RUN, SAVE_SECONDS, DB_*, PRUTOR_VAR.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');
const { promisify } = require('node:util');

const ROOT = process.env.ROOT;
process.env.RUN = `${process.env.RUN}fo`;          // markers of its own, apart from the restore drill's
const mysql = require(path.join(ROOT, 'webapp', 'node_modules', 'mysql2', 'promise'));
const { students: readStudents, stored, checkAll, sleep } = require('./students');
const execFileP = promisify(execFile);
const SAVE_SECONDS = Number(process.env.SAVE_SECONDS || 6);
const log = (m) => console.log(`failover: ${m}`);
const prutor = (...args) => execFileP(path.join(ROOT, 'bin', 'prutor'), args, { maxBuffer: 1 << 24, timeout: 600000 });

(async () => {
  const students = readStudents(process.env.USERS_CSV);
  await Promise.all(students.map((s) => s.login()));
  const status = JSON.parse((await prutor('standby', 'status')).stdout);
  assert.equal(status.io, 'Yes', `the standby receives (${JSON.stringify(status)})`);
  assert.equal(status.primary_semi_sync, 'ON', 'the primary waits for the standby');

  const acked = new Map();
  let stop = false; let killedAt = 0; let firstAfter = 0;
  const workers = students.map(async (s) => {
    s.patience = 200;                                  // keep retrying through the failover
    while (!stop) {
      const started = Date.now();
      const r = await s.save();
      if (r) {
        acked.set(r.token, r.code_id);
        // a save sent after the kill: the answer of one sent before may still arrive
        if (killedAt && !firstAfter && started > killedAt) firstAfter = Date.now();
      }
      await sleep(20 + Math.random() * 80);
    }
  });
  await sleep(SAVE_SECONDS * 1000 / 2);
  const before = acked.size;
  const mid = JSON.parse((await prutor('standby', 'status')).stdout);
  assert.ok(Number(mid.acked_by_standby_tx) > 0 && mid.primary_semi_sync === 'ON', `commits acknowledged by the standby (${JSON.stringify(mid)})`);
  const pid = Number(fs.readFileSync(path.join(process.env.PRUTOR_VAR, 'run', 'mariadb.pid'), 'utf8'));
  killedAt = Date.now();
  process.kill(pid, 'SIGKILL');
  log(`primary (pid ${pid}) killed after ${before} acknowledged saves`);
  const out = await prutor('failover');
  log(out.stderr.trim().split('\n').filter((l) => /serving again/.test(l)).join(''));
  const promotedAt = Date.now();
  while (!firstAfter && Date.now() - promotedAt < 60000) await sleep(50);
  await sleep(SAVE_SECONDS * 1000 / 2);
  stop = true; await Promise.all(workers);
  assert.ok(firstAfter, 'saves are acknowledged again after the failover');
  log(`recovery time: ${firstAfter - killedAt} ms from the kill to the first save acknowledged again`);
  const db = await mysql.createConnection({ host: process.env.DB_HOST, port: Number(process.env.DB_PORT), user: process.env.DB_USER, password: process.env.DB_PASSWORD, database: process.env.DB_NAME });
  const [[ro]] = await db.query('SELECT @@read_only AS ro, @@server_id AS id');
  assert.equal(ro.ro, 0, 'the promoted server takes writes');
  checkAll(await stored(db), acked, 'after the failover', log);
  await db.end();
  log('PASS');
})().catch((e) => { console.error(`failover: FAIL: ${e.stack || e.message}`); process.exit(1); });
