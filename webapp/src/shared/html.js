'use strict';
// The view layer: views are plain functions built from the `html` tagged template,
// compiled by Node once when the module loads (no template files read per request).
// Every interpolated value is HTML-escaped unless it is already SafeHtml (the result
// of another `html` template or of raw()), so escaping is the default, not a habit.

class SafeHtml {
  constructor(s) { this.value = s; }
  toString() { return this.value; }
}

const ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const ESC_RE = /[&<>"']/g;

function escapeHtml(v) {
  if (v === null || v === undefined || v === false) return '';
  return String(v).replace(ESC_RE, (c) => ESC[c]);
}

function render(v) {
  if (v === null || v === undefined || v === false || v === true) return '';
  if (v instanceof SafeHtml) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(v);
}

function html(strings, ...values) {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

// Only for markup the server produced itself (e.g. the escaped-first markdown renderer).
function raw(s) { return new SafeHtml(String(s)); }

// JSON inside <script type="application/json">: cannot close the tag or open a comment.
function jsonForScript(obj) {
  return raw(JSON.stringify(obj)
    .replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029'));
}

module.exports = { html, raw, escapeHtml, jsonForScript };
