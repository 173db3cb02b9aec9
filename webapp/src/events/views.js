'use strict';
const { html } = require('../shared/html');
const { time, duration, marks, iso } = require('../shared/format');
const ui = require('../lib/ui');

const TYPE_OPTIONS = [{ value: 'lab', label: 'Lab' }, { value: 'quiz', label: 'Quiz' }, { value: 'exam', label: 'Exam' }];

function head(title, sub, actions) {
  return html`<div class="pagehead"><div><h1>${title}</h1>${sub ? html`<p class="muted">${sub}</p>` : ''}</div>${actions ? html`<div class="actions">${actions}</div>` : ''}</div>`;
}

function state(start, stop, now) {
  if (!start) return html`<span class="pill">not scheduled</span>`;
  if (now < start) return html`<span class="pill info">upcoming</span>`;
  if (now < stop) return html`<span class="pill ok">ongoing</span>`;
  return html`<span class="pill">ended</span>`;
}

function listPage(req, { rows, flash }) {
  return ui.page(req, {
    title: 'Events',
    active: '/events',
    body: html`${head('Events', 'Labs, quizzes and exams: questions, schedules per section, publishing, live progress, results.', html`<a class="btn" href="/events/accommodations" id="accommodations-link">Accommodations</a> <a class="btn primary" href="/events/new">New event</a>`)}
${ui.flash('ok', flash)}
${rows.length ? html`<div class="card tablewrap"><table class="list" id="events">
<thead><tr><th>Event</th><th>Type</th><th class="num">Questions</th><th class="num">Sections</th><th>From</th><th>To</th><th>State</th><th>Published</th><th class="num">Assignments</th></tr></thead>
<tbody>${rows.map((e) => html`<tr><td><a href="/events/${e.id}">${e.title}</a></td><td><span class="tag tag-${e.type}">${e.type}</span></td>
<td class="num">${e.questions}</td><td class="num">${e.sections}</td><td class="small">${time(e.first_start)}</td><td class="small">${time(e.last_stop)}</td>
<td>${state(e.first_start, e.last_stop, e.now)}</td><td>${e.published_at ? html`<span class="pill ok">published</span>` : html`<span class="pill">draft</span>`}</td><td class="num">${e.assignments}</td></tr>`)}</tbody>
</table></div>` : html`<p class="empty">No events yet.</p>`}`,
  });
}

function eventFields(req, f) {
  return html`${ui.csrf(req)}
  <div class="grid2">${ui.input(f, 'title', 'Title', { required: true })}${ui.select(f, 'type', 'Type', TYPE_OPTIONS, { def: 'lab' })}</div>
  ${ui.textarea(f, 'description', 'Description (shown to students)', { rows: 3 })}`;
}

function newPage(req, { form = {} }) {
  return ui.page(req, {
    title: 'New event',
    active: '/events',
    body: html`${ui.crumbs([{ href: '/events', label: 'Events' }, { label: 'New event' }])}
${head('New event', 'Questions and schedules are added on the next page.')}
${ui.formError(form)}
<form method="post" action="/events" class="card" novalidate>${eventFields(req, form)}
<div class="formactions"><button class="btn primary" type="submit" id="create-event">Create event</button><a href="/events">Cancel</a></div></form>`,
  });
}

const BASIS_OPTIONS = [
  { value: 'submission', label: 'The last submission (the last save at the deadline if none: submitted automatically)' },
  { value: 'last_save', label: 'The last save at the deadline, submitted or not' },
];

// What is graded, the automatic grader's progress, and the release of marks.
function gradingCard(req, e, g, form) {
  const f = form || { values: { graded_basis: g.graded_basis } };
  return html`<div class="card" id="grading">
  <h2>Grading</h2>
  <form method="post" action="/events/${e.id}/grading" class="inline-form">${ui.csrf(req)}
    ${ui.select(f, 'graded_basis', 'What is graded', BASIS_OPTIONS, { def: 'submission' })}
    <div class="formactions"><button class="btn small" type="submit" id="save-basis">Save</button></div>
  </form>
  <p class="muted small" id="auto-progress">Automatic scores: ${g.auto_graded} of ${g.assignments} assignments evaluated (${g.final} final)${g.waiting ? html`, ${g.waiting} waiting for the engine` : ''}. The engine evaluates exactly the graded code against every test case at submission and at the deadline.</p>
  <p id="release-state">${g.grades_released_at
    ? html`<span class="pill ok">released</span> ${time(g.grades_released_at)}: students see their scores, marks and feedback. ${ui.actionForm(req, `/events/${e.id}/withdraw`, 'Withdraw', { id: 'withdraw-grades' })}`
    : html`<span class="pill">not released</span> students do not see scores or marks yet. ${ui.actionForm(req, `/events/${e.id}/release`, 'Release marks', { cls: 'btn small primary', id: 'release-grades', confirm: 'Release the marks of this event? Every student sees their automatic score, marks and feedback.' })}`}</p>
  <p class="small" id="lti-links"><a href="/lti/grades/${e.id}" id="lti-grades-link">Scores sent to the LMS</a> · <a href="/lti/seb/${e.id}" id="seb-link">Safe Exam Browser</a></p>
</div>`;
}

