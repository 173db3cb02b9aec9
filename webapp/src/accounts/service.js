'use strict';
// Accounts: sign-in (one query, async bcrypt, limits in ratelimit.js), change of
// password. A change of password ends every session of the user (the route starts a
// fresh one for the browser that made the change).
const bcrypt = require('bcrypt');
const { badRequest, unauthorized, forbidden } = require('../shared/errors');
const { accountKey, unknownKey } = require('./ratelimit');

const WRONG = 'Wrong username or password.';

// verifyPassword: bcrypt.compare behind the sign-in admission gate (admission/signin.js);
// passwords: the one cost (passwords.js)
function createAccountsService({ db, limiter, sessions, passwords, verifyPassword = bcrypt.compare, log = console }) {
  // A hash of another cost than the configured one, redone with the password that just
  // matched; not awaited (the sign-in does not wait for it), and only if nobody changed
  // the password meanwhile.
  function rehash(user, password) {
    passwords.hash(password)
      .then((h) => db.query('UPDATE users SET password_hash = ? WHERE id = ? AND password_hash = ?', [h, user.id, user.password_hash]))
      .catch((err) => log.error(`[webapp ${process.pid}] rehash of user ${user.id} failed: ${err.message}`));
  }

  // deviceCookie: the browser's prutor.device cookie (ratelimit.js), if any.
  async function login({ username, password, ip, deviceCookie }) {
    if (typeof username !== 'string' || typeof password !== 'string') throw badRequest('Enter your username and password.');
    username = username.trim();
    if (!username || !password) throw badRequest('Enter your username and password.');
    if (username.length > 64 || password.length > 200) throw unauthorized(WRONG);
    const rows = await db.query(
      'SELECT id, username, password_hash, name, role, section_id, active FROM users WHERE username = ?',
      [username],
    );
    const user = rows[0];
    // the limits count per account the collation found (every spelling it folds), not per name as typed
    const attempt = await limiter.reserve({ account: user ? accountKey(user.id) : unknownKey(username), ip, deviceCookie });
    let ok;
    try {
      ok = await verifyPassword(password, user ? user.password_hash : await passwords.dummyHash());
    } catch (err) {
      await limiter.release(attempt);
      throw err;
    }
    if (!user || !ok) {
      await limiter.fail(attempt, { unknown: !user });
      throw unauthorized(WRONG, { code: 'bad_credentials' });
    }
    if (!user.active) throw forbidden('This account is disabled. Ask your instructor.');
    await limiter.succeed(attempt);
    if (passwords.needsRehash(user.password_hash)) rehash(user, password);
    return user;
  }

  async function changePassword({ userId, current, next, confirm }) {
    if (typeof current !== 'string' || typeof next !== 'string' || typeof confirm !== 'string' || !current || !next) {
      throw badRequest('Fill in all three fields.');
    }
    if (next.length < 8) throw badRequest('The new password must have at least 8 characters.');
    if (next.length > 200) throw badRequest('The new password is too long (200 characters at most).');
    if (next !== confirm) throw badRequest('The new password and its confirmation differ.');
    if (next === current) throw badRequest('The new password must differ from the current one.');
    const rows = await db.query('SELECT password_hash FROM users WHERE id = ?', [userId]);
    if (!rows[0] || !(await bcrypt.compare(current, rows[0].password_hash))) {
      throw badRequest('The current password is not correct.', { code: 'bad_current' });
    }
    const hash = await passwords.hash(next);
    await db.query('UPDATE users SET password_hash = ? WHERE id = ?', [hash, userId]);
    await sessions.revokeUser(userId);
  }

  // Marks the browser that just signed in as a known device of the account.
  function rememberDevice(res, user) { limiter.issueDevice(res, accountKey(user.id)); }

  return { login, changePassword, rememberDevice };
}

module.exports = { createAccountsService };
