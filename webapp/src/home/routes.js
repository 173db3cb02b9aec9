'use strict';
const express = require('express');
const { requireLogin } = require('../shared/auth');
const { homePage } = require('./views');

module.exports = function homeRoutes({ home }) {
  const r = express.Router();
  r.get('/', requireLogin, async (req, res) => {
    const data = await home.forUser(req.session);
    res.set('Cache-Control', 'no-store').type('html').send(String(homePage(req, data)));
  });
  return r;
};
