'use strict';
const express = require('express');
const { requireLogin } = require('../shared/auth');
const { wantsJson } = require('../shared/errors');
const { html } = require('../shared/html');
const { layout } = require('../shared/layout');
const { time } = require('../shared/format');

function page(req, files) {
  return layout(req, {
    title: 'Scratchpad',
    active: '/scratchpad',
    body: html`<div class="pagehead"><h1>Scratchpad</h1><p class="muted">Free files to try ideas: write C, compile and run it. Nothing here is graded.</p></div>
<form method="post" action="/scratchpad" class="card inlineform">
  <input type="hidden" name="_csrf" value="${req.session.csrf}">
  <label for="title" class="sr-only">File name</label>
  <input id="title" name="title" maxlength="200" placeholder="Name of the new file, e.g. pointers.c">
  <button class="btn primary" type="submit" id="new-file">New file</button>
</form>
${files.length ? html`<table class="list card">
  <thead><tr><th>File</th><th>Last saved</th><th></th></tr></thead>
  <tbody>${files.map((f) => html`<tr><td><a href="/editor/${f.assignment_id}">${f.title}</a></td><td class="muted">${f.latest_save_time ? time(f.latest_save_time) : 'never'}</td><td class="right"><a class="btn small" href="/editor/${f.assignment_id}">Open</a></td></tr>`)}</tbody>
</table>` : html`<p class="empty">No files yet.</p>`}`,
  });
}

module.exports = function scratchpadRoutes({ scratchpad }) {
  const r = express.Router();
  r.get('/', requireLogin, async (req, res) => {
    const files = await scratchpad.list(req.session.uid);
    res.set('Cache-Control', 'no-store').type('html').send(String(page(req, files)));
  });
  r.post('/', requireLogin, async (req, res) => {
    const id = await scratchpad.create(req.session.uid, (req.body || {}).title);
    if (wantsJson(req)) return res.status(201).json({ ok: true, assignment_id: id, url: `/editor/${id}` });
    return res.redirect(303, `/editor/${id}`);
  });
  return r;
};
