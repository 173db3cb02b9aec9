// Every page: local times, live countdowns on the home page.
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
  document.addEventListener('DOMContentLoaded', function () { localise(); countdowns(); });
})();
