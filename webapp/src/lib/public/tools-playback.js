// Playback (issue 16): loads the timeline of an assignment page by page (the first
// page is shown at once), moves a slider over its saved versions and shows the
// line diff between a pinned point A (or the previous version) and the slider's B.
(function () {
  'use strict';
  var root = document.getElementById('playback');
  if (!root) return;
  var aid = root.getAttribute('data-assignment');
  var base = '/tools/playback/' + aid;
  var slider = document.getElementById('pb-slider');
  var list = document.getElementById('pb-events');
  var versions = [];          // save items, in time order
  var items = [];             // every item, in time order
  var pinnedA = null;
  var shown = -1;

  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
  function when(t) { return new Date(t).toLocaleTimeString(); }
  function describe(x) {
    if (x.kind === 'save') return x.trigger + ' save, ' + x.lines + ' lines';
    if (x.kind === 'compile') return 'compile ' + (x.ok ? 'ok' : 'FAILED') + (x.cached ? ' (cached)' : '');
    if (x.kind === 'run') return 'run: ' + x.verdict + (x.exit_code !== null ? ' (exit ' + x.exit_code + ')' : '') + ', ' + x.time_ms + ' ms';
    return 'evaluate: ' + x.passed + '/' + x.total + ' passed' + (x.verdicts ? ' (' + x.verdicts + ')' : '');
  }
  function json(url) {
    return fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin' }).then(function (r) {
      return r.json().then(function (b) { if (!r.ok) throw new Error(b.error || r.status); return b; });
    });
  }

  function addItems(page) {
    page.forEach(function (x) {
      items.push(x);
      var li = el('li', 'pb-' + x.kind);
      li.setAttribute('data-code', x.code_id);
      li.appendChild(el('span', 'muted', when(x.t) + ' '));
      li.appendChild(el('span', '', describe(x)));
      if (x.kind === 'save') {
        li.setAttribute('data-version', versions.length);
        versions.push(x);
      }
      if (x.kind === 'compile' && !x.ok && x.messages) li.appendChild(el('pre', 'pb-errors', x.messages.slice(0, 2000)));
      if (x.kind === 'run' && x.stderr) li.appendChild(el('pre', 'pb-errors', x.stderr));
      list.appendChild(li);
    });
    slider.max = Math.max(0, versions.length - 1);
    slider.disabled = versions.length === 0;
    document.getElementById('pb-count').textContent = versions.length;
  }

  function show(i) {
    if (!versions.length) return;
    i = Math.max(0, Math.min(versions.length - 1, i));
    shown = i;
    slider.value = i;
    document.getElementById('pb-pos').textContent = i + 1;
    var b = versions[i];
    var aIdx = pinnedA !== null && !document.getElementById('pb-a-prev').checked ? pinnedA : Math.max(0, i - 1);
    var a = versions[aIdx];
    document.getElementById('pb-at').textContent = when(b.t) + ' · ' + describe(b) + ' ';
    var cur = list.querySelector('li.current');
    if (cur) cur.classList.remove('current');
    var li = list.querySelector('li[data-version="' + i + '"]');
    if (li) { li.classList.add('current'); li.scrollIntoView({ block: 'nearest' }); }
    json(base + '/diff?from=' + a.code_id + '&to=' + b.code_id).then(function (d) {
      if (shown !== i) return;
      document.getElementById('pb-diffhead').textContent = 'A: version ' + (aIdx + 1) + ' (' + when(d.from.t) + ') → B: version ' + (i + 1) +
        ' (' + when(d.to.t) + '): ' + d.added + ' lines added, ' + d.removed + ' removed';
      var pre = document.getElementById('pb-diff');
      pre.textContent = '';
      var no = 0;
      d.lines.forEach(function (l) {
        var line = el('span', 'ln' + (l.op === '+' ? ' add' : l.op === '-' ? ' del' : ''));
        if (l.op !== '-') no += 1;
        line.appendChild(el('i', '', l.op === '-' ? '-' : String(no)));
        line.appendChild(document.createTextNode(l.text + '\n'));
        pre.appendChild(line);
      });
    }).catch(function (e) { document.getElementById('pb-diffhead').textContent = 'Could not load the diff: ' + e.message; });
  }

  function load(after) {
    json(base + '/timeline?limit=300' + (after ? '&after=' + encodeURIComponent(after) : '')).then(function (p) {
      var first = versions.length === 0;
      addItems(p.items);
      if (first && versions.length) show(0);
      if (p.next) load(p.next);
      else document.getElementById('pb-loading').textContent = '';
    }).catch(function (e) { document.getElementById('pb-loading').textContent = 'Could not load the timeline: ' + e.message; });
  }

  slider.addEventListener('input', function () { show(Number(slider.value)); });
  document.getElementById('pb-prev').addEventListener('click', function () { show(shown - 1); });
  document.getElementById('pb-next').addEventListener('click', function () { show(shown + 1); });
  document.getElementById('pb-set-a').addEventListener('click', function () {
    pinnedA = shown;
    document.getElementById('pb-a-prev').checked = false;
  });
  document.getElementById('pb-a-prev').addEventListener('change', function () { show(shown); });
  list.addEventListener('click', function (e) {
    var li = e.target.closest('li');
    if (!li) return;
    var code = li.getAttribute('data-code');
    for (var k = versions.length - 1; k >= 0; k--) if (versions[k].code_id === code) { show(k); return; }
  });
  load(null);
}());
