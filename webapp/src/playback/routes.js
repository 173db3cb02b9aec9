'use strict';
// HTTP only: the playback page of an assignment and its JSON (timeline pages, one
// version's code, the diff of two versions).
const express = require('express');
const ui = require('../lib/ui');
const { badRequest } = require('../shared/errors');
const v = require('./views');

function num(x, what) {
  if (!/^\d{1,19}$/.test(String(x))) throw badRequest(`The ${what} must be a number.`);
  return String(x);
}

module.exports = function playbackRoutes({ playback }) {
  const r = express.Router();
  // every address below names an assignment: opened only if the staff member may grade it
  r.param('aid', (req, res, next, aid) => {
    Promise.resolve().then(() => playback.open({ uid: req.session.uid, role: req.session.role }, num(aid, 'assignment')))
      .then(() => next(), next);
  });
  r.get('/:aid', async (req, res) => {
    const a = await playback.assignment(num(req.params.aid, 'assignment'));
    ui.send(res, v.playbackPage(req, { a }));
  });
  r.get('/:aid/timeline', async (req, res) => {
    const aid = num(req.params.aid, 'assignment');
    res.set('Cache-Control', 'no-store').json(await playback.timeline(aid, { after: req.query.after, limit: req.query.limit }));
  });
  r.get('/:aid/code/:codeId', async (req, res) => {
    const c = await playback.code(num(req.params.aid, 'assignment'), num(req.params.codeId, 'version'));
    res.set('Cache-Control', 'no-store').json({ id: String(c.id), t: c.save_time.toISOString(), trigger: c.save_trigger, code: c.code });
  });
  r.get('/:aid/diff', async (req, res) => {
    const aid = num(req.params.aid, 'assignment');
    res.set('Cache-Control', 'no-store').json(await playback.diff(aid, num(req.query.from, 'first version'), num(req.query.to, 'second version')));
  });
  return r;
};
