'use strict';
const { html } = require('../shared/html');
const { layout } = require('../shared/layout');
const { time, iso, duration, marks } = require('../shared/format');
const { renderMarkdown } = require('../shared/markdown');

const TYPE = { lab: 'Lab', quiz: 'Quiz', exam: 'Exam' };
const BASIS = {
  submission: 'Your last submission is graded. If you never press Submit, your last saved code at the deadline is submitted for you.',
  last_save: 'Your last saved code at the deadline is graded, whether you pressed Submit or not.',
};

function status(q, closed) {
  if (q.submittedAt) return html`<span class="pill ok">${q.automatic ? 'Submitted automatically' : 'Submitted'}</span> <span class="muted small">${time(q.submittedAt)}</span>`;
  if (q.savedAt) return html`<span class="pill warn">${closed ? 'Saved, not submitted' : 'Saved'}</span> <span class="muted small">${time(q.savedAt)}</span>`;
  return html`<span class="pill">${closed ? 'Nothing saved' : 'Not started'}</span>`;
}

// Start page (rules, window, questions) while the event is upcoming or open;
// the end summary once it has closed for this student.
function examPage(req, x) {
  const { event: e, questions } = x;
  const closed = x.state === 'closed';
  const minutes = Math.round((x.stop - x.start) / 60000);
  const submitted = questions.filter((q) => q.submittedAt).length;
  return layout(req, {
    title: closed ? `${e.title}: summary` : e.title,
    active: '/home',
    body: html`<div class="pagehead">
  <p class="muted small"><a href="/home">Home</a> / ${TYPE[e.type] || e.type}</p>
  <h1 id="exam-title">${e.title}${closed ? ': summary' : ''}</h1>
  <p class="muted">${x.state === 'waiting' ? html`Planned start ${time(x.start)} (the invigilator starts it) · ` : ''}${x.state === 'upcoming' ? html`Opens ${time(x.start)} · ` : ''}${closed ? html`Closed ${time(x.stop)}` : html`Closes ${time(x.stop)}`} · ${minutes >= 60 ? duration(minutes * 60000) : `${minutes} minutes`} in all · ${questions.length} question${questions.length === 1 ? '' : 's'}</p>
</div>
<div class="exam-grid">
<section class="card" aria-labelledby="h-rules">
  <h2 id="h-rules">${closed ? 'What happens now' : 'Before you start'}</h2>
  ${e.description ? html`<div class="statement" id="exam-rules">${renderMarkdown(e.description)}</div>` : ''}
  <ul class="rules">
    <li>${BASIS[e.basis] || BASIS.submission}</li>
    ${closed ? html`<li id="release-note">${e.released ? html`Marks are released: see <a href="/grading/mine">Marks</a>.` : 'Marks appear under Marks once your instructor releases them.'}</li>`
    : html`<li>Your code is saved automatically every few seconds and before the deadline; Ctrl+S saves, Ctrl+Enter runs.</li>
    <li>The deadline is the server's: if your time is extended, the editor's countdown follows without a reload.</li>
    <li>You can submit again until the deadline; the latest submission counts.</li>`}
  </ul>
  ${x.state === 'waiting' && questions[0] ? html`<div class="waiting card" id="exam-waiting" role="status" data-wait-event="${e.id}" data-wait-version="${x.timingVersion}" data-wait-assignment="${questions[0].id}">
    <p><strong>Waiting for the invigilator to start the exam.</strong> Stay on this page: your first question opens by itself, with the same end time for everyone.</p>
    <p class="bigclock">Now <strong data-clock data-now="${iso(x.now)}">${time(x.now)}</strong></p>
  </div>` : ''}
  ${!closed && x.state !== 'waiting' ? html`<div class="timeleft big" data-countdown="${iso(x.state === 'upcoming' ? x.start : x.stop)}" data-now="${iso(x.now)}"><span class="label">${x.state === 'upcoming' ? 'Starts in' : 'Time left'}</span><strong>${duration((x.state === 'upcoming' ? x.start : x.stop) - x.now)}</strong></div>` : ''}
</section>
<section class="card" aria-labelledby="h-questions">
  <h2 id="h-questions">Questions <span class="muted small">· ${submitted} of ${questions.length} submitted</span></h2>
  <div class="tablewrap"><table class="list" id="exam-questions">
    <thead><tr><th>#</th><th>Question</th><th class="num">Out of</th><th>Status</th>${e.released ? html`<th class="num">Score</th>` : ''}</tr></thead>
    <tbody>${questions.map((q) => html`<tr>
      <td class="muted">Q${q.position}</td>
      <td>${x.state === 'upcoming' || x.state === 'waiting' ? q.title : html`<a href="/editor/${q.id}">${q.title}</a>`}</td>
      <td class="num">${marks(q.maxMarks)}</td>
      <td>${status(q, closed)}</td>
      ${e.released ? html`<td class="num">${q.score !== null ? marks(q.score) : '—'}</td>` : ''}
    </tr>`)}</tbody>
  </table></div>
  ${x.state === 'open' && questions[0] ? html`<p><a class="btn primary" id="exam-start" href="/editor/${questions[0].id}">${submitted || questions.some((q) => q.savedAt) ? 'Continue' : 'Start'} with Q${questions[0].position}</a></p>` : ''}
</section>
</div>`,
  });
}

module.exports = { examPage };
