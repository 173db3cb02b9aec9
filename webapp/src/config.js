'use strict';
// Reads and validates the environment once (CONTRACTS.md: ports and variables).
// Fails fast with one message listing every problem, so a misconfigured worker
// never starts half-working.
const os = require('node:os');
const path = require('node:path');

const REPO = path.resolve(__dirname, '..', '..');

function int(env, name, def, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}, errors) {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(String(raw).trim())) { errors.push(`${name} must be a whole number (got "${raw}")`); return def; }
  const n = Number(raw);
  if (n < min || n > max) errors.push(`${name} must be between ${min} and ${max} (got ${n})`);
  return n;
}

function str(env, name, def) {
  const raw = env[name];
  return raw === undefined || raw === '' ? def : String(raw);
}

function bool(env, name, def, errors) {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  errors.push(`${name} must be 1/0 or true/false (got "${raw}")`);
  return def;
}

function serverList(env, key, errors) {
  const raw = (env[key] || '').trim();
  if (raw === '') return null;
  const list = raw.split(',').map((s) => s.trim()).filter(Boolean);
  for (const s of list) {
    const m = /^([A-Za-z0-9._-]+):(\d+)$/.exec(s);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) errors.push(`${key}: "${s}" is not host:port`);
  }
  return list;
}

function loadConfig(env = process.env) {
  const errors = [];
  const production = (env.NODE_ENV || 'production') === 'production';
  const cfg = {
    port: int(env, 'WEBAPP_PORT', 3000, { min: 1, max: 65535 }, errors),
    host: str(env, 'WEBAPP_HOST', '127.0.0.1'),
    // the primary's liveness answer for HAProxy (health/primary.js); default: the next port
    healthPort: int(env, 'WEBAPP_HEALTH_PORT', 0, { min: 1, max: 65535 }, errors),
    workers: int(env, 'WEB_WORKERS', os.availableParallelism ? os.availableParallelism() : os.cpus().length, { min: 0, max: 256 }, errors),
    db: {
      host: str(env, 'DB_HOST', '127.0.0.1'),
      port: int(env, 'DB_PORT', 3307, { min: 1, max: 65535 }, errors),
      database: str(env, 'DB_NAME', 'prutor'),
      user: str(env, 'DB_USER', 'prutor'),
      password: str(env, 'DB_PASSWORD', 'prutor-local'),
      poolSize: int(env, 'DB_POOL_SIZE', 10, { min: 1, max: 500 }, errors),
    },
    memcached: {
      host: str(env, 'MEMCACHED_HOST', '127.0.0.1'),
      port: int(env, 'MEMCACHED_PORT', 11211, { min: 1, max: 65535 }, errors),
      // One node (MEMCACHED_HOST:MEMCACHED_PORT) or several (MEMCACHED_SERVERS,
      // "host:port,host:port"): keys are spread by the ketama hash libmemcached
      // uses too, so the engine finds every key on the node the webapp wrote it to.
      servers: serverList(env, 'MEMCACHED_SERVERS', errors),
      poolSize: int(env, 'MEMCACHED_POOL_SIZE', 8, { min: 1, max: 256 }, errors),
      timeoutMs: int(env, 'MEMCACHED_TIMEOUT_MS', 1000, { min: 50, max: 60000 }, errors),
    },
    mongoUrl: str(env, 'MONGO_URL', 'mongodb://127.0.0.1:27017/prutor'),
    engineUrl: str(env, 'ENGINE_URL', 'http://127.0.0.1:8081').replace(/\/+$/, ''),
    sessionSecret: str(env, 'SESSION_SECRET', ''),
    sessionTtl: int(env, 'SESSION_TTL_S', 28800, { min: 60, max: 30 * 86400 }, errors),
    cookieSecure: bool(env, 'COOKIE_SECURE', false, errors),
    trustProxy: str(env, 'TRUST_PROXY', 'loopback'),
    varDir: path.resolve(str(env, 'PRUTOR_VAR', path.join(REPO, 'var'))),
    // written by backup/ (its daemon) and shown on the admin page
    backupStatusFile: path.resolve(str(env, 'BACKUP_STATUS_FILE', path.join(str(env, 'PRUTOR_VAR', path.join(REPO, 'var')), 'run', 'backup-status.json'))),
    maxCodeBytes: int(env, 'MAX_CODE_BYTES', 65536, { min: 1024, max: 16 * 1024 * 1024 }, errors),
    login: {
      // Sign-in limits (accounts/ratelimit.js): failures allowed per account from
      // browsers it never signed in with, and per browser it did (device cookie), in the
      // window; then a lock-out that starts short and doubles with each one of the day;
      // past a bound of failures for unknown names, an address is slowed, never refused
      // (an exam hall shares one NAT address).
      maxFailsPerAccount: int(env, 'LOGIN_MAX_FAILS_PER_ACCOUNT', 10, { min: 1, max: 100000 }, errors),
      maxFailsPerDevice: int(env, 'LOGIN_MAX_FAILS_PER_DEVICE', 10, { min: 1, max: 100000 }, errors),
      windowS: int(env, 'LOGIN_WINDOW_S', 900, { min: 10, max: 86400 }, errors),
      lockBaseS: int(env, 'LOGIN_LOCK_BASE_S', 30, { min: 1, max: 86400 }, errors),
      lockMaxS: int(env, 'LOGIN_LOCK_MAX_S', 900, { min: 1, max: 86400 }, errors),
      maxUnknownFailsPerAddress: int(env, 'LOGIN_MAX_UNKNOWN_FAILS_PER_ADDRESS', 1000, { min: 1, max: 1000000 }, errors),
      addressDelayMs: int(env, 'LOGIN_ADDRESS_DELAY_MS', 2000, { min: 0, max: 60000 }, errors),
    },
    bcryptCost: int(env, 'BCRYPT_COST', 10, { min: 4, max: 15 }, errors),
    // sign-in admission per worker (admission/signin.js): bcrypt runs at most this
    // many at once; the rest queue up to an estimated wait, then get 503 + Retry-After
    signin: {
      concurrency: int(env, 'SIGNIN_CONCURRENCY', 1, { min: 1, max: 64 }, errors),
      maxWaitMs: 1000 * int(env, 'SIGNIN_MAX_WAIT_S', 30, { min: 1, max: 600 }, errors),
      maxQueue: int(env, 'SIGNIN_MAX_QUEUE', 500, { min: 0, max: 100000 }, errors),
      // niceness of the process that runs the compares (admission/hasher.js); 0 runs them in the worker
      hashNice: int(env, 'SIGNIN_HASH_NICE', 10, { min: 0, max: 19 }, errors),
    },
    telemetry: {
      enabled: bool(env, 'TELEMETRY', true, errors),
      batchSize: int(env, 'TELEMETRY_BATCH', 500, { min: 1, max: 10000 }, errors),
      flushMs: int(env, 'TELEMETRY_FLUSH_MS', 2000, { min: 100, max: 60000 }, errors),
      maxBuffered: int(env, 'TELEMETRY_MAX_BUFFERED', 50000, { min: 100, max: 10000000 }, errors),
    },
    // Saves (not submits) arriving this long after a student's deadline are stored as late work (0: refused).
    lateSaveGraceS: int(env, 'LATE_SAVE_GRACE_S', 300, { min: 0, max: 86400 }, errors),
    // The automatic grader (src/exam/grader.js) in the cluster primary: evaluations it keeps in
    // flight (0: off; about the engine's sandbox slots, which admission control bounds anyway),
    // its loop period, and how it yields to a saturated host (the CPU pressure, in percent,
    // from which it grades only one batch every busyEveryS; 0: never yields).
    grader: {
      concurrency: int(env, 'GRADER_CONCURRENCY', 2, { min: 0, max: 64 }, errors),
      tickMs: int(env, 'GRADER_TICK_MS', 2000, { min: 100, max: 600000 }, errors),
      yieldPressure: int(env, 'GRADER_YIELD_PRESSURE', 60, { min: 0, max: 100 }, errors),
      busyEveryS: int(env, 'GRADER_BUSY_EVERY_S', 10, { min: 1, max: 3600 }, errors),
    },
    // Test/diagnostics only: answer every request with X-DB-Queries (its MySQL query count).
    queryHeader: bool(env, 'DB_QUERY_HEADER', false, errors),
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 10000, { min: 0, max: 600000 }, errors),
    // Exam tools (issue 16): the similarity job's process priority and limits.
    tools: {
      // how often each worker rereads which lab lock-downs are in force
      lockdownRefreshMs: int(env, 'LOCKDOWN_REFRESH_MS', 2000, { min: 200, max: 60000 }, errors),
      // announcements: how often each worker rereads them, how often exam pages poll
      announcements: {
        refreshMs: int(env, 'ANNOUNCE_REFRESH_MS', 1000, { min: 200, max: 60000 }, errors),
        pollMs: int(env, 'ANNOUNCE_POLL_MS', 10000, { min: 1000, max: 600000 }, errors),
      },
      similarity: {
        niceness: int(env, 'SIMILARITY_NICE', 19, { min: 0, max: 19 }, errors),
        timeoutS: int(env, 'SIMILARITY_TIMEOUT_S', 1800, { min: 10, max: 86400 }, errors),
        maxPairs: int(env, 'SIMILARITY_MAX_PAIRS', 200, { min: 1, max: 5000 }, errors),
      },
    },
    // LTI 1.3 (src/lti): how long a launch may take from the LMS's login initiation to
    // the id_token; grade passback: sweep period (0: off), first retry delay (doubling), attempts.
    lti: {
      launchTtlS: int(env, 'LTI_LAUNCH_TTL_S', 600, { min: 30, max: 3600 }, errors),
      // how long a dynamic registration link an admin makes stays usable (single use)
      registrationLinkTtlS: int(env, 'LTI_REGISTRATION_LINK_TTL_S', 86400, { min: 60, max: 30 * 86400 }, errors),
      // rosters read on their own: how often each worker looks (0: never), and how long before an event opens
      roster: {
        everyS: int(env, 'LTI_ROSTER_CHECK_S', 300, { min: 0, max: 86400 }, errors),
        beforeS: int(env, 'LTI_ROSTER_BEFORE_S', 3600, { min: 60, max: 7 * 86400 }, errors),
      },
      grades: {
        everyS: int(env, 'LTI_GRADES_EVERY_S', 5, { min: 0, max: 3600 }, errors),
        retryS: int(env, 'LTI_GRADES_RETRY_S', 30, { min: 1, max: 86400 }, errors),
        maxAttempts: int(env, 'LTI_GRADES_MAX_ATTEMPTS', 8, { min: 1, max: 100 }, errors),
      },
    },
    // Safe Exam Browser (src/lti/seb.js): how often each worker rereads which events require it
    seb: { refreshMs: int(env, 'SEB_REFRESH_MS', 2000, { min: 200, max: 60000 }, errors) },
    production,
  };

  if (!cfg.healthPort) cfg.healthPort = cfg.port < 65535 ? cfg.port + 1 : 0;
  if (!cfg.healthPort || cfg.healthPort === cfg.port) errors.push(`WEBAPP_HEALTH_PORT must be a port other than WEBAPP_PORT (${cfg.port})`);
  if (!cfg.sessionSecret) errors.push('SESSION_SECRET is required (CONTRACTS.md: generated once into var/prutor.env)');
  else if (cfg.sessionSecret.length < 16) errors.push('SESSION_SECRET must be at least 16 characters');
  if (cfg.login.lockMaxS < cfg.login.lockBaseS) errors.push(`LOGIN_LOCK_MAX_S (${cfg.login.lockMaxS}) must be at least LOGIN_LOCK_BASE_S (${cfg.login.lockBaseS})`);
  if (!/^mongodb(\+srv)?:\/\//.test(cfg.mongoUrl)) errors.push(`MONGO_URL must start with mongodb:// (got "${cfg.mongoUrl}")`);
  if (!/^https?:\/\//.test(cfg.engineUrl)) errors.push(`ENGINE_URL must start with http:// or https:// (got "${cfg.engineUrl}")`);

  if (errors.length) {
    const err = new Error('Invalid configuration:\n  - ' + errors.join('\n  - '));
    err.code = 'ECONFIG';
    err.problems = errors;
    throw err;
  }
  return Object.freeze(cfg);
}

module.exports = { loadConfig };
