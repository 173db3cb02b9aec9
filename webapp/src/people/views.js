'use strict';
const { html } = require('../shared/html');
const { time } = require('../shared/format');
const ui = require('../lib/ui');

const ROLE_LABEL = { student: 'Student', ta: 'TA', instructor: 'Instructor', admin: 'Admin' };
const roleOptions = (actorRole) => ['student', 'ta', 'instructor', 'admin']
  .filter((r) => actorRole === 'admin' || r !== 'admin').map((r) => ({ value: r, label: ROLE_LABEL[r] }));
const sectionOptions = (sections, blank = '— none —') => [{ value: '', label: blank }, ...sections.map((s) => ({ value: s.id, label: `${s.code} · ${s.name}` }))];

function head(title, sub, actions) {
  return html`<div class="pagehead"><div><h1>${title}</h1>${sub ? html`<p class="muted">${sub}</p>` : ''}</div>${actions ? html`<div class="actions">${actions}</div>` : ''}</div>`;
}

function listPage(req, { rows, truncated, sections, filters, flash }) {
  const f = { values: filters };
  return ui.page(req, {
    title: 'People',
    active: '/people',
    body: html`${head('People', 'Accounts and sections of the course.', html`<a class="btn" href="/people/sections">Sections</a> <a class="btn" href="/people/import">Import CSV</a> <a class="btn primary" href="/people/new">New account</a>`)}
${ui.flash('ok', flash)}
<form method="get" action="/people" class="filters card">
  ${ui.input(f, 'q', 'Search', { attrs: { placeholder: 'username, name or email' } })}
  ${ui.select(f, 'section', 'Section', [{ value: '', label: 'All sections' }, { value: 'none', label: 'No section' }, ...sections.map((s) => ({ value: s.id, label: s.code }))])}
  ${ui.select(f, 'role', 'Role', [{ value: '', label: 'All roles' }, ...roleOptions('admin')])}
  ${ui.select(f, 'status', 'Status', [{ value: '', label: 'Active and inactive' }, { value: 'active', label: 'Active' }, { value: 'inactive', label: 'Deactivated' }])}
  <div><button class="btn" type="submit">Filter</button></div>
</form>
<p class="muted small">${rows.length} account${rows.length === 1 ? '' : 's'}${truncated ? ' (the first 1000; narrow the filter)' : ''}.</p>
${rows.length ? html`<div class="card tablewrap"><table class="list compact" id="people">
<thead><tr><th>Username</th><th>Name</th><th>Email</th><th>Role</th><th>Section</th><th>Last sign-in</th><th>Status</th><th></th></tr></thead>
<tbody>${rows.map((u) => html`<tr data-username="${u.username}">
  <td><a href="/people/${u.id}">${u.username}</a></td><td>${u.name}</td><td class="small">${u.email}</td>
  <td><span class="tag">${ROLE_LABEL[u.role]}</span></td><td>${u.section_code || ''}</td>
  <td class="small">${u.last_login_at ? time(u.last_login_at) : html`<span class="muted">never</span>`}</td>
  <td>${u.active ? html`<span class="pill ok">active</span>` : html`<span class="pill bad">deactivated</span>`}</td>
  <td class="actions"><a class="btn small" href="/people/${u.id}">Edit</a></td>
</tr>`)}</tbody></table></div>` : html`<p class="empty">No account matches.</p>`}`,
  });
}

function newPage(req, { sections, form = {} }) {
  return ui.page(req, {
    title: 'New account',
    active: '/people',
    body: html`${ui.crumbs([{ href: '/people', label: 'People' }, { label: 'New account' }])}
${head('New account')}
${ui.formError(form)}
<form method="post" action="/people" class="card" novalidate>
  ${ui.csrf(req)}
  <div class="grid2">
    ${ui.input(form, 'username', 'Username', { required: true, attrs: { autocomplete: 'off' } })}
    ${ui.input(form, 'name', 'Full name', { required: true })}
    ${ui.input(form, 'email', 'Email', { type: 'email' })}
    ${ui.select(form, 'role', 'Role', roleOptions(req.session.role), { def: 'student' })}
    ${ui.select(form, 'section_id', 'Section', sectionOptions(sections), { help: 'Required for students.' })}
    ${ui.select(form, 'password_mode', 'Password', [{ value: 'generate', label: 'Generate a temporary password (shown once)' }, { value: 'set', label: 'Set it now' }])}
    ${ui.input(form, 'password', 'Password (when set now)', { type: 'password', help: 'At least 8 characters.', attrs: { autocomplete: 'new-password' } })}
  </div>
  <div class="formactions"><button class="btn primary" type="submit">Create account</button><a href="/people">Cancel</a></div>
</form>`,
  });
}

