// Exam archives: one zip per event that an instructor or a registrar can keep, readable
// without the platform, and an import that puts the event back from it.
//   node archive.js export EVENT_ID FILE.zip
//   node archive.js import FILE.zip        (the event must not exist; its users must)
// What an archive holds:
//   manifest.json          the event, when, the schema's last migration, per table its
//                          columns and rows, and the sha256 of every other file
//   tables/<table>.csv     every row of the event (RFC 4180, a header line; NULL is empty)
//   tables/<table>.json    the same rows with their exact values (what import reads)
//   source/<user>/q<position>/<save time>_<code id>[_submitted].c   every saved version
//   problems/<id>/statement.md, template.c, solution.c, tests/<n>.in|.out (n: position)
//   README.txt             this description
// The tables are found by the schema's foreign keys: every table whose rows hang off the
// event (directly, or through its questions, schedules, assignments, code, similarity
// jobs), plus the problems and test cases its questions use and the users and sections
// its rows name (no password hashes) for reading. A new migration's table that refers
// to one of these is archived without a change here.
// DB_* name the database (the app user).
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const { execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const mysql = (() => { try { return require(path.join(ROOT, 'webapp', 'node_modules', 'mysql2', 'promise')); } catch { return require('mysql2/promise'); } })();

// The read-only context an archive carries besides the event's own rows; import adds
// problems and test cases that are missing, never changes existing ones, and needs the users.
const CONTEXT = ['sections', 'users', 'problems', 'test_cases'];
const SKIP_COLUMNS = { users: ['password_hash'] };
// Kept by triggers from the archived tables (rdb/migrations 002, 003): never written directly.
const DERIVED = ['home_view', 'codebook_view'];

function fail(msg) { const e = new Error(msg); e.userError = true; throw e; }

async function connect() {
  return mysql.createConnection({
    host: process.env.DB_HOST || '127.0.0.1', port: Number(process.env.DB_PORT || 3307), user: process.env.DB_USER || 'prutor',
    password: process.env.DB_PASSWORD || '', database: process.env.DB_NAME || 'prutor', dateStrings: true, supportBigNumbers: true, bigNumberStrings: true,
    timezone: 'Z', multipleStatements: false,
  });
}

// The event's tables in parent-before-child order, each with how its rows are selected.
async function plan(db) {
  const [fks] = await db.query(`SELECT TABLE_NAME t, COLUMN_NAME c, REFERENCED_TABLE_NAME p, REFERENCED_COLUMN_NAME pc
    FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND REFERENCED_TABLE_NAME IS NOT NULL`);
  const owned = ['events']; const links = { events: [] };
  for (let grew = true; grew;) {
    grew = false;
    for (const fk of fks) {
      if (fk.t === fk.p || CONTEXT.includes(fk.t) || DERIVED.includes(fk.t) || !owned.includes(fk.p)) continue;
      if (!owned.includes(fk.t)) { owned.push(fk.t); links[fk.t] = []; grew = true; }
      if (!links[fk.t].some((l) => l.c === fk.c)) links[fk.t].push({ c: fk.c, p: fk.p, pc: fk.pc });
    }
  }
  // parents first (a table comes after every owned table it refers to)
  const order = []; const seen = new Set();
  const visit = (t) => { if (seen.has(t)) return; seen.add(t); for (const l of links[t]) if (l.p !== t) visit(l.p); order.push(t); };
  owned.forEach(visit);
  const userCols = {};
  for (const fk of fks) if (fk.p === 'users' && owned.includes(fk.t)) (userCols[fk.t] = userCols[fk.t] || []).push(fk.c);
  for (const fk of fks) if (fk.p === 'users' && fk.t === 'problems') userCols.problems = [fk.c];
  return { order, links, userCols };
}

async function columns(db, table) {
  const [cols] = await db.query('SELECT COLUMN_NAME c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND EXTRA NOT LIKE ? ORDER BY ORDINAL_POSITION', [table, '%GENERATED%']);
  return cols.map((r) => r.c).filter((c) => !(SKIP_COLUMNS[table] || []).includes(c));
}

const q = (id) => `\`${id.replace(/`/g, '``')}\``;
function csvCell(v) {
  if (v === null || v === undefined) return '';
  const s = Buffer.isBuffer(v) ? v.toString('base64') : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
const safe = (s) => String(s).replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80);

