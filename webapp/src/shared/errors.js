'use strict';
// Errors carry an HTTP status and a message a person understands; one handler
// (installed last by app.js) turns them into JSON for API/XHR callers or an HTML
// page for browsers. Stack traces are logged, never sent.

class HttpError extends Error {
  constructor(status, message, extra = {}) {
    super(message);
    this.status = status;
    this.expose = true;
    Object.assign(this, extra);
  }
}

const badRequest = (msg, extra) => new HttpError(400, msg, extra);
const unauthorized = (msg = 'Please sign in.', extra) => new HttpError(401, msg, extra);
const forbidden = (msg = 'You are not allowed to do that.', extra) => new HttpError(403, msg, extra);
const notFound = (msg = 'Not found.', extra) => new HttpError(404, msg, extra);
const conflict = (msg, extra) => new HttpError(409, msg, extra);
const tooLarge = (msg, extra) => new HttpError(413, msg, extra);
const tooMany = (msg, extra) => new HttpError(429, msg, extra);
const unavailable = (msg = 'The service is temporarily unavailable. Please retry in a moment.', extra) => new HttpError(503, msg, extra);

// A request wants JSON when it says so, is an XHR/fetch from our own scripts,
// or sent a JSON body.
function wantsJson(req) {
  if (req.get('x-requested-with') === 'XMLHttpRequest') return true;
  const accept = req.get('accept') || '';
  if (/application\/json/i.test(accept) && !/text\/html/i.test(accept)) return true;
  if (req.is && req.is('application/json')) return true;
  return false;
}

const UNAVAILABLE_RETRY_S = 2;

const TITLES = {
  400: 'Bad request', 401: 'Please sign in', 403: 'Not allowed', 404: 'Not found',
  405: 'Method not allowed', 409: 'Not possible now', 413: 'Too large',
  415: 'Unsupported format', 429: 'Too many attempts', 500: 'Something went wrong',
  503: 'Temporarily unavailable',
};

// Map errors of libraries (body parser, mysql2, memcached) to HTTP errors.
function normalize(err) {
  if (err instanceof HttpError) return err;
  if (err && err.type === 'entity.too.large') return tooLarge('The request is too large.');
  if (err && (err.type === 'entity.parse.failed' || err.type === 'encoding.unsupported' || err.type === 'charset.unsupported')) {
    return badRequest('The request body could not be read (malformed JSON or form data).');
  }
  if (err && err.type === 'parameters.too.many') return badRequest('Too many form fields.');
  // MariaDB: a value the column cannot hold (bad characters, too long)
  if (err && (err.errno === 1366 || err.errno === 1406 || err.errno === 1264)) return badRequest('A field holds a value that cannot be stored (unsupported characters or too long).');
  const status = err && (err.status || err.statusCode);
  if (status && status >= 400 && status < 500) {
    return new HttpError(status, (err.expose && err.message) || TITLES[status] || 'Bad request');
  }
  // A store restarting is back within seconds: say when to retry (the editor does).
  if (err && err.unavailable) return unavailable(err.message, { retryAfter: UNAVAILABLE_RETRY_S });
  const e = new HttpError(500, 'Something went wrong on our side. Please retry; if it persists, tell the invigilator.');
  e.cause = err;
  e.expose = false;
  return e;
}

function makeErrorHandler({ renderErrorPage, log = console }) {
  // eslint-disable-next-line no-unused-vars
  return function errorHandler(err, req, res, next) {
    const e = normalize(err);
    if (e.status >= 500) {
      const cause = e.cause || err;
      log.error(`[webapp ${process.pid}] ${req.method} ${req.originalUrl} -> ${e.status}:`, cause && cause.stack ? cause.stack : cause);
    }
    if (res.headersSent) { res.destroy(); return; }
    if (e.retryAfter) res.set('Retry-After', String(e.retryAfter));
    res.status(e.status);
    if (wantsJson(req)) {
      const body = { error: e.message };
      if (e.code && typeof e.code === 'string' && e.expose) body.code = e.code;
      res.json(body);
    } else {
      res.type('html').send(String(renderErrorPage(req, e.status, TITLES[e.status] || 'Error', e.message)));
    }
  };
}

module.exports = {
  HttpError, badRequest, unauthorized, forbidden, notFound, conflict, tooLarge, tooMany, unavailable,
  wantsJson, normalize, makeErrorHandler, TITLES,
};
