'use strict';
// /admin: refreshes the "Live figures" panel from /admin/live every 5 s (admin/views.js).
(function () {
  const panel = document.getElementById('live');
  if (!panel) return;
  const v = (x, unit) => (x === null || x === undefined ? '—' : `${x}${unit || ''}`);
  const set = (key, text) => { const el = panel.querySelector(`[data-live="${key}"]`); if (el) el.textContent = text; };
  async function refresh() {
    let f;
    try {
      const res = await fetch(panel.dataset.liveUrl, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
      if (!res.ok) return;
      f = await res.json();
    } catch { return; }
    const e = f.engine;
    const w = f.webapp;
    set('at', new Date(f.at).toLocaleTimeString());
    set('slots', e ? `${e.slotsBusy} / ${e.slots}` : '—');
    set('queue', e ? `${e.waiting} + ${v(f.haproxyQueue)}` : '—');
    set('refused', v(e && e.refused));
    set('signin', w ? `${w.signinActive} / ${w.signinWaiting}` : '—');
    set('signinRefused', w ? `${w.signinRefused} / ${w.loginLimited}` : '—');
    set('requests', w ? `${w.requests} / ${w.errors5xx}` : '—');
    set('runs', e ? (Object.entries(e.runs).map(([k, n]) => `${k} ${n}`).join(', ') || 'none yet') : '—');
    set('compileP95', v(e && e.compileP95Ms, ' ms'));
    set('runP95', v(e && e.runP95Ms, ' ms'));
    set('waitP95', v(e && e.waitP95Ms, ' ms'));
    set('pageP99', v(w && w.pageP99Ms, ' ms'));
  }
  setInterval(refresh, 5000);
})();
