'use strict';
// A stand-in for the PHP engine, for developing the editor UI when the real
// engine is not running: same routes and answer shapes (engine contract), gcc
// run directly with NO sandbox. Never for production; only on 127.0.0.1.
//   DB_PORT=... FAKE_ENGINE_PORT=8091 node test/helpers/fake-engine.js
const http = require('node:http');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFile } = require('node:child_process');
const mysql = require('mysql2/promise');

const pool = mysql.createPool({
  host: process.env.DB_HOST || '127.0.0.1', port: Number(process.env.DB_PORT || 3307),
  user: process.env.DB_USER || 'prutor', password: process.env.DB_PASSWORD || 'prutor-local', database: process.env.DB_NAME || 'prutor',
});

function sh(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const p = execFile(cmd, args, { timeout: opts.timeout || 5000, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, signal: err && err.signal, stdout, stderr });
    });
    if (opts.input !== undefined) { p.stdin.end(opts.input); }
  });
}

async function compile(code) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-engine-'));
  fs.writeFileSync(path.join(dir, 'main.c'), code);
  const r = await sh('gcc', ['-std=c11', '-O2', '-Wall', '-o', path.join(dir, 'prog'), path.join(dir, 'main.c'), '-lm']);
  const raw = r.stderr.split(path.join(dir, 'main.c')).join('main.c');
  const messages = [];
  for (const line of raw.split('\n')) {
    const m = /^main\.c:(\d+):(\d+): (error|warning|note|fatal error): (.*)$/.exec(line);
    if (m) messages.push({ line: Number(m[1]), column: Number(m[2]), severity: m[3] === 'fatal error' ? 'error' : m[3], text: m[4] });
  }
  return { ok: r.code === 0, messages, raw, binary: path.join(dir, 'prog'), dir };
}

async function runBin(bin, input) {
  const t0 = Date.now();
  const r = await sh(bin, [], { input, timeout: 2000 });
  const verdict = r.signal === 'SIGTERM' ? 'time_limit' : (r.code === 0 && !r.signal ? 'accepted' : 'runtime_error');
  return { verdict, stdout: r.stdout, stderr: r.stderr, exit_code: r.signal ? null : r.code, signal: r.signal ? 1 : null, signal_name: r.signal || null, time_ms: Date.now() - t0, memory_kb: 0 };
}

const server = http.createServer(async (req, res) => {
  const send = (code, obj) => { res.writeHead(code, { 'content-type': 'application/json' }); res.end(JSON.stringify(obj)); };
  if (req.url === '/healthz') return send(200, { status: 'ok', components: { fake: { status: 'ok' } } });
  if (req.method !== 'POST') return send(405, { error: 'POST only' });
  if (!req.headers['x-csrf-token']) return send(403, { error: 'missing CSRF token' });
  let body = '';
  for await (const c of req) body += c;
  let f;
  try { f = JSON.parse(body); } catch { return send(400, { error: 'bad JSON' }); }
  try {
    if (req.url === '/compile') {
      const c = await compile(f.code || '');
      fs.rmSync(c.dir, { recursive: true, force: true });
      return send(200, { compiled: c.ok, verdict: c.ok ? null : 'compilation_error', messages: c.messages, raw: c.raw });
    }
    if (req.url === '/execute') {
      const c = await compile(f.code || '');
      const r = c.ok ? await runBin(c.binary, f.input || '') : { verdict: 'compilation_error', stdout: '', stderr: '', exit_code: null, signal: null, time_ms: 0 };
      fs.rmSync(c.dir, { recursive: true, force: true });
      return send(200, { ...r, compiled: c.ok, compile: c.ok ? null : { messages: c.messages, raw: c.raw } });
    }
    if (req.url === '/evaluate') {
      const [[a]] = await pool.query(`SELECT a.problem_id, COALESCE(q.max_marks, 100) AS max_marks, c.code FROM assignments a LEFT JOIN event_questions q ON q.id=a.question_id
        LEFT JOIN code c ON c.id = (SELECT c2.id FROM code c2 WHERE c2.assignment_id=a.id ORDER BY c2.save_time DESC, c2.id DESC LIMIT 1) WHERE a.id=?`, [f.assignment_id]);
      if (!a) return send(404, { error: 'no such assignment' });
      const [tcs] = await pool.query('SELECT * FROM test_cases WHERE problem_id=? ORDER BY position', [a.problem_id]);
      const c = await compile(a.code || '');
      const cases = [];
      let got = 0; let total = 0; let overall = 'accepted';
      for (const tc of tcs) {
        total += tc.weight;
        let r = c.ok ? await runBin(c.binary, tc.input) : { verdict: 'compilation_error', stdout: '', time_ms: 0 };
        if (r.verdict === 'accepted' && r.stdout.trimEnd() !== tc.expected_output.trimEnd()) r = { ...r, verdict: 'wrong_answer' };
        const passed = r.verdict === 'accepted';
        if (passed) got += tc.weight; else if (overall === 'accepted') overall = r.verdict;
        const one = { position: tc.position, visibility: tc.visibility, passed };
        if (tc.visibility === 'visible') Object.assign(one, { verdict: r.verdict, input: tc.input, expected: tc.expected_output, actual: r.stdout, time_ms: r.time_ms });
        cases.push(one);
      }
      fs.rmSync(c.dir, { recursive: true, force: true });
      const score = total ? Math.round(a.max_marks * got / total * 100) / 100 : 0;
      return send(200, { verdict: overall, compiled: c.ok, compile: c.ok ? null : { messages: c.messages, raw: c.raw }, score, max_score: a.max_marks, passed: cases.filter((x) => x.passed).length, cases });
    }
    return send(404, { error: 'no such route' });
  } catch (e) { return send(500, { error: String(e.message) }); }
});
server.listen(Number(process.env.FAKE_ENGINE_PORT || 8091), '127.0.0.1');
