'use strict';
const express = require('express');
const { requireLogin } = require('../shared/auth');
const { codebookPage } = require('./views');

module.exports = function codebookRoutes({ codebook }) {
  const r = express.Router();
  r.get('/', requireLogin, async (req, res) => {
    const rows = await codebook.forUser(req.session.uid);
    res.set('Cache-Control', 'no-store').type('html').send(String(codebookPage(req, rows)));
  });
  return r;
};
