'use strict';
// Builds the Express application from its dependencies. No listening here
// (server.js does that), so tests and the staff side can compose it freely.
//
// Layout: each domain folder (accounts, home, codebook, editor, scratchpad,
// practice, ...) has service.js (SQL and rules, no HTTP), routes.js (HTTP only:
// read fields, call the service, answer) and views.js (compiled-once templates).
// Staff domains (problems, events, grading, admin, people) mount the same way
// with requireRole('instructor', 'admin') etc. in front of their routers.
const path = require('node:path');
const express = require('express');

const { contextMiddleware, current } = require('./shared/context');
const { createSessions } = require('./shared/session');
const { csrfProtection, sameOriginOnly } = require('./shared/auth');
const { makeErrorHandler, notFound } = require('./shared/errors');
const { errorPage } = require('./shared/layout');
const { addNavItem } = require('./shared/nav');
const assets = require('./shared/assets');

const { createLoginLimiter } = require('./accounts/ratelimit');
const { createPasswords } = require('./accounts/passwords');
const { createSigninGate } = require('./admission/signin');
const { createHasher } = require('./admission/hasher');
const { createAccountsService } = require('./accounts/service');
const { createHomeService } = require('./home/service');
const { createCodebookService } = require('./codebook/service');
const { createEditorService } = require('./editor/service');
const { createScratchpadService } = require('./scratchpad/service');
const { createPracticeService } = require('./practice/service');
const { createLtiService } = require('./lti/service');
const { createGradeSender } = require('./lti/grades');
const { createRoster } = require('./lti/roster');
const { createSeb } = require('./lti/seb');
const { createRegistration } = require('./lti/registration');
const { PUBLISH_SQL } = require('./events/service');

addNavItem({ href: '/home', label: 'Home', order: 10 });
addNavItem({ href: '/codebook', label: 'Codebook', order: 20 });
addNavItem({ href: '/practice', label: 'Practice', order: 30 });
addNavItem({ href: '/scratchpad', label: 'Scratchpad', order: 40 });

const CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:",
  "connect-src 'self'", "font-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

function createApp({ cfg, db, mc, telemetry, log = console }) {
  assets.load(); // fail at start-up, not on the first page, when assets are missing
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', cfg.trustProxy === 'false' ? false : cfg.trustProxy);
  app.set('etag', false);
  app.locals.maxCodeBytes = cfg.maxCodeBytes;

  const sessions = createSessions({ mc, db, secret: cfg.sessionSecret, ttl: cfg.sessionTtl, secure: cfg.cookieSecure, log });
  const limiter = createLoginLimiter({
    mc, secret: cfg.sessionSecret, secure: cfg.cookieSecure, storeTimeoutMs: cfg.memcached.timeoutMs * 2 + 100, ...cfg.login,
  });
  // admission control for bcrypt, the compares at a lower CPU priority than pages (issue 17)
  const { hashNice, ...gateOptions } = cfg.signin;
  const signinGate = createSigninGate(hashNice > 0 ? { ...gateOptions, compare: createHasher({ nice: hashNice }).compare } : gateOptions);
  require('./metrics').watchSignin(signinGate);
  const passwords = createPasswords({ cost: cfg.bcryptCost });
  const deps = {
    cfg, db, mc, telemetry, sessions, passwords,
    accounts: createAccountsService({ db, limiter, sessions, passwords, verifyPassword: signinGate.verifyPassword, log }),
    home: createHomeService({ db }),
    codebook: createCodebookService({ db }),
    editor: createEditorService({ db, telemetry, maxCodeBytes: cfg.maxCodeBytes, lateGraceS: cfg.lateSaveGraceS }),
    scratchpad: createScratchpadService({ db }),
    practice: createPracticeService({ db }),
    lti: createLtiService({ db, secret: cfg.sessionSecret, log, launchTtlS: cfg.lti.launchTtlS, publishSql: PUBLISH_SQL }),
  };
  deps.ltiGrades = createGradeSender({ db, lti: deps.lti, log, ...cfg.lti.grades });
  deps.ltiGrades.start();
  deps.ltiRoster = createRoster({ lti: deps.lti });
  deps.ltiRoster.start({ ...cfg.lti.roster, log });
  deps.ltiRegistration = createRegistration({ db, linkTtlS: cfg.lti.registrationLinkTtlS });
  deps.seb = createSeb({ db, refreshMs: cfg.seb.refreshMs, log });
  deps.seb.start();
  app.locals.deps = deps;

  // Fingerprinted assets: immutable for a year; no session or database touched.
  app.use('/static', assets.precompressed());
  app.use('/static', express.static(assets.DIST, {
    immutable: true, maxAge: '365d', index: false, fallthrough: false, etag: false, lastModified: false,
  }));
  app.use('/staff-assets', require('./lib/assets').serveStaffAssets);
  app.get('/favicon.ico', (req, res) => res.status(204).end());

  app.use(require('./metrics').requestMetrics());
  app.use(contextMiddleware);
  app.use((req, res, next) => {
    res.set({
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'same-origin',
      'Content-Security-Policy': CSP,
    });
    if (cfg.queryHeader) {
      const ctx = current();
      const writeHead = res.writeHead;
      res.writeHead = function patched(...args) {
        if (!res.headersSent) res.setHeader('X-DB-Queries', String(ctx ? ctx.queries : 0));
        return writeHead.apply(this, args);
      };
    }
    next();
  });

  app.use('/healthz', require('./health/routes')(deps));
  // before the session: polled by every open exam editor, answered without memcached
  app.use('/exam/timing', require('./exam/timing').timingRoutes(deps));

  // Bodies: code may be up to maxCodeBytes, escaped up to ~3x in a form; the
  // service answers a precise 413 for code over the limit, the parser for the rest.
  const bodyLimit = cfg.maxCodeBytes * 3 + 16 * 1024;
  app.use(express.urlencoded({ extended: false, limit: bodyLimit, parameterLimit: 50 }));
  app.use(express.json({ limit: bodyLimit }));

  app.use(sessions.middleware);
  // the LMS posts the LTI login and launch (cross-site, no token of ours: see src/lti)
  app.use(csrfProtection({ exempt: ['/accounts/login', '/lti/login', '/lti/launch'] }));
  // Safe Exam Browser: exam pages and saves of events that require it (src/lti/seb.js)
  app.use(deps.seb.middleware);
  // Exam tools (issue 16): lab lock-down (checked before every other router), similarity,
  // playback, announcements; see src/tools/index.js
  require('./tools').mountTools(app, deps);
  // Staff side (issue 5): people, problems, events, live, grading, admin; see src/staff/index.js
  require('./staff').mountStaff(app, deps);

  app.get('/', (req, res) => res.redirect(302, req.session ? '/home' : '/accounts/login'));
  app.post('/accounts/login', sameOriginOnly, signinGate.middleware);
  app.use('/accounts', require('./accounts/routes')(deps));
  app.use('/home', require('./home/routes')(deps));
  app.use('/codebook', require('./codebook/routes')(deps));
  app.use('/editor', require('./editor/routes')(deps));
  app.use('/scratchpad', require('./scratchpad/routes')(deps));
  app.use('/practice', require('./practice/routes')(deps));
  app.use('/lti', require('./lti/routes')(deps));

  app.use((req, res, next) => next(notFound('There is no page at this address.')));
  app.use(makeErrorHandler({ renderErrorPage: errorPage, log }));
  return app;
}

module.exports = { createApp };
