// The MongoDB API's data (FerretDB here, mongo:7 in compose) as one stream of
// Extended JSON lines, so a dump reads without the platform and restores into
// either server. No mongodump: Debian does not package the MongoDB tools.
//   node mongo.js dump    > FILE   one line per collection ({"collection", "indexes"}),
//                                  then one per document ({"c", "d"}), canonical EJSON
//   node mongo.js restore < FILE   each dumped collection replaced by its dump
// MONGO_URL names the database.
'use strict';
const path = require('node:path');
const readline = require('node:readline');
// nosql/'s driver in a checkout; the image's own (Dockerfile) in a container
const driver = (() => { try { return require(path.join(__dirname, '..', 'nosql', 'node_modules', 'mongodb')); } catch { return require('mongodb'); } })();
const { MongoClient, BSON } = driver;
const { EJSON } = BSON;

async function dump(db) {
  const out = (obj) => new Promise((resolve) => {
    if (process.stdout.write(EJSON.stringify(obj, { relaxed: false }) + '\n')) resolve();
    else process.stdout.once('drain', resolve);
  });
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
    if (name.startsWith('system.')) continue;
    const indexes = (await db.collection(name).indexes()).filter((i) => i.name !== '_id_')
      .map(({ key, name: n, unique }) => ({ key, name: n, unique: !!unique }));
    await out({ collection: name, indexes });
    for await (const d of db.collection(name).find({}).sort({ _id: 1 })) await out({ c: name, d });
  }
}

async function restore(db) {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  let batch = []; let coll = null; let n = 0;
  const flush = async () => { if (batch.length) { await db.collection(coll).insertMany(batch, { ordered: true }); n += batch.length; batch = []; } };
  for await (const line of rl) {
    if (!line) continue;
    const rec = EJSON.parse(line, { relaxed: false });
    if (rec.collection) {
      await flush();
      coll = rec.collection;
      await db.collection(coll).drop().catch(() => {});
      await db.createCollection(coll);
      for (const i of rec.indexes) await db.collection(coll).createIndex(i.key, { name: i.name, unique: i.unique });
    } else {
      batch.push(rec.d);
      if (batch.length >= 500) await flush();
    }
  }
  await flush();
  process.stderr.write(`mongo.js: restored ${n} documents\n`);
}

(async () => {
  const mode = process.argv[2];
  if (!['dump', 'restore'].includes(mode)) { process.stderr.write('usage: node mongo.js dump|restore\n'); process.exit(2); }
  const client = new MongoClient(process.env.MONGO_URL || 'mongodb://127.0.0.1:27017/prutor', { serverSelectionTimeoutMS: 10000 });
  await client.connect();
  try { await (mode === 'dump' ? dump : restore)(client.db()); } finally { await client.close(); }
})().catch((e) => { process.stderr.write(`mongo.js: ${e.message}\n`); process.exit(1); });
