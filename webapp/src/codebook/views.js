'use strict';
const { html } = require('../shared/html');
const { layout } = require('../shared/layout');
const { time, marks } = require('../shared/format');

const KIND = { event: 'Event', practice: 'Practice', scratch: 'Scratchpad' };

function codebookPage(req, rows) {
  return layout(req, {
    title: 'Codebook',
    active: '/codebook',
    body: html`<div class="pagehead">
  <h1>Codebook</h1>
  <p class="muted">Everything you have written: event questions, practice problems and scratchpad files, each with its latest saved code and its result.</p>
</div>
${rows.length ? html`<div class="codebook">
${rows.map((r) => html`<details class="card entry" data-assignment-id="${r.assignment_id}">
  <summary>
    <span class="tag tag-${r.kind}">${KIND[r.kind] || r.kind}</span>
    <span class="entry-title"><strong>${r.title || 'Untitled'}</strong>${r.event_title ? html` <span class="muted">· ${r.event_title}</span>` : ''}</span>
    <span class="entry-meta">
      ${r.submitted_at ? html`<span class="pill ok">Submitted ${time(r.submitted_at)}</span>` : (r.kind === 'event' ? html`<span class="pill">Not submitted</span>` : '')}
      ${r.marks !== null && r.marks !== undefined ? html`<span class="pill info">Marks ${marks(r.marks)}</span>` : (r.score !== null && r.score !== undefined ? html`<span class="pill info">Score ${marks(r.score)}</span>` : '')}
      <span class="muted small">${r.latest_save_time ? html`Saved ${time(r.latest_save_time)}` : 'Never saved'}</span>
    </span>
  </summary>
  <div class="entry-body">
    ${r.feedback ? html`<p class="feedback"><strong>Feedback:</strong> ${r.feedback}</p>` : ''}
    ${r.latest_code ? html`<pre class="code">${r.latest_code}</pre>` : html`<p class="muted">No code saved yet.</p>`}
    <p><a class="btn small" href="/editor/${r.assignment_id}">Open in editor</a></p>
  </div>
</details>`)}
</div>` : html`<p class="empty">Nothing yet. Open a question on the home page, a practice problem or a scratchpad file.</p>`}`,
  });
}

module.exports = { codebookPage };
