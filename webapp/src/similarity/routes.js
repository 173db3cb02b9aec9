'use strict';
// HTTP only: start a similarity job, its report, its CSV, one pair side by side.
const express = require('express');
const ui = require('../lib/ui');
const { notFound, badRequest } = require('../shared/errors');
const v = require('./views');

function id(x, what) {
  if (!/^\d{1,9}$/.test(String(x))) throw badRequest(`The ${what} must be a number.`);
  return Number(x);
}

module.exports = function similarityRoutes({ similarity, tools }) {
  const r = express.Router({ mergeParams: true });

  r.post('/', async (req, res) => {
    const eventId = id(req.params.eventId, 'event');
    const jobId = await similarity.request({ eventId, questionId: id(req.body && req.body.question_id, 'question'), userId: req.session.uid });
    res.redirect(303, `/tools/events/${eventId}/similarity/${jobId}`);
  });

  r.get('/:jobId.csv', async (req, res) => {
    const out = await similarity.pairCsv(id(req.params.eventId, 'event'), id(req.params.jobId, 'report'));
    res.set({ 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${out.filename}"`, 'Cache-Control': 'no-store' });
    res.send(`\uFEFF${out.body}`);
  });

  r.get('/:jobId', async (req, res) => {
    const event = await tools.event(id(req.params.eventId, 'event'));
    const job = await similarity.job(event.id, id(req.params.jobId, 'report'));
    const q = await similarity.question(event.id, job.question_id);
    const pairs = job.state === 'done' ? await similarity.pairs(job.id) : [];
    if (req.accepts(['html', 'json']) === 'json') return res.json({ state: job.state, submissions: job.submissions, pairs: pairs.map(({ fragments, ...p }) => p) });
    return ui.send(res, v.reportPage(req, { event, q, job, pairs }));
  });

  r.get('/:jobId/pairs/:rank', async (req, res) => {
    const event = await tools.event(id(req.params.eventId, 'event'));
    const job = await similarity.job(event.id, id(req.params.jobId, 'report'));
    const q = await similarity.question(event.id, job.question_id);
    const [p] = await similarity.pairs(job.id, { withCode: true, rankNo: id(req.params.rank, 'rank') });
    if (!p) throw notFound('This report has no pair with that rank.');
    return ui.send(res, v.pairPage(req, { event, q, job, p }));
  });

  return r;
};
