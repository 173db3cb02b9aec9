'use strict';
// Helpers for the staff-side tests: signed-in clients per role, form posts with
// the CSRF token, the staff route table (read from the routers themselves), and
// the materialized-view consistency check (EXCEPT both ways).
const { Client } = require('./http');
const env = require('./env');
const dbh = require('./db');

const TAG = `${Date.now().toString(36)}${process.pid.toString(36)}`;

async function as(username, password = env.password) {
  const c = new Client();
  await c.login(username, password);
  return c;
}

// POST a form with the session's CSRF token (the way the pages do).
function postForm(c, url, fields = {}) {
  const body = new URLSearchParams();
  body.append('_csrf', c.csrf || '');
  for (const [k, v] of Object.entries(fields)) {
    if (Array.isArray(v)) for (const x of v) body.append(k, String(x)); else if (v !== undefined && v !== null) body.append(k, String(v));
  }
  return c.request('POST', url, { body: body.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
}

function postJson(c, url, json = {}) {
  return c.request('POST', url, { json, csrf: true, headers: { accept: 'application/json' } });
}

// Every route of the staff routers, as [method, mountedPath] with :params.
function staffRoutes() {
  const mounts = {
    '/people': require('../../src/people/routes'), '/problems': require('../../src/problems/routes'),
    '/events': require('../../src/events/routes'), '/live': require('../../src/live/routes'),
    '/grading': require('../../src/grading/routes'), '/admin': require('../../src/admin/routes'),
  };
  const out = [];
  const walk = (router, prefix) => {
    for (const l of router.stack) {
      if (l.route) {
        for (const m of Object.keys(l.route.methods)) if (m !== '_all') out.push([m.toUpperCase(), prefix + (l.route.path instanceof RegExp ? '/haproxy/' : l.route.path)]);
      } else if (l.handle && l.handle.stack) walk(l.handle, prefix + (l.rawPath && l.rawPath !== '/' ? l.rawPath : ''));
    }
  };
  const fake = { people: {}, problems: {}, events: {}, live: {}, grading: {}, admin: {} };
  for (const [p, f] of Object.entries(mounts)) walk(f(fake), p);
  return out;
}

// Both materialized views equal their defining views for one event (EXCEPT both ways).
async function viewDiff(eventId) {
  const one = async (sql) => (await dbh.q(sql, [eventId, eventId]))[0].n;
  return {
    home_extra: await one('SELECT COUNT(*) AS n FROM (SELECT * FROM home_view WHERE event_id = ? EXCEPT SELECT * FROM home_view_def WHERE event_id = ?) x'),
    home_missing: await one('SELECT COUNT(*) AS n FROM (SELECT * FROM home_view_def WHERE event_id = ? EXCEPT SELECT * FROM home_view WHERE event_id = ?) x'),
    codebook_extra: await one('SELECT COUNT(*) AS n FROM (SELECT * FROM codebook_view WHERE event_id = ? EXCEPT SELECT * FROM codebook_view_def WHERE event_id = ?) x'),
    codebook_missing: await one('SELECT COUNT(*) AS n FROM (SELECT * FROM codebook_view_def WHERE event_id = ? EXCEPT SELECT * FROM codebook_view WHERE event_id = ?) x'),
  };
}
const CONSISTENT = { home_extra: 0, home_missing: 0, codebook_extra: 0, codebook_missing: 0 };

module.exports = { TAG, as, postForm, postJson, staffRoutes, viewDiff, CONSISTENT };
