'use strict';
// Runs after the session middleware, before every router: a student's request
// under a lab lock-down must come from the lab's ranges; a browser whose session
// was ended by a second sign-in learns why (401 with the reason, then sign-in).
const { verify, readCookie, COOKIE } = require('../shared/session');
const { wantsJson } = require('../shared/errors');
const { errorPage } = require('../shared/layout');

function lockdownMiddleware({ lockdown, sessions, secret }) {
  return async function labLockdown(req, res, next) {
    if (req.path.startsWith('/accounts/')) return next();
    if (req.session) {
      await lockdown.checkRequest(req);
      return next();
    }
    const sid = verify(readCookie(req.headers.cookie, COOKIE), secret);
    if (!sid) return next();
    const notice = await lockdown.endedNotice(sid);
    if (!notice) return next();
    const message = `Your session was ended because you signed in again from ${notice.address} at ${notice.at.slice(11, 19)} UTC: during "${notice.event}" a student may be signed in on one computer only. If that was not you, tell the invigilator now.`;
    sessions.clearCookie(res);
    if (wantsJson(req) || req.method !== 'GET') return res.status(401).json({ error: message, code: 'session_replaced' });
    return res.status(401).type('html').send(String(errorPage(req, 401, 'Signed in elsewhere', message)));
  };
}

module.exports = { lockdownMiddleware };
