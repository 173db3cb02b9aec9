// The exam editor: CodeMirror 6 highlighting the problem's language, autosave (interval, page
// hidden, before the deadline), manual save, compile with messages linked to
// lines and gutter markers, run with custom input, evaluate, submit, countdown.
// Engine routes (/compile, /execute, /evaluate) are on the same origin (HAProxy).
import { EditorView, basicSetup } from 'codemirror';
import { keymap } from '@codemirror/view';
import { EditorState, Compartment, Prec } from '@codemirror/state';
import { indentWithTab } from '@codemirror/commands';
import { indentUnit, HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags } from '@lezer/highlight';
import { cpp } from '@codemirror/lang-cpp';
import { python } from '@codemirror/lang-python';
import { setDiagnostics, lintGutter } from '@codemirror/lint';
import { createSaveClient } from './save-client.mjs';

const AUTOSAVE_MS = 12000;

const $ = (sel) => document.querySelector(sel);
const data = JSON.parse($('#editor-data').textContent);
// the session's CSRF token: read at each request, renewed by an in-place sign-in
const csrfMeta = document.querySelector('meta[name="csrf-token"]');
const csrf = () => csrfMeta.content;
const backupKey = `prutor:code:${data.assignmentId}`;
// Python's "compile" is a syntax check (the engine byte-compiles it once); C and C++ are compiled
const isPython = data.env === 'python3';
let skew = new Date(data.serverNow).getTime() - Date.now();
const serverNow = () => Date.now() + skew;

let closed = !!data.closed;
let lastSaved = data.code;     // the text the server holds as the latest version
let saving = null;             // the save in flight
let pendingTrigger = null;     // a save asked for while one was in flight
let sessionLost = false;
// the latest saved version this page knows: a save names it, so that a save from a
// second tab is refused (409 stale_version) instead of silently overwriting
let baseCodeId = data.latestCodeId || 0;
const knowVersion = (id) => { if (id && Number(id) > baseCodeId) baseCodeId = Number(id); };
// the text of the latest submission when this page knows it (null: unknown or none)
let submittedText = data.submittedAt && !data.changedSinceSubmit ? data.code : null;

