'use strict';
// LTI pages: the admin's platform list and form, a platform's page (its courses and
// the configuration to copy into the LMS), and the page for a target link opened
// outside the LMS. Compiled once (tagged templates), escaped by html``.
const { html } = require('../shared/html');
const { layout } = require('../shared/layout');
const { time } = require('../shared/format');
const ui = require('../lib/ui');

// What an LMS admin types into the LMS's tool registration.
function toolConfig(origin) {
  return [
    { label: 'Tool URL / target link URI', value: `${origin}/lti/launch`, id: 'cfg-launch' },
    { label: 'Login initiation URL (OpenID Connect)', value: `${origin}/lti/login`, id: 'cfg-login' },
    { label: 'Redirection URI(s)', value: `${origin}/lti/launch`, id: 'cfg-redirect' },
    { label: 'Public keyset URL (JWKS)', value: `${origin}/lti/jwks`, id: 'cfg-jwks' },
    { label: 'Deep link to an event (custom target)', value: `${origin}/lti/event/<event id>`, id: 'cfg-event' },
    { label: 'Deep link to a problem (practice)', value: `${origin}/lti/problem/<problem id>`, id: 'cfg-problem' },
    { label: 'Services to enable', value: 'IMS LTI Assignment and Grade Services (scores); share name and email with the tool', id: 'cfg-services' },
    { label: 'Launch container', value: 'New window (this site refuses to be framed)', id: 'cfg-container' },
  ];
}

const configCard = (tool) => html`<div class="card" id="tool-config"><h2>Configuration for the LMS</h2>
<p class="muted">Register this tool in the LMS as an LTI 1.3 (Advantage) tool with these values, then register the LMS here with what it shows you (issuer, client id, its URLs and the deployment id).</p>
<dl class="kv">${tool.map((t) => html`<dt>${t.label}</dt><dd><code id="${t.id}">${t.value}</code></dd>`)}</dl></div>`;

function platformsPage(req, { platforms, tool }) {
  return ui.page(req, {
    title: 'LTI platforms',
    active: '/admin',
    body: html`${ui.crumbs([{ href: '/admin', label: 'Admin' }, { label: 'LTI platforms' }])}
<div class="pagehead"><div><h1>LTI platforms</h1><p class="muted">The LMSs (Moodle, Canvas, ...) whose courses launch this tool. Launches from any other are refused.</p></div>
<div class="actions"><a class="btn primary" href="/lti/admin/new" id="new-platform">Register a platform</a>
${ui.actionForm(req, '/lti/admin/registration-links', 'Make a dynamic registration link', { cls: 'btn', id: 'new-registration-link' })}</div></div>
${platforms.length ? html`<table class="list" id="platforms"><thead><tr><th>Name</th><th>Issuer</th><th>Client id</th><th>Deployments</th><th class="num">Courses</th><th class="num">Users</th></tr></thead>
<tbody>${platforms.map((p) => html`<tr><td><a href="/lti/admin/${p.id}">${p.name}</a></td><td><code>${p.issuer}</code></td><td><code>${p.client_id}</code></td><td>${p.deployments.join(', ')}</td><td class="num">${p.contexts}</td><td class="num">${p.users}</td></tr>`)}</tbody></table>`
    : html`<p class="empty">No platform is registered yet.</p>`}
${configCard(tool)}`,
  });
}

