'use strict';
// Markdown for problem statements and event descriptions, by markdown-it
// (CommonMark + GFM tables and strikethrough). Sanitised by construction: raw HTML
// in the source is escaped (html: false), and links and images whose URL is a
// script (javascript:, vbscript:, file:, data: other than images) are not made
// into links (markdown-it's validateLink). Headings start at <h3>: the page has
// its own <h1>/<h2>. One shared parser, built when the module loads.
const MarkdownIt = require('markdown-it');
const { raw } = require('./html');

const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

md.core.ruler.push('shift_headings', (state) => {
  for (const t of state.tokens) {
    if ((t.type === 'heading_open' || t.type === 'heading_close') && /^h[1-6]$/.test(t.tag)) {
      t.tag = `h${Math.min(Number(t.tag[1]) + 2, 6)}`;
    }
  }
});

// Tables scroll inside their own box on a narrow screen instead of widening the page.
md.renderer.rules.table_open = () => '<div class="tablewrap"><table>\n';
md.renderer.rules.table_close = () => '</table></div>\n';

// Links leave the exam page in a new tab and pass nothing about it along.
const defaultLinkOpen = md.renderer.rules.link_open || ((tokens, idx, options, env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx].attrSet('target', '_blank');
  tokens[idx].attrSet('rel', 'noopener noreferrer');
  return defaultLinkOpen(tokens, idx, options, env, self);
};

function renderMarkdown(src) {
  return raw(md.render(String(src || '')));
}

module.exports = { renderMarkdown };
