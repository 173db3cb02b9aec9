'use strict';
// Safe Exam Browser per event. An event with a row in event_seb requires, on its
// students' exam pages and saves (GET /exam/:eventId, GET /editor/:assignmentId[/status],
// POST /editor/save), one of SEB's headers computed as SEB documents it
// (https://safeexambrowser.org/developer/seb-config-key.html):
//   X-SafeExamBrowser-ConfigKeyHash = hex SHA-256(absolute URL of the request + Config Key)
//   X-SafeExamBrowser-RequestHash   = hex SHA-256(absolute URL of the request + Browser Exam Key)
// The URL is the one the browser asked for (scheme and host as HAProxy forwards them,
// path and query, no fragment), so a hash seen on one page is worth nothing on another.
// Each worker keeps the set of such events (refreshed every SEB_REFRESH_MS) and a
// cache of assignment -> event: requests of events without SEB pay nothing.
const crypto = require('node:crypto');
const { periodic } = require('../lib/periodic');
const { forbidden } = require('../shared/errors');
const { Form } = require('../lib/form');

const KEY_RE = /^[0-9a-f]{64}$/;
const MAX_CACHED_ASSIGNMENTS = 100000;
const REFUSED = 'This exam must be taken in Safe Exam Browser, opened with the configuration your instructor gave out (the event\'s .seb file). This browser did not prove it: open the exam from Safe Exam Browser, or ask the invigilator.';

const hashOf = (url, key) => crypto.createHash('sha256').update(url + key).digest('hex');
const keysOf = (text) => [...new Set(String(text || '').toLowerCase().split(/[\s,]+/).filter(Boolean))];

function matches(header, url, keys) {
  if (typeof header !== 'string' || !/^[0-9a-fA-F]{64}$/.test(header)) return false;
  const got = Buffer.from(header.toLowerCase());
  return keys.some((k) => crypto.timingSafeEqual(Buffer.from(hashOf(url, k)), got));
}

function createSeb({ db, refreshMs = 2000, log = console }) {
  let events = new Map(); // event id -> { config: [keys], bek: [keys] }
  const assignmentEvent = new Map();

  const refresher = periodic('seb', refreshMs, async () => {
    const rows = await db.query('SELECT event_id, config_keys, browser_exam_keys FROM event_seb');
    events = new Map(rows.map((r) => [r.event_id, { config: keysOf(r.config_keys), bek: keysOf(r.browser_exam_keys) }]));
  }, log);

  async function eventOfAssignment(id) {
    if (assignmentEvent.has(id)) return assignmentEvent.get(id);
    const rows = await db.query('SELECT event_id FROM assignments WHERE id = ?', [id]);
    const ev = rows[0] ? rows[0].event_id : null;
    if (assignmentEvent.size >= MAX_CACHED_ASSIGNMENTS) assignmentEvent.clear();
    assignmentEvent.set(id, ev); // an assignment's event never changes
    return ev;
  }

  // The event a request belongs to (null: not an exam request).
  async function eventOf(req) {
    let m = /^\/exam\/(\d{1,10})\/?$/.exec(req.path);
    if (m && req.method === 'GET') return Number(m[1]);
    m = /^\/editor\/(\d{1,10})(?:\/status)?\/?$/.exec(req.path);
    if (m && req.method === 'GET') return eventOfAssignment(Number(m[1]));
    if (req.path === '/editor/save' && req.method === 'POST') {
      const id = req.body && /^\d{1,10}$/.test(String(req.body.assignment_id)) ? Number(req.body.assignment_id) : null;
      return id ? eventOfAssignment(id) : null;
    }
    return null;
  }

  // Students only: staff look at exam pages from their own browsers.
  async function middleware(req, res, next) {
    if (!events.size || !req.session || req.session.role !== 'student') return next();
    const eventId = await eventOf(req);
    const need = eventId && events.get(eventId);
    if (!need) return next();
    const url = `${req.protocol}://${req.get('host')}${req.originalUrl}`;
    if (matches(req.get('x-safeexambrowser-configkeyhash'), url, need.config)
      || matches(req.get('x-safeexambrowser-requesthash'), url, need.bek)) return next();
    return next(forbidden(REFUSED, { code: 'seb_required' }));
  }

  async function settings(eventId) {
    const rows = await db.query('SELECT * FROM event_seb WHERE event_id = ?', [eventId]);
    return rows[0] || null;
  }

  async function save(eventId, body) {
    const f = new Form(body);
    const on = f.bool('required');
    const config = keysOf(f.str('config_keys', { label: 'Config Keys', max: 10000 }));
    const bek = keysOf(f.str('browser_exam_keys', { label: 'Browser Exam Keys', max: 10000 }));
    const quit = f.str('quit_url', { label: 'Quit URL', max: 1000 });
    if ([...config, ...bek].some((k) => !KEY_RE.test(k))) f.fail('config_keys', 'Each key is 64 hexadecimal characters, as SEB\'s configuration tool shows it.');
    if (on && !config.length && !bek.length) f.fail('config_keys', 'Give at least one Config Key or Browser Exam Key: without one, no browser could open the exam.');
    if (quit && !/^https?:\/\/\S+$/.test(quit)) f.fail('quit_url', 'The quit URL is a full URL (https://...).');
    f.check();
    if (!on) await db.query('DELETE FROM event_seb WHERE event_id = ?', [eventId]);
    else {
      await db.query(`INSERT INTO event_seb (event_id, config_keys, browser_exam_keys, quit_url) VALUES (?, ?, ?, ?)
        ON DUPLICATE KEY UPDATE config_keys = VALUES(config_keys), browser_exam_keys = VALUES(browser_exam_keys), quit_url = VALUES(quit_url)`,
      [eventId, config.join('\n'), bek.join('\n'), quit]);
    }
    await refresher.refresh();
    return on;
  }

  // An unencrypted .seb file (an XML property list, which SEB opens): the exam page
  // as start URL, the quit link, SEB sending its keys. Load it in SEB's
  // configuration tool to read its Config Key, and enter that here.
  function sebFile({ startUrl, quitUrl }) {
    const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>originatorVersion</key><string>Prutor</string>
  <key>startURL</key><string>${esc(startUrl)}</string>
  <key>sendBrowserExamKey</key><true/>
  <key>browserWindowAllowReload</key><true/>
  <key>allowQuit</key><true/>
  <key>quitURL</key><string>${esc(quitUrl || '')}</string>
  <key>quitURLConfirm</key><true/>
  <key>enableAppSwitcherCheck</key><true/>
  <key>allowSpellCheck</key><false/>
  <key>URLFilterEnable</key><false/>
</dict>
</plist>
`;
  }

  return { middleware, start: refresher.start, stop: refresher.stop, refresh: refresher.refresh, settings, save, sebFile };
}

module.exports = { createSeb, hashOf, keysOf };
