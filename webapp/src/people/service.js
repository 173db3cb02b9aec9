'use strict';
// People: sections and accounts (one by one, CSV import), password reset by
// staff, deactivation. Rules here, HTTP in routes.js. Passwords are hashed with
// async bcrypt at the one cost (accounts/passwords.js); an import hashes with
// bounded concurrency (libuv runs at most 4 hashes at a time anyway; more in flight
// would only queue and hold memory).
const crypto = require('node:crypto');
const { Form, fieldError } = require('../lib/form');
const csv = require('../lib/csv');
const { badRequest, forbidden, notFound, conflict } = require('../shared/errors');

const ROLES = ['student', 'ta', 'instructor', 'admin'];
const USERNAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{1,63}$/;
const EMAIL_RE = /^[^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+$/;
const SECTION_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;
const MAX_IMPORT_ROWS = 5000;
// Generated temporary passwords are 12 random characters of a 55-letter alphabet
// (~69 bits). They are hashed at the one cost of every password (accounts/passwords.js:
// a cheaper hash would tell these accounts apart from unknown names by the time a
// sign-in takes), so a generated-password import is capped to answer well within the
// proxy's server timeout (60 s): 1000 hashes of ~53 ms on two cores, ~27 s.
const MAX_GENERATED_ROWS = 1000;
const ALPHABET = 'abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function tempPassword(len = 12) {
  let s = '';
  for (let i = 0; i < len; i++) s += ALPHABET[crypto.randomInt(ALPHABET.length)];
  return s;
}

