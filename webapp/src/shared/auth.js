'use strict';
// Authentication, role checks and CSRF. requireRole(...) is what the staff side
// (problems, events, grading, admin, people) puts in front of its routers.
const crypto = require('node:crypto');
const { wantsJson, forbidden, unauthorized } = require('./errors');

const ROLES = ['admin', 'instructor', 'ta', 'student'];

function safeLocalPath(p) {
  return typeof p === 'string' && /^\/(?![/\\])[\x21-\x7e]*$/.test(p) && !p.startsWith('/accounts/') ? p : null;
}

// No session: pages redirect to the login page (302), API/XHR callers get 401 JSON.
function requireLogin(req, res, next) {
  if (req.session) return next();
  if (wantsJson(req) || req.method !== 'GET') return next(unauthorized('Your session has ended. Please sign in again.'));
  const back = safeLocalPath(req.originalUrl);
  return res.redirect(302, back && back !== '/' && back !== '/home' ? `/accounts/login?next=${encodeURIComponent(back)}` : '/accounts/login');
}

function requireRole(...roles) {
  for (const r of roles) if (!ROLES.includes(r)) throw new Error(`requireRole: unknown role "${r}"`);
  return function roleCheck(req, res, next) {
    if (!req.session) return requireLogin(req, res, next);
    if (roles.includes(req.session.role)) return next();
    return next(forbidden('This page is not available to your account.'));
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function tokenMatches(a, b) {
  if (typeof a !== 'string' || typeof b !== 'string' || a.length !== b.length) return false;
  return crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

// Every state-changing request carries the session's csrf value in X-CSRF-Token
// or in the form field _csrf (CONTRACTS.md). Exempt paths (only the login form)
// are listed by the caller.
function csrfProtection({ exempt = [] } = {}) {
  const skip = new Set(exempt);
  return function csrf(req, res, next) {
    if (SAFE_METHODS.has(req.method) || skip.has(req.path)) return next();
    if (!req.session) return next(); // requireLogin answers 401/302 for these
    const sent = req.get('x-csrf-token') || (req.body && typeof req.body._csrf === 'string' ? req.body._csrf : undefined);
    if (!tokenMatches(sent, req.session.csrf)) {
      return next(forbidden('The security token of this page is missing or out of date. Reload the page and try again.', { code: 'csrf' }));
    }
    return next();
  };
}

// The sign-in form has no session and so no CSRF token: a page on another site could
// post it and sign the student's browser into the attacker's account, where the
// student's saves would then land (login CSRF). Browsers say
// where a request comes from: Sec-Fetch-Site (every current one), else Origin (a
// sandboxed frame sends "null"), else Referer; a client that sends none of them
// (curl, JMeter, a test) is no browser another site's page could drive.
const FROM_HERE = new Set(['same-origin', 'none']);
function hostOf(url) {
  try { return new URL(url).host; } catch { return null; }
}
function sameOriginOnly(req, res, next) {
  const site = req.get('sec-fetch-site');
  const origin = req.get('origin');
  const referer = req.get('referer');
  const foreign = site ? !FROM_HERE.has(site)
    : origin ? hostOf(origin) !== req.host
      : referer ? hostOf(referer) !== req.host : false;
  if (!foreign) return next();
  return next(forbidden('This sign-in was sent from another site\'s page, so it was refused. Open this site\'s sign-in page and sign in there.', { code: 'cross_site' }));
}

module.exports = { requireLogin, requireRole, csrfProtection, sameOriginOnly, safeLocalPath, ROLES };
