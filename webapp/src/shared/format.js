'use strict';
// Small formatting helpers shared by views. Times are UTC in the database; pages
// print them with a <time datetime> element that app.js localises in the browser.
const { html } = require('./html');

function iso(d) { return d ? new Date(d).toISOString() : ''; }

function utcText(d) {
  if (!d) return '';
  return new Date(d).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

function time(d) {
  if (!d) return '';
  return html`<time datetime="${iso(d)}" data-local>${utcText(d)}</time>`;
}

function duration(ms) {
  if (ms <= 0) return '0m';
  const m = Math.floor(ms / 60000);
  const d = Math.floor(m / 1440);
  const h = Math.floor((m % 1440) / 60);
  const mm = m % 60;
  if (d) return `${d}d ${h}h`;
  if (h) return `${h}h ${mm}m`;
  return `${mm}m`;
}

function marks(n) {
  if (n === null || n === undefined) return '';
  const x = Number(n);
  return Number.isInteger(x) ? String(x) : x.toFixed(2).replace(/0$/, '');
}

module.exports = { iso, utcText, time, duration, marks };
