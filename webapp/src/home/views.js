'use strict';
const { html } = require('../shared/html');
const { layout } = require('../shared/layout');
const { time, iso, duration, marks } = require('../shared/format');
const { renderMarkdown } = require('../shared/markdown');

const TYPE = { lab: 'Lab', quiz: 'Quiz', exam: 'Exam' };

function eventCard(ev, now, ongoing) {
  const submitted = ev.assignments.filter((a) => a.submittedAt).length;
  return html`<article class="card event ${ongoing ? 'is-ongoing' : 'is-upcoming'}" data-event-id="${ev.id}">
  <header class="event-head">
    <div>
      <span class="tag tag-${ev.type}">${TYPE[ev.type] || ev.type}</span>
      <h3><a href="/exam/${ev.id}">${ev.title}</a></h3>
      <p class="muted small">${ongoing ? html`Closes ${time(ev.stop)}` : html`Opens ${time(ev.start)} · closes ${time(ev.stop)}`}</p>
    </div>
    ${ongoing
      ? html`<div class="timeleft" data-countdown="${iso(ev.stop)}" data-now="${iso(now)}"><span class="label">Time left</span><strong>${duration(ev.stop - now)}</strong></div>`
      : html`<div class="timeleft muted"><span class="label">Starts in</span><strong>${duration(ev.start - now)}</strong></div>`}
  </header>
  ${ev.description ? html`<div class="event-desc">${renderMarkdown(ev.description)}</div>` : ''}
  ${ongoing ? html`<div class="tablewrap"><table class="list">
    <thead><tr><th>#</th><th>Question</th><th class="num">Marks</th><th>Status</th><th></th></tr></thead>
    <tbody>
    ${ev.assignments.map((a) => html`<tr data-assignment-id="${a.id}">
      <td class="muted">Q${a.position}</td>
      <td><a href="/editor/${a.id}">${a.title}</a></td>
      <td class="num">${marks(a.maxMarks)}</td>
      <td>${a.submittedAt
        ? html`<span class="pill ok">Submitted</span> <span class="muted small">${time(a.submittedAt)}</span>`
        : html`<span class="pill">Not submitted</span>`}</td>
      <td class="right"><a class="btn small ${a.submittedAt ? '' : 'primary'}" href="/editor/${a.id}">${a.submittedAt ? 'Review' : 'Open'}</a></td>
    </tr>`)}
    </tbody>
  </table></div>
  <p class="muted small">${submitted} of ${ev.assignments.length} submitted.</p>`
    : html`<p class="muted">${ev.assignments.length} question${ev.assignments.length === 1 ? '' : 's'}. The questions appear here when the event opens.</p>`}
</article>`;
}

function homePage(req, { now, ongoing, upcoming, notifications }) {
  const s = req.session;
  return layout(req, {
    title: 'Home',
    active: '/home',
    body: html`<div class="pagehead">
  <h1>Hello, ${s.name}</h1>
  <p class="muted">${s.role === 'student' ? 'Your lab events and questions.' : 'Staff account: events you sit as a student appear here; staff tools are in the menu.'}</p>
</div>
${notifications.length ? html`<section class="notices" aria-label="Notifications">
  ${notifications.map((n) => html`<div class="notice"><span class="notice-icon" aria-hidden="true">i</span><div><p>${n.message}</p><p class="muted small">${time(n.created_at)}</p></div></div>`)}
</section>` : ''}
<section aria-labelledby="h-ongoing">
  <h2 id="h-ongoing">Ongoing</h2>
  ${ongoing.length ? ongoing.map((e) => eventCard(e, now, true)) : html`<p class="empty">No event is open right now.</p>`}
</section>
<section aria-labelledby="h-upcoming">
  <h2 id="h-upcoming">Upcoming</h2>
  ${upcoming.length ? upcoming.map((e) => eventCard(e, now, false)) : html`<p class="empty">Nothing scheduled yet.</p>`}
</section>
<section class="shortcuts">
  <a class="card shortcut" href="/practice"><h3>Practice</h3><p class="muted">Old problems with test cases, evaluate as often as you like.</p></a>
  <a class="card shortcut" href="/scratchpad"><h3>Scratchpad</h3><p class="muted">A free editor to try things: compile and run.</p></a>
  <a class="card shortcut" href="/codebook"><h3>Codebook</h3><p class="muted">Everything you wrote, with results and feedback.</p></a>
</section>`,
  });
}

module.exports = { homePage };
