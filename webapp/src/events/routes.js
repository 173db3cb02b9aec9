'use strict';
// Events: HTTP only. Mounted behind requireRole('instructor', 'admin').
const express = require('express');
const { HttpError, wantsJson } = require('../shared/errors');
const { toId } = require('../lib/form');
const ui = require('../lib/ui');
const v = require('./views');

module.exports = function eventsRoutes({ db, events, exam, pauses, accommodations }) {
  const r = express.Router();
  const eid = (req) => { const id = toId(req.params.id); if (!id) throw new HttpError(404, 'No such event.'); return id; };

  async function show(req, res, id, extra = {}, status = 200) {
    const [d, options, grading, ongoing, log] = await Promise.all([events.detail(id), events.formOptions(), exam.gradingState(id),
      pauses.ongoing(id), pauses.timingLog(id, 20)]);
    ui.send(res, v.eventPage(req, { d, options, grading, timing: { pauses: ongoing, log }, ...extra }), status);
  }

  // POST → service → redirect with a message; a 400 shows the form again with
  // what was typed, a 409 (rule refused) shows the page with the reason.
  function action(path, fn, { form, message }) {
    r.post(path, async (req, res) => {
      const id = eid(req);
      let out;
      try { out = await fn(id, req); } catch (err) {
        if (!(err instanceof HttpError) || wantsJson(req) || err.status >= 500 || err.status === 404) throw err;
        if (err.status === 400 && form) return show(req, res, id, { forms: { [form]: ui.failed(err, req.body) } }, 400);
        return show(req, res, id, { error: err.message }, err.status);
      }
      if (wantsJson(req)) return res.json({ ok: true, ...(out && typeof out === 'object' ? out : {}) });
      return res.redirect(303, `/events/${id}?msg=${encodeURIComponent(message(out))}`);
    });
  }

  r.get('/', async (req, res) => ui.send(res, v.listPage(req, { rows: await events.list(), flash: req.query.deleted ? 'Event deleted.' : '' })));
  r.get('/new', (req, res) => ui.send(res, v.newPage(req, {})));
  r.post('/', async (req, res) => {
    let id;
    try { id = await events.create({ uid: req.session.uid }, req.body); } catch (err) {
      if (!(err instanceof HttpError) || err.status !== 400 || wantsJson(req)) throw err;
      return ui.send(res, v.newPage(req, { form: ui.failed(err, req.body) }), 400);
    }
    if (wantsJson(req)) return res.status(201).json({ ok: true, id });
    return res.redirect(303, `/events/${id}?msg=${encodeURIComponent('Event created. Add its questions and schedule sections.')}`);
  });

  // accommodations agreed ahead (every event of the course), before /:id
  r.get('/accommodations', async (req, res) => ui.send(res, v.accommodationsPage(req, { rows: await accommodations.list(), flash: String(req.query.msg || '').slice(0, 300) })));
  r.post('/accommodations', async (req, res) => {
    let out;
    try { out = await accommodations.importCsv(req.session.uid, req.body); } catch (err) {
      if (!(err instanceof HttpError) || err.status !== 400 || wantsJson(req)) throw err;
      return ui.send(res, v.accommodationsPage(req, { rows: await accommodations.list(), form: ui.failed(err, req.body) }), 400);
    }
    if (wantsJson(req)) return res.json({ ok: true, ...out });
    return res.redirect(303, `/events/accommodations?msg=${encodeURIComponent(`${out.imported} row(s) imported.`)}`);
  });

  // flash messages come back in ?msg= (shown escaped; only ever text)
  r.get('/:id', async (req, res) => show(req, res, eid(req), { flash: String(req.query.msg || '').slice(0, 300) }));

  action('/:id', (id, req) => events.update(id, req.body), { form: 'edit', message: () => 'Details saved.' });
  action('/:id/questions', (id, req) => events.addQuestion(id, req.body), {
    form: 'question', message: (o) => `Question added.${o.created ? ` ${o.created} new assignments created.` : ''}`,
  });
  action('/:id/questions/:qid/delete', (id, req) => {
    const qid = toId(req.params.qid); if (!qid) throw new HttpError(404, 'No such question.');
    return events.deleteQuestion(id, qid);
  }, { message: () => 'Question removed.' });
  action('/:id/schedules', (id, req) => events.addSchedule(id, req.body), {
    form: 'schedule', message: (o) => `Schedule added.${o.created ? ` ${o.created} new assignments created.` : ''}`,
  });
  action('/:id/schedules/:sid/delete', (id, req) => {
    const sid = toId(req.params.sid); if (!sid) throw new HttpError(404, 'No such schedule.');
    return events.deleteSchedule(id, sid);
  }, { message: () => 'Schedule deleted.' });
  action('/:id/publish', (id) => events.publish(id), {
    message: (o) => (o.first ? `Published: ${o.created} assignments created.` : `Published again: ${o.created} new assignments (${o.total} in all); nothing duplicated.`),
  });
  action('/:id/unpublish', (id) => events.unpublish(id), { message: (o) => `Unpublished: ${o.deleted} assignments deleted.` });
  // every change to an event's timing is logged with who made it (issue 30)
  const logged = (action, fn, target, detail) => async (id, req) => {
    const out = await fn(id, req);
    await pauses.logTiming(db, id, req.session.uid, action, target(out), detail ? detail(out) : '');
    return out;
  };
  action('/:id/end-section', logged('end_section', (id, req) => events.endSection(id, req.body), (o) => `section ${o.section}`), {
    form: 'extendSection', message: (o) => `Section ${o.section}'s time has ended: open editors close within seconds.`,
  });
  action('/:id/extend-student', logged('extend', (id, req) => events.extendStudent(id, req.body), (o) => `student ${o.username}`, (o) => `+${o.minutes} min`), {
    form: 'extendStudent', message: (o) => `${o.username} has ${o.minutes} more minutes.`,
  });
  action('/:id/extend-section', logged('extend', (id, req) => events.extendSection(id, req.body), (o) => `section ${o.section}`, (o) => `+${o.minutes} min`), {
    form: 'extendSection', message: (o) => `Section ${o.section} has ${o.minutes} more minutes.`,
  });
  action('/:id/pause', (id, req) => pauses.pause(id, req.session.uid, req.body), {
    form: 'pause', message: (o) => `Paused (${o.scope === 'event' ? 'whole event' : `${o.scope} ${o.target}`}): ${o.students} student(s) held; their editors say so within seconds.`,
  });
  action('/:id/resume', (id, req) => pauses.resume(id, req.session.uid, req.body), {
    form: 'resume', message: (o) => `Resumed (${o.what}): ${o.students} student(s); their end times moved by the pause.`,
  });
  action('/:id/start-mode', (id, req) => pauses.setStartMode(id, req.session.uid, req.body), {
    message: (o) => (o.common ? 'Common start: students wait on the exam page until you press Start.' : 'Each section starts by its schedule.'),
  });
  action('/:id/start', (id, req) => pauses.start(id, req.session.uid), { message: () => 'Started: every waiting student\'s first question opens within seconds.' });
  action('/:id/accommodations', (id, req) => accommodations.setApply(id, req.session.uid, req.body), {
    message: (o) => (o.apply ? 'Accommodations apply to this event.' : 'This event opts out of accommodations: every student has the scheduled time.'),
  });
  r.get('/:id/timing-log.csv', async (req, res) => {
    const id = eid(req);
    const body = await pauses.timingLogCsv(id);
    res.set({ 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="event-${id}-timing-log.csv"`, 'Cache-Control': 'no-store' });
    res.send(`\uFEFF${body}`);
  });
  action('/:id/practice', (id) => events.toPractice(id), {
    message: (o) => `${o.problems} problem(s) are now practice problems; ${o.revealed} hidden test case(s) made visible.`,
  });

  action('/:id/grading', (id, req) => exam.setBasis(id, req.body), {
    form: 'grading', message: (o) => (o.basis === 'submission' ? 'Graded: the last submission (the last save at the deadline when none).' : 'Graded: the last save at the deadline.'),
  });
  action('/:id/release', (id) => exam.release(id, true), { message: () => 'Marks released: students now see their scores, marks and feedback.' });
  action('/:id/withdraw', (id) => exam.release(id, false), { message: () => 'Marks withdrawn: students no longer see them.' });

  r.post('/:id/delete', async (req, res) => {
    const id = eid(req);
    try { await events.remove(id); } catch (err) {
      if (!(err instanceof HttpError) || err.status !== 409 || wantsJson(req)) throw err;
      return show(req, res, id, { error: err.message }, 409);
    }
    if (wantsJson(req)) return res.json({ ok: true });
    return res.redirect(303, '/events?deleted=1');
  });

  r.get('/:id/results.csv', async (req, res) => {
    const out = await events.results(eid(req));
    res.set({ 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${out.filename}"`, 'Cache-Control': 'no-store' });
    res.send(`\uFEFF${out.body}`);
  });

  return r;
};
