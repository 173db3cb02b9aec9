'use strict';
// Loads nosql/environments.json and nosql/configs.json into MongoDB, idempotently:
// each document is replaced by _id (upsert), and documents no longer in the files
// are removed, so the files stay the source of truth. Runs on every `make up`
// (FerretDB) and as the compose `nosql-load` job (mongo:7). Only features both
// servers have: no transactions, lookups by _id.
//
//   MONGO_URL=mongodb://127.0.0.1:27017/prutor node nosql/load.js [--check]
//
// --check only compares and exits 1 when the database differs from the files.

const fs = require('node:fs');
const path = require('node:path');
const { MongoClient } = require('mongodb');

const url = process.env.MONGO_URL || 'mongodb://127.0.0.1:27017/prutor';
const checkOnly = process.argv.includes('--check');
const connectDeadlineMs = Number(process.env.MONGO_CONNECT_TIMEOUT_MS || 30000);

function readJson(name) {
  const file = path.join(__dirname, name);
  const docs = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!Array.isArray(docs)) throw new Error(`${name}: expected a JSON array`);
  return docs;
}

// Environments are keyed by slug; the _id is the slug so lookups never scan
// (FerretDB has no filter pushdown on other fields).
function environmentDocs() {
  return readJson('environments.json').map((env) => {
    for (const key of ['slug', 'name', 'source_ext', 'compile', 'run']) {
      if (env[key] === undefined) throw new Error(`environments.json: ${env.slug || '?'} lacks "${key}"`);
    }
    return { _id: env.slug, ...env };
  });
}

function configDocs() {
  return readJson('configs.json').map((doc) => {
    if (typeof doc._id !== 'string') throw new Error('configs.json: every document needs a string _id');
    return doc;
  });
}

async function connect() {
  const deadline = Date.now() + connectDeadlineMs;
  for (;;) {
    const client = new MongoClient(url, { serverSelectionTimeoutMS: 3000, appName: 'prutor-nosql-load' });
    try {
      await client.connect();
      await client.db().command({ ping: 1 });
      return client;
    } catch (err) {
      await client.close().catch(() => {});
      if (Date.now() > deadline) throw new Error(`cannot reach ${redact(url)}: ${err.message}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

function redact(u) {
  return u.replace(/\/\/[^@/]*@/, '//***@');
}

// Compares documents as stored (key order kept by both servers).
function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

async function sync(db, name, docs) {
  const coll = db.collection(name);
  const current = new Map((await coll.find({}).toArray()).map((d) => [d._id, d]));
  const ids = docs.map((d) => d._id);
  let written = 0;
  let differs = 0;
  for (const doc of docs) {
    if (current.has(doc._id) && same(current.get(doc._id), doc)) continue;
    differs += 1;
    if (!checkOnly) {
      await coll.replaceOne({ _id: doc._id }, doc, { upsert: true });
      written += 1;
    }
  }
  const stale = [...current.keys()].filter((id) => !ids.includes(id));
  differs += stale.length;
  if (stale.length && !checkOnly) await coll.deleteMany({ _id: { $in: stale } });
  return { name, total: docs.length, written, removed: checkOnly ? 0 : stale.length, differs };
}

async function main() {
  const envs = environmentDocs();
  const configs = configDocs();
  const client = await connect();
  try {
    const db = client.db();
    const results = [await sync(db, 'environments', envs), await sync(db, 'configs', configs)];
    for (const r of results) {
      console.log(`nosql/load.js: ${db.databaseName}.${r.name}: ${r.total} in file, ` +
        (checkOnly ? `${r.differs} differ` : `${r.written} written, ${r.removed} removed`));
    }
    if (checkOnly && results.some((r) => r.differs > 0)) process.exitCode = 1;
  } finally {
    await client.close();
  }
}

main().catch((err) => {
  console.error(`nosql/load.js: ERROR: ${err.message}`);
  process.exit(1);
});