// ---------- editor ----------
const editable = new Compartment();
const darkTheme = new Compartment();
// Syntax colours with at least 4.5:1 contrast on the light and the dark background
// (CodeMirror's defaults use #e40 and #f00, which fail WCAG AA on white).
const highlight = (c) => syntaxHighlighting(HighlightStyle.define([
  { tag: tags.keyword, color: c.keyword },
  { tag: [tags.typeName, tags.standard(tags.typeName)], color: c.type },
  { tag: [tags.number, tags.bool, tags.atom], color: c.number },
  { tag: [tags.string, tags.character], color: c.string },
  { tag: [tags.escape, tags.special(tags.string), tags.regexp], color: c.escape },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: c.comment, fontStyle: 'italic' },
  { tag: [tags.processingInstruction, tags.meta], color: c.meta },
  { tag: [tags.definition(tags.variableName), tags.function(tags.variableName)], color: c.def },
  { tag: tags.invalid, color: c.invalid },
]));
const lightColours = highlight({ keyword: '#6a1b9a', type: '#0b5a8c', number: '#1b6e3a', string: '#a31515', escape: '#9a3b00', comment: '#5c6370', meta: '#4b4b8f', def: '#00529b', invalid: '#b00020' });
const darkColours = highlight({ keyword: '#d7a6ff', type: '#7fc8ff', number: '#8fe0a8', string: '#ffab91', escape: '#ffd180', comment: '#a3afc4', meta: '#b8b8ff', def: '#9ecbff', invalid: '#ff8a80' });
const darkEditor = EditorView.theme({
  '&': { backgroundColor: '#0f172a', color: '#e2e8f0' },
  '.cm-content': { caretColor: '#f8fafc' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: '#f8fafc' },
  '.cm-gutters': { backgroundColor: '#111b30', color: '#8b9bb8', borderRight: '1px solid #24324d' },
  '.cm-activeLine': { backgroundColor: '#1a2540' },
  '.cm-activeLineGutter': { backgroundColor: '#1a2540' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection': { backgroundColor: '#334a7a' },
  '.cm-tooltip': { backgroundColor: '#111b30', color: '#e2e8f0' },
}, { dark: true });
const view = new EditorView({
  parent: $('#editor'),
  state: EditorState.create({
    doc: data.code,
    extensions: [
      basicSetup,
      isPython ? python() : cpp(),
      lintGutter(),
      // ours before basicSetup's (whose Mod-Enter inserts a blank line)
      Prec.highest(keymap.of([
        { key: 'Mod-s', preventDefault: true, run: () => { save('manual'); return true; } },
        { key: 'Mod-Enter', preventDefault: true, run: () => { run(); return true; } },
        { key: 'Mod-b', preventDefault: true, run: () => { compile(); return true; } },
      ])),
      keymap.of([indentWithTab]),
      // indentation as in the templates: 4 spaces
      indentUnit.of('    '),
      EditorState.tabSize.of(4),
      EditorView.contentAttributes.of({ 'aria-label': 'Code editor', 'aria-describedby': 'editor-keys' }),
      darkTheme.of(document.documentElement.dataset.theme === 'dark' ? [darkEditor, darkColours] : lightColours),
      editable.of([EditorView.editable.of(!closed), EditorState.readOnly.of(closed)]),
      EditorView.updateListener.of((u) => { if (u.docChanged) onEdit(); }),
      EditorView.theme({ '&': { height: '100%', fontSize: '0.97rem' }, '.cm-scroller': { fontFamily: 'var(--mono)' } }),
    ],
  }),
});
window.prutorEditor = { view, code: () => view.state.doc.toString() }; // for tests and debugging
document.addEventListener('prutor:prefs', (e) => view.dispatch({ effects: darkTheme.reconfigure(e.detail.theme === 'dark' ? [darkEditor, darkColours] : lightColours) }));
// the skip link lands in the code itself
const skip = document.getElementById('skip-link');
if (skip) skip.addEventListener('click', (e) => { e.preventDefault(); view.focus(); });

const code = () => view.state.doc.toString();
const dirty = () => code() !== lastSaved;

function showChangedSinceSubmit() {
  const p = $('#changed-since-submit');
  if (p) p.hidden = !(data.submittedAt || submittedText !== null) || code() === submittedText;
}

// ---------- small UI helpers ----------
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) e.append(c.nodeType ? c : document.createTextNode(String(c)));
  return e;
}
const pad = (n) => String(n).padStart(2, '0');
const clock = (d) => `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;

function setSaveState(text, kind = '') {
  const s = $('#save-state');
  s.textContent = text;
  s.className = `savestate ${kind}`;
}

function showTab(name) {
  document.querySelectorAll('.tab').forEach((t) => {
    const on = t.dataset.tab === name;
    t.classList.toggle('active', on);
    t.setAttribute('aria-selected', on ? 'true' : 'false');
  });
  document.querySelectorAll('.tabpanel').forEach((p) => { p.hidden = p.id !== `panel-${name}`; });
}
document.querySelectorAll('.tab').forEach((t) => t.addEventListener('click', () => showTab(t.dataset.tab)));

function busy(btn, on) {
  if (!btn) return;
  btn.disabled = on || (closed && btn.dataset.needsOpen === '1');
  btn.classList.toggle('busy', on);
}

async function post(url, payload, { keepalive = false } = {}) {
  let res;
  try {
    res = await fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      keepalive,
      headers: {
        'Content-Type': 'application/json', Accept: 'application/json',
        'X-CSRF-Token': csrf(), 'X-Requested-With': 'XMLHttpRequest',
      },
      body: JSON.stringify(payload),
    });
  } catch (e) {
    const err = new Error('No connection to the server. Your code is kept in this browser; it will be saved when the connection is back.');
    err.network = true;
    throw err;
  }
  let body = null;
  try { body = await res.json(); } catch { /* not JSON */ }
  if (!res.ok) {
    const err = new Error((body && body.error) || `The server answered ${res.status}.`);
    err.status = res.status;
    err.code = body && body.code;
    err.retryAfter = res.headers.get('Retry-After');
    throw err;
  }
  return body || {};
}

function engineError(e) {
  if (e.status === 503) return `The compiler is busy right now (many students at once). Try again in ${e.retryAfter || 'a few'} seconds.`;
  if (e.status === 401) { onSessionLost(); return 'Your session has ended. Sign in again (the dialog) and retry; your code is kept here.'; }
  return e.message;
}

// The session ended (expired, or signed out elsewhere): the code stays in this
// page (and in this browser's local copy); a dialog signs in again in place, then
// the save that failed is sent again. Nothing is reloaded.
let signInOpen = null;
function onSessionLost(retryTrigger) {
  sessionLost = true;
  banner('Your session has ended. Your code is kept here; sign in again to save it.', 'error');
  const rank = { auto: 0, manual: 1, submit: 2 };
  if (signInOpen) { if (retryTrigger && rank[retryTrigger] > rank[signInOpen.retry]) signInOpen.retry = retryTrigger; return; }
  const who = document.querySelector('.usermenu .who .muted');
  const username = who ? who.textContent.split(' · ')[0].trim() : '';
  const state = { retry: retryTrigger || 'manual' };
  signInOpen = state;
  const err = el('p', { class: 'flash error', role: 'alert', id: 'signin-error', hidden: true });
  const user = el('input', { id: 'signin-username', name: 'username', autocomplete: 'username', value: username, required: true });
  const pass = el('input', { id: 'signin-password', name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const dlg = el('dialog', { class: 'confirm', id: 'signin-dialog', 'aria-labelledby': 'signin-title' },
    el('form', { method: 'dialog', onsubmit: async (ev) => {
      ev.preventDefault();
      err.hidden = true;
      try {
        const res = await fetch('/accounts/login', {
          method: 'POST', credentials: 'same-origin',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Requested-With': 'XMLHttpRequest' },
          body: JSON.stringify({ username: user.value, password: pass.value }),
        });
        const body = await res.json().catch(() => ({}));
        if (!res.ok || !body.csrf) { err.textContent = body.error || `Sign-in failed (${res.status}).`; err.hidden = false; return; }
        csrfMeta.content = body.csrf;
        sessionLost = false;
        signInOpen = null;
        dlg.close();
        banner('Signed in again. Saving your code…', 'info');
        await save(state.retry === 'auto' ? 'manual' : state.retry).catch(() => {});
      } catch { err.textContent = 'No connection to the server. Try again in a moment; your code is kept here.'; err.hidden = false; }
    } },
    el('h2', { id: 'signin-title' }, 'Sign in again to save'),
    el('p', {}, 'Your session has ended. Your code is still here and will be saved as soon as you sign in.'),
    err,
    el('label', { for: 'signin-username' }, 'Username'), user,
    el('label', { for: 'signin-password' }, 'Password'), pass,
    el('div', { class: 'actions' },
      el('button', { type: 'button', class: 'btn', id: 'signin-later', onclick: () => dlg.close() }, 'Later'),
      el('button', { type: 'submit', class: 'btn primary', id: 'signin-submit' }, 'Sign in and save'))));
  dlg.addEventListener('close', () => { dlg.remove(); if (signInOpen === state) signInOpen = null; });
  document.body.append(dlg);
  dlg.showModal();
  pass.focus();
}

function banner(text, kind = 'warn') {
  const b = $('#closed-banner');
  b.textContent = text;
  b.className = `banner ${kind}`;
  b.hidden = false;
}

// ---------- local backup (survives a lost connection or a closed tab) ----------
let backupTimer = null;
function onEdit() {
  if (!closed) setSaveState(dirty() ? 'Unsaved changes' : 'Saved', dirty() ? 'dirty' : 'ok');
  showChangedSinceSubmit();
  clearTimeout(backupTimer);
  backupTimer = setTimeout(() => {
    try {
      if (dirty()) localStorage.setItem(backupKey, JSON.stringify({ code: code(), t: Date.now() }));
      else localStorage.removeItem(backupKey);
    } catch { /* storage full or disabled */ }
  }, 800);
}

(function offerBackup() {
  let b = null;
  try { b = JSON.parse(localStorage.getItem(backupKey) || 'null'); } catch { /* ignore */ }
  if (!b || typeof b.code !== 'string' || b.code === data.code) return;
  const savedAt = data.savedAt ? new Date(data.savedAt).getTime() : 0;
  if (b.t <= savedAt - skew || closed) return;
  const bar = el('div', { class: 'banner info', role: 'status' },
    'This browser holds a newer unsaved copy of your code. ',
    el('button', { class: 'linklike', type: 'button', id: 'restore-backup', onclick: () => {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: b.code } });
      bar.remove();
      save('manual');
    } }, 'Restore it'),
    ' · ',
    el('button', { class: 'linklike', type: 'button', onclick: () => { localStorage.removeItem(backupKey); bar.remove(); } }, 'Discard'));
  $('#closed-banner').after(bar);
})();

// ---------- save ----------
// Transport (client-made id, retries with backoff, Retry-After): save-client.mjs.
const saveClient = createSaveClient({ url: '/editor/save', csrf, onStatus: (text, kind) => setSaveState(text, kind) });

function save(trigger = 'manual', { keepalive = false } = {}) {
  if (closed) return Promise.resolve(null);
  if (saving) {
    // one save at a time; a submit or manual save asked meanwhile runs right after
    if (trigger !== 'auto') pendingTrigger = trigger;
    else if (!pendingTrigger) pendingTrigger = 'auto';
    return saving.then(() => null);
  }
  if (trigger === 'auto' && !dirty()) return Promise.resolve(null);
  const text = code();
  if (new Blob([text]).size > data.maxCodeBytes) {
    setSaveState('Too large to save', 'error');
    banner(`Your code is over ${Math.floor(data.maxCodeBytes / 1024)} KiB and cannot be saved. Shorten it.`, 'error');
    return Promise.resolve(null);
  }
  setSaveState(trigger === 'submit' ? 'Submitting…' : 'Saving…', 'busy');
  const btn = trigger === 'submit' ? $('#btn-submit') : (trigger === 'manual' ? $('#btn-save') : null);
  busy(btn, true);
  saving = saveClient.save({ assignment_id: data.assignmentId, branch_id: 0, trigger, code: text, base_code_id: baseCodeId }, { keepalive: keepalive && text.length < 60000 })
    .then((r) => {
      lastSaved = text;
      knowVersion(r.code_id);
      if (sessionLost) { sessionLost = false; $('#closed-banner').hidden = true; }
      const at = r.saved_at ? new Date(r.saved_at) : new Date();
      setSaveState(dirty() ? 'Unsaved changes' : `Saved ${clock(at)}`, dirty() ? 'dirty' : 'ok');
      // a save that reached the server after the deadline is kept as late work, never graded
      if (deadline !== null && at.getTime() >= deadline) setSaveState(`Stored ${clock(at)} as late work (after the deadline: not graded)`, 'error');
      try { if (!dirty()) localStorage.removeItem(backupKey); } catch { /* ignore */ }
      if (r.submitted) {
        setSubmitState(at, false);
        submittedText = text;
        data.submittedAt = at.toISOString();
        showChangedSinceSubmit();
      }
      return r;
    })
    .catch((e) => {
      if (e.status === 409 && e.code === 'stale_version') { setSaveState('Not saved: changed in another tab', 'error'); resolveConflict(e.message, trigger); }
      else if (e.status === 409) { closeEditor(e.message); setSaveState('Not saved', 'error'); }
      else if (e.status === 401) { setSaveState('Not saved: session ended', 'error'); onSessionLost(trigger); }
      else if (e.status === 403 && e.code === 'csrf') { setSaveState('Not saved', 'error'); banner('This page is out of date. Copy your code if needed and reload the page.', 'error'); }
      else setSaveState(`Not saved${e.attempts > 1 ? ` after ${e.attempts} tries` : ''}: ${e.network ? 'no connection' : e.message} Your code is kept in this browser.`, 'error');
      if (trigger !== 'auto') throw e;
      return null;
    })
    .finally(() => {
      saving = null;
      busy(btn, false);
      if (pendingTrigger) { const t = pendingTrigger; pendingTrigger = null; save(t); }
    });
  return saving;
}

// Another tab or window saved this question after this page loaded: say so and
// let the student choose; autosave waits meanwhile (no silent overwrite either way).
let conflictOpen = false;
let reloading = false; // the student chose the other tab's version: leave without saving this one
function resolveConflict(message, trigger) {
  if (conflictOpen) return;
  conflictOpen = true;
  const dlg = el('dialog', { class: 'confirm', id: 'conflict-dialog', 'aria-labelledby': 'conflict-title' },
    el('h2', { id: 'conflict-title' }, 'Changed in another tab'),
    el('p', {}, message),
    el('p', { class: 'muted small' }, 'Keep this tab: your code here becomes the latest version. Load the other: this page reloads with the other version (this tab\'s code stays offered for restore).'),
    el('div', { class: 'actions' },
      el('button', { type: 'button', class: 'btn', id: 'conflict-load', onclick: () => { dlg.close(); reloading = true; window.location.reload(); } }, 'Load the other version'),
      el('button', { type: 'button', class: 'btn primary', id: 'conflict-keep', onclick: async () => {
        dlg.close();
        try {
          const res = await fetch(`/editor/${data.assignmentId}/status`, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
          if (res.ok) knowVersion((await res.json()).latest_code_id);
          await save(trigger === 'auto' ? 'manual' : trigger);
        } catch { /* the save shows its own state */ }
      } }, 'Keep this tab\'s code')));
  dlg.addEventListener('close', () => { conflictOpen = false; dlg.remove(); });
  document.body.append(dlg);
  dlg.showModal();
}

setInterval(() => { if (!document.hidden && !conflictOpen && !signInOpen) save('auto'); }, AUTOSAVE_MS);
document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden') save('auto', { keepalive: true }); });
window.addEventListener('pagehide', () => { if (dirty() && !saving && !reloading) save('auto', { keepalive: true }); });
window.addEventListener('beforeunload', (ev) => { if (dirty() && !closed && !reloading) { save('auto', { keepalive: true }); ev.preventDefault(); ev.returnValue = ''; } });

$('#btn-save').addEventListener('click', () => save('manual').catch(() => {}));

// ---------- compile ----------
function jumpTo(line, col) {
  const doc = view.state.doc;
  const l = doc.line(Math.min(Math.max(1, line || 1), doc.lines));
  const pos = Math.min(l.from + Math.max(0, (col || 1) - 1), l.to);
  view.dispatch({ selection: { anchor: pos }, effects: EditorView.scrollIntoView(pos, { y: 'center' }) });
  view.focus();
}

function sevOf(s) {
  s = String(s || '').toLowerCase();
  if (s.includes('error')) return 'error';
  if (s.includes('warn')) return 'warning';
  return 'info';
}

function showMessages(result) {
  const panel = $('#panel-messages');
  panel.replaceChildren();
  const msgs = Array.isArray(result.messages) ? result.messages : [];
  const doc = view.state.doc;
  const diags = [];
  for (const m of msgs) {
    if (!m.line || m.line > doc.lines) continue;
    const l = doc.line(m.line);
    const from = Math.min(l.from + Math.max(0, (m.column || 1) - 1), l.to);
    diags.push({ from, to: Math.max(from, l.to), severity: sevOf(m.severity), message: m.text || '' });
  }
  view.dispatch(setDiagnostics(view.state, diags));
  const errors = msgs.filter((m) => sevOf(m.severity) === 'error').length;
  const warnings = msgs.filter((m) => sevOf(m.severity) === 'warning').length;
  panel.append(el('p', { class: `verdict ${result.compiled ? 'ok' : 'bad'}`, id: 'compile-verdict' },
    result.compiled ? (isPython ? 'No syntax errors' : 'Compiled successfully') : (isPython ? 'Syntax error' : 'Compilation failed'),
    el('span', { class: 'muted small' }, ` · ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`)));
  if (msgs.length) {
    panel.append(el('ul', { class: 'messages' }, msgs.map((m) => el('li', { class: `msg sev-${sevOf(m.severity)}` },
      m.line ? el('button', { type: 'button', class: 'lineref', 'data-line': m.line, onclick: () => jumpTo(m.line, m.column) }, `line ${m.line}${m.column ? `:${m.column}` : ''}`) : null,
      el('span', { class: 'sev' }, m.severity || ''),
      el('span', { class: 'text' }, m.text || ''),
      // the engine's compile-error help (issue 16): a plainer explanation, when it has one
      m.help ? el('span', { class: 'help' }, m.help) : null))));
  } else if (!result.compiled && result.raw) {
    panel.append(el('pre', { class: 'raw' }, result.raw));
  }
  if (result.raw && msgs.length) panel.append(el('details', { class: 'rawbox' }, el('summary', {}, 'Full compiler output'), el('pre', { class: 'raw' }, result.raw)));
}

async function compile() {
  const btn = $('#btn-compile');
  if (btn.disabled) return;
  busy(btn, true);
  showTab('messages');
  $('#panel-messages').replaceChildren(el('p', { class: 'muted' }, isPython ? 'Checking the syntax…' : 'Compiling…'));
  try {
    const r = await post('/compile', { assignment_id: data.assignmentId, code: code(), env: data.env });
    showMessages(r);
  } catch (e) {
    $('#panel-messages').replaceChildren(el('p', { class: 'verdict bad' }, engineError(e)));
  } finally { busy(btn, false); }
}
$('#btn-compile').addEventListener('click', compile);
if (isPython) $('#btn-compile').textContent = 'Check syntax';

// ---------- run ----------
const VERDICT = {
  accepted: 'Accepted', ok: 'Finished', success: 'Finished', 'wrong answer': 'Wrong answer', wrong_answer: 'Wrong answer',
  'compilation error': 'Compilation error', compilation_error: 'Compilation error', 'time limit': 'Time limit exceeded',
  time_limit: 'Time limit exceeded', 'memory limit': 'Memory limit exceeded', memory_limit: 'Memory limit exceeded',
  'output limit': 'Output limit exceeded', output_limit: 'Output limit exceeded', 'runtime error': 'Runtime error',
  runtime_error: 'Runtime error', 'forbidden system call': 'Forbidden system call', forbidden_syscall: 'Forbidden system call',
  'internal error': 'Internal error', internal_error: 'Internal error', busy: 'Server busy', 'server busy': 'Server busy',
  hidden_failed: 'Some hidden tests did not pass', partial: 'Partly right',
};
const vText = (v) => VERDICT[String(v || '').toLowerCase()] || String(v || 'Finished');
const vGood = (v) => ['accepted', 'ok', 'success', 'finished'].includes(String(v || '').toLowerCase());

async function run() {
  const btn = $('#btn-run');
  if (btn.disabled) return;
  busy(btn, true);
  showTab('run');
  const out = $('#run-output');
  out.replaceChildren(el('p', { class: 'muted' }, 'Running…'));
  try {
    const r = await post('/execute', { assignment_id: data.assignmentId, code: code(), env: data.env, input: $('#stdin').value });
    const parts = [];
    const good = vGood(r.verdict) && (r.exit_code === 0 || r.exit_code === undefined || r.exit_code === null) && !r.signal;
    const runText = String(r.verdict || '').toLowerCase() === 'accepted' ? 'Ran successfully' : vText(r.verdict);
    parts.push(el('p', { class: `verdict ${good ? 'ok' : 'bad'}`, id: 'run-verdict' }, runText,
      el('span', { class: 'muted small' }, [
        r.exit_code !== undefined && r.exit_code !== null ? ` · exit code ${r.exit_code}` : '',
        r.signal ? ` · signal ${r.signal_name || r.signal}` : '',
        r.time_ms !== undefined ? ` · ${r.time_ms} ms` : '',
      ].join(''))));
    parts.push(el('span', { class: 'label' }, 'stdout'), el('pre', { class: 'stdout', id: 'run-stdout' }, r.stdout || ''));
    if (r.stderr) parts.push(el('span', { class: 'label' }, 'stderr'), el('pre', { class: 'stderr' }, r.stderr));
    if (r.compile && (r.compile.messages || r.compile.raw)) {
      showMessages({ compiled: false, ...r.compile });
      parts.push(el('p', { class: 'muted' }, 'The program did not compile: see the Compiler tab.'));
    }
    out.replaceChildren(...parts);
  } catch (e) {
    out.replaceChildren(el('p', { class: 'verdict bad' }, engineError(e)));
  } finally { busy(btn, false); }
}
$('#btn-run').addEventListener('click', run);
document.querySelectorAll('.use-input').forEach((b) => b.addEventListener('click', () => {
  $('#stdin').value = b.dataset.input || '';
  showTab('run');
  $('#stdin').focus();
}));
if (data.firstInput) $('#stdin').value = data.firstInput;

// ---------- evaluate ----------
// A hidden case tells only passed or not; nothing ran when the code did not compile.
function caseVerdict(c, ok, compiled) {
  if (!compiled) return 'Not run: compilation error';
  if (c.verdict) return vText(c.verdict);
  return ok ? 'Passed' : 'Not passed';
}

async function evaluate() {
  const btn = $('#btn-evaluate');
  if (!btn || btn.disabled) return;
  busy(btn, true);
  showTab('eval');
  const panel = $('#panel-eval');
  panel.replaceChildren(el('p', { class: 'muted' }, 'Saving and evaluating on all test cases…'));
  try {
    if (!closed && (dirty() || saving)) { await (saving || Promise.resolve()); if (dirty()) await save('manual'); }
    // the code goes along: a never-saved question (still the template) evaluates too
    const r = await post('/evaluate', { assignment_id: data.assignmentId, ...(closed ? {} : { code: code() }) });
    const cases = Array.isArray(r.cases) ? r.cases : [];
    const passed = cases.filter((c) => c.passed === true || c.passed === 1 || vGood(c.verdict)).length;
    const rows = cases.map((c, i) => {
      const hidden = c.hidden === true || c.visibility === 'hidden';
      const ok = c.passed === true || c.passed === 1 || vGood(c.verdict);
      return el('tr', { class: ok ? 'pass' : 'fail' },
        el('td', {}, `${c.position || i + 1}`),
        el('td', {}, hidden ? el('span', { class: 'pill' }, 'hidden') : el('span', { class: 'pill info' }, 'visible')),
        el('td', {}, el('span', { class: `pill ${ok ? 'ok' : 'bad'}` }, caseVerdict(c, ok, r.compiled !== false))),
        el('td', { class: 'num muted' }, c.time_ms !== undefined ? `${c.time_ms} ms` : ''),
        el('td', {}, hidden ? el('span', { class: 'muted small' }, 'details hidden') : el('div', { class: 'io' },
          el('div', {}, el('span', { class: 'label' }, 'expected'), el('pre', {}, c.expected ?? c.expected_output ?? '')),
          el('div', {}, el('span', { class: 'label' }, 'your output'), el('pre', {}, c.actual ?? c.actual_output ?? c.stdout ?? '')),
          // a checker's message (visible cases only: the engine sends none for hidden ones)
          c.feedback ? el('div', {}, el('span', { class: 'label' }, c.credit > 0 && c.credit < 1 ? `checker (${Math.round(c.credit * 100)}%)` : 'checker'),
            el('pre', { class: 'checker-feedback' }, c.feedback)) : '')));
    });
    panel.replaceChildren(
      el('p', { class: `verdict ${vGood(r.verdict) ? 'ok' : 'bad'}`, id: 'eval-verdict' }, vText(r.verdict),
        el('span', { class: 'muted small' }, ` · ${passed} of ${cases.length} tests passed${r.score !== undefined && r.score !== null ? ` · score ${r.score}${r.max_score !== undefined ? ` / ${r.max_score}` : ''}` : ''}`)),
      cases.length ? el('table', { class: 'list cases' },
        el('thead', {}, el('tr', {}, el('th', {}, '#'), el('th', {}, 'Test'), el('th', {}, 'Verdict'), el('th', { class: 'num' }, 'Time'), el('th', {}, 'Output'))),
        el('tbody', {}, rows)) : '',
    );
    if (r.compile && (r.compile.messages || r.compile.raw)) showMessages({ compiled: false, ...r.compile });
  } catch (e) {
    panel.replaceChildren(el('p', { class: 'verdict bad' }, engineError(e)));
  } finally { busy(btn, false); }
}
if ($('#btn-evaluate')) $('#btn-evaluate').addEventListener('click', evaluate);

// ---------- submit ----------
function confirmSubmit() {
  return new Promise((resolve) => {
    const dlg = el('dialog', { class: 'confirm', id: 'submit-dialog' },
      el('h2', {}, 'Submit this code?'),
      el('p', {}, 'Your current code is saved and submitted. You can submit again until the event closes; the latest submission counts.'),
      el('div', { class: 'actions' },
        el('button', { type: 'button', class: 'btn', id: 'submit-cancel', onclick: () => { dlg.close(); resolve(false); } }, 'Cancel'),
        el('button', { type: 'button', class: 'btn primary', id: 'submit-confirm', onclick: () => { dlg.close(); resolve(true); } }, 'Submit')));
    dlg.addEventListener('close', () => { dlg.remove(); resolve(false); });
    document.body.append(dlg);
    dlg.showModal();
  });
}
if ($('#btn-submit')) {
  $('#btn-submit').addEventListener('click', async () => {
    if (closed || !(await confirmSubmit())) return;
    try {
      if (saving) await saving.catch(() => {});
      await save('submit');
    } catch { /* state shown by save() */ }
  });
}

// ---------- deadline: the server's, followed while the page is open ----------
// The page polls its event's timing version (/exam/timing/:event, cheap: no
// session, cached per worker) every ~30 s, every ~10 s in the last minutes; when
// it moves (an extension, a closure), it fetches its own window and the countdown
// follows. At zero it closes, then asks the server, which may reopen it.
const POLL_MS = 30000;
const POLL_SOON_MS = 10000;
const SOON_MS = 5 * 60 * 1000;
const WARN_AT_MS = [5 * 60 * 1000, 60 * 1000];
let deadline = data.deadline ? new Date(data.deadline).getTime() : null;
let timingVersion = data.timingVersion || 0;
let finalSaveDone = false;
let warned = new Set();

function setSubmitState(at, automatic) {
  const s = $('#submit-state');
  if (!s || !at) return;
  s.textContent = `${automatic ? 'Submitted automatically' : 'Submitted'} ${clock(new Date(at))}`;
  s.className = 'pill ok';
}

function closeEditor(message) {
  closed = true;
  view.dispatch({ effects: editable.reconfigure([EditorView.editable.of(false), EditorState.readOnly.of(true)]) });
  ['#btn-save', '#btn-submit', '#btn-compile', '#btn-run', '#btn-evaluate'].forEach((s) => { const b = $(s); if (b) { b.dataset.needsOpen = '1'; b.disabled = true; } });
  banner(message || 'This event has closed. Your last saved code is kept; it can no longer be changed or submitted.');
  const c = $('#countdown');
  if (c) { c.classList.add('over'); c.querySelector('.label').textContent = 'Closed'; c.querySelector('strong').textContent = ''; }
}

function reopenEditor() {
  closed = false;
  view.dispatch({ effects: editable.reconfigure([EditorView.editable.of(true), EditorState.readOnly.of(false)]) });
  ['#btn-save', '#btn-submit', '#btn-compile', '#btn-run', '#btn-evaluate'].forEach((s) => { const b = $(s); if (b) { delete b.dataset.needsOpen; b.disabled = false; } });
  const c = $('#countdown');
  if (c) { c.classList.remove('over'); c.querySelector('.label').textContent = 'Time left'; }
}

function tick() {
  if (deadline === null) return;
  const c = $('#countdown');
  const left = deadline - serverNow();
  if (closed) return;
  if (left <= 0) {
    closeEditor();
    // the server has the last word (an extension may have just been given)
    setTimeout(refreshStatus, Math.random() * 3000);
    return;
  }
  if (left < 20000 && !finalSaveDone) { finalSaveDone = true; save('auto'); }
  for (const w of WARN_AT_MS) {
    if (left <= w && left > w - 60000 && !warned.has(w)) {
      warned.add(w);
      const mins = Math.round(w / 60000);
      banner(`${mins === 1 ? 'One minute' : `${mins} minutes`} left. Your code is saved automatically; ${data.canSubmit ? (data.gradedBasis === 'last_save' ? 'your last saved code at the deadline is graded.' : 'submit now, or your last saved code is submitted for you at the deadline.') : 'save your work.'}`, 'warn');
    }
  }
  const secs = Math.floor(left / 1000);
  const d = Math.floor(secs / 86400);
  const h = Math.floor((secs % 86400) / 3600);
  const m = Math.floor((secs % 3600) / 60);
  c.querySelector('strong').textContent = d ? `${d}d ${h}h ${pad(m)}m` : `${pad(h)}:${pad(m)}:${pad(secs % 60)}`;
  c.classList.toggle('soon', left < SOON_MS);
}

function applyStatus(st) {
  if (st.server_now) skew = new Date(st.server_now).getTime() - Date.now();
  timingVersion = st.timing_version;
  if (st.submitted_at) setSubmitState(st.submitted_at, st.submitted_automatically);
  if (!st.deadline) return;
  const next = new Date(st.deadline).getTime();
  const moved = next !== deadline;
  deadline = next;
  const c = $('#countdown');
  if (c) { c.dataset.deadline = st.deadline; c.title = `Closes ${st.deadline}`; }
  if (st.state === 'open' && closed && !sessionLost) {
    reopenEditor();
    banner(`Your time was extended: the event now closes at ${clock(new Date(deadline))}.`, 'info');
  } else if (st.state === 'open' && moved) {
    banner(`The deadline changed: the event now closes at ${clock(new Date(deadline))}.`, 'info');
  } else if (st.state === 'closed' && !closed) {
    closeEditor(moved ? 'Your instructor closed this event. Your last saved code is kept; it can no longer be changed or submitted.' : undefined);
  }
  if (moved) { finalSaveDone = false; warned = new Set(); }
  tick();
}

async function refreshStatus() {
  try {
    const res = await fetch(`/editor/${data.assignmentId}/status`, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    if (res.status === 401) { onSessionLost(); return; }
    if (res.ok) applyStatus(await res.json());
  } catch { /* offline: the next poll retries */ }
}

function schedulePoll() {
  const left = deadline - serverNow();
  const base = left < SOON_MS && left > -SOON_MS ? POLL_SOON_MS : POLL_MS;
  setTimeout(pollTiming, base * (0.75 + Math.random() * 0.5));
}

async function pollTiming() {
  try {
    const res = await fetch(`/exam/timing/${data.eventId}`, { headers: { Accept: 'application/json' } });
    if (res.ok) {
      const { v } = await res.json();
      if (v !== timingVersion) await refreshStatus();
    }
  } catch { /* offline: try again later */ }
  schedulePoll();
}

if (deadline !== null) {
  if (closed) closeEditor(); else tick();
  setInterval(tick, 1000);
  schedulePoll();
} else if (closed) closeEditor();

if (data.savedAt && !closed) setSaveState(`Saved ${clock(new Date(data.savedAt))}`, 'ok');
document.documentElement.dataset.editorReady = '1';
