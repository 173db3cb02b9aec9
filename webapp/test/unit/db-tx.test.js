'use strict';
// db.tx() is the one transaction helper: a database outage inside a transaction is
// a 503 with Retry-After (shared/errors.js), like a single query's, not a 500.
const test = require('node:test');
const assert = require('node:assert');
const net = require('node:net');
const http = require('node:http');
const express = require('express');
const { createDb } = require('../../src/shared/db');
const { makeErrorHandler } = require('../../src/shared/errors');

// A "database" that accepts and hangs up at once, as a restarting server does.
async function hangingUpServer() {
  const srv = net.createServer((s) => s.destroy());
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  return srv;
}

test('a database outage inside db.tx answers 503 with Retry-After', async () => {
  const srv = await hangingUpServer();
  const db = createDb({ host: '127.0.0.1', port: srv.address().port, user: 'x', password: 'x', database: 'x', poolSize: 1 });
  let ran = false;
  const app = express();
  app.post('/save', async (req, res) => {
    await db.tx(async (tx) => { ran = true; await tx.query('SELECT 1'); });
    res.send('ok');
  });
  app.use(makeErrorHandler({ renderErrorPage: (req, status, title, msg) => msg, log: { error() {} } }));
  const web = http.createServer(app);
  await new Promise((r) => web.listen(0, '127.0.0.1', r));
  try {
    const res = await fetch(`http://127.0.0.1:${web.address().port}/save`, { method: 'POST', headers: { Accept: 'application/json' } });
    assert.strictEqual(res.status, 503);
    assert.match(res.headers.get('retry-after') || '', /^\d+$/);
    assert.match((await res.json()).error, /database is not reachable/);
    assert.strictEqual(ran, false, 'the transaction body never ran without a connection');
  } finally {
    web.close();
    srv.close();
    await db.close().catch(() => {});
  }
});

test('db.tx rolls back on an error and runs again whole after a deadlock', async () => {
  const db = createDb({ host: '127.0.0.1', port: 1, user: 'x', password: 'x', database: 'x', poolSize: 1 });
  const log = [];
  // a stubbed pool connection: the first transaction deadlocks, the second commits
  db.pool.getConnection = async () => ({
    beginTransaction: async () => log.push('begin'),
    execute: async (sql) => {
      log.push(sql);
      if (log.filter((l) => l === 'begin').length === 1) throw Object.assign(new Error('deadlock'), { code: 'ER_LOCK_DEADLOCK' });
      return [[{ ok: 1 }]];
    },
    commit: async () => log.push('commit'),
    rollback: async () => log.push('rollback'),
    release: () => log.push('release'),
  });
  const out = await db.tx(async (tx) => tx.query('UPDATE t'));
  assert.deepStrictEqual(out, [{ ok: 1 }]);
  assert.deepStrictEqual(log, ['begin', 'UPDATE t', 'rollback', 'release', 'begin', 'UPDATE t', 'commit', 'release']);
  await db.close().catch(() => {});
});
