// The restore drill (backup/test.sh runs it): students save through HAProxy with real
// sessions while a full backup is taken; saves go on; then MariaDB's data directory
// and local binlog are destroyed and `bin/prutor restore` brings the database back:
//   1. to the last second: every acknowledged save is there exactly once (same row id),
//      and the stack serves again (a student saves after it);
//   2. to a moment AT between two saves, before an instructor's mistaken delete of an
//      event: the first save and the event are there, the second save is not.
// Env (backup/test.sh): ROOT, BASE_URL, USERS_CSV, RUN, SAVE_SECONDS, DB_* (the app user).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');
const { promisify } = require('node:util');

const ROOT = process.env.ROOT;
const mysql = require(path.join(ROOT, 'webapp', 'node_modules', 'mysql2', 'promise'));
const { MongoClient } = require(path.join(ROOT, 'nosql', 'node_modules', 'mongodb'));
const execFileP = promisify(execFile);
const { students: readStudents, stored, checkAll: check, sleep } = require('./students');
const RUN = process.env.RUN;
const SAVE_SECONDS = Number(process.env.SAVE_SECONDS || 5);
const log = (m) => console.log(`drill: ${m}`);
const checkAll = (byToken, acked, what) => check(byToken, acked, what, log);
const prutor = (...args) => execFileP(path.join(ROOT, 'bin', 'prutor'), args, { maxBuffer: 1 << 24, timeout: 600000 });

// The status file says the shipped binlog holds everything the server has written.
async function waitShipped(since) {
  const file = process.env.BACKUP_STATUS_FILE;
  for (let i = 0; i < 120; i++) {
    try {
      const s = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (s.binlog.lag_bytes === 0 && Date.parse(s.binlog.in_sync_at) >= since) return s;
    } catch { /* being replaced */ }
    await sleep(250);
  }
  throw new Error('the binlog was not shipped within 30 s (backup status file)');
}

