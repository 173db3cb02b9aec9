#!/usr/bin/env node
'use strict';
// Chaos run: N students work through HAProxy (save with a client-made id and the
// editor's retry rules, open home, compile, evaluate) while faults are injected one
// after the other. Per fault it reports the requests that failed and how, the
// acknowledged saves against the rows stored (each exactly once), the students
// signed out (must be 0) and the time until every component was healthy again.
//
// Environment (tests/chaos/run.sh sets it): BASE_URL, USERS_CSV (username,password,
// assignment_id,problem), FAULTS (names, space-separated), SETTLE_S (quiet time after
// recovery before the next fault), THINK_MS, ENGINE_EVERY (one engine call per N
// iterations), RAMP_MS (between two sign-ins), REPORT (JSON file), PRUTOR_ROOT, DB_* (the row check), plus what the
// fault commands need (bin/prutor's environment).
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');

const ROOT = process.env.PRUTOR_ROOT || path.resolve(__dirname, '..', '..');
const mysql = require(path.join(ROOT, 'webapp', 'node_modules', 'mysql2', 'promise'));

const BASE = process.env.BASE_URL || `http://127.0.0.1:${process.env.HAPROXY_PORT || 8080}`;
const THINK_MS = Number(process.env.THINK_MS || 2000); // the thesis' constant timer
const RAMP_MS = Number(process.env.RAMP_MS || 48);
const ENGINE_EVERY = Number(process.env.ENGINE_EVERY || 15);
const SETTLE_S = Number(process.env.SETTLE_S || 5);
const RECOVER_TIMEOUT_S = Number(process.env.RECOVER_TIMEOUT_S || 120);
const RUN = crypto.randomBytes(4).toString('hex');
const runStart = Date.now();
const FAULT_NAMES = (process.env.FAULTS || 'webapp-worker-kill webapp-roll memcached-restart mariadb-restart ferretdb-restart engine-graceful engine-hard haproxy-reload haproxy-restart engine-cache-fill').split(/\s+/).filter(Boolean);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => Date.now();
const log = (...a) => console.log(`[chaos ${new Date().toISOString().slice(11, 19)}]`, ...a);

// ------------------------------------------------------------------ faults
// Asynchronous: the students keep working (and meeting the fault) while a restart runs.
const { promisify } = require('node:util');
const execFileP = promisify(require('node:child_process').execFile);
const SUPERVISOR_CONF = path.join(process.env.PRUTOR_VAR || path.join(ROOT, 'var'), 'conf', 'supervisord.conf');
const ctl = async (...args) => (await execFileP('supervisorctl', ['-c', SUPERVISOR_CONF, ...args], { timeout: 180000 })).stdout;
const pidOf = async (prog) => Number((await ctl('pid', prog)).trim());
const childrenOf = async (pid) => (await execFileP('ps', ['-o', 'pid=', '--ppid', String(pid)])).stdout.split(/\s+/).filter(Boolean).map(Number);

function cacheFill() {
  const dir = path.join(process.env.ENGINE_VAR || path.join(process.env.PRUTOR_VAR || path.join(ROOT, 'var'), 'engine'), 'cache');
  const bound = Number(process.env.ENGINE_CACHE_MAX_BYTES || 512 * 1024 * 1024);
  const used = fs.readdirSync(dir).reduce((s, f) => { try { return s + fs.statSync(path.join(dir, f)).size; } catch { return s; } }, 0);
  const parts = 32;
  const each = Math.ceil(Math.max(0, bound - used) / parts);
  const st = fs.statSync(dir);
  for (let i = 0; i < parts; i++) {
    // sparse files: the cache's byte accounting sees them full, the shared disk does not
    const f = path.join(dir, `${crypto.randomBytes(32).toString('hex')}.bin`);
    fs.writeFileSync(f, '');
    fs.truncateSync(f, each);
    fs.chownSync(f, st.uid, st.gid);
    fillers.push(f);
  }
  return `${parts} files of ${(each / 1048576).toFixed(1)} MiB bring ${dir} to its bound of ${(bound / 1048576).toFixed(0)} MiB`;
}
const fillers = [];

