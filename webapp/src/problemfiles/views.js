'use strict';
const { html } = require('../shared/html');
const ui = require('../lib/ui');
const { MAX_BYTES, MAX_FILES } = require('./service');

function filesPage(req, { problem, files, form = {}, flash }) {
  const base = `/problems/${problem.id}/files`;
  return ui.page(req, {
    title: `Support files: ${problem.title}`,
    active: '/problems',
    body: html`${ui.crumbs([{ href: '/problems', label: 'Problems' }, { href: `/problems/${problem.id}`, label: problem.title }, { label: 'Support files' }])}
<div class="pagehead"><div><h1>Support files</h1><p class="muted">Every compile, run and evaluation of this problem has these files beside the student's
own: data its program reads, a header it includes, or your own source around the student's function (a C or C++ source here is
compiled and linked with the student's, so a <code>harness.c</code> with <code>main</code> can call the function the student writes).
At most ${MAX_FILES} files of ${MAX_BYTES / 1024} KiB.</p></div></div>
${ui.flash('ok', flash)}
${files.length ? html`<div class="tablewrap"><table class="data" id="support-files"><thead><tr><th>Name</th><th class="num">Bytes</th><th>Students</th><th>Contents</th><th></th></tr></thead>
<tbody>${files.map((f) => html`<tr><td><code>${f.name}</code></td><td class="num">${f.bytes}</td>
<td>${f.shown_to_students ? 'shown' : 'hidden'}</td>
<td><details><summary>show</summary><pre class="mono">${f.contents}</pre></details></td>
<td>${ui.actionForm(req, `${base}/${f.id}/delete`, 'Delete', { confirm: `Delete ${f.name}?` })}</td></tr>`)}</tbody></table></div>`
    : html`<p class="empty">No support files: the student's file is compiled alone.</p>`}
<h2>Add or replace a file</h2>
${ui.formError(form)}
<form method="post" action="${base}" class="card" novalidate>
  ${ui.csrf(req)}
  ${ui.input(form, 'name', 'File name', { required: true, help: 'e.g. harness.c, list.h, data.txt; a file of the same name is replaced.' })}
  ${ui.textarea(form, 'contents', 'Contents', { rows: 12, mono: true })}
  ${ui.checkbox(form, 'shown_to_students', 'Students may read it (a header, a main); leave unticked for data of hidden cases', { def: true })}
  <div class="formactions"><button class="btn primary" type="submit" id="save-support-file">Save file</button></div>
</form>`,
  });
}

module.exports = { filesPage };
