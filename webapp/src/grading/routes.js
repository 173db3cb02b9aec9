'use strict';
// Grading: HTTP only. Two routers: the staff one (TA, instructor, admin) and the
// students' own marks and regrade requests (/grading/mine).
const express = require('express');
const { HttpError, wantsJson } = require('../shared/errors');
const { requireRole } = require('../shared/auth');
const { toId } = require('../lib/form');
const ui = require('../lib/ui');
const v = require('./views');

function studentRoutes({ grading }) {
  const r = express.Router();
  r.use(requireRole('student'));
  r.get('/', async (req, res) => ui.send(res, v.myMarksPage(req, { rows: await grading.myMarks(req.session.uid), flash: req.query.sent ? 'Your regrade request was sent.' : '' })));
  r.post('/:aid/regrade', async (req, res) => {
    const aid = toId(req.params.aid);
    if (!aid) throw new HttpError(404, 'No such assignment.');
    try { await grading.requestRegrade(req.session.uid, aid, req.body); } catch (err) {
      if (!(err instanceof HttpError) || wantsJson(req) || (err.status !== 400 && err.status !== 409)) throw err;
      const rows = await grading.myMarks(req.session.uid);
      if (err.status === 400) return ui.send(res, v.myMarksPage(req, { rows, forms: { [aid]: ui.failed(err, req.body) } }), 400);
      return ui.send(res, v.myMarksPage(req, { rows, error: err.message }), 409);
    }
    if (wantsJson(req)) return res.status(201).json({ ok: true });
    return res.redirect(303, `/grading/mine?sent=1#m-${aid}`);
  });
  return r;
}

