'use strict';
const { html } = require('../shared/html');
const { time, marks } = require('../shared/format');
const { renderMarkdown } = require('../shared/markdown');
const ui = require('../lib/ui');

const VERDICT = {
  accepted: 'Accepted', wrong_answer: 'Wrong answer', compilation_error: 'Compilation error', time_limit: 'Time limit', memory_limit: 'Memory limit',
  output_limit: 'Output limit', runtime_error: 'Runtime error', forbidden_syscall: 'Forbidden system call', internal_error: 'Internal error',
  partial: 'Partial credit',
};

function head(title, sub, actions) {
  return html`<div class="pagehead"><div><h1>${title}</h1>${sub ? html`<p class="muted">${sub}</p>` : ''}</div>${actions ? html`<div class="actions">${actions}</div>` : ''}</div>`;
}

function queuePage(req, { queue, events, openRegrades, flash }) {
  const mine = queue || [];
  const todo = mine.filter((r) => r.marks === null && r.submitted_at);
  return ui.page(req, {
    title: 'Grading',
    active: '/grading',
    body: html`${head('Grading', 'Submissions to grade, marks and feedback, regrade requests.', html`<a class="btn" href="/grading/regrades">Regrade requests${openRegrades ? html` <span class="pill bad">${openRegrades}</span>` : ''}</a>`)}
${ui.flash('ok', flash)}
${req.session.role === 'ta' ? html`<div class="card tablewrap" id="my-queue"><h2 style="padding: 1rem 1.3rem 0">My queue <span class="muted small">${todo.length} to grade, ${mine.length - todo.length} done or not submitted</span></h2>
${mine.length ? html`<table class="list compact"><thead><tr><th>Event</th><th>Question</th><th>Student</th><th>Submitted</th><th class="num">Auto score</th><th class="num">Marks</th><th></th></tr></thead>
<tbody>${mine.map((r) => html`<tr data-assignment-id="${r.assignment_id}"><td>${r.event_title}</td><td>Q${r.position} ${r.problem_title}</td><td>${r.username}</td>
<td class="small">${r.submitted_at ? time(r.submitted_at) : html`<span class="muted">not submitted</span>`}</td><td class="num">${marks(r.score)}</td>
<td class="num">${r.marks !== null ? html`${marks(r.marks)} / ${marks(r.max_marks)}` : ''}</td>
<td class="actions"><a class="btn small${r.marks === null ? ' primary' : ''}" href="/grading/a/${r.assignment_id}">${r.marks === null ? 'Grade' : 'Review'}</a></td></tr>`)}</tbody></table>`
  : html`<p class="empty" style="margin: 1rem">Nothing assigned to you yet. An instructor distributes submissions to TAs; you can also grade an unassigned submission from an event's list.</p>`}</div>` : ''}
<div class="card tablewrap"><h2 style="padding: 1rem 1.3rem 0">Events</h2>
${events.length ? html`<table class="list compact" id="grading-events"><thead><tr><th>Event</th><th class="num">Submitted</th><th class="num">Assigned to TAs</th><th class="num">Graded</th><th class="num">Open regrades</th><th></th></tr></thead>
<tbody>${events.map((e) => html`<tr><td><span class="tag tag-${e.type}">${e.type}</span> ${e.title}</td><td class="num">${e.submitted}</td><td class="num">${e.assigned}</td>
<td class="num">${e.graded}</td><td class="num">${e.regrades}</td><td class="actions"><a class="btn small" href="/grading/events/${e.id}">Submissions</a> <a class="btn small" href="/live/${e.id}">Live</a></td></tr>`)}</tbody></table>`
  : html`<p class="empty" style="margin: 1rem">No published event yet.</p>`}</div>`,
  });
}

