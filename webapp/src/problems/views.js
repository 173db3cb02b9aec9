'use strict';
const { html, jsonForScript } = require('../shared/html');
const { time } = require('../shared/format');
const { renderMarkdown } = require('../shared/markdown');
const ui = require('../lib/ui');
const { COMPARE_MODES, CHECKER_INTERFACES } = require('./service');

function head(title, sub, actions) {
  return html`<div class="pagehead"><div><h1>${title}</h1>${sub ? html`<p class="muted">${sub}</p>` : ''}</div>${actions ? html`<div class="actions">${actions}</div>` : ''}</div>`;
}

function listPage(req, { rows, archived, flash }) {
  return ui.page(req, {
    title: archived ? 'Archived problems' : 'Problems',
    active: '/problems',
    body: html`${head(archived ? 'Archived problems' : 'Problems', 'Statements, reference solutions and test cases, used by events and practice.',
    html`${archived ? html`<a class="btn" href="/problems">Current problems</a>` : html`<a class="btn" href="/problems?archived=1" id="show-archived">Archived</a>`} <a class="btn" href="/problems/import" id="import-link">Import</a> <a class="btn primary" href="/problems/new">New problem</a>`)}
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
  </div>
  ${comparisonFields(f, envs, { perCase: false })}
  ${ui.checkbox(f, 'is_practice', 'Offer as a practice problem', { help: 'Practice problems are listed on the students\' practice page.' })}
  <script type="application/json" id="env-templates">${jsonForScript(Object.fromEntries(envs.map((e) => [e.slug, e.template])))}</script>`;
}

// The comparison of output: a mode, Kattis-style tolerances for numbers, and a checker
// program with its language and convention. For a test case every field may stay
// empty: the problem's setting is used.
function comparisonFields(f, envs, { perCase }) {
  const inherit = perCase ? [{ value: '', label: 'As the problem says' }] : [];
  const tolHelp = 'Numbers mode: a number of the expected output matches one within the absolute OR the relative tolerance (a share of the expected value), as Kattis\' float_absolute_tolerance / float_relative_tolerance.';
  return html`<fieldset class="comparison"><legend>${perCase ? 'Comparison for this case' : 'Output comparison'}</legend>
  <div class="grid3">
    ${ui.select(f, 'compare_mode', 'Output comparison', [...inherit, ...COMPARE_MODES], { def: perCase ? '' : 'trim' })}
    ${ui.input(f, 'abs_tolerance', 'Absolute tolerance', { help: perCase ? 'Empty: the problem\'s.' : '', attrs: { inputmode: 'decimal', placeholder: 'e.g. 1e-6' } })}
    ${ui.input(f, 'rel_tolerance', 'Relative tolerance', { help: perCase ? 'Empty: the problem\'s.' : '', attrs: { inputmode: 'decimal', placeholder: 'e.g. 1e-6' } })}
  </div>
  ${perCase ? '' : html`<p class="help">${tolHelp}</p>`}
  ${perCase ? html`<div class="checkerbox"><h4>A checker of this case's own <span class="muted small">(optional)</span></h4>`
    : html`<details class="addbox checkerbox"${val(f, 'checker_code') ? html` open` : ''}><summary>Checker program</summary>`}
    <p class="help">Runs in the sandbox after the student's program, never with the student's access: it is given the test's input, the expected output and the student's output.
    Its message is shown to the student on visible cases only; a share of the case's weight it gives (Kattis: a number 0..1 in score.txt; testlib: exit 7 with the number first in its message) counts as partial credit.
    A checker that crashes, runs out of time or exits otherwise is an internal error, shown to staff, never a wrong answer.</p>
    <div class="grid2">
      ${ui.select(f, 'checker_env', 'Checker language', [...(perCase ? [{ value: '', label: 'As the problem\'s checker' }] : []), ...envs.map((e) => ({ value: e.slug, label: e.name }))], { def: perCase ? '' : 'c' })}
      ${ui.select(f, 'checker_interface', 'Checker convention', [...(perCase ? [{ value: '', label: 'As the problem\'s checker' }] : []), ...CHECKER_INTERFACES], { def: perCase ? '' : 'kattis' })}
    </div>
    ${ui.textarea(f, 'checker_code', 'Checker program', { rows: perCase ? 4 : 10, mono: true, help: perCase ? 'Empty: the problem\'s checker.' : 'Used by cases compared with "Checker program".' })}
  ${perCase ? html`</div>` : html`</details>`}
  </fieldset>`;
}

function val(f, name) {
  return f && f.values && f.values[name] !== undefined && f.values[name] !== null ? String(f.values[name]) : '';
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

function importPage(req) {
  return ui.page(req, {
    title: 'Import problems',
    active: '/problems',
    body: html`${ui.crumbs([{ href: '/problems', label: 'Problems' }, { label: 'Import' }])}
${head('Import problems', 'A Kattis problem package (.zip), or Moodle question XML with CodeRunner questions (.xml).')}
<form class="card" id="import-form" data-import-zip="/problems/import" novalidate>
  <div class="field"><label for="f-package">Kattis package (.zip) or Moodle question XML (.xml)</label><input id="f-package" name="package" type="file" accept=".zip,.xml,application/zip,application/xml,text/xml" required></div>
  <p class="help"><strong>Kattis / ICPC package</strong> (legacy or 2023-07): the statement (Markdown; LaTeX as text), data/sample as visible cases, data/secret as hidden ones (weight 1 each), the time and memory limits, the default validator's flags as a comparison or the output validator as a checker (Kattis convention), the first accepted submission in C, C++ or Python as the reference solution. An error names the file and line.</p>
  <p class="help"><strong>Moodle CodeRunner questions</strong> (c_program, cpp_program, python3): the question text, the answer as the reference solution, the answer preload as the template, each test's input, expected output, visibility (SHOW: visible) and mark (its weight). A question with a customised template, a regex or template grader, or test code is not imported, and the reason is listed.</p>
  <div class="formactions"><button class="btn primary" type="submit" id="import-submit">Import</button><a href="/problems">Cancel</a></div>
  <div id="import-result" aria-live="polite"></div>
</form>`,
  });
}

const VERDICT = {
  accepted: 'Accepted', wrong_answer: 'Wrong answer', compilation_error: 'Compilation error', time_limit: 'Time limit exceeded',
  memory_limit: 'Memory limit exceeded', output_limit: 'Output limit exceeded', runtime_error: 'Runtime error',
  forbidden_syscall: 'Forbidden system call', internal_error: 'Internal error', busy: 'Engine busy', partial: 'Partial credit',
};

function checkResult(result) {
  if (!result) return '';
  if (result.error) return html`<div class="flash error" id="check-result" role="alert">${result.error}</div>`;
  const allOk = result.verdict === 'accepted' && result.total > 0;
  return html`<div class="card" id="check-result">
  <h2>Reference solution check: <span class="${allOk ? 'verdict-ok' : 'verdict-bad'}" id="check-verdict">${allOk ? 'all tests pass' : (result.total ? VERDICT[result.verdict] || result.verdict : 'no test cases')}</span></h2>
  <p class="muted">${result.passed} of ${result.total} test cases passed${result.from_cache ? ' (compiled binary from cache)' : ''}; score ${result.score} of ${result.max_score}.</p>
  ${result.checker_errors && result.checker_errors.length ? html`<div class="flash error" id="checker-errors" role="alert"><p>The checker failed (students see an internal error on these cases, never a wrong answer):</p>
  <ul>${result.checker_errors.map((e) => html`<li>Case ${e.position}: <pre class="io">${e.error}</pre></li>`)}</ul></div>` : ''}
  ${result.compile && result.compile.raw ? html`<pre class="code">${result.compile.raw}</pre>` : ''}
  ${result.cases && result.cases.length ? html`<table class="list compact" id="check-cases"><thead><tr><th>#</th><th>Visibility</th><th>Verdict</th><th>Expected</th><th>Actual</th><th class="num">Time</th></tr></thead>
  <tbody>${result.cases.map((c) => html`<tr class="${c.passed ? 'pass' : 'fail'}"><td>${c.position}</td><td>${c.visibility}</td>
  <td class="${c.passed ? 'verdict-ok' : 'verdict-bad'}">${VERDICT[c.verdict] || c.verdict || (c.passed ? 'Accepted' : 'Failed')}${c.verdict === 'partial' ? ` (${Math.round(c.credit * 100)}%)` : ''}${c.feedback ? html`<pre class="io checker-feedback">${c.feedback}</pre>` : ''}</td>
  <td><pre class="io">${c.expected}</pre></td><td><pre class="io">${c.actual}</pre>${c.stderr ? html`<pre class="io">${c.stderr}</pre>` : ''}</td><td class="num">${c.time_ms !== undefined ? `${c.time_ms} ms` : ''}</td></tr>`)}</tbody></table>` : ''}
</div>`;
}

function testRow(req, p, t, form, editId, envs) {
  const editing = (form && form.testId === t.id) || editId === t.id;
  const f = form && form.testId === t.id ? form : { values: { input: t.input, expected_output: t.expected_output, visibility: t.visibility, weight: String(t.weight), position: String(t.position),
    compare_mode: t.compare_mode || '', abs_tolerance: t.abs_tolerance ?? '', rel_tolerance: t.rel_tolerance ?? '', checker_env: t.checker_env || '',
    checker_interface: t.checker_interface || '', checker_code: t.checker_code || '' } };
  return html`<tr id="tc-${t.id}" data-visibility="${t.visibility}"><td class="num">${t.position}</td><td><span class="pill ${t.visibility === 'hidden' ? 'bad' : 'info'}">${t.visibility}</span></td>
  <td><pre class="io">${t.input}</pre></td><td><pre class="io">${t.expected_output}</pre></td><td class="num">${t.weight}${caseComparison(t)}</td>
  <td class="actions">${editing ? '' : html`<a class="btn small" href="/problems/${p.id}?edit=${t.id}#tc-${t.id}">Edit</a>`}
    ${ui.actionForm(req, `/problems/${p.id}/tests/${t.id}/delete`, 'Delete', { cls: 'btn small danger', confirm: `Delete test case ${t.position}?` })}</td></tr>
  ${editing ? html`<tr class="editrow"><td colspan="6">
      <form method="post" action="/problems/${p.id}/tests/${t.id}" novalidate>
        ${ui.formError(form && form.testId === t.id ? form : null)}
        ${testFields(req, f, envs)}
        <div class="formactions"><button class="btn small primary" type="submit">Save test case ${t.position}</button><a href="/problems/${p.id}#tests">Cancel</a></div>
      </form></td></tr>` : ''}`;
}

function caseComparison(t) {
  const bits = [t.compare_mode, t.abs_tolerance !== null && t.abs_tolerance !== undefined ? `abs ${t.abs_tolerance}` : '',
    t.rel_tolerance !== null && t.rel_tolerance !== undefined ? `rel ${t.rel_tolerance}` : '', t.checker_code ? 'own checker' : ''].filter(Boolean);
  return bits.length ? html`<br><span class="pill info case-compare">${bits.join(', ')}</span>` : '';
}

function testFields(req, f, envs) {
  return html`${ui.csrf(req)}
  <div class="grid2">
    ${ui.textarea(f, 'input', 'Input (stdin)', { rows: 4, mono: true })}
    ${ui.textarea(f, 'expected_output', 'Expected output', { rows: 4, mono: true, required: true })}
  </div>
  <div class="grid3">
    ${ui.select(f, 'visibility', 'Visibility', [{ value: 'visible', label: 'Visible (students see input and output)' }, { value: 'hidden', label: 'Hidden (students see pass/fail only)' }])}
    ${ui.input(f, 'weight', 'Weight', { type: 'number', def: '1', attrs: { min: 0, max: 1000 } })}
    ${ui.input(f, 'position', 'Position', { type: 'number', help: 'Empty: after the last one.', attrs: { min: 1 } })}
  </div>
  ${comparisonFields(f, envs, { perCase: true })}`;
}

function problemPage(req, { p, tests, envs, form = {}, testForm, flash, error, check, editId }) {
  const f = form.values ? form : { values: {
    title: p.title, category: p.category, statement_md: p.statement_md, template_code: p.template_code, solution_code: p.solution_code,
    env: p.env, time_limit_ms: String(p.time_limit_ms), memory_limit_mb: String(Math.round(p.memory_limit_kb / 1024)), compare_mode: p.compare_mode,
    abs_tolerance: p.abs_tolerance ?? '', rel_tolerance: p.rel_tolerance ?? '', checker_env: p.checker_env || 'c', checker_interface: p.checker_interface,
    checker_code: p.checker_code || '',
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
    <a class="btn" href="/problems/${p.id}/kattis.zip" id="export-kattis" title="A Kattis problem package: statement, samples, secret data, checker, reference solution">Export (Kattis)</a>
    ${p.archived_at ? ui.actionForm(req, `/problems/${p.id}/unarchive`, 'Restore', { cls: 'btn', id: 'unarchive-problem' })
    : ui.actionForm(req, `/problems/${p.id}/archive`, 'Archive', { cls: 'btn', id: 'archive-problem', confirm: 'Archive this problem? It disappears from the lists and from new events; nothing is deleted.' })}
    ${ui.actionForm(req, `/problems/${p.id}/delete`, 'Delete', { cls: 'btn danger', id: 'delete-problem', confirm: 'Delete this problem and its test cases for good?' })}`)}
${ui.flash('ok', flash)}
${error ? ui.flash('error', error) : ''}
${checkResult(check)}
<div class="card">
  <h2>Test cases <span class="muted small">${vis} visible, ${tests.length - vis} hidden</span></h2>
  ${tests.length ? html`<table class="list compact" id="tests"><thead><tr><th>#</th><th>Visibility</th><th>Input</th><th>Expected output</th><th class="num">Weight</th><th></th></tr></thead>
  <tbody>${tests.map((t) => testRow(req, p, t, testForm, editId, envs))}</tbody></table>` : html`<p class="empty">No test cases yet. Add visible ones (students see them) and hidden ones (used for the score).</p>`}
  <details class="addbox" id="add-test"${testForm && !testForm.testId ? html` open` : (tests.length ? '' : html` open`)}><summary>Add a test case</summary>
    ${ui.formError(testForm && !testForm.testId ? testForm : null)}
    <form method="post" action="/problems/${p.id}/tests" novalidate>
      ${testFields(req, newTestForm, envs)}
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

module.exports = { listPage, newPage, importPage, problemPage, VERDICT };
