// Every page: local times, live countdowns, display preferences, the folding menu.
(function () {
  'use strict';
  function pad(n) { return String(n).padStart(2, '0'); }
  function localise() {
    document.querySelectorAll('time[data-local]').forEach(function (t) {
      var d = new Date(t.getAttribute('datetime'));
      if (isNaN(d)) return;
      var today = new Date();
      var sameDay = d.toDateString() === today.toDateString();
      t.textContent = (sameDay ? '' : d.toLocaleDateString(undefined, { day: 'numeric', month: 'short' }) + ' ') +
        pad(d.getHours()) + ':' + pad(d.getMinutes());
      t.title = d.toString();
    });
  }
  function countdowns() {
    var nodes = document.querySelectorAll('[data-countdown]');
    if (!nodes.length) return;
    var skew = 0;
    var first = nodes[0].getAttribute('data-now');
    if (first) skew = new Date(first).getTime() - Date.now();
    function tick() {
      nodes.forEach(function (n) {
        var left = new Date(n.getAttribute('data-countdown')).getTime() - (Date.now() + skew);
        var s = n.querySelector('strong');
        if (!s) return;
        if (left <= 0) { s.textContent = 'closed'; n.classList.add('over'); return; }
        var secs = Math.floor(left / 1000);
        var d = Math.floor(secs / 86400), h = Math.floor(secs % 86400 / 3600), m = Math.floor(secs % 3600 / 60), ss = secs % 60;
        s.textContent = d ? d + 'd ' + h + 'h ' + pad(m) + 'm' : pad(h) + ':' + pad(m) + ':' + pad(ss);
        n.classList.toggle('soon', left < 10 * 60 * 1000);
      });
    }
    tick();
    setInterval(tick, 1000);
  }
  // The waiting page of a common start (issue 30): a clock on the server's time, and
  // a poll of the event's timing version (cheap, no session); when it moves, the
  // student's window is asked for and, once open, the first question opens.
  function waitForStart() {
    var w = document.querySelector('[data-wait-event]');
    if (!w) return;
    var clockEl = w.querySelector('[data-clock]');
    var skew = new Date(clockEl.getAttribute('data-now')).getTime() - Date.now();
    setInterval(function () {
      var d = new Date(Date.now() + skew);
      clockEl.textContent = pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
    }, 1000);
    var version = Number(w.getAttribute('data-wait-version'));
    var aid = w.getAttribute('data-wait-assignment');
    function poll() {
      fetch('/exam/timing/' + w.getAttribute('data-wait-event'), { headers: { Accept: 'application/json' }, cache: 'no-store' })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (t) {
          if (!t || t.v === version) return null;
          version = t.v;
          return fetch('/editor/' + aid + '/status', { credentials: 'same-origin', headers: { Accept: 'application/json' } })
            .then(function (r) { return r.ok ? r.json() : null; })
            .then(function (st) { if (st && st.state === 'open') { location.assign('/editor/' + aid); return true; } return null; });
        })
        .catch(function () { return null; })
        // every 2-3 s (jittered so a hall of students does not poll in step): 5,000 waiting
        // students cost ~2,000 requests/s that touch neither the session nor MySQL
        .then(function (opened) { if (!opened) setTimeout(poll, 2000 + Math.random() * 1000); });
    }
    poll();
  }
  // The sign-in form posts through fetch so that a 503 "busy" (the server's sign-in
  // queue is full, or it is restarting) is retried by itself after Retry-After
  // seconds, with the password still in the field; without script the form posts
  // as usual and the page says when to retry.
  function signInRetries() {
    var form = document.querySelector('form.login-card');
    if (!form || !window.fetch || !window.URLSearchParams) return;
    var button = form.querySelector('button[type="submit"]');
    var waiting = null;
    function say(text, kind) {
      var p = form.querySelector('#login-error');
      if (!p) {
        p = document.createElement('p');
        p.id = 'login-error';
        form.querySelector('h2').after(p);
      }
      p.className = 'flash ' + kind;
      p.setAttribute('role', kind === 'error' ? 'alert' : 'status');
      p.textContent = text;
    }
    function retryIn(seconds, why) {
      var left = seconds;
      (function tick() {
        if (left <= 0) { waiting = null; send(); return; }
        say(why + ' Trying again in ' + left + ' s\u2026', 'info');
        left -= 1;
        waiting = setTimeout(tick, 1000);
      })();
    }
    function send() {
      button.disabled = true;
      fetch(form.action, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(new FormData(form)),
      }).then(function (res) {
        return res.json().catch(function () { return {}; }).then(function (body) {
          if (res.ok && body.redirect) { location.assign(body.redirect); return; }
          var after = parseInt(res.headers.get('Retry-After'), 10);
          if (res.status === 503 && after > 0) {
            retryIn(Math.min(after, 60), 'Many students are signing in at once.');
            return;
          }
          button.disabled = false;
          say(body.error || 'Signing in failed (the server answered ' + res.status + ').', 'error');
        });
      }, function () { form.submit(); }); // no connection: fall back to the plain form post
    }
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      if (!waiting) send();
    });
  }
  // Dark mode and text size, remembered in the cookie prutor.prefs (the server
  // draws the next page in them from the first paint; see src/shared/layout.js).
  var FONT_STEPS = ['90', '100', '115', '130', '150'];
  function prefs() {
    var root = document.documentElement;
    var theme = root.getAttribute('data-theme') === 'dark' ? 'dark' : 'light';
    var font = Number(root.getAttribute('data-font') || 1);
    function apply() {
      root.setAttribute('data-theme', theme);
      root.setAttribute('data-font', String(font));
      root.style.fontSize = FONT_STEPS[font] + '%';
      var t = document.getElementById('theme-toggle');
      if (t) t.setAttribute('aria-pressed', theme === 'dark' ? 'true' : 'false');
      document.cookie = 'prutor.prefs=' + encodeURIComponent('theme=' + theme + '&font=' + font) + '; Path=/; Max-Age=31536000; SameSite=Lax';
      document.dispatchEvent(new CustomEvent('prutor:prefs', { detail: { theme: theme, font: font } }));
    }
    function on(id, fn) { var b = document.getElementById(id); if (b) b.addEventListener('click', function () { fn(); apply(); }); }
    on('theme-toggle', function () { theme = theme === 'dark' ? 'light' : 'dark'; });
    on('font-down', function () { font = Math.max(0, font - 1); });
    on('font-up', function () { font = Math.min(FONT_STEPS.length - 1, font + 1); });
  }
  // The main menu folds behind a button on narrow screens.
  function navToggle() {
    var b = document.getElementById('nav-toggle');
    if (!b) return;
    b.addEventListener('click', function () {
      var open = b.getAttribute('aria-expanded') !== 'true';
      b.setAttribute('aria-expanded', open ? 'true' : 'false');
      document.body.classList.toggle('menu-open', open);
    });
  }
  // A problem's environment chosen on the staff form: the template follows it (a Java problem
  // starts from a Java class) unless staff have written their own template.
  function envTemplates() {
    var sel = document.querySelector('select[data-templates]');
    var data = sel && document.getElementById(sel.getAttribute('data-templates'));
    var area = sel && sel.form && sel.form.elements.template_code;
    if (!data || !area) return;
    var templates = JSON.parse(data.textContent);
    var current = sel.value;
    sel.addEventListener('change', function () {
      var before = (templates[current] || '').trim();
      if (area.value.trim() === '' || area.value.trim() === before) area.value = templates[sel.value] || '';
      current = sel.value;
    });
  }
  document.addEventListener('DOMContentLoaded', function () { localise(); countdowns(); prefs(); navToggle(); signInRetries(); envTemplates(); waitForStart(); });
})();