(async () => {
  const students = readStudents(process.env.USERS_CSV);
  await Promise.all(students.map((s) => s.login()));
  const dbConf = { host: process.env.DB_HOST, port: Number(process.env.DB_PORT), user: process.env.DB_USER, password: process.env.DB_PASSWORD, database: process.env.DB_NAME };
  const mongo = new MongoClient(process.env.MONGO_URL); await mongo.connect();
  await mongo.db().collection('backup_drill').insertOne({ run: RUN, note: 'in the full backup' });

  // 1. students save under load; a full backup mid-run; saves go on
  const acked = new Map();
  let stop = false;
  const workers = students.map(async (s) => {
    while (!stop) {
      const r = await s.save();
      if (r) acked.set(r.token, r.code_id);
      await sleep(20 + Math.random() * 80);
    }
  });
  await sleep(SAVE_SECONDS * 1000 / 2);
  const before = acked.size;
  const t0 = Date.now();
  await prutor('backup');
  log(`full backup taken mid-run in ${Date.now() - t0} ms (${before} saves acknowledged before it, ${acked.size - before} during it)`);
  const atFull = acked.size;
  await sleep(SAVE_SECONDS * 1000 / 2);
  stop = true; await Promise.all(workers);
  assert.ok(acked.size > atFull, 'saves went on after the full backup');

  // 2. two saves a second or more apart, AT between them; an event deleted by mistake after AT
  let db = await mysql.createConnection(dbConf);
  const [ev] = await db.query("INSERT INTO events (title, type, description) VALUES (?, 'lab', 'backup drill')", [`Drill ${RUN}`]);
  const first = await students[0].save('pitr-first');
  await sleep(1100 + (1000 - (Date.now() % 1000)));                 // into the next whole second, and past it
  const at = new Date(Math.floor(Date.now() / 1000) * 1000);
  await sleep(1100 + (1000 - (Date.now() % 1000)));
  const second = await students[0].save('pitr-second');
  await db.query('DELETE FROM events WHERE id = ?', [ev.insertId]);
  const [[{ gtid: deleteGtid }]] = await db.query('SELECT @@last_gtid AS gtid');
  acked.set(first.token, first.code_id); acked.set(second.token, second.code_id);
  await db.end();
  const atText = at.toISOString().slice(0, 19).replace('T', ' ');
  log(`${acked.size} saves acknowledged in all; AT = ${atText} UTC (between ${first.token} and ${second.token})`);
  await waitShipped(Date.now());

  // 3. the database destroyed: server stopped, data directory and local binlog deleted
  const ctl = ['-c', path.join(process.env.PRUTOR_VAR, 'conf', 'supervisord.conf')];
  await execFileP('supervisorctl', [...ctl, 'stop', 'mariadb']);
  fs.rmSync(path.join(process.env.PRUTOR_VAR, 'mariadb', 'data'), { recursive: true, force: true });
  fs.rmSync(path.join(process.env.PRUTOR_VAR, 'mariadb', 'binlog'), { recursive: true, force: true });
  await mongo.db().collection('backup_drill').deleteMany({ run: RUN });
  log('MariaDB stopped, its data directory and binlog deleted; the drill\'s MongoDB document deleted');

  // 4. restored to the last second
  let t = Date.now();
  const out = await prutor('restore', '--mongo');
  log(`restore to the last second: ${Date.now() - t} ms; ${out.stderr.trim().split('\n').filter((l) => /restored:/.test(l)).join('')}`);
  db = await mysql.createConnection(dbConf);
  checkAll(await stored(db), acked, 'restore to the last second');
  const [[evAfter]] = await db.query('SELECT COUNT(*) AS n FROM events WHERE id = ?', [ev.insertId]);
  assert.equal(evAfter.n, 0, 'the event deleted before the last second stays deleted');
  assert.equal(await mongo.db().collection('backup_drill').countDocuments({ run: RUN }), 1, 'the MongoDB data is back');
  await db.end();
  // the stack serves again: the same session saves (it lives in memcached)
  let again = null;
  for (let i = 0; i < 40 && !again; i++) { again = await students[1].save('after-restore').catch(() => null); if (!again) await sleep(500); }
  assert.ok(again, 'a student saves through HAProxy after the restore');

  // 5. point in time: AT, between the two saves and before the delete
  t = Date.now();
  await prutor('restore', '--at', atText);
  log(`point-in-time restore to ${atText}: ${Date.now() - t} ms`);
  db = await mysql.createConnection(dbConf);
  const byToken = await stored(db);
  assert.deepEqual(byToken.get(first.token), [first.code_id], 'the save before AT is there, once');
  assert.equal(byToken.get(second.token), undefined, 'the save after AT is not');
  const [[evBack]] = await db.query('SELECT title FROM events WHERE id = ?', [ev.insertId]);
  assert.equal(evBack && evBack.title, `Drill ${RUN}`, 'the event deleted after AT is back');
  checkAll(byToken, new Map([...acked].filter(([tk]) => tk !== second.token)), `restore to ${atText}`);
  await db.end();

  // 6. the mistaken delete undone: everything replayed but that one transaction
  t = Date.now();
  await prutor('restore', '--skip', deleteGtid);
  log(`restore leaving out the delete (${deleteGtid}): ${Date.now() - t} ms`);
  db = await mysql.createConnection(dbConf);
  const [[evSkip]] = await db.query('SELECT title FROM events WHERE id = ?', [ev.insertId]);
  assert.equal(evSkip && evSkip.title, `Drill ${RUN}`, 'the deleted event is back');
  checkAll(await stored(db), acked, `restore leaving out ${deleteGtid}`);
  await db.query('DELETE FROM events WHERE id = ?', [ev.insertId]);   // the drill's own
  await db.end();
  await mongo.db().collection('backup_drill').deleteMany({ run: RUN });
  await mongo.close();
  log('PASS');
})().catch((e) => { console.error(`drill: FAIL: ${e.stack || e.message}`); process.exit(1); });
