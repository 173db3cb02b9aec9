'use strict';
// Problems and their test cases; "check against the reference solution" through
// the engine (CONTRACTS.md "Staff calls to the engine"). Every change to test
// cases also bumps problems.updated_at in the same transaction: the engine caches
// a problem's test cases by (problem id, updated_at).
const fs = require('node:fs');
const path = require('node:path');
const { Form } = require('../staff/form');
const { withTx } = require('../staff/tx');
const { notFound, unavailable, conflict, HttpError } = require('../shared/errors');
const { renderMarkdown } = require('../shared/markdown');
const { readCookie, COOKIE } = require('../shared/session');

const MAX_TEXT = 64 * 1024;

function loadEnvironments() {
  for (const p of [path.resolve(__dirname, '../../../nosql/environments.json'), path.resolve(__dirname, '../../../engine/config/environments.json')]) {
    try {
      const list = JSON.parse(fs.readFileSync(p, 'utf8'));
      if (Array.isArray(list) && list.length) return list.map((e) => ({ slug: String(e.slug), name: String(e.name || e.slug), template: String(e.template || '') }));
    } catch { /* next */ }
  }
  return [{ slug: 'c', name: 'C (gcc)', template: '' }];
}
const ENVIRONMENTS = loadEnvironments(); // once per worker, never per request