async function exportEvent(eventId, outFile) {
  if (!/^\d+$/.test(String(eventId))) fail('the event id must be a number');
  const db = await connect();
  try {
    const [[event]] = await db.query('SELECT * FROM events WHERE id = ?', [eventId]);
    if (!event) fail(`no event ${eventId}`);
    const { order, links, userCols } = await plan(db);
    const rows = {}; const ids = {};
    for (const t of order) {
      const cols = await columns(db, t);
      let where; let args;
      if (t === 'events') { where = 'id = ?'; args = [eventId]; } else {
        const conds = links[t].filter((l) => ids[l.p]).map((l) => ({ sql: `${q(l.c)} IN (?)`, vals: ids[l.p][l.pc] || [] })).filter((c) => c.vals.length);
        if (!conds.length) { rows[t] = { cols, data: [] }; ids[t] = {}; continue; }
        where = conds.map((c) => c.sql).join(' OR '); args = conds.map((c) => c.vals);
      }
      const [data] = await db.query(`SELECT ${cols.map(q).join(', ')} FROM ${q(t)} WHERE ${where} ORDER BY 1`, args);
      rows[t] = { cols, data };
      ids[t] = {};
      for (const c of cols) ids[t][c] = [...new Set(data.map((r) => r[c]).filter((v) => v !== null))];
    }
    // context: the problems of the questions and assignments, their tests, the users and sections named
    const problemIds = [...new Set([...(ids.event_questions?.problem_id || []), ...(ids.assignments?.problem_id || [])])];
    const userIds = new Set();
    for (const t of order) for (const c of userCols[t] || []) for (const r of rows[t].data) if (r[c] !== null) userIds.add(r[c]);
    const ctx = {};
    const pick = async (t, where, args) => { const cols = await columns(db, t); const [data] = args[0].length ? await db.query(`SELECT ${cols.map(q).join(', ')} FROM ${q(t)} WHERE ${where} ORDER BY 1`, args) : [[]]; ctx[t] = { cols, data }; };
    await pick('problems', 'id IN (?)', [problemIds]);
    await pick('test_cases', 'problem_id IN (?)', [problemIds]);
    for (const c of userCols.problems || []) for (const r of ctx.problems.data) if (r[c] !== null) userIds.add(r[c]);
    await pick('users', 'id IN (?)', [[...userIds]]);
    await pick('sections', 'id IN (?)', [[...new Set(ctx.users.data.map((u) => u.section_id).filter((v) => v !== null))]]);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prutor-archive-'));
    const files = {};
    const write = (rel, content) => {
      const f = path.join(dir, rel); fs.mkdirSync(path.dirname(f), { recursive: true }); fs.writeFileSync(f, content);
      files[rel] = crypto.createHash('sha256').update(content).digest('hex');
    };
    const tables = {};
    for (const [t, { cols, data }] of [...order.map((t) => [t, rows[t]]), ...CONTEXT.map((t) => [t, ctx[t]])]) {
      write(`tables/${t}.csv`, [cols.join(','), ...data.map((r) => cols.map((c) => csvCell(r[c])).join(','))].join('\r\n') + '\r\n');
      write(`tables/${t}.json`, JSON.stringify(data, null, 1));
      tables[t] = { rows: data.length, columns: cols, context: CONTEXT.includes(t) };
    }
    // the source files, as a reader wants them
    const users = new Map(ctx.users.data.map((u) => [u.id, u.username]));
    const asg = new Map((rows.assignments?.data || []).map((a) => [a.id, a]));
    const questions = new Map((rows.event_questions?.data || []).map((x) => [x.id, x]));
    const submitted = new Set((rows.submissions?.data || []).map((s) => s.code_id));
    for (const c of rows.code?.data || []) {
      const a = asg.get(c.assignment_id); if (!a) continue;
      const qn = questions.get(a.question_id);
      write(`source/${safe(users.get(a.user_id) || a.user_id)}/q${qn ? qn.position : a.question_id}/${safe(c.save_time)}_${c.id}${submitted.has(c.id) ? '_submitted' : ''}.c`, c.code);
    }
    for (const p of ctx.problems.data) {
      write(`problems/${p.id}/statement.md`, `# ${p.title}\n\n${p.statement_md}`);
      write(`problems/${p.id}/template.c`, p.template_code);
      write(`problems/${p.id}/solution.c`, p.solution_code);
    }
    for (const t of ctx.test_cases.data) {
      write(`problems/${t.problem_id}/tests/${t.position}-${t.visibility}.in`, t.input);
      write(`problems/${t.problem_id}/tests/${t.position}-${t.visibility}.out`, t.expected_output);
    }
    write('README.txt', fs.readFileSync(__filename, 'utf8').split('\n').filter((l) => l.startsWith('//')).slice(0, 17).map((l) => l.replace(/^\/\/ ?/, '')).join('\n') + '\n');
    const [[mig]] = await db.query('SELECT MAX(version) v FROM schema_migrations').catch(() => [[{ v: null }]]);
    const manifest = { format: 'prutor-exam-archive/1', event: { id: event.id, title: event.title, type: event.type },
      exported_at: new Date().toISOString(), schema_migration: mig ? mig.v : null, tables, files };
    fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 1));
    fs.rmSync(outFile, { force: true });
    execFileSync('zip', ['-q', '-r', '-X', path.resolve(outFile), '.'], { cwd: dir });
    fs.rmSync(dir, { recursive: true, force: true });
    return manifest;
  } finally { await db.end(); }
}

