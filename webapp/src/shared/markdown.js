'use strict';
// A deliberately small Markdown renderer for problem statements: the text is
// HTML-escaped first, then a few constructs are turned into markup (paragraphs,
// headings, lists, fenced and indented code blocks, `code`, **bold**, *italic*).
// No raw HTML passes through, so a statement cannot inject script.
const { escapeHtml, raw } = require('./html');

function inline(s) {
  const parts = s.split(/(`[^`]+`)/g);
  return parts.map((p) => {
    if (p.length > 2 && p.startsWith('`') && p.endsWith('`')) return `<code>${escapeHtml(p.slice(1, -1))}</code>`;
    return escapeHtml(p)
      .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
      .replace(/(^|[^*\w])\*([^*\s][^*]*)\*(?!\w)/g, '$1<em>$2</em>')
      .replace(/(^|\W)_([^_\s][^_]*)_(?!\w)/g, '$1<em>$2</em>');
  }).join('');
}

function renderMarkdown(src) {
  const lines = String(src || '').replace(/\r\n?/g, '\n').split('\n');
  const out = [];
  let para = [];
  let list = null;
  const flushPara = () => { if (para.length) { out.push(`<p>${inline(para.join(' '))}</p>`); para = []; } };
  const flushList = () => { if (list) { out.push(`<${list.tag}>${list.items.map((i) => `<li>${inline(i)}</li>`).join('')}</${list.tag}>`); list = null; } };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^```/.test(line)) {
      flushPara(); flushList();
      const code = [];
      for (i++; i < lines.length && !/^```/.test(lines[i]); i++) code.push(lines[i]);
      out.push(`<pre><code>${escapeHtml(code.join('\n'))}</code></pre>`);
      continue;
    }
    if (/^( {4}|\t)/.test(line) && !list) {
      flushPara();
      const code = [];
      for (; i < lines.length && (/^( {4}|\t)/.test(lines[i]) || (lines[i] === '' && /^( {4}|\t)/.test(lines[i + 1] || ''))); i++) {
        code.push(lines[i].replace(/^( {4}|\t)/, ''));
      }
      i--;
      out.push(`<pre><code>${escapeHtml(code.join('\n'))}</code></pre>`);
      continue;
    }
    const h = /^(#{1,4})\s+(.*)$/.exec(line);
    if (h) { flushPara(); flushList(); const lvl = Math.min(h[1].length + 2, 6); out.push(`<h${lvl}>${inline(h[2])}</h${lvl}>`); continue; }
    const li = /^\s*(?:([-*+])|(\d+)[.)])\s+(.*)$/.exec(line);
    if (li) {
      flushPara();
      const tag = li[1] ? 'ul' : 'ol';
      if (list && list.tag !== tag) flushList();
      if (!list) list = { tag, items: [] };
      list.items.push(li[3]);
      continue;
    }
    if (line.trim() === '') { flushPara(); flushList(); continue; }
    flushList();
    para.push(line.trim());
  }
  flushPara(); flushList();
  return raw(out.join('\n'));
}

module.exports = { renderMarkdown };
