'use strict';
// The student's exam page, before, during and after the event: rules
// (the event's description), window, what is graded, the questions; once the
// event has closed for the student it is the end summary.
const express = require('express');
const { requireLogin } = require('../shared/auth');
const { notFound } = require('../shared/errors');
const { examPage } = require('./views');

module.exports = function examRoutes({ exam }) {
  const r = express.Router();
  r.get('/:eventId', requireLogin, async (req, res) => {
    const id = String(req.params.eventId);
    if (!/^[1-9]\d{0,9}$/.test(id)) throw notFound('No such event.');
    const x = await exam.forStudent(req.session.uid, Number(id));
    res.set('Cache-Control', 'no-store').type('html').send(String(examPage(req, x)));
  });
  return r;
};
