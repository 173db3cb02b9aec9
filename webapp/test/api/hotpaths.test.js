'use strict';
// Query budget per request on the hot routes and no new memcached connections
// after warm-up. For an honest count this test starts its own webapp cluster
// (2 workers, DB_QUERY_HEADER=1: every answer carries X-DB-Queries, the number of
// statements its request sent through the one db.query() all code uses) on a
// free port, against the same MariaDB, and its own memcached, so that
// memcached's total_connections counts this webapp's connections and nothing else.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const net = require('node:net');
const { spawn } = require('node:child_process');
const { Client } = require('../helpers/http');
const env = require('../helpers/env');
const mcHelper = require('../helpers/memcached');
const dbh = require('../helpers/db');

const LAB = 'Lab 1: Input and output';
// login: the user's row, then the session's durable copy (shared/session.js)
const BUDGET = { login: 2, home: 2, codebook: 1, editor: 2, save: 2 };

function freePort() {
  return new Promise((resolve) => { const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); }); });
}
async function waitFor(fn, ms = 15000) {
  const end = Date.now() + ms;
  for (;;) {
    try { if (await fn()) return; } catch { /* not yet */ }
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

let procs = [];
let base;
let mcPort;

test.before(async () => {
  mcPort = await freePort();
  const webPort = await freePort();
  const healthPort = await freePort();
  const mcd = spawn('memcached', ['-p', String(mcPort), '-l', '127.0.0.1', '-m', '16', '-U', '0', ...(process.getuid() === 0 ? ['-u', 'root'] : [])], { stdio: 'ignore' });
  procs.push(mcd);
  const web = spawn(process.execPath, [path.join(__dirname, '..', '..', 'src', 'server.js')], {
    env: {
      ...process.env,
      WEBAPP_PORT: String(webPort), WEBAPP_HEALTH_PORT: String(healthPort), WEB_WORKERS: '2', MEMCACHED_PORT: String(mcPort), MEMCACHED_POOL_SIZE: '4',
      DB_HOST: env.db.host, DB_PORT: String(env.db.port), DB_NAME: env.db.database, DB_USER: env.db.user, DB_PASSWORD: env.db.password,
      SESSION_SECRET: 'hot-path-test-secret-0123456789', DB_QUERY_HEADER: '1', TELEMETRY: '0', NODE_ENV: 'production',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  procs.push(web);
  base = `http://127.0.0.1:${webPort}`;
  await waitFor(async () => (await fetch(`${base}/healthz?scope=self`)).status === 200);
});

test.after(async () => {
  for (const p of procs.reverse()) p.kill('SIGTERM');
  await dbh.close();
});

test('hot routes stay within their query budget; memcached connections stay flat after warm-up', { timeout: 120000 }, async () => {
  const users = ['student06', 'student07', 'student08', 'student16'];
  const clients = [];
  for (const u of users) {
    const c = new Client(base);
    const r = await c.post('/accounts/login', { form: { username: u, password: env.password } });
    assert.equal(r.status, 302);
    assert.equal(Number(r.queries), BUDGET.login, 'login');
    const home = await c.get('/home');
    c.csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(home.text)[1];
    c.assignment = await dbh.assignmentOf(u, LAB, 1);
    clients.push(c);
  }
  const round = async (c, i) => {
    const out = {};
    out.home = await c.get('/home');
    out.codebook = await c.get('/codebook');
    out.editor = await c.get(`/editor/${c.assignment}`);
    out.save = await c.post('/editor/save', { json: { assignment_id: c.assignment, branch_id: 0, trigger: i % 4 === 3 ? 'submit' : 'manual', code: `/* hot ${i} */` }, csrf: true, headers: { accept: 'application/json' } });
    for (const [k, r] of Object.entries(out)) {
      assert.equal(r.status, 200, `${k}: ${r.text.slice(0, 200)}`);
      assert.ok(r.queries !== null, `${k} carries X-DB-Queries`);
      assert.ok(Number(r.queries) <= BUDGET[k], `${k} sent ${r.queries} queries (budget ${BUDGET[k]})`);
    }
    assert.equal(Number(out.save.queries), 1, 'an accepted save is one statement');
  };

  // warm-up: every worker has opened its pool
  await Promise.all(clients.flatMap((c) => [0, 1, 2].map((i) => round(c, i))));

  const mc = mcHelper.connect({ host: '127.0.0.1', port: mcPort });
  try {
    const before = await mc.stats();
    // the load: 4 students x 10 iterations x 4 requests, 8 in flight at a time per student
    await Promise.all(clients.flatMap((c) => Array.from({ length: 10 }, (_, i) => round(c, 3 + i))));
    // and 40 more logins (each the user's row and the durable session), 8 at once per
    // account: attempts in flight count against an account's sign-in limit (10)
    const logins = await Promise.all(Array.from({ length: 40 }, (_, i) => new Client(base).post('/accounts/login',
      { form: { username: `student0${5 + (i % 5)}`, password: env.password } })));
    for (const l of logins) { assert.equal(l.status, 302); assert.equal(Number(l.queries), BUDGET.login); }
    const after = await mc.stats();
    assert.equal(after.total_connections, before.total_connections,
      `memcached connections opened after warm-up: ${after.total_connections - before.total_connections}`);
    assert.ok(before.curr_connections <= 2 * 4 + 2, `curr_connections ${before.curr_connections} within 2 workers x pool 4 (+ this test)`);
  } finally { mc.close(); }

  // a refused save explains itself with exactly one more query
  const closed = await dbh.makeEvent({ tag: `hot ${Date.now()}`, username: 'student06', startMin: -120, stopMin: -60 });
  try {
    const r = await clients[0].post('/editor/save', { json: { assignment_id: closed.assignmentId, code: 'late' }, csrf: true, headers: { accept: 'application/json' } });
    assert.equal(r.status, 409);
    assert.equal(Number(r.queries), 2);
  } finally { await dbh.dropEvent(closed.eventId); }
});
