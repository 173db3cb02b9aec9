'use strict';
// The environment tests run with: CONTRACTS.md defaults, overridden by
// $PRUTOR_VAR/prutor.env (what bin/prutor generates) and then by the real environment.
const fs = require('node:fs');
const path = require('node:path');

const repo = path.resolve(__dirname, '..', '..', '..');
const fromFile = {};
const envFile = path.join(process.env.PRUTOR_VAR || path.join(repo, 'var'), 'prutor.env');
if (fs.existsSync(envFile)) {
  for (const line of fs.readFileSync(envFile, 'utf8').split('\n')) {
    const m = /^\s*(?:export\s+)?([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) fromFile[m[1]] = m[2].replace(/^(['"])(.*)\1$/, '$2');
  }
}
const get = (k, d) => process.env[k] ?? fromFile[k] ?? d;

module.exports = {
  get,
  BASE: get('BASE_URL', `http://127.0.0.1:${get('HAPROXY_PORT', '8080')}`),
  db: {
    host: get('DB_HOST', '127.0.0.1'), port: Number(get('DB_PORT', '3307')), database: get('DB_NAME', 'prutor'),
    user: get('DB_USER', 'prutor'), password: get('DB_PASSWORD', 'prutor-local'),
  },
  memcached: { host: get('MEMCACHED_HOST', '127.0.0.1'), port: Number(get('MEMCACHED_PORT', '11211')) },
  sessionSecret: get('SESSION_SECRET', ''),
  password: get('DEMO_PASSWORD', 'prutor-demo'),
  loginMaxFailsPerAccount: Number(get('LOGIN_MAX_FAILS_PER_ACCOUNT', '10')),
  loginLockBaseS: Number(get('LOGIN_LOCK_BASE_S', '30')),
  bcryptCost: Number(get('BCRYPT_COST', '10')),
};
