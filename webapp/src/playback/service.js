'use strict';
// Playback of one assignment from what is already stored: every code row (saves,
// autosaves, submits and the code sent to compile/run/evaluate), compilations with
// their messages, runs, and evaluations (one entry per run of the test cases).
// The timeline is read in pages in time order (keyset on (time, kind, id), each
// table through its (assignment_id, time) index), with no code text; the code of
// a version and the diff of two versions are separate small requests. So a 3-hour
// exam with an autosave every 12 s (900+ versions) opens with its first page.
const { diffLines } = require('diff');
const { notFound, badRequest } = require('../shared/errors');
const { mayOpen } = require('../grading/service');

// Order of kinds at the same instant: the code row comes before what used it.
const KINDS = ['save', 'compile', 'run', 'evaluate'];
const MAX_PAGE = 500;

function parseCursor(s) {
  if (s === undefined || s === null || s === '') return null;
  const m = /^(\d{1,15})\.([0-3])\.(\d{1,19})$/.exec(String(s));
  if (!m) throw badRequest('The timeline position ("after") is not valid.');
  return { ms: Number(m[1]), kind: Number(m[2]), id: m[3] };
}

// Rows of one table after the cursor, in keyset order.
function afterClause(col, idCol, kindRank, cur) {
  if (!cur) return { sql: '', params: [] };
  const t = new Date(cur.ms);
  if (kindRank > cur.kind) return { sql: ` AND ${col} >= ?`, params: [t] };
  if (kindRank < cur.kind) return { sql: ` AND ${col} > ?`, params: [t] };
  return { sql: ` AND (${col} > ? OR (${col} = ? AND ${idCol} > ?))`, params: [t, t, cur.id] };
}

function createPlaybackService({ db }) {
  // Only what this staff member may grade (the rule is grading's); anything else, a
  // practice or scratchpad file or another TA's queue, is not there for them.
  async function open(actor, assignmentId) {
    if (!(await mayOpen(db, actor, assignmentId))) throw notFound('There is no such assignment.');
  }

  async function assignment(assignmentId) {
    const rows = await db.query(`SELECT a.id, a.kind, a.event_id, u.username, u.name, e.title AS event_title, q.position,
        p.title AS problem_title, (SELECT COUNT(*) FROM code c WHERE c.assignment_id = a.id) AS versions
      FROM assignments a JOIN users u ON u.id = a.user_id LEFT JOIN events e ON e.id = a.event_id
      LEFT JOIN event_questions q ON q.id = a.question_id LEFT JOIN problems p ON p.id = a.problem_id WHERE a.id = ?`, [assignmentId]);
    if (!rows[0]) throw notFound('There is no such assignment.');
    return rows[0];
  }

  async function timeline(assignmentId, { after, limit = 300 } = {}) {
    const cur = parseCursor(after);
    const n = Math.max(1, Math.min(Number(limit) || 300, MAX_PAGE));
    const q = async (kind, sql, col, idCol) => {
      const a = afterClause(col, idCol, KINDS.indexOf(kind), cur);
      return db.query(`${sql}${a.sql} ORDER BY ${col}, ${idCol} LIMIT ${n}`, [assignmentId, ...a.params]);
    };
    const [saves, compiles, runs, evals] = await Promise.all([
      q('save', `SELECT id, id AS code_id, save_time AS t, save_trigger, CHAR_LENGTH(code) AS chars,
          (CHAR_LENGTH(code) - CHAR_LENGTH(REPLACE(code, '\\n', '')) + 1) AS line_count FROM code WHERE assignment_id = ?`, 'save_time', 'id'),
      q('compile', 'SELECT id, code_id, created_at AS t, success, messages, from_cache FROM compilations WHERE assignment_id = ?', 'created_at', 'id'),
      q('run', `SELECT id, code_id, created_at AS t, verdict, exit_code, time_ms, CHAR_LENGTH(input) AS input_chars,
          LEFT(stdout, 2000) AS stdout, LEFT(stderr, 2000) AS stderr FROM executions WHERE assignment_id = ?`, 'created_at', 'id'),
      // one entry per evaluation run: its first row's id and time, passed / total
      (async () => {
        const a = afterClause('t', 'id', KINDS.indexOf('evaluate'), cur);
        return db.query(`SELECT * FROM (SELECT MIN(id) AS id, MIN(code_id) AS code_id, MIN(created_at) AS t, SUM(passed) AS passed, COUNT(*) AS total,
            GROUP_CONCAT(DISTINCT verdict ORDER BY verdict SEPARATOR ', ') AS verdicts
          FROM evaluations WHERE assignment_id = ? GROUP BY run_id) r WHERE 1 = 1${a.sql} ORDER BY t, id LIMIT ${n}`, [assignmentId, ...a.params]);
      })(),
    ]);
    const items = [
      ...saves.map((r) => ({ kind: 'save', id: String(r.id), code_id: String(r.code_id), t: r.t, trigger: r.save_trigger, chars: r.chars, lines: r.line_count })),
      ...compiles.map((r) => ({ kind: 'compile', id: String(r.id), code_id: String(r.code_id), t: r.t, ok: !!r.success, cached: !!r.from_cache, messages: r.messages })),
      ...runs.map((r) => ({ kind: 'run', id: String(r.id), code_id: String(r.code_id), t: r.t, verdict: r.verdict, exit_code: r.exit_code,
        time_ms: r.time_ms, input_chars: r.input_chars, stdout: r.stdout, stderr: r.stderr })),
      ...evals.map((r) => ({ kind: 'evaluate', id: String(r.id), code_id: String(r.code_id), t: r.t, passed: Number(r.passed), total: Number(r.total), verdicts: r.verdicts })),
    ];
    const rank = (x) => KINDS.indexOf(x.kind);
    items.sort((x, y) => (x.t - y.t) || (rank(x) - rank(y)) || (BigInt(x.id) < BigInt(y.id) ? -1 : BigInt(x.id) > BigInt(y.id) ? 1 : 0));
    const page = items.slice(0, n);
    const more = items.length > n || [saves, compiles, runs, evals].some((rows) => rows.length === n);
    const last = page[page.length - 1];
    return {
      items: page.map((x) => ({ ...x, t: new Date(x.t).toISOString() })),
      next: more && last ? `${new Date(last.t).getTime()}.${rank(last)}.${last.id}` : null,
    };
  }

  async function code(assignmentId, codeId) {
    const rows = await db.query('SELECT id, save_time, save_trigger, code FROM code WHERE id = ? AND assignment_id = ?', [codeId, assignmentId]);
    if (!rows[0]) throw notFound('This assignment has no such version.');
    return rows[0];
  }

  // Line diff of two versions: [{op: ' ' | '+' | '-', text}] in the newer version's order.
  async function diff(assignmentId, fromId, toId) {
    const [a, b] = await Promise.all([code(assignmentId, fromId), code(assignmentId, toId)]);
    const lines = [];
    for (const part of diffLines(a.code, b.code)) {
      const op = part.added ? '+' : part.removed ? '-' : ' ';
      const text = part.value.endsWith('\n') ? part.value.slice(0, -1) : part.value;
      for (const l of text.split('\n')) lines.push({ op, text: l });
    }
    return {
      from: { id: String(a.id), t: a.save_time.toISOString(), trigger: a.save_trigger },
      to: { id: String(b.id), t: b.save_time.toISOString(), trigger: b.save_trigger },
      added: lines.filter((l) => l.op === '+').length,
      removed: lines.filter((l) => l.op === '-').length,
      lines,
    };
  }

  return { open, assignment, timeline, code, diff };
}

module.exports = { createPlaybackService, parseCursor };
