'use strict';
// HTTP only. Students: GET /announcements/feed, POST /announcements/questions.
// Staff (mounted under /tools/events/:eventId/announcements): post an announcement,
// answer a question, allow or stop questions.
const express = require('express');
const { requireLogin } = require('../shared/auth');
const { wantsJson, badRequest } = require('../shared/errors');

function num(x, what) {
  if (!/^\d{1,9}$/.test(String(x))) throw badRequest(`The ${what} must be a number.`);
  return Number(x);
}

function studentRoutes({ announcements }) {
  const r = express.Router();
  r.get('/feed', requireLogin, (req, res) => {
    res.set('Cache-Control', 'no-store').json(announcements.feed(req.session));
  });
  // the student acknowledges an announcement on their own page (theirs only: the session's user)
  r.post('/ack', requireLogin, async (req, res) => {
    await announcements.ack(req.session, num((req.body || {}).id, 'announcement'));
    res.json({ ok: true });
  });
  r.post('/questions', requireLogin, async (req, res) => {
    const b = req.body || {};
    const id = await announcements.ask(req.session, num(b.event_id, 'event'), b.question);
    res.status(201).json({ ok: true, id });
  });
  return r;
}

function staffRoutes({ announcements, tools }) {
  const r = express.Router({ mergeParams: true });
  const back = (req, res, extra = {}) => (wantsJson(req) ? res.json({ ok: true, ...extra }) : res.redirect(303, `/tools/events/${req.params.eventId}#announcements`));
  const event = async (req) => (await tools.event(num(req.params.eventId, 'event'))).id;
  r.post('/', async (req, res) => {
    const id = await announcements.announce(await event(req), req.body, req.session.uid);
    back(req, res, { id });
  });
  r.post('/questions', async (req, res) => {
    await announcements.setQuestions(await event(req), !!(req.body || {}).enabled);
    back(req, res);
  });
  r.post('/questions/:qid/answer', async (req, res) => {
    const b = req.body || {};
    await announcements.answer(await event(req), num(req.params.qid, 'question'), b.answer, req.session.uid, b.to_all === '1' || b.to_all === true);
    back(req, res);
  });
  return r;
}

module.exports = { studentRoutes, staffRoutes };