function eventPage(req, { data, tas, form = {}, flash, error }) {
  const { event: e, rows } = data;
  const manager = req.session.role === 'instructor' || req.session.role === 'admin';
  const submitted = rows.filter((r) => r.submitted_at);
  const chosen = new Set([].concat((form.values && form.values.ta_ids) || tas.map((t) => String(t.id))).map(String));
  return ui.page(req, {
    title: `Grading: ${e.title}`,
    active: '/grading',
    body: html`${ui.crumbs([{ href: '/grading', label: 'Grading' }, { label: e.title }])}
${head(`Grading: ${e.title}`, `${submitted.length} submitted of ${rows.length} assignments · ${rows.filter((r) => r.marks !== null).length} graded · ${rows.filter((r) => r.ta_id).length} assigned to TAs`,
    manager ? html`<a class="btn" href="/events/${e.id}/results.csv">Results CSV</a> <a class="btn" href="/events/${e.id}">Event</a>` : '')}
${ui.flash('ok', flash)}${error ? ui.flash('error', error) : ''}
${manager ? html`<form method="post" action="/grading/events/${e.id}/distribute" class="card" novalidate id="distribute">
  <h2>Distribute to TAs (round-robin)</h2>
  ${ui.csrf(req)}
  ${ui.formError(form)}
  ${tas.length ? html`<div class="checks">${tas.map((t) => html`<label class="checklabel"><input type="checkbox" name="ta_ids" value="${t.id}"${chosen.has(String(t.id)) ? html` checked` : ''}> ${t.username} <span class="muted small">${t.name}</span></label>`)}</div>
  <p class="help">Every submitted, ungraded submission without a TA goes to the chosen TAs in turn, the least loaded first. Assignments already given stay.</p>
  <div class="formactions"><button class="btn primary" type="submit" id="distribute-submit">Distribute</button></div>`
  : html`<p class="muted">There is no active TA account. Create one on the People page (role TA).</p>`}
</form>` : ''}
${manager ? html`<form method="post" action="/grading/events/${e.id}/regrade" class="card" id="regrade">
  <h2>Regrade automatic marks</h2>
  ${ui.csrf(req)}
  <p class="help">After a change of a problem's checker, comparison or test weights: every graded submission of this event is evaluated again. You see the old and new marks, per question and per student, before anything changes. It takes a moment per submission.</p>
  <div class="formactions"><button class="btn" type="submit" id="regrade-preview">Compute new marks</button></div>
</form>` : ''}
<div class="card tablewrap">
${rows.length ? html`<table class="list compact" id="submissions"><thead><tr><th>Student</th><th>Section</th><th>Question</th><th>Submitted</th><th class="num">Auto score</th><th class="num">Marks</th><th>TA</th><th></th></tr></thead>
<tbody>${rows.map((r) => html`<tr data-assignment-id="${r.assignment_id}" data-username="${r.username}"><td>${r.username}</td><td>${r.section || ''}</td><td>Q${r.position} ${r.problem_title}</td>
<td class="small">${r.submitted_at ? html`${time(r.submitted_at)}${r.submitted_automatically ? html` <span class="pill info" title="submitted automatically at the deadline">auto</span>` : ''}` : html`<span class="muted">not submitted</span>`}${r.late_versions ? html` <span class="pill bad late" title="versions stored after the deadline: kept, not graded">late work</span>` : ''}</td><td class="num">${marks(r.score)}</td>
<td class="num">${r.marks !== null ? html`${marks(r.marks)} / ${marks(r.max_marks)}` : ''}${r.open_regrades ? html` <span class="pill bad">regrade</span>` : ''}</td>
<td>${manager ? html`<form method="post" action="/grading/assign" class="inline taform">${ui.csrf(req)}<input type="hidden" name="assignment_id" value="${r.assignment_id}">
  <select name="ta_id" aria-label="TA for ${r.username} Q${r.position}"><option value="">— none —</option>${tas.map((t) => html`<option value="${t.id}"${t.id === r.ta_id ? html` selected` : ''}>${t.username}</option>`)}</select>
  <button class="btn small" type="submit">Set</button></form>` : (r.ta_username || '')}</td>
<td class="actions"><a class="btn small${r.marks === null && r.submitted_at ? ' primary' : ''}" href="/grading/a/${r.assignment_id}">${r.marks === null ? 'Grade' : 'Review'}</a></td></tr>`)}</tbody></table>`
  : html`<p class="empty" style="margin: 1rem">No assignments in this event.</p>`}
</div>`,
  });
}

