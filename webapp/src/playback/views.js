'use strict';
// The playback page: a slider over the versions, the diff of two chosen points,
// and the timeline of saves, compiles (with errors), runs and evaluations. The
// data comes page by page from /tools/playback/:aid/timeline (tools-playback.js).
const { html } = require('../shared/html');
const ui = require('../lib/ui');
const { staffAsset } = require('../lib/assets');

function playbackPage(req, { a }) {
  const crumbs = a.event_id
    ? [{ href: `/events/${a.event_id}`, label: a.event_title }, { href: `/tools/events/${a.event_id}`, label: 'Exam tools' }, { label: `Playback: ${a.username}` }]
    : [{ label: `Playback: ${a.username}` }];
  return ui.page(req, {
    title: `Playback · ${a.username}`,
    active: '/events',
    wide: true,
    scripts: [staffAsset('tools-playback.js')],
    body: html`<link rel="stylesheet" href="${staffAsset('tools.css')}">
${ui.crumbs(crumbs)}
<div class="pagehead"><div><h1>Playback: ${a.username} <span class="muted">${a.name}</span></h1>
<p class="muted">${a.event_title ? `${a.event_title}, question ${a.position}: ` : ''}${a.problem_title || ''}. ${a.versions} saved versions.</p></div></div>
<div id="playback" data-assignment="${a.id}" data-versions="${a.versions}">
<section class="card">
<label for="pb-slider">Version <output id="pb-pos">0</output> of <span id="pb-count">0</span> <span id="pb-loading" class="muted">loading the timeline…</span></label>
<input type="range" id="pb-slider" class="pb-slider" min="0" max="0" value="0" step="1" disabled>
<p><span id="pb-at" class="muted"></span>
<button type="button" class="btn small" id="pb-set-a">Compare from here (A)</button>
<button type="button" class="btn small" id="pb-prev">◀</button><button type="button" class="btn small" id="pb-next">▶</button>
<label class="checklabel"><input type="checkbox" id="pb-a-prev" checked> A follows the previous version</label></p>
<p id="pb-diffhead" class="muted"></p>
<pre class="pbcode" id="pb-diff" aria-live="polite"></pre>
</section>
<section class="card"><h2>Timeline</h2><ol class="pb-events" id="pb-events"></ol></section>
</div>`,
  });
}

module.exports = { playbackPage };
