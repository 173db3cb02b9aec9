'use strict';
// HTTP only for LTI 1.3 (service.js holds the rules). Public: the tool's JWKS, the
// login initiation and the launch the LMS posts (both exempt from our CSRF token:
// they come from the LMS; state, nonce and the browser cookie stand in for it).
// Admin: the platform registrations and the configuration to copy into the LMS.
const express = require('express');
const crypto = require('node:crypto');
const { requireRole, requireLogin } = require('../shared/auth');
const { DEVICE_COOKIE } = require('../accounts/ratelimit');
const { readCookie } = require('../shared/session');
const { HttpError } = require('../shared/errors');
const { toId } = require('../lib/form');
const ui = require('../lib/ui');
const views = require('./views');

// Marks the browser that began a launch; only that browser may finish it (no login CSRF).
const BROWSER_COOKIE = 'prutor.lti';

module.exports = function ltiRoutes({ lti, ltiGrades, ltiRoster, ltiRegistration, seb, sessions, telemetry, cfg, accounts }) {
  const r = express.Router();
  const origin = (req) => `${req.protocol}://${req.get('host')}`;
  const cookieAttrs = `Path=/lti/; HttpOnly; SameSite=Lax${cfg.cookieSecure ? '; Secure' : ''}; Max-Age=900`;

  r.get('/jwks', async (req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json(await lti.jwks());
  });

  async function login(req, res) {
    const p = req.method === 'POST' ? (req.body || {}) : req.query;
    let browser = readCookie(req.headers.cookie, BROWSER_COOKIE);
    if (!browser || !/^[A-Za-z0-9_-]{43}$/.test(browser)) browser = crypto.randomBytes(32).toString('base64url');
    const to = await lti.beginLogin(p, { origin: origin(req), browser });
    res.append('Set-Cookie', `${BROWSER_COOKIE}=${browser}; ${cookieAttrs}`);
    res.set('Cache-Control', 'no-store').redirect(302, to);
  }
  r.get('/login', login);
  r.post('/login', login);

  // The LMS's form post: verified here, finished by a same-site GET of /lti/continue,
  // which carries our (SameSite=Lax) cookies where a cross-site POST does not.
  r.post('/launch', async (req, res) => {
    const b = req.body || {};
    const ticket = await lti.verifyLaunch({ idToken: b.id_token, state: b.state }, { origin: origin(req) });
    res.set('Cache-Control', 'no-store').redirect(303, `/lti/continue?ticket=${encodeURIComponent(ticket)}`);
  });

  r.get('/continue', async (req, res) => {
    const { user, landing, roleChanged, dl } = await lti.continueLaunch({
      ticket: req.query.ticket, browser: readCookie(req.headers.cookie, BROWSER_COOKIE),
    });
    // a new role: the account's other sessions carry the old one
    if (roleChanged) await sessions.revokeUser(user.id);
    await sessions.create(req, res, user);
    // a deep linking request: its settings stay with the session until the pick is sent back
    if (dl) await sessions.update(req, { lti_dl: dl });
    telemetry.record({ kind: 'login', user_id: user.id, ok: true, via: 'lti' });
    res.set('Cache-Control', 'no-store').redirect(303, landing);
  });

  // A student links the LMS identity to their own password account (their consent:
  // its password, through the sign-in's limits), from the LMS activity /lti/link-account.
  r.get('/link', requireLogin, async (req, res) => {
    ui.send(res, views.linkPage(req, { can: await lti.linkable(req.session.uid) }));
  });
  r.post('/link', requireLogin, async (req, res) => {
    const can = await lti.linkable(req.session.uid);
    if (!can.ok) return ui.send(res, views.linkPage(req, { can }), 400);
    const b = req.body || {};
    let local;
    try {
      const found = await accounts.login({ username: b.username, password: b.password, ip: req.ip, deviceCookie: readCookie(req.headers.cookie, DEVICE_COOKIE) });
      local = await lti.linkAccount(req.session.uid, found);
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      if (err.retryAfter) res.set('Retry-After', String(err.retryAfter));
      return ui.send(res, views.linkPage(req, { can, error: err.message, username: typeof b.username === 'string' ? b.username.slice(0, 64) : '' }), err.status);
    }
    await sessions.revokeUser(req.session.uid);
    req.sessionId = null;
    await sessions.create(req, res, local);
    telemetry.record({ kind: 'login', user_id: local.id, ok: true, via: 'lti-link' });
    return res.redirect(303, '/home');
  });

  // Dynamic registration, opened by the LMS (often framed): the link's token is the
  // authority, not a session; the answer may be framed by that LMS only.
  r.get('/register-close.js', (req, res) => {
    res.set('Cache-Control', 'public, max-age=3600').type('application/javascript')
      .send("window.parent.postMessage({ subject: 'org.imsglobal.lti.close' }, '*');\n");
  });
  r.get('/register/:token', async (req, res) => {
    let lms = null;
    try { const u = new URL(String(req.query.openid_configuration || '')); if (/^https?:$/.test(u.protocol)) lms = u.origin; } catch { /* none */ }
    res.removeHeader('X-Frame-Options');
    res.set('Content-Security-Policy', `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; object-src 'none'; frame-ancestors ${lms || "'none'"}`);
    try {
      const out = await ltiRegistration.register({
        token: req.params.token, openidConfiguration: req.query.openid_configuration,
        registrationToken: typeof req.query.registration_token === 'string' ? req.query.registration_token : '', origin: origin(req),
      });
      return ui.send(res, views.registeredPage(req, out));
    } catch (err) {
      if (!(err instanceof HttpError) || err.status >= 500 && err.status !== 502) throw err;
      return ui.send(res, views.registeredPage(req, { error: err.message }), err.status);
    }
  });

  // Deep Linking: the instructor picks, the browser posts the signed answer to the LMS
  // (from a page whose CSP allows a form to that return URL only).
  const dlOf = (req) => {
    const dl = req.session && req.session.lti_dl;
    if (!dl) throw new HttpError(400, 'There is no "add activity" request from an LMS in this session. Start it again from the LMS.');
    return dl;
  };
  r.get('/deeplink', requireRole('instructor', 'admin'), async (req, res) => {
    const dl = dlOf(req);
    ui.send(res, views.deepLinkPage(req, { dl, ...(await lti.linkables()) }));
  });
  r.post('/deeplink', requireRole('instructor', 'admin'), async (req, res) => {
    const dl = dlOf(req);
    let out;
    try {
      out = await lti.deepLinkResponse(dl, (req.body || {}).item, { origin: origin(req) });
    } catch (err) {
      if (!(err instanceof HttpError) || err.status !== 400) throw err;
      return ui.send(res, views.deepLinkPage(req, { dl, ...(await lti.linkables()), error: err.message }), 400);
    }
    await sessions.update(req, { lti_dl: null });
    const to = new URL(out.returnUrl).origin;
    res.set('Content-Security-Policy', `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; form-action ${to}; frame-ancestors 'none'; base-uri 'none'; object-src 'none'`);
    return ui.send(res, views.deepLinkReturn(req, out));
  });

  // The target link URIs: opened directly (not from the LMS), they send a signed-in
  // user on, and tell anyone else where the activity starts.
  r.get(/^\/(event|problem)\/(\d{1,10})$/, (req, res) => {
    if (!req.session) return ui.send(res, views.openFromLms(req), 401);
    const [kind, id] = [req.params[0], req.params[1]];
    const staff = req.session.role !== 'student';
    return res.redirect(302, kind === 'event' ? (staff ? `/events/${id}` : `/exam/${id}`) : (staff ? `/problems/${id}` : '/practice'));
  });

  // ---- grade passback, per event (staff) ---------------------------------------------
  const grades = express.Router();
  const eventOf = (req) => lti.eventBrief(req.params.eventId);
  grades.get('/:eventId', async (req, res) => {
    const event = await eventOf(req);
    ui.send(res, views.gradesPage(req, { event, rows: await ltiGrades.status(event.id), done: req.query.sent === '1' }));
  });
  grades.post('/:eventId/send', async (req, res) => {
    const event = await eventOf(req);
    await ltiGrades.retryEvent(event.id);
    res.redirect(303, `/lti/grades/${event.id}?sent=1`);
  });
  r.use('/grades', requireRole('instructor', 'admin'), grades);

  // ---- Safe Exam Browser per event (staff) --------------------------------------------
  const sebr = express.Router();
  const sebEvent = (req) => lti.eventBrief(req.params.eventId);
  const sebForm = (s) => (s ? { values: { required: '1', config_keys: s.config_keys, browser_exam_keys: s.browser_exam_keys, quit_url: s.quit_url } } : {});
  sebr.get('/:eventId', async (req, res) => {
    const event = await sebEvent(req);
    const s = await seb.settings(event.id);
    ui.send(res, views.sebPage(req, { event, on: !!s, f: sebForm(s), saved: req.query.saved === '1', origin: origin(req) }));
  });
  sebr.post('/:eventId', async (req, res) => {
    const event = await sebEvent(req);
    try {
      await seb.save(event.id, req.body);
    } catch (err) {
      if (!(err instanceof HttpError) || err.status !== 400) throw err;
      return ui.send(res, views.sebPage(req, { event, on: !!(await seb.settings(event.id)), f: ui.failed(err, req.body), origin: origin(req) }), 400);
    }
    return res.redirect(303, `/lti/seb/${event.id}?saved=1`);
  });
  sebr.get('/:eventId/config.seb', async (req, res) => {
    const event = await sebEvent(req);
    const s = await seb.settings(event.id);
    res.set({ 'Content-Type': 'application/seb', 'Content-Disposition': `attachment; filename="event-${event.id}.seb"`, 'Cache-Control': 'no-store' })
      .send(seb.sebFile({ startUrl: `${origin(req)}/exam/${event.id}`, quitUrl: s ? s.quit_url : '' }));
  });
  r.use('/seb', requireRole('instructor', 'admin'), sebr);

  // ---- LMS courses and their rosters (NRPS), staff ---------------------------------------
  const courses = express.Router();
  courses.get('/', async (req, res) => {
    ui.send(res, views.coursesPage(req, { courses: await ltiRoster.courses(), msg: typeof req.query.msg === 'string' ? req.query.msg.slice(0, 300) : '' }));
  });
  courses.post('/sync', async (req, res) => {
    const b = req.body || {};
    const pid = toId(b.platform_id);
    if (!pid || typeof b.context_id !== 'string') throw new HttpError(400, 'Choose an LMS course.');
    try {
      const out = await ltiRoster.sync(pid, b.context_id);
      return res.redirect(303, `/lti/courses?msg=${encodeURIComponent(`Roster synced: ${out.result}.`)}`);
    } catch (err) {
      if (!(err instanceof HttpError) || err.status === 404 || err.status === 400) throw err;
      return ui.send(res, views.coursesPage(req, { courses: await ltiRoster.courses(), error: err.message }), err.status);
    }
  });
  r.use('/courses', requireRole('instructor', 'admin'), courses);

  // ---- admin ----------------------------------------------------------------------
  const admin = express.Router();
  admin.get('/', async (req, res) => {
    await lti.toolKey();
    ui.send(res, views.platformsPage(req, { platforms: await lti.platforms(), tool: views.toolConfig(origin(req)) }));
  });
  admin.get('/new', (req, res) => ui.send(res, views.platformForm(req, { f: {} })));
  admin.post('/registration-links', async (req, res) => {
    const token = await ltiRegistration.createLink(req.session.uid);
    ui.send(res, views.registrationLinkPage(req, { url: `${origin(req)}/lti/register/${token}`, hours: Math.round(cfg.lti.registrationLinkTtlS / 3600) }));
  });
  admin.post('/', async (req, res) => {
    try {
      const id = await lti.savePlatform(null, req.body);
      return res.redirect(303, `/lti/admin/${id}?saved=1`);
    } catch (err) {
      if (!(err instanceof HttpError) || err.status !== 400) throw err;
      return ui.send(res, views.platformForm(req, { f: ui.failed(err, req.body) }), 400);
    }
  });
  const idOf = (req) => { const id = toId(req.params.id); if (!id) throw new HttpError(404, 'No such platform.'); return id; };
  admin.get('/:id', async (req, res) => {
    const id = idOf(req);
    const [p, sections] = await Promise.all([lti.platform(id), lti.sections()]);
    ui.send(res, views.platformPage(req, { p, sections, tool: views.toolConfig(origin(req)), saved: req.query.saved === '1' }));
  });
  admin.get('/:id/edit', async (req, res) => {
    const p = await lti.platform(idOf(req));
    ui.send(res, views.platformForm(req, { id: p.id, f: { values: { ...p, deployments: p.deployments.join('\n') } } }));
  });
  admin.post('/:id', async (req, res) => {
    const id = idOf(req);
    try {
      await lti.savePlatform(id, req.body);
      return res.redirect(303, `/lti/admin/${id}?saved=1`);
    } catch (err) {
      if (!(err instanceof HttpError) || err.status !== 400) throw err;
      return ui.send(res, views.platformForm(req, { id, f: ui.failed(err, req.body) }), 400);
    }
  });
  admin.post('/:id/delete', async (req, res) => {
    await lti.deletePlatform(idOf(req));
    res.redirect(303, '/lti/admin');
  });
  admin.post('/:id/contexts', async (req, res) => {
    const id = idOf(req);
    await lti.mapContext(id, (req.body || {}).context_id, (req.body || {}).section_id);
    res.redirect(303, `/lti/admin/${id}?saved=1`);
  });
  r.use('/admin', requireRole('admin'), admin);
  return r;
};
