'use strict';
// Sign-in limits (accounts/ratelimit.js) through the accounts service, with the
// library's memcached code path over an in-process memcached (helpers/fake-memcached.js)
// and small bounds: each test tries one attack of the live security review.
// The same attacks against the real stack: test/api/signin-limits.test.js.
const test = require('node:test');
const assert = require('node:assert/strict');
const bcrypt = require('bcrypt');
const { createLoginLimiter, foldName, accountKey } = require('../../src/accounts/ratelimit');
const { createAccountsService } = require('../../src/accounts/service');
const { createPasswords } = require('../../src/accounts/passwords');
const { createFakeMemcached } = require('../helpers/fake-memcached');
const { unavailable } = require('../../src/shared/errors');

const LIMITS = {
  maxFailsPerAccount: 10, maxFailsPerDevice: 10, windowS: 900, lockBaseS: 30, lockMaxS: 900,
  maxUnknownFailsPerAddress: 20, addressDelayMs: 150,
};
const COST = 5;
const passwords = createPasswords({ cost: COST });
let rightHash;
test.before(async () => { rightHash = await bcrypt.hash('right', COST); });

// One account (id 7). The lookup stands for users.username's collation, which finds
// it under every spelling in `spellings`.
function setup({ spellings = ['student01'], limits = {} } = {}) {
  const mc = createFakeMemcached();
  const limiter = createLoginLimiter({ mc, secret: 'unit-test-secret-0123456789', ...LIMITS, ...limits });
  const user = { id: 7, username: 'student01', password_hash: rightHash, name: 'S', role: 'student', section_id: 1, active: 1 };
  const updates = [];
  const db = {
    async query(sql, params) {
      if (/^SELECT/.test(sql)) return spellings.includes(params[0]) ? [{ ...user }] : [];
      updates.push(params);
      return { affectedRows: 1 };
    },
  };
  let compares = 0;
  const verifyPassword = async (pw, hash) => { compares++; await new Promise((r) => setTimeout(r, 5)); return bcrypt.compare(pw, hash); };
  const accounts = createAccountsService({ db, limiter, passwords, verifyPassword, sessions: {} });
  const device = () => { let v = null; accounts.rememberDevice({ append: (k, c) => { v = c.split(';')[0].split('=')[1]; } }, user); return v; };
  const login = (username, password, { ip = '192.0.2.1', deviceCookie } = {}) => accounts.login({ username, password, ip, deviceCookie })
    .then(() => 200, (e) => { if (!e.status) throw e; return e; });
  return { mc, limiter, accounts, login, device, updates, user, compares: () => compares, setCompares: (n) => { compares = n; } };
}
const statusOf = (r) => (typeof r === 'number' ? r : r.status);

test('attack (finding 2): 150 wrong passwords at the same moment: 10 compared, 140 refused with 429 + Retry-After', async () => {
  const s = setup();
  const out = await Promise.all(Array.from({ length: 150 }, (_, i) => s.login('student01', `guess-${i}`)));
  assert.equal(s.compares(), 10, 'only the attempts within the limit reach the compare');
  assert.equal(out.filter((r) => statusOf(r) === 401).length, 10);
  const refused = out.filter((r) => statusOf(r) === 429);
  assert.equal(refused.length, 140);
  assert.ok(refused.every((e) => e.retryAfter > 0 && /Too many failed sign-in attempts for this account\. Wait \d+ seconds/.test(e.message)));
  assert.equal(statusOf(await s.login('student01', 'right')), 429, 'the right password waits too (from a browser the account never used)');
});

test('a compare our side could not do gives its charge back', async () => {
  const s = setup();
  const mc = s.mc;
  const limiter = createLoginLimiter({ mc, secret: 'unit-test-secret-0123456789', ...LIMITS });
  const db = { query: async () => [{ ...s.user }] };
  const busy = createAccountsService({ db, limiter, passwords, sessions: {}, verifyPassword: async () => { throw unavailable('busy', { retryAfter: 2 }); } });
  for (let i = 0; i < 25; i++) await assert.rejects(busy.login({ username: 'student01', password: 'x', ip: '192.0.2.1' }), { status: 503 });
  assert.equal(statusOf(await s.login('student01', 'right')), 200, '25 refusals of our own did not count against the student');
});

test('attack (finding 3): spellings the collation folds share the account\'s counters; made-up variants share one', async () => {
  const s = setup({ spellings: ['student01', 'ſtudent01', 'ｓtudent01', 'studént01', 'STUDENT01'] });
  for (let i = 0; i < 10; i++) assert.equal(statusOf(await s.login('student01', `guess-${i}`)), 401);
  for (const alias of ['ſtudent01', 'ｓtudent01', 'studént01', 'STUDENT01']) {
    assert.equal(statusOf(await s.login(alias, 'right')), 429, `${alias} is the same account`);
  }
  // names that match no account: their variants fold to one counter
  assert.equal(foldName('ſtudéntX'), foldName('STUDENTx'));
  assert.equal(foldName('ｓｔｕｄｅｎｔｘ'), 'studentx');
  assert.equal(foldName('Stra\u00dfe\u200b'), 'strasse');
  const t = setup();
  const variants = ['ghost', 'GHOST', 'ｇhost', 'ghöst', 'ghoſt', 'gho\u00adst', 'ghost  '];
  for (let i = 0; i < 10; i++) assert.equal(statusOf(await t.login(variants[i % variants.length], `g${i}`)), 401);
  for (const v of variants) assert.equal(statusOf(await t.login(v, 'x')), 429, `"${v}" shares the counter`);
});

