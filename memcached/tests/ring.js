'use strict';
// The webapp's memcached client on several nodes (memcached/test.sh):
//   node ring.js write PREFIX N   stores PREFIX<i> = "js:<i>" through the ring
//   node ring.js read PREFIX N    prints one line per key: "<key> <value or -> <node holding it or ->"
// Nodes come from MEMCACHED_SERVERS, read by the webapp's own config module.
const path = require('path');
const webapp = path.join(__dirname, '..', '..', 'webapp');
const { loadConfig } = require(path.join(webapp, 'src', 'config'));
const { createMemcache } = require(path.join(webapp, 'src', 'shared', 'memcache'));

async function main() {
  const [mode, prefix, count] = process.argv.slice(2);
  const cfg = loadConfig({ ...process.env, SESSION_SECRET: 'ring-test-not-a-session-secret' }).memcached;
  const ring = createMemcache({ ...cfg, poolSize: 2 });
  const keys = Array.from({ length: Number(count) }, (_, i) => `${prefix}${i}`);
  if (mode === 'write') {
    for (const [i, k] of keys.entries()) await ring.set(k, `js:${i}`, 300);
  } else {
    // each node on its own, to see where a key really is
    const single = cfg.servers.map((s) => [s, createMemcache({ servers: [s], poolSize: 1, timeoutMs: cfg.timeoutMs })]);
    for (const k of keys) {
      const v = await ring.get(k);
      let holder = '-';
      for (const [name, mc] of single) if ((await mc.get(k)) !== undefined) holder = name;
      process.stdout.write(`${k} ${v === undefined ? '-' : v} ${holder}\n`);
    }
    single.forEach(([, mc]) => mc.close());
  }
  ring.close();
}
main().catch((e) => { console.error(e); process.exit(1); });