function regradePage(req, { run, rows, changed, questions, students }) {
  const diff = (o, n) => {
    if (o === null || o === undefined) return html`<span class="pill info">new</span>`;
    const d = Math.round((Number(n) - Number(o)) * 100) / 100;
    return d === 0 ? html`<span class="muted">same</span>` : html`<span class="${d > 0 ? 'verdict-ok' : 'verdict-bad'}">${d > 0 ? '+' : ''}${marks(d)}</span>`;
  };
  const totals = (id, title, list) => html`<div class="card tablewrap"><h2 style="padding: 1rem 1.3rem 0">${title}</h2>
<table class="list compact" id="${id}"><thead><tr><th></th><th class="num">Old</th><th class="num">New</th><th class="num">Change</th><th class="num">Out of</th></tr></thead>
<tbody>${list.map((t) => html`<tr><td>${t.key}</td><td class="num">${marks(t.old)}</td><td class="num">${marks(t.new)}</td><td class="num">${diff(t.old, t.new)}</td><td class="num">${marks(t.max)}</td></tr>`)}</tbody></table></div>`;
  return ui.page(req, {
    title: `Regrade: ${run.event_title}`,
    active: '/grading',
    body: html`${ui.crumbs([{ href: '/grading', label: 'Grading' }, { href: `/grading/events/${run.event_id}`, label: run.event_title }, { label: 'Regrade' }])}
${head(`Regrade: ${run.event_title}`, `Computed ${time(run.created_at)} by ${run.created_by}: ${rows.length} graded submission(s), ${changed} mark(s) change.`,
    run.applied_at ? html`<span class="pill ok" id="regrade-applied">applied ${time(run.applied_at)}</span>`
    : ui.actionForm(req, `/grading/events/${run.event_id}/regrade/${run.id}/apply`, `Apply the new marks`, { cls: 'btn primary', id: 'regrade-apply',
      confirm: `Replace the automatic marks of ${rows.length} submission(s) (${changed} change)?` }))}
${run.applied_at ? '' : html`<p class="flash info" role="status">Nothing has changed yet: students and the results still show the old marks until you apply.</p>`}
${totals('regrade-questions', 'Per question', questions)}
${totals('regrade-students', 'Per student (event total)', students)}
<div class="card tablewrap"><h2 style="padding: 1rem 1.3rem 0">Per submission <span class="muted small">changes first</span></h2>
<table class="list compact" id="regrade-rows"><thead><tr><th>Student</th><th>Question</th><th class="num">Old</th><th class="num">New</th><th class="num">Change</th><th>Verdict</th><th class="num">Tests</th></tr></thead>
<tbody>${rows.map((r) => html`<tr data-assignment-id="${r.assignment_id}"><td>${r.username}</td><td>Q${r.position} ${r.problem_title}</td>
<td class="num">${r.old_score === null ? '' : marks(r.old_score)}</td><td class="num">${marks(r.new_score)} / ${marks(r.max_score)}</td><td class="num">${diff(r.old_score, r.new_score)}</td>
<td>${VERDICT[r.verdict] || r.verdict}</td><td class="num">${r.passed} / ${r.total}</td></tr>`)}</tbody></table></div>`,
  });
}