function passwordNotice(username, password) {
  return password ? html`<div class="flash ok" role="status" id="password-notice">Temporary password of <strong>${username}</strong>: <span class="secret">${password}</span> — shown once; give it to the person, who should change it after signing in.</div>` : '';
}

function editPage(req, { user, sections, form = {}, flash, password }) {
  const fresh = { values: { name: user.name, email: user.email, role: user.role, section_id: user.section_id || '' } };
  const f = form.values ? form : fresh;
  return ui.page(req, {
    title: user.username,
    active: '/people',
    body: html`${ui.crumbs([{ href: '/people', label: 'People' }, { label: user.username }])}
${head(html`${user.username} ${user.active ? '' : html`<span class="pill bad">deactivated</span>`}`, html`Created ${time(user.created_at)} · last sign-in ${user.last_login_at ? time(user.last_login_at) : 'never'}`)}
${ui.flash('ok', flash)}
${passwordNotice(user.username, password)}
${ui.formError(form)}
<div class="cols">
<form method="post" action="/people/${user.id}" class="card" novalidate>
  <h2>Account</h2>
  ${ui.csrf(req)}
  ${ui.input(f, 'name', 'Full name', { required: true })}
  ${ui.input(f, 'email', 'Email', { type: 'email' })}
  <div class="grid2">
  ${ui.select(f, 'role', 'Role', roleOptions(req.session.role))}
  ${ui.select(f, 'section_id', 'Section', sectionOptions(sections))}
  </div>
  <div class="formactions"><button class="btn primary" type="submit">Save</button></div>
</form>
<div>
<form method="post" action="/people/${user.id}/password" class="card" novalidate>
  <h2>Reset password</h2>
  ${ui.csrf(req)}
  ${ui.select({}, 'password_mode', 'New password', [{ value: 'generate', label: 'Generate a temporary password' }, { value: 'set', label: 'Set this one' }])}
  ${ui.input({}, 'password', 'Password (when set)', { type: 'password', attrs: { autocomplete: 'new-password' } })}
  <div class="formactions"><button class="btn" type="submit" id="reset-password">Reset password</button></div>
</form>
<div class="card">
  <h2>Access</h2>
  ${user.active
    ? html`<p class="muted small">A deactivated account cannot sign in; its work is kept.</p>${ui.actionForm(req, `/people/${user.id}/deactivate`, 'Deactivate account', { cls: 'btn danger', confirm: `Deactivate ${user.username}? They will not be able to sign in.` })}`
    : html`<p class="muted small">This account is deactivated.</p>${ui.actionForm(req, `/people/${user.id}/activate`, 'Reactivate account', { cls: 'btn' })}`}
</div>
</div>
</div>`,
  });
}

function importPage(req, { form = {} }) {
  return ui.page(req, {
    title: 'Import accounts',
    active: '/people',
    body: html`${ui.crumbs([{ href: '/people', label: 'People' }, { label: 'Import CSV' }])}
${head('Import accounts from CSV', 'One account per line: username,name,email,section,role. A header line with these names is optional (then the columns may come in any order). Email and role may be empty (role defaults to student). Existing usernames are skipped, never changed.')}
${ui.formError(form)}
<form method="post" action="/people/import" class="card" novalidate>
  ${ui.csrf(req)}
  <label for="csv-file">CSV file</label>
  <input type="file" id="csv-file" accept=".csv,text/csv,text/plain" data-fill="f-csv">
  ${ui.textarea(form, 'csv', 'or paste the rows', { rows: 12, mono: true, help: 'Example: student31,Asha Rao,asha@example.edu,A,student', attrs: { placeholder: 'username,name,email,section,role' } })}
  <div class="grid2">
    ${ui.select(form, 'password_mode', 'Passwords', [{ value: 'generate', label: 'A temporary password per account (listed once in the report)' }, { value: 'shared', label: 'One initial password for everyone' }])}
    ${ui.input(form, 'shared_password', 'Initial password (when shared)', { type: 'password', help: 'At least 8 characters. Ask everyone to change it after signing in.', attrs: { autocomplete: 'new-password' } })}
  </div>
  ${ui.checkbox(form, 'create_sections', 'Create missing sections', { def: true, help: 'Section codes that do not exist yet are created; otherwise such rows are reported as wrong.' })}
  <div class="formactions"><button class="btn primary" type="submit" id="import-submit">Import</button><a href="/people">Cancel</a></div>
</form>`,
  });
}