const FAULTS = {
  'webapp-worker-kill': async () => {
    const workers = await childrenOf(await pidOf('webapp'));
    if (!workers.length) throw new Error('no webapp worker found');
    process.kill(workers[0], 'SIGKILL');
    return `kill -9 worker ${workers[0]}`;
  },
  'webapp-roll': async () => { await ctl('signal', 'HUP', 'webapp'); return 'every webapp worker replaced in turn (SIGHUP)'; },
  'memcached-restart': async () => { await ctl('restart', 'memcached'); return 'supervisorctl restart memcached'; },
  'mariadb-restart': async () => { await ctl('restart', 'mariadb'); return 'supervisorctl restart mariadb'; },
  'ferretdb-restart': async () => { await ctl('restart', 'ferretdb'); return 'supervisorctl restart ferretdb'; },
  'engine-graceful': async () => { await ctl('signal', 'USR1', 'engine'); return 'Apache graceful restart (USR1)'; },
  'engine-hard': async () => { await ctl('signal', 'HUP', 'engine'); return 'Apache restart (HUP: children killed at once)'; },
  'haproxy-reload': async () => { await ctl('signal', 'USR2', 'haproxy'); return 'HAProxy reload (USR2)'; },
  'haproxy-restart': async () => { await ctl('restart', 'haproxy'); return 'supervisorctl restart haproxy'; },
  'engine-cache-fill': async () => cacheFill(),
};
for (const f of FAULT_NAMES) if (!FAULTS[f]) { console.error(`chaos: unknown fault ${f} (known: ${Object.keys(FAULTS).join(' ')})`); process.exit(2); }

// Healthy: every component through HAProxy (the webapp's aggregate names MySQL,
// memcached, MongoDB and the engine) and the engine's own check.
let unhealthyBecause = '';
async function healthy() {
  try {
    const [w, e] = await Promise.all([
      fetch(`${BASE}/healthz`, { signal: AbortSignal.timeout(3000) }),
      fetch(`${BASE}/engine/healthz`, { signal: AbortSignal.timeout(3000) }),
    ]);
    const body = await w.json().catch(() => ({}));
    const failing = Object.entries(body.components || {}).filter(([, c]) => c.status !== 'ok').map(([k, c]) => `${k}: ${c.error || c.status}`);
    if (w.status !== 200) failing.push(`/healthz ${w.status}`);
    if (e.status !== 200) failing.push(`/engine/healthz ${e.status}`);
    unhealthyBecause = failing.join('; ');
    return failing.length === 0;
  } catch (err) { unhealthyBecause = String(err.message || err); return false; }
}

// ------------------------------------------------------------------ accounting
const windows = [];   // {name, how, at, recoveredMs, requests, failed: {status: n}, signedOut: Set, acked, ...}
let current = null;
function openWindow(name, how) {
  current = { name, how, at: now(), recoveredMs: null, requests: 0, failed: {}, failedKinds: {}, signedOut: new Set(), acked: 0 };
  windows.push(current);
}
openWindow('steady', 'no fault');
const acked = new Map();  // token -> {user, code_id}
const signedOutEver = new Set();
let stopping = false;
let signedIn = 0;

// kind: save, home, compile or evaluate (which requests failed, not only how)
function count(status, kind) {
  current.requests++;
  if (status === 'ok') return;
  current.failed[status] = (current.failed[status] || 0) + 1;
  current.failedKinds[kind] = (current.failedKinds[kind] || 0) + 1;
}
function signedOut(user, why) {
  current.signedOut.add(user);
  if (!signedOutEver.has(user)) log(`SIGNED OUT: ${user} (${why})`);
  signedOutEver.add(user);
}

// ------------------------------------------------------------------ a student
class Student {
  constructor({ username, password, assignment }) {
    Object.assign(this, { username, password, assignment, cookies: new Map(), csrf: null, seq: 0 });
  }