// Accommodations agreed ahead (issue 30): the list and the CSV import.
function accommodationsPage(req, { rows, form = {}, flash }) {
  return ui.page(req, {
    title: 'Accommodations',
    active: '/events',
    body: html`${ui.crumbs([{ href: '/events', label: 'Events' }, { label: 'Accommodations' }])}
${head('Accommodations', 'Extra time agreed ahead per student: +N% of each event\'s scheduled time and/or +N minutes, applied to every event unless the event opts out. Each student sees their own end time.')}
${ui.flash('ok', flash)}
<form method="post" action="/events/accommodations" class="card" novalidate>
  ${ui.csrf(req)}
  ${ui.formError(form)}
  <h2>Import (CSV)</h2>
  <p class="muted small">One row per student: <code>username,extra_percent,extra_minutes,note</code> (a header row is allowed). Both 0 removes the student's accommodation. Nothing is stored unless every row is right.</p>
  ${ui.textarea(form, 'csv', 'CSV rows', { rows: 8, mono: true, attrs: { placeholder: 'username,extra_percent,extra_minutes,note' } })}
  <div class="formactions"><button class="btn primary" type="submit" id="import-accommodations">Import</button></div>
</form>
${rows.length ? html`<div class="card tablewrap"><table class="list" id="accommodations"><thead><tr><th>Student</th><th>Section</th><th class="num">Extra %</th><th class="num">Extra min</th><th>Note</th><th>Set by</th><th>When</th></tr></thead>
<tbody>${rows.map((r) => html`<tr><td>${r.username} <span class="muted small">${r.name}</span></td><td>${r.section || ''}</td><td class="num">${r.extra_percent}</td><td class="num">${r.extra_minutes}</td><td>${r.note}</td><td class="small">${r.updated_by || ''}</td><td class="small">${time(r.updated_at)}</td></tr>`)}</tbody></table></div>` : html`<p class="empty">No accommodations yet.</p>`}`,
  });
}

