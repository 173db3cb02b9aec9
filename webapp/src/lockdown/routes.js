'use strict';
// HTTP only: save an event's lock-down settings; its audit log as JSON.
const express = require('express');
const { wantsJson, badRequest } = require('../shared/errors');

module.exports = function lockdownRoutes({ lockdown, tools }) {
  const r = express.Router({ mergeParams: true });
  async function event(req) {
    if (!/^\d{1,9}$/.test(req.params.eventId)) throw badRequest('The event must be a number.');
    return (await tools.event(Number(req.params.eventId))).id;
  }
  r.post('/', async (req, res) => {
    const eventId = await event(req);
    const b = req.body || {};
    await lockdown.save(eventId, { enabled: !!b.enabled, ranges: b.allowed_ranges, single: !!b.single_session }, req.session.uid);
    if (wantsJson(req)) return res.json({ ok: true, settings: await lockdown.settings(eventId) });
    return res.redirect(303, `/tools/events/${eventId}#lockdown`);
  });
  r.get('/audit', async (req, res) => {
    res.set('Cache-Control', 'no-store').json({ entries: await lockdown.auditLog(await event(req), { limit: req.query.limit }) });
  });
  return r;
};
