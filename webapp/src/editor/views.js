'use strict';
const { html, jsonForScript } = require('../shared/html');
const { layout } = require('../shared/layout');
const { asset } = require('../shared/assets');
const { staffAsset } = require('../lib/assets');
const { time, iso, marks } = require('../shared/format');
const { renderMarkdown } = require('../shared/markdown');

const TYPE = { lab: 'Lab', quiz: 'Quiz', exam: 'Exam' };

function breadcrumb(a) {
  if (a.kind === 'event') {
    return html`<a href="/home">Home</a><span class="sep">/</span><a href="/exam/${a.eventId}">${a.eventTitle}</a><span class="sep">/</span><strong>Q${a.position}. ${a.title}</strong>`;
  }
  if (a.kind === 'practice') return html`<a href="/practice">Practice</a><span class="sep">/</span><strong>${a.title}</strong>`;
  return html`<a href="/scratchpad">Scratchpad</a><span class="sep">/</span><strong>${a.title}</strong>`;
}

// Q1 Q2 ... of the same event, the current one marked, submitted ones ticked.
function questionSwitcher(a) {
  if (a.questions.length < 2) return '';
  return html`<nav class="qswitch" aria-label="Questions of this event">
    ${a.questions.map((q) => html`<a href="/editor/${q.id}" class="${q.id === a.id ? 'current' : ''}${q.submitted ? ' done' : ''}"${q.id === a.id ? html` aria-current="page"` : ''} title="${q.submitted ? 'submitted' : 'not submitted'}">Q${q.position}${q.submitted ? html`<span class="sr-only"> (submitted)</span><span aria-hidden="true"> ✓</span>` : ''}</a>`)}
    <a href="/exam/${a.eventId}" class="qswitch-summary">Summary</a>
  </nav>`;
}

// agreed extra time, in minutes (seconds only for an exam shorter than a few minutes)
function extraText(s) { return s < 60 ? `${s} s` : `${Math.round(s / 60)} min`; }

