'use strict';
const { html, jsonForScript } = require('../shared/html');
const { time } = require('../shared/format');
const { renderMarkdown } = require('../shared/markdown');
const ui = require('../staff/ui');

function head(title, sub, actions) {
  return html`<div class="pagehead"><div><h1>${title}</h1>${sub ? html`<p class="muted">${sub}</p>` : ''}</div>${actions ? html`<div class="actions">${actions}</div>` : ''}</div>`;
}

function listPage(req, { rows, archived, flash }) {
  return ui.page(req, {
    title: archived ? 'Archived problems' : 'Problems',
    active: '/problems',
    body: html`${head(archived ? 'Archived problems' : 'Problems', 'Statements, reference solutions and test cases, used by events and practice.',
    html`${archived ? html`<a class="btn" href="/problems">Current problems</a>` : html`<a class="btn" href="/problems?archived=1" id="show-archived">Archived</a>`} <a class="btn primary" href="/problems/new">New problem</a>`)}
${ui.flash('ok', flash)}
${rows.length ? html`<div class="card tablewrap"><table class="list" id="problems">
<thead><tr><th>Title</th><th>Category</th><th>Env</th><th class="num">Visible tests</th><th class="num">Hidden tests</th><th class="num">Events</th><th>Practice</th><th>Updated</th></tr></thead>
<tbody>${rows.map((p) => html`<tr><td><a href="/problems/${p.id}">${p.title}</a></td><td>${p.category}</td><td>${p.env}</td>
<td class="num">${p.visible_tests}</td><td class="num">${p.hidden_tests}</td><td class="num">${p.events}</td>
<td>${p.is_practice ? html`<span class="tag tag-practice">practice</span>` : ''}</td><td class="small">${time(p.updated_at)}</td></tr>`)}</tbody>
</table></div>` : html`<p class="empty">No problems yet.</p>`}`,
  });
}

function problemFields(req, f, envs) {
  return html`${ui.csrf(req)}
  <div class="grid2">
    ${ui.input(f, 'title', 'Title', { required: true })}
    ${ui.input(f, 'category', 'Category', { help: 'e.g. basics, loops, arrays' })}
  </div>
  ${ui.textarea(f, 'statement_md', 'Statement (Markdown)', { rows: 10, required: true, help: 'Markdown: paragraphs, # headings, lists, tables, [links](https://...), images, `code`, **bold**, *italic*, fenced code blocks. HTML is shown as text.' })}
  <p><button type="button" class="btn small" data-preview="f-statement_md" data-preview-into="statement-preview" id="preview-statement">Preview as students see it</button></p>
  <div class="statement card" id="statement-preview" hidden aria-live="polite"></div>
  <div class="grid2">
    ${ui.textarea(f, 'template_code', 'Template code (what students start from)', { rows: 10, mono: true })}
    ${ui.textarea(f, 'solution_code', 'Reference solution', { rows: 10, mono: true, required: true })}
  </div>
  <div class="grid4">
    ${ui.select(f, 'env', 'Environment', envs.map((e) => ({ value: e.slug, label: e.name })), { def: 'c', attrs: { 'data-templates': 'env-templates' } })}
    ${ui.input(f, 'time_limit_ms', 'Time limit (ms)', { type: 'number', def: '2000', attrs: { min: 100, max: 60000 } })}
    ${ui.input(f, 'memory_limit_mb', 'Memory limit (MB)', { type: 'number', def: '256', attrs: { min: 8, max: 4096 } })}
    ${ui.select(f, 'compare_mode', 'Output comparison', [{ value: 'trim', label: 'Ignore trailing whitespace' }, { value: 'exact', label: 'Exact' }])}
  </div>
  ${ui.checkbox(f, 'is_practice', 'Offer as a practice problem', { help: 'Practice problems are listed on the students\' practice page.' })}
  <script type="application/json" id="env-templates">${jsonForScript(Object.fromEntries(envs.map((e) => [e.slug, e.template])))}</script>`;
}

