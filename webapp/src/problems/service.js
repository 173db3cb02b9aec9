'use strict';
// Problems and their test cases; "check against the reference solution" through
// the engine (CONTRACTS.md "Staff calls to the engine"). Every change to test
// cases also bumps problems.updated_at in the same transaction: the engine caches
// a problem's test cases by (problem id, updated_at).
const fs = require('node:fs');
const path = require('node:path');
const { Form } = require('../lib/form');
const { notFound, unavailable, conflict, HttpError } = require('../shared/errors');
const { renderMarkdown } = require('../shared/markdown');
const { readCookie, COOKIE } = require('../shared/session');
const { createEngineClient } = require('../lib/engine');
const { importZip, importError } = require('./kattis');
const { parseQuestions } = require('./coderunner');

const MAX_TEXT = 64 * 1024;

// How output is compared (engine/src/Compare.php and Checker.php say each exactly;
// rdb/migrations/035 holds them): per problem, and per test case where set.
const COMPARE_MODES = [
  { value: 'trim', label: 'Ignore trailing whitespace' },
  { value: 'exact', label: 'Exact (byte for byte)' },
  { value: 'whitespace', label: 'Ignore all whitespace differences (lines still matter)' },
  { value: 'case', label: 'Ignore case (and trailing whitespace)' },
  { value: 'tokens', label: 'Tokens (whitespace and line breaks do not matter)' },
  { value: 'numbers', label: 'Numbers within a tolerance' },
  { value: 'checker', label: 'Checker program' },
];
const CHECKER_INTERFACES = [
  { value: 'kattis', label: 'Kattis: checker input answer feedback_dir < output; exit 42 right, 43 wrong' },
  { value: 'testlib', label: 'testlib: checker input output answer; exit 0 right, 1/2 wrong, 7 points' },
];
const TOLERANCE = /^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