test('attack (finding 4): failures for made-up names from one address slow it, never refuse the hall', async () => {
  const s = setup();
  const hall = '198.51.100.7';
  await Promise.all(Array.from({ length: 25 }, (_, i) => s.login(`nobody${i}`, 'x', { ip: hall })));
  const t0 = Date.now();
  assert.equal(statusOf(await s.login('student01', 'right', { ip: hall })), 200, 'a student without a device cookie signs in from the hall');
  assert.ok(Date.now() - t0 >= LIMITS.addressDelayMs, 'slowed by the address bound');
  const known = s.device();
  const t1 = Date.now();
  assert.equal(statusOf(await s.login('student01', 'right', { ip: hall, deviceCookie: known })), 200);
  assert.ok(Date.now() - t1 < LIMITS.addressDelayMs, 'a browser the account signed in with is not slowed');
  // wrong passwords for a real account do not count against the address
  const u = setup({ limits: { maxUnknownFailsPerAddress: 5 } });
  for (let i = 0; i < 9; i++) await u.login('student01', `g${i}`, { ip: hall });
  const t2 = Date.now();
  await u.login('student01', 'right', { ip: hall });
  assert.ok(Date.now() - t2 < LIMITS.addressDelayMs);
});

test('attack (finding 4): 10 wrong from each of 11 addresses: a short lock-out, growing; the student\'s own browser still signs in', async () => {
  const s = setup();
  const mine = s.device();
  let last;
  for (let a = 0; a < 11; a++) for (let i = 0; i < 10; i++) last = await s.login('student01', `g${a}.${i}`, { ip: `203.0.113.${a}` });
  assert.equal(statusOf(last), 429);
  assert.equal(last.retryAfter, LIMITS.lockBaseS, 'the first lock-out is short');
  assert.equal(statusOf(await s.login('student01', 'right', { ip: '203.0.113.99', deviceCookie: mine })), 200, 'with its device cookie, the right password works');
  let other = null; // a device cookie of another account does not lift this one's lock-out
  s.limiter.issueDevice({ append: (k, c) => { other = c.split(';')[0].split('=')[1]; } }, accountKey(8));
  assert.equal(statusOf(await s.login('student01', 'right', { deviceCookie: other })), 429);

  // the next lock-out, once this one is over, is twice as long
  const t = setup();
  for (let i = 0; i <= 10; i++) last = await t.login('student01', `g${i}`);
  assert.equal(last.retryAfter, 30);
  for (const k of t.mc.items.keys()) if (k.startsWith('rl:acct:')) t.mc.items.delete(k); // the lock-out ran out
  for (let i = 0; i <= 10; i++) last = await t.login('student01', `h${i}`);
  assert.equal(last.retryAfter, 60);
  // a device's own guesses lock only that device
  const u = setup();
  const dev = u.device();
  for (let i = 0; i <= 10; i++) last = await u.login('student01', `g${i}`, { deviceCookie: dev });
  assert.equal(statusOf(last), 429);
  assert.match(last.message, /in this browser/);
  assert.equal(statusOf(await u.login('student01', 'right')), 200, 'other browsers are not held by it');
});

test('attack (finding 8): one bcrypt cost for every hash; a hash of another cost is redone at the next sign-in', async () => {
  const p = createPasswords({ cost: 5 });
  const [made, dummy] = await Promise.all([p.hash('a password'), p.dummyHash()]);
  assert.equal(bcrypt.getRounds(made), 5);
  assert.equal(bcrypt.getRounds(dummy), bcrypt.getRounds(made), 'the dummy for unknown names costs what a real hash costs');
  assert.equal(p.needsRehash(made), false);
  assert.equal(p.needsRehash(await bcrypt.hash('x', 4)), true);
  assert.equal(p.needsRehash(await bcrypt.hash('x', 6)), true);

  const s = setup();
  const cheap = await bcrypt.hash('right', COST - 1);
  s.user.password_hash = cheap; // setup's lookup copies this row
  const db = { query: async (sql, params) => (/^SELECT/.test(sql) ? [{ ...s.user }] : (s.updates.push(params), { affectedRows: 1 })) };
  const acc = createAccountsService({ db, limiter: s.limiter, passwords, sessions: {}, verifyPassword: bcrypt.compare });
  await acc.login({ username: 'student01', password: 'right', ip: '192.0.2.9' });
  for (let i = 0; i < 100 && !s.updates.length; i++) await new Promise((r) => setTimeout(r, 10));
  const [newHash, id, oldHash] = s.updates[0];
  assert.equal(id, 7);
  assert.equal(oldHash, cheap, 'only if the password did not change meanwhile');
  assert.equal(bcrypt.getRounds(newHash), COST);
  assert.ok(await bcrypt.compare('right', newHash));
});
