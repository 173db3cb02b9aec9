'use strict';
// A revocation memcached does not take: its deletes fail, memcached comes
// back with the revoked copy still there, and that copy must be refused until the
// retry deletes it. memcached is an in-memory stand-in whose del can fail; MariaDB a
// stand-in that answers the few statements session.js sends (their SQL is not run here).
const test = require('node:test');
const assert = require('node:assert/strict');
const { createSessions, cookieValue } = require('../../src/shared/session');

const SECRET = 'unit-test-secret-0123456789';

function fakeMemcached() {
  const data = new Map();
  const mc = {
    data,
    delFails: false,
    get: async (k) => data.get(k),
    set: async (k, v) => { data.set(k, v); },
    del: async (k) => {
      if (mc.delFails) throw Object.assign(new Error('unavailable'), { cause: new Error('connect ETIMEDOUT') });
      data.delete(k);
    },
  };
  return mc;
}

// Rows without expiry: every row here is live.
function fakeDb() {
  const sessions = new Map();
  const revocations = new Map();
  const query = async (sql, p = []) => {
    const q = sql.replace(/\s+/g, ' ').trim();
    if (q.startsWith('INSERT INTO sessions ')) { sessions.set(p[0], { id: p[0], user_id: p[1], sid_sealed: p[2], data: p[3] }); return {}; }
    if (q.startsWith('SELECT data FROM sessions WHERE id = ?')) return sessions.has(p[0]) ? [sessions.get(p[0])] : [];
    if (q.startsWith('SELECT id, sid_sealed FROM sessions WHERE user_id = ?')) return [...sessions.values()].filter((r) => r.user_id === p[0]);
    if (q === 'DELETE FROM sessions WHERE id = ?') { sessions.delete(p[0]); return {}; }
    if (q.startsWith('DELETE FROM sessions WHERE user_id = ? AND id IN')) { p.slice(1).forEach((id) => sessions.delete(id)); return {}; }
    if (q.startsWith('INSERT INTO session_revocations ')) {
      for (let i = 0; i < p.length; i += 3) revocations.set(p[i], { id: p[i], sid_sealed: p[i + 1] });
      return {};
    }
    if (q.startsWith('SELECT id, sid_sealed FROM session_revocations')) return [...revocations.values()];
    if (q.startsWith('DELETE FROM session_revocations WHERE id IN')) { p.forEach((id) => revocations.delete(id)); return {}; }
    throw new Error(`fake db: unexpected statement ${q}`);
  };
  return { sessions, revocations, query };
}

const quietLog = { error() {} };
const res = () => ({ append() {} });

async function signIn(sessions, user) {
  const req = { headers: {} };
  await sessions.create(req, res(), user);
  return req.sessionId;
}

async function load(sessions, sid) {
  const req = { headers: { cookie: `prutor.sid=${cookieValue(sid, SECRET)}` } };
  await sessions.middleware(req, res(), () => {});
  return req.session;
}

const eventually = async (cond) => {
  for (let i = 0; i < 200; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail('not within 1 s');
};

test('a revocation whose memcached deletes fail is refused by every worker and retried until memcached drops the copy', async () => {
  const mc = fakeMemcached();
  const db = fakeDb();
  const opts = { mc, db, secret: SECRET, ttl: 600, log: quietLog, revocationsRefreshMs: 20 };
  const worker1 = createSessions(opts);
  const worker2 = createSessions(opts); // another worker, which never sees a delete fail itself
  const user = { id: 7, username: 'student07', name: 'S', role: 'student', section_id: 1 };
  const a = await signIn(worker1, user);
  const b = await signIn(worker1, user);
  const other = await signIn(worker1, { ...user, id: 8, username: 'student08' });
  assert.equal((await load(worker2, a)).uid, 7, 'signed in');

  // memcached unreachable for the deletes; its gets answer, with the revoked copies
  // still there (as once it is back, before any retry got through)
  mc.delFails = true;
  assert.equal(await worker1.revokeUser(7), 2);
  assert.equal(db.sessions.size, 1, 'the durable copies are gone');
  assert.ok(mc.data.has(`sess:${a}`) && mc.data.has(`sess:${b}`), 'the memcached copies are not');
  assert.equal(db.revocations.size, 2, 'the failed deletes are recorded');
  assert.equal(await load(worker1, a), null, 'the revoking worker refuses the copy at once');
  assert.equal(await load(worker1, b), null);
  await eventually(async () => (await load(worker2, a)) === null && (await load(worker2, b)) === null);
  assert.equal((await load(worker2, other)).uid, 8, 'another user is not affected');
  assert.equal(db.revocations.size, 2, 'kept while the deletes fail');

  mc.delFails = false; // the retry gets through
  await eventually(() => db.revocations.size === 0);
  assert.ok(!mc.data.has(`sess:${a}`) && !mc.data.has(`sess:${b}`), 'the retry deleted the copies');
  assert.ok(mc.data.has(`sess:${other}`));
  assert.equal(await load(worker2, a), null, 'a miss reads MariaDB, where the session is gone');
  assert.equal(await load(worker1, b), null);
});

test('a sign-out whose memcached delete fails is recorded the same way', async () => {
  const mc = fakeMemcached();
  const db = fakeDb();
  const sessions = createSessions({ mc, db, secret: SECRET, ttl: 600, log: quietLog, revocationsRefreshMs: 20 });
  const sid = await signIn(sessions, { id: 9, username: 'student09', name: 'S', role: 'student', section_id: 1 });
  const req = { headers: { cookie: `prutor.sid=${cookieValue(sid, SECRET)}` } };
  await sessions.middleware(req, res(), () => {});
  mc.delFails = true;
  await sessions.destroy(req, res());
  assert.ok(mc.data.has(`sess:${sid}`));
  assert.equal(await load(sessions, sid), null);
  mc.delFails = false;
  await eventually(() => db.revocations.size === 0 && !mc.data.has(`sess:${sid}`));
});
