'use strict';
const { html } = require('../shared/html');
const { time } = require('../shared/format');
const ui = require('../lib/ui');
const { staffAsset } = require('../lib/assets');

const dash = (v) => (v === null || v === undefined || v === '' ? html`<span class="muted">—</span>` : v);

const ago = (s) => (s === null || s === undefined ? '—' : s < 120 ? `${s} s ago` : s < 7200 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`);

const utc = (iso) => (iso ? iso.replace('T', ' ').replace('Z', ' UTC') : '—');

// backup/'s status: last full, last binlog shipped and how far behind the server it is
function backupCard(b) {
  const pill = b.state === 'ok' ? html`<span class="pill ok">ok</span>` : html`<span class="pill bad">${b.state === 'none' ? 'no backups' : 'attention'}</span>`;
  return html`<div class="card" id="backup-status"><h2>Backups ${pill}</h2>
${b.problems.length ? html`<ul class="flash error" id="backup-problems">${b.problems.map((p) => html`<li>${p}</li>`)}</ul>` : ''}
${b.state === 'none' ? html`<p class="muted small">Status file: ${b.file}. See backup/README.md.</p>` : html`<dl class="kv">
<dt>Last full backup</dt><dd id="backup-last-full">${b.full ? html`${b.full.finished_at.replace('T', ' ').replace('Z', ' UTC')} (${ago(b.full.ageS)}), ${Math.round(b.full.bytes / 1024)} KB in ${fmtMs(b.full.duration_ms)}${b.full.mongo ? ', with MongoDB' : ''}${b.full.deferred_s ? `, deferred ${ago(b.full.deferred_s).replace(' ago', '')} (${b.full.deferred_for})` : ''}${b.full.priority === 'low' ? ', at low priority' : ''}` : '—'}</dd>
${b.deferred ? html`<dt>Next full</dt><dd id="backup-deferred">deferred (due ${ago(b.deferred.dueAgeS)}): ${b.deferred.reason}; runs when it ends, at the latest ${utc(b.deferred.runsBy)} (at low priority)</dd>` : ''}
<dt>Last binlog shipped</dt><dd id="backup-binlog">${b.binlog.file ? html`${b.binlog.file} at ${b.binlog.bytes} bytes, ${ago(b.binlog.lastShippedAgeS)}` : '—'}</dd>
<dt>Binlog lag</dt><dd id="backup-lag">${b.binlog.lagS === null ? '—' : html`${b.binlog.lagS} s${b.binlog.lagBytes ? html`, ${b.binlog.lagBytes} bytes` : ''}`}</dd>
${b.standby ? html`<dt>Standby</dt><dd id="backup-standby">receiving ${b.standby.io}, applying ${b.standby.sql}, ${dash(b.standby.secondsBehind)} s behind, semi-sync ${b.standby.semiSync}</dd>` : ''}
<dt>Target</dt><dd class="small">${b.target} (timeline ${b.timeline}, ${b.fulls} fulls kept)</dd>
<dt>Status</dt><dd class="small">written ${ago(b.updatedAgeS)}</dd></dl>`}
</div>`;
}

// The queue in view: the engine's and the webapp's own metrics (src/metrics/live.js);
// lib/public/admin-live.js refreshes every [data-live] from /admin/live.
function livePanel(live) {
  const e = (live && live.engine) || null;
  const w = (live && live.webapp) || null;
  const v = (x, unit = '') => (x === null || x === undefined ? '—' : `${x}${unit}`);
  const runs = e ? Object.entries(e.runs).map(([verdict, n]) => `${verdict} ${n}`).join(', ') || 'none yet' : '—';
  return html`<div class="card" id="live" data-live-url="/admin/live"><h2>Live figures <span class="muted small" data-live="at">${live ? time(live.at) : ''}</span></h2>
${!e || !w ? html`<p class="flash error" id="live-missing">${!e ? 'The engine\'s' : 'The webapp\'s'} metrics are not reachable now.</p>` : ''}
<div class="stats">
  <div class="stat"><span>Engine slots busy</span><strong id="live-slots" data-live="slots">${e ? `${e.slotsBusy} / ${e.slots}` : '—'}</strong></div>
  <div class="stat"><span>Waiting for the engine (in it + HAProxy)</span><strong id="live-queue" data-live="queue">${e ? `${e.waiting} + ${v(live.haproxyQueue)}` : '—'}</strong></div>
  <div class="stat"><span>Busy refusals (503)</span><strong data-live="refused">${v(e && e.refused)}</strong></div>
  <div class="stat"><span>Sign-ins checking / waiting</span><strong id="live-signin" data-live="signin">${w ? `${w.signinActive} / ${w.signinWaiting}` : '—'}</strong></div>
  <div class="stat"><span>Sign-ins refused (queue / limiter)</span><strong data-live="signinRefused">${w ? `${w.signinRefused} / ${w.loginLimited}` : '—'}</strong></div>
  <div class="stat"><span>Webapp requests / 5xx</span><strong data-live="requests">${w ? `${w.requests} / ${w.errors5xx}` : '—'}</strong></div>
</div>
<dl class="kv"><dt>Runs and evaluations by verdict</dt><dd data-live="runs">${runs}</dd>
<dt>95% of fresh compiles within</dt><dd data-live="compileP95">${v(e && e.compileP95Ms, ' ms')}</dd>
<dt>95% of runs within</dt><dd data-live="runP95">${v(e && e.runP95Ms, ' ms')}</dd>
<dt>95% of waits for a slot within</dt><dd data-live="waitP95">${v(e && e.waitP95Ms, ' ms')}</dd>
<dt>99% of pages within</dt><dd data-live="pageP99">${v(w && w.pageP99Ms, ' ms')}</dd></dl>
<p class="muted small">Totals since each service started; the percentiles are bucket bounds. With <code>MONITORING=1 make up</code>, Prometheus keeps their history and raises the exam alerts (monitoring/README.md).</p></div>`;
}

function knobsPage(req, { k, live = null }) {
  const h = k.haproxy;
  const engineSrv = h.servers && h.servers.find((s) => s.backend === 'engine');
  const webSrv = h.servers && h.servers.find((s) => s.backend === 'webapp');
  return ui.page(req, {
    title: 'Deployment',
    active: '/admin',
    scripts: [staffAsset('admin-live.js')],
    body: html`<div class="pagehead"><div><h1>Deployment</h1><p class="muted">What the running services use now (read-only). Change them with a tuning profile (tuning/) and restart or reload.</p></div>
<div class="actions"><a class="btn primary" href="/admin/readiness" id="readiness-link">Ready for an exam?</a> <a class="btn" href="/admin/haproxy/" id="haproxy-stats">HAProxy stats</a> <a class="btn" href="/lti/admin" id="lti-platforms">LTI platforms</a></div></div>
<div class="stats" id="knobs">
  <div class="stat"><span>HAProxy global maxconn</span><strong id="knob-haproxy-global">${dash(k.globalMaxconn)}</strong></div>
  <div class="stat"><span>HAProxy listen maxconn</span><strong id="knob-haproxy-listen">${dash(k.haproxy.frontend ? k.haproxy.frontend.maxconn : null)}</strong></div>
  <div class="stat"><span>Webapp server maxconn</span><strong id="knob-webapp-maxconn">${dash(webSrv && webSrv.maxconn)}</strong></div>
  <div class="stat"><span>Engine server maxconn</span><strong id="knob-engine-maxconn">${dash(engineSrv && engineSrv.maxconn)}</strong></div>
  <div class="stat"><span>Node workers</span><strong id="knob-workers">${dash(k.webWorkers)}</strong></div>
  <div class="stat"><span>Apache workers (MaxRequestWorkers)</span><strong id="knob-apache">${dash(k.apache.MaxRequestWorkers)}</strong></div>
  <div class="stat"><span>MySQL max connections</span><strong id="knob-mysql">${dash(k.mysql.max_connections)}</strong></div>
</div>
${livePanel(live)}
<div class="cols">
<div class="card"><h2>HAProxy (live, from its stats)</h2>
${h.error ? html`<p class="flash error">HAProxy's stats page (${k.statsUrl}) is ${h.error}: the values below come from the environment only.</p>` : html`
<dl class="kv"><dt>Front end</dt><dd>${h.frontend ? html`${h.frontend.name}: maxconn ${h.frontend.maxconn}, now ${h.frontend.current}, max seen ${h.frontend.max_seen}` : '—'}</dd></dl>
<table class="list compact"><thead><tr><th>Backend / server</th><th class="num">maxconn</th><th class="num">maxqueue</th><th class="num">Now</th><th class="num">Queued</th><th>Status</th></tr></thead>
<tbody>${(h.servers || []).map((s) => html`<tr><td>${s.backend} / ${s.server}</td><td class="num">${dash(s.maxconn)}</td><td class="num">${dash(s.maxqueue)}</td><td class="num">${s.current}</td><td class="num">${s.queued}</td><td>${s.status}</td></tr>`)}</tbody></table>`}
<h2>Engine (Apache prefork)</h2>
${k.apache.found ? html`<dl class="kv"><dt>MaxRequestWorkers</dt><dd>${k.apache.MaxRequestWorkers}</dd><dt>ServerLimit</dt><dd>${dash(k.apache.ServerLimit)}</dd><dt>StartServers</dt><dd>${dash(k.apache.StartServers)}</dd><dt>Config</dt><dd class="small">${k.apache.file}</dd></dl>`
  : html`<p class="muted">No rendered engine config at ${k.apache.file}.</p>`}
<h2>MariaDB</h2>
${k.mysql.error ? html`<p class="flash error">${k.mysql.error}</p>` : html`<dl class="kv"><dt>max_connections</dt><dd>${k.mysql.max_connections}</dd><dt>Connected now</dt><dd>${k.mysql.Threads_connected}</dd><dt>Most at once</dt><dd>${k.mysql.Max_used_connections}</dd>
<dt>innodb_buffer_pool_size</dt><dd>${Math.round(Number(k.mysql.innodb_buffer_pool_size) / 1048576)} MB</dd><dt>skip_name_resolve</dt><dd>${k.mysql.skip_name_resolve}</dd><dt>Version</dt><dd>${k.mysql.version}</dd>
<dt>Webapp pool</dt><dd>${dash(k.dbPoolSize)} per worker × ${dash(k.webWorkers)} workers</dd></dl>`}
</div>
<div class="card"><h2>Environment of the services</h2>
${k.env.map((g) => html`<h3>${g.group}</h3><dl class="kv">${g.vars.map((x) => html`<dt>${x.label} <code class="muted small">${x.name}</code></dt><dd>${dash(x.value)}${x.from && x.from !== 'environment' ? html` <span class="muted small">(${x.from})</span>` : ''}</dd>`)}</dl>`)}
${k.profile ? html`<h3>tuning/profile.env</h3><pre class="code">${k.profile.text}</pre>` : ''}
</div>
</div>
${backupCard(k.backup)}
<div class="card" id="tuning-report"><h2>Latest tuning report</h2>
${k.tuning ? html`<p class="muted small">${k.tuning.file} · ${time(k.tuning.mtime)}</p>${k.tuning.html ? html`<div class="statement">${k.tuning.html}</div>` : html`<p><a class="btn" href="/admin/tuning-report">Open the report</a></p>`}`
  : html`<p class="empty">No report yet. The tuning sweeps (tuning/) write var/tuning/report.md or report.html.</p>`}
</div>`,
  });
}

const fmtMs = (ms) => (ms === null || ms === undefined ? '—' : (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`));

