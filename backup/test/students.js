'use strict';
// A student of the drills: logs in through HAProxy (a real session, CSRF token) and
// saves with a marker and a client id, retried with the same id until acknowledged,
// so a retry never makes a second row.
const crypto = require('node:crypto');
const assert = require('node:assert/strict');

const BASE = process.env.BASE_URL;
const RUN = process.env.RUN;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

class Student {
  constructor(username, password, assignment) { Object.assign(this, { username, password, assignment, cookies: new Map(), csrf: null, seq: 0 }); }

  async request(method, url, body) {
    const headers = { accept: 'application/json', 'x-requested-with': 'XMLHttpRequest' };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (this.csrf) headers['x-csrf-token'] = this.csrf;
    if (body) headers['content-type'] = 'application/json';
    try {
      const res = await fetch(BASE + url, { method, headers, body: body ? JSON.stringify(body) : undefined, redirect: 'manual', signal: AbortSignal.timeout(30000) });
      for (const sc of res.headers.getSetCookie()) {
        const [pair] = sc.split(';'); const eq = pair.indexOf('=');
        this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
      }
      let json = null; try { json = await res.json(); } catch { /* not JSON */ }
      return { status: res.status, json };
    } catch (e) { return { status: 0, json: null }; }
  }

  async login() {
    const r = await this.request('POST', '/accounts/login', { username: this.username, password: this.password });
    assert.equal(r.status, 200, `login ${this.username} -> ${r.status}`);
    this.csrf = r.json.csrf;
  }

  // One save with its own marker; retried with the same client id until acknowledged,
  // so a retry never makes a second row. Returns { token, code_id } or null.
  async save(label, trigger = 'manual') {
    const token = `${RUN}:${this.username}:${label || ++this.seq}`;
    const body = { assignment_id: this.assignment, branch_id: 0, trigger, code: `/* drill ${token} */\nint main(void) { return 0; }\n`, client_save_id: crypto.randomBytes(18).toString('base64url') };
    for (let attempt = 0; attempt < (this.patience || 20); attempt++) {
      const r = await this.request('POST', '/editor/save', body);
      if (r.status === 200 && r.json && r.json.ok) return { token, code_id: r.json.code_id };
      if (r.status && r.status < 500 && r.status !== 429) throw new Error(`save ${token} -> ${r.status} ${r.json && r.json.error}`);
      await sleep(200 * (attempt + 1));
    }
    return null;
  }
}

// Every acknowledged save against the rows: none lost, none twice, each under the id it was acknowledged with.
async function stored(db) {
  const [rows] = await db.query('SELECT id, code FROM code WHERE code LIKE ?', [`/* drill ${RUN}:%`]);
  const byToken = new Map();
  for (const r of rows) {
    const token = /\/\* drill (\S+) \*\//.exec(r.code)[1];
    byToken.set(token, [...(byToken.get(token) || []), r.id]);
  }
  return byToken;
}

function checkAll(byToken, acked, what, log) {
  let lost = 0; let dup = 0; let wrong = 0;
  for (const [token, codeId] of acked) {
    const ids = byToken.get(token) || [];
    if (ids.length === 0) lost++;
    else if (ids.length > 1) dup++;
    else if (ids[0] !== codeId) wrong++;
  }
  log(`${what}: ${acked.size} acknowledged saves; lost ${lost}, duplicated ${dup}, another row id ${wrong}`);
  assert.equal(lost, 0, `${what}: acknowledged saves lost`);
  assert.equal(dup, 0, `${what}: saves stored twice`);
  assert.equal(wrong, 0, `${what}: saves restored under another row id`);
}

function students(csvFile) {
  const fs = require('node:fs');
  return fs.readFileSync(csvFile, 'utf8').trim().split('\n').slice(1).map((l) => l.split(',')).map(([u, p, a]) => new Student(u, p, Number(a)));
}

module.exports = { Student, students, stored, checkAll, sleep };
