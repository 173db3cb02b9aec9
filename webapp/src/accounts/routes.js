'use strict';
// HTTP only: read fields, call the accounts service, answer.
const express = require('express');
const { wantsJson, HttpError } = require('../shared/errors');
const { requireLogin, safeLocalPath } = require('../shared/auth');
const { readCookie } = require('../shared/session');
const { DEVICE_COOKIE } = require('./ratelimit');
const { loginPage, passwordPage } = require('./views');

module.exports = function accountsRoutes({ accounts, sessions, telemetry }) {
  const r = express.Router();

  r.get('/login', (req, res) => {
    if (req.session) return res.redirect(302, '/home');
    const next = safeLocalPath(req.query.next) || '';
    const notice = req.query.bye ? 'You have signed out.' : '';
    res.type('html').send(String(loginPage(req, { next, notice })));
  });

  r.post('/login', async (req, res) => {
    const body = req.body || {};
    const next = safeLocalPath(body.next) || '/home';
    let user;
    try {
      user = await accounts.login({
        username: body.username, password: body.password, ip: req.ip, deviceCookie: readCookie(req.headers.cookie, DEVICE_COOKIE),
      });
    } catch (err) {
      if (!(err instanceof HttpError) || wantsJson(req)) throw err;
      if (err.retryAfter) res.set('Retry-After', String(err.retryAfter));
      return res.status(err.status).type('html').send(String(loginPage(req, {
        error: err.message, username: typeof body.username === 'string' ? body.username.slice(0, 64) : '', next: next === '/home' ? '' : next,
      })));
    }
    const s = await sessions.create(req, res, user);
    accounts.rememberDevice(res, user);
    telemetry.record({ kind: 'login', user_id: user.id, ok: true });
    if (wantsJson(req)) return res.json({ ok: true, redirect: next, csrf: s.csrf, user: { id: user.id, username: user.username, role: user.role } });
    return res.redirect(302, next);
  });

  r.post('/logout', async (req, res) => {
    await sessions.destroy(req, res);
    if (wantsJson(req)) return res.json({ ok: true });
    return res.redirect(302, '/accounts/login?bye=1');
  });

  r.get('/password', requireLogin, (req, res) => {
    res.type('html').send(String(passwordPage(req, { done: req.query.done === '1' })));
  });

  r.post('/password', requireLogin, async (req, res) => {
    const b = req.body || {};
    try {
      await accounts.changePassword({ userId: req.session.uid, current: b.current, next: b.next, confirm: b.confirm });
    } catch (err) {
      if (!(err instanceof HttpError) || wantsJson(req)) throw err;
      return res.status(err.status).type('html').send(String(passwordPage(req, { error: err.message })));
    }
    // Every session of the user ended with the change, this one included: the browser
    // that made the change gets a fresh one (a new sid and CSRF token).
    const { uid, username, name, role, section_id: sectionId } = req.session;
    req.sessionId = null;
    const s = await sessions.create(req, res, { id: uid, username, name, role, section_id: sectionId });
    if (wantsJson(req)) return res.json({ ok: true, csrf: s.csrf });
    return res.redirect(303, '/accounts/password?done=1');
  });

  return r;
};
