'use strict';
const { html } = require('../shared/html');
const { time } = require('../shared/format');
const ui = require('../lib/ui');

function fmt(d) { return d ? time(d) : '—'; }

function livePage(req, { snap, everyMs, windowH }) {
  const { event: e, students, totals } = snap;
  const staffEvent = req.session.role === 'ta' ? '/grading' : `/events/${e.id}`;
  return ui.page(req, {
    title: `Live: ${e.title}`,
    active: req.session.role === 'ta' ? '/grading' : '/events',
    body: html`${ui.crumbs([{ href: req.session.role === 'ta' ? '/grading' : '/events', label: req.session.role === 'ta' ? 'Grading' : 'Events' }, { href: staffEvent, label: e.title }, { label: 'Live' }])}
<div class="pagehead"><div><h1>Live: ${e.title} <span class="tag tag-${e.type}">${e.type}</span></h1>
<p class="muted"><span class="live-dot" id="live-dot"></span><span id="live-stamp">updating every ${Math.round(everyMs / 1000)} s</span> · ${time(e.first_start)} – ${time(e.last_stop)}${e.published_at ? '' : ' · not published'}</p></div>
<div class="actions">${req.session.role !== 'ta' ? html`<a class="btn" href="/events/${e.id}#extend">Extend time</a> <a class="btn" href="/events/${e.id}/results.csv">Results CSV</a>` : ''}</div></div>
<div data-live-url="/live/${e.id}/data" data-live-every="${everyMs}">
<div class="stats">
  <div class="stat"><span>Students</span><strong id="tot-students">${totals.students}</strong></div>
  <div class="stat"><span>Signed in</span><strong id="tot-logged_in">${totals.logged_in}</strong></div>
  <div class="stat"><span>Saved code</span><strong id="tot-saved">${totals.saved}</strong></div>
  <div class="stat"><span>Submitted any</span><strong id="tot-submitted_any">${totals.submitted_any}</strong></div>
  <div class="stat"><span>Submitted all</span><strong id="tot-submitted_all">${totals.submitted_all}</strong></div>
</div>
<p class="muted small">Signed in: since ${windowH} h before the first start. Last activity: the latest save, compile, run, evaluation or submission. Score: the automatic evaluation so far (sum over questions).</p>
${students.length ? html`<div class="card tablewrap"><table class="list compact" id="live-table">
<thead><tr><th>Student</th><th>Name</th><th>Section</th><th>Last sign-in</th><th>Last activity</th><th class="num">Saved</th><th class="num">Submitted</th><th class="num">Score</th><th>Extra</th><th>Ends</th></tr></thead>
<tbody>${students.map((s) => html`<tr id="st-${s.user_id}" data-username="${s.username}"><td>${s.username}</td><td>${s.name}</td><td>${s.section || ''}</td>
<td data-f="login">${fmt(s.last_login_at)}</td><td data-f="activity">${fmt(s.last_activity)}</td>
<td class="num"><span data-f="saved">${s.saved}</span>/${s.questions}</td><td class="num"><span data-f="submitted">${s.submitted}</span>/${s.questions}</td>
<td class="num" data-f="score">${s.score === null ? '—' : s.score}</td><td class="small" data-f="extra">${s.extra_minutes ? `+${s.extra_minutes} min` : ''}${s.accommodation_s ? ` (agreed +${Math.round(s.accommodation_s / 60)} min)` : ''}</td>
<td class="small" data-f="ends">${s.paused_since ? html`<span class="pill info">paused</span> ` : ''}${fmt(s.ends)}</td></tr>`)}</tbody>
</table></div>` : html`<p class="empty">No student has an assignment in this event yet (publish it, and schedule sections with students).</p>`}
</div>`,
  });
}

module.exports = { livePage };
