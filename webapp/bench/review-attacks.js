'use strict';
// The live security review's sign-in and playback attacks (findings 2, 3, 4, 7, 8, 9,
// 10) tried again against the running stack, through HAProxy (BASE_URL, default
// http://127.0.0.1:8080), printing what came back. Not part of `make test` (finding 4's
// 1,050 failures alone cost ~1,050 bcrypt compares); the API tests try the same attacks
// with small bounds. Accounts, section and event are the script's own and are removed
// at the end (the demo TA and instructor sign in to look).
//   node webapp/bench/review-attacks.js [finding ...]     e.g. `... 2 3 10`; default all
const crypto = require('node:crypto');
const bcrypt = require('bcrypt');
const { Client } = require('../test/helpers/http');
const env = require('../test/helpers/env');
const dbh = require('../test/helpers/db');
const { seedExam, dropExam, untilSteady } = require('../test/helpers/tools');
const { postJson } = require('../test/helpers/staff');
const mcHelper = require('../test/helpers/memcached');

const TAG = `re${Date.now().toString(36)}`; // an "e" in every name, for its look-alike "é"
const DIRECT = `http://127.0.0.1:${env.get('WEBAPP_PORT', '3000')}`;
const want = process.argv.slice(2);
const on = (n) => !want.length || want.includes(String(n));
const tally = (rs) => rs.reduce((m, r) => { m[r.status] = (m[r.status] || 0) + 1; return m; }, {});
const form = (c, username, password, headers = {}) => c.post('/accounts/login', { form: { username, password }, headers: { accept: 'application/json', ...headers } });
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
async function pool(n, width, fn) {
  const out = [];
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => { while (next < n) { const i = next++; out[i] = await fn(i); } }));
  return out;
}