function newPage(req, { envs, form = {} }) {
  const first = envs.find((e) => e.slug === 'c') || envs[0];
  const f = form.values ? form : { values: { env: first && first.slug, template_code: (first && first.template) || '' } };
  return ui.page(req, {
    title: 'New problem',
    active: '/problems',
    body: html`${ui.crumbs([{ href: '/problems', label: 'Problems' }, { label: 'New problem' }])}
${head('New problem', 'Test cases are added on the next page.')}
${ui.formError(form)}
<form method="post" action="/problems" class="card" novalidate>
  ${problemFields(req, f, envs)}
  <div class="formactions"><button class="btn primary" type="submit" id="create-problem">Create problem</button><a href="/problems">Cancel</a></div>
</form>`,
  });
}

const VERDICT = {
  accepted: 'Accepted', wrong_answer: 'Wrong answer', compilation_error: 'Compilation error', time_limit: 'Time limit exceeded',
  memory_limit: 'Memory limit exceeded', output_limit: 'Output limit exceeded', runtime_error: 'Runtime error',
  forbidden_syscall: 'Forbidden system call', internal_error: 'Internal error', busy: 'Engine busy',
};

function checkResult(result) {
  if (!result) return '';
  if (result.error) return html`<div class="flash error" id="check-result" role="alert">${result.error}</div>`;
  const allOk = result.verdict === 'accepted' && result.total > 0;
  return html`<div class="card" id="check-result">
  <h2>Reference solution check: <span class="${allOk ? 'verdict-ok' : 'verdict-bad'}" id="check-verdict">${allOk ? 'all tests pass' : (result.total ? VERDICT[result.verdict] || result.verdict : 'no test cases')}</span></h2>
  <p class="muted">${result.passed} of ${result.total} test cases passed${result.from_cache ? ' (compiled binary from cache)' : ''}.</p>
  ${result.compile && result.compile.raw ? html`<pre class="code">${result.compile.raw}</pre>` : ''}
  ${result.cases && result.cases.length ? html`<table class="list compact" id="check-cases"><thead><tr><th>#</th><th>Visibility</th><th>Verdict</th><th>Expected</th><th>Actual</th><th class="num">Time</th></tr></thead>
  <tbody>${result.cases.map((c) => html`<tr class="${c.passed ? 'pass' : 'fail'}"><td>${c.position}</td><td>${c.visibility}</td>
  <td class="${c.passed ? 'verdict-ok' : 'verdict-bad'}">${VERDICT[c.verdict] || c.verdict || (c.passed ? 'Accepted' : 'Failed')}</td>
  <td><pre class="io">${c.expected}</pre></td><td><pre class="io">${c.actual}</pre>${c.stderr ? html`<pre class="io">${c.stderr}</pre>` : ''}</td><td class="num">${c.time_ms !== undefined ? `${c.time_ms} ms` : ''}</td></tr>`)}</tbody></table>` : ''}
</div>`;
}

function testRow(req, p, t, form, editId) {
  const editing = (form && form.testId === t.id) || editId === t.id;
  const f = form && form.testId === t.id ? form : { values: { input: t.input, expected_output: t.expected_output, visibility: t.visibility, weight: String(t.weight), position: String(t.position) } };
  return html`<tr id="tc-${t.id}" data-visibility="${t.visibility}"><td class="num">${t.position}</td><td><span class="pill ${t.visibility === 'hidden' ? 'bad' : 'info'}">${t.visibility}</span></td>
  <td><pre class="io">${t.input}</pre></td><td><pre class="io">${t.expected_output}</pre></td><td class="num">${t.weight}</td>
  <td class="actions">${editing ? '' : html`<a class="btn small" href="/problems/${p.id}?edit=${t.id}#tc-${t.id}">Edit</a>`}
    ${ui.actionForm(req, `/problems/${p.id}/tests/${t.id}/delete`, 'Delete', { cls: 'btn small danger', confirm: `Delete test case ${t.position}?` })}</td></tr>
  ${editing ? html`<tr class="editrow"><td colspan="6">
      <form method="post" action="/problems/${p.id}/tests/${t.id}" novalidate>
        ${ui.formError(form && form.testId === t.id ? form : null)}
        ${testFields(req, f)}
        <div class="formactions"><button class="btn small primary" type="submit">Save test case ${t.position}</button><a href="/problems/${p.id}#tests">Cancel</a></div>
      </form></td></tr>` : ''}`;
}