function runLine(run) {
  const t = run.total || {};
  return html`${run.users} users (${run.label}): login errors ${run.login_error_pct ?? '—'}%, errors ${t.error_pct ?? '—'}%, 99% line ${fmtMs(t.p99_ms)}, average ${fmtMs(t.average_ms)}, ${t.throughput_per_s ? Math.round(t.throughput_per_s) : '—'} requests/s${run.finished ? html` · measured ${run.finished.replace('T', ' ').slice(0, 16)}` : ''}`;
}

const PROFILE_KNOBS = [['WEB_WORKERS', 'Node workers'], ['WEBAPP_MAXCONN', 'Webapp server maxconn'], ['HAPROXY_LISTEN_MAXCONN', 'HAProxy listen maxconn'],
  ['ENGINE_MAXCONN', 'Engine server maxconn'], ['ENGINE_MAX_WORKERS', 'Apache MaxRequestWorkers'], ['DB_MAX_CONNECTIONS', 'MySQL max_connections'], ['DB_POOL_SIZE', 'MySQL pool per worker']];

// Ready for N students? Yes (with the setting and its measured run), no (with the
// most this host held), or not measured (with the command that measures it).
function readinessPage(req, { r }) {
  const n = r.users;
  const sweepCmd = `tuning/tuning sweep --plan webapp --users ${Math.max(50, Math.round(n / 2))},${n} --param node_workers=1,2,4`;
  let verdict;
  if (r.error) verdict = html`<div class="flash error" id="ready-answer">${r.error}</div>`;
  else if (r.chosen) {
    verdict = html`<div class="answer yes" id="ready-answer"><strong>Yes: ready for ${n} students</strong> with ${r.chosen.label}.
      <p class="small">Measured: ${runLine(r.chosen)}.</p></div>
      <h2>Recommendation</h2>
      <dl class="kv" id="recommended">${PROFILE_KNOBS.map(([k, label]) => html`<dt>${label}</dt><dd>${r.chosen.profile && r.chosen.profile[k] !== undefined ? r.chosen.profile[k] : '—'}</dd>`)}</dl>
      <p>Write and apply it on the host:</p><pre class="code">tuning/tuning recommend --users ${n} --plan webapp --no-run
tuning/tuning apply var/tuning/recommended-webapp-${n}.env</pre>`;
  } else if (r.capacity) {
    verdict = html`<div class="answer no" id="ready-answer"><strong>No: this host held at most ${r.capacity.users} students</strong> (${r.capacity.label}), not ${n}.
      <p class="small">Best measured: ${runLine(r.capacity)}.</p>
      <p>Cap the exam at about ${r.capacity.users} students per host, add cores, or measure again with other settings:</p></div>
      <pre class="code">${sweepCmd}</pre>`;
  } else if (r.tuningMissing) {
    verdict = html`<div class="answer unknown" id="ready-answer"><strong>Not measured here: tuning/ is not installed beside this webapp</strong> (as in its container).
      <p>Run the sweep from a checkout on a host of the same size, against this deployment's address, then compare:</p></div>
      <pre class="code" id="sweep-command">${sweepCmd}
tuning/tuning report</pre>`;
  } else {
    verdict = html`<div class="answer unknown" id="ready-answer"><strong>Not measured: no sweep on this host reached ${n} students.</strong>
      <p>Run the sweep (JMeter at the thesis' workload; a few minutes per run), then the report for the plots:</p></div>
      <pre class="code" id="sweep-command">${sweepCmd}
tuning/tuning report</pre>`;
  }
  return ui.page(req, {
    title: 'Readiness',
    active: '/admin',
    body: html`${ui.crumbs([{ href: '/admin', label: 'Admin' }, { label: 'Readiness' }])}
<div class="pagehead"><div><h1>Ready for ${n} students?</h1><p class="muted">From the load runs measured on this host (${r.runs ?? 0} webapp runs recorded${r.latest ? html`, latest ${r.latest.replace('T', ' ').slice(0, 16)}` : ''}), judged by tuning/'s rule.</p></div>
<form method="get" action="/admin/readiness" class="inlineform" id="readiness-form"><label for="students" class="sr-only">Students</label><input id="students" name="students" type="number" min="1" max="1000000" value="${n}"><button class="btn" type="submit">Check</button></form></div>
<div class="card">${verdict}
${r.rule ? html`<p class="muted small">Rule: ${r.rule}.</p>` : ''}</div>
<div class="card" id="plots"><h2>Measured curves</h2>
${r.plots && r.plots.length ? html`<div class="plotgrid">${r.plots.map((p) => html`<figure><img src="/admin/readiness/plots/${p}" alt="${p.replace('.png', '').replace('-', ': ')} against users, per setting"><figcaption class="muted small">${p}</figcaption></figure>`)}</div>`
  : html`<p class="muted">No plots yet: <code>tuning/tuning report</code> draws them from the recorded runs.</p>`}
</div>
${r.candidates && r.candidates.length ? html`<div class="card tablewrap"><h2>Settings measured at ${n} users or more</h2><table class="list compact" id="candidates"><thead><tr><th>Setting</th><th>Result</th><th>Run</th></tr></thead>
<tbody>${r.candidates.map((c) => html`<tr><td>${c.label}</td><td>${c.passed ? html`<span class="pill ok">pass</span>` : html`<span class="pill bad">fail</span> <span class="small">${c.why.join('; ')}</span>`}</td><td class="small">${runLine({ ...c.run, label: c.label })}</td></tr>`)}</tbody></table></div>` : ''}`,
  });
}

module.exports = { knobsPage, readinessPage };