function staffRoutes({ grading, regrade }) {
  const r = express.Router();
  const actor = (req) => ({ uid: req.session.uid, role: req.session.role });
  const managers = requireRole('instructor', 'admin');

  r.get('/', async (req, res) => {
    const a = actor(req);
    const [queue, events, open] = await Promise.all([
      a.role === 'ta' ? grading.myQueue(a.uid) : null,
      grading.eventsOverview(),
      grading.regrades({ status: 'open', actor: a }),
    ]);
    ui.send(res, v.queuePage(req, { queue, events, openRegrades: open.length, flash: req.query.done ? 'Saved.' : '' }));
  });

  async function showEvent(req, res, id, extra = {}, status = 200) {
    const [data, tas] = await Promise.all([grading.eventSubmissions(id), grading.tas()]);
    ui.send(res, v.eventPage(req, { data, tas, ...extra }), status);
  }
  r.get('/events/:id', async (req, res) => {
    const id = toId(req.params.id); if (!id) throw new HttpError(404, 'No such event.');
    await showEvent(req, res, id, { flash: String(req.query.msg || '').slice(0, 200) });
  });
  r.post('/events/:id/distribute', managers, async (req, res) => {
    const id = toId(req.params.id); if (!id) throw new HttpError(404, 'No such event.');
    let out;
    try { out = await grading.distribute(id, req.body); } catch (err) {
      if (!(err instanceof HttpError) || err.status !== 400 || wantsJson(req)) throw err;
      return showEvent(req, res, id, { form: ui.failed(err, req.body) }, 400);
    }
    if (wantsJson(req)) return res.json({ ok: true, ...out });
    return res.redirect(303, `/grading/events/${id}?msg=${encodeURIComponent(`${out.assigned} submission(s) distributed among ${out.tas} TA(s).`)}`);
  });
  // Regrading the event's automatic marks: computed first and shown, then applied (grading/regrade.js).
  r.post('/events/:id/regrade', managers, async (req, res) => {
    const id = toId(req.params.id); if (!id) throw new HttpError(404, 'No such event.');
    let runId;
    try { runId = await regrade.preview(req, id); } catch (err) {
      if (!(err instanceof HttpError) || wantsJson(req) || err.status === 404) throw err;
      return showEvent(req, res, id, { error: err.message }, err.status);
    }
    if (wantsJson(req)) return res.status(201).json({ ok: true, run_id: runId, ...(await regrade.get(id, runId)) });
    return res.redirect(303, `/grading/events/${id}/regrade/${runId}`);
  });
  r.get('/events/:id/regrade/:run', managers, async (req, res) => {
    const id = toId(req.params.id); const run = toId(req.params.run);
    if (!id || !run) throw new HttpError(404, 'No such regrade of this event.');
    ui.send(res, v.regradePage(req, await regrade.get(id, run)));
  });
  r.post('/events/:id/regrade/:run/apply', managers, async (req, res) => {
    const id = toId(req.params.id); const run = toId(req.params.run);
    if (!id || !run) throw new HttpError(404, 'No such regrade of this event.');
    const out = await regrade.apply(id, run);
    if (wantsJson(req)) return res.json({ ok: true, ...out });
    return res.redirect(303, `/grading/events/${id}?msg=${encodeURIComponent(`Regrade applied: ${out.applied} automatic mark(s) written${out.skipped ? `, ${out.skipped} skipped (their graded code changed since the preview: the grader grades it)` : ''}.`)}`);
  });
  r.post('/assign', managers, async (req, res) => {
    const out = await grading.assign(req.body);
    if (wantsJson(req)) return res.json({ ok: true, ta: out.ta });
    return res.redirect(303, `/grading/events/${out.eventId}?msg=${encodeURIComponent(out.ta ? `Given to ${out.ta}.` : 'Removed from the TA queue.')}`);
  });

  r.get('/a/:aid', async (req, res) => {
    const aid = toId(req.params.aid); if (!aid) throw new HttpError(404, 'No such assignment.');
    const a = await grading.assignment(aid);
    ui.send(res, v.gradePage(req, { a, mayGrade: grading.mayGrade(actor(req), a), flash: req.query.saved ? 'Marks saved; the student sees them in the codebook.' : '' }));
  });
  r.post('/a/:aid', async (req, res) => {
    const aid = toId(req.params.aid); if (!aid) throw new HttpError(404, 'No such assignment.');
    let a;
    try { a = await grading.saveGrade(actor(req), aid, req.body); } catch (err) {
      if (!(err instanceof HttpError) || err.status !== 400 || wantsJson(req)) throw err;
      const cur = await grading.assignment(aid);
      return ui.send(res, v.gradePage(req, { a: cur, mayGrade: true, form: ui.failed(err, req.body) }), 400);
    }
    if (wantsJson(req)) return res.json({ ok: true });
    if (req.body.then === 'next') {
      const nextId = await grading.next(actor(req), a.event_id);
      if (nextId) return res.redirect(303, `/grading/a/${nextId}?saved=1`);
      return res.redirect(303, req.session.role === 'ta' ? '/grading?done=1' : `/grading/events/${a.event_id}?msg=${encodeURIComponent('Saved. Nothing left to grade in this event.')}`);
    }
    return res.redirect(303, `/grading/a/${aid}?saved=1`);
  });

  r.get('/regrades', async (req, res) => {
    const status = req.query.status === 'all' ? 'all' : 'open';
    const rows = await grading.regrades({ status, actor: actor(req) });
    ui.send(res, v.regradesPage(req, { rows, status, flash: req.query.done ? 'Request resolved; the student sees the answer.' : '' }));
  });
  r.post('/regrades/:id', async (req, res) => {
    const id = toId(req.params.id); if (!id) throw new HttpError(404, 'No such regrade request.');
    try { await grading.resolve(actor(req), id, req.body); } catch (err) {
      if (!(err instanceof HttpError) || wantsJson(req) || ![400, 409].includes(err.status)) throw err;
      const rows = await grading.regrades({ status: 'open', actor: actor(req) });
      if (err.status === 400) return ui.send(res, v.regradesPage(req, { rows, status: 'open', forms: { [id]: ui.failed(err, req.body) } }), 400);
      return ui.send(res, v.regradesPage(req, { rows, status: 'open', error: err.message }), 409);
    }
    if (wantsJson(req)) return res.json({ ok: true });
    return res.redirect(303, '/grading/regrades?done=1');
  });
  return r;
}

// One router for /grading: /mine for students, the rest for staff.
module.exports = function gradingRoutes(deps) {
  const r = express.Router();
  r.use('/mine', studentRoutes(deps));
  r.use(requireRole('ta', 'instructor', 'admin'), staffRoutes(deps));
  return r;
};
