'use strict';
// View helpers shared by the staff pages: the page frame (shared layout plus the
// staff stylesheet and script), form fields that show their error and keep what
// was typed, flash messages, small formatting.
const { html } = require('../shared/html');
const { layout } = require('../shared/layout');
const { staffAsset } = require('./assets');

function page(req, { title, active, body, wide = false, scripts = [] }) {
  return layout(req, {
    title,
    active,
    wide,
    bodyClass: 'staff',
    scripts: [staffAsset('staff.js'), ...scripts],
    body: html`<link rel="stylesheet" href="${staffAsset('staff.css')}">
${body}`,
  });
}

function send(res, view, status = 200) {
  res.status(status).set('Cache-Control', 'no-store').type('html').send(String(view));
}

// f = { values, errors } from a failed Form, or {} for a fresh form.
function val(f, name, def = '') {
  const v = f && f.values && f.values[name] !== undefined ? f.values[name] : def;
  return v === null || v === undefined ? '' : v;
}
function errOf(f, name) { return f && f.errors ? f.errors[name] : undefined; }

function fieldWrap(f, name, label, control, help) {
  const e = errOf(f, name);
  return html`<div class="field${e ? ' has-error' : ''}">
  <label for="f-${name}">${label}</label>
  ${control}
  ${e ? html`<p class="field-error" id="e-${name}">${e}</p>` : ''}
  ${help ? html`<p class="help">${help}</p>` : ''}
</div>`;
}

function input(f, name, label, { type = 'text', def = '', help, required = false, attrs = {}, value } = {}) {
  const v = value !== undefined ? value : val(f, name, def);
  const extra = Object.entries(attrs).map(([k, x]) => html` ${k}="${x}"`);
  return fieldWrap(f, name, label, html`<input id="f-${name}" name="${name}" type="${type}" value="${type === 'password' ? '' : v}"${required ? html` required` : ''}${errOf(f, name) ? html` aria-invalid="true" aria-describedby="e-${name}"` : ''}${extra}>`, help);
}

function textarea(f, name, label, { def = '', help, rows = 6, mono = false, required = false, attrs = {} } = {}) {
  const extra = Object.entries(attrs).map(([k, x]) => html` ${k}="${x}"`);
  return fieldWrap(f, name, label, html`<textarea id="f-${name}" name="${name}" rows="${rows}"${mono ? html` class="mono"` : ''}${required ? html` required` : ''}${errOf(f, name) ? html` aria-invalid="true"` : ''} spellcheck="${mono ? 'false' : 'true'}"${extra}>${val(f, name, def)}</textarea>`, help);
}

// options: [{ value, label }]
function select(f, name, label, options, { def = '', help, attrs = {} } = {}) {
  const cur = String(val(f, name, def));
  const extra = Object.entries(attrs).map(([k, x]) => html` ${k}="${x}"`);
  return fieldWrap(f, name, label, html`<select id="f-${name}" name="${name}"${errOf(f, name) ? html` aria-invalid="true"` : ''}${extra}>
    ${options.map((o) => html`<option value="${o.value}"${String(o.value) === cur ? html` selected` : ''}>${o.label}</option>`)}
  </select>`, help);
}

function checkbox(f, name, label, { def = false, help, value = '1' } = {}) {
  const has = f && f.values && Object.keys(f.values).length ? (f.values[name] !== undefined && f.values[name] !== '') : def;
  return html`<div class="field check">
  <label class="checklabel"><input type="checkbox" name="${name}" value="${value}"${has ? html` checked` : ''}> ${label}</label>
  ${help ? html`<p class="help">${help}</p>` : ''}
</div>`;
}

function csrf(req) { return html`<input type="hidden" name="_csrf" value="${req.session.csrf}">`; }

function flash(kind, msg) { return msg ? html`<div class="flash ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${msg}</div>` : ''; }

function formError(f) { return f && f.message ? flash('error', f.message) : ''; }

// A small POST form with one button (actions on a row or a page).
function actionForm(req, action, label, { cls = 'btn small', confirm, hidden = {}, id } = {}) {
  return html`<form method="post" action="${action}" class="inline actionform">
  ${csrf(req)}${Object.entries(hidden).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
  <button type="submit" class="${cls}"${confirm ? html` data-confirm="${confirm}"` : ''}${id ? html` id="${id}"` : ''}>${label}</button>
</form>`;
}

function crumbs(items) {
  return html`<nav class="crumbs staffcrumbs" aria-label="Breadcrumb">${items.map((it, i) => html`${i ? html`<span class="sep">/</span>` : ''}${it.href ? html`<a href="${it.href}">${it.label}</a>` : html`<span>${it.label}</span>`}`)}</nav>`;
}

// Shape of a failed form for the views: from an HttpError carrying fields/values.
function failed(err, body) {
  const values = {};
  for (const [k, v] of Object.entries(err.values || body || {})) if (k !== '_csrf' && !/password/i.test(k)) values[k] = v;
  return { message: err.message, errors: err.fields || {}, values };
}

module.exports = { page, send, input, textarea, select, checkbox, csrf, flash, formError, actionForm, crumbs, failed };