function platformForm(req, { id = null, f }) {
  return ui.page(req, {
    title: id ? 'Edit LTI platform' : 'Register an LTI platform',
    active: '/admin',
    body: html`${ui.crumbs([{ href: '/admin', label: 'Admin' }, { href: '/lti/admin', label: 'LTI platforms' }, { label: id ? 'Edit' : 'New' }])}
<h1>${id ? 'Edit LTI platform' : 'Register an LTI platform'}</h1>
${ui.formError(f)}
<form method="post" action="${id ? `/lti/admin/${id}` : '/lti/admin'}" class="card form" id="platform-form" novalidate>
${ui.csrf(req)}
${ui.input(f, 'name', 'Name', { required: true, help: 'How admins here call it, e.g. "University Moodle".' })}
${ui.input(f, 'issuer', 'Issuer (platform ID)', { required: true, help: 'The iss of its tokens, e.g. https://moodle.example.edu' })}
${ui.input(f, 'client_id', 'Client id', { required: true, help: 'The id the LMS gave this tool.' })}
${ui.input(f, 'auth_login_url', 'Authentication (OIDC) URL', { required: true, help: 'Moodle: /mod/lti/auth.php; Canvas: /api/lti/authorize_redirect' })}
${ui.input(f, 'token_url', 'Access token URL', { required: true, help: 'Used for grade passback (client credentials).' })}
${ui.input(f, 'jwks_url', 'Public keyset (JWKS) URL', { required: true, help: 'Its keys; every launch token is checked against them.' })}
${ui.textarea(f, 'deployments', 'Deployment ids', { required: true, rows: 3, mono: true, help: 'One per line (or comma separated). A launch from another deployment is refused.' })}
<div class="actions"><button type="submit" class="btn primary" id="save-platform">Save</button> <a class="btn" href="/lti/admin">Cancel</a></div>
</form>`,
  });
}

function platformPage(req, { p, sections, tool, saved }) {
  return ui.page(req, {
    title: p.name,
    active: '/admin',
    body: html`${ui.crumbs([{ href: '/admin', label: 'Admin' }, { href: '/lti/admin', label: 'LTI platforms' }, { label: p.name }])}
${saved ? ui.flash('ok', 'Saved.') : ''}
<div class="pagehead"><div><h1>${p.name}</h1><p class="muted">Registered ${time(p.created_at)}</p></div>
<div class="actions"><a class="btn" href="/lti/admin/${p.id}/edit" id="edit-platform">Edit</a>
${ui.actionForm(req, `/lti/admin/${p.id}/delete`, 'Delete', { cls: 'btn danger', id: 'delete-platform', confirm: 'Delete this platform? Its launches stop working; accounts stay.' })}</div></div>
<div class="card"><dl class="kv" id="platform">
<dt>Issuer</dt><dd><code>${p.issuer}</code></dd><dt>Client id</dt><dd><code>${p.client_id}</code></dd>
<dt>Authentication URL</dt><dd><code>${p.auth_login_url}</code></dd><dt>Access token URL</dt><dd><code>${p.token_url}</code></dd>
<dt>JWKS URL</dt><dd><code>${p.jwks_url}</code></dd><dt>Deployment ids</dt><dd>${p.deployments.map((d) => html`<code>${d}</code> `)}</dd></dl></div>
<div class="card" id="contexts"><h2>Courses</h2>
<p class="muted">Each LMS course is a section here, made at its first launch (code lti-...). Point a course to an existing section instead: its next launches put students there. Rosters: <a href="/lti/courses">LMS courses</a>.</p>
${p.contexts.length ? html`<table class="list"><thead><tr><th>LMS course</th><th>Section</th><th></th></tr></thead><tbody>
${p.contexts.map((c) => html`<tr><td>${c.title || c.context_id} <span class="muted small">${c.context_id}</span></td><td>${c.section_code} · ${c.section_name}</td>
<td><form method="post" action="/lti/admin/${p.id}/contexts" class="inline">${ui.csrf(req)}<input type="hidden" name="context_id" value="${c.context_id}">
<select name="section_id" aria-label="Section">${sections.map((s) => html`<option value="${s.id}"${s.id === c.section_id ? html` selected` : ''}>${s.code} · ${s.name}</option>`)}</select>
<button class="btn small" type="submit">Map</button></form></td></tr>`)}</tbody></table>` : html`<p class="empty">No launch from this platform yet.</p>`}
</div>
${configCard(tool)}`,
  });
}

