'use strict';
// CSV (RFC 4180): quoted fields with "" escapes and line breaks inside quotes,
// CRLF or LF, an optional UTF-8 BOM. parse() returns one entry per record with the
// line number it starts on, so an import report can point at the line.

function parse(text) {
  const s = String(text || '').replace(/^\uFEFF/, '');
  const rows = [];
  let field = '';
  let row = [];
  let line = 1;
  let rowLine = 1;
  let quoted = false;
  let wasQuoted = false;
  let bad = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quoted) {
      if (c === '"') {
        if (s[i + 1] === '"') { field += '"'; i++; } else quoted = false;
      } else {
        if (c === '\n') line++;
        field += c;
      }
      continue;
    }
    if (c === '"') {
      if (field === '' && !wasQuoted) { quoted = true; wasQuoted = true; } else { bad = bad || 'a quote in the middle of a field'; field += c; }
    } else if (c === ',') {
      row.push(field); field = ''; wasQuoted = false;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && s[i + 1] === '\n') i++;
      row.push(field);
      rows.push({ line: rowLine, fields: row, error: bad });
      field = ''; row = []; wasQuoted = false; bad = null;
      line++; rowLine = line;
    } else {
      field += c;
    }
  }
  if (quoted) bad = 'a quoted field is not closed';
  if (field !== '' || row.length || wasQuoted) { row.push(field); rows.push({ line: rowLine, fields: row, error: bad }); }
  // blank lines are not records
  return rows.filter((r) => !(r.fields.length === 1 && r.fields[0].trim() === '' && !r.error));
}

function cell(v) {
  if (v === null || v === undefined) return '';
  let s = v instanceof Date ? v.toISOString() : String(v);
  // spreadsheet formula injection: a leading = + - @ is neutralised
  if (/^[=+\-@\t\r]/.test(s) && !/^-?\d+(\.\d+)?$/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function stringify(rows) {
  return rows.map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}

module.exports = { parse, stringify };
