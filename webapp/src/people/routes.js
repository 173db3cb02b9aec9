'use strict';
// People: HTTP only. Mounted behind requireRole('instructor', 'admin').
const express = require('express');
const { HttpError, wantsJson } = require('../shared/errors');
const { toId } = require('../lib/form');
const ui = require('../lib/ui');
const v = require('./views');

const FLASH = { created: 'Section added.', saved: 'Account saved.', deactivated: 'Account deactivated: it can no longer sign in.', activated: 'Account reactivated.' };

module.exports = function peopleRoutes({ people }) {
  const r = express.Router();
  const actor = (req) => ({ uid: req.session.uid, role: req.session.role });

  // A 400 re-renders the form with the messages and what was typed.
  const formFail = (render) => (err, req, res) => {
    if (!(err instanceof HttpError) || err.status !== 400 || wantsJson(req)) throw err;
    return render(ui.failed(err, req.body));
  };

  r.get('/', async (req, res) => {
    const filters = { q: String(req.query.q || ''), section: String(req.query.section || ''), role: String(req.query.role || ''), status: String(req.query.status || '') };
    const [{ rows, truncated }, sections] = await Promise.all([people.list(filters), people.sections()]);
    ui.send(res, v.listPage(req, { rows, truncated, sections, filters, flash: FLASH[req.query.done] }));
  });

  r.get('/sections', async (req, res) => {
    ui.send(res, v.sectionsPage(req, { sections: await people.sections(), flash: FLASH[req.query.done] }));
  });
  r.post('/sections', async (req, res) => {
    try {
      await people.createSection(req.body);
    } catch (err) {
      return formFail(async (form) => ui.send(res, v.sectionsPage(req, { sections: await people.sections(), form }), 400))(err, req, res);
    }
    if (wantsJson(req)) return res.json({ ok: true });
    return res.redirect(303, '/people/sections?done=created');
  });

  r.get('/new', async (req, res) => ui.send(res, v.newPage(req, { sections: await people.sections() })));
  r.post('/', async (req, res) => {
    let created;
    try {
      created = await people.create(actor(req), req.body);
    } catch (err) {
      return formFail(async (form) => ui.send(res, v.newPage(req, { sections: await people.sections(), form }), 400))(err, req, res);
    }
    if (wantsJson(req)) return res.json({ ok: true, id: created.id, password: created.password });
    return ui.send(res, v.createdPage(req, { created }), 201);
  });

  r.get('/import', (req, res) => ui.send(res, v.importPage(req, {})));
  r.post('/import', async (req, res) => {
    let result;
    try {
      result = await people.importCsv(actor(req), req.body);
    } catch (err) {
      return formFail((form) => ui.send(res, v.importPage(req, { form }), 400))(err, req, res);
    }
    if (wantsJson(req)) return res.json(result);
    return ui.send(res, v.reportPage(req, { result }));
  });

  const userId = (req) => {
    const id = toId(req.params.id);
    if (!id) throw new HttpError(404, 'No such account.');
    return id;
  };

  r.get('/:id', async (req, res) => {
    const id = userId(req);
    const [user, sections] = await Promise.all([people.get(id), people.sections()]);
    ui.send(res, v.editPage(req, { user, sections, flash: FLASH[req.query.done] }));
  });
  r.post('/:id', async (req, res) => {
    const id = userId(req);
    try {
      await people.update(actor(req), id, req.body);
    } catch (err) {
      return formFail(async (form) => {
        const [user, sections] = await Promise.all([people.get(id), people.sections()]);
        ui.send(res, v.editPage(req, { user, sections, form }), 400);
      })(err, req, res);
    }
    if (wantsJson(req)) return res.json({ ok: true });
    return res.redirect(303, `/people/${id}?done=saved`);
  });
  r.post('/:id/password', async (req, res) => {
    const id = userId(req);
    let out;
    try {
      out = await people.resetPassword(actor(req), id, req.body);
    } catch (err) {
      return formFail(async (form) => {
        const [user, sections] = await Promise.all([people.get(id), people.sections()]);
        ui.send(res, v.editPage(req, { user, sections, form }), 400);
      })(err, req, res);
    }
    if (wantsJson(req)) return res.json({ ok: true, password: out.password });
    const [user, sections] = await Promise.all([people.get(id), people.sections()]);
    return ui.send(res, v.editPage(req, { user, sections, password: out.password, flash: out.password ? '' : 'Password changed.' }));
  });
  r.post('/:id/deactivate', async (req, res) => {
    const id = userId(req);
    await people.setActive(actor(req), id, false);
    if (wantsJson(req)) return res.json({ ok: true });
    return res.redirect(303, `/people/${id}?done=deactivated`);
  });
  r.post('/:id/activate', async (req, res) => {
    const id = userId(req);
    await people.setActive(actor(req), id, true);
    if (wantsJson(req)) return res.json({ ok: true });
    return res.redirect(303, `/people/${id}?done=activated`);
  });

  return r;
};