async function importEvent(file) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prutor-archive-'));
  const db = await connect();
  try {
    try { execFileSync('unzip', ['-q', path.resolve(file), '-d', dir], { stdio: ['ignore', 'ignore', 'pipe'] }); } catch { fail(`${file} is not a zip archive`); }
    let manifest;
    try { manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')); } catch { fail('the archive has no readable manifest.json'); }
    if (manifest.format !== 'prutor-exam-archive/1') fail(`unknown archive format ${manifest.format}`);
    for (const [rel, sum] of Object.entries(manifest.files)) {
      const f = path.join(dir, rel);
      if (!f.startsWith(dir + path.sep) || !fs.existsSync(f)) fail(`the archive lacks ${rel}`);
      if (crypto.createHash('sha256').update(fs.readFileSync(f)).digest('hex') !== sum) fail(`${rel} does not match its checksum in the manifest`);
    }
    const read = (t) => JSON.parse(fs.readFileSync(path.join(dir, 'tables', `${t}.json`), 'utf8'));
    const [[exists]] = await db.query('SELECT COUNT(*) n FROM events WHERE id = ?', [manifest.event.id]);
    if (Number(exists.n)) fail(`event ${manifest.event.id} exists; delete it first or import elsewhere`);
    const users = read('users');
    if (users.length) {
      const [have] = await db.query('SELECT id, username FROM users WHERE id IN (?)', [users.map((u) => u.id)]);
      const byId = new Map(have.map((u) => [String(u.id), u.username]));
      const missing = users.filter((u) => byId.get(String(u.id)) !== u.username);
      if (missing.length) fail(`users missing or renamed here: ${missing.slice(0, 5).map((u) => `${u.username} (${u.id})`).join(', ')}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}`);
    }
    const { order } = await plan(db);
    const unknown = Object.keys(manifest.tables).filter((t) => !manifest.tables[t].context && !order.includes(t));
    if (unknown.length) fail(`the archive has tables this database does not: ${unknown.join(', ')}`);
    // no archived row may collide with a row of another event here
    const [pks] = await db.query(`SELECT TABLE_NAME t, COLUMN_NAME c FROM information_schema.KEY_COLUMN_USAGE
      WHERE TABLE_SCHEMA = DATABASE() AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY TABLE_NAME, ORDINAL_POSITION`);
    const pkOf = (t) => pks.filter((k) => k.t === t).map((k) => k.c);
    const archived = order.filter((t) => manifest.tables[t] && manifest.tables[t].rows);
    for (const t of archived) {
      const pk = pkOf(t); const data = read(t);
      for (let i = 0; i < data.length; i += 500) {
        const keys = data.slice(i, i + 500).map((r) => pk.map((c) => r[c]));
        const [[hit]] = await db.query(`SELECT COUNT(*) n FROM ${q(t)} WHERE (${pk.map(q).join(', ')}) IN (?)`, [keys]);
        if (Number(hit.n)) fail(`${hit.n} rows of ${t} in the archive have ids that are taken here: import into the database it came from, after the event was deleted`);
      }
    }
    const counts = {};
    await db.beginTransaction();
    try {
      // Triggers (rdb/migrations) write some of these tables themselves while the event's
      // rows go in (a submit's code row makes its submission, a submission queues its
      // grading, schedules bump the event's timing): each archived row is written over
      // what they made, and the tables they feed go last, so the archive's values stand.
      const upsert = async (t, ignore) => {
        const data = read(t); if (!data.length) return;
        const cols = manifest.tables[t].columns;
        const update = cols.map((c) => `${q(c)} = VALUES(${q(c)})`).join(', ');
        for (let i = 0; i < data.length; i += 200) {
          const chunk = data.slice(i, i + 200);
          await db.query(`INSERT ${ignore ? 'IGNORE ' : ''}INTO ${q(t)} (${cols.map(q).join(', ')}) VALUES ?${ignore ? '' : ` ON DUPLICATE KEY UPDATE ${update}`}`, [chunk.map((row) => cols.map((c) => row[c]))]);
        }
        counts[t] = data.length;
      };
      await upsert('problems', true);
      await upsert('test_cases', true);
      for (const t of archived) await upsert(t, false);
      const fed = ['submissions', 'grading_queue', 'event_timing'].filter((t) => archived.includes(t));
      for (const t of [...archived.filter((x) => !fed.includes(x)), ...fed]) await upsert(t, false);
      await db.commit();
    } catch (e) { await db.rollback(); throw e; }
    return { event: manifest.event, counts };
  } finally { await db.end(); fs.rmSync(dir, { recursive: true, force: true }); }
}

if (require.main === module) {
  (async () => {
    const [mode, a, b] = process.argv.slice(2);
    if (mode === 'export' && a && b) {
      const m = await exportEvent(a, b);
      console.log(`archive: event ${m.event.id} "${m.event.title}" -> ${b}: ${Object.entries(m.tables).filter(([, t]) => t.rows).map(([t, x]) => `${t} ${x.rows}`).join(', ')}; ${Object.keys(m.files).length} files`);
    } else if (mode === 'import' && a) {
      const r = await importEvent(a);
      console.log(`archive: event ${r.event.id} "${r.event.title}" imported: ${Object.entries(r.counts).map(([t, n]) => `${t} ${n}`).join(', ')}`);
    } else {
      console.error('usage: node archive.js export EVENT_ID FILE.zip | import FILE.zip'); process.exit(2);
    }
  })().catch((e) => { console.error(`archive: ${e.userError ? '' : 'ERROR: '}${e.message}`); process.exit(1); });
}

module.exports = { exportEvent, importEvent };
