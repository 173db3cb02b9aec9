'use strict';
const express = require('express');
const { requireLogin } = require('../shared/auth');
const { wantsJson } = require('../shared/errors');
const { html } = require('../shared/html');
const { layout } = require('../shared/layout');
const { time, marks } = require('../shared/format');

function page(req, problems) {
  const byCat = new Map();
  for (const p of problems) {
    const c = p.category || 'general';
    if (!byCat.has(c)) byCat.set(c, []);
    byCat.get(c).push(p);
  }
  return layout(req, {
    title: 'Practice',
    active: '/practice',
    body: html`<div class="pagehead"><h1>Practice</h1><p class="muted">Problems from earlier events. Evaluate against the test cases as often as you like; nothing here counts towards your marks.</p></div>
${problems.length ? [...byCat].map(([cat, list]) => html`<section class="card">
  <h2 class="cat">${cat}</h2>
  <table class="list"><tbody>
  ${list.map((p) => html`<tr data-problem-id="${p.id}">
    <td>${p.title}</td>
    <td class="muted small">${p.assignment_id ? (p.latest_save_time ? html`Saved ${time(p.latest_save_time)}` : 'Started') : 'Not started'}${p.score !== null && p.score !== undefined ? html` · score ${marks(p.score)}` : ''}</td>
    <td class="right"><form method="post" action="/practice/${p.id}/open" class="inline">
      <input type="hidden" name="_csrf" value="${req.session.csrf}">
      <button class="btn small ${p.assignment_id ? '' : 'primary'}" type="submit">${p.assignment_id ? 'Continue' : 'Start'}</button>
    </form></td>
  </tr>`)}
  </tbody></table>
</section>`) : html`<p class="empty">No practice problems yet.</p>`}`,
  });
}

module.exports = function practiceRoutes({ practice }) {
  const r = express.Router();
  r.get('/', requireLogin, async (req, res) => {
    const problems = await practice.list(req.session.uid);
    res.set('Cache-Control', 'no-store').type('html').send(String(page(req, problems)));
  });
  r.post('/:problemId/open', requireLogin, async (req, res) => {
    const id = await practice.open(req.session.uid, req.params.problemId);
    if (wantsJson(req)) return res.json({ ok: true, assignment_id: id, url: `/editor/${id}` });
    return res.redirect(303, `/editor/${id}`);
  });
  return r;
};
