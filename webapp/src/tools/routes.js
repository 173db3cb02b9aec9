'use strict';
// HTTP only: the exam-tools page of an event.
const express = require('express');
const ui = require('../lib/ui');
const { badRequest } = require('../shared/errors');
const v = require('./views');

function eventId(req) {
  if (!/^\d{1,9}$/.test(req.params.eventId)) throw badRequest('The event must be a number.');
  return Number(req.params.eventId);
}

module.exports = function toolsRoutes(deps) {
  const { tools, similarity } = deps;
  const r = express.Router({ mergeParams: true });
  r.get('/', async (req, res) => {
    const event = await tools.event(eventId(req));
    const [questions, assignments] = await Promise.all([similarity.questions(event.id), tools.assignments(event.id)]);
    const sections = [];
    for (const s of deps.toolSections || []) sections.push(await s(req, event));
    ui.send(res, v.toolsPage(req, { event, questions, assignments, sections }));
  });
  return r;
};
