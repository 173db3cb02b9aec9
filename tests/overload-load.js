'use strict';
// The load half of tests/overload.sh: more sign-ins than the webapp can hash, plus
// page loads, through HAProxy for SECONDS, while HAProxy's stats are polled.
// Refused sign-ins come back after a tenth of their Retry-After (the login page
// waits all of it), so the sign-in queue stays full all along.
// Asserts: HAProxy never reports webapp1 or the webapp backend DOWN; every sign-in
// gets its answer (200 JSON ok) or a 503 with Retry-After within the webapp's
// longest sign-in wait (+ the event loop's lag); every page load gets its page or a 503 with
// Retry-After; nothing else (no 5xx without Retry-After, no dropped connection).
//
//   node tests/overload-load.js FRONT_URL STATS_URL SECONDS MAX_WAIT_S
const http = require('node:http');

const [front, stats, seconds, maxWaitS] = process.argv.slice(2);
const DURATION_MS = Number(seconds) * 1000;
const SIGNIN_CLIENTS = 64; // 32 waiting per worker: over 1 s of compares at 35 ms each or more
// The seeded demo students: each page client keeps one of student01..08 to itself
// (a sign-in as the same user elsewhere may end its session), the sign-in clients
// take turns with student09..20.
const PAGE_CLIENTS = 8;
const student = (n) => `student${String(n).padStart(2, '0')}`;
const PAGE_USERS = Array.from({ length: PAGE_CLIENTS }, (_, i) => student(i + 1));
const SIGNIN_USERS = Array.from({ length: 12 }, (_, i) => student(i + 9));
const PASSWORD = 'prutor-demo'; // the seeded demo course's public password (README)
// "Fast": a refusal never waits for a timeout (HAProxy's queue 30 s, server 60 s); it
// comes at once at the door, or after the longest sign-in wait, plus the event loop's
// lag on a saturated 2-core host (seconds when other work shares the host too).
const FAST_503_MS = (Number(maxWaitS) + 14) * 1000;

const agent = new http.Agent({ keepAlive: true, maxSockets: SIGNIN_CLIENTS + PAGE_CLIENTS + 4 });
const problems = [];
const count = { signin200: 0, signin503: 0, page200: 0, page503: 0, slow503: 0, polls: 0, retryAfterMax: 0 };
const worst = { signinMs: 0, pageMs: 0 };

// As browsers do (and Node's documentation advises), a request sent on a reused
// keep-alive connection that the other side closed at that very moment is sent
// again once on a new connection; any other connection error is a failure.
function request(method, url, opts = {}, retried = false) {
  const { body, headers = {} } = opts;
  return new Promise((resolve) => {
    const t0 = Date.now();
    const req = http.request(url, { method, agent, headers, timeout: 90000 }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { data += c; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: data, ms: Date.now() - t0 }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 90 s')));
    req.on('error', (err) => {
      if (req.reusedSocket && err.code === 'ECONNRESET' && !retried) return resolve(request(method, url, opts, true));
      return resolve({ status: 0, error: err.message, headers: {}, body: '', ms: Date.now() - t0 });
    });
    if (body) req.write(body);
    req.end();
  });
}

function signIn(user) {
  const body = new URLSearchParams({ username: user, password: PASSWORD }).toString();
  return request('POST', `${front}/accounts/login`, {
    body, headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'content-length': Buffer.byteLength(body) },
  });
}

function check503(r, what) {
  const ra = Number(r.headers['retry-after']);
  if (!(ra > 0)) problems.push(`${what}: 503 without Retry-After: ${r.body.slice(0, 120)}`);
  count.retryAfterMax = Math.max(count.retryAfterMax, ra || 0);
  if (r.ms > FAST_503_MS) { count.slow503++; problems.push(`${what}: 503 after ${r.ms} ms (longest allowed ${FAST_503_MS})`); }
  if (/NOSRV|no server is available/i.test(r.body)) problems.push(`${what}: 503 for want of a server`);
}

