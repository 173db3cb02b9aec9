'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadConfig } = require('../../src/config');

const OK = { SESSION_SECRET: 'a-long-enough-secret-123' };

test('defaults follow CONTRACTS.md', () => {
  const c = loadConfig({ ...OK });
  assert.equal(c.port, 3000);
  assert.equal(c.db.port, 3307);
  assert.equal(c.db.user, 'prutor');
  assert.equal(c.memcached.port, 11211);
  assert.equal(c.mongoUrl, 'mongodb://127.0.0.1:27017/prutor');
  assert.equal(c.engineUrl, 'http://127.0.0.1:8081');
  assert.equal(c.sessionTtl, 28800);
  assert.equal(c.maxCodeBytes, 65536);
  assert.ok(c.workers >= 1);
  assert.ok(Object.isFrozen(c));
});

test('environment overrides', () => {
  const c = loadConfig({ ...OK, WEBAPP_PORT: '3100', WEB_WORKERS: '4', DB_PORT: '3397', ENGINE_URL: 'http://x:1/', SESSION_TTL_S: '600' });
  assert.equal(c.port, 3100);
  assert.equal(c.workers, 4);
  assert.equal(c.db.port, 3397);
  assert.equal(c.engineUrl, 'http://x:1');
  assert.equal(c.sessionTtl, 600);
});

test('fails fast, naming every problem', () => {
  assert.throws(() => loadConfig({}), /SESSION_SECRET is required/);
  assert.throws(() => loadConfig({ SESSION_SECRET: 'short' }), /at least 16/);
  let err;
  try { loadConfig({ ...OK, WEBAPP_PORT: 'eighty', DB_PORT: '70000', WEB_WORKERS: '-1', TELEMETRY: 'maybe', MONGO_URL: 'http://no' }); } catch (e) { err = e; }
  assert.ok(err);
  assert.equal(err.code, 'ECONFIG');
  assert.equal(err.problems.length, 5, err.message);
  assert.match(err.message, /WEBAPP_PORT must be a whole number/);
  assert.match(err.message, /DB_PORT must be between 1 and 65535/);
  assert.match(err.message, /MONGO_URL/);
});

test('MEMCACHED_SERVERS lists several nodes; a bad entry is refused', () => {
  assert.equal(loadConfig({ ...OK }).memcached.servers, null);
  const c = loadConfig({ ...OK, MEMCACHED_SERVERS: 'memcached-a:11211, memcached-b:11212' });
  assert.deepEqual(c.memcached.servers, ['memcached-a:11211', 'memcached-b:11212']);
  assert.throws(() => loadConfig({ ...OK, MEMCACHED_SERVERS: 'memcached-a:11211,memcached-b' }), /MEMCACHED_SERVERS: "memcached-b" is not host:port/);
});