async function mapLimit(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  async function worker() {
    while (next < items.length) { const i = next++; out[i] = await fn(items[i], i); }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

// Who may manage whom: only an admin creates, edits or resets admins.
function canManage(actorRole, targetRole) {
  if (actorRole === 'admin') return true;
  return actorRole === 'instructor' && targetRole !== 'admin';
}

function createPeopleService({ db, sessions, passwords, hashConcurrency = 4 }) {
  const { hash } = passwords;

  async function sections() {
    return db.query(`SELECT s.id, s.code, s.name,
        (SELECT COUNT(*) FROM users u WHERE u.section_id = s.id AND u.role = 'student' AND u.active = 1) AS students
      FROM sections s ORDER BY s.code`);
  }

  async function createSection(body) {
    const f = new Form(body);
    const code = f.str('code', { label: 'Code', required: true, max: 32, pattern: SECTION_RE, patternMsg: 'Code: letters, digits, dot, dash or underscore (32 at most), starting with a letter or digit.' });
    const name = f.str('name', { label: 'Name', required: true, max: 128 });
    f.check();
    try {
      const r = await db.query('INSERT INTO sections (code, name) VALUES (?, ?)', [code, name]);
      return { id: r.insertId, code, name };
    } catch (e) {
      if (e.code === 'ER_DUP_ENTRY') throw fieldError('code', `A section with code "${code}" already exists.`, f.values);
      throw e;
    }
  }

  async function updateSection(id, body) {
    const f = new Form(body);
    const name = f.str('name', { label: 'Name', required: true, max: 128 });
    f.check();
    const r = await db.query('UPDATE sections SET name = ? WHERE id = ?', [name, id]);
    if (!r.affectedRows) throw notFound('No such section.');
  }

  async function list({ section, role, q, status } = {}) {
    const where = [];
    const params = [];
    if (section === 'none') where.push('u.section_id IS NULL');
    else if (/^\d+$/.test(section || '')) { where.push('u.section_id = ?'); params.push(Number(section)); }
    if (ROLES.includes(role)) { where.push('u.role = ?'); params.push(role); }
    if (status === 'active') where.push('u.active = 1');
    else if (status === 'inactive') where.push('u.active = 0');
    if (q && String(q).trim()) {
      const like = `%${String(q).trim().slice(0, 64).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      where.push('(u.username LIKE ? OR u.name LIKE ? OR u.email LIKE ?)');
      params.push(like, like, like);
    }
    const rows = await db.text(`SELECT u.id, u.username, u.name, u.email, u.role, u.active, u.last_login_at, u.created_at,
        s.code AS section_code, s.id AS section_id
      FROM users u LEFT JOIN sections s ON s.id = u.section_id
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY u.role = 'student', u.role, s.code, u.username LIMIT 1001`, params);
    return { rows: rows.slice(0, 1000), truncated: rows.length > 1000 };
  }

  async function get(id) {
    const rows = await db.query(`SELECT u.id, u.username, u.name, u.email, u.role, u.section_id, u.active, u.last_login_at, u.created_at,
        s.code AS section_code FROM users u LEFT JOIN sections s ON s.id = u.section_id WHERE u.id = ?`, [id]);
    if (!rows[0]) throw notFound('No such account.');
    return rows[0];
  }

  async function sectionIds() {
    const rows = await db.query('SELECT id, code FROM sections');
    return new Map(rows.map((r) => [r.id, r.code]));
  }

  // Reads and checks the fields shared by "new account" and "edit account".
  async function readAccount(f, actor, { isNew }) {
    const out = {};
    if (isNew) out.username = f.str('username', { label: 'Username', required: true, max: 64, pattern: USERNAME_RE, patternMsg: 'Username: 2 to 64 letters, digits, dot, dash or underscore, starting with a letter or digit.' });
    out.name = f.str('name', { label: 'Full name', required: true, max: 128 });
    out.email = f.str('email', { label: 'Email', max: 190, pattern: EMAIL_RE, patternMsg: 'Email is not a valid address.' });
    out.role = f.oneOf('role', ROLES, { label: 'Role' });
    if (out.role && !canManage(actor.role, out.role)) f.fail('role', 'Only an admin can give the admin role.');
    const sec = f.str('section_id', { label: 'Section', max: 12 });
    out.section_id = null;
    if (sec) {
      const ids = await sectionIds();
      if (!/^\d+$/.test(sec) || !ids.has(Number(sec))) f.fail('section_id', 'Choose a section from the list.');
      else out.section_id = Number(sec);
    }
    if (out.role === 'student' && !out.section_id) f.fail('section_id', 'A student needs a section.');
    return out;
  }

  async function create(actor, body) {
    const f = new Form(body);
    const a = await readAccount(f, actor, { isNew: true });
    const mode = f.oneOf('password_mode', ['generate', 'set'], { label: 'Password', def: 'generate' });
    let password = null;
    if (mode === 'set') {
      password = f.str('password', { label: 'Password', required: true, max: 200, min: 8, trim: false });
    }
    f.check();
    if (!password) password = tempPassword();
    const h = await hash(password);
    try {
      const r = await db.query('INSERT INTO users (username, password_hash, name, email, role, section_id) VALUES (?, ?, ?, ?, ?, ?)',
        [a.username, h, a.name, a.email || '', a.role, a.section_id]);
      return { id: r.insertId, username: a.username, password: mode === 'generate' ? password : null };
    } catch (e) {
      if (e.code === 'ER_DUP_ENTRY') throw fieldError('username', `The username "${a.username}" is taken.`, f.values);
      throw e;
    }
  }

  async function update(actor, id, body) {
    const user = await get(id);
    if (!canManage(actor.role, user.role)) throw forbidden('Only an admin can change an admin account.');
    const f = new Form(body);
    const a = await readAccount(f, actor, { isNew: false });
    if (id === actor.uid && a.role && a.role !== user.role) f.fail('role', 'You cannot change your own role.');
    f.check();
    // the section change refreshes the student's home_view rows (trigger)
    await db.query('UPDATE users SET name = ?, email = ?, role = ?, section_id = ? WHERE id = ?',
      [a.name, a.email || '', a.role, a.section_id, id]);
    // A session carries the role and section it was opened with: a change of either
    // ends the user's sessions (they sign in again with the new ones).
    if (a.role !== user.role || (a.section_id ?? null) !== (user.section_id ?? null)) await sessions.revokeUser(id);
  }

  async function resetPassword(actor, id, body) {
    const user = await get(id);
    if (!canManage(actor.role, user.role)) throw forbidden('Only an admin can reset an admin\'s password.');
    const f = new Form(body);
    const mode = f.oneOf('password_mode', ['generate', 'set'], { label: 'Password', def: 'generate' });
    let password = mode === 'set' ? f.str('password', { label: 'New password', required: true, max: 200, min: 8, trim: false }) : null;
    f.check();
    const generated = !password;
    if (!password) password = tempPassword();
    await db.query('UPDATE users SET password_hash = ? WHERE id = ?', [await hash(password), id]);
    await sessions.revokeUser(id);
    return { username: user.username, password: generated ? password : null };
  }

  async function setActive(actor, id, active) {
    const user = await get(id);
    if (!canManage(actor.role, user.role)) throw forbidden('Only an admin can change an admin account.');
    if (id === actor.uid && !active) throw conflict('You cannot deactivate your own account.');
    await db.query('UPDATE users SET active = ? WHERE id = ?', [active ? 1 : 0, id]);
    await sessions.revokeUser(id);
    return user;
  }

  // ---- CSV import -------------------------------------------------------------
  const COLS = ['username', 'name', 'email', 'section', 'role'];

  async function importCsv(actor, body) {
    const f = new Form(body);
    const text = f.str('csv', { label: 'CSV', required: true, max: 2 * 1024 * 1024, trim: false });
    const mode = f.oneOf('password_mode', ['generate', 'shared'], { label: 'Password', def: 'generate' });
    let shared = null;
    if (mode === 'shared') shared = f.str('shared_password', { label: 'Initial password', required: true, min: 8, max: 200, trim: false });
    const createSections = f.bool('create_sections');
    f.check();

    let records = csv.parse(text);
    let map = COLS.map((c, i) => i);
    const report = [];
    if (records.length) {
      const head = records[0].fields.map((h) => h.trim().toLowerCase());
      if (head.includes('username') && head.includes('name')) {
        const unknown = head.filter((h) => h && !COLS.includes(h));
        if (unknown.length) throw fieldError('csv', `Unknown column(s) in the header: ${unknown.join(', ')}. Use username, name, email, section, role.`, f.values);
        map = COLS.map((c) => head.indexOf(c));
        records = records.slice(1);
      }
    }
    if (!records.length) throw fieldError('csv', 'The CSV has no rows to import.', f.values);
    if (records.length > MAX_IMPORT_ROWS) throw fieldError('csv', `At most ${MAX_IMPORT_ROWS} rows per import (this one has ${records.length}).`, f.values);
    const width = Math.max(...map) + 1;

    const secRows = await db.query('SELECT id, code FROM sections');
    const secByCode = new Map(secRows.map((s) => [s.code.toLowerCase(), s]));
    const seen = new Map();
    const candidates = [];
    const newSections = new Map();
    for (const rec of records) {
      const entry = { line: rec.line, username: '', name: '', section: '', role: '', status: 'wrong', message: '', password: null };
      report.push(entry);
      const fields = rec.fields.map((x) => x.trim());
      entry.username = (map[0] >= 0 ? fields[map[0]] : '') || '';
      if (rec.error) { entry.message = `Malformed CSV: ${rec.error}.`; continue; }
      if (fields.length !== width && !(fields.length < width && fields.length >= 2 && map.join() === '0,1,2,3,4')) {
        entry.message = `Expected ${width} columns (username, name, email, section, role), found ${fields.length}.`;
        continue;
      }
      const get = (c) => { const i = map[COLS.indexOf(c)]; return i >= 0 && i < fields.length ? fields[i] : ''; };
      const u = { username: get('username'), name: get('name'), email: get('email'), section: get('section'), role: (get('role') || 'student').toLowerCase() };
      Object.assign(entry, { username: u.username, name: u.name, section: u.section, role: u.role });
      const problems = [];
      if (!USERNAME_RE.test(u.username)) problems.push('username must be 2 to 64 letters, digits, dot, dash or underscore');
      if (!u.name) problems.push('name is empty');
      else if (u.name.length > 128) problems.push('name is longer than 128 characters');
      if (u.email && (u.email.length > 190 || !EMAIL_RE.test(u.email))) problems.push(`email "${u.email.slice(0, 60)}" is not valid`);
      if (!ROLES.includes(u.role)) problems.push(`role "${u.role.slice(0, 30)}" is not one of ${ROLES.join(', ')}`);
      else if (!canManage(actor.role, u.role)) problems.push('only an admin can create admins');
      if (u.section && !SECTION_RE.test(u.section)) problems.push(`section code "${u.section.slice(0, 40)}" is not valid`);
      else if (u.section && !secByCode.has(u.section.toLowerCase())) {
        if (createSections) newSections.set(u.section.toLowerCase(), u.section);
        else problems.push(`section "${u.section}" does not exist (tick "create missing sections" or add it first)`);
      }
      if (u.role === 'student' && !u.section) problems.push('a student needs a section');
      const key = u.username.toLowerCase();
      if (u.username && seen.has(key)) problems.push(`username appears again (first on line ${seen.get(key)})`);
      if (u.username && !seen.has(key)) seen.set(key, rec.line);
      if (problems.length) { entry.message = `${problems.join('; ')}.`; continue; }
      entry.status = 'ok';
      candidates.push({ entry, u });
    }

    // accounts that exist already are skipped (never overwritten)
    if (candidates.length) {
      const existing = new Set();
      for (let i = 0; i < candidates.length; i += 500) {
        const part = candidates.slice(i, i + 500).map((c) => c.u.username);
        const rows = await db.text('SELECT username FROM users WHERE username IN (?)', [part]);
        for (const r of rows) existing.add(r.username.toLowerCase());
      }
      for (const c of candidates) {
        if (existing.has(c.u.username.toLowerCase())) { c.entry.status = 'skipped'; c.entry.message = 'An account with this username exists already; left unchanged.'; }
      }
    }
    const todo = candidates.filter((c) => c.entry.status === 'ok');

    // hash before the transaction (no long-running transaction), bounded concurrency
    if (mode === 'shared') {
      const h = await hash(shared);
      for (const c of todo) c.hash = h;
    } else {
      if (todo.length > MAX_GENERATED_ROWS) {
        throw fieldError('password_mode', `${todo.length} new accounts: at most ${MAX_GENERATED_ROWS} per import with generated passwords. Split the file, or choose one initial password for everyone (then any size up to ${MAX_IMPORT_ROWS}).`, f.values);
      }
      await mapLimit(todo, hashConcurrency, async (c) => { c.password = tempPassword(); c.hash = await hash(c.password); });
    }

    if (todo.length || newSections.size) {
      await db.tx(async (tx) => {
        if (newSections.size) {
          await tx.text('INSERT IGNORE INTO sections (code, name) VALUES ?', [[...newSections.values()].map((c) => [c, `Section ${c}`])]);
        }
        const secs = await tx.query('SELECT id, code FROM sections');
        const ids = new Map(secs.map((s) => [s.code.toLowerCase(), s.id]));
        for (let i = 0; i < todo.length; i += 200) {
          const part = todo.slice(i, i + 200);
          await tx.text('INSERT IGNORE INTO users (username, password_hash, name, email, role, section_id) VALUES ?',
            [part.map((c) => [c.u.username, c.hash, c.u.name, c.u.email || '', c.u.role, c.u.section ? ids.get(c.u.section.toLowerCase()) : null])]);
          // a concurrent creation of the same username is detected by its hash
          const got = await tx.text('SELECT username, password_hash FROM users WHERE username IN (?)', [part.map((c) => c.u.username)]);
          const byName = new Map(got.map((g) => [g.username.toLowerCase(), g.password_hash]));
          for (const c of part) {
            if (byName.get(c.u.username.toLowerCase()) === c.hash && (mode === 'generate' || !c.raced)) {
              c.entry.status = 'created';
              c.entry.message = 'Created.';
              c.entry.password = mode === 'generate' ? c.password : null;
            } else {
              c.entry.status = 'skipped';
              c.entry.message = 'An account with this username was created meanwhile; left unchanged.';
            }
          }
        }
      });
    }
    const counts = { created: 0, skipped: 0, wrong: 0 };
    for (const e of report) counts[e.status] = (counts[e.status] || 0) + 1;
    return { report, counts, mode, sectionsCreated: [...newSections.values()] };
  }

  return { sections, createSection, updateSection, list, get, create, update, resetPassword, setActive, importCsv, ROLES };
}

module.exports = { createPeopleService, tempPassword, mapLimit, canManage, ROLES };
