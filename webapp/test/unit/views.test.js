'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { html, raw, escapeHtml, jsonForScript } = require('../../src/shared/html');
const { renderMarkdown } = require('../../src/shared/markdown');
const { safeLocalPath } = require('../../src/shared/auth');
const { normalize, HttpError } = require('../../src/shared/errors');

test('interpolations are escaped by default', () => {
  const evil = '<script>alert("x")</script>&\'';
  assert.equal(String(html`<p title="${evil}">${evil}</p>`),
    '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>');
  assert.equal(escapeHtml(null), '');
  assert.equal(escapeHtml(0), '0');
});

test('nested templates and arrays are not escaped twice; raw() is trusted', () => {
  const items = ['a<b', 'c'];
  assert.equal(String(html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`), '<ul><li>a&lt;b</li><li>c</li></ul>');
  assert.equal(String(html`${raw('<b>ok</b>')}`), '<b>ok</b>');
  assert.equal(String(html`${false}${null}${undefined}${true}`), '');
});

test('JSON embedded in a script tag cannot close it', () => {
  const s = String(jsonForScript({ code: '</script><script>alert(1)</script>', x: '\u2028' }));
  assert.doesNotMatch(s, /<\/script/i);
  assert.deepEqual(JSON.parse(s), { code: '</script><script>alert(1)</script>', x: '\u2028' });
});

test('markdown statements render safely', () => {
  const out = String(renderMarkdown('Read `a` and **b**.\n\n<img src=x onerror=alert(1)>\n\n    Input:  2 3\n    Output: 5\n\n- one\n- two'));
  assert.match(out, /<p>Read <code>a<\/code> and <strong>b<\/strong>\.<\/p>/);
  assert.match(out, /&lt;img src=x onerror=alert\(1\)&gt;/);
  assert.doesNotMatch(out, /<img/);
  assert.match(out, /<pre><code>Input:  2 3\nOutput: 5\n<\/code><\/pre>/);
  assert.match(out, /<ul>\s*<li>one<\/li>\s*<li>two<\/li>\s*<\/ul>/);
});

test('markdown: tables, links, images and code by markdown-it; script URLs refused', () => {
  const out = String(renderMarkdown('## Input\n\n| n | out |\n|---|---|\n| 1 | 2 |\n\n[docs](https://example.org/x) '
    + '[bad](javascript:alert(1)) ![plot](/static/plot.png) ![x](data:text/html;base64,PHNjcmlwdD4=)\n\n```c\nint main(void) { return 0; }\n```'));
  assert.match(out, /<h4>Input<\/h4>/, 'headings start below the page\'s own');
  assert.match(out, /<div class="tablewrap"><table>[\s\S]*<th>n<\/th>[\s\S]*<td>2<\/td>/);
  assert.match(out, /<a href="https:\/\/example.org\/x" target="_blank" rel="noopener noreferrer">docs<\/a>/);
  assert.doesNotMatch(out, /href="javascript:/);
  assert.match(out, /<img src="\/static\/plot.png" alt="plot">/);
  assert.doesNotMatch(out, /src="data:text\/html/);
  assert.match(out, /<pre><code class="language-c">int main\(void\) \{ return 0; \}\n<\/code><\/pre>/);
});

test('only local paths are accepted as a redirect target after login', () => {
  assert.equal(safeLocalPath('/editor/3'), '/editor/3');
  assert.equal(safeLocalPath('//evil.example/x'), null);
  assert.equal(safeLocalPath('/\\evil.example'), null);
  assert.equal(safeLocalPath('https://evil.example'), null);
  assert.equal(safeLocalPath('/accounts/logout'), null);
  assert.equal(safeLocalPath(undefined), null);
});

test('errors: client errors keep their message, others never leak details', () => {
  assert.equal(normalize(new HttpError(404, 'No such assignment.')).message, 'No such assignment.');
  const e = normalize(new Error('ER_PARSE_ERROR near SELECT secret'));
  assert.equal(e.status, 500);
  assert.doesNotMatch(e.message, /SELECT|secret/);
  assert.equal(normalize({ type: 'entity.too.large', status: 413 }).status, 413);
  assert.equal(normalize({ type: 'entity.parse.failed', status: 400 }).status, 400);
  assert.equal(normalize({ errno: 1366 }).status, 400);
  const u = normalize(Object.assign(new Error('The database is not reachable right now.'), { unavailable: true }));
  assert.equal(u.status, 503);
});

test('requireRole lets listed roles through, forbids others, sends anonymous users to login', () => {
  const { requireRole } = require('../../src/shared/auth');
  const mw = requireRole('instructor', 'admin');
  const run = (session, headers = {}) => {
    let out = null;
    const req = { session, method: 'GET', originalUrl: '/problems', get: (h) => headers[h.toLowerCase()], is: () => false };
    const res = { redirect: (code, loc) => { out = { code, loc }; } };
    mw(req, res, (err) => { out = err ? { status: err.status } : 'next'; });
    return out;
  };
  assert.equal(run({ role: 'admin' }), 'next');
  assert.equal(run({ role: 'instructor' }), 'next');
  assert.deepEqual(run({ role: 'student' }), { status: 403 });
  assert.deepEqual(run(null), { code: 302, loc: '/accounts/login?next=%2Fproblems' });
  assert.deepEqual(run(null, { accept: 'application/json' }), { status: 401 });
  assert.throws(() => requireRole('superuser'), /unknown role/);
});