const STATUS_LABEL = { created: 'created', skipped: 'skipped', wrong: 'wrong' };

function reportPage(req, { result }) {
  const { report, counts, mode, sectionsCreated } = result;
  return ui.page(req, {
    title: 'Import report',
    active: '/people',
    body: html`${ui.crumbs([{ href: '/people', label: 'People' }, { href: '/people/import', label: 'Import CSV' }, { label: 'Report' }])}
${head('Import report', html`${counts.created || 0} created, ${counts.skipped || 0} skipped, ${counts.wrong || 0} wrong.${sectionsCreated.length ? html` New sections: ${sectionsCreated.join(', ')}.` : ''}`,
  html`<button type="button" class="btn" data-download-table="import-report" data-filename="import-report.csv" hidden>Download report (CSV)</button> <a class="btn" href="/people/import">Import more</a>`)}
<div class="stats">
  <div class="stat"><span>Created</span><strong id="count-created">${counts.created || 0}</strong></div>
  <div class="stat"><span>Skipped</span><strong id="count-skipped">${counts.skipped || 0}</strong></div>
  <div class="stat"><span>Wrong</span><strong id="count-wrong">${counts.wrong || 0}</strong></div>
</div>
${mode === 'generate' && counts.created ? html`<div class="flash ok">The temporary passwords below are shown only now. Download the report or copy them before leaving this page.</div>` : ''}
<div class="card tablewrap"><table class="list compact report" id="import-report">
<thead><tr><th>Line</th><th>Username</th><th>Name</th><th>Section</th><th>Role</th><th>Result</th><th>Details</th>${mode === 'generate' ? html`<th>Temporary password</th>` : ''}</tr></thead>
<tbody>${report.map((r) => html`<tr class="row-${r.status}">
  <td class="num">${r.line}</td><td>${r.username}</td><td>${r.name}</td><td>${r.section}</td><td>${r.role}</td>
  <td class="status st-${r.status}">${STATUS_LABEL[r.status] || r.status}</td><td class="small">${r.message}</td>
  ${mode === 'generate' ? html`<td>${r.password ? html`<span class="secret">${r.password}</span>` : ''}</td>` : ''}
</tr>`)}</tbody></table></div>`,
  });
}

function sectionsPage(req, { sections, form = {}, flash }) {
  return ui.page(req, {
    title: 'Sections',
    active: '/people',
    body: html`${ui.crumbs([{ href: '/people', label: 'People' }, { label: 'Sections' }])}
${head('Sections', 'Students sit events by section: each section gets a schedule (slot) of an event.')}
${ui.flash('ok', flash)}
${ui.formError(form)}
<div class="cols">
<div class="card tablewrap">
${sections.length ? html`<table class="list" id="sections"><thead><tr><th>Code</th><th>Name</th><th class="num">Active students</th><th></th></tr></thead>
<tbody>${sections.map((s) => html`<tr><td><strong>${s.code}</strong></td><td>${s.name}</td><td class="num">${s.students}</td><td class="actions"><a class="btn small" href="/people?section=${s.id}">Members</a></td></tr>`)}</tbody></table>`
  : html`<p class="empty">No sections yet.</p>`}
</div>
<form method="post" action="/people/sections" class="card" novalidate>
  <h2>New section</h2>
  ${ui.csrf(req)}
  ${ui.input(form, 'code', 'Code', { required: true, help: 'Short and unique, e.g. A or MON-LAB; used in CSV imports.' })}
  ${ui.input(form, 'name', 'Name', { required: true, help: 'e.g. Section A (Monday lab)' })}
  <div class="formactions"><button class="btn primary" type="submit">Add section</button></div>
</form>
</div>`,
  });
}

function createdPage(req, { created }) {
  return ui.page(req, {
    title: 'Account created',
    active: '/people',
    body: html`${ui.crumbs([{ href: '/people', label: 'People' }, { label: created.username }])}
${head('Account created')}
${created.password ? passwordNotice(created.username, created.password) : html`<div class="flash ok">The account <strong>${created.username}</strong> was created with the password you set.</div>`}
<p><a class="btn" href="/people/${created.id}">Open the account</a> <a class="btn" href="/people/new">Create another</a> <a class="btn" href="/people">Back to people</a></p>`,
  });
}

module.exports = { listPage, newPage, editPage, importPage, reportPage, sectionsPage, createdPage };