  async request(method, url, body) {
    const headers = { accept: 'application/json', 'x-requested-with': 'XMLHttpRequest' };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (this.csrf) headers['x-csrf-token'] = this.csrf;
    if (body) headers['content-type'] = 'application/json';
    let res;
    try {
      res = await fetch(BASE + url, { method, headers, body: body ? JSON.stringify(body) : undefined, redirect: 'manual', signal: AbortSignal.timeout(30000) });
    } catch (e) {
      // no answer: the connection failed (refused, reset) or nothing came within 30 s
      return { status: e.name === 'TimeoutError' ? 'timeout' : 'conn', json: null, headers: new Headers() };
    }
    for (const sc of res.headers.getSetCookie()) {
      const [pair] = sc.split(';');
      const eq = pair.indexOf('=');
      this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    let json = null;
    try { json = await res.json(); } catch { /* not JSON */ }
    // HAProxy's own 503 (no server up, or its queue full: haproxy.cfg's http-error
    // bodies) is told apart from a 503 the webapp or the engine answered.
    const fromProxy = res.status === 503 && json && /busy or restarting|code runner is busy/.test(json.error || '');
    return { status: fromProxy ? '503-proxy' : res.status, json, headers: res.headers };
  }

  async login() {
    for (let attempt = 0; !stopping; attempt++) {
      const r = await this.request('POST', '/accounts/login', { username: this.username, password: this.password });
      if (r.status === 200 && r.json && r.json.csrf) { this.csrf = r.json.csrf; signedIn++; return true; }
      await sleep(Math.min(5000, 500 * 2 ** attempt));
    }
    return false;
  }

  // A page or an engine call: one request; 401 (or a login redirect) means signed out.
  async call(method, url, body) {
    const r = await this.request(method, url, body);
    const kind = url.split('/')[1];
    if (r.status === 401 || (r.status === 302) || (r.status === 403 && r.json && r.json.code === 'csrf')) {
      count(r.status, kind);
      signedOut(this.username, `${method} ${url} -> ${r.status}`);
      return r;
    }
    count(r.status === 200 ? 'ok' : r.status, kind);
    return r;
  }

  // The editor's save: one client id, retried until acknowledged (backoff, Retry-After).
  async save(trigger = 'manual') {
    const token = `${RUN}:${this.username}:${++this.seq}`;
    const fields = { assignment_id: this.assignment, branch_id: 0, trigger, code: `/* chaos ${token} */\nint main(void) { return 0; }\n`, client_save_id: crypto.randomBytes(18).toString('base64url') };
    for (let attempt = 1; !stopping || attempt === 1; attempt++) {
      const r = await this.request('POST', '/editor/save', fields);
      if (r.status === 200 && r.json && r.json.ok) {
        count('ok', 'save');
        acked.set(token, { user: this.username, code_id: r.json.code_id });
        current.acked++;
        return;
      }
      if (r.status === 401 || r.status === 302 || (r.status === 403 && r.json && r.json.code === 'csrf')) {
        count(r.status, 'save');
        signedOut(this.username, `save -> ${r.status}`);
        return;
      }
      count(r.status, 'save');
      if (typeof r.status === 'number' && r.status < 500 && r.status !== 429 && r.status !== 408) {
        log(`save refused ${r.status}: ${r.json && r.json.error}`);
        return;
      }
      const ra = Number(r.headers.get('retry-after'));
      await sleep(ra > 0 ? ra * 1000 : Math.min(8000, 250 * 2 ** attempt) * (0.75 + Math.random() / 2));
    }
  }

  async run() {
    if (!(await this.login())) return;
    await sleep(Math.random() * THINK_MS);
    for (let i = 0; !stopping; i++) {
      await this.save(i % 10 === 9 ? 'submit' : 'manual');
      if (i % 5 === 2) await this.call('GET', '/home', null);
      if (ENGINE_EVERY > 0 && i % ENGINE_EVERY === 7) {
        // a program unique to the student: gcc runs once, then the binary is cached
        const code = `#include <stdio.h>\nint main(void) { int a, b; if (scanf("%d %d", &a, &b) != 2) return 1; printf("%d\\n", a + b); /* ${this.username} */ return 0; }\n`;
        await this.call('POST', '/compile', { assignment_id: this.assignment, code });
        await this.call('POST', '/evaluate', { assignment_id: this.assignment });
      }
      await sleep(THINK_MS * (0.5 + Math.random()));
    }
  }
}

// How many save events of this run reached MongoDB (the run's students are the only
// ones saving), after giving the shipper (every 2 s) time to catch up; one counting
// query at a time, each bounded (FerretDB scans for it); null when MongoDB did not
// answer in time.
async function telemetryShipped(since, want) {
  const { MongoClient } = require(path.join(ROOT, 'webapp', 'node_modules', 'mongodb'));
  const client = new MongoClient(process.env.MONGO_URL || 'mongodb://127.0.0.1:27017/prutor', { serverSelectionTimeoutMS: 3000 });
  const deadline = now() + 30000;
  let found = null;
  try {
    const coll = client.db().collection('telemetry');
    while (now() < deadline) {
      found = await coll.countDocuments({ kind: 'save', ok: true, ts: { $gte: since } }, { maxTimeMS: 20000 });
      if (found >= want) break;
      await sleep(3000);
    }
    return found;
  } catch { return found; } finally { await client.close().catch(() => {}); }
}

// ------------------------------------------------------------------ the run
async function main() {
  const csv = fs.readFileSync(process.env.USERS_CSV, 'utf8').trim().split('\n').filter((l) => /^\w/.test(l) && !/^username,/.test(l));
  const students = csv.map((l) => { const [username, password, assignment] = l.split(','); return new Student({ username, password, assignment: Number(assignment) }); });
  log(`run ${RUN}: ${students.length} students through ${BASE}; faults: ${FAULT_NAMES.join(', ')}`);
  if (!(await healthy())) throw new Error('the stack is not healthy before the run (make up)');
  // sign-ins arrive at RAMP_MS intervals (the thesis' 21 a second by default); the
  // faults start once everybody is in (or after a minute more)
  const running = students.map((s, i) => sleep(i * RAMP_MS).then(() => s.run()));
  const rampEnd = now() + students.length * RAMP_MS + 60000;
  while (signedIn < students.length && now() < rampEnd) await sleep(500);
  log(`${signedIn} of ${students.length} students signed in`);
  await sleep(3000);

  for (const name of FAULT_NAMES) {
    openWindow(name, '');
    const t0 = current.at;
    current.how = await FAULTS[name]();
    log(`fault ${name}: ${current.how} (the command took ${((now() - t0) / 1000).toFixed(1)} s)`);
    await sleep(500);
    // recovered: the first moment every component answers healthy again
    const reasons = new Set();
    while (now() - t0 < RECOVER_TIMEOUT_S * 1000) {
      if (await healthy()) { current.recoveredMs = now() - t0; break; }
      reasons.add(unhealthyBecause.replace(/\d+ ms/g, 'N ms'));
      await sleep(250);
    }
    current.unhealthy = [...reasons].slice(0, 5);
    if (reasons.size) log(`${name}: unhealthy meanwhile: ${current.unhealthy.join(' | ')}`);
    log(`${name}: healthy after ${current.recoveredMs === null ? 'never' : `${(current.recoveredMs / 1000).toFixed(1)} s`}`);
    await sleep(SETTLE_S * 1000);
  }
  stopping = true;
  await Promise.all(running);
  for (const f of fillers) fs.rmSync(f, { force: true });

  // ---- what the database holds for this run
  const db = await mysql.createConnection({ host: process.env.DB_HOST || '127.0.0.1', port: Number(process.env.DB_PORT || 3307), user: process.env.DB_USER || 'prutor', password: process.env.DB_PASSWORD || 'prutor-local', database: process.env.DB_NAME || 'prutor' });
  const [rows] = await db.query("SELECT id, code FROM code WHERE code LIKE ? AND save_trigger IN ('manual', 'submit')", [`/* chaos ${RUN}:%`]);
  await db.end();
  const stored = new Map();
  for (const r of rows) { const t = /^\/\* chaos (\S+) \*\//.exec(r.code)[1]; stored.set(t, [...(stored.get(t) || []), r.id]); }
  const duplicates = [...stored.values()].filter((ids) => ids.length > 1).length;
  const lost = [...acked.keys()].filter((t) => !stored.has(t));
  const wrongRow = [...acked].filter(([t, a]) => stored.has(t) && !stored.get(t).includes(a.code_id)).length;
  const storedUnacked = [...stored.keys()].filter((t) => !acked.has(t)).length;
  const allHealthy = await healthy();
  const telemetry = await telemetryShipped(new Date(runStart), acked.size);

  // ---- report
  const statusText = (f) => Object.entries(f).map(([k, v]) => `${k}:${v}`).join(' ') || '-';
  const kindText = (f) => Object.entries(f).map(([k, v]) => `${k} ${v}`).join(', ');
  const lines = [];
  lines.push(`chaos run ${RUN}: ${students.length} students, ${FAULT_NAMES.length} faults`);
  lines.push('');
  lines.push('| fault | requests | failed (status:count; which requests) | acked saves | signed out | healthy again after (from the fault\'s start) |');
  lines.push('| --- | ---: | --- | ---: | ---: | ---: |');
  for (const w of windows) {
    const failedN = Object.values(w.failed).reduce((a, b) => a + b, 0);
    lines.push(`| ${w.name} | ${w.requests} | ${failedN} (${statusText(w.failed)}${failedN ? `; ${kindText(w.failedKinds)}` : ''}) | ${w.acked} | ${w.signedOut.size} | ${w.name === 'steady' ? '-' : (w.recoveredMs === null ? 'NOT RECOVERED' : `${(w.recoveredMs / 1000).toFixed(1)} s`)} |`);
  }
  lines.push('');
  lines.push(`acknowledged saves ${acked.size}, stored ${[...acked.keys()].filter((t) => stored.has(t)).length} of them, lost ${lost.length}, duplicate rows ${duplicates}, answered with another row ${wrongRow}; stored without an acknowledgement (answer lost, run ended) ${storedUnacked}`);
  lines.push(`telemetry: ${telemetry === null ? '(not counted: MongoDB did not answer in time)' : telemetry} save events in MongoDB for ${acked.size} acknowledged saves (buffered through the FerretDB restart, shipped later; a worker killed with -9 takes the few events it had not yet handed over; a repeat records none)`);
  lines.push(`students signed out: ${signedOutEver.size}; every component healthy at the end: ${allHealthy ? 'yes' : `NO (${unhealthyBecause})`}`);
  const ok = lost.length === 0 && duplicates === 0 && wrongRow === 0 && signedOutEver.size === 0 && allHealthy
    && windows.every((w) => w.name === 'steady' || w.recoveredMs !== null) && acked.size > 0;
  lines.push(ok ? 'chaos: PASS' : 'chaos: FAIL');
  console.log(lines.join('\n'));
  if (process.env.REPORT) {
    fs.writeFileSync(process.env.REPORT, JSON.stringify({
      run: RUN, users: students.length, ok, lost: lost.length, duplicates, storedUnacked, signedOut: [...signedOutEver],
      acked: acked.size,
      windows: windows.map((w) => ({ ...w, signedOut: [...w.signedOut] })), table: lines.join('\n'),
    }, null, 2));
  }
  process.exit(ok ? 0 : 1);
}

main().catch((e) => { console.error(`chaos: ${e.stack || e}`); for (const f of fillers) fs.rmSync(f, { force: true }); process.exit(1); });
