'use strict';
// The exam-tools page of an event: similarity per question, playback per student.
// (Lock-down and announcements add their sections here.)
const { html } = require('../shared/html');
const ui = require('../lib/ui');
const { staffAsset } = require('../lib/assets');

function toolsPage(req, { event, questions, assignments, sections = [] }) {
  return ui.page(req, {
    title: `Exam tools · ${event.title}`,
    active: '/events',
    body: html`<link rel="stylesheet" href="${staffAsset('tools.css')}">
${ui.crumbs([{ href: '/events', label: 'Events' }, { href: `/events/${event.id}`, label: event.title }, { label: 'Exam tools' }])}
<div class="pagehead"><div><h1>Exam tools: ${event.title}</h1></div></div>
<section class="card" id="similarity"><h2>Similarity</h2>
<p class="muted">Compares every student's submission (or latest save) per question with Dolos, in a separate low-priority process.</p>
<table class="list compact"><thead><tr><th>Question</th><th>Problem</th><th>Last report</th><th></th></tr></thead><tbody>
${questions.map((q) => html`<tr><td>${q.position}${q.section_code ? ` (${q.section_code})` : ''}</td><td>${q.problem_title}</td>
<td>${q.last_job ? html`<a href="/tools/events/${event.id}/similarity/${q.last_job}">report ${q.last_job}</a>` : html`<span class="muted">none</span>`}</td>
<td>${ui.actionForm(req, `/tools/events/${event.id}/similarity`, 'Run similarity', { hidden: { question_id: q.id }, id: `similarity-run-${q.id}` })}</td></tr>`)}
</tbody></table></section>
${sections}
<section class="card" id="playback"><h2>Playback</h2>
${assignments.length ? html`<table class="list compact"><thead><tr><th>Student</th><th>Question</th><th class="num">Versions</th><th></th></tr></thead><tbody>
${assignments.map((a) => html`<tr><td>${a.username} <span class="muted">${a.name}</span></td><td>${a.position}</td><td class="num">${a.versions}</td>
<td><a href="/tools/playback/${a.id}" id="playback-${a.id}">playback</a></td></tr>`)}</tbody></table>` : html`<p class="empty">Not published yet: no assignments.</p>`}
</section>`,
  });
}

module.exports = { toolsPage };