function createProblemsService({ db, engineUrl, fetchImpl = fetch, timeoutMs = 120000 }) {
  async function list({ archived = false } = {}) {
    return db.query(`SELECT p.id, p.title, p.category, p.env, p.is_practice, p.updated_at, p.archived_at,
        (SELECT COUNT(*) FROM test_cases t WHERE t.problem_id = p.id AND t.visibility = 'visible') AS visible_tests,
        (SELECT COUNT(*) FROM test_cases t WHERE t.problem_id = p.id AND t.visibility = 'hidden') AS hidden_tests,
        (SELECT COUNT(DISTINCT q.event_id) FROM event_questions q WHERE q.problem_id = p.id) AS events
      FROM problems p WHERE p.archived_at IS ${archived ? 'NOT NULL' : 'NULL'} ORDER BY p.category, p.title`);
  }

  // Deleting or archiving is for problems no event uses (an event's grading and
  // students' work point at them); a problem with practice attempts can only be
  // archived (the attempts stay in the students' codebooks).
  async function usage(tx, id) {
    const [u] = await tx.query(`SELECT (SELECT COUNT(*) FROM event_questions q WHERE q.problem_id = p.id) AS questions,
        (SELECT GROUP_CONCAT(DISTINCT e.title ORDER BY e.id SEPARATOR ', ') FROM event_questions q JOIN events e ON e.id = q.event_id WHERE q.problem_id = p.id) AS events,
        (SELECT COUNT(*) FROM assignments a WHERE a.problem_id = p.id) AS attempts
      FROM problems p WHERE p.id = ? FOR UPDATE`, [id]);
    if (!u) throw notFound('No such problem.');
    if (u.questions) throw conflict(`This problem is used by ${u.events}: remove it from ${u.questions === 1 ? 'that event' : 'those events'} first.`);
    return u;
  }

  async function remove(id) {
    await withTx(db, async (tx) => {
      const u = await usage(tx, id);
      if (u.attempts) throw conflict(`Students have ${u.attempts} practice attempt(s) on this problem: archive it instead (their work stays).`);
      await tx.query('DELETE FROM problems WHERE id = ?', [id]);
    });
  }

  async function archive(id, archived) {
    await withTx(db, async (tx) => {
      if (archived) await usage(tx, id);
      await tx.query(`UPDATE problems SET archived_at = ${archived ? 'UTC_TIMESTAMP(3)' : 'NULL'} WHERE id = ?`, [id]);
    });
  }

  async function get(id) {
    const rows = await db.query('SELECT * FROM problems WHERE id = ?', [id]);
    if (!rows[0]) throw notFound('No such problem.');
    return rows[0];
  }

  async function tests(problemId) {
    return db.query('SELECT id, position, input, expected_output, visibility, weight FROM test_cases WHERE problem_id = ? ORDER BY position, id', [problemId]);
  }

  function read(body) {
    const f = new Form(body);
    const p = {
      title: f.str('title', { label: 'Title', required: true, max: 200 }),
      category: f.str('category', { label: 'Category', max: 64 }),
      statement_md: f.str('statement_md', { label: 'Statement', required: true, max: 100000, trim: false }),
      env: f.oneOf('env', ENVIRONMENTS.map((e) => e.slug), { label: 'Environment', def: 'c' }),
      template_code: f.str('template_code', { label: 'Template code', max: MAX_TEXT, trim: false }),
      solution_code: f.str('solution_code', { label: 'Reference solution', required: true, max: MAX_TEXT, trim: false }),
      time_limit_ms: f.int('time_limit_ms', { label: 'Time limit (ms)', required: true, min: 100, max: 60000 }),
      memory_limit_kb: null,
      compare_mode: f.oneOf('compare_mode', ['trim', 'exact'], { label: 'Output comparison', def: 'trim' }),
      is_practice: f.bool('is_practice') ? 1 : 0,
    };
    const mb = f.int('memory_limit_mb', { label: 'Memory limit (MB)', required: true, min: 8, max: 4096 });
    if (mb) p.memory_limit_kb = mb * 1024;
    if (p.statement_md !== undefined && !p.statement_md.trim()) f.fail('statement_md', 'Statement is required.');
    f.check();
    return p;
  }

  async function create(actor, body) {
    const p = read(body);
    const r = await db.query(`INSERT INTO problems (title, category, statement_md, env, template_code, solution_code,
        time_limit_ms, memory_limit_kb, compare_mode, is_practice, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [p.title, p.category || '', p.statement_md, p.env, p.template_code || '', p.solution_code, p.time_limit_ms, p.memory_limit_kb, p.compare_mode, p.is_practice, actor.uid]);
    return r.insertId;
  }

  async function update(id, body) {
    const p = read(body);
    await get(id);
    // a title change refreshes home_view / codebook_view rows (triggers)
    await db.query(`UPDATE problems SET title = ?, category = ?, statement_md = ?, env = ?, template_code = ?, solution_code = ?,
        time_limit_ms = ?, memory_limit_kb = ?, compare_mode = ?, is_practice = ?, updated_at = CURRENT_TIMESTAMP(3) WHERE id = ?`,
    [p.title, p.category || '', p.statement_md, p.env, p.template_code || '', p.solution_code, p.time_limit_ms, p.memory_limit_kb, p.compare_mode, p.is_practice, id]);
  }

  function readTest(body) {
    const f = new Form(body);
    const t = {
      input: f.str('input', { label: 'Input', max: MAX_TEXT, trim: false }),
      expected_output: f.str('expected_output', { label: 'Expected output', required: true, max: MAX_TEXT, trim: false }),
      visibility: f.oneOf('visibility', ['visible', 'hidden'], { label: 'Visibility' }),
      weight: f.int('weight', { label: 'Weight', required: true, min: 0, max: 1000 }),
      position: f.int('position', { label: 'Position', min: 1, max: 10000 }),
    };
    f.check();
    return t;
  }

  async function addTest(problemId, body) {
    const t = readTest(body);
    return withTx(db, async (tx) => {
      const p = await tx.query('SELECT id FROM problems WHERE id = ? FOR UPDATE', [problemId]);
      if (!p[0]) throw notFound('No such problem.');
      let pos = t.position;
      if (!pos) pos = (await tx.query('SELECT COALESCE(MAX(position), 0) + 1 AS n FROM test_cases WHERE problem_id = ?', [problemId]))[0].n;
      const r = await tx.query('INSERT INTO test_cases (problem_id, position, input, expected_output, visibility, weight) VALUES (?, ?, ?, ?, ?, ?)',
        [problemId, pos, t.input || '', t.expected_output, t.visibility, t.weight]);
      await tx.query('UPDATE problems SET updated_at = CURRENT_TIMESTAMP(3) WHERE id = ?', [problemId]);
      return r.insertId;
    });
  }

  async function updateTest(problemId, testId, body) {
    const t = readTest(body);
    await withTx(db, async (tx) => {
      const r = await tx.query(`UPDATE test_cases SET input = ?, expected_output = ?, visibility = ?, weight = ?, position = COALESCE(?, position)
        WHERE id = ? AND problem_id = ?`, [t.input || '', t.expected_output, t.visibility, t.weight, t.position, testId, problemId]);
      if (!r.affectedRows) throw notFound('No such test case.');
      await tx.query('UPDATE problems SET updated_at = CURRENT_TIMESTAMP(3) WHERE id = ?', [problemId]);
    });
  }

  async function deleteTest(problemId, testId) {
    await withTx(db, async (tx) => {
      const r = await tx.query('DELETE FROM test_cases WHERE id = ? AND problem_id = ?', [testId, problemId]);
      if (!r.affectedRows) throw notFound('No such test case.');
      await tx.query('UPDATE problems SET updated_at = CURRENT_TIMESTAMP(3) WHERE id = ?', [problemId]);
    });
  }

  // Server to server: the staff member's own session cookie and CSRF token go to
  // ENGINE_URL/evaluate with {problem_id, code}; the engine stores nothing.
  async function check(problemId, req) {
    const p = await get(problemId);
    const sid = readCookie(req.headers.cookie, COOKIE);
    let res;
    try {
      res = await fetchImpl(`${engineUrl}/evaluate`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json', accept: 'application/json',
          cookie: `${COOKIE}=${sid}`, 'x-csrf-token': req.session.csrf,
        },
        body: JSON.stringify({ problem_id: problemId, code: p.solution_code }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      throw unavailable(`The code engine could not be reached (${e.name === 'TimeoutError' ? 'no answer in time' : 'connection failed'}). Try again in a moment.`);
    }
    let data = null;
    try { data = await res.json(); } catch { /* not JSON */ }
    if (!res.ok) {
      const msg = data && data.error ? data.error : `HTTP ${res.status}`;
      if (res.status === 503 || res.status === 429) throw unavailable(`The code engine is busy: ${msg}. Try again in a few seconds.`);
      throw new HttpError(res.status >= 500 ? 502 : res.status, `The code engine refused the check: ${msg}`);
    }
    return data;
  }

  // The statement as students will see it (the same renderer as the editor).
  function preview(body) {
    const src = body && typeof body.statement_md === 'string' ? body.statement_md : '';
    if (src.length > MAX_TEXT) throw new HttpError(413, 'The statement is too long to preview.');
    return { html: String(renderMarkdown(src)) };
  }

  return { list, get, tests, create, update, addTest, updateTest, deleteTest, check, environments: ENVIRONMENTS, remove, archive, preview };
}

module.exports = { createProblemsService };
