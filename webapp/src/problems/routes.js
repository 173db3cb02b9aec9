'use strict';
// Problems: HTTP only. Mounted behind requireRole('instructor', 'admin').
const express = require('express');
const { HttpError, wantsJson } = require('../shared/errors');
const { toId } = require('../lib/form');
const ui = require('../lib/ui');
const v = require('./views');
const { exportZip } = require('./kattis');

const FLASH = { created: 'Problem created. Now add its test cases.', saved: 'Problem saved.', deleted: 'Problem deleted.', archived: 'Problem archived: hidden from the lists and from new events.', unarchived: 'Problem restored from the archive.', test_added: 'Test case added.', test_saved: 'Test case saved.', test_deleted: 'Test case deleted.', imported: 'Problem imported from a Kattis package: check it against its reference solution.' };

module.exports = function problemsRoutes({ problems }) {
  const r = express.Router();
  const envs = problems.environments;
  const pid = (req) => { const id = toId(req.params.id); if (!id) throw new HttpError(404, 'No such problem.'); return id; };
  const is400 = (err, req) => err instanceof HttpError && err.status === 400 && !wantsJson(req);

  async function showProblem(req, res, id, extra = {}, status = 200) {
    const [p, tests] = await Promise.all([problems.get(id), problems.tests(id)]);
    ui.send(res, v.problemPage(req, { p, tests, envs, ...extra }), status);
  }

  r.get('/', async (req, res) => {
    const archived = req.query.archived === '1';
    ui.send(res, v.listPage(req, { rows: await problems.list({ archived }), archived, flash: FLASH[req.query.done] }));
  });
  r.post('/preview', (req, res) => res.json(problems.preview(req.body)));
  r.get('/new', (req, res) => ui.send(res, v.newPage(req, { envs })));
  // A Kattis problem package, the zip itself as the body (staff.js sends it from the
  // page's file input); the answer says what was only approximated.
  r.get('/import', (req, res) => ui.send(res, v.importPage(req)));
  r.post('/import', express.raw({ type: ['application/zip', 'application/octet-stream', 'application/xml', 'text/xml'], limit: '16mb' }), async (req, res) => {
    if (!Buffer.isBuffer(req.body) || !req.body.length) throw new HttpError(400, 'Send a Kattis package (application/zip) or Moodle question XML (application/xml).');
    if (/xml/.test(req.get('content-type') || '')) {
      const out = await problems.importCodeRunner({ uid: req.session.uid }, req.body.toString('utf8'));
      return res.status(out.problems.length ? 201 : 400).json({ ok: out.problems.length > 0, ...out,
        ...(out.problems.length ? {} : { error: 'No question of the file could be imported: see the reasons per question.' }) });
    }
    const out = await problems.importPackage({ uid: req.session.uid }, req.body);
    res.status(201).json({ ok: true, id: out.id, tests: out.tests, warnings: out.warnings, url: `/problems/${out.id}` });
  });
  r.post('/', async (req, res) => {
    let id;
    try { id = await problems.create({ uid: req.session.uid }, req.body); } catch (err) {
      if (!is400(err, req)) throw err;
      return ui.send(res, v.newPage(req, { envs, form: ui.failed(err, req.body) }), 400);
    }
    if (wantsJson(req)) return res.status(201).json({ ok: true, id });
    return res.redirect(303, `/problems/${id}?done=created`);
  });

  // The problem as a Kattis problem package (problems/kattis.js); a 409 says what cannot travel.
  r.get('/:id/kattis.zip', async (req, res) => {
    const id = pid(req);
    const [p, tests] = await Promise.all([problems.get(id), problems.tests(id)]);
    const { name, zip } = exportZip(p, tests);
    res.set('Content-Type', 'application/zip');
    res.set('Content-Disposition', `attachment; filename="${name}.zip"`);
    res.send(zip);
  });

  r.get('/:id', async (req, res) => showProblem(req, res, pid(req), { flash: FLASH[req.query.done], editId: Number(req.query.edit) || null }));
  r.post('/:id', async (req, res) => {
    const id = pid(req);
    try { await problems.update(id, req.body); } catch (err) {
      if (!is400(err, req)) throw err;
      return showProblem(req, res, id, { form: ui.failed(err, req.body) }, 400);
    }
    if (wantsJson(req)) return res.json({ ok: true });
    return res.redirect(303, `/problems/${id}?done=saved`);
  });

  // delete / archive: refused with the reason (409, shown on the page) while an event uses the problem
  const lifecycle = (path, fn, done) => r.post(path, async (req, res) => {
    const id = pid(req);
    try { await fn(id); } catch (err) {
      if (!(err instanceof HttpError) || err.status !== 409 || wantsJson(req)) throw err;
      return showProblem(req, res, id, { error: err.message }, 409);
    }
    if (wantsJson(req)) return res.json({ ok: true });
    return res.redirect(303, done === 'deleted' ? '/problems?done=deleted' : `/problems/${id}?done=${done}`);
  });
  lifecycle('/:id/delete', (id) => problems.remove(id), 'deleted');
  lifecycle('/:id/archive', (id) => problems.archive(id, true), 'archived');
  lifecycle('/:id/unarchive', (id) => problems.archive(id, false), 'unarchived');

  r.post('/:id/tests', async (req, res) => {
    const id = pid(req);
    let tid;
    try { tid = await problems.addTest(id, req.body); } catch (err) {
      if (!is400(err, req)) throw err;
      return showProblem(req, res, id, { testForm: ui.failed(err, req.body) }, 400);
    }
    if (wantsJson(req)) return res.status(201).json({ ok: true, id: tid });
    return res.redirect(303, `/problems/${id}?done=test_added#tests`);
  });
  r.post('/:id/tests/:tid', async (req, res) => {
    const id = pid(req);
    const tid = toId(req.params.tid);
    if (!tid) throw new HttpError(404, 'No such test case.');
    try { await problems.updateTest(id, tid, req.body); } catch (err) {
      if (!is400(err, req)) throw err;
      return showProblem(req, res, id, { testForm: { ...ui.failed(err, req.body), testId: tid } }, 400);
    }
    if (wantsJson(req)) return res.json({ ok: true });
    return res.redirect(303, `/problems/${id}?done=test_saved#tc-${tid}`);
  });
  r.post('/:id/tests/:tid/delete', async (req, res) => {
    const id = pid(req);
    const tid = toId(req.params.tid);
    if (!tid) throw new HttpError(404, 'No such test case.');
    await problems.deleteTest(id, tid);
    if (wantsJson(req)) return res.json({ ok: true });
    return res.redirect(303, `/problems/${id}?done=test_deleted#tests`);
  });

  r.post('/:id/check', async (req, res) => {
    const id = pid(req);
    let check;
    try { check = await problems.check(id, req); } catch (err) {
      if (!(err instanceof HttpError) || wantsJson(req)) throw err;
      return showProblem(req, res, id, { check: { error: err.message } }, err.status);
    }
    if (wantsJson(req)) return res.json(check);
    return showProblem(req, res, id, { check });
  });

  return r;
};
