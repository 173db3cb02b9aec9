'use strict';
// Form reading and validation for the staff pages. A Form collects every problem
// with the field it belongs to; check() throws one 400 carrying all of them and the
// values as typed, so the page can be shown again with the messages next to the
// fields and nothing the user typed lost.
const { badRequest } = require('../shared/errors');

class Form {
  constructor(body) {
    this.body = body && typeof body === 'object' ? body : {};
    this.errors = {};
    this.values = {};
    for (const [k, v] of Object.entries(this.body)) {
      if (k !== '_csrf' && !/password/i.test(k)) this.values[k] = v;
    }
  }

  raw(name) {
    const v = this.body[name];
    if (Array.isArray(v)) return v.map(String);
    return v === undefined || v === null ? '' : String(v);
  }

  fail(name, msg) { if (!this.errors[name]) this.errors[name] = msg; return undefined; }

  str(name, { label = name, required = false, max = 200, min = 0, pattern, patternMsg, trim = true, def = '' } = {}) {
    let v = this.body[name];
    if (Array.isArray(v)) v = v[0];
    v = v === undefined || v === null ? '' : String(v);
    if (trim) v = v.trim();
    v = v.replace(/\r\n?/g, '\n');
    if (!v) { if (required) return this.fail(name, `${label} is required.`); return def; }
    if (v.length > max) return this.fail(name, `${label} is too long (${max} characters at most).`);
    if (v.length < min) return this.fail(name, `${label} needs at least ${min} characters.`);
    if (pattern && !pattern.test(v)) return this.fail(name, patternMsg || `${label} is not valid.`);
    return v;
  }

  int(name, { label = name, required = false, min = 0, max = 1e9, def = null } = {}) {
    const s = this.str(name, { label, max: 20 });
    if (s === undefined) return undefined;
    if (s === '') { if (required) return this.fail(name, `${label} is required.`); return def; }
    if (!/^-?\d+$/.test(s)) return this.fail(name, `${label} must be a whole number.`);
    const n = Number(s);
    if (n < min || n > max) return this.fail(name, `${label} must be between ${min} and ${max}.`);
    return n;
  }

  num(name, { label = name, required = false, min = 0, max = 1e9, def = null, decimals = 2 } = {}) {
    const s = this.str(name, { label, max: 20 });
    if (s === undefined) return undefined;
    if (s === '') { if (required) return this.fail(name, `${label} is required.`); return def; }
    const re = new RegExp(`^-?\\d+(\\.\\d{1,${decimals}})?$`);
    if (!re.test(s)) return this.fail(name, `${label} must be a number (at most ${decimals} decimals).`);
    const n = Number(s);
    if (n < min || n > max) return this.fail(name, `${label} must be between ${min} and ${max}.`);
    return n;
  }

  oneOf(name, allowed, { label = name, def } = {}) {
    const s = this.str(name, { label, max: 64 });
    if (s === '' && def !== undefined) return def;
    if (!allowed.includes(s)) return this.fail(name, `Choose a valid ${label.toLowerCase()}.`);
    return s;
  }

  bool(name) { const v = this.raw(name); return v === '1' || v === 'on' || v === 'true' || v === 'yes'; }

  // A list of ids from a multi-select or repeated checkboxes.
  ids(name, { label = name, required = false } = {}) {
    let v = this.body[name];
    if (v === undefined || v === '') v = [];
    if (!Array.isArray(v)) v = [v];
    const out = [];
    for (const x of v) {
      if (!/^\d{1,10}$/.test(String(x))) { this.fail(name, `${label}: invalid choice.`); return []; }
      out.push(Number(x));
    }
    if (required && !out.length) this.fail(name, `Choose at least one ${label.toLowerCase()}.`);
    return [...new Set(out)];
  }

  // <input type="datetime-local"> value in the browser's time zone; staff.js sends
  // tz_offset (minutes, Date#getTimezoneOffset). Without it the time is UTC.
  datetime(name, { label = name, required = false } = {}) {
    const s = this.str(name, { label, max: 40 });
    if (!s) { if (required) return this.fail(name, `${label} is required.`); return null; }
    const m = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d)(?::(\d\d))?$/.exec(s);
    if (!m) return this.fail(name, `${label} must be a date and time (YYYY-MM-DD HH:MM).`);
    const off = /^-?\d{1,4}$/.test(this.raw('tz_offset')) ? Number(this.raw('tz_offset')) : 0;
    const utc = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +(m[6] || 0)) + off * 60000;
    const d = new Date(utc);
    if (Number.isNaN(d.getTime()) || d.getUTCFullYear() < 2000 || d.getUTCFullYear() > 2100) return this.fail(name, `${label} is not a valid date.`);
    return d;
  }

  ok() { return Object.keys(this.errors).length === 0; }

  check(summary) {
    if (this.ok()) return;
    const msgs = Object.values(this.errors);
    throw badRequest(summary || (msgs.length === 1 ? msgs[0] : `Please correct the ${msgs.length} fields marked below.`), { fields: this.errors, values: this.values });
  }
}

// A 400 on a named field, thrown by services for rules that need the database.
function fieldError(field, message, values) {
  return badRequest(message, { fields: { [field]: message }, values });
}

function toId(v) {
  const s = String(v ?? '');
  return /^\d{1,10}$/.test(s) ? Number(s) : null;
}

module.exports = { Form, fieldError, toId };