function gradePage(req, { a, form = {}, flash, mayGrade }) {
  const f = form.values ? form : { values: { marks: a.marks !== null ? String(Number(a.marks)) : '', feedback: a.feedback || '' } };
  const SOURCE = { submission: 'the last submission', deadline: 'the last save before the deadline' };
  return ui.page(req, {
    title: `Grade ${a.username} Q${a.position}`,
    active: '/grading',
    body: html`${ui.crumbs([{ href: '/grading', label: 'Grading' }, { href: `/grading/events/${a.event_id}`, label: a.event_title }, { label: `${a.username} · Q${a.position}` }])}
${head(html`${a.username} · Q${a.position} ${a.problem_title}`, html`${a.name} · section ${a.section || '—'} · ${a.submitted_at ? html`submitted ${time(a.submitted_at)}` : 'not submitted'} · automatic score ${a.score !== null ? marks(a.score) : '—'} · ${a.ta_username ? `queue of ${a.ta_username}` : 'not assigned to a TA'}`)}
${ui.flash('ok', flash)}
<div class="cols">
<div>
  <div class="card" id="graded"><h2>Graded code</h2>
  ${a.graded_code_id ? html`<p class="muted small" id="graded-source">What is graded: ${SOURCE[a.graded_source] || a.graded_source}, stored ${time(a.graded_save_time)}${a.submitted_automatically ? ' (submitted automatically at the deadline)' : ''} · deadline ${time(a.deadline)}</p>
  <pre class="code" id="graded-code">${a.graded_code}</pre>` : html`<p class="empty">The student stored no code before the deadline.</p>`}</div>
  <div class="card" id="auto-grade"><h2>Automatic evaluation of the graded code</h2>
  ${a.auto_code_id && Number(a.auto_code_id) === Number(a.graded_code_id) ? html`<p><strong id="auto-score">${marks(a.score)} / ${marks(a.max_marks)}</strong> · ${a.auto_passed} of ${a.auto_total} tests passed${a.auto_compiled ? '' : ' · did not compile'} · ${a.auto_final ? 'final' : 'provisional (before the deadline)'}</p>
  ${a.cases.length ? html`<table class="list compact"><thead><tr><th>#</th><th>Visibility</th><th>Verdict</th><th class="num">Time</th></tr></thead>
  <tbody>${a.cases.map((x) => html`<tr><td>${x.position}</td><td>${x.visibility}</td><td class="${x.passed ? 'verdict-ok' : 'verdict-bad'}">${VERDICT[x.verdict] || x.verdict || (x.passed ? 'Accepted' : 'Not passed')}</td><td class="num">${x.time_ms !== undefined ? html`${x.time_ms} ms` : ''}</td></tr>`)}</tbody></table>` : ''}
  <p class="muted small">Evaluated ${time(a.auto_graded_at)}.</p>` : html`<p class="muted" id="auto-pending">${a.graded_code_id ? 'Waiting for the automatic grader.' : 'Nothing to evaluate.'}</p>`}</div>
  ${a.late.length ? html`<div class="card" id="late-work"><h2>Late work <span class="pill bad">late</span></h2>
  <p class="muted small">${a.late_versions} version(s) stored at or after the deadline: kept, not graded.</p>
  ${a.late.map((c) => html`<details><summary>${c.save_trigger} ${time(c.save_time)}</summary><pre class="code">${c.code}</pre></details>`)}</div>` : ''}
  <details class="card"><summary><strong>Problem statement</strong></summary><div class="statement">${renderMarkdown(a.statement_md)}</div></details>
</div>
<div>
  ${mayGrade ? html`<form method="post" action="/grading/a/${a.assignment_id}" class="card" novalidate id="grade-form">
    <h2>Marks and feedback</h2>
    ${ui.csrf(req)}
    ${ui.formError(form)}
    ${ui.input(f, 'marks', `Marks (out of ${marks(a.max_marks)})`, { type: 'number', attrs: { min: 0, max: Number(a.max_marks), step: '0.25' } })}
    ${ui.textarea(f, 'feedback', 'Feedback to the student', { rows: 6 })}
    ${a.graded_at ? html`<p class="help">Graded ${time(a.graded_at)} by ${a.grader}.</p>` : ''}
    <div class="formactions"><button class="btn primary" type="submit" name="then" value="next" id="save-next">Save and next</button><button class="btn" type="submit" name="then" value="stay" id="save-grade">Save</button></div>
  </form>` : html`<div class="card"><h2>Marks</h2><p>${a.marks !== null ? html`${marks(a.marks)} / ${marks(a.max_marks)}` : 'Not graded.'}</p><p class="muted">This submission is in ${a.ta_username}'s queue.</p></div>`}
  ${a.regrades.length ? html`<div class="card"><h2>Regrade requests</h2>${a.regrades.map((r) => html`<div class="section-note">
    <p><span class="pill ${r.status === 'open' ? 'bad' : (r.status === 'accepted' ? 'ok' : '')}">${r.status}</span> ${time(r.created_at)}</p>
    <p>${r.reason}</p>${r.status !== 'open' ? html`<p class="muted small">${r.resolved_by}: ${r.response}</p>` : html`<p><a href="/grading/regrades#rg-${r.id}">Resolve</a></p>`}</div>`)}</div>` : ''}
</div>
</div>`,
  });
}

function regradesPage(req, { rows, status, forms = {}, flash, error }) {
  return ui.page(req, {
    title: 'Regrade requests',
    active: '/grading',
    body: html`${ui.crumbs([{ href: '/grading', label: 'Grading' }, { label: 'Regrade requests' }])}
${head('Regrade requests', req.session.role === 'ta' ? 'Requests about submissions in your queue.' : 'Requests from students about their marks.',
    status === 'all' ? html`<a class="btn" href="/grading/regrades">Open only</a>` : html`<a class="btn" href="/grading/regrades?status=all">Show resolved too</a>`)}
${ui.flash('ok', flash)}${error ? ui.flash('error', error) : ''}
${rows.length ? rows.map((r) => {
    const f = forms[r.id] || { values: { marks: r.marks !== null ? String(Number(r.marks)) : '' } };
    return html`<div class="card" id="rg-${r.id}">
  <div class="pagehead"><div><h3>${r.username} · ${r.event_title} · Q${r.position}</h3><p class="muted small">asked ${time(r.created_at)} · marks ${marks(r.marks)} / ${marks(r.max_marks)} · ${r.ta_username ? `TA ${r.ta_username}` : 'no TA'}</p></div>
  <div class="actions"><span class="pill ${r.status === 'open' ? 'bad' : (r.status === 'accepted' ? 'ok' : '')}">${r.status}</span> <a class="btn small" href="/grading/a/${r.assignment_id}">Submission</a></div></div>
  <p><strong>Reason:</strong> ${r.reason}</p>
  ${r.status === 'open' ? html`<form method="post" action="/grading/regrades/${r.id}" novalidate>
    ${ui.csrf(req)}${ui.formError(forms[r.id])}
    <div class="grid3">
      ${ui.select(f, 'decision', 'Decision', [{ value: 'accepted', label: 'Accept: change the marks' }, { value: 'rejected', label: 'Reject: marks stay' }])}
      ${ui.input(f, 'marks', 'New marks (when accepted)', { type: 'number', attrs: { min: 0, step: '0.25' } })}
    </div>
    ${ui.textarea(f, 'response', 'Response to the student', { rows: 2 })}
    <div class="formactions"><button class="btn primary" type="submit">Resolve</button></div>
  </form>` : html`<p class="muted small">${r.resolved_by} ${time(r.resolved_at)}: ${r.response}</p>`}
</div>`;
  }) : html`<p class="empty">No ${status === 'all' ? '' : 'open '}regrade requests.</p>`}`,
  });
}

function myMarksPage(req, { rows, forms = {}, flash, error }) {
  return ui.page(req, {
    title: 'My marks',
    active: '/grading/mine',
    body: html`${head('My marks', 'Marks and feedback of your submitted questions. If you believe a mark is wrong, ask for a regrade and say why.')}
${ui.flash('ok', flash)}${error ? ui.flash('error', error) : ''}
${rows.length ? rows.map((r) => html`<div class="card" id="m-${r.assignment_id}" data-assignment-id="${r.assignment_id}">
  <div class="pagehead"><div><h3>${r.title} <span class="muted">· ${r.event_title}</span></h3><p class="muted small">${r.submitted_at ? html`${r.submitted_automatically ? 'submitted automatically at the deadline' : 'submitted'} ${time(r.submitted_at)}` : 'not submitted'}${r.grades_released_at ? html` · automatic score <span class="auto-score">${r.score !== null ? marks(r.score) : '—'}</span>` : ''}</p></div>
  <div class="actions">${!r.grades_released_at ? html`<span class="pill not-released">marks not released yet</span>` : (r.marks !== null ? html`<span class="pill info marks">Marks ${marks(r.marks)} / ${marks(r.max_marks)}</span>` : html`<span class="pill">not graded yet</span>`)}</div></div>
  ${r.feedback ? html`<p class="feedback"><strong>Feedback:</strong> ${r.feedback}</p>` : ''}
  ${r.regrade_status ? html`<p class="small">Regrade request: <span class="pill ${r.regrade_status === 'open' ? '' : (r.regrade_status === 'accepted' ? 'ok' : 'bad')}">${r.regrade_status}</span> ${r.regrade_response ? html`— ${r.regrade_response}` : ''}</p>` : ''}
  ${r.marks !== null && r.regrade_status !== 'open' ? html`<details class="addbox"${forms[r.assignment_id] ? html` open` : ''}><summary>Ask for a regrade</summary>
    <form method="post" action="/grading/mine/${r.assignment_id}/regrade" novalidate>
      ${ui.csrf(req)}${ui.formError(forms[r.assignment_id])}
      ${ui.textarea(forms[r.assignment_id] || {}, 'reason', 'Why should it be regraded?', { rows: 3, help: 'At least 10 characters.' })}
      <div class="formactions"><button class="btn" type="submit">Send request</button></div>
    </form></details>` : ''}
</div>`) : html`<p class="empty">No submitted or graded questions yet.</p>`}`,
  });
}

module.exports = { queuePage, eventPage, gradePage, regradesPage, myMarksPage, regradePage };