// Pause and resume (issue 30): who is held, and the log of every timing change.
function pauseCard(req, e, { pauses, log }, forms) {
  const fp = forms.pause || { values: { scope: 'event' } };
  return html`<div class="card" id="pauses">
  <h2>Exam timing: pause, common start, accommodations</h2>
  <p class="muted small">A paused student's clock stands still: their editor says so and keeps their code, the compiler refuses their runs, and their end time moves by the length of the pause. A pause holds the students sitting the event when it starts; a room is matched against the addresses of the students' lab sessions (recorded while a lab lock-down is set).</p>
  ${pauses.length ? html`<table class="list" id="pause-list"><thead><tr><th>Paused</th><th>Since</th><th>By</th><th class="num">Holding</th><th></th></tr></thead>
  <tbody>${pauses.map((p) => html`<tr data-pause="${p.id}"><td>${p.scope === 'event' ? 'whole event' : `${p.scope} ${p.target}`}${p.reason ? html` <span class="muted small">(${p.reason})</span>` : ''}</td>
  <td class="small">${time(p.started_at)}</td><td class="small">${p.started_by || ''}</td><td class="num">${p.holding}</td>
  <td>${ui.actionForm(req, `/events/${e.id}/resume`, 'Resume', { cls: 'btn small primary', hidden: { pause_id: p.id }, id: `resume-${p.id}` })}</td></tr>`)}</tbody></table>` : html`<p class="empty" id="no-pauses">Nothing is paused.</p>`}
  <form method="post" action="/events/${e.id}/pause" novalidate>
    ${ui.csrf(req)}
    ${ui.formError(forms.pause)}
    <div class="grid2">
      ${ui.select(fp, 'scope', 'Pause', [{ value: 'event', label: 'The whole event' }, { value: 'room', label: 'A room (address ranges)' }, { value: 'student', label: 'One student' }])}
      ${ui.input(fp, 'reason', 'Reason (logged)')}
      ${ui.input(fp, 'ranges', 'Room addresses (for a room)', { help: 'e.g. 10.1.2.0/24, 10.1.3.7' })}
      ${ui.input(fp, 'username', 'Student username (for one student)')}
    </div>
    <div class="formactions"><button class="btn danger" type="submit" id="pause">Pause</button></div>
  </form>
  <h3>Common start</h3>
  ${e.start_mode === 'invigilator' && !e.started_at
    ? html`<p id="start-waiting">Students wait on the exam page (the rules and a clock) until you start; each section then has its scheduled duration from that moment.</p>
  ${ui.actionForm(req, `/events/${e.id}/start`, 'Start the exam now', { cls: 'btn primary', id: 'start-now', confirm: 'Start the exam for every waiting student now?' })}`
    : (e.started_at ? html`<p id="started">Started ${time(e.started_at)} by the invigilator.</p>` : '')}
  ${!e.started_at ? html`<form method="post" action="/events/${e.id}/start-mode" novalidate class="inline">
    ${ui.csrf(req)}
    ${ui.checkbox({ values: { common_start: e.start_mode === 'invigilator' ? '1' : '' } }, 'common_start', 'Students wait for the invigilator to start (a common start)')}
    <div class="formactions"><button class="btn small" type="submit" id="save-start-mode">Save</button></div>
  </form>` : ''}
  <form method="post" action="/events/${e.id}/accommodations" novalidate class="inline">
    ${ui.csrf(req)}
    ${ui.checkbox({ values: { accommodations_apply: e.accommodations_apply ? '1' : '' } }, 'accommodations_apply', 'Students\' accommodations (extra time agreed ahead) apply to this event')}
    <div class="formactions"><button class="btn small" type="submit" id="save-accommodations-apply">Save</button> <a href="/events/accommodations">Accommodations</a></div>
  </form>
  <form method="post" action="/events/${e.id}/resume" novalidate class="inline">
    ${ui.csrf(req)}
    ${ui.formError(forms.resume)}
    ${ui.input(forms.resume || {}, 'username', 'Resume one student (username)')}
    <div class="formactions"><button class="btn" type="submit" id="resume-student">Resume student</button></div>
  </form>
  <h3>Timing log</h3>
  <p class="small"><a href="/events/${e.id}/timing-log.csv" id="timing-log-csv">Download the timing log (CSV)</a></p>
  ${log.length ? html`<table class="list small" id="timing-log"><thead><tr><th>When</th><th>Who</th><th>What</th><th>Whom</th><th>Detail</th></tr></thead>
  <tbody>${log.slice(0, 20).map((l) => html`<tr><td>${time(l.created_at)}</td><td>${l.actor || ''}</td><td>${l.action}</td><td>${l.target}</td><td>${l.detail}</td></tr>`)}</tbody></table>` : html`<p class="empty">No timing changes yet.</p>`}
</div>`;
}