function openFromLms(req) {
  return layout(req, {
    title: 'Open from your course',
    body: html`<h1>Open this activity from your course</h1><p>This link is the activity's address for the LMS. Open the activity from your course page in the LMS (Moodle, Canvas, ...), which signs you in here.</p>`,
  });
}

const STATUS = { sent: 'ok', pending: '', refused: 'bad' };

// Per student: the score sent to the LMS line item and its delivery.
function gradesPage(req, { event, rows, done }) {
  return ui.page(req, {
    title: `LMS grades: ${event.title}`,
    active: '/events',
    body: html`${ui.crumbs([{ href: '/events', label: 'Events' }, { href: `/events/${event.id}`, label: event.title }, { label: 'LMS grades' }])}
${done ? ui.flash('ok', 'Due scores were sent now.') : ''}
<div class="pagehead"><div><h1>LMS grades</h1><p class="muted">${event.grades_released_at
    ? html`Marks released ${time(event.grades_released_at)}: each student's total marks go to the line item of every LMS activity that opens this event, and again when they change.`
    : 'Marks are not released: nothing is sent to the LMS until they are.'}</p></div>
<div class="actions">${ui.actionForm(req, `/lti/grades/${event.id}/send`, 'Send due and refused scores now', { cls: 'btn primary', id: 'send-grades' })}</div></div>
${rows.length ? html`<table class="list" id="lti-grades"><thead><tr><th>Student</th><th>Activity</th><th class="num">Score</th><th>Status</th><th class="num">Attempts</th><th>Sent</th><th>LMS answer</th></tr></thead>
<tbody>${rows.map((r) => html`<tr data-user="${r.username}"><td>${r.name} <span class="muted small">${r.username}</span></td><td class="small">${r.resource_link_id}</td>
<td class="num">${Number(r.score_given)} / ${Number(r.score_max)}</td><td><span class="pill ${STATUS[r.status]}">${r.status}</span>${r.status === 'pending' && r.attempts ? html` <span class="muted small">next try ${time(r.next_try_at)}</span>` : ''}</td>
<td class="num">${r.attempts}</td><td>${r.sent_at ? time(r.sent_at) : ''}</td><td class="small">${r.last_error}</td></tr>`)}</tbody></table>`
    : html`<p class="empty">No score to send: no LMS activity with a line item opens this event, its students have not launched it, or the marks are not released.</p>`}`,
  });
}

// The LMS courses (each a section) and their rosters.
function coursesPage(req, { courses, msg = '', error = '' }) {
  return ui.page(req, {
    title: 'LMS courses',
    active: '/people',
    body: html`${ui.crumbs([{ href: '/people', label: 'People' }, { label: 'LMS courses' }])}
${msg ? ui.flash('ok', msg) : ''}${error ? ui.flash('error', error) : ''}
<h1>LMS courses</h1>
<p class="muted">Each course launched from an LMS is a section here. "Sync roster" makes the course's learners the section's students (added, updated, and removed from the section when they left the course); do it before an event opens. Students who launch are added anyway.</p>
${courses.length ? html`<table class="list" id="lti-courses"><thead><tr><th>Course</th><th>LMS</th><th>Section</th><th class="num">Students</th><th>Last sync</th><th></th></tr></thead>
<tbody>${courses.map((c) => html`<tr><td>${c.title || c.context_id}</td><td>${c.platform_name}</td><td>${c.section_code} · ${c.section_name}</td><td class="num">${c.students}</td>
<td class="small">${c.roster_synced_at ? html`${time(c.roster_synced_at)}: ${c.roster_result}` : html`<span class="muted">never</span>`}</td>
<td>${c.has_roster ? ui.actionForm(req, '/lti/courses/sync', 'Sync roster', { hidden: { platform_id: c.platform_id, context_id: c.context_id } }) : html`<span class="muted small">the LMS offers no roster</span>`}</td></tr>`)}</tbody></table>`
    : html`<p class="empty">No course has launched this tool yet.</p>`}`,
  });
}

// Safe Exam Browser for one event.
function sebPage(req, { event, on, f, saved = false, origin }) {
  return ui.page(req, {
    title: `Safe Exam Browser: ${event.title}`,
    active: '/events',
    body: html`${ui.crumbs([{ href: '/events', label: 'Events' }, { href: `/events/${event.id}`, label: event.title }, { label: 'Safe Exam Browser' }])}
${saved ? ui.flash('ok', 'Saved. Every worker applies it within a few seconds.') : ''}${ui.formError(f)}
<h1>Safe Exam Browser</h1>
<p id="seb-state">${on ? html`<span class="pill ok">required</span> students open this event's exam pages and save only from Safe Exam Browser with one of the keys below; any other browser gets a 403 with an explanation.`
    : html`<span class="pill">not required</span> students may use any browser.`}</p>
<div class="card"><h2>1. The configuration</h2>
<p>Download <a href="/lti/seb/${event.id}/config.seb" id="seb-download">event-${event.id}.seb</a> (start page <code>${origin}/exam/${event.id}</code>). Open it in SEB's configuration tool, change what the exam needs, save it, and give it to the students or the lab; the tool shows its <strong>Config Key</strong>.</p></div>
<form method="post" action="/lti/seb/${event.id}" class="card form" id="seb-form" novalidate>
<h2>2. The keys this event accepts</h2>
${ui.csrf(req)}
${ui.checkbox(f, 'required', 'Require Safe Exam Browser for this event')}
${ui.textarea(f, 'config_keys', 'Config Keys', { rows: 3, mono: true, help: 'One per line: the Config Key SEB\'s configuration tool shows for the .seb file (64 hexadecimal characters). Checked against X-SafeExamBrowser-ConfigKeyHash.' })}
${ui.textarea(f, 'browser_exam_keys', 'Browser Exam Keys (optional)', { rows: 3, mono: true, help: 'One per line, for labs that pin the SEB build as well. Checked against X-SafeExamBrowser-RequestHash.' })}
${ui.input(f, 'quit_url', 'Quit URL (optional)', { help: 'A link on the last page that quits SEB; goes into the .seb file.' })}
<div class="actions"><button type="submit" class="btn primary" id="save-seb">Save</button></div>
</form>`,
  });
}

// Deep Linking: pick what the LMS course gets.
function deepLinkPage(req, { dl, events, problems, error = '' }) {
  const type = dl.multiple ? 'checkbox' : 'radio';
  return ui.page(req, {
    title: 'Add to your LMS course',
    active: '/events',
    body: html`<h1>Add to your LMS course</h1>
${error ? ui.flash('error', error) : ''}
<p class="muted">Choose ${dl.multiple ? 'the events or problems' : 'the event or problem'} the course gets as activities. An event's activity gets a grade column (the sum of its questions' marks); its students' marks go there once you release them.</p>
<form method="post" action="/lti/deeplink" class="card form" id="deeplink-form">${ui.csrf(req)}
<h2>Events</h2>
${events.length ? html`<ul class="plain">${events.map((e) => html`<li><label><input type="${type}" name="item" value="event:${e.id}"> ${e.title} <span class="muted small">${e.type}${e.published_at ? '' : ', not published'}${e.max_marks ? html`, ${Number(e.max_marks)} marks` : ''}</span></label></li>`)}</ul>` : html`<p class="empty">No events yet.</p>`}
<h2>Practice problems</h2>
${problems.length ? html`<ul class="plain">${problems.map((p) => html`<li><label><input type="${type}" name="item" value="problem:${p.id}"> ${p.title} <span class="muted small">${p.category}</span></label></li>`)}</ul>` : html`<p class="empty">No practice problems.</p>`}
<h2>Accounts</h2>
<ul class="plain"><li><label><input type="${type}" name="item" value="link:account"> Link your Prutor account <span class="muted small">for students who already have a password account here</span></label></li></ul>
<div class="actions"><button type="submit" class="btn primary" id="deeplink-submit">Add to the course</button></div>
</form>`,
  });
}

// The signed answer, posted by the instructor's browser to the LMS.
function deepLinkReturn(req, { returnUrl, jwt, items }) {
  return ui.page(req, {
    title: 'Back to the LMS',
    active: '/events',
    body: html`<h1>Back to the LMS</h1>
<p>${items.length} ${items.length === 1 ? 'activity is' : 'activities are'} ready: ${items.map((i) => i.title).join(', ')}.</p>
<form method="post" action="${returnUrl}" id="deeplink-return"><input type="hidden" name="JWT" value="${jwt}">
<button type="submit" class="btn primary" id="deeplink-back">Return to the LMS and add ${items.length === 1 ? 'it' : 'them'}</button></form>`,
  });
}

// The one-time link for an LMS's dynamic registration, shown once.
function registrationLinkPage(req, { url, hours }) {
  return ui.page(req, {
    title: 'Dynamic registration link',
    active: '/admin',
    body: html`${ui.crumbs([{ href: '/admin', label: 'Admin' }, { href: '/lti/admin', label: 'LTI platforms' }, { label: 'Registration link' }])}
<h1>Dynamic registration link</h1>
<p>Paste this into the LMS's "register a tool by URL" (Moodle: Site administration > Plugins > External tool > Manage tools; Canvas and others: LTI Dynamic Registration). It works once, for ${hours} hours; it is not shown again.</p>
<p><code id="registration-url">${url}</code></p>
<p class="muted">The LMS then appears under LTI platforms with the client id and deployment id it chose.</p>`,
  });
}

// The page the LMS frames at the end of a dynamic registration.
function registeredPage(req, { error = '', name, issuer, clientId, deploymentId }) {
  return layout(req, {
    title: error ? 'Registration failed' : 'Registered',
    body: error ? html`<h1>The registration failed</h1><p class="flash error" role="alert" id="registration-error">${error}</p>`
      : html`<h1>Prutor is registered</h1><p id="registration-done">${name}: issuer <code>${issuer}</code>, client id <code>${clientId}</code>${deploymentId ? html`, deployment <code>${deploymentId}</code>` : html`. The LMS gave no deployment id: an admin of this tool adds it on the platform's page`}.</p>
<p>You can close this page.</p><script src="/lti/register-close.js" defer></script>`,
  });
}

// Linking the LMS identity to the student's own password account.
function linkPage(req, { can, error = '', username = '' }) {
  return layout(req, {
    title: 'Link your Prutor account',
    body: html`<h1>Link your Prutor account</h1>
${error ? html`<p class="flash error" role="alert" id="link-error">${error}</p>` : ''}
${can.ok ? html`<p>Your LMS signed you in with an account it made here. If you already have a Prutor account (a username and password from your instructor), link it: from then on your LMS signs you into that account, with its work, and the LMS-made one is closed. Only you can do this, with your password.</p>
<form method="post" action="/lti/link" class="card form" id="link-form">
<input type="hidden" name="_csrf" value="${req.session.csrf}">
<div class="field"><label for="f-username">Username</label><input id="f-username" name="username" autocomplete="username" value="${username}" required></div>
<div class="field"><label for="f-password">Password</label><input id="f-password" name="password" type="password" autocomplete="current-password" required></div>
<div class="actions"><button type="submit" class="btn primary" id="link-submit">Link my account</button> <a class="btn" href="/home">Not now</a></div>
</form>` : html`<p id="link-none">${can.why}</p><p><a href="/home">Home</a></p>`}`,
  });
}

module.exports = { linkPage, registrationLinkPage, registeredPage, toolConfig, platformsPage, platformForm, platformPage, openFromLms, gradesPage, coursesPage, sebPage, deepLinkPage, deepLinkReturn };
