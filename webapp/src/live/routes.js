'use strict';
// Live page of an event: HTML once, then /live/:id/data (JSON) polled by staff.js.
// Mounted behind requireRole('instructor', 'admin', 'ta').
const express = require('express');
const { HttpError } = require('../shared/errors');
const { toId } = require('../lib/form');
const ui = require('../lib/ui');
const { livePage } = require('./views');

module.exports = function liveRoutes({ live, cfg }) {
  const r = express.Router();
  const everyMs = (cfg && cfg.livePollMs) || Number(process.env.LIVE_POLL_MS) || 5000;
  const eid = (req) => { const id = toId(req.params.id); if (!id) throw new HttpError(404, 'No such event.'); return id; };

  r.get('/:id', async (req, res) => {
    const snap = await live.snapshot(eid(req));
    ui.send(res, livePage(req, { snap, everyMs, windowH: live.LOGIN_WINDOW_H }));
  });
  r.get('/:id/data', async (req, res) => {
    const snap = await live.snapshot(eid(req));
    res.set('Cache-Control', 'no-store').json({
      now: snap.now, totals: snap.totals,
      students: snap.students.map((s) => ({
        user_id: s.user_id, username: s.username, last_login_at: s.last_login_at, last_activity: s.last_activity,
        saved: s.saved, submitted: s.submitted, questions: s.questions, score: s.score, extra_minutes: s.extra_minutes, logged_in: s.logged_in,
        ends: s.ends, paused: !!s.paused_since, accommodation_s: Number(s.accommodation_s) || 0,
      })),
    });
  });
  return r;
};
