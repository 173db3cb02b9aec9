'use strict';
// Admin: deployment knobs, HAProxy stats (proxied, admins only), tuning report.
// Mounted behind requireRole('admin').
const express = require('express');
const ui = require('../lib/ui');
const { unavailable } = require('../shared/errors');
const { knobsPage, readinessPage } = require('./views');

module.exports = function adminRoutes({ admin }) {
  const r = express.Router();
  r.get('/', async (req, res) => {
    const [k, live] = await Promise.all([admin.knobs(), admin.live ? admin.live.figures() : null]);
    ui.send(res, knobsPage(req, { k, live }));
  });
  // the live figures (engine and webapp metrics), polled by the page every 5 s
  r.get('/live', async (req, res) => res.set('Cache-Control', 'no-store').json(admin.live ? await admin.live.figures() : {}));

  // "Ready for N students?" from the last measured sweeps of this host
  r.get('/readiness', async (req, res) => {
    const n = Number.parseInt(String(req.query.students || '3000'), 10);
    const users = Number.isFinite(n) && n >= 1 && n <= 1000000 ? n : 3000;
    ui.send(res, readinessPage(req, { r: await admin.readiness.ready(users) }));
  });
  r.get('/readiness/plots/:name', (req, res) => {
    const f = admin.readiness.plotFile(req.params.name);
    if (!f) return res.status(404).type('text').send('No such plot.');
    return res.set('Cache-Control', 'no-store').sendFile(f, (err) => { if (err && !res.headersSent) res.status(404).type('text').send('No such plot.'); });
  });

  // HAProxy's own page, relayed: its port listens on 127.0.0.1 only, so this is the
  // way to it from a browser, and only for admins. Its inline styles and scripts
  // get a page-specific CSP.
  r.get(/^\/haproxy(\/.*)?$/, async (req, res) => {
    const sub = (req.params[0] || '/').replace(/^\//, '');
    if (!/^[;A-Za-z0-9=._\/-]*$/.test(sub)) return res.status(404).end();
    const q = req.originalUrl.indexOf('?');
    let out;
    try { out = await admin.stats(sub, q >= 0 ? req.originalUrl.slice(q) : ''); } catch {
      throw unavailable('HAProxy\'s stats page is not reachable.');
    }
    res.set({ 'Content-Type': out.type, 'Cache-Control': 'no-store', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'" });
    res.status(out.status).send(out.body);
  });

  r.get('/tuning-report', (req, res) => {
    const t = admin.tuningReport();
    if (!t) return res.status(404).type('text').send('No tuning report yet.');
    res.set({ 'Cache-Control': 'no-store', 'Content-Security-Policy': "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:" });
    return res.type(t.name.endsWith('.html') ? 'html' : 'text').send(t.text);
  });
  return r;
};
