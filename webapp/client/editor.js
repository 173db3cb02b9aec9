// The exam editor: CodeMirror 6 with C highlighting, autosave (interval, page
// hidden, before the deadline), manual save, compile with messages linked to
// lines and gutter markers, run with custom input, evaluate, submit, countdown.
// Engine routes (/compile, /execute, /evaluate) are on the same origin (HAProxy).
import { EditorView, basicSetup } from 'codemirror';
import { keymap } from '@codemirror/view';
import { EditorState, Compartment } from '@codemirror/state';
import { indentWithTab } from '@codemirror/commands';
import { cpp } from '@codemirror/lang-cpp';
import { setDiagnostics, lintGutter } from '@codemirror/lint';

const AUTOSAVE_MS = 12000;

const $ = (sel) => document.querySelector(sel);
const data = JSON.parse($('#editor-data').textContent);
const csrf = document.querySelector('meta[name="csrf-token"]').content;
const backupKey = `prutor:code:${data.assignmentId}`;
const skew = new Date(data.serverNow).getTime() - Date.now();
const serverNow = () => Date.now() + skew;

let closed = !!data.closed;
let lastSaved = data.code;     // the text the server holds as the latest version
let saving = null;             // the save in flight
let pendingTrigger = null;     // a save asked for while one was in flight
let sessionLost = false;

// ---------- editor ----------
const editable = new Compartment();
const view = new EditorView({
  parent: $('#editor'),
  state: EditorState.create({
    doc: data.code,
    extensions: [
      basicSetup,
      cpp(),
      lintGutter(),
      keymap.of([
        indentWithTab,
        { key: 'Mod-s', preventDefault: true, run: () => { save('manual'); return true; } },
        { key: 'Mod-Enter', preventDefault: true, run: () => { run(); return true; } },
        { key: 'Mod-b', preventDefault: true, run: () => { compile(); return true; } },
      ]),
      editable.of([EditorView.editable.of(!closed), EditorState.readOnly.of(closed)]),
      EditorView.updateListener.of((u) => { if (u.docChanged) onEdit(); }),
      EditorView.theme({ '&': { height: '100%' }, '.cm-scroller': { fontFamily: 'var(--mono)' } }),
    ],
  }),
});
window.prutorEditor = { view, code: () => view.state.doc.toString() }; // for tests and debugging

const code = () => view.state.doc.toString();
const dirty = () => code() !== lastSaved;

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
        'X-CSRF-Token': csrf, 'X-Requested-With': 'XMLHttpRequest',
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
  if (e.status === 401) { onSessionLost(); return 'Your session has ended. Sign in again (in a new tab) and retry; your code is kept here.'; }
  return e.message;
}

