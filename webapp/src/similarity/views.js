'use strict';
// Similarity pages: the report of a job (ranked pairs) and one pair side by side
// with its matching fragments marked in both codes.
const { html } = require('../shared/html');
const { time } = require('../shared/format');
const ui = require('../lib/ui');
const { staffAsset } = require('../lib/assets');

const STATE_LABEL = { queued: 'queued', running: 'running', done: 'done', failed: 'failed' };

function pct(x) { return `${(Number(x) * 100).toFixed(1)}%`; }

function reportPage(req, { event, q, job, pairs }) {
  const running = job.state === 'queued' || job.state === 'running';
  return ui.page(req, {
    title: `Similarity · ${event.title}`,
    active: '/events',
    scripts: running ? [staffAsset('tools-refresh.js')] : [],
    body: html`${ui.crumbs([{ href: '/events', label: 'Events' }, { href: `/events/${event.id}`, label: event.title }, { href: `/tools/events/${event.id}`, label: 'Exam tools' }, { label: `Similarity, question ${q.position}` }])}
<div class="pagehead"><div><h1>Similarity: question ${q.position}${q.section_code ? ` (${q.section_code})` : ''}, ${q.problem_title}</h1>
<p class="muted">Dolos (tree-sitter tokens, winnowed fingerprints). The template and the reference solution are ignored. Requested ${time(job.created_at)}.</p></div>
<div class="actions">${job.state === 'done' ? html`<a class="btn" id="similarity-csv" href="/tools/events/${event.id}/similarity/${job.id}.csv">CSV</a>` : ''}</div></div>
<p id="job-state" data-state="${job.state}"${running ? html` data-refresh-ms="2000"` : ''}><span class="pill${job.state === 'done' ? ' ok' : job.state === 'failed' ? ' bad' : ' info'}">${STATE_LABEL[job.state]}</span>
${job.state === 'done' ? ` ${job.submissions} submissions compared in ${(job.run_ms / 1000).toFixed(1)} s (peak memory ${job.max_rss_mb} MB), ${pairs.length} pairs listed.` : ''}
${job.state === 'failed' ? ` ${job.error || 'the job stopped (the webapp restarted during it)'}` : ''}
${running ? ' The detector runs in the background at low priority; this page refreshes itself.' : ''}</p>
${job.state === 'done' ? (pairs.length ? html`<div class="card tablewrap"><table class="list" id="similarity-pairs">
<thead><tr><th class="num">#</th><th>Student A</th><th>Student B</th><th class="num">Similarity</th><th class="num">Longest fragment</th><th class="num">Fragments</th><th></th></tr></thead>
<tbody>${pairs.map((p) => html`<tr data-rank="${p.rank_no}"><td class="num">${p.rank_no}</td><td class="user-a">${p.left_user}</td><td class="user-b">${p.right_user}</td>
<td class="num">${pct(p.similarity)}</td><td class="num">${p.longest}</td><td class="num">${JSON.parse(p.fragments).length}</td>
<td><a href="/tools/events/${event.id}/similarity/${job.id}/pairs/${p.rank_no}">side by side</a></td></tr>`)}</tbody></table></div>`
    : html`<p class="empty">No two submissions share code beyond the template.</p>`) : ''}`,
  });
}

// Each line gets the index of the first fragment that covers it (or -1).
function lineMarks(code, regions) {
  const lines = String(code).split('\n');
  const mark = new Array(lines.length).fill(-1);
  regions.forEach((r, i) => {
    for (let l = Math.max(0, r[0]); l <= Math.min(lines.length - 1, r[2]); l++) if (mark[l] < 0) mark[l] = i;
  });
  return lines.map((text, i) => ({ no: i + 1, text, frag: mark[i] }));
}

function codeColumn(id, who, code, regions) {
  return html`<div class="simcol"><h2>${who}</h2><pre class="simcode" id="${id}">${lineMarks(code, regions).map((l) => html`<span class="${l.frag >= 0 ? `ln frag frag${l.frag % 8}` : 'ln'}"${l.frag >= 0 ? html` data-fragment="${l.frag + 1}"` : ''}><i>${l.no}</i>${l.text}
</span>`)}</pre></div>`;
}

function pairPage(req, { event, q, job, p }) {
  const frags = JSON.parse(p.fragments);
  return ui.page(req, {
    title: `Pair ${p.rank_no} · similarity`,
    active: '/events',
    wide: true,
    body: html`<link rel="stylesheet" href="${staffAsset('tools.css')}">
${ui.crumbs([{ href: `/tools/events/${event.id}`, label: 'Exam tools' }, { href: `/tools/events/${event.id}/similarity/${job.id}`, label: `Similarity, question ${q.position}` }, { label: `Pair ${p.rank_no}` }])}
<div class="pagehead"><div><h1>${p.left_user} and ${p.right_user}: ${pct(p.similarity)}</h1>
<p class="muted">${frags.length} matching fragments (same colour on both sides), the longest ${p.longest} k-grams. Playback:
<a href="/tools/playback/${p.left_assignment}">${p.left_user}</a>, <a href="/tools/playback/${p.right_assignment}">${p.right_user}</a>.</p></div></div>
<div class="simpair">${codeColumn('code-a', p.left_user, p.left_code, frags.map((f) => f.left))}${codeColumn('code-b', p.right_user, p.right_code, frags.map((f) => f.right))}</div>`,
  });
}

module.exports = { reportPage, pairPage };