let until = Date.now() + 60000; // the page clients' sign-ins first (below), then DURATION_MS of overload

async function signInLoop(i) {
  while (Date.now() < until) {
    const r = await signIn(SIGNIN_USERS[i % SIGNIN_USERS.length]);
    worst.signinMs = Math.max(worst.signinMs, r.ms);
    if (r.status === 200 && /"ok":true/.test(r.body)) count.signin200++;
    else if (r.status === 503) {
      count.signin503++;
      check503(r, 'sign-in');
      // as the login page does: wait Retry-After (a tenth of it here, to keep the queue full)
      await new Promise((ok) => setTimeout(ok, (Number(r.headers['retry-after']) || 1) * 100));
    } else problems.push(`sign-in: ${r.status || r.error} ${r.body.slice(0, 120)}`);
  }
}

// Students already signed in when the rush starts: each page client signs in first.
async function pageSignIn(i) {
  while (Date.now() < until) { // a refused sign-in is retried, as the login page does
    const r = await signIn(PAGE_USERS[i]);
    const set = [].concat(r.headers['set-cookie'] || []).find((c) => c.startsWith('prutor.sid='));
    if (r.status === 200 && set) return set.split(';')[0];
    if (r.status !== 503) { problems.push(`sign-in for pages: ${r.status || r.error}`); return null; }
    check503(r, 'sign-in');
    await new Promise((ok) => setTimeout(ok, (Number(r.headers['retry-after']) || 1) * 100));
  }
  return null;
}

async function pageLoop(cookie) {
  if (!cookie) return;
  while (Date.now() < until) {
    const r = await request('GET', `${front}/home`, { headers: { cookie, accept: 'text/html' } });
    worst.pageMs = Math.max(worst.pageMs, r.ms);
    if (r.status === 200 && r.body.includes('csrf-token')) count.page200++;
    else if (r.status === 503) { count.page503++; check503(r, 'home'); }
    else problems.push(`home: ${r.status || r.error} ${r.body.slice(0, 120)}`);
  }
}

// HAProxy's view, 4 times a second: column 18 is the status, 23 the check failures.
const statusSeen = new Set();
let checkFailures = 0;
async function pollStats() {
  while (Date.now() < until + 1000) {
    const r = await request('GET', `${stats}/;csv`);
    for (const line of r.body.split('\n')) {
      const f = line.split(',');
      if (f[0] !== 'webapp' || (f[1] !== 'webapp1' && f[1] !== 'BACKEND')) continue;
      count.polls++;
      statusSeen.add(`${f[1]}:${f[17]}`);
      if (/DOWN|MAINT|NOLB/.test(f[17])) problems.push(`HAProxy reported ${f[1]} ${f[17]} (${f[36] || ''} ${f[37] || ''})`);
      if (f[1] === 'webapp1') checkFailures = Number(f[22]) || checkFailures;
    }
    await new Promise((ok) => setTimeout(ok, 250));
  }
}

(async () => {
  const cookies = await Promise.all(Array.from({ length: PAGE_CLIENTS }, (_, i) => pageSignIn(i)));
  until = Date.now() + DURATION_MS;
  await Promise.all([
    pollStats(),
    ...Array.from({ length: SIGNIN_CLIENTS }, (_, i) => signInLoop(i)),
    ...cookies.map((cookie) => pageLoop(cookie)),
  ]);
  const summary = { ...count, worst, statusSeen: [...statusSeen], checkFailures };
  console.log(JSON.stringify(summary));
  const uniq = [...new Set(problems)];
  if (count.polls === 0) uniq.push('the stats page never answered');
  if (count.signin200 === 0 || count.page200 === 0) uniq.push('no sign-in or no page was served at all');
  if (count.signin503 === 0) uniq.push('the sign-in gate never refused: the webapp was not overloaded, so nothing was shown');
  for (const p of uniq.slice(0, 20)) console.log(`problem: ${p}`);
  process.exit(uniq.length ? 1 : 0);
})();
