'use strict';
// Accounts: sign-in (one query, async bcrypt), change of password. A change of
// password ends every session of the user (the route starts a fresh one for the
// browser that made the change).
const bcrypt = require('bcrypt');
const { badRequest, unauthorized, forbidden } = require('../shared/errors');

// Compared against when the user does not exist, so an unknown user costs the
// same bcrypt time as a wrong password (no user enumeration by timing).
const DUMMY_HASH = '$2b$10$CwTycUXWue0Thq9StjUM0uJ8.b6qTTo4K7kR7Ph2o5Uv5/w3BbkD6';
const WRONG = 'Wrong username or password.';

// verifyPassword: bcrypt.compare behind the sign-in admission gate (admission/signin.js)
function createAccountsService({ db, limiter, sessions, bcryptCost, verifyPassword = bcrypt.compare }) {
  // deviceCookie: the browser's prutor.device cookie (ratelimit.js), if any.
  async function login({ username, password, ip, deviceCookie }) {
    if (typeof username !== 'string' || typeof password !== 'string') throw badRequest('Enter your username and password.');
    username = username.trim();
    if (!username || !password) throw badRequest('Enter your username and password.');
    if (username.length > 64 || password.length > 200) throw unauthorized(WRONG);
    const attempt = await limiter.check(username, ip, deviceCookie);
    const rows = await db.query(
      'SELECT id, username, password_hash, name, role, section_id, active FROM users WHERE username = ?',
      [username],
    );
    const user = rows[0];
    const ok = await verifyPassword(password, user ? user.password_hash : DUMMY_HASH);
    if (!user || !ok) {
      await limiter.fail(attempt);
      throw unauthorized(WRONG, { code: 'bad_credentials' });
    }
    if (!user.active) throw forbidden('This account is disabled. Ask your instructor.');
    await limiter.succeed(attempt);
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
    const hash = await bcrypt.hash(next, bcryptCost);
    await db.query('UPDATE users SET password_hash = ? WHERE id = ?', [hash, userId]);
    await sessions.revokeUser(userId);
  }

  // Marks the browser that just signed in as a known device of the account.
  function rememberDevice(res, username) { limiter.issueDevice(res, username); }

  return { login, changePassword, rememberDevice };
}

module.exports = { createAccountsService };