function onSessionLost() {
  sessionLost = true;
  banner('Your session has ended. Open the sign-in page in a new tab, sign in, then press Save here: your code is kept in this browser.', 'error');
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
let busyRetry = null; // a save answered 503 with Retry-After is sent again then
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
  saving = post('/editor/save', { assignment_id: data.assignmentId, branch_id: 0, trigger, code: text }, { keepalive: keepalive && text.length < 60000 })
    .then((r) => {
      lastSaved = text;
      if (sessionLost) { sessionLost = false; $('#closed-banner').hidden = true; }
      const at = r.saved_at ? new Date(r.saved_at) : new Date();
      setSaveState(dirty() ? 'Unsaved changes' : `Saved ${clock(at)}`, dirty() ? 'dirty' : 'ok');
      try { if (!dirty()) localStorage.removeItem(backupKey); } catch { /* ignore */ }
      if (r.submitted) {
        const s = $('#submit-state');
        s.textContent = `Submitted ${clock(at)}`;
        s.className = 'pill ok';
      }
      return r;
    })
    .catch((e) => {
      if (e.status === 409) { closeEditor(e.message); setSaveState('Not saved', 'error'); }
      else if (e.status === 401) { onSessionLost(); setSaveState('Not saved: session ended', 'error'); }
      else if (e.status === 403 && e.code === 'csrf') { setSaveState('Not saved', 'error'); banner('This page is out of date. Copy your code if needed and reload the page.', 'error'); }
      else if (e.status === 503 && Number(e.retryAfter) > 0) {
        // the server is overloaded or restarting: it says when to come back, so save again then
        const after = Math.min(Number(e.retryAfter), 60);
        setSaveState(`Server busy: saving again in ${after} s`, 'busy');
        clearTimeout(busyRetry);
        busyRetry = setTimeout(() => { busyRetry = null; save(trigger).catch(() => {}); }, after * 1000);
      }
      else setSaveState(`Not saved: ${e.network ? 'no connection' : e.message}`, 'error');
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

setInterval(() => { if (!document.hidden) save('auto'); }, AUTOSAVE_MS);
document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden') save('auto', { keepalive: true }); });
window.addEventListener('pagehide', () => { if (dirty() && !saving) save('auto', { keepalive: true }); });
window.addEventListener('beforeunload', (ev) => { if (dirty() && !closed) { save('auto', { keepalive: true }); ev.preventDefault(); ev.returnValue = ''; } });

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
    result.compiled ? 'Compiled successfully' : 'Compilation failed',
    el('span', { class: 'muted small' }, ` · ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`)));
  if (msgs.length) {
    panel.append(el('ul', { class: 'messages' }, msgs.map((m) => el('li', { class: `msg sev-${sevOf(m.severity)}` },
      m.line ? el('button', { type: 'button', class: 'lineref', 'data-line': m.line, onclick: () => jumpTo(m.line, m.column) }, `line ${m.line}${m.column ? `:${m.column}` : ''}`) : null,
      el('span', { class: 'sev' }, m.severity || ''),
      el('span', { class: 'text' }, m.text || '')))));
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
  $('#panel-messages').replaceChildren(el('p', { class: 'muted' }, 'Compiling…'));
  try {
    const r = await post('/compile', { assignment_id: data.assignmentId, code: code(), env: data.env });
    showMessages(r);
  } catch (e) {
    $('#panel-messages').replaceChildren(el('p', { class: 'verdict bad' }, engineError(e)));
  } finally { busy(btn, false); }
}
$('#btn-compile').addEventListener('click', compile);

// ---------- run ----------
const VERDICT = {
  accepted: 'Accepted', ok: 'Finished', success: 'Finished', 'wrong answer': 'Wrong answer', wrong_answer: 'Wrong answer',
  'compilation error': 'Compilation error', compilation_error: 'Compilation error', 'time limit': 'Time limit exceeded',
  time_limit: 'Time limit exceeded', 'memory limit': 'Memory limit exceeded', memory_limit: 'Memory limit exceeded',
  'output limit': 'Output limit exceeded', output_limit: 'Output limit exceeded', 'runtime error': 'Runtime error',
  runtime_error: 'Runtime error', 'forbidden system call': 'Forbidden system call', forbidden_syscall: 'Forbidden system call',
  'internal error': 'Internal error', internal_error: 'Internal error', busy: 'Server busy', 'server busy': 'Server busy',
  hidden_failed: 'Some hidden tests did not pass',
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
async function evaluate() {
  const btn = $('#btn-evaluate');
  if (!btn || btn.disabled) return;
  busy(btn, true);
  showTab('eval');
  const panel = $('#panel-eval');
  panel.replaceChildren(el('p', { class: 'muted' }, 'Saving and evaluating on all test cases…'));
  try {
    if (!closed && (dirty() || saving)) { await (saving || Promise.resolve()); if (dirty()) await save('manual'); }
    const r = await post('/evaluate', { assignment_id: data.assignmentId });
    const cases = Array.isArray(r.cases) ? r.cases : [];
    const passed = cases.filter((c) => c.passed === true || c.passed === 1 || vGood(c.verdict)).length;
    const rows = cases.map((c, i) => {
      const hidden = c.hidden === true || c.visibility === 'hidden';
      const ok = c.passed === true || c.passed === 1 || vGood(c.verdict);
      return el('tr', { class: ok ? 'pass' : 'fail' },
        el('td', {}, `${c.position || i + 1}`),
        el('td', {}, hidden ? el('span', { class: 'pill' }, 'hidden') : el('span', { class: 'pill info' }, 'visible')),
        // a hidden case says only whether it passed (the engine sends nothing more)
        el('td', {}, el('span', { class: `pill ${ok ? 'ok' : 'bad'}` }, hidden ? (ok ? 'Passed' : 'Not passed') : vText(c.verdict))),
        el('td', { class: 'num muted' }, c.time_ms !== undefined ? `${c.time_ms} ms` : ''),
        el('td', {}, hidden ? el('span', { class: 'muted small' }, 'details hidden') : el('div', { class: 'io' },
          el('div', {}, el('span', { class: 'label' }, 'expected'), el('pre', {}, c.expected ?? c.expected_output ?? '')),
          el('div', {}, el('span', { class: 'label' }, 'your output'), el('pre', {}, c.actual ?? c.actual_output ?? c.stdout ?? '')))));
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

// ---------- deadline ----------
function closeEditor(message) {
  closed = true;
  view.dispatch({ effects: editable.reconfigure([EditorView.editable.of(false), EditorState.readOnly.of(true)]) });
  ['#btn-save', '#btn-submit', '#btn-compile', '#btn-run', '#btn-evaluate'].forEach((s) => { const b = $(s); if (b) { b.dataset.needsOpen = '1'; b.disabled = true; } });
  banner(message || 'This event has closed. Your last saved code is kept; it can no longer be changed or submitted.');
  const c = $('#countdown');
  if (c) { c.classList.add('over'); c.querySelector('.label').textContent = 'Closed'; c.querySelector('strong').textContent = ''; }
}

if (data.deadline) {
  const deadline = new Date(data.deadline).getTime();
  const c = $('#countdown');
  let finalSaveDone = false;
  const tick = () => {
    if (closed) return;
    const left = deadline - serverNow();
    if (left <= 0) { closeEditor(); return; }
    if (left < 20000 && !finalSaveDone) { finalSaveDone = true; save('auto'); }
    const secs = Math.floor(left / 1000);
    const d = Math.floor(secs / 86400);
    const h = Math.floor((secs % 86400) / 3600);
    const m = Math.floor((secs % 3600) / 60);
    c.querySelector('strong').textContent = d ? `${d}d ${h}h ${pad(m)}m` : `${pad(h)}:${pad(m)}:${pad(secs % 60)}`;
    c.classList.toggle('soon', left < 5 * 60 * 1000);
  };
  if (closed) closeEditor(); else { tick(); setInterval(tick, 1000); }
} else if (closed) closeEditor();

if (data.savedAt && !closed) setSaveState(`Saved ${clock(new Date(data.savedAt))}`, 'ok');
document.documentElement.dataset.editorReady = '1';