function eventPage(req, { d, options, grading, timing, forms = {}, flash, error }) {
  const { event: e, questions, schedules, counts } = d;
  const now = e.now;
  const first = schedules.length ? schedules.reduce((m, s) => (s.start_time < m ? s.start_time : m), schedules[0].start_time) : null;
  const last = schedules.length ? schedules.reduce((m, s) => (s.stop_time > m ? s.stop_time : m), schedules[0].stop_time) : null;
  const started = first && first <= now;
  const ended = last && last <= now;
  const slotted = schedules.flatMap((s) => s.sections);
  const slottedIds = new Set(slotted.map((s) => s.id));
  const fq = forms.question || { values: { max_marks: '10' } };
  const fs = forms.schedule || { values: { duration: '60' } };
  const fe = forms.edit || { values: { title: e.title, type: e.type, description: e.description } };
  const isAdmin = req.session.role === 'admin' || req.session.role === 'instructor';
  return ui.page(req, {
    title: e.title,
    active: '/events',
    body: html`${ui.crumbs([{ href: '/events', label: 'Events' }, { label: e.title }])}
${head(html`${e.title} <span class="tag tag-${e.type}">${e.type}</span>`,
    html`${e.published_at ? html`<span class="pill ok" id="event-state">published</span> ${time(e.published_at)}` : html`<span class="pill" id="event-state">draft</span> not visible to students`}
 · ${counts.assignments} assignments for ${counts.students} students · ${counts.submitted} submitted${first ? html` · ${started ? (ended ? 'ended' : 'ongoing') : 'starts'} ${time(first)}` : ''}`,
    html`${e.published_at ? html`<a class="btn" href="/live/${e.id}" id="live-link">Live</a> <a class="btn" href="/grading/events/${e.id}">Grading</a> <a class="btn" href="/events/${e.id}/results.csv" id="export-results">Results CSV</a> <a class="btn" href="/tools/events/${e.id}" id="tools-link">Exam tools</a>` : ''}
    ${ui.actionForm(req, `/events/${e.id}/publish`, e.published_at ? 'Publish again' : 'Publish', { cls: 'btn primary', id: 'publish', confirm: e.published_at ? '' : `Publish "${e.title}"? Every student of the scheduled sections gets its questions.` })}
    ${e.published_at && !started ? ui.actionForm(req, `/events/${e.id}/unpublish`, 'Unpublish', { cls: 'btn danger', id: 'unpublish', confirm: 'Unpublish? The students\' assignments of this event are deleted.' }) : ''}`)}
${ui.flash('ok', flash)}
${error ? ui.flash('error', error) : ''}
${e.published_at && started && !ended ? html`<p class="section-note muted small">The event is running: it cannot be unpublished any more. Extend time below if needed.</p>` : ''}

${grading ? gradingCard(req, e, grading, forms.grading) : ''}

<div class="card" id="questions">
  <h2>Questions</h2>
  ${questions.length ? html`<table class="list compact"><thead><tr><th>#</th><th>Problem</th><th>For</th><th class="num">Max marks</th><th class="num">Assignments</th><th></th></tr></thead>
  <tbody>${questions.map((q) => html`<tr><td>${q.position}</td><td><a href="/problems/${q.problem_id}">${q.problem_title}</a></td>
  <td>${q.section_code ? html`section ${q.section_code} (variant)` : 'all sections'}</td><td class="num">${marks(q.max_marks)}</td><td class="num">${q.assignments}</td>
  <td class="actions">${q.assignments ? '' : ui.actionForm(req, `/events/${e.id}/questions/${q.id}/delete`, 'Remove', { cls: 'btn small danger', confirm: `Remove question ${q.position}?` })}</td></tr>`)}</tbody></table>`
  : html`<p class="empty">No questions yet.</p>`}
  <details class="addbox"${forms.question || !questions.length ? html` open` : ''}><summary>Add a question</summary>
    ${ui.formError(forms.question)}
    <form method="post" action="/events/${e.id}/questions" novalidate>
      ${ui.csrf(req)}
      <div class="grid4">
        ${ui.select(fq, 'problem_id', 'Problem', [{ value: '', label: '— choose —' }, ...options.problems.map((p) => ({ value: p.id, label: `${p.title}${p.category ? ` (${p.category})` : ''}` }))])}
        ${ui.input(fq, 'position', 'Position', { type: 'number', help: 'Empty: a new question after the last.', attrs: { min: 1 } })}
        ${ui.select(fq, 'section_id', 'For', [{ value: '', label: 'All sections' }, ...options.sections.map((s) => ({ value: s.id, label: `Only section ${s.code} (variant)` }))], { help: 'A variant replaces the all-sections version of that position for one section.' })}
        ${ui.input(fq, 'max_marks', 'Max marks', { type: 'number', attrs: { min: 0, step: '0.5' } })}
      </div>
      <div class="formactions"><button class="btn primary" type="submit" id="add-question">Add question</button></div>
    </form>
  </details>
</div>

<div class="card" id="schedules">
  <h2>Schedules</h2>
  ${schedules.length ? html`<table class="list compact"><thead><tr><th>Sections</th><th>Start</th><th>Stop</th><th>Length</th><th>State</th><th></th></tr></thead>
  <tbody>${schedules.map((s) => html`<tr><td>${s.sections.map((x, i) => html`${i ? ', ' : ''}<strong>${x.code}</strong> <span class="muted small">(${x.students} students)</span>`)}</td>
  <td>${time(s.start_time)}</td><td>${time(s.stop_time)}</td><td>${duration(s.stop_time - s.start_time)}</td><td>${state(s.start_time, s.stop_time, now)}</td>
  <td class="actions">${e.published_at ? '' : ui.actionForm(req, `/events/${e.id}/schedules/${s.id}/delete`, 'Delete', { cls: 'btn small danger', confirm: 'Delete this schedule?' })}</td></tr>`)}</tbody></table>`
  : html`<p class="empty">No section is scheduled yet.</p>`}
  <details class="addbox"${forms.schedule || !schedules.length ? html` open` : ''}><summary>Schedule sections</summary>
    ${ui.formError(forms.schedule)}
    <form method="post" action="/events/${e.id}/schedules" novalidate>
      ${ui.csrf(req)}<input type="hidden" name="tz_offset" value="0">
      <div class="field${fs.errors && fs.errors.section_ids ? ' has-error' : ''}"><label>Sections</label>
        <div class="checks">${options.sections.filter((s) => !slottedIds.has(s.id)).map((s) => html`<label class="checklabel"><input type="checkbox" name="section_ids" value="${s.id}"${[].concat(fs.values.section_ids || []).map(String).includes(String(s.id)) ? html` checked` : ''}> ${s.code} <span class="muted small">${s.name} · ${s.students} students</span></label>`)}</div>
        ${fs.errors && fs.errors.section_ids ? html`<p class="field-error">${fs.errors.section_ids}</p>` : ''}
      </div>
      <div class="grid3">
        ${ui.input(fs, 'start', 'Start (your local time)', { type: 'datetime-local', attrs: { 'data-default-now': '1' } })}
        ${ui.input(fs, 'duration', 'Duration (minutes)', { type: 'number', attrs: { min: 1 } })}
        ${ui.checkbox(fs, 'start_now', 'Start now (ignore the start time)')}
      </div>
      <div class="formactions"><button class="btn primary" type="submit" id="add-schedule">Add schedule</button>${e.published_at ? html`<span class="muted small">The event is published: the new sections' students get their assignments at once.</span>` : ''}</div>
    </form>
  </details>
</div>

${e.published_at && timing ? pauseCard(req, e, timing, forms) : ''}

${e.published_at ? html`<div class="card" id="extend">
  <h2>Extend or end time</h2>
  <div class="grid2">
    <form method="post" action="/events/${e.id}/extend-section" novalidate>
      ${ui.csrf(req)}
      ${ui.formError(forms.extendSection)}
      <div class="grid2">
        ${ui.select(forms.extendSection || {}, 'section_id', 'Section', slotted.map((s) => ({ value: s.id, label: s.code })))}
        ${ui.input(forms.extendSection || {}, 'minutes', 'Minutes to add', { type: 'number', def: '10', attrs: { min: 1 } })}
      </div>
      <div class="formactions"><button class="btn" type="submit" id="extend-section">Extend section</button>
        <button class="btn danger" type="submit" id="end-section" formaction="/events/${e.id}/end-section" data-confirm="End this section's time now? Open editors close; the last saves are graded.">End now</button></div>
    </form>
    <form method="post" action="/events/${e.id}/extend-student" novalidate>
      ${ui.csrf(req)}
      ${ui.formError(forms.extendStudent)}
      <div class="grid2">
        ${ui.input(forms.extendStudent || {}, 'username', 'Student username')}
        ${ui.input(forms.extendStudent || {}, 'minutes', 'Minutes to add', { type: 'number', def: '10', attrs: { min: 1 } })}
      </div>
      <div class="formactions"><button class="btn" type="submit" id="extend-student">Extend student</button></div>
    </form>
  </div>
</div>` : ''}

<div class="cols">
<form method="post" action="/events/${e.id}" class="card" novalidate>
  <h2>Details</h2>
  ${ui.formError(forms.edit)}
  ${eventFields(req, fe)}
  <div class="formactions"><button class="btn primary" type="submit">Save details</button></div>
</form>
<div class="card">
  <h2>After the event</h2>
  <p class="muted small">When every section (and every extended student) has finished, the event's problems can become practice problems with all their test cases visible. The problems are changed in place, so the students' past work stays linked to them.</p>
  ${isAdmin && ended ? ui.actionForm(req, `/events/${e.id}/practice`, 'Turn into practice', { cls: 'btn', id: 'to-practice', confirm: 'Make this event\'s problems practice problems and show all their test cases?' }) : html`<button class="btn" disabled>Turn into practice</button>`}
  ${!e.published_at ? html`<h2>Delete</h2>${ui.actionForm(req, `/events/${e.id}/delete`, 'Delete event', { cls: 'btn danger', confirm: `Delete "${e.title}"?` })}` : ''}
</div>
</div>
<p class="muted small">Times are shown in your browser's time zone; stored in UTC (${iso(now)}).</p>`,
  });
}

module.exports = { listPage, newPage, eventPage, accommodationsPage };
