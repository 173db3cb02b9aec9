'use strict';
// Login CSRF: a sign-in posted by another site's page is refused
// with 403 and a sentence; this site's own page, and clients that are no browser, pass.
// Through a real Express app, so req.host is what the webapp sees.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const express = require('express');
const { sameOriginOnly } = require('../../src/shared/auth');

let server;
let port;
test.before(async () => {
  const app = express();
  app.post('/accounts/login', sameOriginOnly, (req, res) => res.send('signed in'));
  app.use((err, req, res, next) => res.status(err.status).json({ error: err.message, code: err.code })); // eslint-disable-line no-unused-vars
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  port = server.address().port;
});
test.after(() => server.close());

function post(headers) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/accounts/login', headers: { 'content-length': 0, ...headers } }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('attack: a form on another site posting the sign-in is refused (403 and a sentence)', async () => {
  const here = `http://127.0.0.1:${port}`;
  for (const h of [
    { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
    { 'sec-fetch-site': 'same-site', origin: `http://other.127.0.0.1:${port}` },
    { origin: 'https://evil.example' },
    { origin: 'null' },
    { origin: `http://127.0.0.1:${port + 1}` },
    { referer: 'https://evil.example/page' },
  ]) {
    const r = await post(h);
    assert.equal(r.status, 403, JSON.stringify(h));
    assert.match(JSON.parse(r.body).error, /sent from another site's page, so it was refused/);
  }
  for (const h of [
    { 'sec-fetch-site': 'same-origin', origin: here },
    { 'sec-fetch-site': 'none' },
    { origin: here },
    { referer: `${here}/accounts/login?next=/home` },
    {},
  ]) assert.equal((await post(h)).status, 200, JSON.stringify(h));
});