let exam;
async function main() {
  exam = await seedExam({ tag: TAG, students: 6 });
  const u = exam.users.map((x) => x.username); // t<TAG>s01..: the script's own students, demo password
  const log = (f, what, value) => console.log(`finding ${f}: ${what}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);

  if (on(2)) {
    const t0 = Date.now();
    const rs = await Promise.all(Array.from({ length: 150 }, (_, i) => form(new Client(), u[0], `guess-${i}`)));
    log(2, `150 wrong passwords for ${u[0]} at once (${Date.now() - t0} ms)`, tally(rs));
    const r429 = rs.find((r) => r.status === 429);
    log(2, 'one refusal', `Retry-After ${r429.headers.get('retry-after')}: ${r429.json.error}`);
  }
  if (on(3)) {
    const who = u[1];
    for (let i = 0; i < 10; i++) await form(new Client(), who, `guess-${i}`);
    const spell = [who.replace(/s(\d+)$/, 'ſ$1'), who.replace(/s(\d+)$/, 'ｓ$1'), who.replace('e', 'é'), who.toUpperCase()];
    for (const s of spell) { const r = await form(new Client(), s, env.password); log(3, `after 10 wrong, "${s}" with the right password`, `${r.status} ${r.json && r.json.error ? r.json.error : ''}`); }
  }
  if (on(4)) {
    const t0 = Date.now();
    const rs = await pool(1050, 24, (i) => form(new Client(), `nobody-${TAG}-${i}`, 'x'));
    const slowed = rs.filter((r) => r.status === 429).length;
    log(4, `1,050 wrong sign-ins for made-up names from one address (${Math.round((Date.now() - t0) / 1000)} s)`, tally(rs));
    const t1 = Date.now();
    const fresh = await form(new Client(), u[2], env.password);
    log(4, 'then a student without a device cookie from that address', `${fresh.status} after ${Date.now() - t1} ms (refused among the 1,050: ${slowed})`);
    // the script's own failures would slow every later sign-in from this address for 15 minutes
    const mc = mcHelper.connect();
    await mc.del(`rl:addr:${crypto.createHash('sha256').update('127.0.0.1').digest('base64url')}`);
    mc.close();
    // 11 addresses: only the webapp can be told an address (HAProxy replaces X-Forwarded-For with the client's own)
    const mine = new Client(DIRECT);
    await form(mine, u[3], env.password, { 'x-forwarded-for': '198.51.100.200' });
    let last;
    for (let a = 0; a < 11; a++) for (let i = 0; i < 10; i++) last = await form(new Client(DIRECT), u[3], `g${a}.${i}`, { 'x-forwarded-for': `203.0.113.${a + 1}` });
    log(4, `10 wrong from each of 11 addresses for ${u[3]} (webapp direct, X-Forwarded-For), the last`, `${last.status} Retry-After ${last.headers.get('retry-after')} s: ${last.json.error}`);
    const again = await form(mine, u[3], env.password, { 'x-forwarded-for': '198.51.100.201' });
    log(4, 'the student\'s own browser (device cookie), right password', again.status);
    const stranger = await form(new Client(DIRECT), u[3], env.password, { 'x-forwarded-for': '198.51.100.202' });
    log(4, 'a browser the account never used, right password', `${stranger.status} Retry-After ${stranger.headers.get('retry-after')}`);
  }
  if (on(7)) {
    const ta = new Client();
    await ta.login('ta');
    const student = exam.users[4];
    const files = [];
    for (const kind of ['scratch', 'practice']) {
      const a = await dbh.q('INSERT INTO assignments (kind, user_id, problem_id, title) VALUES (?, ?, ?, ?)', [kind, student.id, kind === 'practice' ? exam.problemId : null, `${kind} ${TAG}`]);
      await dbh.q("INSERT INTO code (assignment_id, save_trigger, code) VALUES (?, 'manual', 'secret')", [a.insertId]);
      files.push(a.insertId);
    }
    const admin = (await dbh.q("SELECT id FROM users WHERE role = 'admin' AND active = 1 ORDER BY id LIMIT 1"))[0].id;
    const draft = await dbh.q("INSERT INTO assignments (kind, user_id, title) VALUES ('scratch', ?, ?)", [admin, `reference solution of the next exam ${TAG}`]);
    await dbh.q("INSERT INTO code (assignment_id, save_trigger, code) VALUES (?, 'manual', 'secret')", [draft.insertId]);
    files.push(draft.insertId);
    const max = (await dbh.q('SELECT MAX(id) AS m FROM assignments'))[0].m;
    const kinds = new Map((await dbh.q('SELECT a.id, a.kind, u.role FROM assignments a JOIN users u ON u.id = a.user_id')).map((r) => [r.id, `${r.kind}/${r.role}`]));
    const seen = {};
    await pool(max, 8, async (i) => {
      const r = await ta.getJson(`/tools/playback/${i + 1}/timeline`);
      const k = `${kinds.get(i + 1) || 'none'} -> ${r.status}`;
      seen[k] = (seen[k] || 0) + 1;
    });
    const codes = [];
    for (const id of files) {
      const c = (await dbh.q('SELECT id FROM code WHERE assignment_id = ?', [id]))[0].id;
      codes.push(`${id}/code/${c} -> ${(await ta.getJson(`/tools/playback/${id}/code/${c}`)).status}`);
    }
    log(7, 'the planted files (student scratchpad, practice, admin draft)', codes.join(', '));
    log(7, `the TA opening /tools/playback/ID/timeline for ids 1..${max} (kind/owner's role -> status)`, seen);
    await dbh.q(`DELETE FROM assignments WHERE id IN (${files.map(() => '?').join(',')})`, files);
  }
  if (on(8)) {
    const instr = new Client();
    await instr.login('instructor');
    const sec = (await dbh.q('SELECT code FROM sections WHERE id = ?', [exam.sectionId]))[0].code;
    const lines = Array.from({ length: 20 }, (_, i) => `imp${TAG}${i},Imported ${i},,${sec},student`);
    const imp = await postJson(instr, '/people/import', { csv: lines.join('\n'), password_mode: 'generate' });
    const names = imp.json.report.filter((r) => r.status === 'created').map((r) => r.username);
    const costs = await dbh.q(`SELECT SUBSTRING(password_hash, 5, 2) AS cost, COUNT(*) AS n FROM users WHERE username IN (${names.map(() => '?').join(',')}) GROUP BY cost`, names);
    log(8, `${names.length} accounts imported with generated passwords, bcrypt cost`, costs.map((c) => `${c.cost} x${c.n}`).join(', '));
    const time = async (name) => { const t = process.hrtime.bigint(); await form(new Client(DIRECT), name, 'wrong-password', { 'x-forwarded-for': `192.0.2.${crypto.randomInt(1, 250)}` }); return Number(process.hrtime.bigint() - t) / 1e6; };
    const a = []; const b = [];
    for (let i = 0; i < 20; i++) { a.push(await time(names[i % names.length])); b.push(await time(`nobody${TAG}${i}`)); }
    log(8, 'median sign-in time, imported account vs unknown name (ms)', `${median(a).toFixed(1)} vs ${median(b).toFixed(1)}`);
    await dbh.q(`DELETE FROM users WHERE username IN (${names.map(() => '?').join(',')})`, names);
    const cheap = exam.users[5];
    await dbh.q('UPDATE users SET password_hash = ? WHERE id = ?', [await bcrypt.hash(env.password, 8), cheap.id]);
    await form(new Client(), cheap.username, env.password);
    await new Promise((r) => { setTimeout(r, 500); });
    log(8, `an account hashed at cost 8, after its sign-in`, `cost ${(await dbh.q('SELECT SUBSTRING(password_hash, 5, 2) AS c FROM users WHERE id = ?', [cheap.id]))[0].c}`);
  }
  if (on(9)) {
    const instr = new Client();
    await instr.login('instructor');
    const s = await postJson(instr, `/tools/events/${exam.eventId}/lockdown`, { enabled: '1', allowed_ranges: '127.0.0.0/8', single_session: '1' });
    log(9, 'lock-down', s.json.settings);
    const who = exam.users[4];
    await untilSteady(async () => { const a = new Client(); await form(a, who.username, env.password); await form(new Client(), who.username, env.password); return (await a.getJson('/home')).status === 401; },
      { timeoutMs: 15000, what: 'one session per student in every worker' });
    const live = [];
    for (let i = 0; i < 20; i++) {
      const [a, b] = [new Client(), new Client()];
      await Promise.all([form(a, who.username, env.password), form(b, who.username, env.password)]);
      const homes = await Promise.all([a.getJson('/home'), b.getJson('/home')]);
      live.push(homes.filter((h) => h.status === 200).length);
    }
    log(9, 'two sign-ins of one student at once, 20 tries: sessions alive after each', live.join(' '));
    await postJson(instr, `/tools/events/${exam.eventId}/lockdown`, {});
  }
  if (on(10)) {
    const evil = await form(new Client(), u[2], env.password, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
    log(10, 'a cross-site form POST (Origin https://evil.example, Sec-Fetch-Site cross-site)', `${evil.status} ${evil.json.error} set-cookie: ${evil.headers.getSetCookie().join('; ') || 'none'}`);
    const plain = await new Client().post('/accounts/login', { form: { username: u[2], password: env.password }, headers: { origin: 'https://evil.example' } });
    log(10, 'the same with only a foreign Origin, as an HTML form', `${plain.status} ${/<p[^>]*>([^<]*another site[^<]*)</.exec(plain.text)?.[1] || plain.text.slice(0, 80)}`);
    const own = await form(new Client(), u[2], env.password, { origin: env.BASE, 'sec-fetch-site': 'same-origin' });
    log(10, 'from this site\'s own page', own.status);
  }
}

main().catch((err) => { console.error(err); process.exitCode = 1; })
  .finally(async () => { await dropExam(exam).catch((e) => console.error(e.message)); await dbh.close(); });