function testFields(req, f) {
  return html`${ui.csrf(req)}
  <div class="grid2">
    ${ui.textarea(f, 'input', 'Input (stdin)', { rows: 4, mono: true })}
    ${ui.textarea(f, 'expected_output', 'Expected output', { rows: 4, mono: true, required: true })}
  </div>
  <div class="grid3">
    ${ui.select(f, 'visibility', 'Visibility', [{ value: 'visible', label: 'Visible (students see input and output)' }, { value: 'hidden', label: 'Hidden (students see pass/fail only)' }])}
    ${ui.input(f, 'weight', 'Weight', { type: 'number', def: '1', attrs: { min: 0, max: 1000 } })}
    ${ui.input(f, 'position', 'Position', { type: 'number', help: 'Empty: after the last one.', attrs: { min: 1 } })}
  </div>`;
}

function problemPage(req, { p, tests, envs, form = {}, testForm, flash, error, check, editId }) {
  const f = form.values ? form : { values: {
    title: p.title, category: p.category, statement_md: p.statement_md, template_code: p.template_code, solution_code: p.solution_code,
    env: p.env, time_limit_ms: String(p.time_limit_ms), memory_limit_mb: String(Math.round(p.memory_limit_kb / 1024)), compare_mode: p.compare_mode,
    is_practice: p.is_practice ? '1' : '',
  } };
  const newTestForm = testForm && !testForm.testId ? testForm : { values: {} };
  const vis = tests.filter((t) => t.visibility === 'visible').length;
  return ui.page(req, {
    title: p.title,
    active: '/problems',
    body: html`${ui.crumbs([{ href: '/problems', label: 'Problems' }, { label: p.title }])}
${head(html`${p.title} ${p.is_practice ? html`<span class="tag tag-practice">practice</span>` : ''}${p.archived_at ? html` <span class="pill" id="archived">archived</span>` : ''}`, html`${p.category || 'no category'} · ${p.env} · ${p.time_limit_ms} ms · ${Math.round(p.memory_limit_kb / 1024)} MB · updated ${time(p.updated_at)}`,
    html`<a class="btn" href="/problems/${p.id}/files" id="support-files-link">Support files</a>
    ${ui.actionForm(req, `/problems/${p.id}/check`, 'Check against reference solution', { cls: 'btn primary', id: 'check-solution' })}
    ${p.archived_at ? ui.actionForm(req, `/problems/${p.id}/unarchive`, 'Restore', { cls: 'btn', id: 'unarchive-problem' })
    : ui.actionForm(req, `/problems/${p.id}/archive`, 'Archive', { cls: 'btn', id: 'archive-problem', confirm: 'Archive this problem? It disappears from the lists and from new events; nothing is deleted.' })}
    ${ui.actionForm(req, `/problems/${p.id}/delete`, 'Delete', { cls: 'btn danger', id: 'delete-problem', confirm: 'Delete this problem and its test cases for good?' })}`)}
${ui.flash('ok', flash)}
${error ? ui.flash('error', error) : ''}
${checkResult(check)}
<div class="card">
  <h2>Test cases <span class="muted small">${vis} visible, ${tests.length - vis} hidden</span></h2>
  ${tests.length ? html`<table class="list compact" id="tests"><thead><tr><th>#</th><th>Visibility</th><th>Input</th><th>Expected output</th><th class="num">Weight</th><th></th></tr></thead>
  <tbody>${tests.map((t) => testRow(req, p, t, testForm, editId))}</tbody></table>` : html`<p class="empty">No test cases yet. Add visible ones (students see them) and hidden ones (used for the score).</p>`}
  <details class="addbox" id="add-test"${testForm && !testForm.testId ? html` open` : (tests.length ? '' : html` open`)}><summary>Add a test case</summary>
    ${ui.formError(testForm && !testForm.testId ? testForm : null)}
    <form method="post" action="/problems/${p.id}/tests" novalidate>
      ${testFields(req, newTestForm)}
      <div class="formactions"><button class="btn primary" type="submit" id="add-test-submit">Add test case</button></div>
    </form>
  </details>
</div>
<div class="cols">
<form method="post" action="/problems/${p.id}" class="card" novalidate id="problem-form">
  <h2>Problem</h2>
  ${ui.formError(form)}
  ${problemFields(req, f, envs)}
  <div class="formactions"><button class="btn primary" type="submit">Save problem</button></div>
</form>
<div class="card"><h2>Statement as students see it</h2><div class="statement">${renderMarkdown(p.statement_md)}</div></div>
</div>`,
  });
}

module.exports = { listPage, newPage, problemPage, VERDICT };
