'use strict';
const express = require('express');
const { requireLogin } = require('../shared/auth');
const { editorPage } = require('./views');

module.exports = function editorRoutes({ editor }) {
  const r = express.Router();

  r.get('/:assignmentId', requireLogin, async (req, res) => {
    const a = await editor.open({ userId: req.session.uid, assignmentId: req.params.assignmentId });
    res.set('Cache-Control', 'no-store').type('html').send(String(editorPage(req, a)));
  });

  // The server's word on this assignment's window, polled by the open editor.
  r.get('/:assignmentId/status', requireLogin, async (req, res) => {
    res.set('Cache-Control', 'no-store').json(await editor.status({ userId: req.session.uid, assignmentId: req.params.assignmentId }));
  });

  r.post('/save', requireLogin, async (req, res) => {
    const out = await editor.save({ userId: req.session.uid, ip: req.ip, fields: req.body });
    res.set('Cache-Control', 'no-store').json(out);
  });

  return r;
};