function editorPage(req, a) {
  const closed = a.state === 'closed';
  const canEvaluate = a.kind !== 'scratch';
  const canSubmit = a.kind === 'event';
  const data = {
    assignmentId: a.id, kind: a.kind, env: a.env, code: a.code, eventId: a.eventId,
    timingVersion: a.timingVersion, gradedBasis: a.gradedBasis, latestCodeId: a.latestCodeId, changedSinceSubmit: a.changedSinceSubmit,
    savedAt: a.savedAt ? iso(a.savedAt) : null, submittedAt: a.submittedAt ? iso(a.submittedAt) : null,
    deadline: a.stop ? iso(a.stop) : null, serverNow: iso(a.now), closed,
    paused: !closed && !!a.pausedSince,
    canEvaluate, canSubmit, maxCodeBytes: req.app.locals.maxCodeBytes,
    firstInput: a.tests[0] ? a.tests[0].input : '',
  };
  return layout(req, {
    title: a.title,
    active: a.kind === 'event' ? '/home' : (a.kind === 'practice' ? '/practice' : '/scratchpad'),
    wide: true,
    bodyClass: 'editorbody',
    skipTo: '#editor',
    skipLabel: 'Skip to the code editor',
    // announcements.js: the exam tools' banner (issue 16), a piece apart from the editor
    scripts: [asset('editor.js'), staffAsset('announcements.js')],
    body: html`<div class="ed" id="ed" data-kind="${a.kind}">
  <div class="ed-head">
    <nav class="crumbs" aria-label="Breadcrumb">${breadcrumb(a)}</nav>
    ${a.kind === 'event' ? questionSwitcher(a) : ''}
    <div class="ed-status">
      ${a.kind === 'event' ? html`<span class="tag tag-${a.eventType}">${TYPE[a.eventType] || a.eventType}</span>` : ''}
      <span id="submit-state" class="pill ${a.submittedAt ? 'ok' : ''}">${a.submittedAt ? html`${a.submittedAutomatically ? 'Submitted automatically' : 'Submitted'} ${time(a.submittedAt)}` : (canSubmit ? 'Not submitted' : '')}</span>
      ${canSubmit ? html`<span id="changed-since-submit" class="pill warn"${a.changedSinceSubmit ? '' : html` hidden`}>Changed since submit</span>` : ''}
      <span id="save-state" class="savestate" aria-live="polite">${a.savedAt ? html`Saved ${time(a.savedAt)}` : 'Not saved yet'}</span>
      ${a.stop ? html`<span class="countdown ${closed ? 'over' : ''}" id="countdown" data-deadline="${iso(a.stop)}" title="Closes ${iso(a.stop)}"><span class="label">${closed ? 'Closed' : 'Time left'}</span> <strong>--:--</strong></span>
      <span class="small muted" id="end-time" title="${a.accommodationS ? 'Your end time includes your agreed extra time.' : 'Your end time.'}">ends ${time(a.stop)}${a.accommodationS ? html` (extra time +${extraText(a.accommodationS)})` : ''}</span>` : ''}
    </div>
  </div>
  ${closed ? html`<div class="banner warn" id="closed-banner" role="status">This event has closed. You can read your last saved code, but it can no longer be changed or submitted.</div>` : html`<div class="banner warn" id="closed-banner" role="status" hidden></div>`}
  <div class="ed-body">
    ${a.kind !== 'scratch' ? html`<aside class="ed-problem" aria-label="Problem">
      <h1>${a.title}</h1>
      ${a.maxMarks !== null && a.maxMarks !== undefined ? html`<p class="muted small">${marks(a.maxMarks)} marks · time limit ${a.timeLimitMs / 1000}s per test</p>` : ''}
      <div class="statement">${renderMarkdown(a.statementMd)}</div>
      ${a.tests.length ? html`<h2>Sample tests</h2>
      ${a.tests.map((t, i) => html`<div class="sample">
        <div class="sample-head"><strong>Test ${i + 1}</strong><button type="button" class="linklike use-input" data-input="${t.input}">Use as input</button></div>
        <div class="sample-io"><div><span class="label">Input</span><pre>${t.input || '(empty)'}</pre></div><div><span class="label">Expected output</span><pre>${t.expected_output}</pre></div></div>
      </div>`)}` : ''}
      ${a.supportFiles && a.supportFiles.length ? html`<h2>Files given with the problem</h2>
      <p class="muted small">Compiled and run with your code; you cannot change them.</p>
      ${a.supportFiles.map((f) => html`<details class="support-file"><summary><code>${f.name}</code></summary><pre>${f.contents}</pre></details>`)}` : ''}
    </aside>` : ''}
    <section class="ed-main">
      <div class="ed-toolbar" role="toolbar" aria-label="Editor actions">
        <button type="button" class="btn" id="btn-save" title="Save (Ctrl+S)">Save</button>
        <button type="button" class="btn" id="btn-compile" title="Compile (Ctrl+B)">Compile</button>
        <button type="button" class="btn" id="btn-run" title="Run with the input below (Ctrl+Enter)">Run</button>
        ${canEvaluate ? html`<button type="button" class="btn" id="btn-evaluate" title="Run on all test cases">Evaluate</button>` : ''}
        <span class="spacer"></span>
        ${canSubmit ? html`<button type="button" class="btn primary" id="btn-submit">Submit</button>` : ''}
      </div>
      <div class="ed-code" id="editor"></div>
      <p class="ed-keys muted small" id="editor-keys">Tab indents (4 spaces). To leave the code editor with the keyboard, press Esc, then Tab. Ctrl+S saves, Ctrl+B compiles, Ctrl+Enter runs.</p>
      <div class="ed-console">
        <div class="tabs" role="tablist">
          <button type="button" role="tab" class="tab active" data-tab="messages" id="tab-messages" aria-selected="true">Compiler</button>
          <button type="button" role="tab" class="tab" data-tab="run" id="tab-run" aria-selected="false">Run</button>
          ${canEvaluate ? html`<button type="button" role="tab" class="tab" data-tab="eval" id="tab-eval" aria-selected="false">Evaluation</button>` : ''}
        </div>
        <div class="tabpanel" id="panel-messages" role="tabpanel"><p class="muted">Compile to see the compiler's messages here.</p></div>
        <div class="tabpanel" id="panel-run" role="tabpanel" hidden>
          <div class="run-grid">
            <div><label for="stdin" class="label">Input (stdin)</label><textarea id="stdin" spellcheck="false" placeholder="Type the program's input here"></textarea></div>
            <div><span class="label">Output</span><div id="run-output" class="output"><p class="muted">Run the program to see its output.</p></div></div>
          </div>
        </div>
        ${canEvaluate ? html`<div class="tabpanel" id="panel-eval" role="tabpanel" hidden><p class="muted">Evaluate to run your saved code on the visible and hidden test cases.</p></div>` : ''}
      </div>
    </section>
  </div>
</div>
<script type="application/json" id="editor-data">${jsonForScript(data)}</script>`,
  });
}

module.exports = { editorPage };
