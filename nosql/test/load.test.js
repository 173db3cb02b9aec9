'use strict';
// nosql/load.js against the running MongoDB API (FerretDB under `make up`), in a
// throwaway database that the test drops.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const fs = require('node:fs');
const { execFile } = require('node:child_process');
const { promisify } = require('node:util');
const { MongoClient } = require('mongodb');

const run = promisify(execFile);
const base = process.env.MONGO_URL || 'mongodb://127.0.0.1:27017/prutor';
const dbName = `prutor_test_nosql_${process.pid}`;
const url = base.replace(/\/[^/?]*(\?|$)/, `/${dbName}$1`);
const loader = path.join(__dirname, '..', 'load.js');
const envs = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'environments.json'), 'utf8'));

let client;
let db;
const load = (...args) => run(process.execPath, [loader, ...args], { env: { ...process.env, MONGO_URL: url } });

before(async () => {
  client = await new MongoClient(url, { serverSelectionTimeoutMS: 5000 }).connect();
  db = client.db(dbName);
});
after(async () => {
  await db.dropDatabase().catch(() => {});
  await client.close();
});

test('environments.json has the environments of CONTRACTS.md', () => {
  const c = envs.find((e) => e.slug === 'c');
  assert.ok(c, 'no environment with slug "c"');
  assert.equal(c.name, 'C (gcc)');
  assert.equal(c.source_ext, '.c');
  assert.equal(c.binary_ext, '');
  assert.deepEqual(c.compile, ['gcc', '{compileargs}', '-fdiagnostics-plain-output', '-o', '{binary}', '{source}', '{linkargs}']);
  assert.deepEqual([c.compile_args, c.link_args], [['-std=c11', '-O2', '-Wall'], ['-lm']]);
  assert.deepEqual(envs.map((e) => e.slug), ['c', 'cpp', 'python3', 'java', 'nodejs', 'php', 'pascal']);
  for (const e of envs) {
    for (const key of ['compile', 'run', 'limits', 'jobe', 'version_command']) assert.ok(e[key], `${e.slug} lacks ${key}`);
    assert.ok(e.limits.max_run_time_ms >= e.limits.run_time_ms && e.limits.max_memory_kb >= e.limits.memory_kb, `${e.slug}: maxima above defaults`);
  }
});

test("the engine's fallback copy (engine/config) is the same file", () => {
  const copy = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'engine', 'config', 'environments.json'), 'utf8'));
  assert.deepEqual(copy, envs);
});

test('load writes every environment and config, keyed by slug / _id', async () => {
  const { stdout } = await load();
  assert.match(stdout, /environments: 7 in file, 7 written/);
  const c = await db.collection('environments').findOne({ _id: 'c' });
  assert.equal(c.slug, 'c');
  assert.deepEqual(c.compile, envs[0].compile);
  assert.ok(await db.collection('configs').findOne({ _id: 'editor' }));
});

test('a second load writes nothing and --check passes', async () => {
  const { stdout } = await load();
  assert.match(stdout, /environments: \d+ in file, 0 written, 0 removed/);
  assert.match(stdout, /configs: \d+ in file, 0 written, 0 removed/);
  await load('--check');
});

test('drift is repaired: changed and unknown documents', async () => {
  await db.collection('environments').updateOne({ _id: 'c' }, { $set: { name: 'tampered' } });
  await db.collection('environments').insertOne({ _id: 'cobol', slug: 'cobol' });
  await assert.rejects(load('--check'), 'check must fail on drift');
  const { stdout } = await load();
  assert.match(stdout, /environments: 7 in file, 1 written, 1 removed/);
  assert.equal((await db.collection('environments').findOne({ _id: 'c' })).name, 'C (gcc)');
  assert.equal(await db.collection('environments').countDocuments({}), envs.length);
});

test('an unreachable server fails with a clear message', async () => {
  await assert.rejects(
    run(process.execPath, [loader], {
      env: { ...process.env, MONGO_URL: 'mongodb://127.0.0.1:1/x', MONGO_CONNECT_TIMEOUT_MS: '500' },
    }),
    (err) => /cannot reach mongodb:\/\/127\.0\.0\.1:1\/x/.test(err.stderr),
  );
});
