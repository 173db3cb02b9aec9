'use strict';
// Builds the Express application from its dependencies. No listening here
// (server.js does that), so tests and the staff side can compose it freely.
//
// Layout: each domain folder (accounts, home, editor, people, ...) has service.js
// (SQL and rules, no HTTP), routes.js (HTTP only: read fields, call the service,
// answer) and views.js (compiled-once templates). services.js builds the services,
// routes.js is the route table (every mount, with its role check); this file is the
// middleware around them. Helpers that know no domain live in lib/ and shared/.
const path = require('node:path');
const express = require('express');

const { contextMiddleware, current } = require('./shared/context');
const { createSessions } = require('./shared/session');
const { csrfProtection } = require('./shared/auth');
const { makeErrorHandler, notFound } = require('./shared/errors');
const { errorPage } = require('./shared/layout');
const assets = require('./shared/assets');

const { createLoginLimiter } = require('./accounts/ratelimit');
const { createPasswords } = require('./accounts/passwords');
const { createSigninGate } = require('./admission/signin');
const { createHasher } = require('./admission/hasher');
const { createServices } = require('./services');
const { mountBeforeSession, mountRoutes } = require('./routes');

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
  const deps = createServices({
    cfg, db, mc, telemetry, sessions, passwords, limiter, verifyPassword: signinGate.verifyPassword, log,
  });
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

  mountBeforeSession(app, deps); // health, exam timing: see src/routes.js

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
  mountRoutes(app, deps, { signinGate }); // every domain router: src/routes.js

  app.use((req, res, next) => next(notFound('There is no page at this address.')));
  app.use(makeErrorHandler({ renderErrorPage: errorPage, log }));
  return app;
}

module.exports = { createApp };
