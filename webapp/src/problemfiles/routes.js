'use strict';
// A problem's support files: HTTP only. Mounted at /problems/:id/files behind
// requireRole('instructor', 'admin').
const express = require('express');
const { HttpError, wantsJson } = require('../shared/errors');
const { toId } = require('../lib/form');
const ui = require('../lib/ui');
const v = require('./views');

const FLASH = { saved: 'Support file saved.', deleted: 'Support file deleted.' };

module.exports = function problemFilesRoutes({ problemFiles }) {
  const r = express.Router({ mergeParams: true });
  const pid = (req) => { const id = toId(req.params.id); if (!id) throw new HttpError(404, 'No such problem.'); return id; };

  async function show(req, res, id, extra = {}, status = 200) {
    ui.send(res, v.filesPage(req, { ...(await problemFiles.list(id)), ...extra }), status);
  }

  r.get('/', async (req, res) => show(req, res, pid(req), { flash: FLASH[req.query.done] }));
  r.post('/', async (req, res) => {
    const id = pid(req);
    try { await problemFiles.put(id, req.body); } catch (err) {
      if (!(err instanceof HttpError) || err.status !== 400 || wantsJson(req)) throw err;
      return show(req, res, id, { form: ui.failed(err, req.body) }, 400);
    }
    if (wantsJson(req)) return res.status(201).json({ ok: true });
    return res.redirect(303, `/problems/${id}/files?done=saved`);
  });
  r.post('/:fid/delete', async (req, res) => {
    const id = pid(req);
    const fid = toId(req.params.fid);
    if (!fid) throw new HttpError(404, 'No such support file.');
    await problemFiles.remove(id, fid);
    if (wantsJson(req)) return res.json({ ok: true });
    return res.redirect(303, `/problems/${id}/files?done=deleted`);
  });
  return r;
};