// The comparison columns from a form. perCase: every field may be left empty (the
// problem's value is used); a case's checker is its own only when it has code.
function readComparison(f, { perCase }) {
  const modes = COMPARE_MODES.map((m) => m.value);
  const c = {
    compare_mode: perCase ? (f.raw('compare_mode') === '' ? null : f.oneOf('compare_mode', modes, { label: 'Output comparison' }))
      : f.oneOf('compare_mode', modes, { label: 'Output comparison', def: 'trim' }),
    abs_tolerance: null,
    rel_tolerance: null,
    checker_env: f.oneOf('checker_env', ENVIRONMENTS.map((e) => e.slug), { label: 'Checker language', def: perCase ? null : 'c' }),
    checker_interface: f.oneOf('checker_interface', CHECKER_INTERFACES.map((i) => i.value), { label: 'Checker convention', def: perCase ? null : 'kattis' }),
    checker_code: f.str('checker_code', { label: 'Checker program', max: MAX_TEXT, trim: false }) || null,
  };
  for (const [k, label] of [['abs_tolerance', 'Absolute tolerance'], ['rel_tolerance', 'Relative tolerance']]) {
    const s = f.str(k, { label, max: 32 });
    if (!s) continue;
    if (!TOLERANCE.test(s) || !Number.isFinite(Number(s))) f.fail(k, `${label} must be a number of 0 or more, e.g. 0.001 or 1e-6.`);
    else c[k] = Number(s);
  }
  if (c.checker_code !== null && !c.checker_code.trim()) c.checker_code = null;
  if (!perCase && c.compare_mode === 'checker' && !c.checker_code) f.fail('checker_code', 'A checker program is required to compare with a checker.');
  if (perCase && c.checker_code === null) { c.checker_env = null; c.checker_interface = null; }
  return c;
}
const COMPARISON_COLUMNS = ['compare_mode', 'abs_tolerance', 'rel_tolerance', 'checker_env', 'checker_interface', 'checker_code'];

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
  const engine = createEngineClient({ engineUrl, fetchImpl, timeoutMs });
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
    await db.tx(async (tx) => {
      const u = await usage(tx, id);
      if (u.attempts) throw conflict(`Students have ${u.attempts} practice attempt(s) on this problem: archive it instead (their work stays).`);
      await tx.query('DELETE FROM problems WHERE id = ?', [id]);
    });
  }

  async function archive(id, archived) {
    await db.tx(async (tx) => {
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
    return db.query(`SELECT id, position, input, expected_output, visibility, weight, ${COMPARISON_COLUMNS.join(', ')}
      FROM test_cases WHERE problem_id = ? ORDER BY position, id`, [problemId]);
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
      is_practice: f.bool('is_practice') ? 1 : 0,
      ...readComparison(f, { perCase: false }),
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
        time_limit_ms, memory_limit_kb, is_practice, created_by, ${COMPARISON_COLUMNS.join(', ')}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [p.title, p.category || '', p.statement_md, p.env, p.template_code || '', p.solution_code, p.time_limit_ms, p.memory_limit_kb, p.is_practice, actor.uid,
      ...COMPARISON_COLUMNS.map((k) => p[k])]);
    return r.insertId;
  }

  async function update(id, body) {
    const p = read(body);
    await get(id);
    // a title change refreshes home_view / codebook_view rows (triggers)
    await db.query(`UPDATE problems SET title = ?, category = ?, statement_md = ?, env = ?, template_code = ?, solution_code = ?,
        time_limit_ms = ?, memory_limit_kb = ?, is_practice = ?, ${COMPARISON_COLUMNS.map((k) => `${k} = ?`).join(', ')},
        updated_at = CURRENT_TIMESTAMP(3) WHERE id = ?`,
    [p.title, p.category || '', p.statement_md, p.env, p.template_code || '', p.solution_code, p.time_limit_ms, p.memory_limit_kb, p.is_practice,
      ...COMPARISON_COLUMNS.map((k) => p[k]), id]);
  }

  function readTest(body) {
    const f = new Form(body);
    const t = {
      input: f.str('input', { label: 'Input', max: MAX_TEXT, trim: false }),
      expected_output: f.str('expected_output', { label: 'Expected output', required: true, max: MAX_TEXT, trim: false }),
      visibility: f.oneOf('visibility', ['visible', 'hidden'], { label: 'Visibility' }),
      weight: f.int('weight', { label: 'Weight', required: true, min: 0, max: 1000 }),
      position: f.int('position', { label: 'Position', min: 1, max: 10000 }),
      ...readComparison(f, { perCase: true }),
    };
    f.check();
    return t;
  }

  async function addTest(problemId, body) {
    const t = readTest(body);
    return db.tx(async (tx) => {
      const p = await tx.query('SELECT id FROM problems WHERE id = ? FOR UPDATE', [problemId]);
      if (!p[0]) throw notFound('No such problem.');
      let pos = t.position;
      if (!pos) pos = (await tx.query('SELECT COALESCE(MAX(position), 0) + 1 AS n FROM test_cases WHERE problem_id = ?', [problemId]))[0].n;
      const r = await tx.query(`INSERT INTO test_cases (problem_id, position, input, expected_output, visibility, weight, ${COMPARISON_COLUMNS.join(', ')})
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [problemId, pos, t.input || '', t.expected_output, t.visibility, t.weight, ...COMPARISON_COLUMNS.map((k) => t[k])]);
      await tx.query('UPDATE problems SET updated_at = CURRENT_TIMESTAMP(3) WHERE id = ?', [problemId]);
      return r.insertId;
    });
  }

  async function updateTest(problemId, testId, body) {
    const t = readTest(body);
    await db.tx(async (tx) => {
      const r = await tx.query(`UPDATE test_cases SET input = ?, expected_output = ?, visibility = ?, weight = ?, position = COALESCE(?, position),
        ${COMPARISON_COLUMNS.map((k) => `${k} = ?`).join(', ')} WHERE id = ? AND problem_id = ?`,
      [t.input || '', t.expected_output, t.visibility, t.weight, t.position, ...COMPARISON_COLUMNS.map((k) => t[k]), testId, problemId]);
      if (!r.affectedRows) throw notFound('No such test case.');
      await tx.query('UPDATE problems SET updated_at = CURRENT_TIMESTAMP(3) WHERE id = ?', [problemId]);
    });
  }

  async function deleteTest(problemId, testId) {
    await db.tx(async (tx) => {
      const r = await tx.query('DELETE FROM test_cases WHERE id = ? AND problem_id = ?', [testId, problemId]);
      if (!r.affectedRows) throw notFound('No such test case.');
      await tx.query('UPDATE problems SET updated_at = CURRENT_TIMESTAMP(3) WHERE id = ?', [problemId]);
    });
  }

  // Server to server: the staff member's own session cookie and CSRF token go to
  // ENGINE_URL/evaluate with {problem_id, code}; the engine stores nothing.
  async function check(problemId, req) {
    const p = await get(problemId);
    let res;
    try {
      res = await engine.evaluate({ cookie: readCookie(req.headers.cookie, COOKIE), csrf: req.session.csrf, problemId, code: p.solution_code });
    } catch (e) {
      throw unavailable(`The code engine could not be reached (${e.name === 'TimeoutError' ? 'no answer in time' : 'connection failed'}). Try again in a moment.`);
    }
    const data = res.body;
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

  // A Kattis problem package (problems/kattis.js) as a new problem with its test cases;
  // checked by the same rules as the forms. Returns the id and what was only approximated.
  async function importPackage(actor, buf) {
    let pkg;
    try { pkg = importZip(buf); } catch (e) { throw importError(e); }
    const id = await insertImported(actor, pkg);
    return { id, warnings: pkg.warnings, tests: pkg.tests.length };
  }

  // Moodle question XML with CodeRunner questions (problems/coderunner.js): each question
  // that can be graded here becomes a problem; the others are listed with the reason.
  async function importCodeRunner(actor, xml) {
    const { problems, skipped } = parseQuestions(xml);
    const made = [];
    for (const q of problems) {
      try {
        made.push({ id: await insertImported(actor, q), title: q.problem.title, tests: q.tests.length, warnings: q.warnings });
      } catch (e) {
        if (!(e instanceof HttpError) || e.status !== 400) throw e;
        skipped.push({ name: q.problem.title, reason: e.message });
      }
    }
    return { problems: made, skipped };
  }

  // An imported problem and its cases, checked by the forms' own rules, in one transaction.
  async function insertImported(actor, pkg) {
    const p = read({ ...pkg.problem, memory_limit_mb: String(pkg.problem.memory_limit_kb / 1024), is_practice: '',
      abs_tolerance: pkg.problem.abs_tolerance ?? '', rel_tolerance: pkg.problem.rel_tolerance ?? '' });
    for (const t of pkg.tests) readTest({ ...t, weight: String(t.weight) });
    return db.tx(async (tx) => {
      const r = await tx.query(`INSERT INTO problems (title, category, statement_md, env, template_code, solution_code,
          time_limit_ms, memory_limit_kb, is_practice, created_by, ${COMPARISON_COLUMNS.join(', ')}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [p.title, p.category || '', p.statement_md, p.env, p.template_code || '', p.solution_code, p.time_limit_ms, p.memory_limit_kb, 0, actor.uid,
        ...COMPARISON_COLUMNS.map((k) => p[k])]);
      for (const [i, t] of pkg.tests.entries()) {
        await tx.query('INSERT INTO test_cases (problem_id, position, input, expected_output, visibility, weight) VALUES (?, ?, ?, ?, ?, ?)',
          [r.insertId, i + 1, t.input, t.expected_output, t.visibility, t.weight]);
      }
      return r.insertId;
    });
  }

  return { importPackage, importCodeRunner, list, get, tests, create, update, addTest, updateTest, deleteTest, check, environments: ENVIRONMENTS, remove, archive, preview };
}

module.exports = { createProblemsService, COMPARE_MODES, CHECKER_INTERFACES };
