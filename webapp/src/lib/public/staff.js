// Staff pages: local time zone for date inputs, CSV file into the import box,
// confirmation of destructive buttons, busy buttons, the live event page's
// polling, and CSV download of a report table. No inline script (CSP).
(function () {
  'use strict';
  function $all(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function pad(n) { return String(n).padStart(2, '0'); }
  function localInputValue(d) {
    return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + 'T' + pad(d.getHours()) + ':' + pad(d.getMinutes());
  }

  function forms() {
    $all('form').forEach(function (f) {
      f.addEventListener('submit', function (ev) {
        var btn = ev.submitter || f.querySelector('button[type=submit]');
        if (btn && btn.getAttribute('data-confirm') && !window.confirm(btn.getAttribute('data-confirm'))) { ev.preventDefault(); return; }
        var tz = f.querySelector('input[name=tz_offset]');
        if (tz) tz.value = String(new Date().getTimezoneOffset());
        if (btn) { setTimeout(function () { btn.classList.add('busy'); btn.disabled = true; }, 0); }
      });
    });
    // datetime-local inputs that show a UTC value from the server in local time
    $all('input[type=datetime-local][data-utc]').forEach(function (i) {
      var d = new Date(i.getAttribute('data-utc'));
      if (!isNaN(d)) i.value = localInputValue(d);
    });
    $all('input[type=datetime-local][data-default-now]').forEach(function (i) {
      if (!i.value) { var d = new Date(Date.now() + 60000); i.value = localInputValue(d); }
    });
    $all('input[name=tz_offset]').forEach(function (i) { i.value = String(new Date().getTimezoneOffset()); });
  }

  // Markdown statement preview: the server renders it exactly as the editor will.
  function preview() {
    $all('[data-preview]').forEach(function (b) {
      b.addEventListener('click', function () {
        var src = document.getElementById(b.getAttribute('data-preview'));
        var out = document.getElementById(b.getAttribute('data-preview-into'));
        var token = document.querySelector('meta[name="csrf-token"]');
        if (!src || !out) return;
        fetch('/problems/preview', {
          method: 'POST', credentials: 'same-origin',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-CSRF-Token': token ? token.content : '' },
          body: JSON.stringify({ statement_md: src.value }),
        }).then(function (r) { return r.json(); }).then(function (j) {
          out.innerHTML = j.html || '';
          out.hidden = false;
        }).catch(function () { out.textContent = 'Preview failed: try again.'; out.hidden = false; });
      });
    });
  }

  // A Kattis package: the zip is the request's body; the new problem opens, with what
  // was only approximated shown first.
  function importZip() {
    $all('form[data-import-zip]').forEach(function (form) {
      form.addEventListener('submit', function (ev) {
        ev.preventDefault();
        var input = form.querySelector('input[type=file]');
        var out = document.getElementById('import-result');
        var token = document.querySelector('meta[name="csrf-token"]');
        var f = input && input.files && input.files[0];
        if (!f) { out.textContent = 'Choose a .zip file first.'; return; }
        out.textContent = 'Importing…';
        fetch(form.getAttribute('data-import-zip'), {
          method: 'POST', credentials: 'same-origin',
          headers: { 'Content-Type': /\.xml$/i.test(f.name) ? 'application/xml' : 'application/zip', Accept: 'application/json', 'X-CSRF-Token': token ? token.content : '' },
          body: f,
        }).then(function (r) { return r.json().then(function (j) { return { ok: r.ok, j: j }; }); }).then(function (res) {
          if (res.j.problems || res.j.skipped) { codeRunnerResult(out, res.j); return; }
          if (!res.ok) { out.className = 'flash error'; out.textContent = res.j.error || 'The import failed.'; return; }
          if (!res.j.warnings.length) { window.location.href = res.j.url + '?done=imported'; return; }
          out.className = 'flash ok';
          out.textContent = '';
          var p = document.createElement('p');
          p.textContent = 'Imported with ' + res.j.tests + ' test case(s). Kept only in part:';
          var ul = document.createElement('ul');
          res.j.warnings.forEach(function (w) { var li = document.createElement('li'); li.textContent = w; ul.appendChild(li); });
          var a = document.createElement('a');
          a.href = res.j.url; a.textContent = 'Open the problem'; a.id = 'imported-link';
          out.append(p, ul, a);
        }).catch(function () { out.className = 'flash error'; out.textContent = 'The import failed: try again.'; });
      });
    });
  }

  // Moodle question XML: each question imported (with what was kept only in part) or
  // skipped with its reason.
  function codeRunnerResult(out, j) {
    out.className = (j.problems || []).length ? 'flash ok' : 'flash error';
    out.textContent = '';
    var list = function (title, items, id) {
      var h = document.createElement('p'); h.textContent = title;
      var ul = document.createElement('ul'); ul.id = id;
      items.forEach(function (li) { ul.appendChild(li); });
      out.append(h, ul);
    };
    if ((j.problems || []).length) {
      list('Imported:', j.problems.map(function (p) {
        var li = document.createElement('li');
        var a = document.createElement('a'); a.href = '/problems/' + p.id; a.textContent = p.title;
        li.append(a, ' (' + p.tests + ' test cases)' + (p.warnings.length ? ': ' + p.warnings.join(' ') : ''));
        return li;
      }), 'imported-problems');
    }
    if ((j.skipped || []).length) {
      list('Not imported:', j.skipped.map(function (s) { var li = document.createElement('li'); li.textContent = s.name + ': ' + s.reason; return li; }), 'skipped-questions');
    }
    if (j.error && !(j.skipped || []).length) { var e = document.createElement('p'); e.textContent = j.error; out.appendChild(e); }
  }

  function csvFile() {
    $all('input[type=file][data-fill]').forEach(function (inp) {
      inp.addEventListener('change', function () {
        var target = document.getElementById(inp.getAttribute('data-fill'));
        var f = inp.files && inp.files[0];
        if (!f || !target) return;
        var r = new FileReader();
        r.onload = function () { target.value = String(r.result); };
        r.readAsText(f);
      });
    });
  }

  function csvCell(s) { s = String(s == null ? '' : s); return /[",\n\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s; }
  function downloadTables() {
    $all('button[data-download-table]').forEach(function (b) {
      b.hidden = false;
      b.addEventListener('click', function () {
        var t = document.getElementById(b.getAttribute('data-download-table'));
        if (!t) return;
        var lines = $all('tr', t).map(function (tr) { return $all('th,td', tr).map(function (c) { return csvCell(c.innerText.trim()); }).join(','); });
        var blob = new Blob([lines.join('\r\n') + '\r\n'], { type: 'text/csv' });
        var a = document.createElement('a');
        a.href = URL.createObjectURL(blob);
        a.download = b.getAttribute('data-filename') || 'report.csv';
        document.body.appendChild(a); a.click(); a.remove();
      });
    });
  }

  function fmtTime(iso) {
    if (!iso) return '';
    var d = new Date(iso); if (isNaN(d)) return '';
    var today = new Date();
    return (d.toDateString() === today.toDateString() ? '' : d.toLocaleDateString(undefined, { day: 'numeric', month: 'short' }) + ' ') + pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
  }

  function live() {
    var root = document.querySelector('[data-live-url]');
    if (!root) return;
    var url = root.getAttribute('data-live-url');
    var every = Number(root.getAttribute('data-live-every') || 5000);
    var dot = document.getElementById('live-dot');
    var stamp = document.getElementById('live-stamp');
    var last = {};
    function setText(el, v) { if (el && el.textContent !== v) { el.textContent = v; return true; } return false; }
    function tick() {
      fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' })
        .then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); })
        .then(function (d) {
          Object.keys(d.totals || {}).forEach(function (k) { setText(document.getElementById('tot-' + k), String(d.totals[k])); });
          (d.students || []).forEach(function (s) {
            var tr = document.getElementById('st-' + s.user_id);
            if (!tr) return;
            var changed = false;
            changed = setText(tr.querySelector('[data-f=login]'), s.last_login_at ? fmtTime(s.last_login_at) : '—') || changed;
            changed = setText(tr.querySelector('[data-f=activity]'), s.last_activity ? fmtTime(s.last_activity) : '—') || changed;
            changed = setText(tr.querySelector('[data-f=saved]'), String(s.saved)) || changed;
            changed = setText(tr.querySelector('[data-f=submitted]'), String(s.submitted)) || changed;
            changed = setText(tr.querySelector('[data-f=score]'), s.score == null ? '—' : String(s.score)) || changed;
            changed = setText(tr.querySelector('[data-f=extra]'), (s.extra_minutes ? '+' + s.extra_minutes + ' min' : '') + (s.accommodation_s ? ' (agreed +' + Math.round(s.accommodation_s / 60) + ' min)' : '')) || changed;
            changed = setText(tr.querySelector('[data-f=ends]'), (s.paused ? 'paused ' : '') + (s.ends ? fmtTime(s.ends) : '—')) || changed;
            if (changed && last[s.user_id]) { tr.classList.remove('changed'); void tr.offsetWidth; tr.classList.add('changed'); }
            last[s.user_id] = true;
          });
          if (dot) dot.classList.remove('stale');
          if (stamp) stamp.textContent = 'updated ' + fmtTime(d.now);
        })
        .catch(function (e) { if (dot) dot.classList.add('stale'); if (stamp) stamp.textContent = 'not updated (' + e.message + '), retrying'; })
        .then(function () { setTimeout(tick, every); });
    }
    tick();
  }

  document.addEventListener('DOMContentLoaded', function () { forms(); csvFile(); downloadTables(); live(); preview(); importZip(); });
})();
